/// @file sieve_plan.hpp
/// @brief The plan `chomp sieve` prints before it runs: memory, disk and,
/// for --dry-run, the time on this machine from a calibration it measures.
#pragma once

#include <cstdint>
#include <ostream>

#include "chomp/sieve.hpp"
#include "chomp/sieve3d.hpp"
#include "run_guards.hpp"

namespace chomp::app {

/// The most a stopped window's checkpoint takes on disk: the window's
/// bitmaps, and in a sliced level the slices finished so far (at most the
/// last level's store bytes).
std::uint64_t checkpoint_bytes_planned(int max_tiles, const MemoryPlan& plan, const DiskPlan& disk);

/// The plan in full (--dry-run, on stdout).
void print_plan(std::ostream& out, int max_tiles, const MemoryPlan& plan, const DiskPlan& disk, const Budget& b,
                std::uint64_t free_disk, int processes);

/// The plan in one line on stderr, for a run.
void print_plan_line(int max_tiles, const MemoryPlan& plan, const DiskPlan& disk, const Budget& b,
                     std::uint64_t free_disk, int processes);

/// --dry-run's time: a calibration run (levels 1..92 in one window, about
/// six seconds) measures the work model's units (chomp/work_model.hpp: marks,
/// and visits to sources) per second on this machine with these threads;
/// the plan's windows are priced in them (a resumed run's plan starts at
/// its next level, and the time is that of the levels left). From the
/// plan's first level alone in its window it says what those windows
/// take, and how much of it is visits.
void print_time_estimate(std::ostream& out, int max_tiles, const MemoryPlan& plan, int threads, int processes);

/// A 3D run's plan in full (--dry-run with --dimensions 3, on stdout):
/// the losing sets and the last level, which levels' L(n) are estimated,
/// the store and the result file, and, when it fits, the time of its
/// levels done + 1..max_cubes from levels 1..30 computed now.
void print_plan3d(std::ostream& out, int max_cubes, const Sieve3dPlan& plan, const Budget& b,
                  std::uint64_t free_disk, int threads, std::size_t done);

/// A 3D run's plan in one line on stderr.
void print_plan3d_line(int max_cubes, const Sieve3dPlan& plan, const Budget& b, std::uint64_t free_disk);

}  // namespace chomp::app
