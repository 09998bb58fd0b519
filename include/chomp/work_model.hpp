/// @file work_model.hpp
/// @brief What a run's windows cost, counted in marks: the model behind
/// `chomp sieve --dry-run`'s time and the progress line's ETA.
///
/// A window's passes do two kinds of work. They file and apply its marks,
/// about r(k) p(k) into level k (r = 1.263 at k = 100, growing 0.00115 a
/// level: the committed table's marks column), and they visit sources:
/// every losing position below the window's last level is read, decoded
/// and walked once (those below its first level in its first pass, each of
/// its own levels in the pass that follows it). Where a window holds many
/// levels the marks are nearly all of it; where it holds one (the long
/// run from about 157 on) about half of a level's time is the visits, which
/// is why those levels cost about twice what their marks say. A visit costs
/// about kVisitMarks marks; a level in s slices costs 1 + kSliceCost (s - 1)
/// times its whole window (each slice reads the sources that reach it).
/// The absolute scale (seconds a mark) is measured by whoever uses the
/// model: a calibration run, or the run's own pace.
#pragma once

#include <vector>

#include "chomp/ranking.hpp"
#include "chomp/sieve.hpp"

namespace chomp {

/// Marks per position: r(k) = r0 + kRatioGrowth (k - k0), from a level k0
/// whose r0 was measured. The committed table (marks into canonical
/// positions only): 1.121 at n = 40, 1.263 at 100, 1.321 at 150, 1.326 at
/// 155; the line through 100 and 150 is within 0.3% of it from 100 to 155.
/// (Until 2026-12-02 this was 1.98 + 0.0032 a level, the marks of the
/// engines that marked every position: 1.57 times the marks counted now.)
inline constexpr double kRatioGrowth = 0.00115;
inline constexpr double kRatioAt100 = 1.263;

/// A source's visit in a pass, in marks. N = 110 with every level from 100
/// on alone in its window took 103-124 CPU-s against 62 for the same run in
/// one window (2 threads, 2026-12-02, experiments/results/bench.csv, rows
/// chomp-slices1 and chomp): 4.24e8 visits more for the same 6.92e9 marks,
/// 97-146 ns a visit against 8.9 ns a mark.
inline constexpr double kVisitMarks = 13;

/// What each slice beyond the first adds to a level alone in its window
/// (N = 120, every level from 100 on alone: 2 slices 1.07x, 4 slices
/// 1.35x of the marking).
inline constexpr double kSliceCost = 0.11;

/// L(n) / (p(n) / ln p(n)) for the model's losing positions: 0.276-0.281
/// at n = 100..156 (the committed tables).
inline constexpr double kModelDensity = 0.278;

/// The entries (points and ranges) one losing source makes into a level d
/// tiles above it, on average: 4 + exp(1.38 sqrt(d) - 4.47), fitted to every
/// source of levels below 70, 80 and 90 extended into that level alone
/// (N = 90; measured 3.7-4.1 at d = 1, 4.6-4.8 at 10, 8.9-10.8 at 20,
/// 22.8-28.8 at 30, 64-90 at 40). Far below p(d), the bound on them (77 at
/// d = 12, 8,349 at 32): most blocks of d tiles fit no corner of a source.
/// Beyond d = 40 it is an extrapolation (the sources of low levels, few of
/// them, make more: 1,800-16,000 at d = 55-60 into level 90). What a
/// pass's items cost, for its progress (marking.cpp).
double model_source_marks(int d);

/// The model's marks into level k.
double model_marks(const PartitionTable& table, int k, double r0 = kRatioAt100, int k0 = 100);

/// The model's losing positions of level k (at least 1).
double model_losing(const PartitionTable& table, int k);

/// The sources a window's passes visit: the model's losing positions of
/// every level below its last (model_work counts its slices).
double model_visits(const PartitionTable& table, const PlannedWindow& w);

/// What a window's visits cost in marks: model_visits at kVisitMarks each,
/// times 1 + kSliceCost (slices - 1).
double model_visit_work(const PartitionTable& table, const PlannedWindow& w);

/// A window's cost in marks: its marks and its visits at kVisitMarks each,
/// times 1 + kSliceCost (slices - 1).
double model_work(const PartitionTable& table, const PlannedWindow& w, double r0 = kRatioAt100, int k0 = 100);

/// The windows' cost together.
double model_work(const PartitionTable& table, const std::vector<PlannedWindow>& windows, double r0 = kRatioAt100,
                  int k0 = 100);

/// The work of levels 0..N for a pull that tries every move of every
/// position (chomp grundy, the 3D sieve), in one unit: positions(n) x n (a
/// position of n tiles or cubes has at most n - 1 moves). `positions` holds
/// p(n) or PL(n) for n = 0..N.
std::vector<double> pull_work(const std::vector<double>& positions);

/// Seconds left in level n and in the whole run (levels n..N of `work`),
/// from the level's pace so far: `fraction` of it done in `seconds`. Both
/// are at most kLongestEta (a pace that has all but stopped).
struct PaceEta {
  double level_left = 0;
  double run_left = 0;
};
inline constexpr double kLongestEta = 1e8;
/// False (no pace to read yet) under 2% of the level or 0.2 s of it, or
/// for a level outside 1..N.
bool pace_eta(const std::vector<double>& work, int n, double fraction, double seconds, PaceEta& out);

/// A dry run's time for levels from..N of `work` (N = work.size() - 1):
/// levels 1..k were computed then and there, level n in level_seconds[n]
/// (n = 1..k); the levels from..k take what they took, and the levels
/// above k the pace of levels k-4..k in seconds per unit of work.
double calibrated_run_seconds(const std::vector<double>& work, const std::vector<double>& level_seconds, int k,
                              int from = 1);

}  // namespace chomp
