/// @file test_bounded.cpp
/// @brief The bounded solver: its ranking, against brute force on every small
/// box and shape, against the main sieve, and the known facts of Chomp.

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "brute_force.hpp"
#include "chomp/bounded.hpp"
#include "chomp/ranking.hpp"
#include "chomp/sieve.hpp"

using namespace chomp;
using chomp::testing::all_inside;
using chomp::testing::BruteForce;

TEST(Binomial, ExactAndRefusesOverflow) {
  EXPECT_EQ(binomial(0, 0), 1U);
  EXPECT_EQ(binomial(36, 18), 9075135300U);
  EXPECT_EQ(binomial(52, 10), 15820024220U);
  EXPECT_EQ(binomial(67, 33), 14226520737620288370U);  // the largest central one in 64 bits
  EXPECT_THROW(binomial(68, 34), std::overflow_error);
  EXPECT_THROW(binomial(3, 4), std::invalid_argument);
}

TEST(BoundedRanking, IsTheLexicographicOrderOfEachLevel) {
  // Boxes and irregular shapes: ranks are 0.. in lexicographic order of the
  // rows, level by level, and unrank inverts rank.
  const std::vector<Rows> shapes{{1}, {5}, {1, 1, 1, 1}, {3, 3}, {4, 4, 4}, {6, 6, 6, 6, 6},
                                 {7, 3, 3, 1, 1}, {5, 4, 2, 2, 1}, {9, 1, 1, 1, 1, 1, 1}};
  for (const Rows& shape : shapes) {
    const BoundedRanking t(shape);
    std::map<int, std::vector<Rows>> by_level;
    for (const Rows& r : all_inside(shape)) by_level[static_cast<int>(tile_count(r))].push_back(r);
    ASSERT_EQ(t.max_tiles(), static_cast<int>(tile_count(shape)));
    std::uint64_t total = 0;
    for (auto& [n, list] : by_level) {
      std::sort(list.begin(), list.end());
      ASSERT_EQ(t.positions(n), list.size()) << rows_to_string(shape) << " level " << n;
      EXPECT_EQ(t.level_offset(n), total);
      for (std::size_t i = 0; i < list.size(); ++i) {
        EXPECT_EQ(t.rank(list[i]), i) << rows_to_string(list[i]);
        EXPECT_EQ(t.unrank(n, i), list[i]);
      }
      total += list.size();
    }
    EXPECT_EQ(t.total_positions(), total);
    EXPECT_EQ(count_subpositions(shape), total);
  }
}

TEST(Counting, BoardsHoldTheBinomialNumbersOfPositions) {
  // By enumeration: C(P+Q, P) positions on a P x Q board, the empty one
  // included, and C(P+Q-2, P-1) with exactly P rows and Q columns.
  for (int p = 1; p <= 6; ++p)
    for (int q = 1; q <= 7; ++q) {
      const std::vector<Rows> all = all_inside(box_shape(p, q));
      EXPECT_EQ(all.size(), binomial(p + q, p)) << p << "x" << q;
      const auto full = std::count_if(all.begin(), all.end(), [&](const Rows& r) {
        return static_cast<int>(r.size()) == p && !r.empty() && r.front() == q;
      });
      EXPECT_EQ(static_cast<std::uint64_t>(full), binomial(p + q - 2, p - 1)) << p << "x" << q;
    }
}

TEST(BoundedRanking, BoxesHoldTheBinomialNumberOfPositions) {
  for (int a = 1; a <= 9; ++a)
    for (int b = 1; b <= 12; ++b) {
      EXPECT_EQ(count_subpositions(box_shape(a, b)), binomial(a + b, a)) << a << "x" << b;
      EXPECT_EQ(BoundedRanking(box_shape(a, b)).total_positions(), binomial(a + b, a));
    }
  EXPECT_EQ(count_subpositions(box_shape(18, 18)), binomial(36, 18));
  EXPECT_THROW(BoundedRanking(box_shape(20, 20)), std::length_error);
  EXPECT_EQ(count_subpositions(box_shape(128, 128)), std::numeric_limits<std::uint64_t>::max());
}

namespace {

/// Checks every position inside `shape` against brute force: status and
/// winning moves.
void expect_agrees_with_brute_force(const Rows& shape, BruteForce& bf) {
  const BoundedSolver s(shape);
  std::uint64_t losing = 0;
  for (const Rows& r : all_inside(shape)) {
    if (r.empty()) {
      EXPECT_FALSE(s.is_losing(r));
      continue;
    }
    const bool lose = bf.losing(r);
    losing += lose;
    ASSERT_EQ(s.is_losing(r), lose) << rows_to_string(r) << " inside " << rows_to_string(shape);
    ASSERT_EQ(s.winning_moves(r), bf.winning_moves(r)) << rows_to_string(r);
  }
  EXPECT_EQ(s.losing_count(), losing) << rows_to_string(shape);
  std::uint64_t listed = 0;
  for (int n = 1; n <= s.ranking().max_tiles(); ++n) {
    for (const Rows& r : s.losing_positions(n)) {
      EXPECT_TRUE(bf.losing(r));
      EXPECT_EQ(tile_count(r), static_cast<std::uint64_t>(n));
    }
    listed += s.levels()[static_cast<std::size_t>(n)].losing;
  }
  EXPECT_EQ(listed, losing);
}

}  // namespace

TEST(BoundedSolver, AgreesWithBruteForceInEveryBoxUpTo5x6) {
  BruteForce bf;
  for (int a = 1; a <= 5; ++a)
    for (int b = 1; b <= 6; ++b) expect_agrees_with_brute_force(box_shape(a, b), bf);
}

TEST(BoundedSolver, AgreesWithBruteForceInsideEveryShapeUpTo12Tiles) {
  // Every staircase with up to 12 tiles is used as the shape itself.
  BruteForce bf;
  const PartitionTable t(12);
  for (int n = 1; n <= 12; ++n)
    for (std::uint64_t r = 0; r < t.positions(n); ++r) expect_agrees_with_brute_force(t.unrank(n, r), bf);
}

TEST(BoundedSolver, AgreesWithTheMainSieveUpTo30Tiles) {
  // Row i of a position with at most 30 tiles is at most 30 / i long, so the
  // shape (30, 15, 10, 7, ...) holds every one of them.
  Rows shape;
  for (int i = 1; i <= 30; ++i) shape.push_back(30 / i);
  const BoundedSolver bounded(shape);
  Sieve sieve(30);
  sieve.run({});
  std::uint64_t checked = 0;
  std::vector<std::uint64_t> losing_in_box(31, 0);  // the sieve's losing positions inside 8 x 10, by level
  for (int n = 1; n <= 30; ++n)
    for (std::uint64_t r = 0; r < sieve.table().positions(n); ++r) {
      const Rows rows = sieve.table().unrank(n, r);
      ASSERT_TRUE(bounded.contains(rows));
      ASSERT_EQ(bounded.is_losing(rows), sieve.is_losing(rows)) << rows_to_string(rows);
      if (sieve.is_losing(rows) && rows.size() <= 8 && rows[0] <= 10) ++losing_in_box[static_cast<std::size_t>(n)];
      ++checked;
    }
  EXPECT_EQ(checked, 28628U);  // p(1) + ... + p(30)
  // And a box: its losing positions of up to 30 tiles are exactly the
  // sieve's that fit in 8 x 10 (each losing there, and as many).
  const BoundedSolver box = BoundedSolver::box(8, 10);
  for (int n = 1; n <= 30; ++n) {
    std::uint64_t listed = 0;
    box.for_each_losing(n, [&](const Rows& r) {
      EXPECT_TRUE(sieve.is_losing(r)) << rows_to_string(r);
      ++listed;
      return true;
    });
    EXPECT_EQ(listed, losing_in_box[static_cast<std::size_t>(n)]) << "level " << n;
    EXPECT_EQ(box.levels()[static_cast<std::size_t>(n)].losing, listed) << "level " << n;
  }
  EXPECT_GT(losing_in_box[30], 0U);
}

TEST(BoundedSolver, SameResultWithOneAndTwoThreads) {
  // 12 x 12 holds 2.7e6 positions: past the direct-marking size, so the
  // bucketed rounds are used.
  auto solve = [](int threads) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    return BoundedSolver::box(12, 12);
  };
  const BoundedSolver one = solve(1), two = solve(2);
  // A regression pin: the count this solver gave when the test was written
  // (its statuses are checked against the main sieve and against
  // single-position domains in the tests above and below).
  EXPECT_EQ(one.losing_count(), 26838U);
  ASSERT_EQ(one.levels().size(), two.levels().size());
  for (std::size_t n = 0; n < one.levels().size(); ++n) {
    EXPECT_EQ(one.levels()[n].losing, two.levels()[n].losing) << n;
    EXPECT_EQ(one.levels()[n].marks, two.levels()[n].marks) << n;
  }
  for (int n = 1; n <= 144; n += 7) EXPECT_EQ(one.losing_positions(n), two.losing_positions(n)) << n;
}

TEST(BoundedSolver, LargeCornersCutIntoPiecesAgreeWithSmallDomains) {
  // In 13 x 13 the equal-armed L's corner alone has C(24, 12) = 2.7e6
  // extensions, more than one piece: it is cut and shared between threads.
  // Every position whose first row and column are 13 long is winning, and
  // sampled positions have the status they have inside their own (small,
  // directly marked) domain.
  const BoundedSolver box = BoundedSolver::box(13, 13);
  std::mt19937_64 rng(11);
  for (int k = 0; k < 300; ++k) {
    // 13 over a first column of 13 with a block nu != 0 at (2,2): the move
    // (2,2) leaves the L 13,1,...,1.
    Rows p{13};
    int cap = 1 + static_cast<int>(rng() % 12);
    p.push_back(1 + cap);
    for (int i = 2; i < 13; ++i) {
      cap = static_cast<int>(rng() % static_cast<std::uint64_t>(cap + 1));
      p.push_back(1 + cap);
    }
    EXPECT_FALSE(box.is_losing(p)) << rows_to_string(p);
  }
  int checked = 0;
  for (int k = 0; k < 400; ++k) {
    const int n = 1 + static_cast<int>(rng() % 169);
    const Rows p = box.ranking().unrank(n, rng() % box.ranking().positions(n));
    if (count_subpositions(p) > (1 << 18)) continue;
    EXPECT_EQ(box.is_losing(p), BoundedSolver(p).is_losing(p)) << rows_to_string(p);
    ++checked;
  }
  EXPECT_GT(checked, 100);
  tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  const BoundedSolver serial = BoundedSolver::box(13, 13);
  for (std::size_t n = 0; n < box.levels().size(); ++n) {
    EXPECT_EQ(serial.levels()[n].losing, box.levels()[n].losing) << n;
    EXPECT_EQ(serial.levels()[n].marks, box.levels()[n].marks) << n;
  }
}

TEST(BoundedSolver, KnownFactsOfChomp) {
  const BoundedSolver s = BoundedSolver::box(8, 15);
  for (int a = 1; a < 15; ++a) EXPECT_TRUE(s.is_losing(Rows{a + 1, a}));
  for (int a = 1; a < 8; ++a) EXPECT_TRUE(s.is_losing(transpose(Rows{a + 1, a})));
  for (int a = 2; a <= 8; ++a) {
    Rows ell(static_cast<std::size_t>(a), 1);
    ell[0] = a;
    EXPECT_TRUE(s.is_losing(ell));
  }
  EXPECT_EQ(s.winning_moves(Rows{3, 2, 1}).size(), 3U);
  // 2, 3, 4, 5 tiles: 0 of 2, 1 of 3, 0 of 5 and 3 of 7 losing.
  EXPECT_EQ(s.levels()[2].losing, 0U);
  EXPECT_EQ(s.levels()[3].losing, 1U);
  EXPECT_EQ(s.levels()[4].losing, 0U);
  EXPECT_EQ(s.levels()[5].losing, 3U);
  // Transposes inside the square part keep their status.
  int transposed = 0;
  s.for_each_losing(30, [&](const Rows& r) {
    const Rows t = transpose(r);
    if (s.contains(t)) {
      EXPECT_TRUE(s.is_losing(t)) << rows_to_string(r);
      ++transposed;
    }
    return true;
  });
  EXPECT_GT(transposed, 0);  // 8 of them: the loop is not empty
  EXPECT_THROW(s.is_losing(Rows{16}), InvalidPosition);
  EXPECT_THROW(s.is_losing(Rows{1, 1, 1, 1, 1, 1, 1, 1, 1}), InvalidPosition);
  EXPECT_THROW(s.is_losing(Rows{2, 3}), InvalidPosition);
}
