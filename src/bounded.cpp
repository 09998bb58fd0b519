/// @file bounded.cpp
/// @brief The level-by-level bounded sieve (BoundedSolver): the bitmap of
/// the domain, marks set directly or filed into buckets, the scan of each
/// level. Ranking is bounded_ranking.cpp's, the kernel bounded_extender.hpp's.

#include "chomp/bounded.hpp"

#include <tbb/blocked_range.h>
#include <tbb/concurrent_queue.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>

#include "bounded_extender.hpp"
#include "buckets.hpp"
#include "config.hpp"
#include "huge_pages.hpp"

namespace chomp {

namespace {

using bounded_sieve::Extender;
using bounded_sieve::Piece;
using bounded_sieve::PieceQueue;
using Clock = std::chrono::steady_clock;

/// The bits of the domain: one per position, every level, zeroed, in huge
/// pages where the kernel allows (huge_pages.hpp): the marks land all over
/// gigabytes.
class Bitmap {
 public:
  explicit Bitmap(std::uint64_t bits) : memory_(((bits + 63) / 64) * sizeof(std::uint64_t)) {}

  std::uint64_t* words() const { return memory_.as<std::uint64_t>(); }
  bool test(std::uint64_t bit) const { return (words()[bit >> 6] >> (bit & 63)) & 1U; }

 private:
  detail::HugeBuffer memory_;
};

/// Sets winning marks straight into the bitmap with atomic ORs (threads share
/// words), each one prefetched kDepth marks before it is applied so that the
/// misses overlap. Used for domains small enough to stay in cache, where
/// filing marks into buckets would only add work.
class MarkQueue {
 public:
  explicit MarkQueue(std::uint64_t* words) : words_(words) {}

  void point(std::uint64_t bit) {
    __builtin_prefetch(words_ + (bit >> 6), 1, 0);
    std::uint64_t& slot = ring_[head_ & (kDepth - 1)];
    if (head_ >= kDepth) set(slot >> 6, std::uint64_t{1} << (slot & 63));
    slot = bit;
    ++head_;
  }

  /// Marks bits first .. first + count - 1 (count >= 1) at once.
  void range(std::uint64_t first, std::uint64_t count) {
    const std::uint64_t last = first + count - 1, w0 = first >> 6, w1 = last >> 6;
    const std::uint64_t head = ~std::uint64_t{0} << (first & 63), tail = ~std::uint64_t{0} >> (63 - (last & 63));
    if (w0 == w1) {
      set(w0, head & tail);
      return;
    }
    set(w0, head);
    // Whole words become all ones whatever other threads OR into them.
    for (std::uint64_t w = w0 + 1; w < w1; ++w)
      std::atomic_ref<std::uint64_t>(words_[w]).store(~std::uint64_t{0}, std::memory_order_relaxed);
    set(w1, tail);
  }

  void flush() {
    const std::uint64_t from = head_ >= kDepth ? head_ - kDepth : 0;
    for (std::uint64_t i = from; i < head_; ++i) {
      const std::uint64_t bit = ring_[i & (kDepth - 1)];
      set(bit >> 6, std::uint64_t{1} << (bit & 63));
    }
    head_ = 0;
  }

 private:
  static constexpr std::uint64_t kDepth = config::kBoundedPrefetchDepth;

  void set(std::uint64_t w, std::uint64_t mask) const {
    std::atomic_ref<std::uint64_t> word(words_[w]);
    // Many winning positions are marked more than once; a plain load skips
    // the locked write for those.
    if ((word.load(std::memory_order_relaxed) & mask) != mask) word.fetch_or(mask, std::memory_order_relaxed);
  }

  std::uint64_t* words_;
  std::uint64_t ring_[kDepth] = {};
  std::uint64_t head_ = 0;
};

struct LevelTally {
  std::uint64_t losing = 0;
  std::uint64_t marks = 0;
};

constexpr std::uint64_t kScanChunkWords = config::kBoundedScanChunkWords;

/// Calls fn(rank) for every clear bit of level [first, end) in words
/// [w0, w1). The first and last words are shared with the neighbouring
/// levels, whose bits other threads may be setting: load atomically, keep
/// this level's bits only.
template <class Fn>
void for_each_clear(const std::uint64_t* words, std::uint64_t w0, std::uint64_t w1, std::uint64_t first,
                    std::uint64_t end, Fn&& fn) {
  for (std::uint64_t w = w0; w < w1; ++w) {
    std::uint64_t clear =
        ~std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(words[w])).load(std::memory_order_relaxed);
    const std::uint64_t lo = w << 6;
    if (lo < first) clear &= ~std::uint64_t{0} << (first - lo);
    if (lo + 64 > end) clear &= ~std::uint64_t{0} >> (lo + 64 - end);
    for (; clear; clear &= clear - 1) fn(lo + static_cast<std::uint64_t>(std::countr_zero(clear)) - first);
  }
}

/// What each thread keeps across the levels of a bucketed solve.
struct ThreadState {
  ThreadState(const BoundedRanking& t, PieceQueue* pieces) : extender(t, pieces) {}
  Extender<detail::MarkBuckets> extender;
  detail::MarkBuckets buckets;
  std::uint64_t losing = 0;      // found by this thread in the current level
  std::uint64_t marks_seen = 0;  // extender.marks() when the level began
  int generation = -1;           // the level the buckets were prepared for
};

}  // namespace

std::uint64_t bounded_solver_bytes(std::uint64_t positions) {
  const std::uint64_t bits = (positions + config::kSegmentBits - 1) / 8;
  if (positions <= config::kDirectMarkBits) return bits;
  // A round's marks: up to two bytes a position until the round is full
  // (0.7-0.9 measured in 12 x 16 to 15 x 16 boxes, 1.5 in 14 x 14 and 15 x 15).
  const std::uint64_t round = config::kRoundMarks * sizeof(std::uint32_t);
  return bits + std::min(2 * positions, round + round / 8);
}

struct BoundedSolver::Impl {
  explicit Impl(std::span<const int> shape)
      : ranking(shape), bits(segment_aligned(ranking.total_positions())) {}

  static std::uint64_t segment_aligned(std::uint64_t bits) {
    return (bits + config::kSegmentBits - 1) & ~(config::kSegmentBits - 1);
  }

  BoundedRanking ranking;
  Bitmap bits;
  std::vector<BoundedLevel> levels;
  std::uint64_t losing_total = 0, marks_total = 0;
  double seconds = 0;

  void solve(const BoundedProgressFn& progress);
  /// Status of a position known to be inside the shape.
  bool losing(std::span<const int> rows) const;
  LevelTally sieve_level_direct(int n);
  LevelTally sieve_level_bucketed(int n, tbb::enumerable_thread_specific<ThreadState>& states, PieceQueue& pieces);
};

/// Small domains: marks go straight into the bitmap, which stays in cache.
LevelTally BoundedSolver::Impl::sieve_level_direct(int n) {
  const std::uint64_t first = ranking.level_offset(n), end = ranking.level_offset(n + 1);
  std::uint64_t* words = bits.words();
  return tbb::parallel_reduce(
      tbb::blocked_range<std::uint64_t>(first >> 6, ((end - 1) >> 6) + 1, kScanChunkWords), LevelTally{},
      [&](const tbb::blocked_range<std::uint64_t>& range, LevelTally tally) {
        Extender<MarkQueue> ex(ranking);
        MarkQueue queue(words);
        for_each_clear(words, range.begin(), range.end(), first, end, [&](std::uint64_t r) {
          ex.extend(n, r, queue);
          ++tally.losing;
        });
        queue.flush();
        tally.marks += ex.marks();
        return tally;
      },
      [](LevelTally a, const LevelTally& b) {
        a.losing += b.losing;
        a.marks += b.marks;
        return a;
      });
}

/// Large domains: the marks land all over a bitmap far larger than any
/// cache, so (like the main sieve) each thread files them into buckets by
/// the segment they land in, and in rounds of config::kRoundMarks every
/// segment applies all threads' buckets while it sits in L2, one owner per
/// segment, no atomics.
LevelTally BoundedSolver::Impl::sieve_level_bucketed(int n, tbb::enumerable_thread_specific<ThreadState>& states,
                                                     PieceQueue& pieces) {
  const std::uint64_t first = ranking.level_offset(n), end = ranking.level_offset(n + 1);
  const std::uint64_t w_begin = first >> 6, w_end = ((end - 1) >> 6) + 1;
  std::uint64_t* words = bits.words();
  const std::size_t segments = static_cast<std::size_t>(
      segment_aligned(ranking.total_positions()) >> config::kSegmentBitsLog2);
  // Marks land above level n only: segments before the next level's start get none.
  const std::size_t first_segment = static_cast<std::size_t>(end >> config::kSegmentBitsLog2);
  const int workers = tbb::this_task_arena::max_concurrency();
  std::atomic<std::uint64_t> cursor{w_begin};
  while (cursor.load() < w_end || !pieces.empty()) {
    std::atomic<std::uint64_t> pending{0};
    // Generate: one task per worker takes pieces of large corners first,
    // then chunks of the level, until the round is full.
    tbb::parallel_for(tbb::blocked_range<int>(0, workers, 1), [&](const tbb::blocked_range<int>&) {
      ThreadState& ts = states.local();
      if (ts.generation != n) {
        ts.buckets.prepare(segments);
        ts.generation = n;
      }
      while (pending.load(std::memory_order_relaxed) < config::kRoundMarks) {
        const std::uint64_t e0 = ts.buckets.entries();
        if (Piece p; pieces.try_pop(p)) {
          ts.extender.extend_piece(p, ts.buckets);
        } else {
          const std::uint64_t w0 = cursor.fetch_add(kScanChunkWords, std::memory_order_relaxed);
          if (w0 >= w_end) break;
          for_each_clear(words, w0, std::min(w0 + kScanChunkWords, w_end), first, end, [&](std::uint64_t r) {
            ts.extender.extend(n, r, ts.buckets);
            ++ts.losing;
          });
        }
        pending.fetch_add(ts.buckets.entries() - e0, std::memory_order_relaxed);
      }
      detail::MarkBuckets::filing_done();
    }, tbb::simple_partitioner());
    for (ThreadState& ts : states)
      if (ts.generation == n) ts.buckets.flush();
    // Apply: each segment ORs every thread's bucket while it is in cache.
    tbb::parallel_for(tbb::blocked_range<std::size_t>(first_segment, segments, 1),
                      [&](const tbb::blocked_range<std::size_t>& range) {
      for (std::size_t s = range.begin(); s != range.end(); ++s)
        for (ThreadState& ts : states)
          if (ts.generation == n) ts.buckets.apply_segment(s, words + (s << (config::kSegmentBitsLog2 - 6)));
    });
    for (ThreadState& ts : states) ts.buckets.recycle();
  }
  LevelTally sum;
  for (ThreadState& ts : states) {
    sum.losing += std::exchange(ts.losing, 0);
    sum.marks += ts.extender.marks() - ts.marks_seen;
    ts.marks_seen = ts.extender.marks();
  }
  return sum;
}

void BoundedSolver::Impl::solve(const BoundedProgressFn& progress) {
  const auto start = Clock::now();
  const int max_tiles = ranking.max_tiles();
  const bool direct = ranking.total_positions() <= config::kDirectMarkBits;
  PieceQueue pieces;
  tbb::enumerable_thread_specific<ThreadState> states([&] { return ThreadState(ranking, &pieces); });
  levels.assign(static_cast<std::size_t>(max_tiles) + 1, BoundedLevel{});
  bits.words()[0] |= 1;  // the empty board: won by the player to move
  levels[0] = {0, 1, 0, 0};
  for (int n = 1; n <= max_tiles; ++n) {
    const LevelTally tally = direct ? sieve_level_direct(n) : sieve_level_bucketed(n, states, pieces);
    levels[static_cast<std::size_t>(n)] = {n, ranking.positions(n), tally.losing, tally.marks};
    losing_total += tally.losing;
    marks_total += tally.marks;
    if (progress)
      progress(n, max_tiles,
               static_cast<double>(ranking.level_offset(n + 1)) / static_cast<double>(ranking.total_positions()));
  }
  seconds = std::chrono::duration<double>(Clock::now() - start).count();
}

BoundedSolver::BoundedSolver(std::span<const int> shape, const BoundedProgressFn& progress)
    : impl_(std::make_unique<Impl>(shape)) {
  impl_->solve(progress);
}

BoundedSolver::~BoundedSolver() = default;
BoundedSolver::BoundedSolver(BoundedSolver&&) noexcept = default;
BoundedSolver& BoundedSolver::operator=(BoundedSolver&&) noexcept = default;

BoundedSolver BoundedSolver::box(int rows, int cols, const BoundedProgressFn& progress) {
  return BoundedSolver(box_shape(rows, cols), progress);
}

const BoundedRanking& BoundedSolver::ranking() const { return impl_->ranking; }
const std::vector<BoundedLevel>& BoundedSolver::levels() const { return impl_->levels; }
std::uint64_t BoundedSolver::losing_count() const { return impl_->losing_total; }
std::uint64_t BoundedSolver::marks() const { return impl_->marks_total; }
double BoundedSolver::seconds() const { return impl_->seconds; }

namespace {

/// Throws InvalidPosition unless rows is a staircase inside shape.
void require_inside(std::span<const int> rows, std::span<const int> shape) {
  validate_rows(rows);
  if (!fits_inside(rows, shape))
    throw InvalidPosition("position " + rows_to_string(rows) + " does not fit inside " + rows_to_string(shape));
}

}  // namespace

bool BoundedSolver::Impl::losing(std::span<const int> rows) const {
  if (rows.empty()) return false;
  const int n = static_cast<int>(tile_count(rows));
  return !bits.test(ranking.level_offset(n) + ranking.rank(rows));
}

bool BoundedSolver::is_losing(std::span<const int> rows) const {
  if (rows.empty()) return false;
  require_inside(rows, shape());
  return impl_->losing(rows);
}

std::vector<Move> BoundedSolver::winning_moves(std::span<const int> rows) const {
  std::vector<Move> out;
  if (rows.empty()) return out;
  require_inside(rows, shape());
  for (int i = 1; i <= static_cast<int>(rows.size()); ++i)
    for (int j = 1; j <= rows[static_cast<std::size_t>(i - 1)]; ++j)
      if (impl_->losing(apply_move(rows, {i, j}))) out.push_back({i, j});
  return out;
}

void BoundedSolver::for_each_losing(int n, const std::function<bool(const Rows&)>& fn) const {
  const BoundedRanking& t = impl_->ranking;
  if (n < 1 || n > t.max_tiles()) return;
  const std::uint64_t first = t.level_offset(n);
  Rows rows;
  for (std::uint64_t r = 0; r < t.positions(n); ++r) {
    if (impl_->bits.test(first + r)) continue;
    t.unrank_into(n, r, rows);
    if (!fn(rows)) return;
  }
}

std::vector<Rows> BoundedSolver::losing_positions(int n) const {
  std::vector<Rows> out;
  for_each_losing(n, [&](const Rows& r) {
    out.push_back(r);
    return true;
  });
  return out;
}

}  // namespace chomp
