/// @file reference_extensions.hpp
/// @brief The extensions of a position built the slow way, for the tests of
/// the marking kernel: a block at each corner, row by row, ranked from
/// scratch with PartitionTable::rank (no code shared with the kernel).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "chomp/position.hpp"
#include "chomp/ranking.hpp"

namespace chomp::testing {

/// Every position of |mu| + d tiles with a move to mu: at each corner (row
/// j, the first of a run of k rows of length c, or the new row below mu), a
/// partition of d into at most k parts (any number for the new row), each
/// at most the room above the corner (unbounded at the top). Appends offset
/// + rank of each to `out`. Only the corners at row `first_row` (0-based)
/// or below, and the new row; with top_least > 0, only the top corner's
/// blocks whose first part is at least top_least. With
/// some_canonical_new_row, the new row's positions only when one of them at
/// least is canonical (its first row at least its number of rows).
inline void reference_extension_ranks(const PartitionTable& t, const Rows& mu, int d, std::vector<std::uint64_t>& out,
                                      std::uint64_t offset = 0, std::size_t first_row = 0, int top_least = 0,
                                      bool some_canonical_new_row = false) {
  Rows l;
  Rows nu;
  for (std::size_t j = 0; j <= mu.size(); ++j) {
    const std::size_t corner_first = out.size();
    bool canonical_made = false;  // a canonical position among this corner's
    if (j > 0 && j < mu.size() && mu[j] == mu[j - 1]) continue;  // not a corner
    if (j < first_row && j < mu.size()) continue;                 // a move of a row left out
    if (top_least > 0 && j > 0) break;                            // the top corner alone
    const int c = j < mu.size() ? mu[j] : 0;
    std::size_t k = 0;
    while (j + k < mu.size() && mu[j + k] == c) ++k;
    const std::size_t rows_cap = j < mu.size() ? k : static_cast<std::size_t>(d);
    const int room = j == 0 ? d : mu[j - 1] - c;
    const auto add = [&](const auto& self, int left, int largest) -> void {
      if (left == 0) {
        l = mu;
        if (j == mu.size()) l.resize(mu.size() + nu.size(), 0);
        for (std::size_t i = 0; i < nu.size(); ++i) l[j + i] += nu[i];
        canonical_made |= l.front() >= static_cast<int>(l.size());
        out.push_back(offset + t.rank(l));
        return;
      }
      if (nu.size() == rows_cap) return;
      for (int x = std::min(largest, left); x >= 1; --x) {
        nu.push_back(x);
        self(self, left - x, x);
        nu.pop_back();
      }
    };
    if (top_least > 0) {
      // A first part x >= top_least, then any block under it.
      for (int x = std::min(room, d); x >= top_least; --x) {
        nu.assign(1, x);
        add(add, d - x, x);
      }
      nu.clear();
    } else {
      add(add, d, room);
    }
    if (j == mu.size() && some_canonical_new_row && !canonical_made) out.resize(corner_first);
  }
}

}  // namespace chomp::testing
