/// @file test_cli_verify.cpp
/// @brief `chomp verify` on a finished run: what it checks by default and
/// which checks are independent of the engine, samples, the rule move by
/// move, a wrong losing rank that every checksum vouches for, and the files
/// and levels it refuses.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "chomp/h5_output.hpp"
#include "chomp/three_rows.hpp"
#include "chomp_process.hpp"
#include "damaged_files.hpp"

using namespace chomp;
using namespace chomp::testing;

namespace {

/// The words of level n's row in verify's table (tiles, losing, transposed,
/// result...), or none.
std::vector<std::string> verify_row(const std::string& out, int n) {
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (!w.empty() && w[0] == std::to_string(n)) return w;
  }
  return {};
}

/// How many of `count` items a default sample of about 500 checks: every
/// one up to 500, else one in ceil(count / 500), one drawn from each stride.
std::uint64_t default_sample(std::uint64_t count) {
  const std::uint64_t every = count <= 500 ? 1 : (count + 499) / 500;
  return (count + every - 1) / every;
}

}  // namespace

// A consistent result file and store with one losing rank moved: the
// resume cannot tell (the digests agree with the ranks), but verify finds
// it (here the transposition check, which takes every losing position of
// so small a level, reports it first; the three-row check would too).
// Levels below 45 pass. A level above may fail too, when its drawn sample
// holds a position whose verdict the moved rank changes (about one seed
// in twenty at level 46..50), so only level 45 is required to fail.
TEST(Verify, FindsOneWrongLosingRankThatEveryChecksumVouchesFor) {
  ScratchDir dir;
  const std::string path = dir.file("moved.h5");
  copy_run(finished_run(), path);
  move_one_losing_rank(path, 45);
  const ProcessResult r = run_chomp({"verify", path});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(" of levels 1..50 failed"), std::string::npos) << r.err;
  for (int n = 1; n < 45; ++n) {
    const std::vector<std::string> below = verify_row(r.out, n);
    ASSERT_FALSE(below.empty()) << n << "\n" << r.out;
    EXPECT_EQ(below.back(), "ok") << r.out;
  }
  const std::vector<std::string> row = verify_row(r.out, 45);
  ASSERT_FALSE(row.empty()) << r.out;
  EXPECT_NE(row.back(), "ok") << r.out;
  EXPECT_NE(r.out.find(") has a transpose, "), std::string::npos) << r.out;
}

// By default: every level, every transpose below 10,000 losing positions a
// level, and the rule on a sample of about 500 losing positions and 500
// ranks a level; the summary says which checks are independent of the engine.
TEST(Verify, PassesAFinishedRunAndSaysWhichChecksAreIndependent) {
  const ProcessResult r = run_chomp({"verify", finished_run()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("levels 1..50"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[integrity of the file and store, not a check of the engine]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("transposition: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[NOT independent: this file's engine"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[independent of the engine, given the levels below]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("three rows: all "), std::string::npos) << r.err;
  // Every level to 50 has under 10,000 losing positions: every transpose is
  // checked and said to be; the rule is checked on a sample of p(50) ranks.
  EXPECT_NE(r.err.find("losing positions' transposes are losing too (every one)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ranks of each level, a sample)"), std::string::npos) << r.err;
  const LevelTable t = read_level_file(finished_run());
  for (int n = 1; n <= kFinishedRunLevels; ++n) {
    const auto i = static_cast<std::size_t>(n - 1);
    const std::string losing = std::to_string(t.losing[i]);
    const std::string by_moves = std::to_string(default_sample(t.losing[i]) + default_sample(t.positions[i]));
    const std::string three = std::to_string(three_row_positions(n).size());
    EXPECT_EQ(verify_row(r.out, n),
              (std::vector<std::string>{std::to_string(n), losing, losing, by_moves, three, "ok"}))
        << r.out;
  }
}

// An unfinished run is refused (exit 1) unless --finished asks for the
// levels it finished.
TEST(Verify, RefusesAnUnfinishedRunUnlessAskedForItsFinishedLevels) {
  ScratchDir dir;
  const std::string path = dir.file("unfinished.h5");
  copy_run(finished_run(), path);
  RawFile(path).set_int_attribute("complete", 0);
  const ProcessResult r = run_chomp({"verify", path});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("is not a complete run"), std::string::npos) << r.err;
  // The resume it names is of this file (a bare `chomp sieve --resume`
  // started a new run on the default output).
  EXPECT_NE(r.err.find(" --output " + path + " --resume)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--finished"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find(" ok"), std::string::npos) << r.out;
  const ProcessResult finished = run_chomp({"verify", path, "--finished", "--from", "45"});
  EXPECT_EQ(finished.exit_code, 0) << finished.err;
  EXPECT_NE(finished.err.find("an unfinished run: its finished levels"), std::string::npos) << finished.err;
  EXPECT_EQ(verify_row(finished.out, 50).back(), "ok") << finished.out;
}

TEST(Verify, SamplesEveryKthPositionOfTheLevelsAsked) {
  const ProcessResult r =
      run_chomp({"verify", finished_run(), "--from", "50", "--to", "60", "--every", "10", "--no-moves", "-t", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const LevelTable t = read_level_file(finished_run());
  const std::uint64_t sampled = (t.losing[49] + 9) / 10;  // indices 0, 10, 20, ...
  EXPECT_EQ(verify_row(r.out, 50), (std::vector<std::string>{"50", std::to_string(t.losing[49]), std::to_string(sampled),
                                                             std::to_string(three_row_positions(50).size()), "ok"}));
  EXPECT_TRUE(verify_row(r.out, 49).empty()) << r.out;
  const ProcessResult first = run_chomp({"verify", finished_run(), "--to", "3", "--no-moves"});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(verify_row(first.out, 3).size(), 5U) << first.out;
  EXPECT_TRUE(verify_row(first.out, 4).empty()) << first.out;
  EXPECT_NE(first.err.find("levels 1..3 "), std::string::npos) << first.err;
  EXPECT_NE(r.err.find("levels 50..50"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("are losing too (one in 10)"), std::string::npos) << r.err;
  // The sample's seed is printed, drawn afresh each run unless given; a
  // seed given checks the same positions again.
  EXPECT_NE(r.err.find("samples: one position of each stride, with seed "), std::string::npos) << r.err;
  const std::vector<std::string> seeded{"verify", finished_run(), "--from", "50", "--every", "7", "--moves", "9",
                                        "--seed", "42", "-t", "1"};
  const ProcessResult once = run_chomp(seeded), again = run_chomp(seeded);
  EXPECT_EQ(once.exit_code, 0) << once.err;
  EXPECT_EQ(once.out, again.out);
  EXPECT_NE(once.err.find("with seed 42 (--seed 42 checks the same ones again"), std::string::npos) << once.err;
}

TEST(Verify, ChecksTheRuleMoveByMove) {
  const ProcessResult r = run_chomp({"verify", finished_run(), "--from", "40", "--moves", "3", "-t", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const LevelTable t = read_level_file(finished_run());
  for (int n = 40; n <= kFinishedRunLevels; ++n) {
    const std::uint64_t losing = t.losing[static_cast<std::size_t>(n - 1)];
    const std::uint64_t positions = t.positions[static_cast<std::size_t>(n - 1)];
    // tiles, losing, transposed, by moves (a third of the losing positions
    // and a third of the ranks, rounded up), result
    EXPECT_EQ(verify_row(r.out, n),
              (std::vector<std::string>{std::to_string(n), std::to_string(losing), std::to_string(losing),
                                        std::to_string((losing + 2) / 3 + (positions + 2) / 3),
                                        std::to_string(three_row_positions(n).size()), "ok"}))
        << r.out;
  }
  EXPECT_TRUE(verify_row(r.out, 39).empty()) << r.out;
  EXPECT_NE(r.err.find("one in 3) are losing exactly when no move leads to a losing position"), std::string::npos)
      << r.err;

  // A losing rank in the middle of level 45 moved up by one, where the
  // transposition check looks only at the level's first losing position
  // (--seed 0: the first of each stride): the rule alone finds it, as a
  // winning position stored as losing.
  ScratchDir dir;
  const std::string path = dir.file("moved.h5");
  copy_run(finished_run(), path);
  const std::uint64_t moved_rank = move_one_losing_rank(path, 45, 0.5);
  const ProcessResult moved =
      run_chomp({"verify", path, "--from", "45", "--to", "45", "--every", "1000000", "--moves", "1", "--seed", "0"});
  EXPECT_EQ(moved.exit_code, 1) << moved.err;
  const std::vector<std::string> row = verify_row(moved.out, 45);
  ASSERT_GE(row.size(), 7U) << moved.out;
  EXPECT_EQ(row[2], "1") << moved.out;  // one losing position transposed, and it passed
  EXPECT_NE(moved.out.find("(rank " + std::to_string(moved_rank) + ") is stored as losing but has a move to a "
                           "losing position"),
            std::string::npos)
      << moved.out;
  EXPECT_NE(moved.err.find("1 of levels 45..45 failed"), std::string::npos) << moved.err;
}

TEST(Verify, RefusesFilesWithoutAStoreAndLevelsPastTheEnd) {
  ScratchDir dir;
  const std::string levels_only = dir.file("levels-only.h5");
  std::filesystem::copy_file(finished_run(), levels_only);
  const ProcessResult r = run_chomp({"verify", levels_only});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("base.store is missing"), std::string::npos) << r.err;
  const ProcessResult past = run_chomp({"verify", finished_run(), "--from", "51"});
  EXPECT_EQ(past.exit_code, 2);
  EXPECT_NE(past.err.find("past the file's last level (50)"), std::string::npos) << past.err;
  // --to past the end checks through the end, and says so.
  const ProcessResult beyond = run_chomp({"verify", finished_run(), "--from", "50", "--to", "51", "--no-moves"});
  EXPECT_EQ(beyond.exit_code, 0) << beyond.err;
  EXPECT_NE(beyond.err.find("note: --to 51 is past the file's last level (50): levels through 50 are checked"),
            std::string::npos)
      << beyond.err;
  const ProcessResult both = run_chomp({"verify", finished_run(), "--no-moves", "--moves", "5"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--moves excludes --no-moves"), std::string::npos) << both.err;
  const ProcessResult backwards = run_chomp({"verify", finished_run(), "--from", "30", "--to", "20"});
  EXPECT_EQ(backwards.exit_code, 2);
  EXPECT_NE(backwards.err.find("--to 20 is below --from 30"), std::string::npos) << backwards.err;
}

// The file's own copy of the losing positions (--store-losing) is checked
// against the store as a set: one word changed to another level-7 position
// that is winning fails level 7, naming the dataset; the other levels pass.
TEST(Verify, ComparesTheFilesStoredLosingPositionsWithTheStore) {
  ScratchDir dir;
  const std::string path = dir.file("kept.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "20", "--store-losing", "10", "-q", "-o", path}).exit_code, 0);
  ASSERT_EQ(run_chomp({"verify", path}).exit_code, 0);
  {
    RawFile raw(path);
    auto words = raw.read<std::uint64_t>("losing_positions/level_007", H5T_NATIVE_UINT64);
    ASSERT_EQ(words.size(), 3u);  // L(7) = 3
    words[0] = LatticePath::from_rows(Rows{7}).word();  // a single row of 7: winning (take all but the poison)
    raw.write("losing_positions/level_007", H5T_NATIVE_UINT64, words);
  }
  const ProcessResult r = run_chomp({"verify", path});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::vector<std::string> row = verify_row(r.out, 7);
  ASSERT_FALSE(row.empty()) << r.out;
  EXPECT_NE(row.back(), "ok") << r.out;
  EXPECT_NE(r.out.find("/losing_positions/level_007 holds 3 positions that are not the store's 3 losing ones"),
            std::string::npos) << r.out;
  for (int n : {6, 8, 10}) EXPECT_EQ(verify_row(r.out, n).back(), "ok") << r.out;
}

// A resume checks the same: it copies the file's losing positions into the
// file it marks complete, so a copy edited to another position of its level
// (the count unchanged) is refused, and the file is left as it was.
TEST(Verify, AResumeRefusesStoredLosingPositionsThatAreNotTheStores) {
  ScratchDir dir;
  const std::string path = dir.file("kept.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "20", "--store-losing", "10", "-q", "-o", path}).exit_code, 0);
  {
    RawFile raw(path);
    auto words = raw.read<std::uint64_t>("losing_positions/level_007", H5T_NATIVE_UINT64);
    ASSERT_EQ(words.size(), 3u);
    words[0] = LatticePath::from_rows(Rows{7}).word();  // winning, and of level 7
    raw.write("losing_positions/level_007", H5T_NATIVE_UINT64, words);
  }
  const std::string before = read_text(path);
  const ProcessResult r = run_chomp({"sieve", "--resume", "-n", "21", "-q", "-o", path});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("its /losing_positions/level_007 holds positions that are not the store's losing ones of "
                       "level 7 (damaged file)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_text(path), before);
}
