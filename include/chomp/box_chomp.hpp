/// @file box_chomp.hpp
/// @brief Chomp on the down-sets of a box of any dimension k >= 1: the
/// divisor game of a number with k prime factors (divisors.hpp); k = 2 is
/// 2D Chomp on a rectangle, k = 3 3D Chomp in a box.
///
/// ## The game
/// The box has extents n_1 x ... x n_k and cells (c_1, ..., c_k), 1 <= c_a
/// <= n_a. A position is a *down-set*: with each cell it holds every cell
/// whose coordinates are all <= the cell's. A move takes a cell c of the
/// position together with every cell of it whose coordinates are all >=
/// c's; whoever must take (1, ..., 1), the poisoned cell, loses. So the
/// position {(1, ..., 1)} is losing, and taking the poisoned cell is never
/// a winning move (the empty position counts as won, as in bounded.hpp).
///
/// ## The solver (BoxSolver)
/// Exact, level by level in the number of cells, a pull: a position is
/// losing iff none of its moves leads to a losing position. The solved
/// positions are those inside a given one (the whole box for a board). A
/// level is enumerated from the one below by *reverse search*: the parent
/// of a position is the position less the top cell of its last removable
/// column, so adding a cell on column i to a position whose last removable
/// column is r yields each position of the next level exactly once when
/// i >= r. Positions are exact keys (heights in a few bits a column, at
/// most kMaxKeyWords words); the losing positions of every level are kept
/// in exact sets (the hash picks a bucket, the whole key decides). Two
/// shortcuts decide most winning positions without a look-up: a position
/// one cell above a losing parent is won by taking that cell, and one
/// whose added cell lies beyond the winning move of its (winning) parent
/// is won by the same move, which leaves the same losing position.
///
/// ## Limits
/// BoxSolver refuses to solve more than `max_positions` positions
/// (kMaxBoxPositions unless told), counting as it goes; count_down_sets
/// counts a whole box first, without solving it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace chomp {

/// The most positions (down-sets, the empty one included) a BoxSolver
/// solves unless told otherwise: 2^26. Near it a solve takes about two
/// minutes on two busy cores and 100 MiB (doc/THREE_D.md, "The divisor game").
inline constexpr std::uint64_t kMaxBoxPositions = std::uint64_t{1} << 26;

/// The most cells a Box may have (the divisors of a 64-bit number are far
/// fewer: at most 103,680).
inline constexpr std::size_t kMaxBoxCells = std::size_t{1} << 20;

/// Words of a key at most: 512 bits of packed heights, more than any box of
/// kMaxBoxPositions down-sets needs (every one of a 64-bit N's fits in one).
inline constexpr int kMaxKeyWords = 8;

/// The longest axis a BoxSolver takes (its heights are bytes; a 64-bit N
/// has at most 64 powers of a prime).
inline constexpr int kMaxExtent = 255;

/// A box n_1 x ... x n_k; cells are numbered row-major, axis 0 slowest.
class Box {
 public:
  /// Throws std::invalid_argument for no axis, an extent below 1, or more
  /// than kMaxBoxCells cells.
  explicit Box(std::vector<int> extents);

  int dimensions() const { return static_cast<int>(extents_.size()); }
  int extent(int axis) const { return extents_[static_cast<std::size_t>(axis)]; }
  const std::vector<int>& extents() const { return extents_; }
  std::size_t cells() const { return cells_; }

  /// The index of a cell given by its 1-based coordinates (unchecked
  /// beyond an assertion).
  std::size_t index(std::span<const int> cell) const;
  /// The 1-based coordinates of cell `index`.
  std::vector<int> coordinates(std::size_t index) const;
  /// Whether every coordinate of cell a is <= that of cell b.
  bool below(std::size_t a, std::size_t b) const;

 private:
  std::vector<int> extents_;
  std::vector<std::size_t> strides_;
  std::size_t cells_ = 1;
};

/// A position: one flag a cell (1 = the cell remains), indexed like
/// Box::index.
using CellSet = std::vector<std::uint8_t>;

/// Every cell of the box.
CellSet whole_box(const Box& box);

/// The cells that remain.
std::size_t cells_in(const CellSet& position);

/// "" when `position` is a down-set of the box (the empty set is one),
/// else what is wrong: the wrong size, or the first cell (in index order)
/// that remains while a cell below it is gone, as "(2,1) remains but
/// (1,1) is gone".
std::string down_set_problem(const Box& box, const CellSet& position);

/// The position after taking `cell` (which must remain) with every
/// remaining cell whose coordinates are all >= its own. Throws
/// std::invalid_argument when the cell does not remain.
CellSet take(const Box& box, const CellSet& position, std::size_t cell);

/// The number of down-sets of a box, the empty one included, or a lower
/// bound (exact = false) when it is too large to count: more than 2^64 - 1,
/// or its (k-1)-dimensional faces have so many down-sets that the count
/// is at least the bound given (every face down-set s lies under |s| + 1
/// others, and their mean size is half the face). k = 2 gives C(a+b, a),
/// k = 3 MacMahon's box formula; any k is counted by a transfer over the
/// slices along the longest axis.
struct PositionCount {
  std::uint64_t value = 0;
  bool exact = true;  ///< false: the count is at least `value`
};
PositionCount count_down_sets(const Box& box);

/// What one level of a solve found.
struct BoxLevel {
  int cells = 0;
  std::uint64_t positions = 0;
  std::uint64_t losing = 0;
};

/// Called from the solving thread after each level with (level, levels in
/// all, positions solved so far).
using BoxProgressFn = std::function<void(int cells, int max_cells, std::uint64_t positions)>;

/// Every position inside a given one, solved exactly (see the file comment).
class BoxSolver {
 public:
  /// Solves every down-set inside `position` (oneTBB's thread count).
  /// Throws std::invalid_argument when `position` is not a down-set of the
  /// box, std::length_error when more than max_positions positions would
  /// be solved, a key would need more than kMaxKeyWords words or an axis
  /// is longer than kMaxExtent.
  BoxSolver(const Box& box, const CellSet& position, const BoxProgressFn& progress = {},
            std::uint64_t max_positions = kMaxBoxPositions);
  ~BoxSolver();
  BoxSolver(BoxSolver&&) noexcept;
  BoxSolver& operator=(BoxSolver&&) noexcept;

  const Box& box() const;
  /// Whether a down-set inside the solved position is losing (the empty
  /// set counts as won). Throws std::invalid_argument for a set that is
  /// not a down-set or not inside.
  bool is_losing(const CellSet& position) const;
  /// Every cell whose taking leaves a losing position, in index order.
  std::vector<std::size_t> winning_moves(const CellSet& position) const;

  /// Per-level counts, index = cells (0 .. cells of the solved position).
  const std::vector<BoxLevel>& levels() const;
  /// Positions solved, the empty one included.
  std::uint64_t positions() const;
  double seconds() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace chomp
