/// @file test_hostile_input.cpp
/// @brief Hostile arguments, standard input and timing, through the `chomp`
/// program: every numeric option read as decimal by one validator; standard
/// input bounded; the outputs of `rectangles` that cannot collide or be left
/// half written; two runs started together on one output, of which exactly
/// one writes; `verify` failing on a damaged complete file; the printed
/// resume command carrying every parameter.

#include <gtest/gtest.h>

#include <hdf5.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp_process.hpp"

using namespace chomp;
using namespace chomp::testing;

namespace {

/// A finished run to 25 tiles, made once per test program.
const std::string& finished_run() {
  static ScratchDir dir;
  static const std::string path = [] {
    const std::string p = dir.file("run.h5");
    const ProcessResult r = run_chomp({"sieve", "-n", "25", "-q", "-o", p});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return p;
  }();
  return path;
}

/// A numeric option and the arguments it is given with (the value last).
struct NumericOption {
  std::vector<std::string> before;  ///< the command and its other arguments
  std::string option;               ///< its long name
};

std::vector<NumericOption> numeric_options() {
  const std::string run = finished_run();
  // A dry run calibrates on levels 1..min(92, n): -n 30 keeps it to a
  // tenth of a second where 010 and 08 are accepted (3 s at the default 90).
  return {
      {{"sieve", "--dry-run"}, "--max-tiles"},   {{"sieve", "--dry-run", "-n", "30"}, "--threads"},
      {{"sieve", "--dry-run", "-n", "30"}, "--store-losing"}, {{"sieve", "--dry-run", "-n", "30"}, "--slices"},
      {{"sieve", "--dry-run", "-n", "30", "--slices", "2"}, "--slice-from"},  {{"sieve", "--dry-run", "-n", "30"}, "--processes"},
      {{"verify", run}, "--from"},               {{"verify", run}, "--to"},
      {{"verify", run}, "--every"},              {{"verify", run}, "--moves"},
      {{"verify", run}, "--threads"},            {{"count", "--cols", "3"}, "--rows"},
      {{"count", "--rows", "3"}, "--cols"},          {{"play"}, "--rows"},
      {{"play"}, "--cols"},                      {{"play"}, "--seed"},
      {{"rectangles", "--max-cols", "6", "-q"}, "--max-rows"}, {{"rectangles", "--max-rows", "3", "-q"}, "--max-cols"},
      {{"rectangles", "--max-rows", "3", "--max-cols", "4", "-q"}, "--threads"}, {{"analyze", "3,2"}, "--threads"},
      {{"grundy", "--dry-run"}, "--max-tiles"},  {{"grundy", "--dry-run", "-n", "10"}, "--threads"},
      {{"sieve", "--dry-run", "-n", "20"}, "--dimensions"},
  };
}

std::vector<std::string> with(const NumericOption& o, const std::string& value) {
  std::vector<std::string> args = o.before;
  args.push_back(o.option + "=" + value);
  return args;
}

}  // namespace

// 0x10, +5, -1, 2^64 and friends are refused by every numeric option with
// one line and exit code 2; 010 and 08 are read as decimal everywhere.
TEST(HostileInput, EveryNumericOptionIsDecimalOnly) {
  // A sanitizer build (several times slower to start) gets three of them.
  const std::vector<std::string> refused =
      sanitized_binary() ? std::vector<std::string>{"0x10", "-1", "18446744073709551616"}
                         : std::vector<std::string>{"0x10", "+5", "-1", "18446744073709551616", "1e3", " 5", "5 ",
                                                    "0b11", "", "-18446744073709551615", "99999999999999999999999"};
  // One option's values all at once: most of a run is starting up.
  for (const NumericOption& o : numeric_options()) {
    std::vector<std::unique_ptr<ChompProcess>> runs;
    for (const std::string& v : refused) runs.push_back(std::make_unique<ChompProcess>(with(o, v)));
    for (const char* v : {"010", "08"}) runs.push_back(std::make_unique<ChompProcess>(with(o, v)));
    for (std::size_t i = 0; i < refused.size(); ++i) {
      SCOPED_TRACE(o.before[0] + " " + o.option + "=[" + refused[i] + "]");
      const ProcessResult r = runs[i]->wait();
      EXPECT_EQ(r.exit_code, 2) << r.err;
      EXPECT_NE(r.err.find(o.option), std::string::npos) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
      EXPECT_EQ(count_lines(r.err), 2) << "the problem and the pointer to --help: " << r.err;
    }
    // Leading zeros: decimal (or refused as out of range), never octal.
    for (std::size_t i = refused.size(); i < runs.size(); ++i) {
      SCOPED_TRACE(o.before[0] + " " + o.option + (i == refused.size() ? "=010" : "=08"));
      const ProcessResult r = runs[i]->wait();
      EXPECT_EQ(r.signal, 0) << r.err;
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << "exit " << r.exit_code << ": " << r.err;
      EXPECT_EQ(r.err.find("Could not convert"), std::string::npos) << r.err;
      if (r.exit_code == 2) {
        EXPECT_NE(r.err.find("too "), std::string::npos) << "only out of range: " << r.err;
      }
    }
  }
}

// What 010 and 08 do, where the value shows.
TEST(HostileInput, LeadingZerosAreReadAsDecimal) {
  const ProcessResult sieve = run_chomp({"sieve", "--dry-run", "-n", "010"});
  EXPECT_EQ(sieve.exit_code, 0) << sieve.err;
  EXPECT_NE(sieve.out.find("levels 1..10,"), std::string::npos) << sieve.out;
  const ProcessResult eight = run_chomp({"sieve", "--dry-run", "-n", "08"});
  EXPECT_EQ(eight.exit_code, 0) << eight.err;
  EXPECT_NE(eight.out.find("levels 1..8,"), std::string::npos) << eight.out;
  const ProcessResult verify = run_chomp({"verify", finished_run(), "--to", "010"});
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  EXPECT_NE(verify.err.find("levels 1..10 of"), std::string::npos) << verify.err;
  const ProcessResult play = run_chomp({"play", "--rows", "010", "--seed", "010"});
  EXPECT_EQ(play.exit_code, 0) << play.err;
  EXPECT_NE(play.out.find("10 x 7 board"), std::string::npos) << play.out;
  EXPECT_NE(play.out.find("(seed 10)"), std::string::npos) << play.out;
  const ProcessResult seed = run_chomp({"play", "--seed", "18446744073709551615"});
  EXPECT_NE(seed.out.find("(seed 18446744073709551615)"), std::string::npos) << seed.out << seed.err;
  // grundy read 012 as octal (ten levels, a file that looked complete) until its options were transformed too
  // (-t 01: its threads are at most the cores, so 1 on any machine)
  const ProcessResult grundy = run_chomp({"grundy", "--dry-run", "-n", "012", "-t", "01"});
  EXPECT_EQ(grundy.exit_code, 0) << grundy.err;
  EXPECT_NE(grundy.out.find("levels 1..12 take"), std::string::npos) << grundy.out;
  EXPECT_NE(grundy.out.find("with 1 thread "), std::string::npos) << grundy.out;
  const ProcessResult rect = run_chomp({"rectangles", "--max-rows", "03", "--max-cols", "010", "-q"});
  EXPECT_EQ(rect.exit_code, 0) << rect.err;
  EXPECT_NE(rect.err.find("the 3 x 10 box"), std::string::npos) << rect.err;
}

// Standard input is read up to the longest position and refused past it,
// without reading on: an endless stream (/dev/zero) is answered at once.
TEST(HostileInput, StandardInputIsBounded) {
  ProcessOptions endless;
  endless.stdin_path = "/dev/zero";
  for (const std::vector<std::string>& args : {std::vector<std::string>{"analyze"}, {"play"}}) {
    ChompProcess p(args, endless);
    const bool ended = p.wait_until([] { return false; }, 20) || p.exited();
    if (!ended) p.send(SIGKILL);
    const ProcessResult r = p.wait();
    EXPECT_TRUE(ended) << args[0] << " read an endless input";
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("longer than"), std::string::npos) << r.err;
    EXPECT_LT(r.max_rss_kib, 200 * 1024);
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
  }
  // Just under the bound: read whole (a picture of 255 rows passes the reader).
  ScratchDir dir;
  const std::string input = dir.file("in.txt");
  {
    std::ofstream out(input);
    out << "###\n##\n#\n" << std::string(65536 - 9, '\n');
  }
  ProcessOptions file;
  file.stdin_path = input;
  const ProcessResult ok = ChompProcess({"analyze"}, file).wait();
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  {
    std::ofstream out(input, std::ios::app);
    out << '\n';
  }
  const ProcessResult over = ChompProcess({"analyze"}, file).wait();
  EXPECT_EQ(over.exit_code, 2) << over.err;
}

// What play echoes of its input is printable: no escape sequence reaches
// the terminal.
TEST(HostileInput, PlayDoesNotEchoControlCharacters) {
  ScratchDir dir;
  const std::string input = dir.file("in.txt");
  std::ofstream(input) << "\x1b]0;owned\x07\x1b[2J\nquit\n";
  ProcessOptions opts;
  opts.stdin_path = input;
  const ProcessResult r = ChompProcess({"play", "--seed", "1"}, opts).wait();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.out.find('\x07'), std::string::npos);
  EXPECT_NE(r.out.find("\\x1B]0;owned"), std::string::npos) << r.out;
}

// rectangles: the table and the CSV cannot be one file (by any name),
// empty names and folders are refused like sieve's, and a failed write
// leaves no temporary file and no partial CSV.
TEST(HostileInput, RectanglesOutputsCannotCollideOrBeLeftHalfWritten) {
  ScratchDir dir;
  const std::string same = dir.file("same");
  std::filesystem::create_directory(dir.file("d"));
  std::filesystem::create_symlink(same, dir.file("alias"));
  // (An argument of 128 KiB is more than exec passes: MAX_ARG_STRLEN.)
  const std::string huge(120 * 1024, 'x');
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"-o", same, "--csv", same}, "same file"},
      {{"-o", same, "--csv", dir.file("d/../same")}, "same file"},
      {{"-o", same, "--csv", dir.file("alias")}, "same file"},
      {{"-o", ""}, "empty file name"},
      {{"--csv", ""}, "empty file name"},
      {{"-o", dir.file("d/")}, "folder"},
      {{"--csv", dir.file("d")}, "folder"},
      {{"-o", dir.file("d")}, "folder"},
      {{"-o", huge}, "bytes"},
  };
  for (const auto& [outputs, says] : cases) {
    std::vector<std::string> args{"rectangles", "--max-rows", "3", "--max-cols", "5", "-q"};
    args.insert(args.end(), outputs.begin(), outputs.end());
    SCOPED_TRACE(outputs[0] + " " + outputs[1].substr(0, 60));
    const ProcessResult r = run_chomp(args);
    EXPECT_EQ(r.exit_code, 2) << r.err.substr(0, 1000);
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err.substr(0, 1000);
    EXPECT_LT(r.err.size(), 1000U);
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"alias", "d"}));
  }
  // A file size limit fails the writes: nothing is left beside the names.
  ProcessOptions small;
  small.file_size_limit = 2000;
  const ProcessResult full = run_chomp({"rectangles", "--max-rows", "8", "--max-cols", "20", "-q", "-o", dir.file("t.h5"), "--csv",
                                        dir.file("t.csv")},
                                       small);
  EXPECT_EQ(full.exit_code, 1) << full.err;
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"alias", "d"}));
  // And without the limit both are written.
  const ProcessResult ok =
      run_chomp({"rectangles", "--max-rows", "8", "--max-cols", "20", "-q", "-o", dir.file("t.h5"), "--csv", dir.file("t.csv")});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"alias", "d", "t.csv", "t.h5"}));
  EXPECT_GT(std::filesystem::file_size(dir.file("t.csv")), 100U);
}

// Two runs started together on one output: exactly one writes it, the
// other is refused naming the process that holds it (or, once the first
// finished, because the file exists); 50 times.
TEST(HostileInput, OfTwoRunsStartedTogetherExactlyOneWrites) {
  ScratchDir dir;
  const std::string out = dir.file("r.h5");
  int refused_as_running = 0;
  const int rounds = sanitized_binary() ? 15 : 50;
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    for (const std::string& name : dir.entries()) std::filesystem::remove(dir.path() / name);
    ChompProcess a({"sieve", "-n", "40", "-t", "1", "-q", "-o", out});
    ChompProcess b({"sieve", "-n", "30", "-t", "1", "-q", "-o", out});
    const ProcessResult ra = a.wait(), rb = b.wait();
    const int wrote = (ra.exit_code == 0) + (rb.exit_code == 0);
    ASSERT_EQ(wrote, 1) << "a: " << ra.err << "\nb: " << rb.err;
    const ProcessResult& winner = ra.exit_code == 0 ? ra : rb;
    const ProcessResult& loser = ra.exit_code == 0 ? rb : ra;
    EXPECT_NE(winner.err.find("wrote"), std::string::npos) << winner.err;
    EXPECT_EQ(loser.err.find("wrote"), std::string::npos) << loser.err;
    if (loser.exit_code == 1) {
      ++refused_as_running;
      EXPECT_NE(loser.err.find("being written by another chomp process (process "), std::string::npos)
          << loser.err;
    } else {
      EXPECT_EQ(loser.exit_code, 2) << loser.err;
      EXPECT_NE(loser.err.find("already exists"), std::string::npos) << loser.err;
    }
    // The file is the winner's run, whole.
    const LevelTable t = read_level_file(out);
    EXPECT_TRUE(t.complete());
    EXPECT_EQ(t.tiles.size(), &winner == &ra ? 40U : 30U);
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"r.h5", "r.store"}));
  }
  RecordProperty("refused_as_running", refused_as_running);
}

// verify fails on a file marked complete that is not: rows missing, or a
// count that its store does not hold.
TEST(HostileInput, VerifyFailsOnADamagedCompleteFile) {
  ScratchDir dir;
  const std::string path = dir.file("run.h5");
  std::filesystem::copy_file(finished_run(), path);
  std::filesystem::copy_file(store_path_for(finished_run()), store_path_for(path));
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t ds = H5Dopen2(f, "levels/losing", H5P_DEFAULT);
    std::vector<std::uint64_t> losing(25);
    H5Dread(ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, losing.data());
    losing[24] += 1;
    H5Dwrite(ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, losing.data());
    H5Dclose(ds);
    H5Fclose(f);
  }
  const ProcessResult plus_one = run_chomp({"verify", path});
  EXPECT_EQ(plus_one.exit_code, 1) << plus_one.err;
  EXPECT_NE(plus_one.err.find("level 25 holds 67 losing positions"), std::string::npos) << plus_one.err;
  EXPECT_NE(plus_one.err.find("says 68"), std::string::npos) << plus_one.err;

  // Complete, with the last 5 rows of every column gone.
  std::filesystem::copy_file(finished_run(), path, std::filesystem::copy_options::overwrite_existing);
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t g = H5Gopen2(f, "levels", H5P_DEFAULT);
    H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, nullptr,
               [](hid_t group, const char* name, const H5L_info_t*, void*) -> herr_t {
                 const hid_t ds = H5Dopen2(group, name, H5P_DEFAULT);
                 const hsize_t n = 20;
                 H5Dset_extent(ds, &n);
                 H5Dclose(ds);
                 return 0;
               },
               nullptr);
    H5Gclose(g);
    H5Fclose(f);
  }
  const ProcessResult cut = run_chomp({"verify", path});
  EXPECT_EQ(cut.exit_code, 1) << cut.err;
  EXPECT_NE(cut.err.find("complete"), std::string::npos) << cut.err;
  EXPECT_NE(cut.err.find("20"), std::string::npos) << cut.err;
}

// The command printed to continue a stopped run carries every parameter:
// run as printed (its arguments after the program), it continues the same
// run to a complete file.
TEST(HostileInput, ThePrintedResumeCommandCarriesEveryParameter) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  // --checkpoint-every 1000000 was printed as 1e+06, which the option refuses.
  ChompProcess p({"sieve", "-n", "70", "--store-losing", "12", "-t", "1", "--memory-limit", "1G",
                  "--checkpoint-every", "1000000", "-o", out});
  ASSERT_TRUE(p.wait_until([&] { return p.last_level_printed() >= 1; }, 60)) << p.err();
  p.send(SIGINT);
  const ProcessResult r = p.wait();
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_EQ(r.err.find("1..0"), std::string::npos) << r.err;
  const std::size_t at = r.err.find("to continue: ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string line = r.err.substr(at + 13, r.err.find('\n', at) - at - 13);
  for (const char* part : {"--max-tiles 70", "--store-losing 12", "--threads 1", "--memory-limit 1G",
                           "--checkpoint-every 1000000 ", "--resume"})
    EXPECT_NE(line.find(part), std::string::npos) << part << " missing from " << line;
  // Its words (the scratch path has no spaces or quotes), less the program's path.
  ASSERT_EQ(line.find_first_of("'\""), std::string::npos) << line;
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  ASSERT_GE(words.size(), 2u) << line;
  words.erase(words.begin());
  words.push_back("-q");
  const ProcessResult resumed = run_chomp(words);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const LevelTable t = read_level_file(out);
  EXPECT_TRUE(t.complete());
  EXPECT_EQ(t.tiles.size(), 70u);
  EXPECT_EQ(t.number_attributes.at("store_losing"), 12);
}

// A reader of the table on stdout that goes away (`| head`) does not kill
// the run: it used to die of SIGPIPE after the reader's last line, its file
// left "running" with both lock files. Now the run finishes its files
// whole (the table lines nobody reads are lost), and exits 0.
TEST(HostileInput, AReaderOfTheTableThatGoesAwayDoesNotStopTheRun) {
  ScratchDir dir;
  const std::string out = dir.file("piped.h5"), status = dir.file("status");
  const std::string command = "bash -c '\"" + chomp_binary() + "\" sieve -n 50 -t 1 -o \"" + out +
                              "\" 2>/dev/null | head -n 2 >/dev/null; echo ${PIPESTATUS[0]} > \"" + status + "\"'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(status);
  int code = -1;
  in >> code;
  EXPECT_EQ(code, 0) << "the run's exit status (141: killed by SIGPIPE)";
  const LevelTable t = read_level_file(out);
  EXPECT_TRUE(t.complete());
  EXPECT_EQ(t.tiles.size(), 50u);
  EXPECT_EQ(t.losing[49], 4976u);  // L(50), data/levels-170.csv
  EXPECT_FALSE(std::filesystem::exists(out + ".lock"));
  EXPECT_FALSE(std::filesystem::exists(store_path_for(out) + ".lock"));
}
