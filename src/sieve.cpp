/// @file sieve.cpp
/// @brief The level loop: bucketed parallel marking and the scan for losing positions.

#include "chomp/sieve.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
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

/// Marks straight into the bitmap (small levels, one thread).
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

struct ThreadState {
  explicit ThreadState(const PartitionTable& t) : source(t) {}
  detail::Source source;
  std::vector<std::uint64_t> chunk;
  detail::MarkBuckets buckets;
  int level = 0;  // the level the buckets were prepared for
};

struct WorkItem {
  int level;
  std::uint32_t chunk;
};

}  // namespace

struct Sieve::Impl {
  explicit Impl(int max_tiles)
      : table(max_tiles), store(max_tiles), max(max_tiles), states([this] { return ThreadState(table); }) {}

  PartitionTable table;
  LosingStore store;
  int max;
  int done = 0;
  // Sized once for the largest level; untouched pages cost nothing, and no
  // level pays for reallocating and faulting in a fresh bitmap.
  std::unique_ptr<std::uint64_t[]> bitmap;
  // Per-thread decoders and bucket pools live as long as the sieve.
  tbb::enumerable_thread_specific<ThreadState> states;
  std::vector<std::uint64_t> marks_history;  // marks per finished level, for progress estimates
  const std::atomic<bool>* stop = nullptr;

  bool stop_requested() const { return stop && stop->load(std::memory_order_relaxed); }

  /// Decodes chunk c of level m and hands each source's extensions to sink.
  template <class Sink>
  void extend_chunk(ThreadState& ts, int m, std::size_t c, int n, Sink& sink) {
    store.level(m).decode_chunk(c, ts.chunk);
    const int d = n - m;
    bool first = true;
    for (std::uint64_t r : ts.chunk) {
      if (first)
        ts.source.decode(m, r);
      else
        ts.source.seek(r);
      first = false;
      ts.source.for_each_extension(d, sink);
    }
  }

  std::uint64_t mark_direct(const std::vector<WorkItem>& items, int n) {
    ThreadState ts(table);
    DirectSink sink{bitmap.get()};
    for (const WorkItem& it : items) {
      if (stop_requested()) break;
      extend_chunk(ts, it.level, it.chunk, n, sink);
    }
    return sink.marks;
  }

  std::uint64_t mark_bucketed(const std::vector<WorkItem>& items, int n, std::uint64_t p,
                              const ProgressFn& progress) {
    const std::size_t segments = static_cast<std::size_t>((p + config::kSegmentBits - 1) >> config::kSegmentBitsLog2);
    // Threads that join later prepare their buckets on first use.
    const int level_tag = n;
    for (ThreadState& ts : states) {
      ts.buckets.prepare(segments);
      ts.level = level_tag;
    }

    // Expected marks of this level, from the growth of the last two levels.
    double expected = 0;
    if (marks_history.size() >= 2 && marks_history[marks_history.size() - 2] > 0) {
      const double a = static_cast<double>(marks_history.back());
      expected = a * a / static_cast<double>(marks_history[marks_history.size() - 2]);
    }
    std::atomic<std::uint64_t> marks_done{0};
    std::mutex progress_lock;
    auto last_report = Clock::now();

    std::atomic<std::size_t> cursor{0};
    const int workers = tbb::this_task_arena::max_concurrency();
    while (cursor.load() < items.size()) {
      std::atomic<std::uint64_t> pending{0};
      // Generate: threads pull chunks until the round's bucket budget is used.
      tbb::parallel_for(0, workers, [&](int) {
        ThreadState& ts = states.local();
        if (ts.level != level_tag) {
          ts.buckets.prepare(segments);
          ts.level = level_tag;
        }
        while (pending.load(std::memory_order_relaxed) < config::kRoundMarks) {
          if (stop_requested()) {
            cursor.store(items.size());
            break;
          }
          const std::size_t i = cursor.fetch_add(1, std::memory_order_relaxed);
          if (i >= items.size()) break;
          const std::uint64_t e0 = ts.buckets.entries(), m0 = ts.buckets.marks();
          extend_chunk(ts, items[i].level, items[i].chunk, n, ts.buckets);
          pending.fetch_add(ts.buckets.entries() - e0, std::memory_order_relaxed);
          const std::uint64_t dm = ts.buckets.marks() - m0;
          const std::uint64_t md = marks_done.fetch_add(dm, std::memory_order_relaxed) + dm;
          if (progress && expected > 0) {
            std::unique_lock lock(progress_lock, std::try_to_lock);
            if (lock.owns_lock()) {
              const auto now = Clock::now();
              if (std::chrono::duration<double>(now - last_report).count() >=
                  config::kProgressIntervalSeconds) {
                last_report = now;
                progress(n, std::min(0.99, static_cast<double>(md) / expected));
              }
            }
          }
        }
      });
      // Apply: each segment ORs every thread's bucket while it is in cache.
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, segments, 1),
                        [&](const tbb::blocked_range<std::size_t>& range) {
        for (std::size_t s = range.begin(); s != range.end(); ++s) {
          std::uint64_t* seg = bitmap.get() + (s << (config::kSegmentBitsLog2 - 6));
          for (ThreadState& ts : states)
            if (ts.level == level_tag) ts.buckets.apply_segment(s, seg);
        }
      });
      for (ThreadState& ts : states) ts.buckets.recycle();
    }
    std::uint64_t marks = 0;
    for (ThreadState& ts : states)
      if (ts.level == level_tag) marks += ts.buckets.marks();
    return marks;
  }

  /// Ranks of the clear bits below p, in increasing order.
  std::vector<std::uint64_t> scan_losing(std::uint64_t p) {
    const std::uint64_t words = (p + 63) / 64;
    const std::uint64_t per_seg = config::kSegmentBits / 64;
    const std::size_t segments = static_cast<std::size_t>((words + per_seg - 1) / per_seg);
    std::vector<std::vector<std::uint64_t>> found(segments);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, segments, 1),
                      [&](const tbb::blocked_range<std::size_t>& range) {
      for (std::size_t s = range.begin(); s != range.end(); ++s) {
        const std::uint64_t w0 = s * per_seg, w1 = std::min(words, w0 + per_seg);
        for (std::uint64_t w = w0; w < w1; ++w) {
          std::uint64_t clear = ~bitmap[w];
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

  LevelResult next_level(const ProgressFn& progress) {
    if (done >= max) throw std::logic_error("sieve already reached its last level");
    const auto start = Clock::now();
    const int n = done + 1;
    const std::uint64_t p = table.positions(n);
    const std::uint64_t words = (p + 63) / 64;
    if (!bitmap) bitmap.reset(new std::uint64_t[(table.positions(max) + 63) / 64]);
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, words, 1 << 16),
                      [&](const tbb::blocked_range<std::uint64_t>& r) {
      std::memset(bitmap.get() + r.begin(), 0, (r.end() - r.begin()) * sizeof(std::uint64_t));
    });

    std::vector<WorkItem> items;
    for (int m = 1; m < n; ++m)
      for (std::size_t c = 0; c < store.level(m).chunks(); ++c)
        items.push_back({m, static_cast<std::uint32_t>(c)});

    std::uint64_t marks = 0;
    if (p <= config::kDirectMarkBits)
      marks = mark_direct(items, n);
    else
      marks = mark_bucketed(items, n, p, progress);

    if (stop_requested())
      throw SieveInterrupted("level " + std::to_string(n) + " was interrupted; levels 1.." +
                             std::to_string(done) + " are complete");
    const std::vector<std::uint64_t> losing = scan_losing(p);
    store.level(n).append(losing);
    marks_history.push_back(marks);
    done = n;

    LevelResult res;
    res.tiles = n;
    res.positions = p;
    res.losing = losing.size();
    res.marks = marks;
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
  impl_->marks_history.push_back(marks);
  impl_->done = n;
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
  plan.bitmap_bytes = (t.positions(max_tiles) + 63) / 64 * 8;
  // Losing positions: about 0.3 p / ln p per level (the conjectured density),
  // at about 1.3 bytes each as varint gaps with the chunk index.
  double losing = 0;
  for (int n = 2; n <= max_tiles; ++n) {
    const double p = static_cast<double>(t.positions(n));
    losing += 0.3 * p / std::log(p);
  }
  plan.store_bytes = static_cast<std::uint64_t>(losing * 1.3) + 1;
  plan.bucket_bytes = config::kRoundMarks * sizeof(std::uint32_t);
  return plan;
}

}  // namespace chomp
