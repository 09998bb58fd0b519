/// @file scan.cpp
/// @brief The scan: a marked level's (or slice's) clear bits are its losing
/// positions; their ranks go to the store, a batch of segments at a time.

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <bit>

#include "config.hpp"
#include "sieve_impl.hpp"

namespace chomp {

namespace {

/// This process's segments of a window level (or slice) and their clear
/// bits, counted before they are collected.
struct LevelScan {
  std::uint64_t from = 0, to = 0;     // window bits of this process's part of the level's ranks [lo, hi)
  std::uint64_t first_bit = 0;        // this process's first window bit
  std::uint64_t s0 = 0, s1 = 0;       // its window segments s0..s1-1 that hold them
  std::vector<std::uint64_t> counts;  // clear bits per segment
  std::uint64_t total = 0;

  /// Calls f(word bit, clear bits) for each word of segment s in [from, to).
  template <class F>
  void for_each_word(const std::uint64_t* bitmap, std::uint64_t s, F&& f) const {
    const std::uint64_t lo = std::max(s << config::kSegmentBitsLog2, from);
    const std::uint64_t hi = std::min((s + 1) << config::kSegmentBitsLog2, to);
    for (std::uint64_t w = lo & ~std::uint64_t{63}; w < hi; w += 64) {
      std::uint64_t clear = ~bitmap[(w - first_bit) >> 6];
      if (w < lo) clear &= ~std::uint64_t{0} << (lo - w);
      if (hi - w < 64) clear &= (std::uint64_t{1} << (hi - w)) - 1;
      f(w, clear);
    }
  }
};

}  // namespace

std::uint64_t Sieve::Impl::scan_into_store(int n) {
  const detail::PhaseTimer timer(phases.scanning);
  const WindowLevel& w = window_level(n);
  LevelScan scan;
  scan.first_bit = own_lo << config::kSegmentBitsLog2;
  scan.from = std::max(w.base + (w.lo - w.held), scan.first_bit);
  scan.to = std::min(w.base + (w.hi - w.held), own_hi << config::kSegmentBitsLog2);
  if (scan.from < scan.to) {
    scan.s0 = scan.from >> config::kSegmentBitsLog2;
    scan.s1 = ((scan.to - 1) >> config::kSegmentBitsLog2) + 1;
  }
  scan.counts.assign(static_cast<std::size_t>(scan.s1 - scan.s0), 0);
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(scan.s0, scan.s1, 1), [&](const tbb::blocked_range<std::uint64_t>& r) {
    for (std::uint64_t s = r.begin(); s != r.end(); ++s) {
      std::uint64_t count = 0;
      scan.for_each_word(bitmap(), s, [&](std::uint64_t, std::uint64_t clear) {
        count += static_cast<std::uint64_t>(std::popcount(clear));
      });
      scan.counts[static_cast<std::size_t>(s - scan.s0)] = count;
    }
  });
  for (const std::uint64_t c : scan.counts) scan.total += c;

  // Hands the ranks to emit(span) in increasing order, a batch of segments
  // at a time through one reused buffer (a whole level's ranks at 8 bytes
  // each would be 3.7 GB at n = 150). A segment with more losing ranks than
  // a batch holds (a small level's) gets a batch of its own.
  const auto collect = [&](auto&& emit) {
    const std::uint64_t batch = tuning.scan_batch;
    std::vector<std::uint64_t> at(scan.counts.size() + 1);
    for (std::uint64_t s = scan.s0; s < scan.s1;) {
      std::uint64_t e = s, size = 0;
      while (e < scan.s1 && (e == s || size + scan.counts[static_cast<std::size_t>(e - scan.s0)] <= batch)) {
        at[static_cast<std::size_t>(e - scan.s0)] = size;
        size += scan.counts[static_cast<std::size_t>(e - scan.s0)];
        ++e;
      }
      if (scan_buffer.size() < size) scan_buffer.resize(static_cast<std::size_t>(size));
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(s, e, 1), [&](const tbb::blocked_range<std::uint64_t>& r) {
        for (std::uint64_t t = r.begin(); t != r.end(); ++t) {
          std::uint64_t* out = scan_buffer.data() + at[static_cast<std::size_t>(t - scan.s0)];
          scan.for_each_word(bitmap(), t, [&](std::uint64_t word, std::uint64_t clear) {
            for (; clear; clear &= clear - 1)
              *out++ = w.held + (word - w.base) + static_cast<std::uint64_t>(std::countr_zero(clear));
          });
        }
      }, tbb::simple_partitioner());
      emit(std::span<const std::uint64_t>(scan_buffer.data(), static_cast<std::size_t>(size)));
      s = e;
    }
  };

  if (!distributed()) {
    collect([&](std::span<const std::uint64_t> ranks) { store.append(ranks); });
    store.end_run();
    return scan.total;
  }

  // A distributed sieve: one sum carries every process's count and the stop
  // flag (if any process was told to stop, all abandon the level); then each
  // process in turn sends its ranks to process 0, which writes the store,
  // a batch at a time (processes own increasing ranges, so the ranks arrive
  // in order). Each message also tells every process whether more follow.
  const auto P = static_cast<std::size_t>(procs);
  std::vector<std::uint64_t> v(P + 1, 0);
  v[static_cast<std::size_t>(me)] = scan.total;
  v[P] = stop_requested() ? 1 : 0;
  group->sum(v);
  if (v[P]) throw interrupted(n);
  std::vector<std::uint64_t> send, received;
  std::vector<std::size_t> send_counts(P), received_counts;
  if (me == 0) collect([&](std::span<const std::uint64_t> ranks) { store.append(ranks); });
  for (std::size_t r = 1; r < P; ++r) {
    // Process r sends process 0 a batch and every process a flag (1 while
    // more batches follow); the others only receive.
    const auto exchange = [&](std::span<const std::uint64_t> ranks, bool more) {
      send.clear();
      std::fill(send_counts.begin(), send_counts.end(), 0);
      if (me == static_cast<int>(r)) {
        for (std::size_t q = 0; q < P; ++q) {
          if (q == 0) send.insert(send.end(), ranks.begin(), ranks.end());
          send.push_back(more ? 1 : 0);
          send_counts[q] = (q == 0 ? ranks.size() : 0) + 1;
        }
      }
      group->exchange(send, send_counts, received, received_counts);
      std::size_t at = 0;
      for (std::size_t q = 0; q < r; ++q) at += received_counts[q];
      const std::size_t count = received_counts[r];
      if (me == 0 && count > 1) store.append(std::span<const std::uint64_t>(received.data() + at, count - 1));
      return count > 0 && received[at + count - 1] != 0;
    };
    if (me == static_cast<int>(r)) {
      collect([&](std::span<const std::uint64_t> ranks) { exchange(ranks, true); });
      exchange({}, false);
    } else {
      while (exchange({}, false)) {
      }
    }
  }
  if (me == 0) store.end_run();
  std::uint64_t total = 0;
  for (std::size_t r = 0; r < P; ++r) total += v[r];
  return total;
}

}  // namespace chomp
