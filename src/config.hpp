/// @file config.hpp
/// @brief The engine's main tuning constants, with the reason for each value.
///
/// Measured on the development machine: 2 cores of an AMD EPYC (Zen 4,
/// 32 KiB L1d and 1 MiB L2 per core), 24 GiB of memory.
///
/// Others sit beside the code they tune: kItemMarks, kReadAheadBlocks and
/// kSkipSpanBits in marking.cpp; MarkBuckets' kBlockEntries, kPageBlocks,
/// kPrefetchAhead, kNextBlockLines and kDenseEntries in buckets.hpp;
/// AtomicSink::kBatch in mark_sinks.hpp; kPlannedRatio in memory_plan.cpp;
/// kRegionShift, kRegionHeld and kSharedRays in tail_marks.hpp, kAhead in
/// tail_marks.cpp; kParallelBlocks in losing_store.cpp; BlockCache::kBlocks
/// in store_reads.cpp; Chunks::kChunkKeys and the lookups' kBatch in
/// sieve3d.cpp; kSwmrReadAttempts in h5_util.cpp; kVisitMarks, kSliceCost,
/// kRatioAt100, kRatioGrowth and kModelDensity in
/// include/chomp/work_model.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

namespace chomp::config {

/// Bits of the window's bitmap in one segment: 2^21 bits = 256 KiB, a
/// quarter of the L2 cache, so a segment stays in L2 while its bucket of marks
/// streams through L1. Marks are filed by segment and a segment's offsets fit
/// in 32 bits. Segments of 512 KiB (2^22) were slower: N = 110 with 2
/// threads took 70.4 s against 63.4 s (AMD, 1 MiB of L2). On the Intel
/// machine of 2026-12-03 (2 MiB of L2), 2^22 and 2^23 made no difference
/// at 110 or 120 (doc/PERFORMANCE.md).
inline constexpr int kSegmentBitsLog2 = 21;
inline constexpr std::uint64_t kSegmentBits = std::uint64_t{1} << kSegmentBitsLog2;

/// Losing ranks per block of the store (losing_store.hpp): a block is
/// read, checked and decoded whole. 4,096 ranks are about 3.7 KiB coded,
/// large enough that the index (40 bytes a block: 0.01 byte a rank) and a
/// read's fixed costs stay small, small enough that a block decodes in
/// microseconds and the store is cut into many pieces of work.
inline constexpr std::size_t kStoreBlockRanks = 4096;

/// The fewest sources handed to a thread at a time (a part of a block):
/// an item starts at this many and doubles, up to a whole block, until it
/// is worth 2^17 marks (marking.cpp). Small enough that 2 threads stay
/// balanced at the lowest source levels, whose few sources each make
/// millions of marks; large enough to amortise taking the work.
inline constexpr std::size_t kItemSources = 64;

/// A call of the kernel for one level more than kJointExtraTiles above its
/// source whose extensions may be more than this many (a bound from the
/// source's runs, Source::extension_bound) ORs them straight into the
/// window's bitmap with atomic ORs instead of filing them; in an MPI run
/// every process makes its own segments' part of such a call
/// (make_split_calls in marking.cpp). Their number has no bound a round can
/// hold: a source of a low level with many equal top rows makes every
/// partition of d into that many parts at its top corner, and
/// (2,2,...,2,1) of level 35 makes 3.1e8 marks in level 152 (1.2 GB of
/// entries), and (2,...,2,1) of level 39 makes 1.5e9 in level 170 (6 GB). A
/// thread that took such a call filed all of it before it could see its
/// round was full: the long run held 18.3 GiB under --memory-limit 18G at
/// window 150..152 (2026-12-02). The marks of one call come out in roughly
/// descending rank order, so ORing them in place is a sweep through the
/// level, not random writes. 2^22 marks = 16 MiB of entries a thread. The
/// threshold used is min(this, round_marks / 4) (memory_plan.cpp): a
/// quarter of a round under a budget whose rounds are smaller.
inline constexpr std::uint64_t kDirectCallMarks = std::uint64_t{1} << 22;

/// Marks pending in the buckets (all threads together) before they are
/// applied to the bitmap: 2^26 marks = 256 MiB of 32-bit offsets. Larger
/// rounds amortise the synchronisation; smaller ones keep memory down.
/// Rounds of 2^27 and 2^28 marks were no faster at N = 110 (2026-12-03).
/// Used as is only without a memory budget (SieveOptions::memory_budget
/// == 0, which only a library caller asks for: chomp sieve always has a
/// budget); under a budget B a round is clamp(B / 128, 2^16, this) marks
/// (memory_plan.cpp).
inline constexpr std::uint64_t kRoundMarks = std::uint64_t{1} << 26;

/// Bitmaps of a window of consecutive levels held at once (at least one
/// level, whatever its size). Every stored losing position is decoded once
/// per window instead of once per level; 4 GiB holds about five levels at
/// n = 130 (130..134: 3.9 GiB) and two at n = 140. Used only without a
/// memory budget (a library caller's choice: chomp sieve always has a
/// budget); under a budget the window is what the budget leaves after the
/// buckets, the buffers, the store's index and the rows' bits
/// (memory_plan.cpp).
inline constexpr std::uint64_t kWindowBytes = std::uint64_t{4} << 30;

/// Losing ranks collected from a level's bitmap at a time on their way to
/// the store (8 bytes each: 32 MiB). At least a segment's worth, since a
/// segment is collected whole; a level is never held at 8 bytes a rank.
/// Used as is only without a memory budget (a library caller's choice:
/// chomp sieve always has a budget); under a budget B the batch is
/// clamp(B / 704, 4096, this) ranks (memory_plan.cpp).
inline constexpr std::uint64_t kScanBatchRanks = std::uint64_t{1} << 22;

/// Marks per extra-tile count that a decoder keeps of its latest source, so
/// that the next source, which shares its upper corners, shifts them instead
/// of enumerating them again (extensions.hpp). Most (source, level) pairs
/// make a few dozen marks at most; a corner that does not fit, and every
/// corner after it, is enumerated each time.
inline constexpr int kReuseMarks = 128;

/// The marks of moves of the first two rows are inferred from one bit per
/// tail and per second-row context (tail_marks.hpp: about p(N) bits for
/// the first row, 1.9 p(N) more for the second; both rows take 0.67 GB at
/// N = 120, 1.9 GB at 130, 100 GB at 170, the first alone 0.67 GB at 130)
/// for as many of those rows as fit in this much of a run without a budget
/// (a library caller's choice: chomp sieve always has a budget), or in
/// 1/kTailMarksBudgetShare of its budget; the others' moves are filed like
/// every other mark (doc/PERFORMANCE.md, the runs' times).
inline constexpr std::uint64_t kTailMarksMaxBytes = std::uint64_t{2} << 30;
inline constexpr std::uint64_t kTailMarksBudgetShare = 8;

/// Target levels up to this many tiles above a source are extended in one
/// walk over its corners (extensions.hpp), at most this many levels at a
/// time; levels further up are taken one at a time, so that a thread can
/// stop filing between them when its round is full (a source far below its
/// target makes many marks, and this bounds what one walk adds to a round).
/// Every source of levels 1..89 into every level up to 90, enumeration
/// alone, one thread: 4.7 s one level at a time against 3.9-4.0 s in one
/// walk (old and new alternating); spans of 16, 32, 48 or all levels took
/// 4.0-4.1 s alike, and 64 at N = 100 was within 1% of 32.
inline constexpr int kJointExtraTiles = 32;

/// Blocks of at most this many tiles at a corner of three or more rows are
/// not enumerated part by part but read from a table of their shapes
/// (extensions.hpp, BlockShapes): the recursion's short loops end at
/// unpredictable places, about one mispredicted branch per mark, while a
/// shape costs a fixed, branch-free walk over its runs. Every source of
/// levels 1..89 extended to every level up to 90, one thread: enumeration
/// alone took 5.5-5.9 s by recursion and 4.4-4.7 s with this table;
/// enumerating, filing and applying, 7.7-8.3 s and 6.7-7.0 s. Tables of up to
/// 8, 10, 12, 14 and 16 tiles (each shape walked over four runs, five for 16)
/// took 4.6-4.8, 4.7-4.8, 4.6, 4.4 and 4.7-4.8 s to enumerate. The table of 14
/// holds 3,809 shapes of 8 bytes (30 KiB).
inline constexpr int kShapeTiles = 14;

/// Decoding a source (Source::seek) finds each run's row length among at
/// most this many candidates by counting, in one loop the compiler
/// vectorises, instead of by bisection. The runs a seek decodes again are
/// the bottom ones, with short rows: at n = 95, 99% of the searches had at
/// most 16 candidates. With the multiplicity found by a branch-free
/// bisection too, a seek over level 94's losing positions took 57-60 ns
/// against 69-71 ns (one thread, old and new alternating in one process).
inline constexpr int kCountedParts = 16;

/// Decoding a source ends with a table read once the tiles left in its
/// runs are at most this many: the runs of every partition of R <= this,
/// by rank, packed in a word each (Source::descend). A seek re-decodes the
/// bottom runs of a position, those whose ranks the gap to the next losing
/// position (about a hundred ranks at n = 100-170) spans, so most seeks
/// end there after a bisection or two. 27 tiles (at most 6 runs, so that
/// a word holds them): 14,741 words (115 KiB), in L2 beside the kernel's
/// data. A seek through level 70's losing positions took 38-55 ns against
/// 60-72 ns (sparse ranks of levels 110-170: 13-22% less), and windows of
/// one level from 100 (N = 110, 2 threads) 60-67
/// s against 69-74 s; windows of many levels, where decoding is a tenth of
/// the time, the same within the machine's noise (46-50 s against 43-56
/// s). 24 tiles gained less (41-55 ns a seek).
inline constexpr int kDecodedTailTiles = 27;

/// Walks of set_not_canonical (extensions.cpp) over fewer tiles than this,
/// whose partitions fit one 64-bit word, are read from a table of their bit
/// patterns (kPatternTiles^3 words: 62.5 KiB) instead of being walked. The
/// positions that are not canonical come in short runs (at n = 70, 48% of
/// the positions in 126 thousand runs: 15.6 positions a run on average, one
/// run per 32 positions), so the walk spent its time in tiny subtrees:
/// setting level 100's bits took 0.27 s walked and 0.06 s with the table.
inline constexpr int kPatternTiles = 20;

/// Walks of set_not_canonical over fewer tiles than this whose P(R, v)
/// partitions are more than 64 but at most kLongPatternBits are read from a
/// second table, of patterns several words long (248 KiB): the walk's
/// small subtrees were still most of its time, about 0.33 ns a position
/// (0.20 s for level 110, one thread, the first table alone, against the
/// 8 ms a memset of its bits takes), and those patterns are ORed in a word
/// at a time.
inline constexpr int kLongPatternTiles = 60;
inline constexpr std::uint64_t kLongPatternBits = 1024;

/// Transposes whose bits a thread prefetches before it clears them
/// (add_transposes in transposes.cpp): they land all over the level, a cache
/// miss each. Not tuned; with it (and with pruned sources stopping after
/// their top corner) runs to 110 went from 34.6 and 36.2 s to 31.3 and
/// 31.9 s, alternating.
inline constexpr int kTransposePrefetch = 32;

/// Windows whose bitmaps are at most this many bits skip the buckets and
/// mark directly: they fit in L2, so filing marks would only add work.
inline constexpr std::uint64_t kDirectMarkBits = std::uint64_t{1} << 21;

/// Work items per thread below which a level's chunks are split further by
/// target level, so that threads stay balanced when few sources reach far.
inline constexpr std::size_t kItemsPerThread = 32;

/// A window's checkpoint (checkpoint.cpp) is written and checked in chunks
/// of this many bytes of bitmap, each with its CRC-32: big enough that a
/// write is efficient, small enough that the two threads share the CRCs of
/// a 14 GiB window evenly.
inline constexpr std::uint64_t kCheckpointChunk = std::uint64_t{64} << 20;

/// The program saves a long pass's checkpoint this often (chomp sieve
/// --checkpoint-every): writing the 14 GiB window of levels 149..151 takes
/// about a minute on a disk of 290 MB/s, 2% of an hour.
inline constexpr double kCheckpointSeconds = 3600;

/// A pass's periodic saves are at least this many times as far apart as the
/// last save took (its bitmap written and checked), whatever
/// --checkpoint-every asks: saving then takes at most about a tenth of the
/// pass, even with an interval of a second or a slow disk.
inline constexpr double kCheckpointSpacing = 10;

// ---- The bounded solver (chomp analyze, rectangles, play's hints) ----

/// Marks the bounded solver's direct marking keeps in flight (each is
/// prefetched this many marks before it is applied): about the cache misses
/// a core keeps outstanding. A power of two.
inline constexpr std::uint64_t kBoundedPrefetchDepth = 32;

/// Marks one corner hands over at most: a corner with more extensions (the
/// equal-armed L of 18 x 18 has C(34, 17) = 2.3e9, every position whose
/// first row and column are 18 long) is cut into pieces of about this many
/// marks, which any thread may take. That keeps two threads busy on a level
/// whose work is in a few sources, and bounds what one item adds to a round
/// of buckets (2^20 marks = 4 MiB).
inline constexpr double kBoundedPieceMarks = 1 << 20;

/// Words of a level handed to a thread at a time when scanning: 2^10 words
/// = 65536 positions, a few hundred losing ones in the large levels: enough
/// to amortise taking the work, small enough that two threads stay balanced.
inline constexpr std::uint64_t kBoundedScanChunkWords = 1024;

/// A marking pass calls its ProgressFn (include/chomp/sieve.hpp) at most this
/// often. (The program's status line on stderr has its own intervals:
/// src/app/status_line.hpp.)
inline constexpr double kProgressIntervalSeconds = 0.5;

/// Free bytes a result file's disk must have for a stopped or failed run
/// to record its status (sieve_run.cpp): HDF5 keeps the new strings in a
/// heap collection of 4 KiB or more that is written past the file's end.
/// With less, the file is left as a kill would leave it (status "running",
/// every finished level readable); recording the status on a disk with no
/// room left the end_utc attribute pointing past the end of the file, and
/// the whole file unreadable (tests/test_cli_errors.cpp).
inline constexpr std::uint64_t kFinishRoomBytes = std::uint64_t{64} << 10;

/// The same below a file size limit (ulimit -f, which the free space does
/// not show): a result file closer to it than this is left as a kill would
/// leave it. Runs to 80 stopped by limits of 16 to 48 KiB (a store filled
/// up at the limit, then the status written): with 1 KiB of margin the
/// status's write broke the file at 31-33 KiB, with 4 KiB at none.
inline constexpr std::uint64_t kFinishRoomUnderLimit = std::uint64_t{8} << 10;

/// Reads of a result file that may be changing under them (h5_output.cpp,
/// the level table): a failed one is made again from the start, this many
/// times in all, the pause before each doubling from
/// kLiveReadFirstPauseSeconds (0.01 + 0.02 + ... + 0.64 = 1.27 s at most).
/// A run that ends writes its end_utc and status attributes while the file
/// is open for SWMR writing, and HDF5 does not order those writes for
/// readers: a reader in the middle may see the new attribute before the
/// file's end that holds its string (CI saw 19 such reads in a row as a
/// loaded machine closed a run's file). As the file is closed, its
/// superblock is written before the file reaches the end it records, and
/// for a moment the file reads as truncated. On the 2-vCPU VM, `chomp show`
/// over and over while short runs kept ending (the long run at nice 19
/// beside them): 4 of 4,483 reads failed with one attempt, 0 of 8,764 with
/// six. The ceiling is set higher for loaded machines; it is also what a
/// killed run's damaged file costs before it is refused.
/// (Mirrored in python/chomp_results: _LIVE_READ_*.)
inline constexpr int kLiveReadAttempts = 8;
inline constexpr double kLiveReadFirstPauseSeconds = 0.01;

/// The first level whose `marks` readers require to be at least 1: a
/// finished row of a level from here on with marks 0 is damage (a chunk
/// index pointing into zeros), which readers refuse. Every way a run counts
/// marks gives every level from 6 on some (2D with moves of the first row
/// or two inferred: levels 1..5 can have 0; 3D: from level 2 on); 10
/// leaves a margin.
/// (Mirrored in python/chomp_results: _MARKED_FROM.)
inline constexpr int kMarkedFromLevel = 10;

}  // namespace chomp::config
