/// @file sieve_plan.cpp
/// @brief The memory, disk and time plan of `chomp sieve` (sieve_plan.hpp).

#include "sieve_plan.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "chomp/ranking.hpp"
#include "cli_checks.hpp"
#include "sieve_progress.hpp"

namespace chomp::app {

void print_plan(std::ostream& out, int max_tiles, const MemoryPlan& plan, const DiskPlan& disk, const Budget& b,
                std::uint64_t free_disk, int processes) {
  out << "plan: levels 1.." << max_tiles << ", " << plan.threads << (plan.threads == 1 ? " thread" : " threads");
  if (processes > 1) out << ", " << processes << " MPI processes (memory per process)";
  out << "\n  memory: " << human_bytes(static_cast<double>(plan.total())) << " of a budget of "
      << human_bytes(static_cast<double>(b.sieve)) << " (" << b.source << ", "
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
  out << "  disk: store ~" << human_bytes(static_cast<double>(disk.store_bytes)) << ", result file ~"
      << human_bytes(static_cast<double>(disk.result_bytes));
  // A stop inside a window saves its bitmaps beside the store (checkpoint.cpp).
  if (processes <= 1)
    out << ", a stopped window's checkpoint up to " << human_bytes(static_cast<double>(plan.bitmap_bytes));
  if (free_disk) out << "; " << human_bytes(static_cast<double>(free_disk)) << " free now";
  out << "\n";
}

void print_plan_line(int max_tiles, const MemoryPlan& plan, const DiskPlan& disk, const Budget& b,
                     std::uint64_t free_disk, int processes) {
  std::cerr << "plan: levels 1.." << max_tiles;
  if (processes > 1) std::cerr << ", " << processes << " MPI processes,";
  std::cerr << " in " << human_bytes(static_cast<double>(plan.total())) << " of memory"
            << (processes > 1 ? " per process" : "") << " (budget " << human_bytes(static_cast<double>(b.sieve))
            << "), store ~"
            << human_bytes(static_cast<double>(disk.store_bytes)) << " on disk";
  if (free_disk) std::cerr << " (" << human_bytes(static_cast<double>(free_disk)) << " free)";
  if (plan.first_sliced) std::cerr << "; levels from " << plan.first_sliced << " on in slices";
  std::cerr << '\n';
}

void print_time_estimate(std::ostream& out, int max_tiles, const MemoryPlan& plan, int threads, int processes) {
  constexpr double kSliceCost = 0.11;
  const int kCalibrationTiles = std::min(84, max_tiles);
  SieveOptions o;
  o.threads = threads;
  const auto started = std::chrono::steady_clock::now();
  Sieve calibration(kCalibrationTiles, o);
  double marks = 0;
  calibration.run([&](const LevelResult& r) { marks += static_cast<double>(r.marks); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double rate = marks / std::max(seconds, 1e-3);
  const PartitionTable big(max_tiles);
  double work = 0;
  for (int k = 1; k <= max_tiles; ++k) {
    const double m = k <= kCalibrationTiles ? 0 : model_marks(big, k);
    const double slices = plan.first_sliced && k >= plan.first_sliced ? plan.most_slices : 1;
    work += m * (1 + kSliceCost * (slices - 1));
  }
  const double estimate = seconds + work / rate / std::max(1, processes);
  char rate_text[32];
  std::snprintf(rate_text, sizeof rate_text, "%.3g", rate);
  out << "  time: ~" << clock_text(estimate) << " on " << threads_text(threads)
      << (processes > 1 ? " a process, if processes scale perfectly" : "") << " (calibrated now: " << rate_text
      << " marks/s over levels 1.." << kCalibrationTiles << " in " << seconds_text(seconds)
      << " s; model: ~r(k) p(k) marks a level, r = " << kRatioAt100 << " at 100 + " << kRatioGrowth
      << " a level; a slice beyond the first adds " << static_cast<int>(kSliceCost * 100)
      << "%; other work on this machine slows it)";
  // From the first level a window holds alone, every level decodes every
  // source below it again for itself: a cost per source the marks model
  // leaves out (doc/PERFORMANCE.md, windows of one level).
  if (plan.first_alone)
    out << "\n    a lower bound: from level " << plan.first_alone
        << " on (in a run from level 1) a window holds one level, and each level decodes every source below it "
           "again, which the model leaves out (measured times: doc/RUNNING.md)";
  out << "\n";
}

void print_plan3d(std::ostream& out, int max_cubes, const Sieve3dPlan& plan, const Budget& b,
                  std::uint64_t free_disk, int threads) {
  const auto bytes = [](std::uint64_t v) { return human_bytes(static_cast<double>(v)); };
  out << "plan: 3D levels 1.." << max_cubes << ", " << threads_text(threads) << "\n  memory: " << bytes(plan.total())
      << " of a budget of " << bytes(b.sieve) << " (" << b.source << ", " << bytes(b.limit)
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
  out << "\n  time: not estimated in 3D (doc/THREE_D.md: level 40 took about 10 minutes on 2 cores, and a level "
         "takes about 1.8 times the one below)\n";
}

void print_plan3d_line(int max_cubes, const Sieve3dPlan& plan, const Budget& b, std::uint64_t free_disk) {
  std::cerr << "plan: 3D levels 1.." << max_cubes << " in " << human_bytes(static_cast<double>(plan.total()))
            << " of memory (budget " << human_bytes(static_cast<double>(b.sieve)) << "), store ~"
            << human_bytes(static_cast<double>(plan.store_bytes)) << " on disk";
  if (free_disk) std::cerr << " (" << human_bytes(static_cast<double>(free_disk)) << " free)";
  std::cerr << '\n';
}

}  // namespace chomp::app
