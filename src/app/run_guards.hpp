/// @file run_guards.hpp
/// @brief What keeps a `chomp sieve` run from harm and from harming: stops
/// on SIGINT and SIGTERM, locks on the files it writes, and the memory and
/// disk it may take, all checked before anything is written.
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <signal.h>
#include <string>

#include "chomp/sieve.hpp"

namespace chomp::app {

// ---- Signals ----------------------------------------------------------------

/// Installs the stop handlers for the scope of a run and lowers the stop
/// flag. SIGINT or SIGTERM raises the flag, which the sieve polls to stop
/// the level in progress. SA_RESETHAND: a second Ctrl-C kills at once, for
/// a user who will not wait.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// The flag the handlers raise (for Sieve::set_stop_flag and the like).
  static const std::atomic<bool>* flag();
  /// The exit status of a run that a signal stopped: 128 + the signal.
  static int exit_code();
  /// "SIGINT", "SIGTERM" or "a signal": the one that stopped the run.
  static const char* name();

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// ---- Locks ------------------------------------------------------------------

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
  static bool held_elsewhere(const std::string& path);
  /// Throws std::runtime_error when another process holds it.
  explicit RunLock(const std::string& path);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_;
};

/// Throws std::runtime_error("PATH is being written by another chomp
/// process; ADVICE") for the first of `paths` that another run holds.
void refuse_files_in_use(std::initializer_list<std::string> paths, const std::string& advice);

// ---- Memory -----------------------------------------------------------------

/// What --memory-limit (or, without one, the machine's available memory)
/// leaves the sieve: less what the process holds now, less a margin.
struct Budget {
  std::uint64_t sieve = 0;   ///< for SieveOptions::memory_budget
  std::uint64_t limit = 0;   ///< the whole process's
  std::string source;        ///< where the limit comes from
};

/// The budget of a run given --memory-limit (empty: none); notes on stderr
/// a limit above the available memory.
Budget decide_budget(const std::string& memory_limit);

/// The plan for the run; a usage error (exit 2) when the budget cannot
/// hold it, naming the smallest limit that can.
MemoryPlan plan_or_refuse(int max_tiles, const SieveOptions& o, const Budget& b, int processes);

// ---- Disk -------------------------------------------------------------------

/// Free bytes on the file system of path's folder (0 if unknown).
std::uint64_t free_bytes_beside(const std::string& path);

/// A usage error when the disk of `output` (free_disk bytes free; 0:
/// unknown) cannot take what the run will add: the store beyond the
/// store_held bytes it holds now, and the result file.
void check_disk(const DiskPlan& disk, std::uint64_t store_held, std::uint64_t free_disk, const std::string& output);

}  // namespace chomp::app
