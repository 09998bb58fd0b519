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
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <deque>
#include <functional>
#include <optional>
#include <vector>
#include <sstream>

#include "build_info.hpp"
#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/resume.hpp"
#include "chomp/sieve.hpp"
#include "chomp/sieve3d.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"
#include "run_claim.hpp"
#include "sieve_cluster.hpp"
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
    // O_NONBLOCK: a FIFO in the place of a file must not block the open.
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return false;
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    const bool held = fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
    close(fd);
    return held;
  }
  explicit RunLock(const std::string& path) : fd_(open(path.c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK)) {
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

/// "1:02:03", "4:05" or "37 s".
std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld s", s);
  return buf;
}

/// The work model of the ETA and of --dry-run's estimate: the marks into
/// level k are about r(k) p(k), with r(k) = r0 + kRatioGrowth (k - k0) from
/// a level k0 whose r0 was measured (data/levels-153.csv: 1.64 at n = 40,
/// 1.98 at 100, 2.15 at 150), and a pass costs about its marks.
constexpr double kRatioGrowth = 0.0032;
constexpr double kRatioAt100 = 1.98;

double model_marks(const PartitionTable& table, int k, double r0 = kRatioAt100, int k0 = 100) {
  return std::max(1.0, r0 + kRatioGrowth * (k - k0)) * static_cast<double>(table.positions(k));
}

/// The level being computed and how far it is, with the time so far and
/// the ETA of the level and of the run, and the table's rows, which are
/// printed once a level is saved: one lock keeps the two from interleaving.
///
/// The ETA comes from a work model in marks, not a count of levels: the
/// marks into level k are about r(k) p(k), r growing slowly and steadily
/// (1.64 at n = 40, 1.98 at 100, 2.15 at 150: kRatioGrowth a level), and a
/// pass costs about its marks whatever levels they go to, so a window's
/// long first passes, which mark many levels above the current one, count
/// for what they do. Work done is the marks applied so far (the sieve
/// counts them) plus the current pass's share of the last one's; the work
/// left is the model's marks of the unfinished levels less those they have
/// received already; the rate is marks per second over the last five
/// minutes (all of the run, early on). Runs shorter than a few seconds and
/// quiet runs print nothing.
class ProgressLine {
 public:
  ProgressLine(const PartitionTable& table, int max_tiles, bool quiet)
      : table_(table), max_(max_tiles), quiet_(quiet) {}
  /// The sieve starts (after a resumed run's checks) at level `first`;
  /// window() gives the levels held in memory, shown beside the level in
  /// progress, and marks() the marks the sieve has applied.
  void start(int first, std::function<std::pair<int, int>()> window, std::function<std::uint64_t()> marks) {
    const std::lock_guard lock(mutex_);
    window_ = std::move(window);
    marks_ = std::move(marks);
    finished_ = first - 1;
    tiles_ = 0;
    samples_.clear();
    started_ = line_.elapsed();
  }
  void update(int tiles, double fraction) {
    const std::lock_guard lock(mutex_);
    if (quiet_ || !marks_) return;
    const double now = line_.elapsed();
    const double applied = static_cast<double>(marks_());
    if (tiles != tiles_) {
      // A new level: its passes are estimated from the last level's.
      if (tiles_ != 0) last_level_marks_ = applied - level_start_marks_;
      tiles_ = tiles, level_start_marks_ = applied, level_started_ = now;
    }
    const double in_pass = applied - level_start_marks_;
    const double estimate = std::max(in_pass, fraction * last_level_marks_);
    const double done = level_start_marks_ + estimate;
    if (samples_.empty() || now - samples_.back().first >= 1.0) samples_.push_back({now, done});
    while (samples_.size() > 2 && now - samples_[1].first > kRateSeconds) samples_.pop_front();
    if (now - started_ < kQuietSeconds) return;
    const auto& [t0, w0] = samples_.front();
    const double rate = now > t0 && done > w0 ? (done - w0) / (now - t0) : 0;
    std::string text = "level " + std::to_string(tiles) + "/" + std::to_string(max_);
    char pct[16];
    std::snprintf(pct, sizeof pct, "%3.0f%%", 100 * fraction);
    text += " \u00b7 " + std::string(pct) + " \u00b7 " + clock_text(now - started_) + " elapsed";
    if (const auto [n0, n1] = window_ ? window_() : std::pair<int, int>{tiles, tiles}; n1 > n0)
      text += " \u00b7 window " + std::to_string(n0) + ".." + std::to_string(n1);
    if (rate > 0 && samples_.size() > 1) {
      // Marks the unfinished levels will have received in all.
      double expected = 0;
      for (int k = finished_ + 1; k <= max_; ++k) expected += model_marks(table_, k, ratio_, ratio_level_);
      const double received = done - finished_marks_;  // by the unfinished levels
      const double left = std::max(0.0, expected - received);
      const double level_left = fraction > 0.02 ? (now - level_started_) * (1 - fraction) / fraction : -1;
      text += " \u00b7 ETA ";
      if (level_left >= 0) text += "level " + clock_text(level_left) + ", ";
      text += "run " + clock_text(left / rate);
    }
    line_.show(text);
  }
  /// Resuming: level n of the file's `levels` is being checked.
  void restoring(int n, int levels) {
    const std::lock_guard lock(mutex_);
    if (quiet_) return;
    char text[96];
    std::snprintf(text, sizeof text, "checking level %d of %d, %s", n, levels, clock_text(line_.elapsed()).c_str());
    line_.show(text);
  }
  void clear() {
    const std::lock_guard lock(mutex_);
    line_.clear();
  }
  /// A level is saved: prints its row of the table on stdout (unless quiet)
  /// and counts its marks as done.
  void row(const LevelResult& r) {
    const std::lock_guard lock(mutex_);
    finished_ = r.tiles;
    finished_marks_ += static_cast<double>(r.marks);
    if (r.positions >= 1000) {
      ratio_ = static_cast<double>(r.marks) / static_cast<double>(r.positions);
      ratio_level_ = r.tiles;
    }
    if (quiet_) return;
    line_.clear();
    std::printf("%6d %16llu %14llu %10.4f %10.6f %10.3f\n", r.tiles, static_cast<unsigned long long>(r.positions),
                static_cast<unsigned long long>(r.losing), 100 * r.losing_fraction(), r.hypothesis_ratio(),
                r.seconds + r.window_seconds);
    std::fflush(stdout);
  }

 private:
  /// Nothing is shown in a run's first seconds; the rate is measured over
  /// about the last five minutes.
  static constexpr double kQuietSeconds = 3.0;
  static constexpr double kRateSeconds = 300.0;
  std::mutex mutex_;
  StatusLine line_;
  const PartitionTable& table_;
  int max_;
  bool quiet_;
  int finished_ = 0;                 // the last level saved
  double finished_marks_ = 0;        // marks of the levels saved in this run
  double ratio_ = kRatioAt100;       // marks per position of the last level saved
  int ratio_level_ = 100;            //   (or the model's, until one is)
  int tiles_ = 0;                    // the level in progress
  double level_start_marks_ = 0, last_level_marks_ = 0, level_started_ = 0, started_ = 0;
  std::function<std::pair<int, int>()> window_;
  std::function<std::uint64_t()> marks_;
  std::deque<std::pair<double, double>> samples_;  // (seconds, marks done)
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

/// Bytes this process holds now (resident): the program, its libraries,
/// what it read so far. The budget is what a limit leaves beside them.
std::uint64_t resident_bytes() {
  std::ifstream in("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

/// What --memory-limit (or, without one, the machine's available memory)
/// leaves the sieve: less what the process holds now, less a margin.
struct Budget {
  std::uint64_t sieve = 0;   ///< for SieveOptions::memory_budget
  std::uint64_t limit = 0;   ///< the whole process's
  std::string source;        ///< where the limit comes from
};

/// Room kept beside the sieve's budget within a limit: the libraries'
/// buffers, the allocator's slack, the file writer.
constexpr std::uint64_t kMarginBytes = std::uint64_t{8} << 20;

Budget decide_budget(const SieveArgs& a) {
  Budget b;
  const auto [avail, avail_source] = available_memory();
  if (!a.memory_limit.empty()) {
    std::string why;
    b.limit = parse_byte_size(a.memory_limit, why).value_or(0);
    b.source = "--memory-limit";
    if (avail && b.limit > avail)
      std::cerr << "note: --memory-limit " << human_bytes(static_cast<double>(b.limit)) << " is more than the "
                << human_bytes(static_cast<double>(avail)) << " " << avail_source << "\n";
  } else if (avail) {
    // Without a limit: what the machine has, less a tenth for everything else.
    b.limit = avail - avail / 10;
    b.source = "nine tenths of the memory " + avail_source;
  } else {
    b.limit = std::uint64_t{4} << 30;
    b.source = "the default (available memory unknown)";
  }
  const std::uint64_t held = resident_bytes() + kMarginBytes;
  b.sieve = b.limit > held ? b.limit - held : 1;
  return b;
}

/// The plan for the run; a usage error (exit 2) when the budget cannot
/// hold it, naming the smallest limit that can.
MemoryPlan plan_or_refuse(int max_tiles, const SieveOptions& o, const Budget& b, int processes) {
  try {
    return plan_run(max_tiles, o, processes);
  } catch (const BudgetTooSmall& e) {
    const std::uint64_t smallest = e.smallest + (b.limit - b.sieve);
    throw UsageError("--max-tiles " + std::to_string(max_tiles) + " does not fit " + b.source + " (" +
                     human_bytes(static_cast<double>(b.limit)) + "): " + e.what() +
                     "; the smallest --memory-limit that works is " + human_bytes(static_cast<double>(smallest)) +
                     (processes > 1 ? " per process" : ""));
  }
}

void print_plan(std::ostream& out, int max_tiles, const MemoryPlan& plan, const DiskPlan& disk, const Budget& b,
                std::uint64_t free_disk, int processes) {
  out << "plan: levels 1.." << max_tiles << ", " << plan.threads << (plan.threads == 1 ? " thread" : " threads");
  if (processes > 1) out << ", " << processes << " MPI processes (memory per process)";
  out << "\n  memory: " << human_bytes(static_cast<double>(plan.total())) << " of a budget of "
      << human_bytes(static_cast<double>(b.sieve)) << " (" << b.source << ", "
      << human_bytes(static_cast<double>(b.limit)) << ", less what the program holds)\n"
      << "    bitmaps " << human_bytes(static_cast<double>(plan.bitmap_bytes)) << " (windows of up to "
      << human_bytes(static_cast<double>(plan.window_bits / 8)) << "), mark buckets "
      << human_bytes(static_cast<double>(plan.bucket_bytes)) << ", store index "
      << human_bytes(static_cast<double>(plan.index_bytes)) << ", buffers "
      << human_bytes(static_cast<double>(plan.buffer_bytes)) << "\n    ";
  if (plan.first_sliced)
    out << "levels from " << plan.first_sliced << " on in slices (up to " << plan.most_slices << " a level)\n";
  else
    out << "every level whole (no slices)\n";
  out << "  disk: store ~" << human_bytes(static_cast<double>(disk.store_bytes)) << ", result file ~"
      << human_bytes(static_cast<double>(disk.result_bytes));
  if (free_disk) out << "; " << human_bytes(static_cast<double>(free_disk)) << " free now";
  out << "\n";
}

/// The plan in one line on stderr, for a run.
void print_plan_line(int max_tiles, const MemoryPlan& plan, const DiskPlan& disk, const Budget& b,
                     std::uint64_t free_disk, int processes) {
  std::cerr << "plan: levels 1.." << max_tiles;
  if (processes > 1) std::cerr << ", " << processes << " MPI processes,";
  std::cerr << " in " << human_bytes(static_cast<double>(plan.total())) << " of memory"
            << (processes > 1 ? " per process" : "") << " (budget " << human_bytes(static_cast<double>(b.sieve))
            << "), store ~"
            << human_bytes(static_cast<double>(disk.store_bytes)) << " on disk";
  if (free_disk) std::cerr << " (" << human_bytes(static_cast<double>(free_disk)) << " free)";
  if (plan.first_sliced) std::cerr << "; levels from " << plan.first_sliced << " on in slices";
  std::cerr << '\n';
}

/// Free bytes on the file system of path's folder (0 if unknown).
std::uint64_t free_bytes_beside(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::absolute(path, ec).parent_path();
  if (ec) return 0;
  const std::filesystem::space_info room = std::filesystem::space(folder, ec);
  return ec ? 0 : static_cast<std::uint64_t>(room.available);
}

/// "1 thread", "2 threads".
std::string threads_text(int n) { return std::to_string(n) + (n == 1 ? " thread" : " threads"); }

/// Seconds with two decimals.
std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  return buf;
}

/// --dry-run's time: a calibration run (levels 1..kCalibrationTiles in
/// memory, a few seconds) measures marks per second on this machine with
/// these threads; the model's marks of levels 1..N at that rate, sliced
/// levels dearer by kSliceCost a slice beyond the first (measured at
/// N = 120: 2 slices 1.07x, 4 slices 1.35x).
void print_time_estimate(std::ostream& out, int max_tiles, const MemoryPlan& plan, int threads, int processes) {
  constexpr double kSliceCost = 0.11;
  const int kCalibrationTiles = std::min(84, max_tiles);
  SieveOptions o;
  o.threads = threads;
  const auto started = std::chrono::steady_clock::now();
  Sieve calibration(kCalibrationTiles, o);
  double marks = 0;
  calibration.run([&](const LevelResult& r) { marks += static_cast<double>(r.marks); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double rate = marks / std::max(seconds, 1e-3);
  const PartitionTable big(max_tiles);
  double work = 0;
  for (int k = 1; k <= max_tiles; ++k) {
    const double m = k <= kCalibrationTiles ? 0 : model_marks(big, k);
    const double slices = plan.first_sliced && k >= plan.first_sliced ? plan.most_slices : 1;
    work += m * (1 + kSliceCost * (slices - 1));
  }
  const double estimate = seconds + work / rate / std::max(1, processes);
  char rate_text[32];
  std::snprintf(rate_text, sizeof rate_text, "%.3g", rate);
  out << "  time: ~" << clock_text(estimate) << " on " << threads_text(threads)
      << (processes > 1 ? " a process, if processes scale perfectly" : "") << " (calibrated now: " << rate_text
      << " marks/s over levels 1.." << kCalibrationTiles << " in " << seconds_text(seconds)
      << " s; model: ~r(k) p(k) marks a level, r = " << kRatioAt100 << " at 100 + " << kRatioGrowth
      << " a level; a slice beyond the first adds " << static_cast<int>(kSliceCost * 100)
      << "%; other work on this machine slows it)\n";
}

int lead_sieve(const SieveArgs& given, ClusterRun& cluster) {
  std::error_code ec;
  SieveArgs a = given;
  // A symbolic link as --output: its target is the file, read and written
  // in place (a rename would replace the link with a file of its own).
  if (std::filesystem::is_symlink(a.output, ec)) {
    const std::filesystem::path target = std::filesystem::weakly_canonical(a.output, ec);
    if (ec || target.empty())
      throw UsageError("--output " + printable(a.output) + " is a symbolic link that cannot be followed");
    std::cerr << "note: --output " << printable(a.output, 200) << " is a symbolic link; its target "
              << printable(target.string(), 200) << " is the file written\n";
    a.output = target.string();
  }
  // Of two runs on one output started together, one claims it; the other
  // stops here, before it looks at any file.
  std::optional<RunClaim> claim;
  if (!a.dry_run) claim.emplace(a.output);
  const bool output_exists = std::filesystem::exists(std::filesystem::symlink_status(a.output, ec));
  check_arguments(a, output_exists);
  const std::string store_path = store_path_for(a.output);
  for (const std::string& path : {a.output, a.output + ".partial", store_path})
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

  const int threads = a.threads > 0 ? a.threads : tbb::info::default_concurrency();
  const Budget budget = decide_budget(a);
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
  }
  else
    print_plan_line(max_tiles, plan, disk, budget, free_disk, cluster.processes());
  // The disk: what the store will hold beyond what it holds now.
  std::uint64_t held = 0;
  if (resume) {
    held = std::filesystem::file_size(resume->state().store_path, ec);
    if (ec) held = 0;
  }
  const std::uint64_t needed = (disk.store_bytes > held ? disk.store_bytes - held : 0) + disk.result_bytes;
  if (free_disk && needed > free_disk)
    throw UsageError("the run needs about " + human_bytes(static_cast<double>(needed)) + " more on the disk of " +
                     a.output + " but only " + human_bytes(static_cast<double>(free_disk)) + " is free (" +
                     human_bytes(static_cast<double>(needed - free_disk)) +
                     " missing); free some space there, or choose a smaller --max-tiles or another --output");
  if (a.dry_run) return 0;

  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
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
    prov.run_id = new_run_id();
    prov.store_file = std::filesystem::path(store_path).filename().string();
  }
  prov.threads = threads;
  prov.memory_budget = budget.sieve;
  prov.processes = cluster.processes();

  // The store: a new run makes it, a resumed one continues it in place
  // (cut back to its last trusted level).
  std::unique_ptr<LosingStore> store;
  try {
    store = resume ? resume->open_store(true) : LosingStore::create(store_path, prov.run_id);
  } catch (const StoreError& e) {
    throw std::runtime_error(e.what());
  }
  const RunLock store_lock(store_path);
  // The result file is made as FILE.partial and renamed to FILE once it is
  // whole: for a new run once its empty datasets are made (a kill while
  // HDF5 builds them would leave a file it cannot open), for a resumed run
  // once the trusted levels are copied in. A kill at any point leaves a
  // readable FILE, or none, and nothing writes into a file whose writer
  // was killed.
  const std::string partial = a.output + ".partial";
  std::optional<LevelFileWriter> out;
  out.emplace(partial, prov);
  const RunLock lock(partial);
  if (!resume) out->rename_to(a.output);

  const PartitionTable plan_table(max_tiles);
  ProgressLine progress(plan_table, max_tiles, a.quiet);
  auto show_progress = [&](int tiles, double fraction) { progress.update(tiles, fraction); };
  double total = 0;
  int restored = 0;
  double restoring = 0;
  std::unique_ptr<Sieve> sieve;
  try {
    if (resume) {
      const auto start = std::chrono::steady_clock::now();
      const int levels = resume->state().levels;
      resume->restore(*store, *out, [&](int n) { progress.restoring(n, levels); }, &g_stop);
      progress.clear();
      out->rename_to(a.output);
      restored = levels;
      restoring = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      resume.reset();
      std::cerr << "resumed " << a.output << ": ";
      if (restored > 0)
        std::cerr << "levels 1.." << restored << " checked in " << seconds_text(restoring) << " s";
      else
        std::cerr << "no finished level to restore";
      std::cerr << "; continuing to level " << max_tiles << " with " << threads_text(threads) << '\n';
    }
    std::vector<StoredLevel> records;
    for (int n = 1; n <= store->levels(); ++n) records.push_back(store->record(n));
    cluster.start(max_tiles, options, store->path(), store->run_id(), records);
    sieve = std::make_unique<Sieve>(max_tiles, *store, options, cluster.group());
    sieve->set_stop_flag(&g_stop);
    progress.start(sieve->levels_done() + 1, [&] { return sieve->window_levels(); },
                   [&] { return sieve->marks_applied(); });
    if (!a.quiet)
      std::printf("%6s %16s %14s %10s %10s %10s\n", "tiles", "positions", "losing", "%losing", "ratio",
                  "seconds");
    sieve->run(
        [&](const LevelResult& r) {
          total += r.seconds + r.window_seconds;
          save_level(*out, *sieve, r);
          progress.row(r);
        },
        show_progress);
  } catch (const SieveInterrupted&) {
    progress.clear();
    const int sig = g_stop_signal.load();
    if (out->path() == partial) {
      // Stopped while checking the old file: it is untouched.
      out.reset();
      std::filesystem::remove(partial, ec);
      std::cerr << "chomp: stopped by " << signal_name(sig) << " before resuming; " << a.output
                << " is unchanged\n";
    } else {
      out->finish("interrupted");
      const int done = sieve ? sieve->levels_done() : restored;
      std::cerr << "chomp: stopped by " << signal_name(sig) << " during level " << done + 1 << "; "
                << (done > 0 ? "levels 1.." + std::to_string(done) + " are saved in " + a.output
                             : "no level was finished; " + a.output + " holds none")
                << " (status \"interrupted\")\n";
    }
    std::cerr << "chomp: to continue: " << resume_command(a, a.output, max_tiles, store_losing) << '\n';
    return 128 + (sig > 0 ? sig : SIGINT);
  } catch (const std::exception& e) {
    progress.clear();
    const bool write_failed = dynamic_cast<const H5Error*>(&e) != nullptr;
    const bool disk_full = dynamic_cast<const StoreFull*>(&e) != nullptr;
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
        out->finish(disk_full ? "interrupted" : "failed");
      } catch (...) {
        // The file keeps status "running"; its finished levels stay readable.
      }
    }
    if (out->rows() == 0 || dynamic_cast<const std::bad_alloc*>(&e)) throw;
    throw std::runtime_error(std::string(e.what()) + "\nchomp: levels 1.." + std::to_string(out->rows()) +
                             " are saved in " + a.output + (disk_full ? " (status \"interrupted\")" : "") +
                             "; once the problem is fixed" + (disk_full ? " (free space on its disk)" : "") +
                             ", continue with: " + resume_command(a, a.output, max_tiles, store_losing));
  }
  out->finish("complete");
  // `total` is the levels this run computed; a resumed run also says what
  // checking the others took.
  std::cerr << "wrote " << a.output << " (levels 1.." << max_tiles << ", " << threads_text(threads) << ", ";
  if (restored == 0)
    std::cerr << seconds_text(total) << " s";
  else if (restored < max_tiles)
    std::cerr << seconds_text(total) << " s for "
              << (restored + 1 == max_tiles ? "level " : "levels " + std::to_string(restored + 1) + "..")
              << max_tiles << " after " << seconds_text(restoring) << " s checking levels 1.." << restored;
  else
    std::cerr << seconds_text(restoring) << " s checking them";
  std::cerr << "; store " << store->path() << ", " << human_bytes(static_cast<double>(store->file_bytes())) << ")\n";
  const PhaseTimes t = sieve->phase_times();
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
  for (const std::string& path : {a.output, a.output + ".partial"})
    if (RunLock::held_elsewhere(path))
      throw std::runtime_error(path + " is being written by another chomp process; let it finish or stop it");

  const int threads = a.threads > 0 ? a.threads : tbb::info::default_concurrency();
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  g_stop.store(false);
  const StopSignals stop_signals;

  Provenance prov;
  prov.command_line = command_line();
  prov.start_utc = utc_now();
  prov.max_tiles = a.max_tiles;
  prov.threads = threads;
  prov.processes = 1;
  prov.dimensions = 3;
  Sieve3d sieve(a.max_tiles);
  sieve.set_stop_flag(&g_stop);

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
    const int sig = g_stop_signal.load();
    const int done = sieve.levels_done();
    std::cerr << "chomp: stopped by " << signal_name(sig) << " during level " << done + 1 << "; "
              << (done > 0 ? "levels 1.." + std::to_string(done) + " are saved in " + a.output
                           : "no level was finished; " + a.output + " holds none")
              << " (status \"interrupted\"); a 3D run does not resume: start it over with --force\n";
    return 128 + (sig > 0 ? sig : SIGINT);
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
