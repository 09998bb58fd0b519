/// @file filing_kernel.cpp
/// @brief The sieve's marking kernel alone, called as the sieve calls it:
/// every canonical losing position of levels 1..N-1 (from an in-memory sieve
/// to N) walked in rank order, each naming the next (set_next), with the
/// moves of the first two rows inferred, extended into the levels up to
/// kJointExtraTiles above it in one call and into each level above them
/// alone, its marks placed in one window of levels 1..N. Timed on one thread:
/// the marks counted (the kernel's own cost), and filed into the buckets as a
/// round of the sieve files them (emptied, not applied, every
/// config::kRoundMarks entries); the difference is what filing an entry
/// costs. Also counts the points that land in the segment of the point before
/// (a chain of dependent stores through that bucket's fill count).
///
///     build/benchmarks/chomp_filing_kernel [N=100] [repeats=3] [which=3] [spread=1]
///
/// which: a sum of 1 counted, 2 filed, 4 ORed straight into the window's
/// bitmap (one thread, plain ORs, in the walk's order: filing and applying
/// in one); 3 by default. spread: the window's levels placed this many
/// times their size apart (more segments, as in the larger windows of
/// larger runs).
///
/// N = 100 (2026-12-03, night, one thread): 618.8 million points and 20.1
/// million ranges (583.5 and 16.0 million since bc50fb0, which makes no new
/// row without a canonical position), counted in 3.7-4.0 s (5.8-6.3 ns an
/// entry), filed in 5.6-5.9 s (8.8-9.3 ns); 60.5% of the points in the
/// segment of the point before. Filing took the same with 784, 3,918 or
/// 10,185 segments (spread 1, 5, 13: 5.91, 5.99, 5.85 s), so a bucket's
/// staging line costs the same in L2 as in L1. (2026-12-04, evening,
/// another machine, the long run beside it at nice 19, `100 2 7`: counted
/// 4.85-4.94 s, filed 6.88 s, ORed straight into the bitmap 6.88-6.92 s,
/// its apply included.) The direct pass also prints how many of the marks
/// reach a position already marked (2026-12-05, `100 1 5`: 1.083e9 marks
/// set 8.21e8 bits: 24.2% of the marks found their position marked already).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "buckets.hpp"
#include "chomp/sieve.hpp"
#include "config.hpp"
#include "extensions.hpp"

using namespace chomp;

namespace {
struct Counts {
  std::uint64_t points = 0, ranges = 0, ranked = 0, sum = 0;  // (the sum keeps the marks from being optimised away)
  std::uint64_t prev = ~0ull, same = 0;
  void point(std::uint64_t r) {
    ++points, sum += r;
    same += (r >> config::kSegmentBitsLog2) == prev;
    prev = r >> config::kSegmentBitsLog2;
  }
  void range(std::uint64_t first, std::uint64_t count) { ++ranges, ranked += count, sum += first; }
};

/// Marks ORed straight into the window's bitmap, in the walk's order.
struct Direct {
  std::uint64_t* words;
  void point(std::uint64_t r) { words[r >> 6] |= std::uint64_t{1} << (r & 63); }
  void range(std::uint64_t first, std::uint64_t count) {
    for (std::uint64_t r = first; r < first + count; ++r) point(r);
  }
};

template <class Sink, class After>
double walk(const PartitionTable& table, int n, const std::vector<std::vector<std::uint64_t>>& canonical,
            const std::vector<std::uint64_t>& offsets, Sink& sink, After&& after_call) {
  const auto t0 = std::chrono::steady_clock::now();
  detail::Source src(table);
  src.set_canonical_only(true);
  src.set_rows_inferred(2);
  for (int m = 1; m < n; ++m) {
    bool first = true;
    const std::vector<std::uint64_t>& list = canonical[static_cast<std::size_t>(m)];
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::uint64_t r = list[i];
      if (first) src.decode(m, r); else src.seek(r);
      first = false;
      src.set_next(i + 1 < list.size() ? list[i + 1] : ~std::uint64_t{0});
      for (int k = m + 1; k <= n;) {
        const int top = k <= m + config::kJointExtraTiles ? std::min(n, m + config::kJointExtraTiles) : k;
        src.for_each_extension(k - m, top - m, sink, offsets.data() + k);
        k = top + 1;
        after_call();
      }
    }
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  const int which = argc > 3 ? std::atoi(argv[3]) : 3;
  const int spread = argc > 4 ? std::atoi(argv[4]) : 1;  // levels placed this many times their size apart
  SieveOptions o;
  o.threads = 2;
  Sieve sieve(n, o);
  sieve.run([](const LevelResult&) {});
  const PartitionTable& table = sieve.table();
  std::vector<std::vector<std::uint64_t>> canonical(static_cast<std::size_t>(n) + 1);
  std::uint64_t sources = 0;
  detail::Source once(table);
  for (int m = 1; m < n; ++m)
    for (const std::uint64_t r : sieve.losing().all(m)) {
      once.decode(m, r);
      if (once.run_length(1) >= once.rows()) canonical[static_cast<std::size_t>(m)].push_back(r), ++sources;
    }
  std::vector<std::uint64_t> offsets(static_cast<std::size_t>(n) + 2, 0);
  std::uint64_t bits = 0;
  for (int k = 1; k <= n; ++k) offsets[static_cast<std::size_t>(k)] = bits, bits += spread * table.positions(k);
  const std::size_t segments = static_cast<std::size_t>((bits >> config::kSegmentBitsLog2) + 1);
  std::printf("N = %d: %llu canonical sources, %zu segments\n", n, static_cast<unsigned long long>(sources),
              segments);
  // The entries are counted once, always (the filed pass needs their number).
  Counts c;
  const double counted = walk(table, n, canonical, offsets, c, [] {});
  const double entries = static_cast<double>(c.points + c.ranges);
  std::printf("%llu points + %llu ranges; %.1f%% of the points in the segment of the point before\n",
              static_cast<unsigned long long>(c.points), static_cast<unsigned long long>(c.ranges),
              100.0 * static_cast<double>(c.same) / static_cast<double>(c.points));
  for (int rep = 0; rep < repeats; ++rep) {
    if (which & 1) {
      Counts again;
      const double s = rep == 0 ? counted : walk(table, n, canonical, offsets, again, [] {});
      std::printf("counted %.3f s (%.2f ns an entry)\n", s, 1e9 * s / entries);
    }
    if (which & 2) {
      detail::MarkBuckets buckets;
      buckets.prepare(segments);
      const double s = walk(table, n, canonical, offsets, buckets, [&] {
        if (buckets.entries() >= config::kRoundMarks) buckets.prepare(segments);
      });
      std::printf("filed %.3f s (%.2f ns an entry)\n", s, 1e9 * s / entries);
    }
    if (which & 4) {
      std::vector<std::uint64_t> words(static_cast<std::size_t>(bits / 64 + 1), 0);
      Direct d{words.data()};
      const double s = walk(table, n, canonical, offsets, d, [] {});
      // (The bits set, read back so that the ORs are not optimised away.)
      std::uint64_t set = 0;
      for (const std::uint64_t w : words) set += static_cast<std::uint64_t>(__builtin_popcountll(w));
      // Against the marks (points and the ranks of ranges): how many
      // reached a position that an earlier mark had reached already.
      const auto marks = static_cast<double>(c.points + c.ranked);
      std::printf("direct %.3f s (%.2f ns an entry), %llu positions marked by %.0f marks (%.1f%% already marked)\n", s,
                  1e9 * s / entries, static_cast<unsigned long long>(set), marks,
                  100.0 * (marks - static_cast<double>(set)) / marks);
    }
  }
  return static_cast<int>(c.sum & 0);
}
