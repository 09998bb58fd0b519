/// @file solve_progress.hpp
/// @brief Progress of a long bounded solve on stderr, for the commands that
/// run one (analyze, rectangles, play's hints).
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>

#include "chomp/bounded.hpp"

namespace chomp::app {

/// A solve of fewer positions than this finishes in about a second and
/// shows no progress.
inline constexpr std::uint64_t kQuietSolvePositions = std::uint64_t{1} << 26;

/// Rewrites one line on a terminal (at most every half second), and on a log
/// writes a plain line every 30 s; end() clears the terminal line. Levels
/// near the start cost more than their share of positions (their losing
/// positions reach far), so the level count is the better guide.
class SolveProgress {
 public:
  explicit SolveProgress(std::uint64_t positions)
      : shown_(positions >= kQuietSolvePositions),
        tty_(isatty(STDERR_FILENO) == 1),
        start_(Clock::now()),
        last_(start_) {}

  BoundedProgressFn callback() {
    if (!shown_) return {};
    return [this](int tiles, int max_tiles, double fraction) {
      const auto now = Clock::now();
      const double since = std::chrono::duration<double>(now - last_).count();
      if (since < (tty_ ? 0.5 : 30.0) && tiles < max_tiles) return;
      last_ = now;
      const double elapsed = std::chrono::duration<double>(now - start_).count();
      std::fprintf(stderr,
                   tty_ ? "\rsolving: level %d of %d (%3.0f%% of the positions), %.0f s " :
                          "solving: level %d of %d (%.0f%% of the positions), %.0f s\n",
                   tiles, max_tiles, 100 * fraction, elapsed);
      std::fflush(stderr);
    };
  }

  void end() const {
    if (shown_ && tty_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool shown_, tty_;
  Clock::time_point start_, last_;
};

}  // namespace chomp::app
