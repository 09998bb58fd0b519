/// @file sieve.hpp
/// @brief The level-by-level sieve that classifies every Chomp position.
///
/// Levels n = 1, 2, ... are finished in order. For level n a bitmap of p(n)
/// bits starts clear (but see below); every losing position of every smaller
/// level marks its one-move extensions with n tiles (chomp/extensions.hpp,
/// the kernel in src/extensions.hpp) as winning; the positions left unmarked
/// are losing and are stored (rank gaps, losing_store.hpp) to mark the
/// levels above. Only the current level's bitmap is ever held.
///
/// Only canonical positions are decided (first row at least as long as the
/// first column): the others start set, and before a level is scanned each
/// canonical losing position clears its transpose's bit, since a position
/// and its transpose are both losing or both winning. Sources mark only
/// what can be canonical, about a third fewer marks (src/extensions.hpp), so
/// `marks` counts less work than the engines that made the tables in data/.
///
/// Parallelism (oneTBB): threads take chunks of stored losing positions,
/// enumerate their extensions and file each mark into a bucket by the
/// bitmap segment it lands in; then each segment applies its buckets while it
/// sits in cache, one owner per segment, no atomics. The result does not
/// depend on the number of threads (marks are ORed).
///
/// Distributed (process_group.hpp; `mpirun -np K chomp sieve` in the MPI
/// build): each of K processes holds a contiguous share of the segments,
/// extends its share of the sources, sends marks to the segments' owners
/// once per round, scans its own segments and broadcasts the losing ranks it
/// found, so every process keeps the whole store and finds the same levels.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <memory>
#include <span>
#include <vector>

#include "chomp/losing_store.hpp"
#include "chomp/position.hpp"
#include "chomp/ranking.hpp"

namespace chomp {

class ProcessGroup;  // process_group.hpp

/// What one finished level contributes to the table.
struct LevelResult {
  int tiles = 0;
  std::uint64_t positions = 0;  ///< p(n)
  std::uint64_t losing = 0;     ///< L(n)
  std::uint64_t marks = 0;      ///< winning marks applied (work counter; see above)
  double seconds = 0;           ///< wall time of its next_level(), which begins with the marks of level n - 1

  double losing_fraction() const;
  /// L / (p / ln p); NaN where ln p = 0 (n = 1).
  double hypothesis_ratio() const;
};

/// L / (p / ln p), NaN where ln p = 0.
double hypothesis_ratio(std::uint64_t positions, std::uint64_t losing);

/// Called from worker threads with the finished fraction (0..1) of the level
/// in progress; the sieve calls it at most every few tenths of a second.
using ProgressFn = std::function<void(int tiles, double fraction)>;

/// Memory the sieve will need for a run, in bytes, before it allocates.
struct MemoryPlan {
  std::uint64_t bitmap_bytes = 0;   ///< the largest level's bitmap
  std::uint64_t store_bytes = 0;    ///< estimate of the stored losing positions
  std::uint64_t bucket_bytes = 0;   ///< pending marks of one round
  std::uint64_t scan_bytes = 0;     ///< losing ranks on their way from a bitmap to the store
  std::uint64_t total() const { return bitmap_bytes + store_bytes + bucket_bytes + scan_bytes; }
};

/// The plan for a run to max_tiles (estimates the losing store from the
/// conjectured density; the bitmap and buckets are exact). With several
/// processes (a distributed sieve) the figures are per process: each holds
/// its share of the bitmaps, its own buckets and the whole losing store.
MemoryPlan plan_memory(int max_tiles, int processes = 1);

/// Thrown by Sieve::next_level when the stop flag was raised; the level in
/// progress is abandoned and every finished level stays intact.
class SieveInterrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Wall seconds a sieve has spent in each part of its work so far (this
/// process's next_level calls), to see which part keeps threads from
/// scaling. `chomp sieve` prints them at the end of a run.
struct PhaseTimes {
  double opening = 0;     ///< opening windows: clearing bitmaps, setting the bits that are not canonical
  double filing = 0;      ///< decoding sources, enumerating their extensions, filing the marks
  double applying = 0;    ///< applying the filed marks segment by segment (and exchanging them between processes)
  double transposes = 0;  ///< clearing the transposes of canonical losing positions
  double scanning = 0;    ///< collecting each level's losing ranks into the store (and sharing them)
};

class Sieve {
 public:
  /// Prepares a run to max_tiles (1 .. kMaxTiles); allocates nothing large
  /// until the first level. The thread count is oneTBB's (set it with
  /// tbb::global_control).
  explicit Sieve(int max_tiles);
  /// A sieve shared by the processes of `group` (an MPI job; nullptr or a
  /// group of one: this process alone). Each holds its share of every
  /// window's bitmap and the whole losing store; next_level, run and
  /// restore_level are collective (every process calls them in step) and
  /// give every process the same results. group must outlive the sieve.
  Sieve(int max_tiles, ProcessGroup* group);
  ~Sieve();
  Sieve(const Sieve&) = delete;
  Sieve& operator=(const Sieve&) = delete;

  int max_tiles() const;
  /// The number of finished levels; the next level is levels_done() + 1.
  int levels_done() const;

  /// A flag (set from a signal handler, say) that makes the level in
  /// progress stop soon and next_level throw SieveInterrupted.
  void set_stop_flag(const std::atomic<bool>* flag);

  /// Whether work outside the sieve (restoring a run, say) should stop now:
  /// the stop flag is raised. Always false in a distributed sieve, whose
  /// processes agree on stopping inside next_level so that none stops alone.
  bool stop_requested() const;

  /// Computes the next level. Requires levels_done() < max_tiles().
  LevelResult next_level(const ProgressFn& progress = {});

  /// Re-installs a level finished earlier (resuming a run): n must be
  /// levels_done() + 1 and ranks the level's losing ranks, increasing.
  /// In a distributed sieve, process 0's ranks are sent to all (the others
  /// may pass none).
  void restore_level(int n, std::span<const std::uint64_t> losing_ranks, std::uint64_t marks);

  /// Runs the remaining levels, calling on_level after each.
  void run(const std::function<void(const LevelResult&)>& on_level,
           const ProgressFn& progress = {});

  const PartitionTable& table() const;
  const LosingStore& losing() const;
  PhaseTimes phase_times() const;

  /// The losing positions with n tiles (n <= levels_done()), as staircases.
  std::vector<Rows> losing_positions(int n) const;

  /// Status of a position with at most levels_done() tiles.
  bool is_losing(std::span<const int> rows) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace chomp
