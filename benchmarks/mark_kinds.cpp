/// @file mark_kinds.cpp
/// @brief Where the marks come from: every losing position of levels
/// 1..N-1 (from an in-memory sieve to N) extended into every level up to N,
/// as the sieve does (canonical extensions only, corners reused between
/// consecutive sources), the marks counted by kind and by block size d, and
/// the kernel timed for all corners and for the top corner alone. Then the
/// same for a window of level N alone, as the long run's windows are from
/// level 157 on (156, after a leg that began there): each source of levels
/// 1..N-1 decoded and extended into level N only, the time of decoding
/// (Source::seek) and of extending (the kernel) per source, and both per
/// mark, by block size d = N - m.
///
///     build/benchmarks/chomp_mark_kinds [N=100] [threads=2] [inferred rows=0]
///
/// With inferred rows (2: the sieve's default), the kernel leaves the moves
/// of the first rows to their bits and walks the canonical sources only, as
/// the sieve does; the marks are then counted by corner instead: the last
/// corner (the bottom run of equal rows, never recorded for reuse), the
/// other corners below the inferred rows, and the new row (points when it
/// holds one position, else ranges), and only the whole kernel is timed.
///
/// Kinds: top-corner points (blocks on the first rows: the first row grows),
/// points at the other corners (and a new-row corner of one position), and
/// ranges (the new-row corner: consecutive ranks). The top corner alone is
/// what the kernel makes with set_first_rows above the source's first row
/// (extensions.hpp).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "chomp/sieve.hpp"
#include "extensions.hpp"

using namespace chomp;

namespace {
struct Counts {
  std::uint64_t points = 0, ranges = 0, range_positions = 0, sum = 0;
  void point(std::uint64_t r) { ++points, sum += r; }
  void range(std::uint64_t first, std::uint64_t count) { ++ranges, range_positions += count, sum += first; }
};
int bucket(int d) { return d == 1 ? 0 : d == 2 ? 1 : d <= 5 ? 2 : d <= 10 ? 3 : d <= 20 ? 4 : 5; }
const char* kBucketNames[] = {"1", "2", "3-5", "6-10", "11-20", "21+"};

/// Walks a canonical-only decoder (leaving the moves of the first
/// `rows_inferred` rows to their bits) through the ranks of level m in
/// order, as the sieve does, calls at_source(src) at each source, and
/// returns the seconds the walk took.
template <class F>
double timed_walk(const PartitionTable& table, int m, const std::vector<std::uint64_t>& ranks, F&& at_source,
                  int rows_inferred = 0) {
  detail::Source src(table);
  src.set_canonical_only(true);
  src.set_rows_inferred(rows_inferred);
  const auto t0 = std::chrono::steady_clock::now();
  bool first = true;
  for (const std::uint64_t r : ranks) {
    if (first) src.decode(m, r); else src.seek(r);
    first = false;
    at_source(src);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The table of marks by corner for a kernel that infers the moves of the
/// first `rows` rows.
int by_corner(const Sieve& sieve, int n, int rows) {
  const PartitionTable& table = sieve.table();
  // Pass 0: the kernel as the sieve runs it (walked, reuse records), timed.
  // Pass 1: the last corner and the new row (every corner above the last
  // one inferred); pass 2: the new row alone. Passes 1 and 2 decode each
  // source afresh (records made with other rows inferred are not these).
  Counts count[3][6];
  double kernel_s = 0;
  std::uint64_t sources = 0, skipped = 0;
  for (int m = 1; m < n; ++m) {
    const auto ranks = sieve.losing().all(m);
    // Passes 1 and 2 first (a decode leaves no corner to reuse), finding
    // the canonical sources on the way.
    std::vector<std::uint64_t> canonical;
    detail::Source once(table);
    once.set_canonical_only(true);
    for (const std::uint64_t r : ranks) {
      for (int pass = 1; pass <= 2; ++pass) {
        once.decode(m, r);
        if (once.run_length(1) < once.rows()) break;  // not canonical: skipped, as the sieve skips it
        if (pass == 1) canonical.push_back(r);
        const int above_last = once.rows() - once.run_rows(once.runs());
        once.set_rows_inferred(pass == 1 ? std::max(rows, above_last) : once.rows() + 1);
        for (int d = 1; d <= n - m; ++d) once.for_each_extension(d, count[pass][bucket(d)]);
      }
    }
    sources += canonical.size();
    skipped += ranks.size() - canonical.size();
    kernel_s += timed_walk(
        table, m, canonical,
        [&](detail::Source& walked) {
          for (int d = 1; d <= n - m; ++d) walked.for_each_extension(d, count[0][bucket(d)]);
        },
        rows);
  }
  std::uint64_t total = 0;
  for (const Counts& c : count[0]) total += c.points + c.ranges;
  std::printf("N = %d, moves of rows 1-%d inferred: %llu canonical sources (losing positions of levels 1..%d; "
              "%llu others skipped), %llu marks filed (points + ranges)\n",
              n, rows, static_cast<unsigned long long>(sources), n - 1, static_cast<unsigned long long>(skipped),
              static_cast<unsigned long long>(total));
  std::printf("%6s %14s %8s %14s %8s %12s %8s %12s %8s %14s\n", "d", "last corner", "%", "other corners", "%",
              "new row pts", "%", "ranges", "%", "range ranks");
  const double t = static_cast<double>(total) / 100;
  for (int b = 0; b < 6; ++b) {
    const std::uint64_t new_row = count[2][b].points, last = count[1][b].points - new_row;
    const std::uint64_t other = count[0][b].points - count[1][b].points;
    std::printf("%6s %14llu %8.2f %14llu %8.2f %12llu %8.2f %12llu %8.2f %14llu\n", kBucketNames[b],
                static_cast<unsigned long long>(last), static_cast<double>(last) / t,
                static_cast<unsigned long long>(other), static_cast<double>(other) / t,
                static_cast<unsigned long long>(new_row), static_cast<double>(new_row) / t,
                static_cast<unsigned long long>(count[0][b].ranges), static_cast<double>(count[0][b].ranges) / t,
                static_cast<unsigned long long>(count[0][b].range_positions));
  }
  std::printf("kernel time, one thread, marks into a counter (no filing): %.2f s (%.2f ns a mark)\n", kernel_s,
              1e9 * kernel_s / static_cast<double>(total));
  return static_cast<int>(count[0][0].sum & 0);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100;
  SieveOptions o;
  o.threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const int rows = argc > 3 ? std::atoi(argv[3]) : 0;
  Sieve sieve(n, o);
  sieve.run([](const LevelResult&) {});
  if (rows > 0) return by_corner(sieve, n, rows);
  const PartitionTable& table = sieve.table();
  Counts all[6], top[6];
  double all_s = 0, top_s = 0;
  std::uint64_t sources = 0;
  for (int m = 1; m < n; ++m) {
    const auto ranks = sieve.losing().all(m);
    sources += ranks.size();
    for (int pass = 0; pass < 2; ++pass)
      (pass == 0 ? all_s : top_s) += timed_walk(table, m, ranks, [&](detail::Source& src) {
        if (pass == 1) src.set_first_rows(src.run_length(1) + 1, kMaxTiles + 1);
        for (int d = 1; d <= n - m; ++d) src.for_each_extension(d, (pass == 0 ? all : top)[bucket(d)]);
      });
  }
  std::uint64_t total = 0;
  for (const Counts& c : all) total += c.points + c.ranges;
  std::printf("N = %d: %llu sources (losing positions of levels 1..%d), %llu marks filed (points + ranges)\n", n,
              static_cast<unsigned long long>(sources), n - 1, static_cast<unsigned long long>(total));
  std::printf("%6s %14s %8s %14s %8s %12s %8s %14s\n", "d", "top points", "%", "other points", "%", "ranges", "%",
              "range ranks");
  for (int b = 0; b < 6; ++b) {
    const double t = static_cast<double>(total) / 100;
    const std::uint64_t other = all[b].points - top[b].points;
    std::printf("%6s %14llu %8.2f %14llu %8.2f %12llu %8.2f %14llu\n", kBucketNames[b],
                static_cast<unsigned long long>(top[b].points), static_cast<double>(top[b].points) / t,
                static_cast<unsigned long long>(other), static_cast<double>(other) / t,
                static_cast<unsigned long long>(all[b].ranges), static_cast<double>(all[b].ranges) / t,
                static_cast<unsigned long long>(all[b].range_positions));
  }
  std::printf("kernel time, one thread, marks into a counter (no filing): all corners %.2f s (%.2f ns a mark), "
              "top corner alone %.2f s\n",
              all_s, 1e9 * all_s / static_cast<double>(total), top_s);

  // A window of level n alone: every source visited for a single level.
  // Decoding alone, then decoding and extending, per band of d.
  double seek_s[6] = {}, both_s[6] = {};
  std::uint64_t visited[6] = {};
  Counts one[6];
  std::uint64_t rows_sum = 0;
  for (int m = 1; m < n; ++m) {
    const auto ranks = sieve.losing().all(m);
    const int b = bucket(n - m);
    visited[b] += ranks.size();
    seek_s[b] += timed_walk(table, m, ranks,
                            [&](detail::Source& src) { rows_sum += static_cast<std::uint64_t>(src.rows()); });
    both_s[b] += timed_walk(table, m, ranks, [&](detail::Source& src) { src.for_each_extension(n - m, one[b]); });
  }
  std::printf("\na window of level %d alone, one thread, marks into a counter:\n", n);
  std::printf("%6s %12s %10s %12s %14s %12s %12s\n", "d", "sources", "% sources", "marks/source", "decode ns/src",
              "extend ns/src", "ns/mark all");
  std::uint64_t all_visited = 0;
  for (const std::uint64_t v : visited) all_visited += v;
  for (int b = 0; b < 6; ++b) {
    if (visited[b] == 0) continue;
    const double v = static_cast<double>(visited[b]);
    const double marks = static_cast<double>(one[b].points + one[b].ranges);
    std::printf("%6s %12llu %10.1f %12.2f %14.1f %12.1f %12.1f\n", kBucketNames[b],
                static_cast<unsigned long long>(visited[b]), 100 * v / static_cast<double>(all_visited), marks / v,
                1e9 * seek_s[b] / v, 1e9 * (both_s[b] - seek_s[b]) / v, 1e9 * both_s[b] / marks);
  }
  return static_cast<int>((all[0].sum + rows_sum) & 0);
}
