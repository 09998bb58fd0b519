/// @file rectangles.cpp
/// @brief Winning first moves of every rectangle, and their CSV and HDF5 files.

#include "chomp/rectangles.hpp"

#include <tbb/info.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <stdexcept>

#include "h5_provenance.hpp"
#include "h5_util.hpp"

namespace chomp {

namespace {
constexpr const char* kFormat = "chomp rectangles";
constexpr int kRectanglesFormatVersion = 1;
}  // namespace

Rows rectangles_box(int max_rows, int max_cols) {
  if (max_rows < 2 || max_cols < 2)
    throw std::invalid_argument("rectangles start at 2 x 2; --max-rows and --max-cols must be at least 2");
  // a <= b <= max_cols, so rows beyond max_cols are never needed.
  return box_shape(std::min(max_rows, max_cols), max_cols);
}

RectangleTable solve_rectangles(int max_rows, int max_cols, const BoundedProgressFn& progress) {
  const Rows box = rectangles_box(max_rows, max_cols);
  const BoundedSolver solver(box, progress);
  RectangleTable t;
  t.max_rows = max_rows;
  t.max_cols = max_cols;
  t.box_rows = static_cast<int>(box.size());
  t.box_cols = max_cols;
  t.positions = solver.ranking().total_positions();
  t.solve_seconds = solver.seconds();
  for (int a = 2; a <= t.box_rows; ++a)
    for (int b = a; b <= max_cols; ++b)
      t.boards.push_back({a, b, solver.winning_moves(Rows(static_cast<std::size_t>(a), b))});
  return t;
}

void write_rectangles_csv(const RectangleTable& table, std::ostream& out) {
  out << "rows,cols,move_row,move_col,leaves\n";
  for (const RectangleResult& r : table.boards)
    for (const Move& m : r.winning)
      out << r.rows << ',' << r.cols << ',' << m.row << ',' << m.col << ",\""
          << rows_to_string(apply_move(Rows(static_cast<std::size_t>(r.rows), r.cols), m)) << "\"\n";
}

void write_rectangles_h5(const RectangleTable& table, const RectangleProvenance& prov, const std::string& path) {
  using h5::check;
  using h5::Handle;
  using h5::write_attr;
  using h5::write_column;
  const std::string tmp = path + ".tmp";
  // A failed write (a full disk) leaves no .tmp behind.
  struct RemoveUnlessRenamed {
    const std::string& tmp;
    bool renamed = false;
    ~RemoveUnlessRenamed() {
      std::error_code ec;  // (a folder named like the temporary file is not ours to remove)
      if (!renamed && std::filesystem::is_regular_file(std::filesystem::symlink_status(tmp, ec)))
        std::remove(tmp.c_str());
    }
  } cleanup{tmp};
  {
    Handle file = h5::create_whole_file(tmp, kFormat);
    const hid_t f = file.get();
    write_attr(f, "format_version", std::int64_t{kRectanglesFormatVersion});
    write_attr(f, "command_line", prov.command_line);
    write_attr(f, "max_rows", std::int64_t{table.max_rows});
    write_attr(f, "max_cols", std::int64_t{table.max_cols});
    write_attr(f, "box_rows", std::int64_t{table.box_rows});
    write_attr(f, "box_cols", std::int64_t{table.box_cols});
    write_attr(f, "positions", static_cast<std::int64_t>(table.positions));
    write_attr(f, "threads", std::int64_t{prov.threads});
    write_attr(f, "solve_seconds", table.solve_seconds);
    write_attr(f, "start_utc", prov.start_utc);

    std::vector<std::uint32_t> b_rows, b_cols, b_count, m_rows, m_cols, m_row, m_col;
    std::vector<std::string> leaves;
    for (const RectangleResult& r : table.boards) {
      b_rows.push_back(static_cast<std::uint32_t>(r.rows));
      b_cols.push_back(static_cast<std::uint32_t>(r.cols));
      b_count.push_back(static_cast<std::uint32_t>(r.winning.size()));
      for (const Move& m : r.winning) {
        m_rows.push_back(static_cast<std::uint32_t>(r.rows));
        m_cols.push_back(static_cast<std::uint32_t>(r.cols));
        m_row.push_back(static_cast<std::uint32_t>(m.row));
        m_col.push_back(static_cast<std::uint32_t>(m.col));
        leaves.push_back(rows_to_string(apply_move(Rows(static_cast<std::size_t>(r.rows), r.cols), m)));
      }
    }
    const auto u32 = [](hid_t g, const char* name, const std::vector<std::uint32_t>& v, const std::string& d) {
      write_column(g, name, H5T_STD_U32LE, H5T_NATIVE_UINT32, v, d);
    };
    Handle boards = check(H5Gcreate2(f, "boards", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                          "cannot create group /boards in " + tmp);
    write_attr(boards.get(), "description", "one row per a x b rectangle, 2 <= a <= b, rows then columns");
    u32(boards.get(), "rows", b_rows, "rows a of the rectangle");
    u32(boards.get(), "cols", b_cols, "columns b of the rectangle");
    u32(boards.get(), "winning_moves", b_count, "number of winning first moves");
    Handle moves = check(H5Gcreate2(f, "moves", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                         "cannot create group /moves in " + tmp);
    write_attr(moves.get(), "description", "one row per winning first move of a rectangle");
    u32(moves.get(), "rows", m_rows, "rows a of the rectangle");
    u32(moves.get(), "cols", m_cols, "columns b of the rectangle");
    u32(moves.get(), "move_row", m_row, "row of the tile taken, 1-based from the top");
    u32(moves.get(), "move_col", m_col, "column of the tile taken, 1-based from the left");
    write_column(moves.get(), "leaves", leaves, "the losing position left, row lengths top first");
    write_attr(f, "end_utc", utc_now());
    check(H5Fflush(f, H5F_SCOPE_GLOBAL), "cannot flush " + tmp + " (is the disk full?)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw H5Error("cannot rename " + tmp + " to " + path);
  cleanup.renamed = true;
}

RectangleTable read_rectangles_h5(const std::string& path) {
  using h5::check;
  using h5::Handle;
  Handle file = h5::open_for_reading(path);
  const h5::Attributes attrs = h5::read_attributes(file.get(), path);
  for (const char* name : {"max_rows", "max_cols", "box_rows", "box_cols", "positions"})
    h5::expect_kind(attrs, name, h5::Kind::integer, path);
  h5::expect_kind(attrs, "format", h5::Kind::text, path);
  h5::expect_kind(attrs, "solve_seconds", h5::Kind::real, path);
  const auto format = attrs.text.find("format");
  if (format == attrs.text.end() || format->second != kFormat)
    throw H5Error(path + " is not a rectangle table written by chomp rectangles");
  const auto number = [&](const char* name) -> int {
    const auto it = attrs.numbers.find(name);
    if (it == attrs.numbers.end()) throw H5Error(path + " lacks the attribute " + name);
    return static_cast<int>(it->second);
  };
  RectangleTable t;
  t.max_rows = number("max_rows");
  t.max_cols = number("max_cols");
  t.box_rows = number("box_rows");
  t.box_cols = number("box_cols");
  t.positions = static_cast<std::uint64_t>(attrs.numbers.count("positions") ? attrs.numbers.at("positions") : 0);
  t.solve_seconds = attrs.reals.count("solve_seconds") ? attrs.reals.at("solve_seconds") : 0;
  Handle boards = h5::open_group(file.get(), "boards", "cannot open /boards in " + path);
  Handle moves = h5::open_group(file.get(), "moves", "cannot open /moves in " + path);
  // A table of the largest box solvable lists some 32,000 boards and as
  // many moves, give or take: 2^24 rows bound what a file may claim.
  const hsize_t most = hsize_t{1} << 24;
  const auto u32 = [&](hid_t g, const char* name) {
    return h5::read_column<std::uint32_t>(g, name, H5T_NATIVE_UINT32, most,
                                          std::string("cannot read dataset ") + name + " of " + path);
  };
  const auto b_rows = u32(boards.get(), "rows"), b_cols = u32(boards.get(), "cols");
  const auto m_rows = u32(moves.get(), "rows"), m_cols = u32(moves.get(), "cols");
  const auto m_row = u32(moves.get(), "move_row"), m_col = u32(moves.get(), "move_col");
  if (b_rows.size() != b_cols.size() || m_rows.size() != m_cols.size() || m_row.size() != m_rows.size() ||
      m_col.size() != m_rows.size())
    throw H5Error(path + ": datasets of different lengths (damaged file)");
  std::size_t k = 0;
  for (std::size_t i = 0; i < b_rows.size(); ++i) {
    RectangleResult r{static_cast<int>(b_rows[i]), static_cast<int>(b_cols[i]), {}};
    for (; k < m_rows.size() && m_rows[k] == b_rows[i] && m_cols[k] == b_cols[i]; ++k)
      r.winning.push_back({static_cast<int>(m_row[k]), static_cast<int>(m_col[k])});
    t.boards.push_back(std::move(r));
  }
  return t;
}

}  // namespace chomp
