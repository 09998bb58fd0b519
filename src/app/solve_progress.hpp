/// @file solve_progress.hpp
/// @brief Progress of a long bounded solve on stderr, for the commands that
/// run one (analyze, rectangles, play's hints).
#pragma once

#include <cstdint>
#include <cstdio>

#include "chomp/bounded.hpp"
#include "status_line.hpp"

namespace chomp::app {

/// A solve of fewer positions than this finishes in about a second and
/// shows no progress.
inline constexpr std::uint64_t kQuietSolvePositions = std::uint64_t{1} << 26;

/// Progress of a solve, level by level. Levels near the start cost more
/// than their share of positions (their losing positions reach far), so the
/// level count is the better guide.
class SolveProgress {
 public:
  explicit SolveProgress(std::uint64_t positions) : shown_(positions >= kQuietSolvePositions) {}

  BoundedProgressFn callback() {
    if (!shown_) return {};
    return [this](int tiles, int max_tiles, double fraction) {
      char text[128];
      std::snprintf(text, sizeof text, "solving: level %d of %d (%3.0f%% of the positions), %.0f s", tiles,
                    max_tiles, 100 * fraction, line_.elapsed());
      line_.show(text, tiles == max_tiles);
    };
  }

  void end() { line_.clear(); }

 private:
  bool shown_;
  StatusLine line_;
};

}  // namespace chomp::app
