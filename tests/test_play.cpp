/// @file test_play.cpp
/// @brief The computer players and the game: move helpers, the simple
/// losing families, perfect play, move times, and a tournament of the levels.

#include <gtest/gtest.h>
#include <time.h>

#include <cstdio>
#include <random>

#include "brute_force.hpp"
#include "chomp/strategy.hpp"

using namespace chomp;
using chomp::testing::BruteForce;

TEST(MoveHelpers, LegalAndDelayingMoves) {
  EXPECT_EQ(legal_moves(Rows{1}), (std::vector<Move>{{1, 1}}));
  EXPECT_EQ(legal_moves(Rows{2, 1}), (std::vector<Move>{{1, 2}, {2, 1}}));
  EXPECT_EQ(legal_moves(Rows{3, 3}).size(), 5U);
  EXPECT_EQ(delaying_moves(Rows{1}), (std::vector<Move>{{1, 1}}));
  EXPECT_EQ(delaying_moves(Rows{7, 3, 3, 1, 1}), (std::vector<Move>{{1, 7}, {3, 3}, {5, 1}}));
  EXPECT_EQ(delaying_moves(Rows{4, 4}), (std::vector<Move>{{2, 4}}));
  for (const Move& m : delaying_moves(Rows{7, 3, 3, 1, 1}))
    EXPECT_EQ(tile_count(apply_move(Rows{7, 3, 3, 1, 1}, m)), 14U);
}

TEST(MoveHelpers, SimpleLosingFamiliesAreLosing) {
  const BoundedSolver s = BoundedSolver::box(10, 12);
  int simple = 0;
  for (int n = 1; n <= 60; ++n)
    for (std::uint64_t r = 0; r < s.ranking().positions(n); ++r) {
      const Rows rows = s.ranking().unrank(n, r);
      if (!is_simple_losing(rows)) continue;
      ++simple;
      EXPECT_TRUE(s.is_losing(rows)) << rows_to_string(rows);
    }
  // The single tile, 11 two-row (a+1, a), 9 two-column and 9 Ls (a = 2..10),
  // 2,1 being in the last three families.
  EXPECT_EQ(simple, 1 + 11 + 8 + 8);
  EXPECT_TRUE(is_simple_losing(Rows{5, 4}));
  EXPECT_TRUE(is_simple_losing(Rows{2, 2, 2, 1}));
  EXPECT_TRUE(is_simple_losing(Rows{4, 1, 1, 1}));
  EXPECT_FALSE(is_simple_losing(Rows{4, 1, 1}));
  EXPECT_FALSE(is_simple_losing(Rows{3, 3}));
  EXPECT_FALSE(is_simple_losing(Rows{}));
}

TEST(Game, PlayUndoAndWinner) {
  Game g(Rows{2, 2});
  EXPECT_EQ(g.to_move(), 0);
  g.play({2, 2});
  EXPECT_EQ(g.position(), (Rows{2, 1}));
  EXPECT_THROW(g.play({2, 2}), InvalidPosition);  // no longer on the board
  EXPECT_EQ(g.moves_made(), 1);
  g.play({1, 2});
  g.play({2, 1});  // the first player leaves the single tile
  EXPECT_FALSE(g.over());
  EXPECT_EQ(g.to_move(), 1);
  g.play({1, 1});
  EXPECT_TRUE(g.over());
  EXPECT_EQ(g.winner(), 0);  // the second player took the poison
  EXPECT_THROW(g.play({1, 1}), InvalidPosition);
  EXPECT_TRUE(g.undo());
  EXPECT_EQ(g.position(), Rows{1});
  while (g.undo()) {
  }
  EXPECT_EQ(g.position(), (Rows{2, 2}));
}

TEST(Strategy, LevelNames) {
  for (Level l : {Level::easy, Level::medium, Level::hard, Level::perfect}) EXPECT_EQ(parse_level(level_name(l)), l);
  EXPECT_THROW(parse_level("expert"), std::invalid_argument);
}

TEST(Strategy, PerfectNeverLosesAWinningStart) {
  // Every rectangle from 2 x 2 to 6 x 8 (all are winning), perfect moving
  // first, against every level and a few seeds; and random winning
  // positions of the 6 x 8 board.
  BruteForce bf;
  for (Level opponent : {Level::easy, Level::medium, Level::hard, Level::perfect})
    for (int a = 2; a <= 6; ++a)
      for (int b = a; b <= 8; ++b)
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
          auto perfect = make_strategy(Level::perfect, a, b, seed);
          auto other = make_strategy(opponent, a, b, seed + 100);
          EXPECT_EQ(play_out(*perfect, *other, Rows(static_cast<std::size_t>(a), b)), 0)
              << a << "x" << b << " against " << level_name(opponent);
        }
  const BoundedSolver s = BoundedSolver::box(6, 8);
  std::mt19937_64 rng(7);
  int games = 0;
  for (int n = 10; n <= 48; n += 2) {
    const std::uint64_t count = s.ranking().positions(n);
    for (int k = 0; k < 5; ++k) {
      const Rows start = s.ranking().unrank(n, rng() % count);
      if (s.is_losing(start)) continue;
      auto perfect = make_strategy(Level::perfect, 6, 8, static_cast<std::uint64_t>(k));
      auto hard = make_strategy(Level::hard, 6, 8, static_cast<std::uint64_t>(k));
      EXPECT_EQ(play_out(*perfect, *hard, start), 0) << rows_to_string(start);
      ++games;
    }
  }
  EXPECT_GT(games, 50);
}

TEST(Strategy, PerfectMovesAreTheWinningMoves) {
  // On 8 x 15 (the classic learning board) perfect's first move from every
  // rectangle leaves a losing position, and from a losing position it takes
  // a single tile.
  auto perfect = make_strategy(Level::perfect, 8, 15, 1);
  const BoundedSolver s = BoundedSolver::box(8, 15);
  for (int a = 1; a <= 8; ++a)
    for (int b = 1; b <= 15; ++b) {
      if (a * b == 1) continue;
      const Rows rect(static_cast<std::size_t>(a), b);
      EXPECT_TRUE(s.is_losing(apply_move(rect, perfect->choose(rect)))) << a << "x" << b;
    }
  const Rows losing{5, 4};
  EXPECT_EQ(tile_count(apply_move(losing, perfect->choose(losing))), 8U);
  EXPECT_THROW(make_strategy(Level::perfect, 16, 16, 1), std::length_error);
}

// The empty board (the poisoned tile taken) has no move: every level says
// so (it used to pick from an empty list), and a solver's stubborn moves
// name the position they were asked about, not one a move leaves.
TEST(Strategy, NoMoveFromTheEmptyBoardAndPositionsOutsideAreNamed) {
  for (const Level level : {Level::easy, Level::medium, Level::hard, Level::perfect}) {
    auto player = make_strategy(level, 4, 7, 1);
    try {
      static_cast<void>(player->choose(Rows{}));
      ADD_FAILURE() << level_name(level) << " chose a move on the empty board";
    } catch (const InvalidPosition& e) {
      EXPECT_NE(std::string(e.what()).find("the board is empty"), std::string::npos) << e.what();
    }
    // (3,1) is won by (1,3), which leaves the equal-armed L (2,1): every level takes that simple win.
    EXPECT_EQ(player->choose(Rows{3, 1}), (Move{1, 3})) << level_name(level);
  }
  const BoundedSolver s = BoundedSolver::box(5, 5);
  try {
    static_cast<void>(stubborn_moves(s, Rows{9}));
    ADD_FAILURE() << "9 is not inside 5 x 5";
  } catch (const InvalidPosition& e) {
    EXPECT_NE(std::string(e.what()).find("position 9 does not fit inside 5,5,5,5,5"), std::string::npos) << e.what();
  }
}

TEST(Strategy, EasyAndMediumTakeSimpleWins) {
  // From 5,1 the move (1,3) leaves 2,1 (two rows), and (2,1)... the only
  // simple wins; every seed must find one.
  for (Level l : {Level::easy, Level::medium})
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      auto s = make_strategy(l, 6, 6, seed);
      const Rows p{5, 5};
      EXPECT_TRUE(is_simple_losing(apply_move(p, s->choose(p)))) << level_name(l);
      const Rows ell{4, 1, 1, 1, 1};
      EXPECT_TRUE(is_simple_losing(apply_move(ell, s->choose(ell)))) << level_name(l);
    }
  // Medium never hands over a simple win when it can avoid it: from 3,3,3
  // the moves (1,2) and (2,1)... leave positions with a simple win, (3,3) not.
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    auto m = make_strategy(Level::medium, 3, 3, seed);
    const Rows p{3, 3, 3};
    const Rows after = apply_move(p, m->choose(p));
    for (const Move& r : legal_moves(after)) EXPECT_FALSE(is_simple_losing(apply_move(after, r))) << rows_to_string(after);
  }
}

namespace {

/// CPU seconds of this thread: what a move costs, whatever else the
/// machine is running.
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

TEST(Strategy, EveryMoveUnderATenthOfASecond) {
#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "move times are promised for optimised builds";
#endif
  // The largest boards `chomp play` offers; hard searches, perfect looks up.
  for (Level l : {Level::easy, Level::medium, Level::hard}) {
    auto s = make_strategy(l, 40, 40, 3);
    Rows p(40, 40);
    for (int k = 0; k < 3; ++k) {
      const double t0 = thread_seconds();
      const Move m = s->choose(p);
      EXPECT_LT(thread_seconds() - t0, 0.1) << level_name(l) << " on " << p.size() << " rows";
      p = apply_move(p, m);
      if (p.empty()) break;
    }
  }
  auto perfect = make_strategy(Level::perfect, 8, 15, 3);
  const double t0 = thread_seconds();
  perfect->choose(Rows(8, 15));
  EXPECT_LT(thread_seconds() - t0, 0.1);
}

TEST(Strategy, TournamentRanksTheLevels) {
  // Every pair of levels plays both colours from the same random rectangles;
  // a level's rate is its wins over all its games.
  const Level levels[] = {Level::easy, Level::medium, Level::hard, Level::perfect};
  int wins[4] = {}, games[4] = {};
  std::mt19937_64 rng(2024);
  for (int board = 0; board < 16; ++board) {
    const int a = 5 + static_cast<int>(rng() % 4), b = a + static_cast<int>(rng() % 7);
    const Rows start(static_cast<std::size_t>(a), b);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        if (i == j) continue;
        auto first = make_strategy(levels[i], a, b, rng());
        auto second = make_strategy(levels[j], a, b, rng());
        const int w = play_out(*first, *second, start) == 0 ? i : j;
        ++wins[w];
        ++games[i];
        ++games[j];
      }
  }
  double rate[4];
  for (int i = 0; i < 4; ++i) {
    rate[i] = static_cast<double>(wins[i]) / games[i];
    std::printf("  %-8s won %3d of %3d games (%.0f%%)\n", std::string(level_name(levels[i])).c_str(), wins[i],
                games[i], 100 * rate[i]);
  }
  EXPECT_GT(rate[3], rate[2]);
  EXPECT_GT(rate[2], rate[1]);
  EXPECT_GT(rate[1], rate[0]);
}
