/// @file verify.hpp
/// @brief Checks of a finished level that do not use the sieve: the stored
/// losing positions are valid ranks and closed under transposition.
///
/// Transposing a position (rows <-> columns) keeps its status, but the sieve
/// never uses that: it enumerates extensions row by row, and a position and
/// its transpose have different ranks, extensions and marks. A missing or
/// extra mark anywhere would make a level's losing set lose its symmetry, so
/// checking it is an independent test of levels no other program reached.
#pragma once

#include <cstdint>
#include <string>

#include "chomp/losing_store.hpp"
#include "chomp/ranking.hpp"

namespace chomp {

/// What the check of one level found.
struct LevelVerdict {
  std::uint64_t checked = 0;  ///< losing positions whose transpose was looked up
  std::string problem;        ///< empty when the level passed
};

/// Checks that the transpose of every `every`-th losing position of level
/// n (the first of each chunk of `every` ranks, so every = 1 checks all) is
/// in `level` too. `table` must reach n. Runs on the threads of the caller's
/// oneTBB arena.
LevelVerdict check_transposes(const PartitionTable& table, int n, const LosingLevel& level, std::uint64_t every);

}  // namespace chomp
