/// @file sieve.cpp
/// @brief The level loop: bucketed parallel marking and the scan for losing positions.

#include "chomp/sieve.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "chomp/process_group.hpp"
#include "config.hpp"
#include "buckets.hpp"
#include "extensions.hpp"
#include "huge_pages.hpp"
#include "share.hpp"
#include "sieve_testing.hpp"

namespace chomp {

std::atomic<std::uint64_t> detail::g_round_marks_for_testing{0};
std::atomic<std::uint64_t> detail::g_items_cut{0};
std::atomic<std::uint64_t> detail::g_window_bytes_for_testing{0};
std::atomic<std::uint64_t> detail::g_no_transposes_for_testing{0};

double hypothesis_ratio(std::uint64_t positions, std::uint64_t losing) {
  const double lp = std::log(static_cast<double>(positions));
  if (lp == 0.0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(losing) / (static_cast<double>(positions) / lp);
}

double LevelResult::losing_fraction() const {
  return positions ? static_cast<double>(losing) / static_cast<double>(positions) : 0.0;
}

double LevelResult::hypothesis_ratio() const { return chomp::hypothesis_ratio(positions, losing); }

namespace {

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

/// Marks straight into the bitmap (small windows, one thread).
struct DirectSink {
  std::uint64_t* words;
  std::uint64_t marks = 0;
  void point(std::uint64_t r) {
    words[r >> 6] |= std::uint64_t{1} << (r & 63);
    ++marks;
  }
  void range(std::uint64_t first, std::uint64_t count) {
    detail::set_bit_range(words, first, count);
    marks += count;
  }
};

std::uint64_t segment_aligned_bits(std::uint64_t bits) {
  return (bits + config::kSegmentBits - 1) & ~(config::kSegmentBits - 1);
}

/// The bits of a window (segment aligned) that one of `processes` processes
/// holds at most: its share of the segments, rounded up.
std::uint64_t share_bits(std::uint64_t bits, int processes) {
  const std::uint64_t segments = bits >> config::kSegmentBitsLog2, p = static_cast<std::uint64_t>(processes);
  return ((segments + p - 1) / p) << config::kSegmentBitsLog2;
}

/// The last level of the window that starts at n0: as many levels as
/// config::kWindowBytes holds (per process, when processes share the
/// window), at least one.
int window_end(const PartitionTable& t, int n0, int max, int processes = 1) {
  const std::uint64_t window_bytes = detail::seam_or(detail::g_window_bytes_for_testing, config::kWindowBytes);
  std::uint64_t bits = segment_aligned_bits(t.positions(n0));
  int n1 = n0;
  while (n1 < max && share_bits(bits + segment_aligned_bits(t.positions(n1 + 1)), processes) / 8 <= window_bytes) {
    ++n1;
    bits += segment_aligned_bits(t.positions(n1));
  }
  return n1;
}

struct ThreadState {
  ThreadState(const PartitionTable& t, bool canonical_only) : source(t) { source.set_canonical_only(canonical_only); }
  detail::Source source;
  std::vector<std::uint64_t> chunk;
  detail::MarkBuckets buckets;
  int generation = -1;               // the window pass the buckets were prepared for
  // Distributed sieve: marks for other processes' segments, per process (RoutedSink).
  std::vector<std::vector<std::uint64_t>> outgoing;
};

/// How marks travel between processes: 64-bit window bit numbers; a range
/// is its first bit with kRangeStart set, then its length with kRangeLength
/// set, so a reader that starts anywhere can tell a length from a mark.
constexpr std::uint64_t kRangeStart = std::uint64_t{1} << 63;
constexpr std::uint64_t kRangeLength = std::uint64_t{1} << 62;

/// Losing ranks a process broadcasts at a time (128 MiB): large enough that
/// latency does not matter, small enough beside a level's bitmap.
constexpr std::uint64_t kSharePiece = std::uint64_t{1} << 24;

/// Distributed sieve: files the marks that land in this process's segments
/// into its buckets (bit numbers relative to its first segment) and queues
/// the others for the process that owns them.
struct RoutedSink {
  detail::MarkBuckets* local;
  std::vector<std::uint64_t>* outgoing;  // one queue per process
  const std::uint64_t* bounds;           // process p owns window bits [bounds[p], bounds[p + 1])
  int processes;
  int me;
  std::uint64_t queued = 0;              // values queued for others

  int owner(std::uint64_t bit) const {
    return static_cast<int>(std::upper_bound(bounds, bounds + processes + 1, bit) - bounds) - 1;
  }
  void point(std::uint64_t bit) {
    const std::uint64_t lo = bounds[me];
    if (bit - lo < bounds[me + 1] - lo) {
      local->point(bit - lo);
    } else {
      outgoing[owner(bit)].push_back(bit);
      ++queued;
    }
  }
  void range(std::uint64_t first, std::uint64_t count) {
    while (count) {
      const int p = owner(first);
      const std::uint64_t len = std::min(count, bounds[p + 1] - first);
      if (p == me) {
        local->range(first - bounds[me], len);
      } else {
        outgoing[p].push_back(first | kRangeStart);
        outgoing[p].push_back(len | kRangeLength);
        queued += 2;
      }
      first += len;
      count -= len;
    }
  }
};

/// Reports the fraction of a pass's items done, from whichever thread gets
/// the lock, at most every config::kProgressIntervalSeconds.
class ProgressThrottle {
 public:
  ProgressThrottle(const ProgressFn& fn, int tiles, std::size_t items) : fn_(fn), tiles_(tiles), items_(items) {}
  void item_done() {
    const std::size_t done_items = finished_.fetch_add(1, std::memory_order_relaxed) + 1;
    if (!fn_) return;
    std::unique_lock lock(lock_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    const auto now = Clock::now();
    if (std::chrono::duration<double>(now - last_report_).count() < config::kProgressIntervalSeconds) return;
    last_report_ = now;
    fn_(tiles_, static_cast<double>(done_items) / static_cast<double>(items_));
  }

 private:
  const ProgressFn& fn_;
  int tiles_;
  std::size_t items_;
  std::mutex lock_;
  Clock::time_point last_report_ = Clock::now();
  std::atomic<std::size_t> finished_{0};
};

/// A chunk of stored losing positions of one level, to be extended into
/// window levels lo..hi.
struct WorkItem {
  int level;
  std::uint32_t chunk;
  int lo, hi;
};

/// Where the rest of an item starts: its source `source` (an index into the
/// chunk), from target level `level` on.
struct ItemPosition {
  std::size_t source = 0;
  int level = 0;
};

/// An item, or what is left of one.
struct Piece {
  WorkItem item;
  ItemPosition from;
};

/// The rests of items that a thread left when it reached its share of a
/// round (one source of a low level extended into a window of many levels
/// can file more than a whole round's budget: 1.5 GiB of buckets at
/// N = 126 before items were cut). Any thread takes them up, before new
/// items, in the next round.
class Remainders {
 public:
  void put(const Piece& p) {
    const std::lock_guard<std::mutex> lock(mutex_);
    left_.push_back(p);
    size_.store(left_.size());
    detail::g_items_cut.fetch_add(1, std::memory_order_relaxed);
  }
  bool take(Piece& p) {
    if (size_.load(std::memory_order_relaxed) == 0) return false;  // the usual case: no lock
    const std::lock_guard<std::mutex> lock(mutex_);
    if (left_.empty()) return false;
    p = left_.back();
    left_.pop_back();
    size_.store(left_.size());
    return true;
  }
  /// Between rounds (no thread is taking or putting).
  bool empty() const { return size_.load() == 0; }
  void clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    left_.clear();
    size_.store(0);
  }

 private:
  std::mutex mutex_;
  std::vector<Piece> left_;
  std::atomic<std::size_t> size_{0};
};

/// The work items of one pass, numbered without being stored: every chunk
/// of levels from..to in order, each cut into `pieces` ranges of the target
/// levels lo..hi. (Opening a window at n = 150 extends 71 million chunks:
/// 1.14 GB as a list of items, which the memory plan never counted.)
struct ItemList {
  int from = 1, lo = 1, hi = 0, pieces = 1;
  std::vector<std::size_t> first;  // first item of level from + l; last entry: the count

  std::size_t size() const { return first.empty() ? 0 : first.back(); }

  WorkItem operator[](std::size_t i) const {
    const auto l = static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), i) - first.begin()) - 1;
    const std::size_t j = i - first[l];
    const int p = static_cast<int>(j % static_cast<std::size_t>(pieces)), levels = hi - lo + 1;
    return {from + static_cast<int>(l), static_cast<std::uint32_t>(j / static_cast<std::size_t>(pieces)),
            lo + levels * p / pieces, lo + levels * (p + 1) / pieces - 1};
  }
};

/// One process's share of a pass's items (share.hpp), numbered: runs of
/// items of all_items, in the order they are to be taken.
class ShareList {
 public:
  ShareList(const ItemList& all, std::vector<detail::ItemRun> runs) : all_(all), runs_(std::move(runs)) {
    first_.push_back(0);
    for (const auto& r : runs_) first_.push_back(first_.back() + r.count);
  }

  std::size_t size() const { return first_.back(); }

  WorkItem operator[](std::size_t i) const {
    const auto r = static_cast<std::size_t>(std::upper_bound(first_.begin(), first_.end(), i) - first_.begin()) - 1;
    return all_[runs_[r].first + (i - first_[r]) * runs_[r].step];
  }

 private:
  const ItemList& all_;
  std::vector<detail::ItemRun> runs_;
  std::vector<std::size_t> first_;  // first share item of each run; last entry: the count
};

}  // namespace

/// The sieve works on a window of levels n0..n1 whose bitmaps are held
/// together (as many as config::kWindowBytes allows, at least one). When a
/// window opens, every losing position below n0 is decoded once and marks
/// all of the window's levels; then each level in turn is scanned, and its
/// new losing positions mark the levels above it in the window. Decoding a
/// source costs about as much as a few of its marks, so sharing it between
/// levels saves a good part of the work.
struct Sieve::Impl {
  Impl(int max_tiles, ProcessGroup* g)
      : table(max_tiles), store(max_tiles), max(max_tiles),
        transposes(detail::g_no_transposes_for_testing.load() == 0),
        states([this] { return ThreadState(table, transposes); }) {
    if (g && g->size() > 1) group = g, procs = g->size(), me = g->index();
  }

  PartitionTable table;
  LosingStore store;
  int max;
  // Whether only canonical positions are decided (first row at least as
  // long as the first column), the others being their transposes: every
  // other position's bit is set when a window opens (set_not_canonical_bits),
  // sources mark only what can be canonical (Source::set_canonical_only),
  // and before a level is scanned its canonical losing positions clear the
  // bits of their transposes (add_transposes).
  bool transposes;
  PhaseTimes phases;
  int done = 0;
  // The window: levels n0..n1, level k's bits start at bit base[k - n0]
  // (segment aligned) of one buffer, allocated once for the largest window.
  int n0 = 0, n1 = -1;
  // Whether the losing positions of level `done` have yet to mark window
  // levels done + 1..n1 (next_level does that first).
  bool mark_pending = false;
  std::vector<std::uint64_t> base;
  std::vector<std::uint64_t> window_marks;  // marks so far per window level
  detail::HugeBuffer bitmap_memory;
  std::uint64_t* bitmap() const { return bitmap_memory.as<std::uint64_t>(); }
  // Per-thread decoders and bucket pools live as long as the sieve.
  tbb::enumerable_thread_specific<ThreadState> states;
  int generation = 0;
  const std::atomic<bool>* stop = nullptr;
  // Distributed sieve (procs > 1): process `me` of `group` holds window
  // segments [own_lo, own_hi) only; one process alone holds them all.
  ProcessGroup* group = nullptr;
  int procs = 1, me = 0;
  std::uint64_t own_lo = 0, own_hi = 0;
  std::uint64_t group_threads = 0;  // every process's threads together
  // A level's losing ranks pass through this buffer on their way to the
  // store, config::kScanBatchRanks at a time.
  std::vector<std::uint64_t> scan_buffer;

  bool distributed() const { return group != nullptr; }
  bool stop_requested() const { return stop && stop->load(std::memory_order_relaxed); }


  /// Decodes the item's chunk and hands each source's extensions with
  /// item.lo..item.hi tiles to those window levels, from `from` on. Checks
  /// full() after each call of the kernel (the levels up to
  /// config::kJointExtraTiles above the source together, then each level
  /// above them alone) and, when it holds with work left, stops there and
  /// returns where the rest starts.
  template <class Inner, class Full>
  std::optional<ItemPosition> extend_chunk(ThreadState& ts, const WorkItem& item, Inner& inner, ItemPosition from,
                                           Full&& full) {
    const int m = item.level;
    store.level(m).decode_chunk(item.chunk, ts.chunk);
    for (std::size_t i = from.source; i < ts.chunk.size(); ++i) {
      const std::uint64_t r = ts.chunk[i];
      if (i == from.source)
        ts.source.decode(m, r);
      else
        ts.source.seek(r);
      for (int k = i == from.source ? from.level : item.lo; k <= item.hi;) {
        // Levels up to config::kJointExtraTiles above the source in one
        // walk over its corners, the others one at a time. Level k's bits
        // start at base[k - n0] in the window.
        const int joint_top = m + config::kJointExtraTiles;
        const int top = k <= joint_top ? std::min(item.hi, joint_top) : k;
        ts.source.for_each_extension(k - m, top - m, inner, base.data() + (k - n0));
        k = top + 1;
        const bool last = k > item.hi && i + 1 == ts.chunk.size();
        if (!last && full()) return k <= item.hi ? ItemPosition{i, k} : ItemPosition{i + 1, item.lo};
      }
    }
    return std::nullopt;
  }

  /// One round's first half: every thread takes pieces (the rests of items
  /// cut in the last round first, then items from the cursor) and marks
  /// them with file(ts, piece, room), which stops once it has filed `room`
  /// entries and returns the entries filed and where the rest starts, if
  /// any; the rest goes back to `left`. A thread stops when the round's
  /// budget is used or at twice its share of it: its block pool keeps the
  /// most it ever filed in a round, so the pools together stay within two
  /// budgets whatever the thread count (the memory plan), give or take the
  /// (source, level) pair each thread was filing when it reached its share.
  /// (A distributed sieve also files the marks it receives into these
  /// pools, which the plan counts apart.)
  template <class Items, class Prepare, class File>
  void generate_round(const Items& items, std::atomic<std::size_t>& cursor, Remainders& left,
                      ProgressThrottle& progress, Prepare& prepare, File&& file) {
    const PhaseTimer timer(phases.filing);
    std::atomic<std::uint64_t> pending{0};
    const std::uint64_t budget = detail::seam_or(detail::g_round_marks_for_testing, config::kRoundMarks);
    const int workers = tbb::this_task_arena::max_concurrency();
    // simple_partitioner: one task per worker, so every thread gets one
    // (the auto partitioner may keep a range of two in one task).
    const std::uint64_t own_cap = std::max<std::uint64_t>(1, 2 * budget / static_cast<std::uint64_t>(workers));
    tbb::parallel_for(tbb::blocked_range<int>(0, workers, 1), [&](const tbb::blocked_range<int>&) {
      ThreadState& ts = states.local();
      prepare(ts);
      std::uint64_t own = 0;
      while (pending.load(std::memory_order_relaxed) < budget && own < own_cap) {
        if (stop_requested()) {
          cursor.store(items.size());
          left.clear();
          break;
        }
        Piece piece;
        if (!left.take(piece)) {
          const std::size_t i = cursor.fetch_add(1, std::memory_order_relaxed);
          if (i >= items.size()) break;
          piece = Piece{items[i], ItemPosition{0, items[i].lo}};
        }
        const auto [filed, rest] = file(ts, piece, own_cap - own);
        own += filed;
        pending.fetch_add(filed, std::memory_order_relaxed);
        if (rest)
          left.put(Piece{piece.item, *rest});
        else
          progress.item_done();
      }
    }, tbb::simple_partitioner());
  }

  /// One round's second half: each of this process's segments ORs every
  /// thread's bucket while it is in cache (one owner per segment).
  void apply_round(int gen, std::vector<std::uint64_t>& segment_marks) {
    const PhaseTimer timer(phases.applying);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, segment_marks.size(), 1),
                      [&](const tbb::blocked_range<std::size_t>& range) {
      for (std::size_t s = range.begin(); s != range.end(); ++s) {
        std::uint64_t* seg = bitmap() + (s << (config::kSegmentBitsLog2 - 6));
        std::uint64_t entries = 0;
        for (ThreadState& ts : states)
          if (ts.generation == gen) entries += ts.buckets.segment_entries(s);
        const bool dense = entries >= detail::MarkBuckets::kDenseEntries;
        if (dense) detail::load_segment(seg);
        std::uint64_t applied = 0;
        for (ThreadState& ts : states)
          if (ts.generation == gen) applied += ts.buckets.apply_segment(s, seg, dense);
        segment_marks[s] += applied;
      }
    });
    for (ThreadState& ts : states) ts.buckets.recycle();
  }

  /// Adds the marks applied to this process's segments to their levels.
  void count_segment_marks(std::vector<std::uint64_t>& segment_marks) {
    const std::size_t W = static_cast<std::size_t>(n1 - n0 + 1);
    for (std::size_t k = 0; k < W; ++k) {
      const std::uint64_t first = std::max(base[k] >> config::kSegmentBitsLog2, own_lo);
      const std::uint64_t last = std::min(base[k + 1] >> config::kSegmentBitsLog2, own_hi);
      for (std::uint64_t s = first; s < last; ++s) window_marks[k] += std::exchange(segment_marks[s - own_lo], 0);
    }
  }

  /// Marks the extensions of every item into the window. Returns whether
  /// the stop flag was raised (agreed on by every process of a group): the
  /// window may then be partly marked.
  bool mark(const ItemList& all_items, int lo, const ProgressFn& progress) {
    if (distributed()) return mark_distributed(all_items, lo, progress);
    // Heaviest items first (my_share of one process), so that the last
    // items taken are light and the threads end a pass together: items of
    // one pass differ by orders of magnitude (a level's sources split among
    // target levels, p(k - m) marks each).
    const ShareList items = my_share(all_items);
    const std::uint64_t window_bits = base.back();
    if (window_bits <= config::kDirectMarkBits) {
      // Small windows: one thread, level by level so the marks are counted.
      const PhaseTimer timer(phases.filing);
      ThreadState ts(table, transposes);
      DirectSink sink{bitmap()};
      for (std::size_t i = 0; i < items.size(); ++i) {
        const WorkItem it = items[i];
        for (int k = it.lo; k <= it.hi; ++k) {
          if (stop_requested()) return true;
          const std::uint64_t before = sink.marks;
          extend_chunk(ts, WorkItem{it.level, it.chunk, k, k}, sink, ItemPosition{0, k}, [] { return false; });
          window_marks[static_cast<std::size_t>(k - n0)] += sink.marks - before;
        }
      }
      return stop_requested();
    }
    const std::size_t segments = static_cast<std::size_t>(window_bits >> config::kSegmentBitsLog2);
    std::vector<std::uint64_t> segment_marks(segments, 0);
    const int gen = ++generation;
    auto prepare = [&](ThreadState& ts) {
      if (ts.generation == gen) return;
      ts.buckets.prepare(segments);
      ts.generation = gen;
    };
    ProgressThrottle throttle(progress, lo, items.size());
    std::atomic<std::size_t> cursor{0};
    Remainders left;
    while (cursor.load() < items.size() || !left.empty()) {
      // Generate: threads pull chunks until the round's bucket budget is used.
      generate_round(items, cursor, left, throttle, prepare,
                     [&](ThreadState& ts, const Piece& piece, std::uint64_t room) {
        const std::uint64_t e0 = ts.buckets.entries();
        const auto rest = extend_chunk(ts, piece.item, ts.buckets, piece.from,
                                       [&] { return ts.buckets.entries() - e0 >= room; });
        return std::pair{ts.buckets.entries() - e0, rest};
      });
      // Apply: each segment ORs every thread's bucket while it is in cache.
      apply_round(gen, segment_marks);
    }
    count_segment_marks(segment_marks);
    return stop_requested();
  }

  /// The distributed form of mark: this process extends its share of the
  /// items (my_share); each round, the marks queued for other processes are
  /// exchanged (all-to-all) and filed into their owners' buckets before
  /// every process applies its own segments. Rounds go on, on every process, until no
  /// process has items left or one of them raised the stop flag.
  bool mark_distributed(const ItemList& all_items, int lo, const ProgressFn& progress) {
    if (all_items.size() == 0) return false;  // the same on every process: no round, nothing marked
    const ShareList items = my_share(all_items);
    const std::uint64_t segments = own_hi - own_lo;
    const std::vector<std::uint64_t> bounds = owner_bounds();
    std::vector<std::uint64_t> segment_marks(segments, 0);
    const int gen = ++generation;
    auto prepare = [&](ThreadState& ts) {
      if (ts.generation == gen) return;
      ts.buckets.prepare(segments);
      ts.outgoing.resize(static_cast<std::size_t>(procs));
      for (auto& q : ts.outgoing) q.clear();
      ts.generation = gen;
    };
    ProgressThrottle throttle(progress, lo, items.size());
    std::atomic<std::size_t> cursor{0};
    Remainders left;
    std::vector<std::uint64_t> send, received;
    std::vector<std::size_t> send_counts(static_cast<std::size_t>(procs)), received_counts;
    bool stopped = false;
    for (;;) {
      generate_round(items, cursor, left, throttle, prepare,
                     [&](ThreadState& ts, const Piece& piece, std::uint64_t room) {
        RoutedSink sink{&ts.buckets, ts.outgoing.data(), bounds.data(), procs, me};
        const std::uint64_t e0 = ts.buckets.entries();
        // A queued value takes 8 bytes, two of the buckets' 4-byte entries.
        auto filed = [&] { return ts.buckets.entries() - e0 + 2 * sink.queued; };
        const auto rest = extend_chunk(ts, piece.item, sink, piece.from, [&] { return filed() >= room; });
        return std::pair{filed(), rest};
      });
      const RoundFlags flags = exchange_marks(gen, prepare, cursor.load() < items.size() || !left.empty(), send,
                                              send_counts, received, received_counts);
      apply_round(gen, segment_marks);
      if (flags.stop) stopped = true;
      if (flags.stop || !flags.more) break;
    }
    count_segment_marks(segment_marks);
    return stopped;
  }

  /// Process p owns window bits [bounds[p], bounds[p + 1]): its share of
  /// the window's segments (open_window).
  std::vector<std::uint64_t> owner_bounds() const {
    const std::uint64_t window_segments = base.back() >> config::kSegmentBitsLog2;
    std::vector<std::uint64_t> bounds;
    for (int p = 0; p <= procs; ++p)
      bounds.push_back(window_segments * static_cast<std::uint64_t>(p) / static_cast<std::uint64_t>(procs)
                       << config::kSegmentBitsLog2);
    return bounds;
  }

  /// This process's items: every process makes the same split of all_items
  /// into shares of about equal estimated work (share.hpp) and takes its
  /// own, heaviest first so that its threads end together too (one process
  /// alone takes every item, in that order). An item's
  /// work is estimated as its sources times the sum over its target levels
  /// k of p(k - m): a source of level m has about that many extensions to
  /// level k. (Work differs by orders of magnitude between items: a static
  /// split by count leaves one process waiting for another at every
  /// exchange.) Items of equal estimate form few classes, a level's full
  /// chunks for one piece of targets and its last chunk, so the split is
  /// made by class and kept as runs of items, never as a list: a window
  /// opened at n = 150 has 71 million items.
  ShareList my_share(const ItemList& all_items) const {
    std::vector<detail::ItemRun> classes;
    const std::size_t pieces = static_cast<std::size_t>(all_items.pieces);
    for (std::size_t l = 0; l + 1 < all_items.first.size(); ++l) {
      const std::size_t count = (all_items.first[l + 1] - all_items.first[l]) / pieces;  // the level's chunks
      if (count == 0) continue;
      const LosingLevel& level = store.level(all_items.from + static_cast<int>(l));
      const std::uint64_t last_sources = level.size() - (count - 1) * config::kStoreChunk;
      for (std::size_t p = 0; p < pieces; ++p) {
        const WorkItem it = all_items[all_items.first[l] + p];
        double per_source = 0;
        for (int k = it.lo; k <= it.hi; ++k) per_source += static_cast<double>(table.positions(k - it.level));
        const std::size_t first = all_items.first[l] + p;
        if (count > 1)
          classes.push_back({first, pieces, count - 1, static_cast<double>(config::kStoreChunk) * per_source});
        classes.push_back({first + (count - 1) * pieces, pieces, 1, static_cast<double>(last_sources) * per_source});
      }
    }
    return ShareList(all_items, detail::share_of(std::move(classes), procs, me));
  }

  /// Whether any process has sources left, or raised the stop flag.
  struct RoundFlags {
    bool more = false, stop = false;
  };

  /// Sends every thread's queued marks to their owners and files the marks
  /// received into this process's buckets. Each process's message to each
  /// other ends with two values, whether it has sources left and whether it
  /// was told to stop, so the round needs no further agreement.
  template <class Prepare>
  RoundFlags exchange_marks(int gen, Prepare& prepare, bool more, std::vector<std::uint64_t>& send,
                            std::vector<std::size_t>& send_counts, std::vector<std::uint64_t>& received,
                            std::vector<std::size_t>& received_counts) {
    const PhaseTimer timer(phases.applying);
    const std::size_t P = static_cast<std::size_t>(procs);
    std::fill(send_counts.begin(), send_counts.end(), 2);  // the two flags
    for (ThreadState& ts : states)
      if (ts.generation == gen)
        for (std::size_t p = 0; p < P; ++p) send_counts[p] += ts.outgoing[p].size();
    std::vector<std::size_t> at(P, 0);
    for (std::size_t p = 1; p < P; ++p) at[p] = at[p - 1] + send_counts[p - 1];
    send.resize(at[P - 1] + send_counts[P - 1]);
    for (ThreadState& ts : states)
      if (ts.generation == gen)
        for (std::size_t p = 0; p < P; ++p) {
          std::copy(ts.outgoing[p].begin(), ts.outgoing[p].end(), send.begin() + static_cast<std::ptrdiff_t>(at[p]));
          at[p] += ts.outgoing[p].size();
          ts.outgoing[p].clear();
        }
    const bool stop_here = stop_requested();
    for (std::size_t p = 0; p < P; ++p) {
      send[at[p]] = more ? 1 : 0;
      send[at[p] + 1] = stop_here ? 1 : 0;
    }
    group->exchange(send, send_counts, received, received_counts);
    RoundFlags flags;
    const std::uint64_t first_bit = own_lo << config::kSegmentBitsLog2;
    std::size_t from = 0;
    for (std::size_t q = 0; q < P; ++q) {
      const std::size_t end = from + received_counts[q] - 2;
      flags.more = flags.more || received[end] != 0;
      flags.stop = flags.stop || received[end + 1] != 0;
      // File process q's marks in parallel; a piece that starts on a range's
      // length leaves it to the piece before, which reads one value past its end.
      tbb::parallel_for(tbb::blocked_range<std::size_t>(from, end, std::size_t{1} << 16),
                        [&](const tbb::blocked_range<std::size_t>& r) {
        ThreadState& ts = states.local();
        prepare(ts);
        std::size_t i = r.begin();
        if (received[i] & kRangeLength) ++i;
        for (; i < r.end(); ++i) {
          const std::uint64_t v = received[i];
          if (v & kRangeStart) {
            ts.buckets.range((v & ~kRangeStart) - first_bit, received[i + 1] & ~kRangeLength);
            ++i;
          } else {
            ts.buckets.point(v - first_bit);
          }
        }
      });
      from = end + 2;
    }
    return flags;
  }

  /// Work items that extend the losing positions of levels from..to into
  /// window levels lo..n1. Sources of small levels are few but reach far
  /// (their marks grow like p(d)), so when chunks are scarce each chunk's
  /// target levels are split between items to keep every thread busy.
  ItemList items_of_levels(int from, int to, int lo) const {
    std::size_t chunks = 0;
    for (int m = from; m <= to; ++m) chunks += store.level(m).chunks();
    // Every process of a group must make the same items: they share them out.
    const std::size_t threads = distributed() ? static_cast<std::size_t>(group_threads)
                                              : static_cast<std::size_t>(tbb::this_task_arena::max_concurrency());
    const std::size_t wanted = config::kItemsPerThread * threads;
    const int levels = n1 - lo + 1;
    ItemList items;
    items.from = from;
    items.lo = lo;
    items.hi = n1;
    items.pieces = chunks >= wanted ? 1
                   : static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(levels),
                                                           (wanted + chunks - 1) / std::max<std::size_t>(chunks, 1)));
    items.first.push_back(0);
    for (int m = from; m <= to; ++m)
      items.first.push_back(items.first.back() + store.level(m).chunks() * static_cast<std::size_t>(items.pieces));
    return items;
  }

  /// Opens the window starting at level done + 1 and marks it from every
  /// finished level. Returns whether the stop flag was raised (agreed on by
  /// every process of a group): the window is then partly marked.
  bool open_window(const ProgressFn& progress) {
    {
      const PhaseTimer timer(phases.opening);
      prepare_window();
    }
    return mark(items_of_levels(1, n0 - 1, n0), n0, progress);
  }

  /// The first part of open_window: the window's levels, this process's
  /// share of its segments, its bitmaps cleared and their bits that are not
  /// canonical set.
  void prepare_window() {
    n0 = done + 1;
    n1 = window_end(table, n0, max, procs);
    base.assign(1, 0);
    for (int k = n0; k <= n1; ++k) base.push_back(base.back() + segment_aligned_bits(table.positions(k)));
    // This process's segments: a contiguous share of the window's (all of
    // them for one process alone).
    const std::uint64_t segments = base.back() >> config::kSegmentBitsLog2;
    const auto P = static_cast<std::uint64_t>(procs), I = static_cast<std::uint64_t>(me);
    own_lo = segments * I / P;
    own_hi = segments * (I + 1) / P;
    const std::uint64_t words = (own_hi - own_lo) << (config::kSegmentBitsLog2 - 6);
    if (words * sizeof(std::uint64_t) > bitmap_memory.size()) {
      bitmap_memory = detail::HugeBuffer();  // release before allocating the larger one
      bitmap_memory = detail::HugeBuffer(words * sizeof(std::uint64_t));
    }
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, words, 1 << 16),
                      [&](const tbb::blocked_range<std::uint64_t>& r) {
      std::memset(bitmap() + r.begin(), 0, (r.end() - r.begin()) * sizeof(std::uint64_t));
    });
    if (transposes) set_not_canonical_bits();
    window_marks.assign(static_cast<std::size_t>(n1 - n0 + 1), 0);
    if (distributed()) {
      std::uint64_t threads = static_cast<std::uint64_t>(tbb::this_task_arena::max_concurrency());
      group->sum(std::span<std::uint64_t>(&threads, 1));
      group_threads = threads;
    }
  }

  /// Sets the bits of this process's segments that stand for positions
  /// that are not canonical: no mark needs to reach them, and they stay set
  /// unless add_transposes clears them.
  void set_not_canonical_bits() {
    constexpr std::uint64_t words_per_seg = config::kSegmentBits / 64;
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(own_lo, own_hi, 1),
                      [&](const tbb::blocked_range<std::uint64_t>& range) {
      for (std::uint64_t s = range.begin(); s != range.end(); ++s) {
        const std::uint64_t bit = s << config::kSegmentBitsLog2;
        const auto k = static_cast<std::size_t>(std::upper_bound(base.begin(), base.end(), bit) - base.begin()) - 1;
        const int n = n0 + static_cast<int>(k);
        const std::uint64_t lo = bit - base[k];
        const std::uint64_t hi = std::min(lo + config::kSegmentBits, table.positions(n));
        if (lo < hi) detail::set_not_canonical(table, n, lo, hi, bitmap() + (s - own_lo) * words_per_seg);
      }
    });
  }

  /// Level n is marked but for its positions that are not canonical, whose
  /// bits are all set. Each canonical losing position (a clear bit) whose
  /// first row is longer than its first column clears the bit of its
  /// transpose, which is then losing too (the rules do not tell rows from
  /// columns); every other position that is not canonical is the transpose
  /// of a canonical winning one, so it stays set. A distributed sieve sends
  /// the transposes that land in other processes' segments to their owners.
  /// Threads read segments while others clear bits in them: a bit read clear
  /// is either a canonical losing position or an already added transpose,
  /// whose own transpose is canonical and is left alone, so what a thread
  /// sees does not change what it does. (The bits are read and cleared as
  /// atomics.)
  void add_transposes(int n) {
    const PhaseTimer timer(phases.transposes);
    const std::uint64_t p = table.positions(n);
    const std::uint64_t level_bit = base[static_cast<std::size_t>(n - n0)];
    const std::uint64_t first_bit = own_lo << config::kSegmentBitsLog2, end_bit = own_hi << config::kSegmentBitsLog2;
    // This process's segments of the level, as window segments.
    const std::uint64_t s0 = std::max(level_bit >> config::kSegmentBitsLog2, own_lo);
    const std::uint64_t s1 = std::min((level_bit + p + config::kSegmentBits - 1) >> config::kSegmentBitsLog2, own_hi);
    const auto clear = [&](std::uint64_t bit) {
      std::atomic_ref<std::uint64_t>(bitmap()[(bit - first_bit) >> 6])
          .fetch_and(~(std::uint64_t{1} << (bit & 63)), std::memory_order_relaxed);
    };
    tbb::enumerable_thread_specific<std::vector<std::uint64_t>> away;  // bits of other processes
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(s0, std::max(s0, s1), 1),
                      [&](const tbb::blocked_range<std::uint64_t>& segments) {
      detail::Source& source = states.local().source;
      bool decoded = false;
      // The transposes land all over the level: prefetch a batch of their
      // words, then clear them.
      constexpr int kBatch = config::kTransposePrefetch;
      std::uint64_t batch[kBatch];
      int queued = 0;
      const auto flush = [&] {
        for (int j = 0; j < queued; ++j) clear(batch[j]);
        queued = 0;
      };
      const std::uint64_t from = segments.begin() << config::kSegmentBitsLog2;
      const std::uint64_t to = std::min(segments.end() << config::kSegmentBitsLog2, level_bit + p);
      for (std::uint64_t w = from; w < to; w += 64) {
        std::uint64_t losing =
            ~std::atomic_ref<std::uint64_t>(bitmap()[(w - first_bit) >> 6]).load(std::memory_order_relaxed);
        if (to - w < 64) losing &= (std::uint64_t{1} << (to - w)) - 1;
        for (; losing; losing &= losing - 1) {
          const std::uint64_t rank = w - level_bit + static_cast<std::uint64_t>(std::countr_zero(losing));
          if (decoded) {
            source.seek(rank);
          } else {
            source.decode(n, rank);
            decoded = true;
          }
          if (source.run_length(1) <= source.rows()) continue;
          const std::uint64_t bit = level_bit + source.transposed_rank();
          if (bit >= first_bit && bit < end_bit) {
            __builtin_prefetch(bitmap() + ((bit - first_bit) >> 6), 1);
            batch[queued++] = bit;
            if (queued == kBatch) flush();
          } else {
            away.local().push_back(bit);
          }
        }
      }
      flush();
    }, tbb::simple_partitioner());
    if (!distributed()) return;
    std::vector<std::uint64_t> send;
    for (const auto& v : away) send.insert(send.end(), v.begin(), v.end());
    std::sort(send.begin(), send.end());
    const std::vector<std::uint64_t> bounds = owner_bounds();
    std::vector<std::size_t> send_counts(static_cast<std::size_t>(procs)), received_counts;
    for (std::size_t q = 0; q < send_counts.size(); ++q)
      send_counts[q] = static_cast<std::size_t>(std::lower_bound(send.begin(), send.end(), bounds[q + 1]) -
                                                std::lower_bound(send.begin(), send.end(), bounds[q]));
    std::vector<std::uint64_t> received;
    group->exchange(send, send_counts, received, received_counts);
    for (std::uint64_t bit : received) clear(bit);
  }

  /// This process's segments of window level n and their clear bits (the
  /// level's losing positions), counted before they are collected.
  struct LevelScan {
    std::uint64_t p = 0, words = 0;
    std::uint64_t first = 0;            // the level's first segment in the window
    std::uint64_t s0 = 0, s1 = 0;       // this process's segments s0..s1-1 of the level's own
    std::vector<std::uint64_t> counts;  // clear bits per segment s0..s1-1
    std::uint64_t total = 0;

    /// Calls f(w, clear) for each word w of segment s with its clear bits
    /// (bits beyond p excluded).
    template <class F>
    void for_each_word(const std::uint64_t* seg, std::uint64_t s, F&& f) const {
      constexpr std::uint64_t per_seg = config::kSegmentBits / 64;
      const std::uint64_t w0 = s * per_seg, w1 = std::min(words, w0 + per_seg);
      for (std::uint64_t w = w0; w < w1; ++w) {
        std::uint64_t clear = ~seg[w - w0];
        if (w == words - 1 && (p & 63)) clear &= (std::uint64_t{1} << (p & 63)) - 1;
        f(w, clear);
      }
    }
  };

  /// The window bits of segment s of the scanned level.
  const std::uint64_t* level_segment(const LevelScan& scan, std::uint64_t s) const {
    return bitmap() + (scan.first + s - own_lo) * (config::kSegmentBits / 64);
  }

  /// First pass over window level n: the clear bits of each of this
  /// process's segments (a distributed sieve holds only some of them).
  LevelScan count_losing(int n) const {
    LevelScan scan;
    scan.p = table.positions(n);
    scan.words = (scan.p + 63) / 64;
    const std::uint64_t per_seg = config::kSegmentBits / 64;
    const std::uint64_t segments = (scan.words + per_seg - 1) / per_seg;
    scan.first = base[static_cast<std::size_t>(n - n0)] >> config::kSegmentBitsLog2;
    scan.s0 = std::clamp(own_lo, scan.first, scan.first + segments) - scan.first;
    scan.s1 = std::clamp(own_hi, scan.first, scan.first + segments) - scan.first;
    scan.counts.assign(static_cast<std::size_t>(scan.s1 - scan.s0), 0);
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(scan.s0, scan.s1, 1),
                      [&](const tbb::blocked_range<std::uint64_t>& range) {
      for (std::uint64_t s = range.begin(); s != range.end(); ++s) {
        std::uint64_t count = 0;
        scan.for_each_word(level_segment(scan, s), s, [&](std::uint64_t, std::uint64_t clear) {
          count += static_cast<std::uint64_t>(std::popcount(clear));
        });
        scan.counts[static_cast<std::size_t>(s - scan.s0)] = count;
      }
    });
    for (std::uint64_t c : scan.counts) scan.total += c;
    return scan;
  }

  /// Second pass: hands the ranks of the counted clear bits to
  /// emit(std::span<const std::uint64_t>) in increasing order, a batch of
  /// segments at a time through one reused buffer. (A whole level's ranks
  /// at 8 bytes each would be 3.7 GB at n = 150, beside its bitmap.)
  template <class Emit>
  void collect_losing(const LevelScan& scan, Emit&& emit) {
    static_assert(config::kScanBatchRanks >= config::kSegmentBits, "a batch must hold a whole segment");
    const std::uint64_t largest = std::min<std::uint64_t>(scan.total, config::kScanBatchRanks);
    if (scan_buffer.size() < largest) scan_buffer.resize(static_cast<std::size_t>(largest));
    std::vector<std::uint64_t> at(scan.counts.size() + 1);
    for (std::uint64_t s = scan.s0; s < scan.s1;) {
      // Segments s..e-1 whose ranks fit the buffer (at least one).
      std::uint64_t e = s, size = 0;
      while (e < scan.s1 && size + scan.counts[static_cast<std::size_t>(e - scan.s0)] <= config::kScanBatchRanks) {
        at[static_cast<std::size_t>(e - scan.s0)] = size;
        size += scan.counts[static_cast<std::size_t>(e - scan.s0)];
        ++e;
      }
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(s, e, 1), [&](const tbb::blocked_range<std::uint64_t>& range) {
        for (std::uint64_t t = range.begin(); t != range.end(); ++t) {
          std::uint64_t* out = scan_buffer.data() + at[static_cast<std::size_t>(t - scan.s0)];
          scan.for_each_word(level_segment(scan, t), t, [&](std::uint64_t w, std::uint64_t clear) {
            while (clear) {
              *out++ = w * 64 + static_cast<std::uint64_t>(std::countr_zero(clear));
              clear &= clear - 1;
            }
          });
        }
      }, tbb::simple_partitioner());
      emit(std::span<const std::uint64_t>(scan_buffer.data(), static_cast<std::size_t>(size)));
      s = e;
    }
  }

  /// Distributed sieve: stores level n's losing ranks, those of every
  /// process (`mine`: the ones this process scanned), and fills in the
  /// level's count and marks. One sum carries every process's count, the
  /// level's marks and the stop flag: if any process was told to stop, all
  /// abandon the level. Then each process in turn broadcasts its ranks, in
  /// pieces of kSharePiece so that none holds a whole level at 8 bytes a
  /// rank; processes own increasing ranges, so the ranks arrive in order.
  void share_level(int n, const std::vector<std::uint64_t>& mine, LevelResult& res) {
    const auto P = static_cast<std::size_t>(procs);
    std::vector<std::uint64_t> v(P + 2, 0);
    v[static_cast<std::size_t>(me)] = mine.size();
    v[P] = window_marks[static_cast<std::size_t>(n - n0)];
    v[P + 1] = stop_requested() ? 1 : 0;
    group->sum(v);
    if (v[P + 1]) throw interrupted(n);
    LosingLevel& level = store.level(n);
    std::vector<std::uint64_t> piece;
    res.losing = 0;
    for (std::size_t r = 0; r < P; ++r) {
      for (std::uint64_t at = 0; at < v[r]; at += kSharePiece) {
        piece.resize(static_cast<std::size_t>(std::min(kSharePiece, v[r] - at)));
        if (r == static_cast<std::size_t>(me))
          std::copy_n(mine.begin() + static_cast<std::ptrdiff_t>(at), piece.size(), piece.begin());
        group->broadcast(piece, static_cast<int>(r));
        level.append(piece);
      }
      res.losing += v[r];
    }
    res.marks = v[P];
  }

  SieveInterrupted interrupted(int n) const {
    return SieveInterrupted("level " + std::to_string(n) + " was interrupted; levels 1.." + std::to_string(done) +
                            " are complete");
  }

  void close_window() { n0 = 0, n1 = -1, mark_pending = false; }

  LevelResult next_level(const ProgressFn& progress) {
    if (done >= max) throw std::logic_error("sieve already reached its last level");
    const auto start = Clock::now();
    const int n = done + 1;
    LevelResult res;
    res.tiles = n;
    res.positions = table.positions(n);
    try {
      // The losing positions of level n - 1 mark the rest of the window
      // first (mark_pending). A stop there, while the window opened, is
      // agreed on by every process of a group (mark); otherwise a
      // distributed sieve agrees on the stop flag along with the level's
      // counts (share_level). A partly marked level gets no transposes:
      // they would be many and useless.
      if (mark_pending) {
        mark_pending = false;
        if (mark(items_of_levels(n - 1, n - 1, n), n, {})) throw interrupted(n);
      }
      if (n > n1 && open_window(progress)) throw interrupted(n);
      if (!distributed() && stop_requested()) throw interrupted(n);
      if (transposes) add_transposes(n);
      const PhaseTimer timer(phases.scanning);
      if (distributed()) {
        const LevelScan scan = count_losing(n);
        std::vector<std::uint64_t> mine;
        mine.reserve(static_cast<std::size_t>(scan.total));
        collect_losing(scan, [&](std::span<const std::uint64_t> ranks) {
          mine.insert(mine.end(), ranks.begin(), ranks.end());
        });
        share_level(n, mine, res);
      } else {
        const LevelScan scan = count_losing(n);
        LosingLevel& level = store.level(n);
        level.reserve(scan.total);
        collect_losing(scan, [&](std::span<const std::uint64_t> ranks) { level.append(ranks); });
        res.losing = scan.total;
        res.marks = window_marks[static_cast<std::size_t>(n - n0)];
      }
    } catch (...) {
      close_window();  // partly marked bitmaps must not be reused
      throw;
    }
    done = n;
    // The new losing positions mark the rest of the window when the next
    // level starts: level n is final now, and its file write (which the
    // caller starts on another thread) overlaps that long, evenly shared
    // pass rather than the short ones (transposes, scan) that begin a level.
    mark_pending = n < n1;
    res.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return res;
  }
};

Sieve::Sieve(int max_tiles) : impl_(std::make_unique<Impl>(max_tiles, nullptr)) {}
Sieve::Sieve(int max_tiles, ProcessGroup* group) : impl_(std::make_unique<Impl>(max_tiles, group)) {}
Sieve::~Sieve() = default;

int Sieve::max_tiles() const { return impl_->max; }
int Sieve::levels_done() const { return impl_->done; }
const PartitionTable& Sieve::table() const { return impl_->table; }
const LosingStore& Sieve::losing() const { return impl_->store; }
PhaseTimes Sieve::phase_times() const { return impl_->phases; }

LevelResult Sieve::next_level(const ProgressFn& progress) { return impl_->next_level(progress); }

void Sieve::restore_level(int n, std::span<const std::uint64_t> losing_ranks, std::uint64_t marks) {
  if (n != levels_done() + 1 || n > max_tiles())
    throw std::invalid_argument("cannot restore level " + std::to_string(n) + " after level " +
                                std::to_string(levels_done()));
  std::vector<std::uint64_t> sent;  // a distributed sieve restores process 0's ranks
  if (impl_->distributed()) {
    std::uint64_t count = losing_ranks.size();
    impl_->group->broadcast(std::span<std::uint64_t>(&count, 1), 0);
    sent.resize(static_cast<std::size_t>(count));
    if (impl_->me == 0) std::copy(losing_ranks.begin(), losing_ranks.end(), sent.begin());
    impl_->group->broadcast(sent, 0);
    losing_ranks = sent;
  }
  const std::uint64_t p = impl_->table.positions(n);
  if (!losing_ranks.empty() && losing_ranks.back() >= p)
    throw std::invalid_argument("restored rank beyond p(" + std::to_string(n) + ")");
  impl_->store.level(n).append(losing_ranks);
  (void)marks;
  impl_->done = n;
  impl_->close_window();
}

void Sieve::set_stop_flag(const std::atomic<bool>* flag) { impl_->stop = flag; }
bool Sieve::stop_requested() const { return !impl_->distributed() && impl_->stop_requested(); }

void Sieve::run(const std::function<void(const LevelResult&)>& on_level, const ProgressFn& progress) {
  while (levels_done() < max_tiles()) {
    const LevelResult r = next_level(progress);
    if (on_level) on_level(r);
  }
}

std::vector<Rows> Sieve::losing_positions(int n) const {
  if (n < 1 || n > levels_done())
    throw std::invalid_argument("level " + std::to_string(n) + " is not finished");
  std::vector<Rows> out;
  for (std::uint64_t r : impl_->store.level(n).all()) out.push_back(impl_->table.unrank(n, r));
  return out;
}

bool Sieve::is_losing(std::span<const int> rows) const {
  const std::uint64_t n = tile_count(rows);
  if (n < 1 || n > static_cast<std::uint64_t>(levels_done()))
    throw std::invalid_argument("position has " + std::to_string(n) +
                                " tiles; the sieve has finished levels 1.." +
                                std::to_string(levels_done()));
  return impl_->store.level(static_cast<int>(n)).contains(impl_->table.rank(rows));
}

MemoryPlan plan_memory(int max_tiles, int processes) {
  const PartitionTable t(max_tiles);
  MemoryPlan plan;
  // The largest window's bitmaps (the windows the sieve will really use),
  // or a process's share of them.
  for (int n0 = 1; n0 <= max_tiles;) {
    const int n1 = window_end(t, n0, max_tiles, processes);
    std::uint64_t bits = 0;
    for (int k = n0; k <= n1; ++k) bits += segment_aligned_bits(t.positions(k));
    plan.bitmap_bytes = std::max(plan.bitmap_bytes, share_bits(bits, processes) / 8);
    n0 = n1 + 1;
  }
  // Losing positions: about 0.3 p / ln p per level (the conjectured
  // density, a little above the measured one). Each is a varint gap, one
  // byte or two once the gap reaches 128 (gaps taken as geometric with mean
  // p / L = ln p / 0.3: about 80 at n = 140), in blocks of which up to an
  // eighth may be unused, plus 16 bytes of chunk index per chunk of
  // config::kStoreChunk.
  double store = 0;
  for (int n = 2; n <= max_tiles; ++n) {
    const double p = static_cast<double>(t.positions(n));
    const double losing = 0.3 * p / std::log(p);
    const double two_bytes = std::pow(1.0 - losing / p, 127.0);
    store += losing * ((1.0 + two_bytes) * 9.0 / 8.0 + 16.0 / static_cast<double>(config::kStoreChunk));
  }
  plan.store_bytes = static_cast<std::uint64_t>(store) + 1;
  // Each thread's block pool keeps the most it filed in a round, at most
  // twice its share of a round's budget (generate_round): two budgets in
  // all, plus a partly filled 4 KiB block per segment and thread.
  plan.bucket_bytes = 2 * config::kRoundMarks * sizeof(std::uint32_t) +
                      plan.bitmap_bytes * 8 / config::kSegmentBits * 4096 *
                          static_cast<std::uint64_t>(tbb::this_task_arena::max_concurrency());
  // A level's losing ranks pass to the store through one buffer.
  plan.scan_bytes = config::kScanBatchRanks * sizeof(std::uint64_t);
  // Processes of a group also hold a round's marks for the others twice
  // (queued per thread, then packed to send) and about as many received.
  // And each collects its share of a level's losing ranks (8 bytes each)
  // before they are shared, then receives them kSharePiece at a time.
  if (processes > 1) {
    plan.bucket_bytes += 3 * config::kRoundMarks * sizeof(std::uint32_t);
    const double p = static_cast<double>(t.positions(max_tiles));
    plan.scan_bytes += static_cast<std::uint64_t>(8 * 0.3 * p / std::log(p) / processes) + 8 * kSharePiece;
    // Before a level is scanned, the transposes that land in other
    // processes' segments (at most half its losing positions) are queued,
    // packed to send and received: three times 8 bytes each at most.
    plan.scan_bytes += static_cast<std::uint64_t>(3 * 8 * 0.15 * p / std::log(p));
  }
  return plan;
}

}  // namespace chomp
