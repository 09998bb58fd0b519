/// @file plane_ranking.hpp
/// @brief Counting, enumerating and ranking the 3D positions with n cubes
/// (the plane partitions of n, OEIS A000219: 1, 1, 3, 6, 13, 24, 48, ...).
///
/// ## The order
/// A plane partition is the sequence of its rows ν1 ⊇ ν2 ⊇ ... (each row a
/// partition, each row no larger than the one above entry by entry). Plane
/// partitions are ordered row by row, top row first, rows compared as
/// vectors of heights (std::vector's lexicographic order, a row that is a
/// prefix of another coming first). With N(r, λ) the number of sequences of
/// non-empty rows ν1 ⊆ λ, ν2 ⊆ ν1, ... with r cubes in all (N(0, λ) = 1),
///
///     rank(ν1, ν2, ...) = sum over rows i of sum over ν' < ν_i, ν' ⊆ ν_{i-1},
///                         1 <= |ν'| <= R_i of N(R_i - |ν'|, ν'),
///     R_i = the cubes in rows i, i+1, ...,   ν_0 = unbounded.
///
/// for_each_plane_partition visits the positions in this order, so the
/// k-th visited has rank k. PL(n) comes from MacMahon's product
/// prod_k (1 - q^k)^-k, independent of the ranking's table.
///
/// The table N and each state's list of rows ν' (with running sums) is
/// built lazily and kept: memory grows with the levels ranked (about a
/// million entries for n = 20). Not thread-safe; one PlaneRanking a thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "chomp/plane_partition.hpp"

namespace chomp {

/// PL(n) for n = 0..max_cubes (max_cubes <= kMaxCubes), exact in 64 bits.
std::vector<std::uint64_t> plane_partition_counts(int max_cubes);

/// Calls f on every plane partition of n cubes (n >= 1) in rank order.
void for_each_plane_partition(int n, const std::function<void(const Heights&)>& f);

class PlaneRanking {
 public:
  /// Ranks positions of up to max_cubes cubes (1..kMaxCubes).
  explicit PlaneRanking(int max_cubes);

  /// PL(n).
  std::uint64_t count(int n) const;

  /// The rank of h among the positions with cube_count(h) cubes. Throws
  /// InvalidPosition if h is not a plane partition or too large.
  std::uint64_t rank(const Heights& h);

  /// The position of n cubes with rank r (r < count(n)); throws
  /// std::out_of_range otherwise.
  Heights unrank(int n, std::uint64_t r);

 private:
  struct State {
    std::vector<std::vector<int>> rows;  // the rows ν' in order
    std::vector<std::uint64_t> before;   // sum of N(r - |ν'|, ν') over the rows before each
    std::uint64_t total = 0;             // N(r, λ)
  };
  using Key = std::pair<int, std::vector<int>>;  // (r, λ cut to r parts, each at most r)
  const State& state(int r, const std::vector<int>& lambda);

  int max_;
  std::vector<std::uint64_t> counts_;
  std::map<Key, State> states_;
};

}  // namespace chomp
