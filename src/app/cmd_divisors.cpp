/// @file cmd_divisors.cpp
/// @brief `chomp divisors N`: the divisor game of N (divisors.hpp), its
/// board, the status of a position and every winning move as the number
/// to pick, solved exactly over the positions inside it: by the 2D bounded
/// solver for one or two primes (bounded.hpp), by the box solver for more
/// (box_chomp.hpp).

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "chomp/bounded.hpp"
#include "chomp/box_chomp.hpp"
#include "chomp/divisors.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"
#include "status_line.hpp"

namespace chomp::app::cmd_divisors {
namespace {

struct DivisorsArgs {
  std::uint64_t n = 0;
  std::string position;
  bool has_position = false;  // given, even as "" (which is refused)
  int threads = 0;
};

/// Removed numbers listed one by one up to this many, else counted.
constexpr std::size_t kListedRemovals = 12;

std::string with_commas(std::uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), 1, ',');
  return s;
}

/// "2D Chomp on a 3 x 4 board (rows: powers of 3, columns: powers of 2)".
std::string board_words(const DivisorBoard& b) {
  const auto& f = b.factors();
  const auto p = [&](std::size_t j) { return std::to_string(f[j].prime); };
  const auto n = [&](std::size_t j) { return std::to_string(f[j].exponent + 1); };
  if (f.size() == 1) return "2D Chomp on a 1 x " + n(0) + " board (a row: the powers of " + p(0) + ")";
  if (f.size() == 2)
    return "2D Chomp on a " + n(1) + " x " + n(0) + " board (rows: powers of " + p(1) + ", columns: powers of " +
           p(0) + ")";
  if (f.size() == 3)
    return "3D Chomp in a " + n(1) + " x " + n(0) + " x " + n(2) + " box (rows: powers of " + p(1) +
           ", columns: powers of " + p(0) + ", layers: powers of " + p(2) + ")";
  std::string dims, higher;
  for (std::size_t j = 0; j < f.size(); ++j) dims += std::string(j ? " x " : "") + n(j);
  for (std::size_t j = 2; j < f.size(); ++j) higher += std::string(j > 2 ? ", " : "") + p(j);
  return std::to_string(f.size()) + "D Chomp in a " + dims + " box (rows: powers of " + p(1) +
         ", columns: powers of " + p(0) + "; a grid for each product of powers of " + higher + ")";
}

/// A solved position: its status, its winning moves (cells) and what the
/// solve took.
struct Solved {
  bool losing = false;
  std::vector<std::size_t> wins;
  std::uint64_t positions = 0;
  double seconds = 0;
};

/// One or two primes: Chomp on a rectangle, rows the powers of p2 (axis 1),
/// columns those of p1 (axis 0), solved by the bounded 2D solver, which
/// marks from the losing positions in a bitmap of ranks and is some fifty
/// times faster than the box solver's pull (2^13 * 3^13: 2 s against 100 s).
Solved solve_2d(const Box& box, const CellSet& position) {
  const int cols = box.extent(0), rows = box.dimensions() == 2 ? box.extent(1) : 1;
  const auto cell = [&](int row, int col) {
    return box.dimensions() == 2 ? box.index(std::vector<int>{col, row}) : box.index(std::vector<int>{col});
  };
  Rows shape;
  for (int r = 1; r <= rows; ++r) {
    int len = 0;
    while (len < cols && position[cell(r, len + 1)]) ++len;
    if (len == 0) break;
    shape.push_back(len);
  }
  const BoundedSolver solver(shape);
  Solved s{solver.is_losing(shape), {}, solver.ranking().total_positions(), solver.seconds()};
  for (const Move& m : solver.winning_moves(shape)) s.wins.push_back(cell(m.row, m.col));
  return s;
}

/// Three primes or more: the box solver, with a progress line for boards
/// of a few million positions and more (they take seconds to minutes).
Solved solve_box(const Box& box, const CellSet& position, bool show) {
  StatusLine line;
  const BoxProgressFn progress = [&](int cells, int max_cells, std::uint64_t solved) {
    if (!show) return;
    char text[160];
    std::snprintf(text, sizeof text, "solving: level %d of %d, %s positions, %.0f s", cells, max_cells,
                  with_commas(solved).c_str(), line.elapsed());
    line.show(text, cells == max_cells);
  };
  const BoxSolver solver(box, position, progress);
  line.clear();
  return {solver.is_losing(position), solver.winning_moves(position), solver.positions(), solver.seconds()};
}

int run_divisors(const DivisorsArgs& a) {
  const DivisorBoard board(a.n);
  const Box& box = board.box();
  const PositionCount count = count_down_sets(box);
  if (!count.exact || count.value > kMaxBoxPositions)
    throw UsageError("the board of " + std::to_string(a.n) + " = " + board.factor_text() + " has " +
                     (count.exact ? "" : "at least ") + with_commas(count.value) +
                     " positions (order ideals of its divisor lattice, the empty one included); divisors "
                     "solves boards of at most 2^26 = " + with_commas(kMaxBoxPositions) +
                     " (such as 2^13 * 3^13, 2^6 * 3^3 * 5^3 or 2 * 3 * 5 * 7 * 11 * 13)");
  const CellSet position = a.has_position ? board.parse_position(a.position) : whole_box(box);

  const int threads = worker_threads(a.threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  Solved solved = box.dimensions() <= 2 ? solve_2d(box, position)
                                         : solve_box(box, position, count.value >= (std::uint64_t{1} << 22));
  // Largest number first.
  std::sort(solved.wins.begin(), solved.wins.end(),
            [&](std::size_t x, std::size_t y) { return board.divisor(x) > board.divisor(y); });

  const std::size_t remaining = cells_in(position);
  std::printf("Divisors of %llu = %s: %zu numbers, %s\n\n%s\n", static_cast<unsigned long long>(a.n),
              board.factor_text().c_str(), box.cells(), board_words(board).c_str(), board.picture(position).c_str());
  std::printf("A move picks a number and removes it with every remaining number that divides it;\n"
              "whoever must pick %llu loses.\n\n",
              static_cast<unsigned long long>(a.n));
  if (a.has_position)
    std::printf("Position: %zu of the %zu numbers remain (a '.' is gone).\n", remaining, box.cells());
  if (solved.losing) {
    if (remaining == 1)
      std::printf("Status: losing for the player to move (the only move picks %llu)\n",
                  static_cast<unsigned long long>(a.n));
    else
      std::printf("Status: losing for the player to move (every move leaves a winning position)\n");
  } else {
    std::printf("Status: winning for the player to move\nWinning moves (%zu), the number to pick:\n",
                solved.wins.size());
    for (std::size_t cell : solved.wins) {
      const CellSet after = take(box, position, cell);
      std::vector<std::uint64_t> removed;
      for (std::size_t c = 0; c < position.size(); ++c)
        if (position[c] && !after[c]) removed.push_back(board.divisor(c));
      std::sort(removed.rbegin(), removed.rend());
      std::string list;
      if (removed.size() <= kListedRemovals)
        for (std::uint64_t d : removed) list += std::string(list.empty() ? "" : " ") + std::to_string(d);
      std::printf("  %llu  removes %zu number%s%s%s\n", static_cast<unsigned long long>(board.divisor(cell)),
                  removed.size(), removed.size() == 1 ? "" : "s", list.empty() ? "" : ": ", list.c_str());
    }
  }
  std::printf("\nSolved the %s positions inside it (the empty one included) in %.3f s.\n",
              with_commas(solved.positions).c_str(), solved.seconds);
  return 0;
}

const RegisterCommand registration(25, "divisors", "The divisor game of N: its board, status and winning moves as numbers",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<DivisorsArgs>();
  sub.add_option("N", a->n, "The number whose divisors are the board (2 .. 2^64 - 1)")
      ->required()
      ->transform(whole_number(2, UINT64_MAX, " (a 64-bit number)"));
  CLI::Option* position = sub.add_option("--position", a->position,
                 "The numbers that remain, separated by commas, e.g. 72,36,24,12 for N = 72: N among them, and with "
                 "each number every multiple of it that divides N (default: every divisor)");
  sub.add_option("-t,--threads", a->threads, kWorkerThreadsHelp)->transform(whole_number(1, 4096));
  sub.footer(
      "The divisors of N are the board; a move picks a remaining number and removes it\n"
      "together with every remaining number that divides it; whoever must pick N loses.\n"
      "With N = p1^e1 ... pk^ek (primes increasing) this is Chomp on the down-sets of an\n"
      "(e1+1) x ... x (ek+1) box, N the poisoned cell: two primes are 2D Chomp (N = 72 is\n"
      "the 3 x 4 board 72 36 18 9 / 24 12 6 3 / 8 4 2 1), three primes 3D Chomp in a box.\n"
      "Prints the board (rows the powers of p2, columns those of p1, a grid for each power\n"
      "of p3 and beyond), the status of the position for the player to move, and every\n"
      "winning move as the number to pick. Every position inside the given one is solved\n"
      "exactly, level by level (doc/THREE_D.md, \"The divisor game\").\n"
      "Size: boards of at most 2^26 = 67,108,864 positions (order ideals of the divisor\n"
      "lattice, the empty one included) are solved; the count is made first and a larger\n"
      "board is refused (exit code 2), as are N < 2, N >= 2^64 and a malformed position.\n"
      "One or two primes (a rectangle) are solved by the 2D bounded solver, three or more\n"
      "by the box solver (a pull over the down-sets of the box, level by level):\n"
      "  2^13 * 3^13 (14 x 14, 40,116,600 positions)         about a second\n"
      "  2 * 3 * 5 * 7 * 11 * 13 (2^6 box, 7,828,354)        about 10 s\n"
      "  2^6 * 3^3 * 5^3 (4 x 7 x 4 box, 44,537,922)         about 2 minutes, 70 MiB\n"
      "Examples:\n"
      "  chomp divisors 72\n"
      "  chomp divisors 72 --position 72,36,24,12,8\n"
      "  chomp divisors 210\n");
  return [a, position] {
    a->has_position = position->count() > 0;
    return run_divisors(*a);
  };
});

}  // namespace
}  // namespace chomp::app::cmd_divisors
