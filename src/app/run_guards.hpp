/// @file run_guards.hpp
/// @brief What keeps a `chomp sieve` run from harm and from harming: locks
/// on the files it writes, and the memory and disk it may take, all checked
/// before anything is written (its stops on SIGINT and SIGTERM are
/// stop_signals.hpp, shared with `chomp grundy`).
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "chomp/sieve.hpp"
#include "chomp/sieve3d.hpp"
#include "stop_signals.hpp"

namespace chomp::app {

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

/// The file a command writes for `option`: a symbolic link's target, said
/// in a note (read and written in place, or renamed over: a rename would
/// replace the link with a file of its own), else the name itself.
std::string output_file(const std::string& output, const std::string& option = "--output");

/// Throws std::runtime_error("PATH is being written by another chomp
/// process; ADVICE") for the first of `paths` that another run holds.
/// Refuses (UsageError) a file to write whose folder is missing or is a
/// file, naming `option` and, for a missing one, the mkdir that makes it:
/// said before any work, not at the first write.
void refuse_missing_folder(const std::string& path, const std::string& option);

/// Throws std::runtime_error naming `option`, the path and the system's
/// reason where this process may not create a file in the folder of
/// `path` (permissions, a read-only mount): for a command that writes its
/// file only at its end, said before the work, not after it.
void refuse_unwritable_folder(const std::string& path, const std::string& option);

void refuse_files_in_use(std::initializer_list<std::string> paths, const std::string& advice);

// ---- Memory -----------------------------------------------------------------

/// What --memory-limit (or, without one, the machine's available memory)
/// leaves the sieve: less what the process holds now, less a margin.
struct Budget {
  std::uint64_t sieve = 0;   ///< for SieveOptions::memory_budget
  std::uint64_t limit = 0;   ///< the whole process's
  std::uint64_t held = 0;    ///< what the process holds outside the sieve (resident before reading, and a margin)
  std::string source;        ///< where the limit comes from
};

/// Bytes this process holds now (resident): the program, its libraries,
/// what it read so far.
std::uint64_t resident_bytes();

/// The budget of a run given --memory-limit (empty: none), beside
/// `resident`, the process's resident bytes before it read the file it
/// resumes (resident_bytes() then): a new run and its resume get the same
/// budget from one limit, where measured later a resume held 2 MiB more and
/// the continue command printed at a stop was refused at the smallest
/// limit. Rounded up to a MiB, so that the KiB it varies by from run to run
/// seldom move a budget. Notes on stderr a limit above the available memory;
/// refuses (UsageError) one above the machine's whole memory (MemTotal)
/// unless `planning` (a dry run, which may plan for a larger machine): such
/// a run grows past what the machine has, until the kernel kills it or
/// another program.
Budget decide_budget(const std::string& memory_limit, std::uint64_t resident, bool planning);

/// The plan for the run; a usage error (exit 2) when the budget cannot
/// hold it, naming the smallest limit that can.
MemoryPlan plan_or_refuse(int max_tiles, const SieveOptions& o, const Budget& b, int processes);

/// A usage error (exit 2) when a 3D run's plan does not fit the budget,
/// naming the smallest limit that does.
void refuse_unless_fits_3d(int max_cubes, const Sieve3dPlan& plan, const Budget& b);

// ---- Disk -------------------------------------------------------------------

/// Free bytes on the file system of path's folder (0 if unknown).
std::uint64_t free_bytes_beside(const std::string& path);

/// What to fix after a write that found no room (StoreFull's message): the
/// file size limit (ulimit -f) for "File too large", the quota for a
/// quota, else free space on the disk; as " (...)".
std::string full_disk_hint(const std::string& message);

/// A usage error when the disk of `output` (free_disk bytes free; 0:
/// unknown) cannot take what the run will add: the store beyond the
/// store_held bytes it holds now, and the result file. When it can, but
/// not also a stopped window's checkpoint (checkpoint_bytes; 0: the run
/// saves none), the run goes on (a checkpoint that cannot be written only
/// costs the window's marking again at --resume) and the warning to print
/// is returned; otherwise an empty string.
std::string check_disk(const DiskPlan& disk, std::uint64_t store_held, std::uint64_t free_disk,
                       const std::string& output, std::uint64_t checkpoint_bytes = 0);

}  // namespace chomp::app
