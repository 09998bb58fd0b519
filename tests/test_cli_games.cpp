/// @file test_cli_games.cpp
/// @brief End to end: the built `chomp` program's analyze, rectangles, count
/// and play commands, their outputs, files and exit codes.

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "chomp/rectangles.hpp"
#include "chomp_process.hpp"

using namespace chomp::testing;

TEST(AnalyzeCommand, WinningAndLosingPositions) {
  const ProcessResult tri = run_chomp({"analyze", "3,2,1"});
  EXPECT_EQ(tri.exit_code, 0) << tri.err;
  EXPECT_TRUE(contains(tri.out, "###\n##\n#\n"));
  EXPECT_TRUE(contains(tri.out, "Status: winning"));
  EXPECT_TRUE(contains(tri.out, "Winning moves (3):"));
  EXPECT_TRUE(contains(tri.out, "(3,1) leaves 3,2"));
  const ProcessResult two = run_chomp({"analyze", "5,4"});
  EXPECT_EQ(two.exit_code, 0);
  EXPECT_TRUE(contains(two.out, "Status: losing"));
  EXPECT_TRUE(contains(two.out, "Best move: (1,5) leaves 4,4"));
  // A rectangle alone is a position (it went to the sums, and their
  // smaller limit): 4x7 is 7,7,7,7, won like every rectangle but 1 x 1.
  const ProcessResult rect = run_chomp({"analyze", "4x7"});
  EXPECT_EQ(rect.exit_code, 0) << rect.err;
  EXPECT_TRUE(contains(rect.out, "Position 7,7,7,7: 28 tiles, 4 rows x 7 columns")) << rect.out;
  EXPECT_TRUE(contains(rect.out, "Status: winning")) << rect.out;
  EXPECT_FALSE(contains(rect.out, "Sum of")) << rect.out;
  // The poisoned tile (cube) alone, and a sum of them: no move leaves a
  // winning position, so the status says what is left instead.
  const ProcessResult one = run_chomp({"analyze", "1"});
  EXPECT_TRUE(contains(one.out, "Status: losing (the only move takes the poisoned tile)\n"
                                "Best move: (1,1) leaves nothing (it is the poisoned tile)\n")) << one.out;
  const ProcessResult ones = run_chomp({"analyze", "1 + 1"});
  EXPECT_TRUE(contains(ones.out, "Status: losing (nim-sum 0: no move is left, every board is down to its "
                                 "poisoned tile)")) << ones.out;
  const ProcessResult cube = run_chomp({"analyze", "--dimensions", "3", "1"});
  EXPECT_TRUE(contains(cube.out, "Status: losing (the only move takes the poisoned cube)")) << cube.out;
  EXPECT_TRUE(contains(run_chomp({"analyze", "2,1"}).out, "Status: losing (every move leaves a winning position)"));
}

TEST(AnalyzeCommand, JsonAndStdin) {
  const ProcessResult j = run_chomp({"analyze", "--json", "6,6,6,6,6,6"});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  EXPECT_TRUE(contains(j.out, "\"status\": \"winning\""));
  EXPECT_TRUE(contains(j.out, "\"winning_moves\": [\n    {\"row\": 2, \"col\": 2, \"leaves\": \"6,1,1,1,1,1\"}\n  ]"));
  const ProcessResult pic = run_chomp_with_input({"analyze"}, "###\n##\n#\n");
  EXPECT_EQ(pic.exit_code, 0) << pic.err;
  EXPECT_TRUE(contains(pic.out, "Position 3,2,1"));
  const ProcessResult dash = run_chomp_with_input({"analyze", "-", "--json"}, "7,3,3,1,1\n");
  EXPECT_EQ(dash.exit_code, 0) << dash.err;
  EXPECT_TRUE(contains(dash.out, "\"position\": \"7,3,3,1,1\""));
}

// At a terminal, `chomp analyze` with no position says that it reads one
// and how to end it (it waited in silence); from a pipe or file it says
// nothing, as above.
TEST(AnalyzeCommand, SaysItReadsTheTerminal) {
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0 || ptsname(master) == nullptr)
    GTEST_SKIP() << "no pseudo-terminal here (/dev/pts)";
  ProcessOptions opts;
  opts.stdin_path = ptsname(master);
  ChompProcess run({"analyze"}, opts);
  ASSERT_TRUE(run.wait_until([&] { return contains(run.err(), "reading the position from the terminal"); }))
      << run.err();
  const std::string typed = "3,2,1\n\x04";  // a line, then Ctrl-D
  ASSERT_EQ(write(master, typed.data(), typed.size()), static_cast<ssize_t>(typed.size()));
  const ProcessResult r = run.wait();
  close(master);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Position 3,2,1")) << r.out;
  EXPECT_TRUE(contains(r.err, "end it with Ctrl-D")) << r.err;
  EXPECT_FALSE(contains(run_chomp_with_input({"analyze"}, "3,2,1\n").err, "terminal"));
}

// Standard input that is a folder cannot be read (its read fails): refused,
// not taken for an empty position or the end of a game (exit 0). And a
// rectangle of four or more digits a side is too large, not a malformed one.
TEST(AnalyzeCommand, AFolderAsStandardInputAndAHugeRectangleAreSaidToBeSo) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"analyze"}, {"play", "--seed", "1"}}) {
    ProcessOptions opts;
    opts.stdin_path = "/";
    ChompProcess p(args, opts);
    const ProcessResult r = p.wait();
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "standard input is a folder")) << r.err;
  }
  const ProcessResult huge = run_chomp({"analyze", "9999x1"});
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_TRUE(contains(huge.err, "a rectangle's rows plus columns are at most 256")) << huge.err;
}

// A sum typed without quotes reaches the program as several words: it reads
// as the quoted sum (it was "The following arguments were not expected: 4,1 +").
TEST(AnalyzeCommand, AnUnquotedSumReadsAsTheQuotedOne) {
  const ProcessResult quoted = run_chomp({"analyze", "--json", "3,2 + 4,1"});
  const ProcessResult unquoted = run_chomp({"analyze", "--json", "3,2", "+", "4,1"});
  EXPECT_EQ(quoted.exit_code, 0) << quoted.err;
  EXPECT_EQ(unquoted.exit_code, 0) << unquoted.err;
  EXPECT_TRUE(contains(unquoted.out, "{\"board\": 2, \"position\": \"4,1\"")) << unquoted.out;
  const auto no_seconds = [](const std::string& s) { return s.substr(0, s.find("\"seconds\"")); };
  EXPECT_EQ(no_seconds(unquoted.out), no_seconds(quoted.out));
  const ProcessResult play = run_chomp_with_input({"play", "--boards", "3x4", "+", "2x5", "--seed", "1"}, "quit\n");
  EXPECT_EQ(play.exit_code, 0) << play.err;
  EXPECT_TRUE(contains(play.out, "A sum of 2 Chomp boards")) << play.out;
  // Words without a '+' between them: the refusal says they came as several words and how to write a sum.
  for (const auto& args : std::vector<std::vector<std::string>>{{"analyze", "3x4", "2x5"},
                                                                 {"play", "--boards", "3x4", "--boards", "2x5"}}) {
    const ProcessResult two = run_chomp(args);
    EXPECT_EQ(two.exit_code, 2) << two.err;
    EXPECT_TRUE(contains(two.err, "came as 2 words, read as one: join the boards of a sum with '+'")) << two.err;
  }
}

TEST(AnalyzeCommand, EightByFifteenIsQuick) {
  const ProcessResult r = run_chomp({"analyze", "--json", "15,15,15,15,15,15,15,15"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto at = r.out.find("\"seconds\": ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(std::stod(r.out.substr(at + 11)), 0.5);
}

TEST(AnalyzeCommand, MalformedAndTooLargeExitTwo) {
  for (const char* bad : {"3,4", "abc", "", "0", "2,,1"}) {
    const ProcessResult r = run_chomp({"analyze", bad});
    EXPECT_EQ(r.exit_code, 2) << "'" << bad << "': " << r.out;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  const ProcessResult empty_stdin = run_chomp_with_input({"analyze"}, "");
  EXPECT_EQ(empty_stdin.exit_code, 2);
  const ProcessResult huge = run_chomp({"analyze", "20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20"});
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_TRUE(contains(huge.err, "analyze solves at most")) << huge.err;
  EXPECT_EQ(count_lines(huge.err), 1);
}

// A position or box that fits the solver's limit but not the memory left
// (here ulimit -v, 300 MB; the 16 x 16 box needs about 360 MiB) is refused
// before it starts, with what it needs: not killed by the kernel, nor
// "out of memory" after a partial solve. The rectangles' file is not made.
TEST(AnalyzeCommand, APositionLargerThanTheMemoryLeftIsRefusedUpFront) {
  if (sanitized_binary()) GTEST_SKIP() << "sanitizer builds reserve terabytes of address space";
  ScratchDir s;
  ProcessOptions opts;
  opts.address_space_limit = 300LL << 20;
  const ProcessResult big = run_chomp({"analyze", "16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16"}, opts);
  EXPECT_EQ(big.exit_code, 2) << big.err;
  EXPECT_TRUE(contains(big.err, "needs about 359.9 MiB of memory")) << big.err;
  EXPECT_TRUE(contains(big.err, "is allowed by ulimit -v")) << big.err;
  EXPECT_TRUE(big.out.empty()) << big.out;
  const std::string file = s.file("rect.h5");
  const ProcessResult box = run_chomp({"rectangles", "--max-rows", "16", "--max-cols", "16", "-o", file}, opts);
  EXPECT_EQ(box.exit_code, 2) << box.err;
  EXPECT_TRUE(contains(box.err, "the 16 x 16 box needs about")) << box.err;
  EXPECT_FALSE(std::filesystem::exists(file));
  // Under the same limit, a smaller position is solved.
  const ProcessResult small = run_chomp({"analyze", "12,12,12,12,12,12,12,12,12,12,12,12"}, opts);
  EXPECT_EQ(small.exit_code, 0) << small.err;
  EXPECT_TRUE(contains(small.out, "Status: winning\n")) << small.out;  // a square: take (2,2)
  EXPECT_TRUE(contains(small.out, "Winning moves (1):")) << small.out;
}

// A box stopped while it is solved leaves nothing behind: no table, no
// temporary file, no lock file (its claims are taken once it is solved).
TEST(RectanglesCommand, StoppedWhileSolvingLeavesNoFile) {
  ScratchDir s;
  ChompProcess box({"rectangles", "--max-rows", "16", "--max-cols", "16", "-t", "1", "-q", "-o", s.file("big.h5"),
                    "--csv", s.file("big.csv")});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_FALSE(box.exited()) << "the 16 x 16 box was solved in 0.3 s: too small to stop";
  box.send(SIGINT);
  const ProcessResult r = box.wait();
  EXPECT_NE(r.exit_code, 0);
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(s.path())) left.push_back(e.path().filename().string());
  EXPECT_TRUE(left.empty()) << left.front();
}

TEST(RectanglesCommand, TableCsvAndHdf5) {
  ScratchDir s;
  const std::string h5 = s.file("rect.h5"), csv = s.file("rect.csv");
  const ProcessResult r = run_chomp({"rectangles", "--max-rows", "6", "--max-cols", "13", "--output", h5, "--csv", csv});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "  6 x 13  (4,12) leaves 13,13,13,11,11,11; (5,9) leaves 13,13,13,13,8,8\n"));
  EXPECT_TRUE(contains(r.out, "  2 x 7   (2,7) leaves 7,6\n"));
  EXPECT_TRUE(contains(read_text(csv), "6,13,5,9,\"13,13,13,13,8,8\"\n"));
  const chomp::RectangleTable t = chomp::read_rectangles_h5(h5);
  EXPECT_EQ(t.max_rows, 6);
  EXPECT_EQ(t.boards.size(), 12U + 11U + 10U + 9U + 8U);
  // Outputs are not overwritten without --force.
  const ProcessResult again = run_chomp({"rectangles", "--max-rows", "3", "--max-cols", "4", "--output", h5});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_TRUE(contains(again.err, "--force"));
  const ProcessResult forced = run_chomp({"rectangles", "--max-rows", "3", "--max-cols", "4", "--output", h5, "--force", "--quiet"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_TRUE(forced.out.empty());
  EXPECT_EQ(chomp::read_rectangles_h5(h5).max_cols, 4);
  // The sieve's readers name the file's kind rather than a missing group.
  for (const char* command : {"verify", "show"}) {
    const ProcessResult other = run_chomp({command, h5});
    EXPECT_EQ(other.exit_code, 1) << command;
    EXPECT_TRUE(contains(other.err, "is not a table of `chomp sieve`: its root attribute format = \"chomp "
                                    "rectangles\" marks a file of another command (`chomp rectangles`, which prints"))
        << other.err;
  }
  const ProcessResult big = run_chomp({"rectangles", "--max-rows", "30", "--max-cols", "30"});
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_EQ(count_lines(big.err), 1);
  // Within the options' ranges, but a box whose rows + columns pass 256:
  // refused as such before any solve (it was refused as an invalid position).
  const ProcessResult wide = run_chomp({"rectangles", "--max-rows", "3", "--max-cols", "254", "-t", "1"});
  EXPECT_EQ(wide.exit_code, 2);
  EXPECT_TRUE(contains(wide.err, "rows + columns must be at most 256")) << wide.err;
  // --csv - writes the CSV to standard output (it wrote a file named "-").
  const ProcessResult to_stdout = run_chomp({"rectangles", "--max-rows", "3", "--max-cols", "3", "--csv", "-"});
  EXPECT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
  EXPECT_EQ(to_stdout.out, "rows,cols,move_row,move_col,leaves\n2,2,2,2,\"2,1\"\n2,3,2,3,\"3,2\"\n3,3,2,2,\"3,1,1\"\n");
  // Nor, even with --force, a sieve run's side file: a store is not a
  // table to overwrite (rect.store was accepted and replaced).
  const std::string store = s.file("rect.store");
  std::ofstream(store) << "a run's losing positions";
  for (const std::vector<std::string>& names : {std::vector<std::string>{"--output", store},
                                                {"--csv", store}, {"--csv", s.file("rect.h5.lock")}}) {
    std::vector<std::string> args = {"rectangles", "--max-rows", "3", "--max-cols", "3", "--force", "-q"};
    args.insert(args.end(), names.begin(), names.end());
    const ProcessResult side = run_chomp(args);
    EXPECT_EQ(side.exit_code, 2) << names[0];
    EXPECT_TRUE(contains(side.err, names[0] + " " + names[1] + " ends in ")) << side.err;
  }
  EXPECT_EQ(read_text(store), "a run's losing positions");
  EXPECT_FALSE(std::filesystem::exists(s.file("rect.h5.lock")));
  // A folder named like the temporary file stops the write (exit 1) and is
  // left where it is, not removed as a failed write's NAME.tmp would be.
  std::filesystem::create_directory(s.file("folded.h5.tmp"));
  const ProcessResult folded =
      run_chomp({"rectangles", "--max-rows", "3", "--max-cols", "3", "-q", "--output", s.file("folded.h5")});
  EXPECT_EQ(folded.exit_code, 1) << folded.err;
  EXPECT_TRUE(std::filesystem::is_directory(s.file("folded.h5.tmp")));
}

TEST(CountCommand, CountsAndOverflow) {
  const ProcessResult r = run_chomp({"count", "--rows", "8", "--cols", "15"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "C(23, 8) = 490314"));
  EXPECT_TRUE(contains(r.out, "C(21, 7) = 116280"));
  EXPECT_TRUE(contains(r.out, "board 8 x 15 (8 rows, 15 columns)")) << r.out;
  const ProcessResult one = run_chomp({"count", "--rows", "1", "--cols", "3"});
  EXPECT_TRUE(contains(one.out, "board 1 x 3 (1 row, 3 columns)")) << one.out;
  EXPECT_TRUE(contains(one.out, "with exactly 1 row and 3 columns: C(2, 0) = 1")) << one.out;
  const ProcessResult over = run_chomp({"count", "--rows", "40", "--cols", "40"});
  EXPECT_EQ(over.exit_code, 2);
  EXPECT_TRUE(contains(over.err, "does not fit in 64 bits"));
  EXPECT_EQ(run_chomp({"count", "--rows", "0", "--cols", "3"}).exit_code, 2);
}

TEST(PlayCommand, HumanWinsTwoByTwo) {
  // (2,2) leaves the losing L 2,1; whatever the computer does, one of the
  // next two moves leaves the single tile (the other is refused as illegal).
  for (const char* level : {"easy", "medium", "hard", "perfect"}) {
    const ProcessResult r = run_chomp_with_input({"play", "--rows", "2", "--cols", "2", "--level", level, "--seed", "3"}, "2 2\n2 1\n1 2\n");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "you win!")) << level << ":\n" << r.out;
    EXPECT_TRUE(contains(r.out, "    1  2\n   1  X  #\n   2  #  #\n"));
  }
}

TEST(PlayCommand, ExplainsBadInputHintsUndoesAndEndsAtEof) {
  const ProcessResult r = run_chomp_with_input({"play", "--rows", "3", "--cols", "4", "--level", "perfect", "--seed", "1"},
                      "hello\n9 9\n2 5\nhint\n1 4\n1 4\nundo\nundo\nquit\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "'hello' is not a move"));
  // Tiles the board never had, and one taken already (it used to call (9,9) a tile of an emptied row).
  EXPECT_TRUE(contains(r.out, "Illegal move: tile (9,9) is off the board, whose rows are 1..3. Try again.")) << r.out;
  EXPECT_TRUE(contains(r.out, "Illegal move: tile (2,5) is off the board, whose row 2 has columns 1..4")) << r.out;
  EXPECT_TRUE(contains(r.out, "Illegal move: tile (1,4) is gone: row 1 has tiles in columns 1..")) << r.out;
  EXPECT_TRUE(contains(r.out, "Hint: take (2,3); it leaves 4,2,2"));
  EXPECT_TRUE(contains(r.out, "Took back your last move"));
  EXPECT_TRUE(contains(r.out, "Nothing to undo"));
  EXPECT_TRUE(contains(r.out, "You quit the game."));
  // The poisoned tile alone: the hint says so (it told of a move that
  // "takes a single tile and leaves the computer the fewest winning replies").
  const ProcessResult last = run_chomp_with_input({"play", "--rows", "2", "--cols", "2", "--level", "perfect"},
                                                  "2 1\nhint\nquit\n");
  EXPECT_TRUE(contains(last.out, "The computer takes (1,2)")) << last.out;
  EXPECT_TRUE(contains(last.out, "Hint: only the poisoned tile is left; taking it loses the game.")) << last.out;
  const ProcessResult eof = run_chomp_with_input({"play", "--computer-first", "--level", "hard", "--seed", "2"}, "");
  EXPECT_EQ(eof.exit_code, 0) << eof.err;
  EXPECT_TRUE(contains(eof.out, "The computer takes ("));
  EXPECT_TRUE(contains(eof.out, "End of input"));
}

TEST(PlayCommand, RefusesWhatItCannotOffer) {
  const ProcessResult big = run_chomp({"play", "--rows", "16", "--cols", "16", "--level", "perfect"});
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_TRUE(contains(big.err, "perfect play is offered")) << big.err;
  EXPECT_TRUE(contains(big.err, "16 x 16 holds 601080390")) << big.err;  // C(32, 16)
  // C(80, 40) is about 1.1e23: its count saturates, and is not printed as 2^64 - 1.
  const ProcessResult huge = run_chomp({"play", "--rows", "40", "--cols", "40", "--level", "perfect"});
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_TRUE(contains(huge.err, "40 x 40 holds more than 10^19")) << huge.err;
  // The same for a board of a sum, and for a hint on a board too large to solve.
  const ProcessResult huge_sum = run_chomp({"play", "--boards", "40x40"});
  EXPECT_EQ(huge_sum.exit_code, 2);
  EXPECT_TRUE(contains(huge_sum.err, "board 1 of --boards contains more than 2^64 positions")) << huge_sum.err;
  const ProcessResult huge_hint = run_chomp_with_input(
      {"play", "--rows", "40", "--cols", "40", "--level", "hard", "--computer-first", "--seed", "1"}, "hint\nquit\n");
  EXPECT_EQ(huge_hint.exit_code, 0) << huge_hint.err;
  EXPECT_TRUE(contains(huge_hint.out, "No hint: the position contains more than 2^64 positions")) << huge_hint.out;
  EXPECT_FALSE(contains(huge_hint.out + huge_sum.err, "18446744073709551615"));
  EXPECT_EQ(run_chomp({"play", "--level", "expert"}).exit_code, 2);
  // A sum's boards give their own sizes: --rows beside them is refused, not ignored.
  const ProcessResult sized = run_chomp({"play", "--boards", "3x4 + 2x5", "--rows", "5"});
  EXPECT_EQ(sized.exit_code, 2);
  EXPECT_TRUE(contains(sized.err, "--rows excludes --boards")) << sized.err;
  EXPECT_EQ(run_chomp({"play", "--rows", "41"}).exit_code, 2);
}
