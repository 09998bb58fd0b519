/// @file transposes.cpp
/// @brief The positions that are not canonical: each is the transpose of a
/// canonical one and shares its status, so before a level (or a slice of
/// it) is scanned, its canonical losing positions clear their transposes'
/// bits.

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <atomic>
#include <bit>

#include "config.hpp"
#include "sieve_impl.hpp"

namespace chomp {

namespace {

/// Clears window bits a batch at a time, each batch's words prefetched
/// first: transposes land all over a level, a cache miss each.
class BitClearer {
 public:
  BitClearer(std::uint64_t* bitmap, std::uint64_t first_bit) : bitmap_(bitmap), first_bit_(first_bit) {}
  ~BitClearer() { flush(); }
  BitClearer(const BitClearer&) = delete;
  BitClearer& operator=(const BitClearer&) = delete;

  void clear(std::uint64_t bit) {
    __builtin_prefetch(bitmap_ + ((bit - first_bit_) >> 6), 1);
    batch_[queued_++] = bit;
    if (queued_ == kBatch) flush();
  }
  void flush() {
    for (int j = 0; j < queued_; ++j) clear_now(batch_[j]);
    queued_ = 0;
  }
  void clear_now(std::uint64_t bit) const {
    std::atomic_ref<std::uint64_t>(bitmap_[(bit - first_bit_) >> 6])
        .fetch_and(~(std::uint64_t{1} << (bit & 63)), std::memory_order_relaxed);
  }

 private:
  static constexpr int kBatch = config::kTransposePrefetch;
  std::uint64_t* bitmap_;
  std::uint64_t first_bit_;
  std::uint64_t batch_[kBatch];
  int queued_ = 0;
};

}  // namespace

/// Level n (or its slice) is marked but for its positions that are not
/// canonical, whose bits are all set. Each canonical losing position (a
/// clear bit) whose first row is longer than its first column clears the
/// bit of its transpose, which is then losing too (the rules do not tell
/// rows from columns); every other position that is not canonical is the
/// transpose of a canonical winning one, so it stays set. A transpose has
/// the first column's length as its first row, shorter: in a slice it may
/// fall below the slice, and the slices below take it from the store
/// (add_transposes_from_store). A distributed sieve sends the transposes
/// that land in other processes' segments to their owners. Threads read
/// segments while others clear bits in them: a bit read clear is either a
/// canonical losing position or an already added transpose, whose own
/// transpose is canonical and is left alone, so what a thread sees does not
/// change what it does. (The bits are read and cleared as atomics.)
void Sieve::Impl::add_transposes(int n) {
  const detail::PhaseTimer timer(phases.transposes);
  const WindowLevel& w = window_level(n);
  const std::uint64_t first_bit = own_lo << config::kSegmentBitsLog2, end_bit = own_hi << config::kSegmentBitsLog2;
  const std::uint64_t from = std::max(w.base + (w.lo - w.held), first_bit);
  const std::uint64_t to = std::min(w.base + (w.hi - w.held), end_bit);
  tbb::enumerable_thread_specific<std::vector<std::uint64_t>> away;  // bits of other processes
  if (from < to) {
    const std::uint64_t s0 = from >> config::kSegmentBitsLog2, s1 = ((to - 1) >> config::kSegmentBitsLog2) + 1;
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(s0, s1, 1), [&](const tbb::blocked_range<std::uint64_t>& segs) {
      detail::Source& source = states.local().source;
      bool decoded = false;
      BitClearer clearer(bitmap(), first_bit);
      const std::uint64_t lo = std::max(segs.begin() << config::kSegmentBitsLog2, from);
      const std::uint64_t hi = std::min(segs.end() << config::kSegmentBitsLog2, to);
      for (std::uint64_t word = lo & ~std::uint64_t{63}; word < hi; word += 64) {
        std::uint64_t losing =
            ~std::atomic_ref<std::uint64_t>(bitmap()[(word - first_bit) >> 6]).load(std::memory_order_relaxed);
        if (word < lo) losing &= ~std::uint64_t{0} << (lo - word);
        if (hi - word < 64) losing &= (std::uint64_t{1} << (hi - word)) - 1;
        for (; losing; losing &= losing - 1) {
          const std::uint64_t rank = w.held + (word - w.base) + static_cast<std::uint64_t>(std::countr_zero(losing));
          if (decoded) {
            source.seek(rank);
          } else {
            source.decode(n, rank);
            decoded = true;
          }
          if (source.run_length(1) <= source.rows()) continue;
          const std::uint64_t t = source.transposed_rank();
          if (t < w.lo) continue;  // below the slice: the slices below take it from the store
          const std::uint64_t bit = w.base + (t - w.held);
          if (bit >= first_bit && bit < end_bit)
            clearer.clear(bit);
          else
            away.local().push_back(bit);
        }
      }
    }, tbb::simple_partitioner());
  }
  if (!distributed()) return;
  std::vector<std::uint64_t> send;
  for (const auto& v : away) send.insert(send.end(), v.begin(), v.end());
  std::vector<std::uint64_t> none;
  clear_bits(none, send);
}

/// A slice of level n, below the slices already finished: the losing
/// positions found there (the store's level n so far) whose first column
/// falls in this slice's first rows have their transposes here. Every
/// process reads them all and clears the bits in its own segments.
void Sieve::Impl::add_transposes_from_store(int n) {
  const detail::PhaseTimer timer(phases.transposes);
  const WindowLevel& w = window_level(n);
  const auto blocks = store.blocks(n);
  const std::uint64_t first_bit = own_lo << config::kSegmentBitsLog2, end_bit = own_hi << config::kSegmentBitsLog2;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks.size(), 1), [&](const tbb::blocked_range<std::size_t>& r) {
    detail::ThreadState& ts = states.local();
    std::vector<std::uint64_t> ranks;
    BitClearer clearer(bitmap(), first_bit);
    for (std::size_t b = r.begin(); b != r.end(); ++b) {
      store.read_block(n, b, ranks, ts.bytes);
      for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (i == 0)
          ts.source.decode(n, ranks[i]);
        else
          ts.source.seek(ranks[i]);
        const int rows = ts.source.rows();
        if (ts.source.run_length(1) <= rows || rows < w.a_lo || rows > w.a_hi) continue;
        const std::uint64_t bit = w.base + (ts.source.transposed_rank() - w.held);
        if (bit >= first_bit && bit < end_bit) clearer.clear(bit);
      }
    }
  });
}

/// Clears this process's bits `mine`, and sends `away` (bits of other
/// processes' segments) to their owners, which clear them.
void Sieve::Impl::clear_bits(std::vector<std::uint64_t>& mine, std::vector<std::uint64_t>& away) {
  const std::uint64_t first_bit = own_lo << config::kSegmentBitsLog2;
  const BitClearer clearer(bitmap(), first_bit);
  for (const std::uint64_t bit : mine) clearer.clear_now(bit);
  if (!distributed()) return;
  std::sort(away.begin(), away.end());
  const std::uint64_t window_segments = window_bits >> config::kSegmentBitsLog2;
  std::vector<std::size_t> send_counts(static_cast<std::size_t>(procs)), received_counts;
  for (std::size_t q = 0; q < send_counts.size(); ++q) {
    const std::uint64_t lo = window_segments * q / static_cast<std::uint64_t>(procs) << config::kSegmentBitsLog2;
    const std::uint64_t hi = window_segments * (q + 1) / static_cast<std::uint64_t>(procs) << config::kSegmentBitsLog2;
    send_counts[q] = static_cast<std::size_t>(std::lower_bound(away.begin(), away.end(), hi) -
                                              std::lower_bound(away.begin(), away.end(), lo));
  }
  std::vector<std::uint64_t> received;
  group->exchange(away, send_counts, received, received_counts);
  for (const std::uint64_t bit : received) clearer.clear_now(bit);
}

}  // namespace chomp
