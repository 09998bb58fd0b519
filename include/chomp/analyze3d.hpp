/// @file analyze3d.hpp
/// @brief The status and winning moves of one 3D position, solved exactly
/// over the positions it contains (memoized recursion, exact keys).
#pragma once

#include <cstdint>
#include <vector>

#include "chomp/plane_partition.hpp"

namespace chomp {

struct Analysis3d {
  bool losing = false;
  std::vector<Cube> winning_moves;  ///< every move to a losing position, sorted
  std::uint64_t positions_solved = 0;  ///< the sub-positions the solver decided
};

/// Solves h, and each of its moves, by a search that stops at a
/// position's first winning move (so it solves some of the positions
/// reachable from h, not all). Throws std::length_error when more than
/// max_positions sub-positions would be needed.
Analysis3d analyze_3d(const Heights& h, std::uint64_t max_positions = 20'000'000);

}  // namespace chomp
