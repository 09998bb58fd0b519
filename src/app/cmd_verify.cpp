/// @file cmd_verify.cpp
/// @brief `chomp verify`: checks the levels of a sieve result file without
/// the sieve (include/chomp/verify.hpp).

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>

#include "chomp/losing_store.hpp"
#include "chomp/position.hpp"

#include "chomp/h5_output.hpp"
#include "chomp/three_rows.hpp"
#include "chomp/verify.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"
#include "sieve_args.hpp"

namespace chomp::app::cmd_verify {
namespace {

struct VerifyArgs {
  std::string file;
  int from = 1;
  int to = 0;  // 0: the file's last level
  std::uint64_t every = 0;  // 0: a sample of about kTransposeSample a level
  std::uint64_t moves = 0;  // 0: a sample of about kMoveSample losing positions and ranks a level
  bool no_moves = false;
  bool finished = false;
  int threads = 0;
  std::optional<std::uint64_t> seed;  // which position of each stride the samples take (none given: drawn)
  std::vector<std::string> store_options_given;  // of --every, --moves, --no-moves, --seed, --threads
};

/// The default samples a level: transposes looked up, and losing positions
/// and ranks checked move by move (each costs about n store lookups).
constexpr std::uint64_t kTransposeSample = 10000;
constexpr std::uint64_t kMoveSample = 500;

std::uint64_t every_for(std::uint64_t count, std::uint64_t sample) {
  return count <= sample ? 1 : (count + sample - 1) / sample;
}

std::string three_rows_text(const ThreeRows& p) {
  std::string s = std::to_string(p[0]);
  for (int i = 1; i < 3 && p[static_cast<std::size_t>(i)] > 0; ++i) s += "," + std::to_string(p[static_cast<std::size_t>(i)]);
  return s;
}

/// The first difference between the losing positions of at most three rows
/// that a file records (or its store holds) and those solved on their own.
std::string three_row_problem(const std::vector<ThreeRows>& recorded, const std::vector<ThreeRows>& solved) {
  // (Sorted: a position recorded twice sits beside itself.)
  if (const auto twice = std::adjacent_find(recorded.begin(), recorded.end()); twice != recorded.end())
    return "the position " + three_rows_text(*twice) + " is recorded more than once (damaged or edited file)";
  for (const ThreeRows& p : solved)
    if (!std::binary_search(recorded.begin(), recorded.end(), p))
      return "the position " + three_rows_text(p) + " is losing (three-rowed Chomp solved on its own) but not " +
             "stored as losing";
  for (const ThreeRows& p : recorded)
    if (!std::binary_search(solved.begin(), solved.end(), p))
      return "the position " + three_rows_text(p) + " is stored as losing but wins (three-rowed Chomp solved on " +
             "its own)";
  return {};
}

/// The last of the levels --from..--to in a file of `rows` levels: the
/// file's last by default, and it, with a note, when --to is past it (a
/// script's fixed --to on a run still going); --from must be a level.
int last_level_to_check(const VerifyArgs& a, int rows) {
  if (a.from > rows)
    throw UsageError("--from " + std::to_string(a.from) + " is past the file's last level (" + std::to_string(rows) +
                     ")");
  if (a.to > rows)
    std::fprintf(stderr, "note: --to %d is past the file's last level (%d): levels through %d are checked\n", a.to,
                 rows, rows);
  const int to = a.to > 0 ? std::min(a.to, rows) : rows;
  if (to < a.from) throw UsageError("--to " + std::to_string(to) + " is below --from " + std::to_string(a.from));
  return to;
}

/// A levels-only copy: the losing positions of at most three rows it
/// records for each level, against three-rowed Chomp solved on its own.
int verify_levels_only(const VerifyArgs& a, const LevelTable& t) {
  const int rows = static_cast<int>(t.tiles.size());
  if (!a.store_options_given.empty()) {
    std::string names;
    for (const std::string& o : a.store_options_given) names += (names.empty() ? "" : ", ") + o;
    std::fprintf(stderr, "note: %s %s the checks of a run's store, which a levels-only copy lacks: %s\n",
                 names.c_str(), a.store_options_given.size() == 1 ? "sets" : "set",
                 a.store_options_given.size() == 1 ? "it has no effect here" : "they have no effect here");
  }
  bool present = false;
  const auto recorded = read_three_row_record(a.file, rows, present);
  if (!present)
    throw std::runtime_error(a.file + " names no store of losing positions and records no verifiable sample "
                             "(/verifiable/three_row_losing); verify the file the run itself wrote, with its "
                             "store beside it");
  const int to = last_level_to_check(a, rows);
  const auto solved = three_row_losing(to);
  std::printf("%6s %14s %14s  %s\n", "tiles", "losing", "3-row losing", "result");
  int failed = 0;
  for (int n = a.from; n <= to; ++n) {
    const auto i = static_cast<std::size_t>(n - 1);
    // (A levels-only copy has no store to tell a wrong column from a wrong count.)
    std::string problem = row_value_problem(t, i);
    if (!problem.empty()) problem += ": one of them is wrong (damaged or edited file)";
    if (problem.empty()) problem = three_row_problem(recorded[i], solved[i]);
    std::printf("%6d %14llu %14zu  %s\n", n, static_cast<unsigned long long>(t.losing[i]), recorded[i].size(),
                problem.empty() ? "ok" : problem.c_str());
    if (!problem.empty()) ++failed;
  }
  if (failed) {
    std::fprintf(stderr, "chomp: %d of levels %d..%d failed the check (see above)\n", failed, a.from, to);
    return 1;
  }
  std::fprintf(stderr,
               "levels %d..%d of %s (a copy with the levels only) passed:\n"
               "  the losing positions of at most three rows it records are exactly those of three-rowed Chomp "
               "solved on its own [independent of the engine; a check of the engine on that family only: the "
               "counts L(n) need the run's store to be checked]\n",
               a.from, to, a.file.c_str());
  return 0;
}

int run_verify(const VerifyArgs& a) {
  // The rows' derived columns are checked level by level below, where the
  // store can tell a wrong column from a wrong count; other readers refuse
  // such a file outright.
  const LevelFileReader reader(a.file, false);
  const LevelTable& t = reader.table();
  const int rows = static_cast<int>(t.tiles.size()) - (reader.last_row_written_in_part() ? 1 : 0);
  if (const auto d = t.number_attributes.find("dimensions"); d != t.number_attributes.end() && d->second == 3)
    // A file of another kind, as a Grundy or rectangles file: exit 1.
    throw std::runtime_error(a.file + " is a table of 3D Chomp (root attribute dimensions = 3); chomp verify checks 2D "
                     "tables (its checks are of tiles and rows; a 3D run's store is checked level by level when "
                     "chomp sieve --dimensions 3 --resume continues it)");
  if (!t.complete() && !a.finished)
    throw std::runtime_error(a.file + " is not a complete run (status \"" + t.status() + "\", levels 1.." +
                             std::to_string(rows) + " of " +
                             std::to_string(t.number_attributes.count("max_tiles") ? t.number_attributes.at("max_tiles") : 0) +
                             " finished): resume it (" + resume_command(a.file, t) +
                             "), or add --finished to check the levels it finished");
  if (!reader.has_store() || t.number_attributes.count("levels_only")) {
    if (const auto copy = t.number_attributes.find("levels_only"); copy != t.number_attributes.end()) {
      if (copy->second != 1)
        throw std::runtime_error(a.file + " has levels_only = " + std::to_string(copy->second) +
                                 ", which no copy writes (a levels-only copy says 1): a damaged or edited file");
      return verify_levels_only(a, t);
    }
    if (reader.format_version() >= 3)
      throw std::runtime_error(a.file + " names no store of losing positions, which every run of format_version " +
                               std::to_string(reader.format_version()) +
                               " writes: the file's text attributes are damaged (its counts may still read: "
                               "chomp show); restore a copy of it");
    throw std::runtime_error(a.file + " is a file of format_version " + std::to_string(reader.format_version()) +
                             ", written by an engine that kept no store of losing positions beside it: verify has "
                             "none to check its levels against (compare its counts with the committed tables: "
                             "experiments/compare_levels.py " + a.file + ")");
  }
  const int to = last_level_to_check(a, rows);
  const auto kept = t.number_attributes.find("store_losing");
  const std::int64_t store_losing = kept == t.number_attributes.end() ? 0 : kept->second;
  const int threads = worker_threads(a.threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  const PartitionTable table(rows);
  const std::unique_ptr<LosingStore> store = [&] {
    try {
      return LosingStore::open(reader.store_path(), reader.run_id(), reader.stored_levels(rows), false);
    } catch (const StoreMissing& e) {
      throw StoreMissing(std::string(e.what()) + " with " + start_over_command(a.file, t));
    }
  }();
  // Only files with a store come here (format 3 on): their engine takes
  // positions whose first row is shorter than their first column as
  // transposes, so they are closed under transposition by construction.
  const bool moves = !a.no_moves;
  // A seed drawn for each run unless one is given, so that runs again look
  // at other positions; it is printed, so that a sample can be repeated.
  const std::uint64_t seed = a.seed ? *a.seed : [] {
    std::random_device rd;
    const std::uint64_t s = (static_cast<std::uint64_t>(rd()) << 32 | rd()) % 1000000000000ULL;
    return s == 0 ? 1 : s;
  }();
  const auto three_rows = three_row_losing(to);
  std::printf("%6s %14s %14s", "tiles", "losing", "transposed");
  if (moves) std::printf(" %14s", "by moves");
  std::printf(" %8s", "3 rows");
  std::printf("  %s\n", "result");
  int failed = 0, last = a.from - 1;
  std::uint64_t transposed_total = 0, moves_total = 0, three_total = 0;
  // Whether the samples took every position (small levels do): said so.
  bool every_transpose = true, every_move = true;
  for (int n = a.from; n <= to; ++n) {
    const auto i = static_cast<std::size_t>(n - 1);
    std::string problem;
    LevelVerdict verdict, by_moves;
    std::size_t three_checked = 0;
    if (t.tiles[i] != static_cast<std::uint32_t>(n) || t.positions[i] != table.positions(n)) {
      problem = "its row is not that of level " + std::to_string(n) + " (damaged file)";
    } else if (const std::string wrong = row_value_problem(t, i); !wrong.empty()) {
      // L equals the store's count (the store was opened against every
      // level's count) and p the engine's: the column is what is wrong.
      problem = wrong + "; L is the store's count and p the engine's, so the column is wrong (edited or "
                "damaged file)";
    } else {
      try {
        store->check_level(n, table.positions(n));
      } catch (const StoreError& e) {
        problem = e.what();
      }
      const std::uint64_t losing = store->count(n);
      // A damaged block of this level's store (or of a level below, read
      // for a move) fails this level; the next levels are still checked.
      try {
        if (problem.empty()) {
          const std::uint64_t every = a.every ? a.every : every_for(losing, kTransposeSample);
          every_transpose = every_transpose && every == 1;
          verdict = check_transposes(table, n, *store, every, seed);
          problem = verdict.problem;
        }
        if (problem.empty() && moves) {
          const std::uint64_t every_losing = a.moves ? a.moves : every_for(losing, kMoveSample);
          const std::uint64_t every_rank = a.moves ? a.moves : every_for(table.positions(n), kMoveSample);
          every_move = every_move && every_losing == 1 && every_rank == 1;
          by_moves = a.moves ? check_moves(table, n, *store, a.moves, seed)
                             : check_moves(table, n, *store, every_losing, every_rank, seed);
          problem = by_moves.problem;
        }
        if (problem.empty()) {
          // Every position of at most three rows, against the store.
          std::vector<ThreeRows> stored;
          for (const ThreeRows& p : three_row_positions(n)) {
            Rows r;
            for (const int x : p)
              if (x > 0) r.push_back(x);
            if (store->contains(n, table.rank(r))) stored.push_back(p);
            ++three_checked;
          }
          problem = three_row_problem(stored, three_rows[i]);
        }
        if (problem.empty() && n <= store_losing) {
          // The file's own copy of the level's losing positions (what a
          // resume copies and the Python package reads): the store's, as a set.
          try {
            std::vector<std::uint64_t> in_file = reader.losing_positions(n), in_store;
            for (const std::uint64_t rank : store->all(n))
              in_store.push_back(LatticePath::from_rows(table.unrank(n, rank)).word());
            std::sort(in_file.begin(), in_file.end());
            std::sort(in_store.begin(), in_store.end());
            if (in_file != in_store)
              problem = losing_positions_dataset(n) + " holds " + std::to_string(in_file.size()) +
                        " positions that are not the store's " + std::to_string(in_store.size()) +
                        " losing ones (damaged file)";
          } catch (const H5Error& e) {
            problem = e.what();
          }
        }
      } catch (const StoreError& e) {
        problem = e.what();
      }
    }
    std::printf("%6d %14llu %14llu", n, static_cast<unsigned long long>(t.losing[i]),
                static_cast<unsigned long long>(verdict.checked));
    if (moves) std::printf(" %14llu", static_cast<unsigned long long>(by_moves.checked));
    std::printf(" %8zu", three_checked);
    std::printf("  %s\n", problem.empty() ? "ok" : problem.c_str());
    std::fflush(stdout);
    transposed_total += verdict.checked;
    moves_total += by_moves.checked;
    three_total += three_checked;
    if (!problem.empty()) ++failed;
    last = n;
  }
  if (failed) {
    std::fprintf(stderr, "chomp: %d of levels %d..%d failed the check (see above)\n", failed, a.from, last);
    return 1;
  }
  const std::string levels = "levels " + std::to_string(a.from) + ".." + std::to_string(last);
  std::fprintf(stderr, "%s of %s%s passed:\n", levels.c_str(), a.file.c_str(),
               t.complete() ? "" : (" (an unfinished run: its finished levels)"));
  std::fprintf(stderr,
               "  stored ranks: increasing, below p(n), as many as each row says, matching the digest each row "
               "records [integrity of the file and store, not a check of the engine]\n");
  std::fprintf(stderr, "  transposition: %llu losing positions' transposes are losing too (%s) [%s]\n",
               static_cast<unsigned long long>(transposed_total),
               every_transpose ? "every one" : a.every ? ("one in " + std::to_string(a.every)).c_str() : "a sample",
               "NOT independent: this file's engine decides positions with first row >= first column and "
               "takes the others as their transposes");
  if (moves)
    std::fprintf(stderr,
                 "  the rule: %llu positions (losing ones and ranks of each level, %s) are losing exactly when no "
                 "move leads to a losing position [independent of the engine, given the levels below]\n",
                 static_cast<unsigned long long>(moves_total),
                 every_move ? "every one" : a.moves ? ("one in " + std::to_string(a.moves)).c_str() : "a sample");
  else
    std::fprintf(stderr, "  the rule: not checked (--no-moves)\n");
  std::fprintf(stderr,
               "  three rows: all %llu positions of at most three rows are stored as losing exactly when "
               "three-rowed Chomp solved on its own says so [independent of the engine; that family only]\n",
               static_cast<unsigned long long>(three_total));
  if (!every_transpose || (moves && !every_move))
    std::fprintf(stderr,
                 "  samples: one position of each stride, with seed %llu (--seed %llu checks the same ones again; "
                 "another seed, others)\n",
                 static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
  return 0;
}

const RegisterCommand registration(15, "verify", "Check a 2D sieve result file's levels without the sieve: its store, transposition, the rule move by move",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<VerifyArgs>();
  sub.add_option("file", a->file, "Result file of a 2D `chomp sieve` run (with its store beside it; a 3D run's "
                                   "store is checked when `chomp sieve --dimensions 3 --resume` continues it)")
      ->required()
      ->check(input_file("the result file of a 2D `chomp sieve` run (its --output)"));
  sub.add_option("--from", a->from, "First level to check")->transform(whole_number(1, kMaxTiles))->capture_default_str();
  sub.add_option("--to", a->to, "Last level to check (default: the file's last)")->transform(whole_number(1, kMaxTiles));
  auto* every = sub.add_option("--every", a->every,
                 "Look up the transpose of one losing position in every K (1: all; default: at most 10,000 a "
                 "level)")
      ->transform(whole_number(1, std::uint64_t{1} << 40));
  auto* moves = sub.add_option("--moves", a->moves,
                 "Check the rule move by move on one losing position in every K and one rank in every K of each "
                 "level (1: all; default: at most 500 of each a level)")
      ->transform(whole_number(1, std::uint64_t{1} << 40));
  auto* no_moves = sub.add_flag("--no-moves", a->no_moves, "Do not check the rule (the store and transposition only)")->excludes(moves);
  sub.add_flag("--finished", a->finished, "Check the finished levels of a run that did not complete");
  auto* seed = sub.add_option("--seed", a->seed,
                 "Which position of each stride the samples take (0: the first; default: drawn, and printed)")
      ->transform(whole_number(0, std::uint64_t{1} << 62));
  auto* threads = sub.add_option("-t,--threads", a->threads, kWorkerThreadsHelp)->transform(whole_number(1, 4096));
  sub.footer("Reads each finished level's losing ranks from the run's store (beside the file)\n"
             "and checks, saying of each check whether it is independent of the engine:\n"
             "  the stored ranks: increasing, below p(n), as many as the level's row says, with\n"
             "    the digest the row records (the file's integrity, not the engine's);\n"
             "  transposition: the transpose of each sampled losing position is losing too\n"
             "    (not independent of this engine, which takes positions whose first row is\n"
             "    shorter than their first column as transposes: it checks the rest);\n"
             "  the rule (by default on a sample; --moves 1 for all): a position is stored as\n"
             "    losing exactly when no move leads to a position stored as losing, from\n"
             "    its moves, not the sieve's extensions (reads the levels below too);\n"
             "  three rows: the stored losing positions of at most three rows are exactly\n"
             "    those of three-rowed Chomp solved on its own (independent; that family only);\n"
             "  a run with --store-losing K: the losing positions the file keeps for levels\n"
             "    1..K are the store's (the file's integrity).\n"
             "A levels-only copy (no store) gets the three-row check alone, on the positions of\n"
             "at most three rows it records; --every, --moves, --no-moves, --seed and\n"
             "--threads set the store's checks and do nothing there.\n"
             "Exit code 1 names the first failing position of each level that fails, and\n"
             "refuses a file whose run did not complete unless --finished is given.\n"
             "Examples: chomp verify run.h5 --from 91\n"
             "          chomp verify run.h5 --from 151 --every 64 --moves 100000\n");
  return [a, store_options = std::vector<CLI::Option*>{every, moves, no_moves, seed, threads}] {
    for (const CLI::Option* o : store_options)
      if (o->count() > 0) a->store_options_given.push_back(o->get_name());
    return run_verify(*a);
  };
});

}  // namespace
}  // namespace chomp::app::cmd_verify
