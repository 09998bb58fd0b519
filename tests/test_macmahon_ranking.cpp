// MacMahonRanking (macmahon_ranking.hpp): a bijection between the 3D
// positions of n cubes and 0..PL(n)-1 on every level up to 20, and round
// trips on random ranks of the largest levels.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "chomp/macmahon_ranking.hpp"
#include "chomp/plane_ranking.hpp"
#include "chomp_process.hpp"

using namespace chomp;

TEST(MacMahonRanking, CountsArePlanePartitionCounts) {
  const MacMahonRanking ranking(kMaxCubes);
  const std::vector<std::uint64_t> pl = plane_partition_counts(kMaxCubes);
  for (int n = 0; n <= kMaxCubes; ++n) EXPECT_EQ(ranking.count(n), pl[static_cast<std::size_t>(n)]) << n;
  EXPECT_EQ(ranking.count(50), 10499640707ULL);
}

TEST(MacMahonRanking, RankIsABijectionOnEveryLevelUpTo20) {
  const MacMahonRanking ranking(20);
  for (int n = 1; n <= 20; ++n) {
    std::vector<bool> seen(ranking.count(n), false);
    std::uint64_t visited = 0;
    for_each_plane_partition(n, [&](const Heights& h) {
      const std::uint64_t r = ranking.rank(h);
      ASSERT_LT(r, ranking.count(n)) << heights_to_string(h);
      EXPECT_FALSE(seen[r]) << "rank " << r << " twice, at " << heights_to_string(h);
      seen[r] = true;
      ++visited;
      EXPECT_EQ(ranking.unrank(n, r), h) << "rank " << r;
    });
    EXPECT_EQ(visited, ranking.count(n));
  }
}

TEST(MacMahonRanking, RandomRanksOfLargeLevelsGoAndComeBack) {
  const MacMahonRanking ranking(kMaxCubes);
  const auto seed = chomp::testing::test_seed();
  SCOPED_TRACE("CHOMP_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int n : {21, 30, 40, 50, 63}) {
    const std::uint64_t pl = ranking.count(n);
    for (std::uint64_t r : {std::uint64_t{0}, pl - 1, pl / 2})
      EXPECT_EQ(ranking.rank(ranking.unrank(n, r)), r) << n;
    for (int k = 0; k < 2000; ++k) {
      const std::uint64_t r = std::uniform_int_distribution<std::uint64_t>(0, pl - 1)(rng);
      const Heights h = ranking.unrank(n, r);
      ASSERT_NO_THROW(validate_heights(h)) << heights_to_string(h);
      ASSERT_EQ(cube_count(h), n) << heights_to_string(h);
      ASSERT_EQ(ranking.rank(h), r) << heights_to_string(h);
    }
  }
}

TEST(MacMahonRanking, RefusesWhatIsNotAPositionOrARank) {
  const MacMahonRanking ranking(10);
  EXPECT_THROW(ranking.rank(Heights{{1, 2}}), InvalidPosition);
  EXPECT_THROW(ranking.rank(Heights{{11}}), InvalidPosition);
  EXPECT_THROW(ranking.unrank(3, 6), std::out_of_range);
  EXPECT_THROW(ranking.unrank(0, 0), std::out_of_range);
  EXPECT_THROW(ranking.unrank(11, 0), std::out_of_range);
  EXPECT_THROW(MacMahonRanking(64), std::invalid_argument);
  EXPECT_EQ(ranking.unrank(1, 0), (Heights{{1}}));
}
