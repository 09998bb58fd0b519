/// @file analyze3d.hpp
/// @brief The status and winning moves of one 3D position, solved exactly
/// over the positions it contains (memoized recursion, exact keys).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "chomp/plane_partition.hpp"

namespace chomp {

struct Analysis3d {
  bool losing = false;
  std::vector<Cube> winning_moves;  ///< every move to a losing position, sorted
  std::uint64_t positions_solved = 0;  ///< the sub-positions the solver decided
};

/// The sub-positions analyze_3d solves at most by default.
inline constexpr std::uint64_t kAnalyze3dMaxPositions = 20'000'000;

/// Called now and then during a long solve with the sub-positions solved
/// so far and max_positions.
using Analyze3dProgressFn = std::function<void(std::uint64_t solved, std::uint64_t max_positions)>;

/// Solves h, and each of its moves, by a search that stops at a
/// position's first winning move (so it solves some of the positions
/// reachable from h, not all). Throws std::length_error when more than
/// max_positions sub-positions would be needed (about 90 bytes each: the
/// default is about 2 GB and a few minutes). Most positions
/// of up to 40 cubes need under a second; some of 50 or more need millions.
Analysis3d analyze_3d(const Heights& h, std::uint64_t max_positions = kAnalyze3dMaxPositions,
                      const Analyze3dProgressFn& progress = {});

}  // namespace chomp
