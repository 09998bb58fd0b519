/// @file test_cli_grundy.cpp
/// @brief End to end: `chomp grundy` against `chomp sieve` (the count of
/// value 0 is L(n) at every level), its file and refusals; sums in
/// `chomp analyze` (text, JSON, malformed sums); `chomp play --boards`
/// against scripted opponents.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "chomp/grundy.hpp"
#include "chomp/grundy_file.hpp"
#include "chomp/h5_output.hpp"
#include "chomp/ranking.hpp"
#include "chomp_process.hpp"
#include "damaged_files.hpp"

using namespace chomp::testing;
namespace fs = std::filesystem;

TEST(GrundyCommand, ValueZeroCountsEqualTheSievesLosingCountsAtEveryLevel) {
  constexpr int kN = 50;
  ScratchDir s;
  const ProcessResult sieve = run_chomp({"sieve", "-n", std::to_string(kN), "-o", s.file("s.h5"), "-q"});
  ASSERT_EQ(sieve.exit_code, 0) << sieve.err;
  const ProcessResult g = run_chomp({"grundy", "-n", std::to_string(kN), "-o", s.file("g.h5")});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_TRUE(contains(g.out, "G=0 (losing)")) << g.out;
  const chomp::LevelTable levels = chomp::read_level_file(s.file("s.h5"));
  const chomp::GrundyFile file = chomp::read_grundy_file(s.file("g.h5"));
  const chomp::PartitionTable p(kN);
  ASSERT_EQ(file.tiles.size(), static_cast<std::size_t>(kN));
  ASSERT_EQ(levels.losing.size(), static_cast<std::size_t>(kN));
  for (int n = 1; n <= kN; ++n) {
    const std::size_t i = static_cast<std::size_t>(n - 1);
    EXPECT_EQ(file.tiles[i], static_cast<std::uint32_t>(n));
    EXPECT_EQ(file.zeros[i], levels.losing[i]) << "level " << n;
    EXPECT_EQ(file.counts[i][0], levels.losing[i]) << "level " << n;
    EXPECT_EQ(file.positions[i], p.positions(n));
    ASSERT_EQ(file.counts[i].size(), static_cast<std::size_t>(kN));
    std::uint64_t sum = 0;
    for (std::uint64_t c : file.counts[i]) sum += c;
    EXPECT_EQ(sum, p.positions(n)) << "level " << n;
    EXPECT_EQ(file.largest[i], static_cast<std::uint32_t>(n - 1));
    // At least the row and the column reach n - 1 (other positions can too).
    EXPECT_GE(file.counts[i][static_cast<std::size_t>(n - 1)], n == 1 ? 1U : 2U);
  }
  // The same counts as the library's table.
  const chomp::GrundyTable table(30);
  for (int n = 1; n <= 30; ++n) {
    const auto& c = table.levels()[static_cast<std::size_t>(n - 1)].counts;
    for (std::size_t v = 0; v < c.size(); ++v) EXPECT_EQ(file.counts[static_cast<std::size_t>(n - 1)][v], c[v]);
  }
  EXPECT_EQ(file.number_attributes.at("complete"), 1);
  EXPECT_EQ(file.number_attributes.at("max_tiles"), kN);
  EXPECT_EQ(file.text_attributes.at("status"), "complete");
  EXPECT_TRUE(contains(file.text_attributes.at("command_line"), "grundy"));
  EXPECT_TRUE(contains(file.text_attributes.at("convention"), "never taken"));
  EXPECT_FALSE(file.text_attributes.at("git_revision").empty());
  EXPECT_EQ(file.text_attributes.at("first_git_revision"), file.text_attributes.at("git_revision"));
  EXPECT_EQ(file.text_attributes.at("format"), "chomp-grundy");

  // chomp show reads the file: text, CSV (a column per value) and JSON.
  const ProcessResult shown = run_chomp({"show", s.file("g.h5")});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_TRUE(contains(shown.out, "Grundy values of 50 levels, status complete")) << shown.out;
  const ProcessResult csv = run_chomp({"show", s.file("g.h5"), "--csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_TRUE(contains(csv.out, "tiles,positions,largest_value,seconds,g0,g1,")) << csv.out;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.6f", file.seconds[49]);
  std::string row50 = "50," + std::to_string(p.positions(50)) + ",49," + seconds;
  for (std::uint64_t c : file.counts[49]) row50 += "," + std::to_string(c);
  EXPECT_TRUE(contains(csv.out, row50 + "\n")) << csv.out;
  const ProcessResult json = run_chomp({"show", s.file("g.h5"), "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(contains(json.out, "\"tiles\": 3, \"positions\": 3, \"largest_value\": 2, \"seconds\": "))
      << json.out;
  EXPECT_TRUE(contains(json.out, ", \"counts\": [1, 0, 2]}")) << json.out;
  // --three-rows lists a sieve file's losing positions: refused, not ignored.
  const ProcessResult rows = run_chomp({"show", s.file("g.h5"), "--three-rows"});
  EXPECT_EQ(rows.exit_code, 2) << rows.err;
  EXPECT_TRUE(contains(rows.err, "is a `chomp grundy` file: --three-rows lists")) << rows.err;
  EXPECT_TRUE(rows.out.empty()) << rows.out;
  const ProcessResult verified = run_chomp({"verify", s.file("g.h5")});
  EXPECT_EQ(verified.exit_code, 1);
  EXPECT_TRUE(contains(verified.err, "is not a table of `chomp sieve`: its root attribute format = \"chomp-grundy\" "
                                     "marks a file of another command (`chomp grundy`; `chomp show` reads it)"))
      << verified.err;

  // --check-sieve: the run compares every level and says so.
  const ProcessResult checked =
      run_chomp({"grundy", "-n", std::to_string(kN), "-o", s.file("g2.h5"), "-q", "--check-sieve", s.file("s.h5")});
  ASSERT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_TRUE(contains(checked.err, "value 0 counts equal L(n)")) << checked.err;
  EXPECT_EQ(chomp::read_grundy_file(s.file("g2.h5")).text_attributes.at("checked_against"), s.file("s.h5"));
  EXPECT_EQ(chomp::read_grundy_file(s.file("g2.h5")).number_attributes.at("checked_to_level"), kN);
  // A sieve file shorter than the run: the file records how far it checked.
  const ProcessResult longer = run_chomp(
      {"grundy", "-n", std::to_string(kN + 4), "-o", s.file("g3.h5"), "-q", "--check-sieve", s.file("s.h5")});
  ASSERT_EQ(longer.exit_code, 0) << longer.err;
  EXPECT_EQ(chomp::read_grundy_file(s.file("g3.h5")).number_attributes.at("checked_to_level"), kN);
  const ProcessResult shown_checked = run_chomp({"show", s.file("g3.h5")});
  EXPECT_TRUE(contains(shown_checked.out, "checked_to_level " + std::to_string(kN))) << shown_checked.out;
  EXPECT_EQ(chomp::read_grundy_file(s.file("g.h5")).number_attributes.at("checked_to_level"), 0);
  EXPECT_FALSE(contains(shown.out, "checked_to_level")) << "no check, nothing to say: " << shown.out;
  // A sieve table that disagrees at level 20: the run fails there and its
  // file says it was checked through level 19, not to its planned end.
  chomp::testing::copy_run(s.file("s.h5"), s.file("wrong.h5"));
  {
    const chomp::testing::RawFile f(s.file("wrong.h5"));
    const auto positions = f.read<std::uint64_t>("/levels/positions", H5T_NATIVE_UINT64);
    const auto losing = f.read<std::uint64_t>("/levels/losing", H5T_NATIVE_UINT64);
    f.set_counts(19, positions[19], losing[19] + 1);
  }
  const ProcessResult wrong =
      run_chomp({"grundy", "-n", "30", "-o", s.file("g4.h5"), "-q", "--check-sieve", s.file("wrong.h5")});
  EXPECT_EQ(wrong.exit_code, 1) << wrong.err;
  EXPECT_TRUE(contains(wrong.err, "level 20:")) << wrong.err;
  EXPECT_EQ(chomp::read_grundy_file(s.file("g4.h5")).number_attributes.at("checked_to_level"), 19);
}

TEST(GrundyCommand, RefusesBadInputWithExitCode2) {
  ScratchDir s;
  ASSERT_EQ(run_chomp({"grundy", "-n", "5", "-o", s.file("g.h5"), "-q"}).exit_code, 0);
  const ProcessResult again = run_chomp({"grundy", "-n", "5", "-o", s.file("g.h5"), "-q"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_TRUE(contains(again.err, "--force")) << again.err;
  EXPECT_EQ(run_chomp({"grundy", "-n", "5", "-o", s.file("g.h5"), "-q", "--force"}).exit_code, 0);
  const ProcessResult budget = run_chomp({"grundy", "-n", "60", "-o", s.file("b.h5"), "--memory-limit", "1M"});
  EXPECT_EQ(budget.exit_code, 2);
  EXPECT_TRUE(contains(budget.err, "more than the budget")) << budget.err;
  EXPECT_FALSE(fs::exists(s.file("b.h5")));
  const ProcessResult folder = run_chomp({"grundy", "-n", "5", "-o", s.file("no/such/g.h5")});
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_TRUE(contains(folder.err, "does not exist")) << folder.err;
  EXPECT_EQ(run_chomp({"grundy", "-n", "0", "-o", s.file("x.h5")}).exit_code, 2);
  EXPECT_EQ(run_chomp({"grundy", "-n", "256", "-o", s.file("x.h5")}).exit_code, 2);
  EXPECT_EQ(run_chomp({"grundy", "-n", "12x", "-o", s.file("x.h5")}).exit_code, 2);
  EXPECT_EQ(run_chomp({"grundy", "-o", s.file("x.h5")}).exit_code, 2);
  const ProcessResult no_out = run_chomp({"grundy", "-n", "10"});
  EXPECT_EQ(no_out.exit_code, 2);
  EXPECT_TRUE(contains(no_out.err, "--output")) << no_out.err;
  const ProcessResult not_sieve = run_chomp({"grundy", "-n", "5", "-o", s.file("y.h5"), "--check-sieve", s.file("g.h5")});
  EXPECT_EQ(not_sieve.exit_code, 1);  // a file of another kind, as verify and sieve --resume say of it
  EXPECT_TRUE(contains(not_sieve.err, "--check-sieve")) << not_sieve.err;
  EXPECT_EQ(run_chomp({"grundy", "-n", "5", "-o", s.file("y.h5"), "--check-sieve", s.file("none.h5")}).exit_code, 2);
  const ProcessResult check_folder =
      run_chomp({"grundy", "-n", "5", "-o", s.file("y.h5"), "--check-sieve", s.path().string()});
  EXPECT_EQ(check_folder.exit_code, 2) << check_folder.err;
  EXPECT_TRUE(contains(check_folder.err, "is a folder; give the result file of a `chomp sieve` run"))
      << check_folder.err;
  // A dry run refuses what the run would: a missing sieve file, an output
  // that exists (without --force or --resume).
  EXPECT_EQ(run_chomp({"grundy", "-n", "5", "--dry-run", "--check-sieve", s.file("none.h5")}).exit_code, 2);
  const ProcessResult dry_exists = run_chomp({"grundy", "-n", "5", "--dry-run", "-o", s.file("g.h5")});
  EXPECT_EQ(dry_exists.exit_code, 2) << dry_exists.out;
  EXPECT_TRUE(contains(dry_exists.err, "already exists")) << dry_exists.err;
  // --resume of a file not there, without --max-tiles: one line that says so.
  const ProcessResult nothing = run_chomp({"grundy", "-o", s.file("none.h5"), "--resume"});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_TRUE(contains(nothing.err, "there is no " + s.file("none.h5") + " to resume")) << nothing.err;
  EXPECT_EQ(count_lines(nothing.err), 1) << nothing.err;
  // The sieve file checked against is not overwritten by the run (--force).
  ASSERT_EQ(run_chomp({"sieve", "-n", "12", "-q", "-t", "1", "-o", s.file("sv.h5")}).exit_code, 0);
  const ProcessResult same = run_chomp({"grundy", "-n", "12", "-q", "--force", "-o", s.file("sv.h5"), "--check-sieve",
                                        s.file("sv.h5")});
  EXPECT_EQ(same.exit_code, 2);
  EXPECT_TRUE(contains(same.err, "is the --output file")) << same.err;
  EXPECT_EQ(count_lines(same.err), 1) << same.err;  // no note of a replacement that did not happen
  EXPECT_EQ(chomp::read_level_file(s.file("sv.h5")).tiles.size(), 12u);
  // Nor is its store: an output named like a run's side file is refused,
  // --force or not, as the sieve refuses it.
  const std::string store_bytes = read_text(s.file("sv.store"));
  const ProcessResult side = run_chomp({"grundy", "-n", "5", "-q", "--force", "-o", s.file("sv.store")});
  EXPECT_EQ(side.exit_code, 2);
  EXPECT_TRUE(contains(side.err, "ends in .store, the name of a run's side file")) << side.err;
  EXPECT_EQ(read_text(s.file("sv.store")), store_bytes);
  EXPECT_EQ(run_chomp({"grundy", "-n", "5", "--dry-run", "-o", s.file("sv.store")}).exit_code, 2);  // as the run
  // So are an output in a folder that does not exist and a folder as output.
  const ProcessResult dry_folder = run_chomp({"grundy", "-n", "5", "--dry-run", "-o", s.file("no/such/g.h5")});
  EXPECT_EQ(dry_folder.exit_code, 2) << dry_folder.out;
  EXPECT_TRUE(contains(dry_folder.err, "does not exist")) << dry_folder.err;
  fs::create_directory(s.file("folder.h5"));
  for (const bool force : {false, true}) {
    std::vector<std::string> args{"grundy", "-n", "5", "--dry-run", "-o", s.file("folder.h5")};
    if (force) args.push_back("--force");
    const ProcessResult dry_dir = run_chomp(args);
    EXPECT_EQ(dry_dir.exit_code, 2) << dry_dir.out;
    EXPECT_TRUE(contains(dry_dir.err, "is a folder; give a file name")) << dry_dir.err;
  }
  // The dry run's refusal of an existing output says that it writes nothing.
  EXPECT_TRUE(contains(dry_exists.err, "a dry run refuses what the run would")) << dry_exists.err;
  // --force over the sieve result replaces the file and says that its store is left.
  ASSERT_EQ(run_chomp({"sieve", "-n", "10", "-q", "-t", "1", "-o", s.file("sv2.h5")}).exit_code, 0);
  const ProcessResult over = run_chomp({"grundy", "-n", "6", "-q", "--force", "-o", s.file("sv2.h5")});
  EXPECT_EQ(over.exit_code, 0) << over.err;
  EXPECT_TRUE(contains(over.err, "note: " + s.file("sv2.store") + ", the store of the sieve result this run "
                                 "replaces, is left as it was")) << over.err;
  EXPECT_TRUE(std::filesystem::exists(s.file("sv2.store")));
  // So does chomp rectangles over one (it said nothing, and the store was orphaned in silence).
  ASSERT_EQ(run_chomp({"sieve", "-n", "10", "-q", "-t", "1", "-o", s.file("sv3.h5")}).exit_code, 0);
  const ProcessResult boxes =
      run_chomp({"rectangles", "--max-rows", "3", "--max-cols", "3", "-q", "--force", "-o", s.file("sv3.h5")});
  EXPECT_EQ(boxes.exit_code, 0) << boxes.err;
  EXPECT_TRUE(contains(boxes.err, "note: " + s.file("sv3.store") + ", the store of the sieve result this run "
                                  "replaces, is left as it was")) << boxes.err;
  // --check-sieve given empty (an unset variable) is refused, not skipped.
  const ProcessResult empty_check = run_chomp({"grundy", "-n", "5", "-o", s.file("e.h5"), "--check-sieve", ""});
  EXPECT_EQ(empty_check.exit_code, 2);
  EXPECT_TRUE(contains(empty_check.err, "--check-sieve is empty")) << empty_check.err;
  EXPECT_FALSE(std::filesystem::exists(s.file("e.h5")));
  // A 3D sieve file is a table of other positions: refused, not compared.
  ASSERT_EQ(run_chomp({"sieve", "--dimensions", "3", "-n", "8", "-q", "-o", s.file("s3.h5")}).exit_code, 0);
  const ProcessResult three_d =
      run_chomp({"grundy", "-n", "5", "-o", s.file("y.h5"), "--check-sieve", s.file("s3.h5")});
  EXPECT_EQ(three_d.exit_code, 1) << three_d.err;
  EXPECT_TRUE(contains(three_d.err, "is a table of 3D Chomp")) << three_d.err;
  EXPECT_EQ(count_lines(three_d.err), 1) << three_d.err;
  EXPECT_FALSE(std::filesystem::exists(s.file("y.h5")));
  const ProcessResult dry = run_chomp({"grundy", "-n", "100", "--dry-run", "--memory-limit", "1G"});
  EXPECT_EQ(dry.exit_code, 2) << dry.out;  // as the run's refusal
  EXPECT_TRUE(contains(dry.out, "does not fit")) << dry.out;
  // and on stderr, one line, as the sieve's dry run says it
  EXPECT_TRUE(contains(dry.err, "more than the budget of 1.0 GiB (--memory-limit); choose a smaller --max-tiles"))
      << dry.err;
  EXPECT_EQ(count_lines(dry.err), 1) << dry.err;
  EXPECT_FALSE(contains(dry.out, "time:")) << dry.out;  // no time for a run that cannot start
  EXPECT_TRUE(contains(dry.out, "levels 1..100 take")) << dry.out;
  EXPECT_TRUE(contains(dry.out, "1642992567 positions")) << dry.out;  // sum of p(k), k <= 100
  const ProcessResult help = run_chomp({"grundy", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* part : {"--max-tiles", "--output", "--check-sieve", "--memory-limit", "--dry-run", "poisoned tile has value 0"})
    EXPECT_TRUE(contains(help.out, part)) << part;
}

// The dry run's time: levels 1..58 computed now, the rest at their pace
// (its arithmetic: WorkModel.ACalibratedRunPricesTheLevelsAboveAtTheLastFiveLevelsPace).
// The work of levels 1..100 is 58 times that of 1..72: the two estimates
// differ by far more than two calibrations' noise on a loaded machine.
TEST(GrundyCommand, DryRunEstimatesTheTimeFromLevelsComputedNow) {
  const std::regex time_line("time: about ([0-9:]+( s)?) with 2 threads \\(calibrated now: levels 1\\.\\.58 in [0-9.]+ s");
  const auto seconds_of = [&](const char* n) {
    const ProcessResult r = run_chomp({"grundy", "-n", n, "--dry-run", "-t", "2", "--memory-limit", "20G"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    std::smatch m;
    EXPECT_TRUE(std::regex_search(r.out, m, time_line)) << r.out;
    if (m.empty()) return -1.0;
    return clock_seconds(m[1]);
  };
  const double s100 = seconds_of("100"), s72 = seconds_of("72");
  EXPECT_GT(s100, 5 * std::max(1.0, s72));
}

TEST(AnalyzeSum, ValuesNimSumAndEveryWinningMove) {
  const chomp::SumAnalysis expected = chomp::analyze_sum(chomp::parse_sum("3,2 + 4,4,1 + 2"));
  const ProcessResult text = run_chomp({"analyze", "3,2 + 4,4,1 + 2"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (std::size_t c = 0; c < 3; ++c)
    EXPECT_TRUE(contains(text.out, "Grundy value " + std::to_string(expected.values[c]))) << text.out;
  EXPECT_TRUE(contains(text.out, "= " + std::to_string(expected.nim_sum) + "\n")) << text.out;
  EXPECT_TRUE(contains(text.out, expected.losing() ? "Status: losing" : "Status: winning")) << text.out;
  for (const chomp::SumMove& m : expected.winning_moves)
    EXPECT_TRUE(contains(text.out, "board " + std::to_string(m.component + 1) + ", tile (" +
                                       std::to_string(m.move.row) + "," + std::to_string(m.move.col) + "): leaves " +
                                       chomp::rows_to_string(m.leaves)))
        << text.out;
  const ProcessResult json = run_chomp({"analyze", "3,2 + 4,4,1 + 2", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(contains(json.out, "\"nim_sum\": " + std::to_string(expected.nim_sum))) << json.out;
  EXPECT_TRUE(contains(json.out, "\"position\": \"4,4,1\", \"tiles\": 9, \"grundy\": " +
                                     std::to_string(expected.values[1])))
      << json.out;

  // A won sum: 3x4 + 2 (values differ), every listed move leaves nim-sum 0.
  const chomp::SumAnalysis won = chomp::analyze_sum(chomp::parse_sum("3x4 + 2"));
  ASSERT_FALSE(won.losing());
  ASSERT_FALSE(won.winning_moves.empty());
  const ProcessResult w = run_chomp({"analyze", "3x4 + 2", "--json"});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_TRUE(contains(w.out, "\"status\": \"winning\""));
  for (const chomp::SumMove& m : won.winning_moves) {
    std::vector<int> v = won.values;
    v[static_cast<std::size_t>(m.component)] = m.value;
    EXPECT_EQ(v[0] ^ v[1], 0);
    EXPECT_TRUE(contains(w.out, "\"board\": " + std::to_string(m.component + 1) + ", \"row\": " +
                                    std::to_string(m.move.row) + ", \"col\": " + std::to_string(m.move.col)))
        << w.out;
  }
  // A board with itself is lost.
  const ProcessResult twice = run_chomp({"analyze", "4,4,1 + 4,4,1"});
  EXPECT_EQ(twice.exit_code, 0);
  EXPECT_TRUE(contains(twice.out, "Status: losing")) << twice.out;
}

TEST(AnalyzeSum, MalformedSumsExit2WithAMessage) {
  const ProcessResult trailing = run_chomp({"analyze", "3,2 +"});
  EXPECT_EQ(trailing.exit_code, 2);
  EXPECT_TRUE(contains(trailing.err, "board 2 of the sum is empty")) << trailing.err;
  const ProcessResult plus = run_chomp({"analyze", "+"});
  EXPECT_EQ(plus.exit_code, 2);
  EXPECT_TRUE(contains(plus.err, "board 1 of the sum is empty")) << plus.err;
  const ProcessResult big = run_chomp({"analyze", "20x20 + 1"});
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_TRUE(contains(big.err, "board 1 of the sum")) << big.err;
  EXPECT_TRUE(contains(big.err, "at most 4194304")) << big.err;
  const ProcessResult bad = run_chomp({"analyze", "3,2 + 2,3"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "board 2 of the sum")) << bad.err;
  EXPECT_EQ(run_chomp({"analyze", "3x0 + 1"}).exit_code, 2);
  // A picture drawn with 'X' is one board, not a sum, and told to use '#';
  // so is one drawn as chomp play draws it (X the poisoned tile, '.' an
  // eaten one), which was taken for a rectangle ("'X##\x0A##' has no number").
  for (const char* picture : {"XXX\nXX\n", "X##\n##\n"}) {
    const ProcessResult xs = run_chomp_with_input({"analyze"}, picture);
    EXPECT_EQ(xs.exit_code, 2);
    EXPECT_TRUE(contains(xs.err, "line 1 of the picture has 'X' (chomp play's mark of the poisoned tile): draw every "
                                 "tile, the poisoned one too, with '#'")) << xs.err;
    EXPECT_FALSE(contains(xs.err, "of the sum")) << xs.err;
  }
  const ProcessResult eaten = run_chomp_with_input({"analyze"}, "###\n#.\n");
  EXPECT_EQ(eaten.exit_code, 2);
  EXPECT_TRUE(contains(eaten.err, "line 2 of the picture has '.' (chomp play's mark of an eaten tile)")) << eaten.err;
  // Several lines of another mark: the mark is named.
  const ProcessResult os = run_chomp_with_input({"analyze"}, "OOO\nOO\n");
  EXPECT_EQ(os.exit_code, 2);
  EXPECT_TRUE(contains(os.err, "line 1 of the picture has 'O'; draw each row with '#' only")) << os.err;
}

namespace {
/// Every "board row col" of boards up to 5 x 5, largest first, many times
/// over: a scripted opponent whose illegal lines are refused and whose
/// legal ones are played.
std::string sweep_input() {
  std::string in;
  for (int round = 0; round < 40; ++round)
    for (int b = 1; b <= 2; ++b)
      for (int r = 5; r >= 1; --r)
        for (int c = 5; c >= 1; --c) in += std::to_string(b) + " " + std::to_string(r) + " " + std::to_string(c) + "\n";
  return in;
}
}  // namespace

TEST(PlaySum, ThePerfectComputerWinsEveryWonSum) {
  // Computer first on a won sum, and second on a lost one (a board and itself).
  ASSERT_FALSE(chomp::analyze_sum(chomp::parse_sum("3x4 + 2x5")).losing());
  const ProcessResult first = run_chomp_with_input({"play", "--boards", "3x4 + 2x5", "--computer-first"}, sweep_input());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(contains(first.out, "the computer wins")) << first.out;
  EXPECT_TRUE(contains(first.out, "The computer takes")) << first.out;
  const ProcessResult second = run_chomp_with_input({"play", "--boards", "3x4 + 3x4", "--level", "perfect"}, sweep_input());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(contains(second.out, "the computer wins")) << second.out;
  EXPECT_TRUE(contains(second.out, "Illegal move")) << second.out;
  // The player wins a won sum by following the hints: "hint" then the move.
  // 2,1 + 2 has values 0 and 1; the first winning move raises board 1 to
  // 1,1 (value 1). The computer then takes 1,1 down to 1, and 2 -> 1 wins.
  const ProcessResult hint = run_chomp_with_input({"play", "--boards", "2,1 + 2"}, "hint\n1 1 2\n2 1 2\n");
  EXPECT_TRUE(contains(hint.out, "values are 0 xor 1 = 1; take (1,2) on board 1")) << hint.out;
  EXPECT_TRUE(contains(hint.out, "you win")) << hint.out;
  // A tile off a board that is not a rectangle is named with that row's own columns.
  const ProcessResult off = run_chomp_with_input({"play", "--boards", "3,2 + 2x2"}, "1 2 3\n1 3 1\nquit\n");
  EXPECT_TRUE(contains(off.out, "Illegal move: tile (2,3) is off the board, whose row 2 has columns 1..2.")) << off.out;
  EXPECT_TRUE(contains(off.out, "Illegal move: tile (3,1) is off the board, whose rows are 1..2.")) << off.out;
  EXPECT_EQ(run_chomp({"play", "--boards", "3x4 + 2x5", "--level", "easy"}).exit_code, 2);
  EXPECT_EQ(run_chomp({"play", "--boards", "3x4 +"}).exit_code, 2);
  EXPECT_EQ(run_chomp({"play", "--boards", "20x20"}).exit_code, 2);
  // Given empty, it is refused, not taken as no sum (a single board was played).
  const ProcessResult empty = run_chomp_with_input({"play", "--boards", "", "-s", "1"}, "quit\n");
  EXPECT_EQ(empty.exit_code, 2) << empty.out;
  EXPECT_TRUE(contains(empty.err, "board 1 of the sum is empty")) << empty.err;
  // What the player typed is echoed printable (an escape sequence reached
  // the terminal), and a line is bounded as in a game of one board.
  const ProcessResult escaped = run_chomp_with_input({"play", "--boards", "3x4 + 2x5"}, "a\x1b[31mred\nquit\n");
  EXPECT_TRUE(contains(escaped.out, "'a\\x1B[31mred' is not a move")) << escaped.out;
  EXPECT_FALSE(contains(escaped.out, "\x1b")) << escaped.out;
  const ProcessResult endless = run_chomp_with_input({"play", "--boards", "3x4 + 2x5"}, std::string(300, '1') + "\n");
  EXPECT_EQ(endless.exit_code, 2) << endless.out;
  EXPECT_TRUE(contains(endless.err, "an input line is longer than 256 bytes")) << endless.err;
}
