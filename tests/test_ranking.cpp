/// @file test_ranking.cpp
/// @brief rank / unrank is a bijection onto 0 .. p(n)-1 on every level up to 40.

#include <gtest/gtest.h>

#include <set>

#include "chomp/ranking.hpp"
#include "brute_force.hpp"

using namespace chomp;
using chomp::testing::partitions;

TEST(PartitionTable, KnownValues) {
  const PartitionTable t(kMaxTiles);
  EXPECT_EQ(t.positions(1), 1U);
  EXPECT_EQ(t.positions(5), 7U);
  EXPECT_EQ(t.positions(20), 627U);
  EXPECT_EQ(t.positions(90), 56634173U);
  EXPECT_EQ(t.positions(100), 190569292U);
  EXPECT_EQ(t.positions(200), 3972999029388ULL);
  EXPECT_EQ(t.count(10, 3), 14U);  // partitions of 10 into parts <= 3
  EXPECT_THROW(PartitionTable(kMaxTiles + 1), std::invalid_argument);
  EXPECT_THROW(PartitionTable(0), std::invalid_argument);
}

TEST(PartitionTable, RankIsTheLexicographicIndexUpTo25) {
  const PartitionTable t(25);
  for (int n = 1; n <= 25; ++n) {
    const std::vector<Rows> parts = partitions(n);
    ASSERT_EQ(parts.size(), t.positions(n));
    for (std::size_t i = 0; i < parts.size(); ++i) {
      EXPECT_EQ(t.rank(parts[i]), i);
      EXPECT_EQ(t.unrank(n, i), parts[i]);
    }
  }
}

TEST(PartitionTable, BijectionOnEveryLevelUpTo40) {
  const PartitionTable t(40);
  for (int n = 1; n <= 40; ++n) {
    const std::uint64_t p = t.positions(n);
    Rows previous;
    for (std::uint64_t r = 0; r < p; ++r) {
      const Rows rows = t.unrank(n, r);
      ASSERT_EQ(tile_count(rows), static_cast<std::uint64_t>(n));
      ASSERT_EQ(t.rank(rows), r);
      if (r) {
        ASSERT_LT(previous, rows);  // strictly increasing: all distinct
      }
      previous = rows;
    }
  }
  EXPECT_THROW(t.unrank(10, t.positions(10)), std::invalid_argument);
}
