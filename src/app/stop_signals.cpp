/// @file stop_signals.cpp
/// @brief The stop flag and its SIGINT / SIGTERM handlers (stop_signals.hpp).

#include "stop_signals.hpp"

namespace chomp::app {

namespace {

// Set by SIGINT / SIGTERM. Lock-free atomics are safe to store to from a
// signal handler.
std::atomic<bool> g_stop{false};
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

extern "C" void on_stop_signal(int sig) {
  g_stop_signal.store(sig);
  g_stop.store(true);
}

}  // namespace

StopSignals::StopSignals() {
  g_stop.store(false);
  g_stop_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

const std::atomic<bool>* StopSignals::flag() { return &g_stop; }

int StopSignals::exit_code() {
  const int sig = g_stop_signal.load();
  return 128 + (sig > 0 ? sig : SIGINT);
}

const char* StopSignals::name() {
  const int sig = g_stop_signal.load();
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

}  // namespace chomp::app
