/// @file cmd_analyze.cpp
/// @brief `chomp analyze`: status and winning moves of any position, solved
/// exactly with every position contained in it.

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <sstream>

#include <unistd.h>

#include "chomp/analyze3d.hpp"
#include "chomp/bounded.hpp"
#include "chomp/grundy.hpp"
#include "chomp/strategy.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"
#include "solve_progress.hpp"
#include "status_line.hpp"

namespace chomp::app::cmd_analyze {
namespace {

struct AnalyzeArgs {
  std::string position = "-";
  std::vector<std::string> words;  // the position as given; an unquoted sum comes as several words
  bool json = false;
  int threads = 0;
  int dimensions = 2;
};

/// Standard input, up to the longest position text: one byte more is
/// refused at once, without reading (or holding) the rest.
std::string read_stdin() {
  refuse_folder_stdin("the position");
  // At a terminal, a command with no position would wait in silence.
  if (isatty(STDIN_FILENO) == 1)
    std::cerr << "chomp analyze: reading the position from the terminal; end it with Ctrl-D (or give it as an "
                 "argument, as `chomp analyze --help` shows)\n";
  std::string text(kMaxPositionText + 1, '\0');
  std::cin.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(std::cin.gcount()));
  if (text.size() > kMaxPositionText)
    throw InvalidPosition("standard input is longer than " + std::to_string(kMaxPositionText) +
                          " bytes, more than any position takes (its rows plus columns are at most 256)");
  return text;
}

struct MoveLine {
  Move move;
  Rows leaves;
};

std::string json_move(const MoveLine& m) {
  return "{\"row\": " + std::to_string(m.move.row) + ", \"col\": " + std::to_string(m.move.col) +
         ", \"leaves\": \"" + rows_to_string(m.leaves) + "\"}";
}

std::string text_move(const MoveLine& m) {
  return "(" + std::to_string(m.move.row) + "," + std::to_string(m.move.col) + ") leaves " +
         (m.leaves.empty() ? std::string("nothing (it is the poisoned tile)") : rows_to_string(m.leaves));
}

/// `chomp analyze "3,2 + 4,4,1 + 2"`: a sum of boards, played on one board
/// of the mover's choice; the Grundy value of each, the nim-sum, the status
/// and every winning move.
int run_sum(const std::string& text, bool json) {
  const std::vector<Rows> components = parse_sum(text);
  for (std::size_t c = 0; c < components.size(); ++c) {
    const std::uint64_t domain = count_subpositions(components[c]);
    if (domain > kMaxGrundyDomain)
      throw UsageError("board " + std::to_string(c + 1) + " of the sum (" +
                       (components[c].size() <= 20 ? rows_to_string(components[c]) : std::string("given")) +
                       ") contains " + positions_text(domain) +
                       " positions; a board of a sum is solved for Grundy values with at most " +
                       std::to_string(kMaxGrundyDomain) + " (up to 12 x 12, 10 x 15 or 6 x 34)");
  }
  const auto t0 = std::chrono::steady_clock::now();
  const SumAnalysis a = analyze_sum(components);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto values_after = [&](const SumMove& m) {
    std::vector<int> v = a.values;
    v[static_cast<std::size_t>(m.component)] = m.value;
    return v;
  };
  const auto join = [](const std::vector<int>& v, const char* sep) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + std::to_string(v[i]);
    return out;
  };
  if (json) {
    std::printf("{\n  \"sum\": [");
    for (std::size_t c = 0; c < components.size(); ++c)
      std::printf("%s\n    {\"board\": %zu, \"position\": \"%s\", \"tiles\": %llu, \"grundy\": %d}", c ? "," : "",
                  c + 1, rows_to_string(components[c]).c_str(),
                  static_cast<unsigned long long>(tile_count(components[c])), a.values[c]);
    std::printf("\n  ],\n  \"nim_sum\": %d,\n  \"status\": \"%s\",\n  \"winning_moves\": [", a.nim_sum,
                a.losing() ? "losing" : "winning");
    for (std::size_t i = 0; i < a.winning_moves.size(); ++i) {
      const SumMove& m = a.winning_moves[i];
      std::printf("%s\n    {\"board\": %d, \"row\": %d, \"col\": %d, \"leaves\": \"%s\", \"grundy\": %d, "
                  "\"values\": [%s]}",
                  i ? "," : "", m.component + 1, m.move.row, m.move.col,
                  rows_to_string(m.leaves).c_str(), m.value, join(values_after(m), ", ").c_str());
    }
    std::printf("%s],\n  \"convention\": \"%s\",\n  \"seconds\": %.6f\n}\n", a.winning_moves.empty() ? "" : "\n  ",
                "the poisoned tile is never taken; the single poisoned tile has value 0; G = mex over the moves "
                "other than taking (1,1); G = 0 exactly for losing positions",
                seconds);
    return 0;
  }
  std::printf("Sum of %zu board%s (a move is made on one board; the poisoned tile is never taken,\n"
              "so the player who cannot move loses; the single poisoned tile has value 0)\n\n",
              components.size(), components.size() == 1 ? "" : "s");
  for (std::size_t c = 0; c < components.size(); ++c)
    std::printf("  board %zu: %-20s %4llu tiles   Grundy value %d\n", c + 1, rows_to_string(components[c]).c_str(),
                static_cast<unsigned long long>(tile_count(components[c])), a.values[c]);
  std::printf("\nNim-sum: %s = %d\n", join(a.values, " xor ").c_str(), a.nim_sum);
  const bool no_move = std::all_of(components.begin(), components.end(), [](const Rows& r) { return tile_count(r) == 1; });
  if (a.losing() && no_move) {
    std::printf("Status: losing (nim-sum 0: no move is left, every board is down to its poisoned tile)\n");
  } else if (a.losing()) {
    std::printf("Status: losing (nim-sum 0: every move leaves a nim-sum other than 0)\n");
  } else {
    std::printf("Status: winning\nWinning moves (%zu), each leaving nim-sum 0:\n", a.winning_moves.size());
    for (const SumMove& m : a.winning_moves)
      std::printf("  board %d, tile (%d,%d): leaves %s (value %d); values %s\n", m.component + 1, m.move.row,
                  m.move.col, rows_to_string(m.leaves).c_str(), m.value, join(values_after(m), ", ").c_str());
  }
  std::printf("\nSolved in %.3f s.\n", seconds);
  return 0;
}

std::string cube_text(const Cube& c) {
  return "(" + std::to_string(c.row) + "," + std::to_string(c.col) + "," + std::to_string(c.layer) + ")";
}

/// `chomp analyze --dimensions 3 3,2/1`: a 3D position (analyze3d.hpp).
int run_analyze3d(const AnalyzeArgs& a) {
  std::string text = a.position == "-" ? read_stdin() : a.position;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const Heights h = parse_heights(text);
  Analysis3d result;
  const auto t0 = std::chrono::steady_clock::now();
  StatusLine line;
  const auto progress = [&](std::uint64_t solved, std::uint64_t limit) {
    if (line.elapsed() < 1) return;  // a quick solve shows nothing
    char text[160];
    std::snprintf(text, sizeof text, "solving: %llu positions (it gives up past %llu), %.0f s",
                  static_cast<unsigned long long>(solved), static_cast<unsigned long long>(limit), line.elapsed());
    line.show(text);
  };
  try {
    result = analyze_3d(h, kAnalyze3dMaxPositions, progress);
  } catch (const std::length_error& e) {
    line.clear();
    throw UsageError(e.what());
  }
  line.clear();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string pos = heights_to_string(h);
  // As in 2D: a winning position's first winning move; from a losing one,
  // the move that leaves the most cubes (the first such, in move order);
  // from the poisoned cube alone, taking it.
  Cube best{1, 1, 1};
  if (!result.losing) {
    best = result.winning_moves.front();
  } else {
    int most = -1;
    for (const Cube& c : moves_3d(h))
      if (const int left = cube_count(apply_move(h, c)); left > most) {
        most = left;
        best = c;
      }
  }
  const Heights after_best = apply_move(h, best);
  const std::string best_leaves = after_best.empty() ? std::string() : heights_to_string(after_best);
  if (a.json) {
    std::printf("{\n  \"position\": \"%s\",\n  \"dimensions\": 3,\n  \"cubes\": %d,\n  \"status\": \"%s\",\n"
                "  \"winning_moves\": [",
                pos.c_str(), cube_count(h), result.losing ? "losing" : "winning");
    for (std::size_t i = 0; i < result.winning_moves.size(); ++i) {
      const Cube& c = result.winning_moves[i];
      std::printf("%s\n    {\"row\": %d, \"col\": %d, \"layer\": %d, \"leaves\": \"%s\"}", i ? "," : "", c.row,
                  c.col, c.layer, heights_to_string(apply_move(h, c)).c_str());
    }
    std::printf("%s],\n  \"best_move\": {\"row\": %d, \"col\": %d, \"layer\": %d, \"leaves\": \"%s\"},\n",
                result.winning_moves.empty() ? "" : "\n  ", best.row, best.col, best.layer, best_leaves.c_str());
    std::printf("  \"positions_solved\": %llu,\n  \"seconds\": %.6f\n}\n",
                static_cast<unsigned long long>(result.positions_solved), seconds);
    return 0;
  }
  const int cubes = cube_count(h);
  std::printf("3D position %s: %d cube%s; heights:\n\n%s\n", pos.c_str(), cubes, cubes == 1 ? "" : "s",
              heights_picture(h).c_str());
  if (result.losing) {
    std::printf(cubes == 1 ? "Status: losing (the only move takes the poisoned cube)\n"
                           : "Status: losing (every move leaves a winning position)\n");
    std::printf("Best move: %s leaves %s\n", cube_text(best).c_str(),
                after_best.empty() ? "nothing (it is the poisoned cube)"
                                   : (best_leaves + ", the largest position left").c_str());
  } else {
    std::printf("Status: winning\nWinning moves (%zu), the cube (row,column,layer) taken:\n", result.winning_moves.size());
    for (const Cube& c : result.winning_moves)
      std::printf("  %s leaves %s\n", cube_text(c).c_str(), heights_to_string(apply_move(h, c)).c_str());
  }
  // The search stops at a position's first winning move, so it solves
  // some of the positions reachable from this one, not all of them.
  std::printf("\nSolved %llu position%s reachable from it to decide it in %.3f s.\n",
              static_cast<unsigned long long>(result.positions_solved), result.positions_solved == 1 ? "" : "s",
              seconds);
  return 0;
}

int run_analyze(const AnalyzeArgs& a) {
  if (a.dimensions == 3) return run_analyze3d(a);
  const std::string text = a.position == "-" ? read_stdin() : a.position;
  if (text.find('+') != std::string::npos) {
    const int threads = worker_threads(a.threads);
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    return run_sum(text, a.json);
  }
  // One rectangle, "14x14", is a position, solved like its row lengths (as
  // a sum of one board it was held to a sum's 2^22 positions).
  // A picture ('#', or several lines: "X##" drawn as chomp play draws) is
  // read as one, not taken for a rectangle by its 'X'.
  std::string_view lines = text;
  while (!lines.empty() && (lines.back() == '\n' || lines.back() == '\r')) lines.remove_suffix(1);
  const bool picture = text.find('#') != std::string::npos || lines.find('\n') != std::string_view::npos;
  const Rows rows = !picture && text.find_first_of("xX") != std::string::npos ? parse_sum(text).front()
                                                                              : parse_position(text);
  const std::uint64_t domain = count_subpositions(rows);
  if (domain > kMaxDomainPositions)
    throw UsageError("position " + std::string(rows.size() <= 20 ? rows_to_string(rows) : "given") + " contains " +
                     positions_text(domain) +
                     " positions; analyze solves at most " + std::to_string(kMaxDomainPositions) +
                     " (such as 18 x 18 or 10 x 42)");
  refuse_unless_memory_left(bounded_solver_bytes(domain),
                            "position " + std::string(rows.size() <= 20 ? rows_to_string(rows) : "given"),
                            "a bit for each of the " + std::to_string(domain) + " positions inside it, and buffers",
                            "analyze a smaller position, or free memory");
  const int threads = worker_threads(a.threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));

  SolveProgress progress(domain);
  const BoundedSolver solver(rows, progress.callback());
  progress.end();
  const bool losing = solver.is_losing(rows);
  std::vector<MoveLine> wins;
  for (const Move& m : solver.winning_moves(rows)) wins.push_back({m, apply_move(rows, m)});
  // From a losing position: the move that leaves the largest position, the
  // one giving the opponent the fewest winning replies among those.
  const Move best_move = losing ? stubborn_moves(solver, rows).front() : wins.front().move;
  const MoveLine best{best_move, apply_move(rows, best_move)};
  const LatticePath path = LatticePath::from_rows(rows);

  if (a.json) {
    std::printf("{\n  \"position\": \"%s\",\n  \"tiles\": %llu,\n  \"rows\": %d,\n  \"cols\": %d,\n",
                rows_to_string(rows).c_str(), static_cast<unsigned long long>(tile_count(rows)), path.num_rows(),
                path.num_cols());
    std::printf("  \"status\": \"%s\",\n  \"winning_moves\": [", losing ? "losing" : "winning");
    for (std::size_t i = 0; i < wins.size(); ++i) std::printf("%s\n    %s", i ? "," : "", json_move(wins[i]).c_str());
    std::printf("%s],\n  \"best_move\": %s,\n", wins.empty() ? "" : "\n  ", json_move(best).c_str());
    std::printf("  \"positions_solved\": %llu,\n  \"seconds\": %.6f\n}\n",
                static_cast<unsigned long long>(solver.ranking().total_positions()), solver.seconds());
    return 0;
  }
  const auto count = [](std::uint64_t n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  std::printf("Position %s: %s, %s x %s\n\n%s\n", rows_to_string(rows).c_str(),
              count(tile_count(rows), "tile").c_str(), count(static_cast<std::uint64_t>(path.num_rows()), "row").c_str(),
              count(static_cast<std::uint64_t>(path.num_cols()), "column").c_str(), path.picture().c_str());
  if (losing) {
    std::printf(tile_count(rows) == 1 ? "Status: losing (the only move takes the poisoned tile)\n"
                                      : "Status: losing (every move leaves a winning position)\n");
    std::printf("Best move: %s%s\n", text_move(best).c_str(), tile_count(rows) == 1 ? "" : ", the largest position left");
  } else {
    std::printf("Status: winning\n");
    std::printf("Winning moves (%zu):\n", wins.size());
    for (const MoveLine& m : wins) std::printf("  %s\n", text_move(m).c_str());
  }
  std::printf("\nSolved all %llu positions inside it in %.3f s.\n",
              static_cast<unsigned long long>(solver.ranking().total_positions()), solver.seconds());
  return 0;
}

const RegisterCommand registration(20, "analyze", "Status and every winning move of a position",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<AnalyzeArgs>();
  sub.add_option("position", a->words,
                 "Row lengths top first, e.g. 7,3,3,1,1, or a rectangle ROWSxCOLS such as 14x14, or a sum of boards "
                 "such as \"3,2 + 4,4,1 + 2\" or \"3x4 + 2x5\"; "
                 "'-' or nothing reads rows of '#' (or row lengths, or a sum) from stdin");
  sub.add_flag("--json", a->json, "Print the result as JSON");
  sub.add_option("-t,--threads", a->threads, kWorkerThreadsHelp)->transform(whole_number(1, 4096));
  sub.add_option("--dimensions", a->dimensions,
                 "3: the position is 3D Chomp, rows of heights separated by '/', e.g. 3,2/1 (h(1,1)=3, "
                 "h(1,2)=2, h(2,1)=1); a move takes a cube (row,column,layer) and every cube at or beyond it; up to 63 cubes. "
                 "Most positions of up to 40 cubes take under a second; some of 50 or more need millions of "
                 "sub-positions and minutes (progress on stderr), and it gives up past 20,000,000 (about 2 GB)")
      ->transform(whole_number(2, 3));
  sub.footer(
      "A 2D position: solves exactly every position contained in the given one (its\n"
      "rows no longer than the given rows), so its answer needs no search and no guess.\n"
      "A 3D position (--dimensions 3): searches the positions reachable from it, as many\n"
      "as decide it, and says how many it solved.\n"
      "Size: the work and memory (one bit each, and up to 0.3 GB of buffers) grow with\n"
      "that number of positions:\n"
      "  8 x 15 (4.9e5 positions)  well under a second\n"
      "  14 x 14 (4.0e7)           about a second\n"
      "  18 x 18 (9.1e9, 1.4 GB)   minutes\n"
      "  10 x 42 (1.6e10, 2.3 GB)  minutes\n"
      "Positions containing more than 2^36 (6.9e10) positions, or needing more memory than\n"
      "is left, are refused before solving (exit code 2).\n"
      "Sums: boards separated by '+', each row lengths or ROWSxCOLS (a rectangle). A move\n"
      "takes a tile of one board; the poisoned tile (1,1) is never taken, so the single\n"
      "poisoned tile has Grundy value 0, G = mex over the other moves, and G = 0 exactly\n"
      "for losing positions. The sum is lost by the player to move exactly when the\n"
      "nim-sum (xor) of the values is 0; every winning move is listed as board, tile,\n"
      "what it leaves and the values after it. A board of a sum may contain at most\n"
      "2^22 positions (up to 12 x 12, 10 x 15 or 6 x 34; two bytes each; a 12 x 12\n"
      "board takes about half a minute); an empty board (\"3,2 +\") or a larger one is refused (exit code 2).\n"
      "Examples:\n"
      "  chomp analyze 7,3,3,1,1\n"
      "  chomp analyze --dimensions 3 3,2/2,1\n"
      "  printf '###\\n##\\n#\\n' | chomp analyze --json\n"
      "  chomp analyze \"3,2 + 4,4,1 + 2\" --json\n");
  return [a] {
    if (a->words.size() > 1 && std::find(a->words.begin(), a->words.end(), "-") != a->words.end())
      throw UsageError("'-' reads the position from standard input, and a position was given too; give one of "
                       "them");
    if (!a->words.empty()) a->position = join_words(a->words);
    return with_words_hint(a->words, "the position", [&] { return run_analyze(*a); });
  };
});

}  // namespace
}  // namespace chomp::app::cmd_analyze
