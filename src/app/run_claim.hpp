/// @file run_claim.hpp
/// @brief The claim of one run on its output: of two `chomp sieve` started
/// together on the same --output, exactly one writes it.
#pragma once

#include <string>

namespace chomp::app {

/// A lock file OUTPUT.lock beside the output, created if need be and held
/// with an open-file-description lock (F_OFD_SETLK) for as long as the
/// claim lives; it records the holder's process id. The kernel drops the
/// lock when its holder dies, so a file left by a killed run claims
/// nothing. The claim is taken before the run looks at, creates or
/// replaces any of its files, which closes the window in which two runs
/// both found no output and both made one. The file is removed when the
/// claim ends; a run that had opened it meanwhile sees it gone and claims
/// the new one instead.
class RunClaim {
 public:
  /// Throws std::runtime_error naming the output, the lock file and the
  /// process that holds it. A folder where no file can be made (missing,
  /// read-only) is not refused here: the run's own first write says why.
  explicit RunClaim(const std::string& output);
  ~RunClaim();
  RunClaim(const RunClaim&) = delete;
  RunClaim& operator=(const RunClaim&) = delete;

  /// The lock file's name for an output.
  static std::string lock_path(const std::string& output) { return output + ".lock"; }

  /// Whether a live process holds the claim on `output` (or on the file a
  /// symbolic link `output` leads to) now: its lock file locked. False when
  /// there is no lock file or nothing holds it, as after a kill or a stop
  /// that could not record its status; true where it cannot tell (a lock
  /// file it cannot read, a file system without locks). Takes nothing.
  static bool held(const std::string& output);

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace chomp::app
