/// @file test_mpi_sieve.cpp
/// @brief `chomp sieve` under mpirun on this machine (built with
/// CHOMP_WITH_MPI): every count and every losing rank equals the
/// single-process run's for 2 and 3 processes, also resumed with another
/// process count; a process that fails stops the whole job with a message;
/// a usage error ends every process cleanly.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"

namespace {

constexpr int kTiles = 75;

struct Result {
  int code = -1;
  std::string out, err;
};

/// The tests' folder (in the build tree), made once.
const std::string& folder() {
  static const std::string dir = [] {
    std::filesystem::create_directories(CHOMP_MPI_TEST_DIR);
    return std::string(CHOMP_MPI_TEST_DIR);
  }();
  return dir;
}

std::string path(const std::string& name) { return folder() + "/" + name; }

std::string read_text(const std::string& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs a shell command in the tests' folder; a hang ends after 240 s.
Result sh(const std::string& command) {
  const std::string out = path("stdout.txt"), err = path("stderr.txt");
  const std::string line = "cd '" + folder() + "' && timeout 240 " + command + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(line.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

/// mpirun for this machine: more processes than cores, as root in CI,
/// waiting processes yield their core.
std::string mpirun(int processes) {
  return std::string(CHOMP_MPIEXEC) + " --oversubscribe --allow-run-as-root --mca mpi_yield_when_idle 1 -np " +
         std::to_string(processes);
}

const std::string kChomp = CHOMP_BINARY;

/// The single-process run, made once.
const std::string& single_process_file() {
  static const std::string file = [] {
    const std::string f = path("one-process.h5");
    // An MPI run files every mark (the bits of the first two rows' moves
    // are one process's): so does the run it is compared with.
    const Result r = sh(kChomp + " sieve -n " + std::to_string(kTiles) + " -o " + f + " --force -q --file-all-marks");
    EXPECT_EQ(r.code, 0) << r.err;
    return f;
  }();
  return file;
}

std::int64_t number(const chomp::LevelTable& t, const char* name) {
  const auto it = t.number_attributes.find(name);
  return it == t.number_attributes.end() ? -1 : it->second;
}

/// Every level's counts and losing ranks equal the single-process run's
/// (`reference`, a run to `tiles`).
void expect_same_levels(const std::string& file, int processes, const std::string& reference = single_process_file(),
                        int tiles = kTiles) {
  const chomp::LevelFileReader got(file), want(reference);
  const chomp::LevelTable &a = got.table(), &b = want.table();
  EXPECT_TRUE(a.complete());
  EXPECT_EQ(number(a, "mpi_ranks"), processes);
  EXPECT_EQ(number(b, "mpi_ranks"), 1);
  // The MPI library is recorded (provenance) for a run of several processes only.
  ASSERT_TRUE(a.text_attributes.count("mpi_library"));
  EXPECT_NE(a.text_attributes.at("mpi_library").find("MPI"), std::string::npos) << a.text_attributes.at("mpi_library");
  ASSERT_TRUE(b.text_attributes.count("mpi_library"));
  EXPECT_EQ(b.text_attributes.at("mpi_library"), "");
  ASSERT_EQ(a.tiles.size(), static_cast<std::size_t>(tiles));
  ASSERT_EQ(b.tiles.size(), static_cast<std::size_t>(tiles));
  for (std::size_t i = 0; i < a.tiles.size(); ++i) {
    EXPECT_EQ(a.tiles[i], b.tiles[i]);
    EXPECT_EQ(a.positions[i], b.positions[i]) << "n = " << i + 1;
    EXPECT_EQ(a.losing[i], b.losing[i]) << "n = " << i + 1;
    EXPECT_EQ(a.marks[i], b.marks[i]) << "n = " << i + 1;
  }
  EXPECT_EQ(a.losing_digest, b.losing_digest);
  const auto sa = chomp::LosingStore::open(got.store_path(), got.run_id(), got.stored_levels(tiles), false);
  const auto sb = chomp::LosingStore::open(want.store_path(), want.run_id(), want.stored_levels(tiles), false);
  for (int n = 1; n <= tiles; ++n) EXPECT_TRUE(sa->all(n) == sb->all(n)) << "the losing positions of level " << n << " differ";
}

/// Runs `chomp sieve` on `processes` processes, each with the environment
/// variables `env` (NAME=VALUE ...), and compares its levels.
void run_and_compare(int processes, const std::string& options = "", const std::string& env = "") {
  const std::string f = path("processes-" + std::to_string(processes) + ".h5");
  const std::string program = env.empty() ? kChomp : "env " + env + " " + kChomp;
  const Result r =
      sh(mpirun(processes) + " " + program + " sieve -n " + std::to_string(kTiles) + " -o " + f + " --force" + options);
  ASSERT_EQ(r.code, 0) << r.err;
  // Only process 0 prints: one table, one plan line.
  EXPECT_EQ(r.out.find(" tiles "), r.out.rfind(" tiles ")) << r.out;
  EXPECT_NE(r.err.find(", " + std::to_string(processes) + " MPI processes"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("plan:"), r.err.rfind("plan:")) << r.err;
  expect_same_levels(f, processes);
  if (!env.empty()) {
    EXPECT_NE(r.err.find("note: " + env.substr(0, env.find('='))), std::string::npos) << r.err;
  }
  if (env.find("CHOMP_DIRECT_CALL_MARKS") != std::string::npos) {
    // The path under test was taken: process 0 counts the calls it split.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.err, m, std::regex("; ([0-9]+) calls too large for the buckets split between "
                                                       "processes")))
        << r.err;
    EXPECT_GT(std::stoull(m[1].str()), 0u) << r.err;
  }
}

}  // namespace

TEST(MpiSieve, TwoProcessesFindTheSingleProcessLevels) { run_and_compare(2); }

TEST(MpiSieve, ThreeProcessesFindTheSingleProcessLevels) { run_and_compare(3); }

// Levels from 50 on in slices (at least 3 each), every slice shared by the
// processes, which all read process 0's store.
TEST(MpiSieve, TwoAndThreeProcessesInSlicesFindTheSingleProcessLevels) {
  run_and_compare(2, " --slices 3 --slice-from 50");
  run_and_compare(3, " --slices 4 --slice-from 50");
}

// Slices forced by --memory-limit, not --slices: a limit a little above
// the smallest that the job itself names (its processes' resident memory
// is part of it, rounded up to a MiB, and differs by some KiB from one
// launch to the next: a limit refused is raised), so that a process's
// share of the top levels does not fit whole; 3 processes (an uneven
// split) find the single-process levels. At 84 tiles the whole levels
// needed less than the smallest limit plus 0.3 MiB, so a launch whose
// resident memory rounded to one MiB less ran without slices (CI, 2
// processes); at 92 they slice up to the smallest plus 3 MiB (measured,
// 2 and 3 processes). One process count: 2 and 3 took 57 s in CI at 92.
TEST(MpiSieve, AMemoryLimitThatForcesSlicesFindsTheSingleProcessLevels) {
  constexpr int kN = 92;
  const std::string n = " sieve -n " + std::to_string(kN);
  const std::string reference = path("one-process-" + std::to_string(kN) + ".h5");
  Result r = sh(kChomp + n + " -o " + reference + " --force -q --file-all-marks");
  ASSERT_EQ(r.code, 0) << r.err;
  for (int processes : {3}) {
    const std::string f = path("limited-" + std::to_string(processes) + ".h5");
    r = sh(mpirun(processes) + " " + kChomp + n + " -o " + f + " --force --memory-limit 1M");
    ASSERT_EQ(r.code, 2) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.err, m, std::regex("the smallest --memory-limit that works is ([0-9.]+) MiB per process")))
        << r.err;
    const double smallest = std::stod(m[1].str());
    for (const double above : {0.3, 0.6, 1.0}) {
      const int limit_kib = static_cast<int>((smallest + above) * 1024);
      r = sh(mpirun(processes) + " " + kChomp + n + " -o " + f + " --force --memory-limit " +
             std::to_string(limit_kib) + "K");
      if (r.code != 2) break;
    }
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find(" on in slices"), std::string::npos) << r.err;
    const chomp::LevelTable t = chomp::read_level_file(f);
    EXPECT_GT(*std::max_element(t.slices.begin(), t.slices.end()), 1u) << processes << " processes";
    expect_same_levels(f, processes, reference, kN);
  }
}

// Calls of the kernel that may make more than 300 marks (the test seam
// CHOMP_DIRECT_CALL_MARKS; 2^22 in real runs, where one call makes up to
// 1.5e9 marks at 170) are made by every process for its own segments
// instead of being filed and sent: the same levels.
TEST(MpiSieve, CallsTooLargeForTheBucketsSplitBetweenProcessesFindTheSingleProcessLevels) {
  run_and_compare(3, "", "CHOMP_DIRECT_CALL_MARKS=300");
  run_and_compare(2, " --slices 3 --slice-from 50", "CHOMP_DIRECT_CALL_MARKS=300");
}

TEST(MpiSieve, ResumesWithAnotherProcessCount) {
  const std::string f = path("resumed.h5");
  Result r = sh(mpirun(2) + " " + kChomp + " sieve -n 68 -o " + f + " --force -q");
  ASSERT_EQ(r.code, 0) << r.err;
  r = sh(mpirun(3) + " " + kChomp + " sieve -n " + std::to_string(kTiles) + " -o " + f + " --resume -q");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("levels 1..68 checked"), std::string::npos) << r.err;
  expect_same_levels(f, 3);
  // The history says how many processes resumed it (mpi_ranks keeps the last count only).
  const chomp::LevelTable t = chomp::read_level_file(f);
  EXPECT_NE(t.text_attributes.at("resume_history").find("restored levels 1..68 with 3 MPI processes of "),
            std::string::npos)
      << t.text_attributes.at("resume_history");
}

// A one-process run's window checkpoint (the run stopped by SIGTERM after
// 3 s, inside a window as a rule) is not continued by several processes:
// they say so, remove it (it was left behind, stale, as large as the
// window) and finish.
TEST(MpiSieve, AOneProcessCheckpointIsSaidToBeIgnoredAndRemoved) {
  const std::string f = path("checkpointed.h5"), window = path("checkpointed.window");
  std::filesystem::remove(window);
  // A one-process run saving its pass every 0.3 s is killed once a save
  // is on disk (within 15 s), so that the resume always has one to ignore.
  sh("bash -c '" + kChomp + " sieve -n 90 -t 1 -q --force -o " + f +
     " --checkpoint-every 0.005 --memory-limit 64M & p=$!; for i in $(seq 300); do [ -f " + window +
     " ] && break; sleep 0.05; done; kill -9 $p; wait $p'");
  ASSERT_TRUE(std::filesystem::exists(window)) << "no checkpoint was saved to test with";
  // A resume that is refused (a mistyped option) keeps it: it was removed
  // before the arguments were checked.
  const Result refused = sh(mpirun(2) + " " + kChomp + " sieve -n 90 -o " + f + " --resume -q --processes 4");
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_TRUE(std::filesystem::exists(window)) << refused.err;
  const Result r = sh(mpirun(2) + " " + kChomp + " sieve -n 90 -o " + f + " --resume -q");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("ignored the window's checkpoint " + window), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(window));
  EXPECT_TRUE(chomp::read_level_file(f).complete());
}

TEST(MpiSieve, AFailingProcessStopsTheJobWithAMessage) {
  // Process 0 may write only 256 KiB: the file fills up a few levels in,
  // while process 1 waits for it in the next exchange. The job must end
  // (not hang), say why and how to continue, and keep the finished levels.
  const std::string f = path("full-disk.h5");
  std::filesystem::remove(f);
  std::filesystem::remove(path("full-disk.store"));  // a rerun's: a new run refuses a store without its file
  const std::string args = " sieve -n " + std::to_string(kTiles) + " -o " + f + " -q";
  const Result r = sh(mpirun(1) + " bash -c 'ulimit -f 256; exec " + kChomp + args + "' : -np 1 " + kChomp + args);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("process 0 of 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("stopping all 2 processes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--resume"), std::string::npos) << r.err;
  const chomp::LevelTable t = chomp::read_level_file(f);
  EXPECT_FALSE(t.complete());
  EXPECT_GT(t.tiles.size(), 10U);
}

TEST(MpiSieve, AUsageErrorEndsEveryProcessCleanly) {
  // Process 0 refuses to overwrite a file; the others are told, and every
  // process finalises MPI (no abort).
  const std::string f = path("exists.h5");
  std::ofstream(f) << "not a result file";
  const Result r = sh(mpirun(3) + " " + kChomp + " sieve -n 30 -o " + f);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("already exists"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("MPI_Abort"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("already exists"), r.err.rfind("already exists")) << "only process 0 speaks:\n" << r.err;
  // A word the parser refuses, before MPI starts: once, not once a process
  // (they were interleaved: "chomp: chomp: --max-tiles ..."), and whole.
  const Result parse = sh(mpirun(3) + " " + kChomp + " sieve -n 300 -o " + path("never.h5"));
  EXPECT_EQ(parse.code, 2) << parse.err;
  const std::string said = "chomp: --max-tiles: '300' is too large: at most 255";
  EXPECT_NE(parse.err.find(said), std::string::npos) << parse.err;
  EXPECT_EQ(parse.err.find(said), parse.err.rfind(said)) << parse.err;
  const Result help = sh(mpirun(2) + " " + kChomp + " sieve --help");
  EXPECT_EQ(help.code, 0) << help.err;
  EXPECT_EQ(help.out.find("Usage:"), help.out.rfind("Usage:")) << help.out;
}
