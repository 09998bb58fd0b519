/// @file gap_codes.cpp
/// @brief The store's gap code against the textbook codes, on real levels:
/// a sieve to N (in memory, a temporary store) and, for each level asked,
/// the bits per losing position of
///  - Golomb-Rice: the gap less one, k raw bits and the quotient in unary,
///    with the best k for the level;
///  - Elias-Fano: the ranks as a monotone sequence in [0, p(n)), l low
///    bits each and the high parts in unary, L(n) (l + 1) + p(n) / 2^l bits
///    with the best l;
///  - the store itself (the level's bytes in the store file: its blocks,
///    their index and a trailer);
///  - the gaps' empirical entropy (as if independent), the bound a code of
///    k raw bits and an entropy-coded quotient reaches with k = 0 (the
///    store's code: k raw bits and a Huffman code of the quotient fitted to
///    the level below).
///
///     build/benchmarks/chomp_gap_codes [N=100] [levels: 80 90 100]
///
/// Sizes, not times: doc/PERFORMANCE.md, "The store".
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "chomp/losing_store.hpp"
#include "chomp/sieve.hpp"

using namespace chomp;

int main(int argc, char** argv) {
  const int n_max = argc > 1 ? std::atoi(argv[1]) : 100;
  std::vector<int> levels;
  for (int i = 2; i < argc; ++i) levels.push_back(std::atoi(argv[i]));
  if (levels.empty()) levels = {n_max - 20, n_max - 10, n_max};
  Sieve sieve(n_max, SieveOptions{});
  std::map<int, LevelResult> results;
  sieve.run([&](const LevelResult& r) { results[r.tiles] = r; });
  std::printf("%6s %12s %8s %10s %10s %10s %10s\n", "level", "L(n)", "p/L", "Rice", "Elias-Fano", "store",
              "entropy");
  for (const int n : levels) {
    if (n < 2 || n > n_max) continue;
    const std::vector<std::uint64_t> ranks = sieve.losing().all(n);
    const double m = static_cast<double>(ranks.size());
    std::vector<std::uint64_t> gaps;  // each at least 1: the first rank + 1, then differences
    std::uint64_t last = 0;
    bool first = true;
    for (const std::uint64_t r : ranks) {
      gaps.push_back(first ? r + 1 : r - last);
      last = r, first = false;
    }
    double rice = 1e300;
    for (int k = 0; k < 40; ++k) {
      double unary = 0;
      for (const std::uint64_t g : gaps) unary += static_cast<double>((g - 1) >> k) + 1;
      rice = std::min(rice, k * m + unary);
    }
    std::map<std::uint64_t, double> count;
    for (const std::uint64_t g : gaps) count[g] += 1;
    double entropy = 0;
    for (const auto& [g, c] : count) entropy -= c * std::log2(c / m);
    const double p = static_cast<double>(results[n].positions);
    double ef = 1e300;
    for (int l = 0; l < 40; ++l) ef = std::min(ef, m * (l + 1) + std::floor(p / std::ldexp(1.0, l)) + 1);
    const double store =
        8.0 * static_cast<double>(results[n].stored.trailer - (n > 1 ? results[n - 1].stored.trailer : 0));
    std::printf("%6d %12.0f %8.1f %10.2f %10.2f %10.2f %10.2f\n", n, m, p / m, rice / m, ef / m, store / m,
                entropy / m);
  }
  std::printf("(bits per losing position)\n");
  return 0;
}
