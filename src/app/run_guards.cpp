/// @file run_guards.cpp
/// @brief The stop handlers, file locks, memory budget and disk check of
/// `chomp sieve` (run_guards.hpp).

#include "run_guards.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <system_error>

#include "plain_checks.hpp"
#include "usage_error.hpp"

namespace chomp::app {

bool RunLock::held_elsewhere(const std::string& path) {
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

RunLock::RunLock(const std::string& path) : fd_(open(path.c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK)) {
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (fd_ < 0) throw std::runtime_error("cannot open " + path + " to lock it: " + std::strerror(errno));
  if (fcntl(fd_, F_OFD_SETLK, &fl) != 0) {
    close(fd_);
    throw std::runtime_error("another chomp is writing " + path + " (a second run on the same --output?)");
  }
}

RunLock::~RunLock() {
  if (fd_ >= 0) close(fd_);
}

std::string output_file(const std::string& output, const std::string& option) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(output, ec)) return output;
  // Followed link by link, so that a link to a file not made yet (a new
  // run's output) names that file; weakly_canonical gave the link itself.
  std::filesystem::path target = output;
  for (int hops = 0; std::filesystem::is_symlink(target, ec); ++hops) {
    const std::filesystem::path next = std::filesystem::read_symlink(target, ec);
    if (ec || hops == 40)
      throw UsageError(option + " " + printable(output) + " is a symbolic link that cannot be followed");
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  // The last name is no link now: weakly_canonical resolves the folders
  // above it (links among them too, and ".." after them) as the kernel does.
  target = std::filesystem::weakly_canonical(target, ec);
  if (ec || target.empty())
    throw UsageError(option + " " + printable(output) + " is a symbolic link that cannot be followed");
  std::cerr << "note: " << option << " " << printable(output, 200) << " is a symbolic link; its target "
            << printable(target.string(), 200) << " is the file written\n";
  return target.string();
}

void refuse_missing_folder(const std::string& path, const std::string& option) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (folder.empty() || std::filesystem::is_directory(folder, ec)) return;
  throw UsageError("the folder of " + option + " " + printable(path, 200) +
                   (std::filesystem::exists(folder, ec)
                        ? " is a file, not a folder; give another " + option
                        : " does not exist; make it first (mkdir -p " + shell_quote(folder.string()) +
                              ") or give another " + option));
}

void refuse_unwritable_folder(const std::string& path, const std::string& option) {
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) folder = ".";
  if (access(folder.c_str(), W_OK | X_OK) == 0) return;
  throw std::runtime_error("cannot write in the folder of " + option + " " + printable(path, 200) + ": " +
                           std::strerror(errno) + " (give a folder this user may write to)");
}

void refuse_files_in_use(std::initializer_list<std::string> paths, const std::string& advice) {
  for (const std::string& path : paths)
    if (RunLock::held_elsewhere(path))
      throw std::runtime_error(path + " is being written by another chomp process; " + advice);
}

std::uint64_t resident_bytes() {
  std::ifstream in("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

namespace {

/// Room kept beside the sieve's budget within a limit: the libraries'
/// buffers, the allocator's slack, the file writer, and what a resume
/// reads before its budget is decided (2.3 MiB to 90 tiles, 2026-12-05).
constexpr std::uint64_t kMarginBytes = std::uint64_t{8} << 20;

}  // namespace

namespace {

/// human_bytes rounded up to its last digit, so that the limit it names,
/// given back as --memory-limit, is not below the one meant.
std::string human_bytes_up(std::uint64_t bytes) {
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024 && unit < 4) v /= 1024, ++unit;
  return human_bytes(std::ceil(v * 10) / 10 * std::pow(1024.0, unit));
}

/// What a refusal adds about the process's own memory, which a limit
/// includes: without it, "needs 3 MiB" beside "20 MiB is too little" reads
/// as a contradiction.
std::string held_text(const Budget& b) {
  return " (of which the program itself, its libraries and a margin hold " +
         human_bytes(static_cast<double>(b.held)) + ")";
}

}  // namespace

Budget decide_budget(const std::string& memory_limit, std::uint64_t resident, bool planning) {
  Budget b;
  const auto [avail, avail_source] = available_memory();
  if (!memory_limit.empty()) {
    std::string why;
    b.limit = parse_byte_size(memory_limit, why).value_or(0);
    b.source = "--memory-limit";
    if (const std::uint64_t total = machine_memory(); !planning && total && b.limit > total)
      throw UsageError("--memory-limit " + human_bytes(static_cast<double>(b.limit)) + " is more than this machine's " +
                       "memory (" + human_bytes(static_cast<double>(total)) + ", MemTotal): the run would grow past "
                       "it until the kernel killed it, or another program; give at most " +
                       human_bytes(static_cast<double>(total)) + ", less what other programs need (a --dry-run "
                       "plans for a larger machine)");
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
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  b.held = (resident + kMiB - 1) / kMiB * kMiB + kMarginBytes;
  b.sieve = b.limit > b.held ? b.limit - b.held : 1;
  return b;
}

MemoryPlan plan_or_refuse(int max_tiles, const SieveOptions& o, const Budget& b, int processes) {
  try {
    return plan_run(max_tiles, o, processes);
  } catch (const BudgetTooSmall& e) {
    const std::uint64_t smallest = e.smallest + b.held;
    throw UsageError("--max-tiles " + std::to_string(max_tiles) + " does not fit " + b.source + " (" +
                     human_bytes(static_cast<double>(b.limit)) + "): " + e.what() +
                     "; the smallest --memory-limit that works is " + human_bytes_up(smallest) +
                     (processes > 1 ? " per process" : "") + held_text(b));
  }
}

void refuse_unless_fits_3d(int max_cubes, const Sieve3dPlan& plan, const Budget& b) {
  if (plan.total() <= b.sieve) return;
  const std::uint64_t smallest = plan.total() + b.held;
  throw UsageError("--max-tiles " + std::to_string(max_cubes) + " with --dimensions 3 does not fit " + b.source +
                   " (" + human_bytes(static_cast<double>(b.limit)) + "): it needs about " +
                   human_bytes(static_cast<double>(plan.total())) + " (the losing sets of levels 1.." +
                   std::to_string(max_cubes - 1) + " and building level " + std::to_string(max_cubes) +
                   "); the smallest --memory-limit that works is " + human_bytes_up(smallest) + held_text(b));
}

std::uint64_t free_bytes_beside(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::absolute(path, ec).parent_path();
  if (ec) return 0;
  const std::filesystem::space_info room = std::filesystem::space(folder, ec);
  return ec ? 0 : static_cast<std::uint64_t>(room.available);
}

std::string check_disk(const DiskPlan& disk, std::uint64_t store_held, std::uint64_t free_disk,
                       const std::string& output, std::uint64_t checkpoint_bytes) {
  const std::uint64_t needed =
      (disk.store_bytes > store_held ? disk.store_bytes - store_held : 0) + disk.result_bytes;
  if (free_disk && needed > free_disk)
    throw UsageError("the run needs about " + human_bytes(static_cast<double>(needed)) + " more on the disk of " +
                     output + " but only " + human_bytes(static_cast<double>(free_disk)) + " is free (" +
                     human_bytes(static_cast<double>(needed - free_disk)) +
                     " missing); free some space there, or choose a smaller --max-tiles or another --output");
  if (!free_disk || !checkpoint_bytes || needed + checkpoint_bytes <= free_disk) return {};
  return "the disk of " + output + " has room for the run (it needs about " +
         human_bytes(static_cast<double>(needed)) + " more, " + human_bytes(static_cast<double>(free_disk)) +
         " is free) but not also for a window's checkpoint (up to " +
         human_bytes(static_cast<double>(checkpoint_bytes)) +
         "): a checkpoint is saved only where it leaves the store its room, and after a stop or a kill inside a "
         "window --resume marks that window again (hours, late in a long run); free " +
         human_bytes_up(needed + checkpoint_bytes - free_disk) + " more on this disk to avoid that";
}

std::string full_disk_hint(const std::string& message) {
  if (message.find(std::strerror(EFBIG)) != std::string::npos)
    return " (raise the limit on a file's size, ulimit -f, or free space on its disk)";
  if (message.find(std::strerror(EDQUOT)) != std::string::npos) return " (free space within your disk quota)";
  return " (free space on its disk)";
}

}  // namespace chomp::app
