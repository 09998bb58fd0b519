/// @file bit_copy.hpp
/// @brief ORing a run of bits from one bitmap into another at any bit
/// offsets, a word at a time: the rows' bits into a level
/// (tail_marks.cpp), the patterns of positions that are not canonical into
/// a window (extensions.cpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace chomp::detail {

/// 64 bits of `src` from bit `pos` on. Unless pos is a multiple of 64, it
/// reads the word after pos's too, which must exist.
inline std::uint64_t bits_at(const std::uint64_t* src, std::uint64_t pos) {
  const std::uint64_t w = pos >> 6;
  const unsigned sh = static_cast<unsigned>(pos & 63);
  return sh == 0 ? src[w] : (src[w] >> sh) | (src[w + 1] << (64 - sh));
}

/// The low n bits set (all for n >= 64).
inline std::uint64_t low_mask(std::uint64_t n) { return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1; }

/// dst bits [to, to + count) |= src bits [from, from + count); src must
/// hold a word past the one with its last bit (bits_at). With
/// kAtomicEdges, the words that hold other bits too (the first and the
/// last, when partial) are ORed atomically, for runs next to each other
/// that other threads OR at the same time.
template <bool kAtomicEdges>
void or_bits(std::uint64_t* dst, std::uint64_t to, const std::uint64_t* src, std::uint64_t from, std::uint64_t count) {
  if (count == 0) return;
  const auto or_edge = [](std::uint64_t& w, std::uint64_t bits) {
    if constexpr (kAtomicEdges) {
      if (bits) std::atomic_ref<std::uint64_t>(w).fetch_or(bits, std::memory_order_relaxed);
    } else {
      w |= bits;
    }
  };
  const unsigned head = static_cast<unsigned>(to & 63);
  if (head != 0) {
    const std::uint64_t n = std::min<std::uint64_t>(64 - head, count);
    or_edge(dst[to >> 6], (bits_at(src, from) & low_mask(n)) << head);
    to += n, from += n, count -= n;
  }
  std::uint64_t* d = dst + (to >> 6);
  for (; count >= 64; count -= 64, from += 64) *d++ |= bits_at(src, from);
  if (count > 0) or_edge(*d, bits_at(src, from) & low_mask(count));
}

}  // namespace chomp::detail
