/// @file test_cli_errors.cpp
/// @brief Hostile input and hostile machines, through the `chomp` program:
/// every bad argument or position gets one clear line on stderr, exit code 2,
/// and no file; an unwritable path, a full disk and a file size limit get a
/// clear error, exit code 1, and leave the finished levels readable.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <sys/mount.h>

#include <filesystem>
#include <memory>
#include <thread>

#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/ranking.hpp"
#include "chomp_process.hpp"
#include "committed_data.hpp"

using namespace chomp;
using namespace chomp::testing;

namespace {

struct HostileCase {
  std::vector<std::string> args;
  int exit_code;
  std::string says;  ///< a piece of the message
};

std::string describe(const HostileCase& c) {
  std::string s;
  for (const std::string& a : c.args) s += "[" + (a.size() > 40 ? a.substr(0, 40) + "..." : a) + "] ";
  return s;
}

/// The levels a failed run left: readable, not complete, every count right.
void expect_levels_intact(const std::string& path, int at_least) {
  const LevelTable t = read_level_file(path);
  EXPECT_FALSE(t.complete());
  EXPECT_GE(static_cast<int>(t.tiles.size()), at_least);
  const PartitionTable table(static_cast<int>(t.tiles.size()) + 1);
  for (std::size_t i = 0; i < t.tiles.size(); ++i) EXPECT_EQ(t.positions[i], table.positions(static_cast<int>(i) + 1));
  // The store holds every finished level: each reads back whole.
  const LevelFileReader reader(path);
  const auto levels = reader.stored_levels(static_cast<int>(t.tiles.size()));
  const auto store = LosingStore::open(reader.store_path(), reader.run_id(), levels, false);
  for (int n = 1; n <= store->levels(); ++n) EXPECT_NO_THROW(store->check_level(n, table.positions(n))) << n;
}

}  // namespace

TEST(CliErrors, HostileArgumentsAreRefusedWithOneLineAndNoFile) {
  const std::string huge(5000, '9');
  const std::vector<HostileCase> cases{
      // --max-tiles
      {{"sieve", "-n", ""}, 2, "empty value"},
      {{"sieve", "-n", " 5"}, 2, "not a whole number"},
      {{"sieve", "-n", "5 "}, 2, "not a whole number"},
      {{"sieve", "-n", "+5"}, 2, "not a whole number"},
      {{"sieve", "-n", "0x10"}, 2, "not a whole number"},
      {{"sieve", "-n", "1e3"}, 2, "not a whole number"},
      {{"sieve", "-n", "12.5"}, 2, "not a whole number"},
      {{"sieve", "-n", "abc"}, 2, "not a whole number"},
      {{"sieve", "-n", "-5"}, 2, "is negative"},
      {{"sieve", "-n", "0"}, 2, "at least 1"},
      {{"sieve", "-n", "256"}, 2, "at most 255 (a position is stored as a lattice path"},
      {{"sieve", "-n", "99999999999999999999"}, 2, "too large: at most 255"},
      {{"sieve", "-n", huge}, 2, "too large"},
      {{"sieve", "-n", "\xff\xfe"}, 2, "'\\xFF\\xFE' is not a whole number"},
      {{"sieve", "-n", "\xd9\xa3"}, 2, "not a whole number"},  // ARABIC-INDIC DIGIT THREE
      {{"sieve", "-n", "5", "-n", "6"}, 2, "--max-tiles"},
      {{"sieve", "-n"}, 2, "--max-tiles"},
      // --threads, --store-losing, --memory-limit
      {{"sieve", "-t", "0"}, 2, "at least 1"},
      {{"sieve", "-t", "-1"}, 2, "negative"},
      {{"sieve", "-t", "99999"}, 2, "at most 4096"},
      {{"sieve", "-t", "two"}, 2, "not a whole number"},
      {{"sieve", "--store-losing", "64"}, 2, "at most 63 (stored positions are 64-bit"},
      {{"sieve", "--dimensions", "3"}, 2, "--dimensions 3 needs --max-tiles N, at most 56 cubes"},
      {{"sieve", "--dimensions", "3", "-n", "64"}, 2, "--max-tiles 64 with --dimensions 3: at most 56 cubes"},
      {{"sieve", "--dimensions", "3", "--resume", "-o", "/nonexistent-folder/none3.h5"}, 2,
       "there is no /nonexistent-folder/none3.h5 to resume; a new 3D run needs --max-tiles N, at most 56 cubes"},
      {{"grundy", "--dry-run", "--resume"}, 2, "--max-tiles N is required (a --resume takes the --output file's)"},
      {{"sieve", "--store-losing", "20", "-n", "10"}, 2, "--store-losing 20 exceeds --max-tiles 10"},
      {{"sieve", "--slices", "2", "--slice-from", "20", "-n", "10"}, 2,
       "--slice-from 20 exceeds --max-tiles 10: --slices would cut no level"},
      {{"sieve", "--slice-from", "5", "-n", "10"}, 2, "--slice-from requires --slices"},
      {{"sieve", "--file-all-marks", "--inferred-rows", "1"}, 2, "excludes"},
      {{"sieve", "--memory-limit", ""}, 2, "empty size"},
      {{"sieve", "--memory-limit", "12Q"}, 2, "unknown unit"},
      {{"sieve", "--memory-limit", "0"}, 2, "is zero"},
      {{"sieve", "--memory-limit", "-5G"}, 2, "not a size"},
      {{"sieve", "--memory-limit", "1.5.5G"}, 2, "not a size"},
      {{"sieve", "--memory-limit", "99999999999999T"}, 2, "is more than 1048576T (2^60 bytes)"},
      // 2^63 bytes and more were written into the file as a negative budget.
      {{"sieve", "--memory-limit", "8388608T"}, 2, "is more than 1048576T (2^60 bytes)"},
      {{"sieve", "--memory-limit", "1.0000000000000001T"}, 2, "more than 15 digits after the point"},
      // A 3D level of more than 2^32 - 1 losing positions: its set's 32-bit
      // directory would wrap (the plan's estimate of level 57 is 4.8e9).
      {{"sieve", "--dimensions", "3", "-n", "58", "--dry-run"}, 2, "level 57 would hold about"},
      {{"sieve", "--memory-limit", "1M", "-n", "50"}, 2, "the smallest --memory-limit that works is"},
      // A limit beyond the machine's memory: such a run grew until the kernel's OOM killer took it, or another
      // program (a long run beside it was killed so); a dry run may plan for a larger machine, a run may not.
      {{"sieve", "--memory-limit", "1000T", "-n", "150"}, 2, "is more than this machine's memory"},
      {{"sieve", "--dimensions", "3", "--memory-limit", "1000T", "-n", "30"}, 2, "is more than this machine's memory"},
      // Many threads: their buffers, not the window, are what does not fit.
      {{"sieve", "--memory-limit", "64M", "-n", "10", "-t", "256"}, 2, "and the buffers of its 256 threads"},
      {{"sieve", "-n", "255"}, 2, "does not fit nine tenths of the memory"},  // far beyond any machine
      // --checkpoint-every (NaN passed CLI11's range and meant: never save)
      {{"sieve", "--checkpoint-every", "nan"}, 2, "'nan' is not a decimal number"},
      {{"sieve", "--checkpoint-every", "inf"}, 2, "is not a decimal number"},
      {{"sieve", "--checkpoint-every", "-1"}, 2, "'-1' is negative; give a number from 0 to 1000000"},
      {{"sieve", "-t", "1", "-t", "2"}, 2, "--threads was given 2 times; give it once"},
      // a file to read that is not there, or a folder (the working folder is the case's own, empty)
      {{"show", "none.h5"}, 2, "there is no file 'none.h5'; give a result file of `chomp sieve` or `chomp grundy`"},
      {{"verify", "none.h5"}, 2, "there is no file 'none.h5'; give the result file of a 2D `chomp sieve` run"},
      {{"show", "."}, 2, "'.' is a folder; give a result file"},
      {{"sieve", "--checkpoint-every", "1e3"}, 2, "is not a decimal number"},
      {{"sieve", "--checkpoint-every", "1.2.3"}, 2, "is not a decimal number"},
      {{"sieve", "--checkpoint-every", "2000000"}, 2, "'2000000' is too large: at most 1000000"},
      // --output
      {{"sieve", "-o", ""}, 2, "empty file name"},
      {{"sieve", "-o", "-"}, 2, "'-' would name a file called '-'"},
      {{"grundy", "-n", "5", "-o", "-"}, 2, "'-' would name a file called '-'"},
      {{"rectangles", "--max-rows", "3", "--max-cols", "3", "-o", "-"}, 2, "'-' would name a file called '-'"},
      {{"sieve", "-o", "a\nb.h5"}, 2, "control character"},
      {{"sieve", "-o", "out/"}, 2, "names a folder"},
      {{"sieve", "-o", "."}, 2, "is a folder"},
      {{"sieve", "-o", std::string(300, 'a')}, 2, "has a part of 300 bytes"},
      {{"sieve", "-o", std::string(5000, 'a')}, 2, "bytes long"},
      // flags and words
      {{"sieve", "--force", "--resume"}, 2, "contradict"},
      {{"sieve", "--bogus"}, 2, "--bogus"},
      {{"sieve", "extra"}, 2, "extra"},
      {{}, 2, "a command is required; the commands are sieve, grundy"},
      // the parser's words set right: in the order given, with the option meant
      {{"sieve", "--max-tile", "10"}, 2, "not expected: --max-tile 10 (did you mean --max-tiles?)"},
      {{"count", "--rows", "3", "--cols", "4", "--debug"}, 2, "--debug goes before the command"},
      // brackets: the parser split "[4,4,2,1]" into words before the command saw it
      {{"analyze", "[4,4,2,1]"}, 2, "'[4,4,2,1]': write it without the brackets"},
      {{"analyze", "[3x4]"}, 2, "'[3x4]': write it without the brackets"},
      {{"play", "--boards", "[3x4,2x5]"}, 2, "'[3x4,2x5]': write it without the brackets"},
      // ... but another command's word in brackets is its own (a file named "[2]")
      {{"show", "[2]"}, 2, "there is no file '[2]'"},
      {{"sieve", "extra1", "two words"}, 2, "not expected: extra1 two words"},
      {{"nosuch"}, 2, "unknown command 'nosuch'"},
      {{""}, 2, "unknown command ''"},
      // positions (chomp analyze)
      {{"analyze", ""}, 2, "empty position"},
      {{"analyze", "   "}, 2, "empty position"},
      {{"analyze", "abc"}, 2, "unexpected character 'a'"},
      {{"analyze", "-3,1"}, 2, "negative row length"},
      {{"analyze", "3,0"}, 2, "row 2 has length 0"},
      {{"analyze", "1,2"}, 2, "must not increase"},
      {{"analyze", "3,,1"}, 2, "between commas"},
      {{"analyze", "99999999999999999999"}, 2, "too large"},
      {{"analyze", "3,\x01"}, 2, "byte 0x01"},
      {{"analyze", "\xef\xbc\x93,1"}, 2, "non-ASCII"},  // FULLWIDTH DIGIT THREE
      {{"analyze", "256"}, 2, "rows + columns <= 256"},
      {{"analyze", "9999999999999999999999999999999"}, 2, "row length 999999999999... is too large"},
      {{"analyze", std::string(5000, '1')}, 2, "at most 4096"},
      // '-' (standard input) and a position: was read as one position, "negative row length"
      {{"analyze", "-", "3,2"}, 2, "'-' reads the position from standard input, and a position was given too"},
  };
  // A few at a time: each process mostly waits for its start-up.
  constexpr std::size_t kBatch = 6;
  for (std::size_t first = 0; first < cases.size(); first += kBatch) {
    struct Running {
      const HostileCase* c;
      std::unique_ptr<ScratchDir> dir;
      std::unique_ptr<ChompProcess> process;
    };
    std::vector<Running> batch;
    for (std::size_t i = first; i < std::min(cases.size(), first + kBatch); ++i) {
      Running r{&cases[i], std::make_unique<ScratchDir>(), nullptr};
      ProcessOptions opts;
      opts.cwd = r.dir->path().string();
      r.process = std::make_unique<ChompProcess>(cases[i].args, opts);
      batch.push_back(std::move(r));
    }
    for (Running& running : batch) {
      const HostileCase& c = *running.c;
      SCOPED_TRACE(describe(c));
      const ProcessResult r = running.process->wait();
      EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
      EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
      // One line that says what is wrong (CLI11's refusals add one pointing
      // to --help); nothing longer than a screen line or two.
      const auto problem_lines = std::count(r.err.begin(), r.err.end(), '\n') -
                                 (r.err.find("for usage.") != std::string::npos ? 1 : 0);
      EXPECT_EQ(problem_lines, 1) << r.err;
      EXPECT_LT(r.err.size(), 700U) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
      const auto left = running.dir->entries();
      EXPECT_TRUE(left.empty()) << "a refused command wrote " << left.front();
    }
  }
}

TEST(CliErrors, UnwritablePathsFailCleanly) {
  ScratchDir dir;
  std::ofstream(dir.file("plain-file")) << "x";
  // A missing folder, or a file in its place, is named before any plan,
  // a dry run's too, and nothing is made.
  for (const auto& [out, what] : {std::pair{dir.file("no/such/folder/run.h5"), "does not exist; make it first"},
                                  std::pair{dir.file("plain-file/run.h5"), "is a file, not a folder; give another --output"}})
    for (const char* command : {"sieve", "grundy", "rectangles"})
      for (const bool dry : {false, true}) {
        std::vector<std::string> args{command, "-n", "10", "-q", "-o", out};
        if (dry) args.push_back("--dry-run");
        if (dry && std::string(command) == "grundy") continue;  // its dry run writes nothing and needs no folder
        if (std::string(command) == "rectangles") {
          if (dry) continue;
          args = {command, "--max-rows", "3", "--max-cols", "4", "-q", "-o", out};
        }
        const ProcessResult r = run_chomp(args);
        EXPECT_EQ(r.exit_code, 2) << command << ' ' << out << ' ' << r.err;
        EXPECT_NE(r.err.find("the folder of --output " + out + " " + what), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "the error alone: " << r.err;
      }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"plain-file"});
  // A folder this process may not write to: by permissions when not root
  // (root ignores them), by a read-only mount when root.
  const std::filesystem::path locked = dir.path() / "locked";
  std::filesystem::create_directory(locked);
  bool mounted = false;
  if (geteuid() == 0) {
    mounted = mount("tmpfs", locked.c_str(), "tmpfs", MS_RDONLY, "size=1m") == 0;
    if (!mounted) GTEST_SKIP() << "running as root without permission to mount a read-only tmpfs";
  } else {
    std::filesystem::permissions(locked, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  }
  const ProcessResult r = run_chomp({"sieve", "-n", "10", "-q", "-o", (locked / "run.h5").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.err.find("Read-only file system") != std::string::npos ||
              r.err.find("Permission denied") != std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(check that its folder exists and this user may write there)"), std::string::npos) << r.err;
  // rectangles writes its files only once the box is solved (minutes at
  // 18 x 18): it looks at their folder first.
  for (const char* option : {"-o", "--csv"}) {
    const std::string out = (locked / "r.h5").string();
    const ProcessResult rr = run_chomp({"rectangles", "--max-rows", "3", "--max-cols", "4", "-q", option, out});
    EXPECT_EQ(rr.exit_code, 1) << rr.err;
    EXPECT_TRUE(contains(rr.err, std::string("cannot write in the folder of ") + (option[1] == 'o' ? "--output " : "--csv ") +
                                     out + ": "))
        << rr.err;
    EXPECT_TRUE(contains(rr.err, "(give a folder this user may write to)")) << rr.err;
  }
  if (mounted) umount(locked.c_str());
  std::filesystem::permissions(locked, std::filesystem::perms::owner_all);
}

// Standard output on a full disk: a table redirected to a file (`chomp show
// FILE --csv > table.csv`) that could not be written whole is an error,
// exit 1 with one line that says so, not exit 0 beside a truncated file.
// The commands print through iostreams (show) and printf (analyze) alike.
TEST(CliErrors, StandardOutputThatCannotBeWrittenIsAnError) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  ScratchDir dir;
  const std::string levels = dir.file("levels.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "12", "-q", "-o", levels}).exit_code, 0);
  ProcessOptions full;
  full.stdout_path = "/dev/full";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"show", levels, "--csv"}, {"show", levels, "--json"}, {"analyze", "3,2,1", "--json"},
        {"analyze", "4,4,2"}, {"count", "--rows", "3", "--cols", "4"}, {"divisors", "12"},
        // help and version too: they exited 0 having printed nothing
        {"--help"}, {"sieve", "--help"}, {"--version"}}) {
    const ProcessResult r = run_chomp(args, full);
    EXPECT_EQ(r.exit_code, 1) << args[0] << ' ' << args.back() << ": " << r.err;
    // (`--version` and a command's help fail in a write the stream makes
    // before the output is checked, whose reason is gone by then.)
    const bool help = args.back() == "--help" || args.back() == "--version";
    EXPECT_TRUE(contains(r.err, help ? "chomp: error: cannot write standard output"
                                     : "chomp: error: cannot write standard output (No space left on device)"))
        << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    // The same command with somewhere to write succeeds: the error is the
    // output's, not the command's.
    const ProcessResult ok = run_chomp(args);
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_FALSE(ok.out.empty());
  }
}

// A build without MPI started by mpirun or srun as several processes runs
// the whole sieve in each: what independent runs of one srun step want, so
// it is not refused, but each process says so and what to do for one run
// shared by them (mpirun -np 2 of such a build used to end in one file and
// an aborted job, with no word of MPI). A launcher is read from its
// environment, as Open MPI's mpirun sets it; in a build with MPI the suite
// runs real jobs (tests/mpi).
TEST(CliErrors, ABuildWithoutMpiSaysSoUnderALauncherOfSeveral) {
#if CHOMP_TESTS_WITH_MPI
  GTEST_SKIP() << "this build has MPI: tests/mpi runs the sieve under mpirun";
#else
  ScratchDir dir;
  struct Launcher {
    Launcher(const char* size, const char* rank) {
      setenv("OMPI_COMM_WORLD_SIZE", size, 1);
      setenv("OMPI_COMM_WORLD_RANK", rank, 1);
    }
    ~Launcher() { unsetenv("OMPI_COMM_WORLD_SIZE"), unsetenv("OMPI_COMM_WORLD_RANK"); }
  };
  const std::string note = "chomp: note: the launcher started 2 processes, but this chomp was built without MPI: "
                           "each runs the whole sieve on its own; for one run shared by them, build chomp with "
                           "-DCHOMP_WITH_MPI=ON (doc/MPI.md)\n";
  for (const char* rank : {"0", "1"}) {
    Launcher two("2", rank);
    const std::string out = dir.file(std::string("run-") + rank + ".h5");
    const ProcessResult r = run_chomp({"sieve", "-n", "20", "-q", "-o", out});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find(note), std::string::npos) << r.err;
    EXPECT_EQ(read_level_file(out).losing.back(), 42U);  // L(20), data/reference/small_counts.csv
  }
  // One process under a launcher, and values that are no count (a rank of
  // 20 digits used to overflow), say nothing.
  for (const auto& [size, rank] : {std::pair{"1", "0"}, std::pair{"x", ""}, std::pair{"1", "99999999999999999999"}}) {
    Launcher odd(size, rank);
    const ProcessResult r = run_chomp({"sieve", "-n", "12", "-q", "-o", dir.file("odd.h5"), "--force"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (std::string(rank).size() < 20) {
      EXPECT_EQ(r.err.find("note: the launcher"), std::string::npos) << size << ' ' << rank << ": " << r.err;
    }
  }
#endif
}

// A file size limit (ulimit -f): SIGXFSZ is ignored, the write fails with
// EFBIG, the error says so in one line and how to continue, and the levels
// finished before it stay readable and resumable.
TEST(CliErrors, FileSizeLimitFailsCleanlyAndKeepsFinishedLevels) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  ProcessOptions opts;
  opts.file_size_limit = 100 * 1024;  // the whole run needs 270 KiB
  const ProcessResult r = run_chomp({"sieve", "-n", "60", "-q", "-o", out}, opts);
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal;
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--resume"), std::string::npos) << r.err;
  // (The store, larger than the result file, reaches the limit first.)
  EXPECT_NE(r.err.find("cannot write store"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(raise the limit on a file's size, ulimit -f, or free space on its disk)"), std::string::npos)
      << r.err;
  // The plan, the error and how to continue: no HDF5 error stack.
  EXPECT_EQ(r.err.find("HDF5-DIAG"), std::string::npos) << r.err;
  EXPECT_LE(count_lines(r.err), 3) << r.err;
  expect_levels_intact(out, 20);

  const ProcessResult resumed = run_chomp({"sieve", "--resume", "-q", "-o", out});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_TRUE(read_level_file(out).complete());
}

/// A tmpfs of the given size ("256k") mounted on a new folder for the
/// object's lifetime; only root may mount one.
class SmallDisk {
 public:
  SmallDisk(const std::filesystem::path& folder, const std::string& size) : folder_(folder) {
    std::filesystem::create_directory(folder_);
    mounted_ = geteuid() == 0 && mount("tmpfs", folder_.c_str(), "tmpfs", 0, ("size=" + size).c_str()) == 0;
  }
  ~SmallDisk() {
    if (mounted_) umount(folder_.c_str());
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;
  bool mounted() const { return mounted_; }

 private:
  std::filesystem::path folder_;
  bool mounted_ = false;
};

namespace {

/// Every level of a finished run has the committed table's count and marks
/// (a run that files the marks of the first two rows' moves, as the committed ones did:
/// --file-all-marks, which --resume keeps).
void expect_committed_levels(const LevelTable& done) {
  const LevelTable committed = read_level_file(chomp::testing::committed_levels_file("h5"));
  ASSERT_LE(done.tiles.size(), committed.tiles.size());
  for (std::size_t i = 0; i < done.tiles.size(); ++i) {
    EXPECT_EQ(done.losing[i], committed.losing[i]) << "n = " << i + 1;
    EXPECT_EQ(done.marks[i], committed.marks[i]) << "n = " << i + 1;
  }
}

}  // namespace

// A full disk, made with a small tmpfs that a file fills once the run has
// started (needs root; skipped otherwise, and the file size limit above
// covers the same path): the run stops cleanly, gives back the bytes of the
// level it was writing, and resumes once there is room; with whole levels,
// and with levels from 31 on in three slices (the disk fills inside a sliced
// level, as a slice's losing ranks go to the store). The resumed run's counts and marks are
// the committed table's. The file records status "interrupted" when its
// disk has room for that (config::kFinishRoomBytes), and is left as a kill
// leaves it, "running", when not: the third case fills the disk to the
// last byte, where recording the status once left end_utc pointing past
// the end of the file and the file unreadable. Either way the message says
// which, and the file reads.
TEST(CliErrors, FullDiskFailsCleanlyAndKeepsFinishedLevels) {
  struct Case {
    bool sliced;
    std::uintmax_t left;  // bytes the filler leaves free
  };
  for (const Case c : {Case{false, 96 << 10}, Case{true, 96 << 10}, Case{false, 0}}) {
    const bool sliced = c.sliced;
    SCOPED_TRACE(std::string(sliced ? "levels from 31 on in 3 slices" : "whole levels") + ", " +
                 std::to_string(c.left) + " bytes left");
    ScratchDir dir;
    const std::filesystem::path small = dir.path() / "small";
    const SmallDisk disk(small, "8m");
    if (!disk.mounted()) GTEST_SKIP() << "cannot mount a small tmpfs (needs root)";
    const std::string out = (small / "run.h5").string();
    const std::string filler = (small / "filler").string();
    std::vector<std::string> args{"sieve", "-n", "86", "-t", "2", "-o", out, "--file-all-marks"};
    if (sliced) args.insert(args.end(), {"--slices", "3", "--slice-from", "31"});
    ChompProcess run(args);
    ASSERT_TRUE(run.wait_until([&] { return run.last_level_printed() >= 30; })) << run.err();
    {
      // All but c.left bytes of what is free now (with none left, writing
      // until the disk refuses).
      const auto room = std::filesystem::space(small).available;
      std::ofstream f(filler, std::ios::binary);
      const std::string mib(1 << 16, 'x');
      for (std::uintmax_t left = room > c.left ? room - c.left : 0; left > 0 && f;) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uintmax_t>(left, mib.size()));
        f.write(mib.data(), static_cast<std::streamsize>(n));
        f.flush();
        left -= n;
      }
      if (c.left == 0)
        for (int i = 0; i < 4096 && f.put('x') && f.flush(); ++i) {
        }
    }
    const ProcessResult r = run.wait();
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("(free space on its disk), continue with: "), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("HDF5-DIAG"), std::string::npos) << r.err;
    expect_levels_intact(out, 30);
    const std::string status = read_level_file(out).status();
    EXPECT_TRUE(status == "interrupted" || status == "running") << status;
    EXPECT_NE(r.err.find("(status \"" + status + "\")"), std::string::npos) << r.err;
    const LevelFileReader reader(out);
    const auto store = LosingStore::open(reader.store_path(), reader.run_id(),
                                         reader.stored_levels(static_cast<int>(reader.table().tiles.size())), false);
    EXPECT_EQ(std::filesystem::file_size(store_path_for(out)), store->file_bytes())
        << "the cut-off level's bytes were given back";

    // With the filler gone, the same command continues.
    std::filesystem::remove(filler);
    const ProcessResult resumed = run_chomp({"sieve", "--resume", "-q", "-o", out});
    EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
    const LevelTable done = read_level_file(out);
    EXPECT_TRUE(done.complete());
    ASSERT_EQ(done.tiles.size(), 86u);
    if (sliced) {
      EXPECT_EQ(*std::max_element(done.slices.begin(), done.slices.end()), 3u);
    }
    expect_committed_levels(done);
  }
}

// A run whose store will not fit the disk is refused at the start, naming
// what is missing, and writes nothing (a tmpfs again).
TEST(CliErrors, ARunTooLargeForTheDiskIsRefusedBeforeAnyWork) {
  ScratchDir dir;
  const std::filesystem::path small = dir.path() / "small";
  const SmallDisk disk(small, "256k");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a small tmpfs (needs root)";
  const std::string out = (small / "run.h5").string();
  // A store to 95 tiles takes about 6 MB.
  const ProcessResult refused = run_chomp({"sieve", "-n", "95", "-q", "-o", out});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("missing); free some space there"), std::string::npos) << refused.err;
  EXPECT_TRUE(std::filesystem::is_empty(small));
  // The dry run (which times a calibration first, so a smaller run: to 82,
  // a store of about 2.5 MiB) prints the plan, and the same refusal.
  const ProcessResult plan = run_chomp({"sieve", "-n", "82", "--dry-run", "-o", out});
  EXPECT_EQ(plan.exit_code, 2) << plan.err;
  EXPECT_NE(plan.out.find("disk: store ~"), std::string::npos) << plan.out;
  EXPECT_NE(plan.err.find("missing); free some space there"), std::string::npos) << plan.err;
}

// A disk that holds the run but not also a stopped window's checkpoint (the
// plan prints both): the run goes on, and says what a stop would cost.
TEST(CliErrors, ADiskWithoutRoomForACheckpointIsNamedButTheRunGoesOn) {
  ScratchDir dir;
  const std::filesystem::path small = dir.path() / "small";
  const SmallDisk disk(small, "4m");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a small tmpfs (needs root)";
  const std::string out = (small / "run.h5").string();
  // To 82 tiles: a store of about 2.5 MiB, windows of some 36 MiB.
  const std::string warning = "but not also for a window's checkpoint (up to ";
  const ProcessResult plan = run_chomp({"sieve", "-n", "82", "--dry-run", "-o", out});
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.err.find(warning), std::string::npos) << plan.err;
  EXPECT_NE(plan.err.find("after a stop or a kill inside a window --resume marks that window again"), std::string::npos)
      << plan.err;
  // A job of several processes saves no checkpoint: its plan asks no room for one.
  const ProcessResult cluster = run_chomp({"sieve", "-n", "82", "--dry-run", "--processes", "4", "-o", out});
  EXPECT_EQ(cluster.exit_code, 0) << cluster.err;
  EXPECT_EQ(cluster.err.find(warning), std::string::npos) << cluster.err;
  const ProcessResult ran = run_chomp({"sieve", "-n", "82", "-q", "-o", out});
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_NE(ran.err.find(warning), std::string::npos) << ran.err;
  EXPECT_TRUE(read_level_file(out).complete());
  // With room for it, no warning.
  const ProcessResult roomy = run_chomp({"sieve", "-n", "82", "--dry-run", "-o", dir.file("big.h5")});
  EXPECT_EQ(roomy.exit_code, 0) << roomy.err;
  EXPECT_EQ(roomy.err.find(warning), std::string::npos) << roomy.err;
}

// A checkpoint that would fit the disk but leave the store too little room
// is not saved (a tmpfs of 16 MiB; the run to 95 in 40 MiB takes a store of
// about 12 MiB and windows of about 9 MiB): a stop inside a window says so,
// and --resume marks the window again, to the committed table's levels.
TEST(CliErrors, ACheckpointThatWouldCrowdTheStoreIsNotSaved) {
  ScratchDir dir;
  const std::filesystem::path small = dir.path() / "small";
  const SmallDisk disk(small, "16m");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a small tmpfs (needs root)";
  const std::string out = (small / "run.h5").string();
  ChompProcess run({"sieve", "-n", "95", "-t", "2", "--memory-limit", "40M", "-o", out, "--file-all-marks"});
  ASSERT_TRUE(run.wait_until([&] { return run.last_level_printed() >= 86; })) << run.err();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  run.send(SIGTERM);
  const ProcessResult r = run.wait();
  ASSERT_EQ(r.exit_code, 143) << r.err;
  EXPECT_NE(r.err.find("but not also for a window's checkpoint"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did not save the progress of the window"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("MiB the store still needs; a resumed run marks it again"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(small / "run.window"));
  EXPECT_FALSE(std::filesystem::exists(small / "run.window.tmp"));
  const ProcessResult resumed = run_chomp({"sieve", "--resume", "-q", "-o", out});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const LevelTable done = read_level_file(out);
  ASSERT_TRUE(done.complete());
  ASSERT_EQ(done.tiles.size(), 95u);
  expect_committed_levels(done);
}

// A disk with room for one checkpoint but not for the next written beside
// it (a tmpfs of 22 MiB; the run to 90 in 40 MiB takes a store of about
// 7 MiB and windows of up to 11 MiB, saved every few tenths of a second):
// such a save is skipped and says what the disk has, the run goes on and
// ends complete, with no half-written save left.
TEST(CliErrors, ASaveThatWouldNotFitBesideTheLastIsSkippedAndTheRunGoesOn) {
  ScratchDir dir;
  const std::filesystem::path small = dir.path() / "small";
  const SmallDisk disk(small, "22m");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a small tmpfs (needs root)";
  const std::string out = (small / "run.h5").string();
  const ProcessResult r = run_chomp({"sieve", "-n", "90", "-t", "1", "--memory-limit", "40M", "--checkpoint-every",
                                     "0.001", "--file-all-marks", "-q", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("did not save the progress of the window of levels [0-9.]+ \\([0-9]+ "
                                                  "MiB\\): its disk has [0-9]+ MiB free, and the new save is written "
                                                  "beside the last one before it replaces it")))
      << r.err;
  EXPECT_NE(r.err.find("is saved in " + (small / "run.window").string()), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(small / "run.window"));
  EXPECT_FALSE(std::filesystem::exists(small / "run.window.tmp"));
  const LevelTable done = read_level_file(out);
  ASSERT_TRUE(done.complete());
  ASSERT_EQ(done.tiles.size(), 90u);
  expect_committed_levels(done);
}

// The issue's example: a run to 170 fits 20G, in slices; and the bucket
// memory the plan prints grows with --threads (each thread files its own);
// more threads than cores plan quietly (the calibration once let TBB warn).
TEST(CliErrors, PlanFor170In20GAndBucketsPerThread) {
  ScratchDir dir;
  const ProcessResult far = run_chomp({"sieve", "-n", "170", "--memory-limit", "20G", "--dry-run", "-o", dir.file("a.h5")});
  EXPECT_EQ(far.exit_code, 0) << far.err;
  EXPECT_NE(far.out.find("plan: levels 1..170"), std::string::npos) << far.out;
  EXPECT_TRUE(std::regex_search(far.out, std::regex("levels from 1[0-9][0-9] on in slices"))) << far.out;
  const auto buckets = [&](const std::string& threads) {
    const ProcessResult r = run_chomp({"sieve", "-n", "40", "-t", threads, "--dry-run", "-o", dir.file("b.h5")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("TBB"), std::string::npos) << "-t " << threads << ": " << r.err;
    std::smatch m;
    EXPECT_TRUE(std::regex_search(r.out, m, std::regex("mark buckets ([0-9.]+) ([KMG])iB"))) << r.out;
    const double unit = m[2] == "K" ? 1.0 / 1024 : m[2] == "G" ? 1024.0 : 1.0;
    return std::stod(m[1]) * unit;  // MiB
  };
  const double one = buckets("1"), two = buckets("2"), many = buckets("64");
  EXPECT_LT(one, two);
  EXPECT_LT(2 * two, many);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(CliErrors, MemoryLimitAcceptsSizesAndRefusesWithTheNumbers) {
  ScratchDir dir;
  const ProcessResult ok = run_chomp({"sieve", "-n", "40", "--memory-limit", "20G", "--dry-run", "-o", dir.file("a.h5")});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("memory: "), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("time: ~"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("marks/s over levels 1..40"), std::string::npos) << ok.out;
  // Every window holds many levels: no window of one level to speak of.
  EXPECT_EQ(ok.out.find("a window holds one level"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("a visit to every source below its last level"), std::string::npos) << ok.out;
  // A budget whose windows hold one level from the late 80s on (p(87) +
  // p(88) is 9.9 MiB of bits, about what its windows hold; the level the
  // plan names is tested in Slices.ABudgetThatForces...): the estimate
  // says what those windows take and how much of it is visits.
  const ProcessResult lone =
      run_chomp({"sieve", "-n", "90", "-t", "2", "--memory-limit", "40M", "--dry-run", "-o", dir.file("b.h5")});
  EXPECT_EQ(lone.exit_code, 0) << lone.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(lone.out, m,
                                std::regex("from level ([0-9]+) on a window holds one level: those windows take "
                                           "~[0-9: s]+ of it, ([0-9]+)% of that visiting")))
      << lone.out;
  EXPECT_GT(std::stoi(m[1].str()), 40);
  EXPECT_GT(std::stoi(m[2].str()), 20);
  EXPECT_LT(std::stoi(m[2].str()), 90);
  const ProcessResult refused = run_chomp({"sieve", "-n", "40", "--memory-limit", "100K", "-o", dir.file("a.h5")});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("does not fit --memory-limit (100.0 KiB)"), std::string::npos) << refused.err;
  // The process's own share is named: "needs" a window of a few KiB beside
  // a limit of 100 KiB refused read as a contradiction.
  EXPECT_NE(refused.err.find("(of which the program itself, its libraries and a margin hold "), std::string::npos)
      << refused.err;
  // A plan under a limit below what the program holds says there is no
  // budget (it printed "a budget of 1.0 B").
  const ProcessResult none = run_chomp({"sieve", "--dimensions", "3", "-n", "10", "--memory-limit", "1M", "--dry-run",
                                        "-o", dir.file("d.h5")});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.out.find("of a budget of none: the limit is below the "), std::string::npos) << none.out;
  EXPECT_EQ(none.out.find("1.0 B"), std::string::npos) << none.out;
  EXPECT_TRUE(dir.entries().empty());
  // The limit it names does not grow with the limit refused, and it works.
  const auto smallest = [](const std::string& err) {
    std::smatch m;
    std::regex_search(err, m, std::regex("the smallest --memory-limit that works is ([0-9.]+) ([KMG])iB"));
    return m.size() == 3 ? m[1].str() + m[2].str() : std::string("none in: " + err);
  };
  const std::string named = smallest(refused.err);
  const ProcessResult other = run_chomp({"sieve", "-n", "40", "--memory-limit", "1M", "-o", dir.file("a.h5")});
  EXPECT_EQ(other.exit_code, 2);
  // (what the process holds besides the sieve differs by some KiB from run to run)
  EXPECT_NEAR(std::stod(smallest(other.err)), std::stod(named), 0.02 * std::stod(named)) << other.err;
  const ProcessResult fits = run_chomp({"sieve", "-n", "40", "--memory-limit", named, "--dry-run", "-o", dir.file("a.h5")});
  EXPECT_EQ(fits.exit_code, 0) << named << ": " << fits.err;
  EXPECT_TRUE(dir.entries().empty());
  // A resume fits the limit its new run fitted: it has read its file by
  // then, which measured 2 MiB more, and the continue command a stop
  // prints (the same --memory-limit) was refused at the smallest limit.
  ASSERT_EQ(run_chomp({"sieve", "-n", "30", "-t", "1", "-q", "--memory-limit", named, "-o", dir.file("a.h5")}).exit_code,
            0);
  const ProcessResult resumed =
      run_chomp({"sieve", "-n", "40", "--resume", "--memory-limit", named, "--dry-run", "-o", dir.file("a.h5")});
  EXPECT_EQ(resumed.exit_code, 0) << named << ": " << resumed.err;
}

// One set of conventions: every short option of every subcommand (read from
// its --help) means the same thing wherever it appears, and is in this
// table; rows and columns have long names only.
TEST(CliConventions, EveryShortOptionMeansOneThingAcrossSubcommands) {
  const std::map<std::string, std::string> meaning{
      {"-h", "--help"},    {"-n", "--max-tiles"}, {"-o", "--output"}, {"-t", "--threads"}, {"-q", "--quiet"},
      {"-f", "--force"},   {"-r", "--resume"},    {"-l", "--level"},  {"-s", "--seed"}};
  const ProcessResult top = run_chomp({"--help"});
  ASSERT_EQ(top.exit_code, 0);
  std::vector<std::string> commands;
  {
    std::istringstream in(top.out);
    bool listing = false;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("Subcommands:", 0) == 0) {
        listing = true;
        continue;
      }
      std::smatch m;
      if (listing && std::regex_search(line, m, std::regex("^  ([a-z]+) "))) commands.push_back(m[1]);
    }
  }
  ASSERT_GE(commands.size(), 7U) << top.out;
  int shorts = 0;
  for (const std::string& c : commands) {
    const ProcessResult help = run_chomp({c, "--help"});
    ASSERT_EQ(help.exit_code, 0) << c;
    const std::regex pair("^  (-[a-zA-Z]),(--[a-z-]+)");
    std::istringstream in(help.out);
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, pair)) continue;
      ++shorts;
      const auto it = meaning.find(m[1]);
      ASSERT_NE(it, meaning.end()) << c << ": " << m[1] << " is not in the table of short options";
      EXPECT_EQ(it->second, m[2].str()) << c << ": " << m[1] << " means " << m[2] << " here";
    }
    EXPECT_EQ(help.out.find("--rows") != std::string::npos && help.out.find("-r,--rows") != std::string::npos, false)
        << c;
  }
  EXPECT_GE(shorts, 15);
}

TEST(CliConventions, AnUnknownCommandIsNamed) {
  const ProcessResult r = run_chomp({"seive", "-n", "10"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'seive'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sieve"), std::string::npos) << r.err;
}

// A file size limit from 16 to 48 KiB stops a run to 80 in the middle of
// writing a row of the result file (below 30 KiB) or the store (above):
// every such run resumes to the same levels as the committed table. A
// status written after a full store (30-32 KiB), and a row flushed in part
// (29 KiB), each left a file that the resume refused (an attribute
// unreadable; a row whose trailer read 0).
TEST(CliErrors, EveryFileSizeLimitLeavesARunThatResumes) {
  ScratchDir dir;
  std::set<std::string> failures;
  int rows_in_part = 0;
  for (const int kib : {16, 24, 28, 29, 30, 31, 32, 40, 48}) {
    SCOPED_TRACE("ulimit -f " + std::to_string(kib));
    const std::string out = dir.file("run-" + std::to_string(kib) + ".h5");
    ProcessOptions opts;
    opts.file_size_limit = static_cast<std::uint64_t>(kib) * 1024;
    const ProcessResult r = run_chomp({"sieve", "-n", "80", "-t", "1", "-q", "--file-all-marks", "-o", out}, opts);
    ASSERT_EQ(r.exit_code, 1) << r.err;
    for (const char* what : {"cannot flush the /levels row", "cannot write store"})
      if (r.err.find(what) != std::string::npos) failures.insert(what);
    // A row written in part is no level to a reader: `show` leaves it out
    // and says so; the resume computes it again.
    const ProcessResult shown = run_chomp({"show", "--csv", out});
    std::size_t file_rows = 0;
    const bool in_part = [&] {
      const LevelFileReader reader(out);
      file_rows = reader.table().tiles.size();
      return reader.last_row_written_in_part();
    }();
    // The CSV: a header and a line a finished level.
    const auto lines = static_cast<std::size_t>(std::count(shown.out.begin(), shown.out.end(), '\n'));
    EXPECT_EQ(lines, 1 + file_rows - (in_part ? 1 : 0)) << shown.out;
    if (in_part) {
      ++rows_in_part;
      const ProcessResult text = run_chomp({"show", out});
      EXPECT_NE(text.out.find("was written only in part"), std::string::npos) << text.out;
    }
    const ProcessResult resumed = run_chomp({"sieve", "--resume", "-t", "1", "-q", "-o", out});
    EXPECT_EQ(resumed.exit_code, 0) << r.err << resumed.err;
    if (in_part) {
      EXPECT_NE(resumed.err.find("was written only in part"), std::string::npos) << resumed.err;
    }
    if (resumed.exit_code != 0) continue;
    const LevelTable done = read_level_file(out);
    EXPECT_TRUE(done.complete());
    EXPECT_EQ(done.tiles.size(), 80U);
    expect_committed_levels(done);
  }
  // Both places a limit stops the run at these sizes were met, and a row
  // written in part among them.
  EXPECT_EQ(failures.size(), 2U);
  EXPECT_GT(rows_in_part, 0);
}
