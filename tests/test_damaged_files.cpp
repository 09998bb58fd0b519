/// @file test_damaged_files.cpp
/// @brief `chomp sieve --resume` on damaged, foreign and tampered result
/// files and stores: each is refused with a clear message and left as it
/// was; the traces a kill leaves (a level cut off in the store, a
/// half-appended row) are ignored.

#include <gtest/gtest.h>

#include <hdf5.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp_process.hpp"
#include "committed_data.hpp"
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

/// A resume that went on to the end: its levels are the finished run's.
void expect_the_finished_runs_levels(const std::string& path) {
  const LevelFileReader done(path), ref(finished_run());
  EXPECT_TRUE(done.table().complete());
  EXPECT_EQ(done.table().losing, ref.table().losing);
  EXPECT_EQ(done.table().marks, ref.table().marks);
  EXPECT_EQ(done.table().losing_fraction, ref.table().losing_fraction);
  EXPECT_EQ(done.table().losing_digest, ref.table().losing_digest);
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

// A status no writer makes (LevelFileWriter::finish refuses one; a hand
// edit or damage): every reader refuses the file, resume and show alike.
TEST_F(DamagedFile, AStatusNoWriterMakesIsRefused) {
  set_attribute(path_, "status", text_value("bogus"));
  const std::string says = "its status \"bogus\" is none of complete, interrupted, failed or running (damaged file)";
  expect_refused(resume(path_), says);
  const ProcessResult shown = run_chomp({"show", path_});
  EXPECT_EQ(shown.exit_code, 1) << shown.err;
  EXPECT_TRUE(contains(shown.err, says)) << shown.err;
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
    // As an incompatible program would write it: p(30) wrong, and the
    // fraction and ratio computed from it.
    RawFile raw(path_);
    const auto positions = raw.read<std::uint64_t>("levels/positions", H5T_NATIVE_UINT64);
    const auto losing = raw.read<std::uint64_t>("levels/losing", H5T_NATIVE_UINT64);
    raw.set_counts(29, positions[29] + 1, losing[29]);
  }
  expect_refused(resume(path_), "p(30) = 5605 but the engine computes 5604");
}

// A derived column rewritten through HDF5 (so its checksum holds) that
// disagrees with its level's counts: the fraction or the ratio a reader
// looks at first would be wrong in a table that looks whole. Every reader of
// the table refuses it, naming the level, the column and both values, and
// leaves the file as it was.
TEST_F(DamagedFile, ADerivedColumnThatDisagreesWithItsCountsIsRefused) {
  // A copy of the finished run, marked unfinished as path_ is.
  const auto fresh = [&](const std::string& name) {
    const std::string path = dir_.file(name);
    copy_run(finished_run(), path);
    RawFile(path).set_int_attribute("complete", 0);
    return path;
  };
  for (const std::string column : {"losing_fraction", "hypothesis_ratio"}) {
    const std::string path = fresh(column + ".h5");
    {
      RawFile raw(path);
      const std::string name = "levels/" + column;
      auto values = raw.read<double>(name.c_str(), H5T_NATIVE_DOUBLE);
      values[19] *= 1.5;  // level 20
      raw.write(name.c_str(), H5T_NATIVE_DOUBLE, values);
    }
    const std::string edited = read_text(path);
    const std::string disagrees = column + " = ", with = " disagrees with L = 42, p = 627, which give ";
    expect_refused(resume(path), "level 20 (row 20): " + disagrees);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"show", path}, {"show", "--csv", path}, {"grundy", "-n", "25", "-q", "-o",
                                                                             dir_.file("g.h5"), "--check-sieve", path}}) {
      const ProcessResult r = run_chomp(args);
      EXPECT_NE(r.exit_code, 0) << args[0] << ": " << r.err;
      EXPECT_NE(r.err.find("level 20 (row 20): " + disagrees), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(with), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("one of them is wrong"), std::string::npos) << r.err;
      EXPECT_EQ(r.out, "") << args[0] << " printed the table it refused";
    }
    // verify, with the store, says which: L and p are right, the column is
    // not; the other levels pass.
    const ProcessResult v = run_chomp({"verify", "--finished", "--from", "19", "--to", "21", path});
    EXPECT_EQ(v.exit_code, 1) << v.err;
    EXPECT_NE(v.out.find(disagrees), std::string::npos) << v.out;
    EXPECT_NE(v.out.find(with), std::string::npos) << v.out;
    EXPECT_NE(v.out.find("so the column is wrong"), std::string::npos) << v.out;
    EXPECT_NE(v.err.find("1 of levels 19..21 failed the check"), std::string::npos) << v.err;
    EXPECT_EQ(read_text(path), edited) << "left as it was";
  }
  // More losing positions than positions, with the fraction and the ratio
  // to match.
  const std::string more = fresh("more.h5");
  { RawFile(more).set_counts(19, 627, 628); }
  const ProcessResult shown = run_chomp({"show", more});
  EXPECT_EQ(shown.exit_code, 1) << shown.err;
  EXPECT_NE(shown.err.find("level 20 (row 20): has more losing positions (628) than positions (627)"),
            std::string::npos) << shown.err;
  // The untouched copy reads as it did.
  EXPECT_EQ(run_chomp({"show", path_}).exit_code, 0);
}

// A last row whose write failed part way (its store trailer reads 0, and so
// may every other column, p included) is no level: its columns are not
// checked, show reads the levels before it, and --resume computes it again.
TEST_F(DamagedFile, ALastRowWrittenInPartIsNotCheckedAndIsComputedAgain) {
  const std::size_t last = kFinishedRunLevels - 1;
  {
    RawFile raw(path_);
    for (const char* name : {"levels/positions", "levels/losing", "levels/marks", "levels/store_trailer",
                             "levels/losing_digest"}) {
      auto v = raw.read<std::uint64_t>(name, H5T_NATIVE_UINT64);
      v[last] = 0;
      raw.write(name, H5T_NATIVE_UINT64, v);
    }
    auto fraction = raw.read<double>("levels/losing_fraction", H5T_NATIVE_DOUBLE);
    fraction[last] = 0.5;  // never written, or half: anything
    raw.write("levels/losing_fraction", H5T_NATIVE_DOUBLE, fraction);
  }
  const ProcessResult shown = run_chomp({"show", path_});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_TRUE(contains(shown.out, ": 49 levels, status ")) << shown.out;
  EXPECT_TRUE(contains(shown.out + shown.err, "was written only in part")) << shown.out << shown.err;
  const Outcome o = resume(path_);
  EXPECT_EQ(o.result.exit_code, 0) << o.result.err;
  EXPECT_NE(o.result.err.find("was written only in part"), std::string::npos) << o.result.err;
  expect_the_finished_runs_levels(path_);
}

// A value that no finished level of such a file holds, written with its
// checksum (as a damaged chunk index makes HDF5 read the fill value 0, or
// another chunk's value, with a checksum that holds): the row's level,
// 0 slices, a store trailer of 0 before the last row, a losing digest of 0
// for a level with losing positions, marks of 0 from level 10 on. Each is
// refused by show and by --resume, naming the row.
TEST_F(DamagedFile, AValueThatNoFinishedLevelHoldsIsRefused) {
  struct Case {
    const char* column;
    hid_t type;
    std::uint64_t value;
    const char* says;
  };
  for (const Case& c : {Case{"levels/tiles", H5T_NATIVE_UINT32, 0, "row 30 of /levels is for level 0, not 30"},
                        Case{"levels/slices", H5T_NATIVE_UINT32, 0, "row 30 of /levels says the level was finished in 0 slices"},
                        Case{"levels/store_trailer", H5T_NATIVE_UINT64, 0, "row 30 of /levels has store_trailer 0"},
                        Case{"levels/losing_digest", H5T_NATIVE_UINT64, 0,
                             "row 30 of /levels has losing_digest 0 for 220 losing positions"},
                        Case{"levels/marks", H5T_NATIVE_UINT64, 0, "row 30 of /levels has marks 0, which no level from 10"}}) {
    SCOPED_TRACE(c.column);
    const std::string path = dir_.file(std::string(c.column + 7) + ".h5");
    copy_run(finished_run(), path);
    {
      RawFile raw(path);
      raw.set_int_attribute("complete", 0);
      if (c.type == H5T_NATIVE_UINT32) {
        auto v = raw.read<std::uint32_t>(c.column, c.type);
        v[29] = static_cast<std::uint32_t>(c.value);
        raw.write(c.column, c.type, v);
      } else {
        auto v = raw.read<std::uint64_t>(c.column, c.type);
        v[29] = c.value;
        raw.write(c.column, c.type, v);
      }
    }
    const ProcessResult shown = run_chomp({"show", path});
    EXPECT_EQ(shown.exit_code, 1) << shown.err;
    EXPECT_NE(shown.err.find(c.says), std::string::npos) << shown.err;
    EXPECT_NE(shown.err.find("a damaged file: use an undamaged copy"), std::string::npos) << shown.err;
    expect_refused(resume(path), c.says);
  }
}

// A damaged chunk index passes every checksum: a chunk the index lost reads
// as the fill value, 0, and one it points at another chunk as that chunk's
// value, each with a checksum that holds. The committed table (an index of
// version-1 B-trees, as h5repack writes it, with no checksum of its own)
// with its entry for level 133's seconds pointed at level 133's
// window_seconds (0), and nowhere: both refused, naming the column.
TEST(DamagedChunkIndex, AChunkLostOrSharedIsRefused) {
  const std::string committed = committed_levels_file("h5");
  ASSERT_FALSE(committed.empty());
  ScratchDir dir;
  haddr_t seconds = 0, window = 0;
  {
    const std::string probe = dir.file("probe.h5");
    std::filesystem::copy_file(committed, probe);
    RawFile raw(probe);
    seconds = raw.chunk("levels/seconds", 132).first;
    window = raw.chunk("levels/window_seconds", 132).first;
    ASSERT_EQ(raw.read<double>("levels/window_seconds", H5T_NATIVE_DOUBLE)[132], 0.0);
  }
  const std::string bytes = read_text(committed);
  const std::string key(reinterpret_cast<const char*>(&seconds), sizeof seconds);  // little-endian, as the file
  const std::size_t at = bytes.find(key);
  ASSERT_NE(at, std::string::npos) << "the chunk's address is not in the file's bytes";
  ASSERT_EQ(bytes.find(key, at + 1), std::string::npos) << "the chunk's address is in the file twice";
  const haddr_t nowhere = HADDR_UNDEF;
  for (const auto& [name, address, says] :
       {std::tuple{"shared.h5", window, std::string("two of its chunks are indexed at the same place in the file")},
        std::tuple{"lost.h5", nowhere, "/levels/seconds from " + dir.file("lost.h5") +
                                           ": its chunk of the rows from row 133 is missing from its chunk index"}}) {
    const std::string path = dir.file(name);
    std::filesystem::copy_file(committed, path);
    write_bytes(path, at, &address, sizeof address);
    const ProcessResult shown = run_chomp({"show", path});
    EXPECT_EQ(shown.exit_code, 1) << name << ": " << shown.err;
    EXPECT_NE(shown.err.find(says), std::string::npos) << name << ": " << shown.err;
    EXPECT_EQ(shown.out, "") << name;
  }
  EXPECT_EQ(run_chomp({"show", committed}).exit_code, 0);
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

// A killed run's file (status running, no writer): show gives the command
// that continues it with the latest leg's options, read from the last line
// of resume_history (two forms of it), else command_line; options written
// --opt=value or as short options grouped (-qt3) come out whole, and a
// history line of neither form carries none (not the first leg's).
TEST(KilledRun, ShowGivesTheCommandWithTheLatestLegsOptions) {
  ScratchDir dir;
  const std::string path = dir.file("killed.h5");
  copy_run(finished_run(), path);
  RawFile(path).set_int_attribute("complete", 0);
  set_attribute(path, "status", text_value("running"));
  set_attribute(path, "command_line", text_value("chomp sieve -n 50 -qt3 --memory-limit=64M -o x.h5"));
  const auto says = [&](const std::string& options) {
    const ProcessResult r = run_chomp({"show", path});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(" --output " + path + options + " --resume continues it)"), std::string::npos)
        << options << "\n" << r.out.substr(0, 600);
  };
  says(" --threads 3 --memory-limit 64M");
  set_attribute(path, "resume_history",
                text_value("2026-12-01T00:00:00Z: restored levels 1..20 with 2 threads (chomp 0.2.0, revision "
                           "0123456789ab): chomp sieve -o x.h5 --resume -t 2 --file-all-marks\n"));
  says(" --threads 2 --file-all-marks");
  set_attribute(path, "resume_history",
                text_value("2026-12-01T00:00:00Z: restored levels 1..20 with 1 thread: chomp sieve -o x.h5 "
                           "--resume --slices 2 --slice-from 40 --inferred-rows 1"));
  says(" --slices 2 --slice-from 40 --inferred-rows 1");
  set_attribute(path, "resume_history", text_value("a line of another form -t 5"));
  says("");
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
  EXPECT_NE(resume(path_).result.err.find("fails its checksum (damaged file); put back an undamaged copy of the "
                                          "store beside it (chomp verify --finished checks one), or start the run "
                                          "over with --force"),
            std::string::npos)
      << resume(path_).result.err;
  // verify says so in level 45's row and goes on: the levels above, whose
  // moves read level 45, fail on the same block; every level has its row and
  // the summary counts them (it stopped at the first such read before).
  const ProcessResult v = run_chomp({"verify", "--finished", path_});
  EXPECT_EQ(v.exit_code, 1) << v.err;
  EXPECT_EQ(v.err.find("chomp: error:"), std::string::npos) << v.err;
  for (int n = 45; n <= kFinishedRunLevels; ++n) {
    char row[16];
    std::snprintf(row, sizeof row, "\n%6d ", n);  // the table's first column
    const std::size_t at = v.out.find(row);
    ASSERT_NE(at, std::string::npos) << n << "\n" << v.out;
    const std::string line = v.out.substr(at + 1, v.out.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find("level 45, block 0 (ranks "), std::string::npos) << line;  // failed, on that block
  }
  EXPECT_NE(v.err.find(" of levels 1.." + std::to_string(kFinishedRunLevels) + " failed the check"),
            std::string::npos)
      << v.err;
  EXPECT_NE(v.out.find("level 45, block 0 (ranks "), std::string::npos) << v.out;
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
  expect_the_finished_runs_levels(path_);
  EXPECT_EQ(std::filesystem::file_size(store()), std::filesystem::file_size(store_path_for(finished_run())))
      << "the cut-off level's bytes are gone";
}

// The global heap, where HDF5 keeps variable-length strings, has no
// checksum: a damaged heap object reads as an empty string. An empty
// store_file, which every run of this format writes, is named as damage
// (resume said "it has format_version 3 and names no store file; only
// format_version 3 files can be resumed", verify that the file names no
// store); both files are left as they were.
TEST_F(DamagedFile, AnEmptyStoreNameFromADamagedGlobalHeapIsNamedAsDamage) {
  const std::string bytes = read_text(path_);
  const std::string name = std::filesystem::path(store_path_for(finished_run())).filename().string();
  const std::size_t at = bytes.find(name + '\0');
  ASSERT_NE(at, std::string::npos) << "the store's name is not in the file";
  ASSERT_GE(at, 16U);
  const std::string damage(16, '\xab');
  write_bytes(path_, at - 16, damage.data(), damage.size());  // the heap object's header
  expect_refused(resume(path_), "its store_file attribute is empty (or its run_id missing), which every run of "
                                "format_version 3 writes: the file's text attributes are damaged");
  const ProcessResult v = run_chomp({"verify", "--finished", path_});  // (SetUp marked it unfinished)
  EXPECT_EQ(v.exit_code, 1) << v.err;
  EXPECT_NE(v.err.find("the file's text attributes are damaged"), std::string::npos) << v.err;
  const ProcessResult shown = run_chomp({"show", path_});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;  // the counts still read
  EXPECT_NE(shown.out.find("which every run of that format names: its text attributes are damaged"),
            std::string::npos) << shown.out;
}
