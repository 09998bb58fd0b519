/// @file test_distributed.cpp
/// @brief The distributed sieve (several processes share each level, and
/// process 0 writes the store that all of them read) gives exactly the
/// single-process results: processes simulated by threads, so these run in
/// every build; tests/mpi/ runs the real thing under mpirun.

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "chomp/sieve.hpp"
#include "chomp_process.hpp"
#include "config.hpp"
#include "sieve_testing.hpp"
#include "thread_group.hpp"

using namespace chomp;
using chomp::testing::ScratchDir;
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
  std::vector<std::vector<std::uint64_t>> ranks;  // losing ranks per level, from the process's store
};

/// A distributed sieve files every mark, the first two rows' moves' too (their
/// bits, src/tail_marks.hpp, are one process's): so does every run here
/// that its marks are compared with.
SieveOptions filing(SieveOptions o = {}) {
  o.inferred_rows = 0;
  return o;
}

const Outcome& one_process() {
  static const Outcome run = [] {
    Outcome r;
    Sieve s(kTop, filing());
    s.run([&](const LevelResult& l) { r.levels.push_back(l); });
    for (int n = 1; n <= kTop; ++n) r.ranks.push_back(s.losing().all(n));
    return r;
  }();
  return run;
}

/// Runs the sieve to `top` on `processes` simulated processes over a store
/// at `path` that holds `levels` finished levels: process 0 writes it, the
/// others read it. Every process must find the same levels.
Outcome distributed(int processes, const SieveOptions& options, int top = kTop, const std::string& path = {},
                    const std::vector<StoredLevel>& levels = {}, const std::string& id = {}) {
  const SieveOptions o = filing(options);
  ScratchDir dir;
  const std::string store_path = path.empty() ? dir.file("run.store") : path;
  const std::string run_id = id.empty() ? new_run_id() : id;
  std::unique_ptr<LosingStore> written =
      path.empty() ? LosingStore::create(store_path, run_id) : LosingStore::open(store_path, run_id, levels, true);
  ThreadGroups groups(processes);
  std::vector<Outcome> runs(static_cast<std::size_t>(processes));
  groups.run([&](ProcessGroup& g) {
    Outcome& r = runs[static_cast<std::size_t>(g.index())];
    std::unique_ptr<LosingStore> read;
    if (g.index() != 0) read = LosingStore::open(store_path, run_id, levels, false);
    LosingStore& store = g.index() == 0 ? *written : *read;
    Sieve s(top, store, o, &g);
    s.run([&](const LevelResult& l) { r.levels.push_back(l); });
    for (int n = 1; n <= top; ++n) r.ranks.push_back(s.losing().all(n));
  });
  for (int p = 1; p < processes; ++p) {
    EXPECT_EQ(runs[static_cast<std::size_t>(p)].ranks, runs[0].ranks) << "process " << p << "'s store";
    for (std::size_t i = 0; i < runs[0].levels.size(); ++i) {
      EXPECT_EQ(runs[static_cast<std::size_t>(p)].levels[i].losing, runs[0].levels[i].losing);
      EXPECT_EQ(runs[static_cast<std::size_t>(p)].levels[i].marks, runs[0].levels[i].marks);
    }
  }
  return runs[0];
}

SieveOptions small_rounds() {
  SieveOptions o;
  o.round_marks = kSmallRound;
  return o;
}

void expect_same(const Outcome& got, const Outcome& want, std::size_t from = 0) {
  ASSERT_EQ(got.levels.size() + from, want.levels.size());
  for (std::size_t i = 0; i < got.levels.size(); ++i) {
    const LevelResult &g = got.levels[i], &w = want.levels[i + from];
    EXPECT_EQ(g.tiles, w.tiles);
    EXPECT_EQ(g.positions, w.positions) << "n = " << g.tiles;
    EXPECT_EQ(g.losing, w.losing) << "n = " << g.tiles;
    EXPECT_EQ(g.marks, w.marks) << "n = " << g.tiles;
  }
  EXPECT_EQ(got.ranks, want.ranks);
}

}  // namespace

TEST(DistributedSieve, TwoProcessesFindTheSameLevels) { expect_same(distributed(2, small_rounds()), one_process()); }

TEST(DistributedSieve, ThreeProcessesFindTheSameLevels) {
  // Three processes split the window's segments unevenly, and level
  // boundaries fall inside a process's range.
  expect_same(distributed(3, small_rounds()), one_process());
}

TEST(DistributedSieve, OneThreadPerProcessFindsTheSameLevels) {
  SieveOptions o = small_rounds();
  o.threads = 1;
  expect_same(distributed(2, o), one_process());
}

TEST(DistributedSieve, SlicesSharedBetweenProcessesFindTheSameLevels) {
  // Levels from 40 on in 3 slices, each shared by the processes: the
  // transposes of the slices above come from process 0's store, read by all.
  SieveOptions o = small_rounds();
  o.min_slices = 3;
  o.slice_from = 40;
  expect_same(distributed(3, o), one_process());
  o.threads = 1;
  expect_same(distributed(2, o), one_process());
}

TEST(DistributedSieve, MoreProcessesThanSegmentsOfSmallWindows) {
  // Up to 20 tiles the window has 20 segments: 24 processes leave some
  // with none.
  const Outcome got = distributed(24, SieveOptions{}, 20);
  ASSERT_EQ(got.levels.size(), 20U);
  for (int n = 0; n < 20; ++n)
    EXPECT_EQ(got.levels[static_cast<std::size_t>(n)].losing, one_process().levels[static_cast<std::size_t>(n)].losing);
  // Windows of 4 segments to 40 tiles, with the calls of more than 3
  // marks split between the processes: those with no segment take their
  // part (none) of each call too.
  SieveOptions o;
  o.window_bits = std::uint64_t{8} << 20;
  o.direct_call_marks = 3;
  const std::uint64_t calls = detail::g_split_calls.load();
  const Outcome split = distributed(24, o, 40);
  EXPECT_GE(detail::g_split_calls.load() - calls, 24u * 4) << "split calls, each counted by all 24 processes";
  ASSERT_EQ(split.levels.size(), 40U);
  for (std::size_t i = 0; i < 40; ++i) {
    EXPECT_EQ(split.levels[i].losing, one_process().levels[i].losing) << "n = " << i + 1;
    EXPECT_EQ(split.levels[i].marks, one_process().levels[i].marks) << "n = " << i + 1;
  }
}

TEST(DistributedSieve, CallsTooLargeForTheBucketsAreSplitBetweenTheProcesses) {
  // A call of the kernel that may make more than direct_call_marks marks
  // (a source far below its level: 1.5e9 marks into level 170) is made by
  // every process for the first rows of its own segments instead of being
  // filed and sent. With a bound of 300, many calls of a run to 72 go that
  // way: the same levels and marks as one process; each call is made by
  // every process, and fewer values travel between them than with the
  // small rounds' own bound (a quarter of a round: 2^16 marks).
  SieveOptions o = small_rounds();
  const std::uint64_t routed_before = detail::g_routed_values.load();
  expect_same(distributed(3, o), one_process());
  const std::uint64_t routed_2_16 = detail::g_routed_values.load() - routed_before;
  o.direct_call_marks = 300;
  for (int processes : {2, 3}) {
    const std::uint64_t calls = detail::g_split_calls.load(), routed = detail::g_routed_values.load();
    expect_same(distributed(processes, o), one_process());
    EXPECT_GT(detail::g_split_calls.load() - calls, 100u * static_cast<unsigned>(processes));
    EXPECT_EQ((detail::g_split_calls.load() - calls) % static_cast<unsigned>(processes), 0u);
    if (processes == 3) {
      EXPECT_LT(detail::g_routed_values.load() - routed, routed_2_16 / 10 * 9) << "values sent";
    }
  }
  // Levels from 40 on in 3 slices: a call is split within its slice.
  o.min_slices = 3;
  o.slice_from = 40;
  const std::uint64_t calls = detail::g_split_calls.load();
  expect_same(distributed(3, o), one_process());
  EXPECT_GT(detail::g_split_calls.load() - calls, 300u);
}

TEST(DistributedSieve, ResumesFromAStoreWithAnotherProcessCount) {
  // As `chomp sieve --resume` does: the store holds levels 1..59, which
  // every process opens; 60.. are computed.
  const Outcome& want = one_process();
  const int restored = 59;
  ScratchDir dir;
  const std::string path = dir.file("resumed.store"), id = new_run_id();
  std::vector<StoredLevel> levels;
  {
    const auto store = LosingStore::create(path, id);
    for (int n = 1; n <= restored; ++n) {
      store->begin_level(n);
      store->append(want.ranks[static_cast<std::size_t>(n - 1)]);
      levels.push_back(store->finish_level());
    }
  }
  expect_same(distributed(3, small_rounds(), kTop, path, levels, id), want, restored);
}

TEST(DistributedSieve, AStopOnOneProcessStopsAllAtTheSameLevel) {
  ScratchDir dir;
  const std::string path = dir.file("run.store"), id = new_run_id();
  const auto written = LosingStore::create(path, id);
  ThreadGroups groups(3);
  std::atomic<bool> flags[3] = {false, false, false};
  std::vector<int> done(3, -1), thrown(3, 0);
  groups.run([&](ProcessGroup& g) {
    const auto i = static_cast<std::size_t>(g.index());
    std::unique_ptr<LosingStore> read;
    if (i != 0) read = LosingStore::open(path, id, {}, false);
    Sieve s(kTop, i == 0 ? *written : *read, filing(small_rounds()), &g);
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
  EXPECT_EQ(written->levels(), 65);
}

TEST(DistributedSieve, BitmapMemoryPerProcessFallsWithTheProcessCount) {
  // At 170 tiles within 20 GiB a level's bitmap (32 GiB) is cut into
  // slices; with 4 processes each holds a quarter of each window, so fewer
  // slices are needed. The store's index is the same on every process.
  SieveOptions o;
  o.threads = 2;
  o.memory_budget = std::uint64_t{20} << 30;
  const MemoryPlan one = plan_run(170, o), four = plan_run(170, o, 4);
  EXPECT_GT(one.most_slices, 1);
  EXPECT_LT(four.most_slices, one.most_slices);
  EXPECT_LE(four.total(), o.memory_budget);
  EXPECT_EQ(four.index_bytes, one.index_bytes);
}

TEST(DistributedSieve, ManyWindowsFindTheSameLevels) {
  // Windows of at most 1 MiB per process: every window after the first is
  // marked from the levels below it, and the processes' ranges move.
  SieveOptions o = small_rounds();
  o.window_bits = std::uint64_t{8} << 20;
  expect_same(distributed(3, o), one_process());
}
