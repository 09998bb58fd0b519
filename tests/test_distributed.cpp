/// @file test_distributed.cpp
/// @brief The distributed sieve (several processes share each level) gives
/// exactly the single-process results: processes simulated by threads, so
/// these run in every build; tests/mpi/ runs the real thing under mpirun.

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <atomic>
#include <mutex>

#include "chomp/sieve.hpp"
#include "config.hpp"
#include "sieve_testing.hpp"
#include "thread_group.hpp"

using namespace chomp;
using chomp::testing::ThreadGroups;

namespace {

// Every level is marked through the buckets (the path the distributed
// sieve routes between processes); 72 tiles keep the tests short.
constexpr int kTop = 72;

/// Small rounds: a run this short then takes many rounds per marking pass,
/// with processes that run out of sources before the others, as large runs do.
constexpr std::uint64_t kSmallRound = std::uint64_t{1} << 18;

struct Outcome {
  std::vector<LevelResult> levels;
  std::vector<std::vector<std::uint64_t>> ranks;  // losing ranks per level, from process 0's store
};

const Outcome& one_process() {
  static const Outcome run = [] {
    Outcome r;
    Sieve s(kTop);
    s.run([&](const LevelResult& l) { r.levels.push_back(l); });
    for (int n = 1; n <= kTop; ++n) r.ranks.push_back(s.losing().level(n).all());
    return r;
  }();
  return run;
}

/// Runs the sieve on `processes` simulated processes; every process must
/// find the same levels and hold the same store.
Outcome distributed(int processes, std::uint64_t* bytes = nullptr, std::uint64_t round = kSmallRound) {
  const detail::ForTesting small(detail::g_round_marks_for_testing, round);
  ThreadGroups groups(processes);
  std::vector<Outcome> runs(static_cast<std::size_t>(processes));
  groups.run([&](ProcessGroup& g) {
    Outcome& r = runs[static_cast<std::size_t>(g.index())];
    Sieve s(kTop, &g);
    s.run([&](const LevelResult& l) { r.levels.push_back(l); });
    for (int n = 1; n <= kTop; ++n) r.ranks.push_back(s.losing().level(n).all());
  });
  for (int p = 1; p < processes; ++p) {
    EXPECT_EQ(runs[static_cast<std::size_t>(p)].ranks, runs[0].ranks) << "process " << p << "'s store";
    for (std::size_t i = 0; i < runs[0].levels.size(); ++i) {
      EXPECT_EQ(runs[static_cast<std::size_t>(p)].levels[i].losing, runs[0].levels[i].losing);
      EXPECT_EQ(runs[static_cast<std::size_t>(p)].levels[i].marks, runs[0].levels[i].marks);
    }
  }
  if (bytes) *bytes = groups.bytes_sent();
  return runs[0];
}

void expect_same(const Outcome& got, const Outcome& want) {
  ASSERT_EQ(got.levels.size(), want.levels.size());
  for (std::size_t i = 0; i < want.levels.size(); ++i) {
    EXPECT_EQ(got.levels[i].tiles, want.levels[i].tiles);
    EXPECT_EQ(got.levels[i].positions, want.levels[i].positions) << "n = " << i + 1;
    EXPECT_EQ(got.levels[i].losing, want.levels[i].losing) << "n = " << i + 1;
    EXPECT_EQ(got.levels[i].marks, want.levels[i].marks) << "n = " << i + 1;
  }
  EXPECT_EQ(got.ranks, want.ranks);
}

}  // namespace

TEST(DistributedSieve, TwoProcessesFindTheSameLevels) { expect_same(distributed(2), one_process()); }

TEST(DistributedSieve, ThreeProcessesFindTheSameLevels) {
  // Three processes split the window's segments unevenly, and level
  // boundaries fall inside a process's range.
  expect_same(distributed(3), one_process());
}

TEST(DistributedSieve, OneThreadPerProcessFindsTheSameLevels) {
  tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  expect_same(distributed(2), one_process());
}

TEST(DistributedSieve, MoreProcessesThanSegmentsOfSmallWindows) {
  // Up to 20 tiles the window has 20 segments: 24 processes leave some
  // with none.
  ThreadGroups groups(24);
  std::vector<std::vector<LevelResult>> levels(24);
  groups.run([&](ProcessGroup& g) {
    Sieve s(20, &g);
    s.run([&](const LevelResult& l) { levels[static_cast<std::size_t>(g.index())].push_back(l); });
  });
  for (const auto& l : levels) {
    ASSERT_EQ(l.size(), 20U);
    for (int n = 0; n < 20; ++n) EXPECT_EQ(l[static_cast<std::size_t>(n)].losing, one_process().levels[static_cast<std::size_t>(n)].losing);
  }
}

TEST(DistributedSieve, ResumesFromProcessZerosLevelsWithAnotherProcessCount) {
  // As `chomp sieve --resume` does: process 0 alone has the stored ranks;
  // levels 1..59 are re-installed on every process, 60.. computed.
  const Outcome& want = one_process();
  const int restored = 59;
  const detail::ForTesting small(detail::g_round_marks_for_testing, kSmallRound);
  ThreadGroups groups(3);
  std::vector<Outcome> runs(3);
  groups.run([&](ProcessGroup& g) {
    Outcome& r = runs[static_cast<std::size_t>(g.index())];
    Sieve s(kTop, &g);
    for (int n = 1; n <= restored; ++n)
      s.restore_level(n, g.index() == 0 ? want.ranks[static_cast<std::size_t>(n - 1)] : std::vector<std::uint64_t>{}, 0);
    s.run([&](const LevelResult& l) { r.levels.push_back(l); });
    for (int n = 1; n <= kTop; ++n) r.ranks.push_back(s.losing().level(n).all());
  });
  for (const Outcome& r : runs) {
    ASSERT_EQ(r.levels.size(), static_cast<std::size_t>(kTop - restored));
    for (std::size_t i = 0; i < r.levels.size(); ++i) {
      EXPECT_EQ(r.levels[i].losing, want.levels[restored + i].losing) << "n = " << restored + i + 1;
      EXPECT_EQ(r.levels[i].marks, want.levels[restored + i].marks) << "n = " << restored + i + 1;
    }
    EXPECT_EQ(r.ranks, want.ranks);
  }
}

TEST(DistributedSieve, AStopOnOneProcessStopsAllAtTheSameLevel) {
  const detail::ForTesting small(detail::g_round_marks_for_testing, kSmallRound);
  ThreadGroups groups(3);
  std::atomic<bool> flags[3] = {false, false, false};
  std::vector<int> done(3, -1), thrown(3, 0);
  groups.run([&](ProcessGroup& g) {
    const auto i = static_cast<std::size_t>(g.index());
    Sieve s(kTop, &g);
    s.set_stop_flag(&flags[i]);
    try {
      // Only process 1 is told to stop, after level 65.
      s.run([&](const LevelResult& l) {
        if (g.index() == 1 && l.tiles == 65) flags[i] = true;
      });
    } catch (const SieveInterrupted&) {
      thrown[i] = 1;
    }
    done[i] = s.levels_done();
  });
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(thrown[static_cast<std::size_t>(i)], 1) << "process " << i;
    EXPECT_EQ(done[static_cast<std::size_t>(i)], 65) << "process " << i;
  }
}

TEST(DistributedSieve, BitmapMemoryPerProcessFallsWithTheProcessCount) {
  // At 170 tiles a level's bitmap (32 GiB) is larger than a window, so
  // each of K processes holds a K-th of it; the losing store is whole on
  // every process.
  const MemoryPlan one = plan_memory(170), four = plan_memory(170, 4);
  EXPECT_NEAR(static_cast<double>(four.bitmap_bytes) * 4 / static_cast<double>(one.bitmap_bytes), 1.0, 1e-3);
  EXPECT_EQ(four.store_bytes, one.store_bytes);
  EXPECT_EQ(plan_memory(90, 1).total(), plan_memory(90).total());
}

TEST(DistributedSieve, ManyWindowsFindTheSameLevels) {
  // Windows of at most 1 MiB per process: every window after the first is
  // marked from the levels below it, and the processes' ranges move.
  const detail::ForTesting small(detail::g_window_bytes_for_testing, std::uint64_t{1} << 20);
  expect_same(distributed(3), one_process());
}
