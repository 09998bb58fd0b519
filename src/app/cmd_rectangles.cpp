/// @file cmd_rectangles.cpp
/// @brief `chomp rectangles`: the winning first moves of every a x b board.

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "chomp/bounded.hpp"
#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/position.hpp"
#include "chomp/rectangles.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"
#include "run_claim.hpp"
#include "run_guards.hpp"
#include "solve_progress.hpp"

namespace chomp::app::cmd_rectangles {
namespace {

struct RectanglesArgs {
  int max_rows = 0;
  int max_cols = 0;
  std::string output;
  std::string csv;
  bool force = false;
  bool quiet = false;
  int threads = 0;
};

/// Refuses an output that is a folder, in a folder that is missing or
/// that this user may not write to, or that exists without --force: before
/// the box is solved, not after.
void refuse_existing(const std::string& path, bool force, const char* option) {
  if (path.empty()) return;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UsageError(std::string(option) + " " + printable(path) + " is a folder; give a file name");
  refuse_missing_folder(path, option);
  if (std::filesystem::exists(std::filesystem::symlink_status(path, ec)) && !force)
    throw UsageError("output file " + printable(path) + " already exists; pass --force to overwrite it or choose "
                     "another " + option);
  refuse_unwritable_folder(path, option);
}

/// The file a name will write: symbolic links followed (a dangling one
/// too, to the file it would make), "." and ".." resolved, to tell two
/// names of one file apart from two files.
std::filesystem::path resolved(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  for (int hops = 0; hops < 40 && fs::is_symlink(p, ec); ++hops) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  const fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : c;
}

/// Removes a file on every way out of a scope unless kept.
class RemoveUnlessKept {
 public:
  explicit RemoveUnlessKept(std::string path) : path_(std::move(path)) {}
  ~RemoveUnlessKept() {
    if (!kept_ && !path_.empty()) std::remove(path_.c_str());
  }
  RemoveUnlessKept(const RemoveUnlessKept&) = delete;
  RemoveUnlessKept& operator=(const RemoveUnlessKept&) = delete;
  void keep() { kept_ = true; }

 private:
  std::string path_;
  bool kept_ = false;
};

void print_table(const RectangleTable& t) {
  std::printf("%-9s %s\n", "board", "winning first moves: (row,col) leaves");
  for (const RectangleResult& r : t.boards) {
    std::printf("%3d x %-3d", r.rows, r.cols);
    const Rows rect(static_cast<std::size_t>(r.rows), r.cols);
    for (std::size_t i = 0; i < r.winning.size(); ++i)
      std::printf("%s (%d,%d) leaves %s", i ? ";" : "", r.winning[i].row, r.winning[i].col,
                  rows_to_string(apply_move(rect, r.winning[i])).c_str());
    std::printf("\n");
  }
}

int run_rectangles(RectanglesArgs a) {  // (a copy: --output and --csv become links' targets)
  const bool csv_to_stdout = a.csv == "-";  // the CSV in place of the printed table
  // A link's target is the file written (renamed over the link, the new
  // file would have replaced the link and left its target as it was).
  if (!a.output.empty()) a.output = output_file(a.output);
  if (!a.csv.empty() && !csv_to_stdout) a.csv = output_file(a.csv, "--csv");
  if (!a.output.empty() && !a.csv.empty() && !csv_to_stdout && resolved(a.output) == resolved(a.csv))
    throw UsageError("--output and --csv name the same file (" + printable(a.output) +
                     "); give each table its own file");
  // Not a sieve run's side file either: --force would overwrite a store.
  if (!a.output.empty()) refuse_side_file_name(a.output);
  if (!a.csv.empty() && !csv_to_stdout) refuse_side_file_name(a.csv, "--csv", ".csv");
  refuse_existing(a.output, a.force, "--output");
  if (!csv_to_stdout) refuse_existing(a.csv, a.force, "--csv");
  // A file that a sieve or grundy run is writing: --force replaced it under
  // that run, which then finished into a file no longer there and said it
  // had written it. Refused before the solve (once its folder is known to
  // be one: a lock file that cannot be looked at counts as held); the
  // claims themselves are taken once the tables are solved, so that a box
  // stopped while it is solved (no signal handler here) leaves no lock
  // file behind.
  const bool csv_file = !a.csv.empty() && !csv_to_stdout;
  for (const std::string& path : {a.output, csv_file ? a.csv : std::string()})
    if (!path.empty() && RunClaim::held(path))
      throw std::runtime_error(printable(path) + " is being written by another chomp process, which holds " +
                               printable(RunClaim::lock_path(path)) + "; let it finish, or stop it (SIGINT or "
                               "SIGTERM), or give another file");
  // The box is min(max-rows, max-cols) x max-cols: C(rows + cols, rows) positions.
  const int box_rows = std::min(a.max_rows, a.max_cols);
  if (box_rows + a.max_cols > kMaxPathSteps)
    throw UsageError("the " + std::to_string(box_rows) + " x " + std::to_string(a.max_cols) + " box: rows + columns "
                     "must be at most " + std::to_string(kMaxPathSteps) + " (a position is a lattice path of that "
                     "many steps), such as 2 x 254 or 4 x 252");
  std::uint64_t positions = UINT64_MAX;
  try {
    positions = binomial(box_rows + a.max_cols, box_rows);
  } catch (const std::overflow_error&) {
  }
  if (positions > kMaxDomainPositions)
    throw UsageError("the " + std::to_string(box_rows) + " x " + std::to_string(a.max_cols) + " box holds " +
                     positions_text(positions) +
                     " positions; at most " + std::to_string(kMaxDomainPositions) +
                     " can be solved (such as 18 x 18 or 10 x 42)");
  refuse_unless_memory_left(bounded_solver_bytes(positions),
                            "the " + std::to_string(box_rows) + " x " + std::to_string(a.max_cols) + " box",
                            "a bit for each of its " + std::to_string(positions) + " positions, and buffers",
                            "give a smaller --max-rows or --max-cols, or free memory");
  // --force over a sieve result replaces the file, not its store (this
  // command keeps none): the store is said to be left, as grundy says it.
  for (const std::string& path : {a.output, csv_file ? a.csv : std::string()}) {
    std::error_code ec;
    if (!path.empty() && a.force && std::filesystem::is_regular_file(path, ec) &&
        std::filesystem::is_regular_file(store_path_for(path), ec))
      std::cerr << "note: " << printable(store_path_for(path))
                << ", the store of the sieve result this run replaces, is left as it was; remove it when that run "
                   "is no longer needed\n";
  }
  const int threads = worker_threads(a.threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));

  RectangleProvenance prov{command_line(), threads, utc_now()};
  SolveProgress progress(positions);
  const RectangleTable table = solve_rectangles(a.max_rows, a.max_cols, progress.callback());
  progress.end();
  if (csv_to_stdout) {
    write_rectangles_csv(table, std::cout);
    std::cout.flush();
    if (!std::cout) throw std::runtime_error("cannot write the CSV to standard output");
  } else if (!a.quiet) {
    print_table(table);
  }
  // The claims every run takes on its outputs (a run started on them during
  // the solve is refused here, or refuses this one).
  std::optional<RunClaim> output_claim, csv_claim;
  if (!a.output.empty()) output_claim.emplace(a.output);
  if (csv_file) csv_claim.emplace(a.csv);
  // The CSV is written beside its name and renamed once both tables are
  // whole: a failure leaves neither a partial CSV nor a temporary file.
  const std::string csv_tmp = csv_file ? a.csv + ".tmp" : std::string();
  RemoveUnlessKept csv_cleanup(csv_tmp);
  if (csv_file) {
    // A link left at the temporary name is removed, not written through.
    std::error_code ec;
    if (std::filesystem::is_symlink(csv_tmp, ec)) std::filesystem::remove(csv_tmp, ec);
    errno = 0;
    std::ofstream out(csv_tmp);
    write_rectangles_csv(table, out);
    out.close();
    if (!out)
      throw std::runtime_error("cannot write " + printable(a.csv) + ": " +
                               (errno ? std::strerror(errno) : "check the folder and the disk"));
  }
  if (!a.output.empty()) write_rectangles_h5(table, prov, a.output);
  if (csv_file) {
    if (std::rename(csv_tmp.c_str(), a.csv.c_str()) != 0)
      throw std::runtime_error("cannot rename " + printable(csv_tmp) + " to " + printable(a.csv));
    csv_cleanup.keep();
  }
  std::fprintf(stderr, "solved the %d x %d box (%llu positions) in %.2f s with %d %s\n", table.box_rows,
               table.box_cols, static_cast<unsigned long long>(table.positions), table.solve_seconds, threads,
               threads == 1 ? "thread" : "threads");
  return 0;
}

const RegisterCommand registration(30, "rectangles", "Winning first moves of every a x b board up to a size",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<RectanglesArgs>();
  sub.add_option("--max-rows", a->max_rows, "Largest number of rows a")->required()->transform(whole_number(2, 255));
  sub.add_option("--max-cols", a->max_cols, "Largest number of columns b")->required()->transform(whole_number(2, 254));
  sub.add_option("-o,--output", a->output, "HDF5 file for the table (with provenance)")->check(output_file_name());
  sub.add_option("--csv", a->csv, "CSV file for the table: rows,cols,move_row,move_col,leaves (not the --output file; - for standard output, in place of the printed table)")
      ->check(output_file_name(true));
  sub.add_flag("-f,--force", a->force, "Overwrite output files that exist");
  sub.add_flag("-q,--quiet", a->quiet, "Do not print the table");
  sub.add_option("-t,--threads", a->threads, kWorkerThreadsHelp)->transform(whole_number(1, 4096));
  sub.footer(
      "Lists every a x b board with 2 <= a <= max-rows and a <= b <= max-cols, with all its\n"
      "winning first moves, from one exact solve of the box of min(max-rows, max-cols) x\n"
      "max-cols (one bit per position and up to 0.3 GB of buffers: 14 x 14 takes about a\n"
      "second, 18 x 18 minutes and 1.4 GB). Boxes of more than 2^36 positions, or that\n"
      "need more memory than is left, are refused before solving (exit code 2).\n"
      "Example: chomp rectangles --max-rows 8 --max-cols 15 --csv rect.csv --output rect.h5\n");
  return [a] { return run_rectangles(*a); };
});

}  // namespace
}  // namespace chomp::app::cmd_rectangles
