/// @file grundy.hpp
/// @brief Sprague–Grundy values of Chomp positions: every position of every
/// level up to N tiles (GrundyTable), and every position inside one shape
/// (BoundedGrundy, for sums of boards in `analyze` and `play`).
///
/// ## The convention
/// A Chomp board that is one component of a sum never has its poisoned tile
/// taken: a move takes a tile other than (1,1) with everything below and to
/// the right of it, and a player who cannot move on any board loses (normal
/// play). So the single poisoned tile has no move and value 0, and
///
///     G(P) = mex { G(P') : P' one move from P, the move not taking (1,1) },
///
/// mex being the least non-negative integer not in the set. G(P) = 0
/// exactly for the losing positions of ordinary Chomp (the player to move
/// must take the poison there), so the count of value 0 in level n is the
/// sieve's L(n). By the Sprague–Grundy theorem a sum of boards is lost by
/// the player to move exactly when the XOR (nim-sum) of its values is 0.
///
/// A position with n tiles has n - 1 moves, so G <= n - 1, with equality for
/// the single row of n tiles (a Nim heap of n - 1): every value of a level of
/// up to 255 tiles fits a byte.
///
/// ## The method (GrundyTable)
/// Level by level in tile count, a pull: the value of each position of level
/// n is the mex over its n - 1 moves of the values of the positions they
/// leave, each found by its rank (ranking.hpp) in the level it lands in.
/// The rank of a move's result is computed from the position's own rank
/// terms in a few table lookups (grundy.cpp), the values of all moves are
/// prefetched before any is read, and the ranks of a level are shared out to
/// oneTBB's threads. A position and its transpose have the same value (the
/// game is symmetric), so only the lexicographically smaller of the two is
/// solved and its value written for both. The values of every level below are held in memory, one
/// byte per position: sum over k <= N of p(k) bytes, which is what bounds a
/// run (N = 80: 0.11 GiB, N = 100: 1.5 GiB, N = 110: 5.1 GiB).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "chomp/position.hpp"
#include "chomp/ranking.hpp"

namespace chomp {

/// What one level of a Grundy computation found.
struct GrundyLevel {
  int tiles = 0;
  std::uint64_t positions = 0;
  /// counts[g]: positions of the level with value g, g = 0 .. largest.
  std::vector<std::uint64_t> counts;
  int largest = 0;  ///< the largest value in the level
  double seconds = 0;
  std::uint64_t zeros() const { return counts.empty() ? 0 : counts[0]; }
};

/// Called after each level, from the computing thread.
using GrundyLevelFn = std::function<void(const GrundyLevel&)>;
/// Called now and then during a level with the fraction of its positions
/// valued so far (a solved position and its transpose count two),
/// from any of oneTBB's threads, several at once: it must be thread-safe.
using GrundyProgressFn = std::function<void(int tiles, double fraction)>;

/// Thrown by GrundyTable's constructor when its stop flag is raised: the
/// level in progress is dropped, and every level finished before it has
/// been passed to on_level.
class GrundyInterrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bytes the values of levels 1..max_tiles take (sum of p(k)).
std::uint64_t grundy_table_bytes(int max_tiles);

/// The Grundy value of every position of every level 1..max_tiles.
class GrundyTable {
 public:
  /// Computes every level (oneTBB's thread count), calling on_level after
  /// each. Throws std::invalid_argument for max_tiles outside 1..kMaxTiles
  /// and std::bad_alloc when the values do not fit in memory. A stop flag
  /// (set from a signal handler, say) is looked at between levels and by
  /// every 2,048 ranks inside one, so a raised flag ends the level in
  /// progress within 2,048 ranks' work and throws GrundyInterrupted.
  /// progress, if given, hears how far each level is, every 64 x 2,048 ranks.
  explicit GrundyTable(int max_tiles, const GrundyLevelFn& on_level = {},
                       const std::atomic<bool>* stop = nullptr, const GrundyProgressFn& progress = {});
  ~GrundyTable();
  GrundyTable(GrundyTable&&) noexcept;
  GrundyTable& operator=(GrundyTable&&) noexcept;

  int max_tiles() const;
  const PartitionTable& ranking() const;
  /// The values of level n, index = rank; throws std::invalid_argument
  /// for n outside 1..max_tiles.
  std::span<const std::uint8_t> level(int n) const;
  /// The value of a position with 1..max_tiles tiles; throws
  /// InvalidPosition for a malformed, empty or too large position.
  int value(std::span<const int> rows) const;
  /// Per-level results, index n - 1 for level n.
  const std::vector<GrundyLevel>& levels() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The largest domain (positions inside one shape) BoundedGrundy accepts:
/// two bytes each, and about tiles / 2 moves each to look up.
inline constexpr std::uint64_t kMaxGrundyDomain = std::uint64_t{1} << 22;

/// The Grundy value of every position inside a shape (the positions whose
/// rows fit under the shape's rows; bounded.hpp's BoundedRanking).
class BoundedGrundy {
 public:
  /// Throws InvalidPosition for a malformed or empty shape and
  /// std::length_error when its domain exceeds kMaxGrundyDomain.
  explicit BoundedGrundy(std::span<const int> shape);
  ~BoundedGrundy();
  BoundedGrundy(BoundedGrundy&&) noexcept;
  BoundedGrundy& operator=(BoundedGrundy&&) noexcept;

  const Rows& shape() const;
  /// The value of a non-empty position inside the shape; throws
  /// InvalidPosition otherwise.
  int value(std::span<const int> rows) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One component of a sum that a move changes.
struct SumMove {
  int component = 0;  ///< 0-based index into the sum
  Move move;          ///< the tile taken, never (1,1)
  Rows leaves;        ///< the component after the move
  int value = 0;      ///< its Grundy value
};

/// A sum of boards with each component's value.
struct SumAnalysis {
  std::vector<Rows> components;
  std::vector<int> values;
  int nim_sum = 0;
  bool losing() const { return nim_sum == 0; }
  /// Every move that leaves nim-sum 0, by component, then row, then column.
  std::vector<SumMove> winning_moves;
};

/// Parses a sum such as "3,2 + 4,4,1 + 2" or "3x4 + 2x5": components
/// separated by '+', each row lengths (position.hpp's parse_rows) or
/// ROWSxCOLS for a rectangle. Throws InvalidPosition naming the component
/// for an empty component (a leading, trailing or doubled '+') or a
/// malformed one. A text without '+' is a sum of one board.
std::vector<Rows> parse_sum(std::string_view text);

/// Values, nim-sum and winning moves of a sum, each component solved with a
/// BoundedGrundy of its own shape (same exceptions).
SumAnalysis analyze_sum(const std::vector<Rows>& components);

}  // namespace chomp
