/// @file test_cli_games.cpp
/// @brief End to end: the built `chomp` program's analyze, rectangles, count
/// and play commands, their outputs, files and exit codes.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "chomp/rectangles.hpp"

namespace {

namespace fs = std::filesystem;

/// A fresh folder for one test's files, removed at the end.
class Scratch {
 public:
  Scratch() {
    std::string templ = (fs::temp_directory_path() / "chomp-cli-XXXXXX").string();
    if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = templ;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

 private:
  fs::path dir_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Outcome {
  int code = -1;
  std::string out, err;
};

/// Runs `chomp` with the arguments (each single-quoted for the shell) and
/// `input` on stdin.
Outcome run_chomp(const std::vector<std::string>& args, const std::string& input = "") {
  Scratch s;
  std::ofstream(s.file("in")) << input;
  std::string cmd = "'" CHOMP_BINARY "'";
  for (const std::string& a : args) cmd += " '" + a + "'";
  cmd += " < '" + s.file("in") + "' > '" + s.file("out") + "' 2> '" + s.file("err") + "'";
  const int status = std::system(cmd.c_str());
  Outcome r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(s.file("out"));
  r.err = slurp(s.file("err"));
  return r;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

int lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace

TEST(AnalyzeCommand, WinningAndLosingPositions) {
  const Outcome tri = run_chomp({"analyze", "3,2,1"});
  EXPECT_EQ(tri.code, 0) << tri.err;
  EXPECT_TRUE(contains(tri.out, "###\n##\n#\n"));
  EXPECT_TRUE(contains(tri.out, "Status: winning"));
  EXPECT_TRUE(contains(tri.out, "Winning moves (3):"));
  EXPECT_TRUE(contains(tri.out, "(3,1) leaves 3,2"));
  const Outcome two = run_chomp({"analyze", "5,4"});
  EXPECT_EQ(two.code, 0);
  EXPECT_TRUE(contains(two.out, "Status: losing"));
  EXPECT_TRUE(contains(two.out, "Best move: (1,5) leaves 4,4"));
}

TEST(AnalyzeCommand, JsonAndStdin) {
  const Outcome j = run_chomp({"analyze", "--json", "6,6,6,6,6,6"});
  EXPECT_EQ(j.code, 0) << j.err;
  EXPECT_TRUE(contains(j.out, "\"status\": \"winning\""));
  EXPECT_TRUE(contains(j.out, "\"winning_moves\": [\n    {\"row\": 2, \"col\": 2, \"leaves\": \"6,1,1,1,1,1\"}\n  ]"));
  const Outcome pic = run_chomp({"analyze"}, "###\n##\n#\n");
  EXPECT_EQ(pic.code, 0) << pic.err;
  EXPECT_TRUE(contains(pic.out, "Position 3,2,1"));
  const Outcome dash = run_chomp({"analyze", "-", "--json"}, "7,3,3,1,1\n");
  EXPECT_EQ(dash.code, 0) << dash.err;
  EXPECT_TRUE(contains(dash.out, "\"position\": \"7,3,3,1,1\""));
}

TEST(AnalyzeCommand, EightByFifteenIsQuick) {
  const Outcome r = run_chomp({"analyze", "--json", "15,15,15,15,15,15,15,15"});
  EXPECT_EQ(r.code, 0) << r.err;
  const auto at = r.out.find("\"seconds\": ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(std::stod(r.out.substr(at + 11)), 0.5);
}

TEST(AnalyzeCommand, MalformedAndTooLargeExitTwo) {
  for (const char* bad : {"3,4", "abc", "", "0", "2,,1"}) {
    const Outcome r = run_chomp({"analyze", bad});
    EXPECT_EQ(r.code, 2) << "'" << bad << "': " << r.out;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  const Outcome empty_stdin = run_chomp({"analyze"}, "");
  EXPECT_EQ(empty_stdin.code, 2);
  const Outcome huge = run_chomp({"analyze", "20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20"});
  EXPECT_EQ(huge.code, 2);
  EXPECT_TRUE(contains(huge.err, "analyze solves at most")) << huge.err;
  EXPECT_EQ(lines(huge.err), 1);
}

TEST(RectanglesCommand, TableCsvAndHdf5) {
  Scratch s;
  const std::string h5 = s.file("rect.h5"), csv = s.file("rect.csv");
  const Outcome r = run_chomp({"rectangles", "--max-rows", "6", "--max-cols", "13", "--output", h5, "--csv", csv});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "  6 x 13  (4,12) leaves 13,13,13,11,11,11; (5,9) leaves 13,13,13,13,8,8\n"));
  EXPECT_TRUE(contains(r.out, "  2 x 7   (2,7) leaves 7,6\n"));
  EXPECT_TRUE(contains(slurp(csv), "6,13,5,9,\"13,13,13,13,8,8\"\n"));
  const chomp::RectangleTable t = chomp::read_rectangles_h5(h5);
  EXPECT_EQ(t.max_rows, 6);
  EXPECT_EQ(t.boards.size(), 12U + 11U + 10U + 9U + 8U);
  // Outputs are not overwritten without --force.
  const Outcome again = run_chomp({"rectangles", "--max-rows", "3", "--max-cols", "4", "--output", h5});
  EXPECT_EQ(again.code, 2);
  EXPECT_TRUE(contains(again.err, "--force"));
  const Outcome forced = run_chomp({"rectangles", "--max-rows", "3", "--max-cols", "4", "--output", h5, "--force", "--quiet"});
  EXPECT_EQ(forced.code, 0) << forced.err;
  EXPECT_TRUE(forced.out.empty());
  EXPECT_EQ(chomp::read_rectangles_h5(h5).max_cols, 4);
  const Outcome big = run_chomp({"rectangles", "--max-rows", "30", "--max-cols", "30"});
  EXPECT_EQ(big.code, 2);
  EXPECT_EQ(lines(big.err), 1);
}

TEST(CountCommand, CountsAndOverflow) {
  const Outcome r = run_chomp({"count", "--rows", "8", "--cols", "15"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "C(23, 8) = 490314"));
  EXPECT_TRUE(contains(r.out, "C(21, 7) = 116280"));
  const Outcome over = run_chomp({"count", "--rows", "40", "--cols", "40"});
  EXPECT_EQ(over.code, 2);
  EXPECT_TRUE(contains(over.err, "does not fit in 64 bits"));
  EXPECT_EQ(run_chomp({"count", "--rows", "0", "--cols", "3"}).code, 2);
}

TEST(PlayCommand, HumanWinsTwoByTwo) {
  // (2,2) leaves the losing L 2,1; whatever the computer does, one of the
  // next two moves leaves the single tile (the other is refused as illegal).
  for (const char* level : {"easy", "medium", "hard", "perfect"}) {
    const Outcome r = run_chomp({"play", "--rows", "2", "--cols", "2", "--level", level, "--seed", "3"}, "2 2\n2 1\n1 2\n");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "you win!")) << level << ":\n" << r.out;
    EXPECT_TRUE(contains(r.out, "    1  2\n   1  X  #\n   2  #  #\n"));
  }
}

TEST(PlayCommand, ExplainsBadInputHintsUndoesAndEndsAtEof) {
  const Outcome r = run_chomp({"play", "--rows", "3", "--cols", "4", "--level", "perfect", "--seed", "1"},
                      "hello\n9 9\n2 5\nhint\n1 4\nundo\nundo\nquit\n");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "'hello' is not a move"));
  EXPECT_TRUE(contains(r.out, "Illegal move: row 9 has no tiles left"));
  EXPECT_TRUE(contains(r.out, "Illegal move: tile (2,5) is gone"));
  EXPECT_TRUE(contains(r.out, "Hint: take (2,3); it leaves 4,2,2"));
  EXPECT_TRUE(contains(r.out, "Took back your last move"));
  EXPECT_TRUE(contains(r.out, "Nothing to undo"));
  EXPECT_TRUE(contains(r.out, "You quit the game."));
  const Outcome eof = run_chomp({"play", "--computer-first", "--level", "hard", "--seed", "2"}, "");
  EXPECT_EQ(eof.code, 0) << eof.err;
  EXPECT_TRUE(contains(eof.out, "The computer takes ("));
  EXPECT_TRUE(contains(eof.out, "End of input"));
}

TEST(PlayCommand, RefusesWhatItCannotOffer) {
  const Outcome big = run_chomp({"play", "--rows", "16", "--cols", "16", "--level", "perfect"});
  EXPECT_EQ(big.code, 2);
  EXPECT_TRUE(contains(big.err, "perfect play is offered")) << big.err;
  EXPECT_EQ(run_chomp({"play", "--level", "expert"}).code, 2);
  EXPECT_EQ(run_chomp({"play", "--rows", "41"}).code, 2);
}
