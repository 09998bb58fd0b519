/// @file naive_sieve.cpp
/// @brief A straightforward one-bit-per-position push sieve, for comparison.
///
/// Holds a bitmap for every level at once (sum of p(k) bits), and for each
/// losing position enumerates its extensions as explicit row lists and ranks
/// each from scratch, setting bits with atomic ORs from TBB threads. It shares
/// nothing with the engine but the partition-count table used for ranking,
/// so it is also an independent check of the counts.
///
/// Usage: chomp_naive_sieve MAX_TILES [THREADS]   prints "n p(n) L(n)" per level.

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "chomp/ranking.hpp"

using namespace chomp;

namespace {

struct Levels {
  std::vector<std::unique_ptr<std::atomic<std::uint64_t>[]>> bits;
  void set(int n, std::uint64_t r) {
    bits[static_cast<std::size_t>(n)][r >> 6].fetch_or(std::uint64_t{1} << (r & 63), std::memory_order_relaxed);
  }
  bool get(int n, std::uint64_t r) const {
    return (bits[static_cast<std::size_t>(n)][r >> 6].load(std::memory_order_relaxed) >> (r & 63)) & 1;
  }
};

/// Adds every partition block (parts <= maxv, at most rows_left parts, rows
/// starting at index j of rows, each part added to length c) and marks the
/// resulting positions with up to max_tiles tiles.
void grow(const PartitionTable& t, Levels& lv, Rows& rows, std::size_t j, int c, int maxv,
          int rows_left, int tiles, int max_tiles) {
  for (int v = 1; v <= maxv && tiles + v <= max_tiles && rows_left > 0; ++v) {
    const bool new_row = j >= rows.size();
    if (new_row) rows.push_back(c + v);
    else rows[j] = c + v;
    lv.set(tiles + v, t.rank(rows));
    grow(t, lv, rows, j + 1, c, v, rows_left - 1, tiles + v, max_tiles);
    if (new_row) rows.pop_back();
    else rows[j] = c;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MAX_TILES [THREADS]\n", argv[0]);
    return 2;
  }
  const int N = std::atoi(argv[1]);
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  const PartitionTable t(N);
  Levels lv;
  lv.bits.resize(static_cast<std::size_t>(N) + 1);
  for (int n = 1; n <= N; ++n) {
    const std::size_t words = (t.positions(n) + 63) / 64;
    lv.bits[static_cast<std::size_t>(n)].reset(new std::atomic<std::uint64_t>[words]);
    for (std::size_t w = 0; w < words; ++w) lv.bits[static_cast<std::size_t>(n)][w] = 0;
  }
  for (int n = 1; n <= N; ++n) {
    std::vector<std::uint64_t> losing;
    for (std::uint64_t r = 0; r < t.positions(n); ++r)
      if (!lv.get(n, r)) losing.push_back(r);
    std::printf("%d %llu %zu\n", n, static_cast<unsigned long long>(t.positions(n)), losing.size());
    std::fflush(stdout);
    tbb::parallel_for(std::size_t{0}, losing.size(), [&](std::size_t i) {
      Rows rows = t.unrank(n, losing[i]);
      const int r = static_cast<int>(rows.size());
      // Corners: the first row of each run of equal rows, and a new row below.
      for (int j = 0; j <= r; ++j) {
        if (j > 0 && j < r && rows[static_cast<std::size_t>(j)] == rows[static_cast<std::size_t>(j - 1)]) continue;
        const int c = j < r ? rows[static_cast<std::size_t>(j)] : 0;
        int run = 0;
        while (j + run < r && rows[static_cast<std::size_t>(j + run)] == c) ++run;
        const int width = j == 0 ? N : rows[static_cast<std::size_t>(j - 1)] - c;
        grow(t, lv, rows, static_cast<std::size_t>(j), c, width, j < r ? run : N, n, N);
      }
    });
  }
  return 0;
}
