/// @file progress_gap.cpp
/// @brief How well a pass's reported fraction follows its time: a run to N
/// with every level from F on alone in its window (as the long run's levels
/// are from 157 on), or with the usual windows when F is above N, and for
/// each level the largest gap between the fraction the progress function
/// was given and the fraction of the level's time gone when it was given.
///
///     build/benchmarks/chomp_progress_gap [N=100] [F=96] [threads=1]
///
/// A timing, so a benchmark and not a test: run it on a quiet machine, or
/// compare two builds side by side (doc/PERFORMANCE.md, "Progress").
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include "chomp/sieve.hpp"

using namespace chomp;

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100;
  const int from = argc > 2 ? std::atoi(argv[2]) : 96;
  SieveOptions o;
  o.threads = argc > 3 ? std::atoi(argv[3]) : 1;
  if (from <= n) o.min_slices = 1, o.slice_from = from;
  Sieve sieve(n, o);
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto now = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  std::map<int, std::vector<std::pair<double, double>>> reports;  // level: (time, fraction)
  std::map<int, double> began, ended;
  sieve.run(
      [&](const LevelResult& r) {
        ended[r.tiles] = now();
        began[r.tiles + 1] = ended[r.tiles];
      },
      [&](int tiles, double fraction) { reports[tiles].push_back({now(), fraction}); });
  std::printf("N = %d, levels from %d alone in their windows, %d thread(s)\n", n, from, o.threads);
  std::printf("%6s %10s %8s %12s %14s\n", "level", "seconds", "reports", "largest gap", "at time gone");
  for (const auto& [k, v] : reports) {
    if (!ended.count(k) || ended[k] - began[k] < 1.0) continue;  // passes under a second say little
    const double s = began[k], e = ended[k];
    double worst = 0, at = 0;
    for (const auto& [t, f] : v) {
      const double gone = (t - s) / (e - s), gap = std::fabs(f - gone);
      if (gap > worst) worst = gap, at = gone;
    }
    std::printf("%6d %10.1f %8zu %12.2f %13.0f%%\n", k, e - s, v.size(), worst, 100 * at);
  }
  return 0;
}
