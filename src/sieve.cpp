/// @file sieve.cpp
/// @brief The level loop: bucketed parallel marking and the scan for losing positions.

#include "chomp/sieve.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "config.hpp"
#include "buckets.hpp"
#include "extensions.hpp"

namespace chomp {

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

/// The last level of the window that starts at n0: as many levels as
/// config::kWindowBytes holds, at least one.
int window_end(const PartitionTable& t, int n0, int max) {
  std::uint64_t bits = segment_aligned_bits(t.positions(n0));
  int n1 = n0;
  while (n1 < max && (bits + segment_aligned_bits(t.positions(n1 + 1))) / 8 <= config::kWindowBytes) {
    ++n1;
    bits += segment_aligned_bits(t.positions(n1));
  }
  return n1;
}

/// Shifts a level's ranks to where its bitmap starts in the window.
template <class Inner>
struct LevelSink {
  Inner* inner;
  std::uint64_t base;
  void point(std::uint64_t r) { inner->point(base + r); }
  void range(std::uint64_t first, std::uint64_t count) { inner->range(base + first, count); }
};

struct ThreadState {
  explicit ThreadState(const PartitionTable& t) : source(t) {}
  detail::Source source;
  std::vector<std::uint64_t> chunk;
  detail::MarkBuckets buckets;
  int generation = -1;               // the window pass the buckets were prepared for
};

/// A chunk of stored losing positions of one level, to be extended into
/// window levels lo..hi.
struct WorkItem {
  int level;
  std::uint32_t chunk;
  int lo, hi;
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
  explicit Impl(int max_tiles)
      : table(max_tiles), store(max_tiles), max(max_tiles), states([this] { return ThreadState(table); }) {}

  PartitionTable table;
  LosingStore store;
  int max;
  int done = 0;
  // The window: levels n0..n1, level k's bits start at bit base[k - n0]
  // (segment aligned) of one buffer, allocated once for the largest window.
  int n0 = 0, n1 = -1;
  std::vector<std::uint64_t> base;
  std::vector<std::uint64_t> window_marks;  // marks so far per window level
  std::unique_ptr<std::uint64_t[]> bitmap;
  std::uint64_t bitmap_words = 0;
  // Per-thread decoders and bucket pools live as long as the sieve.
  tbb::enumerable_thread_specific<ThreadState> states;
  int generation = 0;
  const std::atomic<bool>* stop = nullptr;

  bool stop_requested() const { return stop && stop->load(std::memory_order_relaxed); }


  /// Decodes the item's chunk and hands each source's extensions with
  /// item.lo..item.hi tiles to those window levels.
  template <class Inner>
  void extend_chunk(ThreadState& ts, const WorkItem& item, Inner& inner) {
    const int m = item.level;
    store.level(m).decode_chunk(item.chunk, ts.chunk);
    bool first = true;
    for (std::uint64_t r : ts.chunk) {
      if (first)
        ts.source.decode(m, r);
      else
        ts.source.seek(r);
      first = false;
      for (int k = item.lo; k <= item.hi; ++k) {
        LevelSink<Inner> sink{&inner, base[static_cast<std::size_t>(k - n0)]};
        ts.source.for_each_extension(k - m, sink);
      }
    }
  }

  /// Marks the extensions of every item into the window.
  void mark(const std::vector<WorkItem>& items, int lo, const ProgressFn& progress) {
    const std::uint64_t window_bits = base.back();
    const std::size_t W = static_cast<std::size_t>(n1 - n0 + 1);
    if (window_bits <= config::kDirectMarkBits) {
      // Small windows: one thread, level by level so the marks are counted.
      ThreadState ts(table);
      DirectSink sink{bitmap.get()};
      for (const WorkItem& it : items)
        for (int k = it.lo; k <= it.hi; ++k) {
          if (stop_requested()) return;
          const std::uint64_t before = sink.marks;
          extend_chunk(ts, WorkItem{it.level, it.chunk, k, k}, sink);
          window_marks[static_cast<std::size_t>(k - n0)] += sink.marks - before;
        }
      return;
    }
    const std::size_t segments = static_cast<std::size_t>(window_bits >> config::kSegmentBitsLog2);
    std::vector<std::uint64_t> segment_marks(segments, 0);
    const int gen = ++generation;
    auto prepare = [&](ThreadState& ts) {
      if (ts.generation == gen) return;
      ts.buckets.prepare(segments);
      ts.generation = gen;
    };

    std::mutex progress_lock;
    auto last_report = Clock::now();
    std::atomic<std::size_t> cursor{0}, finished{0};
    const int workers = tbb::this_task_arena::max_concurrency();
    while (cursor.load() < items.size()) {
      std::atomic<std::uint64_t> pending{0};
      // Generate: threads pull chunks until the round's bucket budget is used.
      // simple_partitioner: one task per worker, so every thread gets one
      // (the auto partitioner may keep a range of two in one task).
      tbb::parallel_for(tbb::blocked_range<int>(0, workers, 1), [&](const tbb::blocked_range<int>&) {
        ThreadState& ts = states.local();
        prepare(ts);
        while (pending.load(std::memory_order_relaxed) < config::kRoundMarks) {
          if (stop_requested()) {
            cursor.store(items.size());
            break;
          }
          const std::size_t i = cursor.fetch_add(1, std::memory_order_relaxed);
          if (i >= items.size()) break;
          const std::uint64_t e0 = ts.buckets.entries();
          extend_chunk(ts, items[i], ts.buckets);
          pending.fetch_add(ts.buckets.entries() - e0, std::memory_order_relaxed);
          const std::size_t done_items = finished.fetch_add(1, std::memory_order_relaxed) + 1;
          if (progress) {
            std::unique_lock lock(progress_lock, std::try_to_lock);
            if (lock.owns_lock()) {
              const auto now = Clock::now();
              if (std::chrono::duration<double>(now - last_report).count() >=
                  config::kProgressIntervalSeconds) {
                last_report = now;
                progress(lo, static_cast<double>(done_items) / static_cast<double>(items.size()));
              }
            }
          }
        }
      }, tbb::simple_partitioner());
      // Apply: each segment ORs every thread's bucket while it is in cache.
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, segments, 1),
                        [&](const tbb::blocked_range<std::size_t>& range) {
        for (std::size_t s = range.begin(); s != range.end(); ++s) {
          std::uint64_t* seg = bitmap.get() + (s << (config::kSegmentBitsLog2 - 6));
          std::uint64_t applied = 0;
          for (ThreadState& ts : states)
            if (ts.generation == gen) applied += ts.buckets.apply_segment(s, seg);
          segment_marks[s] += applied;  // one owner per segment
        }
      });
      for (ThreadState& ts : states) ts.buckets.recycle();
    }
    for (std::size_t k = 0; k < W; ++k)
      for (std::uint64_t s = base[k] >> config::kSegmentBitsLog2; s < base[k + 1] >> config::kSegmentBitsLog2; ++s)
        window_marks[k] += std::exchange(segment_marks[s], 0);
  }

  /// Work items that extend the losing positions of levels from..to into
  /// window levels lo..n1. Sources of small levels are few but reach far
  /// (their marks grow like p(d)), so when chunks are scarce each chunk's
  /// target levels are split between items to keep every thread busy.
  std::vector<WorkItem> items_of_levels(int from, int to, int lo) const {
    std::size_t chunks = 0;
    for (int m = from; m <= to; ++m) chunks += store.level(m).chunks();
    const std::size_t wanted = config::kItemsPerThread *
                               static_cast<std::size_t>(tbb::this_task_arena::max_concurrency());
    const int levels = n1 - lo + 1;
    const int pieces = chunks >= wanted ? 1
                       : static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(levels),
                                                               (wanted + chunks - 1) / std::max<std::size_t>(chunks, 1)));
    std::vector<WorkItem> items;
    for (int m = from; m <= to; ++m)
      for (std::size_t c = 0; c < store.level(m).chunks(); ++c)
        for (int p = 0; p < pieces; ++p) {
          const int a = lo + levels * p / pieces, b = lo + levels * (p + 1) / pieces - 1;
          if (a <= b) items.push_back({m, static_cast<std::uint32_t>(c), a, b});
        }
    return items;
  }

  /// Opens the window starting at level done + 1 and marks it from every
  /// finished level.
  void open_window(const ProgressFn& progress) {
    n0 = done + 1;
    n1 = window_end(table, n0, max);
    base.assign(1, 0);
    for (int k = n0; k <= n1; ++k) base.push_back(base.back() + segment_aligned_bits(table.positions(k)));
    const std::uint64_t words = base.back() / 64;
    if (words > bitmap_words) {
      bitmap.reset();  // release before allocating the larger one
      bitmap.reset(new std::uint64_t[words]);
      bitmap_words = words;
    }
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, words, 1 << 16),
                      [&](const tbb::blocked_range<std::uint64_t>& r) {
      std::memset(bitmap.get() + r.begin(), 0, (r.end() - r.begin()) * sizeof(std::uint64_t));
    });
    window_marks.assign(static_cast<std::size_t>(n1 - n0 + 1), 0);
    mark(items_of_levels(1, n0 - 1, n0), n0, progress);
  }

  /// Ranks of the clear bits of window level n, in increasing order.
  std::vector<std::uint64_t> scan_losing(int n) {
    const std::uint64_t p = table.positions(n);
    const std::uint64_t* level = bitmap.get() + base[static_cast<std::size_t>(n - n0)] / 64;
    const std::uint64_t words = (p + 63) / 64;
    const std::uint64_t per_seg = config::kSegmentBits / 64;
    const std::size_t segments = static_cast<std::size_t>((words + per_seg - 1) / per_seg);
    std::vector<std::vector<std::uint64_t>> found(segments);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, segments, 1),
                      [&](const tbb::blocked_range<std::size_t>& range) {
      for (std::size_t s = range.begin(); s != range.end(); ++s) {
        const std::uint64_t w0 = s * per_seg, w1 = std::min(words, w0 + per_seg);
        for (std::uint64_t w = w0; w < w1; ++w) {
          std::uint64_t clear = ~level[w];
          if (w == words - 1 && (p & 63)) clear &= (std::uint64_t{1} << (p & 63)) - 1;
          while (clear) {
            found[s].push_back(w * 64 + static_cast<std::uint64_t>(std::countr_zero(clear)));
            clear &= clear - 1;
          }
        }
      }
    });
    std::vector<std::uint64_t> all;
    for (auto& f : found) all.insert(all.end(), f.begin(), f.end());
    return all;
  }

  void close_window() { n0 = 0, n1 = -1; }

  LevelResult next_level(const ProgressFn& progress) {
    if (done >= max) throw std::logic_error("sieve already reached its last level");
    const auto start = Clock::now();
    const int n = done + 1;
    try {
      if (n > n1) open_window(progress);
      if (stop_requested())
        throw SieveInterrupted("level " + std::to_string(n) + " was interrupted; levels 1.." +
                               std::to_string(done) + " are complete");
    } catch (...) {
      close_window();  // partly marked bitmaps must not be reused
      throw;
    }
    const std::vector<std::uint64_t> losing = scan_losing(n);
    store.level(n).append(losing);
    done = n;

    LevelResult res;
    res.tiles = n;
    res.positions = table.positions(n);
    res.losing = losing.size();
    res.marks = window_marks[static_cast<std::size_t>(n - n0)];
    // The new losing positions mark the rest of the window right away, so
    // the next level only has to be scanned.
    if (n < n1) {
      try {
        mark(items_of_levels(n, n, n + 1), n + 1, {});
      } catch (...) {
        close_window();
        throw;
      }
      if (stop_requested()) close_window();
    }
    res.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return res;
  }
};

Sieve::Sieve(int max_tiles) : impl_(std::make_unique<Impl>(max_tiles)) {}
Sieve::~Sieve() = default;

int Sieve::max_tiles() const { return impl_->max; }
int Sieve::levels_done() const { return impl_->done; }
const PartitionTable& Sieve::table() const { return impl_->table; }
const LosingStore& Sieve::losing() const { return impl_->store; }

LevelResult Sieve::next_level(const ProgressFn& progress) { return impl_->next_level(progress); }

void Sieve::restore_level(int n, std::span<const std::uint64_t> losing_ranks, std::uint64_t marks) {
  if (n != levels_done() + 1 || n > max_tiles())
    throw std::invalid_argument("cannot restore level " + std::to_string(n) + " after level " +
                                std::to_string(levels_done()));
  const std::uint64_t p = impl_->table.positions(n);
  if (!losing_ranks.empty() && losing_ranks.back() >= p)
    throw std::invalid_argument("restored rank beyond p(" + std::to_string(n) + ")");
  impl_->store.level(n).append(losing_ranks);
  (void)marks;
  impl_->done = n;
  impl_->close_window();
}

void Sieve::set_stop_flag(const std::atomic<bool>* flag) { impl_->stop = flag; }

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

MemoryPlan plan_memory(int max_tiles) {
  const PartitionTable t(max_tiles);
  MemoryPlan plan;
  // The largest window's bitmaps (the windows the sieve will really use).
  for (int n0 = 1; n0 <= max_tiles;) {
    const int n1 = window_end(t, n0, max_tiles);
    std::uint64_t bits = 0;
    for (int k = n0; k <= n1; ++k) bits += segment_aligned_bits(t.positions(k));
    plan.bitmap_bytes = std::max(plan.bitmap_bytes, bits / 8);
    n0 = n1 + 1;
  }
  // Losing positions: about 0.3 p / ln p per level (the conjectured density),
  // at about 1.3 bytes each as varint gaps with the chunk index.
  double losing = 0;
  for (int n = 2; n <= max_tiles; ++n) {
    const double p = static_cast<double>(t.positions(n));
    losing += 0.3 * p / std::log(p);
  }
  plan.store_bytes = static_cast<std::uint64_t>(losing * 1.3) + 1;
  // Pending marks of one round, plus a partly filled 4 KiB block per segment
  // and thread.
  plan.bucket_bytes = config::kRoundMarks * sizeof(std::uint32_t) +
                      plan.bitmap_bytes * 8 / config::kSegmentBits * 4096 *
                          static_cast<std::uint64_t>(tbb::this_task_arena::max_concurrency());
  return plan;
}

}  // namespace chomp
