/// @file ranking.cpp
/// @brief Partition-count table and rank / unrank of positions with n tiles.

#include "chomp/ranking.hpp"

#include <stdexcept>
#include <string>

#include "unrank_step.hpp"

namespace chomp {

PartitionTable::PartitionTable(int max_tiles)
    : max_(max_tiles), stride_(static_cast<std::size_t>(max_tiles) + 1) {
  if (max_tiles < 1 || max_tiles > kMaxTiles)
    throw std::invalid_argument("tile count " + std::to_string(max_tiles) +
                                " is outside 1.." + std::to_string(kMaxTiles));
  table_.assign(stride_ * stride_, 0);
  // P(m, k) = P(m, k-1) + P(m-k, k): either no part equals k, or remove one k.
  for (int m = 0; m <= max_; ++m) {
    std::uint64_t* r = table_.data() + static_cast<std::size_t>(m) * stride_;
    r[0] = (m == 0) ? 1 : 0;
    for (int k = 1; k <= max_; ++k) {
      const int kk = k < m ? k : m;
      if (k > m) {
        r[k] = r[m];
        continue;
      }
      r[k] = r[kk - 1] + count(m - kk, kk);
    }
  }
  by_col_.assign(stride_ * stride_, 0);
  for (int m = 0; m <= max_; ++m)
    for (int k = 0; k <= max_; ++k)
      by_col_[static_cast<std::size_t>(k) * stride_ + static_cast<std::size_t>(m)] = row(m)[k];
}

std::uint64_t PartitionTable::rank(std::span<const int> rows) const {
  validate_rows(rows);
  const std::uint64_t n = tile_count(rows);
  if (n > static_cast<std::uint64_t>(max_))
    throw std::invalid_argument("position has " + std::to_string(n) +
                                " tiles; this table ranks at most " + std::to_string(max_));
  std::uint64_t r = 0;
  int remaining = static_cast<int>(n);
  for (int len : rows) {
    r += row(remaining)[len - 1];
    remaining -= len;
  }
  return r;
}

void PartitionTable::unrank_into(int remaining, int max_part, std::uint64_t rank, Rows& out) const {
  while (remaining > 0) {
    if (rank == 0) {  // the smallest partition: all ones
      out.insert(out.end(), static_cast<std::size_t>(remaining), 1);
      return;
    }
    const std::uint64_t* r = row(remaining);
    // Largest first part a <= max_part with P(remaining, a-1) <= rank.
    const int lo = detail::next_row_length(r, max_part < remaining ? max_part : remaining, rank);
    rank -= r[lo - 1];
    out.push_back(lo);
    remaining -= lo;
    max_part = lo;
  }
}

Rows PartitionTable::unrank(int n, std::uint64_t rank) const {
  if (n < 1 || n > max_)
    throw std::invalid_argument("tile count " + std::to_string(n) + " is outside 1.." +
                                std::to_string(max_));
  if (rank >= positions(n))
    throw std::invalid_argument("rank " + std::to_string(rank) + " is not below p(" +
                                std::to_string(n) + ") = " + std::to_string(positions(n)));
  Rows out;
  unrank_into(n, n, rank, out);
  return out;
}

}  // namespace chomp
