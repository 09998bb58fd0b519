/// @file test_sieve_runs.cpp
/// @brief Whole runs of `chomp sieve` as a user starts them: the same files
/// whatever the thread count, and the committed table's levels to 100.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "chomp/h5_output.hpp"
#include "chomp_process.hpp"
#include "committed_data.hpp"

using namespace chomp;
using chomp::testing::ProcessResult;
using chomp::testing::run_chomp;
using chomp::testing::ScratchDir;

namespace {

/// The store's header: the run's id and its checksum, different in every run.
constexpr std::size_t kStoreHeader = 64;

}  // namespace

TEST(SieveRuns, OneTwoAndThreeThreadsWriteTheSameLevelsAndStore) {
  // To 80 with the default options (the first two rows' moves inferred):
  // every column of the level table but the times, and the store's bytes
  // after its header, are the same with 1, 2 and 3 threads.
  ScratchDir dir;
  std::vector<LevelTable> tables;
  std::vector<std::string> stores;
  for (const int threads : {1, 2, 3}) {
    const std::string out = dir.file(std::string("t") + std::to_string(threads) + ".h5");
    const ProcessResult r = run_chomp({"sieve", "-n", "80", "-t", std::to_string(threads), "-q", "-o", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    tables.push_back(read_level_file(out));
    stores.push_back(chomp::testing::read_text(LevelFileReader(out).store_path()).substr(kStoreHeader));
    EXPECT_EQ(tables.back().number_attributes.at("threads"), threads);
  }
  ASSERT_EQ(tables[0].tiles.size(), 80U);
  EXPECT_GT(stores[0].size(), 500'000U);
  for (std::size_t i = 1; i < tables.size(); ++i) {
    SCOPED_TRACE(std::to_string(i + 1) + " threads against 1");
    EXPECT_EQ(tables[i].tiles, tables[0].tiles);
    EXPECT_EQ(tables[i].positions, tables[0].positions);
    EXPECT_EQ(tables[i].losing_fraction, tables[0].losing_fraction);
    EXPECT_EQ(tables[i].hypothesis_ratio.size(), tables[0].hypothesis_ratio.size());
    for (std::size_t n = 1; n < tables[0].hypothesis_ratio.size(); ++n)  // (n = 1: NaN)
      EXPECT_EQ(tables[i].hypothesis_ratio[n], tables[0].hypothesis_ratio[n]) << "n = " << n + 1;
    EXPECT_EQ(tables[i].losing, tables[0].losing);
    EXPECT_EQ(tables[i].marks, tables[0].marks);
    EXPECT_EQ(tables[i].losing_digest, tables[0].losing_digest);
    EXPECT_EQ(tables[i].store_trailer, tables[0].store_trailer);
    EXPECT_EQ(tables[i].slices, tables[0].slices);
    EXPECT_TRUE(stores[i] == stores[0]) << "the stores differ after their headers";
  }
}

TEST(SieveRuns, LevelsTo100AreTheCommittedTables) {
  // The committed table (data/, from runs that filed every mark) to 100:
  // the default run has its losing positions (count and digest of the
  // ranks) with fewer marks, and a run with --file-all-marks its marks too.
  const LevelTable committed = read_level_file(chomp::testing::committed_levels_file("h5"));
  ASSERT_GE(committed.tiles.size(), 100U);
  // (A table from a run that inferred some moves has other marks.)
  const auto inferred = committed.text_attributes.find("inferred_marks");
  ASSERT_TRUE(inferred == committed.text_attributes.end() || inferred->second == "none")
      << "the committed table's run inferred the moves of " << inferred->second;
  ScratchDir dir;
  for (const bool all_marks : {false, true}) {
    SCOPED_TRACE(all_marks ? "--file-all-marks" : "default");
    const std::string out = dir.file(all_marks ? "all.h5" : "default.h5");
    std::vector<std::string> args{"sieve", "-n", "100", "-t", "2", "-q", "-o", out};
    if (all_marks) args.push_back("--file-all-marks");
    const ProcessResult r = run_chomp(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const LevelTable done = read_level_file(out);
    ASSERT_TRUE(done.complete());
    ASSERT_EQ(done.tiles.size(), 100U);
    std::uint64_t marks = 0, committed_marks = 0;
    for (std::size_t i = 0; i < 100; ++i) {
      EXPECT_EQ(done.losing[i], committed.losing[i]) << "n = " << i + 1;
      EXPECT_EQ(done.losing_digest[i], committed.losing_digest[i]) << "n = " << i + 1;
      if (all_marks) {
        EXPECT_EQ(done.marks[i], committed.marks[i]) << "n = " << i + 1;
      }
      marks += done.marks[i];
      committed_marks += committed.marks[i];
    }
    if (!all_marks) {
      // The moves of the first two rows come from bits: about 0.6 of the marks.
      EXPECT_LT(marks, committed_marks * 7 / 10);
      EXPECT_GT(marks, committed_marks / 2);
    }
  }
}
