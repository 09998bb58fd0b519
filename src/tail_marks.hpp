/// @file tail_marks.hpp
/// @brief The marks of moves of the first row, or of the first two,
/// inferred from bits per tail and per second-row context instead of filed
/// (issue 21's "marks the structure of the game makes unnecessary";
/// doc/ALGORITHMS.md, *Moves of the first two rows*).
///
/// Write a position as (a, T): its first row a and its tail T, the rows
/// below, a partition of n - a with parts <= a. In the order of ranking.hpp
/// the positions of level n with first row a are ranks [P(n, a-1), P(n, a)),
/// and the tail's rank among the partitions of n - a is the rest: so the
/// positions of level n with first row a are, in order, the first
/// P(n - a, a) partitions of n - a.
///
/// A move of the first row, at column j, leads from (a, T) to (j-1, T cut to
/// j-1 columns). Either j - 1 >= T's first row b, and it leads to (j-1, T),
/// which is losing when j - 1 is T's losing first row (each tail has at most
/// one: extensions.hpp); or j - 1 < b, and it leads to a position that does
/// not depend on a at all. So whether (a, T) has a winning first-row move
/// depends on T and on the levels below only: one bit per tail, "settled",
/// set when (c, T) is found losing for some c, or when T cut to c < b columns
/// with c as its first row, (c, T cut to c), is. The second kind, a ray, is T
/// = U with its top k rows (those of length c) extended by a block of at
/// most k rows, for a losing (c, U) whose tail U starts with k rows of c: the
/// top corner of U, unbounded in width.
///
/// The second row is the same one row down with a fixed: (a, b, V) has a
/// winning second-row move when the bit of the context (a, V) is set, by a
/// losing (a, c, V) or by a ray from a losing (a, c, U), V = U extended on
/// its rows of length c with a first part at most a.
///
/// So the sieve files no marks at a corner of those rows
/// (Source::set_rows_inferred); before a level is scanned, every run of
/// positions with the same first row, and with the same first two rows, is
/// ORed with its bits, sequential copies; and once a level is final, its
/// losing positions set their bits and mark their rays.
///
/// The tails of level N's positions are every tail the run needs: P(t, N -
/// t) of each size t, p(N) bits in all (sum over t); the contexts (a, V),
/// P(v, min(a, N - a - v)) of each a and |V| = v, about 1.9 p(N) more.
/// Lower levels read prefixes of them. (The third row's contexts (a, b, W),
/// 2.7 p(N) more, were tried: their rays cost what their marks did;
/// doc/PERFORMANCE.md.)
#pragma once

#include <tbb/enumerable_thread_specific.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "chomp/ranking.hpp"
#include "extensions.hpp"
#include "huge_pages.hpp"

namespace chomp::detail {

class TailMarks {
 public:
  /// The tails of the positions of levels up to max_tiles (all bits clear).
  /// canonical_only: the sieve decides the canonical positions only (first
  /// row at least as long as the first column), and no other position
  /// needs its tail's bit.
  /// rows: the top rows whose moves are inferred, 1 or kMostRows.
  TailMarks(const PartitionTable& table, int max_tiles, bool canonical_only, int rows = kMostRows);

  /// Rows whose moves the bits can stand for: the first and the second.
  static constexpr int kMostRows = 2;

  /// Bytes the bits of a run to max_tiles take, for the moves of the first
  /// `rows` rows.
  static std::uint64_t bytes_for(const PartitionTable& table, int max_tiles, int rows);

  int rows() const { return rows_; }

  /// Takes level n (every losing rank, ascending; levels in order): sets
  /// the bits of their tails and of their rays. In parallel (tests; the
  /// sieve adds a level block by block of its store with add_ranks).
  void add_level(int n, std::span<const std::uint64_t> ranks);
  /// The same for some of level n's losing ranks (ascending), on this
  /// thread; any threads may add parts of a level at once, and then
  /// settle() before the bits are read.
  void add_ranks(int n, std::span<const std::uint64_t> ranks);
  /// ORs what add_ranks still holds into the bits (in parallel; no
  /// add_ranks at the same time).
  void settle();

  /// Bytes a thread holds for add_ranks, besides the bits.
  static std::uint64_t pending_bytes(const PartitionTable& table, int max_tiles, int rows);

  /// ORs the bits of the tails (and second-row contexts) of level n's
  /// positions with first rows a_lo..a_hi into `words`, where rank x of
  /// level n is bit offset + x (WindowLevel::offset()).
  void or_into(int n, int a_lo, int a_hi, std::uint64_t* words, std::uint64_t offset) const;

  /// Whether (a, T) with T of t tiles and rank r has a winning first-row
  /// move by what was added and settled so far (for tests).
  bool settled(int t, std::uint64_t r) const;

  /// Whether (a, b, V) with V of v tiles and rank r has a winning move of
  /// its second row by what was added and settled so far (for tests; bits
  /// of two rows).
  bool settled_second(int a, int v, std::uint64_t r) const;

  /// A ray source with at least this many rays (a bound: the partitions
  /// of each ray size into its top run's rows) has them made by several
  /// threads, a range of ray sizes each.
  static constexpr std::uint64_t kSharedRays = std::uint64_t{1} << 15;
  /// Another threshold (tests: 1 shares every source that is not made in
  /// closed form).
  void set_shared_rays(std::uint64_t rays) { shared_rays_ = rays; }

  /// Bits set by rays so far (a tail's bit set twice counts twice).
  std::uint64_t rays() const { return rays_.load(std::memory_order_relaxed); }

 private:
  /// Bits of a run to max_tiles, each size's (and each context's) from a
  /// word boundary; fills the offsets when asked.
  static std::uint64_t lay_out(const PartitionTable& table, int max_tiles, int rows, std::vector<std::uint64_t>* base,
                               std::vector<std::uint64_t>* base2);

  const PartitionTable& t_;
  int max_;
  int rows_;
  bool canonical_only_;
  std::vector<std::uint64_t> base_;   // bit offset of tail size t
  std::vector<std::uint64_t> base2_;  // bit offset of the second rows' contexts (a, V), by a (max + 1) + |V|
  std::uint64_t base2(int a, int v) const {
    return base2_[static_cast<std::size_t>(a) * (static_cast<std::size_t>(max_) + 1) + static_cast<std::size_t>(v)];
  }
  HugeBuffer memory_;
  std::uint64_t* words_ = nullptr;
  std::atomic<std::uint64_t> rays_{0};
  // Bits waiting to be ORed, kRegionHeld a region of 2^kRegionShift bits
  // (512 KiB), per thread; a region's lock while they are.
  static constexpr int kRegionShift = 22;
  static_assert(kRegionShift <= 32, "a held ray is its 32-bit offset in its region");
  static constexpr std::uint32_t kRegionHeld = 256;
  struct Pending {
    std::unique_ptr<std::uint32_t[]> held;  // bits within their region
    std::unique_ptr<std::uint32_t[]> fill;
  };
  struct RaySink;
  std::size_t regions_ = 0;
  std::unique_ptr<std::atomic_flag[]> locks_;
  tbb::enumerable_thread_specific<Pending> pending_;
  void flush_region(Pending& p, std::size_t r, bool lock);
  // Each thread's decoders of ray sources, one for each row's.
  struct RaySources {
    Source row[2];
    Source heavy;  // a source whose rays are shared among threads (add_ranks)
  };
  std::uint64_t shared_rays_ = kSharedRays;
  Pending& local_pending();
  tbb::enumerable_thread_specific<RaySources> sources_;
};

}  // namespace chomp::detail
