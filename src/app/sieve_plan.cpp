/// @file sieve_plan.cpp
/// @brief The memory, disk and time plan of `chomp sieve` (sieve_plan.hpp).

#include "sieve_plan.hpp"

#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <vector>

#include "chomp/provenance.hpp"
#include "chomp/ranking.hpp"
#include "chomp/sieve3d.hpp"
#include "chomp/work_model.hpp"
#include "level_eta.hpp"
#include "plain_checks.hpp"
#include "sieve_progress.hpp"

namespace chomp::app {

std::uint64_t checkpoint_bytes_planned(int max_tiles, const MemoryPlan& plan, const DiskPlan& disk) {
  return plan.bitmap_bytes + (plan.first_sliced ? disk.store_bytes - plan_disk(max_tiles - 1).store_bytes : 0);
}

namespace {

/// The sieve's budget, or, for a limit below what the program itself
/// holds, that there is none (a budget of "1.0 B" read as nonsense).
std::string budget_text(const Budget& b) {
  if (b.limit > b.held) return human_bytes(static_cast<double>(b.sieve));
  return "none: the limit is below the " + human_bytes(static_cast<double>(b.held)) + " the program itself holds";
}

}  // namespace

void print_plan(std::ostream& out, int max_tiles, const MemoryPlan& plan, const DiskPlan& disk, const Budget& b,
                std::uint64_t free_disk, int processes) {
  out << "plan: levels 1.." << max_tiles << ", " << plan.threads << (plan.threads == 1 ? " thread" : " threads");
  if (processes > 1) out << ", " << processes << " MPI processes (memory per process)";
  out << "\n  memory: " << human_bytes(static_cast<double>(plan.total())) << " of a budget of "
      << budget_text(b) << " (" << b.source << ", "
      << human_bytes(static_cast<double>(b.limit)) << ", less what the program holds)\n"
      << "    bitmaps " << human_bytes(static_cast<double>(plan.bitmap_bytes)) << " (windows of up to "
      << human_bytes(static_cast<double>(plan.window_bits / 8)) << "), mark buckets "
      << human_bytes(static_cast<double>(plan.bucket_bytes)) << ", store index "
      << human_bytes(static_cast<double>(plan.index_bytes)) << ", buffers "
      << human_bytes(static_cast<double>(plan.buffer_bytes)) << "\n    ";
  if (plan.first_sliced)
    out << "levels from " << plan.first_sliced << " on in slices (up to " << plan.most_slices << " a level)\n";
  else
    out << "every level whole (no slices)\n";
  if (plan.tail_rows > 0)
    out << "    moves of " << inferred_marks_text(plan.tail_rows) << " inferred from their bits ("
        << human_bytes(static_cast<double>(plan.tail_bytes)) << ", among the buffers)"
        << (plan.tail_rows < 2 ? "; the second row's filed as marks (both rows' bits would take more than an "
                                 "eighth of the budget, or the run infers one row: --inferred-rows 1, a file whose "
                                 "run did)\n"
                               : "\n");
  else
    out << "    moves of every row filed as marks (the first row's bits would take more than an eighth of the budget, or "
           "the run files them: --file-all-marks, --inferred-rows 0, a file whose run did, MPI)\n";
  out << "  disk: store ~" << human_bytes(static_cast<double>(disk.store_bytes)) << ", result file ~"
      << human_bytes(static_cast<double>(disk.result_bytes));
  // A stop inside a window saves its bitmaps beside the store (checkpoint.cpp).
  if (processes <= 1)
    out << ", a stopped window's checkpoint up to "
        << human_bytes(static_cast<double>(checkpoint_bytes_planned(max_tiles, plan, disk)));
  if (free_disk) out << "; " << human_bytes(static_cast<double>(free_disk)) << " free now";
  out << "\n";
}

void print_plan_line(int max_tiles, const MemoryPlan& plan, const DiskPlan& disk, const Budget& b,
                     std::uint64_t free_disk, int processes) {
  std::cerr << "plan: levels 1.." << max_tiles;
  if (processes > 1) std::cerr << ", " << processes << " MPI processes,";
  // The plan's reservations (pools and buffers at their largest): a small
  // run touches far less of them. The program itself (its code, libraries,
  // the table) holds some MiB more, outside the budget.
  std::cerr << " in at most " << human_bytes(static_cast<double>(plan.total())) << " of memory"
            << (processes > 1 ? " per process" : "") << " besides the program's own (budget " << budget_text(b)
            << "), store ~"
            << human_bytes(static_cast<double>(disk.store_bytes)) << " on disk";
  if (free_disk) std::cerr << " (" << human_bytes(static_cast<double>(free_disk)) << " free)";
  if (plan.first_sliced) std::cerr << "; levels from " << plan.first_sliced << " on in slices";
  std::cerr << '\n';
}

void print_time_estimate(std::ostream& out, int max_tiles, const MemoryPlan& plan, int threads, int processes) {
  // Levels 1..92: below about 90 a run's fixed costs (threads, windows,
  // transposes) weigh on its rate (work a second, 2 threads, 2026-12-02:
  // 1.14e8 to 84, 1.52e8 to 92, 1.47e8 to 100). Calibrated to 84, the
  // model priced the long run's level 158, alone in its window, at about
  // 2,230 s; it took 1,758 s with some other work beside it; calibrated to
  // 92 (about 6 s), about 1,900 s.
  const int kCalibrationTiles = std::min(92, max_tiles);
  SieveOptions o;
  o.threads = threads;
  // The calibration files the moves of the top rows, or infers them, as the run will.
  o.inferred_rows = plan.tail_rows;
  const auto started = std::chrono::steady_clock::now();
  // Levels 1..92 in one window (the default window holds them).
  Sieve calibration(kCalibrationTiles, o);
  double marks = 0;
  calibration.run([&](const LevelResult& r) { marks += static_cast<double>(r.marks); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // Work a second, in the model's units: its marks (those a push files:
  // a run that infers the top rows' moves files fewer, in less time) and a
  // visit to each losing position below the window's last level.
  const PartitionTable small(kCalibrationTiles);
  const double rate =
      model_work(small, PlannedWindow{1, kCalibrationTiles, 1}) / std::max(seconds, 1e-3);
  const PartitionTable big(max_tiles);
  const double per_process = 1.0 / std::max(1, processes);
  const double estimate = model_work(big, plan.windows) / rate * per_process;
  char rate_text[32];
  std::snprintf(rate_text, sizeof rate_text, "%.3g", marks / std::max(seconds, 1e-3));
  const int first = plan.windows.empty() ? max_tiles + 1 : plan.windows.front().first;
  out << "  time: ~" << clock_text(estimate);
  if (first > 1) out << " for levels " << first << ".." << max_tiles;
  out << " on " << threads_text(threads)
      << (processes > 1 ? " a process, if processes scale perfectly" : "") << " (calibrated now: " << rate_text
      << " marks/s over levels 1.." << kCalibrationTiles << " in " << seconds_text(seconds)
      << " s; model: ~r(k) p(k) marks a level, r = " << kRatioAt100 << " at 100 + " << kRatioGrowth
      << " a level, and in each window a visit to every source below its last level, costing "
      << static_cast<int>(kVisitMarks) << " marks; a slice beyond the first adds " << static_cast<int>(kSliceCost * 100)
      << "%; other work on this machine slows it)";
  // From the first level a window holds alone, every level decodes every
  // source below it again for itself: most of those windows' time
  // (doc/PERFORMANCE.md, windows of one level).
  if (plan.first_alone) {
    double alone = 0, visits = 0;
    for (const PlannedWindow& w : plan.windows)
      if (w.first >= plan.first_alone) {
        alone += model_work(big, w);
        visits += model_visit_work(big, w);
      }
    out << "\n    from level " << plan.first_alone << " on a window holds one level: those windows take ~"
        << clock_text(alone / rate * per_process) << " of it, " << static_cast<int>(100 * visits / alone + 0.5)
        << "% of that visiting the sources below each level again (measured times: doc/RUNNING.md)";
  }
  out << "\n";
}

void print_plan3d(std::ostream& out, int max_cubes, const Sieve3dPlan& plan, const Budget& b,
                  std::uint64_t free_disk, int threads, std::size_t done) {
  const auto bytes = [](std::uint64_t v) { return human_bytes(static_cast<double>(v)); };
  out << "plan: 3D levels 1.." << max_cubes << ", " << threads_text(threads) << "\n  memory: " << bytes(plan.total())
      << " of a budget of " << budget_text(b) << " (" << b.source << ", " << bytes(b.limit)
      << ", less what the program holds)\n    losing sets of levels 1.." << max_cubes - 1 << " "
      << bytes(plan.sets_bytes) << ", building level " << max_cubes << " " << bytes(plan.level_bytes) << " ("
      << plan.build_bytes_each << " bytes a losing position)\n    ";
  if (plan.first_estimated > max_cubes)
    out << "L(n) of every level from the file";
  else
    out << (plan.first_estimated > 1 ? "L(n) of levels 1.." + std::to_string(plan.first_estimated - 1) +
                                           " from the file, of " + std::to_string(plan.first_estimated) + ".."
                                     : std::string("L(n) of levels 1..")) +
               std::to_string(max_cubes) + " estimated as r PL(n) / ln PL(n), r = 1 to level 40 and 0.003 more "
                                           "a level beyond";
  out << " (" << plan.losing << " losing positions in all)\n  disk: store ~" << bytes(plan.store_bytes)
      << ", result file ~" << bytes(plan.result_bytes);
  if (free_disk) out << "; " << bytes(free_disk) << " free now";
  out << "\n  time: ";
  if (plan.total() > b.sieve) {
    out << "not estimated (the run does not fit)\n";
    return;
  }
  const int from = static_cast<int>(done) + 1;
  if (from > max_cubes) {
    out << "none (levels 1.." << max_cubes << " are in the file)\n";
    return;
  }
  out.flush();  // the plan before the seconds of calibration
  // Levels 1..30 computed now (a few seconds), the levels above at the pace
  // of levels 26..30 for PL(n) n each (positions times moves). It leaves
  // out each level's store write and a resumed run's checks of its saved
  // levels, and levels grow faster than PL(n) n (doc/THREE_D.md): it runs
  // short, the more so the larger the run.
  constexpr int kCalibrationCubes = 30;
  const int k = std::min(max_cubes, kCalibrationCubes);
  std::vector<double> level_seconds(static_cast<std::size_t>(k) + 1, 0.0);
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    Sieve3d calibration(k);
    for (int n = 1; n <= k; ++n) level_seconds[static_cast<std::size_t>(n)] = calibration.next_level().seconds;
  }
  const double estimate = calibrated_run_seconds(plane_partition_work(max_cubes), level_seconds, k, from);
  double calibrated = 0;
  for (const double s : level_seconds) calibrated += s;
  out << "about " << clock_text(estimate);
  if (from > 1) out << " for levels " << from << ".." << max_cubes;
  out << " on " << threads_text(threads) << " (calibrated now: levels 1.." << k << " in " << seconds_text(calibrated)
      << " s";
  if (max_cubes > k)
    out << ", the levels above at the pace of levels " << k - 4 << ".." << k
        << " for PL(n) n each; it runs short for larger runs: the run to 40 took 1.4 times its estimate, "
           "doc/THREE_D.md";
  out << ")\n";
}

void print_plan3d_line(int max_cubes, const Sieve3dPlan& plan, const Budget& b, std::uint64_t free_disk) {
  std::cerr << "plan: 3D levels 1.." << max_cubes << " in at most " << human_bytes(static_cast<double>(plan.total()))
            << " of memory besides the program's own (budget "
            << budget_text(b)
            << "), store ~" << human_bytes(static_cast<double>(plan.store_bytes)) << " on disk";
  if (free_disk) std::cerr << " (" << human_bytes(static_cast<double>(free_disk)) << " free)";
  std::cerr << '\n';
}

}  // namespace chomp::app
