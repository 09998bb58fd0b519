/// @file bounded_extender.hpp
/// @brief The bounded solver's marking kernel: every one-move extension
/// inside the shape of a losing position, by corners and runs of equal
/// rows, each mark in O(1) lookups, large corners cut into pieces that
/// other threads take (bounded.cpp). Internal: not part of the library's
/// interface.
#pragma once

#include <tbb/concurrent_queue.h>

#include <cstdint>
#include <vector>

#include "chomp/bounded.hpp"
#include "config.hpp"

namespace chomp::bounded_sieve {

inline constexpr double kPieceMarks = config::kBoundedPieceMarks;

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

}  // namespace chomp::bounded_sieve
