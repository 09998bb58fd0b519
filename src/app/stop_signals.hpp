/// @file stop_signals.hpp
/// @brief Clean stops of long runs (`chomp sieve`, `chomp grundy`): SIGINT
/// and SIGTERM raise a flag that the run polls; it drops the level in
/// progress, keeps the finished ones and says how to continue.
#pragma once

#include <signal.h>

#include <atomic>

namespace chomp::app {

/// Set by SIGINT / SIGTERM while a StopSignals lives; g_stop_signal holds
/// the signal. Lock-free atomics are safe to store to from a signal handler.
extern std::atomic<bool> g_stop;
extern std::atomic<int> g_stop_signal;

/// Installs the stop handlers for the scope of a run. SA_RESETHAND: a
/// second Ctrl-C kills at once, for a user who will not wait.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

/// "SIGINT", "SIGTERM" or "a signal".
const char* signal_name(int sig);

}  // namespace chomp::app
