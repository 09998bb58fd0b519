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
