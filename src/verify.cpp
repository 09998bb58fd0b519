/// @file verify.cpp
/// @brief The checks of a level's losing positions: transposition, and the
/// rule move by move.

#include "chomp/verify.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <atomic>
#include <string>
#include <utility>

#include "chomp/position.hpp"

namespace chomp {

namespace {

/// Records `found` as the problem of the check unless another thread found
/// one first (the first failure found is reported).
void keep_first(std::atomic<bool>& failed, std::string& problem, std::string found) {
  if (!failed.exchange(true)) problem = std::move(found);
}

/// The sample of one position in every stride of `every` among `count`:
/// the offset within each stride, and in the last, shorter stride at most
/// its last position; so a sample holds ceil(count / every) positions
/// whatever the offset.
struct Strides {
  std::uint64_t count, every, offset;
  /// The sampled index of stride s (s < ceil(count / every)).
  std::uint64_t at(std::uint64_t s) const {
    const std::uint64_t i = s * every + offset;
    return i < count ? i : count - 1;
  }
  /// The first sampled index at or after i (count: none).
  std::uint64_t next(std::uint64_t i) const {
    if (i >= count) return count;
    const std::uint64_t s = i / every;
    const std::uint64_t t = at(s);
    return t >= i ? t : (s + 1) * every < count ? at(s + 1) : count;
  }
};

/// Calls check(rows, rank) on one of every `every` losing positions stored
/// in level n (Strides, with sample_offset for `seed`), on the caller's
/// oneTBB threads, until one returns a problem (the first found is kept in
/// `problem`; `failed` is raised). Returns how many positions were checked.
template <class Check>
std::uint64_t each_sampled_losing(const PartitionTable& table, int n, const LosingStore& store, std::uint64_t every,
                                  std::uint64_t seed, std::atomic<bool>& failed, std::string& problem,
                                  Check&& check) {
  std::atomic<std::uint64_t> checked{0};
  const auto blocks = store.blocks(n);
  std::vector<std::uint64_t> first_index(blocks.size() + 1, 0);  // index of each block's first rank in the level
  for (std::size_t b = 0; b < blocks.size(); ++b) first_index[b + 1] = first_index[b] + blocks[b].count;
  const Strides strides{first_index.back(), every, sample_offset(seed, n, 0, every)};
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks.size(), 1),
                    [&](const tbb::blocked_range<std::size_t>& range) {
    std::vector<std::uint64_t> chunk;
    std::vector<std::uint8_t> scratch;
    std::uint64_t here = 0;
    for (std::size_t c = range.begin(); c != range.end() && !failed.load(std::memory_order_relaxed); ++c) {
      const std::uint64_t index0 = first_index[c];
      // Blocks without a sampled entry are not read.
      std::uint64_t next = strides.next(index0);
      if (next >= first_index[c + 1]) continue;
      store.read_block(n, c, chunk, scratch);
      for (; next < first_index[c + 1]; next = strides.next(next + 1)) {
        const std::size_t i = static_cast<std::size_t>(next - index0);
        ++here;
        std::string found = check(table.unrank(n, chunk[i]), chunk[i]);
        if (!found.empty()) {
          keep_first(failed, problem, std::move(found));
          break;
        }
      }
    }
    checked.fetch_add(here, std::memory_order_relaxed);
  });
  return checked.load();
}

/// Whether some move from `rows` leads to a position stored as losing;
/// `scratch` is reused for the positions reached. A move (i, j) keeps rows
/// above i and cuts rows i.. to j - 1 columns; cutting a row to its own
/// length or more changes nothing, so each row i is cut to every shorter
/// length, the rows below it to at most that. Eating the whole board (the
/// poisoned tile with it) is no option.
bool has_losing_option(const PartitionTable& table, const LosingStore& store, const Rows& rows, Rows& scratch) {
  const std::size_t r = rows.size();
  int above = 0;  // tiles in rows 0..i-1
  for (std::size_t i = 0; i < r; above += rows[i], ++i) {
    for (int keep = 0; keep < rows[i]; ++keep) {
      if (i == 0 && keep == 0) continue;
      scratch.assign(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(i));
      int tiles = above;
      for (std::size_t k = i; k < r && keep > 0; ++k) {
        const int cut = rows[k] < keep ? rows[k] : keep;
        scratch.push_back(cut);
        tiles += cut;
      }
      if (store.contains(tiles, table.rank(scratch))) return true;
    }
  }
  return false;
}

/// The problem with a position of `rank` that is (or is not) stored as
/// losing, given whether it has a move to a losing position; empty if none.
std::string rule_problem(const Rows& rows, std::uint64_t rank, bool stored, bool losing_option) {
  if (stored != losing_option) return {};
  return "the position " + rows_to_string(rows) + " (rank " + std::to_string(rank) + ") is " +
         (stored ? "stored as losing but has a move to a losing position"
                 : "not stored as losing but has no move to a losing position");
}

}  // namespace

std::uint64_t sample_offset(std::uint64_t seed, int n, int which, std::uint64_t every) {
  if (seed == 0 || every <= 1) return 0;
  // splitmix64 of the seed, the level and the sample's kind
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (static_cast<std::uint64_t>(n) * 2 + static_cast<std::uint64_t>(which) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return (z ^ (z >> 31)) % every;
}

LevelVerdict check_transposes(const PartitionTable& table, int n, const LosingStore& store, std::uint64_t every,
                              std::uint64_t seed) {
  LevelVerdict verdict;
  std::atomic<bool> failed{false};
  verdict.checked = each_sampled_losing(table, n, store, every == 0 ? 1 : every, seed, failed, verdict.problem,
                                        [&](const Rows& rows, std::uint64_t rank) -> std::string {
    const Rows t = transpose(rows);
    if (store.contains(n, table.rank(t))) return {};
    return "the losing position " + rows_to_string(rows) + " (rank " + std::to_string(rank) + ") has a transpose, " +
           rows_to_string(t) + ", that is not stored as losing";
  });
  return verdict;
}

LevelVerdict check_moves(const PartitionTable& table, int n, const LosingStore& store, std::uint64_t every,
                         std::uint64_t seed) {
  return check_moves(table, n, store, every, every, seed);
}

LevelVerdict check_moves(const PartitionTable& table, int n, const LosingStore& store, std::uint64_t every_losing,
                         std::uint64_t every, std::uint64_t seed) {
  if (every == 0) every = 1;
  if (every_losing == 0) every_losing = 1;
  LevelVerdict verdict;
  std::atomic<bool> failed{false};
  // The stored losing positions, one in `every_losing`.
  verdict.checked = each_sampled_losing(table, n, store, every_losing, seed, failed, verdict.problem,
                                        [&](const Rows& rows, std::uint64_t rank) {
    Rows scratch;
    return rule_problem(rows, rank, true, has_losing_option(table, store, rows, scratch));
  });
  if (failed.load()) return verdict;
  // One rank in every `every` of the level, stored as losing or not (mostly not).
  std::atomic<std::uint64_t> checked{0};
  const std::uint64_t samples = (table.positions(n) + every - 1) / every;
  const Strides strides{table.positions(n), every, sample_offset(seed, n, 1, every)};
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, samples, 256),
                    [&](const tbb::blocked_range<std::uint64_t>& range) {
    Rows scratch;
    std::uint64_t here = 0;
    for (std::uint64_t s = range.begin(); s != range.end() && !failed.load(std::memory_order_relaxed); ++s) {
      const std::uint64_t rank = strides.at(s);
      const Rows rows = table.unrank(n, rank);
      ++here;
      std::string found =
          rule_problem(rows, rank, store.contains(n, rank), has_losing_option(table, store, rows, scratch));
      if (!found.empty()) {
        keep_first(failed, verdict.problem, std::move(found));
        break;
      }
    }
    checked.fetch_add(here, std::memory_order_relaxed);
  });
  verdict.checked += checked.load();
  return verdict;
}

}  // namespace chomp
