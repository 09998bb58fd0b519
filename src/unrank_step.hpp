/// @file unrank_step.hpp
/// @brief The step both rankings (ranking.cpp, bounded_ranking.cpp) unrank
/// by: the length of the next row, found by bisection in the counts of the
/// rows it may have.
#pragma once

#include <cstdint>

namespace chomp::detail {

/// The largest v in 1..hi with counts[v - 1] <= rank, where counts[v] is
/// the number of ways to go on with the next row at most v long (so
/// non-decreasing in v): the next row of the position with this rank among
/// those that go on from here.
inline int next_row_length(const std::uint64_t* counts, int hi, std::uint64_t rank) {
  int lo = 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (counts[mid - 1] <= rank)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

}  // namespace chomp::detail
