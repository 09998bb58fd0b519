/// @file brute_force.hpp
/// @brief The obviously correct solver the fast engines are checked against:
/// memoized recursion over every move, and enumeration of small boards and
/// of the positions of a level.
#pragma once

#include <algorithm>
#include <map>
#include <span>
#include <vector>

#include "chomp/position.hpp"

namespace chomp::testing {

/// A position is losing iff every move leads to a winning one; taking (1,1)
/// (leaving nothing) is never a good move, so the single tile is losing.
class BruteForce {
 public:
  bool losing(const Rows& rows) {
    if (rows == Rows{1}) return true;
    auto it = memo_.find(rows);
    if (it != memo_.end()) return it->second;
    bool lose = true;
    for (int i = 1; i <= static_cast<int>(rows.size()) && lose; ++i)
      for (int j = 1; j <= rows[static_cast<std::size_t>(i - 1)] && lose; ++j) {
        if (i == 1 && j == 1) continue;
        if (losing(apply_move(rows, {i, j}))) lose = false;
      }
    memo_[rows] = lose;
    return lose;
  }

  std::vector<Move> winning_moves(const Rows& rows) {
    std::vector<Move> out;
    for (int i = 1; i <= static_cast<int>(rows.size()); ++i)
      for (int j = 1; j <= rows[static_cast<std::size_t>(i - 1)]; ++j)
        if (!(i == 1 && j == 1) && losing(apply_move(rows, {i, j}))) out.push_back({i, j});
    return out;
  }

 private:
  std::map<Rows, bool> memo_;
};

/// Every staircase inside `shape` (the empty board first), by brute force:
/// each row in turn takes every length from 0 up to the row above and the
/// shape.
inline std::vector<Rows> all_inside(std::span<const int> shape) {
  std::vector<Rows> out;
  Rows cur;
  auto rec = [&](auto&& self, std::size_t k, int cap) -> void {
    out.push_back(cur);
    if (k == shape.size()) return;
    for (int v = 1; v <= std::min(cap, shape[k]); ++v) {
      cur.push_back(v);
      self(self, k + 1, v);
      cur.pop_back();
    }
  };
  rec(rec, 0, shape.empty() ? 0 : shape[0]);
  return out;
}

/// The positions with n tiles (the partitions of n) in increasing
/// lexicographic order of their rows, by plain recursion.
inline std::vector<Rows> partitions(int n) {
  std::vector<Rows> out;
  Rows prefix;
  auto rec = [&](auto&& self, int left, int max_part) -> void {
    if (left == 0) {
      out.push_back(prefix);
      return;
    }
    for (int a = 1; a <= std::min(left, max_part); ++a) {
      prefix.push_back(a);
      self(self, left - a, a);
      prefix.pop_back();
    }
  };
  rec(rec, n, n);
  return out;
}

}  // namespace chomp::testing
