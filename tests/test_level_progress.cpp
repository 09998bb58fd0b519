/// @file test_level_progress.cpp
/// @brief The progress lines of `chomp grundy` and `chomp sieve --dimensions 3`
/// through the program: level k/N, its percent, the time elapsed and an ETA
/// of the level and of the run, projected from the level's pace over the
/// work left (src/app/level_eta.hpp); a quiet run prints none.

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "chomp_process.hpp"

using namespace chomp::testing;

namespace {

struct Line {
  int level = 0, percent = 0;
  bool eta = false;
  double level_left = 0, run_left = 0;
};

/// Runs `chomp ARGS` with the line shown from the start, every 0.05 s, into
/// a file; returns its progress lines for a run to max.
std::vector<Line> progress_lines(const ScratchDir& dir, const std::string& args, int max, std::string& err) {
  const std::string err_path = dir.file("progress.err");
  const std::string cmd = "CHOMP_PROGRESS_QUIET=0 CHOMP_PROGRESS_INTERVAL=0.05 '" + chomp_binary() + "' " + args +
                          " >/dev/null 2>'" + err_path + "'";
  const int rc = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << cmd;
  err = read_text(err_path);
  const std::regex line("level (\\d+)/" + std::to_string(max) +
                        " \u00b7 +(\\d+)% \u00b7 [0-9:s ]+ elapsed( \u00b7 ETA level ([0-9:s]+( s)?), run ([0-9:s]+( s)?))?\n");
  std::vector<Line> out;
  for (auto it = std::sregex_iterator(err.begin(), err.end(), line); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    Line l{std::stoi(m[1]), std::stoi(m[2]), m[3].matched, 0, 0};
    if (l.eta) l.level_left = clock_seconds(m[4]), l.run_left = clock_seconds(m[6]);
    out.push_back(l);
  }
  return out;
}

/// The lines' facts: levels 1..max, percents up to 100, some ETA, and each
/// ETA's run at least its level's, equal to it (to the rounding of a second)
/// on the last level, which has no level after it. (The ETA's arithmetic
/// has its own test: WorkModel.PaceEtaProjectsTheLevelsPaceOverTheWorkLeft.)
void expect_sound(const std::vector<Line>& lines, int max, const std::string& err) {
  ASSERT_FALSE(lines.empty()) << err;
  int with_eta = 0;
  for (const Line& l : lines) {
    EXPECT_GE(l.level, 1) << err;
    EXPECT_LE(l.level, max) << err;
    EXPECT_LE(l.percent, 100) << err;
    if (!l.eta) continue;
    ++with_eta;
    EXPECT_GE(l.run_left + 0.5, l.level_left) << err;
    if (l.level == max) {
      EXPECT_NEAR(l.run_left, l.level_left, 1.0) << err;
    }
  }
  EXPECT_GT(with_eta, 0) << err;
}

}  // namespace

// Grundy levels from about 60 tiles take a few tenths of a second each
// (Debug and sanitizer builds: from about 45).
TEST(LevelProgress, GrundyShowsLevelPercentElapsedAndEtaAndAQuietRunNothing) {
  ScratchDir dir;
  const int max = kFullSize ? 64 : 48;
  std::string err;
  const std::string base = "grundy -n " + std::to_string(max) + " -t 2 --force -o '" + dir.file("g.h5") + "'";
  const std::vector<Line> lines = progress_lines(dir, base, max, err);
  expect_sound(lines, max, err);
  // A quiet run, which without -q shows lines from its start.
  const std::string small = "grundy -n 50 -t 2 --force -o '" + dir.file("q.h5") + "'";
  EXPECT_FALSE(progress_lines(dir, small, 50, err).empty()) << err;
  progress_lines(dir, small + " -q", 50, err);
  EXPECT_EQ(err.find("level "), std::string::npos) << err;
}

TEST(LevelProgress, ThreeDimensionalSieveShowsLevelPercentElapsedAndEta) {
  ScratchDir dir;
  const int max = kFullSize ? 30 : 25;
  std::string err;
  const std::vector<Line> lines = progress_lines(
      dir, "sieve --dimensions 3 -n " + std::to_string(max) + " -t 2 -o '" + dir.file("p.h5") + "'", max, err);
  expect_sound(lines, max, err);
}
