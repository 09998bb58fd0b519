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
/// which is small: L(n) is a few percent of PL(n). A batch run (SieveRun,
/// sieve_run.hpp) also stores each level's losing ranks (losing_ranks) and
/// restores its sets from them to resume (restore_level). A level's row reports
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

/// What a 3D run to max_cubes needs (doc/THREE_D.md, "What bounds it").
/// Memory: the losing sets of every level below the last (their keys, 8
/// bytes a word of key, and their directory, 4 bytes a bucket: about 18
/// bytes a losing position), and building the last level (kBuildBytes
/// and 8 a word of its keys a losing position: its keys in the threads'
/// chunks, 24 bytes, and its set made from them, then its ranks for the
/// store; measured beyond the sets below, in peak resident memory, with
/// keys of two words: 60 bytes at n = 30, 52 at n = 33, planned 64). Disk:
/// the store's gap-coded ranks (0.70 bytes a losing position, measured to
/// n = 33) and the result file.
struct Sieve3dPlan {
  static constexpr std::uint64_t kBuildBytes = 48;
  std::uint64_t build_bytes_each = 0;  ///< bytes a losing position of the last level while it is built
  std::uint64_t sets_bytes = 0;    ///< the losing sets of levels 1..max_cubes - 1
  std::uint64_t level_bytes = 0;   ///< building level max_cubes
  std::uint64_t store_bytes = 0;   ///< the store file at the end
  std::uint64_t result_bytes = 0;  ///< the result file
  std::uint64_t losing = 0;        ///< the losing positions of every level (some estimated)
  int first_estimated = 0;         ///< the first level whose L(n) is estimated (max_cubes + 1: none)
  /// Losing positions one level's set can hold (its lookup directory's
  /// entries are 32-bit: src/exact_key_set.hpp).
  static constexpr std::uint64_t kMostLosingPerLevel = 0xFFFFFFFFu;
  /// The first level whose L(n), known or estimated, is above that (0:
  /// none): a run must end below it. By the estimate, level 57 (about
  /// 4.8e9), a run of some 320 GiB.
  int first_too_large = 0;
  /// The most memory the run holds (at its last level).
  std::uint64_t total() const { return sets_bytes + level_bytes; }
};

/// The plan of a run to max_cubes whose levels 1..known.size() have the
/// losing counts `known` (a resumed run's); the levels above are
/// estimated (estimated_losing_3d).
Sieve3dPlan plan_sieve3d(int max_cubes, std::span<const std::uint64_t> known = {});

/// L(n) for a level not computed yet: r PL(n) / ln PL(n), with r = 1 up to
/// n = 40 and 0.003 more a level beyond (measured: 0.83 at 10, 0.95 at 30,
/// 0.978 at 40, rising 0.003 a level from 30 to 40), so that it errs high
/// (by 2 % at 40, 5 % at 30).
std::uint64_t estimated_losing_3d(int n);

/// Bytes of an exact set of `count` keys of level n (its keys and directory).
std::uint64_t losing_set_bytes(int n, std::uint64_t count);

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
