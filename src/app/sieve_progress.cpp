/// @file sieve_progress.cpp
/// @brief The progress line and ETA of `chomp sieve` (sieve_progress.hpp).

#include "sieve_progress.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace chomp::app {

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld s", s);
  return buf;
}

std::string threads_text(int n) { return std::to_string(n) + (n == 1 ? " thread" : " threads"); }

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  return buf;
}

ProgressLine::ProgressLine(const PartitionTable& table, int max_tiles, bool quiet)
    : table_(table), max_(max_tiles), quiet_(quiet) {
  // Test seam: CHOMP_PROGRESS_QUIET (seconds) replaces the first seconds
  // in which nothing is shown.
  if (const char* v = std::getenv("CHOMP_PROGRESS_QUIET")) {
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (end != v && s >= 0) quiet_seconds_ = s;
  }
}

void ProgressLine::start(int first, std::function<std::pair<int, int>()> window, std::function<std::uint64_t()> marks,
                         std::function<std::vector<PlannedWindow>(int)> plan_from, double resumed,
                         bool first_pass) {
  const std::lock_guard lock(mutex_);
  first_ = first;
  resumed_ = resumed;
  resumed_later_ = resumed > 0 && !first_pass;
  window_ = std::move(window);
  marks_ = std::move(marks);
  plan_from_ = std::move(plan_from);
  ahead_ = Ahead{};
  finished_ = first - 1;
  tiles_ = 0;
  samples_.clear();
  started_ = line_.elapsed();
}

void ProgressLine::update(int tiles, double fraction) {
  const std::lock_guard lock(mutex_);
  if (quiet_ || !marks_) return;
  const double now = line_.elapsed();
  const double applied = static_cast<double>(marks_());
  if (tiles != tiles_) {
    // A new level: its passes are estimated from the last level's.
    if (tiles_ != 0) last_level_marks_ = applied - level_start_marks_;
    tiles_ = tiles, level_start_marks_ = applied, level_started_ = now;
    // A pass continued from a checkpoint starts part done. Its pace is
    // its fraction done over its seconds in all, the earlier runs'
    // included: what it does from here alone starts slow (the checkpoint
    // read back into fresh memory), and the marks applied before it are
    // not among this program's (the long run's leg 10 showed 429 hours at
    // first, from the marks' rate). Any other level's pace is what it
    // does from here.
    continued_ = tiles == first_ && resumed_ > 0 && fraction > 0;
    level_fraction0_ = continued_ ? 0 : fraction;
    if (continued_) level_started_ = now - resumed_;
  }
  const double gained = fraction - level_fraction0_;
  const double in_pass = applied - level_start_marks_;
  const double estimate = std::max(in_pass, fraction * last_level_marks_);
  const double done = level_start_marks_ + estimate;
  if (samples_.empty() || now - samples_.back().first >= 1.0) samples_.push_back({now, done});
  while (samples_.size() > 2 && now - samples_[1].first > kRateSeconds) samples_.pop_front();
  auto [n0, n1] = window_ ? window_() : std::pair<int, int>{tiles, tiles};
  if (n0 < 1 || n1 < n0) n0 = n1 = tiles;
  if (timed_.first != n0 || timed_.last != n1) {
    // A new window (even in the first quiet seconds, whose rows count):
    // its rows' seconds are summed until its last one, unless it is
    // continued from a later level's pass (the checkpoint holds the
    // window's unfinished levels alone): its first pass was an earlier
    // run's. Where it is continued from its first pass (from level 3 on:
    // Sieve::resumed_first_pass), that level's seconds pace its later
    // levels (below).
    timed_ = plan_from_ ? ahead(n0, n1).current : PlannedWindow{n0, n1, 1};
    timed_seconds_ = first_seconds_ = 0;
    timed_whole_ = !(n0 == first_ && continued_ && resumed_later_);
    first_continued_ = n0 == first_ && continued_ && !resumed_later_;
  }
  if (now - started_ < quiet_seconds_) return;
  const auto& [t0, w0] = samples_.front();
  const double rate = now > t0 && done > w0 ? (done - w0) / (now - t0) : 0;
  std::string text = "level " + std::to_string(tiles) + "/" + std::to_string(max_);
  char pct[16];
  std::snprintf(pct, sizeof pct, "%3.0f%%", 100 * fraction);
  text += " \u00b7 " + std::string(pct) + " \u00b7 " + clock_text(now - started_) + " elapsed";
  if (n1 > n0) text += " \u00b7 window " + std::to_string(n0) + ".." + std::to_string(n1);
  const double level_left =
      gained > 0.02 || (continued_ && gained > 0) ? (now - level_started_) * (1 - fraction) / gained : -1;
  // A continued pass of a later level of its window (a stop after the
  // window's first level) tells its level's time, not the run's: its
  // seconds per unit of work are a fraction of a first pass's.
  const bool later_pass = continued_ && resumed_later_;
  // A window's pass longer than the rate's five minutes: the marks it
  // applies come in bursts, so its pace is its fraction done instead, once
  // this program has done a tenth of it (a pass continued from a
  // checkpoint near its end has only its slow last items left: leg 6 of
  // the long run, continued at 96%, projected 140 h from them).
  const bool long_pass =
      tiles == n0 && !later_pass &&
      ((gained > kPaceFraction && now - level_started_ > kRateSeconds) || (continued_ && gained > 0));
  // A later level of a window whose first pass this program continued
  // from a checkpoint and finished, before any window has finished here:
  // paced by that level's seconds in all, as the pass was, not by the
  // marks' rate, which then still measures the pass's last minutes (the
  // long run's leg 5 showed 168 hours at 154, after 153's continued pass;
  // a test's short run, an ETA twice the time left). (The work model
  // counts all of a window's marks in its first pass, which holds for the
  // windows of a few levels high up; in a window of tens of levels low
  // down, most come from its later levels, and this pace, as the continued
  // pass's own, is too fast.)
  const bool paced_by_pass = plan_from_ && pace_ <= 0 && tiles > n0 && first_seconds_ > 0;
  if (later_pass) {
    if (level_left >= 0) text += " \u00b7 ETA level " + clock_text(level_left);
  } else if (long_pass || paced_by_pass || (rate > 0 && samples_.size() > 1 && !continued_)) {
    // The window's work per model mark (its visits: 1 without a plan), and
    // the windows after it in the same units.
    const Ahead& later = ahead(n0, n1);
    double window_marks = 0;
    for (int k = n0; k <= n1; ++k) window_marks += model_marks(table_, k, ratio_, ratio_level_);
    const double window_work = plan_from_ ? model_work(table_, later.current, ratio_, ratio_level_) : window_marks;
    double run_left = 0;
    // The window's later passes: the visits to its own levels but the last.
    double own = 0;
    if (plan_from_)
      for (int m = n0; m < n1; ++m) own += kVisitMarks * model_losing(table_, m);
    const double pass_work = std::max(window_marks, window_work - own);
    const double pace = pace_ > 0 ? pace_ : paced_by_pass ? first_seconds_ / pass_work : 0;
    if (plan_from_ && pace > 0) {
      // The seconds per unit of work of the windows finished here (or of
      // this window's first level): the rest of this window (its first
      // pass by its fraction done, or the passes of its levels left), then
      // the windows after it.
      double left = own;
      if (tiles == n0) {
        left += (1 - fraction) * pass_work;
      } else {
        left = (1 - fraction) * kVisitMarks * model_losing(table_, tiles - 1);
        for (int m = tiles; m < n1; ++m) left += kVisitMarks * model_losing(table_, m);
      }
      run_left = (left + later.later) * pace;
    } else if (long_pass) {
      // The rest of the pass, then the window's later passes and the later
      // windows at the pass's seconds per unit of work (whose absolute
      // scale cancels out).
      run_left = level_left + (now - level_started_) / gained * (own + later.later) / pass_work;
    } else {
      // Marks the window's unfinished levels will have received in all.
      double expected = 0;
      for (int k = finished_ + 1; k <= n1; ++k) expected += model_marks(table_, k, ratio_, ratio_level_);
      const double received = done - finished_marks_;  // by the unfinished levels
      run_left = std::max(0.0, expected - received) / rate + later.later / (rate * window_work / window_marks);
    }
    text += " \u00b7 ETA ";
    if (level_left >= 0) text += "level " + clock_text(level_left) + ", ";
    text += "run " + clock_text(std::min(run_left, chomp::kLongestEta));
  }
  line_.show(text);
}

const ProgressLine::Ahead& ProgressLine::ahead(int n0, int n1) {
  if (ahead_.first == n0 && ahead_.last == n1) return ahead_;
  ahead_ = Ahead{n0, n1, PlannedWindow{n0, n1, 1}, 0};
  if (!plan_from_) {
    for (int k = n1 + 1; k <= max_; ++k) ahead_.later += model_marks(table_, k, ratio_, ratio_level_);
    return ahead_;
  }
  std::vector<PlannedWindow> plan = plan_from_(n0);
  if (!plan.empty() && plan.front().first == n0 && plan.front().last == n1) {
    ahead_.current = plan.front();
    plan.erase(plan.begin());
  } else {
    // A window the plan from n0 does not open: one continued from a
    // checkpoint holds only the saved window's unfinished levels.
    plan = plan_from_(n1 + 1);
  }
  ahead_.later = model_work(table_, plan, ratio_, ratio_level_);
  return ahead_;
}

void ProgressLine::restoring(int n, int levels) {
  const std::lock_guard lock(mutex_);
  if (quiet_) return;
  char text[96];
  std::snprintf(text, sizeof text, "checking level %d of %d, %s", n, levels, clock_text(line_.elapsed()).c_str());
  line_.show(text);
}

void ProgressLine::clear() {
  const std::lock_guard lock(mutex_);
  line_.clear();
}

void ProgressLine::row(const LevelResult& r) {
  const std::lock_guard lock(mutex_);
  finished_ = r.tiles;
  ahead_ = Ahead{};  // the windows ahead are priced again with this level's ratio
  finished_marks_ += static_cast<double>(r.marks);
  if (r.tiles >= timed_.first && r.tiles <= timed_.last) {
    timed_seconds_ += r.seconds + r.window_seconds;
    if (r.tiles == timed_.first && first_continued_) first_seconds_ = r.seconds + r.window_seconds;
    if (r.tiles == timed_.last && plan_from_ && timed_whole_) {
      // Seconds and work of the windows finished here, the older ones
      // halved at each window: one window's time on a busy machine moves
      // the pace less.
      const double work = model_work(table_, timed_, ratio_, ratio_level_);
      if (work > 0 && timed_seconds_ > 0) {
        paced_seconds_ = paced_seconds_ / 2 + timed_seconds_;
        paced_work_ = paced_work_ / 2 + work;
        pace_ = paced_seconds_ / paced_work_;
      }
      timed_ = PlannedWindow{};
    }
  }
  if (r.positions >= 1000) {
    ratio_ = static_cast<double>(r.marks) / static_cast<double>(r.positions);
    ratio_level_ = r.tiles;
  }
  if (quiet_) return;
  line_.clear();
  std::printf("%6d %16llu %14llu %10.4f %10.6f %10.3f\n", r.tiles, static_cast<unsigned long long>(r.positions),
              static_cast<unsigned long long>(r.losing), 100 * r.losing_fraction(), r.hypothesis_ratio(),
              r.seconds + r.window_seconds);
  std::fflush(stdout);
}

}  // namespace chomp::app
