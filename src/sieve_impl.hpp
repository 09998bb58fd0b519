/// @file sieve_impl.hpp
/// @brief The sieve's state, shared by its rooms: the level loop
/// (sieve.cpp), the window and its slices (window.cpp), marking in rounds
/// (marking.cpp), transposes (transposes.cpp), the scan (scan.cpp) and the
/// memory plan (memory_plan.cpp). Internal: not part of the library's
/// interface.
#pragma once

#include <tbb/enumerable_thread_specific.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "buckets.hpp"
#include "chomp/process_group.hpp"
#include "chomp/sieve.hpp"
#include "extensions.hpp"
#include "huge_pages.hpp"
#include "tail_marks.hpp"
#include "work_items.hpp"

namespace chomp {

namespace detail {

using Clock = std::chrono::steady_clock;

/// Adds the wall time of its scope to a phase's seconds.
class PhaseTimer {
 public:
  explicit PhaseTimer(double& seconds) : seconds_(seconds) {}
  ~PhaseTimer() { seconds_ += std::chrono::duration<double>(Clock::now() - start_).count(); }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  double& seconds_;
  Clock::time_point start_ = Clock::now();
};

std::uint64_t segment_aligned_bits(std::uint64_t bits);

/// The bits of a window that one of `processes` processes holds at most:
/// its share of the segments, rounded up.
std::uint64_t share_bits(std::uint64_t bits, int processes);

/// First rows lo..hi of level n: the ranks [count(n, lo - 1), count(n, hi)).
struct Slice {
  int lo = 1, hi = 1;
};

/// The slices of level n for a window of at most `window_bits` bits per
/// process (all of the level when it fits; about `min_slices`, of whole first rows), highest
/// first rows first. Throws BudgetTooSmall when one first row's positions
/// do not fit.
std::vector<Slice> slices_of(const PartitionTable& t, int n, std::uint64_t window_bits, int processes,
                             int min_slices);

/// The last level of a window of whole levels that starts at n0 within
/// `window_bits` bits per process (n0 - 1 when not even n0 fits whole).
int whole_window_end(const PartitionTable& t, int n0, int max, std::uint64_t window_bits, int processes);

/// The window a run opens at level n: whole levels n..last (`slices`
/// empty), or level n alone cut into `slices` (last == n). With
/// SieveOptions::min_slices, levels from slice_from on are cut whatever the
/// budget, and no whole window reaches them. The sieve opens its windows by
/// this rule (Sieve::Impl::next_level) and the plan foresees them by it
/// (plan_windows). Throws BudgetTooSmall as slices_of.
struct NextWindow {
  int last = 0;
  std::vector<Slice> slices;
};
NextWindow next_window(const PartitionTable& t, int n, int max, std::uint64_t window_bits, int processes,
                       const SieveOptions& o);

/// Per-thread state, kept as long as the sieve: the decoder of sources,
/// the block of the store it last read, its buckets.
struct ThreadState {
  ThreadState(const PartitionTable& t, bool canonical_only, int rows_inferred, std::uint32_t pool_page_blocks)
      : source(t), buckets(pool_page_blocks) {
    source.set_canonical_only(canonical_only);
    source.set_rows_inferred(rows_inferred);
    skip_not_canonical = canonical_only && rows_inferred > 0;
  }
  // (The rows inferred are a count, not a flag.)
  ThreadState(const PartitionTable&, bool, bool, std::uint32_t) = delete;
  Source source;
  // Distributed sieve: the decoder of the calls too large for the buckets,
  // which every process makes for the first rows of its own segments
  // (made when a thread first makes one).
  std::unique_ptr<Source> split;
  // The store's block being read, and the ranks of the item's part of it.
  BlockCursor block;
  std::vector<std::uint64_t> ranks;
  std::vector<std::uint8_t> bytes;
  // Sources that are not canonical make no marks when the top rows' moves
  // are inferred (Source::set_rows_inferred): the marking passes skip them
  // undecoded, found in these bits of the ranks an item reads
  // (set_not_canonical).
  bool skip_not_canonical = false;
  std::vector<std::uint64_t> not_canonical;
  MarkBuckets buckets;
  int generation = -1;  // the window pass the buckets were prepared for
  // Distributed sieve: marks for other processes' segments, per process.
  std::vector<std::vector<std::uint64_t>> outgoing;
  // Distributed sieve: the calls too large for the buckets met this round,
  // two values each (source level << 16 | target level, source rank), for
  // every process to make its own part of (marking.cpp, split calls).
  std::vector<std::uint64_t> split_calls;
  // Marks ORed into the bitmap directly this round, by window level (the
  // calls too large for the buckets: config::kDirectCallMarks).
  std::vector<std::uint64_t> direct_marks;
};

/// How the sieve's sizes follow from its options (memory_plan.cpp).
struct Tuning {
  int threads = 1;
  std::uint64_t window_bits = 0;
  std::uint64_t round_marks = 0;
  std::uint64_t scan_batch = 0;
  std::uint32_t pool_page_blocks = 0;
  std::uint64_t direct_call_marks = 0;
  // The bits of the top tail_rows rows (TailMarks) when the run infers the
  // marks of those rows' moves from them; 0: it files them.
  std::uint64_t tail_bytes = 0;
  int tail_rows = 0;
};
Tuning tuning_for(int max_tiles, const SieveOptions& options, int processes);

}  // namespace detail

/// One level (or slice of it) held in the window: its ranks [lo, hi), of
/// first rows a_lo..a_hi, rank `held` (lo rounded down to a multiple of
/// 64) at window bit `base`.
struct WindowLevel {
  int n = 0;
  int a_lo = 1, a_hi = 1;
  std::uint64_t lo = 0, hi = 0, held = 0;
  std::uint64_t base = 0;
  std::uint64_t marks = 0;  // applied so far
  bool whole() const { return a_lo == 1 && a_hi >= n; }
  /// Where rank x of the level sits in the window: offset + x.
  std::uint64_t offset() const { return base - held; }
  /// Makes it level n's slice of first rows lo..hi (1..n: the whole
  /// level): its ranks [count(n, lo - 1), count(n, hi)), held from the
  /// first rounded down to a multiple of 64 (base and marks are kept).
  /// Every place that lays out a slice goes through this (the window, the
  /// memory plan, slices_of, a checkpoint read back), so that they agree.
  void set_slice(const PartitionTable& t, int lo, int hi) {
    a_lo = lo, a_hi = hi;
    this->lo = t.count(n, lo - 1);
    this->hi = t.count(n, hi);
    held = this->lo & ~std::uint64_t{63};
  }
  /// The window bits it takes: from `held`, in whole segments.
  std::uint64_t bits() const { return detail::segment_aligned_bits(hi - held); }
  /// The bits level n's slice of first rows lo..hi takes.
  static std::uint64_t slice_bits(const PartitionTable& t, int n, int lo, int hi) {
    WindowLevel w;
    w.n = n;
    w.set_slice(t, lo, hi);
    return w.bits();
  }
};

namespace detail {

/// A marking pass's progress between two rounds, what a checkpoint keeps
/// of it: every item before `cursor` was taken, and those not finished are
/// the pieces in `left`; every mark of those was applied.
struct PassProgress {
  int from = 0, to = 0, lo = 0;  // the pass: items_of_levels(from, to, lo)
  std::uint64_t cursor = 0;
  std::vector<Piece> left;
  std::vector<std::uint64_t> segment_marks;  // marks applied so far, by segment of the window
  double seconds = 0;                        // the window's marking so far
  // The pass's items (their number and a hash of how they are cut): a
  // cursor means nothing for other items (another build's item rules).
  std::uint64_t items = 0, signature = 0;
  int pieces = 0;  // how the items were cut by target level (0: version 1, by the thread count)
};

/// A checkpoint read back (checkpoint.cpp), waiting for the level it
/// continues: the window's unfinished levels and the pass into them; its
/// bitmap stays in the file until the window is opened again.
struct Checkpoint {
  std::vector<WindowLevel> parts;
  PassProgress pass;
  std::uint64_t bitmap_at = 0;            // file offset of the bitmap
  std::vector<std::uint32_t> chunk_crcs;  // CRC-32 of each kCheckpointChunk bytes of it
  // A level in slices (parts is the slice): its slices, the one whose pass
  // was saved, what the slices before it found and their blocks in the
  // store (their bytes are in the checkpoint, after the bitmap).
  bool sliced = false;
  std::vector<Slice> slices;
  std::size_t slice = 0;
  std::uint64_t level_marks = 0;
  PendingLevel pending;
  std::uint64_t pending_at = 0;
  std::vector<std::uint32_t> pending_crcs;
};

/// A level being finished in slices: its slices, the one being marked, and
/// the marks of those before it (a checkpoint saves them).
struct Slicing {
  std::vector<Slice> slices;
  std::size_t index = 0;
  std::uint64_t marks = 0;
  // The level's time before this slice's pass, in every run that worked on
  // it: a checkpoint of the pass saves it with the pass's own (so its
  // `seconds` are the level's so far), and the level's row counts it all.
  double seconds = 0;
};

}  // namespace detail

struct Sieve::Impl {
  Impl(int max_tiles, LosingStore& store, const SieveOptions& options, ProcessGroup* group);

  PartitionTable table;
  LosingStore& store;
  SieveOptions options;
  int max;
  int procs = 1, me = 0;
  ProcessGroup* group = nullptr;
  detail::Tuning tuning;
  MemoryPlan memory_plan;
  tbb::task_arena arena;
  PhaseTimes phases;
  int done = 0;
  const std::atomic<bool>* stop = nullptr;

  // The window: window levels, each at a segment-aligned base of one
  // buffer (allocated for the largest window); this process holds window
  // segments [own_lo, own_hi).
  std::vector<WindowLevel> window;
  std::uint64_t window_bits = 0;
  std::uint64_t own_lo = 0, own_hi = 0;
  detail::HugeBuffer bitmap_memory;
  std::uint64_t* bitmap() const { return bitmap_memory.as<std::uint64_t>(); }
  // Whether the losing positions of level `done` have yet to mark the
  // window's levels above it (next_level does that first).
  bool mark_pending = false;
  std::uint64_t group_threads = 0;  // every process's threads together
  // The bits of the first rows (tail_marks.hpp), when the run infers
  // the marks of those rows' moves from them (one process, and the bits
  // fit: Tuning::tail_bytes).
  std::unique_ptr<detail::TailMarks> tails;
  /// Before level n (its slice in the window) is scanned: its tails' bits.
  void add_tail_marks(int n);
  /// Once level n is final: its losing positions' tails and rays.
  void take_tails_of(int n);
  tbb::enumerable_thread_specific<detail::ThreadState> states;
  int generation = 0;
  std::vector<std::uint64_t> scan_buffer;

  bool distributed() const { return group != nullptr; }
  bool stop_requested() const { return stop && stop->load(std::memory_order_relaxed); }
  SieveInterrupted interrupted(int n) const;

  // ---- sieve.cpp: the level loop ----
  LevelResult next_level(const ProgressFn& progress);
  /// The result's `seconds` are the level's time in earlier runs (a
  /// checkpoint's), which the caller adds to its own.
  LevelResult finish_level(int n, const std::vector<detail::Slice>& slices, const ProgressFn& progress,
                           double& window_seconds, bool resume = false);
  StoredLevel finish_store_level(int n);
  void share_pending_blocks(int n);

  // ---- window.cpp ----
  /// Holds `parts` (consecutive whole levels, or one slice) as the window:
  /// clears their bits and sets those that are not canonical (unless not
  /// `fill`: a checkpoint's bits are read over every word).
  void open_window(const std::vector<WindowLevel>& parts, bool fill = true);
  void close_window() { window.clear(), window_bits = 0, mark_pending = false, window_first = 0, window_last = 0; }
  // The window's levels, for progress reports from other threads (0: none).
  std::atomic<int> window_first{0}, window_last{0};
  // Marks applied to this process's segments so far (Sieve::marks_applied).
  std::atomic<std::uint64_t> marks_applied{0};
  void set_not_canonical_bits();
  WindowLevel& window_level(int n);

  // ---- marking.cpp ----
  /// Work items extending the losing positions of levels from..to into
  /// the window's levels lo..(last).
  /// `pieces` > 0: cut into that many pieces by target level, as the pass
  /// a checkpoint continues was (else as the thread count asks).
  detail::ItemList items_of_levels(int from, int to, int lo, int pieces = 0) const;
  /// Marks the extensions of the losing positions of levels from..to into
  /// the window's levels lo..(last), from `resume` on when it is given.
  /// Returns whether the stop flag was raised (agreed on by every process):
  /// the window is then partly marked (and its checkpoint saved).
  bool mark(int from, int to, int lo, const ProgressFn& progress, const detail::PassProgress* resume = nullptr);

  // ---- checkpoint.cpp ----
  std::optional<detail::Checkpoint> checkpoint;  // read at the start, for level done + 1
  std::optional<detail::Slicing> slicing;         // while a level is finished in slices
  std::string checkpoint_report;
  /// Seconds the last periodic save took (0 before the first): the next one
  /// waits at least config::kCheckpointSpacing times as long, in this pass
  /// or the next.
  double last_save_took = 0;
  /// Whether a pass over this window may be saved: one process, a checkpoint
  /// file, whole levels or a slice of one, and marks filed through buckets
  /// (window_bits > config::kDirectMarkBits).
  bool can_checkpoint() const;
  /// Writes the window's unfinished levels and the pass's progress to
  /// options.checkpoint (a new file in place of the old, atomically);
  /// false, with the reason in checkpoint_report, when that failed.
  bool save_checkpoint(const detail::PassProgress& pass);
  /// Reads options.checkpoint's header at the start; keeps it when it
  /// continues this store's last level with these options, else removes it.
  void read_checkpoint();
  /// Opens the checkpoint's window and reads its bits back; false (the
  /// window closed, the checkpoint dropped) when they do not check.
  bool restore_checkpoint_window();
  void remove_checkpoint();
  // A checkpoint saved (or continued) for a state that a finished level
  // has made stale: removed when the next level begins (its row is in the
  // result file by then) or the run ends.
  bool checkpoint_stale = false;
  bool checkpoint_saved_this_level = false;  // a save since the last level finished
  /// Whether the restored checkpoint's pass has this program's items.
  bool checkpoint_items_match() const;
  /// The number and hash of a pass's items.
  std::pair<std::uint64_t, std::uint64_t> items_signature(int from, int to, int lo, int pieces = 0) const;
  /// Forgets the checkpoint read at the start, saying why, and removes it.
  void drop_checkpoint(const std::string& why);
  /// A sliced level's checkpoint: writes the slices before the saved one
  /// back into the store (begun at its level); false (the checkpoint
  /// dropped, the level begun again) when that fails.
  bool adopt_checkpoint_slices();

  // ---- transposes.cpp ----
  /// Clears the transposes of the canonical losing positions of window
  /// level n (of its slice) that land in it.
  void add_transposes(int n);
  /// A slice of level n: clears the transposes of the losing positions
  /// found in the slices above it (the store's level n so far) that land
  /// in it.
  void add_transposes_from_store(int n);
  /// Clears window bits (a distributed sieve sends the others' to them).
  void clear_bits(std::vector<std::uint64_t>& mine, std::vector<std::uint64_t>& away);

  // ---- scan.cpp ----
  /// Collects the losing ranks of window level n into the store (a
  /// distributed sieve: process 0's); returns them counted.
  std::uint64_t scan_into_store(int n);
};

}  // namespace chomp
