/// @file extensions.hpp
/// @brief The marking kernel: ranks of the one-move extensions of a position.
///
/// A position L reduces in one move to a smaller position mu exactly when L
/// is mu plus a staircase-shaped block at one of mu's corners (mission doc,
/// "The sieve"). With mu = (m_1..m_r) and a corner at row j (j = 1, a row
/// shorter than the one above, or j = r+1 for a new row of length c = 0),
/// rows j..j+k-1 all have length c (k = the run of equal rows; unbounded for
/// the new-row corner), and the block adds a partition nu of the extra tiles
/// d with at most k parts, each at most w = m_(j-1) - c (unbounded for j = 1):
///
///     L = (m_1 .. m_(j-1), c+nu_1 .. c+nu_t, rows j+t.. of mu).
///
/// Ranks are computed while nu is enumerated, a run of equal rows at a time,
/// thanks to the identity (split partitions of R with parts <= v by how many
/// parts equal v)
///
///     P(R, v) = sum over s >= 0 of P(R - s v, v - 1),
///
/// so q rows of length v, starting with R tiles in them and below, contribute
/// sum_{s<q} P(R - s v, v - 1) = P(R, v) - P(R - q v, v) to the rank: two
/// table lookups per run instead of one per row. A staircase has few distinct
/// row lengths, so each extension costs a handful of lookups and additions
/// whatever its number of rows. The same identity decodes a rank run by run
/// and sums the rank terms of mu's rows above a corner.
///
/// Structure that bounds the work: with every row but the first fixed, at
/// most one first-row length gives a losing position (if (a, tail) and
/// (a', tail), a' > a, were both losing, the move (1, a+1) would lead from one
/// losing position to another; tests/test_sieve.cpp checks it). So a top
/// corner of a single row contributes exactly one mark per target level,
/// and no source needs to look for a second losing first row.
///
/// The new-row corner is special: the rows below mu form any partition of d
/// with parts <= m_r, and those partitions are exactly ranks 0 .. P(d, m_r)-1
/// of the partitions of d. So its extensions are one contiguous rank range
/// [pre_d(r+1), pre_d(r+1) + P(d, m_r)), marked as a range, not bit by bit.
#pragma once

#include <cstdint>

#include "chomp/position.hpp"
#include "chomp/ranking.hpp"

namespace chomp::detail {

/// A losing position being extended, decoded from its rank into runs of
/// equal rows with everything the kernel needs. Decoding successive
/// increasing ranks reuses the runs they share (seek), so a chunk of sources
/// costs little more than the runs that change.
class Source {
 public:
  explicit Source(const PartitionTable& table) : t_(table) {}

  /// Decodes the position of level m with the given rank (from scratch).
  void decode(int m, std::uint64_t rank);

  /// Moves to a larger rank of the same level, re-decoding only the runs
  /// that change.
  void seek(std::uint64_t rank);

  int tiles() const { return m_; }
  std::uint64_t rank() const { return rank_; }
  /// Runs of equal rows, top first: run t (1-based) is runs() rows of
  /// length run_length(t).
  int runs() const { return T_; }
  int run_length(int t) const { return c_[t]; }
  int run_rows(int t) const { return k_[t]; }

  /// Calls sink.point(rank) for every extension with d more tiles that is not
  /// in the new-row corner, and sink.range(first, count) once for that corner.
  template <class Sink>
  void for_each_extension(int d, Sink& sink) const;

 private:
  void descend(int t, int max_part, std::uint64_t rank_left);

  /// Contribution of q rows of length v with R tiles in them and below.
  std::uint64_t run_term(int R, int v, int q) const {
    const std::uint64_t* col = t_.col(v);
    return col[R] - col[R - q * v];
  }

  struct Corner {
    int c;                      // length of the corner's rows in mu
    int rt;                     // tiles of mu in the corner's rows and below
    std::uint64_t base;         // pre_d + constant part of the suffix
    const std::uint64_t* ccol;  // P(., c)
  };

  template <class Sink>
  void block(const Corner& k, int vcap, int e, int parts_left, int R, std::uint64_t acc, int rows,
             Sink& sink) const;

  const PartitionTable& t_;
  int m_ = 0;
  int T_ = 0;
  std::uint64_t rank_ = 0;
  // 1-based arrays over runs; index T_+1 describes "below the last row".
  int c_[kMaxTiles + 2] = {};            // row length of run t (c_[0]: sentinel cap)
  int k_[kMaxTiles + 2] = {};            // rows in run t
  int R_[kMaxTiles + 2] = {};            // tiles in runs t.. (R_[T_+1] = 0)
  std::uint64_t C_[kMaxTiles + 2] = {};  // rank terms of runs 1..t-1 (C_[T_+1] = rank)
  std::uint64_t hi_[kMaxTiles + 2] = {};  // one past the last rank sharing runs 1..t
};

template <class Sink>
void Source::block(const Corner& k, int vcap, int e, int parts_left, int R, std::uint64_t acc,
                   int rows, Sink& sink) const {
  // Next run of nu: value v (rows of length c + v), multiplicity q. Parts
  // below v must still be able to hold what is left: v >= ceil(e / parts_left).
  const int v_lo = (e + parts_left - 1) / parts_left;
  for (int v = vcap < e ? vcap : e; v >= v_lo; --v) {
    const int cv = k.c + v;
    const std::uint64_t* col = t_.col(cv);
    const std::uint64_t top = col[R];
    // After q parts of v, at most (parts_left - q) parts of at most v - 1
    // must hold e - q v, so q >= e - parts_left (v - 1).
    const int q_lo = e - parts_left * (v - 1);
    for (int q = q_lo > 1 ? q_lo : 1; q <= parts_left && q * v <= e; ++q) {
      const int left = e - q * v;
      const int Rq = R - q * cv;
      const std::uint64_t a = acc + top - col[Rq];
      if (left == 0) {
        // nu is complete; the corner's remaining rows of length c follow.
        sink.point(k.base + a + k.ccol[k.rt - (rows + q) * k.c]);
        break;
      }
      if (left <= (parts_left - q) * (v - 1)) {
        if (parts_left - q == 1) {
          // Only one part is left, so it is `left`: finish here instead of
          // recursing (most leaves end this way; a call costs more than
          // the leaf itself).
          const int cl = k.c + left;
          const std::uint64_t* lcol = t_.col(cl);
          sink.point(k.base + a + lcol[Rq] - lcol[Rq - cl] + k.ccol[k.rt - (rows + q + 1) * k.c]);
        } else {
          block(k, v - 1, left, parts_left - q, Rq, a, rows + q, sink);
        }
      }
    }
  }
}

template <class Sink>
void Source::for_each_extension(int d, Sink& sink) const {
  std::uint64_t pre = 0;  // rank terms of the rows above the corner, d tiles more
  for (int t = 1; t <= T_; ++t) {
    const int c = c_[t], k = k_[t], rt = R_[t];
    const int w = (t == 1) ? d : c_[t - 1] - c;
    // The block is at most k rows of at most w tiles; most corners of a
    // source far below the target level are too small to hold d tiles.
    if (static_cast<long>(k) * w >= d) {
      // leaf rank = pre + (nu's runs) + P(rt - rows(nu) c, c) - P(R_{t+1}, c) + (rank - C_{t+1})
      const std::uint64_t* ccol = t_.col(c);
      const std::uint64_t base = pre + (rank_ - C_[t + 1]) - ccol[R_[t + 1]];
      if (k == 1) {
        // One row: the block is a single row of d tiles (d <= w here).
        const std::uint64_t* col = t_.col(c + d);
        sink.point(base + col[rt + d] - col[rt - c] + ccol[rt - c]);
      } else {
        const Corner corner{c, rt, base, ccol};
        block(corner, w < d ? w : d, d, k < d ? k : d, rt + d, 0, 0, sink);
      }
    }
    pre += run_term(rt + d, c, k);
  }
  // The new-row corner: all partitions of d into parts <= the last row, contiguous.
  sink.range(pre, t_.count(d, c_[T_]));
}

}  // namespace chomp::detail
