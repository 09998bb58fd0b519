/// @file marking.cpp
/// @brief Marking a window in rounds: threads read parts of the store's
/// blocks, enumerate the sources' extensions and file the marks by segment
/// (or route them to the process that owns the segment); then every segment
/// applies its marks while it sits in cache.

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

#include "chomp/work_model.hpp"
#include "config.hpp"
#include "mark_sinks.hpp"
#include "sieve_impl.hpp"
#include "sieve_testing.hpp"
#include "unrank_step.hpp"

namespace chomp {

std::atomic<std::uint64_t> detail::g_items_cut{0};
std::atomic<std::uint64_t> detail::g_direct_calls{0};
std::atomic<std::uint64_t> detail::g_split_calls{0};
std::atomic<std::uint64_t> detail::g_routed_values{0};

namespace {

using detail::ItemList;
using detail::ItemPosition;
using detail::Piece;
using detail::Remainders;
using detail::ShareList;
using detail::ThreadState;
using detail::WorkItem;
using detail::AtomicSink;
using detail::DirectSink;

/// How marks travel between processes: 64-bit window bit numbers; a range
/// is its first bit with kRangeStart set, then its length with kRangeLength
/// set, so a reader that starts anywhere can tell a length from a mark.
constexpr std::uint64_t kRangeStart = std::uint64_t{1} << 63;
constexpr std::uint64_t kRangeLength = std::uint64_t{1} << 62;

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

/// What a pass's items cost, estimated for its progress: each source is
/// visited once (kVisitMarks) and makes about model_source_marks(k - m)
/// entries into each target level k, at most p(k - m) (work_model.hpp).
/// An item is counted with the mean number of sources in its level's items
/// (the level's sources over its items), not the nominal part size: a level
/// of few sources is one block cut into parts that are mostly empty.
class ItemWork {
 public:
  ItemWork(const PartitionTable& table, const LosingStore& store, const ItemList& all)
      : table_(table), sources_(static_cast<std::size_t>(kMaxTiles) + 1, 0.0) {
    for (std::size_t l = 0; l < all.spans.size(); ++l) {
      const detail::SourceSpan& span = all.spans[l];
      const auto blocks = store.blocks(span.level);
      double n = 0;
      for (std::size_t b = span.block0; b < span.block1; ++b) n += blocks[b].count;
      const auto items = static_cast<double>(all.first[l + 1] - all.first[l]);
      sources_[static_cast<std::size_t>(span.level)] = items > 0 ? n * all.pieces / items : 0;
    }
  }
  double operator()(const WorkItem& it) const {
    double per_source = kVisitMarks;
    for (int k = it.lo; k <= it.hi; ++k)
      per_source += std::min(static_cast<double>(table_.positions(k - it.level)), model_source_marks(k - it.level));
    return per_source * sources_[static_cast<std::size_t>(it.level)];
  }

 private:
  const PartitionTable& table_;
  std::vector<double> sources_;  // by level
};

/// Reports the fraction of a pass's estimated work done (ItemWork), from
/// whichever thread gets the lock, at most every
/// config::kProgressIntervalSeconds. Counting items instead, a pass's
/// fraction ran 0.36-0.45 away from the fraction of its time gone (items
/// are taken heaviest first by the bound on their marks, p(d) a source: few
/// and long at first, then many and quick), and the long run showed 0% for
/// 16 of the 35 minutes of window 146..149's first pass.
class ProgressThrottle {
 public:
  /// A pass of `items` (a process's share), of which those before `cursor`
  /// are done but for the rests in `left` (a pass continued from a
  /// checkpoint).
  ProgressThrottle(const ProgressFn& fn, int tiles, ItemWork work, const ShareList& items, std::size_t cursor = 0,
                   const std::vector<Piece>& left = {})
      : fn_(fn), tiles_(tiles), work_(std::move(work)) {
    total_ = std::max(1.0, items.work_before(items.size(), work_));
    double done = items.work_before(cursor, work_);
    for (const Piece& p : left) done -= work_(p.item);
    done_.store(std::max(0.0, done));
  }
  void item_done(const WorkItem& it) {
    const double w = work_(it);
    const double done = done_.fetch_add(w, std::memory_order_relaxed) + w;
    if (!fn_) return;
    std::unique_lock lock(lock_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    const auto now = detail::Clock::now();
    if (std::chrono::duration<double>(now - last_report_).count() < config::kProgressIntervalSeconds) return;
    last_report_ = now;
    fn_(tiles_, std::min(1.0, done / total_));
  }

 private:
  const ProgressFn& fn_;
  int tiles_;
  ItemWork work_;
  double total_ = 1;
  std::mutex lock_;
  // The first item of a pass reports at once: passes shorter than the
  // interval (most of a window's) would report nothing otherwise.
  detail::Clock::time_point last_report_{};
  std::atomic<double> done_{0};
};

/// Whether any process has sources left, or raised the stop flag.
struct RoundFlags {
  bool more = false, stop = false;
};

/// Blocks of a level read ahead of the one a thread reads, in steps of this
/// many (about 256 KiB of the store at a time).
constexpr std::size_t kReadAheadBlocks = 64;

/// An item's sources are about this many marks of work at least, when its
/// level's sources have few extensions each: reading and decoding a block
/// (4,096 ranks, a few microseconds) must stay a small part of an item.
constexpr double kItemMarks = double(1 << 17);

/// The widest span of ranks whose bits of positions that are not canonical
/// an item's part sets to skip those sources (2^20 bits, 128 KiB).
constexpr std::uint64_t kSkipSpanBits = std::uint64_t{1} << 20;

/// The number and hash of a pass's items, from the lists the pass makes.
std::pair<std::uint64_t, std::uint64_t> signature_of(const ItemList& items, const ShareList& share) {
  // FNV-1a over every number that decides the items and their order.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto mix = [&](std::uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) h = (h ^ (v & 0xff)) * 0x100000001b3ULL;
  };
  mix(static_cast<std::uint64_t>(items.lo)), mix(static_cast<std::uint64_t>(items.hi));
  mix(static_cast<std::uint64_t>(items.pieces)), mix(items.size());
  for (const detail::SourceSpan& sp : items.spans) {
    mix(static_cast<std::uint64_t>(sp.level)), mix(sp.block0), mix(sp.block1);
    mix(static_cast<std::uint64_t>(sp.parts)), mix(sp.sources);
  }
  mix(share.size());
  for (std::size_t i = 0; i < share.size() && i < 64; ++i) {  // the order they are taken in, its start
    const WorkItem it = share[i];
    mix(static_cast<std::uint64_t>(it.level)), mix(it.block), mix(static_cast<std::uint64_t>(it.part));
  }
  return {share.size(), h};
}

}  // namespace

/// The marking pass of one window, over the items of one set of source
/// levels: rounds of filing and applying until every item is done.
class MarkingPass {
 public:
  MarkingPass(Sieve::Impl& s) : s_(s) {
    for (const WindowLevel& w : s.window) offsets_.push_back(w.offset());
    const WindowLevel& w = s.window.front();
    rows_lo_ = w.whole() ? 1 : w.a_lo;
    rows_hi_ = w.whole() ? kMaxTiles + 1 : w.a_hi;
  }

  /// Reads the item's block (unless the thread holds it already) and hands
  /// each of its sources' extensions with item.lo..item.hi tiles to those
  /// window levels, from `from` on. Checks full() after each call of the
  /// kernel (the levels up to config::kJointExtraTiles above the source
  /// together, then each level above them alone) and, when it holds with
  /// work left, stops there and returns where the rest starts.
  template <class Inner, class Full>
  std::optional<ItemPosition> extend(ThreadState& ts, const WorkItem& item, Inner& inner, ItemPosition from,
                                     Full&& full) {
    const int m = item.level;
    if (from.source == 0 && item.part == 0 && item.block % kReadAheadBlocks == 0 && from.level == item.lo)
      s_.store.read_ahead(m, item.block + kReadAheadBlocks, item.block + 2 * kReadAheadBlocks);
    // The part's sources from `from` on (a part of a block: its 4,096 ranks
    // decoded at once would push the marking's data out of L1).
    const std::size_t first = static_cast<std::size_t>(item.part) * item.sources + from.source;
    s_.store.read_part(m, item.block, first, item.sources - from.source, ts.block, ts.ranks);
    const std::size_t count = ts.ranks.size();
    const int n0 = s_.window.front().n;
    // The sources that are not canonical, when they make no marks: their
    // bits over the part's ranks (set_not_canonical, a few hundredths of a
    // nanosecond a rank) spare their decoding (tens of nanoseconds each,
    // about half the sources). A part whose ranks spread too far is
    // decoded whole.
    std::uint64_t skip_lo = 0;
    bool skip = false;
    if (ts.skip_not_canonical && count > 0) {
      skip_lo = ts.ranks.front() & ~std::uint64_t{63};
      const std::uint64_t span = ts.ranks.back() + 1 - skip_lo;
      if (span <= kSkipSpanBits) {
        ts.not_canonical.assign(static_cast<std::size_t>(span / 64 + 1), 0);
        detail::set_not_canonical(s_.table, m, skip_lo, ts.ranks.back() + 1, ts.not_canonical.data());
        skip = true;
      }
    }
    const auto skipped = [&](std::uint64_t r) {
      return skip && (ts.not_canonical[(r - skip_lo) >> 6] >> ((r - skip_lo) & 63) & 1) != 0;
    };
    // The index of the first source the loop extends at or after i.
    const auto extended_from = [&](std::size_t i) {
      while (i < count && skipped(ts.ranks[i])) ++i;
      return i;
    };
    bool decoded = false;
    for (std::size_t i = extended_from(0), next; i < count; i = next) {
      const std::uint64_t r = ts.ranks[i];
      if (!decoded)
        ts.source.decode(m, r), decoded = true;
      else
        ts.source.seek(r);
      // The next source the loop extends, so that corners it does not
      // share are not recorded for it (none after the part's last).
      next = extended_from(i + 1);
      ts.source.set_next(next < count ? ts.ranks[next] : ~std::uint64_t{0});
      for (int k = i == 0 ? from.level : item.lo; k <= item.hi;) {
        // Levels up to config::kJointExtraTiles above the source in one
        // walk over its corners, the others one at a time: those whose
        // extensions could overrun the round (a bound from the source's
        // runs) straight into the bitmap (in a distributed sieve, to every
        // process, which makes its own part of them), the rest into the
        // buckets.
        const int joint_top = m + config::kJointExtraTiles;
        const int top = k <= joint_top ? std::min(item.hi, joint_top) : k;
        bool direct = false, split = false;
        if constexpr (std::is_same_v<Inner, detail::MarkBuckets>)
          direct = k > joint_top && ts.source.extension_bound(k - m) > s_.tuning.direct_call_marks;
        if constexpr (std::is_same_v<Inner, RoutedSink>)
          split = k > joint_top && ts.source.extension_bound(k - m) > s_.tuning.direct_call_marks;
        if (split) {
          // Every process makes its own segments' part of it after the
          // round's exchange (make_split_calls).
          ts.split_calls.push_back(static_cast<std::uint64_t>(m) << 16 | static_cast<std::uint64_t>(k));
          ts.split_calls.push_back(r);
        } else if (direct) {
          AtomicSink sink(s_.bitmap());
          ts.source.for_each_extension(k - m, k - m, sink, offsets_.data() + (k - n0));
          sink.flush();
          ts.direct_marks[static_cast<std::size_t>(k - n0)] += sink.marks;
          detail::g_direct_calls.fetch_add(1, std::memory_order_relaxed);
        } else {
          ts.source.for_each_extension(k - m, top - m, inner, offsets_.data() + (k - n0));
        }
        k = top + 1;
        const bool end = k > item.hi && i + 1 == count;
        if (!end && full())
          return k <= item.hi ? ItemPosition{from.source + i, k} : ItemPosition{from.source + i + 1, item.lo};
      }
    }
    return std::nullopt;
  }

  /// Prepares a thread's state for this pass: its decoder's slice of first
  /// rows and, once per pass, its buckets.
  void prepare(ThreadState& ts, int gen, std::size_t segments) {
    if (ts.generation == gen) return;
    ts.source.set_first_rows(rows_lo_, rows_hi_);
    ts.buckets.prepare(segments);
    ts.direct_marks.assign(s_.window.size(), 0);
    if (s_.distributed()) {
      ts.outgoing.resize(static_cast<std::size_t>(s_.procs));
      for (auto& q : ts.outgoing) q.clear();
      ts.split_calls.clear();
    }
    ts.generation = gen;
  }

  /// One round's first half: every thread takes pieces (the rests of items
  /// cut in the last round first, then items from the cursor) and marks
  /// them with file(ts, piece, room), which stops once it has filed `room`
  /// entries and returns the entries filed and where the rest starts, if
  /// any; the rest goes back to `left`. A thread stops when the round's
  /// budget is used or at twice its share of it: its block pool keeps the
  /// most it ever filed in a round, so the pools together stay within two
  /// budgets whatever the thread count (the memory plan), give or take the
  /// kernel call (a source's joint walk over up to 32 levels, or one level
  /// above those) each thread was filing when it reached its share.
  template <class Items, class File>
  void generate_round(const Items& items, std::atomic<std::size_t>& cursor, Remainders& left,
                      ProgressThrottle& progress, int gen, std::size_t segments, File&& file) {
    const detail::PhaseTimer timer(s_.phases.filing);
    std::atomic<std::uint64_t> pending{0};
    const std::uint64_t budget = s_.tuning.round_marks;
    const int workers = s_.tuning.threads;
    // simple_partitioner: one task per worker, so every thread gets one
    // (the auto partitioner may keep a range of two in one task).
    const std::uint64_t own_cap = std::max<std::uint64_t>(1, 2 * budget / static_cast<std::uint64_t>(workers));
    tbb::parallel_for(tbb::blocked_range<int>(0, workers, 1), [&](const tbb::blocked_range<int>&) {
      ThreadState& ts = s_.states.local();
      prepare(ts, gen, segments);
      std::uint64_t own = 0;
      while (pending.load(std::memory_order_relaxed) < budget && own < own_cap) {
        // A stop ends the round once the pieces in hand are filed; what is
        // left stays in cursor and left (a checkpoint saves them).
        if (s_.stop_requested()) break;
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
          progress.item_done(piece.item);
      }
      detail::MarkBuckets::filing_done();
    }, tbb::simple_partitioner());
  }

  /// One round's second half: each of this process's segments ORs every
  /// thread's bucket while it is in cache (one owner per segment).
  void apply_round(int gen, std::vector<std::uint64_t>& segment_marks) {
    {
      // The entries each thread staged go to their segments' chains (part
      // of filing), every thread's buckets at once.
      const detail::PhaseTimer timer(s_.phases.filing);
      tbb::parallel_for(s_.states.range(), [&](const auto& states) {
        for (ThreadState& ts : states)
          if (ts.generation == gen) ts.buckets.flush();
      });
    }
    const detail::PhaseTimer timer(s_.phases.applying);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, segment_marks.size(), 1),
                      [&](const tbb::blocked_range<std::size_t>& range) {
      for (std::size_t seg = range.begin(); seg != range.end(); ++seg) {
        std::uint64_t* words = s_.bitmap() + (seg << (config::kSegmentBitsLog2 - 6));
        std::uint64_t entries = 0;
        for (ThreadState& ts : s_.states)
          if (ts.generation == gen) entries += ts.buckets.segment_entries(seg);
        const bool dense = entries >= detail::MarkBuckets::kDenseEntries;
        if (dense) detail::load_segment(words);
        std::uint64_t applied = 0;
        for (ThreadState& ts : s_.states)
          if (ts.generation == gen) applied += ts.buckets.apply_segment(seg, words, dense);
        segment_marks[seg] += applied;
        s_.marks_applied.fetch_add(applied, std::memory_order_relaxed);
      }
    });
    for (ThreadState& ts : s_.states) ts.buckets.recycle();
    // The marks ORed in directly this round, counted with their level's
    // first segment (a level's marks are its segments' sum).
    for (ThreadState& ts : s_.states) {
      if (ts.generation != gen) continue;
      for (std::size_t k = 0; k < ts.direct_marks.size(); ++k) {
        const std::uint64_t n = std::exchange(ts.direct_marks[k], 0);
        if (n == 0) continue;
        // (A process of a distributed sieve counts only marks of its own
        // segments: the level's first one it owns.)
        segment_marks[std::max(s_.window[k].base >> config::kSegmentBitsLog2, s_.own_lo) - s_.own_lo] += n;
        s_.marks_applied.fetch_add(n, std::memory_order_relaxed);
      }
    }
  }

  /// Adds the marks applied to this process's segments to their levels.
  void count_segment_marks(std::vector<std::uint64_t>& segment_marks) {
    for (std::size_t k = 0; k < s_.window.size(); ++k) {
      const std::uint64_t end = k + 1 < s_.window.size() ? s_.window[k + 1].base : s_.window_bits;
      const std::uint64_t first = std::max(s_.window[k].base >> config::kSegmentBitsLog2, s_.own_lo);
      const std::uint64_t last = std::min(end >> config::kSegmentBitsLog2, s_.own_hi);
      for (std::uint64_t seg = first; seg < last; ++seg)
        s_.window[k].marks += std::exchange(segment_marks[seg - s_.own_lo], 0);
    }
  }

  /// Marks the pass's items (items_of_levels(from, to, lo)), from `resume`
  /// on when given. With a checkpoint file, a stop saves the progress
  /// between two rounds, and so does every options.checkpoint_seconds.
  bool run(int from, int to, int lo, const ProgressFn& progress, const detail::PassProgress* resume) {
    const ItemList all_items = s_.items_of_levels(from, to, lo, resume ? resume->pieces : 0);
    if (s_.distributed()) return run_distributed(all_items, lo, progress);
    const ShareList items = my_share(all_items);
    if (s_.window_bits <= config::kDirectMarkBits) {
      // Small windows: one thread, level by level so the marks are counted.
      const detail::PhaseTimer timer(s_.phases.filing);
      ThreadState ts(s_.table, s_.options.transposes, s_.tails ? s_.tails->rows() : 0, s_.tuning.pool_page_blocks);
      ts.source.set_first_rows(rows_lo_, rows_hi_);
      DirectSink sink{s_.bitmap()};
      for (std::size_t i = 0; i < items.size(); ++i) {
        const WorkItem it = items[i];
        for (int k = it.lo; k <= it.hi; ++k) {
          if (s_.stop_requested()) return true;
          const std::uint64_t before = sink.marks;
          WorkItem one = it;
          one.lo = one.hi = k;
          extend(ts, one, sink, ItemPosition{0, k}, [] { return false; });
          s_.window_level(k).marks += sink.marks - before;
          s_.marks_applied.fetch_add(sink.marks - before, std::memory_order_relaxed);
        }
      }
      return s_.stop_requested();
    }
    const std::size_t segments = static_cast<std::size_t>(s_.window_bits >> config::kSegmentBitsLog2);
    std::vector<std::uint64_t> segment_marks(segments, 0);
    const int gen = ++s_.generation;
    std::atomic<std::size_t> cursor{0};
    Remainders left;
    double seconds_before = 0;
    if (resume) {
      // A checkpoint's window holds only the levels the pass marks.
      std::copy(resume->segment_marks.begin(), resume->segment_marks.end(), segment_marks.end() - static_cast<std::ptrdiff_t>(resume->segment_marks.size()));
      cursor.store(static_cast<std::size_t>(std::min<std::uint64_t>(resume->cursor, items.size())));
      left.restore(resume->left);
      seconds_before = resume->seconds;
    }
    // A slice's pass starts from the level's time before it, in every run
    // (a resumed pass's saved part included), which a checkpoint saves.
    if (s_.slicing) seconds_before = s_.slicing->seconds;
    ProgressThrottle throttle(progress, lo, ItemWork(s_.table, s_.store, all_items), items, cursor.load(), left.pieces());
    const auto started = detail::Clock::now();
    auto last_save = started;
    // (Plain variables, not a structured binding: the lambda below captures
    // them, which Clang before 16 does not allow for bindings.)
    const std::pair<std::uint64_t, std::uint64_t> signature = signature_of(all_items, items);
    const std::uint64_t item_count = signature.first, item_hash = signature.second;
    const auto progress_now = [&] {
      detail::PassProgress p;
      p.from = from, p.to = to, p.lo = lo;
      p.items = item_count, p.signature = item_hash, p.pieces = all_items.pieces;
      p.cursor = std::min(cursor.load(), items.size());
      p.left = left.pieces();
      p.segment_marks = segment_marks;
      p.seconds = seconds_before + std::chrono::duration<double>(detail::Clock::now() - started).count();
      return p;
    };
    while (cursor.load() < items.size() || !left.empty()) {
      generate_round(items, cursor, left, throttle, gen, segments,
                     [&](ThreadState& ts, const Piece& piece, std::uint64_t room) {
        const std::uint64_t e0 = ts.buckets.entries();
        const auto rest = extend(ts, piece.item, ts.buckets, piece.from,
                                 [&] { return ts.buckets.entries() - e0 >= room; });
        return std::pair{ts.buckets.entries() - e0, rest};
      });
      apply_round(gen, segment_marks);
      if (s_.stop_requested()) {
        s_.save_checkpoint(progress_now());
        return true;
      }
      // The next save waits for the interval asked for, and for at least
      // kCheckpointSpacing times what the last save took, so that a short
      // interval (or a slow disk) cannot make saving most of the pass.
      const double every = std::max(s_.options.checkpoint_seconds, config::kCheckpointSpacing * s_.last_save_took);
      if (s_.options.checkpoint_seconds > 0 &&
          std::chrono::duration<double>(detail::Clock::now() - last_save).count() >= every &&
          (cursor.load() < items.size() || !left.empty())) {
        const auto save_started = detail::Clock::now();
        s_.save_checkpoint(progress_now());
        last_save = detail::Clock::now();
        s_.last_save_took = std::chrono::duration<double>(last_save - save_started).count();
      }
    }
    // A stop that came after the last round's check: the pass is whole,
    // and saved so (its marks per segment not yet added to the levels).
    if (s_.stop_requested()) {
      s_.save_checkpoint(progress_now());
      return true;
    }
    count_segment_marks(segment_marks);
    return false;
  }

  /// The distributed form of run: this process extends its share of the
  /// items; each round, the marks queued for other processes are exchanged
  /// (all-to-all) and filed into their owners' buckets before every process
  /// applies its own segments. Rounds go on, on every process, until no
  /// process has items left or one of them raised the stop flag.
  bool run_distributed(const ItemList& all_items, int lo, const ProgressFn& progress) {
    if (all_items.size() == 0) return false;  // the same on every process: no round, nothing marked
    const ShareList items = my_share(all_items);
    const std::uint64_t segments = s_.own_hi - s_.own_lo;
    const std::vector<std::uint64_t> bounds = owner_bounds();
    std::vector<std::uint64_t> segment_marks(segments, 0);
    const int gen = ++s_.generation;
    ProgressThrottle throttle(progress, lo, ItemWork(s_.table, s_.store, all_items), items);
    std::atomic<std::size_t> cursor{0};
    Remainders left;
    std::vector<std::uint64_t> send, received, split_calls;
    std::vector<std::size_t> send_counts(static_cast<std::size_t>(s_.procs)), received_counts;
    bool stopped = false;
    for (;;) {
      generate_round(items, cursor, left, throttle, gen, static_cast<std::size_t>(segments),
                     [&](ThreadState& ts, const Piece& piece, std::uint64_t room) {
        RoutedSink sink{&ts.buckets, ts.outgoing.data(), bounds.data(), s_.procs, s_.me};
        const std::uint64_t e0 = ts.buckets.entries();
        const std::size_t s0 = ts.split_calls.size();
        // A queued value takes 8 bytes, two of the buckets' 4-byte entries;
        // a split call's two values go to every process.
        const auto procs = static_cast<std::uint64_t>(s_.procs);
        auto filed = [&] {
          return ts.buckets.entries() - e0 + 2 * (sink.queued + procs * (ts.split_calls.size() - s0));
        };
        const auto rest = extend(ts, piece.item, sink, piece.from, [&] { return filed() >= room; });
        return std::pair{filed(), rest};
      });
      const RoundFlags flags = exchange_marks(gen, static_cast<std::size_t>(segments),
                                              cursor.load() < items.size() || !left.empty(), send, send_counts,
                                              received, received_counts, split_calls);
      make_split_calls(split_calls, bounds, gen, static_cast<std::size_t>(segments));
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
    const std::uint64_t window_segments = s_.window_bits >> config::kSegmentBitsLog2;
    std::vector<std::uint64_t> bounds;
    for (int p = 0; p <= s_.procs; ++p)
      bounds.push_back(window_segments * static_cast<std::uint64_t>(p) / static_cast<std::uint64_t>(s_.procs)
                       << config::kSegmentBitsLog2);
    return bounds;
  }

  /// This process's items: every process makes the same split of the items
  /// into shares of about equal estimated work (share.hpp) and takes its
  /// own, heaviest first so that its threads end together too (one process
  /// alone takes every item, in that order). An item's work is estimated as
  /// its sources times the sum over its target levels k of p(k - m): a
  /// source of level m has about that many extensions to level k. Items of
  /// a span and piece form one class, so the split is kept as runs of
  /// items, never as a list.
  ShareList share_of(const ItemList& all) const { return my_share(all); }
  ShareList my_share(const ItemList& all) const {
    std::vector<detail::ItemRun> classes;
    const auto pieces = static_cast<std::size_t>(all.pieces);
    for (std::size_t l = 0; l < all.spans.size(); ++l) {
      const detail::SourceSpan& span = all.spans[l];
      const std::size_t count = (all.first[l + 1] - all.first[l]) / pieces;
      if (count == 0) continue;
      for (std::size_t p = 0; p < pieces; ++p) {
        const WorkItem it = all[all.first[l] + p];
        double per_source = 0;
        for (int k = it.lo; k <= it.hi; ++k) per_source += static_cast<double>(s_.table.positions(k - it.level));
        classes.push_back({all.first[l] + p, pieces, count, static_cast<double>(span.sources) * per_source});
      }
    }
    return ShareList(all, detail::share_of(std::move(classes), s_.procs, s_.me));
  }

  /// Sends every thread's queued marks to their owners and files the marks
  /// received into this process's buckets. Each process's message to each
  /// other ends with the round's split calls of all its threads (two values
  /// each, sent to every process), their number, and two values, whether it
  /// has sources left and whether it was told to stop, so the round needs no
  /// further agreement. The split calls of every process come back in
  /// `calls`.
  RoundFlags exchange_marks(int gen, std::size_t segments, bool more, std::vector<std::uint64_t>& send,
                            std::vector<std::size_t>& send_counts, std::vector<std::uint64_t>& received,
                            std::vector<std::size_t>& received_counts, std::vector<std::uint64_t>& calls) {
    const detail::PhaseTimer timer(s_.phases.applying);
    const auto P = static_cast<std::size_t>(s_.procs);
    std::size_t split_values = 0;
    for (ThreadState& ts : s_.states)
      if (ts.generation == gen) split_values += ts.split_calls.size();
    std::fill(send_counts.begin(), send_counts.end(), split_values + 3);  // the calls, their number, two flags
    for (ThreadState& ts : s_.states)
      if (ts.generation == gen)
        for (std::size_t p = 0; p < P; ++p) send_counts[p] += ts.outgoing[p].size();
    std::vector<std::size_t> at(P, 0);
    for (std::size_t p = 1; p < P; ++p) at[p] = at[p - 1] + send_counts[p - 1];
    send.resize(at[P - 1] + send_counts[P - 1]);
    for (ThreadState& ts : s_.states)
      if (ts.generation == gen)
        for (std::size_t p = 0; p < P; ++p) {
          std::copy(ts.outgoing[p].begin(), ts.outgoing[p].end(), send.begin() + static_cast<std::ptrdiff_t>(at[p]));
          at[p] += ts.outgoing[p].size();
          ts.outgoing[p].clear();
        }
    for (ThreadState& ts : s_.states)
      if (ts.generation == gen) {
        for (std::size_t p = 0; p < P; ++p) {
          std::copy(ts.split_calls.begin(), ts.split_calls.end(), send.begin() + static_cast<std::ptrdiff_t>(at[p]));
          at[p] += ts.split_calls.size();
        }
        ts.split_calls.clear();
      }
    detail::g_routed_values.fetch_add(send.size() - 3 * P - (send_counts[static_cast<std::size_t>(s_.me)] - 3),
                                      std::memory_order_relaxed);
    const bool stop_here = s_.stop_requested();
    for (std::size_t p = 0; p < P; ++p) {
      send[at[p]] = split_values / 2;
      send[at[p] + 1] = more ? 1 : 0;
      send[at[p] + 2] = stop_here ? 1 : 0;
    }
    s_.group->exchange(send, send_counts, received, received_counts);
    RoundFlags flags;
    calls.clear();
    const std::uint64_t first_bit = s_.own_lo << config::kSegmentBitsLog2;
    std::size_t from = 0;
    for (std::size_t q = 0; q < P; ++q) {
      const std::size_t tail = from + received_counts[q] - 3;
      const std::size_t end = tail - 2 * static_cast<std::size_t>(received[tail]);
      flags.more = flags.more || received[tail + 1] != 0;
      flags.stop = flags.stop || received[tail + 2] != 0;
      calls.insert(calls.end(), received.begin() + static_cast<std::ptrdiff_t>(end),
                   received.begin() + static_cast<std::ptrdiff_t>(tail));
      // File process q's marks in parallel; a piece that starts on a range's
      // length leaves it to the piece before, which reads one value past its end.
      tbb::parallel_for(tbb::blocked_range<std::size_t>(from, end, std::size_t{1} << 16),
                        [&](const tbb::blocked_range<std::size_t>& r) {
        ThreadState& ts = s_.states.local();
        prepare(ts, gen, segments);
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
        detail::MarkBuckets::filing_done();
      });
      from = tail + 3;
    }
    return flags;
  }

  /// The calls of the kernel too large for the buckets that the processes
  /// met this round (exchange_marks): a call of a source far below its
  /// level can make 1.5e9 marks at 170, which filed and queued for the
  /// other processes would take 12 GB. Every process makes each of them
  /// itself, for the first rows that reach its own segments of the level,
  /// and ORs the marks that land in them into its bitmap (AtomicSink). A
  /// first row that two processes share is enumerated by both, and each of
  /// its marks ORed and counted by the one that owns it. A call's first
  /// rows are cut into pieces (up to config::kItemsPerThread a thread), so
  /// that the threads share the largest call too.
  void make_split_calls(const std::vector<std::uint64_t>& calls, const std::vector<std::uint64_t>& bounds, int gen,
                        std::size_t segments) {
    if (calls.empty()) return;
    const detail::PhaseTimer timer(s_.phases.filing);
    s_.phases.split_calls += calls.size() / 2;
    const std::uint64_t own_lo = bounds[static_cast<std::size_t>(s_.me)];
    const std::uint64_t own_hi = bounds[static_cast<std::size_t>(s_.me) + 1];
    const int n0 = s_.window.front().n;
    struct CallRows {  // a piece of a call: its first rows a_lo..a_hi
      std::size_t call;
      int a_lo, a_hi;
    };
    std::vector<CallRows> pieces;
    const int most = static_cast<int>(config::kItemsPerThread) * s_.tuning.threads;
    for (std::size_t c = 0; c < calls.size() / 2; ++c) {
      detail::g_split_calls.fetch_add(1, std::memory_order_relaxed);
      const int k = static_cast<int>(calls[2 * c] & 0xffff);
      const WindowLevel& w = s_.window[static_cast<std::size_t>(k - n0)];
      // The level's ranks in this process's bits, and their first rows
      // (rank x of the level is window bit base + x - held).
      const std::uint64_t x0 = std::max(own_lo > w.base ? w.held + (own_lo - w.base) : w.held, w.lo);
      const std::uint64_t x1 = std::min(own_hi > w.base ? w.held + (own_hi - w.base) : w.held, w.hi);
      if (x0 >= x1) continue;
      // (The first row of rank x: the largest a with count(k, a - 1) <= x.)
      const std::uint64_t* counts = s_.table.row(k);
      const int a_lo = std::max(detail::next_row_length(counts, k, x0), rows_lo_);
      const int a_hi = std::min(detail::next_row_length(counts, k, x1 - 1), rows_hi_);
      const int rows = a_hi - a_lo + 1, cut = std::min(rows, most);
      for (int i = 0; i < cut; ++i)
        pieces.push_back({c, a_lo + rows * i / cut, a_lo + rows * (i + 1) / cut - 1});
    }
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pieces.size(), 1),
                      [&](const tbb::blocked_range<std::size_t>& range) {
      ThreadState& ts = s_.states.local();
      prepare(ts, gen, segments);
      if (!ts.split) {
        ts.split = std::make_unique<detail::Source>(s_.table);
        ts.split->set_canonical_only(s_.options.transposes);
      }
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        const CallRows& piece = pieces[i];
        const int m = static_cast<int>(calls[2 * piece.call] >> 16), k = static_cast<int>(calls[2 * piece.call] & 0xffff);
        ts.split->set_first_rows(piece.a_lo, piece.a_hi);
        ts.split->decode(m, calls[2 * piece.call + 1]);
        AtomicSink sink(s_.bitmap(), own_lo, own_hi - own_lo);
        const std::uint64_t offset = s_.window[static_cast<std::size_t>(k - n0)].offset();
        ts.split->for_each_extension(k - m, k - m, sink, &offset);
        sink.flush();
        ts.direct_marks[static_cast<std::size_t>(k - n0)] += sink.marks;
      }
    });
  }



 private:
  Sieve::Impl& s_;
  std::vector<std::uint64_t> offsets_;  // where rank x of window level k sits: offsets_[k - n0] + x
  int rows_lo_ = 1, rows_hi_ = kMaxTiles + 1;  // the window's first rows (a slice's)
};

std::pair<std::uint64_t, std::uint64_t> Sieve::Impl::items_signature(int from, int to, int lo, int pieces) const {
  const ItemList items = items_of_levels(from, to, lo, pieces);
  return signature_of(items, MarkingPass(const_cast<Sieve::Impl&>(*this)).share_of(items));
}

bool Sieve::Impl::mark(int from, int to, int lo, const ProgressFn& progress, const detail::PassProgress* resume) {
  MarkingPass pass(*this);
  return pass.run(from, to, lo, progress, resume);
}

ItemList Sieve::Impl::items_of_levels(int from, int to, int lo, int forced_pieces) const {
  const WindowLevel& first = window.front();
  const int hi = window.back().n;
  ItemList items;
  items.lo = lo;
  items.hi = hi;
  // Every process of a group must make the same items: they share them out.
  const std::size_t threads = distributed() ? static_cast<std::size_t>(group_threads)
                                            : static_cast<std::size_t>(tuning.threads);
  const std::size_t wanted = config::kItemsPerThread * threads;
  std::vector<detail::SourceSpan> spans;
  std::size_t parts = 0;
  for (int m = from; m <= to; ++m) {
    detail::SourceSpan s;
    s.level = m;
    const auto blocks = store.blocks(m);
    s.block0 = 0;
    s.block1 = blocks.size();
    if (!first.whole()) {
      // A slice of first rows a_lo..a_hi of level n: the sources whose first
      // row is c, a_lo - (n - m) <= c <= a_hi, consecutive ranks.
      const int d = first.n - m;
      const std::uint64_t lo_rank = first.a_lo - d - 1 > 0 ? table.count(m, first.a_lo - d - 1) : 0;
      const std::uint64_t hi_rank = table.count(m, first.a_hi);
      s.block0 = store.first_block_from(m, lo_rank);
      s.block1 = static_cast<std::size_t>(
          std::partition_point(blocks.begin(), blocks.end(), [&](const StoreBlock& b) { return b.first_rank < hi_rank; }) -
          blocks.begin());
      if (s.block1 < s.block0) s.block1 = s.block0;
    }
    if (s.block0 == s.block1) continue;
    // Sources per part: enough work per item that reading and decoding its
    // block stays a small part of it, a power of two between
    // config::kItemSources and a block.
    double per_source = 0;
    for (int k = lo; k <= hi; ++k) per_source += static_cast<double>(table.positions(k - m));
    std::size_t sources = config::kItemSources;
    while (sources < config::kStoreBlockRanks && static_cast<double>(sources) * per_source < kItemMarks) sources *= 2;
    s.sources = sources;
    s.parts = static_cast<int>(config::kStoreBlockRanks / sources);
    // The parts that hold sources (a short block's last ones are empty
    // items): what keeps the threads busy. A level of a few dozen losing
    // positions is one part, whose target levels are then cut into pieces.
    for (std::size_t b = s.block0; b < s.block1; ++b) parts += (blocks[b].count + sources - 1) / sources;
    spans.push_back(s);
  }
  const int levels = hi - lo + 1;
  items.pieces = parts >= wanted ? 1
                 : static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(levels),
                                                         (wanted + parts - 1) / std::max<std::size_t>(parts, 1)));
  if (forced_pieces > 0) items.pieces = forced_pieces;
  for (const auto& s : spans) items.add(s);
  return items;
}

}  // namespace chomp
