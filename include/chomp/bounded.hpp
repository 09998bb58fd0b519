/// @file bounded.hpp
/// @brief Exact solver for every position inside a given staircase: a bounded
/// board (an a x b box) or the positions contained in one position.
///
/// ## The domain
/// The *shape* lambda is a staircase (row lengths, top first). Its domain is
/// every staircase mu that fits inside it, mu_i <= lambda_i for every row,
/// the empty board included: the lattice paths inside lambda's bounding box
/// that stay under lambda's boundary. Every move from a position of the domain
/// leads into the domain, so the domain can be solved on its own. The a x b
/// box (lambda = b, b, ..., b) holds C(a+b, a) positions; the positions
/// contained in one position P are what `chomp analyze P` needs.
///
/// ## Ranking (BoundedRanking)
/// The positions of the domain with n tiles (level n) are ordered like the
/// main sieve's (ranking.hpp): lexicographically by rows, top row first,
/// ascending. With T(k, R, j) the number of ways to fill rows k.. of the
/// domain with R tiles, row k holding at most j of them,
///
///     rank(mu) = sum over rows k of T(k, R_k, mu_k - 1),  R_k = tiles in rows k..
///
/// and q equal rows of length v starting at row k telescope (T(k, R, v) =
/// T(k, R, v-1) + T(k+1, R-v, v) when v <= lambda_k) to two lookups:
/// T(k, R, v) - T(k+q, R - q v, v). So a rank costs two lookups per run of
/// equal rows, as in the main engine's kernel (src/extensions.hpp).
///
/// ## The sieve (BoundedSolver)
/// One bit per position of the domain, every level at once (level n starts at
/// the bit after the last one of level n-1). Levels are finished in order of
/// tile count: a clear bit of level n is a losing position, and it sets the
/// bit of each of its one-move extensions inside the domain (the position
/// plus a staircase-shaped block at one of its corners, the block also inside
/// lambda). Marks only go to higher levels, so the losing positions of one
/// level are extended in parallel (oneTBB). Large domains file the marks into
/// buckets by bitmap segment and apply them a segment at a time while it sits
/// in cache (the main sieve's MarkBuckets); domains that fit in cache mark
/// directly with prefetched atomic ORs.
/// The empty board counts as won (its bit is set): taking (1,1) is never a
/// winning move.
///
/// Memory: C(a+b, a) / 8 bytes for the a x b box (18 x 18: 1.1 GB; 10 x 42:
/// 2.0 GB); the ranking tables are small (rows x tiles x columns words).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "chomp/position.hpp"

namespace chomp {

/// The largest domain (positions, the empty board included) a BoundedSolver
/// accepts: 2^36 bits = 8 GiB of bitmap. A 19 x 19 box (3.5e10 positions)
/// fits; 20 x 20 (1.4e11) does not.
inline constexpr std::uint64_t kMaxDomainPositions = std::uint64_t{1} << 36;

/// C(n, k) exactly; throws std::overflow_error when it does not fit in 64 bits
/// and std::invalid_argument for k < 0, n < 0 or k > n.
std::uint64_t binomial(int n, int k);

/// The number of staircases inside `shape`, the empty board included,
/// saturating at UINT64_MAX (so the caller can refuse a domain before
/// building anything). Throws InvalidPosition for a malformed shape.
std::uint64_t count_subpositions(std::span<const int> shape);

/// A count of count_subpositions for a message: "more than 2^64" where it
/// saturated (printing UINT64_MAX would read as a real count).
std::string positions_text(std::uint64_t count);

/// The a x b box as a shape: a rows of length b. Throws InvalidPosition
/// for fewer than one row or column, or rows + columns past kMaxPathSteps.
Rows box_shape(int rows, int cols);

/// True when every row of `rows` fits under the same row of `shape`.
bool fits_inside(std::span<const int> rows, std::span<const int> shape);

/// A bijection between the positions of level n inside a shape and
/// 0 .. positions(n) - 1 (see the file comment).
class BoundedRanking {
 public:
  /// Throws InvalidPosition for a malformed shape and std::length_error when
  /// its domain exceeds kMaxDomainPositions.
  explicit BoundedRanking(std::span<const int> shape);

  const Rows& shape() const { return shape_; }
  int max_rows() const { return rows_; }
  int max_cols() const { return cols_; }
  int max_tiles() const { return tiles_; }

  /// Positions of the domain with n tiles (0 <= n <= max_tiles()).
  std::uint64_t positions(int n) const { return at(0, n)[cols_]; }
  /// Every position of the domain, the empty board included.
  std::uint64_t total_positions() const { return offset_.back(); }
  /// Index of the first position of level n when all levels are laid end to
  /// end (n = max_tiles() + 1 gives total_positions()).
  std::uint64_t level_offset(int n) const { return offset_[static_cast<std::size_t>(n)]; }

  /// T(k, R, 0 .. max_cols()): ways to fill rows k.. (0-based) with R tiles,
  /// row k holding at most j (entries past lambda_k repeat lambda_k's).
  const std::uint64_t* at(int k, int R) const {
    return table_.data() + (static_cast<std::size_t>(k) * row_stride_ + static_cast<std::size_t>(R)) *
                               static_cast<std::size_t>(cols_ + 1);
  }

  /// Rank within its level; the rows must fit inside the shape (unchecked
  /// beyond an assertion: callers check with fits_inside).
  std::uint64_t rank(std::span<const int> rows) const;

  /// The position of level n with the given rank (rank < positions(n)).
  Rows unrank(int n, std::uint64_t rank) const;
  /// The same, written into `out` (cleared first) so hot loops reuse it.
  void unrank_into(int n, std::uint64_t rank, Rows& out) const;

 private:
  Rows shape_;
  int rows_ = 0, cols_ = 0, tiles_ = 0;
  std::size_t row_stride_ = 0;  // tiles_ + 1: entries of one k per column bound
  std::vector<std::uint64_t> table_;
  std::vector<std::uint64_t> offset_;
};

/// What one level of a bounded solve found.
struct BoundedLevel {
  int tiles = 0;
  std::uint64_t positions = 0;
  std::uint64_t losing = 0;
  std::uint64_t marks = 0;  ///< winning marks set from this level's losing positions
};

/// Called from the solving thread after each level with (level, levels in
/// all, fraction of the domain's positions finished).
using BoundedProgressFn = std::function<void(int tiles, int max_tiles, double fraction)>;

/// About the most memory a BoundedSolver of `positions` positions (its
/// domain, as count_subpositions gives it) holds: a bit a position, and,
/// above the size that marks straight into the bitmap, the filed marks of
/// a round: two bytes a position, up to config::kRoundMarks 4-byte offsets
/// and an eighth more for the round's last chunks. Measured beside the
/// program's own 17 MiB: the 12 x 16 box (3.0e7 positions) peaked at
/// 41 MiB resident, 14 x 14 (4.0e7) at 82 MiB, 15 x 15 (1.6e8) at
/// 263 MiB, 15 x 16 (3.0e8) at 311 MiB, 16 x 16 (6.0e8, 72 MiB of bits)
/// at 351 MiB, with 1 or 2 threads.
std::uint64_t bounded_solver_bytes(std::uint64_t positions);

/// Every position inside a shape, solved exactly (see the file comment).
class BoundedSolver {
 public:
  /// Solves the whole domain of `shape` (oneTBB's thread count). Throws
  /// InvalidPosition for a malformed shape, std::length_error when the domain
  /// exceeds kMaxDomainPositions, std::bad_alloc when the bitmap does not fit.
  explicit BoundedSolver(std::span<const int> shape, const BoundedProgressFn& progress = {});
  ~BoundedSolver();
  BoundedSolver(BoundedSolver&&) noexcept;
  BoundedSolver& operator=(BoundedSolver&&) noexcept;

  /// The a x b box.
  static BoundedSolver box(int rows, int cols, const BoundedProgressFn& progress = {});

  const BoundedRanking& ranking() const;
  const Rows& shape() const { return ranking().shape(); }
  bool contains(std::span<const int> rows) const { return fits_inside(rows, shape()); }

  /// Status of a position of the domain (the empty board counts as won).
  /// Throws InvalidPosition when the position is malformed or outside.
  bool is_losing(std::span<const int> rows) const;

  /// Every move that leaves a losing position, in row-then-column order.
  std::vector<Move> winning_moves(std::span<const int> rows) const;

  /// Per-level counts, index = tile count (0 .. max_tiles).
  const std::vector<BoundedLevel>& levels() const;
  std::uint64_t losing_count() const;
  std::uint64_t marks() const;
  double seconds() const;

  /// Calls fn for every losing position with n tiles, in rank order; stops
  /// early when fn returns false.
  void for_each_losing(int n, const std::function<bool(const Rows&)>& fn) const;
  std::vector<Rows> losing_positions(int n) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace chomp
