/// @file test_tail_marks.cpp
/// @brief The bits of the first two rows (src/tail_marks.hpp) against the
/// definition, and a sieve that infers those rows' moves from them against
/// one that files them: the same levels, fewer marks.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "chomp/position.hpp"
#include "chomp/ranking.hpp"
#include "chomp/sieve.hpp"
#include "tail_marks.hpp"

using namespace chomp;

namespace {

/// The losing ranks of every level up to n, from a sieve that files every
/// mark (the push alone, no inference).
std::vector<std::vector<std::uint64_t>> filed_levels(int n) {
  SieveOptions o;
  o.inferred_rows = 0;
  Sieve s(n, o);
  s.run({});
  std::vector<std::vector<std::uint64_t>> ranks(static_cast<std::size_t>(n) + 1);
  for (int k = 1; k <= n; ++k) ranks[static_cast<std::size_t>(k)] = s.losing().all(k);
  return ranks;
}

}  // namespace

TEST(TailMarks, TheBitsAreSetExactlyWhenAMoveOfTheFirstOrSecondRowWins) {
  // After levels 1..n-1 are added, the bit of tail T says, for every
  // position (a, T) of level n, whether a move of its first row (to
  // (c, T cut to c columns), 1 <= c < a) leads to a losing position, and
  // the bit of (a, V) whether a move of the second row of (a, b, V) (to
  // (a, c, V cut to c columns), 1 <= c < b) does: for every position of
  // levels 2..28, all of them, or the canonical ones (first row at least as
  // long as the first column) when the bits are kept for canonical
  // positions only (rays that only other positions need are not made).
  // Again with every ray source that is not made in closed form shared
  // among threads (add_level runs in parallel), as the heaviest are.
  const int max_n = 28;
  const PartitionTable t(max_n);
  const auto losing = filed_levels(max_n);
  const auto is_losing = [&](const Rows& rows) {
    int n = 0;
    for (const int r : rows) n += r;
    const auto& level = losing[static_cast<std::size_t>(n)];
    return std::binary_search(level.begin(), level.end(), t.rank(rows));
  };
  for (const auto& [shared, canonical_only] : {std::pair{detail::TailMarks::kSharedRays, false},
                                               std::pair{detail::TailMarks::kSharedRays, true},
                                               std::pair{std::uint64_t{1}, false}, std::pair{std::uint64_t{1}, true}}) {
    SCOPED_TRACE(shared == 1 ? "every ray source shared" : "heavy ray sources shared");
    detail::TailMarks tails(t, max_n, canonical_only);
    tails.set_shared_rays(shared);
    std::uint64_t settled = 0, checked = 0, settled_second = 0, checked_second = 0;
    for (int n = 2; n <= max_n; ++n) {
      tails.add_level(n - 1, losing[static_cast<std::size_t>(n - 1)]);
      for (std::uint64_t r = 0; r < t.positions(n); ++r) {
        const Rows q = t.unrank(n, r);
        const int a = q.front();
        if (canonical_only && a < static_cast<int>(q.size())) continue;
        bool wins = false;
        for (int c = 1; c < a && !wins; ++c) wins = is_losing(apply_move(q, {1, c + 1}));
        const Rows tail(q.begin() + 1, q.end());
        const int size = n - a;
        const std::uint64_t tail_rank = size == 0 ? 0 : t.rank(tail);
        ASSERT_EQ(tails.settled(size, tail_rank), wins) << rows_to_string(q) << (canonical_only ? " (canonical)" : "");
        settled += wins;
        ++checked;
        // The second row b: a move to (a, c, V cut to c columns), 1 <= c < b.
        if (q.size() < 2) continue;
        bool second = false;
        for (int c = 1; c < q[1] && !second; ++c) second = is_losing(apply_move(q, {2, c + 1}));
        const Rows v(q.begin() + 2, q.end());
        const int vsize = size - q[1];
        ASSERT_EQ(tails.settled_second(a, vsize, vsize == 0 ? 0 : t.rank(v)), second)
            << rows_to_string(q) << ", second row" << (canonical_only ? " (canonical)" : "");
        settled_second += second;
        ++checked_second;
      }
    }
    // About half the positions have a winning first-row move (9,156 of
    // 18,458 to 28), fewer a winning second-row move.
    EXPECT_GT(settled, checked / 3);
    EXPECT_LT(settled, checked);
    EXPECT_GT(settled_second, checked_second / 10);
    EXPECT_LT(settled_second, checked_second);
    EXPECT_GT(tails.rays(), 0u);
  }
}

TEST(TailMarks, ASieveThatInfersTheFirstRowsMovesFindsTheSameLevels) {
  // To 75 with the marks of the first two rows' moves inferred, with 1, 2
  // and 3 threads, in windows of many levels and with every level from 50
  // on alone in 3 slices, and with windows of about 2 MiB; and with the
  // first row's only: the same losing ranks as a sieve that files them, for
  // fewer marks the more rows are inferred (about 0.6 of them for two rows,
  // 0.75 for one).
  const int max_n = 75;
  const auto want = filed_levels(max_n);
  SieveOptions filed;
  filed.inferred_rows = 0;
  std::vector<std::uint64_t> filed_marks;
  {
    Sieve s(max_n, filed);
    s.run([&](const LevelResult& l) { filed_marks.push_back(l.marks); });
  }
  std::uint64_t marks_by_rows[3] = {};
  for (const int rows : {1, 2})
    for (const int threads : {1, 2, 3})
      for (const int shape : {0, 1, 2}) {
        if (rows < 2 && (threads != 2 || shape != 1)) continue;
        SieveOptions o;
        o.threads = threads;
        o.inferred_rows = rows;
        if (shape == 1) o.min_slices = 3, o.slice_from = 50;
        if (shape == 2) o.window_bits = std::uint64_t{2} << 23;
        ASSERT_EQ(inferred_rows(max_n, o), rows);
        Sieve s(max_n, o);
        std::uint64_t marks = 0, filed_total = 0;
        int sliced = 0;
        s.run([&](const LevelResult& l) {
          marks += l.marks;
          filed_total += filed_marks[static_cast<std::size_t>(l.tiles - 1)];
          sliced += l.slices > 1;
        });
        for (int n = 1; n <= max_n; ++n)
          ASSERT_EQ(s.losing().all(n), want[static_cast<std::size_t>(n)])
              << "n = " << n << ", rows 1-" << rows << ", " << threads << " threads, shape " << shape;
        if (shape == 1) {
          EXPECT_GT(sliced, 20);
        }
        EXPECT_LT(marks, filed_total * (rows == 2 ? 3 : 9) / (rows == 2 ? 4 : 10))
            << rows << " rows, " << threads << " threads, shape " << shape;
        EXPECT_GT(marks, filed_total / 3) << rows << " rows, " << threads << " threads, shape " << shape;
        if (threads == 2 && shape == 1) marks_by_rows[rows] = marks;
      }
  EXPECT_LT(marks_by_rows[2], marks_by_rows[1]);
}

TEST(TailMarks, OnlyOneProcessWithRoomForTheBitsInfers) {
  // TailMarks::bytes_for (p(N) bits for the first row, 2.9 p(N) for both):
  // as many rows as fit an eighth of the budget (2 GiB without one), one
  // process, none when asked to file.
  SieveOptions o;
  EXPECT_EQ(inferred_rows(130, o), 2);  // 1.95 GB
  EXPECT_EQ(inferred_rows(131, o), 1);  // 2.16 GB for both rows, 0.75 GB for the first
  EXPECT_EQ(inferred_rows(141, o), 1);
  EXPECT_EQ(inferred_rows(142, o), 0);
  EXPECT_EQ(inferred_rows(90, o, 2), 0);
  o.memory_budget = std::uint64_t{18} << 30;
  EXPECT_EQ(inferred_rows(132, o), 2);  // 2.40 GB
  EXPECT_EQ(inferred_rows(135, o), 1);  // 3.3 GB for both rows
  EXPECT_EQ(inferred_rows(170, o), 0);  // 34 GB for the first row alone
  o.memory_budget = std::uint64_t{40} << 20;
  EXPECT_EQ(inferred_rows(79, o), 2);
  EXPECT_EQ(inferred_rows(80, o), 1);
  EXPECT_EQ(inferred_rows(95, o), 0);
  o = SieveOptions{};
  o.inferred_rows = 0;
  EXPECT_EQ(inferred_rows(60, o), 0);
  o.inferred_rows = 1;
  EXPECT_EQ(inferred_rows(60, o), 1);
  // The plan counts the bits, and what each thread holds for them, among
  // its buffers.
  SieveOptions on, off;
  off.inferred_rows = 0;
  on.memory_budget = off.memory_budget = std::uint64_t{2} << 30;
  on.threads = off.threads = 2;
  const PartitionTable t(110);
  EXPECT_EQ(plan_run(110, on).tail_rows, 2);
  EXPECT_EQ(plan_run(110, on).buffer_bytes - plan_run(110, off).buffer_bytes,
            detail::TailMarks::bytes_for(t, 110, 2) + 2 * detail::TailMarks::pending_bytes(t, 110, 2));
}
