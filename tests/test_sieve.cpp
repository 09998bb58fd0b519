/// @file test_sieve.cpp
/// @brief The sieve against an obviously correct solver, the reference
/// tables, the known facts of Chomp, and itself at other thread counts,
/// in slices and within small budgets. (The marking kernel is tested in
/// test_extensions.cpp.)

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "chomp/sieve.hpp"
#include "brute_force.hpp"
#include "sieve_testing.hpp"

using namespace chomp;
using chomp::testing::BruteForce;

namespace {

struct CsvRow {
  int tiles;
  std::uint64_t positions, losing;
};

std::vector<CsvRow> read_csv(const std::string& name) {
  std::ifstream in(std::string(CHOMP_DATA_DIR) + "/reference/" + name);
  EXPECT_TRUE(in) << "missing data/reference/" << name;
  std::string line;
  std::getline(in, line);  // header
  std::vector<CsvRow> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    CsvRow r{};
    char comma;
    ss >> r.tiles >> comma >> r.positions >> comma >> r.losing;
    rows.push_back(r);
  }
  return rows;
}

SieveOptions with_threads(int threads) {
  SieveOptions o;
  o.threads = threads;
  return o;
}

std::vector<LevelResult> run_sieve(int max_tiles, const SieveOptions& options) {
  Sieve s(max_tiles, options);
  std::vector<LevelResult> out;
  s.run([&](const LevelResult& r) { out.push_back(r); });
  return out;
}

/// One shared run to 90 tiles (the published table), made once, with the
/// bytes its store file took and the memory its index held.
struct RunTo90 {
  std::vector<LevelResult> levels;
  std::uint64_t store_bytes = 0, index_bytes = 0, losing = 0;
};

const RunTo90& run_to_90() {
  static const RunTo90 run = [] {
    Sieve s(90, with_threads(2));
    RunTo90 r;
    s.run([&](const LevelResult& l) {
      r.levels.push_back(l);
      r.losing += l.losing;
    });
    r.store_bytes = s.losing().file_bytes();
    r.index_bytes = s.losing().memory_bytes();
    return r;
  }();
  return run;
}

const std::vector<LevelResult>& levels_to_90() { return run_to_90().levels; }

}  // namespace

TEST(Sieve, AgreesWithBruteForceOnEveryPositionUpTo25Tiles) {
  Sieve s(25);
  s.run({});
  BruteForce bf;
  for (int n = 1; n <= 25; ++n) {
    std::set<Rows> sieve_losing;
    for (const Rows& r : s.losing_positions(n)) sieve_losing.insert(r);
    std::set<Rows> brute_losing;
    for (std::uint64_t r = 0; r < s.table().positions(n); ++r) {
      const Rows rows = s.table().unrank(n, r);
      if (bf.losing(rows)) brute_losing.insert(rows);
    }
    EXPECT_EQ(sieve_losing, brute_losing) << "level " << n;
  }
}

TEST(Sieve, MatchesSmallCountsReference) {
  const auto ref = read_csv("small_counts.csv");
  ASSERT_EQ(ref.size(), 30U);
  const auto levels = run_sieve(30, with_threads(2));
  for (const CsvRow& r : ref) {
    const LevelResult& l = levels[static_cast<std::size_t>(r.tiles - 1)];
    EXPECT_EQ(l.tiles, r.tiles);
    EXPECT_EQ(l.positions, r.positions) << "n = " << r.tiles;
    EXPECT_EQ(l.losing, r.losing) << "n = " << r.tiles;
  }
}

TEST(Sieve, MatchesThePublishedDensityTable) {
  const auto ref = read_csv("caribou_density.csv");
  ASSERT_EQ(ref.size(), 8U);
  const auto& levels = levels_to_90();
  for (const CsvRow& r : ref) {
    const LevelResult& l = levels[static_cast<std::size_t>(r.tiles - 1)];
    EXPECT_EQ(l.positions, r.positions) << "n = " << r.tiles;
    EXPECT_EQ(l.losing, r.losing) << "n = " << r.tiles;
  }
  EXPECT_EQ(levels[89].losing, 897964U);
  EXPECT_NEAR(levels[89].hypothesis_ratio(), 0.2831, 0.0001);
}

TEST(Sieve, DiskAndMemoryPlansPredictTheStore) {
  // The disk plan's estimate of the store comes from the conjectured density
  // and a model of the gap code; the store must not outgrow it (a run
  // refuses to start on a disk with less room), nor be far below it. Its
  // index in memory stays within the memory plan's. And the store holds
  // under a byte per losing position.
  const RunTo90& run = run_to_90();
  const double planned = static_cast<double>(plan_disk(90).store_bytes);
  const double held = static_cast<double>(run.store_bytes);
  EXPECT_LE(held, planned);
  EXPECT_GE(held, 0.75 * planned);
  EXPECT_LT(held / static_cast<double>(run.losing), 1.0);
  EXPECT_LE(run.index_bytes, plan_run(90, with_threads(2)).index_bytes);
}

TEST(Sieve, PhaseTimesCoverEveryPartAndNoMoreThanTheRun) {
  // Levels 1..60 in one window of buckets (above kDirectMarkBits): every
  // phase takes some time, they only grow, and together they take no more
  // than the levels' own wall time.
  Sieve sieve(60);
  double levels = 0;
  double windows = 0;
  PhaseTimes before{};
  for (int n = 1; n <= 60; ++n) {
    const LevelResult r = sieve.next_level();
    levels += r.seconds;
    windows += r.window_seconds;
    if (n > 1) {
      EXPECT_EQ(r.window_seconds, 0.0) << "level " << n << " opened no window";
    }
    const PhaseTimes t = sieve.phase_times();
    for (auto [now, was] : {std::pair{t.opening, before.opening}, std::pair{t.filing, before.filing},
                            std::pair{t.applying, before.applying}, std::pair{t.transposes, before.transposes},
                            std::pair{t.scanning, before.scanning}})
      ASSERT_GE(now, was) << "level " << n;
    before = t;
  }
  const PhaseTimes t = sieve.phase_times();
  for (double phase : {t.opening, t.filing, t.applying, t.transposes, t.scanning}) EXPECT_GT(phase, 0.0);
  EXPECT_LE(t.opening + t.filing + t.applying + t.transposes + t.scanning, (levels + windows) * 1.001 + 1e-3);
  // One window holds levels 1..60: its opening pass is the first level's
  // window time (no other level has one, checked above).
  EXPECT_GT(windows, 0.0);
}

TEST(Sieve, KnownFactsOfChomp) {
  Sieve s(40);
  s.run({});
  // 2, 3, 4, 5 tiles: 0 of 2, 1 of 3, 0 of 5, 3 of 7 losing.
  EXPECT_EQ(s.losing_positions(2).size(), 0U);
  EXPECT_EQ(s.losing_positions(3).size(), 1U);
  EXPECT_EQ(s.losing_positions(4).size(), 0U);
  EXPECT_EQ(s.losing_positions(5).size(), 3U);
  for (int a = 1; 2 * a + 1 <= 40; ++a) {
    EXPECT_TRUE(s.is_losing(Rows{a + 1, a})) << "two rows " << a + 1 << "," << a;
    EXPECT_TRUE(s.is_losing(transpose(Rows{a + 1, a}))) << "two columns";
  }
  for (int a = 2; 2 * a - 1 <= 40; ++a) {
    Rows ell(static_cast<std::size_t>(a), 1);
    ell[0] = a;
    EXPECT_TRUE(s.is_losing(ell)) << "equal-armed L of " << a;
  }
  // Rectangles other than 1x1 are winning; squares are won by (2,2).
  for (int a = 1; a <= 6; ++a)
    for (int b = 1; a * b <= 40; ++b) {
      if (a == 1 && b == 1) continue;
      const Rows rect(static_cast<std::size_t>(a), b);
      EXPECT_FALSE(s.is_losing(rect)) << a << "x" << b;
      if (a == b) {
        EXPECT_TRUE(s.is_losing(apply_move(rect, {2, 2})));
      }
    }
  // Closed under transpose, at every level.
  for (int n = 1; n <= 40; ++n)
    for (const Rows& r : s.losing_positions(n)) EXPECT_TRUE(s.is_losing(transpose(r))) << rows_to_string(r);
  // 3,2,1 has exactly three winning moves.
  int winning = 0;
  const Rows tri{3, 2, 1};
  for (int i = 1; i <= 3; ++i)
    for (int j = 1; j <= tri[static_cast<std::size_t>(i - 1)]; ++j)
      if (!(i == 1 && j == 1) && s.is_losing(apply_move(tri, {i, j}))) ++winning;
  EXPECT_EQ(winning, 3);
  BruteForce bf;
  EXPECT_EQ(bf.winning_moves(tri).size(), 3U);
}

TEST(Sieve, AtMostOneLosingFirstRowPerTail) {
  // With every row but the first fixed, at most one first-row length gives a
  // losing position: if (a, tail) and (a', tail) with a' > a were both
  // losing, taking (1, a+1) from the second would leave the first, a move
  // from a losing position to a losing one. Checked on every level to 45.
  Sieve s(45);
  s.run({});
  std::map<Rows, int> first_row_of_tail;
  for (int n = 1; n <= 45; ++n)
    for (const Rows& r : s.losing_positions(n)) {
      const Rows tail(r.begin() + 1, r.end());
      const auto [it, inserted] = first_row_of_tail.emplace(tail, r.front());
      EXPECT_TRUE(inserted) << rows_to_string(r) << " and first row " << it->second
                            << " share the tail " << rows_to_string(tail);
    }
  EXPECT_GT(first_row_of_tail.size(), 1000U);
}

TEST(Sieve, SameResultWithOneAndTwoThreads) {
  // Windows above 2^21 bits (here: from the first, levels 1..70 together)
  // use the bucketed parallel marking.
  const auto one = run_sieve(70, with_threads(1));
  const auto two = run_sieve(70, with_threads(2));
  ASSERT_EQ(one.size(), two.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].losing, two[i].losing) << "n = " << i + 1;
    EXPECT_EQ(one[i].marks, two[i].marks) << "n = " << i + 1;
  }
}

TEST(Sieve, ItemsCutAtAThreadsShareOfARoundGiveTheSameResult) {
  // With rounds of 4,096 marks a thread's share is reached inside nearly
  // every item: it stops after a call of the kernel (a source's levels up
  // to config::kJointExtraTiles above it together, or one level above them)
  // and any thread takes the rest up in the next round. Every (source,
  // level) pair must be extended exactly once, so the marks applied to each
  // level match a run of whole items.
  const auto whole = run_sieve(66, with_threads(2));
  const std::uint64_t cut_before = detail::g_items_cut.load();
  SieveOptions small = with_threads(2);
  small.round_marks = 4096;
  const std::vector<LevelResult> cut = run_sieve(66, small);
  EXPECT_GT(detail::g_items_cut.load() - cut_before, 1000U);
  ASSERT_EQ(whole.size(), cut.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(whole[i].losing, cut[i].losing) << "n = " << i + 1;
    EXPECT_EQ(whole[i].marks, cut[i].marks) << "n = " << i + 1;
  }
}

TEST(Sieve, TransposesGiveTheSameLosingPositionsAsDecidingEveryPosition) {
  // The sieve decides canonical positions and takes the others as their
  // transposes; asked to decide every position itself, it must find the
  // same losing positions, level by level and rank by rank, with more
  // marks. Windows of 256 KiB (2^21 bits, one level each) are marked
  // directly, without buckets, up to level 65; windows of 2 MiB hold several levels each and
  // use the buckets. Levels from 66 on span two or more segments, whose
  // transposes are taken by the threads at hand (two on the development
  // machine) while they clear bits in each other's segments.
  const int max_n = 72;
  for (std::uint64_t window : {std::uint64_t{256} << 10, std::uint64_t{2} << 20}) {
    SieveOptions o;
    o.window_bits = window * 8;
    Sieve with(max_n, o);
    std::vector<LevelResult> a, b;
    with.run([&](const LevelResult& r) { a.push_back(r); });
    o.transposes = false;
    Sieve without(max_n, o);
    without.run([&](const LevelResult& r) { b.push_back(r); });
    for (int n = 1; n <= max_n; ++n) {
      const auto i = static_cast<std::size_t>(n - 1);
      ASSERT_EQ(with.losing().all(n), without.losing().all(n)) << "n = " << n;
      EXPECT_EQ(a[i].losing, b[i].losing);
      if (n >= 40) {
        EXPECT_LT(a[i].marks, b[i].marks * 3 / 4) << "n = " << n << ", windows of " << window << " bytes";
      }
    }
  }
}

TEST(Sieve, HypothesisRatioIsNaNWhereLogIsZero) {
  EXPECT_TRUE(std::isnan(hypothesis_ratio(1, 1)));
  EXPECT_NEAR(hypothesis_ratio(627, 42), 42 / (627 / std::log(627.0)), 1e-12);
}

namespace {

/// Every level's losing ranks and marks of a sieve run with these options.
struct Outcome {
  std::vector<std::vector<std::uint64_t>> ranks;
  std::vector<std::uint64_t> marks;
  int most_slices = 1;
};

Outcome outcome(int max_tiles, const SieveOptions& o) {
  Sieve s(max_tiles, o);
  Outcome out;
  s.run([&](const LevelResult& r) {
    out.marks.push_back(r.marks);
    out.most_slices = std::max(out.most_slices, r.slices);
  });
  for (int n = 1; n <= max_tiles; ++n) out.ranks.push_back(s.losing().all(n));
  return out;
}

}  // namespace

TEST(Sieve, CallsTooLargeForTheBucketsGoStraightToTheBitmapWithTheSameResult) {
  // A source's extensions into one level that may be more than
  // direct_call_marks are ORed into the window's bitmap instead of filed
  // (config::kDirectCallMarks: one such call made 1.2 GB of entries in
  // level 152). With a bound of 300 marks, many calls more than 32 levels
  // above their source go that way: the same losing ranks and marks, level
  // by level, as the buckets alone, with 1 and 2 threads, in one window of
  // many levels and in slices.
  const int max_n = 80;
  SieveOptions buckets;
  buckets.threads = 2;
  const std::uint64_t before = detail::g_direct_calls.load();
  const Outcome want = outcome(max_n, buckets);
  EXPECT_EQ(detail::g_direct_calls.load(), before) << "no call of a run to 80 reaches the default bound";
  for (int threads : {1, 2})
    for (bool sliced : {false, true}) {
      SieveOptions o;
      o.threads = threads;
      o.direct_call_marks = 300;
      if (sliced) o.min_slices = 3, o.slice_from = 60;
      const std::uint64_t calls = detail::g_direct_calls.load();
      const Outcome got = outcome(max_n, o);
      EXPECT_GT(detail::g_direct_calls.load() - calls, 100u) << threads << " threads, sliced " << sliced;
      if (sliced) {
        EXPECT_GE(got.most_slices, 3);
      }
      for (int n = 1; n <= max_n; ++n) {
        const auto i = static_cast<std::size_t>(n - 1);
        ASSERT_EQ(got.ranks[i], want.ranks[i]) << "n = " << n << ", " << threads << " threads, sliced " << sliced;
        EXPECT_EQ(got.marks[i], want.marks[i]) << "n = " << n << ", " << threads << " threads, sliced " << sliced;
      }
    }
}

TEST(Slices, TwoThreeAndSevenSlicesGiveTheSameRanksAndMarks) {
  // A level in slices of first rows, highest first, each marked by the
  // sources that reach it, with the transposes of the slices above taken
  // from the store: the same losing ranks and the same marks, level by
  // level, as whole levels (windows of one or a few levels, 2 MiB).
  const int max_n = 72;
  SieveOptions whole;
  whole.window_bits = std::uint64_t{2} << 23;
  const Outcome want = outcome(max_n, whole);
  for (int slices : {2, 3, 7}) {
    SieveOptions o;
    o.min_slices = slices;
    o.slice_from = 30;
    const Outcome got = outcome(max_n, o);
    // K slices means slices of at least p/K positions, cut at whole first
    // rows (window.cpp, slices_of): the last one may take the rest, so 7
    // asked can be 6 made.
    EXPECT_GE(got.most_slices, slices == 7 ? 6 : slices) << slices << " slices";
    for (int n = 1; n <= max_n; ++n) {
      const auto i = static_cast<std::size_t>(n - 1);
      ASSERT_EQ(got.ranks[i], want.ranks[i]) << "n = " << n << ", " << slices << " slices";
      EXPECT_EQ(got.marks[i], want.marks[i]) << "n = " << n << ", " << slices << " slices";
    }
  }
}

TEST(Slices, AFirstSlicedLevelBeyondTheRunCutsNone) {
  // --slices K --slice-from F with F past --max-tiles: no level is cut, and
  // the run is the usual one (from F = max + 2 on, a window's end was once
  // sought past the last level, and the run crashed). The plan says the
  // same.
  const int max_n = 60;
  const Outcome want = outcome(max_n, SieveOptions{});
  for (int from : {max_n + 1, max_n + 2, 200}) {
    SieveOptions o;
    o.min_slices = 2;
    o.slice_from = from;
    EXPECT_EQ(plan_run(max_n, o).first_sliced, 0) << "from " << from;
    const Outcome got = outcome(max_n, o);
    EXPECT_EQ(got.most_slices, 1) << "from " << from;
    EXPECT_EQ(got.ranks, want.ranks) << "from " << from;
    EXPECT_EQ(got.marks, want.marks) << "from " << from;
  }
}

TEST(Progress, EachLevelsFractionRisesWithinZeroToOne) {
  // What the progress line shows (marking.cpp, ProgressThrottle): for each
  // level, its pass's estimated work done, never below an earlier report of
  // the same level and never above 1; windows of many levels, levels alone
  // in their windows, and levels in three slices.
  for (int slices : {0, 1, 3}) {
    SieveOptions o;
    o.threads = 2;
    if (slices) o.min_slices = slices, o.slice_from = 70;
    Sieve s(84, o);
    std::map<int, std::vector<double>> reports;
    std::mutex lock;
    s.run([](const LevelResult&) {}, [&](int tiles, double fraction) {
      const std::lock_guard guard(lock);
      reports[tiles].push_back(fraction);
    });
    EXPECT_GE(reports.size(), 5u) << slices << " slices";
    for (const auto& [tiles, fractions] : reports)
      for (std::size_t i = 0; i < fractions.size(); ++i) {
        EXPECT_GE(fractions[i], 0.0) << "level " << tiles << ", " << slices << " slices";
        EXPECT_LE(fractions[i], 1.0) << "level " << tiles << ", " << slices << " slices";
        if (i > 0) {
          EXPECT_GE(fractions[i], fractions[i - 1]) << "level " << tiles << ", " << slices << " slices";
        }
      }
  }
}

TEST(Slices, ABudgetThatForcesSmallWindowsAndSlicesGivesTheTable) {
  // 8 MiB for bitmaps, buckets and buffers (the buckets' pools alone take
  // 2 MiB a thread): windows of about 2 MiB, a level each from 70 on, and
  // from about 80 on the levels (p(80) = 15.8 million bits) do not fit
  // whole; the counts and marks are the whole run's.
  SieveOptions o;
  o.threads = 2;
  o.memory_budget = std::uint64_t{8} << 20;
  const MemoryPlan plan = plan_run(88, o);
  EXPECT_GT(plan.first_sliced, 0);
  EXPECT_LE(plan.first_sliced, 84);
  EXPECT_LE(plan.total(), o.memory_budget);
  // The bits of even the first row of a run to 88 (5.5 MB) are more than
  // an eighth of the budget: it files every mark, and so does the run
  // whose marks it is compared with.
  EXPECT_EQ(inferred_rows(88, o), 0);
  Sieve s(88, o);
  std::vector<LevelResult> levels;
  s.run([&](const LevelResult& r) { levels.push_back(r); });
  SieveOptions whole = with_threads(2);
  whole.inferred_rows = 0;
  const std::vector<LevelResult> ref = run_sieve(88, whole);
  int sliced = 0;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    EXPECT_EQ(levels[i].losing, ref[i].losing) << "n = " << i + 1;
    EXPECT_EQ(levels[i].marks, ref[i].marks) << "n = " << i + 1;
    if (levels[i].slices > 1) ++sliced;
  }
  EXPECT_GE(sliced, 4);
  // The plan names the first level the run held alone in its window (whole,
  // opening a window that the next level does not share, or in slices):
  // from there every level decodes every source below it again.
  const auto opens = [&](std::size_t i) { return levels[i].slices > 1 || levels[i].window_seconds > 0; };
  int alone = 0;
  for (std::size_t i = 0; i < levels.size() && alone == 0; ++i)
    if (levels[i].slices > 1 || (levels[i].window_seconds > 0 && (i + 1 == levels.size() || opens(i + 1))))
      alone = static_cast<int>(i) + 1;
  EXPECT_GT(alone, 1);
  EXPECT_EQ(plan.first_alone, alone);
  // And every window the run opened is the plan's, in order (what the
  // dry run's time and the ETA price).
  std::vector<PlannedWindow> opened;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const int n = static_cast<int>(i) + 1;
    if (opened.empty() || opens(i))
      opened.push_back(PlannedWindow{n, n, static_cast<int>(levels[i].slices)});
    else
      opened.back().last = n;
  }
  ASSERT_EQ(opened.size(), plan.windows.size());
  for (std::size_t i = 0; i < opened.size(); ++i) {
    EXPECT_EQ(opened[i].first, plan.windows[i].first) << "window " << i;
    EXPECT_EQ(opened[i].last, plan.windows[i].last) << "window " << i;
    EXPECT_EQ(opened[i].slices, plan.windows[i].slices) << "window " << i;
  }
}

TEST(Slices, ABudgetTooSmallForOneFirstRowIsRefusedWithTheSmallestThatWorks) {
  SieveOptions o;
  o.memory_budget = 200 << 10;
  try {
    plan_run(90, o);
    FAIL() << "a 200 KiB budget for 90 tiles was accepted";
  } catch (const BudgetTooSmall& e) {
    EXPECT_GT(e.smallest, o.memory_budget);
    o.memory_budget = e.smallest;
    EXPECT_NO_THROW(plan_run(90, o)) << "the smallest budget named does not work: " << e.smallest;
  }
}

// Options a library caller may get wrong are refused by name: a negative
// thread count and more than two inferred rows were taken silently.
TEST(Sieve, RefusesANegativeThreadCountAndMoreThanTwoInferredRows) {
  SieveOptions negative;
  negative.threads = -3;
  try {
    Sieve s(10, negative);
    ADD_FAILURE() << "threads = -3 was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("SieveOptions::threads is -3"), std::string::npos) << e.what();
  }
  for (int rows : {-1, 3}) {
    SieveOptions o;
    o.inferred_rows = rows;
    EXPECT_THROW(Sieve(10, o), std::invalid_argument) << rows;
  }
  SieveOptions fine;
  fine.inferred_rows = 0;
  Sieve s(10, fine);
  EXPECT_EQ(s.next_level().losing, 1u);  // level 1: the poisoned tile alone, losing
}
