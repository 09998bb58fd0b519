/// @file test_damaged_files.cpp
/// @brief `chomp sieve --resume` and `chomp verify` on damaged, foreign and
/// tampered result files and stores: each is refused with a clear message
/// and left as it was; the traces a kill leaves (a level cut off in the
/// store, a half-appended row) are ignored.

#include <gtest/gtest.h>

#include <hdf5.h>
#include <zlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "chomp/h5_output.hpp"
#include "chomp/three_rows.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/resume.hpp"
#include "chomp_process.hpp"
#include "damaged_files.hpp"

using namespace chomp;
using namespace chomp::testing;

namespace {

struct Outcome {
  ProcessResult result;
  bool unchanged = false;
};

/// Resumes `path` and reports whether the result file and its store were
/// left byte for byte as they were.
Outcome resume(const std::string& path) {
  const std::string store = store_path_for(path);
  const std::string before = read_text(path), store_before = read_text(store);
  Outcome o;
  o.result = run_chomp({"sieve", "--resume", "-q", "-o", path});
  o.unchanged = read_text(path) == before && read_text(store) == store_before;
  EXPECT_FALSE(std::filesystem::exists(path + ".partial")) << "a refused resume leaves no .partial";
  return o;
}

void expect_refused(const Outcome& o, const std::string& says) {
  EXPECT_EQ(o.result.exit_code, 1) << o.result.err;
  EXPECT_NE(o.result.err.find(says), std::string::npos) << o.result.err;
  EXPECT_NE(o.result.err.find("cannot resume"), std::string::npos) << o.result.err;
  // One line says why (after the plan's line).
  EXPECT_EQ(o.result.err.find("chomp: "), o.result.err.rfind("chomp: ")) << o.result.err;
  EXPECT_EQ(o.result.err.back(), '\n');
  EXPECT_TRUE(o.unchanged);
}

class DamagedFile : public ::testing::Test {
 protected:
  // The finished run, marked as not finished: a resume then reads and
  // checks every level (a complete file has nothing to resume).
  void SetUp() override {
    path_ = dir_.file("run.h5");
    copy_run(finished_run(), path_);
    RawFile(path_).set_int_attribute("complete", 0);
  }
  std::string store() const { return store_path_for(path_); }
  ScratchDir dir_;
  std::string path_;
};

}  // namespace

TEST_F(DamagedFile, TruncatedFileIsRefused) {
  std::filesystem::resize_file(path_, std::filesystem::file_size(path_) / 2);
  expect_refused(resume(path_), "truncated");
}

TEST_F(DamagedFile, EmptyOrForeignFilesAreRefused) {
  std::filesystem::resize_file(path_, 0);
  expect_refused(resume(path_), "not an HDF5 file");
  std::ofstream(path_) << "tiles,positions,losing\n1,1,1\n";
  expect_refused(resume(path_), "not an HDF5 file");

  // An HDF5 file that some other program wrote.
  std::filesystem::remove(path_);
  const hid_t f = H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t n = 3;
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  H5Dclose(H5Dcreate2(f, "levels", H5T_STD_U64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Sclose(space);
  H5Fclose(f);
  expect_refused(resume(path_), "not a chomp result");
}

TEST_F(DamagedFile, FlippedByteInTheTableFailsTheChecksum) {
  std::pair<haddr_t, hsize_t> chunk;
  {
    RawFile raw(path_);
    chunk = raw.chunk("levels/losing", 29);  // one row per chunk: level 30
  }
  flip_byte(path_, chunk.first + 2);
  expect_refused(resume(path_), "Fletcher32");
  // The project's reader reports it too.
  try {
    read_level_file(path_);
    ADD_FAILURE() << "read_level_file accepted a damaged file";
  } catch (const H5Error& e) {
    EXPECT_NE(std::string(e.what()).find("Fletcher32"), std::string::npos) << e.what();
  }
}

TEST_F(DamagedFile, OtherFormatVersionsAreRefused) {
  { RawFile(path_).set_int_attribute("format_version", 2); }
  expect_refused(resume(path_), "format_version 2 (its losing ranks are not in a store file)");
  EXPECT_EQ(read_level_file(path_).tiles.size(), static_cast<std::size_t>(kFinishedRunLevels)) << "version 2 is still read";
  { RawFile(path_).set_int_attribute("format_version", 99); }
  expect_refused(resume(path_), "format_version 99");
}

TEST_F(DamagedFile, StoredPositionCountThatContradictsTheEngineIsRefused) {
  {
    RawFile raw(path_);
    auto positions = raw.read<std::uint64_t>("levels/positions", H5T_NATIVE_UINT64);
    positions[29] += 1;
    raw.write("levels/positions", H5T_NATIVE_UINT64, positions);
  }
  expect_refused(resume(path_), "p(30) = 5605 but the engine computes 5604");
}

TEST_F(DamagedFile, MissingStoreIsRefused) {
  std::filesystem::remove(store());
  const Outcome o = [&] {
    const std::string before = read_text(path_);
    Outcome out;
    out.result = run_chomp({"sieve", "--resume", "-q", "-o", path_});
    out.unchanged = read_text(path_) == before && !std::filesystem::exists(store());
    return out;
  }();
  expect_refused(o, "base.store is missing");
}

TEST_F(DamagedFile, TruncatedStoreIsRefused) {
  // Cut inside level 40's blocks: the trailers of levels 40..50 are gone.
  const std::uint64_t trailer = store_of(path_)->record(40).trailer;
  std::filesystem::resize_file(store(), trailer - 10);
  expect_refused(resume(path_), "level 40's trailer at byte");
}

TEST_F(DamagedFile, StoreOfAnotherRunIsRefused) {
  ScratchDir other;
  const std::string path = other.file("other.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", std::to_string(kFinishedRunLevels), "-q", "-o", path}).exit_code, 0);
  std::filesystem::copy_file(store_path_for(path), store(), std::filesystem::copy_options::overwrite_existing);
  expect_refused(resume(path_), "belongs to another run");
}

TEST_F(DamagedFile, FlippedByteInABlockFailsItsChecksum) {
  const auto s = store_of(path_);
  const StoreBlock b = s->blocks(45)[0];
  flip_byte(store(), b.offset + b.bytes / 2);
  expect_refused(resume(path_), "level 45, block 0 (ranks ");
  EXPECT_NE(resume(path_).result.err.find("fails its checksum"), std::string::npos);
}

// A block changed with its checksum, and its trailer's, made anew (as a
// writer that knows the format could): the ranks no longer add up to the
// level's digest, or no longer decode to the block's last rank.
TEST_F(DamagedFile, ABlockChangedWithItsChecksumsMadeAnewIsFound) {
  const StoredLevel rec = store_of(path_)->record(45);
  const StoreBlock b = store_of(path_)->blocks(45)[0];
  const std::size_t blocks = store_of(path_)->blocks(45).size();
  ASSERT_GT(b.bytes, 8u);
  std::vector<std::uint8_t> bytes(b.bytes);
  {
    std::ifstream in(store(), std::ios::binary);
    in.seekg(static_cast<std::streamoff>(b.offset));
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  bytes[bytes.size() / 3] ^= 0x10;
  write_bytes(store(), b.offset, bytes.data(), bytes.size());
  // The block's CRC sits in its index entry (the trailer's 40-byte entries
  // start 176 bytes in, CRC at 32), the trailer's CRC after the entries.
  const std::uint32_t crc = static_cast<std::uint32_t>(crc32_z(0, bytes.data(), bytes.size()));
  write_bytes(store(), rec.trailer + 176 + 32, &crc, sizeof crc);
  const std::size_t trailer_bytes = 176 + 40 * blocks;
  std::vector<std::uint8_t> trailer(trailer_bytes);
  {
    std::ifstream in(store(), std::ios::binary);
    in.seekg(static_cast<std::streamoff>(rec.trailer));
    in.read(reinterpret_cast<char*>(trailer.data()), static_cast<std::streamsize>(trailer.size()));
  }
  const std::uint32_t tcrc = static_cast<std::uint32_t>(crc32_z(0, trailer.data(), trailer.size()));
  write_bytes(store(), rec.trailer + trailer_bytes, &tcrc, sizeof tcrc);
  const Outcome o = resume(path_);
  EXPECT_EQ(o.result.exit_code, 1) << o.result.err;
  EXPECT_TRUE(o.result.err.find("does not hold the losing positions its digest names") != std::string::npos ||
              o.result.err.find("does not decode to its ranks") != std::string::npos ||
              o.result.err.find("do not increase") != std::string::npos)
      << o.result.err;
  EXPECT_NE(o.result.err.find("level 45"), std::string::npos) << o.result.err;
}

// A result file whose rows name another digest than the store holds (its
// own checksums made anew by HDF5): refused before any level is read.
TEST_F(DamagedFile, ADigestThatDisagreesWithTheStoreIsRefused) {
  {
    RawFile raw(path_);
    auto digests = raw.read<std::uint64_t>("levels/losing_digest", H5T_NATIVE_UINT64);
    digests[39] ^= 1;
    raw.write("levels/losing_digest", H5T_NATIVE_UINT64, digests);
  }
  expect_refused(resume(path_), "level 40 holds");
}

// A consistent result file and store with one losing rank moved: the
// resume cannot tell (the digests agree with the ranks), but verify finds
// it from the rule.
TEST(Verify, FindsOneWrongLosingRankThatEveryChecksumVouchesFor) {
  ScratchDir dir;
  const std::string path = dir.file("moved.h5");
  copy_run(finished_run(), path);
  move_one_losing_rank(path, 45);
  const ProcessResult r = run_chomp({"verify", path});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("1 of levels 1..50 failed"), std::string::npos) << r.err;
}

// What a kill leaves: a level cut off in the store after the last row, and
// a row appended to only some columns. Both are ignored, the level is
// computed again, and the result is the uninterrupted run's.
TEST_F(DamagedFile, TracesOfAKillAreIgnored) {
  {
    RawFile raw(path_);
    // Drop the last row from every column but tiles: a half-appended row.
    for (const char* name : {"levels/positions", "levels/losing", "levels/marks", "levels/store_trailer",
                             "levels/losing_digest"}) {
      auto v = raw.read<std::uint64_t>(name, H5T_NATIVE_UINT64);
      v.pop_back();
      raw.write(name, H5T_NATIVE_UINT64, v);
    }
    for (const char* name : {"levels/losing_fraction", "levels/hypothesis_ratio", "levels/seconds",
                             "levels/window_seconds"}) {
      auto v = raw.read<double>(name, H5T_NATIVE_DOUBLE);
      v.pop_back();
      raw.write(name, H5T_NATIVE_DOUBLE, v);
    }
  }
  // And half a level more in the store.
  { std::ofstream(store(), std::ios::app | std::ios::binary) << std::string(5000, 'x'); }
  const Outcome o = resume(path_);
  EXPECT_EQ(o.result.exit_code, 0) << o.result.err;
  EXPECT_NE(o.result.err.find("levels 1..49 checked"), std::string::npos) << o.result.err;
  const LevelFileReader done(path_), ref(finished_run());
  EXPECT_TRUE(done.table().complete());
  EXPECT_EQ(done.table().losing, ref.table().losing);
  EXPECT_EQ(done.table().marks, ref.table().marks);
  EXPECT_EQ(done.table().losing_digest, ref.table().losing_digest);
  EXPECT_EQ(std::filesystem::file_size(store()), std::filesystem::file_size(store_path_for(finished_run())))
      << "the cut-off level's bytes are gone";
}

namespace {

/// In-process: a run to max_tiles stopped after `levels` levels, with its
/// store beside it.
void write_interrupted_run(const std::string& path, int max_tiles, int levels) {
  Provenance prov;
  prov.max_tiles = max_tiles;
  prov.run_id = new_run_id();
  prov.store_file = std::filesystem::path(store_path_for(path)).filename().string();
  const auto store = LosingStore::create(store_path_for(path), prov.run_id);
  LevelFileWriter out(path, prov);
  Sieve sieve(max_tiles, *store, SieveOptions{});
  for (int n = 1; n <= levels; ++n) save_level(out, sieve, sieve.next_level());
  out.finish("interrupted");
}

}  // namespace

// In-process: levels without losing positions (L(2) = L(4) = 0) as the last
// finished ones.
TEST(ResumeLibrary, RunsStoppedRightAfterLevelsWithoutLosingPositions) {
  ScratchDir dir;
  for (int stop_after : {2, 4}) {
    const std::string path = dir.file("stop" + std::to_string(stop_after) + ".h5");
    write_interrupted_run(path, 12, stop_after);
    Resume resume(ResumeRequest{path, 0, -1});
    EXPECT_EQ(resume.state().levels, stop_after);
    const std::string continued = path + ".continued";
    LevelFileWriter out(continued, resume.state().provenance);
    const auto store = resume.open_store(true);
    resume.restore(*store, out);
    Sieve sieve(12, *store, SieveOptions{});
    EXPECT_EQ(sieve.levels_done(), stop_after);
    sieve.run([&](const LevelResult& r) { save_level(out, sieve, r); });
    out.finish("complete");
    const LevelTable t = read_level_file(continued);
    const std::vector<std::uint64_t> expected{1, 0, 1, 0, 3, 0, 3, 2, 5, 2, 3, 10};  // small_counts.csv
    EXPECT_EQ(t.losing, expected);
  }
}

// In-process: a stop while levels are being checked is obeyed at once (a
// resume reads the whole store back, a minute at n = 170), and every level
// is reported as it goes.
TEST(ResumeLibrary, StopsWhileCheckingLevelsAndReportsEachOne) {
  ScratchDir dir;
  const std::string path = dir.file("stopped.h5");
  write_interrupted_run(path, 20, 15);
  Resume resume(ResumeRequest{path, 0, -1});
  ASSERT_EQ(resume.state().levels, 15);
  const auto store = resume.open_store(false);
  {
    LevelFileWriter out(path + ".whole", resume.state().provenance);
    std::vector<int> reported;
    resume.restore(*store, out, [&](int n) { reported.push_back(n); });
    EXPECT_EQ(reported.size(), 15U);
    EXPECT_EQ(reported.back(), 15);
    EXPECT_EQ(out.rows(), 15U);
  }
  // The flag raised while level 6 is checked: restoring stops before level 7.
  LevelFileWriter out(path + ".stopped", resume.state().provenance);
  std::atomic<bool> stop{false};
  int last = 0;
  EXPECT_THROW(resume.restore(*store, out, [&](int n) {
    last = n;
    if (n == 6) stop = true;
  }, &stop), SieveInterrupted);
  EXPECT_EQ(last, 6);
  EXPECT_EQ(out.rows(), 6U);
}

// `chomp verify` checks a file's levels without the sieve.

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

}  // namespace

/// How many of `count` items a default sample of about 500 checks: every
/// one up to 500, else one in ceil(count / 500), the first of each.
std::uint64_t default_sample(std::uint64_t count) {
  const std::uint64_t every = count <= 500 ? 1 : (count + 499) / 500;
  return (count + every - 1) / every;
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
  // transposition check looks only at the level's first losing position:
  // the rule alone finds it, as a winning position stored as losing.
  ScratchDir dir;
  const std::string path = dir.file("moved.h5");
  copy_run(finished_run(), path);
  const std::uint64_t moved_rank = move_one_losing_rank(path, 45, 0.5);
  const ProcessResult moved =
      run_chomp({"verify", path, "--from", "45", "--to", "45", "--every", "1000000", "--moves", "1"});
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
  const ProcessResult backwards = run_chomp({"verify", finished_run(), "--from", "30", "--to", "20"});
  EXPECT_EQ(backwards.exit_code, 2);
  EXPECT_NE(backwards.err.find("--to 20 is below --from 30"), std::string::npos) << backwards.err;
}
