/// @file level_eta.cpp
/// @brief The progress line and ETA of runs whose levels' relative work is
/// known (level_eta.hpp).

#include "level_eta.hpp"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "chomp/plane_ranking.hpp"
#include "chomp/ranking.hpp"
#include "sieve_progress.hpp"

namespace chomp::app {

std::vector<double> partition_work(int max_tiles) {
  const PartitionTable partitions(max_tiles);
  std::vector<double> positions(static_cast<std::size_t>(max_tiles) + 1, 0.0);
  for (int n = 1; n <= max_tiles; ++n) positions[static_cast<std::size_t>(n)] = static_cast<double>(partitions.positions(n));
  return pull_work(positions);
}

std::vector<double> plane_partition_work(int max_cubes) {
  std::vector<double> positions;
  for (const std::uint64_t pl : plane_partition_counts(max_cubes)) positions.push_back(static_cast<double>(pl));
  return pull_work(positions);
}

std::string level_eta_text(const std::vector<double>& work, int n, double fraction, double seconds) {
  PaceEta eta;
  if (!pace_eta(work, n, fraction, seconds, eta)) return "";
  return " \u00b7 ETA level " + clock_text(eta.level_left) + ", run " + clock_text(eta.run_left);
}

LevelProgress::LevelProgress(std::vector<double> work, bool quiet) : work_(std::move(work)), quiet_(quiet) {
  if (const char* v = std::getenv("CHOMP_PROGRESS_QUIET")) {
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (end != v && s >= 0) quiet_seconds_ = s;
  }
}

void LevelProgress::level_done(int n) {
  const std::lock_guard lock(mutex_);
  done_ = n;
  level_started_ = line_.elapsed();
}

void LevelProgress::update(int n, double fraction) {
  if (quiet_) return;
  const std::lock_guard lock(mutex_);
  const double now = line_.elapsed();
  if (now < quiet_seconds_) return;
  const int max = static_cast<int>(work_.size()) - 1;
  char head[96];
  std::snprintf(head, sizeof head, "level %d/%d \u00b7 %3.0f%% \u00b7 %s elapsed", n, max, 100 * fraction,
                clock_text(now).c_str());
  // A level whose start this line did not see (its predecessor's end was
  // not reported) has no pace to read.
  const std::string eta = n == done_ + 1 ? level_eta_text(work_, n, fraction, now - level_started_) : "";
  line_.show(head + eta);
}

void LevelProgress::show(const std::string& text) {
  if (quiet_) return;
  const std::lock_guard lock(mutex_);
  if (line_.elapsed() >= quiet_seconds_) line_.show(text);
}

void LevelProgress::clear() {
  const std::lock_guard lock(mutex_);
  line_.clear();
}

}  // namespace chomp::app
