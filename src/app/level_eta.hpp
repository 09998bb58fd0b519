/// @file level_eta.hpp
/// @brief The progress line, with an ETA, of runs whose levels' relative
/// work is known beforehand (`chomp grundy`, `chomp sieve --dimensions 3`):
/// the pace of the level in progress, in seconds per unit of work, projected
/// over the rest of that level and every level after it (the arithmetic is
/// chomp/work_model.hpp's pace_eta).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "chomp/work_model.hpp"
#include "status_line.hpp"

namespace chomp::app {

/// pull_work (chomp/work_model.hpp) of levels 0..N of 2D Chomp (p(n)
/// positions each, for grundy) and of 3D Chomp (PL(n)).
std::vector<double> partition_work(int max_tiles);
std::vector<double> plane_partition_work(int max_cubes);

/// " · ETA level M:SS, run H:MM:SS" for level n of a run whose levels'
/// work is `work` (chomp/work_model.hpp: pace_eta), or "" before a pace can
/// be read.
std::string level_eta_text(const std::vector<double>& work, int n, double fraction, double seconds);

/// "level n/N · 54% · 1:02 elapsed · ETA level 0:40, run 5:10" on stderr
/// (status_line.hpp: rewritten on a terminal, a line every 30 s in a log),
/// from 3 s into the run (test seam: CHOMP_PROGRESS_QUIET, in seconds, as
/// for the 2D sieve's line), unless quiet.
class LevelProgress {
 public:
  LevelProgress(std::vector<double> work, bool quiet);

  /// Level n is done (or, for n = 0 or a resumed run's last restored
  /// level, the run starts now): the next level's pace counts from here.
  void level_done(int n);
  /// Level n is this far; safe to call from several threads at once.
  void update(int n, double fraction);
  /// Shows other text on the same line (a resumed run's checks), by the
  /// same rules.
  void show(const std::string& text);
  /// Removes the line before other output (a level's row, a message).
  void clear();
  /// Seconds since the line was made.
  double elapsed() const { return line_.elapsed(); }

 private:
  std::mutex mutex_;
  StatusLine line_;
  std::vector<double> work_;
  bool quiet_;
  double quiet_seconds_ = 3.0;  // nothing shown before
  int done_ = 0;               // the last level done
  double level_started_ = 0;   // when level done_ + 1 began (elapsed())
};

}  // namespace chomp::app
