/// @file stop_signals.cpp
/// @brief The stop flag and its SIGINT / SIGTERM / SIGUSR1 handlers (stop_signals.hpp).

#include "stop_signals.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <ctime>

namespace chomp::app {

namespace {

// Set by SIGINT / SIGTERM / SIGUSR1. Lock-free atomics are safe to store to from a
// signal handler.
std::atomic<bool> g_stop{false};
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

// Whether the handler says at once that the stop was heard: the leader of
// a run (not the other processes of an MPI run), and only where stderr is
// a terminal or a regular file. A pipe's reader may be gone (Ctrl-C ends
// `tee` too), and a write to it would raise SIGPIPE and end the program
// before it saved anything. On a terminal it starts a line of its own,
// where a progress line may be half drawn.
std::atomic<bool> g_announce{true};
std::atomic<bool> g_new_line{false};

// write() is safe in a signal handler; the stop itself may take a while
// (the round in hand, then a window's checkpoint of gigabytes), and a user
// who heard nothing might press Ctrl-C again and lose that checkpoint.
void say(const char* text) {
  std::size_t n = 0;
  while (text[n]) ++n;
  (void)!write(2, text, n);
}

// The first stop's sender (0: the kernel, as for Ctrl-C on a terminal) and
// when it came. GNU timeout (and the like) signals the program, then its
// whole process group, so a run it stops gets the same signal twice from
// the same process at once: that is one stop, not a second one.
std::atomic<pid_t> g_first_sender{0};
std::atomic<long long> g_first_ns{0};
static_assert(std::atomic<pid_t>::is_always_lock_free && std::atomic<long long>::is_always_lock_free);

/// A repeat of the first stop, not a second one: the same signal from the
/// same process (not the kernel) within this many nanoseconds. (A SIGINT
/// then a SIGTERM is an escalation, and ends the program.)
constexpr long long kSameStopNs = 2'000'000'000;

long long now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe
  return static_cast<long long>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

extern "C" void on_stop_signal(int sig, siginfo_t* info, void*) {
  const int saved_errno = errno;
  const pid_t sender = info != nullptr && info->si_code <= 0 ? info->si_pid : 0;  // sent by a process
  if (g_stop.load()) {
    if (sig == g_stop_signal.load() && sender != 0 && sender == g_first_sender.load() &&
        now_ns() - g_first_ns.load() < kSameStopNs) {
      errno = saved_errno;
      return;  // the same stop again
    }
    // A second stop: the program ends at once, as the signal's default.
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved_errno;
    return;
  }
  g_first_sender.store(sender);
  g_first_ns.store(now_ns());
  g_stop_signal.store(sig);
  g_stop.store(true);
  if (g_announce.load()) {
    const char* name = sig == SIGINT ? "SIGINT" : sig == SIGUSR1 ? "SIGUSR1" : "SIGTERM";
    if (g_new_line.load()) say("\n");
    say("chomp: "), say(name), say(" heard: stopping cleanly, which can take a minute (a second "), say(name);
    say(" ends the program at once; --resume continues either way)\n");
  }
  errno = saved_errno;
}

}  // namespace

StopSignals::StopSignals(bool announce) {
  g_stop.store(false);
  g_stop_signal.store(0);
  struct stat st {};
  const bool terminal = isatty(2) != 0;
  g_announce.store(announce && (terminal || (fstat(2, &st) == 0 && S_ISREG(st.st_mode))));
  g_new_line.store(terminal);
  g_first_sender.store(0);
  g_first_ns.store(0);
  struct sigaction sa {};
  sa.sa_sigaction = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
  sigaction(SIGUSR1, &sa, &old_usr1_);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, &old_pipe_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGUSR1, &old_usr1_, nullptr);
  sigaction(SIGPIPE, &old_pipe_, nullptr);
}

const std::atomic<bool>* StopSignals::flag() { return &g_stop; }

int StopSignals::exit_code() {
  const int sig = g_stop_signal.load();
  return 128 + (sig > 0 ? sig : SIGINT);
}

const char* StopSignals::name() {
  const int sig = g_stop_signal.load();
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGUSR1 ? "SIGUSR1" : "a signal";
}

}  // namespace chomp::app
