/// @file two_row_grundy.cpp
/// @brief The Grundy values of two-row Chomp by their own dynamic program,
/// against the pattern doc/GRUNDY.md states (an observation of computed
/// values, not a published formula), for every a >= b >= 1 up to a bound.
///
/// Standalone; it shares no code with the engine:
///
///     g++ -O2 -std=c++20 -o /tmp/two_row_grundy experiments/two_row_grundy.cpp
///     /tmp/two_row_grundy 4000        # rows up to 4000: about 1 s, 9 MB
///
/// The position of rows a >= b >= 0 (a >= 1) moves to rows (j, min(b, j))
/// for 1 <= j < a (a tile of the first row) and (a, k) for 0 <= k < b (one
/// of the second). For the mex of the first kind, col[b] holds, as a bit
/// set, the values of (j, min(b, j)) for j < a, one set per b, grown as a
/// grows; the second kind is collected along the row of a. Convention of
/// doc/GRUNDY.md: the poisoned tile is never taken, the single tile has 0.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

/// doc/GRUNDY.md, "Two rows": d = a - b even: a + floor((b - 1) / 2);
/// d = 2m + 1: 2m + min(m, floor(b / 2)).
long observed(long a, long b) {
  const long d = a - b;
  if (d % 2 == 0) return a + (b - 1) / 2;
  const long m = (d - 1) / 2;
  return 2 * m + std::min(m, b / 2);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4000;
  if (n < 1 || n > 100000) {
    std::fprintf(stderr, "usage: two_row_grundy [ROWS up to 100000]\n");
    return 2;
  }
  const std::size_t words = static_cast<std::size_t>(2 * n) / 64 + 2;  // values < a + b <= 2n
  std::vector<std::vector<std::uint64_t>> col(static_cast<std::size_t>(n) + 1, std::vector<std::uint64_t>(words));
  std::vector<int> row(static_cast<std::size_t>(n) + 1);
  long checked = 0, differ = 0;
  for (int a = 1; a <= n; ++a) {
    std::vector<std::uint64_t> along(words);  // values of (a, k), k < b
    for (int b = 0; b <= a; ++b) {
      int g = 0;
      for (std::size_t w = 0; w < words; ++w)
        if (const std::uint64_t u = col[static_cast<std::size_t>(b)][w] | along[w]; ~u) {
          g = static_cast<int>(w * 64) + __builtin_ctzll(~u);
          break;
        }
      row[static_cast<std::size_t>(b)] = g;
      along[static_cast<std::size_t>(g) / 64] |= std::uint64_t{1} << (g % 64);
      const long want = b == 0 ? a - 1 : observed(a, b);
      ++checked;
      if (g != want && differ++ < 10) std::printf("rows %d, %d: G = %d, the pattern says %ld\n", a, b, g, want);
    }
    // (a, min(b, a)) is a move of every position (a', b) with a' > a.
    for (int b = 0; b <= n; ++b) {
      const int v = row[static_cast<std::size_t>(std::min(b, a))];
      col[static_cast<std::size_t>(b)][static_cast<std::size_t>(v) / 64] |= std::uint64_t{1} << (v % 64);
    }
  }
  std::printf("rows up to %d: %ld two-row positions (a >= b >= 0), %ld differ from the pattern\n", n, checked,
              differ);
  return differ == 0 ? 0 : 1;
}
