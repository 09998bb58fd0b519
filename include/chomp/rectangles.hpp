/// @file rectangles.hpp
/// @brief The winning first moves of every a x b rectangle, from one solve of
/// the enclosing box, and the table's CSV and HDF5 files.
///
/// Every a x b rectangle with a <= A and b <= B is a position inside the
/// A x B box, and so is everything it leads to: one BoundedSolver of the box
/// answers them all. Rectangles are listed with a <= b (a rectangle and its
/// transpose have transposed winning moves), 2 <= a, rows first.
///
/// HDF5 layout (format "chomp rectangles", format_version 1):
///
///     /boards/rows, /boards/cols              uint32  one row per rectangle
///     /boards/winning_moves                   uint32  how many winning first moves
///     /moves/rows, /moves/cols                uint32  one row per winning move: its board,
///     /moves/move_row, /moves/move_col        uint32  the tile taken (1-based),
///     /moves/leaves                           string  the position left, rows top first
///
/// Root attributes (doc/FILE_FORMAT.md): program, version, git_revision,
/// license, references, format, format_version,
/// command_line, max_rows, max_cols, box_rows, box_cols, positions (solved),
/// threads, solve_seconds, hdf5_version, tbb_version, compiler, build_type,
/// host, start_utc, end_utc. The file is written under a temporary name and
/// renamed when complete, so a file with the final name is always whole.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "chomp/bounded.hpp"
#include "chomp/position.hpp"

namespace chomp {

struct RectangleResult {
  int rows = 0;
  int cols = 0;
  std::vector<Move> winning;  ///< row-then-column order
};

struct RectangleTable {
  int max_rows = 0, max_cols = 0;
  int box_rows = 0, box_cols = 0;  ///< the box solved: min(max_rows, max_cols) x max_cols
  std::uint64_t positions = 0;     ///< positions of the box
  double solve_seconds = 0;
  std::vector<RectangleResult> boards;  ///< by rows, then columns
};

/// The box that answers every rectangle up to max_rows x max_cols.
Rows rectangles_box(int max_rows, int max_cols);

/// Solves the box and lists every rectangle's winning first moves. Throws
/// std::invalid_argument for bounds below 2 and std::length_error for a box
/// beyond kMaxDomainPositions.
RectangleTable solve_rectangles(int max_rows, int max_cols, const BoundedProgressFn& progress = {});

/// The table as CSV: a header, then one line per winning move:
/// rows,cols,move_row,move_col,leaves (leaves quoted: "13,13,13,11,11,11").
void write_rectangles_csv(const RectangleTable& table, std::ostream& out);

/// Provenance the library cannot know.
struct RectangleProvenance {
  std::string command_line;
  int threads = 0;
  std::string start_utc;
};

/// Writes the HDF5 file (see the file comment); throws H5Error.
void write_rectangles_h5(const RectangleTable& table, const RectangleProvenance& provenance,
                         const std::string& path);

/// Reads a file written by write_rectangles_h5 back (for checks and tools);
/// throws H5Error when it is not one.
RectangleTable read_rectangles_h5(const std::string& path);

}  // namespace chomp
