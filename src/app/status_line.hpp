/// @file status_line.hpp
/// @brief One line of progress on stderr for the long-running commands.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace chomp::app {

/// On a terminal the line is rewritten in place, at most every half second;
/// in a log (stderr redirected) a plain line is written at most every 30 s,
/// so a batch job's log stays short. clear() removes the terminal line
/// before other output.
class StatusLine {
 public:
  StatusLine() : tty_(isatty(STDERR_FILENO) == 1), start_(Clock::now()), last_(start_) {
    // Test seam: CHOMP_PROGRESS_INTERVAL (seconds) replaces the interval of
    // lines written to a file or pipe.
    if (const char* v = std::getenv("CHOMP_PROGRESS_INTERVAL")) {
      char* end = nullptr;
      const double s = std::strtod(v, &end);
      if (end != v && s > 0) file_interval_ = s;
    }
  }

  /// Shows text if the interval has passed (or `now` is set).
  void show(const std::string& text, bool now = false) {
    const auto t = Clock::now();
    if (!now && std::chrono::duration<double>(t - last_).count() < (tty_ ? kTerminalInterval : file_interval_)) return;
    last_ = t;
    if (tty_) {
      std::fprintf(stderr, "\r%s \033[K", text.c_str());
      shown_ = true;
    } else {
      std::fprintf(stderr, "%s\n", text.c_str());
    }
    std::fflush(stderr);
  }

  void clear() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
    shown_ = false;
  }

  /// Seconds since the line was made.
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr double kTerminalInterval = 0.5;  // seconds between redraws on a terminal
  bool tty_;
  bool shown_ = false;
  double file_interval_ = 30.0;  // seconds between lines when stderr is not a terminal
  Clock::time_point start_, last_;
};

}  // namespace chomp::app
