/// @file plane_key.hpp
/// @brief (internal) A 3D position as an exact 192-bit key, and an exact set
/// of keys, for the 3D sieve.
///
/// The key is the height matrix written in unary: row by row, each height
/// h as h one-bits and a zero-bit, each row closed by one more zero-bit.
/// Bit 0 is the first bit. A position of n cubes with c columns of cubes
/// and r rows takes n + c + r <= 3n bits, so every position of at most
/// kMaxCubes = 63 cubes fits in three words and the code is injective (it
/// decodes uniquely: a zero right after a zero closes a row, two rows
/// closed in a row end the matrix). No key is all zeros.
///
/// KeySet is open addressing over the whole keys: the hash only chooses
/// where to start looking, membership compares all 192 bits, so the set is
/// exact (no collision can change an answer).
#pragma once

#include <cstdint>
#include <vector>

namespace chomp::detail {

struct Key3 {
  std::uint64_t w[3] = {0, 0, 0};
  friend bool operator==(const Key3&, const Key3&) = default;
  friend auto operator<=>(const Key3&, const Key3&) = default;
  bool zero() const { return (w[0] | w[1] | w[2]) == 0; }
};

/// Appends runs of one-bits and zero-bits to a key.
class KeyWriter {
 public:
  KeyWriter() = default;
  /// Continues after the first `bits` bits of k (the later bits are cleared).
  KeyWriter(const Key3& k, int bits) : pos_(bits) {
    for (int i = 0; i < 3; ++i) {
      const int lo = i * 64;
      if (bits >= lo + 64)
        w_[i] = k.w[i];
      else if (bits > lo)
        w_[i] = k.w[i] & ((std::uint64_t{1} << (bits - lo)) - 1);
    }
  }
  /// v one-bits (1 <= v <= 63) and a zero-bit.
  void height(int v) {
    const std::uint64_t m = (std::uint64_t{1} << v) - 1;
    const int i = pos_ >> 6, b = pos_ & 63;
    w_[i] |= m << b;
    if (b + v > 64) w_[i + 1] |= m >> (64 - b);
    pos_ += v + 1;
  }
  void end_row() { ++pos_; }
  int bits() const { return pos_; }
  Key3 key() const { return Key3{{w_[0], w_[1], w_[2]}}; }

 private:
  std::uint64_t w_[4] = {0, 0, 0, 0};  // one word of room for a run that spills
  int pos_ = 0;
};

/// An exact set of keys, built once and then read by many threads.
class KeySet {
 public:
  KeySet() = default;
  explicit KeySet(const std::vector<Key3>& keys) {
    std::size_t cap = 16;
    while (cap < 2 * keys.size()) cap *= 2;
    slots_.assign(cap, Key3{});
    mask_ = cap - 1;
    for (const Key3& k : keys) {
      std::size_t i = start(k);
      while (!slots_[i].zero() && !(slots_[i] == k)) i = (i + 1) & mask_;
      if (slots_[i].zero()) slots_[i] = k, ++size_;
    }
  }
  bool contains(const Key3& k) const {
    if (slots_.empty()) return false;
    for (std::size_t i = start(k);; i = (i + 1) & mask_) {
      if (slots_[i] == k) return true;
      if (slots_[i].zero()) return false;
    }
  }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return slots_.size() * sizeof(Key3); }
  /// The keys, in slot order.
  std::vector<Key3> keys() const {
    std::vector<Key3> out;
    for (const Key3& k : slots_)
      if (!k.zero()) out.push_back(k);
    return out;
  }

 private:
  std::size_t start(const Key3& k) const {
    std::uint64_t x = k.w[0] * 0x9E3779B97F4A7C15ULL ^ k.w[1] * 0xC2B2AE3D27D4EB4FULL ^ k.w[2] * 0x165667B19E3779F9ULL;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 32;
    return static_cast<std::size_t>(x) & mask_;
  }
  std::vector<Key3> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace chomp::detail
