/// @file plane_partition.hpp
/// @brief Chomp in three dimensions: positions as plane partitions.
///
/// A 3D position is a pile of unit cubes pushed into the corner of a box.
/// Cube (i, j, k) (1-based: row i, column j, height k) is on the board when
/// k <= h(i, j), where the height matrix h is non-increasing along every row
/// and every column: a plane partition. The poisoned cube is (1, 1, 1).
///
/// A move takes a cube c = (i, j, k) and every cube with all three
/// coordinates >= those of c: h(r, s) becomes min(h(r, s), k - 1) for every
/// r >= i, s >= j. Whoever must take the poisoned cube loses, so the single
/// cube is a losing position, as the single tile is in 2D.
///
/// ## Text form
/// The rows of the height matrix, top row first, separated by '/', each row
/// its positive heights separated by commas: `3,2/1` is h(1,1) = 3,
/// h(1,2) = 2, h(2,1) = 1 (six cubes). A flat position (every height 1) is
/// the 2D staircase whose row lengths are the row lengths here: `1,1,1/1`
/// is the 2D position `3,1`.
///
/// ## Limits
/// At most kMaxCubes = 63 cubes (the sieve's keys hold 3 bits a cube).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chomp/position.hpp"

namespace chomp {

/// The height matrix, top row first; every entry positive, rows and
/// columns non-increasing (a row is no longer than the row above it).
using Heights = std::vector<std::vector<int>>;

inline constexpr int kMaxCubes = 63;

/// A cube, 1-based: row, column, height (layer).
struct Cube {
  int row = 0;
  int col = 0;
  int layer = 0;
  friend bool operator==(const Cube&, const Cube&) = default;
  friend auto operator<=>(const Cube&, const Cube&) = default;
};

/// Checks that h is a plane partition of at most kMaxCubes cubes; throws
/// InvalidPosition naming the first problem (an empty row, a zero or
/// negative height, a height larger than the one to its left or above it,
/// a row longer than the row above, too many cubes).
void validate_heights(const Heights& h);

/// Parses "3,2/1" (spaces around numbers allowed). Throws InvalidPosition
/// with a one-line reason: empty input or row, letters or signs, zero
/// heights, heights that grow along a row or down a column, a row longer
/// than the one above, more than kMaxCubes cubes.
Heights parse_heights(std::string_view text);

/// "3,2/1".
std::string heights_to_string(const Heights& h);

/// The height matrix as a grid of right-aligned numbers, one line per row.
std::string heights_picture(const Heights& h);

int cube_count(const Heights& h);

/// True when cube c is on the board.
bool contains(const Heights& h, Cube c);

/// Every cube on the board, sorted (row, column, layer).
std::vector<Cube> cubes_of(const Heights& h);

/// The position after taking c and every cube with all coordinates >= c's.
/// Throws InvalidPosition if c is not on the board.
Heights apply_move(const Heights& h, Cube c);

/// Every legal move except taking the poisoned cube (1,1,1), sorted (none
/// for the empty board or the poisoned cube alone).
std::vector<Cube> moves_3d(const Heights& h);

/// The six permutations of the axes, as the coordinate order each puts
/// first, second and third: {0,1,2} is the identity (row, column, layer),
/// {1,0,2} transposes the height matrix, {2,1,0} swaps rows with layers...
const std::array<std::array<int, 3>, 6>& axis_permutations();

/// The position with its axes permuted: cube (c0, c1, c2) goes to
/// (c[p[0]], c[p[1]], c[p[2]]).
Heights permute_axes(const Heights& h, const std::array<int, 3>& p);

/// The smallest of the six images, their height matrices compared as
/// vectors of rows (lexicographically, not as heights_to_string's text);
/// equal for symmetric positions.
Heights canonical_3d(const Heights& h);

/// A flat position (one layer) from a 2D staircase, and back; flat_rows
/// throws InvalidPosition if some height exceeds 1.
Heights flat_position(const Rows& rows);
Rows flat_rows(const Heights& h);

}  // namespace chomp
