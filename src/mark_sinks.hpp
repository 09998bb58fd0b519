/// @file mark_sinks.hpp
/// @brief Sinks of the marking kernel that OR marks straight into a bitmap:
/// one thread's plain ORs (small windows), and any thread's atomic ORs,
/// batched and clipped to a range of bits (calls too large for the buckets,
/// and a distributed sieve's split calls).
#pragma once

#include <atomic>
#include <cstdint>

#include "buckets.hpp"

namespace chomp::detail {

/// Marks straight into the bitmap (small windows, one thread).
struct DirectSink {
  std::uint64_t* words;
  std::uint64_t marks = 0;
  void point(std::uint64_t r) {
    words[r >> 6] |= std::uint64_t{1} << (r & 63);
    ++marks;
  }
  void range(std::uint64_t first, std::uint64_t count) {
    detail::set_bit_range(words, first, count);
    marks += count;
  }
};

/// Marks ORed straight into the window's bitmap by any thread (atomic ORs),
/// counted: a call of the kernel with more extensions than the buckets
/// should take (config::kDirectCallMarks). Its marks come in roughly
/// descending rank order, a sweep through the level, but a locked OR waits
/// for its word's line: the marks are held a batch at a time, each word
/// prefetched as it comes, and ORed when the batch is full (as
/// transposes.cpp clears bits). flush() when the call is done. A process
/// of a distributed sieve keeps only the marks of its own window bits
/// [lo, lo + span), its bitmap's bit 0 being window bit lo; the others are
/// dropped, uncounted (their owners make them: split calls).
struct AtomicSink {
  explicit AtomicSink(std::uint64_t* w, std::uint64_t first = 0, std::uint64_t count = ~std::uint64_t{0})
      : words(w), lo(first), span(count) {}
  AtomicSink(const AtomicSink&) = delete;
  AtomicSink& operator=(const AtomicSink&) = delete;
  std::uint64_t* words;
  std::uint64_t lo, span;
  std::uint64_t marks = 0;
  void point(std::uint64_t r) {
    r -= lo;
    if (r >= span) return;
    __builtin_prefetch(words + (r >> 6), 1);
    batch_[queued_++] = r;
    if (queued_ == kBatch) flush();
  }
  void range(std::uint64_t first, std::uint64_t count) {
    // Clipped to [lo, lo + span): wrapping differences, as in point.
    if (first - lo >= span) {
      if (lo - first >= count) return;  // wholly below (or above) the own bits
      count -= lo - first;
      first = lo;
    }
    first -= lo;
    if (count > span - first) count = span - first;
    marks += count;
    while (count) {
      const std::uint64_t bit = first & 63, n = count < 64 - bit ? count : 64 - bit;
      const std::uint64_t mask = (n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1)) << bit;
      std::atomic_ref<std::uint64_t>(words[first >> 6]).fetch_or(mask, std::memory_order_relaxed);
      first += n;
      count -= n;
    }
  }
  void flush() {
    for (int i = 0; i < queued_; ++i)
      std::atomic_ref<std::uint64_t>(words[batch_[i] >> 6])
          .fetch_or(std::uint64_t{1} << (batch_[i] & 63), std::memory_order_relaxed);
    marks += static_cast<std::uint64_t>(queued_);
    queued_ = 0;
  }

 private:
  static constexpr int kBatch = 64;
  std::uint64_t batch_[kBatch];
  int queued_ = 0;
};

}  // namespace chomp::detail
