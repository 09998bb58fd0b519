/// @file height_grid.hpp
/// @brief (internal) A 3D position's height matrix in fixed arrays, for the
/// loops that convert many positions (the 3D sieve's store: keys to ranks
/// and back, macmahon_ranking.hpp), without a vector a row.
#pragma once

#include <cstdint>

#include "chomp/plane_partition.hpp"

namespace chomp::detail {

/// Rows 0..rows-1, row i of len[i] heights h[i][0..len[i]-1], all positive,
/// non-increasing along rows and down columns, len non-increasing. Cells
/// outside the rows' lengths are not read (they need not be zero).
struct HeightGrid {
  int rows = 0;
  std::uint8_t len[kMaxCubes + 1] = {};
  std::uint8_t h[kMaxCubes + 1][kMaxCubes + 1];

  int cubes() const {
    int n = 0;
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < len[i]; ++j) n += h[i][j];
    return n;
  }
};

inline void to_grid(const Heights& hs, HeightGrid& g) {
  g.rows = static_cast<int>(hs.size());
  for (int i = 0; i < g.rows; ++i) {
    const auto& row = hs[static_cast<std::size_t>(i)];
    g.len[i] = static_cast<std::uint8_t>(row.size());
    for (std::size_t j = 0; j < row.size(); ++j) g.h[i][j] = static_cast<std::uint8_t>(row[j]);
  }
}

inline Heights to_heights(const HeightGrid& g) {
  Heights hs(static_cast<std::size_t>(g.rows));
  for (int i = 0; i < g.rows; ++i) hs[static_cast<std::size_t>(i)].assign(g.h[i], g.h[i] + g.len[i]);
  return hs;
}

}  // namespace chomp::detail
