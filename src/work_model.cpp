/// @file work_model.cpp
/// @brief The cost of a run's windows in marks (chomp/work_model.hpp).

#include "chomp/work_model.hpp"

#include <algorithm>
#include <cmath>

namespace chomp {

double model_marks(const PartitionTable& table, int k, double r0, int k0) {
  return std::max(1.0, r0 + kRatioGrowth * (k - k0)) * static_cast<double>(table.positions(k));
}

double model_source_marks(int d) { return 4 + std::exp(1.38 * std::sqrt(static_cast<double>(d)) - 4.47); }

double model_losing(const PartitionTable& table, int k) {
  const double p = static_cast<double>(table.positions(k));
  return p < 3 ? 1.0 : std::max(1.0, kModelDensity * p / std::log(p));
}

double model_visits(const PartitionTable& table, const PlannedWindow& w) {
  double below = 0;
  for (int m = 1; m < w.last; ++m) below += model_losing(table, m);
  return below;
}

double model_visit_work(const PartitionTable& table, const PlannedWindow& w) {
  return kVisitMarks * model_visits(table, w) * (1 + kSliceCost * (w.slices - 1));
}

double model_work(const PartitionTable& table, const PlannedWindow& w, double r0, int k0) {
  double marks = 0;
  for (int k = w.first; k <= w.last; ++k) marks += model_marks(table, k, r0, k0);
  return marks * (1 + kSliceCost * (w.slices - 1)) + model_visit_work(table, w);
}

double model_work(const PartitionTable& table, const std::vector<PlannedWindow>& windows, double r0, int k0) {
  double work = 0;
  for (const PlannedWindow& w : windows) work += model_work(table, w, r0, k0);
  return work;
}

std::vector<double> pull_work(const std::vector<double>& positions) {
  std::vector<double> work(positions.size(), 0.0);
  for (std::size_t n = 0; n < positions.size(); ++n) work[n] = positions[n] * static_cast<double>(n);
  return work;
}

bool pace_eta(const std::vector<double>& work, int n, double fraction, double seconds, PaceEta& out) {
  const std::size_t i = static_cast<std::size_t>(n);
  if (n < 1 || i >= work.size() || work[i] <= 0 || fraction < 0.02 || seconds < 0.2) return false;
  fraction = std::min(fraction, 1.0);
  const double pace = seconds / (fraction * work[i]);  // seconds per unit of work
  const double level_left = pace * (1 - fraction) * work[i];
  double later = 0;
  for (std::size_t m = i + 1; m < work.size(); ++m) later += work[m];
  out.level_left = std::min(level_left, kLongestEta);
  out.run_left = std::min(level_left + pace * later, kLongestEta);
  return true;
}

double calibrated_run_seconds(const std::vector<double>& work, const std::vector<double>& level_seconds, int k,
                              int from) {
  double timed = 0, timed_work = 0, own = 0, rest = 0;
  for (int n = std::max(1, k - 4); n <= k && static_cast<std::size_t>(n) < level_seconds.size(); ++n)
    timed += level_seconds[static_cast<std::size_t>(n)], timed_work += work[static_cast<std::size_t>(n)];
  for (int n = std::max(1, from); n <= k && static_cast<std::size_t>(n) < level_seconds.size(); ++n)
    own += level_seconds[static_cast<std::size_t>(n)];
  for (std::size_t n = static_cast<std::size_t>(std::max(k + 1, from)); n < work.size(); ++n) rest += work[n];
  return own + (timed_work > 0 ? timed / timed_work * rest : 0);
}

}  // namespace chomp
