/// @file test_work_model.cpp
/// @brief The work model behind --dry-run's time and the ETA
/// (chomp/work_model.hpp): its marks and losing positions against the
/// committed table, and its price of windows of one level against the
/// measured one.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "chomp/sieve.hpp"
#include "chomp/work_model.hpp"
#include "committed_data.hpp"
#include "extensions.hpp"

namespace chomp {
namespace {

struct Committed {
  std::map<int, double> losing, marks;
};

/// The committed table's losing positions and marks by level.
Committed committed_table() {
  std::ifstream in(testing::committed_levels_file("csv"));
  Committed c;
  std::string header;
  std::size_t marks = 0;  // the column of the marks (more columns follow it from format 3)
  const auto cells_of = [](const std::string& line) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    return cells;
  };
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (header.empty()) {
      header = line;
      const auto names = cells_of(header);
      marks = static_cast<std::size_t>(std::find(names.begin(), names.end(), "marks") - names.begin());
      continue;
    }
    const auto cells = cells_of(line);
    if (cells.size() <= marks) continue;
    const int tiles = std::stoi(cells[0]);
    c.losing[tiles] = std::stod(cells[2]);
    c.marks[tiles] = std::stod(cells[marks]);
  }
  EXPECT_EQ(header.substr(0, 23), "tiles,positions,losing,");
  EXPECT_NE(header.find(",marks"), std::string::npos) << header;
  EXPECT_GT(c.marks.size(), 100u) << "rows with marks";
  return c;
}

TEST(WorkModel, MarksAndLosingPositionsFollowTheCommittedTable) {
  const Committed c = committed_table();
  ASSERT_GE(c.marks.size(), 150u);
  const PartitionTable t(150);
  for (int k = 100; k <= 150; ++k) {
    EXPECT_NEAR(model_marks(t, k) / c.marks.at(k), 1.0, 0.02) << "marks into level " << k;
    EXPECT_NEAR(model_losing(t, k) / c.losing.at(k), 1.0, 0.015) << "losing positions of level " << k;
  }
}

TEST(WorkModel, VisitsPriceWindowsOfOneLevelAsMeasured) {
  // N = 110 with every level from 100 on alone in its window took 103-124
  // CPU-s against 62 CPU-s in one window (2 threads, the same marks;
  // experiments/results/bench.csv, 2026-12-02, rows chomp-slices1 and
  // chomp): the model must price the two plans about that far apart, and
  // only its visits can, since the marks are the same.
  SieveOptions whole;
  whole.threads = 2;
  SieveOptions alone = whole;
  alone.min_slices = 1;
  alone.slice_from = 100;
  const std::vector<PlannedWindow> one = plan_run(110, whole).windows, many = plan_run(110, alone).windows;
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(many.size(), 12u);  // 1..99, then 100 .. 110 each alone
  EXPECT_EQ(many.front().last, 99);
  const PartitionTable t(110);
  const double ratio = model_work(t, many) / model_work(t, one);
  EXPECT_GT(ratio, 0.9 * 103 / 62);
  EXPECT_LT(ratio, 1.1 * 124 / 62);
  // A window of many levels is mostly its marks.
  double marks = 0;
  for (int k = 1; k <= 110; ++k) marks += model_marks(t, k);
  EXPECT_LT(kVisitMarks * model_visits(t, one.front()), 0.2 * marks);
  // A level in two slices costs kSliceCost more than whole.
  const PlannedWindow level{110, 110, 1}, sliced{110, 110, 2};
  EXPECT_DOUBLE_EQ(model_work(t, sliced), (1 + kSliceCost) * model_work(t, level));
}

TEST(WorkModel, SourceMarksFollowTheMeasuredAverage) {
  // What a pass's progress counts an item for: every losing position of
  // level 70 - d decoded and extended into level 70 alone (canonical
  // extensions, as a --file-all-marks sieve makes them: the default one
  // also leaves the first two rows' moves to their bits), the entries per source against
  // model_source_marks(d), which was fitted to levels 70..90 (3.7 entries a
  // source at d = 1, 4.6 at 10, 10.8 at 20, 28.8 at 30 here), and far below
  // p(d), the bound on them that orders the items.
  const int n = 70;
  Sieve sieve(n, SieveOptions{});
  sieve.run([](const LevelResult&) {});
  const PartitionTable& table = sieve.table();
  struct Entries {
    std::uint64_t count = 0;
    void point(std::uint64_t) { ++count; }
    void range(std::uint64_t, std::uint64_t) { ++count; }
  };
  for (int d : {1, 2, 5, 10, 15, 20, 25, 30}) {
    const int m = n - d;
    const std::vector<std::uint64_t> ranks = sieve.losing().all(m);
    ASSERT_GT(ranks.size(), 20u);
    detail::Source src(table);
    src.set_canonical_only(true);
    Entries e;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      if (i == 0) src.decode(m, ranks[i]); else src.seek(ranks[i]);
      src.for_each_extension(d, e);
    }
    const double measured = static_cast<double>(e.count) / static_cast<double>(ranks.size());
    EXPECT_GT(model_source_marks(d), 0.75 * measured) << "d = " << d;
    EXPECT_LT(model_source_marks(d), 1.33 * measured) << "d = " << d;
    if (d >= 15) {
      EXPECT_LT(10 * model_source_marks(d), static_cast<double>(table.positions(d))) << "d = " << d;
    }
  }
}

TEST(WorkModel, APlanFromALaterLevelIsTheRestOfTheRunsWindows) {
  // What the ETA prices: the windows of a run resumed at a window's first
  // level are the whole run's from there (a budget with windows of a few
  // levels, then one level each, then slices).
  SieveOptions o;
  o.threads = 2;
  o.memory_budget = std::uint64_t{12} << 20;
  const std::vector<PlannedWindow> all = plan_run(100, o).windows;
  ASSERT_GE(all.size(), 8u);
  EXPECT_EQ(all.front().first, 1);
  EXPECT_EQ(all.back().last, 100);
  EXPECT_GT(all.back().slices, 1);
  for (std::size_t i = 1; i < all.size(); ++i) {
    ASSERT_EQ(all[i].first, all[i - 1].last + 1);
    const std::vector<PlannedWindow> later = plan_run(100, o, 1, all[i].first).windows;
    ASSERT_EQ(later.size(), all.size() - i) << "from level " << all[i].first;
    for (std::size_t j = 0; j < later.size(); ++j) {
      EXPECT_EQ(later[j].first, all[i + j].first);
      EXPECT_EQ(later[j].last, all[i + j].last);
      EXPECT_EQ(later[j].slices, all[i + j].slices);
    }
  }
  EXPECT_TRUE(plan_run(100, o, 1, 101).windows.empty());
  // From a level inside a window (a run resumed there without a
  // checkpoint): the windows start at that level and cover the rest.
  for (const PlannedWindow& w : all) {
    if (w.last == w.first) continue;
    const std::vector<PlannedWindow> later = plan_run(100, o, 1, w.first + 1).windows;
    ASSERT_FALSE(later.empty());
    EXPECT_EQ(later.front().first, w.first + 1);
    EXPECT_GE(later.front().last, w.last);  // as many levels as fit, from there
    for (std::size_t j = 1; j < later.size(); ++j) EXPECT_EQ(later[j].first, later[j - 1].last + 1);
    EXPECT_EQ(later.back().last, 100);
  }
}

// The ETA of grundy and 3D runs: the level's seconds per unit of work so
// far, over the rest of the level and every later level.
TEST(WorkModel, PaceEtaProjectsTheLevelsPaceOverTheWorkLeft) {
  const std::vector<double> work = pull_work({1, 1, 1, 4 / 3.0});  // 0, 1, 2, 4
  ASSERT_EQ(work.size(), 4u);
  EXPECT_DOUBLE_EQ(work[0], 0);
  EXPECT_DOUBLE_EQ(work[2], 2);
  EXPECT_DOUBLE_EQ(work[3], 4);
  PaceEta eta;
  // A quarter of level 2 (work 2) in 1 s: 2 s a unit; 1.5 units left in it,
  // then 4 in level 3.
  ASSERT_TRUE(pace_eta(work, 2, 0.25, 1.0, eta));
  EXPECT_DOUBLE_EQ(eta.level_left, 3.0);
  EXPECT_DOUBLE_EQ(eta.run_left, 11.0);
  // The last level: the run ends with it.
  ASSERT_TRUE(pace_eta(work, 3, 0.5, 2.0, eta));
  EXPECT_DOUBLE_EQ(eta.level_left, 2.0);
  EXPECT_DOUBLE_EQ(eta.run_left, 2.0);
  // No pace yet: under 2% of the level or 0.2 s of it; no such level.
  EXPECT_FALSE(pace_eta(work, 2, 0.01, 5.0, eta));
  EXPECT_FALSE(pace_eta(work, 2, 0.5, 0.1, eta));
  EXPECT_FALSE(pace_eta(work, 0, 0.5, 1.0, eta));
  EXPECT_FALSE(pace_eta(work, 4, 0.5, 1.0, eta));
  // A pace that has all but stopped: both capped.
  ASSERT_TRUE(pace_eta(work, 2, 0.02, 1e9, eta));
  EXPECT_DOUBLE_EQ(eta.level_left, kLongestEta);
  EXPECT_DOUBLE_EQ(eta.run_left, kLongestEta);
}

// A dry run's time (grundy, 3D): the calibration's levels, then the
// levels above it at the pace of its last five levels.
TEST(WorkModel, ACalibratedRunPricesTheLevelsAboveAtTheLastFiveLevelsPace) {
  const std::vector<double> work = {0, 1, 1, 1, 1, 2, 2, 2, 10, 20};  // levels 1..9
  // Levels 1..7 took 3.6 s in all; levels 3..7 0.2 s a unit of work
  // (levels 1 and 2, slower, are not in the pace).
  const std::vector<double> level_seconds = {0, 1, 1, 0.2, 0.2, 0.4, 0.4, 0.4};
  EXPECT_NEAR(calibrated_run_seconds(work, level_seconds, 7), 3.6 + 0.2 * 30, 1e-9);
  // A run no larger than the calibration: what its levels took.
  EXPECT_NEAR(calibrated_run_seconds(std::vector<double>(work.begin(), work.begin() + 8), level_seconds, 7), 3.6, 1e-9);
  // A resumed run with levels 1..5 done: levels 6, 7 as they took, 8, 9 at
  // the pace; with 1..8 done, level 9 alone.
  EXPECT_NEAR(calibrated_run_seconds(work, level_seconds, 7, 6), 0.8 + 0.2 * 30, 1e-9);
  EXPECT_NEAR(calibrated_run_seconds(work, level_seconds, 7, 9), 0.2 * 20, 1e-9);
  // Fewer than five levels calibrated: all of them set the pace.
  EXPECT_NEAR(calibrated_run_seconds(work, {0, 0.5, 1.0}, 2), 1.5 + 0.75 * (1 + 1 + 2 + 2 + 2 + 10 + 20), 1e-9);
}

}  // namespace
}  // namespace chomp
