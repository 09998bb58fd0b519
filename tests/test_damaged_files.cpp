/// @file test_damaged_files.cpp
/// @brief `chomp sieve --resume` on damaged, foreign and tampered files:
/// each is refused with a clear message and left as it was; the traces a
/// kill leaves (ranks of a cut-off level, a half-appended row) are ignored.

#include <gtest/gtest.h>

#include <hdf5.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/resume.hpp"
#include "chomp_process.hpp"
#include "sieve_testing.hpp"

using namespace chomp;
using namespace chomp::testing;

namespace {

constexpr int kLevels = 50;

/// A finished run to 50 tiles, made once per test program.
const std::string& base_file() {
  static ScratchDir dir;
  static const std::string path = [] {
    const std::string p = dir.file("base.h5");
    const ProcessResult r = run_chomp({"sieve", "-n", std::to_string(kLevels), "-q", "-o", p});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return p;
  }();
  return path;
}

/// Opens a result file for writing with the HDF5 C API, for tampering.
class RawFile {
 public:
  explicit RawFile(const std::string& path) : id_(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)) {
    EXPECT_GE(id_, 0) << "cannot open " << path;
  }
  ~RawFile() { H5Fclose(id_); }
  hid_t get() const { return id_; }

  /// File offset and stored size of chunk `index` of a dataset.
  std::pair<haddr_t, hsize_t> chunk(const char* dataset, hsize_t index) const {
    const hid_t ds = H5Dopen2(id_, dataset, H5P_DEFAULT);
    const hid_t space = H5Dget_space(ds);  // HDF5 1.10 does not take H5S_ALL here
    hsize_t offset = 0, size = 0;
    haddr_t addr = 0;
    unsigned mask = 0;
    EXPECT_GE(H5Dget_chunk_info(ds, space, index, &offset, &mask, &addr, &size), 0) << dataset;
    H5Sclose(space);
    H5Dclose(ds);
    return {addr, size};
  }
  hsize_t chunks(const char* dataset) const {
    const hid_t ds = H5Dopen2(id_, dataset, H5P_DEFAULT);
    const hid_t space = H5Dget_space(ds);
    hsize_t n = 0;
    EXPECT_GE(H5Dget_num_chunks(ds, space, &n), 0) << dataset;
    H5Sclose(space);
    H5Dclose(ds);
    return n;
  }

  template <class T>
  std::vector<T> read(const char* dataset, hid_t mem_type) const {
    const hid_t ds = H5Dopen2(id_, dataset, H5P_DEFAULT);
    const hid_t space = H5Dget_space(ds);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(space, &n, nullptr);
    std::vector<T> out(n);
    EXPECT_GE(H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0);
    H5Sclose(space);
    H5Dclose(ds);
    return out;
  }

  /// Rewrites a whole dataset (its checksums are recomputed: a consistent lie).
  template <class T>
  void write(const char* dataset, hid_t mem_type, const std::vector<T>& values) const {
    const hid_t ds = H5Dopen2(id_, dataset, H5P_DEFAULT);
    const hsize_t n = values.size();
    EXPECT_GE(H5Dset_extent(ds, &n), 0);
    EXPECT_GE(H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
    H5Dclose(ds);
  }

  void set_int_attribute(const char* name, std::int64_t value) const {
    const hid_t attr = H5Aopen(id_, name, H5P_DEFAULT);
    EXPECT_GE(H5Awrite(attr, H5T_NATIVE_INT64, &value), 0);
    H5Aclose(attr);
  }

 private:
  hid_t id_;
};

void flip_byte(const std::string& path, std::uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x5A));
}

struct Outcome {
  ProcessResult result;
  bool unchanged = false;
};

/// Resumes `path` and reports whether the file was left byte for byte as it was.
Outcome resume(const std::string& path) {
  const std::string before = read_text(path);
  Outcome o;
  o.result = run_chomp({"sieve", "--resume", "-q", "-o", path});
  o.unchanged = read_text(path) == before;
  EXPECT_FALSE(std::filesystem::exists(path + ".partial")) << "a refused resume leaves no .partial";
  return o;
}

void expect_refused(const Outcome& o, const std::string& says) {
  EXPECT_EQ(o.result.exit_code, 1) << o.result.err;
  EXPECT_NE(o.result.err.find(says), std::string::npos) << o.result.err;
  EXPECT_NE(o.result.err.find("cannot resume"), std::string::npos) << o.result.err;
  // One line says why (a refusal found while restoring follows the memory plan line).
  EXPECT_EQ(o.result.err.find("chomp: "), o.result.err.rfind("chomp: ")) << o.result.err;
  EXPECT_EQ(o.result.err.back(), '\n');
  EXPECT_TRUE(o.unchanged);
}

/// Level n's losing ranks start here in /resume/losing_ranks (the damaged
/// copies keep the base file's layout).
std::uint64_t first_rank_index(int n) { return LevelFileReader(base_file()).first_losing_rank(n); }

/// Moves one losing rank of level n to a winning neighbour, keeping the
/// list increasing: a consistent file with one wrong fact.
void move_one_losing_rank(const std::string& path, int n) {
  RawFile raw(path);
  auto ranks = raw.read<std::uint64_t>("resume/losing_ranks", H5T_NATIVE_UINT64);
  std::uint64_t k = first_rank_index(n);
  while (ranks[k + 1] - ranks[k] < 3) ++k;
  ranks[k] += 1;
  raw.write("resume/losing_ranks", H5T_NATIVE_UINT64, ranks);
}

constexpr hsize_t kChunk = 16384;  // entries per chunk of /resume/losing_ranks

/// Writes levels of random increasing ranks with the project's writer,
/// sizes[l] at level l + 1 (starting high, with gaps up to 2^40, so every
/// byte of a rank is used and chunk sizes vary), and returns them.
std::vector<std::vector<std::uint64_t>> write_random_levels(const std::string& path,
                                                            const std::vector<std::uint64_t>& sizes) {
  std::vector<std::vector<std::uint64_t>> written(sizes.size());
  std::mt19937_64 rng(17);
  Provenance prov;
  prov.max_tiles = static_cast<int>(sizes.size());
  LevelFileWriter out(path, prov);
  for (std::size_t l = 0; l < sizes.size(); ++l) {
    std::uint64_t r = rng() >> 2;
    for (std::uint64_t i = 0; i < sizes[l]; ++i) {
      const int bits = static_cast<int>(rng() % 41);
      written[l].push_back(r += 1 + rng() % (std::uint64_t{1} << bits));
    }
    LosingLevel level;
    level.append(written[l]);
    LevelResult row;
    row.tiles = static_cast<int>(l) + 1;
    row.positions = r + 1;
    row.losing = sizes[l];
    out.append(row, level);
  }
  out.finish("complete");
  return written;
}

/// The chunk of a 1-D dataset that starts at `offset`, as the file stores it.
std::vector<std::uint8_t> raw_chunk(const std::string& path, const char* dataset, hsize_t offset) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t ds = H5Dopen2(f, dataset, H5P_DEFAULT);
  hsize_t size = 0;
  EXPECT_GE(H5Dget_chunk_storage_size(ds, &offset, &size), 0);
  std::vector<std::uint8_t> bytes(size);
  std::uint32_t mask = 0;
  EXPECT_GE(H5Dread_chunk(ds, H5P_DEFAULT, &offset, &mask, bytes.data()), 0);
  H5Dclose(ds);
  H5Fclose(f);
  return bytes;
}

/// Chunk `index` of /resume/losing_ranks as the file stores it.
std::vector<std::uint8_t> stored_chunk(const std::string& path, hsize_t index) {
  return raw_chunk(path, "resume/losing_ranks", index * kChunk);
}

/// Puts `bytes` in place of chunk `index` of /resume/losing_ranks, as they are.
void replace_chunk(const std::string& path, hsize_t index, const std::vector<std::uint8_t>& bytes) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t ds = H5Dopen2(f, "resume/losing_ranks", H5P_DEFAULT);
  const hsize_t offset = index * kChunk;
  EXPECT_GE(H5Dwrite_chunk(ds, H5P_DEFAULT, 0, &offset, bytes.size(), bytes.data()), 0);
  H5Dclose(ds);
  H5Fclose(f);
}

/// `values` as HDF5 itself stores them in one chunk of a dataset with the
/// given filters (shuffle if asked or deflating, deflate at `level` unless
/// it is 0, then Fletcher-32): a stored chunk made independently of the
/// project's writer.
template <class T>
std::vector<std::uint8_t> filtered_by_hdf5(const std::string& scratch, hid_t type, const std::vector<T>& values,
                                           unsigned level, bool shuffle = false) {
  const hid_t f = H5Fcreate(scratch.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t n = values.size();
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, &n);
  if (shuffle || level > 0) H5Pset_shuffle(dcpl);
  if (level > 0) H5Pset_deflate(dcpl, level);
  H5Pset_fletcher32(dcpl);
  const hid_t ds = H5Dcreate2(f, "chunk", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  EXPECT_GE(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  H5Dclose(ds);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(f);
  return raw_chunk(scratch, "chunk", 0);
}

class DamagedFile : public ::testing::Test {
 protected:
  // The finished run, marked as not finished: a resume then reads and
  // checks every level (a complete file has nothing to resume).
  void SetUp() override {
    path_ = dir_.file("run.h5");
    std::filesystem::copy_file(base_file(), path_);
    RawFile(path_).set_int_attribute("complete", 0);
  }
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

TEST_F(DamagedFile, FlippedByteInTheRanksFailsTheChecksum) {
  std::pair<haddr_t, hsize_t> chunk;
  {
    RawFile raw(path_);
    // The chunk holding level 40's ranks, well inside the run.
    const std::uint64_t alignment = LevelFileReader(base_file()).losing_ranks_alignment();
    const hsize_t index = first_rank_index(40) / alignment;
    ASSERT_LT(index, raw.chunks("resume/losing_ranks"));
    chunk = raw.chunk("resume/losing_ranks", index);
  }
  flip_byte(path_, chunk.first + chunk.second / 2);
  expect_refused(resume(path_), "Fletcher32");
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
  { RawFile(path_).set_int_attribute("format_version", 1); }
  expect_refused(resume(path_), "format_version 1");
  EXPECT_EQ(read_level_file(path_).tiles.size(), static_cast<std::size_t>(kLevels)) << "version 1 is still read";
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

TEST_F(DamagedFile, LastLevelThatContradictsTheEngineIsRefused) {
  move_one_losing_rank(path_, kLevels);
  expect_refused(resume(path_), "not the same ones");
}

TEST_F(DamagedFile, RanksThatAreNotIncreasingAreRefused) {
  {
    RawFile raw(path_);
    auto ranks = raw.read<std::uint64_t>("resume/losing_ranks", H5T_NATIVE_UINT64);
    const std::uint64_t at = first_rank_index(45);
    std::swap(ranks[at + 3], ranks[at + 4]);
    raw.write("resume/losing_ranks", H5T_NATIVE_UINT64, ranks);
  }
  expect_refused(resume(path_), "level 45: its stored losing ranks are not increasing");
}

// What a kill leaves: the ranks of the level in progress without its row,
// and a row appended to only some columns. Both are ignored, the level is
// computed again, and the result is the uninterrupted run's.
TEST_F(DamagedFile, TracesOfAKillAreIgnored) {
  {
    RawFile raw(path_);
    // Drop the last row from every column but tiles: a half-appended row.
    for (const char* name : {"levels/positions", "levels/losing", "levels/marks"}) {
      auto v = raw.read<std::uint64_t>(name, H5T_NATIVE_UINT64);
      v.pop_back();
      raw.write(name, H5T_NATIVE_UINT64, v);
    }
    for (const char* name : {"levels/losing_fraction", "levels/hypothesis_ratio", "levels/seconds"}) {
      auto v = raw.read<double>(name, H5T_NATIVE_DOUBLE);
      v.pop_back();
      raw.write(name, H5T_NATIVE_DOUBLE, v);
    }
  }
  const Outcome o = resume(path_);
  EXPECT_EQ(o.result.exit_code, 0) << o.result.err;
  EXPECT_NE(o.result.err.find("levels 1..49 restored"), std::string::npos) << o.result.err;
  EXPECT_NE(o.result.err.find("ignored"), std::string::npos) << o.result.err;
  const LevelFileReader done(path_), ref(base_file());
  EXPECT_TRUE(done.table().complete());
  EXPECT_EQ(done.table().losing, ref.table().losing);
  EXPECT_EQ(done.table().marks, ref.table().marks);
  EXPECT_EQ(done.losing_ranks(0, done.stored_losing_ranks()), ref.losing_ranks(0, ref.stored_losing_ranks()));
}

// In-process: levels without losing positions (L(2) = L(4) = 0) as the last
// finished ones, whose ranks would start past the end of the stored ones.
/// In-process: a run to max_tiles stopped after `levels` levels.
void write_interrupted_run(const std::string& path, int max_tiles, int levels) {
  Provenance prov;
  prov.max_tiles = max_tiles;
  LevelFileWriter out(path, prov);
  Sieve sieve(max_tiles);
  for (int n = 1; n <= levels; ++n) save_level(out, sieve, sieve.next_level());
  out.finish("interrupted");
}

TEST(ResumeLibrary, RunsStoppedRightAfterLevelsWithoutLosingPositions) {
  ScratchDir dir;
  for (int stop_after : {2, 4}) {
    const std::string path = dir.file("stop" + std::to_string(stop_after) + ".h5");
    write_interrupted_run(path, 12, stop_after);
    Resume resume(ResumeRequest{path, 0, -1});
    EXPECT_EQ(resume.state().levels, stop_after);
    const std::string continued = path + ".continued";
    LevelFileWriter out(continued, resume.state().provenance);
    Sieve sieve(12);
    resume.restore(sieve, out);
    sieve.run([&](const LevelResult& r) { save_level(out, sieve, r); });
    out.finish("complete");
    const LevelTable t = read_level_file(continued);
    const std::vector<std::uint64_t> expected{1, 0, 1, 0, 3, 0, 3, 2, 5, 2, 3, 10};  // small_counts.csv
    EXPECT_EQ(t.losing, expected);
  }
}

// In-process: a stop while levels are being copied is obeyed at once (a
// resume copies minutes of data at n = 140), and every copied level is
// reported as it goes.
TEST(ResumeLibrary, StopsWhileCopyingLevelsAndReportsEachOne) {
  ScratchDir dir;
  const std::string path = dir.file("stopped.h5");
  write_interrupted_run(path, 20, 15);
  Resume resume(ResumeRequest{path, 0, -1});
  ASSERT_EQ(resume.state().levels, 15);
  {
    // Undisturbed: levels 1..15 reported in order, then the run goes on.
    LevelFileWriter out(path + ".whole", resume.state().provenance);
    Sieve sieve(20);
    std::vector<int> reported;
    resume.restore(sieve, out, {}, [&](int n) { reported.push_back(n); });
    EXPECT_EQ(reported.size(), 15U);
    EXPECT_EQ(reported.back(), 15);
    EXPECT_EQ(sieve.levels_done(), 15);
  }
  // The flag raised while level 6 is copied: restoring stops before level 7.
  Resume again(ResumeRequest{path, 0, -1});
  LevelFileWriter out(path + ".stopped", again.state().provenance);
  Sieve sieve(20);
  std::atomic<bool> stop{false};
  sieve.set_stop_flag(&stop);
  int last = 0;
  EXPECT_THROW(again.restore(sieve, out, {}, [&](int n) {
    last = n;
    if (n == 6) stop = true;
  }), SieveInterrupted);
  EXPECT_EQ(last, 6);
  EXPECT_EQ(sieve.levels_done(), 6);
}

// `chomp verify` checks a file's levels without the sieve: it passes a
// finished run, and finds one wrong losing rank in a file whose checksums
// and order are all consistent.

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

TEST(Verify, PassesAFinishedRun) {
  const ProcessResult r = run_chomp({"verify", base_file()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("levels 1..50"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("closed under transposition (every position checked)"), std::string::npos) << r.err;
  // Every level's losing positions (the run's own rows), each transposed.
  const LevelTable t = read_level_file(base_file());
  for (int n = 1; n <= kLevels; ++n) {
    const std::string losing = std::to_string(t.losing[static_cast<std::size_t>(n - 1)]);
    EXPECT_EQ(verify_row(r.out, n), (std::vector<std::string>{std::to_string(n), losing, losing, "ok"})) << r.out;
  }
}

TEST(Verify, SamplesEveryKthPositionOfTheLevelsAsked) {
  const ProcessResult r = run_chomp({"verify", base_file(), "--from", "50", "--to", "60", "--every", "10", "-t", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const LevelTable t = read_level_file(base_file());
  const std::uint64_t sampled = (t.losing[49] + 9) / 10;  // indices 0, 10, 20, ...
  EXPECT_EQ(verify_row(r.out, 50),
            (std::vector<std::string>{"50", std::to_string(t.losing[49]), std::to_string(sampled), "ok"}));
  EXPECT_TRUE(verify_row(r.out, 49).empty()) << r.out;
  const ProcessResult first = run_chomp({"verify", base_file(), "--to", "3"});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(verify_row(first.out, 3).size(), 4U) << first.out;
  EXPECT_TRUE(verify_row(first.out, 4).empty()) << first.out;
  EXPECT_NE(first.err.find("levels 1..3 "), std::string::npos) << first.err;
  EXPECT_NE(r.err.find("levels 50..50"), std::string::npos) << r.err;
}

TEST(Verify, FindsOneWrongLosingRank) {
  ScratchDir dir;
  const std::string path = dir.file("moved.h5");
  std::filesystem::copy_file(base_file(), path);
  move_one_losing_rank(path, 45);
  const ProcessResult r = run_chomp({"verify", path});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("1 of levels 1..50 failed"), std::string::npos) << r.err;
  for (int n = 1; n <= kLevels; ++n) {
    const std::vector<std::string> row = verify_row(r.out, n);
    ASSERT_GE(row.size(), 4U) << r.out;
    if (n == 45) {
      EXPECT_EQ(row[3], "the") << r.out;  // "the losing position ... is not stored as losing"
      EXPECT_EQ(row.back(), "losing") << r.out;
    } else {
      EXPECT_EQ(row[3], "ok") << "level " << n << ": " << r.out;
    }
  }
}

TEST(Verify, ChecksTheRuleMoveByMove) {
  const ProcessResult r = run_chomp({"verify", base_file(), "--from", "40", "--moves", "3", "-t", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const LevelTable t = read_level_file(base_file());
  for (int n = 40; n <= kLevels; ++n) {
    const std::uint64_t losing = t.losing[static_cast<std::size_t>(n - 1)];
    const std::uint64_t positions = t.positions[static_cast<std::size_t>(n - 1)];
    // tiles, losing, transposed, by moves (a third of the losing positions
    // and a third of the ranks, rounded up), result
    EXPECT_EQ(verify_row(r.out, n),
              (std::vector<std::string>{std::to_string(n), std::to_string(losing), std::to_string(losing),
                                        std::to_string((losing + 2) / 3 + (positions + 2) / 3), "ok"}))
        << r.out;
  }
  EXPECT_TRUE(verify_row(r.out, 39).empty()) << r.out;
  EXPECT_NE(r.err.find("levels 40..50: losing exactly where no move leads to a losing position (one losing "
                       "position and one rank in 3 checked)"),
            std::string::npos)
      << r.err;

  // A losing rank in the middle of level 45 moved up by one, where the
  // transposition check looks only at the level's first losing position:
  // the rule alone finds it, as a winning position stored as losing.
  ScratchDir dir;
  const std::string path = dir.file("moved.h5");
  std::filesystem::copy_file(base_file(), path);
  std::uint64_t moved_rank = 0;
  {
    RawFile raw(path);
    auto ranks = raw.read<std::uint64_t>("resume/losing_ranks", H5T_NATIVE_UINT64);
    std::uint64_t k = first_rank_index(45) + t.losing[44] / 2;
    while (ranks[k + 1] - ranks[k] < 3) ++k;
    moved_rank = ++ranks[k];
    raw.write("resume/losing_ranks", H5T_NATIVE_UINT64, ranks);
  }
  const ProcessResult moved =
      run_chomp({"verify", path, "--from", "45", "--to", "45", "--every", "1000000", "--moves", "1"});
  EXPECT_EQ(moved.exit_code, 1) << moved.err;
  const std::vector<std::string> row = verify_row(moved.out, 45);
  ASSERT_GE(row.size(), 6U) << moved.out;
  EXPECT_EQ(row[2], "1") << moved.out;  // one losing position transposed, and it passed
  EXPECT_NE(moved.out.find("(rank " + std::to_string(moved_rank) + ") is stored as losing but has a move to a "
                           "losing position"),
            std::string::npos)
      << moved.out;
  EXPECT_NE(moved.err.find("1 of levels 45..45 failed"), std::string::npos) << moved.err;
}

TEST(Verify, RefusesFilesWithoutRanksAndLevelsPastTheEnd) {
  ScratchDir dir;
  const std::string levels_only = dir.file("levels-only.h5");
  const ProcessResult made = run_chomp({"sieve", "-n", "12", "-q", "-o", levels_only});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  {
    RawFile raw(levels_only);
    EXPECT_GE(H5Ldelete(raw.get(), "resume", H5P_DEFAULT), 0);
  }
  const ProcessResult r = run_chomp({"verify", levels_only});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("has no /resume data"), std::string::npos) << r.err;
  const ProcessResult past = run_chomp({"verify", base_file(), "--from", "51"});
  EXPECT_EQ(past.exit_code, 2);
  EXPECT_NE(past.err.find("past the file's last level (50)"), std::string::npos) << past.err;
  const ProcessResult backwards = run_chomp({"verify", base_file(), "--from", "30", "--to", "20"});
  EXPECT_EQ(backwards.exit_code, 2);
  EXPECT_NE(backwards.err.find("--to 20 is below --from 30"), std::string::npos) << backwards.err;
}

// The first files of format 2 stored the levels' ranks one after another,
// without the level_alignment attribute that later files carry: such a file
// is read as laid out, and resumes and verifies like any other.
TEST(ResumeLibrary, FilesWithoutLevelAlignmentHoldTheirLevelsWithoutGaps) {
  ScratchDir dir;
  const std::string path = dir.file("early.h5");
  std::filesystem::copy_file(base_file(), path);
  {
    RawFile raw(path);
    const auto aligned = raw.read<std::uint64_t>("resume/losing_ranks", H5T_NATIVE_UINT64);
    const LevelFileReader reader(base_file());
    std::vector<std::uint64_t> packed;
    for (int n = 1; n <= kLevels; ++n) {
      const std::uint64_t first = reader.first_losing_rank(n);
      packed.insert(packed.end(), aligned.begin() + static_cast<std::ptrdiff_t>(first),
                    aligned.begin() + static_cast<std::ptrdiff_t>(first + reader.table().losing[n - 1]));
    }
    ASSERT_LT(packed.size(), aligned.size()) << "the base file's levels must have gaps for this test to mean anything";
    const hid_t ds = H5Dopen2(raw.get(), "resume/losing_ranks", H5P_DEFAULT);
    const hsize_t size = packed.size();
    EXPECT_GE(H5Dset_extent(ds, &size), 0);
    EXPECT_GE(H5Dwrite(ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()), 0);
    EXPECT_GE(H5Adelete(ds, "level_alignment"), 0);
    H5Dclose(ds);
    raw.set_int_attribute("complete", 0);
  }
  const LevelFileReader early(path);
  EXPECT_EQ(early.losing_ranks_alignment(), 1u);
  EXPECT_EQ(early.first_losing_rank(kLevels), early.stored_losing_ranks() - early.table().losing[kLevels - 1]);

  const ProcessResult verified = run_chomp({"verify", path});
  EXPECT_EQ(verified.exit_code, 0) << verified.err;
  const ProcessResult resumed = run_chomp({"sieve", "--resume", "--max-tiles", "52", "-q", "-o", path});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("levels 1.." + std::to_string(kLevels) + " restored"), std::string::npos) << resumed.err;
  const LevelTable t = read_level_file(path);
  ASSERT_EQ(t.tiles.size(), 52u);
  const LevelTable base = read_level_file(base_file());
  for (int n = 1; n <= kLevels; ++n) EXPECT_EQ(t.losing[n - 1], base.losing[n - 1]) << "level " << n;
  // The resumed file is aligned again, and its levels hold the same ranks
  // (chunks shared by two levels cannot be copied as they are).
  const LevelFileReader resumed_file(path), reference(base_file());
  EXPECT_EQ(resumed_file.losing_ranks_alignment(), reference.losing_ranks_alignment());
  for (int n = 1; n <= kLevels; ++n)
    EXPECT_EQ(resumed_file.losing_ranks(resumed_file.first_losing_rank(n), base.losing[n - 1]),
              reference.losing_ranks(reference.first_losing_rank(n), base.losing[n - 1]))
        << "level " << n;
}

// In-process: the recomputed last level is compared with its stored ranks a
// batch at a time (2^22 ranks in a run; 5 here, so that level 24's 18 ranks
// take four batches). A faithful file resumes; a moved rank and two ranks
// swapped across a batch boundary are both found.
TEST(ResumeLibrary, TheLastLevelIsComparedABatchAtATime) {
  const detail::ForTesting small(detail::g_compare_batch_for_testing, 5);
  ScratchDir dir;
  const std::string path = dir.file("run.h5");
  write_interrupted_run(path, 30, 24);
  const std::uint64_t first = LevelFileReader(path).first_losing_rank(24);
  ASSERT_GT(read_level_file(path).losing[23], 15u) << "level 24 must span several batches";
  auto restore = [&](const std::string& file) {
    Resume resume(ResumeRequest{file, 0, -1});
    EXPECT_EQ(resume.state().levels, 24);
    LevelFileWriter out(file + ".continued", resume.state().provenance);
    Sieve sieve(30);
    resume.restore(sieve, out);
    return sieve.levels_done();
  };
  EXPECT_EQ(restore(path), 24);

  auto tampered = [&](const std::string& name, auto change) {
    const std::string copy = dir.file(name);
    std::filesystem::copy_file(path, copy);
    RawFile raw(copy);
    auto ranks = raw.read<std::uint64_t>("resume/losing_ranks", H5T_NATIVE_UINT64);
    change(ranks);
    raw.write("resume/losing_ranks", H5T_NATIVE_UINT64, ranks);
    return copy;
  };
  // The 13th rank (third batch) moved to a free neighbour, still increasing.
  const std::string moved = tampered("moved.h5", [&](std::vector<std::uint64_t>& r) {
    std::uint64_t k = first + 12;
    while (r[k + 1] - r[k] < 3) ++k;
    r[k] += 1;
  });
  try {
    restore(moved);
    ADD_FAILURE() << "a moved rank of the last level was not found";
  } catch (const ResumeRefused& e) {
    EXPECT_NE(std::string(e.what()).find("not the same ones"), std::string::npos) << e.what();
  }
  // The 5th and 6th ranks swapped: each batch alone is increasing, and the
  // first batch already differs from the engine's ranks.
  const std::string swapped =
      tampered("swapped.h5", [&](std::vector<std::uint64_t>& r) { std::swap(r[first + 4], r[first + 5]); });
  try {
    restore(swapped);
    ADD_FAILURE() << "ranks swapped across a batch boundary were not found";
  } catch (const ResumeRefused& e) {
    EXPECT_NE(std::string(e.what()).find("level 24: the file lists"), std::string::npos) << e.what();
  }
  // The last rank replaced by p(24): past the end of the level.
  const std::string beyond = tampered("beyond.h5", [&](std::vector<std::uint64_t>& r) {
    r[first + read_level_file(path).losing[23] - 1] = PartitionTable(30).positions(24);
  });
  try {
    restore(beyond);
    ADD_FAILURE() << "a rank past p(24) in the last batch was not found";
  } catch (const ResumeRefused& e) {
    EXPECT_NE(std::string(e.what()).find("level 24: its stored losing ranks are not increasing ranks below p(24)"),
              std::string::npos)
        << e.what();
  }
}

TEST(ResumeRanks, ChunksMadeInParallelReadBackThroughHdf5sOwnFilters) {
  // The writer shuffles, deflates and checksums the chunks of
  // /resume/losing_ranks itself, 64 at a time, and hands them to HDF5
  // whole. Levels of more than 64 chunks and a part of one, of several,
  // of exactly one, of none and of a few (starting high, with gaps up to
  // 2^40, so every byte of a rank is used and chunk sizes vary):
  // HDF5 reads every rank back through the dataset's own filter pipeline
  // (Fletcher-32 checked, inflated, unshuffled), every chunk is stored with
  // all its filters applied, and the project's reader finds every level.
  ScratchDir dir;
  const std::string path = dir.file("ranks.h5");
  const std::vector<std::uint64_t> sizes{64 * 16384 + 3, 3 * 16384 + 5, 16384, 0, 7};
  const std::vector<std::vector<std::uint64_t>> written = write_random_levels(path, sizes);
  {
    LevelFileReader reader(path);
    ASSERT_EQ(reader.losing_ranks_alignment(), 16384u);
    for (std::size_t l = 0; l < sizes.size(); ++l) {
      const int n = static_cast<int>(l) + 1;
      EXPECT_EQ(reader.losing_ranks(reader.first_losing_rank(n), sizes[l]), written[l]) << "level " << n;
    }
  }
  RawFile raw(path);
  const std::vector<std::uint64_t> all = raw.read<std::uint64_t>("resume/losing_ranks", H5T_NATIVE_UINT64);
  constexpr std::size_t C = 16384;
  const std::vector<std::size_t> starts{0, 65 * C, 69 * C, 70 * C, 70 * C};  // each level's first entry
  ASSERT_EQ(all.size(), 70 * C + 7);
  for (std::size_t l = 0; l < sizes.size(); ++l)
    EXPECT_TRUE(std::equal(written[l].begin(), written[l].end(), all.begin() + static_cast<std::ptrdiff_t>(starts[l])))
        << "level " << l + 1;
  for (std::size_t l : {0, 1})
    EXPECT_TRUE(std::all_of(all.begin() + static_cast<std::ptrdiff_t>(starts[l] + sizes[l]),
                            all.begin() + static_cast<std::ptrdiff_t>(starts[l + 1]),
                            [](std::uint64_t v) { return v == 0; }))
        << "the rest of level " << l + 1 << "'s last chunk is the fill value 0";
  ASSERT_EQ(raw.chunks("resume/losing_ranks"), 71u);
  const hid_t ds = H5Dopen2(raw.get(), "resume/losing_ranks", H5P_DEFAULT);
  const hid_t space = H5Dget_space(ds);
  int odd = 0;
  for (hsize_t i = 0; i < 71; ++i) {
    hsize_t offset = 0, size = 0;
    haddr_t addr = 0;
    unsigned mask = 1;
    ASSERT_GE(H5Dget_chunk_info(ds, space, i, &offset, &mask, &addr, &size), 0);
    EXPECT_EQ(mask, 0u) << "chunk " << i << " skips a filter";
    EXPECT_LT(size, C * 8) << "chunk " << i << " is not deflated";
    odd += size % 2;
  }
  EXPECT_GT(odd, 0) << "no chunk of an odd size: the checksum's last-byte step went untested";
  H5Sclose(space);
  H5Dclose(ds);
}

TEST(ResumeRanks, ChunksUnfilteredInParallelEqualHdf5sOwnReadOfAnyRange) {
  // The reader takes the chunks whole and undoes their filters itself, in
  // parallel; HDF5's own pipeline must read the same entries, whatever the
  // range: unaligned, within a chunk, across chunks, across levels, all.
  ScratchDir dir;
  const std::string path = dir.file("ranks.h5");
  const std::vector<std::uint64_t> sizes{64 * kChunk + 3, 3 * kChunk + 5, kChunk, 0, 7};
  const std::vector<std::vector<std::uint64_t>> written = write_random_levels(path, sizes);
  const std::vector<std::uint64_t> all = RawFile(path).read<std::uint64_t>("resume/losing_ranks", H5T_NATIVE_UINT64);
  ASSERT_EQ(all.size(), 70 * kChunk + 7);
  LevelFileReader reader(path);
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges{
      {0, all.size()}, {1, kChunk}, {kChunk - 1, 2}, {5 * kChunk + 17, 3 * kChunk}, {65 * kChunk - 5, 10},
      {70 * kChunk, 7}, {12345, 1},  {0, 64 * kChunk + 3}};
  // The 71 chunks in one batch (256 at most), then in batches of 3.
  for (const std::uint64_t batch : {0, 3}) {
    const detail::ForTesting small(detail::g_read_batch_for_testing, batch);
    for (const auto& [first, count] : ranges)
      EXPECT_EQ(reader.losing_ranks(first, count),
                std::vector<std::uint64_t>(all.begin() + static_cast<std::ptrdiff_t>(first),
                                           all.begin() + static_cast<std::ptrdiff_t>(first + count)))
          << "entries " << first << ".." << first + count - 1 << ", batch " << batch;

    // A whole level comes with its chunks as stored; a range that starts
    // inside a chunk, or leaves ranks out of its last one, does not.
    StoredChunks stored;
    EXPECT_EQ(reader.losing_ranks(0, sizes[0], &stored), written[0]);
    ASSERT_EQ(stored.size(), 65u);
    for (hsize_t j = 0; j < 65; ++j) EXPECT_EQ(stored[j], stored_chunk(path, j)) << "chunk " << j;
    EXPECT_EQ(reader.losing_ranks(65 * kChunk, sizes[1], &stored), written[1]);
    ASSERT_EQ(stored.size(), 4u);
    for (hsize_t j = 0; j < 4; ++j) EXPECT_EQ(stored[j], stored_chunk(path, 65 + j)) << "chunk " << 65 + j;
    reader.losing_ranks(65 * kChunk + 1, sizes[1] - 1, &stored);
    EXPECT_TRUE(stored.empty());
    reader.losing_ranks(65 * kChunk, sizes[1], &stored);
    ASSERT_EQ(stored.size(), 4u);  // emptied by the next read
    reader.losing_ranks(65 * kChunk, sizes[1] - 1, &stored);
    EXPECT_TRUE(stored.empty());
  }
}

TEST(ResumeRanks, DamagedChunksAreNamedAndChunksNotInTheFileReadAsZeros) {
  ScratchDir dir;
  const std::string path = dir.file("ranks.h5");
  const std::vector<std::uint64_t> sizes{3 * kChunk + 5};
  const std::vector<std::uint64_t> ranks = write_random_levels(path, sizes)[0];

  // Bytes that pass the Fletcher-32 check (HDF5 computed it) but are no
  // zlib stream.
  std::vector<std::uint8_t> noise(1000);
  std::mt19937 rng(5);
  for (std::uint8_t& b : noise) b = static_cast<std::uint8_t>(rng());
  std::vector<std::uint8_t> bytes = filtered_by_hdf5(dir.file("sum.h5"), H5T_NATIVE_UINT8, noise, 0);
  ASSERT_EQ(bytes.size(), noise.size() + 4);
  replace_chunk(path, 1, bytes);
  try {
    LevelFileReader(path).losing_ranks(0, sizes[0]);
    ADD_FAILURE() << "a chunk that does not inflate was read";
  } catch (const H5Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "chunk 1 (entries 16384..32767) passes its Fletcher32 checksum but does not inflate"),
              std::string::npos)
        << e.what();
  }
  bytes.back() ^= 1;
  replace_chunk(path, 1, bytes);
  try {
    LevelFileReader(path).losing_ranks(kChunk - 1, 2);
    ADD_FAILURE() << "a chunk that fails its checksum was read";
  } catch (const H5Error& e) {
    EXPECT_NE(std::string(e.what()).find("chunk 1 (entries 16384..32767) fails its Fletcher32 checksum"),
              std::string::npos)
        << e.what();
  }
  // The chunks before it are still read.
  EXPECT_EQ(LevelFileReader(path).losing_ranks(0, kChunk).size(), kChunk);

  // The dataset grown past its written chunks: HDF5 reads the fill value
  // there, and so does the reader.
  {
    RawFile raw(path);
    const hid_t ds = H5Dopen2(raw.get(), "resume/losing_ranks", H5P_DEFAULT);
    const hsize_t grown = 6 * kChunk;
    ASSERT_GE(H5Dset_extent(ds, &grown), 0);
    H5Dclose(ds);
  }
  LevelFileReader reader(path);
  ASSERT_EQ(reader.stored_losing_ranks(), 6 * kChunk);
  StoredChunks stored{{1}};
  EXPECT_EQ(reader.losing_ranks(4 * kChunk, 2 * kChunk, &stored), std::vector<std::uint64_t>(2 * kChunk, 0));
  EXPECT_TRUE(stored.empty());
  // Written chunks in the first batches, then one that is not in the file
  // (all read by HDF5 then: past the damaged chunk 1).
  const detail::ForTesting one(detail::g_read_batch_for_testing, 1);
  stored = {{1}};
  std::vector<std::uint64_t> expected(ranks.begin() + 2 * kChunk, ranks.end());
  expected.resize(4 * kChunk, 0);
  EXPECT_EQ(reader.losing_ranks(2 * kChunk, 4 * kChunk, &stored), expected);
  EXPECT_TRUE(stored.empty());
}

TEST(ResumeRanks, ChunksThatSkippedAFilterAreReadThroughHdf5) {
  // A chunk stored shuffled and checksummed but not deflated, its filter
  // mask saying so: the reader leaves it to HDF5, which reads it alike.
  ScratchDir dir;
  const std::string path = dir.file("ranks.h5");
  const std::vector<std::uint64_t> sizes{2 * kChunk + 9};
  const std::vector<std::vector<std::uint64_t>> written = write_random_levels(path, sizes);
  const std::vector<std::uint64_t> middle(written[0].begin() + kChunk, written[0].begin() + 2 * kChunk);
  const std::vector<std::uint8_t> plain = filtered_by_hdf5(dir.file("plain.h5"), H5T_STD_U64LE, middle, 0, true);
  ASSERT_EQ(plain.size(), kChunk * 8 + 4);
  {
    RawFile raw(path);
    const hid_t ds = H5Dopen2(raw.get(), "resume/losing_ranks", H5P_DEFAULT);
    const hsize_t offset = kChunk;
    ASSERT_GE(H5Dwrite_chunk(ds, H5P_DEFAULT, 0x2 /* the second filter, deflate, skipped */, &offset, plain.size(),
                             plain.data()),
              0);
    H5Dclose(ds);
  }
  StoredChunks stored;
  EXPECT_EQ(LevelFileReader(path).losing_ranks(0, sizes[0], &stored), written[0]);
  EXPECT_TRUE(stored.empty());
}

TEST_F(DamagedFile, RestoredLevelsKeepTheirChunksAsStored) {
  // A level's chunk made by HDF5's own filters (deflate level 9, not the
  // writer's run-length deflate) holds the same ranks in other bytes. A
  // resume copies the chunks of the levels it restores as they are, checked
  // but not deflated again, so the new file has those bytes.
  const int n = 45;
  const hsize_t index = first_rank_index(n) / kChunk;
  const std::vector<std::uint64_t> all = RawFile(path_).read<std::uint64_t>("resume/losing_ranks", H5T_NATIVE_UINT64);
  std::vector<std::uint64_t> ranks(kChunk, 0);
  std::copy(all.begin() + static_cast<std::ptrdiff_t>(index * kChunk),
            all.begin() + static_cast<std::ptrdiff_t>(std::min<hsize_t>(all.size(), (index + 1) * kChunk)),
            ranks.begin());
  const std::vector<std::uint8_t> theirs = filtered_by_hdf5(dir_.file("nine.h5"), H5T_STD_U64LE, ranks, 9);
  ASSERT_NE(theirs, stored_chunk(path_, index)) << "the test needs another encoding of the chunk";
  replace_chunk(path_, index, theirs);

  const ProcessResult r = run_chomp({"sieve", "--resume", "-q", "-o", path_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Every level was in the file: the run only restored them.
  EXPECT_NE(r.err.find("(levels 1..50, "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" s restoring them)"), std::string::npos) << r.err;
  EXPECT_EQ(stored_chunk(path_, index), theirs);
  const LevelFileReader done(path_), ref(base_file());
  EXPECT_EQ(done.table().losing, ref.table().losing);
  EXPECT_EQ(done.losing_ranks(0, done.stored_losing_ranks()), ref.losing_ranks(0, ref.stored_losing_ranks()));
}
