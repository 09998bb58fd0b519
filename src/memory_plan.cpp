/// @file memory_plan.cpp
/// @brief How a run fits its memory budget: the window (or slice) of
/// bitmaps, the marks of a round, the buffers, and what the disk must hold.

#include <tbb/info.h>

#include <algorithm>
#include <cmath>

#include "config.hpp"
#include "gap_code.hpp"
#include "sieve_impl.hpp"
#include "store_impl.hpp"

namespace chomp {

namespace {

/// Conjectured density, a little above the measured one (0.276 at n = 153):
/// the store's size is planned from it.
constexpr double kPlannedRatio = 0.29;

/// Bytes a thread keeps whatever the window: its decoder (the reuse records
/// of every target level, about 1.1 KiB each) and, in a distributed sieve,
/// a second one for the calls split between the processes; a block of the
/// store as bytes and ranks, its share of the store writer's histograms.
std::uint64_t per_thread_bytes(int max_tiles) {
  return static_cast<std::uint64_t>(max_tiles + 1) * 2400 + config::kStoreBlockRanks * 12 +
         detail::GapCode::kHistogramBins * 8 + (64 << 10);
}

/// The most marks one call of the kernel files into the buckets (more go
/// straight to the bitmap, marking.cpp): config::kDirectCallMarks, or a
/// quarter of a round under a budget whose rounds are small.
std::uint64_t direct_call_marks(std::uint64_t round_marks) {
  return std::min(config::kDirectCallMarks, std::max<std::uint64_t>(1, round_marks / 4));
}

/// Bytes of the buckets for a window of `bits` bits: the pools (two
/// rounds' marks at most, generate_round, and about what one call of the
/// kernel may file past a thread's share: direct_call_marks, or for a
/// call into the levels up to 32 above its source, which is not sent to
/// the bitmap, at most about 1e6 marks), a pool page of
/// slack per thread, and a partly filled 4 KiB block per segment and
/// thread with the table that tracks them (MarkBuckets::table_bytes).
std::uint64_t bucket_bytes(std::uint64_t bits, std::uint64_t round_marks, int threads, std::uint32_t page_blocks) {
  const auto T = static_cast<std::uint64_t>(threads);
  const std::uint64_t segments = (bits + config::kSegmentBits - 1) >> config::kSegmentBitsLog2;
  return 2 * round_marks * sizeof(std::uint32_t) + T * direct_call_marks(round_marks) * sizeof(std::uint32_t) +
         T * page_blocks * detail::MarkBuckets::kBlockBytes +
         T * (segments * detail::MarkBuckets::kBlockBytes + detail::MarkBuckets::table_bytes(segments));
}

/// Bytes of the store's index at level max_tiles (every level's blocks).
std::uint64_t index_bytes(const PartitionTable& t) {
  double blocks = 0;
  for (int n = 2; n <= t.max_tiles(); ++n) {
    const double p = static_cast<double>(t.positions(n));
    blocks += std::ceil(kPlannedRatio * p / std::log(p) / static_cast<double>(config::kStoreBlockRanks));
  }
  return static_cast<std::uint64_t>(blocks * sizeof(StoreBlock)) +
         static_cast<std::uint64_t>(t.max_tiles()) * (sizeof(detail::GapCode) + 256);
}

/// Buffers of the scan and the store's writer (8 bytes a rank collected,
/// about 3 more while it is coded), the partition table, the threads.
std::uint64_t buffer_bytes(const PartitionTable& t, std::uint64_t scan_batch, int threads) {
  const auto N = static_cast<std::uint64_t>(t.max_tiles() + 1);
  return scan_batch * 11 + 2 * N * N * 8 + static_cast<std::uint64_t>(threads) * per_thread_bytes(t.max_tiles());
}

/// The largest window the run will hold (whole levels while they fit, else
/// slices) and the most slices of a level.
struct WindowPlan {
  std::uint64_t bits = 0;
  int most_slices = 1, first_sliced = 0;
  int first_alone = 0;  // the first level a window holds alone, whole or in slices
  std::vector<PlannedWindow> windows;
};

/// The windows of a run from level `first` on, by the rule
/// Sieve::Impl::next_level opens them by (detail::next_window).
WindowPlan plan_windows(const PartitionTable& t, int max_tiles, std::uint64_t window_bits, int processes,
                        const SieveOptions& o, int first = 1) {
  WindowPlan plan;
  for (int n0 = first; n0 <= max_tiles;) {
    const detail::NextWindow next = detail::next_window(t, n0, max_tiles, window_bits, processes, o);
    if (next.last == n0 && plan.first_alone == 0) plan.first_alone = n0;
    if (next.slices.empty()) {
      std::uint64_t bits = 0;
      for (int k = n0; k <= next.last; ++k) bits += detail::segment_aligned_bits(t.positions(k));
      plan.bits = std::max(plan.bits, detail::share_bits(bits, processes));
      plan.windows.push_back(PlannedWindow{n0, next.last, 1});
      n0 = next.last + 1;
      continue;
    }
    const std::vector<detail::Slice>& slices = next.slices;
    for (const detail::Slice& s : slices)
      plan.bits = std::max(plan.bits, detail::share_bits(WindowLevel::slice_bits(t, n0, s.lo, s.hi), processes));
    plan.windows.push_back(PlannedWindow{n0, n0, static_cast<int>(slices.size())});
    plan.most_slices = std::max(plan.most_slices, static_cast<int>(slices.size()));
    if (slices.size() > 1 && plan.first_sliced == 0) plan.first_sliced = n0;
    ++n0;
  }
  return plan;
}

/// The smallest window that holds a slice of one first row of each level.
std::uint64_t smallest_window_bits(const PartitionTable& t, int max_tiles, int processes) {
  std::uint64_t bits = 0;
  for (int n = 1; n <= max_tiles; ++n)
    for (int a = 1; a <= n; ++a)
      bits = std::max(bits, detail::share_bits(WindowLevel::slice_bits(t, n, a, a), processes));
  return bits;
}

}  // namespace

/// A distributed sieve's exchange: a round's marks for other processes
/// (8 bytes each, queued by the threads), packed into one message, and as
/// many received.
static std::uint64_t exchange_bytes(std::uint64_t round_marks, int processes) {
  return processes > 1 ? 3 * round_marks * sizeof(std::uint64_t) : 0;
}

detail::Tuning detail::tuning_for(int max_tiles, const SieveOptions& o, int processes) {
  Tuning tu;
  tu.threads = o.threads > 0 ? o.threads : tbb::info::default_concurrency();
  const PartitionTable t(max_tiles);
  // One process only: the bits would have to be every process's. The most
  // rows whose bits fit.
  const std::uint64_t room =
      o.memory_budget == 0 ? config::kTailMarksMaxBytes : o.memory_budget / config::kTailMarksBudgetShare;
  if (processes == 1)
    for (int rows = std::min(o.inferred_rows, detail::TailMarks::kMostRows); rows > 0; --rows) {
      const std::uint64_t bytes = detail::TailMarks::bytes_for(t, max_tiles, rows);
      if (bytes <= room) {
        // (and what each thread holds for them: TailMarks::pending_bytes)
        tu.tail_bytes = bytes + static_cast<std::uint64_t>(tu.threads) *
                                    detail::TailMarks::pending_bytes(t, max_tiles, rows);
        tu.tail_rows = rows;
        break;
      }
    }
  if (o.memory_budget == 0) {
    tu.window_bits = o.window_bits ? o.window_bits : config::kWindowBytes * 8;
    tu.round_marks = o.round_marks ? o.round_marks : config::kRoundMarks;
    tu.scan_batch = o.scan_batch ? o.scan_batch : config::kScanBatchRanks;
    tu.pool_page_blocks = 0;
    tu.direct_call_marks = direct_call_marks(tu.round_marks);
    if (o.direct_call_marks) tu.direct_call_marks = std::min(tu.direct_call_marks, o.direct_call_marks);
    return tu;
  }
  const std::uint64_t B = o.memory_budget;
  tu.scan_batch = o.scan_batch ? o.scan_batch : std::clamp<std::uint64_t>(B / 64 / 11, 4096, config::kScanBatchRanks);
  tu.round_marks = o.round_marks ? o.round_marks : std::clamp<std::uint64_t>(B / 16 / 8, 1 << 16, config::kRoundMarks);
  tu.direct_call_marks = direct_call_marks(tu.round_marks);  // what bucket_bytes reserves; an option may lower it
  if (o.direct_call_marks) tu.direct_call_marks = std::min(tu.direct_call_marks, o.direct_call_marks);
  tu.pool_page_blocks = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(
      tu.round_marks * 8 / static_cast<std::uint64_t>(tu.threads) / 4 / MarkBuckets::kBlockBytes, 512, 2048));
  const std::uint64_t fixed = buffer_bytes(t, tu.scan_batch, tu.threads) + index_bytes(t) +
                              bucket_bytes(0, tu.round_marks, tu.threads, tu.pool_page_blocks) +
                              exchange_bytes(tu.round_marks, processes) + tu.tail_bytes;
  // What is left holds the window's bits (1/8 byte each) and, per thread,
  // a bucket block and its table entry (MarkBuckets::table_bytes) per
  // segment of 2^21 bits, as bucket_bytes counts them.
  const double per_bit = 1.0 / 8 + static_cast<double>(tu.threads) *
                                       static_cast<double>(MarkBuckets::kBlockBytes + MarkBuckets::table_bytes(1)) /
                                       static_cast<double>(config::kSegmentBits);
  const double bits = B > fixed ? static_cast<double>(B - fixed) / per_bit : 0.0;
  tu.window_bits = static_cast<std::uint64_t>(bits) & ~(config::kSegmentBits - 1);
  if (o.window_bits) tu.window_bits = std::min(tu.window_bits, o.window_bits);
  return tu;
}

MemoryPlan plan_run(int max_tiles, const SieveOptions& o, int processes, int first_level) {
  const PartitionTable t(max_tiles);
  const detail::Tuning tu = detail::tuning_for(max_tiles, o, processes);
  MemoryPlan plan;
  plan.budget = o.memory_budget;
  plan.threads = tu.threads;
  plan.window_bits = tu.window_bits;
  plan.round_marks = tu.round_marks;
  plan.scan_batch = tu.scan_batch;
  plan.index_bytes = index_bytes(t);
  plan.tail_bytes = tu.tail_bytes;
  plan.tail_rows = tu.tail_rows;
  plan.buffer_bytes =
      buffer_bytes(t, tu.scan_batch, tu.threads) + exchange_bytes(tu.round_marks, processes) + tu.tail_bytes;
  const std::uint32_t page = tu.pool_page_blocks ? tu.pool_page_blocks : detail::MarkBuckets::kPageBlocks;
  WindowPlan windows;
  try {
    windows = plan_windows(t, max_tiles, tu.window_bits, processes, o);
  } catch (const BudgetTooSmall&) {
    // The smallest budget: a window of one first row of the largest group,
    // with the buffers and rounds that budget would get.
    const std::uint64_t bits = smallest_window_bits(t, max_tiles, processes);
    std::uint64_t smallest = plan.buffer_bytes + plan.index_bytes + bits / 8 + bucket_bytes(bits, tu.round_marks, tu.threads, page);
    SieveOptions larger = o;
    for (int i = 0; i < 64; ++i) {
      larger.memory_budget = smallest;
      if (detail::tuning_for(max_tiles, larger, processes).window_bits >= bits) break;
      smallest += smallest / 16;
    }
    // Each thread's buffers and buckets count: with many threads they are
    // most of it (4 MiB and more a thread), not the window.
    throw BudgetTooSmall("a run to " + std::to_string(max_tiles) + " tiles needs a window of at least " +
                             std::to_string(bits / 8) + " bytes (one first row of its largest level)" +
                             (tu.threads > 1 ? " and the buffers of its " + std::to_string(tu.threads) +
                                                   " threads (fewer threads, --threads, need less)"
                                             : std::string()),
                         smallest);
  }
  plan.bitmap_bytes = windows.bits / 8;
  plan.bucket_bytes = bucket_bytes(windows.bits, tu.round_marks, tu.threads, page);
  plan.most_slices = windows.most_slices;
  plan.first_sliced = windows.first_sliced;
  plan.first_alone = windows.first_alone;
  plan.windows = std::move(windows.windows);
  if (first_level > 1) {
    const WindowPlan later = plan_windows(t, max_tiles, tu.window_bits, processes, o, first_level);
    plan.first_alone = later.first_alone;
    plan.windows = later.windows;
  }
  return plan;
}

int inferred_rows(int max_tiles, const SieveOptions& options, int processes) {
  return detail::tuning_for(max_tiles, options, processes).tail_rows;
}

DiskPlan plan_disk(int max_tiles) {
  const PartitionTable t(max_tiles);
  DiskPlan plan;
  double store = 64;
  for (int n = 2; n <= max_tiles; ++n) {
    const double p = static_cast<double>(t.positions(n));
    const double losing = kPlannedRatio * p / std::log(p);
    store += store_file::level_bytes_estimate(losing, p);
  }
  plan.store_bytes = static_cast<std::uint64_t>(store);
  // The result file: its attributes and dataset headers (about 40 KiB;
  // 64 KiB counted), and a row of 11 columns in chunks of their own per
  // level (1 KiB counted).
  plan.result_bytes = (std::uint64_t{64} << 10) + static_cast<std::uint64_t>(max_tiles) * 1024;
  return plan;
}

}  // namespace chomp
