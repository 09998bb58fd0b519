/// @file test_resume.cpp
/// @brief Batch runs through the `chomp` program: SIGKILL at any moment then
/// --resume (with other thread counts) gives the uninterrupted run's file;
/// SIGINT and SIGTERM stop cleanly; no silent overwrite; thread counts agree.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <regex>
#include <thread>
#include <tuple>

#include "committed_data.hpp"
#include "damaged_files.hpp"
#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/ranking.hpp"
#include "chomp/sieve.hpp"
#include "chomp_process.hpp"

using namespace chomp;
using namespace chomp::testing;

namespace {

/// L(n) from both reference tables (1..30, then 40, 50, ..., 90).
std::map<int, std::uint64_t> reference_losing() {
  std::map<int, std::uint64_t> out;
  for (const char* name : {"small_counts.csv", "caribou_density.csv"}) {
    std::ifstream in(std::string(CHOMP_DATA_DIR) + "/reference/" + name);
    EXPECT_TRUE(in) << "cannot read the reference table " << name;
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      int tiles = 0;
      unsigned long long positions = 0, losing = 0;
      char c = 0;
      std::istringstream row(line);
      const bool read = static_cast<bool>(row >> tiles >> c >> positions >> c >> losing);
      EXPECT_TRUE(read) << name << ": a row that is not tiles,positions,losing: " << line;
      if (read) out[tiles] = losing;
    }
  }
  // Levels 1..30 and 20, 30, ..., 90: without them the callers would check
  // p(n) alone, against the program's own partition table.
  EXPECT_EQ(out.size(), 36U) << "the reference tables hold levels 1..30 and 40..90";
  return out;
}

/// Every level's counts against p(n) and the reference tables.
void expect_matches_references(const LevelTable& t) {
  const PartitionTable table(static_cast<int>(t.tiles.size()) + 1);
  const auto ref = reference_losing();
  for (std::size_t i = 0; i < t.tiles.size(); ++i) {
    const int n = static_cast<int>(i) + 1;
    EXPECT_EQ(t.tiles[i], static_cast<std::uint32_t>(n));
    EXPECT_EQ(t.positions[i], table.positions(n)) << "n = " << n;
    if (const auto it = ref.find(n); it != ref.end()) {
      EXPECT_EQ(t.losing[i], it->second) << "n = " << n;
    }
  }
}

/// Two result files hold the same levels: every count and every losing rank.
void expect_same_levels(const std::string& a_path, const std::string& b_path) {
  const LevelFileReader a(a_path), b(b_path);
  const LevelTable &ta = a.table(), &tb = b.table();
  EXPECT_EQ(ta.tiles, tb.tiles);
  EXPECT_EQ(ta.positions, tb.positions);
  EXPECT_EQ(ta.losing, tb.losing);
  EXPECT_EQ(ta.marks, tb.marks);
  EXPECT_EQ(ta.losing_digest, tb.losing_digest);
  const int rows = static_cast<int>(std::min(ta.tiles.size(), tb.tiles.size()));
  const auto sa = LosingStore::open(a.store_path(), a.run_id(), a.stored_levels(rows), false);
  const auto sb = LosingStore::open(b.store_path(), b.run_id(), b.stored_levels(rows), false);
  for (int n = 1; n <= rows; ++n) EXPECT_TRUE(sa->all(n) == sb->all(n)) << "the losing ranks of level " << n << " differ";
  for (std::size_t i = 0; i < ta.tiles.size() && i < tb.tiles.size(); ++i) {
    EXPECT_DOUBLE_EQ(ta.losing_fraction[i], tb.losing_fraction[i]);
    if (!std::isnan(ta.hypothesis_ratio[i])) {
      EXPECT_DOUBLE_EQ(ta.hypothesis_ratio[i], tb.hypothesis_ratio[i]);
    }
  }
}

std::int64_t number(const LevelTable& t, const char* name) {
  const auto it = t.number_attributes.find(name);
  return it == t.number_attributes.end() ? -1 : it->second;
}

std::string text(const LevelTable& t, const char* name) {
  const auto it = t.text_attributes.find(name);
  return it == t.text_attributes.end() ? "<missing>" : it->second;
}

void expect_complete(const LevelTable& t, int levels) {
  EXPECT_TRUE(t.complete());
  EXPECT_EQ(t.status(), "complete");
  EXPECT_EQ(static_cast<int>(t.tiles.size()), levels);
}

/// Sizes: the full-size runs take a few seconds in Release; Debug and
/// sanitizer builds go through the same steps on smaller levels.
constexpr int kKillMax = kFullSize ? 78 : 58;
constexpr int kKillAfter = kFullSize ? 70 : 50;

/// SIGKILLs a run at a random moment of the level after `level`: it times
/// level `level` and sleeps a random part of that (the next level takes
/// about 15% longer), so the kill lands mid-level on any machine and build.
template <class Rng>
void kill_inside_next_level(ChompProcess& run, int level, Rng& rng) {
  ASSERT_TRUE(run.wait_until([&] { return run.last_level_printed() >= level - 1; })) << run.err();
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(run.wait_until([&] { return run.last_level_printed() >= level; })) << run.err();
  const auto took = std::chrono::steady_clock::now() - start;
  std::this_thread::sleep_for(std::chrono::duration_cast<std::chrono::microseconds>(
      took * std::uniform_real_distribution<double>(0.0, 1.0)(rng)));
  run.send(SIGKILL);
}

}  // namespace

// The central promise: a run killed at an arbitrary moment, then resumed
// (killed again while resuming, resumed again), each time with another
// thread count, ends with exactly the file of an uninterrupted run.
TEST(Resume, KilledTwiceMidLevelThenResumedEqualsUninterruptedRun) {
  ScratchDir dir;
  const std::string ref = dir.file("ref.h5"), out = dir.file("run.h5");
  const std::string max = std::to_string(kKillMax);
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("CHOMP_TEST_SEED=" + std::to_string(seed));

  ChompProcess reference({"sieve", "-n", max, "-t", "2", "-q", "-o", ref});

  ChompProcess first({"sieve", "-n", max, "-t", "2", "-o", out});
  kill_inside_next_level(first, kKillAfter, rng);
  const ProcessResult killed = first.wait();
  ASSERT_EQ(killed.signal, SIGKILL) << "the run ended before it was killed: " << killed.err;
  int saved = 0;
  {
    const LevelTable t = read_level_file(out);  // a killed file is readable
    EXPECT_FALSE(t.complete());
    EXPECT_EQ(t.status(), "running");
    saved = static_cast<int>(t.tiles.size());
    EXPECT_GE(saved, kKillAfter);
    EXPECT_LT(saved, kKillMax);
  }

  // Killed again inside a level after the first new one.
  ChompProcess second({"sieve", "--resume", "-t", "1", "-o", out});
  kill_inside_next_level(second, saved + 2, rng);
  const ProcessResult killed_again = second.wait();
  ASSERT_TRUE(killed_again.signal == SIGKILL || killed_again.exit_code == 0) << killed_again.err;
  EXPECT_NE(killed_again.err.find("resumed "), std::string::npos) << killed_again.err;
  EXPECT_FALSE(std::filesystem::exists(out + ".partial"));

  const ProcessResult third = run_chomp({"sieve", "--resume", "-t", "2", "-q", "-o", out});
  ASSERT_EQ(third.exit_code, 0) << third.err;

  const ProcessResult r = reference.wait();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_same_levels(ref, out);
  const LevelTable t = read_level_file(out);
  expect_complete(t, kKillMax);
  expect_matches_references(t);
  EXPECT_EQ(number(t, "max_tiles"), kKillMax);
  EXPECT_NE(text(t, "resume_history").find("restored levels 1.." + std::to_string(saved) + " "),
            std::string::npos)
      << text(t, "resume_history");
  // The resuming program names its revision (it may be another build).
  EXPECT_NE(text(t, "resume_history").find(", revision " + text(t, "git_revision") + "): "), std::string::npos)
      << text(t, "resume_history");
  EXPECT_FALSE(std::filesystem::exists(out + ".partial"));
}

// Kills inside levels finished in slices (every level from 60 on in three,
// each with its own pass over the store), resumed each time: the levels
// equal an uninterrupted run's, rank for rank.
TEST(Resume, KilledInsideSlicedLevelsThenResumedEqualsUninterruptedRun) {
  ScratchDir dir;
  const std::string ref = dir.file("ref.h5"), out = dir.file("run.h5");
  const int max = kFullSize ? 74 : 56, from = kFullSize ? 60 : 44;
  const std::string slicing_from = std::to_string(from);
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("CHOMP_TEST_SEED=" + std::to_string(seed));
  ChompProcess reference({"sieve", "-n", std::to_string(max), "-t", "2", "-q", "-o", ref});
  for (int at : {from + 2, from + 6}) {
    ChompProcess run({"sieve", "-n", std::to_string(max), "-t", "2", "--resume", "--slices", "3", "--slice-from",
                      slicing_from, "-o", out});
    kill_inside_next_level(run, at, rng);
    const ProcessResult killed = run.wait();
    ASSERT_EQ(killed.signal, SIGKILL) << killed.err;
    EXPECT_EQ(read_level_file(out).slices.back(), 3u) << "the last level saved was finished in slices";
  }
  const ProcessResult resumed =
      run_chomp({"sieve", "--resume", "-t", "1", "--slices", "2", "--slice-from", slicing_from, "-q", "-o", out});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  ASSERT_EQ(reference.wait().exit_code, 0);
  expect_same_levels(ref, out);
  expect_complete(read_level_file(out), max);
}

// A budget of 32 MiB: the run fits itself into it (windows of a level or
// less, levels from 85 on in slices) with the same levels and marks as the
// committed table, and peak resident memory under 1.5 times the budget. (The issue's
// example, 110 tiles in 64 MiB, is the same test at a size that takes
// minutes; 100 in 48 MiB took 30 s, 92 in 32 MiB takes 12. Levels to 100
// are checked against the table in SieveRuns.)
TEST(Resume, AMemoryLimitOf32MiBHoldsWithTheSameLevels) {
  if (!kFullSize) GTEST_SKIP() << "sanitizer builds hold far more memory than they allocate";
  ScratchDir dir;
  const std::string limited = dir.file("limited.h5");
  const ProcessResult r = run_chomp({"sieve", "-n", "92", "-t", "2", "--memory-limit", "32M", "-o", limited});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(r.max_rss_kib, 48 * 1024) << "peak resident memory";
  EXPECT_NE(r.err.find("levels from "), std::string::npos) << "some levels in slices: " << r.err;
  const LevelTable t = read_level_file(limited);
  expect_complete(t, 92);
  expect_matches_references(t);
  // Every level's count, marks and losing digest equal the committed
  // table's (columns tiles, positions, losing, losing_fraction,
  // hypothesis_ratio, seconds, marks, window_seconds, slices, losing_digest).
  std::ifstream in(chomp::testing::committed_levels_file("csv"));
  std::map<int, std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> committed;  // losing, marks, digest
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("tiles", 0) == 0) continue;
    std::vector<std::string> field;
    std::istringstream row(line);
    for (std::string f; std::getline(row, f, ',');) field.push_back(f);
    ASSERT_EQ(field.size(), 10u) << line;
    committed[std::stoi(field[0])] = {std::stoull(field[2]), std::stoull(field[6]), std::stoull(field[9], nullptr, 16)};
  }
  ASSERT_GE(committed.size(), 92u);
  for (int n = 1; n <= 92; ++n) {
    const auto i = static_cast<std::size_t>(n - 1);
    EXPECT_EQ(t.losing[i], std::get<0>(committed[n])) << "n = " << n;
    EXPECT_EQ(t.marks[i], std::get<1>(committed[n])) << "n = " << n;
    EXPECT_EQ(t.losing_digest[i], std::get<2>(committed[n])) << "n = " << n;
  }
  EXPECT_GT(*std::max_element(t.slices.begin(), t.slices.end()), 1u);
}

// Many kills at random moments of a short run: early (while the file is
// made), during small levels whose writes take a large share of the time,
// and late. Each is resumed and compared with an uninterrupted run, timed
// with the killed runs' threads; at least one kill must land before its run
// ends. CHOMP_KILL_ROUNDS sets the number of rounds (default 6).
TEST(Resume, KillsAtRandomMomentsAlwaysResume) {
  ScratchDir dir;
  const int max = kFullSize ? 62 : 45;
  const std::string ref = dir.file("ref.h5");
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = run_chomp({"sieve", "-n", std::to_string(max), "-t", "2", "-q", "-o", ref});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double run_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const int rounds = std::getenv("CHOMP_KILL_ROUNDS") ? std::atoi(std::getenv("CHOMP_KILL_ROUNDS")) : 6;
  const auto seed = test_seed();
  SCOPED_TRACE("CHOMP_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int landed = 0;
  for (int round = 0; round < rounds; ++round) {
    const std::string out = dir.file("run" + std::to_string(round) + ".h5");
    const int delay_us = std::uniform_int_distribution<int>(0, static_cast<int>(run_ms * 1000))(rng);
    SCOPED_TRACE("round " + std::to_string(round) + ", killed after " + std::to_string(delay_us) + " us");
    {
      ChompProcess run({"sieve", "-n", std::to_string(max), "-t", "2", "-q", "-o", out});
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
      run.send(SIGKILL);
      if (run.wait().signal == SIGKILL) ++landed;
    }
    const ProcessResult resumed = run_chomp({"sieve", "--resume", "-n", std::to_string(max), "-t", "1", "-q", "-o", out});
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    expect_same_levels(ref, out);
    expect_complete(read_level_file(out), max);
  }
  if (rounds > 0) {
    EXPECT_GE(landed, 1) << "no kill landed before its run ended";
  }
  RecordProperty("kills_landed", landed);
}

// Kills while a resume reads the store back (it checks every finished
// level's blocks and digest before it marks): a run to 80 extended to 86,
// each copy killed at a random moment of that read (timed by a first,
// uninterrupted resume; at least one kill must land before "resumed", and
// rounds are added, drawn earlier, until one does, twelve at most),
// then resumed again: the levels of an uninterrupted extension.
TEST(Resume, KillsWhileAResumeReadsTheStoreLeaveItResumable) {
  ScratchDir dir;
  const int base = kFullSize ? 80 : 56, max = base + 6;
  const auto copy_of_base = [&](const std::string& name) {
    const std::filesystem::path folder = dir.path() / name;
    std::filesystem::create_directory(folder);
    for (const char* f : {"run.h5", "run.store"})
      std::filesystem::copy_file(dir.path() / "base" / f, folder / f);
    return (folder / "run.h5").string();
  };
  std::filesystem::create_directory(dir.path() / "base");
  const std::string base_file = (dir.path() / "base" / "run.h5").string();
  ASSERT_EQ(run_chomp({"sieve", "-n", std::to_string(base), "-t", "2", "-q", "-o", base_file}).exit_code, 0);
  // The reference: the same extension, uninterrupted; and how long the
  // program takes to say it has read the store back.
  const std::string ref = copy_of_base("ref");
  const auto start = std::chrono::steady_clock::now();
  ChompProcess timed({"sieve", "--resume", "-n", std::to_string(max), "-t", "2", "-o", ref});
  ASSERT_TRUE(timed.wait_until([&] { return timed.err().find("resumed ") != std::string::npos; }, 60)) << timed.err();
  const double said_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(timed.wait().exit_code, 0);
  // "levels 1..80 checked in 0.05 s": the read, which ends about when
  // "resumed" is said; the kills land in it, or in the few ms before.
  std::smatch m;
  const std::string said = timed.err();
  ASSERT_TRUE(std::regex_search(said, m, std::regex("checked in ([0-9.]+) s"))) << said;
  const double read_us = std::stod(m[1].str()) * 1e6;
  const int from_us = static_cast<int>(std::max(0.0, said_us - read_us - 10'000));
  const auto seed = test_seed();
  SCOPED_TRACE("CHOMP_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int killed_before = 0;
  // Six rounds; then, while no kill has landed before "resumed" (a loaded
  // machine can run the copies faster or slower than the timed run, whose
  // start may have been the slow one), up to six more, each drawing from
  // an earlier and shorter span, whose start moves towards the launch.
  for (int round = 0; round < 6 || (killed_before == 0 && round < 12); ++round) {
    const std::string out = copy_of_base("round" + std::to_string(round));
    const int lowest = round < 6 ? from_us : from_us * (12 - round) / 7;
    const int upto = round < 6 ? static_cast<int>(said_us) : lowest + (static_cast<int>(said_us) - lowest) / (round - 4);
    const int delay_us = std::uniform_int_distribution<int>(lowest, std::max(lowest, upto))(rng);
    SCOPED_TRACE("round " + std::to_string(round) + ", killed after " + std::to_string(delay_us) + " us of " +
                 std::to_string(static_cast<int>(read_us)));
    {
      ChompProcess run({"sieve", "--resume", "-n", std::to_string(max), "-t", "2", "-o", out});
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
      run.send(SIGKILL);
      if (run.wait().err.find("resumed ") == std::string::npos) ++killed_before;
    }
    const ProcessResult resumed = run_chomp({"sieve", "--resume", "-n", std::to_string(max), "-t", "1", "-q", "-o", out});
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    expect_same_levels(ref, out);
    expect_complete(read_level_file(out), max);
  }
  EXPECT_GE(killed_before, 1) << "no kill landed before the resume had read the store back";
}

// SIGINT: the level in progress is dropped, the finished ones are kept, the
// file says "interrupted", the exit code is 130 and stderr gives the exact
// command that continues the run; running that command finishes it.
// A stop in the first window before its first level is finished: its pass
// of earlier levels (none) has marked nothing, so no checkpoint is saved;
// one was, and the resume threw it away as a "damaged header" (a window of
// up to the whole budget written to disk for nothing). Whenever the stop
// lands, the resume never calls the checkpoint damaged and finishes.
TEST(Resume, AStopBeforeTheFirstLevelLeavesNoCheckpointToThrowAway) {
  ScratchDir dir;
  const std::string out = dir.file("early.h5");
  // The stop must land in level 1 (it did in 5 of 5 runs by hand): up to
  // three tries, each a new run, so that the check below always runs.
  ProcessResult r;
  bool in_level_1 = false;
  for (int attempt = 0; attempt < 3 && !in_level_1; ++attempt) {
    std::filesystem::remove(out);
    std::filesystem::remove(dir.file("early.store"));
    std::filesystem::remove(dir.file("early.window"));
    ChompProcess run({"sieve", "-n", kFullSize ? "100" : "90", "-t", "1", "-o", out});
    ASSERT_TRUE(run.wait_until([&] { return run.err().find("plan: ") != std::string::npos; }, 60)) << run.err();
    run.send(SIGINT);
    r = run.wait();
    ASSERT_EQ(r.exit_code, 130) << r.err;
    in_level_1 = r.err.find("during level 1;") != std::string::npos;
  }
  ASSERT_TRUE(in_level_1) << "no stop of three landed in level 1: " << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("early.window"))) << r.err;
  EXPECT_EQ(r.err.find("is saved in"), std::string::npos) << r.err;
  const ProcessResult resumed = run_chomp({"sieve", "--resume", "-t", "1", "-q", "-o", out});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(resumed.err.find("damaged"), std::string::npos) << resumed.err;
  EXPECT_TRUE(read_level_file(out).complete());
}

TEST(Resume, SigintStopsCleanlyAndPrintsTheResumeCommand) {
  ScratchDir dir;
  const std::string out = dir.file("run with space.h5");
  const int max = kFullSize ? 80 : 55, stop_after = kFullSize ? 70 : 45;
  ChompProcess run({"sieve", "-n", std::to_string(max), "-t", "2", "-o", out});
  ASSERT_TRUE(run.wait_until([&] { return run.last_level_printed() >= stop_after; })) << run.err();
  const auto sent = std::chrono::steady_clock::now();
  run.send(SIGINT);
  const ProcessResult r = run.wait();
  const double stop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_LT(stop_s, 5.0) << "stopping should take a fraction of a level";
  EXPECT_NE(r.err.find("stopped by SIGINT"), std::string::npos) << r.err;

  const LevelTable t = read_level_file(out);
  EXPECT_FALSE(t.complete());
  EXPECT_EQ(t.status(), "interrupted");
  EXPECT_EQ(static_cast<int>(t.tiles.size()), run.last_level_printed()) << "every printed level is saved";
  EXPECT_NE(text(t, "end_utc"), "");

  // "chomp: to continue: <command>": run exactly that.
  const std::smatch m = [&] {
    std::smatch found;
    std::regex_search(r.err, found, std::regex("to continue: ([^\n]+)"));
    return found;
  }();
  ASSERT_EQ(m.size(), 2U) << r.err;
  const std::string command = m[1].str();
  EXPECT_NE(command.find("--resume"), std::string::npos);
  const int rc = std::system(("cd / && " + command + " -q >/dev/null 2>&1").c_str());
  ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << command;
  const LevelTable done = read_level_file(out);
  expect_complete(done, max);
  expect_matches_references(done);
}

// SIGTERM (what batch schedulers send at the end of a time limit): exit 143;
// the stored losing positions (--store-losing) survive the resume.
TEST(Resume, SigtermStopsCleanlyAndStoredPositionsSurvive) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  const int max = kFullSize ? 78 : 52, stop_after = kFullSize ? 66 : 42, store = 40;
  ChompProcess run({"sieve", "-n", std::to_string(max), "-t", "1", "--store-losing", std::to_string(store), "-o", out});
  ASSERT_TRUE(run.wait_until([&] { return run.last_level_printed() >= stop_after; })) << run.err();
  run.send(SIGTERM);
  const ProcessResult r = run.wait();
  EXPECT_EQ(r.exit_code, 143) << r.err;
  // Heard at once, said once, before the stop's own report.
  const std::size_t heard = r.err.find("chomp: SIGTERM heard: stopping cleanly");
  EXPECT_NE(heard, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("chomp: SIGTERM heard", heard + 1), std::string::npos) << r.err;
  EXPECT_LT(heard, r.err.find("stopped by SIGTERM")) << r.err;
  EXPECT_NE(r.err.find("stopped by SIGTERM"), std::string::npos) << r.err;
  EXPECT_EQ(read_level_file(out).status(), "interrupted");
  EXPECT_EQ(text(read_level_file(out), "first_git_revision"), text(read_level_file(out), "git_revision"));
  // As if another build, older than the attribute, had started it: the
  // resume's build attributes replace the first leg's, whose revision
  // first_git_revision keeps.
  set_attribute(out, "git_revision", text_value("0123456789ab"));
  delete_attribute(out, "first_git_revision");

  const ProcessResult resumed = run_chomp({"sieve", "--resume", "-t", "2", "-q", "-o", out});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const LevelTable t = read_level_file(out);
  expect_complete(t, max);
  expect_matches_references(t);
  EXPECT_EQ(number(t, "store_losing"), store);
  EXPECT_EQ(text(t, "first_git_revision"), "0123456789ab");
  EXPECT_NE(text(t, "git_revision"), "0123456789ab");

  Sieve sieve(store);
  sieve.run({});
  for (int n : {1, 5, 17, store}) {
    std::vector<std::uint64_t> words;
    for (const Rows& rows : sieve.losing_positions(n)) words.push_back(LatticePath::from_rows(rows).word());
    EXPECT_EQ(read_losing_positions(out, n), words) << "level " << n;
  }
}

// SIGUSR1 stops a run as SIGTERM does (exit 128 + 10): under Open MPI's
// mpirun it is the signal forwarded at once to every process without a
// kill after it (doc/MPI.md), so batch scripts send it for a planned stop.
TEST(Resume, Sigusr1StopsCleanlyAsSigtermDoes) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  const int max = kFullSize ? 78 : 52, stop_after = kFullSize ? 60 : 40;
  ChompProcess run({"sieve", "-n", std::to_string(max), "-t", "1", "-o", out});
  ASSERT_TRUE(run.wait_until([&] { return run.last_level_printed() >= stop_after; })) << run.err();
  run.send(SIGUSR1);
  const ProcessResult r = run.wait();
  EXPECT_EQ(r.exit_code, 128 + SIGUSR1) << r.err;
  EXPECT_NE(r.err.find("chomp: SIGUSR1 heard: stopping cleanly"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("stopped by SIGUSR1"), std::string::npos) << r.err;
  EXPECT_EQ(read_level_file(out).status(), "interrupted");
  const ProcessResult resumed = run_chomp({"sieve", "--resume", "-q", "-o", out});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  expect_complete(read_level_file(out), max);
}

// The same process signalling again at once is the same stop, not a
// second one that ends the program: GNU timeout sends SIGTERM to the
// program and then to its whole process group, and a run it stopped was
// sometimes killed in the middle of its clean stop (status left running).
TEST(Resume, TheSameSenderSignallingTwiceAtOnceIsOneCleanStop) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  const int max = kFullSize ? 78 : 52, stop_after = kFullSize ? 66 : 42;
  ChompProcess run({"sieve", "-n", std::to_string(max), "-t", "1", "-o", out});
  ASSERT_TRUE(run.wait_until([&] { return run.last_level_printed() >= stop_after; })) << run.err();
  run.send(SIGTERM);
  // Its handler has run (it said so) before the repeat comes.
  ASSERT_TRUE(run.wait_until([&] { return run.err().find("SIGTERM heard") != std::string::npos; })) << run.err();
  run.send(SIGTERM);
  const ProcessResult r = run.wait();
  EXPECT_EQ(r.exit_code, 143) << r.err;
  EXPECT_NE(r.err.find("stopped by SIGTERM"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("to continue: "), std::string::npos) << r.err;
  EXPECT_EQ(read_level_file(out).status(), "interrupted");
}

TEST(Resume, CompleteFileHasNothingToDoAndALargerMaxTilesExtendsIt) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "30", "-q", "-o", out}).exit_code, 0);
  const auto before = std::filesystem::last_write_time(out);
  const std::string bytes = read_text(out);

  const ProcessResult again = run_chomp({"sieve", "--resume", "-q", "-o", out});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("nothing to resume"), std::string::npos) << again.err;
  EXPECT_EQ(read_text(out), bytes) << "a complete file is left alone";
  EXPECT_EQ(std::filesystem::last_write_time(out), before);

  const ProcessResult extend = run_chomp({"sieve", "--resume", "-n", "40", "-q", "-o", out});
  ASSERT_EQ(extend.exit_code, 0) << extend.err;
  const LevelTable t = read_level_file(out);
  expect_complete(t, 40);
  expect_matches_references(t);
  EXPECT_EQ(number(t, "max_tiles"), 40);
  EXPECT_NE(text(t, "resume_history").find("restored levels 1..30"), std::string::npos);
  // The closing line times the new levels apart from the restored ones.
  EXPECT_NE(extend.err.find("levels 1..30 checked in "), std::string::npos) << extend.err;
  EXPECT_NE(extend.err.find(" s for levels 31..40 after "), std::string::npos) << extend.err;
  EXPECT_NE(extend.err.find(" s checking levels 1..30; store "), std::string::npos) << extend.err;
  const ProcessResult one_more = run_chomp({"sieve", "--resume", "-n", "41", "-q", "-o", out});
  ASSERT_EQ(one_more.exit_code, 0) << one_more.err;
  EXPECT_NE(one_more.err.find(" s for level 41 after "), std::string::npos) << one_more.err;
}

TEST(Resume, RefusesParametersThatContradictTheFile) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "30", "--store-losing", "5", "-q", "-o", out}).exit_code, 0);
  const std::string bytes = read_text(out);
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Case& c : {Case{{"-n", "20"}, "--max-tiles 30"}, Case{{"--store-losing", "6"}, "--store-losing 5"},
                        Case{{"--force"}, "contradict"}}) {
    std::vector<std::string> args{"sieve", "--resume", "-q", "-o", out};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const ProcessResult r = run_chomp(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
  }
  EXPECT_EQ(read_text(out), bytes);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"run.h5", "run.store"}));
}

// No silent overwrite: an existing file is refused unless --force (start
// over) or --resume; --resume without a file starts a new run.
TEST(Resume, ExistingOutputNeedsForceOrResume) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "12", "-q", "-o", out}).exit_code, 0);
  const std::string bytes = read_text(out);

  const ProcessResult refused = run_chomp({"sieve", "-n", "15", "-q", "-o", out});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("already exists"), std::string::npos) << refused.err;
  EXPECT_EQ(read_text(out), bytes);

  const ProcessResult forced = run_chomp({"sieve", "-n", "15", "-q", "--force", "-o", out});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  expect_complete(read_level_file(out), 15);

  const std::string fresh = dir.file("fresh.h5");
  const ProcessResult started = run_chomp({"sieve", "-n", "14", "-q", "--resume", "-o", fresh});
  EXPECT_EQ(started.exit_code, 0) << started.err;
  EXPECT_NE(started.err.find("starting a new run"), std::string::npos) << started.err;
  expect_complete(read_level_file(fresh), 14);
  // Without --max-tiles a --resume of a name that is not there is refused
  // (a typo would start a run of the default 90 levels in its place).
  const ProcessResult typo = run_chomp({"sieve", "-q", "--resume", "-o", dir.file("fersh.h5")});
  EXPECT_EQ(typo.exit_code, 2) << typo.err;
  EXPECT_NE(typo.err.find("there is no " + dir.file("fersh.h5") + " to resume"), std::string::npos) << typo.err;
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"fresh.h5", "fresh.store", "run.h5", "run.store"}));
}

// A run copied with its store (run.h5 and run.store to copy.h5 and
// copy.store) resumes into its own store: the original's stays as it was,
// and the copy ends as an uninterrupted run to the same level does. A file
// copied without its store is refused with the command that fixes it,
// before anything is written: it must not append to the original's store.
// Nor may a run write a store that another result file may own.
TEST(Resume, ACopyResumesIntoItsOwnStoreAndACopyWithoutOneIsRefused) {
  ScratchDir dir;
  ASSERT_EQ(run_chomp({"sieve", "-n", "20", "-t", "1", "-q", "-o", dir.file("run.h5")}).exit_code, 0);
  std::filesystem::copy_file(dir.file("run.h5"), dir.file("copy.h5"));
  std::filesystem::copy_file(dir.file("run.store"), dir.file("copy.store"));
  std::filesystem::copy_file(dir.file("run.h5"), dir.file("alone.h5"));
  const std::string h5_bytes = read_text(dir.file("run.h5")), store_bytes = read_text(dir.file("run.store"));

  const ProcessResult copy = run_chomp({"sieve", "--resume", "-n", "26", "-t", "1", "-q", "-o", dir.file("copy.h5")});
  ASSERT_EQ(copy.exit_code, 0) << copy.err;
  EXPECT_EQ(read_text(dir.file("run.store")), store_bytes);
  EXPECT_EQ(read_text(dir.file("run.h5")), h5_bytes);
  ASSERT_EQ(run_chomp({"sieve", "-n", "26", "-t", "1", "-q", "-o", dir.file("whole.h5")}).exit_code, 0);
  const LevelTable copied = read_level_file(dir.file("copy.h5")), whole = read_level_file(dir.file("whole.h5"));
  EXPECT_EQ(copied.losing, whole.losing);
  EXPECT_EQ(copied.losing_digest, whole.losing_digest);
  EXPECT_EQ(copied.text_attributes.at("store_file"), "copy.store");
  const ProcessResult checked = run_chomp({"verify", dir.file("copy.h5")});
  EXPECT_EQ(checked.exit_code, 0) << checked.err;

  const ProcessResult alone = run_chomp({"sieve", "--resume", "-n", "26", "-t", "1", "-q", "-o", dir.file("alone.h5")});
  EXPECT_EQ(alone.exit_code, 2) << alone.err;
  EXPECT_NE(alone.err.find("cp " + dir.file("run.store") + " " + dir.file("alone.store")), std::string::npos)
      << alone.err;
  EXPECT_EQ(read_text(dir.file("run.store")), store_bytes);
  EXPECT_FALSE(std::filesystem::exists(dir.file("alone.store")));
  EXPECT_EQ(read_level_file(dir.file("alone.h5")).tiles.size(), 20U);
  // Read alone, it still finds the store it names.
  const ProcessResult shown = run_chomp({"show", dir.file("alone.h5")});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(shown.out.find("  store "), std::string::npos) << shown.out;  // no note that it could not be read

  // "run" and "run.h5" have one store name: a copy named without .h5 is
  // refused, and so is a new run beside a store without its result file
  // (a new run would empty it), unless --force.
  std::filesystem::copy_file(dir.file("run.h5"), dir.file("run"));
  const ProcessResult twin = run_chomp({"sieve", "--resume", "-n", "24", "-t", "1", "-q", "-o", dir.file("run")});
  EXPECT_EQ(twin.exit_code, 2) << twin.err;
  EXPECT_NE(twin.err.find("and the result file " + dir.file("run.h5") + " would share one store"), std::string::npos)
      << twin.err;
  EXPECT_EQ(read_text(dir.file("run.store")), store_bytes);
  std::filesystem::rename(dir.file("copy.h5"), dir.file("moved.h5"));  // its store left behind
  const std::string left = read_text(dir.file("copy.store"));
  const ProcessResult fresh = run_chomp({"sieve", "-n", "12", "-t", "1", "-q", "-o", dir.file("copy.h5")});
  EXPECT_EQ(fresh.exit_code, 2) << fresh.err;
  EXPECT_NE(fresh.err.find("the store " + dir.file("copy.store") + " exists but " + dir.file("copy.h5") +
                           " does not"),
            std::string::npos)
      << fresh.err;
  EXPECT_EQ(read_text(dir.file("copy.store")), left);
  const ProcessResult forced = run_chomp({"sieve", "-n", "12", "-t", "1", "-q", "--force", "-o", dir.file("copy.h5")});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  // A store of its header alone is a run killed before its result file was
  // named (Resume.KillsAtRandomMoments...): nothing to lose, and its
  // --resume starts the run anew without --force.
  ASSERT_EQ(run_chomp({"sieve", "-n", "12", "-t", "1", "-q", "-o", dir.file("early.h5")}).exit_code, 0);
  std::filesystem::remove(dir.file("early.h5"));
  std::filesystem::resize_file(dir.file("early.store"), 64);
  const ProcessResult early = run_chomp({"sieve", "--resume", "-n", "14", "-t", "1", "-q", "-o", dir.file("early.h5")});
  EXPECT_EQ(early.exit_code, 0) << early.err;
  EXPECT_EQ(read_level_file(dir.file("early.h5")).tiles.size(), 14u);
  // A small file of that name that is no store (it was taken for an empty
  // one, and emptied) is refused as any store without its result file is.
  std::ofstream(dir.file("mine.store")) << "precious\n";
  const ProcessResult mine = run_chomp({"sieve", "-n", "12", "-t", "1", "-q", "-o", dir.file("mine.h5")});
  EXPECT_EQ(mine.exit_code, 2) << mine.err;
  EXPECT_NE(mine.err.find("the store " + dir.file("mine.store") + " exists but"), std::string::npos) << mine.err;
  EXPECT_EQ(read_text(dir.file("mine.store")), "precious\n");
  // A folder with the store's name is said to be one, --force or not (the
  // refusal once said to pass --force, which then failed to create it).
  std::filesystem::create_directory(dir.file("q.store"));
  for (const bool force : {false, true}) {
    std::vector<std::string> args{"sieve", "-n", "12", "-t", "1", "-q", "-o", dir.file("q.h5")};
    if (force) args.push_back("--force");
    const ProcessResult folder = run_chomp(args);
    EXPECT_EQ(folder.exit_code, 2) << folder.err;
    EXPECT_NE(folder.err.find(dir.file("q.store") + ", which is a folder"), std::string::npos) << folder.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("q.h5")));
  }
}

// A file renamed into another folder without its store: the refusal
// names the store to give back under the file's own name (the name it had
// was then refused as another file's store: two refusals in a row).
TEST(Resume, AFileRenamedWithoutItsStoreIsToldTheStoresNewName) {
  ScratchDir dir;
  ASSERT_EQ(run_chomp({"sieve", "-n", "20", "-t", "1", "-q", "-o", dir.file("run1.h5")}).exit_code, 0);
  std::filesystem::create_directory(dir.file("copy"));
  std::filesystem::copy_file(dir.file("run1.h5"), dir.file("copy/renamed.h5"));
  const std::vector<std::string> resume{"sieve", "--resume", "-n", "24", "-t", "1", "-q", "-o",
                                        dir.file("copy/renamed.h5")};
  const ProcessResult refused = run_chomp(resume);
  EXPECT_EQ(refused.exit_code, 1) << refused.err;  // as any missing store
  EXPECT_NE(refused.err.find("copy that run's store to " + dir.file("copy/renamed.store")), std::string::npos)
      << refused.err;
  std::filesystem::copy_file(dir.file("run1.store"), dir.file("copy/renamed.store"));
  const ProcessResult resumed = run_chomp(resume);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(read_level_file(dir.file("copy/renamed.h5")).tiles.size(), 24u);
}

// An output named like a side file of another run's is refused before
// anything is written: a run on x.h5 removed a result file x.window as a
// checkpoint that was not one, and one on y.h5 replaced a result file
// y.h5.partial. A result file already sitting where the run keeps its
// window's checkpoint is refused too, and kept.
TEST(Resume, AnOutputNamedLikeASideFileIsRefused) {
  ScratchDir dir;
  for (const char* name : {"x.window", "y.h5.partial", "z.store", "w.window.tmp", "v.h5.lock"}) {
    const ProcessResult r = run_chomp({"sieve", "-n", "12", "-t", "1", "-q", "-o", dir.file(name)});
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.err;
    EXPECT_NE(r.err.find("the name of a run's side file"), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << name;
  }
  ASSERT_EQ(run_chomp({"sieve", "-n", "12", "-t", "1", "-q", "-o", dir.file("r.h5")}).exit_code, 0);
  std::filesystem::rename(dir.file("r.h5"), dir.file("x.window"));
  const std::string kept = read_text(dir.file("x.window"));
  const ProcessResult beside = run_chomp({"sieve", "-n", "14", "-t", "1", "-q", "-o", dir.file("x.h5")});
  EXPECT_EQ(beside.exit_code, 2) << beside.err;
  EXPECT_NE(beside.err.find("the result file " + dir.file("x.window") + " has the name of the window's checkpoint"),
            std::string::npos)
      << beside.err;
  EXPECT_EQ(read_text(dir.file("x.window")), kept);
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.h5")));
}

// A result file older than its store (a copy put back after the run went
// on): the store's finished levels past the file's are not cut off without
// a word; the refusal says how to give them up, and that works.
TEST(Resume, AResultFileOlderThanItsStoreIsRefusedRatherThanCutItsLevels) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "30", "-t", "1", "-q", "-o", out}).exit_code, 0);
  std::filesystem::copy_file(out, dir.file("older.h5"));
  ASSERT_EQ(run_chomp({"sieve", "-n", "40", "-t", "1", "-q", "--resume", "-o", out}).exit_code, 0);
  const std::string store = read_text(dir.file("run.store"));
  std::filesystem::copy_file(dir.file("older.h5"), out, std::filesystem::copy_options::overwrite_existing);
  const ProcessResult r = run_chomp({"sieve", "-n", "40", "-t", "1", "-q", "--resume", "-o", out});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("holds 10 finished levels (31..40) after the last one the result file names (30)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_text(dir.file("run.store")), store);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("truncate -s ([0-9]+) "))) << r.err;
  std::filesystem::resize_file(dir.file("run.store"), std::stoull(m[1].str()));
  const ProcessResult again = run_chomp({"sieve", "-n", "40", "-t", "1", "-q", "--resume", "-o", out});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  ASSERT_EQ(run_chomp({"sieve", "-n", "40", "-t", "1", "-q", "-o", dir.file("whole.h5")}).exit_code, 0);
  EXPECT_EQ(read_level_file(out).losing_digest, read_level_file(dir.file("whole.h5")).losing_digest);
}

// A second run on the file a run is writing (a batch job submitted twice) is
// refused, --force included; the running file can be read meanwhile.
TEST(Resume, SecondRunOnTheSameOutputIsRefusedWhileTheFirstWrites) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  // Long enough in any build to outlast the checks; stopped once they are done.
  ChompProcess first({"sieve", "-n", "85", "-t", "1", "-o", out});
  ASSERT_TRUE(first.wait_until([&] { return first.last_level_printed() >= 20; })) << first.err();
  for (const char* flag : {"--resume", "--force"}) {
    const ProcessResult second = run_chomp({"sieve", flag, "-n", "85", "-q", "-o", out});
    EXPECT_EQ(second.exit_code, 1) << second.err;
    EXPECT_NE(second.err.find("being written by another chomp"), std::string::npos) << second.err;
  }
  // Other commands' --force too: rectangles replaced the file under the run,
  // which then said it had written it.
  for (const std::vector<std::string>& other :
       {std::vector<std::string>{"rectangles", "--max-rows", "3", "--max-cols", "3", "-q", "--force", "-o", out},
        {"rectangles", "--max-rows", "3", "--max-cols", "3", "-q", "--force", "-o", dir.file("r.h5"), "--csv", out},
        {"grundy", "-n", "6", "-q", "--force", "-o", out}}) {
    const ProcessResult r = run_chomp(other);
    EXPECT_EQ(r.exit_code, 1) << other.back() << ": " << r.err;
    EXPECT_NE(r.err.find("being written by another chomp"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.h5")));
  const LevelTable live = read_level_file(out);
  EXPECT_GE(live.tiles.size(), 20U);
  EXPECT_EQ(live.status(), "running");
  // "run" has run.h5's store name: its run must not touch the store either
  // (two such runs started together once both made it, one stamping the
  // other's run id into it).
  const ProcessResult twin = run_chomp({"sieve", "-n", "20", "-q", "-o", dir.file("run")});
  EXPECT_EQ(twin.exit_code, 1) << twin.err;
  EXPECT_NE(twin.err.find(dir.file("run.store") + " is being written by another chomp process"), std::string::npos)
      << twin.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("run")));
  first.send(SIGTERM);
  EXPECT_EQ(first.wait().exit_code, 143);
  // The store is still the first run's (its id in the header, every level).
  const ProcessResult checked = run_chomp({"verify", "--finished", "--no-moves", out});
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
}

// A file read while its writer appends levels (chomp show on a live run)
// reads whole every time: a row being appended is not there yet, never a
// reason to call the file damaged. (Once in about 40 reads, before, a chunk
// already filed ahead of its row made it "more chunks than rows"; and on a
// loaded CI machine 19 reads in a row found end_utc pointing past the end
// of the file as the run ended, which the reader now reads again. That
// race is too rare to fail here every time: the test below makes it so.)
TEST(Resume, ALiveFileReadsWholeWhileLevelsAreAppended) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  ChompProcess run({"sieve", "-n", kFullSize ? "80" : "66", "-t", "1", "-q", "-o", out});
  int reads = 0;
  std::size_t rows = 0;
  std::vector<std::string> errors;
  while (!run.exited()) {
    if (!std::filesystem::exists(out)) continue;
    try {
      const LevelTable live = read_level_file(out);
      EXPECT_GE(live.tiles.size(), rows);  // rows only ever grow
      rows = live.tiles.size();
      for (std::size_t i = 0; i < rows; ++i) ASSERT_EQ(live.tiles[i], i + 1);
      ++reads;
    } catch (const std::exception& e) {
      errors.push_back(e.what());
    }
  }
  ASSERT_EQ(run.wait().exit_code, 0) << run.err();
  EXPECT_TRUE(errors.empty()) << errors.size() << " of " << reads + errors.size()
                              << " reads failed, the first: " << errors.front();
  EXPECT_GE(reads, 20);
  const LevelTable done = read_level_file(out);
  EXPECT_EQ(done.status(), "complete");
  EXPECT_EQ(done.tiles.size(), kFullSize ? 80U : 66U);
}

// A file is read as truncated for a moment while its writer closes it (the
// superblock records the end before the file reaches it): such a read is
// made again, and gives the whole file once the end is there. One that
// stays truncated is refused, after the reader's bounded wait.
TEST(Resume, AFileSeenTruncatedWhileItIsClosedIsReadAgain) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "20", "-q", "-o", out}).exit_code, 0);
  const std::string bytes = read_text(out);
  ASSERT_GT(bytes.size(), 8192U);
  const std::size_t cut = bytes.size() - 4096;
  const auto write_head = [&] {
    std::ofstream f(out, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(cut));
  };
  write_head();
  std::thread closer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ofstream f(out, std::ios::binary | std::ios::app);  // the file only grows: never shorter than cut
    f.write(bytes.data() + cut, static_cast<std::streamsize>(bytes.size() - cut));
  });
  LevelTable table;
  EXPECT_NO_THROW(table = read_level_file(out));
  closer.join();
  EXPECT_TRUE(table.complete());
  EXPECT_EQ(table.tiles.size(), 20U);
  EXPECT_EQ(read_text(out), bytes);

  write_head();
  try {
    read_level_file(out);
    ADD_FAILURE() << "a file that stays truncated was read";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}

// The result does not depend on the number of threads, through the program.
TEST(Resume, OneAndTwoThreadsWriteTheSameLevels) {
  ScratchDir dir;
  const std::string max = kFullSize ? "72" : "50";
  ChompProcess one({"sieve", "-n", max, "-t", "1", "-q", "-o", dir.file("t1.h5")});
  const ProcessResult two = run_chomp({"sieve", "-n", max, "-t", "2", "-q", "-o", dir.file("t2.h5")});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  ASSERT_EQ(one.wait().exit_code, 0);
  expect_same_levels(dir.file("t1.h5"), dir.file("t2.h5"));
  EXPECT_EQ(number(read_level_file(dir.file("t1.h5")), "threads"), 1);
  EXPECT_EQ(number(read_level_file(dir.file("t2.h5")), "threads"), 2);
}

// The progress line of a long run: level k/N, the level's percent, the time
// elapsed, the window, and an ETA of the level and of the run; a quiet run
// prints none. (CHOMP_PROGRESS_INTERVAL makes lines to a file come every
// 0.2 s instead of every 30 s; CHOMP_PROGRESS_QUIET=0 lets them start at
// once, where a run prints nothing in its first 3 s.)
TEST(Progress, ALongRunShowsLevelPercentElapsedAndEtaAndAQuietOneNothing) {
  ScratchDir dir;
  // The ETA needs two rates a second apart, so a run of 3 s or more (about
  // 4 s to 90 on two threads here); on a faster machine the run grows.
  int max = kFullSize ? 90 : 72;
  // CHOMP_PROGRESS_QUIET=0: the line from the start (a run shows none in
  // its first seconds), every 0.2 s; so every run, fast or slow, shows it,
  // and one of more than 3 s shows its ETA.
  auto run = [&](const std::string& name, int n, const std::string& extra) {
    const std::string err = dir.file(name + ".err");
    const std::string cmd = "CHOMP_PROGRESS_QUIET=0 CHOMP_PROGRESS_INTERVAL=0.2 '" + chomp_binary() + "' sieve -n " +
                            std::to_string(n) + " -t 2 -o '" + dir.file(name + ".h5") + "' " + extra +
                            " >/dev/null 2>'" + err + "'";
    const int rc = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << cmd;
    return read_text(err);
  };
  std::string err;
  double seconds = 0;
  for (int attempt = 0; attempt < 3 && seconds < 3; ++attempt, max += 8) {
    const auto started = std::chrono::steady_clock::now();
    err = run("loud", max, "--force");  // (a retry writes the same file)
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  max -= 8;  // the last run's
  // The ETA needs two rates a second apart: a line may come without it.
  const std::string head = "level (\\d+)/" + std::to_string(max) +
                           " \u00b7 +\\d+% \u00b7 [0-9:s ]+ elapsed( \u00b7 window \\d+\\.\\.\\d+)?";
  const std::regex any(head + "( \u00b7 ETA (level [0-9:s ]+, )?run [0-9:s ]+)?\n");
  const std::regex with_eta(head + " \u00b7 ETA (level [0-9:s ]+, )?run [0-9:s ]+\n");
  const auto count = [&](const std::regex& r) {
    return std::distance(std::sregex_iterator(err.begin(), err.end(), r), std::sregex_iterator());
  };
  EXPECT_GT(count(any), 0) << err;
  // A run too short to show an ETA is a test that checks nothing: it fails
  // rather than pass without looking.
  ASSERT_GE(seconds, 3.0) << "even the run to " << max << " took too little time to show an ETA; raise max";
  EXPECT_GT(count(with_eta), 0) << "a run of " << seconds << " s: " << err;
  // A quiet run, which would have shown lines from its start.
  EXPECT_EQ(run("quiet", max, "-q").find("level "), std::string::npos);
}

// ---- The window's checkpoint (src/checkpoint.cpp) ----

namespace {

constexpr const char* kCheckpointMax = kFullSize ? "86" : "72";
constexpr int kCheckpointAfter = kFullSize ? 64 : 52;

/// A run to kCheckpointMax with 2 threads into dir/name.h5.
std::vector<std::string> checkpoint_run(const ScratchDir& dir, const std::string& name,
                                        std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"sieve", "-n", kCheckpointMax, "-t", "2", "-o", dir.file(name + ".h5")};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

/// Starts the run, lets it reach kCheckpointAfter and a little more, stops
/// it with SIGTERM and returns its stderr; its checkpoint is saved.
std::string stop_inside_a_window(const ScratchDir& dir, const std::string& name, const char* threads = "2") {
  std::vector<std::string> args = checkpoint_run(dir, name);
  args[4] = threads;
  ChompProcess run(args);
  EXPECT_TRUE(run.wait_until([&] { return run.last_level_printed() >= kCheckpointAfter; })) << run.err();
  std::this_thread::sleep_for(std::chrono::milliseconds(150));  // the run has about 2 s to go
  run.send(SIGTERM);
  const ProcessResult r = run.wait();
  EXPECT_EQ(r.exit_code, 143) << r.err;
  EXPECT_NE(r.err.find("is saved in " + dir.file(name + ".window")), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.file(name + ".window")));
  return r.err;
}

}  // namespace

// A stop inside a window saves its bitmaps and the pass's progress; the
// resumed run continues the pass from them and writes the levels, marks
// and losing ranks of an uninterrupted run. A second stop, 200 ms into the
// continued pass, usually lands in it and is continued in turn; a
// continued pass with too little left may finish first, which the test
// allows (recorded as second_stop_landed). The checkpoint is gone once used.
TEST(Checkpoint, StopsInsideAWindowAreContinuedToTheSameLevelsAndMarks) {
  ScratchDir dir;
  ASSERT_EQ(run_chomp(checkpoint_run(dir, "whole")).exit_code, 0);
  stop_inside_a_window(dir, "run");
  {
    ChompProcess again(checkpoint_run(dir, "run", {"--resume"}));
    // Stopped soon after it continued the pass.
    ASSERT_TRUE(again.wait_until([&] { return again.err().find("continuing the marking of") != std::string::npos; }))
        << again.err();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    again.send(SIGTERM);
    const ProcessResult r = again.wait();
    if (r.exit_code == 143) {
      EXPECT_NE(r.err.find("is saved in"), std::string::npos) << r.err;
    } else {
      EXPECT_EQ(r.exit_code, 0) << r.err;  // it had little left to do
    }
    RecordProperty("second_stop_landed", r.exit_code == 143 ? 1 : 0);
  }
  const ProcessResult last = run_chomp(checkpoint_run(dir, "run", {"--resume"}));
  ASSERT_EQ(last.exit_code, 0) << last.err;
  expect_same_levels(dir.file("whole.h5"), dir.file("run.h5"));
  const LevelTable t = read_level_file(dir.file("run.h5"));
  expect_complete(t, std::stoi(kCheckpointMax));
  // A continued window's pass counts the earlier runs' part once, in
  // window_seconds, and no level's own time goes below zero for it.
  for (std::size_t i = 0; i < t.seconds.size(); ++i) {
    EXPECT_GE(t.seconds[i], 0.0) << "level " << i + 1;
    EXPECT_GE(t.window_seconds[i], 0.0) << "level " << i + 1;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("run.window")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("run.window.tmp")));
}

namespace {

/// Progress lines from the first moment on, every 0.01 s, for a test's scope.
struct ProgressSeam {
  ProgressSeam() { setenv("CHOMP_PROGRESS_QUIET", "0", 1), setenv("CHOMP_PROGRESS_INTERVAL", "0.01", 1); }
  ~ProgressSeam() { unsetenv("CHOMP_PROGRESS_QUIET"), unsetenv("CHOMP_PROGRESS_INTERVAL"); }
};

}  // namespace

// A pass continued from a checkpoint is paced from the start by its
// fraction done over its seconds in all, the earlier run's included: the
// first progress line of the continued level shows the level's ETA and the
// run's. (Paced by this program's part alone, the first lines had no ETA,
// and then one from the marks' rate, which missed the marks applied before
// the stop: the long run showed 429 hours.) CHOMP_PROGRESS_QUIET=0 and
// CHOMP_PROGRESS_INTERVAL make lines come from the first second on.
TEST(Checkpoint, AContinuedPassIsPacedByItsSecondsInAll) {
  ScratchDir dir;
  const ProgressSeam seam;
  // Level 96 in a window of its own: one pass from every level below,
  // stopped a fifth of the way or more into it.
  const std::vector<std::string> args{"sieve", "-n", "96", "-t", "2", "--slices", "1", "--slice-from", "96",
                                      "-o", dir.file("run.h5")};
  const std::regex line("level 96/96 \u00b7 +(\\d+)%[^\n]*\n");
  const auto percent = [&](const std::string& err) {
    int last = -1;
    for (auto it = std::sregex_iterator(err.begin(), err.end(), line); it != std::sregex_iterator(); ++it)
      last = std::stoi((*it)[1].str());
    return last;
  };
  ChompProcess run(args);
  ASSERT_TRUE(run.wait_until([&] { return percent(run.err()) >= 20; })) << run.err();
  run.send(SIGTERM);
  const ProcessResult stopped = run.wait();
  ASSERT_EQ(stopped.exit_code, 143) << stopped.err;
  ASSERT_NE(stopped.err.find("is saved in"), std::string::npos) << stopped.err;

  std::vector<std::string> again = args;
  again.push_back("--resume");
  const ProcessResult r = run_chomp(again);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_NE(r.err.find("of level 96 from"), std::string::npos) << r.err;  // (a slice of one)
  std::smatch first;
  ASSERT_TRUE(std::regex_search(r.err, first, line)) << r.err;
  EXPECT_GE(std::stoi(first[1].str()), 20) << first[0];
  EXPECT_TRUE(std::regex_search(first[0].str(), std::regex(" \u00b7 ETA level [0-9:s ]+, run [0-9:s ]+\n")))
      << first[0];
}

namespace {

/// One progress line of `chomp sieve -n 92`: its level, percent, seconds
/// elapsed, window (n0..n1; n0 = n1 = level outside a window) and the
/// run's ETA in seconds (-1: none shown).
struct SieveLine {
  int level = 0, percent = 0;
  double elapsed = 0;
  int n0 = 0, n1 = 0;
  double run_eta = -1;
};

std::vector<SieveLine> sieve_lines(const std::string& err) {
  static const std::regex line(
      "level (\\d+)/92 \u00b7 +(\\d+)% \u00b7 ([0-9:s ]+) elapsed( \u00b7 window (\\d+)\\.\\.(\\d+))?"
      "( \u00b7 ETA (level [0-9:s ]+)?(, )?(run ([0-9:s ]+))?)?\n");
  std::vector<SieveLine> out;
  for (auto it = std::sregex_iterator(err.begin(), err.end(), line); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    SieveLine l{std::stoi(m[1].str()), std::stoi(m[2].str()), clock_seconds(m[3].str()), 0, 0, -1};
    l.n0 = l.n1 = l.level;
    if (m[4].matched) l.n0 = std::stoi(m[5].str()), l.n1 = std::stoi(m[6].str());
    if (m[10].matched) l.run_eta = clock_seconds(m[11].str());
    out.push_back(l);
  }
  return out;
}

/// Runs `args` (a run to 92) until one of its progress lines satisfies
/// `when`, stops it with SIGTERM and resumes it to the end with the same
/// seam. Returns the resumed run's stderr, and in `left` the seconds from
/// its progress line's clock's start to its end (its wall time less the
/// check of the saved levels); an empty string where no line satisfied
/// `when` (the lines come every fifth of a pass or so) or the stop did not
/// land in the pass it was meant for (`expect` is not continued).
std::string stop_and_resume(const std::vector<std::string>& args, const std::function<bool(const SieveLine&)>& when,
                            const std::function<std::string(const SieveLine&)>& expect, double& left) {
  SieveLine at;
  ChompProcess run(args);
  const auto found = [&] {
    for (const SieveLine& l : sieve_lines(run.err()))
      if (when(l)) return at = l, true;
    return false;
  };
  if (!run.wait_until(found)) return "";
  run.send(SIGTERM);
  const ProcessResult stopped = run.wait();
  if (stopped.exit_code != 143) return "";  // it had finished
  std::vector<std::string> again = args;
  again.push_back("--resume");
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessResult r = run_chomp(again);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::smatch checked;
  const double check =
      std::regex_search(r.err, checked, std::regex("checked in ([0-9.]+) s")) ? std::stod(checked[1].str()) : 0;
  left = took - check;
  if (r.err.find("continuing the marking of " + expect(at) + " from") == std::string::npos) return "";
  return r.err;
}

}  // namespace

// The ETA after a stop inside a window of several levels, continued from
// its checkpoint (under 48M a run to 92 has such windows from 67 on, each
// pass a second or so; CHOMP_PROGRESS_QUIET=0 and CHOMP_PROGRESS_INTERVAL
// make lines come from the first moment on):
// - stopped half way into the window's first pass, its later levels are
//   paced by that pass (its seconds in all per unit of its work) until a
//   window finishes in this program: their run's ETA follows on from the
//   pass's and is near the time left. (Paced by the marks' rate, which then
//   measured the pass's last minutes, the long run showed 168 hours at
//   level 154; here the ETA jumped to about twice the time left.)
// - stopped in a later level's pass, which marks from the level before it
//   alone, that level shows its own ETA and no run's: its seconds would
//   price the run at a fraction of its time (it showed 1 s of 14).
// A try whose stop misses the pass it aimed at is made again.
TEST(Checkpoint, AContinuedWindowIsPacedByItsFirstPassAlone) {
  ScratchDir dir;
  const ProgressSeam seam;
  const std::vector<std::string> args{"sieve", "-n", "92", "-t", "2", "--memory-limit", "48M", "-o",
                                      dir.file("run.h5")};
  const auto window_text = [](const SieveLine& l) {
    return "levels " + std::to_string(l.n0) + ".." + std::to_string(l.n1);
  };
  // Up to three tries, each from a new run.
  const auto tries = [&](const std::function<bool(const SieveLine&)>& when,
                         const std::function<std::string(const SieveLine&)>& expect, double& left) {
    std::string err;
    for (int attempt = 0; attempt < 3 && err.empty(); ++attempt) {
      std::filesystem::remove(dir.file("run.h5")), std::filesystem::remove(dir.file("run.store"));
      std::filesystem::remove(dir.file("run.window"));
      err = stop_and_resume(args, when, expect, left);
    }
    return err;
  };
  {
    SCOPED_TRACE("stopped in the window's first pass");
    double left = 0;
    const std::string err = tries(
        [](const SieveLine& l) {
          return l.level == l.n0 && l.n0 >= 82 && l.n1 > l.n0 && l.percent >= 40 && l.percent <= 85;
        },
        window_text, left);
    ASSERT_FALSE(err.empty()) << "three tries missed the first pass they aimed at";
    const std::vector<SieveLine> lines = sieve_lines(err);
    ASSERT_FALSE(lines.empty()) << err;
    const int n0 = lines.front().n0, n1 = lines.front().n1;
    double pass_eta = -1;
    int later = 0;
    for (const SieveLine& l : lines) {
      if (l.n0 != n0 || l.n1 != n1) break;
      if (l.level == n0) {
        if (l.run_eta >= 0) pass_eta = l.run_eta;
        continue;
      }
      ++later;
      ASSERT_GE(l.run_eta, 0) << "no run's ETA at level " << l.level << " of the continued window:\n" << err;
      ASSERT_GE(pass_eta, 0) << "no run's ETA in the continued pass:\n" << err;
      EXPECT_LE(l.run_eta, 1.25 * pass_eta + 1) << "level " << l.level << " after the pass's " << pass_eta << " s";
      EXPECT_GE(l.run_eta, (left - l.elapsed) / 2 - 1) << "level " << l.level << ", " << left - l.elapsed << " s left";
      EXPECT_LE(l.run_eta, 2 * (left - l.elapsed) + 1) << "level " << l.level << ", " << left - l.elapsed << " s left";
    }
    EXPECT_GT(later, 0) << "no line of the window's later levels:\n" << err;
  }
  {
    SCOPED_TRACE("stopped in a later level's pass");
    double left = 0;
    const std::string err = tries(
        [](const SieveLine& l) { return l.level > l.n0 && l.level < l.n1 && l.n0 >= 67; },
        [](const SieveLine& l) { return "levels " + std::to_string(l.level) + ".." + std::to_string(l.n1); }, left);
    ASSERT_FALSE(err.empty()) << "three tries missed the pass they aimed at";
    const std::vector<SieveLine> lines = sieve_lines(err);
    ASSERT_FALSE(lines.empty()) << err;
    for (const SieveLine& l : lines) {
      if (l.n0 != lines.front().n0) break;
      EXPECT_TRUE(l.run_eta < 0 || l.run_eta >= (left - l.elapsed) / 2 - 1)
          << "level " << l.level << ": ETA run " << l.run_eta << " s with " << left - l.elapsed << " s left\n" << err;
    }
  }
}


// A stop inside a pass whose calls for sources far below send their marks
// straight into the bitmap (a bound of 300 marks instead of
// config::kDirectCallMarks, set through the CHOMP_DIRECT_CALL_MARKS seam):
// every level from 64 (78) on is marked in slices, each slice's pass from
// every source below it, so the stopped pass and the continued one both
// have such calls. The checkpoint keeps the bits they set and their marks
// with the rest: the same levels and marks as a run without the seam.
TEST(Checkpoint, AStopInsideAPassWithDirectCallsIsContinuedToTheSameLevelsAndMarks) {
  ScratchDir dir;
  const std::vector<std::string> sliced{"--slices", "3", "--slice-from", kFullSize ? "78" : "64"};
  ASSERT_EQ(run_chomp(checkpoint_run(dir, "whole", sliced)).exit_code, 0);
  struct Seam {
    Seam() { setenv("CHOMP_DIRECT_CALL_MARKS", "300", 1); }
    ~Seam() { unsetenv("CHOMP_DIRECT_CALL_MARKS"); }
  } seam;
  {
    ChompProcess run(checkpoint_run(dir, "run", sliced));
    ASSERT_TRUE(run.wait_until([&] { return run.last_level_printed() >= (kFullSize ? 80 : 66); })) << run.err();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    run.send(SIGTERM);
    const ProcessResult r = run.wait();
    ASSERT_EQ(r.exit_code, 143) << r.err;
    EXPECT_NE(r.err.find("CHOMP_DIRECT_CALL_MARKS=300"), std::string::npos) << r.err;
    EXPECT_TRUE(std::regex_search(r.err, std::regex("the progress of slice [123] of 3 of level \\d+ is saved in")))
        << r.err;
  }
  std::vector<std::string> resume = sliced;
  resume.push_back("--resume");
  const ProcessResult last = run_chomp(checkpoint_run(dir, "run", resume));
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_NE(last.err.find("continuing the marking of slice"), std::string::npos) << last.err;
  expect_same_levels(dir.file("whole.h5"), dir.file("run.h5"));
}

// With --checkpoint-every, a long pass is saved as it goes: a kill -9 after
// a save loses only what followed it, and the resumed run continues from
// the save to the same levels and marks.
TEST(Checkpoint, AKillAfterAPeriodicSaveIsContinuedFromIt) {
  ScratchDir dir;
  // Both runs file the marks of the first two rows' moves (under 64M only
  // the first row's bits would fit a run to 86), so that their marks compare.
  ASSERT_EQ(run_chomp(checkpoint_run(dir, "whole", {"--file-all-marks"})).exit_code, 0);
  {
    // Rounds small enough that a pass has many (a save comes between two).
    ChompProcess run(checkpoint_run(dir, "run", {"--checkpoint-every", "0.005", "--memory-limit", "64M",
                                                  "--file-all-marks"}));  // 0.3 s
    ASSERT_TRUE(run.wait_until([&] { return std::filesystem::exists(dir.file("run.window")); })) << run.err();
    run.send(SIGKILL);
    EXPECT_EQ(run.wait().signal, SIGKILL);
  }
  const ProcessResult r = run_chomp(checkpoint_run(dir, "run", {"--resume"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("continuing the marking of"), std::string::npos) << r.err;
  expect_same_levels(dir.file("whole.h5"), dir.file("run.h5"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("run.window")));
}

// A tiny --checkpoint-every cannot make saving most of the run: saves are
// spaced ten times as far apart as the last one took. Before, a save
// followed every round, and at 0.0006 s the saves took 23 of a run's 27 s
// at 86 tiles under 64M (filing 2.5 s). The levels are the same as a run's
// that saves nothing.
TEST(Checkpoint, ATinyIntervalSpacesTheSavesByTheirCost) {
  ScratchDir dir;
  ASSERT_EQ(run_chomp(checkpoint_run(dir, "whole", {"--memory-limit", "64M", "--file-all-marks"})).exit_code, 0);
  const ProcessResult r = run_chomp(checkpoint_run(dir, "run", {"--checkpoint-every", "0.00001", "--memory-limit",
                                                                "64M", "--file-all-marks"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto phase = [&](const char* name) {
    std::smatch m;
    const std::string out = r.out + r.err;
    EXPECT_TRUE(std::regex_search(out, m, std::regex(std::string(name) + " ([0-9.]+) s"))) << name << "\n" << out;
    return m.empty() ? -1.0 : std::stod(m[1].str());
  };
  const double filing = phase("filing marks"), saving = phase("checkpoints");
  EXPECT_GE(saving, 0) << "the run saved no checkpoint";  // the phase is printed only when > 0
  EXPECT_LT(saving, filing) << r.out << r.err;
  expect_same_levels(dir.file("whole.h5"), dir.file("run.h5"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("run.window")));
}

// A checkpoint that does not check (a damaged bitmap) is said to be
// ignored, and the window is marked again: the same levels, nothing lost
// but time. One saved with another thread count is continued.
TEST(Checkpoint, ADamagedCheckpointIsIgnoredAndAnotherThreadCountContinuesOne) {
  ScratchDir dir;
  ASSERT_EQ(run_chomp(checkpoint_run(dir, "whole")).exit_code, 0);
  stop_inside_a_window(dir, "run");
  {
    // One bit flipped in the middle of the file (the bitmap).
    std::fstream f(dir.file("run.window"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(0, std::ios::end);
    const auto middle = f.tellg() / 2;
    f.seekg(middle);
    char c = 0;
    f.get(c);
    f.seekp(middle);
    f.put(static_cast<char>(c ^ 0x10));
  }
  const ProcessResult damaged = run_chomp(checkpoint_run(dir, "run", {"--resume"}));
  ASSERT_EQ(damaged.exit_code, 0) << damaged.err;
  EXPECT_NE(damaged.err.find("fails its CRCs"), std::string::npos) << damaged.err;
  EXPECT_NE(damaged.err.find("the window is marked again"), std::string::npos) << damaged.err;
  expect_same_levels(dir.file("whole.h5"), dir.file("run.h5"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("run.window")));

  // Another thread count: the checkpoint keeps how its pass's items were
  // cut, so a run with 2 threads continues one saved with 1.
  stop_inside_a_window(dir, "other", "1");
  if (kFullSize) {
    // A budget whose windows are smaller than the saved one (33 MiB, levels
    // 67..86; 40M leaves windows of about 10 MiB) is refused before
    // anything is written, saying how to continue; the checkpoint is kept.
    // (Not 32M, whose windows of about 3 MiB are too near the least a run
    // to 86 needs: the process's own resident memory at the start, which
    // varies by a few MiB, made it refuse that budget outright.)
    const ProcessResult small = run_chomp(checkpoint_run(dir, "other", {"--resume", "--memory-limit", "40M"}));
    EXPECT_EQ(small.exit_code, 2) << small.err;
    EXPECT_NE(small.err.find("more than this budget's windows"), std::string::npos) << small.err;
    EXPECT_TRUE(std::filesystem::exists(dir.file("other.window")));
  }
  const ProcessResult threads = run_chomp(checkpoint_run(dir, "other", {"--resume"}));  // -t 2
  ASSERT_EQ(threads.exit_code, 0) << threads.err;
  EXPECT_NE(threads.err.find("continuing the marking of"), std::string::npos) << threads.err;
  expect_same_levels(dir.file("whole.h5"), dir.file("other.h5"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("other.window")));
}

// A window saved by a run that infers the first two rows' moves from
// their bits holds none of their marks: a run that files them (here
// --file-all-marks on --resume), or infers the first row's only
// (--inferred-rows 1), cannot go on from it, says so, and marks the window again, to the
// same losing positions and the file's attribute naming each leg's way
// and the level it took over from (the `marks` column counts two things).
TEST(Checkpoint, AWindowWithoutFirstRowMarksIsNotContinuedByARunThatFilesThem) {
  ScratchDir dir;
  ASSERT_EQ(run_chomp(checkpoint_run(dir, "whole")).exit_code, 0);
  EXPECT_EQ(read_level_file(dir.file("whole.h5")).text_attributes.at("inferred_marks"), "rows 1-2");
  // The level the resumed leg starts from: the first the stopped run had not finished.
  const auto next_level = [&](const std::string& name) {
    return std::to_string(read_level_file(dir.file(name + ".h5")).tiles.size() + 1);
  };
  stop_inside_a_window(dir, "fewer");
  const std::string fewer_from = next_level("fewer");
  const ProcessResult fewer = run_chomp(checkpoint_run(dir, "fewer", {"--resume", "--inferred-rows", "1"}));
  ASSERT_EQ(fewer.exit_code, 0) << fewer.err;
  EXPECT_NE(fewer.err.find("its window leaves the moves of rows 1-2 to their bits, which this run does not hold "
                           "for all of them"),
            std::string::npos)
      << fewer.err;
  EXPECT_EQ(read_level_file(dir.file("fewer.h5")).losing, read_level_file(dir.file("whole.h5")).losing);
  EXPECT_EQ(read_level_file(dir.file("fewer.h5")).text_attributes.at("inferred_marks"),
            "row 1 from level " + fewer_from + "; rows 1-2 below");
  stop_inside_a_window(dir, "run");
  const std::string filed_from = next_level("run");
  const ProcessResult filed = run_chomp(checkpoint_run(dir, "run", {"--resume", "--file-all-marks"}));
  ASSERT_EQ(filed.exit_code, 0) << filed.err;
  EXPECT_NE(filed.err.find("its window leaves the moves of rows 1-2 to their bits, which this run does not hold"),
            std::string::npos)
      << filed.err;
  EXPECT_EQ(filed.err.find("continuing the marking of"), std::string::npos) << filed.err;
  const LevelTable a = read_level_file(dir.file("whole.h5")), b = read_level_file(dir.file("run.h5"));
  EXPECT_EQ(a.losing, b.losing);
  EXPECT_EQ(a.losing_digest, b.losing_digest);
  EXPECT_EQ(b.text_attributes.at("inferred_marks"), "none from level " + filed_from + "; rows 1-2 below");
  // The last levels (the resumed leg's) count more marks than the inferring run's.
  EXPECT_GT(b.marks.back(), a.marks.back());
  EXPECT_FALSE(std::filesystem::exists(dir.file("run.window")));
}

// A periodic save in a run that then goes on to its end leaves nothing
// behind: a checkpoint is removed once the state it continues is past.
TEST(Checkpoint, APeriodicSaveIsRemovedOnceItsWindowIsDone) {
  ScratchDir dir;
  const ProcessResult r =
      run_chomp(checkpoint_run(dir, "run", {"--checkpoint-every", "0.005", "--memory-limit", "64M"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("checkpoints "), std::string::npos) << r.err;  // in the time by phase: it saved
  EXPECT_FALSE(std::filesystem::exists(dir.file("run.window")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("run.window.tmp")));
}

// A stop inside a level finished in slices saves the slice's pass and the
// slices before it (their blocks, copied from the store); the resumed run
// writes those back, continues the slice and ends with an uninterrupted
// run's levels, marks and ranks.
TEST(Checkpoint, AStopInsideASlicedLevelIsContinuedToTheSameLevelsAndMarks) {
  ScratchDir dir;
  const std::vector<std::string> sliced{"--slices", "3", "--slice-from", kFullSize ? "78" : "64"};
  ASSERT_EQ(run_chomp(checkpoint_run(dir, "whole", sliced)).exit_code, 0);
  std::vector<std::string> resume = sliced;
  resume.push_back("--resume");
  // When each level was first seen printed, and the level the stop saved:
  // the first run worked on that one from the print of the level before
  // it (or earlier) to the stop, which its row must count.
  std::map<int, std::chrono::steady_clock::time_point> seen;
  int stopped_in = 0;
  double before_stop = 0;
  {
    ChompProcess run(checkpoint_run(dir, "run", sliced));
    const auto note = [&] {
      const int l = run.last_level_printed();
      if (l > 0 && !seen.count(l)) seen[l] = std::chrono::steady_clock::now();
      return l;
    };
    ASSERT_TRUE(run.wait_until([&] { return note() >= (kFullSize ? 80 : 66); })) << run.err();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    note();
    const auto stop = std::chrono::steady_clock::now();
    run.send(SIGTERM);
    const ProcessResult r = run.wait();
    ASSERT_EQ(r.exit_code, 143) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.err, m, std::regex("the progress of slice [123] of 3 of level (\\d+) is saved in")))
        << r.err;
    stopped_in = std::stoi(m[1]);
    // The row of the level before it is printed by the end of the run. If
    // no poll saw it before the stop (the stop came between the end of that
    // level and its row, or the rows came faster than the polls), the first
    // run's time on the stopped level is counted as 0, a bound that still
    // holds.
    ASSERT_GE(run.last_level_printed(), stopped_in - 1) << r.out;
    if (seen.count(stopped_in - 1)) before_stop = std::chrono::duration<double>(stop - seen[stopped_in - 1]).count();
  }
  // The second run, timed from the line that says it continues the saved
  // pass to the row of that level: the row counts both runs' time on it.
  double after_resume = 0;
  {
    ChompProcess again(checkpoint_run(dir, "run", resume));
    ASSERT_TRUE(again.wait_until(
        [&] { return again.err().find("continuing the marking of slice") != std::string::npos; }))
        << again.err();
    const auto continued = std::chrono::steady_clock::now();
    ASSERT_TRUE(again.wait_until([&] { return again.last_level_printed() >= stopped_in; })) << again.err();
    after_resume = std::chrono::duration<double>(std::chrono::steady_clock::now() - continued).count();
    const ProcessResult r = again.wait();
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::regex_search(r.err, std::regex("continuing the marking of slice [123] of 3 of level \\d+ from .* "
                                                    "\\(saved after \\d+ s on the level\\)")))
        << r.err;
  }
  expect_same_levels(dir.file("whole.h5"), dir.file("run.h5"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("run.window")));
  // (Less 0.05 s: the level begins once the row before it is written and
  // synced, which may follow its print, and the row is seen a poll late.)
  const LevelTable t = read_level_file(dir.file("run.h5"));
  EXPECT_GE(t.seconds[static_cast<std::size_t>(stopped_in - 1)], before_stop + after_resume - 0.05)
      << "level " << stopped_in << ": the first run worked on it for " << before_stop << " s before the stop, the "
      << "second for " << after_resume << " s after it continued";
}
