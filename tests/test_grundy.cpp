/// @file test_grundy.cpp
/// @brief Grundy values against an independent memoized mex solver (every
/// position of up to 20 tiles, every position inside small shapes), every
/// two-row position with rows up to 60 against a two-row program of its
/// own, the pattern that program shows for rows up to 400, the count of
/// value 0 against the committed L(n), a stop flag, and sums of boards
/// against a brute-force search of the sum itself.
///
/// The two-row pattern tested here is what the computed values show, not a
/// published statement: X. Sun's closed form for two-row Chomp was not
/// available to us (doc/GRUNDY.md says what was found and what was not),
/// and no formula is attributed to him here.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "committed_data.hpp"
#include "chomp/grundy.hpp"
#include "chomp/grundy_file.hpp"
#include "chomp/h5_output.hpp"
#include "brute_force.hpp"

using namespace chomp;
using chomp::testing::partitions;

namespace {

/// The definition, memoized: G = mex over every move but (1,1). Shares no
/// code with the engine beyond apply_move (tested in test_position).
class MemoGrundy {
 public:
  int value(const Rows& rows) {
    auto it = memo_.find(rows);
    if (it != memo_.end()) return it->second;
    std::set<int> seen;
    for (int i = 1; i <= static_cast<int>(rows.size()); ++i)
      for (int j = 1; j <= rows[static_cast<std::size_t>(i - 1)]; ++j)
        if (!(i == 1 && j == 1)) seen.insert(value(apply_move(rows, {i, j})));
    int g = 0;
    while (seen.count(g)) ++g;
    memo_[rows] = g;
    return g;
  }

 private:
  std::map<Rows, int> memo_;
};

}  // namespace

TEST(Grundy, EveryPositionUpTo20TilesEqualsTheMemoizedMex) {
  const GrundyTable table(20);
  MemoGrundy memo;
  for (int n = 1; n <= 20; ++n) {
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(n), 0);
    for (const Rows& rows : partitions(n)) {
      const int g = memo.value(rows);
      ASSERT_EQ(table.value(rows), g) << rows_to_string(rows);
      ++counts[static_cast<std::size_t>(g)];
    }
    const GrundyLevel& level = table.levels()[static_cast<std::size_t>(n - 1)];
    counts.resize(level.counts.size(), 0);
    EXPECT_EQ(level.counts, counts) << "level " << n;
    EXPECT_EQ(level.largest, n - 1) << "level " << n;  // the single row is a Nim heap of n - 1
  }
}

TEST(Grundy, AStopFlagEndsTheRunAfterTheLevelsFinished) {
  std::atomic<bool> stop{false};
  std::vector<int> seen;
  EXPECT_THROW(GrundyTable(30,
                           [&](const GrundyLevel& l) {
                             seen.push_back(l.tiles);
                             if (l.tiles == 12) stop.store(true);
                           },
                           &stop),
               GrundyInterrupted);
  ASSERT_EQ(seen.size(), 12U);
  EXPECT_EQ(seen.back(), 12);
  // Raised from the start: level 1 (the poisoned tile, no work) is reported,
  // then the run stops.
  seen.clear();
  EXPECT_THROW(GrundyTable(30, [&](const GrundyLevel& l) { seen.push_back(l.tiles); }, &stop), GrundyInterrupted);
  EXPECT_EQ(seen, std::vector<int>{1});
  // A flag never raised changes nothing.
  stop.store(false);
  const GrundyTable table(20, {}, &stop);
  EXPECT_EQ(table.levels().size(), 20U);
}

TEST(Grundy, KnownSmallValues) {
  const GrundyTable table(12);
  EXPECT_EQ(table.value(Rows{1}), 0);
  EXPECT_EQ(table.value(Rows{1, 1}), 1);
  EXPECT_EQ(table.value(Rows{2, 1}), 0);        // the L of three tiles is lost
  EXPECT_EQ(table.value(Rows{7}), 6);           // one row: a Nim heap
  EXPECT_EQ(table.value(Rows{1, 1, 1, 1}), 3);  // one column too
  EXPECT_EQ(table.value(Rows{2, 2}), 2);        // moves leave 2,1 (0), 1,1 (1), 2 (1)
  // Squares, by a mex over every move worked out apart from this code (a
  // memoised recursion over row tuples): 3 x 3 has value 5, 3 x 2 value 4.
  EXPECT_EQ(table.value(Rows{3, 3, 3}), 5);
  EXPECT_EQ(table.value(Rows{3, 3}), 4);
  EXPECT_THROW(table.value(Rows{}), InvalidPosition);
  EXPECT_THROW(table.value(Rows{13}), InvalidPosition);
  EXPECT_THROW(table.value(Rows{2, 3}), InvalidPosition);
}

TEST(Grundy, TransposedPositionsHaveEqualValues) {
  const GrundyTable table(30);
  for (int n : {25, 30}) {
    const auto level = table.level(n);
    for (std::uint64_t r = 0; r < level.size(); r += 7) {
      const Rows rows = table.ranking().unrank(n, r);
      EXPECT_EQ(table.value(transpose(rows)), level[r]) << rows_to_string(rows);
    }
  }
}

namespace {

/// Two-row Chomp by a dynamic program of its own, sharing no code with the
/// engine or with MemoGrundy: the position of rows a >= b >= 0 (a >= 1) has
/// the moves "take tile (1, j + 1)", leaving rows j and min(b, j) for
/// 1 <= j < a, and "take tile (2, k + 1)", leaving rows a and k for
/// 0 <= k < b; G(a, b) is the mex of their values, found in the order
/// a = 1, 2, ..., b = 0..a, which computes every move's result first.
class TwoRowTable {
 public:
  explicit TwoRowTable(int max_row) : g_(static_cast<std::size_t>(max_row) + 1) {
    for (int a = 1; a <= max_row; ++a) {
      g_[static_cast<std::size_t>(a)].resize(static_cast<std::size_t>(a) + 1);
      for (int b = 0; b <= a; ++b) {
        // a - 1 + b moves, so the value is at most a + b - 1.
        std::vector<bool> seen(static_cast<std::size_t>(a + b) + 1, false);
        for (int j = 1; j < a; ++j) seen[static_cast<std::size_t>(at(j, std::min(b, j)))] = true;
        for (int k = 0; k < b; ++k) seen[static_cast<std::size_t>(at(a, k))] = true;
        int v = 0;
        while (seen[static_cast<std::size_t>(v)]) ++v;
        g_[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = v;
      }
    }
  }
  /// G of the rows a >= b >= 0, a >= 1 (b = 0: the single row).
  int at(int a, int b) const { return g_[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)]; }

 private:
  std::vector<std::vector<int>> g_;
};

/// The pattern the two-row values show (TwoRowTable, rows up to 4000 when
/// doc/GRUNDY.md was written; rows up to 400 in the test below), for rows
/// a >= b >= 1 and d = a - b:
///   d even:           G(a, b) = a + floor((b - 1) / 2)
///   d = 2m + 1 odd:   G(a, b) = 2m + min(m, floor(b / 2))
/// An observation of computed values, not a theorem and not a quotation.
int observed_two_row_value(int a, int b) {
  const int d = a - b;
  if (d % 2 == 0) return a + (b - 1) / 2;
  const int m = (d - 1) / 2;
  return 2 * m + std::min(m, b / 2);
}

}  // namespace

TEST(Grundy, TwoRowPositionsUpTo60EqualTheTwoRowProgramAndTheMemoizedMex) {
  const TwoRowTable two_rows(60);
  // Every a >= b >= 0 with a <= 60 (the box 2 x 60), and the same positions
  // from the level table where a + b <= 40.
  const BoundedGrundy box(Rows{60, 60});
  const GrundyTable table(40);
  MemoGrundy memo;
  for (int a = 1; a <= 60; ++a)
    for (int b = 0; b <= a; ++b) {
      const Rows rows = b ? Rows{a, b} : Rows{a};
      const int g = two_rows.at(a, b);
      ASSERT_EQ(memo.value(rows), g) << rows_to_string(rows);
      ASSERT_EQ(box.value(rows), g) << rows_to_string(rows);
      if (a + b <= 40) {
        ASSERT_EQ(table.value(rows), g) << rows_to_string(rows);
      }
      if (b == a - 1) {
        EXPECT_EQ(g, 0) << rows_to_string(rows);  // (a, a-1) is the two-row P-position
      }
      if (b == 0) {
        EXPECT_EQ(g, a - 1);
      }
    }
}

TEST(Grundy, TwoRowValuesFollowTheObservedPatternForRowsUpTo400AndTheEnginesTo254) {
  constexpr int kRows = 400;
  const TwoRowTable two_rows(kRows);
  for (int a = 1; a <= kRows; ++a) {
    ASSERT_EQ(two_rows.at(a, 0), a - 1);
    for (int b = 1; b <= a; ++b) ASSERT_EQ(two_rows.at(a, b), observed_two_row_value(a, b)) << a << "," << b;
  }
  // For a fixed second row b, G(a, b) - a has period 2 in a from
  // a = b + 2 floor(b/2) on (values floor((b-1)/2) and -ceil(b/2) - 1), and
  // not one step earlier: G(a + 2, b) = G(a, b) + 2 exactly from there.
  for (int b = 1; b <= 150; ++b) {
    const int from = b + 2 * (b / 2);
    for (int a = b; a + 2 <= kRows; ++a)
      if (a >= from) {
        ASSERT_EQ(two_rows.at(a + 2, b), two_rows.at(a, b) + 2) << a << "," << b;
      }
    if (b >= 2) {
      EXPECT_NE(two_rows.at(from + 1, b), two_rows.at(from - 1, b) + 2) << b;
    }
  }
  // Value 0 only at (a, a - 1), the two-row losing positions.
  for (int a = 2; a <= kRows; ++a)
    for (int b = 1; b <= a; ++b) ASSERT_EQ(two_rows.at(a, b) == 0, b == a - 1) << a << "," << b;
  // The engine's own values (the box 2 x 254, the largest a position's
  // lattice path holds) follow the same pattern, not only this test's table.
  const BoundedGrundy box(Rows{254, 254});
  for (int a = 1; a <= 254; ++a)
    for (int b = 0; b <= a; ++b) {
      const Rows rows = b ? Rows{a, b} : Rows{a};
      ASSERT_EQ(box.value(rows), b ? observed_two_row_value(a, b) : a - 1) << rows_to_string(rows);
    }
}

TEST(Grundy, BoundedValuesEqualTheMemoizedMexInsideShapes) {
  MemoGrundy memo;
  for (const Rows& shape : {Rows{5, 5, 5, 5}, Rows{7, 4, 4, 2, 1}, Rows{3, 3, 3, 3, 3, 3}, Rows{12}, Rows{1, 1, 1}}) {
    const BoundedGrundy solved(shape);
    std::vector<Rows> inside;
    Rows cur;
    auto rec = [&](auto&& self, std::size_t k, int cap) -> void {
      if (!cur.empty()) inside.push_back(cur);
      if (k == shape.size()) return;
      for (int v = 1; v <= std::min(cap, shape[k]); ++v) {
        cur.push_back(v);
        self(self, k + 1, v);
        cur.pop_back();
      }
    };
    rec(rec, 0, shape[0]);
    for (const Rows& rows : inside) ASSERT_EQ(solved.value(rows), memo.value(rows)) << rows_to_string(rows);
    EXPECT_THROW(solved.value(Rows{}), InvalidPosition);
    EXPECT_THROW(solved.value(Rows{shape[0] + 1}), InvalidPosition);
  }
  EXPECT_THROW(BoundedGrundy(Rows{}), InvalidPosition);
  EXPECT_THROW(BoundedGrundy(Rows(20, 20)), std::length_error);
}

TEST(Grundy, ValueZeroCountsEqualTheCommittedLosingCountsUpTo55) {
  const LevelTable committed = read_level_file(chomp::testing::committed_levels_file("h5"));
  const GrundyTable table(55);
  ASSERT_GE(committed.tiles.size(), 55U);
  for (int n = 1; n <= 55; ++n) {
    const GrundyLevel& level = table.levels()[static_cast<std::size_t>(n - 1)];
    EXPECT_EQ(level.zeros(), committed.losing[static_cast<std::size_t>(n - 1)]) << "level " << n;
    std::uint64_t sum = 0;
    for (std::uint64_t c : level.counts) sum += c;
    EXPECT_EQ(sum, committed.positions[static_cast<std::size_t>(n - 1)]) << "level " << n;
    EXPECT_EQ(level.largest, n - 1);
  }
  EXPECT_EQ(grundy_table_bytes(55), [&] {
    std::uint64_t s = 0;
    for (int n = 1; n <= 55; ++n) s += committed.positions[static_cast<std::size_t>(n - 1)];
    return s;
  }());
}

// ---------------------------------------------------------------------------
// Sums

TEST(GrundySums, ParseSum) {
  const auto s = parse_sum("3,2 + 4,4,1 + 2");
  ASSERT_EQ(s.size(), 3U);
  EXPECT_EQ(s[0], (Rows{3, 2}));
  EXPECT_EQ(s[1], (Rows{4, 4, 1}));
  EXPECT_EQ(s[2], (Rows{2}));
  EXPECT_EQ(parse_sum("3x4+2X5"), (std::vector<Rows>{Rows(3, 4), Rows(2, 5)}));
  EXPECT_EQ(parse_sum(" 1 "), (std::vector<Rows>{Rows{1}}));
  for (const char* bad : {"3,2 +", "+", "+ 3", "3 ++ 2", "", "3,4", "0x3", "3x", "x3", "3x-1", "3x200x2", "a + 1"})
    EXPECT_THROW(parse_sum(bad), InvalidPosition) << bad;
  try {
    parse_sum("3,2 +");
    FAIL();
  } catch (const InvalidPosition& e) {
    EXPECT_NE(std::string(e.what()).find("board 2 of the sum is empty"), std::string::npos) << e.what();
  }
  // A picture drawn with 'X' instead of '#' is told how pictures are drawn.
  for (const char* picture : {"XXX/XX", "xxx\nxx\n", "X"}) {
    try {
      parse_sum(picture);
      ADD_FAILURE() << picture;
    } catch (const InvalidPosition& e) {
      EXPECT_NE(std::string(e.what()).find("a picture draws each row with '#'"), std::string::npos) << e.what();
    }
  }
}

namespace {

/// Every position of up to 8 tiles, numbered, with the numbers each move
/// (other than (1,1)) leads to: the brute-force search of sums runs on them.
struct SmallPositions {
  std::vector<Rows> list;
  std::map<Rows, int> index;
  std::vector<std::vector<std::pair<Move, int>>> moves;
  SmallPositions() {
    for (int n = 1; n <= 8; ++n)
      for (const Rows& r : partitions(n)) {
        index[r] = static_cast<int>(list.size());
        list.push_back(r);
      }
    for (const Rows& r : list) {
      std::vector<std::pair<Move, int>> m;
      for (int i = 1; i <= static_cast<int>(r.size()); ++i)
        for (int j = 1; j <= r[static_cast<std::size_t>(i - 1)]; ++j)
          if (!(i == 1 && j == 1)) m.push_back({{i, j}, index.at(apply_move(r, {i, j}))});
      moves.push_back(m);
    }
  }
};

/// The sum game itself, no Grundy values: a sum is lost by the player to
/// move when every move (on any board) leaves a sum that is won; with no
/// move left (every board the poisoned tile alone) it is lost.
class SumSearch {
 public:
  explicit SumSearch(const SmallPositions& s) : s_(s) {}
  bool losing(std::vector<int> sum) {
    std::sort(sum.begin(), sum.end());
    auto it = memo_.find(sum);
    if (it != memo_.end()) return it->second;
    bool lose = true;
    for (std::size_t c = 0; c < sum.size() && lose; ++c)
      for (const auto& [m, to] : s_.moves[static_cast<std::size_t>(sum[c])]) {
        std::vector<int> next = sum;
        next[c] = to;
        if (losing(next)) {
          lose = false;
          break;
        }
      }
    memo_[sum] = lose;
    return lose;
  }

 private:
  const SmallPositions& s_;
  std::map<std::vector<int>, bool> memo_;
};

}  // namespace

TEST(GrundySums, NimSumRuleAgreesWithABruteForceSearchOfTwoAndThreeBoards) {
  const SmallPositions s;
  ASSERT_EQ(s.list.size(), 66U);  // p(1) + ... + p(8)
  SumSearch search(s);
  const int P = static_cast<int>(s.list.size());
  int losing_pairs = 0;
  for (int a = 0; a < P; ++a)
    for (int b = a; b < P; ++b) {
      const SumAnalysis an = analyze_sum({s.list[static_cast<std::size_t>(a)], s.list[static_cast<std::size_t>(b)]});
      const bool lose = search.losing({a, b});
      ASSERT_EQ(an.losing(), lose) << rows_to_string(s.list[static_cast<std::size_t>(a)]) << " + "
                                   << rows_to_string(s.list[static_cast<std::size_t>(b)]);
      losing_pairs += lose;
      // Every winning move the analysis lists, and only those, leaves a lost sum.
      std::vector<std::tuple<int, int, int>> expected, got;
      const int comp[2] = {a, b};
      for (int c = 0; c < 2; ++c)
        for (const auto& [m, to] : s.moves[static_cast<std::size_t>(comp[c])]) {
          std::vector<int> next{a, b};
          next[static_cast<std::size_t>(c)] = to;
          if (search.losing(next)) expected.emplace_back(c, m.row, m.col);
        }
      for (const SumMove& m : an.winning_moves) {
        got.emplace_back(m.component, m.move.row, m.move.col);
        EXPECT_EQ(m.leaves, apply_move(an.components[static_cast<std::size_t>(m.component)], m.move));
        EXPECT_EQ(m.value, an.values[static_cast<std::size_t>(m.component)] ^ an.nim_sum);
      }
      ASSERT_EQ(got, expected) << rows_to_string(s.list[static_cast<std::size_t>(a)]) << " + "
                               << rows_to_string(s.list[static_cast<std::size_t>(b)]);
    }
  EXPECT_GT(losing_pairs, 66);  // at least every board with itself, G xor G = 0
  // Three boards: the nim-sum of the values against the search, every triple.
  const GrundyTable table(8);
  int checked = 0;
  for (int a = 0; a < P; ++a)
    for (int b = a; b < P; ++b)
      for (int c = b; c < P; ++c) {
        const int x = table.value(s.list[static_cast<std::size_t>(a)]) ^ table.value(s.list[static_cast<std::size_t>(b)]) ^
                      table.value(s.list[static_cast<std::size_t>(c)]);
        ASSERT_EQ(x == 0, search.losing({a, b, c}));
        ++checked;
      }
  EXPECT_EQ(checked, 66 * 67 * 68 / 6);
  // And analyze_sum on a spread of triples.
  for (int a = 0; a < P; a += 5)
    for (int b = a; b < P; b += 7)
      for (int c = b; c < P; c += 3) {
        const SumAnalysis an = analyze_sum(
            {s.list[static_cast<std::size_t>(a)], s.list[static_cast<std::size_t>(b)], s.list[static_cast<std::size_t>(c)]});
        ASSERT_EQ(an.losing(), search.losing({a, b, c}));
        for (const SumMove& m : an.winning_moves) {
          std::vector<int> next{a, b, c};
          next[static_cast<std::size_t>(m.component)] = s.index.at(m.leaves);
          EXPECT_TRUE(search.losing(next));
        }
      }
}

TEST(GrundySums, TheIssueExample) {
  const SumAnalysis an = analyze_sum(parse_sum("3,2 + 4,4,1 + 2"));
  MemoGrundy memo;
  EXPECT_EQ(an.values, (std::vector<int>{memo.value({3, 2}), memo.value({4, 4, 1}), memo.value({2})}));
  EXPECT_EQ(an.values[2], 1);
  EXPECT_EQ(an.nim_sum, an.values[0] ^ an.values[1] ^ an.values[2]);
}

TEST(Grundy, CommittedGrundyTablesAgreeWithTheSieveTheEngineAndEachOther) {
  // data/grundy-80.h5 and data/grundy-100.h5 (two runs, two revisions):
  // value 0 counts equal the committed L(n) at every level, rows sum to
  // p(n), levels 1..30 equal a fresh computation, and the two files agree
  // on levels 1..80.
  const LevelTable committed = read_level_file(chomp::testing::committed_levels_file("h5"));
  const GrundyTable table(30);
  std::vector<GrundyFile> files;
  for (int levels : {80, 100}) {
    const GrundyFile file =
        read_grundy_file(std::string(CHOMP_DATA_DIR) + "/grundy-" + std::to_string(levels) + ".h5");
    ASSERT_EQ(file.tiles.size(), static_cast<std::size_t>(levels));
    EXPECT_EQ(file.number_attributes.at("complete"), 1);
    for (std::size_t i = 0; i < file.tiles.size(); ++i) {
      EXPECT_EQ(file.zeros[i], committed.losing[i]) << "level " << i + 1;
      EXPECT_EQ(file.counts[i][0], committed.losing[i]) << "level " << i + 1;
      std::uint64_t sum = 0;
      for (std::uint64_t c : file.counts[i]) sum += c;
      EXPECT_EQ(sum, committed.positions[i]) << "level " << i + 1;
    }
    for (std::size_t i = 0; i < 30; ++i) {
      std::vector<std::uint64_t> fresh = table.levels()[i].counts;
      fresh.resize(file.counts[i].size(), 0);
      EXPECT_EQ(file.counts[i], fresh) << "level " << i + 1;
    }
    files.push_back(file);
  }
  const auto trimmed = [](std::vector<std::uint64_t> row) {  // rows are as wide as the file's largest value
    while (!row.empty() && row.back() == 0) row.pop_back();
    return row;
  };
  for (std::size_t i = 0; i < 80; ++i) {
    EXPECT_EQ(trimmed(files[0].counts[i]), trimmed(files[1].counts[i])) << "level " << i + 1;
    EXPECT_EQ(files[0].largest[i], files[1].largest[i]) << "level " << i + 1;
  }
}
