/// @file buckets.hpp
/// @brief Marks filed by the bitmap segment they land in (primesieve's
/// bucket sieve, adapted to marks that are ranks, not multiples).
///
/// Marks land all over the window's bitmap (its levels, or a slice of one),
/// far larger than any cache. Each thread files every mark as a 32-bit
/// offset into the bucket of its segment; buckets are chains of fixed-size
/// blocks drawn from the thread's own pool, which is kept across rounds and
/// levels so that filing never reallocates or touches fresh pages. A segment
/// later applies all threads' buckets while it sits in L2 (apply_segment).
///
/// Entries do not go to their block one by one: each is staged in a
/// 64-byte line (16 entries) of its bucket, and a full line goes to the
/// block at once with streaming stores, which do not first fetch the line
/// they write (a store straight to the tail reads its line from memory
/// every 16 entries). Whole runs, alternating with ebd649d: N = 110 64.5
/// and 63.3 s against 67.4 and 68.3 s; N = 120 197.8 s against 206.4 s
/// (doc/PERFORMANCE.md). flush() must run after the round's filing and
/// before its apply.
///
/// Entry format: a point mark is its offset (< 2^30); a range of marks is
/// its first offset with the top bit set, followed by its length; an entry
/// with bit 30 set is filler and ignored.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "config.hpp"
#include "huge_pages.hpp"

namespace chomp::detail {

/// Sets bits [first, first + count) of a bitmap.
inline void set_bit_range(std::uint64_t* words, std::uint64_t first, std::uint64_t count) {
  if (count == 0) return;
  const std::uint64_t last = first + count - 1;
  const std::uint64_t wf = first >> 6, wl = last >> 6;
  const std::uint64_t head = ~std::uint64_t{0} << (first & 63);
  const std::uint64_t tail = ~std::uint64_t{0} >> (63 - (last & 63));
  if (wf == wl) {
    words[wf] |= head & tail;
    return;
  }
  words[wf] |= head;
  for (std::uint64_t w = wf + 1; w < wl; ++w) words[w] = ~std::uint64_t{0};
  words[wl] |= tail;
}

/// Reads one word of every cache line of a segment, in order, so that the
/// whole segment is in cache before its marks are applied.
inline void load_segment(const std::uint64_t* seg_words) {
  std::uint64_t sum = 0;
  for (std::uint64_t w = 0; w < (config::kSegmentBits >> 6); w += 8) sum += seg_words[w];
  asm volatile("" : : "r"(sum));  // the reads must happen
}

class MarkBuckets {
 public:
  static constexpr std::uint32_t kRangeFlag = 0x80000000U;
  static constexpr std::uint32_t kFillerFlag = 0x40000000U;
  static constexpr std::uint32_t kFlags = kRangeFlag | kFillerFlag;
  static_assert(config::kSegmentBitsLog2 < 30, "offsets must leave the flag bits free");

  /// A pool that grows page_blocks blocks of 4 KiB at a time (0: 2048,
  /// 8 MiB; smaller under a small memory budget).
  explicit MarkBuckets(std::uint32_t page_blocks = 0) : page_blocks_(page_blocks ? page_blocks : kPageBlocks) {}
  /// Bytes of 4 KiB blocks a pool grows by at a time.
  static constexpr std::uint64_t kBlockBytes = 4096;
  /// The pool grows 8 MiB at a time, in huge pages: thousands of blocks are
  /// open at once while marks are filed, too many pages for the TLB.
  static constexpr std::uint32_t kPageBlocks = 2048;

  /// Empties every bucket and sizes the table for a window of `segments`
  /// segments (the block pool is kept).
  void prepare(std::size_t segments) {
    chains_.resize(segments);
    tails_.assign(segments, Tail{});
    for (auto& c : chains_) c.clear();
    blocks_used_ = 0;
    lines_.assign(segments, Line{});
    fill_.assign(segments, 0);
  }

  /// Bytes a thread's buckets hold for `segments` segments besides the
  /// blocks of entries: each segment's chain, tail and line.
  static std::uint64_t table_bytes(std::uint64_t segments) {
    return segments * (sizeof(Tail) + sizeof(std::vector<std::uint32_t>) + sizeof(Line) + 1);
  }

  /// Entries filed since the last apply, rounded up to whole blocks (a
  /// cheap measure of the memory held).
  std::uint64_t entries() const { return static_cast<std::uint64_t>(blocks_used_) * kBlockEntries; }

  // Always inlined: called from every leaf of the kernel, where an out-of-line
  // call (which the compiler chose once the shape table added callers) cost
  // about 2% of the kernel's time.
  [[gnu::always_inline]] void point(std::uint64_t rank) {
    stage(rank >> config::kSegmentBitsLog2, static_cast<std::uint32_t>(rank & (config::kSegmentBits - 1)));
  }

  void range(std::uint64_t first, std::uint64_t count) {
    while (count) {
      const std::uint64_t off = first & (config::kSegmentBits - 1);
      const std::uint64_t len = count < config::kSegmentBits - off ? count : config::kSegmentBits - off;
      const std::size_t s = first >> config::kSegmentBitsLog2;
      // A range takes two entries of one line (so of one block); a lone
      // last slot of a line gets a filler.
      if (fill_[s] == kLineEntries - 1) stage(s, kFillerFlag);
      stage(s, static_cast<std::uint32_t>(off) | kRangeFlag);
      stage(s, static_cast<std::uint32_t>(len));
      first += len;
      count -= len;
    }
  }

  /// Writes every staged entry to its segment's chain. Call once the
  /// round's filing is done (by any thread: none may be filing into these
  /// buckets then).
  void flush() {
    for (std::size_t s = 0; s < lines_.size(); ++s)
      if (fill_[s]) {
        write_entries(lines_[s].e, fill_[s], tails_[s], chains_[s]);
        fill_[s] = 0;
      }
  }

  /// Called by a filing thread when it is done filing for the round: its
  /// streaming stores are weakly ordered, and this orders them before
  /// whatever the thread does next (the join that the applying threads
  /// wait on). (The join's locked instructions would order them too.)
  static void filing_done() {
#if defined(__SSE2__)
    _mm_sfence();
#endif
  }

  /// Entries filed into segment s since the last apply, rounded up to
  /// whole blocks.
  std::uint64_t segment_entries(std::size_t s) const {
    return static_cast<std::uint64_t>(chains_[s].size()) * kBlockEntries;
  }

  /// ORs segment s's marks into its words, empties the bucket and returns
  /// the number of marks applied (ranges count every position). With
  /// `in_cache`, the caller has just read the whole segment in order
  /// (load_segment), and no word is prefetched.
  std::uint64_t apply_segment(std::size_t s, std::uint64_t* seg_words, bool in_cache = false) {
    const std::uint64_t marks = in_cache ? apply<false>(s, seg_words) : apply<true>(s, seg_words);
    chains_[s].clear();
    tails_[s] = Tail{};
    return marks;
  }

  /// Segments with at least this many entries in all buckets together are
  /// read whole, in order, before their marks are applied (load_segment):
  /// two entries per cache line of the segment, so that nearly every line
  /// would be fetched anyway, and a sequential read brings them faster than
  /// the marks' random prefetches. Every source of levels 1..94 into every
  /// level up to 95, one thread, rounds of 2^26 entries, old and new
  /// alternating: applying took 1.92-2.29 s with prefetches only and
  /// 1.84-1.96 s so, less in 6 pairs of 7 (one outlier, 2.53 s); with the
  /// read added and the prefetches kept, 1.94 s.
  static constexpr std::uint64_t kDenseEntries = 2 * (config::kSegmentBits / 512);

  /// After every segment was applied: the pool's blocks are free again.
  void recycle() { blocks_used_ = 0; }

 private:
  template <bool kPrefetch>
  std::uint64_t apply(std::size_t s, std::uint64_t* seg_words) const {
    const auto& chain = chains_[s];
    std::uint64_t marks = 0;
    for (std::size_t b = 0; b < chain.size(); ++b) {
      const std::uint32_t* e = block_ptr(chain[b]);
      const std::uint32_t* stop = (b + 1 == chain.size()) ? tails_[s].cur : e + kBlockEntries;
      // The next block is elsewhere in the pool, where the hardware's
      // prefetcher, which follows one page, would start over.
      if (b + 1 < chain.size()) {
        const char* next = reinterpret_cast<const char*>(block_ptr(chain[b + 1]));
        for (int line = 0; line < kNextBlockLines; ++line) __builtin_prefetch(next + 64 * line);
      }
      // The segment's words are ORed in random order, and most of them are
      // not in cache when a round starts: ask for the word of the entry
      // kPrefetchAhead places on, so that many misses are in flight at once.
      // (A range's length, read as an offset, names a word of the segment
      // or, for a whole segment's range, the word just past it: a prefetch
      // never faults.)
      if (kPrefetch)
        for (const std::uint32_t* p = e; p < e + kPrefetchAhead && p < stop; ++p)
          __builtin_prefetch(seg_words + ((*p & ~kFlags) >> 6), 1);
      while (e < stop) {
        if (kPrefetch && e + kPrefetchAhead < stop)
          __builtin_prefetch(seg_words + ((e[kPrefetchAhead] & ~kFlags) >> 6), 1);
        const std::uint32_t v = *e++;
        if (v & kFlags) {
          if (v & kRangeFlag) {
            const std::uint32_t len = *e++;
            set_bit_range(seg_words, v & ~kFlags, len);
            marks += len;
          }
        } else {
          seg_words[v >> 6] |= std::uint64_t{1} << (v & 63);
          ++marks;
        }
      }
    }
    return marks;
  }

  /// 1024 entries = 4 KiB: big enough that chains are short, small enough
  /// that a partly used block per segment costs little.
  static constexpr std::uint32_t kBlockEntries = 1024;
  /// Entries between a word's prefetch and its OR. Applying 2^26 random
  /// marks to 1,600 segments (400 MiB) took 0.17-0.19 s without prefetching,
  /// and with it 0.19 s (8 ahead), 0.15 s (32) and 0.13 s (64, 128, 256).
  static constexpr int kPrefetchAhead = 64;
  /// Lines of a chain's next block read ahead when a block is started.
  /// N = 110, 2 threads, applying, alternating: 1.87-1.94 s with 4 or 8,
  /// 2.00 s with 16, 2.23-2.28 s with all 64, 2.14-2.33 s with none.
  static constexpr int kNextBlockLines = 8;

  std::uint32_t* block_ptr(std::uint32_t b) const {
    return pages_[b / page_blocks_].as<std::uint32_t>() + static_cast<std::size_t>(b % page_blocks_) * kBlockEntries;
  }

  /// Where a chain's next entry goes; both ends in one cache line.
  struct Tail {
    std::uint32_t* cur = nullptr;
    std::uint32_t* end = nullptr;
  };
  /// Entries staged for one bucket (a segment, or a group of them).
  struct alignas(64) Line {
    std::uint32_t e[16];
  };
  static constexpr std::uint32_t kLineEntries = 16;
  static_assert(kBlockEntries % kLineEntries == 0, "a block holds whole lines");

  void next_block(Tail& tail, std::vector<std::uint32_t>& chain) {
    if (blocks_used_ == pages_.size() * page_blocks_)
      pages_.emplace_back(static_cast<std::size_t>(page_blocks_) * kBlockEntries * sizeof(std::uint32_t));
    const std::uint32_t b = blocks_used_++;
    chain.push_back(b);
    tail.cur = block_ptr(b);
    tail.end = tail.cur + kBlockEntries;
  }

  [[gnu::always_inline]] void stage(std::size_t s, std::uint32_t v) {
    std::uint8_t f = fill_[s];
    lines_[s].e[f] = v;
    if (++f == kLineEntries) {
      write_line(lines_[s], tails_[s], chains_[s]);
      f = 0;
    }
    fill_[s] = f;
  }

  /// 16 entries to the chain's tail. The tail is on a line boundary
  /// (chains get whole lines until flush), and the line goes there with
  /// streaming stores that do not first fetch the line they write; a tail
  /// off the boundary (filing after a flush) takes the entries one by one.
  void write_line(const Line& l, Tail& tail, std::vector<std::uint32_t>& chain) {
    if (tail.cur == tail.end) next_block(tail, chain);
    if ((reinterpret_cast<std::uintptr_t>(tail.cur) & (sizeof(Line) - 1)) != 0) {
      write_entries(l.e, kLineEntries, tail, chain);
      return;
    }
#if defined(__SSE2__)
    auto* d = reinterpret_cast<__m128i*>(tail.cur);
    const auto* s = reinterpret_cast<const __m128i*>(l.e);
    _mm_stream_si128(d, _mm_load_si128(s));
    _mm_stream_si128(d + 1, _mm_load_si128(s + 1));
    _mm_stream_si128(d + 2, _mm_load_si128(s + 2));
    _mm_stream_si128(d + 3, _mm_load_si128(s + 3));
#else
    std::memcpy(tail.cur, l.e, sizeof l.e);
#endif
    tail.cur += kLineEntries;
  }
  /// Entries one at a time, a range's two always in one block (a lone last
  /// slot gets a filler).
  void write_entries(const std::uint32_t* e, std::uint32_t count, Tail& tail, std::vector<std::uint32_t>& chain) {
    for (std::uint32_t i = 0; i < count; ++i) {
      const bool pair = (e[i] & kRangeFlag) && i + 1 < count;
      if (tail.end - tail.cur < (pair ? 2 : 1)) {
        if (tail.cur != tail.end) *tail.cur++ = kFillerFlag;
        next_block(tail, chain);
      }
      *tail.cur++ = e[i];
      if (pair) *tail.cur++ = e[++i];
    }
  }
  std::uint32_t page_blocks_;
  std::vector<HugeBuffer> pages_;
  std::uint32_t blocks_used_ = 0;
  std::vector<std::vector<std::uint32_t>> chains_;
  std::vector<Tail> tails_;
  std::vector<Line> lines_;         // by segment
  std::vector<std::uint8_t> fill_;  // entries staged in each line
};

}  // namespace chomp::detail
