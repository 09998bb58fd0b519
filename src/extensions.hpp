/// @file extensions.hpp
/// @brief The marking kernel: ranks of the one-move extensions of a position.
///
/// A position L reduces in one move to a smaller position mu exactly when L
/// is mu plus a staircase-shaped block at one of mu's corners
/// (doc/ALGORITHMS.md, "`extensions` — the marking kernel"). With mu = (m_1..m_r) and a corner at row j (j = 1, a row
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
/// Small blocks are not enumerated at all: a block of at most
/// config::kShapeTiles tiles is one of a fixed list of shapes (BlockShapes),
/// and its rank is the same sum of run terms, walked over the shape's runs
/// without a data-dependent branch.
///
/// The new-row corner is special: the rows below mu form any partition of d
/// with parts <= m_r, and those partitions are exactly ranks 0 .. P(d, m_r)-1
/// of the partitions of d. So its extensions are one contiguous rank range
/// [pre_d(r+1), pre_d(r+1) + P(d, m_r)), marked as a range, not bit by bit
/// (as a point when it holds one position).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "chomp/position.hpp"
#include "chomp/ranking.hpp"
#include "config.hpp"

namespace chomp::detail {

/// Distinct parts a partition of e can have: the largest j with
/// 1 + 2 + ... + j <= e.
constexpr int most_runs(int e) {
  int j = 0;
  while ((j + 1) * (j + 2) / 2 <= e) ++j;
  return j;
}

/// Every block small enough to be read from a table instead of enumerated:
/// the partitions nu of e <= config::kShapeTiles tiles with parts <= v, as
/// runs of equal parts (value, multiplicity), each list sorted by its number
/// of parts, so the blocks of at most `parts` parts are a prefix of it.
/// A shape has kRuns runs; one with fewer ends in runs of multiplicity 0,
/// whose rank term P(R, c) - P(R - 0, c) is 0 and which leave R as it is, so
/// every shape costs the same branch-free walk.
class BlockShapes {
 public:
  static constexpr int kTiles = config::kShapeTiles;
  static constexpr int kRuns = most_runs(kTiles);
  struct Shape {
    std::uint8_t value[kRuns];
    std::uint8_t rows[kRuns];
  };

  /// The shared table, built on first use.
  static const BlockShapes& get();

  /// Blocks of e tiles (1 <= e <= kTiles) with parts <= vcap and at most
  /// `parts` parts (both >= 1), in the order of their number of parts.
  const Shape* begin(int e, int vcap) const { return shapes_.data() + first_[index(e, vcap)]; }
  const Shape* end(int e, int vcap, int parts) const {
    return begin(e, vcap) + upto_[index(e, vcap) * (kTiles + 1) + (parts < e ? parts : e)];
  }
  /// most_runs(e) for 0 <= e <= kTiles.
  static int runs(int e) { return kRunsOf[static_cast<std::size_t>(e)]; }

 private:
  BlockShapes();
  static constexpr auto kRunsOf = [] {
    std::array<std::uint8_t, kTiles + 1> runs{};
    for (int e = 0; e <= kTiles; ++e) runs[static_cast<std::size_t>(e)] = static_cast<std::uint8_t>(most_runs(e));
    return runs;
  }();
  static std::size_t index(int e, int vcap) {
    return static_cast<std::size_t>(e) * (kTiles + 1) + static_cast<std::size_t>(vcap < e ? vcap : e);
  }
  std::vector<Shape> shapes_;
  std::vector<std::uint32_t> first_;  // by index(e, vcap)
  std::vector<std::uint32_t> upto_;   // by index(e, vcap) and parts: shapes with <= parts parts
};

/// Sets, in words (bit i stands for rank lo + i; lo a multiple of 64), the
/// bits of the positions of level n with ranks in [lo, hi) whose first row
/// is shorter than their first column: those that are not canonical, which
/// the sieve takes as the transposes of canonical ones. They come in runs
/// of consecutive ranks (with first row a, the rest is a partition of n - a
/// with parts <= a, and the position has more than a rows when the rest has
/// at least a parts; partitions sharing their first parts are consecutive),
/// found by a walk over those first parts that stops where every partition
/// below has enough parts, or none can: at n = 70 their 4.1 million
/// positions come as 126 thousand runs, 48% of them not canonical.
void set_not_canonical(const PartitionTable& table, int n, std::uint64_t lo, std::uint64_t hi,
                       std::uint64_t* words);

/// The runs of every partition of R <= config::kDecodedTailTiles tiles, by
/// rank in the order of ranking.hpp (first part ascending; within a first
/// part a, the partitions that start with more copies of a last), packed
/// in a word each: the number of runs in bits 0-2, then run i's row length
/// and rows in 5 bits each from bit 3 + 10 i, top run first. The partitions
/// of R with parts <= k are the first P(R, k) of them, so a decode that
/// reaches R tiles with any cap on the parts reads its runs here.
class DecodedTails {
 public:
  static constexpr int kTiles = config::kDecodedTailTiles;
  static constexpr int kRuns = most_runs(kTiles);
  static_assert(3 + 10 * kRuns <= 64 && kTiles < 32, "a tail's runs must fit a word");

  /// The shared table, built on first use.
  static const DecodedTails& get();

  /// The packed runs of the partition of R (1 <= R <= kTiles) with the
  /// given rank.
  std::uint64_t runs(int R, std::uint64_t rank) const { return words_[first_[static_cast<std::size_t>(R)] + rank]; }
  /// Words in the table.
  std::size_t size() const { return words_.size(); }

 private:
  DecodedTails();
  std::vector<std::uint64_t> words_;
  std::vector<std::uint32_t> first_;  // by R
};

/// A losing position being extended, decoded from its rank into runs of
/// equal rows with everything the kernel needs. Decoding successive
/// increasing ranks reuses the runs they share (seek), so a chunk of sources
/// costs little more than the runs that change.
class Source {
 public:
  /// Runs of distinct row lengths a position can have: 1 + 2 + ... + 22 =
  /// 253 tiles, and 23 distinct lengths would need 276 > kMaxTiles.
  static constexpr int kMaxRuns = 22;
  static_assert((kMaxRuns + 1) * (kMaxRuns + 2) / 2 > kMaxTiles, "kMaxRuns too small");

  explicit Source(const PartitionTable& table) : t_(table) {}

  /// Decodes the position of level m with the given rank (from scratch).
  void decode(int m, std::uint64_t rank);

  /// Moves to a larger rank of the same level, re-decoding only the runs
  /// that change.
  void seek(std::uint64_t rank);

  int tiles() const { return m_; }
  std::uint64_t rank() const { return rank_; }
  /// Rows of the position (the length of its first column).
  int rows() const { return K_[T_ + 1]; }
  /// Rank of the transposed position (rows and columns exchanged) among the
  /// positions with the same tiles. Each run t of this position gives it a
  /// run of c_t - c_(t+1) rows (c_(T+1) = 0, not stored: hence the test
  /// t < T_ below) of length K_(t+1), the rows of
  /// runs 1..t: columns c_(t+1) + 1 .. c_t. That run and the shorter ones
  /// below it hold the tiles right of column c_(t+1), so its rank term
  /// depends on runs 1..t and c_(t+1) alone: after a seek that kept runs
  /// 1..k, the sum of the terms of runs 1..k-1 is the last call's, and only
  /// the runs from k on are summed again (a seek through a level's losing
  /// ranks keeps about 4 of 7 runs), and none on a second call.
  std::uint64_t transposed_rank() {
    int t = trank_valid_ > 0 ? trank_valid_ : 1;  // (tsum_[1] = tx_[1] = 0 always)
    for (; t <= T_; ++t) {
      const int v = K_[t + 1], q = c_[t] - (t < T_ ? c_[t + 1] : 0);
      const int x = tx_[t], right = x + q * v;  // tiles right of column c_(t+1)
      const std::uint64_t* col = t_.col(v);
      tsum_[t + 1] = tsum_[t] + col[right] - col[x];
      tx_[t + 1] = right;
    }
    trank_valid_ = T_ + 1;
    return tsum_[T_ + 1];
  }
  /// With this set, only extensions that are canonical (first row at least
  /// as long as the first column) need to be made. A source whose first row
  /// c_1 is shorter than its first column (its r rows) then makes canonical
  /// ones only: a block at any corner but the top one keeps both the first
  /// row and the number of rows, a new row keeps the first row and adds
  /// rows, and a block at the top corner makes the first row c_1 + nu_1, so
  /// its blocks are those with nu_1 >= r - c_1. In the sieve's runs that
  /// leaves about two thirds of the marks (0.63 at n = 120). A canonical source
  /// makes every extension (some of them not canonical, which the sieve
  /// ignores).
  void set_canonical_only(bool on) { canonical_only_ = on; }
  /// Makes only the extensions whose first row is in lo..hi (a slice of a
  /// level: consecutive ranks). A source whose first row c_1 is above hi
  /// makes none; one below lo only blocks at its top corner whose first
  /// part is at least lo - c_1; and top-corner blocks have a first part of
  /// at most hi - c_1. Every other corner, and the new row, keep c_1.
  void set_first_rows(int lo, int hi) { first_lo_ = lo, first_hi_ = hi; }
  /// With rows > 0, the corners at the first `rows` rows make no extensions
  /// at all (corner t is at row K_t + 1, one below the rows of the runs
  /// above it): the sieve infers every mark a move of those rows would make
  /// (tail_marks.hpp), and a source that is pruned (see above) makes none.
  /// With canonical_only too, a new row none of whose positions is
  /// canonical (d > (c_1 - rows) c_T) is not made.
  void set_rows_inferred(int rows) { rows_inferred_ = rows; }
  void set_rows_inferred(bool) = delete;  // a count of rows, not a flag
  /// With this set, only the top corner makes extensions (no other corner
  /// and no new row): the tails one first-row move above a losing
  /// position's tail (tail_marks.hpp).
  void set_top_only(bool on) { top_only_ = on; }
  /// The rank of the next source of this level whose extensions will be
  /// made (the next seek's), until the next decode or seek. A corner that
  /// source will not share (it shares runs 1..t with this one, so corners
  /// 1..t) is then not recorded for it. Without it, every corner but the
  /// last is recorded. A wrong rank costs time, never a mark: a source reuses
  /// only corners both recorded and shared.
  void set_next(std::uint64_t rank) {
    // It shares runs 1..t when rank < hi_[t], which does not increase with t.
    int t = 0;
    while (t < T_ && rank < hi_[t + 1]) ++t;
    next_shares_ = t, next_known_ = true;
  }
  /// Runs the last seek kept from the source before it (0 after a decode):
  /// the corners it may shift from that source's marks.
  int kept_runs() const { return kept_; }
  /// Corners 1..k whose marks with d more tiles are recorded for the next
  /// source (after a call for d).
  int recorded_corners(int d) const { return reuse_[static_cast<std::size_t>(d)].corners; }
  /// At least the extensions with d more tiles that for_each_extension
  /// makes (the blocks of each corner counted as all partitions of d into
  /// at most its rows, a corner too narrow for d not at all, the new row's
  /// as all partitions of d into parts at most the last row; a source whose
  /// first row is above the slice none, and one that is pruned (its first
  /// row shorter than its first column, or below the slice) its top corner
  /// alone): what one level's call may mark at most, for a few table reads.
  std::uint64_t extension_bound(int d) const {
    if (c_[1] > first_hi_) return 0;
    std::uint64_t b = t_.count(d, k_[1]);
    if ((canonical_only_ && c_[1] < K_[T_ + 1]) || c_[1] < first_lo_) return b;
    for (int t = 2; t <= T_; ++t)
      if (static_cast<long>(d) <= static_cast<long>(k_[t]) * (c_[t - 1] - c_[t])) b += t_.count(d, k_[t]);
    return b + t_.count(d, c_[T_]);
  }
  /// Runs of equal rows, top first: run t (1-based) is runs() rows of
  /// length run_length(t).
  int runs() const { return T_; }
  int run_length(int t) const { return c_[t]; }
  int run_rows(int t) const { return k_[t]; }

  /// Calls sink.point(offsets[d - dlo] + rank) for every extension with d
  /// more tiles, dlo <= d <= dhi, that is not in the new-row corner, and
  /// sink.range(offsets[d - dlo] + first, count) once per d for that corner.
  /// (An offset places a target level in a window of levels at no cost per
  /// mark.) The corners are walked once for all the d together: a corner
  /// too small for a d is passed over, and the rank terms of the rows above
  /// each corner are summed for every d in one vectorisable loop; taken one
  /// d at a time, every corner was visited for every d. Corners that the
  /// previous source (the one before the last seek) shared are not
  /// enumerated again: their marks are the previous ones shifted by the
  /// difference of the two ranks (recorded by that source for the corners
  /// it shared with the successor it named, set_next, or for all but its
  /// last corner when it named none).
  template <class Sink>
  void for_each_extension(int dlo, int dhi, Sink& sink, const std::uint64_t* offsets);

  /// The same for one d.
  template <class Sink>
  void for_each_extension(int d, Sink& sink, std::uint64_t offset = 0) {
    for_each_extension(d, d, sink, &offset);
  }

 private:
  void descend(int t, int max_part, std::uint64_t rank_left);

  /// Records run t, q rows of length a over the R_[t] tiles from its first
  /// row down, and what follows from it for run t + 1; returns its rank term.
  std::uint64_t set_run(int t, int a, int q) {
    const int R = R_[t];
    const std::uint64_t term = run_term(R, a, q);
    c_[t] = a;
    k_[t] = q;
    C_[t + 1] = C_[t] + term;
    K_[t + 1] = K_[t] + q;
    R_[t + 1] = R - q * a;
    hi_[t] = C_[t + 1] + t_.row(R_[t + 1])[a - 1];
    return term;
  }

  /// for_each_extension for at most kLevelsAtOnce consecutive d.
  static constexpr int kLevelsAtOnce = config::kJointExtraTiles;
  /// kOne: dlo == dhi, a single level (a window of one level, or a level
  /// taken alone above the joint span), whose loops over levels the
  /// compiler then unrolls to one step. In a window of level 100 alone
  /// (every source of levels 80..99 decoded and extended into it, one
  /// thread, marks counted), a source took 115-120 ns against 129-135 ns;
  /// whole runs to 110 with a window of one level from 100 on, 3-5%.
  template <bool kOne, class Sink>
  void extend_levels(int dlo, int dhi, Sink& sink, const std::uint64_t* offsets);

  /// Contribution of q rows of length v with R tiles in them and below.
  std::uint64_t run_term(int R, int v, int q) const {
    const std::uint64_t* col = t_.col(v);
    return col[R] - col[R - q * v];
  }

  /// A corner being extended: rows of length c, and the parts of the rank
  /// that do not depend on nu. With R tiles left in the corner's rows and
  /// below, the rows of length c that follow nu contribute ccol[R] (the
  /// identity above), so a leaf needs nothing else from the corner.
  template <class Sink>
  struct Corner {
    const PartitionTable& t;
    int c;
    std::uint64_t base;         // pre_d + constant part of the suffix
    const std::uint64_t* ccol;  // P(., c)
    const BlockShapes& shapes;
    Sink& sink;

    /// nu's remaining e <= BlockShapes::kTiles tiles, at most `parts` parts
    /// of at most vcap: every shape of the table, each a fixed walk over its
    /// first `runs` runs (no shape here has more: a shape's distinct parts are
    /// at most vcap, at most its parts, and 1 + 2 + ... + runs <= e), the sum
    /// of run terms as in many(), then the rows of length c.
    template <int kRuns>
    void table(int vcap, int e, int parts, int R, std::uint64_t acc) const {
      const BlockShapes::Shape* stop = shapes.end(e, vcap, parts);
      for (const BlockShapes::Shape* s = shapes.begin(e, vcap); s != stop; ++s) {
        int r = R;
        std::uint64_t a = acc;
        for (int j = 0; j < kRuns; ++j) {
          const int cv = c + s->value[j];
          const std::uint64_t* col = t.col(cv);
          const int r2 = r - s->rows[j] * cv;
          a += col[r] - col[r2];
          r = r2;
        }
        sink.point(base + a + ccol[r]);
      }
    }
    void table(int vcap, int e, int parts, int R, std::uint64_t acc) const {
      int runs = shapes.runs(e);
      if (vcap < runs) runs = vcap;
      if (parts < runs) runs = parts;
      static_assert(BlockShapes::kRuns == 4, "one case per number of runs");
      switch (runs) {
        case 1: return table<1>(vcap, e, parts, R, acc);
        case 2: return table<2>(vcap, e, parts, R, acc);
        case 3: return table<3>(vcap, e, parts, R, acc);
        default: return table<4>(vcap, e, parts, R, acc);
      }
    }

    /// nu's remaining e tiles form one part (e <= its cap).
    void one(int e, int R, std::uint64_t acc) const {
      const int ce = c + e;
      const std::uint64_t* col = t.col(ce);
      sink.point(base + acc + col[R] - col[R - ce] + ccol[R - ce]);
    }

    /// nu's remaining e tiles form at most two parts of at most vcap, the
    /// larger at least `least`.
    void two(int vcap, int e, int R, std::uint64_t acc, int least = 1) const {
      if (e <= vcap && e >= least) one(e, R, acc);
      // Parts x >= y = e - x >= 1: a row of length c + x with R tiles in it
      // and below adds P(R, c+x) - P(R-c-x, c+x) = P(R, c+x-1) (the identity
      // with q = 1), and the rows of length c below start at R - 2c - e.
      const std::uint64_t k = base + acc + ccol[R - 2 * c - e];
      for (int x = (vcap < e - 1 ? vcap : e - 1); 2 * x >= e && x >= least; --x) {
        const int cx = c + x, cy = c + e - x;
        sink.point(k + t.col(cx - 1)[R] + t.col(cy - 1)[R - cx]);
      }
    }

    /// nu's remaining e tiles form at most `parts` parts of at most vcap
    /// (parts >= 3), the largest at least `least`, a run of equal parts at a
    /// time, down to blocks small enough for the table (which has no bound
    /// below, so a block with one is not read from it: filtering the table's
    /// shapes by their largest part instead made no difference in
    /// BM_ExtensionsCanonicalOnly/10, 6.56-6.61 ms against 6.57 ms).
    void many(int vcap, int e, int parts, int R, std::uint64_t acc, int least = 1) const;
  };

  /// Passes marks on to the sink and keeps a copy while there is room.
  template <class Sink>
  struct Recorder {
    Sink& sink;
    std::uint64_t* out;
    std::uint64_t* end;
    bool overflowed;  // a mark found no room: the corner is not recorded whole
    [[gnu::always_inline]] void point(std::uint64_t r) {
      sink.point(r);
      if (out != end) *out++ = r;
      else overflowed = true;
    }
  };

  /// The marks of one extra-tile count d for the latest source it was made
  /// for. Two sources of a level that share runs 1..t share their first t
  /// corners: the rows a block adds there, and every row count below them,
  /// are the same, so each such extension's rank differs from the other's
  /// by exactly the difference of the sources' ranks (ranking.hpp: a row's
  /// term depends only on its length and the tiles in it and below). The
  /// marks of corners 1..t are marks[0, end(t, d)) (ends_).
  struct Reuse {
    std::uint64_t serial = 0;                    // the source (serial_) it was made for
    std::uint64_t rank = 0, offset = 0;
    int corners = 0;                             // corners 1..corners recorded whole
    int least = 0;                               // the top corner's blocks: first part >= least
    int most = 0;                                //   and <= most
    std::uint64_t marks[config::kReuseMarks] = {};
  };

  const PartitionTable& t_;
  const BlockShapes& shapes_ = BlockShapes::get();
  const DecodedTails& tails_ = DecodedTails::get();
  std::unique_ptr<Reuse[]> reuse_{new Reuse[static_cast<std::size_t>(t_.max_tiles()) + 1]};
  // end(t, d) = ends_[t * (max_tiles + 1) + d], corner by corner so that one
  // corner's ends for consecutive d are adjacent; end(0, d) = 0.
  std::unique_ptr<std::uint16_t[]> ends_{
      new std::uint16_t[(kMaxRuns + 1) * (static_cast<std::size_t>(t_.max_tiles()) + 1)]()};
  bool canonical_only_ = false;
  int rows_inferred_ = 0;  // set_rows_inferred
  bool top_only_ = false;
  bool next_known_ = false;  // set_next, since the last decode or seek
  int next_shares_ = 0;      //   and the runs that source shares with this one
  int first_lo_ = 1, first_hi_ = kMaxTiles + 1;  // set_first_rows
  std::uint64_t serial_ = 1;  // counts decode and seek calls
  int kept_ = 0;              // runs the last seek kept (0 after decode)
  int m_ = 0;
  int T_ = 0;
  std::uint64_t rank_ = 0;
  // 1-based arrays over runs; index T_+1 describes "below the last row".
  int c_[kMaxTiles + 2] = {};            // row length of run t (c_[0]: sentinel cap)
  int k_[kMaxTiles + 2] = {};            // rows in run t
  int R_[kMaxTiles + 2] = {};            // tiles in runs t.. (R_[T_+1] = 0)
  int K_[kMaxTiles + 2] = {};            // rows in runs 1..t-1 (K_[T_+1] = rows)
  std::uint64_t C_[kMaxTiles + 2] = {};  // rank terms of runs 1..t-1 (C_[T_+1] = rank)
  std::uint64_t hi_[kMaxTiles + 2] = {};  // one past the last rank sharing runs 1..t
  // transposed_rank: tsum_[t] the terms of runs 1..t-1, tx_[t] the tiles
  // right of column c_t, both still true for t <= trank_valid_ (T_ + 1
  // after a call: the whole sum).
  std::uint64_t tsum_[kMaxTiles + 2] = {};
  int tx_[kMaxTiles + 2] = {};
  int trank_valid_ = 0;
};

template <class Sink>
void Source::Corner<Sink>::many(int vcap, int e, int parts, int R, std::uint64_t acc, int least) const {
  if (e <= BlockShapes::kTiles && least <= 1) {
    table(vcap, e, parts, R, acc);
    return;
  }
  // Next run of nu: value v (rows of length c + v), multiplicity q. Parts
  // below v must still be able to hold what is left: v parts * v >= e.
  for (int v = vcap < e ? vcap : e; v * parts >= e && v >= least; --v) {
    const int cv = c + v;
    const std::uint64_t* col = t.col(cv);
    const std::uint64_t top = acc + col[R];
    // After q parts of v, at most (parts - q) parts of at most v - 1 must
    // hold e - q v, so q >= e - parts (v - 1).
    const int q_lo = e - parts * (v - 1);
    for (int q = q_lo > 1 ? q_lo : 1; q <= parts && q * v <= e; ++q) {
      const int left = e - q * v;
      const int Rq = R - q * cv;
      const std::uint64_t a = top - col[Rq];
      if (left == 0) {
        // nu is complete; the corner's remaining rows of length c follow.
        sink.point(base + a + ccol[Rq]);
        break;
      }
      // Most leaves end with one or two parts: finish those here (a call
      // costs more than the leaves themselves).
      const int rest = parts - q;
      if (rest == 1)
        one(left, Rq, a);
      else if (rest == 2)
        two(v - 1, left, Rq, a);
      else
        many(v - 1, left, rest, Rq, a);
    }
  }
}

template <class Sink>
void Source::for_each_extension(int dlo, int dhi, Sink& sink, const std::uint64_t* offsets) {
  for (int d = dlo; d <= dhi; d += kLevelsAtOnce) {
    const int last = dhi - d < kLevelsAtOnce ? dhi : d + kLevelsAtOnce - 1;
    if (last == d)
      extend_levels<true>(d, d, sink, offsets + (d - dlo));
    else
      extend_levels<false>(d, last, sink, offsets + (d - dlo));
  }
}

template <bool kOne, class Sink>
void Source::extend_levels(int dlo, int dhi, Sink& sink, const std::uint64_t* offsets) {
  if constexpr (kOne) dhi = dlo;
  const int D = kOne ? 1 : dhi - dlo + 1;
  const std::size_t stride = static_cast<std::size_t>(t_.max_tiles()) + 1;
  std::uint64_t pre[kLevelsAtOnce];  // offset + rank terms of the rows above the corner, d tiles more
  int filled[kLevelsAtOnce];         // marks recorded so far
  int kept[kLevelsAtOnce];           // corners 1..kept[i] are the recorded source's
  int whole[kLevelsAtOnce];          // corners recorded whole
  bool overflowed[kLevelsAtOnce];
  // canonical_only_ and a source whose first row is shorter than its first
  // column: its top corner alone is extended, by blocks whose first row
  // makes the first row at least as long as the first column (least tiles
  // or more), and its new-row corner not at all (more rows, same first row).
  // The same for a source whose first row is below the slice of first rows
  // being made (set_first_rows); and the top corner's first part makes the
  // first row at most first_hi_ (most tiles).
  if (c_[1] > first_hi_) return;
  const bool below = c_[1] < first_lo_;
  const bool pruned = (canonical_only_ && c_[1] < K_[T_ + 1]) || below;
  if (pruned && rows_inferred_ > 0) return;
  int least = canonical_only_ && c_[1] < K_[T_ + 1] ? K_[T_ + 1] - c_[1] : 0;
  if (below && first_lo_ - c_[1] > least) least = first_lo_ - c_[1];
  const int most = first_hi_ - c_[1];
  const int corners = pruned || top_only_ ? 1 : T_;
  int kept_least = corners;
  const int shared = next_known_ ? next_shares_ : T_;  // corners 1..shared are the next source's too
  for (int i = 0; i < D; ++i) {
    const int d = dlo + i;
    Reuse& r = reuse_[static_cast<std::size_t>(d)];
    int v = 0;
    if (r.offset == offsets[i]) {
      if (r.serial == serial_)
        v = r.corners;
      else if (r.serial + 1 == serial_)
        v = r.corners < kept_ ? r.corners : kept_;
    }
    if (v > corners) v = corners;
    // Marks of a top corner made with other bounds are not these.
    if (r.least != least || r.most != most) v = 0;
    if (v == 0) r.least = least, r.most = most;
    const std::uint64_t delta = rank_ - r.rank;
    const int reused = ends_[static_cast<std::size_t>(v) * stride + static_cast<std::size_t>(d)];
    for (int j = 0; j < reused; ++j) sink.point(r.marks[j] += delta);
    r.serial = serial_;
    r.rank = rank_;
    r.offset = offsets[i];
    pre[i] = offsets[i];
    filled[i] = reused;
    kept[i] = whole[i] = v;
    overflowed[i] = false;
    if (v < kept_least) kept_least = v;
  }
  for (int t = 1; t <= corners; ++t) {
    const int c = c_[t], k = k_[t], rt = R_[t];
    const std::uint64_t* ccol = t_.col(c);
    if (t > kept_least) {
      // The block is at most k rows of at most w tiles, w = m_(t-1) - c
      // (unbounded for the top corner): the corner holds d <= k w.
      const int width = (t == 1) ? 0 : c_[t - 1] - c;  // 0: unbounded
      const long room = (t == 1) ? (most >= dhi ? dhi : static_cast<long>(k) * most) : static_cast<long>(k) * width;
      // A corner at one of the inferred rows makes no marks (the sieve
      // infers them): no d is walked there, and (unless it is the last
      // corner, which is never recorded) it is recorded whole, empty.
      int dtop = room < dhi ? static_cast<int>(room) : dhi;
      if (K_[t] < rows_inferred_) dtop = dlo - 1;
      // leaf rank = pre + (nu's runs) + P(rt - rows(nu) c, c) - P(R_{t+1}, c) + (rank - C_{t+1})
      const std::uint64_t below = (rank_ - C_[t + 1]) - ccol[R_[t + 1]];
      // The blocks of d tiles at this corner, into `to`.
      const auto blocks = [&](int d, auto& to) {
        const Corner<std::remove_reference_t<decltype(to)>> corner{t_, c, pre[d - dlo] + below, ccol, shapes_, to};
        const int w = (t == 1) ? (most < d ? most : d) : width;
        const int parts = k < d ? k : d, vcap = w < d ? w : d;
        const int bound = (t == 1) ? least : 1;
        if (vcap <= 0) {
          // a top corner whose blocks would all leave the slice
        } else if (parts == 1) {
          if (d >= bound && d <= vcap) corner.one(d, rt + d, 0);  // one row of d tiles
        } else if (parts == 2) {
          corner.two(vcap, d, rt + d, 0, bound);
        } else {
          corner.many(vcap, d, parts, rt + d, 0, bound);
        }
      };
      if ((t == T_ && t > 1) || t > shared) {
        // The last corner: a later source of the level shares at most runs
        // 1..T_-1 with this one (sharing all would make it this one), so
        // no later source shifts its marks, and they are not recorded (a
        // call for this same source again enumerates them again). Nor are
        // the corners below those the next source shares (set_next).
        for (int d = dlo; d <= dtop; ++d)
          if (kept[d - dlo] < t) blocks(d, sink);
      } else {
        for (int d = dlo; d <= dtop; ++d) {
          const int i = d - dlo;
          if (kept[i] >= t) continue;
          Reuse& r = reuse_[static_cast<std::size_t>(d)];
          Recorder<Sink> rec{sink, r.marks + filled[i], r.marks + config::kReuseMarks, overflowed[i]};
          blocks(d, rec);
          filled[i] = static_cast<int>(rec.out - r.marks);
          overflowed[i] = rec.overflowed;
        }
        std::uint16_t* end_t = ends_.get() + static_cast<std::size_t>(t) * stride + static_cast<std::size_t>(dlo);
        for (int i = 0; i < D; ++i)
          if (kept[i] < t && !overflowed[i]) {
            end_t[i] = static_cast<std::uint16_t>(filled[i]);
            whole[i] = t;
          }
      }
    }
    // The corner's k rows of length c, with rt + d tiles in them and below:
    // run_term(rt + d, c, k) for every d, in a loop the compiler vectorises.
    const std::uint64_t* top = ccol + rt + dlo;
    const std::uint64_t* bottom = top - k * c;
    for (int i = 0; i < D; ++i) pre[i] += top[i] - bottom[i];
  }
  // The new-row corner: all partitions of d into parts <= the last row,
  // contiguous. When that is a single position (d rows of one tile below a
  // row of one tile, or one new tile), it is filed as a point: a range takes
  // two entries and a slower apply, and these ranges took 13% of the
  // entries at N = 100 (as points: 6% fewer entries). Ranges of up to 4 as
  // points gained nothing more.
  //
  // A new row adds at least ceil(d / c_T) rows, so with more than
  // (c_1 - rows) c_T tiles every one of them makes the first column longer
  // than the first row: none is canonical. When the top rows are inferred
  // (the default), such a range is not made at all (the sieve sets the bits
  // of the positions that are not canonical anyway): 39.4 million of the
  // 100 million new rows at N = 100, 6% of the entries and 152 million
  // marks. (Runs that file every mark, --file-all-marks, keep them, so
  // that their marks stay the published table's.)
  const int new_row_most = rows_inferred_ > 0 && canonical_only_ ? (c_[1] - K_[T_ + 1]) * c_[T_] : dhi;
  for (int i = 0; i < D; ++i) {
    const int d = dlo + i;
    reuse_[static_cast<std::size_t>(d)].corners = whole[i];
    if (pruned || top_only_) continue;  // (and pre[i] is not summed to the last row)
    if (d > new_row_most) continue;
    const std::uint64_t count = t_.count(d, c_[T_]);
    if (count == 1)
      sink.point(pre[i]);
    else
      sink.range(pre[i], count);
  }
}

}  // namespace chomp::detail
