/// @file test_three_rows.cpp
/// @brief Three-rowed Chomp solved on its own (chomp/three_rows.hpp) against
/// the brute force, and its known two-row answer.

#include <gtest/gtest.h>

#include "brute_force.hpp"
#include "chomp/three_rows.hpp"

using namespace chomp;

namespace {
Rows rows_of(const ThreeRows& p) {
  Rows r;
  for (const int x : p)
    if (x > 0) r.push_back(x);
  return r;
}
}  // namespace

TEST(ThreeRows, PositionsAreEveryPartitionIntoAtMostThreeParts) {
  EXPECT_EQ(three_row_positions(5).size(), 5U);  // 5, 41, 32, 311, 221
  // p_3(n) = round((n + 3)^2 / 12)
  for (int n = 1; n <= 120; ++n) EXPECT_EQ(three_row_positions(n).size(), static_cast<std::size_t>(((n + 3) * (n + 3) + 6) / 12)) << n;
}

TEST(ThreeRows, AgreesWithTheBruteForceOnEveryPositionUpTo22Tiles) {
  chomp::testing::BruteForce brute;
  const auto losing = three_row_losing(22);
  for (int n = 1; n <= 22; ++n) {
    std::vector<ThreeRows> expected;
    for (const ThreeRows& p : three_row_positions(n))
      if (brute.losing(rows_of(p))) expected.push_back(p);
    EXPECT_EQ(losing[static_cast<std::size_t>(n - 1)], expected) << n;
  }
}

TEST(ThreeRows, TwoRowLosingPositionsAreExactlyAAndAMinusOne) {
  // Two rows: (a, a-1) loses, and nothing else does (the classical answer).
  const auto losing = three_row_losing(150);
  for (int n = 2; n <= 150; ++n) {
    std::vector<ThreeRows> two;
    for (const ThreeRows& p : losing[static_cast<std::size_t>(n - 1)])
      if (p[2] == 0) two.push_back(p);
    if (n % 2 == 1)
      EXPECT_EQ(two, (std::vector<ThreeRows>{{(n + 1) / 2, (n - 1) / 2, 0}})) << n;
    else
      EXPECT_TRUE(two.empty()) << n;
  }
}
