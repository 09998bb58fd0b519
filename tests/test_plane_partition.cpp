// 3D positions (plane partitions): parser, printer, moves, symmetries, and
// the counting and rank/unrank bijection of plane_ranking.hpp.

#include <gtest/gtest.h>

#include <set>

#include "chomp/plane_partition.hpp"
#include "chomp/plane_ranking.hpp"

using namespace chomp;

namespace {

// OEIS A000219, n = 0..30, and two further values from the issue.
const std::vector<std::uint64_t> kA000219 = {
    1,     1,     3,     6,      13,     24,     48,     86,     160,     282,     500,
    859,   1479,  2485,  4167,   6879,   11297,  18334,  29601,  47330,   75278,   118794,
    186475, 290783, 451194, 696033, 1068745, 1632658, 2483234, 3759612, 5668963};

}  // namespace

TEST(PlanePartition, ParsesPrintsAndCounts) {
  const Heights h = parse_heights("3,2/1");
  EXPECT_EQ(h, (Heights{{3, 2}, {1}}));
  EXPECT_EQ(heights_to_string(h), "3,2/1");
  EXPECT_EQ(cube_count(h), 6);
  EXPECT_EQ(heights_picture(h), "3 2\n1\n");
  EXPECT_EQ(parse_heights(" 4 , 4/ 2,1 /1"), (Heights{{4, 4}, {2, 1}, {1}}));
  EXPECT_EQ(parse_heights("1"), (Heights{{1}}));
}

TEST(PlanePartition, MalformedTextIsRefusedWithAReason) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty"},
      {"2,3", "must not increase along a row"},
      {"1/2", "must not increase down a column"},
      {"2/2,1", "more than the 1 of the row above"},
      {"2,0", "must be positive"},
      {"2,,1", "expected a height"},
      {"2/", "expected a height"},
      {"a", "expected a height"},
      {"-1", "expected a height"},
      {"2;1", "unexpected ';'"},
      {"64", "exceeds 63"},
      {"40,30", "more than 63 cubes"},
  };
  for (const auto& [text, says] : cases) {
    try {
      parse_heights(text);
      ADD_FAILURE() << "accepted \"" << text << "\"";
    } catch (const InvalidPosition& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << text << ": " << e.what();
    }
  }
}

TEST(PlanePartition, MovesTakeEveryCubeAtOrBeyondTheChosenOne) {
  const Heights h = parse_heights("3,2/2,1");
  EXPECT_EQ(moves_3d(h).size(), 7u);  // 8 cubes less the poisoned one
  EXPECT_TRUE(moves_3d(Heights{}).empty());          // the empty board
  EXPECT_TRUE(moves_3d(parse_heights("1")).empty());  // the poisoned cube alone
  EXPECT_EQ(apply_move(h, {1, 1, 2}), (Heights{{1, 1}, {1, 1}}));
  EXPECT_EQ(apply_move(h, {2, 1, 1}), (Heights{{3, 2}}));
  EXPECT_EQ(apply_move(h, {1, 2, 1}), (Heights{{3}, {2}}));
  EXPECT_EQ(apply_move(h, {1, 1, 3}), (Heights{{2, 2}, {2, 1}}));
  EXPECT_EQ(apply_move(h, {2, 2, 1}), (Heights{{3, 2}, {2}}));
  EXPECT_THROW(apply_move(h, {2, 2, 2}), InvalidPosition);
  EXPECT_THROW(apply_move(h, {3, 1, 1}), InvalidPosition);
  // Against the definition: the cubes left are those not >= the chosen one.
  for (const Cube& c : moves_3d(h)) {
    std::vector<Cube> expect;
    for (const Cube& x : cubes_of(h))
      if (!(x.row >= c.row && x.col >= c.col && x.layer >= c.layer)) expect.push_back(x);
    EXPECT_EQ(cubes_of(apply_move(h, c)), expect);
  }
}

TEST(PlanePartition, AxisPermutationsMapCubesAndFormAGroup) {
  const Heights h = parse_heights("3,2,2/2,1/1");
  std::set<Heights> images;
  for (const auto& p : axis_permutations()) {
    const Heights g = permute_axes(h, p);
    validate_heights(g);
    EXPECT_EQ(cube_count(g), cube_count(h));
    std::set<Cube> expect;
    for (const Cube& c : cubes_of(h)) {
      const int co[3] = {c.row, c.col, c.layer};
      expect.insert({co[p[0]], co[p[1]], co[p[2]]});
    }
    const auto got = cubes_of(g);
    EXPECT_EQ(std::set<Cube>(got.begin(), got.end()), expect);
    images.insert(g);
  }
  EXPECT_EQ(permute_axes(h, {1, 0, 2}), parse_heights("3,2,1/2,1/2"));  // the transpose
  EXPECT_EQ(permute_axes(parse_heights("3"), {2, 1, 0}), parse_heights("1/1/1"));
  EXPECT_EQ(images.size(), 6u);
  for (const Heights& g : images) EXPECT_EQ(canonical_3d(g), canonical_3d(h));
  EXPECT_EQ(canonical_3d(h), *images.begin());
}

TEST(PlanePartition, FlatPositionsAreTheTwoDimensionalOnes) {
  EXPECT_EQ(flat_position({3, 1}), parse_heights("1,1,1/1"));
  EXPECT_EQ(flat_rows(parse_heights("1,1/1")), (Rows{2, 1}));
  EXPECT_THROW(flat_rows(parse_heights("2")), InvalidPosition);
}

TEST(PlaneRanking, CountsAreA000219) {
  const auto pl = plane_partition_counts(kMaxCubes);
  for (std::size_t n = 0; n < kA000219.size(); ++n) EXPECT_EQ(pl[n], kA000219[n]) << n;
  EXPECT_EQ(pl[40], 281846923u);
  EXPECT_EQ(pl[50], 10499640707u);
  // The enumeration visits exactly that many, all distinct plane partitions.
  for (int n = 1; n <= 16; ++n) {
    std::set<Heights> seen;
    for_each_plane_partition(n, [&](const Heights& h) {
      validate_heights(h);
      EXPECT_EQ(cube_count(h), n);
      seen.insert(h);
    });
    EXPECT_EQ(seen.size(), pl[static_cast<std::size_t>(n)]) << n;
  }
}

TEST(PlaneRanking, RankIsABijectionOnEveryLevelUpTo20) {
  PlaneRanking ranking(20);
  for (int n = 1; n <= 20; ++n) {
    std::uint64_t k = 0;
    Heights previous;
    for_each_plane_partition(n, [&](const Heights& h) {
      // The enumeration's order is the rank order, and unrank inverts rank.
      ASSERT_EQ(ranking.rank(h), k) << heights_to_string(h);
      if (k % 97 == 0 || n <= 12) {
        ASSERT_EQ(ranking.unrank(n, k), h) << n << " " << k;
      }
      if (k > 0) {
        ASSERT_LT(previous, h);
      }
      previous = h;
      ++k;
    });
    EXPECT_EQ(k, ranking.count(n));
  }
  EXPECT_THROW(ranking.unrank(5, 24), std::out_of_range);
  EXPECT_THROW(ranking.rank(parse_heights("21")), InvalidPosition);
  EXPECT_EQ(ranking.rank(parse_heights("1")), 0u);
  EXPECT_EQ(ranking.unrank(3, 0), parse_heights("1/1/1"));
  EXPECT_EQ(ranking.unrank(3, 2), parse_heights("1,1,1"));
  EXPECT_EQ(ranking.unrank(3, 5), parse_heights("3"));
}
