/// @file sieve.hpp
/// @brief The level-by-level sieve that classifies every Chomp position.
///
/// Levels n = 1, 2, ... are finished in order. Every losing position of
/// every smaller level marks its one-move extensions with n tiles
/// (src/extensions.hpp) as winning; the positions of level n left unmarked
/// are losing and go to the store (losing_store.hpp), a file that the
/// passes over the levels above read back in order.
///
/// The sieve holds a window of bitmaps at a time, within a memory budget
/// (SieveOptions::memory_budget): several whole levels while they fit, so
/// that a pass over the store marks them all, or else one slice of a
/// level, the positions whose first row is in a range a..b, which are
/// consecutive ranks. A level too large for the budget is finished slice by
/// slice, highest first rows first, each slice with its own pass over the
/// sources that can reach it (a source with first row c reaches first rows
/// c..c+d only, at its top corner, and c otherwise).
///
/// Only canonical positions are decided (first row at least as long as the
/// first column): the others start set, and before a level (or slice) is
/// scanned each canonical losing position clears its transpose's bit, since
/// a position and its transpose are both losing or both winning. Sources
/// mark only what can be canonical, about a third fewer marks
/// (src/extensions.hpp), so `marks` counts less work than the engines that
/// made the first tables in data/.
///
/// Parallelism (oneTBB, in an arena of SieveOptions::threads): threads take
/// parts of the store's blocks, enumerate their extensions and file each
/// mark into a bucket by the bitmap segment it lands in; then each segment
/// applies its buckets while it sits in cache, one owner per segment, no
/// atomics. The result does not depend on the number of threads.
///
/// Distributed (process_group.hpp; `mpirun -np K chomp sieve` in the MPI
/// build): each of K processes holds a contiguous share of the window's
/// segments, extends its share of the sources, sends marks to the segments'
/// owners once per round and scans its own segments; process 0 gathers the
/// losing ranks and writes the store, which every process reads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
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
  double seconds = 0;           ///< wall time of the level's own work (its slices, transposes, scan)
  double window_seconds = 0;    ///< the pass that opened its window, shared by the window's levels
                                ///< (counted with the window's first level only)
  int slices = 1;               ///< slices it was finished in
  StoredLevel stored;           ///< where the store keeps its losing positions

  double losing_fraction() const;
  /// L / (p / ln p); NaN where ln p = 0 (n = 1).
  double hypothesis_ratio() const;
};

/// L / (p / ln p), NaN where ln p = 0.
double hypothesis_ratio(std::uint64_t positions, std::uint64_t losing);

/// Progress of the level in progress, from worker threads, at most twice a
/// second: the level and the fraction (0..1) of
/// its pass's estimated work (marks) done, for an ETA.
using ProgressFn = std::function<void(int tiles, double fraction)>;

/// How a sieve runs: values, not process-wide settings.
struct SieveOptions {
  /// Worker threads (oneTBB arena); 0: every core.
  int threads = 0;
  /// Bytes the sieve may hold: bitmaps, buckets, buffers and the store's
  /// index (not the program around it). 0: no budget, the engine's
  /// built-in sizes (src/config.hpp in the source tree).
  std::uint64_t memory_budget = 0;
  /// Decide canonical positions only and take the others as their
  /// transposes; false: decide every position (to compare with).
  bool transposes = true;
  /// Infer the marks of moves of the first rows, this many (at most 2:
  /// the first, or the first two), from bits per tail and per second-row
  /// context instead of filing them (src/tail_marks.hpp; one process only;
  /// fewer rows when the bits would not fit: inferred_rows()); 0: file them
  /// (the `marks` of every level count them then).
  int inferred_rows = 2;
  /// Tuning and test seams; 0 takes the value the budget gives.
  std::uint64_t round_marks = 0;  ///< marks pending per round (per process)
  std::uint64_t window_bits = 0;  ///< the most bits of bitmap a window holds (per process)
  std::uint64_t scan_batch = 0;   ///< losing ranks collected at a time
  std::uint64_t direct_call_marks = 0;  ///< a source's marks into one level beyond which they skip the buckets (only lowers the default)
  int min_slices = 0;             ///< if > 0: each level from slice_from on alone in its window, in about this many slices (whole first rows each, so fewer where a level has too few)
  int slice_from = 0;
  /// A file for the window's progress (src/checkpoint.cpp): when the run is
  /// stopped inside a pass over a window (of whole levels, or a slice of
  /// one level), the window's bitmaps and the pass's progress are written there, and a sieve made
  /// later over the same store (a resumed run) continues the pass from them
  /// instead of marking the window again. Empty: none. One process only.
  std::string checkpoint;
  /// Also save the checkpoint every this many seconds of a long pass, so
  /// that a kill loses at most that much (0: only at a stop).
  double checkpoint_seconds = 0;
  /// The size the store will reach by the run's end (0: unknown). A
  /// checkpoint is not saved when, once written, it would leave less free
  /// on its disk than the store still needs: a stop would then mark the
  /// window again, but a save never takes the room of the run's results.
  std::uint64_t store_bytes_planned = 0;
};

/// A window a run will open, as its memory plan foresees it: levels
/// first..last whole, or level first (== last) alone, in `slices` slices
/// of first rows (1: whole).
struct PlannedWindow {
  int first = 0, last = 0;
  int slices = 1;
};

/// The memory a run fits itself into and how (plan_run), per process.
struct MemoryPlan {
  std::uint64_t budget = 0;        ///< what it was planned for (0: none)
  std::uint64_t bitmap_bytes = 0;  ///< the largest window or slice
  std::uint64_t bucket_bytes = 0;  ///< pending marks of one round, per thread blocks
  std::uint64_t index_bytes = 0;   ///< the store's index of every level, at the last level
  std::uint64_t buffer_bytes = 0;  ///< the scan's and the store's buffers, the partition table, threads' state, tail_bytes
  std::uint64_t tail_bytes = 0;    ///< the rows' bits (src/tail_marks.hpp; 0: every move is filed as marks)
  int tail_rows = 0;               ///< the top rows whose moves those bits stand for (0: none)
  std::uint64_t window_bits = 0;   ///< the most bits a window holds
  std::uint64_t round_marks = 0;
  std::uint64_t scan_batch = 0;
  int threads = 1;
  int most_slices = 1;     ///< slices of the largest level
  int first_sliced = 0;    ///< the first level finished in slices (0: none)
  /// The first level a window holds alone (whole or in slices; 0: none), in
  /// a run from plan_run's first level: from there on every level decodes
  /// every source below it again. (A resumed run's windows start where it
  /// resumed.)
  int first_alone = 0;
  /// Every window of a run from plan_run's first level to max_tiles, in
  /// order: the sieve opens these (chomp/work_model.hpp prices them), but
  /// for a window continued from a checkpoint, which holds the saved
  /// window's unfinished levels only.
  std::vector<PlannedWindow> windows;
  std::uint64_t total() const { return bitmap_bytes + bucket_bytes + index_bytes + buffer_bytes; }
};

/// Disk a run needs (estimates from the conjectured density).
struct DiskPlan {
  std::uint64_t store_bytes = 0;   ///< the store file at the last level
  std::uint64_t result_bytes = 0;  ///< the HDF5 result file
};

/// The budget is too small for the run: not even the smallest slice fits.
class BudgetTooSmall : public std::runtime_error {
 public:
  BudgetTooSmall(const std::string& what, std::uint64_t smallest) : std::runtime_error(what), smallest(smallest) {}
  std::uint64_t smallest;  ///< the smallest budget that works
};

/// The plan for a run to max_tiles with these options, by `processes`
/// processes (the figures are per process), whose windows start at level
/// first_level (a resumed run's next level; 1 for a run from the start:
/// the memory figures are the whole run's either way). Throws
/// BudgetTooSmall.
MemoryPlan plan_run(int max_tiles, const SieveOptions& options, int processes = 1, int first_level = 1);

/// How many top rows' moves a run with these options infers from bits
/// (src/tail_marks.hpp) rather than filing them as marks: with one process,
/// the most rows, up to SieveOptions::inferred_rows, whose bits fit an
/// eighth of the budget (2 GiB without one); 0: it files every mark. Its
/// `marks` leave those rows' moves out.
int inferred_rows(int max_tiles, const SieveOptions& options, int processes = 1);
/// The disk a run to max_tiles needs.
DiskPlan plan_disk(int max_tiles);

/// What a window's checkpoint file (SieveOptions::checkpoint) says it
/// continues, read from its checked header: for a program to check, before
/// a run starts, that the run can use it.
struct CheckpointInfo {
  std::string run_id;
  int level = 0;                  ///< the last finished level it continues
  int threads = 0;                ///< the thread count it must be continued with (0: any)
  std::uint64_t bitmap_bytes = 0; ///< the window it holds
};
/// The checkpoint at path, or nothing when there is none or its header does
/// not check (a sieve then says why it ignores it).
std::optional<CheckpointInfo> peek_checkpoint(const std::string& path);

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
  double filing = 0;      ///< reading and decoding sources, enumerating their extensions, filing the marks
  double applying = 0;    ///< applying the filed marks segment by segment (and exchanging them between processes)
  double transposes = 0;  ///< clearing the transposes of canonical losing positions
  double scanning = 0;    ///< collecting each level's losing ranks into the store (and sharing them)
  double checkpoints = 0; ///< writing the window's checkpoints and reading one back
  double tails = 0;       ///< the tails' bits: ORed into each level, set from its losing positions and their rays
  /// Not seconds: the calls of the kernel too large for the buckets that
  /// the processes of an MPI run each made for their own bits instead of
  /// filing and sending their marks (0 in a run of one process).
  std::uint64_t split_calls = 0;
};

class Sieve {
 public:
  /// A sieve of its own: a temporary store, default options (tests, small uses).
  explicit Sieve(int max_tiles, const SieveOptions& options = {});
  /// A run to max_tiles (1 .. kMaxTiles) over `store`, whose finished
  /// levels (store.levels()) it continues from. With a process group of
  /// more than one (an MPI job), each process holds its share of every
  /// window's bitmap; process 0's store is written, the others' are the
  /// same file opened for reading; next_level and run are collective.
  /// store and group must outlive the sieve. Allocates the rows' bits
  /// (MemoryPlan::tail_bytes) and, over a store with finished levels,
  /// fills them from every finished level (a read of the whole store); the
  /// window's bitmap waits for the first level. Throws BudgetTooSmall when
  /// options.memory_budget cannot hold the smallest window, and
  /// std::invalid_argument when the store holds more levels than max_tiles,
  /// or for options.threads < 0 or options.inferred_rows outside 0..2.
  Sieve(int max_tiles, LosingStore& store, const SieveOptions& options, ProcessGroup* group = nullptr);
  ~Sieve();
  Sieve(const Sieve&) = delete;
  Sieve& operator=(const Sieve&) = delete;

  int max_tiles() const;
  /// The number of finished levels; the next level is levels_done() + 1.
  int levels_done() const;
  /// The levels of the window held now (first, last): several whole levels,
  /// or one level in slices; (n, n - 1) when none is. For progress reports,
  /// from any thread while a level is computed.
  std::pair<int, int> window_levels() const;
  /// Marks applied so far by this process since the Sieve was made, into
  /// every level of every window (a level's own LevelResult::marks count
  /// only those into it). For progress reports, from any thread.
  std::uint64_t marks_applied() const;
  const MemoryPlan& plan() const;

  /// A flag (set from a signal handler, say) that makes the level in
  /// progress stop soon and next_level throw SieveInterrupted.
  void set_stop_flag(const std::atomic<bool>* flag);

  /// Whether the stop flag is raised. Always false in a distributed sieve,
  /// whose processes agree on stopping inside next_level.
  bool stop_requested() const;

  /// Computes the next level. Requires levels_done() < max_tiles()
  /// (std::logic_error otherwise). Throws SieveInterrupted when the stop
  /// flag stopped it (the level is not finished; a window's checkpoint may
  /// have been saved), and the store's StoreError (StoreFull: its disk) when
  /// the level could not be written.
  LevelResult next_level(const ProgressFn& progress = {});

  /// What became of the checkpoint (SieveOptions::checkpoint): read back
  /// and continued, ignored and why, or written at the stop; empty when
  /// there was nothing to say. For the program to print.
  std::string checkpoint_report() const;
  /// The seconds earlier runs spent on the pass (or the level in slices)
  /// that a checkpoint read back continues; 0 without one. The progress
  /// line paces that pass by them: its first minutes after a resume, which
  /// read the checkpoint back into fresh memory, are slow.
  double resumed_seconds() const;
  /// Whether that pass is its window's first, from every level below
  /// (false: a later level's pass from the level before it, a pass into
  /// level 2, which is either, or no checkpoint). Only a first pass's
  /// seconds tell the window's pace.
  bool resumed_first_pass() const;

  /// Runs the remaining levels, calling on_level after each.
  void run(const std::function<void(const LevelResult&)>& on_level, const ProgressFn& progress = {});

  const PartitionTable& table() const;
  const LosingStore& losing() const;
  PhaseTimes phase_times() const;

  /// The losing positions with n tiles (n <= levels_done()), as staircases;
  /// std::invalid_argument for a level not finished.
  std::vector<Rows> losing_positions(int n) const;

  /// Status of a position with 1..levels_done() tiles;
  /// std::invalid_argument for a larger one or the empty board.
  bool is_losing(std::span<const int> rows) const;

  /// The engine's state (src/sieve_impl.hpp), opaque to users.
  struct Impl;

 private:
  std::unique_ptr<LosingStore> own_store_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace chomp
