/// @file sieve3d.hpp
/// @brief The 3D sieve by cube count: every 3D position (plane partition)
/// of 1..max_cubes cubes classified exactly, level by level.
///
/// Level n is decided by a pull over the moves: every plane partition of n
/// is visited (in rank order, plane_ranking.hpp, split by its first row
/// across oneTBB threads), and it is losing iff none of its n - 1 moves
/// leads to a losing position. The losing positions of every finished level
/// are kept in an exact set of 192-bit keys (the height matrix in unary;
/// membership compares whole keys, so no collision can change a status),
/// which is small: L(n) is a few percent of PL(n). A level's row reports
/// PL(n) (the visits are counted and checked against MacMahon's product),
/// L(n), the moves examined (in LevelResult::marks) and its seconds. The
/// positions decided are those with height <= rows <= columns (one or more
/// of each orbit of the axis permutations; Sieve3dOptions), and each
/// losing one brings its six images into the level's set.
///
/// doc/ALGORITHMS.md ("Three dimensions") says why a pull and not the 2D
/// engine's push into rank bitmaps, and what bounds it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "chomp/plane_partition.hpp"
#include "chomp/sieve.hpp"

namespace chomp {

struct Sieve3dOptions {
  /// Decide only the positions whose extents (rows, columns, height of the
  /// corner) are in the order height <= rows <= columns, one or more in
  /// each orbit of the six axis permutations, and give every image of a
  /// losing one its status (about six times less work). The count check
  /// then weighs each decided position by its orbit's size over the number
  /// of its images decided. false: decide every position and count them.
  bool symmetry = true;
};

class Sieve3d {
 public:
  /// Levels 1..max_cubes (1 <= max_cubes <= kMaxCubes); threads are the
  /// oneTBB arena's (tbb::global_control limits them).
  explicit Sieve3d(int max_cubes, const Sieve3dOptions& options = {});
  ~Sieve3d();
  Sieve3d(const Sieve3d&) = delete;
  Sieve3d& operator=(const Sieve3d&) = delete;

  /// A flag that makes the level in progress stop soon and next_level
  /// throw SieveInterrupted (the finished levels stay).
  void set_stop_flag(const std::atomic<bool>* flag);

  /// Classifies level levels_done() + 1 and returns its row.
  LevelResult next_level(const ProgressFn& progress = {});

  int levels_done() const;
  int max_cubes() const;

  /// Whether h (with at most levels_done() cubes) is a losing position;
  /// throws InvalidPosition otherwise.
  bool losing(const Heights& h) const;

  /// The losing positions of a finished level n, in rank order.
  std::vector<Heights> losing_positions(int n) const;

  /// The ranks of the losing positions of finished level n, increasing, in
  /// MacMahonRanking's bijection with 0..PL(n)-1 (macmahon_ranking.hpp):
  /// what the run's store keeps of the level (computed in parallel).
  std::vector<std::uint64_t> losing_ranks(int n) const;

  /// Adds level levels_done() + 1 from the ranks of its losing positions
  /// (increasing, below PL(n), as losing_ranks gives them), instead of
  /// classifying it: a resumed run's levels come back from its store.
  /// Throws std::invalid_argument otherwise.
  void restore_level(std::span<const std::uint64_t> ranks);

  /// Bytes held by the sets of losing positions.
  std::uint64_t bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace chomp
