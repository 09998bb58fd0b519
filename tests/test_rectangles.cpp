/// @file test_rectangles.cpp
/// @brief The winning first moves of rectangles: the known facts, and the
/// CSV and HDF5 tables.

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include <unistd.h>

#include "chomp/h5_output.hpp"
#include "chomp/rectangles.hpp"
#include "h5_attributes.hpp"

using namespace chomp;
using chomp::testing::h5_integer_attribute;
using chomp::testing::h5_text_attribute;

namespace {

/// One shared table of every rectangle up to 12 x 15 (a 12 x 15 box).
const RectangleTable& table() {
  static const RectangleTable t = solve_rectangles(12, 15);
  return t;
}

const RectangleResult& board(int a, int b) {
  for (const RectangleResult& r : table().boards)
    if (r.rows == a && r.cols == b) return r;
  throw std::logic_error("no such board");
}

std::vector<Rows> leaves(const RectangleResult& r) {
  std::vector<Rows> out;
  for (const Move& m : r.winning) out.push_back(apply_move(Rows(static_cast<std::size_t>(r.rows), r.cols), m));
  return out;
}

}  // namespace

TEST(Rectangles, ListsEveryBoardOnce) {
  const RectangleTable& t = table();
  EXPECT_EQ(t.box_rows, 12);
  EXPECT_EQ(t.box_cols, 15);
  EXPECT_EQ(t.positions, binomial(27, 12));
  std::size_t expected = 0;
  for (int a = 2; a <= 12; ++a) expected += static_cast<std::size_t>(15 - a + 1);
  ASSERT_EQ(t.boards.size(), expected);
  for (const RectangleResult& r : t.boards) EXPECT_FALSE(r.winning.empty()) << r.rows << "x" << r.cols;
}

TEST(Rectangles, SquaresAreWonOnlyByTwoTwo) {
  for (int a = 2; a <= 12; ++a) EXPECT_EQ(board(a, a).winning, (std::vector<Move>{{2, 2}})) << a;
}

TEST(Rectangles, TwoRowsAreWonOnlyByLeavingBAndBMinusOne) {
  for (int b = 2; b <= 15; ++b) EXPECT_EQ(leaves(board(2, b)), (std::vector<Rows>{{b, b - 1}})) << b;
}

TEST(Rectangles, ThreeRowsHaveExactlyOneWinningMove) {
  for (int b = 3; b <= 15; ++b) EXPECT_EQ(board(3, b).winning.size(), 1U) << "3 x " << b;
}

TEST(Rectangles, SixByThirteenHasTwoWinningMoves) {
  EXPECT_EQ(leaves(board(6, 13)), (std::vector<Rows>{{13, 13, 13, 11, 11, 11}, {13, 13, 13, 13, 8, 8}}));
}

TEST(Rectangles, MoreRowsThanColumnsUseTheSmallerBox) {
  const RectangleTable t = solve_rectangles(9, 4);
  EXPECT_EQ(t.box_rows, 4);
  EXPECT_EQ(t.boards.size(), 3U + 2U + 1U);  // 2x2..2x4, 3x3..3x4, 4x4
  EXPECT_THROW(solve_rectangles(1, 5), std::invalid_argument);
}

TEST(Rectangles, CsvHasOneLinePerWinningMove) {
  const RectangleTable t = solve_rectangles(6, 13);
  std::ostringstream out;
  write_rectangles_csv(t, out);
  const std::string csv = out.str();
  EXPECT_EQ(csv.rfind("rows,cols,move_row,move_col,leaves\n2,2,2,2,\"2,1\"\n", 0), 0U);
  EXPECT_NE(csv.find("6,13,4,12,\"13,13,13,11,11,11\"\n6,13,5,9,\"13,13,13,13,8,8\"\n"), std::string::npos);
  std::size_t lines = 0, moves = 0;
  for (char c : csv) lines += c == '\n';
  for (const RectangleResult& r : t.boards) moves += r.winning.size();
  EXPECT_EQ(lines, moves + 1);
}

TEST(Rectangles, Hdf5RoundTripWithProvenance) {
  const RectangleTable t = solve_rectangles(6, 13);
  const auto dir = std::filesystem::temp_directory_path() / ("chomp-rect-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "rect.h5").string();
  const std::string started = utc_now();
  write_rectangles_h5(t, RectangleProvenance{"chomp rectangles --max-rows 6 --max-cols 13", 2, started}, path);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  // The provenance, read back with HDF5's own API.
  EXPECT_EQ(h5_text_attribute(path, "/", "command_line"), "chomp rectangles --max-rows 6 --max-cols 13");
  EXPECT_EQ(h5_integer_attribute(path, "/", "threads"), 2);
  EXPECT_EQ(h5_text_attribute(path, "/", "start_utc"), started);
  EXPECT_EQ(h5_text_attribute(path, "/", "format"), "chomp rectangles");
  EXPECT_EQ(h5_integer_attribute(path, "/", "max_rows"), 6);
  EXPECT_FALSE(h5_text_attribute(path, "/", "git_revision").empty());
  const RectangleTable back = read_rectangles_h5(path);
  EXPECT_EQ(back.max_rows, 6);
  EXPECT_EQ(back.max_cols, 13);
  EXPECT_EQ(back.positions, t.positions);
  ASSERT_EQ(back.boards.size(), t.boards.size());
  for (std::size_t i = 0; i < t.boards.size(); ++i) {
    EXPECT_EQ(back.boards[i].rows, t.boards[i].rows);
    EXPECT_EQ(back.boards[i].cols, t.boards[i].cols);
    EXPECT_EQ(back.boards[i].winning, t.boards[i].winning);
  }
  EXPECT_THROW(read_rectangles_h5((dir / "missing.h5").string()), H5Error);
  std::filesystem::remove_all(dir);
}
