/// @file sieve_testing.hpp
/// @brief Test seams of the sieve and its files (internal, not part of the
/// library's interface): smaller rounds, windows and batches, so that small
/// test runs take the many-round, many-window and many-batch paths that
/// only large runs reach with config::kRoundMarks, config::kWindowBytes and
/// the batch sizes of resume.cpp and h5_output.cpp.
#pragma once

#include <atomic>
#include <cstdint>

namespace chomp::detail {

/// Marks pending per round (per process) when not 0; config::kRoundMarks
/// otherwise. Read when a marking pass starts.
extern std::atomic<std::uint64_t> g_round_marks_for_testing;

/// Window bytes (per process) when not 0; config::kWindowBytes otherwise.
extern std::atomic<std::uint64_t> g_window_bytes_for_testing;

/// Stored ranks a resume reads at a time to compare the recomputed last
/// level when not 0 (resume.cpp); 2^22 otherwise.
extern std::atomic<std::uint64_t> g_compare_batch_for_testing;

/// Chunks of /resume/losing_ranks the reader takes at a time when not 0
/// (h5_output.cpp); 256 otherwise.
extern std::atomic<std::uint64_t> g_read_batch_for_testing;

/// When not 0, the sieve decides every position itself instead of deciding
/// the canonical ones and taking the others as their transposes (read when
/// a sieve is made): the straightforward way, to compare with.
extern std::atomic<std::uint64_t> g_no_transposes_for_testing;

/// Items cut because a thread reached its share of a round, their rests
/// taken up in the next round (counted for the tests).
extern std::atomic<std::uint64_t> g_items_cut;

/// A seam's value, or `normal` while it is 0 (not set).
inline std::uint64_t seam_or(const std::atomic<std::uint64_t>& seam, std::uint64_t normal) {
  const std::uint64_t forced = seam.load(std::memory_order_relaxed);
  return forced ? forced : normal;
}

/// Sets a seam for the lifetime of the object (tests only).
class ForTesting {
 public:
  ForTesting(std::atomic<std::uint64_t>& seam, std::uint64_t value) : seam_(seam) { seam_ = value; }
  ~ForTesting() { seam_ = 0; }
  ForTesting(const ForTesting&) = delete;
  ForTesting& operator=(const ForTesting&) = delete;

 private:
  std::atomic<std::uint64_t>& seam_;
};

}  // namespace chomp::detail
