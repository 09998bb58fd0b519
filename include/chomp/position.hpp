/// @file position.hpp
/// @brief Chomp positions as bit-packed lattice paths, and the row-length view.
///
/// A position is the set of tiles still on the board. Every reachable position
/// is a staircase (a Young diagram) with row lengths l1 >= l2 >= ... >= lr > 0.
/// Tiles are named (row, column), 1-based, (1,1) at the top left: the poisoned
/// tile.
///
/// ## The lattice path
/// The staircase is stored as its boundary: the path from the bottom-left
/// corner of the bounding box to its top-right corner, one bit per unit step,
/// `0` for a step east (right) and `1` for a step north (up). Step k is bit
/// (k % 64) of word k / 64. The path of `r` rows and `c` columns has `r + c`
/// steps: `c` zeros and `r` ones; it starts with an east step (the last row is
/// not empty) and ends with a north step (the first row reaches the right edge).
///
/// For example `3,1` (rows `###` and `#`) walks E N E E N: bits 0b10010 read
/// from step 0 upwards.
///
/// The tiles are the cells above-left of the path, so the tile count is the
/// sum, over the east steps, of the number of north steps that follow it.
///
/// ## Limits
/// The path holds at most kMaxPathSteps = 256 steps, so any staircase with
/// rows + columns <= 256 fits. Every position with at most kMaxTiles = 255
/// tiles fits (a staircase with n tiles has rows + columns <= n + 1). Larger
/// positions are refused with std::invalid_argument.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace chomp {

/// Row lengths, top row first, non-increasing and positive.
using Rows = std::vector<int>;

inline constexpr int kMaxPathSteps = 256;
inline constexpr int kMaxTiles = kMaxPathSteps - 1;
/// The most tiles of a position stored in a result file (--store-losing):
/// a path of at most 64 steps fits one word (LatticePath::word), and every
/// position of up to 63 tiles has at most 64 steps.
inline constexpr int kMaxStoredTiles = 63;

/// A row/column pair naming a tile, 1-based.
struct Move {
  int row = 0;
  int col = 0;
  friend bool operator==(const Move&, const Move&) = default;
};

/// Thrown for a malformed position or an impossible move; what() is one line
/// that says what is wrong.
class InvalidPosition : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The boundary of a staircase, one bit per step (see the file comment).
class LatticePath {
 public:
  /// The empty board (no tiles, no steps).
  LatticePath() = default;

  /// Builds the path of a staircase; throws InvalidPosition when the rows are
  /// not positive and non-increasing or the path would not fit.
  static LatticePath from_rows(std::span<const int> rows);

  Rows rows() const;
  int num_rows() const { return num_rows_; }
  int num_cols() const { return length_ - num_rows_; }
  int length() const { return length_; }
  bool empty() const { return length_ == 0; }
  std::uint64_t tiles() const;

  /// Step k (0-based from the bottom-left corner): true = north, false = east.
  bool step(int k) const { return (words_[k >> 6] >> (k & 63)) & 1U; }

  /// The path's bits as one word, for paths of at most 64 steps (every
  /// position with at most 63 tiles): step k is bit k, and the highest set
  /// bit is the final north step, so the word alone gives the length.
  /// Throws InvalidPosition for longer paths.
  std::uint64_t word() const;

  /// Rows become columns; the path is reversed and complemented.
  LatticePath transposed() const;

  /// True when tile (row, col) is still on the board.
  bool contains(Move m) const;

  /// The position after taking tile (row, col) with every tile below and to
  /// the right of it. Throws InvalidPosition if the tile is not on the board.
  LatticePath after(Move m) const;

  /// Row lengths separated by commas, e.g. "7,3,3,1,1"; "" for the empty board.
  std::string to_string() const;

  /// The staircase drawn with '#', one line per row.
  std::string picture() const;

  friend bool operator==(const LatticePath&, const LatticePath&) = default;

 private:
  void set_step(int k) { words_[k >> 6] |= std::uint64_t{1} << (k & 63); }

  std::array<std::uint64_t, kMaxPathSteps / 64> words_{};
  int length_ = 0;
  int num_rows_ = 0;
};

/// Checks that rows describe a staircase that fits the encoding; throws
/// InvalidPosition naming the first problem.
void validate_rows(std::span<const int> rows);

/// Parses "7,3,3,1,1" (spaces around numbers allowed). Throws InvalidPosition
/// with a one-line reason for empty input, letters, signs, zero or increasing
/// rows, numbers too large, or over-long input.
Rows parse_rows(std::string_view text);

/// Parses rows of '#' (one row per line, blank lines around ignored), e.g.
/// "###\n#\n". Throws InvalidPosition like parse_rows.
Rows parse_picture(std::string_view text);

/// Parses either form: a picture if the text contains '#', else row lengths.
Rows parse_position(std::string_view text);

/// The longest text parse_position accepts (a picture of '#'; row lengths
/// take at most a sixteenth of it): a reader of standard input stops there.
inline constexpr std::size_t kMaxPositionText = 65536;

/// Rows as "7,3,3,1,1".
std::string rows_to_string(std::span<const int> rows);

/// Total number of tiles of a staircase.
std::uint64_t tile_count(std::span<const int> rows);

/// Transpose of a staircase (its column lengths).
Rows transpose(std::span<const int> rows);

/// The staircase after taking (row, col) and everything below-right of it.
/// Throws InvalidPosition if that tile is not on the board.
Rows apply_move(std::span<const int> rows, Move m);

}  // namespace chomp
