/// @file macmahon_ranking.cpp
/// @brief The rank of a plane partition through its two tableaux, RSK and
/// MacMahon's multiset of parts (macmahon_ranking.hpp has the steps).

#include "chomp/macmahon_ranking.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "chomp/plane_ranking.hpp"
#include "height_grid.hpp"

namespace chomp {

namespace {

/// The diagonal of a position of at most 63 cubes has at most 7 cells
/// (8 x 8 = 64 cubes would fill the square under the 8th).
constexpr int kMaxDiagonal = 8;
/// Entries e of the reverse tableaux (1..63) are held as kFlip - e, which
/// makes them ordinary tableaux (rows weakly and columns strictly
/// increasing) for the textbook RSK.
constexpr int kFlip = 64;

/// A pair of tableaux of the same shape, flipped (kFlip - entry).
struct Tableaux {
  int rows = 0;  // rows of the shape: the diagonal's length
  std::uint8_t len[kMaxDiagonal] = {};
  std::uint8_t p[kMaxDiagonal][kMaxCubes + 1];  // from the rows (the column indices j)
  std::uint8_t q[kMaxDiagonal][kMaxCubes + 1];  // from the columns (the row indices i)
};

/// Part (i, j), 1-based, of weight w = i + j - 1: index w(w-1)/2 + i - 1
/// (parts in order of weight, then of i).
int part_index(int i, int j) {
  const int w = i + j - 1;
  return w * (w - 1) / 2 + i - 1;
}

/// Step 1: the halves of g on either side of its diagonal.
void halves(const detail::HeightGrid& g, Tableaux& t) {
  int d = 0;
  while (d < g.rows && g.len[d] > d) ++d;
  t.rows = d;
  for (int k = 0; k < d; ++k) {
    const int mu = g.h[k][k];
    t.len[k] = static_cast<std::uint8_t>(mu);
    // Row k from the diagonal on: P(k, c) = #{j >= k : h(k, j) > c}.
    int e = g.len[k];
    for (int c = 0; c < mu; ++c) {
      while (e > k && g.h[k][e - 1] <= c) --e;
      t.p[k][c] = static_cast<std::uint8_t>(kFlip - (e - k));
    }
    // Column k from the diagonal down: Q(k, c) = #{i >= k : h(i, k) > c}.
    int f = k;
    while (f < g.rows && g.len[f] > k) ++f;
    for (int c = 0; c < mu; ++c) {
      while (f > k && g.h[f - 1][k] <= c) --f;
      t.q[k][c] = static_cast<std::uint8_t>(kFlip - (f - k));
    }
  }
}

/// Step 1 backwards: the position whose halves are t.
void join(const Tableaux& t, detail::HeightGrid& g) {
  const int d = t.rows;
  int rows = 0;
  // Row k < d runs to k + P(k, 0); column k < d down to k + Q(k, 0).
  int col_end[kMaxDiagonal];
  for (int k = 0; k < d; ++k) {
    const int row_cells = kFlip - t.p[k][0], col_cells = kFlip - t.q[k][0];
    g.len[k] = static_cast<std::uint8_t>(k + row_cells);
    col_end[k] = k + col_cells;
    rows = std::max(rows, col_end[k]);
    // h(k, k + s) = #{c : P(k, c) > s} (P decreases along the row).
    int c = t.len[k];
    for (int s = 0; s < row_cells; ++s) {
      while (c > 0 && kFlip - t.p[k][c - 1] <= s) --c;
      g.h[k][k + s] = static_cast<std::uint8_t>(c);
    }
    c = t.len[k];
    for (int s = 1; s < col_cells; ++s) {
      while (c > 0 && kFlip - t.q[k][c - 1] <= s) --c;
      g.h[k + s][k] = static_cast<std::uint8_t>(c);
    }
  }
  // Rows below the diagonal hold only the columns k < d that reach them.
  for (int i = d; i < rows; ++i) {
    int len = 0;
    while (len < d && col_end[len] > i) ++len;
    g.len[i] = static_cast<std::uint8_t>(len);
  }
  g.rows = rows;
}

/// Step 2 backwards (inverse RSK): the pairs (i, j) of the tableaux, as
/// part indices, into parts[0..returned).
int pairs_of(Tableaux& t, int* parts) {
  int cells = 0, count = 0;
  for (int k = 0; k < t.rows; ++k) cells += t.len[k];
  while (cells-- > 0) {
    // The largest entry of q, the rightmost of its copies: the end of the
    // topmost row that ends in it.
    int r = -1, best = -1;
    for (int k = 0; k < t.rows; ++k)
      if (t.len[k] > 0 && t.q[k][t.len[k] - 1] > best) best = t.q[k][t.len[k] - 1], r = k;
    int y = t.p[r][--t.len[r]];
    for (int k = r - 1; k >= 0; --k) {
      int c = t.len[k] - 1;
      while (t.p[k][c] >= y) --c;  // the rightmost entry below y (one exists: the one above y's cell)
      const int bumped = t.p[k][c];
      t.p[k][c] = static_cast<std::uint8_t>(y);
      y = bumped;
    }
    parts[count++] = part_index(kFlip - best, kFlip - y);
  }
  return count;
}

}  // namespace

MacMahonRanking::MacMahonRanking(int max_cubes) : max_(max_cubes) {
  if (max_cubes < 1 || max_cubes > kMaxCubes)
    throw std::invalid_argument("MacMahonRanking ranks 1.." + std::to_string(kMaxCubes) + " cubes, not " +
                                std::to_string(max_cubes));
  parts_ = max_ * (max_ + 1) / 2;
  const auto width = static_cast<std::size_t>(max_ + 1);
  table_.assign((static_cast<std::size_t>(parts_) + 1) * width, 0);
  table_[static_cast<std::size_t>(parts_) * width] = 1;  // no parts: only the empty multiset
  for (int t = parts_ - 1; t >= 0; --t) {
    int wt = 1;
    while (wt * (wt + 1) / 2 <= t) ++wt;  // the weight of part t
    for (int w = 0; w <= max_; ++w) {
      std::uint64_t c = after(t + 1, w);
      if (w >= wt) c += table_[static_cast<std::size_t>(t) * width + static_cast<std::size_t>(w - wt)];
      table_[static_cast<std::size_t>(t) * width + static_cast<std::size_t>(w)] = c;
    }
  }
  const std::vector<std::uint64_t> pl = plane_partition_counts(max_);
  for (int n = 0; n <= max_; ++n)
    if (after(0, n) != pl[static_cast<std::size_t>(n)])
      throw std::logic_error("MacMahonRanking counts " + std::to_string(after(0, n)) + " positions of " +
                             std::to_string(n) + " cubes, not PL(n) = " + std::to_string(pl[static_cast<std::size_t>(n)]));
}

std::uint64_t MacMahonRanking::count(int n) const {
  if (n < 0 || n > max_) throw std::out_of_range("cube count " + std::to_string(n) + " outside 0.." + std::to_string(max_));
  return after(0, n);
}

std::uint64_t MacMahonRanking::rank(const detail::HeightGrid& g) const {
  Tableaux t;
  halves(g, t);
  int parts[kMaxCubes];
  const int k = pairs_of(t, parts);
  std::sort(parts, parts + k);
  // Step 3: the multiset among those of weight n.
  int w = g.cubes();
  std::uint64_t rank = 0;
  for (int a = 0; a < k;) {
    int b = a;
    while (b < k && parts[b] == parts[a]) ++b;
    int wt = 1;
    while (wt * (wt + 1) / 2 <= parts[a]) ++wt;
    const int m = b - a;
    rank += after(parts[a], w) - after(parts[a], w - m * wt);
    w -= m * wt;
    a = b;
  }
  return rank;
}

void MacMahonRanking::unrank(int n, std::uint64_t x, detail::HeightGrid& g) const {
  // Step 3 backwards: the multiplicity of each part in turn. A pair (i, j)
  // is kept flipped, as (kFlip - i) * kFlip + (kFlip - j), so that sorting
  // the numbers sorts the pairs.
  int pairs[kMaxCubes];
  int count = 0, w = n;
  for (int t = 0, wt = 1, i = 1; w > 0 && t < parts_; ++t, ++i) {
    if (i > wt) ++wt, i = 1;  // part t is (i, wt + 1 - i)
    if (x < after(t + 1, w)) continue;  // part t is not there
    int m = 0;
    while ((m + 1) * wt <= w && x >= after(t + 1, w - m * wt)) x -= after(t + 1, w - m * wt), ++m;
    for (int c = 0; c < m; ++c) pairs[count++] = (kFlip - i) * kFlip + (kFlip - (wt + 1 - i));
    w -= m * wt;
  }
  if (w != 0 || x != 0) throw std::logic_error("MacMahonRanking::unrank: the table does not add up");
  // Step 2 (RSK): the pairs in increasing order, inserted by rows.
  std::sort(pairs, pairs + count);
  Tableaux t;
  for (int c = 0; c < count; ++c) {
    int v = pairs[c] % kFlip;
    for (int k = 0;; ++k) {
      if (k == t.rows) t.len[t.rows++] = 0;
      int p = 0;
      while (p < t.len[k] && t.p[k][p] <= v) ++p;  // the leftmost entry above v
      if (p == t.len[k]) {
        t.p[k][p] = static_cast<std::uint8_t>(v);
        t.q[k][p] = static_cast<std::uint8_t>(pairs[c] / kFlip);
        ++t.len[k];
        break;
      }
      const int bumped = t.p[k][p];
      t.p[k][p] = static_cast<std::uint8_t>(v);
      v = bumped;
    }
  }
  join(t, g);
}

std::uint64_t MacMahonRanking::rank(const Heights& h) const {
  validate_heights(h);
  const int n = cube_count(h);
  if (n > max_)
    throw InvalidPosition("position of " + std::to_string(n) + " cubes; this ranking holds up to " + std::to_string(max_));
  detail::HeightGrid g;
  detail::to_grid(h, g);
  return rank(g);
}

Heights MacMahonRanking::unrank(int n, std::uint64_t r) const {
  if (n < 1 || n > max_ || r >= count(n))
    throw std::out_of_range("no 3D position of " + std::to_string(n) + " cubes has rank " + std::to_string(r));
  detail::HeightGrid g;
  unrank(n, r, g);
  return detail::to_heights(g);
}

}  // namespace chomp
