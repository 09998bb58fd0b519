/// @file cmd_sieve.cpp
/// @brief `chomp sieve`: the level-by-level table of losing positions, made
/// for batch runs: --resume after a kill, clean stops on SIGINT and SIGTERM,
/// no silent overwrite, and a memory guard before anything is allocated.
/// The command line and what the run says; the run itself is SieveRun
/// (chomp/sieve_run.hpp), its guards run_guards.hpp, its plan sieve_plan.hpp,
/// its progress line sieve_progress.hpp.

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <memory>
#include <new>
#include <optional>
#include <system_error>
#include <vector>

#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/resume.hpp"
#include "chomp/sieve.hpp"
#include "chomp/sieve3d.hpp"
#include "chomp/sieve_run.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"
#include "run_claim.hpp"
#include "run_guards.hpp"
#include "sieve_cluster.hpp"
#include "sieve_plan.hpp"
#include "sieve_progress.hpp"
#include "status_line.hpp"
#include "stop_signals.hpp"

namespace chomp::app {
namespace {

struct SieveArgs {
  int max_tiles = 90;
  std::string output = "chomp-levels.h5";
  int threads = 0;
  bool force = false;
  bool resume = false;
  bool dry_run = false;
  bool quiet = false;
  int store_losing = 0;
  std::string memory_limit;
  int processes = 0;   // --processes: plan for this many MPI processes (dry runs)
  int slices = 0;      // at least this many slices a level (measurements)
  int slice_from = 1;  //   from this level on
  int dimensions = 2;  // 3: cubes (plane partitions)
  // Whether the user gave them: a resumed run otherwise takes the file's.
  const CLI::Option* max_tiles_option = nullptr;
  const CLI::Option* store_losing_option = nullptr;
  // Options the 3D sieve refuses when given.
  std::vector<const CLI::Option*> not_in_3d;
};

/// The command that continues the run in `output`, with every parameter
/// the run was given (--max-tiles and --store-losing, so that it also
/// continues a run killed before its first level was saved; the threads
/// and the memory limit it ran with).
std::string resume_command(const SieveArgs& a, const std::string& output, int max_tiles, int store_losing) {
  std::string c = shell_quote(program_path()) + " sieve --output " + shell_quote(output) + " --max-tiles " +
                  std::to_string(max_tiles);
  if (store_losing > 0) c += " --store-losing " + std::to_string(store_losing);
  if (a.threads > 0) c += " --threads " + std::to_string(a.threads);
  if (!a.memory_limit.empty()) c += " --memory-limit " + shell_quote(a.memory_limit);
  if (a.slices > 0) c += " --slices " + std::to_string(a.slices) + " --slice-from " + std::to_string(a.slice_from);
  if (a.quiet) c += " --quiet";
  return c + " --resume";
}

/// Checks the arguments against each other and the file system; nothing is
/// written before this passes.
void check_arguments(const SieveArgs& a, bool output_exists) {
  if (a.force && a.resume)
    throw UsageError("--force and --resume contradict each other: --force starts over, --resume continues "
                     "the run in --output; give one of them");
  std::error_code ec;
  if (std::filesystem::is_directory(a.output, ec))
    throw UsageError("--output " + printable(a.output) + " is a folder; give a file name");
  if (output_exists && !a.force && !a.resume)
    throw UsageError("output file " + printable(a.output) +
                     " already exists; pass --resume to continue it, --force to start over, or choose "
                     "another --output");
}

/// The output a run writes: a symbolic link's target (read and written in
/// place: a rename would replace the link with a file of its own).
std::string output_file(const std::string& output) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(output, ec)) return output;
  const std::filesystem::path target = std::filesystem::weakly_canonical(output, ec);
  if (ec || target.empty())
    throw UsageError("--output " + printable(output) + " is a symbolic link that cannot be followed");
  std::cerr << "note: --output " << printable(output, 200) << " is a symbolic link; its target "
            << printable(target.string(), 200) << " is the file written\n";
  return target.string();
}

/// The run in --output to continue, when --resume finds one (its notes
/// on stderr), or none.
std::unique_ptr<Resume> open_resume(const SieveArgs& a, bool output_exists) {
  std::unique_ptr<Resume> resume;
  if (a.resume && output_exists) {
    ResumeRequest request;
    request.path = a.output;
    request.max_tiles = a.max_tiles_option->count() ? a.max_tiles : 0;
    request.store_losing = a.store_losing_option->count() ? a.store_losing : -1;
    try {
      resume = std::make_unique<Resume>(request);
    } catch (const ResumeMismatch& e) {
      throw UsageError(e.what());
    }
    for (const std::string& note : resume->state().notes) std::cerr << "note: " << note << '\n';
  } else if (a.resume) {
    std::cerr << "no " << a.output << " yet: starting a new run\n";
  }
  return resume;
}

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
            << t.scanning << " s, opening windows " << t.opening << " s\n";
}

int lead_sieve(const SieveArgs& given, ClusterRun& cluster) {
  SieveArgs a = given;
  a.output = output_file(a.output);
  // Of two runs on one output started together, one claims it; the other
  // stops here, before it looks at any file.
  std::optional<RunClaim> claim;
  if (!a.dry_run) claim.emplace(a.output);
  std::error_code ec;
  const bool output_exists = std::filesystem::exists(std::filesystem::symlink_status(a.output, ec));
  check_arguments(a, output_exists);
  const std::string store_path = store_path_for(a.output);
  refuse_files_in_use({a.output, a.output + ".partial", store_path},
                      "let it finish, or stop it (SIGINT or SIGTERM) and then resume");

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

  const int threads = a.threads > 0 ? a.threads : tbb::info::default_concurrency();
  const Budget budget = decide_budget(a.memory_limit);
  SieveOptions options;
  options.threads = threads;
  options.memory_budget = budget.sieve;
  if (a.slices > 0) options.min_slices = a.slices, options.slice_from = a.slice_from;
  if (a.processes > 0 && !a.dry_run)
    throw UsageError("--processes " + std::to_string(a.processes) + " only plans (with --dry-run): an MPI run "
                     "takes its process count from mpirun or srun");
  const int processes = a.processes > 0 ? a.processes : cluster.processes();
  const MemoryPlan plan = plan_or_refuse(max_tiles, options, budget, processes);
  const DiskPlan disk = plan_disk(max_tiles);
  const std::uint64_t free_disk = free_bytes_beside(a.output);
  if (a.dry_run) {
    print_plan(std::cout, max_tiles, plan, disk, budget, free_disk, processes);
    print_time_estimate(std::cout, max_tiles, plan, threads, processes);
  } else {
    print_plan_line(max_tiles, plan, disk, budget, free_disk, cluster.processes());
  }
  // The disk: what the store will hold beyond what it holds now.
  std::uint64_t held = 0;
  if (resume) {
    held = std::filesystem::file_size(resume->state().store_path, ec);
    if (ec) held = 0;
  }
  check_disk(disk, held, free_disk, a.output);
  if (a.dry_run) return 0;

  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  const StopSignals stop_signals;
  SieveRun run(SieveRunRequest{a.output, store_path, max_tiles, store_losing, options, cluster.processes(),
                               command_line()},
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
    progress.start(sieve.levels_done() + 1, [&] { return sieve.window_levels(); },
                   [&] { return sieve.marks_applied(); });
    if (!a.quiet)
      std::printf("%6s %16s %14s %10s %10s %10s\n", "tiles", "positions", "losing", "%losing", "ratio",
                  "seconds");
    run.run([&](const LevelResult& r) { progress.row(r); },
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
                << " (status \"interrupted\")\n";
    }
    std::cerr << "chomp: to continue: " << resume_command(a, a.output, max_tiles, store_losing) << '\n';
    return StopSignals::exit_code();
  } catch (const std::exception& e) {
    progress.clear();
    if (!run.failed(e)) throw;
    if (run.rows() == 0 || dynamic_cast<const std::bad_alloc*>(&e)) throw;
    const bool disk_full = dynamic_cast<const StoreFull*>(&e) != nullptr;
    throw std::runtime_error(std::string(e.what()) + "\nchomp: levels 1.." + std::to_string(run.rows()) +
                             " are saved in " + a.output + (disk_full ? " (status \"interrupted\")" : "") +
                             "; once the problem is fixed" + (disk_full ? " (free space on its disk)" : "") +
                             ", continue with: " + resume_command(a, a.output, max_tiles, store_losing));
  }
  run.finish();
  print_summary(run, a.output, max_tiles, threads);
  return 0;
}

/// A process other than the leader of an MPI run: takes its share of the
/// leader's run and stops with the others on SIGINT or SIGTERM.
int follow_sieve(const SieveArgs& a, ClusterRun& cluster) {
  const StopSignals stop_signals;
  try {
    return cluster.follow(a.threads, StopSignals::flag());
  } catch (const SieveInterrupted&) {
    return StopSignals::exit_code();
  }
}

/// `chomp sieve --dimensions 3`: the 3D sieve (sieve3d.hpp), level by
/// level into the same /levels table as 2D, with root attribute
/// dimensions = 3. It keeps its losing positions in memory only, so it
/// does not resume: it refuses --resume (and the store's options) before
/// anything is written, and a stopped run leaves a file whose status says
/// "interrupted" (complete = 0) with the levels it finished.
int lead_sieve3d(const SieveArgs& a, ClusterRun& cluster) {
  if (a.resume)
    throw UsageError("--resume is not supported with --dimensions 3: the 3D sieve keeps its losing positions "
                     "in memory, not in a store, so a stopped 3D run is started over (--force)");
  for (const CLI::Option* o : a.not_in_3d)
    if (o->count())
      throw UsageError(o->get_name() + " is not supported with --dimensions 3 (it belongs to the 2D store, "
                       "windows and memory plan; the 3D sieve holds only its sets of losing positions)");
  if (a.max_tiles > kMaxCubes)
    throw UsageError("--max-tiles " + std::to_string(a.max_tiles) + " with --dimensions 3: at most " +
                     std::to_string(kMaxCubes) + " cubes (a 3D position's key holds 3 bits a cube in 192 bits)");
  if (cluster.processes() > 1) throw UsageError("--dimensions 3 runs as one process, not under mpirun or srun");
  std::error_code ec;
  const bool output_exists = std::filesystem::exists(std::filesystem::symlink_status(a.output, ec));
  check_arguments(a, output_exists);
  refuse_files_in_use({a.output, a.output + ".partial"}, "let it finish or stop it");

  const int threads = a.threads > 0 ? a.threads : tbb::info::default_concurrency();
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  const StopSignals stop_signals;

  Provenance prov;
  prov.command_line = command_line();
  prov.start_utc = utc_now();
  prov.max_tiles = a.max_tiles;
  prov.threads = threads;
  prov.processes = 1;
  prov.dimensions = 3;
  Sieve3d sieve(a.max_tiles);
  sieve.set_stop_flag(StopSignals::flag());

  // Made as FILE.partial and renamed once its datasets exist, as in 2D:
  // a kill leaves a readable FILE with status "running", or none.
  const std::string partial = a.output + ".partial";
  std::optional<LevelFileWriter> out;
  out.emplace(partial, prov);
  const RunLock lock(partial);
  out->rename_to(a.output);

  std::mutex line_mutex;
  StatusLine line;
  auto show_progress = [&](int n, double fraction) {
    const std::lock_guard guard(line_mutex);
    if (line.elapsed() < 3.0) return;
    char text[96];
    std::snprintf(text, sizeof text, "level %d/%d \u00b7 %3.0f%% \u00b7 %s elapsed", n, a.max_tiles, 100 * fraction,
                  clock_text(line.elapsed()).c_str());
    line.show(text);
  };
  if (!a.quiet)
    std::printf("%6s %16s %14s %10s %10s %10s\n", "cubes", "positions", "losing", "%losing", "ratio", "seconds");
  double total = 0;
  try {
    while (sieve.levels_done() < a.max_tiles) {
      const LevelResult r = sieve.next_level(show_progress);
      total += r.seconds;
      out->append(r);
      if (!a.quiet) {
        const std::lock_guard guard(line_mutex);
        line.clear();
        std::printf("%6d %16llu %14llu %10.4f %10.6f %10.3f\n", r.tiles, static_cast<unsigned long long>(r.positions),
                    static_cast<unsigned long long>(r.losing), 100 * r.losing_fraction(), r.hypothesis_ratio(),
                    r.seconds);
        std::fflush(stdout);
      }
    }
  } catch (const SieveInterrupted&) {
    line.clear();
    out->finish("interrupted");
    const int done = sieve.levels_done();
    std::cerr << "chomp: stopped by " << StopSignals::name() << " during level " << done + 1 << "; "
              << (done > 0 ? "levels 1.." + std::to_string(done) + " are saved in " + a.output
                           : "no level was finished; " + a.output + " holds none")
              << " (status \"interrupted\"); a 3D run does not resume: start it over with --force\n";
    return StopSignals::exit_code();
  } catch (const std::exception&) {
    line.clear();
    try {
      out->finish("failed");
    } catch (...) {
      // The file keeps status "running" and complete = 0.
    }
    throw;
  }
  out->finish("complete");
  std::cerr << "wrote " << a.output << " (3D levels 1.." << a.max_tiles << ", " << threads_text(threads) << ", "
            << seconds_text(total) << " s; losing sets " << human_bytes(static_cast<double>(sieve.bytes()))
            << " in memory)\n";
  return 0;
}

int run_sieve(const SieveArgs& a) {
  ClusterRun cluster;  // the processes of an MPI job, when mpirun or srun started this one
  if (a.dimensions == 3) return cluster.guard([&] { return cluster.leader() ? lead_sieve3d(a, cluster) : 0; });
  return cluster.guard([&] { return cluster.leader() ? lead_sieve(a, cluster) : follow_sieve(a, cluster); });
}

const RegisterCommand reg(10, "sieve", "Classify every position up to --max-tiles tiles; write the per-level table to HDF5",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<SieveArgs>();
  a->max_tiles_option =
      sub.add_option("-n,--max-tiles", a->max_tiles, "Largest tile count (level) to classify")
          ->transform(whole_number(1, kMaxTiles,
                               " (a position is stored as a lattice path of at most 256 steps, rows "
                               "plus columns, which holds every position of up to 255 tiles)"))
          ->capture_default_str();
  sub.add_option("-o,--output", a->output, "HDF5 file for the per-level table")
      ->check(output_file_name())
      ->capture_default_str();
  sub.add_option("-t,--threads", a->threads, "Worker threads (default: all cores)")
      ->transform(whole_number(1, 4096));
  sub.add_flag("-f,--force", a->force, "Overwrite the output file if it exists (start over)");
  sub.add_flag("-r,--resume", a->resume,
               "Continue the run in the output file (after a kill or a stop); starts one if there is "
               "none. A larger --max-tiles extends a finished run");
  a->store_losing_option =
      sub.add_option("--store-losing", a->store_losing,
                     "Also store the losing positions of levels 1..K in the file (K <= 63)")
          ->transform(whole_number(0, 63, " (stored positions are 64-bit lattice paths, which hold every "
                                      "position of up to 63 tiles)"));
  sub.add_option("--memory-limit", a->memory_limit,
                 "Memory the run fits itself into (e.g. 64M, 20G; powers of 1024): it chooses its windows, "
                 "slices and buffers to fit, and refuses only when not even the smallest slice fits "
                 "(default: nine tenths of the available memory)")
      ->check(byte_size());
  sub.add_option("--slices", a->slices,
                 "Finish every level from --slice-from on in a window of its own, cut into at least K slices "
                 "whatever the budget (for measuring what slices cost; 1: whole, one level a window)")
      ->transform(whole_number(1, 64));
  sub.add_option("--slice-from", a->slice_from, "First level that --slices cuts")->transform(whole_number(1, kMaxTiles));
  sub.add_flag("--dry-run", a->dry_run, "Print the memory and disk plan on stdout, check it, and exit");
  sub.add_option("--processes", a->processes,
                 "With --dry-run: plan for K MPI processes, the memory per process (an MPI run takes its count "
                 "from mpirun)")
      ->transform(whole_number(1, 1 << 20));
  sub.add_flag("-q,--quiet", a->quiet, "Do not print the per-level table");
  sub.add_option("--dimensions", a->dimensions,
                 "2: Chomp on a board of tiles (the default); 3: Chomp with cubes, every 3D position (plane "
                 "partition) up to --max-tiles cubes (at most 63), in the same table with root attribute "
                 "dimensions = 3; without --resume, --store-losing, --memory-limit, --slices, --dry-run or "
                 "--processes")
      ->check(whole_number(2, 3, " (the divisor game of more primes is not built yet)"));
  for (const char* name : {"--store-losing", "--memory-limit", "--slices", "--slice-from", "--dry-run", "--processes"})
    a->not_in_3d.push_back(sub.get_option(name));
  return [a] { return run_sieve(*a); };
});

}  // namespace
}  // namespace chomp::app
