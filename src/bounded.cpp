/// @file bounded.cpp
/// @brief Ranking inside a shape and the level-by-level bounded sieve.

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
#include <cassert>
#include <chrono>
#include <limits>
#include <new>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "buckets.hpp"
#include "config.hpp"
#include "huge_pages.hpp"

namespace chomp {

std::uint64_t binomial(int n, int k) {
  if (n < 0 || k < 0 || k > n)
    throw std::invalid_argument("binomial(" + std::to_string(n) + ", " + std::to_string(k) +
                                ") needs 0 <= k <= n");
  k = std::min(k, n - k);
  // C(n, i) = C(n, i-1) (n-i+1) / i, exact at every step; dividing i out of
  // C(n, i-1) first (by their gcd) keeps the product no larger than the result.
  std::uint64_t c = 1;
  for (int i = 1; i <= k; ++i) {
    const std::uint64_t g = std::gcd(c, static_cast<std::uint64_t>(i));
    const std::uint64_t factor = static_cast<std::uint64_t>(n - i + 1) / (static_cast<std::uint64_t>(i) / g);
    if (__builtin_mul_overflow(c / g, factor, &c))
      throw std::overflow_error("C(" + std::to_string(n) + ", " + std::to_string(k) +
                                ") does not fit in 64 bits");
  }
  return c;
}

std::uint64_t count_subpositions(std::span<const int> shape) {
  if (shape.empty()) return 1;
  validate_rows(shape);
  // ways[j]: fillings of the rows below the current one whose top row has
  // length exactly j, summed bottom-up over the rows.
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const auto add = [](std::uint64_t a, std::uint64_t b) { return a > kMax - b ? kMax : a + b; };
  std::vector<std::uint64_t> below(static_cast<std::size_t>(shape.front()) + 1, 0), here(below.size());
  below[0] = 1;  // under the last row: nothing
  for (std::size_t k = shape.size(); k-- > 0;) {
    std::uint64_t prefix = 0;  // fillings below whose top row is <= j
    for (std::size_t j = 0; j < here.size(); ++j) {
      prefix = add(prefix, below[j]);
      here[j] = j <= static_cast<std::size_t>(shape[k]) ? prefix : 0;
    }
    std::swap(below, here);
  }
  std::uint64_t total = 0;
  for (std::uint64_t w : below) total = add(total, w);
  return total;
}

Rows box_shape(int rows, int cols) {
  if (rows < 1 || cols < 1)
    throw InvalidPosition("a board needs at least one row and one column, not " + std::to_string(rows) +
                          " x " + std::to_string(cols));
  Rows shape(static_cast<std::size_t>(rows), cols);
  validate_rows(shape);
  return shape;
}

bool fits_inside(std::span<const int> rows, std::span<const int> shape) {
  if (rows.size() > shape.size()) return false;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i] > shape[i]) return false;
  return true;
}

// ---------------------------------------------------------------------------
// BoundedRanking

BoundedRanking::BoundedRanking(std::span<const int> shape) : shape_(shape.begin(), shape.end()) {
  if (shape_.empty()) throw InvalidPosition("a bounded board needs at least one tile");
  validate_rows(shape_);
  const std::uint64_t domain = count_subpositions(shape_);
  if (domain > kMaxDomainPositions)
    throw std::length_error("the positions inside " + rows_to_string(shape_) + " number " +
                            (domain == std::numeric_limits<std::uint64_t>::max()
                                 ? std::string("more than 2^64")
                                 : std::to_string(domain)) +
                            ", more than the " + std::to_string(kMaxDomainPositions) + " a solver holds");
  rows_ = static_cast<int>(shape_.size());
  cols_ = shape_.front();
  tiles_ = static_cast<int>(tile_count(shape_));
  row_stride_ = static_cast<std::size_t>(tiles_) + 1;
  const std::size_t cols1 = static_cast<std::size_t>(cols_) + 1;
  table_.assign((static_cast<std::size_t>(rows_) + 1) * row_stride_ * cols1, 0);
  const auto cell = [&](int k, int R) {
    return table_.data() + (static_cast<std::size_t>(k) * row_stride_ + static_cast<std::size_t>(R)) * cols1;
  };
  std::fill(cell(rows_, 0), cell(rows_, 0) + cols1, 1);  // below the last row: only 0 tiles
  for (int k = rows_ - 1; k >= 0; --k) {
    const int lam = shape_[static_cast<std::size_t>(k)];
    for (int R = 0; R <= tiles_; ++R) {
      std::uint64_t* p = cell(k, R);
      p[0] = (R == 0) ? 1 : 0;
      // Row k holds at most j: either at most j-1, or exactly j over a
      // filling of the rows below that holds at most j per row.
      for (int j = 1; j <= lam; ++j) p[j] = p[j - 1] + (R >= j ? cell(k + 1, R - j)[j] : 0);
      for (int j = lam + 1; j <= cols_; ++j) p[j] = p[lam];
    }
  }
  offset_.assign(static_cast<std::size_t>(tiles_) + 2, 0);
  for (int n = 0; n <= tiles_; ++n)
    offset_[static_cast<std::size_t>(n) + 1] = offset_[static_cast<std::size_t>(n)] + positions(n);
}

std::uint64_t BoundedRanking::rank(std::span<const int> rows) const {
  assert(fits_inside(rows, shape_));
  int R = static_cast<int>(tile_count(rows));
  std::uint64_t r = 0;
  const int r_rows = static_cast<int>(rows.size());
  for (int k = 0; k < r_rows;) {
    const int v = rows[static_cast<std::size_t>(k)];
    int q = 1;
    while (k + q < r_rows && rows[static_cast<std::size_t>(k + q)] == v) ++q;
    r += at(k, R)[v] - at(k + q, R - q * v)[v];
    R -= q * v;
    k += q;
  }
  return r;
}

void BoundedRanking::unrank_into(int n, std::uint64_t rank, Rows& out) const {
  out.clear();
  int R = n, cap = cols_;
  for (int k = 0; R > 0; ++k) {
    const std::uint64_t* p = at(k, R);
    // Largest row length v with T(k, R, v-1) <= rank: the rows before it
    // in the order are those with a shorter row k.
    int lo = 1, hi = std::min({cap, shape_[static_cast<std::size_t>(k)], R});
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (p[mid - 1] <= rank)
        lo = mid;
      else
        hi = mid - 1;
    }
    rank -= p[lo - 1];
    out.push_back(lo);
    R -= lo;
    cap = lo;
  }
}

Rows BoundedRanking::unrank(int n, std::uint64_t rank) const {
  if (n < 0 || n > tiles_ || rank >= positions(n))
    throw std::invalid_argument("no position of level " + std::to_string(n) + " with rank " +
                                std::to_string(rank) + " inside " + rows_to_string(shape_));
  Rows out;
  unrank_into(n, rank, out);
  return out;
}

// ---------------------------------------------------------------------------
// The sieve

namespace {

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

constexpr double kPieceMarks = config::kBoundedPieceMarks;

/// A part of one corner's extensions: source (level, rank), corner, and a
/// node of the block's bottom-up enumeration (Extender::fill_above's state).
struct Piece {
  int n;
  std::uint64_t rank;
  std::uint32_t corner;
  int t, vlow, R, d;
  std::uint64_t acc;
};

using PieceQueue = tbb::concurrent_queue<Piece>;

/// Marks every one-move extension inside the shape of one losing position L.
///
/// L is cut into runs of equal rows (the empty rows below it, inside the
/// shape, are one more run); each run's first row is a corner. An extension
/// at the corner of run u, whose rows have length c, adds a block nu to the
/// run's rows: nu non-increasing, nu_1 at most `limit` (the row above minus
/// c, and the shape), every row within the shape. Its rank is
///
///     above(d) + (the run's rows, now c + nu) + below(u),
///
/// with d = |nu|: the runs above the corner keep their rows but hold d more
/// tiles below them (memoised per d); the runs below are untouched.
///
/// nu is built from the bottom up, one run of equal parts at a time, so the
/// tiles below each run (and so its two-lookup rank term) are known when the
/// run is placed; every partial block is completed at once by every single
/// top run that fits, so each mark costs O(1) lookups whatever nu's shape.
/// The corner of the empty rows is simpler still: the rows below L may be any
/// filling with d tiles and a first row of at most `limit`, and those are
/// exactly the first T(r, d, limit) ranks of the fillings of the rows below:
/// one contiguous range per d.
///
/// Given a PieceQueue, a corner with more than kPieceMarks extensions is not
/// enumerated but cut into Pieces (extend_piece enumerates one).
template <class Sink>
class Extender {
 public:
  explicit Extender(const BoundedRanking& t, PieceQueue* pieces = nullptr)
      : t_(t),
        shape_(t.shape().data()),
        pieces_(pieces),
        above_(static_cast<std::size_t>(t.max_tiles()) + 1),
        above_stamp_(above_.size(), 0) {
    runs_.reserve(static_cast<std::size_t>(t.max_rows()) + 1);
  }

  /// Marks the extensions of the position of level n with the given rank
  /// into `sink` (sink.point(bit), sink.range(first bit, count)).
  void extend(int n, std::uint64_t rank, Sink& sink) {
    decode(n, rank, sink);
    for (std::size_t u = 0; u < runs_.size(); ++u) extend_corner(u);
  }

  /// Marks the extensions of one piece into `sink`.
  void extend_piece(const Piece& p, Sink& sink) {
    decode(p.n, p.rank, sink);
    if (enter_corner(p.corner)) fill_above<false>(p.t, p.vlow, p.R, p.acc, p.d);
  }

  /// Marks handed to the sink so far (a range counts every position in it).
  std::uint64_t marks() const { return marks_; }

 private:
  struct Run {
    int start;  // first row (0-based)
    int rows;
    int len;    // row length (0 for the run of empty rows)
    int tiles;  // tiles in this run's rows and below
    std::uint64_t term;  // its rank term in L
  };

  std::uint64_t term(int k, int R, int v, int q) const { return t_.at(k, R)[v] - t_.at(k + q, R - q * v)[v]; }

  void decode(int n, std::uint64_t rank, Sink& sink) {
    sink_ = &sink;
    t_.unrank_into(n, rank, rows_);
    n_ = n;
    rank_ = rank;
    cut_runs();
  }

  void cut_runs() {
    runs_.clear();
    int R = n_;
    const int r = static_cast<int>(rows_.size());
    for (int k = 0; k < r;) {
      const int v = rows_[static_cast<std::size_t>(k)];
      int q = 1;
      while (k + q < r && rows_[static_cast<std::size_t>(k + q)] == v) ++q;
      runs_.push_back({k, q, v, R, term(k, R, v, q)});
      R -= q * v;
      k += q;
    }
    if (r < t_.max_rows()) runs_.push_back({r, t_.max_rows() - r, 0, 0, 0});
    below_.assign(runs_.size(), 0);
    for (std::size_t u = runs_.size() - 1; u-- > 0;) below_[u] = below_[u + 1] + runs_[u + 1].term;
  }

  /// Rank terms of the runs above the corner when d tiles are added below them.
  std::uint64_t above(int d) {
    if (corner_ == 0) return 0;
    const std::size_t i = static_cast<std::size_t>(d);
    if (above_stamp_[i] == stamp_) return above_[i];
    std::uint64_t sum = 0;
    for (std::size_t w = 0; w < corner_; ++w) {
      const Run& a = runs_[w];
      sum += term(a.start, a.tiles + d, a.len, a.rows);
    }
    above_stamp_[i] = stamp_;
    above_[i] = sum;
    return sum;
  }

  /// Room for nu in row i of the corner's run (the shape's row minus c).
  int room(int i) const { return shape_[start_ + i] - c_; }

  /// Sets up corner u; false when the shape leaves no room there.
  bool enter_corner(std::size_t u) {
    const Run& run = runs_[u];
    c_ = run.len;
    start_ = run.start;
    limit_ = (u == 0 ? shape_[start_] : std::min(runs_[u - 1].len, shape_[start_])) - c_;
    corner_ = u;
    ++stamp_;
    return limit_ > 0;
  }

  void extend_corner(std::size_t u) {
    if (!enter_corner(u)) return;
    if (c_ == 0) {
      extend_new_rows();
      return;
    }
    const Run& run = runs_[u];
    int block_rows = 0;  // rows of the run the shape leaves room in
    while (block_rows < run.rows && room(block_rows) > 0) ++block_rows;
    // Rows e.. of the run keep length c: their term is T(e, R_e, c) minus
    // the fixed T(run end, tiles below the run, c).
    const std::uint64_t run_end = t_.at(start_ + run.rows, run.tiles - run.rows * c_)[c_];
    const bool split = pieces_ && completions(block_rows, 0) > kPieceMarks;
    for (int e = 1; e <= block_rows; ++e) {
      const int R = run.tiles - e * c_;
      const std::uint64_t acc = e < run.rows ? t_.at(start_ + e, R)[c_] - run_end : 0;
      if (split)
        fill_above<true>(e, 0, R, acc, 0);
      else
        fill_above<false>(e, 0, R, acc, 0);
    }
  }

  /// About how many blocks complete rows 0 .. t-1 with parts above vlow
  /// (exact in a box): non-increasing sequences of t values out of V.
  double completions(int t, int vlow) const {
    const int V = std::min(limit_, room(0)) - vlow;
    double c = 1;
    for (int i = 1; i <= t && c <= kPieceMarks; ++i) c = c * (V - 1 + i) / i;
    return c;
  }

  /// Rows 0 .. t-1 of the run still to fill, each with more than vlow extra
  /// tiles; R = tiles in row t and below, acc = their rank terms, d = extra
  /// tiles placed so far. With kSplit, subtrees small enough become pieces.
  template <bool kSplit>
  void fill_above(int t, int vlow, int R, std::uint64_t acc, int d) {
    if constexpr (kSplit) {
      if (completions(t, vlow) <= kPieceMarks) {
        pieces_->push(Piece{n_, rank_, static_cast<std::uint32_t>(corner_), t, vlow, R, d, acc});
        return;
      }
    }
    const int vmax = std::min(limit_, room(t - 1));
    for (int v = vlow + 1; v <= vmax; ++v) {
      const int len = c_ + v;
      const std::uint64_t bottom = t_.at(start_ + t, R)[len];
      // One run of v over rows 0 .. t-1 completes the block.
      emit(d + t * v, acc + t_.at(start_, R + t * len)[len] - bottom);
      // Or v over rows m .. t-1 only, with larger parts above (room permitting).
      for (int m = t - 1; m >= 1; --m) {
        if (v >= std::min(limit_, room(m - 1))) continue;
        const int Rm = R + (t - m) * len;
        fill_above<kSplit>(m, v, Rm, acc + t_.at(start_ + m, Rm)[len] - bottom, d + (t - m) * v);
      }
    }
  }

  void extend_new_rows() {
    for (int d = 1; n_ + d <= t_.max_tiles(); ++d) {
      const std::uint64_t count = t_.at(start_, d)[limit_];
      if (count == 0) break;  // the rows below hold no more
      sink_->range(t_.level_offset(n_ + d) + above(d), count);
      marks_ += count;
    }
  }

  /// Marks L plus a block of d tiles whose rank terms (with those of the rest
  /// of the run) sum to `block`.
  void emit(int d, std::uint64_t block) {
    sink_->point(t_.level_offset(n_ + d) + above(d) + block + below_[corner_]);
    ++marks_;
  }

  const BoundedRanking& t_;
  const int* shape_;
  PieceQueue* pieces_;
  Sink* sink_ = nullptr;
  Rows rows_;
  int n_ = 0;
  std::uint64_t rank_ = 0;
  std::vector<Run> runs_;
  std::vector<std::uint64_t> below_;  // rank terms of the runs after u
  std::vector<std::uint64_t> above_;
  std::vector<std::uint64_t> above_stamp_;
  std::uint64_t stamp_ = 0;
  std::size_t corner_ = 0;
  int c_ = 0, start_ = 0, limit_ = 0;
  std::uint64_t marks_ = 0;
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
    }, tbb::simple_partitioner());
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
