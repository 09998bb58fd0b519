/// @file cmd_verify.cpp
/// @brief `chomp verify`: checks the levels of a sieve result file without
/// the sieve (include/chomp/verify.hpp).

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "chomp/losing_store.hpp"
#include "chomp/position.hpp"

#include "chomp/h5_output.hpp"
#include "chomp/verify.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"

namespace chomp::app {
namespace {

struct VerifyArgs {
  std::string file;
  int from = 1;
  int to = 255;
  std::uint64_t every = 1;
  std::uint64_t moves = 0;  // 0: the rule is not checked
  int threads = 0;
};

int run_verify(const VerifyArgs& a) {
  const LevelFileReader reader(a.file);
  const LevelTable& t = reader.table();
  if (!reader.has_store())
    throw std::runtime_error(a.file + " names no store of losing positions (format_version " +
                             std::to_string(reader.format_version()) +
                             ", or a copy with the levels only, such as data/levels-153.h5); verify the file "
                             "the run itself wrote, with its store beside it");
  const int rows = static_cast<int>(t.tiles.size());
  if (a.from > rows)
    throw UsageError("--from " + std::to_string(a.from) + " is past the file's last level (" + std::to_string(rows) +
                     ")");
  if (a.to < a.from)
    throw UsageError("--to " + std::to_string(a.to) + " is below --from " + std::to_string(a.from));
  const int to = std::min(a.to, rows);
  const int threads = a.threads > 0 ? a.threads : tbb::info::default_concurrency();
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  const PartitionTable table(rows);
  const std::unique_ptr<LosingStore> store =
      LosingStore::open(reader.store_path(), reader.run_id(), reader.stored_levels(rows), false);
  std::printf("%6s %14s %14s", "tiles", "losing", "transposed");
  if (a.moves) std::printf(" %14s", "by moves");
  std::printf("  %s\n", "result");
  int failed = 0, last = a.from - 1;
  for (int n = a.from; n <= to; ++n) {
    const auto i = static_cast<std::size_t>(n - 1);
    std::string problem;
    LevelVerdict verdict, by_moves;
    if (t.tiles[i] != static_cast<std::uint32_t>(n) || t.positions[i] != table.positions(n)) {
      problem = "its row is not that of level " + std::to_string(n) + " (damaged file)";
    } else {
      try {
        store->check_level(n, table.positions(n));
      } catch (const StoreError& e) {
        problem = e.what();
      }
      if (problem.empty()) {
        verdict = check_transposes(table, n, *store, a.every);
        problem = verdict.problem;
      }
      if (problem.empty() && a.moves) {
        by_moves = check_moves(table, n, *store, a.moves);
        problem = by_moves.problem;
      }
    }
    std::printf("%6d %14llu %14llu", n, static_cast<unsigned long long>(t.losing[i]),
                static_cast<unsigned long long>(verdict.checked));
    if (a.moves) std::printf(" %14llu", static_cast<unsigned long long>(by_moves.checked));
    std::printf("  %s\n", problem.empty() ? "ok" : problem.c_str());
    std::fflush(stdout);
    if (!problem.empty()) ++failed;
    last = n;
  }
  if (failed) {
    std::fprintf(stderr, "chomp: %d of levels %d..%d failed the check (see above)\n", failed, a.from, last);
    return 1;
  }
  std::fprintf(stderr, "levels %d..%d of %s: valid ranks matching their digests, closed under transposition (%s)\n",
               a.from, last, a.file.c_str(),
               a.every == 1 ? "every position checked"
                            : ("one losing position in " + std::to_string(a.every) + " checked").c_str());
  if (a.moves)
    std::fprintf(stderr, "levels %d..%d: losing exactly where no move leads to a losing position (%s)\n", a.from,
                 last, a.moves == 1 ? "every position checked"
                                    : ("one losing position and one rank in " + std::to_string(a.moves) + " checked")
                                          .c_str());
  return 0;
}

const RegisterCommand reg(15, "verify", "Check a sieve result file's levels without the sieve (transposition; with --moves, the rule)",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<VerifyArgs>();
  sub.add_option("file", a->file, "Result file of `chomp sieve` (with its store beside it)")
      ->required()
      ->check(CLI::ExistingFile);
  sub.add_option("--from", a->from, "First level to check")->transform(whole_number(1, kMaxTiles));
  sub.add_option("--to", a->to, "Last level to check (default: the file's last)")->transform(whole_number(1, kMaxTiles));
  sub.add_option("--every", a->every, "Look up the transpose of every K-th losing position (1: all)")
      ->transform(whole_number(1, std::uint64_t{1} << 40));
  sub.add_option("--moves", a->moves,
                 "Also check the rule move by move on every K-th losing position and every K-th rank of each "
                 "level (1: all; reads every level below --from too)")
      ->transform(whole_number(1, std::uint64_t{1} << 40));
  sub.add_option("-t,--threads", a->threads, "Worker threads (default: all cores)")->transform(whole_number(1, 4096));
  sub.footer("Reads each finished level's losing ranks from the run's store (beside the file)\n"
             "and checks that they are increasing ranks below p(n), as many as the level's row\n"
             "says, with the digest it records, and that the transpose of each losing position is losing too. The sieve now\n"
             "decides only positions whose first row is at least as long as their first\n"
             "column and takes the others as transposes, so for its files that part checks\n"
             "the stored ranks only; for files of earlier engines (those in data/), which\n"
             "never used transposition, a missing or extra mark would show there. --moves K\n"
             "checks the rule itself, independently of the sieve, on the sampled positions,\n"
             "from their moves: a\n"
             "position is stored as losing exactly when no move leads to a position stored\n"
             "as losing. Exit code 1 names the first failing position of each level that fails.\n"
             "Examples: chomp verify run.h5 --from 91 --every 64\n"
             "          chomp verify run.h5 --from 151 --every 64 --moves 100000\n");
  return [a] { return run_verify(*a); };
});

}  // namespace
}  // namespace chomp::app
