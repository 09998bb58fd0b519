/// @file cmd_sieve.cpp
/// @brief `chomp sieve`: the level-by-level table of losing positions, made
/// for batch runs: --resume after a kill, clean stops on SIGINT and SIGTERM,
/// no silent overwrite, and a memory guard before anything is allocated.

#include <signal.h>
#include <sys/resource.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <future>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>

#include "build_info.hpp"
#include "chomp/h5_output.hpp"
#include "chomp/resume.hpp"
#include "chomp/sieve.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"
#include "sieve_cluster.hpp"
#include "status_line.hpp"

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
  // Whether the user gave them: a resumed run otherwise takes the file's.
  const CLI::Option* max_tiles_option = nullptr;
  const CLI::Option* store_losing_option = nullptr;
};

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", b, units[u]);
  return buf;
}

/// Memory this process may still use, in bytes, and what bounds it; 0 if
/// unknown. The least of MemAvailable, the room left under a cgroup v2
/// limit (batch schedulers and containers set one), and ulimit -v.
std::pair<std::uint64_t, std::string> available_memory() {
  std::uint64_t best = 0;
  std::string source;
  auto consider = [&](std::uint64_t bytes, const char* what) {
    if (bytes > 0 && (best == 0 || bytes < best)) best = bytes, source = what;
  };
  {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    std::uint64_t kb = 0;
    while (in >> key >> kb >> unit)
      if (key == "MemAvailable:") consider(kb * 1024, "available (MemAvailable)");
  }
  {
    std::ifstream max_in("/sys/fs/cgroup/memory.max"), cur_in("/sys/fs/cgroup/memory.current");
    std::uint64_t max = 0, cur = 0;
    if (max_in >> max && cur_in >> cur) consider(max > cur ? max - cur : 1, "left under the cgroup memory.max");
  }
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    consider(static_cast<std::uint64_t>(as.rlim_cur), "allowed by ulimit -v");
  return {best, source};
}

// Set by SIGINT / SIGTERM; the sieve polls the flag and stops the level in
// progress. Lock-free atomics are safe to store to from a signal handler.
std::atomic<bool> g_stop{false};
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

extern "C" void on_stop_signal(int sig) {
  g_stop_signal.store(sig);
  g_stop.store(true);
}

/// Installs the stop handlers for the scope of a run. SA_RESETHAND: a
/// second Ctrl-C kills at once, for a user who will not wait.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

const char* signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal"; }

/// The command that continues the run in `output`.
/// An advisory lock on the file a run writes, so that a second chomp on the
/// same --output (a batch job submitted twice, a requeue while the first
/// still runs) refuses instead of replacing the file under it. It is an
/// open-file-description lock (F_OFD_SETLK): HDF5's own flock locks, and
/// readers of the running file, are not affected, and closing other
/// descriptors of the file does not drop it. The lock moves with the file
/// when FILE.partial is renamed to FILE.
class RunLock {
 public:
  /// True when another process holds the lock on path.
  static bool held_elsewhere(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    const bool held = fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
    close(fd);
    return held;
  }
  explicit RunLock(const std::string& path) : fd_(open(path.c_str(), O_RDWR | O_CLOEXEC)) {
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fd_ < 0 || fcntl(fd_, F_OFD_SETLK, &fl) != 0)
      throw std::runtime_error("another chomp is writing " + path + " (a second run on the same --output?)");
  }
  ~RunLock() {
    if (fd_ >= 0) close(fd_);
  }
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_;
};

std::string resume_command(const std::string& output) {
  return shell_quote(program_path()) + " sieve --output " + shell_quote(output) + " --resume";
}

/// The level being computed and how far it is, with its time so far, and
/// the table's rows, which the writer thread prints once a level is saved:
/// one lock keeps the two from interleaving.
class ProgressLine {
 public:
  void update(int tiles, double fraction) {
    const std::lock_guard lock(mutex_);
    if (tiles != tiles_) tiles_ = tiles, level_start_ = line_.elapsed();
    char text[96];
    std::snprintf(text, sizeof text, "level %d: %3.0f%%, %.0f s", tiles, 100 * fraction,
                  line_.elapsed() - level_start_);
    line_.show(text);
  }
  /// Resuming: level n of the file's `levels` is being copied.
  void restoring(int n, int levels) {
    const std::lock_guard lock(mutex_);
    char text[96];
    std::snprintf(text, sizeof text, "restoring level %d of %d, %.0f s", n, levels, line_.elapsed());
    line_.show(text);
  }
  void clear() {
    const std::lock_guard lock(mutex_);
    line_.clear();
  }
  /// Prints a finished level's row of the table on stdout.
  void row(const LevelResult& r) {
    const std::lock_guard lock(mutex_);
    line_.clear();
    std::printf("%6d %16llu %14llu %10.4f %10.6f %10.3f\n", r.tiles, static_cast<unsigned long long>(r.positions),
                static_cast<unsigned long long>(r.losing), 100 * r.losing_fraction(), r.hypothesis_ratio(),
                r.seconds);
    std::fflush(stdout);
  }

 private:
  std::mutex mutex_;
  StatusLine line_;
  int tiles_ = 0;
  double level_start_ = 0;
};

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

/// Refuses (usage error, exit 2) a run whose memory plan exceeds
/// --memory-limit or what the machine has left, naming the numbers;
/// otherwise prints the plan.
void check_memory(int max_tiles, const SieveArgs& a, int processes = 1) {
  const MemoryPlan plan = plan_memory(max_tiles, processes);
  const auto [avail, avail_source] = available_memory();
  const std::string needs = "--max-tiles " + std::to_string(max_tiles) + " needs about " +
                            human_bytes(plan.total()) + " (bitmap " + human_bytes(plan.bitmap_bytes) +
                            ", losing store " + human_bytes(plan.store_bytes) + ", mark buckets " +
                            human_bytes(plan.bucket_bytes) + ", scan buffer " + human_bytes(plan.scan_bytes) + ")";
  if (!a.memory_limit.empty()) {
    std::string why;
    const std::uint64_t limit = parse_byte_size(a.memory_limit, why).value_or(0);
    if (plan.total() > limit)
      throw UsageError(needs + " but --memory-limit is " + human_bytes(limit) +
                       "; choose a smaller --max-tiles or a larger limit");
  }
  if (avail && plan.total() > avail)
    throw UsageError(needs + " but only " + human_bytes(avail) + " is " + avail_source +
                     "; choose a smaller --max-tiles");
  std::cerr << "plan: max level p(" << max_tiles << ") bitmap " << human_bytes(plan.bitmap_bytes)
            << ", losing store ~" << human_bytes(plan.store_bytes) << ", mark buckets ~"
            << human_bytes(plan.bucket_bytes) << ", scan buffer " << human_bytes(plan.scan_bytes) << "; total ~" << human_bytes(plan.total());
  if (processes > 1) std::cerr << " per process (" << processes << " MPI processes)";
  if (avail) std::cerr << " of " << human_bytes(avail) << " " << avail_source;
  std::cerr << '\n';
}

/// A resumed run first copies the file's finished levels into FILE.partial
/// (a 150-level file with its resume data is 7.2 GB): refuse before any
/// work when the file's folder has less room than the file takes now, which
/// the copy needs at least (new levels add to it), rather than fail on a
/// full disk after restoring for minutes.
void check_disk_for_resume(const std::string& output) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(output, ec);
  if (ec) return;
  const std::filesystem::path folder = std::filesystem::absolute(output, ec).parent_path();
  if (ec) return;
  const std::filesystem::space_info room = std::filesystem::space(folder, ec);
  if (ec || room.available >= size) return;
  throw UsageError("resuming copies the finished levels of " + output + " (" + human_bytes(size) + ") into " +
                   output + ".partial first, but only " + human_bytes(room.available) + " is free on " +
                   folder.string() + "; free some space there, or move the file to a larger disk and resume it "
                   "there");
}

/// "1 thread", "2 threads".
std::string threads_text(int n) { return std::to_string(n) + (n == 1 ? " thread" : " threads"); }

/// Seconds with two decimals.
std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  return buf;
}

int lead_sieve(const SieveArgs& a, ClusterRun& cluster) {
  std::error_code ec;
  const bool output_exists = std::filesystem::exists(std::filesystem::symlink_status(a.output, ec));
  check_arguments(a, output_exists);
  for (const std::string& path : {a.output, a.output + ".partial"})
    if (RunLock::held_elsewhere(path))
      throw std::runtime_error(path + " is being written by another chomp process; let it finish, or stop "
                               "it (SIGINT or SIGTERM) and then resume");

  std::optional<Resume> resume;
  int max_tiles = a.max_tiles;
  int store_losing = a.store_losing;
  if (a.resume && output_exists) {
    ResumeRequest request;
    request.path = a.output;
    request.max_tiles = a.max_tiles_option->count() ? a.max_tiles : 0;
    request.store_losing = a.store_losing_option->count() ? a.store_losing : -1;
    try {
      resume.emplace(request);
    } catch (const ResumeMismatch& e) {
      throw UsageError(e.what());
    }
    const ResumeState& st = resume->state();
    for (const std::string& note : st.notes) std::cerr << "note: " << note << '\n';
    if (st.complete && st.max_tiles == st.file_max_tiles) {
      std::cerr << a.output << " is complete (levels 1.." << st.file_max_tiles
                << "); nothing to resume. A larger --max-tiles extends it.\n";
      return 0;
    }
    max_tiles = st.max_tiles;
    store_losing = st.store_losing;
  } else if (a.resume) {
    std::cerr << "no " << a.output << " yet: starting a new run\n";
  }
  if (store_losing > max_tiles)
    throw UsageError("--store-losing " + std::to_string(store_losing) + " exceeds --max-tiles " +
                     std::to_string(max_tiles));
  check_memory(max_tiles, a, cluster.processes());
  if (resume) check_disk_for_resume(a.output);
  if (a.dry_run) return 0;

  const int threads = a.threads > 0 ? a.threads : tbb::info::default_concurrency();
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  g_stop.store(false);
  const StopSignals stop_signals;

  Provenance prov;
  if (resume) {
    prov = resume->state().provenance;
    if (!prov.resume_history.empty()) prov.resume_history += '\n';
    // The resuming program may be another build: its revision goes with it.
    prov.resume_history += utc_now() + ": restored levels 1.." + std::to_string(resume->state().levels) +
                           " with " + threads_text(threads) + " (chomp " + build::kVersion + ", revision " +
                           build::kGitRevision + "): " + command_line();
  } else {
    prov.command_line = command_line();
    prov.start_utc = utc_now();
    prov.max_tiles = max_tiles;
    prov.store_losing = store_losing;
  }
  prov.threads = threads;
  // Written with the rest of the provenance: every attribute is in place
  // before SWMR writing starts, so the file is never reopened without it.
  prov.processes = cluster.processes();
  // The file is made as FILE.partial and renamed to FILE once it is whole:
  // for a new run once its empty datasets are made (a kill while HDF5 builds
  // them would leave a file it cannot open), for a resumed run once the
  // trusted levels are copied in. A kill at any point leaves a readable
  // FILE, or none, and nothing writes into a file whose writer was killed.
  const std::string partial = a.output + ".partial";
  std::optional<LevelFileWriter> out;
  out.emplace(partial, prov);
  const RunLock lock(partial);
  if (!resume) out->rename_to(a.output);

  cluster.start(max_tiles, resume ? resume->state().levels : 0);
  Sieve sieve(max_tiles, cluster.group());
  sieve.set_stop_flag(&g_stop);
  ProgressLine progress;
  auto show_progress = [&](int tiles, double fraction) { progress.update(tiles, fraction); };
  double total = 0;
  // Level n is written (its losing ranks compressed into the file, seconds
  // at the largest levels) on a thread of its own while level n + 1 is
  // computed; level n + 1 is written only after it. A level counts as saved
  // once its write has returned, as before.
  std::future<void> writing;
  // Waits for the write in flight; a failed write throws here.
  auto wait_for_writing = [&writing] {
    if (writing.valid()) writing.get();
  };
  // The same, on an error path: the failure is returned, not thrown.
  auto settle_writing = [&]() -> std::exception_ptr {
    try {
      wait_for_writing();
      return nullptr;
    } catch (...) {
      return std::current_exception();
    }
  };
  // A resumed run: levels restored from the file, and the wall time that
  // took (reading, checking, copying, and the last level computed again).
  int restored = 0;
  double restoring = 0;
  try {
    if (resume) {
      const auto start = std::chrono::steady_clock::now();
      const int levels = resume->state().levels;
      resume->restore(sieve, *out, show_progress, [&](int n) { progress.restoring(n, levels); });
      progress.clear();
      out->rename_to(a.output);
      restored = resume->state().levels;
      restoring = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      resume.reset();
      std::cerr << "resumed " << a.output << ": ";
      if (restored > 0)
        std::cerr << "levels 1.." << restored << " restored in " << seconds_text(restoring) << " s (level "
                  << restored << " computed again and checked)";
      else
        std::cerr << "no finished level to restore";
      std::cerr << "; continuing to level " << max_tiles << " with " << threads_text(threads) << '\n';
    }
    if (!a.quiet)
      std::printf("%6s %16s %14s %10s %10s %10s\n", "tiles", "positions", "losing", "%losing", "ratio",
                  "seconds");
    sieve.run(
        [&](const LevelResult& r) {
          wait_for_writing();  // a failed write stops the run here
          total += r.seconds;
          // A level's row is printed once it is saved: a printed level survives a kill.
          writing = std::async(std::launch::async, [&out, &sieve, &progress, quiet = a.quiet, r] {
            save_level(*out, sieve, r);
            if (!quiet) progress.row(r);
          });
        },
        show_progress);
    wait_for_writing();
  } catch (const SieveInterrupted&) {
    progress.clear();
    if (const std::exception_ptr failed = settle_writing()) {
      // The last level's write failed as the run was stopped: report that.
      out->abandon();
      std::rethrow_exception(failed);
    }
    const int sig = g_stop_signal.load();
    if (out->path() == partial) {
      // Stopped while checking the old file: it is untouched.
      out.reset();
      std::filesystem::remove(partial, ec);
      std::cerr << "chomp: stopped by " << signal_name(sig) << " before resuming; " << a.output
                << " is unchanged\n";
    } else {
      out->finish("interrupted");
      std::cerr << "chomp: stopped by " << signal_name(sig) << " during level " << sieve.levels_done() + 1
                << "; levels 1.." << sieve.levels_done() << " are saved in " << a.output
                << " (status \"interrupted\")\n";
    }
    std::cerr << "chomp: to continue: " << resume_command(a.output) << '\n';
    return 128 + (sig > 0 ? sig : SIGINT);
  } catch (const std::exception& e) {
    progress.clear();
    const bool write_failed = settle_writing() != nullptr || dynamic_cast<const H5Error*>(&e) != nullptr;
    if (out->path() == partial) {
      out.reset();
      std::filesystem::remove(partial, ec);
      throw;
    }
    if (write_failed) {
      // A write failed: closing would write HDF5's superblock over the
      // failed writes; leave the file as a kill would (status "running").
      out->abandon();
    } else {
      try {
        out->finish("failed");
      } catch (...) {
        // The file keeps status "running"; its finished levels stay readable.
      }
    }
    if (out->rows() == 0 || dynamic_cast<const std::bad_alloc*>(&e)) throw;
    throw std::runtime_error(std::string(e.what()) + "\nchomp: levels 1.." + std::to_string(out->rows()) +
                             " are saved in " + a.output + "; once the problem is fixed, continue with: " +
                             resume_command(a.output));
  }
  out->finish("complete");
  // `total` is the levels this run computed; a resumed run also says what
  // restoring the others took, which may be most of its wall time.
  std::cerr << "wrote " << a.output << " (levels 1.." << max_tiles << ", " << threads_text(threads) << ", ";
  if (restored == 0)
    std::cerr << seconds_text(total) << " s";
  else if (restored < max_tiles)
    std::cerr << seconds_text(total) << " s for "
              << (restored + 1 == max_tiles ? "level " : "levels " + std::to_string(restored + 1) + "..")
              << max_tiles << " after " << seconds_text(restoring) << " s restoring levels 1.." << restored;
  else
    std::cerr << seconds_text(restoring) << " s restoring them";
  std::cerr << ")\n";
  const PhaseTimes t = sieve.phase_times();
  std::cerr << std::fixed << std::setprecision(2) << "time by phase: filing marks " << t.filing
            << " s, applying them " << t.applying << " s, transposes " << t.transposes << " s, scanning levels "
            << t.scanning << " s, opening windows " << t.opening << " s\n";
  return 0;
}

/// A process other than the leader of an MPI run: takes its share of the
/// leader's run and stops with the others on SIGINT or SIGTERM.
int follow_sieve(const SieveArgs& a, ClusterRun& cluster) {
  g_stop.store(false);
  const StopSignals stop_signals;
  try {
    return cluster.follow(a.threads, &g_stop);
  } catch (const SieveInterrupted&) {
    const int sig = g_stop_signal.load();
    return 128 + (sig > 0 ? sig : SIGINT);
  }
}

int run_sieve(const SieveArgs& a) {
  ClusterRun cluster;  // the processes of an MPI job, when mpirun or srun started this one
  return cluster.guard([&] { return cluster.leader() ? lead_sieve(a, cluster) : follow_sieve(a, cluster); });
}

const RegisterCommand reg(10, "sieve", "Classify every position up to --max-tiles tiles; write the per-level table to HDF5",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<SieveArgs>();
  a->max_tiles_option =
      sub.add_option("-n,--max-tiles", a->max_tiles, "Largest tile count (level) to classify")
          ->check(whole_number(1, kMaxTiles,
                               " (a position is stored as a lattice path of at most 256 steps, rows "
                               "plus columns, which holds every position of up to 255 tiles)"))
          ->capture_default_str();
  sub.add_option("-o,--output", a->output, "HDF5 file for the per-level table")
      ->check(output_file_name())
      ->capture_default_str();
  sub.add_option("-t,--threads", a->threads, "Worker threads (default: all cores)")
      ->check(whole_number(1, 4096));
  sub.add_flag("-f,--force", a->force, "Overwrite the output file if it exists (start over)");
  sub.add_flag("-r,--resume", a->resume,
               "Continue the run in the output file (after a kill or a stop); starts one if there is "
               "none. A larger --max-tiles extends a finished run");
  a->store_losing_option =
      sub.add_option("--store-losing", a->store_losing,
                     "Also store the losing positions of levels 1..K in the file (K <= 63)")
          ->check(whole_number(0, 63, " (stored positions are 64-bit lattice paths, which hold every "
                                      "position of up to 63 tiles)"));
  sub.add_option("--memory-limit", a->memory_limit,
                 "Refuse to start if the memory plan exceeds SIZE (e.g. 512M, 20G; powers of 1024)")
      ->check(byte_size());
  sub.add_flag("--dry-run", a->dry_run, "Print the memory plan, check it, and exit");
  sub.add_flag("-q,--quiet", a->quiet, "Do not print the per-level table");
  return [a] { return run_sieve(*a); };
});

}  // namespace
}  // namespace chomp::app
