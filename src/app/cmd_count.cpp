/// @file cmd_count.cpp
/// @brief `chomp count`: how many positions a P x Q board holds.

#include <cstdio>
#include <stdexcept>

#include "chomp/bounded.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"

namespace chomp::app::cmd_count {
namespace {

struct CountArgs {
  int rows = 0;
  int cols = 0;
};

/// C(n, k), or a UsageError that says which count is too large.
std::uint64_t checked_binomial(int n, int k, const char* what, const CountArgs& a) {
  try {
    return binomial(n, k);
  } catch (const std::overflow_error&) {
    throw UsageError("the number of " + std::string(what) + " of a " + std::to_string(a.rows) + " x " +
                     std::to_string(a.cols) + " board, C(" + std::to_string(n) + ", " + std::to_string(k) +
                     "), does not fit in 64 bits; choose a smaller board");
  }
}

int run_count(const CountArgs& a) {
  const std::uint64_t all = checked_binomial(a.rows + a.cols, a.rows, "positions", a);
  const std::uint64_t full = checked_binomial(a.rows + a.cols - 2, a.rows - 1, "full-size positions", a);
  std::printf("board %d x %d (%d %s, %d %s)\n", a.rows, a.cols, a.rows, a.rows == 1 ? "row" : "rows", a.cols,
              a.cols == 1 ? "column" : "columns");
  std::printf("positions, the empty board included: C(%d, %d) = %llu\n", a.rows + a.cols, a.rows,
              static_cast<unsigned long long>(all));
  std::printf("positions with exactly %d %s and %d %s: C(%d, %d) = %llu\n", a.rows, a.rows == 1 ? "row" : "rows",
              a.cols, a.cols == 1 ? "column" : "columns",
              a.rows + a.cols - 2, a.rows - 1, static_cast<unsigned long long>(full));
  return 0;
}

const RegisterCommand registration(40, "count", "Count the positions of a P x Q board",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<CountArgs>();
  sub.add_option("--rows", a->rows, "Rows P of the board")->required()->transform(whole_number(1, 1000000));
  sub.add_option("--cols", a->cols, "Columns Q of the board")->required()->transform(whole_number(1, 1000000));
  sub.footer("Prints C(P+Q, P), the positions of the board including the empty one, and\n"
             "C(P+Q-2, P-1), those with exactly P rows and Q columns. Counts that do not\n"
             "fit in 64 bits are refused (exit code 2).\n");
  return [a] { return run_count(*a); };
});

}  // namespace
}  // namespace chomp::app::cmd_count
