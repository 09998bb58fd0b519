/// @file verify.hpp
/// @brief Checks of a finished level that do not use the sieve: the stored
/// losing positions are valid ranks, closed under transposition, and obey
/// the rule that defines them, move by move.
///
/// Transposing a position (rows <-> columns) keeps its status. Engines
/// before the one that decides canonical positions only (sieve.hpp) never
/// used that: they enumerated extensions row by row, and a missing or extra
/// mark anywhere would have made a level's losing set lose its symmetry, so
/// for their files (of the committed tables only data/levels-100.h5, which
/// keeps no store) this is an independent test. The
/// present engine takes every position whose first row is shorter than its
/// first column as a transpose, so for its files the check tests only the
/// positions whose first row and column are equally long (decided both
/// ways) and the stored ranks; check_moves is the independent one.
///
/// The rule itself is checked position by position, from the moves of each
/// position rather than from the extensions of losing ones: a position is
/// losing exactly when no move leads to a losing position (with at least one
/// tile left; the lone poisoned tile is losing). Given correct lower levels,
/// a wrong status of any checked position shows, whatever its symmetry.
#pragma once

#include <cstdint>
#include <string>

#include "chomp/losing_store.hpp"
#include "chomp/ranking.hpp"

namespace chomp {

/// What the check of one level found.
struct LevelVerdict {
  std::uint64_t checked = 0;  ///< positions checked (transposes looked up, or checked by the rule)
  std::string problem;        ///< empty when the level passed
};

/// Which position of each stride of `every` a sample takes: with seed 0 the
/// first; with any other seed, a position drawn from (seed, n, which) alike
/// for every stride of the level (in the last, shorter stride, at most its
/// last), so that checks with other seeds look at other positions. `which`
/// tells a level's samples apart (0: losing positions, 1: ranks).
std::uint64_t sample_offset(std::uint64_t seed, int n, int which, std::uint64_t every);

/// Checks that the transpose of one losing position of level n in every
/// stride of `every` (sample_offset; every = 1 checks all) is in `store`'s
/// level n too. `table` must reach n. Runs on the threads of the caller's
/// oneTBB arena.
LevelVerdict check_transposes(const PartitionTable& table, int n, const LosingStore& store, std::uint64_t every,
                              std::uint64_t seed = 0);

/// Checks the rule on level n: one losing position stored there in every
/// stride of `every` has no move to a position stored as losing at a lower
/// level, and one rank in every stride of `every`, stored as losing or not,
/// is stored as losing exactly when it has no such move (which one of each
/// stride: sample_offset with `seed`; seed 0, the first). `store` must hold
/// levels 1..n (`table` must reach n); the verdict counts the positions
/// checked. Runs on the threads of the caller's oneTBB arena.
LevelVerdict check_moves(const PartitionTable& table, int n, const LosingStore& store, std::uint64_t every,
                         std::uint64_t seed = 0);

/// The same with a sample of the losing positions (one in `every_losing`)
/// and one of the ranks (one in `every_rank`) of their own sizes.
LevelVerdict check_moves(const PartitionTable& table, int n, const LosingStore& store, std::uint64_t every_losing,
                         std::uint64_t every_rank, std::uint64_t seed);

}  // namespace chomp
