/// @file cmd_grundy.cpp
/// @brief `chomp grundy`: the Sprague–Grundy value of every position of every
/// level up to --max-tiles, counted per level and written to HDF5 after each
/// level; clean stops on SIGINT, SIGTERM and SIGUSR1, and --resume.

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "build_info.hpp"
#include "chomp/grundy.hpp"
#include "chomp/grundy_file.hpp"
#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/resume.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"
#include "run_guards.hpp"
#include "level_eta.hpp"
#include "run_claim.hpp"
#include "sieve_progress.hpp"
#include "stop_signals.hpp"

namespace chomp::app::cmd_grundy {
namespace {

struct GrundyArgs {
  int max_tiles = 0;
  std::string output;
  std::string check_sieve;
  std::string memory_limit;
  bool force = false;
  bool resume = false;
  bool dry_run = false;
  bool quiet = false;
  int threads = 0;
  // Whether the user gave it: a resumed run otherwise takes the file's.
  const CLI::Option* max_tiles_option = nullptr;
  const CLI::Option* check_sieve_option = nullptr;
};

/// A level whose count of value 0 is not the --check-sieve file's L(n).
class SieveDisagrees : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The sieve's L(n) for levels 1..N of a sieve result file, read before the
/// run so that a wrong file is refused before minutes of work. A file that
/// cannot be used (damaged, or of another kind: a Grundy or 3D table) exits
/// 1, as `chomp verify` and `chomp sieve --resume` do with it.
std::vector<std::uint64_t> sieve_losing(const std::string& path, int max_tiles) {
  // A name mistyped, or a folder: the command line's fault (exit 2). A path
  // that cannot be looked at (permissions) is left to the read (exit 1).
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found)
    throw UsageError("--check-sieve: there is no file " + printable(path) + "; give the result file of a `chomp "
                     "sieve` run (check the name and the folder)");
  if (std::filesystem::is_directory(status))
    throw UsageError("--check-sieve: " + printable(path) + " is a folder; give the result file of a `chomp sieve` "
                     "run");
  LevelTable t;
  try {
    t = read_level_file(path);
  } catch (const H5Error& e) {
    throw std::runtime_error(std::string("--check-sieve: ") + e.what());
  }
  if (const auto d = t.number_attributes.find("dimensions"); d != t.number_attributes.end() && d->second != 2)
    throw std::runtime_error("--check-sieve: " + path + " is a table of " + std::to_string(d->second) +
                             "D Chomp (dimensions = " + std::to_string(d->second) +
                             "); chomp grundy computes 2D values, give a file of chomp sieve without --dimensions");
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < t.tiles.size() && static_cast<int>(t.tiles[i]) <= max_tiles; ++i) {
    if (t.tiles[i] != i + 1)
      throw std::runtime_error("--check-sieve: " + path + " does not list its levels 1, 2, 3, ...");
    out.push_back(t.losing[i]);
  }
  if (out.empty()) throw std::runtime_error("--check-sieve: " + path + " holds no level");
  return out;
}

/// The command that continues the run in `output`, with every parameter it
/// was given (--max-tiles, so that it also extends; the threads, the memory
/// limit and the sieve file it ran with).
std::string resume_command(const GrundyArgs& a, int max_tiles, const std::string& check_sieve) {
  std::string c = shell_quote(program_path()) + " grundy --output " + shell_quote(a.output) + " --max-tiles " +
                  std::to_string(max_tiles);
  if (a.threads > 0) c += " --threads " + std::to_string(a.threads);
  if (!a.memory_limit.empty()) c += " --memory-limit " + shell_quote(a.memory_limit);
  if (!check_sieve.empty()) c += " --check-sieve " + shell_quote(check_sieve);
  if (a.quiet) c += " --quiet";
  return c + " --resume";
}

/// Levels the dry run computes to time the run: 1..58 take a few seconds
/// on two threads, their last levels long enough to time.
constexpr int kCalibrationTiles = 58;

/// The dry run's time: levels 1..kCalibrationTiles computed now, then the
/// levels above at the pace of the last five of those, a level's work being
/// p(n) n (its positions times their moves): calibrated_run_seconds. It
/// runs short, more so the larger N (doc/GRUNDY.md).
std::string time_estimate(int max_tiles, int threads) {
  const int k = std::min(max_tiles, kCalibrationTiles);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  const GrundyTable calibration(k);
  std::vector<double> level_seconds(static_cast<std::size_t>(k) + 1, 0.0);
  double seconds = 0;  // the calibration's levels
  for (const GrundyLevel& l : calibration.levels())
    level_seconds[static_cast<std::size_t>(l.tiles)] = l.seconds, seconds += l.seconds;
  // (A resumed run computes its saved levels again: all of them count.)
  const double estimate = calibrated_run_seconds(partition_work(max_tiles), level_seconds, k);
  return "time: about " + clock_text(estimate) + " with " + threads_text(threads) + " (calibrated now: levels 1.." +
         std::to_string(k) + " in " + seconds_text(seconds) + " s" +
         (max_tiles > k ? ", the levels above at the pace of levels " + std::to_string(k - 4) + ".." +
                              std::to_string(k) + " for p(n) n each; larger runs take somewhat longer"
                        : "") +
         ")";
}

int run_grundy(GrundyArgs a) {  // (a copy: --output becomes a link's target)
  if (a.force && a.resume)
    throw UsageError("--force and --resume contradict each other: --force starts over, --resume continues "
                     "the run in --output; give one of them");
  // Given empty (a script's unset variable), it would check nothing.
  if (a.check_sieve_option && a.check_sieve_option->count() && a.check_sieve.empty())
    throw UsageError("--check-sieve is empty; give the `chomp sieve` result file to check against, or leave "
                     "the option out");
  if (!a.dry_run && a.output.empty()) throw UsageError("--output FILE is required (or --dry-run)");
  if (!a.output.empty()) {
    // A link's target is the file written (renamed over the link, the new
    // file would have replaced the link and left its target as it was).
    a.output = output_file(a.output);
    // A dry run too: it refuses what the run would.
    refuse_side_file_name(a.output);
    refuse_missing_folder(a.output, "--output");
    std::error_code ec;
    if (std::filesystem::is_directory(a.output, ec))
      throw UsageError("--output " + printable(a.output) + " is a folder; give a file name");
  }
  // Of two runs on one output started together, one claims it; the other
  // stops here, before it looks at the file.
  std::optional<RunClaim> claim;
  if (!a.dry_run) claim.emplace(a.output);
  std::error_code ec;
  // (A dry run looks too, so that it refuses what the run would, and a
  // dry --resume plans the file's own run.)
  const bool output_exists = !a.output.empty() && std::filesystem::exists(std::filesystem::symlink_status(a.output, ec));
  if (output_exists && !a.force && !a.resume)
    throw UsageError("output file " + printable(a.output) +
                     " already exists; pass --resume to continue it, --force to start over, or choose another "
                     "--output" + (a.dry_run ? " (a dry run refuses what the run would; it writes nothing)" : ""));
  std::optional<GrundyResumeState> resume;
  int max_tiles = a.max_tiles;
  std::string check_sieve = a.check_sieve;
  if (a.resume && output_exists) {
    try {
      resume = check_grundy_resume(a.output, a.max_tiles_option->count() ? a.max_tiles : 0);
    } catch (const ResumeMismatch& e) {
      throw UsageError(e.what());
    }
    const std::string& started_with = resume->provenance.checked_against;
    // Another --check-sieve than the run's own is refused, whether or not
    // anything is left to compute.
    const auto refuse_other_check = [&] {
      std::error_code ec2;
      if (!started_with.empty() && !check_sieve.empty() && check_sieve != started_with &&
          std::filesystem::exists(started_with, ec2) && !std::filesystem::equivalent(check_sieve, started_with, ec2))
        throw UsageError("cannot resume " + a.output + ": it was started with --check-sieve " + started_with +
                         ", not " + check_sieve + "; omit --check-sieve or give the same file");
    };
    if (resume->complete && resume->max_tiles == resume->file_max_tiles) {
      refuse_other_check();
      std::cerr << a.output << " is complete (levels 1.." << resume->file_max_tiles
                << "); nothing to resume. A larger --max-tiles extends it.\n";
      return 0;
    }
    max_tiles = resume->max_tiles;
    // Every level, the saved ones included, is computed again, so the whole
    // resumed run is checked against the file the run started with.
    if (!started_with.empty()) {
      // The path as it was given, relative to where the run began: from
      // another folder it must be given again, and is taken as the same file
      // when it is, or when the old path leads nowhere from here (every
      // level is checked against it all the same).
      std::error_code ec;
      const bool reachable = std::filesystem::exists(started_with, ec);
      if (check_sieve.empty()) {
        if (!reachable)
          throw UsageError("cannot resume " + a.output + ": it was started with --check-sieve " + started_with +
                           ", which is not there from this folder (a path from where the run began?); give "
                           "that file again: --check-sieve PATH");
        check_sieve = started_with;
      } else {
        refuse_other_check();
      }
    }
  } else if (a.resume && !a.dry_run && max_tiles != 0) {
    std::cerr << "no " << a.output << " yet: starting a new run\n";
  }
  if (max_tiles == 0)
    throw UsageError(a.resume && !a.output.empty()
                         ? "--max-tiles N is required: there is no " + printable(a.output) +
                               " to resume (a --resume of an existing file takes the file's)"
                         : std::string("--max-tiles N is required (a --resume takes the --output file's)"));
  // The file the values are checked against must not be the one the run
  // writes (with --force it was replaced by the Grundy table).
  if (!check_sieve.empty() && output_exists && std::filesystem::equivalent(check_sieve, a.output, ec))
    throw UsageError("--check-sieve " + printable(check_sieve) + " is the --output file, which the run would "
                     "overwrite with its Grundy table; give another --output");
  // Read before the plan, so that a dry run refuses what the run would.
  const std::vector<std::uint64_t> losing =
      check_sieve.empty() ? std::vector<std::uint64_t>{} : sieve_losing(check_sieve, max_tiles);

  const std::uint64_t bytes = grundy_table_bytes(max_tiles);
  std::uint64_t budget = 0;
  std::string budget_source;
  if (!a.memory_limit.empty()) {
    std::string why;
    budget = *parse_byte_size(a.memory_limit, why);
    budget_source = "--memory-limit";
    // As the sieve: a limit above what is free is the user's to give, but said.
    const auto [avail, source] = available_memory();
    if (avail && budget > avail)
      std::cerr << "note: --memory-limit " << human_bytes(static_cast<double>(budget)) << " is more than the "
                << human_bytes(static_cast<double>(avail)) << " " << source << "\n";
  } else {
    const auto [avail, source] = available_memory();
    budget = avail / 10 * 9;
    budget_source = "nine tenths of the memory " + source;
  }
  const std::string plan = "levels 1.." + std::to_string(max_tiles) + " take " +
                           human_bytes(static_cast<double>(bytes)) + " (one byte per position, " +
                           std::to_string(bytes) + " positions)";
  if (a.dry_run) {
    std::printf("%s; budget %s (%s): %s\n", plan.c_str(), human_bytes(static_cast<double>(budget)).c_str(),
                budget_source.c_str(), budget == 0 || bytes <= budget ? "fits" : "does not fit");
    if (budget > 0 && bytes > budget) {
      // As the run's refusal, and the sieve's dry run: the refusal on stderr too.
      std::fflush(stdout);
      std::fprintf(stderr, "chomp: %s, more than the budget of %s (%s); choose a smaller --max-tiles or a larger "
                           "--memory-limit\n",
                   plan.c_str(), human_bytes(static_cast<double>(budget)).c_str(), budget_source.c_str());
      return 2;
    }
    std::fflush(stdout);
    const int threads = worker_threads(a.threads);
    std::printf("%s\n", time_estimate(max_tiles, threads).c_str());
    return 0;
  }
  if (budget > 0 && bytes > budget)
    throw UsageError(plan + ", more than the budget of " + human_bytes(static_cast<double>(budget)) + " (" +
                     budget_source + "); choose a smaller --max-tiles or a larger --memory-limit");

  // --force over a sieve result replaces the file, not its store (a
  // Grundy run keeps none): the store is said to be left, not removed, once
  // nothing can refuse the run any more.
  if (output_exists && a.force && std::filesystem::is_regular_file(store_path_for(a.output), ec))
    std::cerr << "note: " << printable(store_path_for(a.output))
              << ", the store of the sieve result this run replaces, is left as it was; remove it when that run "
                 "is no longer needed\n";

  const int threads = worker_threads(a.threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  GrundyProvenance prov;
  const int restored = resume ? static_cast<int>(resume->saved.size()) : 0;
  if (resume) {
    prov = resume->provenance;
    if (!prov.resume_history.empty()) prov.resume_history += '\n';
    // The resuming program may be another build: its revision goes with it.
    prov.resume_history += utc_now() + ": computed levels 1.." + std::to_string(restored) +
                           " again and checked them against the file, with " + threads_text(threads) + " (chomp " +
                           build::kVersion + ", revision " + build::kGitRevision + "): " + command_line();
  } else {
    prov.command_line = command_line();
    prov.start_utc = utc_now();
  }
  prov.threads = threads;
  prov.checked_against = check_sieve;
  prov.checked_to_level = 0;  // raised as each level is found equal (the file is written after each level)

  const StopSignals stop_signals;
  const auto t0 = std::chrono::steady_clock::now();
  const auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  if (resume && restored == 0)
    std::cerr << "resumed " << a.output << ": no finished level to restore; continuing to level " << max_tiles
              << " with " << threads_text(threads) << '\n';
  if (!a.quiet)
    std::printf("%6s %16s %14s %14s %14s %8s %10s\n", "tiles", "positions", "G=0 (losing)", "G=1", "G=2", "largest",
                "seconds");
  std::fflush(stdout);
  // The levels the file holds (the saved ones with the time they took when
  // they were computed first), and whether this run has written it yet: a
  // resumed run leaves the file alone until its first new level.
  std::vector<GrundyLevel> levels;
  bool wrote = false;
  double restoring = 0;
  // Marks the file with the status of a stopped run and says what it holds.
  const auto stop_message = [&](const std::string& status) {
    if (resume && !wrote) return a.output + " is unchanged";
    write_grundy_file(a.output, max_tiles, levels, prov, status);
    const int done = static_cast<int>(levels.size());
    return (done > 0 ? "levels 1.." + std::to_string(done) + " are saved in " + a.output
                     : "no level was finished; " + a.output + " holds none") +
           " (status \"" + status + "\")";
  };
  // The progress line: a level's work is its positions times its moves.
  LevelProgress progress(partition_work(max_tiles), a.quiet);
  try {
    const GrundyTable table(
        max_tiles,
        [&](const GrundyLevel& l) {
          progress.level_done(l.tiles);
          progress.clear();
          const std::size_t i = static_cast<std::size_t>(l.tiles) - 1;
          if (l.tiles <= restored) check_recomputed_level(*resume, l, a.output);
          if (i < losing.size() && losing[i] != l.zeros()) {
            std::fprintf(stderr, "chomp: level %d: %llu positions of value 0, but %s has L(%d) = %llu\n", l.tiles,
                         static_cast<unsigned long long>(l.zeros()), check_sieve.c_str(), l.tiles,
                         static_cast<unsigned long long>(losing[i]));
            throw SieveDisagrees("level " + std::to_string(l.tiles) + " disagrees with " + check_sieve);
          }
          if (i < losing.size()) prov.checked_to_level = l.tiles;
          if (l.tiles <= restored) {
            levels.push_back(resume->saved[i]);
            if (l.tiles == restored) {
              restoring = since(t0);
              std::cerr << "resumed " << a.output << ": levels 1.." << restored
                        << " computed again and equal to the file's in " << seconds_text(restoring)
                        << " s; continuing to level " << max_tiles << " with " << threads_text(threads) << '\n';
            }
            return;
          }
          levels.push_back(l);
          // Saved before it is printed: every level printed is in the file.
          // A level whose write failed is not saved: the messages below
          // count `levels` as the file's.
          try {
            write_grundy_file(a.output, max_tiles, levels, prov, "running");
          } catch (...) {
            levels.pop_back();
            throw;
          }
          wrote = true;
          if (!a.quiet) {
            const auto at = [&](std::size_t g) { return g < l.counts.size() ? l.counts[g] : 0; };
            std::printf("%6d %16llu %14llu %14llu %14llu %8d %10.3f\n", l.tiles,
                        static_cast<unsigned long long>(l.positions), static_cast<unsigned long long>(at(0)),
                        static_cast<unsigned long long>(at(1)), static_cast<unsigned long long>(at(2)), l.largest,
                        l.seconds);
            std::fflush(stdout);
          }
        },
        StopSignals::flag(), [&](int n, double fraction) { progress.update(n, fraction); });
  } catch (const GrundyInterrupted&) {
    progress.clear();
    const int done = static_cast<int>(levels.size());
    std::cerr << "chomp: stopped by " << StopSignals::name()
              << (resume && !wrote ? " before resuming" : " during level " + std::to_string(done + 1)) << "; "
              << stop_message("interrupted") << '\n';
    std::cerr << "chomp: to continue: " << resume_command(a, max_tiles, check_sieve) << '\n';
    return StopSignals::exit_code();
  } catch (const SieveDisagrees& e) {
    progress.clear();
    std::cerr << "chomp: error: " << e.what() << "; the run stops there: " << stop_message("failed") << '\n';
    return 1;
  } catch (const std::bad_alloc&) {
    progress.clear();
    if (!wrote) throw;
    // The finished levels are kept, and the file says the run failed (it
    // stayed "running", as if a process still wrote it); the table that did
    // not fit is freed by now, so the small write has room.
    std::string saved;
    try {
      saved = stop_message("failed");
    } catch (...) {
      saved = "levels 1.." + std::to_string(levels.size()) + " are saved in " + a.output;
    }
    std::cerr << "chomp: out of memory during level " << levels.size() + 1 << "; " << saved
              << "; with more memory free, continue with: " << resume_command(a, max_tiles, check_sieve) << '\n';
    return 1;
  } catch (const ResumeRefused&) {
    progress.clear();
    throw;  // a saved level computed again differs; the file is unchanged
  } catch (const std::exception& e) {
    progress.clear();
    if (!wrote) throw;
    // A failed write leaves the last version of the file (status "running").
    if (dynamic_cast<const H5Error*>(&e) == nullptr) {
      try {
        write_grundy_file(a.output, max_tiles, levels, prov, "failed");
      } catch (...) {
        // The file keeps its last version, status "running".
      }
    }
    throw std::runtime_error(std::string(e.what()) + "\nchomp: levels 1.." + std::to_string(levels.size()) +
                             " are saved in " + a.output + "; once the problem is fixed, continue with: " +
                             resume_command(a, max_tiles, check_sieve));
  }
  progress.clear();
  write_grundy_file(a.output, max_tiles, levels, prov, "complete");
  const double seconds = since(t0);
  std::cerr << "wrote " << a.output << " (levels 1.." << max_tiles << ", " << threads_text(threads) << ", ";
  if (restored == 0)
    std::cerr << seconds_text(seconds) << " s";
  else if (restored == max_tiles)  // a run killed as it finished
    std::cerr << seconds_text(restoring) << " s computing levels 1.." << restored << " again";
  else
    std::cerr << seconds_text(seconds - restoring) << " s for "
              << (restored + 1 == max_tiles ? "level " : "levels " + std::to_string(restored + 1) + "..")
              << max_tiles << " after " << seconds_text(restoring) << " s computing levels 1.." << restored
              << " again";
  std::cerr << ", " << human_bytes(static_cast<double>(bytes)) << " of values)\n";
  if (!losing.empty())
    std::fprintf(stderr, "value 0 counts equal L(n) of %s for levels 1..%zu\n", check_sieve.c_str(),
                 std::min(losing.size(), static_cast<std::size_t>(max_tiles)));
  return 0;
}

const RegisterCommand registration(12, "grundy",
                          "Sprague-Grundy value of every position up to --max-tiles tiles; per-level counts to HDF5",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<GrundyArgs>();
  a->max_tiles_option =
      sub.add_option("-n,--max-tiles", a->max_tiles,
                     "Largest tile count (level); required unless --resume continues an existing file")
          ->transform(whole_number(1, kMaxTiles, " (positions of up to 255 tiles fit the ranking)"));
  sub.add_option("-o,--output", a->output, "HDF5 file for the per-level counts of each value (required, except with --dry-run)")
      ->check(output_file_name());
  sub.add_flag("-f,--force", a->force, "Overwrite the output file if it exists (start over)");
  sub.add_flag("-r,--resume", a->resume,
               "Continue the run in the output file (after a stop or a kill); starts one if there is none. A "
               "larger --max-tiles extends a finished run. The file keeps counts, not values, so the saved "
               "levels are computed again and must equal the file's");
  a->check_sieve_option = sub.add_option("--check-sieve", a->check_sieve,
                 "A `chomp sieve` result file: the run stops (exit 1, status \"failed\") at the first level "
                 "whose count of value 0 is not that file's L(n); levels above the file's last are not checked "
                 "(the output records checked_to_level)");
  sub.add_option("--memory-limit", a->memory_limit,
                 "Memory the values may take (e.g. 512M, 4G; powers of 1024); a run that needs more is refused "
                 "(default: nine tenths of the available memory)")
      ->check(byte_size());
  sub.add_flag("--dry-run", a->dry_run,
               "Print the memory the run takes and whether it fits, and (if it does) its time estimated from "
               "levels 1..58 computed now (a few seconds), and exit");
  sub.add_option("-t,--threads", a->threads, kWorkerThreadsHelp)->transform(whole_number(1, 4096));
  sub.add_flag("-q,--quiet", a->quiet, "Do not print the per-level table or the progress line");
  sub.footer(
      "Convention: a board in a sum never has its poisoned tile taken, so the single\n"
      "poisoned tile has value 0 and G = mex over the moves other than taking (1,1);\n"
      "G = 0 exactly for the losing positions (the G=0 column is the sieve's L(n)).\n"
      "Method: level by level, each value the mex of the values its n - 1 moves leave,\n"
      "found by rank in the levels below, which are all held in memory, one byte per\n"
      "position: sum of p(k) for k <= N (N = 80: 0.11 GiB, 100: 1.5 GiB). That memory,\n"
      "and the time (N - 1 moves a position, half the positions solved: G is the same\n"
      "for a position and its transpose), bound a run: N = 80 takes 110 CPU-seconds\n"
      "(a minute on two idle cores).\n"
      "Stops and resume: the file is rewritten after every level (NAME.tmp, then\n"
      "renamed), status \"running\". SIGINT, SIGTERM or SIGUSR1 drops the level in\n"
      "progress, marks the file \"interrupted\" (complete = 0), exits 130, 143 or 138,\n"
      "and prints the command that continues it; a killed run leaves its finished\n"
      "levels too. --resume takes the file's --max-tiles and --check-sieve, and refuses\n"
      "a file that is not a chomp grundy file. The file keeps counts, not the values\n"
      "the next level needs, so a resumed run computes the saved levels again (as long\n"
      "as they took) and refuses to go on unless each equals the file's; its final\n"
      "file has the same levels as an uninterrupted run.\n"
      "Examples:\n"
      "  chomp grundy --max-tiles 80 --output grundy-80.h5\n"
      "  chomp grundy --output grundy-80.h5 --resume              # after a stop or a kill\n"
      "  chomp grundy --output grundy-80.h5 --max-tiles 90 --resume   # extend a finished run\n"
      "  chomp sieve -n 60 -o levels-60.h5 && chomp grundy -n 60 -o grundy-60.h5 --check-sieve levels-60.h5\n");
  return [a] { return run_grundy(*a); };
});

}  // namespace
}  // namespace chomp::app::cmd_grundy
