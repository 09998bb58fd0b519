/// @file verify.cpp
/// @brief The transposition check of a level's losing positions.

#include "chomp/verify.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <atomic>

#include "chomp/position.hpp"
#include "config.hpp"

namespace chomp {

LevelVerdict check_transposes(const PartitionTable& table, int n, const LosingLevel& level, std::uint64_t every) {
  if (every == 0) every = 1;
  LevelVerdict verdict;
  std::atomic<std::uint64_t> checked{0};
  std::atomic<bool> failed{false};
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, level.chunks(), 64),
                    [&](const tbb::blocked_range<std::size_t>& range) {
    std::vector<std::uint64_t> chunk;
    std::uint64_t here = 0;
    for (std::size_t c = range.begin(); c != range.end() && !failed.load(std::memory_order_relaxed); ++c) {
      level.decode_chunk(c, chunk);
      const std::uint64_t index0 = static_cast<std::uint64_t>(c) * config::kStoreChunk;
      for (std::size_t i = 0; i < chunk.size(); ++i) {
        if ((index0 + i) % every != 0) continue;
        const Rows rows = table.unrank(n, chunk[i]);
        const Rows t = transpose(rows);
        ++here;
        if (!level.contains(table.rank(t))) {
          if (!failed.exchange(true))  // the first failure found is reported
            verdict.problem = "the losing position " + rows_to_string(rows) + " (rank " + std::to_string(chunk[i]) +
                              ") has a transpose, " + rows_to_string(t) + ", that is not stored as losing";
          break;
        }
      }
    }
    checked.fetch_add(here, std::memory_order_relaxed);
  });
  verdict.checked = checked.load();
  return verdict;
}

}  // namespace chomp
