/// @file extensions.hpp
/// @brief The one-move extensions of a position: the positions that reduce to
/// it in one move. These are what a losing position marks as winning.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "chomp/position.hpp"
#include "chomp/ranking.hpp"

namespace chomp {

/// Ranks (among the positions with tiles(rows) + extra tiles) of every
/// position that reduces to `rows` in one move and has `extra` more tiles,
/// each exactly once, in the order the sieve's kernel produces them.
std::vector<std::uint64_t> extension_ranks(const PartitionTable& table, std::span<const int> rows,
                                           int extra);

/// The same extensions as staircases.
std::vector<Rows> extensions_of(const PartitionTable& table, std::span<const int> rows, int extra);

}  // namespace chomp
