/// @file test_verify.cpp
/// @brief The move-by-move check of the rule passes the sieve's levels and
/// finds a level with one losing position missing, one extra, or one moved.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "chomp/position.hpp"
#include "chomp/sieve.hpp"
#include "chomp/verify.hpp"

using namespace chomp;

namespace {

constexpr int kTop = 36;

/// A sieve run to kTop, shared by the tests (a second or two), and freed at
/// exit (a leaked one fails the suite under LeakSanitizer).
const Sieve& sieve() {
  static const std::unique_ptr<Sieve> s = [] {
    auto run = std::make_unique<Sieve>(kTop);
    run->run({}, {});
    return run;
  }();
  return *s;
}

/// The sieve's levels 1..top in a store of their own, with level n's
/// losing ranks replaced.
std::unique_ptr<LosingStore> store_with(int top, int n, const std::vector<std::uint64_t>& level_n) {
  auto store = LosingStore::temporary();
  for (int m = 1; m <= top; ++m) {
    store->begin_level(m);
    store->append(m == n ? level_n : sieve().losing().all(m));
    store->finish_level();
  }
  return store;
}

}  // namespace

TEST(CheckMoves, PassesEveryPositionOfTheSievesLevels) {
  const PartitionTable& table = sieve().table();
  for (int n = 1; n <= kTop; ++n) {
    const LevelVerdict v = check_moves(table, n, sieve().losing(), 1);
    EXPECT_TRUE(v.problem.empty()) << "level " << n << ": " << v.problem;
    // Every losing position, then every rank (the losing ones again).
    EXPECT_EQ(v.checked, sieve().losing().count(n) + table.positions(n)) << "level " << n;
  }
}

TEST(CheckMoves, SamplesEveryKthLosingPositionAndRank) {
  const PartitionTable& table = sieve().table();
  const int n = kTop;
  const LevelVerdict v = check_moves(table, n, sieve().losing(), 7);
  EXPECT_TRUE(v.problem.empty()) << v.problem;
  EXPECT_EQ(v.checked, (sieve().losing().count(n) + 6) / 7 + (table.positions(n) + 6) / 7);
}

TEST(CheckMoves, FindsAMissingAnExtraAndAMovedLosingPosition) {
  const PartitionTable& table = sieve().table();
  const int n = 30;
  const std::vector<std::uint64_t> truth = sieve().losing().all(n);
  ASSERT_GE(truth.size(), 3U);

  // One losing position left out: it has no move to a losing position.
  std::vector<std::uint64_t> missing = truth;
  const std::uint64_t gone = missing[1];
  missing.erase(missing.begin() + 1);
  LevelVerdict v = check_moves(table, n, *store_with(n, n, missing), 1);
  EXPECT_NE(v.problem.find("(rank " + std::to_string(gone) + ") is not stored as losing but has no move"),
            std::string::npos)
      << v.problem;
  EXPECT_NE(v.problem.find(rows_to_string(table.unrank(n, gone))), std::string::npos) << v.problem;

  // One winning position added: it has a move to a losing position.
  std::vector<std::uint64_t> extra = truth;
  std::uint64_t added = 0;
  while (std::binary_search(truth.begin(), truth.end(), added)) ++added;
  extra.insert(std::upper_bound(extra.begin(), extra.end(), added), added);
  v = check_moves(table, n, *store_with(n, n, extra), 1);
  EXPECT_NE(v.problem.find("(rank " + std::to_string(added) + ") is stored as losing but has a move"),
            std::string::npos)
      << v.problem;

  // Sampling every 5th rank still finds a moved rank when it lands on one.
  std::vector<std::uint64_t> moved = truth;
  const std::size_t at = moved.size() / 2;
  std::uint64_t to = moved[at] + 1;
  while (to % 5 != 0 || std::binary_search(truth.begin(), truth.end(), to)) ++to;
  moved.erase(moved.begin() + static_cast<std::ptrdiff_t>(at));
  moved.insert(std::upper_bound(moved.begin(), moved.end(), to), to);
  v = check_moves(table, n, *store_with(n, n, moved), 5);
  EXPECT_FALSE(v.problem.empty());

  // A wrong lower level shows in the level above it: some position there
  // keeps its true status but no longer agrees with its moves.
  v = check_moves(table, n + 1, *store_with(n + 1, n, missing), 1);
  EXPECT_FALSE(v.problem.empty());
}

TEST(CheckMoves, TheLonePoisonedTileIsLosing) {
  const PartitionTable& table = sieve().table();
  // Level 1 (one tile, no move) is losing; level 2's two positions each
  // have the one move to it.
  EXPECT_TRUE(check_moves(table, 1, sieve().losing(), 1).problem.empty());
  EXPECT_TRUE(check_moves(table, 2, sieve().losing(), 1).problem.empty());
  const LevelVerdict v = check_moves(table, 1, *store_with(1, 1, {}), 1);
  EXPECT_NE(v.problem.find("the position 1 (rank 0) is not stored as losing but has no move"), std::string::npos)
      << v.problem;
}

// A seed picks which position of each stride the samples take: as many
// positions whatever the seed, the first of each with seed 0, and over
// seeds every position of a stride; so a wrong rank that seed 0's grid
// passes over is found with some other seed.
TEST(CheckMoves, ASeedMovesTheSampleWithinEachStride) {
  const PartitionTable& table = sieve().table();
  const int n = kTop;
  const std::uint64_t losing = sieve().losing().count(n), positions = table.positions(n);
  for (const std::uint64_t seed : {0ULL, 1ULL, 77ULL, 123456789ULL}) {
    const LevelVerdict v = check_moves(table, n, sieve().losing(), 7, seed);
    EXPECT_TRUE(v.problem.empty()) << v.problem;
    EXPECT_EQ(v.checked, (losing + 6) / 7 + (positions + 6) / 7) << "seed " << seed;
    EXPECT_EQ(check_transposes(table, n, sieve().losing(), 7, seed).checked, (losing + 6) / 7) << "seed " << seed;
  }
  EXPECT_EQ(sample_offset(0, n, 0, 7), 0U);
  std::vector<bool> seen(7, false);
  for (std::uint64_t seed = 1; seed <= 200; ++seed) seen[sample_offset(seed, n, 1, 7)] = true;
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), 7);

  // A losing rank moved to a winning rank off seed 0's grid of every 5th:
  // seed 0 passes it (its losing sample holds neither), some seed finds it.
  const std::vector<std::uint64_t> truth = sieve().losing().all(n);
  std::vector<std::uint64_t> moved = truth;
  const std::size_t at = moved.size() / 2 + 1;  // not a multiple of 5 among the indices below
  ASSERT_NE(at % 5, 0U);
  std::uint64_t to = moved[at] + 1;
  while (to % 5 == 0 || std::binary_search(truth.begin(), truth.end(), to)) ++to;
  moved.erase(moved.begin() + static_cast<std::ptrdiff_t>(at));
  moved.insert(std::upper_bound(moved.begin(), moved.end(), to), to);
  const auto store = store_with(n, n, moved);
  EXPECT_TRUE(check_moves(table, n, *store, 5, 0).problem.empty()) << "seed 0's grid was meant to pass it";
  bool found = false;
  for (std::uint64_t seed = 1; seed <= 50 && !found; ++seed)
    found = !check_moves(table, n, *store, 5, seed).problem.empty();
  EXPECT_TRUE(found) << "no seed of 50 found the moved rank";
}
