/// @file sieve_progress.hpp
/// @brief `chomp sieve`'s progress line with the ETA of the level and of the
/// run, the work model the ETA (and --dry-run's estimate) rests on, its
/// table rows, and the words its messages share.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "chomp/ranking.hpp"
#include "chomp/sieve.hpp"
#include "chomp/work_model.hpp"
#include "status_line.hpp"

namespace chomp::app {

/// "1:02:03", "4:05" or "37 s".
std::string clock_text(double seconds);
/// "1 thread", "2 threads".
std::string threads_text(int n);
/// Seconds with two decimals.
std::string seconds_text(double s);

/// The level being computed and how far it is, with the time so far and
/// the ETA of the level and of the run, and the table's rows, which are
/// printed once a level is saved: one lock keeps the two from interleaving.
///
/// The ETA comes from a work model in marks (chomp/work_model.hpp), not a
/// count of levels: the marks into level k are about r(k) p(k), r growing
/// slowly and steadily, and every window's passes also visit each source
/// below its last level, a visit costing kVisitMarks marks. Within the
/// window in progress, work done is the marks applied so far (the sieve
/// counts them) plus the current pass's share of the last one's; its work
/// left is the model's marks of its unfinished levels less those they have
/// received already; the rate is marks per second over the last five
/// minutes (all of the run, early on). The windows after it (the memory
/// plan's, from plan_from) are priced with their visits at the same pace,
/// per unit of the model's work: where a window holds one level (the long
/// run from about 157 on) those visits are about half of each level's
/// time. In a window's pass (its first level) that has lasted longer than
/// those five minutes, and a tenth of which this program has done, where
/// the marks applied come in bursts (the long run's passes take tens of
/// minutes), the run's ETA is the pass projected to its end from its
/// fraction done instead, plus the later windows at the pass's seconds per
/// unit of work; a pass continued from a checkpoint is paced so from its
/// first line, by its fraction done over its seconds in all, the earlier
/// runs' included. Once a window has finished in this program, the seconds
/// per unit of work of the windows finished here (their rows' seconds,
/// their passes' included, against their model work; each older window
/// weighed half as much as the next; not a window continued from a later
/// level's pass, whose first pass an earlier run did) set the pace instead: the rest of the
/// window in progress and the windows after it. Before that, once the first
/// level of a window continued from its first pass has finished, that
/// level's seconds in all per unit of the pass's work pace the window's
/// later levels and the windows after it, as they paced the pass. A
/// continued pass of a later level of its window shows that level's ETA
/// alone.
/// Runs shorter than a few seconds and quiet runs print nothing.
class ProgressLine {
 public:
  ProgressLine(const PartitionTable& table, int max_tiles, bool quiet);
  /// The sieve starts (after a resumed run's checks) at level `first`;
  /// window() gives the levels held in memory, shown beside the level in
  /// progress, and marks() the marks the sieve has applied; plan_from(n)
  /// the windows the run will open from level n on (its memory plan's;
  /// without it, every later level is a window of its own marks alone).
  /// resumed: the seconds earlier runs spent on level first's pass, which a
  /// checkpoint continues (Sieve::resumed_seconds); first_pass: whether
  /// that pass is its window's first (Sieve::resumed_first_pass), whose
  /// seconds pace the run: a later level's pass gives its level's ETA alone.
  void start(int first, std::function<std::pair<int, int>()> window, std::function<std::uint64_t()> marks,
             std::function<std::vector<PlannedWindow>(int)> plan_from = {}, double resumed = 0,
             bool first_pass = true);
  /// The level in progress and its finished fraction (a ProgressFn).
  void update(int tiles, double fraction);
  /// Resuming: level n of the file's `levels` is being checked.
  void restoring(int n, int levels);
  void clear();
  /// A level is saved: prints its row of the table on stdout (unless quiet)
  /// and counts its marks as done.
  void row(const LevelResult& r);

 private:
  /// Nothing is shown in a run's first seconds; the rate is measured over
  /// about the last five minutes.
  static constexpr double kQuietSeconds = 3.0;
  double quiet_seconds_ = kQuietSeconds;  // (test seam: CHOMP_PROGRESS_QUIET)
  static constexpr double kRateSeconds = 300.0;
  /// The part of a pass done in this program past which its pace is its
  /// fraction done (below it, the marks' rate).
  static constexpr double kPaceFraction = 0.1;
  std::mutex mutex_;
  StatusLine line_;
  const PartitionTable& table_;
  int max_;
  bool quiet_;
  int finished_ = 0;                 // the last level saved
  double finished_marks_ = 0;        // marks of the levels saved in this run
  double ratio_ = kRatioAt100;       // marks per position of the last level saved
  int ratio_level_ = 100;            //   (or the model's, until one is)
  int tiles_ = 0;                    // the level in progress
  double level_start_marks_ = 0, last_level_marks_ = 0, level_started_ = 0, started_ = 0;
  double level_fraction0_ = 0;  // the level's fraction done when this program began it
  int first_ = 0;               // the level this program began with
  double resumed_ = 0;          // its earlier runs' seconds (a checkpoint's pass)
  bool resumed_later_ = false;  // that pass is a later level's of its window, not the first
  bool continued_ = false;      // the level in progress is that pass, continued
  std::function<std::pair<int, int>()> window_;
  std::function<std::uint64_t()> marks_;
  std::function<std::vector<PlannedWindow>(int)> plan_from_;
  /// The window in progress as planned (its slices), and the model's work
  /// of the windows after it, for the window first..last.
  struct Ahead {
    int first = 0, last = 0;
    PlannedWindow current;
    double later = 0;
  };
  Ahead ahead_;
  const Ahead& ahead(int n0, int n1);
  // The window whose rows' seconds (its pass's included) are being summed,
  // and the seconds per unit of model work of the windows finished here
  // (the older ones weighed less; 0: none yet), which then sets the run's
  // ETA.
  PlannedWindow timed_;
  double timed_seconds_ = 0;
  // Whether its rows' seconds are all its work (not so for a window
  // continued from a later level's pass); whether it was continued from
  // its first pass (a window from level 3 on), and then the seconds of its
  // first level in all, the earlier runs' included (0: not known).
  bool timed_whole_ = true;
  bool first_continued_ = false;
  double first_seconds_ = 0;
  double paced_seconds_ = 0, paced_work_ = 0, pace_ = 0;
  std::deque<std::pair<double, double>> samples_;  // (seconds, marks done)
};

}  // namespace chomp::app
