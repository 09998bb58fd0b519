/// @file ranking.hpp
/// @brief A bijection between the positions with n tiles and 0 .. p(n)-1.
///
/// On an unbounded board the positions with n tiles are the partitions of n.
/// They are ordered lexicographically by their rows, top row first, ascending:
/// all positions whose first row is shorter come first, and positions with the
/// same first row are ordered by the rest of the staircase in the same way.
/// With P(m, k) the number of partitions of m into parts no larger than k,
///
///     rank(l1, l2, ..., lr) = sum over i of P(R_i, l_i - 1),
///     R_i = n - l1 - ... - l(i-1)   (the tiles in rows i..r).
///
/// The table P is built once (O(N^2) entries) and every value is exact in
/// 64-bit integers: p(n) < 2^64 for every n <= kMaxTiles.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "chomp/position.hpp"

namespace chomp {

class PartitionTable {
 public:
  /// Builds P(m, k) for 0 <= m, k <= max_tiles. Throws std::invalid_argument
  /// when max_tiles is outside 1 .. kMaxTiles.
  explicit PartitionTable(int max_tiles);

  int max_tiles() const { return max_; }

  /// Partitions of m into parts no larger than k (k may exceed m).
  std::uint64_t count(int m, int k) const {
    return row(m)[k < m ? k : m];
  }

  /// p(n): the number of positions with n tiles.
  std::uint64_t positions(int n) const { return count(n, n); }

  /// Pointer to P(m, k) for k = 0 .. max_tiles (k > m repeats P(m, m)).
  const std::uint64_t* row(int m) const { return table_.data() + static_cast<std::size_t>(m) * stride_; }

  /// Pointer to P(m, k) for m = 0 .. max_tiles: the same table stored by
  /// column. The marking kernel walks down columns (fixed part size, shrinking
  /// remainder), so this layout keeps its lookups within a few cache lines.
  const std::uint64_t* col(int k) const { return by_col_.data() + static_cast<std::size_t>(k) * stride_; }

  /// Rank of a staircase among the positions with the same number of tiles;
  /// InvalidPosition for rows that are no staircase, std::invalid_argument
  /// when it has more tiles than the table reaches.
  std::uint64_t rank(std::span<const int> rows) const;

  /// The staircase with n tiles and the given rank (rank < p(n));
  /// std::invalid_argument for n outside 1..max_tiles or a rank past p(n).
  Rows unrank(int n, std::uint64_t rank) const;

  /// Rank within the partitions of `remaining` with parts <= max_part, written
  /// into out (appended). Shared by unrank and the incremental decoders.
  void unrank_into(int remaining, int max_part, std::uint64_t rank, Rows& out) const;

 private:
  int max_;
  std::size_t stride_;
  std::vector<std::uint64_t> table_;
  std::vector<std::uint64_t> by_col_;
};

}  // namespace chomp
