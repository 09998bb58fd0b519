/// @file stop_signals.hpp
/// @brief Clean stops of long runs (`chomp sieve`, `chomp grundy`): SIGINT,
/// SIGTERM and SIGUSR1 raise a flag that the run polls; it drops the level
/// in progress, keeps the finished ones and says how to continue. (SIGUSR1
/// is for runs under Open MPI's mpirun, which forwards it to every process
/// at once and kills none, where it kills them a second or two after
/// forwarding SIGTERM.)
#pragma once

#include <signal.h>

#include <atomic>

namespace chomp::app {

/// Installs the stop handlers for the scope of a run and lowers the stop
/// flag. SIGINT, SIGTERM or SIGUSR1 raises the flag, which the run polls to stop the
/// level in progress. A second Ctrl-C (or a second signal from another
/// process, or from the same one after 2 s) ends the program at once, for
/// a user who will not wait; the same process sending the same signal
/// again at once is the same stop (GNU timeout signals the program, then
/// its process group). With `announce` (all but the other processes
/// of an MPI run), the handler says on stderr at once that the stop was
/// heard, where stderr is a terminal or a file (not a pipe, whose reader
/// may be gone): saving a window's checkpoint can take a minute.
///
/// SIGPIPE is ignored for the same scope: a reader of the table on stdout
/// that goes away (`chomp sieve ... | head`) must not kill a run that holds
/// its files open (it would leave them "running", with their locks). The
/// table lines it no longer reads are lost; the files are not.
class StopSignals {
 public:
  explicit StopSignals(bool announce = true);
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// The flag the handlers raise (for Sieve::set_stop_flag and the like).
  static const std::atomic<bool>* flag();
  /// The exit status of a run that a signal stopped: 128 + the signal.
  static int exit_code();
  /// "SIGINT", "SIGTERM", "SIGUSR1" or "a signal": the one that stopped the run.
  static const char* name();

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  struct sigaction old_usr1_ {};
  struct sigaction old_pipe_ {};
};

}  // namespace chomp::app
