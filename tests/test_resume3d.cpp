/// @file test_resume3d.cpp
/// @brief `chomp sieve --dimensions 3` as a batch run, through the program:
/// stopped by SIGTERM or killed by SIGKILL inside a level and resumed with
/// another thread count, it ends with an uninterrupted run's levels (rows,
/// digests, every losing rank); a damaged store is refused and the files
/// left as they were; 2D and 3D files are not continued by each other's
/// --resume; --dry-run and --memory-limit plan from the losing sets.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <regex>

#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/plane_ranking.hpp"
#include "chomp/sieve3d.hpp"
#include "chomp_process.hpp"
#include "damaged_files.hpp"

using namespace chomp;
using namespace chomp::testing;

namespace {

/// Sizes: levels to 26 take a few seconds in Release on two busy cores;
/// Debug and sanitizer builds go through the same steps on smaller levels.
constexpr int kMax = kFullSize ? 26 : 21;
constexpr int kStopAfter = kFullSize ? 23 : 18;

std::vector<std::string> sieve3d(std::initializer_list<std::string> more) {
  std::vector<std::string> args{"sieve", "--dimensions", "3"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::string text(const LevelTable& t, const char* name) {
  const auto it = t.text_attributes.find(name);
  return it == t.text_attributes.end() ? "<missing>" : it->second;
}

/// Two 3D result files hold the same levels: every row and every losing
/// rank in their stores.
void expect_same_levels(const std::string& a_path, const std::string& b_path) {
  const LevelFileReader a(a_path), b(b_path);
  const LevelTable &ta = a.table(), &tb = b.table();
  EXPECT_EQ(ta.number_attributes.at("dimensions"), 3);
  EXPECT_EQ(tb.number_attributes.at("dimensions"), 3);
  EXPECT_EQ(ta.tiles, tb.tiles);
  EXPECT_EQ(ta.positions, tb.positions);
  EXPECT_EQ(ta.losing, tb.losing);
  EXPECT_EQ(ta.marks, tb.marks);
  EXPECT_EQ(ta.losing_digest, tb.losing_digest);
  EXPECT_EQ(ta.losing_fraction, tb.losing_fraction);
  const int rows = static_cast<int>(std::min(ta.tiles.size(), tb.tiles.size()));
  const auto sa = LosingStore::open(a.store_path(), a.run_id(), a.stored_levels(rows), false);
  const auto sb = LosingStore::open(b.store_path(), b.run_id(), b.stored_levels(rows), false);
  for (int n = 1; n <= rows; ++n) EXPECT_TRUE(sa->all(n) == sb->all(n)) << "the losing ranks of level " << n << " differ";
}

void expect_complete(const std::string& path, int levels) {
  const LevelTable t = read_level_file(path);
  EXPECT_TRUE(t.complete());
  EXPECT_EQ(t.status(), "complete");
  EXPECT_EQ(static_cast<int>(t.tiles.size()), levels);
  EXPECT_EQ(t.number_attributes.at("max_tiles"), levels);
}

/// SIGKILLs a run at a random moment of the level after `level`: it times
/// level `level` and sleeps a random part of that (a 3D level takes about
/// 1.5 times the one below), so the kill lands inside the next level.
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

/// The command a stopped run printed to continue it.
std::string continue_command(const std::string& err) {
  std::smatch m;
  return std::regex_search(err, m, std::regex("to continue: ([^\n]+)")) ? m[1].str() : std::string();
}

}  // namespace

// SIGTERM inside a level: exit 143, the finished levels saved with status
// "interrupted", the printed command continues it; resumed with another
// thread count, the file is the uninterrupted run's.
TEST(Resume3d, SigtermInsideALevelThenResumedEqualsAnUninterruptedRun) {
  ScratchDir dir;
  const std::string ref = dir.file("ref.h5"), out = dir.file("run 3d.h5");
  const std::string max = std::to_string(kMax);
  ChompProcess reference(sieve3d({"-n", max, "-t", "2", "-q", "-o", ref}));
  ChompProcess run(sieve3d({"-n", max, "-t", "2", "-o", out}));
  ASSERT_TRUE(run.wait_until([&] { return run.last_level_printed() >= kStopAfter; })) << run.err();
  run.send(SIGTERM);
  const ProcessResult r = run.wait();
  ASSERT_EQ(r.exit_code, 143) << r.err;
  EXPECT_NE(r.err.find("stopped by SIGTERM during level "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("does not resume"), std::string::npos) << r.err;
  int saved = 0;
  {
    const LevelTable t = read_level_file(out);
    EXPECT_FALSE(t.complete());
    EXPECT_EQ(t.status(), "interrupted");
    saved = static_cast<int>(t.tiles.size());
    EXPECT_EQ(saved, run.last_level_printed()) << "every printed level is saved";
    EXPECT_GE(saved, kStopAfter);
    EXPECT_LT(saved, kMax);
    EXPECT_EQ(text(t, "store_file"), "run 3d.store");
  }
  const std::string command = continue_command(r.err);
  EXPECT_NE(command.find(" --dimensions 3"), std::string::npos) << command;
  EXPECT_NE(command.find(" --threads 2"), std::string::npos) << command;
  EXPECT_NE(command.find(" --resume"), std::string::npos) << command;

  const ProcessResult resumed = run_chomp(sieve3d({"--resume", "-t", "1", "-q", "-o", out}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resumed " + out + ": levels 1.." + std::to_string(saved) + " checked in "),
            std::string::npos)
      << resumed.err;
  EXPECT_NE(resumed.err.find("; continuing to level " + max + " with 1 thread"), std::string::npos) << resumed.err;
  ASSERT_EQ(reference.wait().exit_code, 0);
  expect_same_levels(ref, out);
  expect_complete(out, kMax);
  const LevelTable t = read_level_file(out);
  EXPECT_NE(text(t, "resume_history").find("restored levels 1.." + std::to_string(saved) + " with 1 thread"),
            std::string::npos)
      << text(t, "resume_history");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"ref.h5", "ref.store", "run 3d.h5", "run 3d.store"}));
}

// SIGKILL inside a level (twice: the second while the resumed run works),
// resumed each time with another thread count: the uninterrupted run's
// file, rank for rank; the printed command of the stop finishes it.
TEST(Resume3d, KilledInsideALevelThenResumedEqualsAnUninterruptedRun) {
  ScratchDir dir;
  const std::string ref = dir.file("ref.h5"), out = dir.file("run.h5");
  const std::string max = std::to_string(kMax);
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("CHOMP_TEST_SEED=" + std::to_string(seed));
  ChompProcess reference(sieve3d({"-n", max, "-t", "2", "-q", "-o", ref}));

  ChompProcess first(sieve3d({"-n", max, "-t", "2", "-o", out}));
  kill_inside_next_level(first, kStopAfter - 2, rng);
  const ProcessResult killed = first.wait();
  ASSERT_EQ(killed.signal, SIGKILL) << "the run ended before it was killed: " << killed.err;
  int saved = 0;
  {
    const LevelTable t = read_level_file(out);  // a killed file is readable
    EXPECT_FALSE(t.complete());
    EXPECT_EQ(t.status(), "running");
    saved = static_cast<int>(t.tiles.size());
    EXPECT_GE(saved, kStopAfter - 2);
    EXPECT_LT(saved, kMax);
  }

  ChompProcess second(sieve3d({"--resume", "-t", "1", "-o", out}));
  kill_inside_next_level(second, saved + 2, rng);
  const ProcessResult killed_again = second.wait();
  ASSERT_TRUE(killed_again.signal == SIGKILL || killed_again.exit_code == 0) << killed_again.err;
  EXPECT_NE(killed_again.err.find("resumed "), std::string::npos) << killed_again.err;
  EXPECT_FALSE(std::filesystem::exists(out + ".partial"));

  // SIGINT while the third run computes: its printed command finishes it.
  ChompProcess third(sieve3d({"--resume", "-t", "2", "-o", out}));
  ASSERT_TRUE(third.wait_until([&] { return third.last_level_printed() >= saved + 3; })) << third.err();
  third.send(SIGINT);
  const ProcessResult stopped = third.wait();
  std::string command = continue_command(stopped.err);
  if (stopped.exit_code == 130) {
    ASSERT_NE(command, "") << stopped.err;
    const int rc = std::system(("cd / && " + command + " -q >/dev/null 2>&1").c_str());
    ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << command;
  } else {
    ASSERT_EQ(stopped.exit_code, 0) << stopped.err;  // it finished before the signal
  }
  ASSERT_EQ(reference.wait().exit_code, 0);
  expect_same_levels(ref, out);
  expect_complete(out, kMax);
  EXPECT_FALSE(std::filesystem::exists(out + ".partial"));
}

// The store holds MacMahonRanking's ranks of each level's losing positions,
// the sieve's own, and the rows name their count and digest.
TEST(Resume3d, TheStoreHoldsEachLevelsLosingRanks) {
  ScratchDir dir;
  const std::string out = dir.file("a.h5");
  ASSERT_EQ(run_chomp(sieve3d({"-n", "16", "-q", "-o", out})).exit_code, 0);
  const LevelFileReader reader(out);
  const auto store = LosingStore::open(reader.store_path(), reader.run_id(), reader.stored_levels(16), false);
  Sieve3d sieve(16);
  for (int n = 1; n <= 16; ++n) {
    const LevelResult r = sieve.next_level();
    const std::vector<std::uint64_t> ranks = store->all(n);
    EXPECT_EQ(ranks, sieve.losing_ranks(n)) << "level " << n;
    std::uint64_t digest = 0;
    for (std::uint64_t x : ranks) digest += rank_digest(x);
    EXPECT_EQ(reader.table().losing_digest[static_cast<std::size_t>(n - 1)], digest);
    EXPECT_EQ(store->count(n), r.losing);
  }
}

TEST(Resume3d, CompleteFileHasNothingToDoAndALargerMaxTilesExtendsIt) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5"), ref = dir.file("ref.h5");
  ASSERT_EQ(run_chomp(sieve3d({"-n", "18", "-q", "-o", out})).exit_code, 0);
  const std::string bytes = read_text(out), store = read_text(store_path_for(out));

  const ProcessResult again = run_chomp(sieve3d({"--resume", "-q", "-o", out}));
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("nothing to resume"), std::string::npos) << again.err;
  EXPECT_EQ(read_text(out), bytes) << "a complete file is left alone";

  const ProcessResult shorter = run_chomp(sieve3d({"--resume", "-n", "15", "-q", "-o", out}));
  EXPECT_EQ(shorter.exit_code, 2) << shorter.err;
  EXPECT_NE(shorter.err.find("--max-tiles 18"), std::string::npos) << shorter.err;
  EXPECT_EQ(count_lines(shorter.err), 1) << shorter.err;
  EXPECT_EQ(read_text(out), bytes);
  EXPECT_EQ(read_text(store_path_for(out)), store);

  const ProcessResult extend = run_chomp(sieve3d({"--resume", "-n", "21", "-t", "1", "-q", "-o", out}));
  ASSERT_EQ(extend.exit_code, 0) << extend.err;
  EXPECT_NE(extend.err.find(" s for levels 19..21 after "), std::string::npos) << extend.err;
  EXPECT_NE(extend.err.find(" s checking levels 1..18; store "), std::string::npos) << extend.err;
  ASSERT_EQ(run_chomp(sieve3d({"-n", "21", "-q", "-o", ref})).exit_code, 0);
  expect_same_levels(ref, out);
  expect_complete(out, 21);
  EXPECT_NE(text(read_level_file(out), "resume_history").find("restored levels 1..18"), std::string::npos);
}

// --resume of a file of the other dimensions is a usage error (exit 2)
// that names the command that continues it; the file stays as it was.
TEST(Resume3d, AFileOfTheOtherDimensionsIsRefusedNamingItsCommand) {
  ScratchDir dir;
  const std::string two = dir.file("two.h5"), three = dir.file("three.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "12", "-q", "-o", two}).exit_code, 0);
  ASSERT_EQ(run_chomp(sieve3d({"-n", "10", "-q", "-o", three})).exit_code, 0);
  const std::string two_bytes = read_text(two), three_bytes = read_text(three);
  for (const std::string& extra : {std::string("-n"), std::string("")}) {
    std::vector<std::string> as_3d = sieve3d({"--resume", "-q", "-o", two});
    std::vector<std::string> as_2d{"sieve", "--resume", "-q", "-o", three};
    if (!extra.empty()) as_3d.insert(as_3d.end(), {"-n", "14"}), as_2d.insert(as_2d.end(), {"-n", "14"});
    const ProcessResult r3 = run_chomp(as_3d);
    EXPECT_EQ(r3.exit_code, 2) << r3.err;
    EXPECT_NE(r3.err.find("it is a table of 2D Chomp"), std::string::npos) << r3.err;
    EXPECT_NE(r3.err.find("continue it with " + chomp_binary() + " sieve --resume --output " + two +
                          " (without --dimensions 3)"),
              std::string::npos)
        << r3.err;
    EXPECT_EQ(count_lines(r3.err), 1) << r3.err;
    const ProcessResult r2 = run_chomp(as_2d);
    EXPECT_EQ(r2.exit_code, 2) << r2.err;
    EXPECT_NE(r2.err.find("it is a table of 3D Chomp"), std::string::npos) << r2.err;
    EXPECT_NE(r2.err.find("continue it with " + chomp_binary() + " sieve --dimensions 3 --resume --output " + three),
              std::string::npos)
        << r2.err;
    EXPECT_EQ(count_lines(r2.err), 1) << r2.err;
  }
  EXPECT_EQ(read_text(two), two_bytes);
  EXPECT_EQ(read_text(three), three_bytes);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"three.h5", "three.store", "two.h5", "two.store"}));
}

// A damaged or mismatched store: one line says why (exit 1), and the
// result file and its store are left byte for byte as they were.
TEST(Resume3d, ADamagedStoreIsRefusedAndTheFilesLeftAsTheyWere) {
  ScratchDir dir;
  const std::string base = dir.file("base.h5"), other = dir.file("other.h5");
  ASSERT_EQ(run_chomp(sieve3d({"-n", "18", "-q", "-o", base})).exit_code, 0);
  ASSERT_EQ(run_chomp(sieve3d({"-n", "18", "-q", "-o", other})).exit_code, 0);
  { RawFile(base).set_int_attribute("complete", 0); }  // so that a resume reads every level
  struct Case {
    std::string name, says;
    std::function<void(const std::string& h5, const std::string& store)> damage;
  };
  const std::vector<Case> cases = {
      {"flipped", "level 17, block 0 (ranks ",
       [](const std::string& h5, const std::string& store) {
         const StoreBlock b = store_of(h5)->blocks(17)[0];
         flip_byte(store, b.offset + b.bytes / 2);
       }},
      {"truncated", "level 16's trailer at byte",
       [](const std::string& h5, const std::string& store) {
         std::filesystem::resize_file(store, store_of(h5)->record(16).trailer - 10);
       }},
      {"another run's", "belongs to another run",
       [&](const std::string&, const std::string& store) {
         std::filesystem::copy_file(store_path_for(other), store, std::filesystem::copy_options::overwrite_existing);
       }},
      {"missing", "is missing",
       [](const std::string&, const std::string& store) { std::filesystem::remove(store); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ScratchDir here;
    const std::string h5 = here.file("run.h5"), store = store_path_for(h5);
    copy_run(base, h5);
    c.damage(h5, store);
    const std::string before = read_text(h5), store_before = read_text(store);
    const bool had_store = std::filesystem::exists(store);
    const ProcessResult r = run_chomp(sieve3d({"--resume", "-n", "20", "-q", "-o", h5}));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("cannot resume"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("chomp: "), r.err.rfind("chomp: ")) << "one line says why: " << r.err;
    EXPECT_EQ(read_text(h5), before);
    EXPECT_EQ(std::filesystem::exists(store), had_store);
    EXPECT_EQ(read_text(store), store_before);
    EXPECT_FALSE(std::filesystem::exists(h5 + ".partial"));
  }
}

// A store gone from beside its own file: the refusal says to give it back
// or names the command that starts the run over, a 3D run's (it once
// named a bare `chomp sieve --force`, which started a 2D run elsewhere).
TEST(Resume3d, AMissingStoreNamesThe3dCommandThatStartsOver) {
  ScratchDir dir;
  const std::string h5 = dir.file("a.h5");
  ASSERT_EQ(run_chomp(sieve3d({"-n", "10", "-q", "-o", h5})).exit_code, 0);
  std::filesystem::remove(store_path_for(h5));
  const ProcessResult r = run_chomp(sieve3d({"--resume", "-n", "12", "-q", "-o", h5}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("give it back (move it beside the file), or, to run again, start over with "),
            std::string::npos) << r.err;
  ASSERT_NE(r.err.find(" sieve --dimensions 3 --max-tiles 12 --output " + h5 + " --force"), std::string::npos)
      << r.err;
  ASSERT_EQ(run_chomp({"sieve", "--dimensions", "3", "--max-tiles", "12", "--output", h5, "--force", "-q"}).exit_code,
            0);
  const LevelTable t = read_level_file(h5);
  EXPECT_TRUE(t.complete());
  EXPECT_EQ(t.tiles.size(), 12u);
  EXPECT_EQ(t.number_attributes.at("dimensions"), 3);
}

// --dry-run prints the memory (the losing sets, the level being built), the
// disk and, for a run that fits, the time from levels 1..30 computed then
// (the arithmetic: WorkModel.ACalibratedRunPricesTheLevelsAboveAtTheLastFiveLevelsPace),
// and writes nothing; for a file to resume it takes L(n) from it and
// prices the levels left.
TEST(Resume3d, DryRunPrintsTheMemoryAndDiskAndWritesNothing) {
  ScratchDir dir;
  const std::string out = dir.file("a.h5");
  const ProcessResult r = run_chomp(sieve3d({"-n", "45", "--dry-run", "--memory-limit", "1T", "-t", "2", "-o", out}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("plan: 3D levels 1..45"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("losing sets of levels 1..44 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("building level 45 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("L(n) of levels 1..45 estimated"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("disk: store ~"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("time: about [0-9:]+( s)? on 2 threads \\(calibrated now: levels "
                                                  "1\\.\\.30 in [0-9.]+ s, the levels above at the pace of levels "
                                                  "26\\.\\.30 for PL\\(n\\) n each")))
      << r.out;
  EXPECT_TRUE(dir.entries().empty());
  // The figures are the library's plan.
  const Sieve3dPlan plan = plan_sieve3d(45);
  EXPECT_GT(plan.total(), std::uint64_t{1} << 30);  // GiBs at 45 cubes
  EXPECT_EQ(plan.first_too_large, 0);
  // A level's set holds at most 2^32 - 1 positions: the estimate passes it
  // at level 57 (4.8e9), not at 56 (3.4e9).
  EXPECT_EQ(plan_sieve3d(56).first_too_large, 0);
  EXPECT_EQ(plan_sieve3d(57).first_too_large, 57);
  EXPECT_EQ(plan_sieve3d(63).first_too_large, 57);
  EXPECT_GT(estimated_losing_3d(57), Sieve3dPlan::kMostLosingPerLevel);
  char memory[64];
  std::snprintf(memory, sizeof memory, "memory: %.1f GiB", static_cast<double>(plan.total()) / (1 << 30));
  EXPECT_NE(r.out.find(memory), std::string::npos) << r.out;
  // It checks the plan: one that does not fit is printed, then refused.
  const ProcessResult small = run_chomp(sieve3d({"-n", "45", "--dry-run", "--memory-limit", "1G", "-o", out}));
  EXPECT_EQ(small.exit_code, 2) << small.err;
  EXPECT_NE(small.out.find("plan: 3D levels 1..45"), std::string::npos) << small.out;
  EXPECT_NE(small.err.find("does not fit --memory-limit (1.0 GiB)"), std::string::npos) << small.err;
  EXPECT_NE(small.out.find("time: not estimated (the run does not fit)"), std::string::npos) << small.out;
  EXPECT_TRUE(dir.entries().empty());

  // A file to resume: its levels' L(n) are known.
  ASSERT_EQ(run_chomp(sieve3d({"-n", "12", "-q", "-o", out})).exit_code, 0);
  const std::string bytes = read_text(out);
  const ProcessResult resume = run_chomp(sieve3d({"-n", "32", "--resume", "--dry-run", "-o", out}));
  ASSERT_EQ(resume.exit_code, 0) << resume.err;
  EXPECT_NE(resume.out.find("L(n) of levels 1..12 from the file, of 13..32 estimated"), std::string::npos)
      << resume.out;
  EXPECT_NE(resume.out.find(" for levels 13..32 on "), std::string::npos) << resume.out;
  EXPECT_EQ(read_text(out), bytes);
}

// A budget too small: refused before anything is written (exit 2), naming
// the smallest limit that works, which then does.
TEST(Resume3d, ATooSmallMemoryLimitIsRefusedNamingTheSmallestThatWorks) {
  ScratchDir dir;
  const std::string out = dir.file("a.h5");
  const ProcessResult r = run_chomp(sieve3d({"-n", "40", "--memory-limit", "64M", "-o", out}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--max-tiles 40 with --dimensions 3 does not fit --memory-limit (64.0 MiB)"),
            std::string::npos)
      << r.err;
  const std::smatch m = [&] {
    std::smatch found;
    std::regex_search(r.err, found, std::regex("the smallest --memory-limit that works is ([0-9.]+) ([KMG])iB"));
    return found;
  }();
  ASSERT_EQ(m.size(), 3U) << r.err;
  EXPECT_TRUE(dir.entries().empty());
  const std::string smallest = m[1].str() + m[2].str();
  const ProcessResult fits = run_chomp(sieve3d({"-n", "40", "--memory-limit", smallest, "--dry-run", "-o", out}));
  EXPECT_EQ(fits.exit_code, 0) << smallest << ": " << fits.err;
  EXPECT_TRUE(dir.entries().empty());
  // A small run fits a small budget, and stays within it.
  const ProcessResult small = run_chomp(sieve3d({"-n", "22", "--memory-limit", "64M", "-q", "-o", out}));
  EXPECT_EQ(small.exit_code, 0) << small.err;
  if (!sanitized_binary()) {
    EXPECT_LT(small.max_rss_kib, 64 * 1024) << "peak resident memory";
  }
}

// A write that fails (the store reaches a file size limit): exit 1, the
// finished levels kept, and the command that continues the run, which
// then finishes it as an uninterrupted run would.
TEST(Resume3d, AFailedStoreWriteKeepsTheFinishedLevelsAndTheRunResumes) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5"), ref = dir.file("ref.h5");
  ProcessOptions opts;
  opts.file_size_limit = 40 * 1024;  // the store of levels 1..24 takes 64 KiB
  const ProcessResult r = run_chomp(sieve3d({"-n", "24", "-q", "-o", out}), opts);
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal;
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("once the problem is fixed (raise the limit on a file's size, ulimit -f, or free space on "
                       "its disk)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" --dimensions 3 --quiet --resume"), std::string::npos) << r.err;
  const LevelTable t = read_level_file(out);
  EXPECT_EQ(t.status(), "interrupted");
  EXPECT_GE(t.tiles.size(), 15U);
  EXPECT_LT(t.tiles.size(), 24U);
  const ProcessResult resumed = run_chomp(sieve3d({"--resume", "-q", "-o", out}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  ASSERT_EQ(run_chomp(sieve3d({"-n", "24", "-q", "-o", ref})).exit_code, 0);
  expect_same_levels(ref, out);
  expect_complete(out, 24);
}

// The commands that read a 2D store's ranks as 2D positions refuse a 3D
// file now that it has a store, the file unchanged: verify as a file of
// another kind (exit 1, as for a Grundy file), show --three-rows as an
// option the file cannot take (exit 2); `show` gives its table and the
// store's bytes a position.
TEST(Resume3d, CommandsOfTwoDimensionalStoresRefuseA3dFile) {
  ScratchDir dir;
  const std::string out = dir.file("a.h5");
  ASSERT_EQ(run_chomp(sieve3d({"-n", "14", "-q", "-o", out})).exit_code, 0);
  const std::string bytes = read_text(out);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"verify", out}, std::vector<std::string>{"show", out, "--three-rows"}}) {
    const ProcessResult r = run_chomp(args);
    EXPECT_EQ(r.exit_code, args[0] == "verify" ? 1 : 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("is a table of 3D Chomp"), std::string::npos) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
  }
  const ProcessResult show = run_chomp({"show", out});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.err.find("store"), std::string::npos) << show.err;
  // Its levels count cubes, as the run printed them, and it says it is 3D.
  EXPECT_NE(show.out.find("\n cubes        positions"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("  dimensions         3\n"), std::string::npos) << show.out;
  EXPECT_EQ(read_text(out), bytes);
}
