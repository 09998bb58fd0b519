/// @file test_position.cpp
/// @brief Lattice paths, parsing, moves and transpose.

#include <gtest/gtest.h>

#include "chomp/position.hpp"
#include "chomp/ranking.hpp"

using namespace chomp;

TEST(LatticePath, LayoutOfSmallExample) {
  const Rows r{3, 1};
  const LatticePath p = LatticePath::from_rows(r);
  // E N E E N from the bottom-left corner: bits 1 and 4 set.
  ASSERT_EQ(p.length(), 5);
  const bool expected[] = {false, true, false, false, true};
  for (int k = 0; k < 5; ++k) EXPECT_EQ(p.step(k), expected[k]) << "step " << k;
  EXPECT_EQ(p.num_rows(), 2);
  EXPECT_EQ(p.num_cols(), 3);
  EXPECT_EQ(p.tiles(), 4U);
}

TEST(LatticePath, RoundTripsEveryPositionUpTo20Tiles) {
  const PartitionTable t(20);
  for (int n = 1; n <= 20; ++n)
    for (std::uint64_t r = 0; r < t.positions(n); ++r) {
      const Rows rows = t.unrank(n, r);
      const LatticePath p = LatticePath::from_rows(rows);
      EXPECT_EQ(p.rows(), rows);
      EXPECT_EQ(p.tiles(), static_cast<std::uint64_t>(n));
      EXPECT_EQ(p.length(), static_cast<int>(rows.size()) + rows.front());
      EXPECT_EQ(p.transposed().transposed(), p);
      EXPECT_EQ(p.transposed().rows(), transpose(rows));
    }
}

TEST(LatticePath, LargestPositionsFitAndLargerAreRefused) {
  const Rows hook = [] {
    Rows r(128, 1);
    r[0] = 128;
    return r;
  }();  // 128 rows + 128 columns = 256 steps, 255 tiles
  const LatticePath p = LatticePath::from_rows(hook);
  EXPECT_EQ(p.length(), kMaxPathSteps);
  EXPECT_EQ(p.tiles(), 255U);
  EXPECT_EQ(p.rows(), hook);
  Rows too_big = hook;
  too_big.push_back(1);
  EXPECT_THROW(LatticePath::from_rows(too_big), InvalidPosition);
}

TEST(Moves, RemoveTheQuadrantBelowRight) {
  const Rows r{7, 3, 3, 1, 1};
  EXPECT_EQ(apply_move(r, {2, 2}), (Rows{7, 1, 1, 1, 1}));
  EXPECT_EQ(apply_move(r, {1, 4}), (Rows{3, 3, 3, 1, 1}));
  EXPECT_EQ(apply_move(r, {4, 1}), (Rows{7, 3, 3}));
  EXPECT_EQ(apply_move(r, {1, 1}), Rows{});
  EXPECT_EQ(apply_move(r, {3, 3}), (Rows{7, 3, 2, 1, 1}));
  EXPECT_THROW(apply_move(r, {2, 4}), InvalidPosition);
  EXPECT_THROW(apply_move(r, {6, 1}), InvalidPosition);
  EXPECT_THROW(apply_move(r, {0, 1}), InvalidPosition);
  const LatticePath p = LatticePath::from_rows(r);
  EXPECT_EQ(p.after({2, 2}).rows(), (Rows{7, 1, 1, 1, 1}));
  EXPECT_TRUE(p.contains({3, 3}));
  EXPECT_FALSE(p.contains({3, 4}));
  EXPECT_FALSE(p.contains({6, 1}));
}

TEST(Transpose, OfExamples) {
  EXPECT_EQ(transpose(Rows{7, 3, 3, 1, 1}), (Rows{5, 3, 3, 1, 1, 1, 1}));
  EXPECT_EQ(transpose(Rows{1}), Rows{1});
  EXPECT_EQ(transpose(Rows{4}), (Rows{1, 1, 1, 1}));
}

TEST(Parse, RowLengthsAndPictures) {
  EXPECT_EQ(parse_rows("7,3,3,1,1"), (Rows{7, 3, 3, 1, 1}));
  EXPECT_EQ(parse_rows(" 3 , 2,1 "), (Rows{3, 2, 1}));
  EXPECT_EQ(parse_picture("###\n##\n#\n"), (Rows{3, 2, 1}));
  EXPECT_EQ(parse_position("\n  ###\n#\n\n"), (Rows{3, 1}));
  EXPECT_EQ(parse_position("4,4\n"), (Rows{4, 4}));
  EXPECT_EQ(rows_to_string(Rows{7, 3, 3, 1, 1}), "7,3,3,1,1");
  EXPECT_EQ(LatticePath::from_rows(Rows{2, 1}).picture(), "##\n#\n");
}

TEST(Parse, RefusesMalformedInputWithAReason) {
  const char* bad[] = {"",     "   ",   "3,,1",  "3,1,",  ",3",   "a",    "3;1",  "-3",
                       "+3",   "3,0",   "0",     "1,2",   "3 1",  "1000", "3,2,x", "\xc3\xa9",
                       "3.5",  "0x10"};
  for (const char* s : bad) {
    try {
      parse_rows(s);
      ADD_FAILURE() << "accepted '" << s << "'";
    } catch (const InvalidPosition& e) {
      EXPECT_GT(std::string(e.what()).size(), 10U) << s;
    }
  }
  EXPECT_THROW(parse_rows(std::string(5000, '1')), InvalidPosition);
  EXPECT_THROW(parse_picture("##\n###\n"), InvalidPosition);
  EXPECT_THROW(parse_picture("#.#\n"), InvalidPosition);
  EXPECT_THROW(parse_picture("##\n\n#\n"), InvalidPosition);
  // The blank line is named by its own number, not the next row's.
  try {
    parse_picture("#\n\n\n#\n");
    ADD_FAILURE() << "accepted a blank line inside the picture";
  } catch (const InvalidPosition& e) {
    EXPECT_NE(std::string(e.what()).find("blank line inside the picture (line 2)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_position("3\n2"), InvalidPosition);
}
