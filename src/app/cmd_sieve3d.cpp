/// @file cmd_sieve3d.cpp
/// @brief `chomp sieve --dimensions 3`: the 3D sieve (sieve3d.hpp) as a batch
/// run like the 2D one: a result file with root attribute dimensions = 3
/// and a store of each finished level's losing positions (their ranks,
/// macmahon_ranking.hpp) beside it, so that --resume continues a stopped or
/// killed run; a memory budget and --dry-run from the plan of its losing
/// sets (Sieve3dPlan); the 2D store's, planner's and cluster's other
/// options refused. The files and their steps are SieveRun's
/// (chomp/sieve_run.hpp), as in 2D.

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <new>
#include <optional>
#include <system_error>

#include "chomp/losing_store.hpp"
#include "chomp/sieve3d.hpp"
#include "chomp/sieve_run.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"
#include "level_eta.hpp"
#include "run_claim.hpp"
#include "run_guards.hpp"
#include "sieve_args.hpp"
#include "sieve_cluster.hpp"
#include "sieve_plan.hpp"
#include "sieve_progress.hpp"
#include "stop_signals.hpp"

namespace chomp::app::cmd_sieve3d {
namespace {

/// The most cubes a 3D run takes: the last level whose losing set fits a
/// set's 32-bit directory (the plan's estimate; 56), within a key's cubes.
int most_sieve_cubes() {
  const Sieve3dPlan p = plan_sieve3d(kMaxCubes);
  return p.first_too_large > 0 ? p.first_too_large - 1 : kMaxCubes;
}

/// --max-tiles beyond the 3D sieve's cubes (a resumed run without it
/// takes the file's).
void refuse_too_many_cubes(int max_tiles, bool given) {
  if (max_tiles > kMaxCubes && !given)
    throw UsageError("--dimensions 3 needs --max-tiles N, at most " + std::to_string(most_sieve_cubes()) +
                     " cubes (the default, " + std::to_string(max_tiles) + ", is the 2D sieve's)");
  if (max_tiles > kMaxCubes)
    throw UsageError("--max-tiles " + std::to_string(max_tiles) + " with --dimensions 3: at most " +
                     std::to_string(most_sieve_cubes()) + " cubes (a 3D position's key holds " +
                     std::to_string(kMaxCubes) + " cubes in 192 bits, and a level's losing set at most 2^32 - 1 "
                     "positions)");
}

/// The arguments a 3D run cannot take; nothing is written before this.
void refuse_2d_only(const SieveArgs& a, const ClusterRun& cluster) {
  for (const CLI::Option* o : a.not_in_3d)
    if (o->count())
      throw UsageError(o->get_name() + " is not supported with --dimensions 3 (it belongs to the 2D sieve: "
                       "its store of lattice paths, slices of levels, MPI processes, windows' checkpoints or "
                       "marks of the first rows; the 3D sieve holds the losing sets of every level in memory, "
                       "in one process, and saves each level as it finishes)");
  if (a.max_tiles_option->count() || !a.resume) refuse_too_many_cubes(a.max_tiles, a.max_tiles_option->count() > 0);
  std::error_code ec;
  if (a.resume && !a.max_tiles_option->count() && !std::filesystem::exists(a.output, ec))
    throw UsageError("there is no " + printable(a.output, 200) + " to resume; a new 3D run needs --max-tiles N, at "
                     "most " + std::to_string(most_sieve_cubes()) + " cubes");
  if (cluster.processes() > 1) throw UsageError("--dimensions 3 runs as one process, not under mpirun or srun");
}

/// A 3D level's row on stdout.
void print_row(const LevelResult& r) {
  std::printf("%6d %16llu %14llu %10.4f %10.6f %10.3f\n", r.tiles, static_cast<unsigned long long>(r.positions),
              static_cast<unsigned long long>(r.losing), 100 * r.losing_fraction(), r.hypothesis_ratio(), r.seconds);
  std::fflush(stdout);
}

}  // namespace
}  // namespace chomp::app::cmd_sieve3d

namespace chomp::app {

int lead_sieve3d(const SieveArgs& given, ClusterRun& cluster) {
  cmd_sieve3d::refuse_2d_only(given, cluster);  // this file's helpers: CMakeLists.txt, the unity batches
  SieveArgs a = given;
  const ClaimedOutput claimed(a);
  const bool output_exists = claimed.exists();
  const std::string& store_path = claimed.store_path();

  const std::uint64_t resident = resident_bytes();  // before the file to resume is read (decide_budget)
  std::unique_ptr<Resume> resume = open_resume(a, output_exists);
  int max_cubes = a.max_tiles;
  std::vector<std::uint64_t> known;
  if (resume) {
    const ResumeState& st = resume->state();
    if (st.complete && st.max_tiles == st.file_max_tiles) {
      std::cerr << a.output << " is complete (3D levels 1.." << st.file_max_tiles
                << "); nothing to resume. A larger --max-tiles extends it.\n";
      return 0;
    }
    max_cubes = st.max_tiles;
    known = st.losing;
  } else {
    cmd_sieve3d::refuse_too_many_cubes(max_cubes, a.max_tiles_option->count() > 0);  // --resume without a file
  }

  const int threads = worker_threads(a.threads);
  const Budget budget = decide_budget(a.memory_limit, resident, a.dry_run);
  const Sieve3dPlan plan = plan_sieve3d(max_cubes, known);
  // Before the plan is printed (a dry run's calibration takes seconds).
  if (plan.first_too_large > 0)
    throw UsageError("--max-tiles " + std::to_string(max_cubes) +
                     (resume && !a.max_tiles_option->count() ? " (the file's own, as its run was started)" : "") +
                     " with --dimensions 3: level " +
                     std::to_string(plan.first_too_large) + " would hold about " +
                     std::to_string(plan.first_too_large <= static_cast<int>(known.size())
                                        ? known[static_cast<std::size_t>(plan.first_too_large - 1)]
                                        : estimated_losing_3d(plan.first_too_large)) +
                     " losing positions, more than the " + std::to_string(Sieve3dPlan::kMostLosingPerLevel) +
                     " one level's set can hold; at most " + std::to_string(plan.first_too_large - 1) + " cubes");
  const std::uint64_t free_disk = free_bytes_beside(a.output);
  // A run's stop handlers go in before its plan line (as in 2D): a stop
  // sent on seeing the plan is a clean one.
  std::optional<StopSignals> stop_signals;
  if (a.dry_run) {
    print_plan3d(std::cout, max_cubes, plan, budget, free_disk, threads, known.size());
  } else {
    stop_signals.emplace();
    print_plan3d_line(max_cubes, plan, budget, free_disk);
  }
  refuse_unless_fits_3d(max_cubes, plan, budget);
  std::uint64_t held = 0;
  if (resume) {
    std::error_code ec;
    held = std::filesystem::file_size(resume->state().store_path, ec);
    if (ec) held = 0;
  }
  check_disk(DiskPlan{plan.store_bytes, plan.result_bytes}, held, free_disk, a.output);
  if (a.dry_run) return 0;

  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  SieveOptions options;
  options.threads = threads;
  options.memory_budget = budget.sieve;
  const SieveRunRequest request{a.output, store_path, max_cubes, 0, options, 1, command_line(), 3, ""};
  SieveRun run(request, std::move(resume));
  // Each file is locked as soon as it exists (sieve_run.hpp has the steps).
  run.open_store();
  const RunLock store_lock(store_path);
  run.open_file();
  const RunLock lock(run.partial_path());
  if (!run.resuming()) run.name_file();
  const Sieve3d& sieve = run.make_sieve3d(StopSignals::flag());

  // The progress line: a level's work is its positions times its moves.
  LevelProgress progress(plane_partition_work(max_cubes), a.quiet);
  const auto clear = [&] { progress.clear(); };
  try {
    if (run.resuming()) {
      run.restore(
          [&](int n, int levels) {
            progress.show("checking level " + std::to_string(n) + " of " + std::to_string(levels) + ", " +
                          clock_text(progress.elapsed()));
          },
          StopSignals::flag());
      clear();
      std::cerr << "resumed " << a.output << ": ";
      if (run.restored_levels() > 0)
        std::cerr << "levels 1.." << run.restored_levels() << " checked in " << seconds_text(run.restore_seconds())
                  << " s";
      else
        std::cerr << "no finished level to restore";
      std::cerr << "; continuing to level " << max_cubes << " with " << threads_text(threads) << '\n';
    }
    progress.level_done(run.restored_levels());
    if (!a.quiet)
      std::printf("%6s %16s %14s %10s %10s %10s\n", "cubes", "positions", "losing", "%losing", "ratio", "seconds");
    std::fflush(stdout);  // before the progress lines, in a log of both
    run.run(
        [&](const LevelResult& r) {
          progress.level_done(r.tiles);
          if (a.quiet) return;
          clear();
          cmd_sieve3d::print_row(r);
        },
        [&](int n, double fraction) { progress.update(n, fraction); });
  } catch (const SieveInterrupted&) {
    clear();
    if (!run.stopped()) {
      std::cerr << "chomp: stopped by " << StopSignals::name() << " before resuming; " << a.output
                << " is unchanged\n";
    } else {
      const int done = run.levels_done();
      std::cerr << "chomp: stopped by " << StopSignals::name() << " during level " << done + 1 << "; "
                << (done > 0 ? "levels 1.." + std::to_string(done) + " are saved in " + a.output
                             : "no level was finished; " + a.output + " holds none")
                << " (status \"" << run.left_status() << "\")\n";
    }
    std::cerr << "chomp: to continue: " << resume_command(a, a.output, max_cubes, 0) << '\n';
    return StopSignals::exit_code();
  } catch (const std::exception& e) {
    clear();
    if (!run.failed(e)) throw;
    if (run.rows() == 0 || dynamic_cast<const std::bad_alloc*>(&e)) throw;
    const bool disk_full = dynamic_cast<const StoreFull*>(&e) != nullptr;
    throw std::runtime_error(std::string(e.what()) + "\nchomp: levels 1.." + std::to_string(run.rows()) +
                             " are saved in " + a.output + (disk_full ? " (status \"" + run.left_status() + "\")" : "") +
                             "; once the problem is fixed" + (disk_full ? full_disk_hint(e.what()) : "") +
                             ", continue with: " + resume_command(a, a.output, max_cubes, 0));
  }
  run.finish();
  const int restored = run.restored_levels();
  std::cerr << "wrote " << a.output << " (3D levels 1.." << max_cubes << ", " << threads_text(threads) << ", ";
  if (restored == 0)
    std::cerr << seconds_text(run.compute_seconds()) << " s";
  else if (restored < max_cubes)
    std::cerr << seconds_text(run.compute_seconds()) << " s for "
              << (restored + 1 == max_cubes ? "level " : "levels " + std::to_string(restored + 1) + "..")
              << max_cubes << " after " << seconds_text(run.restore_seconds()) << " s checking levels 1.." << restored;
  else
    std::cerr << seconds_text(run.restore_seconds()) << " s checking them";
  std::cerr << "; store " << run.store().path() << ", "
            << human_bytes(static_cast<double>(run.store().file_bytes())) << "; losing sets "
            << human_bytes(static_cast<double>(sieve.bytes())) << " in memory)\n";
  return 0;
}

}  // namespace chomp::app
