/// @file test_grundy_resume.cpp
/// @brief `chomp grundy` through the program: SIGTERM and SIGINT stop a run
/// cleanly (finished levels kept, status "interrupted", the command that
/// continues it), a SIGKILL leaves the finished levels, --resume gives the
/// levels of an uninterrupted run, and --resume refuses what it cannot
/// continue (a sieve file, a changed file, a smaller --max-tiles, another
/// --check-sieve) and leaves a finished file alone.

#include <gtest/gtest.h>

#include <regex>

#include "chomp/grundy.hpp"
#include "chomp/grundy_file.hpp"
#include "chomp_process.hpp"
#include "damaged_files.hpp"

using namespace chomp;
using namespace chomp::testing;

namespace {

/// Sizes: a run to kMax takes one to two seconds in Release (the last levels
/// most of it), so a signal sent once level kStopAfter is printed lands
/// inside a level; Debug and sanitizer builds run smaller levels.
constexpr int kMax = kFullSize ? 54 : 44;
constexpr int kStopAfter = kFullSize ? 48 : 38;

/// Waits until `run` has printed level kStopAfter, then sends it `sig`.
void signal_inside_a_level(ChompProcess& run, int sig) {
  ASSERT_TRUE(run.wait_until([&] { return run.last_level_printed() >= kStopAfter; })) << run.err();
  run.send(sig);
}

/// Two Grundy files hold the same levels: every count (seconds aside).
void expect_same_levels(const std::string& a_path, const std::string& b_path) {
  const GrundyFile a = read_grundy_file(a_path), b = read_grundy_file(b_path);
  EXPECT_EQ(a.tiles, b.tiles);
  EXPECT_EQ(a.positions, b.positions);
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_EQ(a.largest, b.largest);
  EXPECT_EQ(a.zeros, b.zeros);
  EXPECT_EQ(a.number_attributes.at("max_tiles"), b.number_attributes.at("max_tiles"));
}

std::string text(const GrundyFile& f, const char* name) {
  const auto it = f.text_attributes.find(name);
  return it == f.text_attributes.end() ? "<missing>" : it->second;
}

void expect_complete(const std::string& path, int levels) {
  const GrundyFile f = read_grundy_file(path);
  EXPECT_EQ(f.number_attributes.at("complete"), 1);
  EXPECT_EQ(text(f, "status"), "complete");
  EXPECT_EQ(static_cast<int>(f.tiles.size()), levels);
}

/// "chomp: to continue: <command>" from a stopped run's stderr.
std::string continue_command(const std::string& err) {
  std::smatch m;
  if (!std::regex_search(err, m, std::regex("to continue: ([^\n]+)"))) return "";
  return m[1].str();
}

}  // namespace

// SIGTERM (what batch schedulers send): the level in progress is dropped, the
// finished ones are kept with status "interrupted", exit 143; --resume with
// another thread count computes the saved levels again, checks them against
// the file and ends with an uninterrupted run's levels.
TEST(GrundyResume, SigtermStopsCleanlyAndResumeEqualsAnUninterruptedRun) {
  ScratchDir dir;
  const std::string ref = dir.file("ref.h5"), out = dir.file("run.h5");
  const std::string max = std::to_string(kMax);
  ChompProcess reference({"grundy", "-n", max, "-t", "1", "-q", "-o", ref});
  ChompProcess run({"grundy", "-n", max, "-t", "1", "-o", out});
  ASSERT_NO_FATAL_FAILURE(signal_inside_a_level(run, SIGTERM));
  const ProcessResult r = run.wait();
  ASSERT_EQ(r.exit_code, 143) << "the run ended before the signal? " << r.err;
  EXPECT_TRUE(contains(r.err, "stopped by SIGTERM during level ")) << r.err;
  EXPECT_TRUE(contains(r.err, "chomp: SIGTERM heard: stopping cleanly")) << r.err;
  EXPECT_TRUE(contains(r.err, "(status \"interrupted\")")) << r.err;
  int saved = 0;
  {
    const GrundyFile f = read_grundy_file(out);
    EXPECT_EQ(f.number_attributes.at("complete"), 0);
    EXPECT_EQ(text(f, "status"), "interrupted");
    EXPECT_NE(text(f, "end_utc"), "");
    saved = static_cast<int>(f.tiles.size());
    EXPECT_EQ(saved, run.last_level_printed()) << "every printed level is saved";
    EXPECT_GE(saved, kStopAfter);
    EXPECT_LT(saved, kMax);
    EXPECT_TRUE(contains(r.err, "levels 1.." + std::to_string(saved) + " are saved in ")) << r.err;
    EXPECT_EQ(text(f, "first_git_revision"), text(f, "git_revision"));
  }
  EXPECT_TRUE(contains(continue_command(r.err), "--resume")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out + ".tmp"));
  // As if a build older than the attribute had started the file: the
  // resume replaces git_revision and keeps the first leg's in
  // first_git_revision.
  set_attribute(out, "git_revision", text_value("0123456789ab"));
  delete_attribute(out, "first_git_revision");

  const ProcessResult resumed = run_chomp({"grundy", "--resume", "-t", "2", "-q", "-o", out});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_TRUE(contains(resumed.err, "resumed " + out + ": levels 1.." + std::to_string(saved) +
                                        " computed again and equal to the file's"))
      << resumed.err;
  EXPECT_TRUE(contains(resumed.err, " s computing levels 1.." + std::to_string(saved) + " again")) << resumed.err;
  ASSERT_EQ(reference.wait().exit_code, 0);
  expect_same_levels(ref, out);
  expect_complete(out, kMax);
  const GrundyFile f = read_grundy_file(out);
  EXPECT_TRUE(contains(text(f, "command_line"), "-n " + max + " -t 1 -o")) << "the first run's command line";
  EXPECT_TRUE(contains(text(f, "resume_history"), "computed levels 1.." + std::to_string(saved) + " again"))
      << text(f, "resume_history");
  EXPECT_EQ(f.number_attributes.at("threads"), 2);
  EXPECT_EQ(text(f, "first_git_revision"), "0123456789ab");
  EXPECT_NE(text(f, "git_revision"), "0123456789ab");
  const ProcessResult shown = run_chomp({"show", out});
  EXPECT_TRUE(contains(shown.out, "Grundy values of " + max + " levels, status complete")) << shown.out;
  EXPECT_TRUE(contains(shown.out, "resume_history")) << shown.out;
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"ref.h5", "run.h5"})) << "no .tmp or .lock left";
}

// SIGINT on a run checked against a sieve file: exit 130; the printed
// command, run as printed, finishes it, keeps checking against the same
// sieve file (every level, the saved ones computed again included).
TEST(GrundyResume, SigintThenThePrintedCommandFinishesTheRun) {
  ScratchDir dir;
  const std::string sieve = dir.file("levels.h5"), out = dir.file("run with space.h5");
  const std::string max = std::to_string(kMax);
  ASSERT_EQ(run_chomp({"sieve", "-n", max, "-q", "-o", sieve}).exit_code, 0);
  ChompProcess run({"grundy", "-n", max, "-t", "2", "--check-sieve", sieve, "-o", out});
  ASSERT_NO_FATAL_FAILURE(signal_inside_a_level(run, SIGINT));
  const auto sent = std::chrono::steady_clock::now();
  const ProcessResult r = run.wait();
  const double stop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  ASSERT_EQ(r.exit_code, 130) << r.err;
  EXPECT_LT(stop_s, 5.0) << "stopping takes a block of a level, not the level";
  EXPECT_TRUE(contains(r.err, "stopped by SIGINT")) << r.err;
  const std::string command = continue_command(r.err);
  ASSERT_FALSE(command.empty()) << r.err;
  EXPECT_TRUE(contains(command, "--max-tiles " + max + " --threads 2 --check-sieve ")) << command;
  const std::string log = dir.file("resume.err");
  const int rc = std::system(("cd / && " + command + " -q >/dev/null 2>'" + log + "'").c_str());
  ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << command << "\n" << read_text(log);
  EXPECT_TRUE(contains(read_text(log), "value 0 counts equal L(n) of " + sieve + " for levels 1.." + max))
      << read_text(log);
  expect_complete(out, kMax);
  const GrundyFile f = read_grundy_file(out);
  EXPECT_EQ(text(f, "checked_against"), sieve);
  const PartitionTable p(kMax);
  for (int n = 1; n <= kMax; ++n) {
    const std::size_t i = static_cast<std::size_t>(n - 1);
    EXPECT_EQ(f.positions[i], p.positions(n));
    std::uint64_t sum = 0;
    for (std::uint64_t c : f.counts[i]) sum += c;
    EXPECT_EQ(sum, p.positions(n)) << "level " << n;
  }
}

// A SIGKILL leaves the file as it was after the last finished level (status
// "running"): readable, and resumed like a stopped one.
TEST(GrundyResume, AKilledRunKeepsItsFinishedLevelsAndResumes) {
  ScratchDir dir;
  const std::string ref = dir.file("ref.h5"), out = dir.file("run.h5");
  const std::string max = std::to_string(kMax);
  ChompProcess reference({"grundy", "-n", max, "-t", "1", "-q", "-o", ref});
  {
    ChompProcess run({"grundy", "-n", max, "-t", "1", "-o", out});
    ASSERT_NO_FATAL_FAILURE(signal_inside_a_level(run, SIGKILL));
    ASSERT_EQ(run.wait().signal, SIGKILL);
  }
  const GrundyFile killed = read_grundy_file(out);
  EXPECT_EQ(text(killed, "status"), "running");
  EXPECT_EQ(killed.number_attributes.at("complete"), 0);
  EXPECT_GE(static_cast<int>(killed.tiles.size()), kStopAfter);
  // A second run on it is refused unless it resumes or starts over.
  const ProcessResult refused = run_chomp({"grundy", "-n", max, "-q", "-o", out});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_TRUE(contains(refused.err, "pass --resume to continue it, --force to start over")) << refused.err;
  const ProcessResult resumed = run_chomp({"grundy", "--resume", "-q", "-o", out});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  ASSERT_EQ(reference.wait().exit_code, 0);
  expect_same_levels(ref, out);
  expect_complete(out, kMax);
}

// A file size limit stops a run as a level's file is written: the message
// names the levels the file holds (not the one whose write failed), no
// NAME.tmp is left, and the resume finishes the run. Below the first level's
// file, no file at all is left, and nothing is said to be saved.
TEST(GrundyResume, AFileSizeLimitLeavesTheSavedLevelsAndNoTemporaryFile) {
  ScratchDir dir;
  bool left_none = false, left_some = false;  // each limit's case, checked below
  for (const int kib : {20, 26}) {
    SCOPED_TRACE("ulimit -f " + std::to_string(kib));
    const std::string out = dir.file("run-" + std::to_string(kib) + ".h5");
    ProcessOptions opts;
    opts.file_size_limit = static_cast<long long>(kib) * 1024;
    const ProcessResult r = run_chomp({"grundy", "-n", "60", "-t", "1", "-q", "-o", out}, opts);
    ASSERT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "cannot flush " + out + ".tmp")) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out + ".tmp"));
    if (!std::filesystem::exists(out)) {
      EXPECT_FALSE(contains(r.err, "are saved in")) << r.err;
      left_none = true;
      continue;
    }
    left_some = true;
    const int saved = static_cast<int>(read_grundy_file(out).tiles.size());
    EXPECT_GT(saved, 0);
    EXPECT_TRUE(contains(r.err, "levels 1.." + std::to_string(saved) + " are saved in " + out)) << r.err;
    const ProcessResult resumed = run_chomp({"grundy", "--resume", "-t", "1", "-q", "-o", out});
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    expect_complete(out, 60);
  }
  // 20 KiB is below the first level's file, 26 KiB holds some levels (1..44
  // when this was written): both paths ran.
  EXPECT_TRUE(left_none) << "every limit left a file: lower the smaller one";
  EXPECT_TRUE(left_some) << "no limit left a file: raise the larger one";
}

// A finished file: nothing to do, the file untouched; a larger --max-tiles
// extends it to the levels of a run made to that size at once; a smaller one,
// --force with --resume, or another --check-sieve are refused (exit 2).
TEST(GrundyResume, AFinishedFileIsLeftAloneOrExtendedAndContradictionsAreRefused) {
  ScratchDir dir;
  const std::string out = dir.file("g.h5"), fresh = dir.file("fresh.h5"), sieve = dir.file("s.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "30", "-q", "-o", sieve}).exit_code, 0);
  ASSERT_EQ(run_chomp({"grundy", "-n", "20", "-q", "-o", out, "--check-sieve", sieve}).exit_code, 0);
  const std::string bytes = read_text(out);
  const ProcessResult again = run_chomp({"grundy", "--resume", "-q", "-o", out});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(contains(again.err, "is complete (levels 1..20); nothing to resume")) << again.err;
  EXPECT_EQ(read_text(out), bytes) << "a complete file is left alone";

  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Case& c : {Case{{"-n", "19"}, "its run goes to --max-tiles 20 (as it was started, or last extended)"},
                        Case{{"--force"}, "contradict"},
                        Case{{"-n", "25", "--check-sieve", dir.file("other.h5")}, "it was started with --check-sieve"},
                        // (with nothing left to compute too: it said "nothing to resume", exit 0)
                        Case{{"--check-sieve", dir.file("other.h5")}, "it was started with --check-sieve"}}) {
    std::vector<std::string> args{"grundy", "--resume", "-q", "-o", out};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const ProcessResult r = run_chomp(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, c.says)) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
  }
  EXPECT_EQ(read_text(out), bytes);

  const ProcessResult extend = run_chomp({"grundy", "--resume", "-n", "25", "-q", "-o", out});
  ASSERT_EQ(extend.exit_code, 0) << extend.err;
  EXPECT_TRUE(contains(extend.err, " s for levels 21..25 after ")) << extend.err;
  EXPECT_TRUE(contains(extend.err, "value 0 counts equal L(n) of " + sieve)) << "the file's --check-sieve";
  ASSERT_EQ(run_chomp({"grundy", "-n", "25", "-q", "-o", fresh}).exit_code, 0);
  expect_same_levels(fresh, out);
  expect_complete(out, 25);
  EXPECT_EQ(text(read_grundy_file(out), "checked_against"), sieve);

  // A --check-sieve path relative to where the run began: from another
  // folder the resume asks for it again, and takes it given so.
  std::filesystem::create_directory(dir.path() / "elsewhere");
  ProcessOptions here, elsewhere;
  here.cwd = dir.path().string();
  elsewhere.cwd = (dir.path() / "elsewhere").string();
  ASSERT_EQ(run_chomp({"grundy", "-n", "12", "-q", "-o", "rel.h5", "--check-sieve", "s.h5"}, here).exit_code, 0);
  const ProcessResult lost = run_chomp({"grundy", "--resume", "-n", "14", "-q", "-o", "../rel.h5"}, elsewhere);
  EXPECT_EQ(lost.exit_code, 2) << lost.err;
  EXPECT_TRUE(contains(lost.err, "which is not there from this folder")) << lost.err;
  const ProcessResult found =
      run_chomp({"grundy", "--resume", "-n", "14", "-q", "-o", "../rel.h5", "--check-sieve", "../s.h5"}, elsewhere);
  EXPECT_EQ(found.exit_code, 0) << found.err;
  EXPECT_TRUE(contains(found.err, "value 0 counts equal L(n) of ../s.h5 for levels 1..14")) << found.err;

  // --resume without a file starts one; without --resume, -n is required.
  const ProcessResult started = run_chomp({"grundy", "--resume", "-n", "12", "-q", "-o", dir.file("new.h5")});
  EXPECT_EQ(started.exit_code, 0) << started.err;
  EXPECT_TRUE(contains(started.err, "starting a new run")) << started.err;
  expect_complete(dir.file("new.h5"), 12);
  const ProcessResult no_n = run_chomp({"grundy", "-q", "-o", dir.file("none.h5")});
  EXPECT_EQ(no_n.exit_code, 2);
  EXPECT_TRUE(contains(no_n.err, "--max-tiles N is required")) << no_n.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.h5")));
}

// What --resume cannot continue: a sieve file, and a Grundy file whose saved
// counts differ from what the engine computes (refused at that level, the
// file untouched); exit 1.
TEST(GrundyResume, RefusesASieveFileAndAFileWhoseCountsDiffer) {
  ScratchDir dir;
  const std::string sieve = dir.file("levels.h5"), changed = dir.file("changed.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "20", "-q", "-o", sieve}).exit_code, 0);
  const std::string sieve_bytes = read_text(sieve);
  const ProcessResult r = run_chomp({"grundy", "--resume", "-q", "-o", sieve});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "is not a chomp grundy file")) << r.err;
  EXPECT_TRUE(contains(r.err, "chomp sieve --resume")) << r.err;
  EXPECT_EQ(read_text(sieve), sieve_bytes);

  // Levels 1..18 of a run to 20, stopped; level 15 then has one position
  // moved from value 0 to value 1 (its row still sums to p(15)).
  std::vector<GrundyLevel> levels;
  {
    const GrundyTable table(18);
    levels = table.levels();
  }
  GrundyLevel& l15 = levels[14];
  ASSERT_GT(l15.counts.size(), 1U);
  --l15.counts[0];
  ++l15.counts[1];
  GrundyProvenance prov;
  prov.command_line = "chomp grundy -n 20 -o changed.h5";
  prov.threads = 1;
  prov.start_utc = "2026-01-01T00:00:00Z";
  // Calls that would write a file every reader calls damaged are refused,
  // the file left as it was (here: not made).
  EXPECT_THROW(write_grundy_file(changed, 17, levels, prov, "interrupted"), std::invalid_argument);  // 18 levels
  EXPECT_THROW(write_grundy_file(changed, 20, levels, prov, "bogus"), std::invalid_argument);
  EXPECT_THROW(write_grundy_file(changed, 0, {}, prov, "interrupted"), std::invalid_argument);
  std::vector<GrundyLevel> shuffled = levels;
  std::swap(shuffled[3], shuffled[4]);
  EXPECT_THROW(write_grundy_file(changed, 20, shuffled, prov, "interrupted"), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(changed));
  EXPECT_FALSE(std::filesystem::exists(changed + ".tmp"));
  EXPECT_THROW(check_grundy_resume(changed, 256), std::invalid_argument);
  EXPECT_THROW(check_grundy_resume(changed, -3), std::invalid_argument);
  write_grundy_file(changed, 20, levels, prov, "interrupted");
  {
    // A status no writer makes, read back: damage, not a run to go on with.
    const std::string bogus = changed + ".bogus.h5";
    std::filesystem::copy_file(changed, bogus);
    set_attribute(bogus, "status", text_value("bogus"));
    const ProcessResult r = run_chomp({"grundy", "--resume", "-q", "-o", bogus});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "its status \"bogus\" is none of complete, interrupted, failed or running (damaged "
                                "file)"))
        << r.err;
  }
  const std::string changed_bytes = read_text(changed);
  const ProcessResult refused = run_chomp({"grundy", "--resume", "-q", "-o", changed});
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_TRUE(contains(refused.err, "cannot resume " + changed + ": level 15 computed again has " +
                                        std::to_string(l15.counts[0] + 1) + " positions of value 0 but the file has " +
                                        std::to_string(l15.counts[0])))
      << refused.err;
  EXPECT_EQ(read_text(changed), changed_bytes);
  // Damage that needs no computing to see: a row that no longer sums to p(n).
  ++levels[9].counts[2];
  write_grundy_file(changed, 20, levels, prov, "interrupted");
  const ProcessResult damaged = run_chomp({"grundy", "--resume", "-q", "-o", changed});
  EXPECT_EQ(damaged.exit_code, 1) << damaged.err;
  EXPECT_TRUE(contains(damaged.err, "level 10 has counts that add up to")) << damaged.err;
  EXPECT_TRUE(contains(damaged.err, "use an undamaged copy of it, or start over with --force")) << damaged.err;
  EXPECT_FALSE(contains(damaged.err, "chomp sieve --resume")) << "it is a Grundy file: " << damaged.err;
  // Every reader refuses it, not only --resume: show printed such counts
  // (a damaged chunk index reads a chunk as 0 with a checksum that holds).
  const ProcessResult shown = run_chomp({"show", changed});
  EXPECT_EQ(shown.exit_code, 1) << shown.err;
  EXPECT_TRUE(contains(shown.err, changed + ": level 10 has counts that add up to more than its p(n) = " +
                                      std::to_string(levels[9].positions) + " (damaged file)"))
      << shown.err;
  EXPECT_EQ(shown.out, "");
}

// The root attributes every reader goes by, edited to values no writer
// makes: chomp show refuses the file as damaged (it printed "status bogus"
// and exit 0), as --resume and the sieve's reader do with their own.
TEST(GrundyResume, ShowRefusesRootAttributesNoWriterMakes) {
  ScratchDir dir;
  const std::string made = dir.file("made.h5");
  ASSERT_EQ(run_chomp({"grundy", "-n", "12", "-q", "-o", made}).exit_code, 0);
  ASSERT_EQ(run_chomp({"show", made}).exit_code, 0);
  struct Edit {
    const char* name;
    Value value;
    const char* said;
  };
  const std::vector<Edit> edits{
      {"format_version", int_value(99), "has format_version 99; this program reads Grundy files of format_version 1"},
      {"status", text_value("bogus"), "its status \"bogus\" is none of complete, interrupted, failed or running"},
      {"max_tiles", int_value(-1), "its max_tiles attribute (-1) is impossible for 12 levels"},
      {"max_tiles", int_value(10), "its max_tiles attribute (10) is impossible for 12 levels"},
      {"complete", int_value(7), "its complete attribute is 7, neither 0 nor 1"},
      {"status", text_value("interrupted"), "it says complete with status \"interrupted\""},
  };
  int i = 0;
  for (const Edit& e : edits) {
    const std::string copy = dir.file("edited-" + std::to_string(i++) + ".h5");
    std::filesystem::copy_file(made, copy);
    set_attribute(copy, e.name, e.value);
    for (const std::vector<std::string>& args : {std::vector<std::string>{"show", copy}, {"show", "--csv", copy}}) {
      const ProcessResult r = run_chomp(args);
      EXPECT_EQ(r.exit_code, 1) << e.name << ": " << r.out << r.err;
      EXPECT_TRUE(contains(r.err, e.said)) << e.name << ": " << r.err;
      EXPECT_TRUE(contains(r.err, "damaged file") || contains(r.err, "this program reads")) << r.err;
    }
  }
}
