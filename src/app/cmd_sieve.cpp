/// @file cmd_sieve.cpp
/// @brief `chomp sieve`: the level-by-level table of losing positions, made
/// for batch runs: --resume after a kill, clean stops on SIGINT and SIGTERM,
/// no silent overwrite, and a memory guard before anything is allocated.
/// The command line and what the run says; the run itself is SieveRun
/// (chomp/sieve_run.hpp), its guards run_guards.hpp, its plan sieve_plan.hpp,
/// its progress line sieve_progress.hpp, its arguments' checks
/// sieve_args.hpp; a 3D run (--dimensions 3) is cmd_sieve3d.cpp's.

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <system_error>
#include <vector>

#include "chomp/cluster.hpp"
#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/resume.hpp"
#include "chomp/sieve.hpp"
#include "chomp/sieve_run.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"
#include "run_claim.hpp"
#include "run_guards.hpp"
#include "sieve_args.hpp"
#include "sieve_cluster.hpp"
#include "sieve_plan.hpp"
#include "sieve_progress.hpp"
#include "stop_signals.hpp"

namespace chomp::app::cmd_sieve {
namespace {

/// What a run that ended says on stderr: its levels, threads and time (a
/// resumed run also what checking the others took), its store, and its
/// time by phase.
void print_summary(const SieveRun& run, const std::string& output, int max_tiles, int threads) {
  const int restored = run.restored_levels();
  const double total = run.compute_seconds(), restoring = run.restore_seconds();
  std::cerr << "wrote " << output << " (levels 1.." << max_tiles << ", " << threads_text(threads) << ", ";
  if (restored == 0)
    std::cerr << seconds_text(total) << " s";
  else if (restored < max_tiles)
    std::cerr << seconds_text(total) << " s for "
              << (restored + 1 == max_tiles ? "level " : "levels " + std::to_string(restored + 1) + "..")
              << max_tiles << " after " << seconds_text(restoring) << " s checking levels 1.." << restored;
  else
    std::cerr << seconds_text(restoring) << " s checking them";
  std::cerr << "; store " << run.store().path() << ", "
            << human_bytes(static_cast<double>(run.store().file_bytes())) << ")\n";
  const PhaseTimes t = run.sieve().phase_times();
  std::cerr << std::fixed << std::setprecision(2) << "time by phase: filing marks " << t.filing
            << " s, applying them " << t.applying << " s, transposes " << t.transposes << " s, scanning levels "
            << t.scanning << " s, opening windows " << t.opening << " s";
  if (t.tails > 0) std::cerr << ", tails " << t.tails << " s";
  if (t.checkpoints > 0) std::cerr << ", checkpoints " << t.checkpoints << " s";
  if (t.split_calls > 0) std::cerr << "; " << t.split_calls << " calls too large for the buckets split between processes";
  std::cerr << '\n';
}

int lead_sieve(const SieveArgs& given, ClusterRun& cluster) {
  SieveArgs a = given;
  const ClaimedOutput claimed(a);
  const bool output_exists = claimed.exists();
  const std::string& store_path = claimed.store_path();

  const std::uint64_t resident = resident_bytes();  // before the file to resume is read (decide_budget)
  std::unique_ptr<Resume> resume = open_resume(a, output_exists);
  int max_tiles = a.max_tiles;
  int store_losing = a.store_losing;
  if (resume) {
    const ResumeState& st = resume->state();
    if (st.complete && st.max_tiles == st.file_max_tiles) {
      std::cerr << a.output << " is complete (levels 1.." << st.file_max_tiles
                << "); nothing to resume. A larger --max-tiles extends it.\n";
      return 0;
    }
    max_tiles = st.max_tiles;
    store_losing = st.store_losing;
  }
  if (store_losing > max_tiles)
    throw UsageError("--store-losing " + std::to_string(store_losing) + " exceeds --max-tiles " +
                     std::to_string(max_tiles));
  if (a.slices > 0 && a.slice_from > max_tiles)
    throw UsageError("--slice-from " + std::to_string(a.slice_from) + " exceeds --max-tiles " +
                     std::to_string(max_tiles) + ": --slices would cut no level");

  int threads = a.threads > 0 ? a.threads : tbb::info::default_concurrency();
  // A window's checkpoint of this run's last level written by version 1
  // fixes the thread count (its work items): taken from it when none is
  // given, else it must match. Later ones keep their cut of the items.
  const std::string checkpoint = checkpoint_path_for(store_path);
  std::optional<CheckpointInfo> saved;
  if (resume && cluster.processes() == 1) {
    saved = peek_checkpoint(checkpoint);
    if (saved && (saved->run_id != resume->state().provenance.run_id || saved->level != resume->state().levels))
      saved.reset();  // of another state: the sieve says so and removes it
  }
  // Several processes continue no checkpoint of one: it is removed, as an
  // ignored checkpoint is (stale once they pass its window, and as large as
  // it), but only once the run is sure to go on (below): a refused resume
  // keeps it for the one-process run that can continue it.
  std::error_code ec_checkpoint;
  const bool drop_checkpoint = resume && cluster.processes() > 1 && !a.dry_run &&
                               std::filesystem::exists(checkpoint, ec_checkpoint);
  if (saved && saved->threads > 0 && saved->threads != threads) {
    if (a.threads > 0)
      throw UsageError("the window's checkpoint " + checkpoint + " was saved with --threads " +
                       std::to_string(saved->threads) + ", which fixes its work; resume with --threads " +
                       std::to_string(saved->threads) + " to continue it (or delete it to mark the window again)");
    threads = saved->threads;
    std::cerr << "note: --threads " << threads << ", as the window's checkpoint " << checkpoint << " was saved with\n";
  }
  const Budget budget = decide_budget(a.memory_limit, resident, a.dry_run);
  SieveOptions options;
  options.threads = threads;
  options.memory_budget = budget.sieve;
  if (a.slices > 0) options.min_slices = a.slices, options.slice_from = a.slice_from;
  options.inferred_rows = a.file_all_marks ? 0 : resume ? std::min(a.inferred_rows, resume->state().inferred_rows) : a.inferred_rows;
  // Test seam: CHOMP_DIRECT_CALL_MARKS lowers the bound past which a call's
  // marks skip the buckets (config::kDirectCallMarks), so that small runs
  // take that path too.
  if (const char* v = std::getenv("CHOMP_DIRECT_CALL_MARKS")) {
    char* end = nullptr;
    const unsigned long long marks = v[0] >= '0' && v[0] <= '9' ? std::strtoull(v, &end, 10) : 0;
    if (end != v && marks > 0) {
      options.direct_call_marks = marks;
      std::cerr << "note: CHOMP_DIRECT_CALL_MARKS=" << marks
                << " (a test seam: a call of more marks than that skips the buckets)\n";
    }
  }
  if (cluster.processes() == 1) {
    options.checkpoint = checkpoint;
    options.checkpoint_seconds = 60.0 * a.checkpoint_minutes;
  }
  if (a.processes > 0 && !a.dry_run)
    throw UsageError("--processes " + std::to_string(a.processes) + " only plans (with --dry-run): an MPI run "
                     "takes its process count from mpirun or srun");
  const int processes = a.processes > 0 ? a.processes : cluster.processes();
  const MemoryPlan plan = plan_or_refuse(max_tiles, options, budget, processes);
  if (saved && saved->bitmap_bytes > plan.window_bits / 8)
    throw UsageError("the window's checkpoint " + checkpoint + " holds a window of " +
                     human_bytes(static_cast<double>(saved->bitmap_bytes)) + ", more than this budget's windows (" +
                     human_bytes(static_cast<double>(plan.window_bits / 8)) +
                     "); resume with the --memory-limit the run had to continue it (or delete it to mark the "
                     "window again)");
  const DiskPlan disk = plan_disk(max_tiles);
  if (!options.checkpoint.empty()) options.store_bytes_planned = disk.store_bytes;
  const std::uint64_t free_disk = free_bytes_beside(a.output);
  // In force from here: the dry run's calibration runs the asked threads
  // too (without it, TBB warned on stderr when they outnumbered the cores).
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  // A run's stop handlers go in before its plan line: a Ctrl-C or SIGTERM
  // sent on seeing the plan is a clean stop (exit status 128 + the signal),
  // not the default death, which it was until the run's files were opened.
  std::optional<StopSignals> stop_signals;
  if (a.dry_run) {
    print_plan(std::cout, max_tiles, plan, disk, budget, free_disk, processes);
    // A resumed run's time is that of the levels it has left.
    const int next = resume ? resume->state().levels + 1 : 1;
    print_time_estimate(std::cout, max_tiles, next > 1 ? plan_run(max_tiles, options, processes, next) : plan, threads,
                        processes);
  } else {
    stop_signals.emplace();
    print_plan_line(max_tiles, plan, disk, budget, free_disk, cluster.processes());
  }
  // The disk: what the store will hold beyond what it holds now.
  std::uint64_t held = 0;
  if (resume) {
    std::error_code ec;
    held = std::filesystem::file_size(resume->state().store_path, ec);
    if (ec) held = 0;
  }
  // A window's checkpoint: its bitmap, and in a sliced level the slices
  // done so far (at most the last level's store bytes). A job of several
  // processes (or the dry run planning one) saves none.
  const std::uint64_t checkpoint_bytes =
      options.checkpoint.empty() || processes > 1 ? 0 : checkpoint_bytes_planned(max_tiles, plan, disk);
  const std::string disk_warning = check_disk(disk, held, free_disk, a.output, checkpoint_bytes);
  if (!disk_warning.empty()) std::cerr << "chomp: warning: " << disk_warning << '\n';
  if (a.dry_run) return 0;
  if (drop_checkpoint) {
    std::error_code ec;
    std::filesystem::remove(checkpoint, ec);
    std::cerr << "note: ignored the window's checkpoint " << checkpoint << ", which only a run of one process "
              << "continues; these " << cluster.processes() << " processes mark that window again"
              << (ec ? " (it could not be removed: " + ec.message() + ")" : std::string(" (it is removed)")) << '\n';
  }

  SieveRun run(SieveRunRequest{a.output, store_path, max_tiles, store_losing, options, cluster.processes(),
                               command_line(), 2, cluster.mpi_library()},
               std::move(resume));
  // Each file is locked as soon as it exists (sieve_run.hpp has the steps).
  run.open_store();
  const RunLock store_lock(store_path);
  run.open_file();
  const RunLock lock(run.partial_path());
  if (!run.resuming()) run.name_file();

  const PartitionTable plan_table(max_tiles);
  ProgressLine progress(plan_table, max_tiles, a.quiet);
  try {
    if (run.resuming()) {
      run.restore([&](int n, int levels) { progress.restoring(n, levels); }, StopSignals::flag());
      progress.clear();
      std::cerr << "resumed " << a.output << ": ";
      if (run.restored_levels() > 0)
        std::cerr << "levels 1.." << run.restored_levels() << " checked in " << seconds_text(run.restore_seconds())
                  << " s";
      else
        std::cerr << "no finished level to restore";
      std::cerr << "; continuing to level " << max_tiles << " with " << threads_text(threads) << '\n';
    }
    std::vector<StoredLevel> records;
    for (int n = 1; n <= run.store().levels(); ++n) records.push_back(run.store().record(n));
    cluster.start(max_tiles, options, run.store().path(), run.store().run_id(), records);
    const Sieve& sieve = run.make_sieve(cluster.group(), StopSignals::flag());
    if (!sieve.checkpoint_report().empty()) std::cerr << "chomp: " << sieve.checkpoint_report() << '\n';
    // The windows ahead, as the sieve will open them (the same options and
    // processes as its own plan), for the ETA's work model.
    const int planned_processes = cluster.processes();
    progress.start(sieve.levels_done() + 1, [&] { return sieve.window_levels(); },
                   [&] { return sieve.marks_applied(); },
                   [max_tiles, options, planned_processes](int n) {
                     return plan_run(max_tiles, options, planned_processes, n).windows;
                   },
                   sieve.resumed_seconds(), sieve.resumed_first_pass());
    if (!a.quiet)
      std::printf("%6s %16s %14s %10s %10s %10s\n", "tiles", "positions", "losing", "%losing", "ratio",
                  "seconds");
    // What became of a checkpoint is said once, when it is known (a damaged
    // one is found only when its window is opened).
    std::string said = sieve.checkpoint_report();
    run.run([&](const LevelResult& r) {
              if (sieve.checkpoint_report() != said) {
                said = sieve.checkpoint_report();
                progress.clear();
                std::cerr << "chomp: " << said << '\n';
              }
              progress.row(r);
            },
            [&](int tiles, double fraction) { progress.update(tiles, fraction); });
  } catch (const SieveInterrupted&) {
    progress.clear();
    if (!run.stopped()) {
      std::cerr << "chomp: stopped by " << StopSignals::name() << " before resuming; " << a.output
                << " is unchanged\n";
    } else {
      const int done = run.levels_done();
      std::cerr << "chomp: stopped by " << StopSignals::name() << " during level " << done + 1 << "; "
                << (done > 0 ? "levels 1.." + std::to_string(done) + " are saved in " + a.output
                             : "no level was finished; " + a.output + " holds none")
                << " (status \"" << run.left_status() << "\")\n";
      if (run.has_sieve() && !run.sieve().checkpoint_report().empty())
        std::cerr << "chomp: " << run.sieve().checkpoint_report() << '\n';
    }
    std::cerr << "chomp: to continue: " << resume_command(a, a.output, max_tiles, store_losing) << '\n';
    return StopSignals::exit_code();
  } catch (const std::exception& e) {
    progress.clear();
    if (!run.failed(e)) throw;
    if (run.rows() == 0 || dynamic_cast<const std::bad_alloc*>(&e)) throw;
    const bool disk_full = dynamic_cast<const StoreFull*>(&e) != nullptr;
    throw std::runtime_error(std::string(e.what()) + "\nchomp: levels 1.." + std::to_string(run.rows()) +
                             " are saved in " + a.output + (disk_full ? " (status \"" + run.left_status() + "\")" : "") +
                             "; once the problem is fixed" + (disk_full ? full_disk_hint(e.what()) : "") +
                             ", continue with: " + resume_command(a, a.output, max_tiles, store_losing));
  }
  run.finish();
  print_summary(run, a.output, max_tiles, threads);
  return 0;
}

/// A process other than the leader of an MPI run: takes its share of the
/// leader's run and stops with the others on SIGINT, SIGTERM or SIGUSR1.
int follow_sieve(const SieveArgs& a, ClusterRun& cluster) {
  const StopSignals stop_signals(false);  // the leader says it
  try {
    return cluster.follow(a.threads, StopSignals::flag());
  } catch (const SieveInterrupted&) {
    return StopSignals::exit_code();
  }
}

int run_sieve(const SieveArgs& a) {
  ClusterRun cluster;  // the processes of an MPI job, when mpirun or srun started this one
  // A Cluster of one under a launcher of several: each process runs the
  // whole sieve on its own (with one --output, all but one find it taken).
  // That is what independent runs started by one srun step want, so it is
  // said, not refused; a job meant to share one sieve learns why it did not.
  if (cluster.processes() == 1 && launched_processes() > 1) {
    const std::string mpi = cluster.mpi_library();
    std::fprintf(stderr, "chomp: note: the launcher started %d processes, but %s: each runs the whole sieve on "
                 "its own; for one run shared by them, %s (doc/MPI.md)\n",
                 launched_processes(),
                 mpi.empty() ? "this chomp was built without MPI"
                             : ("MPI (" + mpi + ", which this chomp was built with) sees this one alone").c_str(),
                 mpi.empty() ? "build chomp with -DCHOMP_WITH_MPI=ON" : "start it with that library's own mpirun");
  }
  // Under mpirun the 3D leader refuses and cancels the run: the others take
  // that broadcast (follow returns at once), so that no collective is left
  // unmatched.
  if (a.dimensions == 3)
    return cluster.guard([&] { return cluster.leader() ? lead_sieve3d(a, cluster) : follow_sieve(a, cluster); });
  return cluster.guard([&] { return cluster.leader() ? lead_sieve(a, cluster) : follow_sieve(a, cluster); });
}

const RegisterCommand registration(10, "sieve", "Classify every position up to --max-tiles tiles; write the per-level table to HDF5",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<SieveArgs>();
  a->max_tiles_option =
      sub.add_option("-n,--max-tiles", a->max_tiles,
                     "Largest tile count (level) to classify (a --resume without it goes to the file's own; "
                     "a new run of --dimensions 3 needs it, at most 56: level 57 would pass the 2^32 - 1 losing positions a level's set "
                     "holds)")
          ->transform(whole_number(1, kMaxTiles,
                               " (a position is stored as a lattice path of at most 256 steps, rows "
                               "plus columns, which holds every position of up to 255 tiles)"))
          ->capture_default_str();
  sub.add_option("-o,--output", a->output, "HDF5 file for the per-level table")
      ->check(output_file_name())
      ->capture_default_str();
  sub.add_option("-t,--threads", a->threads,
                 "Worker threads (default: all cores); each has its own mark buckets in the memory budget, "
                 "more each as threads are added (about 3 MiB a thread with 16, 20 MiB with 256: 5 GiB in all; "
                 "--dry-run shows the plan), so hundreds of threads need a large --memory-limit (with "
                 "--dimensions 3: at most one a core)")
      ->transform(whole_number(1, 4096));
  sub.add_flag("-f,--force", a->force, "Overwrite the output file if it exists (start over)");
  sub.add_flag("-r,--resume", a->resume,
               "Continue the run in the output file (after a kill or a stop); starts one to --max-tiles if "
               "there is none (refused without it). A larger --max-tiles extends a finished run");
  a->store_losing_option =
      sub.add_option("--store-losing", a->store_losing,
                     "Also store the losing positions of levels 1..K in the file (K <= 63 and K <= --max-tiles; a "
                     "--resume keeps the first leg's K)")
          ->transform(whole_number(0, kMaxStoredTiles, " (stored positions are 64-bit lattice paths, which hold every "
                                      "position of up to 63 tiles)"));
  sub.add_option("--memory-limit", a->memory_limit,
                 "Memory the run fits itself into (e.g. 64M, 20G; powers of 1024): it chooses its windows, "
                 "slices and buffers to fit, and refuses only when not even the smallest slice fits, or when "
                 "it is more than the machine's memory (a --dry-run may plan for a larger machine) "
                 "(default: nine tenths of the available memory)")
      ->check(byte_size());
  auto* slices = sub.add_option("--slices", a->slices,
                 "Finish every level from --slice-from on in a window of its own, cut into about K slices "
                 "whatever the budget (a slice holds whole first rows, so a level may get fewer; for measuring "
                 "what slices cost; 1: whole, one level a window)")
      ->transform(whole_number(1, 64));
  sub.add_option("--slice-from", a->slice_from, "First level that --slices cuts (with --slices; levels too small to "
                 "cut still get a window of their own)")
      ->capture_default_str()
      ->transform(whole_number(1, kMaxTiles))
      ->needs(slices);
  auto* file_all = sub.add_flag("--file-all-marks", a->file_all_marks,
               "File the marks of moves of the first two rows like all others instead of inferring them from "
               "one bit per tail and per second-row context (slower; the `marks` column then counts them, as in "
               "the tables of data/). Without it, both rows' moves are inferred when their bits (about 2.9 p(N) "
               "bits: N up to 132 in 18G) fit an eighth of the budget, else the first row's (p(N) bits: 142 in "
               "18G), and the run is one process. --resume infers no more rows than the file's run did");
  sub.add_option("--inferred-rows", a->inferred_rows,
                 "The first rows whose moves are inferred from bits rather than filed as marks: 2 (both), 1 (the "
                 "first), 0 (as --file-all-marks); fewer when their bits do not fit")
      ->transform(whole_number(0, 2))
      ->excludes(file_all)
      ->capture_default_str();
  sub.add_flag("--dry-run", a->dry_run,
               "Print the memory and disk plan and a time estimate on stdout, check it, and exit (for the "
               "estimate it first sieves up to 92 levels, with --dimensions 3 up to 30 cubes: a few seconds)");
  sub.add_option("--processes", a->processes,
                 "With --dry-run: plan for K MPI processes, the memory per process (an MPI run takes its count "
                 "from mpirun)")
      ->transform(whole_number(1, 1 << 20));
  sub.add_flag("-q,--quiet", a->quiet, "Do not print the per-level table or the progress line");
  sub.add_option("--dimensions", a->dimensions,
                 "2: Chomp on a board of tiles (the default); 3: Chomp with cubes, every 3D position (plane "
                 "partition) up to --max-tiles cubes (at most 56), in the same table with root attribute "
                 "dimensions = 3 and its losing positions in the store beside it, so that --resume continues "
                 "it; --memory-limit and --dry-run as in 2D (the memory is the losing sets of every level); "
                 "without --store-losing, --slices, --slice-from, --processes, --checkpoint-every, "
                 "--file-all-marks or --inferred-rows")
      ->transform(whole_number(2, 3, " (the sieve in more dimensions is not built; `chomp divisors` plays the "
                                 "game of more primes)"));
  sub.add_option("--checkpoint-every", a->checkpoint_minutes,
                 "Minutes (fractions allowed) between saves of a long window's progress (beside the store: RUN.window for -o RUN.h5; "
                 "runs of one process: an MPI run saves none), so that a "
                 "kill loses at most that much of it; a stop (SIGINT, SIGTERM, SIGUSR1) always saves it, and --resume "
                 "continues from it. Saves are at least ten times as far apart as the last one took. 0: only at a stop")
      ->check(decimal_number(1e6))
      ->capture_default_str();
  for (const char* name :
       {"--store-losing", "--slices", "--slice-from", "--processes", "--checkpoint-every", "--file-all-marks",
        "--inferred-rows"})
    a->not_in_3d.push_back(sub.get_option(name));
  return [a] { return run_sieve(*a); };
});

}  // namespace
}  // namespace chomp::app::cmd_sieve
