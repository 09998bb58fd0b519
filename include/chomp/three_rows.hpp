/// @file three_rows.hpp
/// @brief Three-rowed Chomp solved on its own: the losing positions with at
/// most three rows, for every tile count, by a method that shares nothing
/// with the sieve, and the file records that let a levels-only table be
/// checked with it.
///
/// A position (a, b, c), a >= b >= c >= 0, a >= 1, loses exactly when none
/// of its moves does: cutting the first row to j (1 <= j < a) leaves
/// (j, min(b, j), min(c, j)), the second row to j < b leaves (a, j, min(c, j)),
/// the third to j < c leaves (a, b, j). Each move makes the triple smaller
/// lexicographically, so one pass over the triples in that order, with a
/// byte per triple, decides them all (the pull over moves, not the sieve's
/// push over extensions; no ranking, no store). For n tiles that is
/// ~n^3/36 triples: 136,000 up to 170 tiles, solved in milliseconds.
///
/// Every level has few such losing positions (for each (b, c) at most one
/// a: tests/test_sieve.cpp), yet they sit among all the others in the
/// sieve's bitmaps, so agreement on them at every level is a check of the
/// engine (not of every position) that needs neither the store nor the
/// levels below: `chomp verify` makes it on every level it checks, and on a
/// levels-only copy against the list the copy records (doc/FILE_FORMAT.md,
/// /verifiable/three_row_losing).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace chomp {

/// A position of at most three rows: row lengths a >= b >= c >= 0.
using ThreeRows = std::array<int, 3>;

/// The losing positions with at most three rows and n tiles, for every
/// n = 1..max_tiles (index n - 1), each level's sorted lexicographically.
std::vector<std::vector<ThreeRows>> three_row_losing(int max_tiles);

/// Every position of n tiles with at most three rows (a >= b >= c >= 0).
std::vector<ThreeRows> three_row_positions(int n);

/// The /verifiable/three_row_losing group of a result file (its tiles,
/// row_1, row_2, row_3 columns), as one list per level 1..max_tiles, or
/// an empty result when the file has no such group. Throws H5Error.
std::vector<std::vector<ThreeRows>> read_three_row_record(const std::string& path, int max_tiles, bool& present);

}  // namespace chomp
