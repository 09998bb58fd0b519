/// @file window.cpp
/// @brief The window of bitmaps the sieve holds: several whole levels, or
/// one slice of a level (the positions of a range of first rows), within
/// the memory budget.

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>

#include "config.hpp"
#include "sieve_impl.hpp"

namespace chomp {

namespace detail {

std::uint64_t segment_aligned_bits(std::uint64_t bits) {
  return (bits + config::kSegmentBits - 1) & ~(config::kSegmentBits - 1);
}

std::uint64_t share_bits(std::uint64_t bits, int processes) {
  const std::uint64_t segments = bits >> config::kSegmentBitsLog2, p = static_cast<std::uint64_t>(processes);
  return ((segments + p - 1) / p) << config::kSegmentBitsLog2;
}

int whole_window_end(const PartitionTable& t, int n0, int max, std::uint64_t window_bits, int processes) {
  std::uint64_t bits = 0;
  int n1 = n0 - 1;
  while (n1 < max && share_bits(bits + segment_aligned_bits(t.positions(n1 + 1)), processes) <= window_bits) {
    ++n1;
    bits += segment_aligned_bits(t.positions(n1));
  }
  return n1;
}

std::vector<Slice> slices_of(const PartitionTable& t, int n, std::uint64_t window_bits, int processes,
                             int min_slices) {
  const std::uint64_t p = t.positions(n);
  if (min_slices <= 1 && share_bits(segment_aligned_bits(p), processes) <= window_bits) return {Slice{1, n}};
  // From the highest first row down, as many first rows as fit a slice (or
  // about p / min_slices positions when more slices are asked for).
  const std::uint64_t wanted = min_slices > 1 ? (p + static_cast<std::uint64_t>(min_slices) - 1) /
                                                    static_cast<std::uint64_t>(min_slices)
                                              : p;
  std::vector<Slice> slices;
  int hi = n;
  while (hi >= 1) {
    int lo = hi;
    if (share_bits(WindowLevel::slice_bits(t, n, lo, hi), processes) > window_bits)
      throw BudgetTooSmall("level " + std::to_string(n) + "'s positions with a first row of " + std::to_string(lo) +
                               " (" + std::to_string(t.count(n, lo) - t.count(n, lo - 1)) +
                               ") do not fit a window of " + std::to_string(window_bits / 8) + " bytes",
                           0);
    while (lo > 1 && share_bits(WindowLevel::slice_bits(t, n, lo - 1, hi), processes) <= window_bits &&
           t.count(n, hi) - t.count(n, lo - 1) < wanted)
      --lo;
    slices.push_back(Slice{lo, hi});
    hi = lo - 1;
  }
  return slices;
}

NextWindow next_window(const PartitionTable& t, int n, int max, std::uint64_t window_bits, int processes,
                       const SieveOptions& o) {
  const bool forced = o.min_slices > 0 && n >= o.slice_from;
  // (A slice_from beyond the last level cuts none: windows end at it.)
  const int last_whole = o.min_slices > 0 ? std::min(max, std::max(n - 1, o.slice_from - 1)) : max;
  const int last = forced ? n - 1 : whole_window_end(t, n, last_whole, window_bits, processes);
  if (last >= n) return NextWindow{last, {}};
  return NextWindow{n, slices_of(t, n, window_bits, processes, forced ? o.min_slices : 0)};
}

}  // namespace detail

WindowLevel& Sieve::Impl::window_level(int n) { return window[static_cast<std::size_t>(n - window.front().n)]; }

void Sieve::Impl::open_window(const std::vector<WindowLevel>& parts, bool fill) {
  const detail::PhaseTimer timer(phases.opening);
  window = parts;
  window_first.store(parts.empty() ? 0 : parts.front().n, std::memory_order_relaxed);
  window_last.store(parts.empty() ? 0 : parts.back().n, std::memory_order_relaxed);
  std::uint64_t bits = 0;
  for (WindowLevel& w : window) {
    w.base = bits;
    w.marks = 0;
    bits += w.bits();
  }
  window_bits = bits;
  // This process's segments: a contiguous share of the window's (all of
  // them for one process alone).
  const std::uint64_t segments = bits >> config::kSegmentBitsLog2;
  const auto P = static_cast<std::uint64_t>(procs), I = static_cast<std::uint64_t>(me);
  own_lo = segments * I / P;
  own_hi = segments * (I + 1) / P;
  const std::uint64_t words = (own_hi - own_lo) << (config::kSegmentBitsLog2 - 6);
  bool fresh = false;
  if (words * sizeof(std::uint64_t) > bitmap_memory.size()) {
    bitmap_memory = detail::HugeBuffer();  // release before allocating the larger one
    bitmap_memory = detail::HugeBuffer(words * sizeof(std::uint64_t));
    fresh = true;
  }
  if (fill) {
    // Fresh anonymous pages are zero already; clearing them too touched
    // every page twice (the kernel's zeroing, then ours: 2% of N = 110).
    if (!fresh)
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, words, 1 << 16),
                        [&](const tbb::blocked_range<std::uint64_t>& r) {
        std::memset(bitmap() + r.begin(), 0, (r.end() - r.begin()) * sizeof(std::uint64_t));
      });
    if (options.transposes) set_not_canonical_bits();
  }
  if (distributed()) {
    std::uint64_t threads = static_cast<std::uint64_t>(tuning.threads);
    group->sum(std::span<std::uint64_t>(&threads, 1));
    group_threads = threads;
  }
}

void Sieve::Impl::set_not_canonical_bits() {
  constexpr std::uint64_t words_per_seg = config::kSegmentBits / 64;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(own_lo, own_hi, 1),
                    [&](const tbb::blocked_range<std::uint64_t>& range) {
    for (std::uint64_t s = range.begin(); s != range.end(); ++s) {
      const std::uint64_t bit = s << config::kSegmentBitsLog2;
      auto it = std::upper_bound(window.begin(), window.end(), bit,
                                 [](std::uint64_t b, const WindowLevel& w) { return b < w.base; });
      const WindowLevel& w = *(it - 1);
      const std::uint64_t lo = w.held + (bit - w.base);
      const std::uint64_t hi = std::min(lo + config::kSegmentBits, w.hi);
      if (lo < hi) detail::set_not_canonical(table, w.n, lo, hi, bitmap() + (s - own_lo) * words_per_seg);
    }
  });
}

}  // namespace chomp
