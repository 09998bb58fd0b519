/// @file bounded_ranking.cpp
/// @brief Counting and ranking inside a shape (include/chomp/bounded.hpp):
/// binomials, the size of a domain, and BoundedRanking's rank and unrank
/// by runs of equal rows.

#include "chomp/bounded.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "unrank_step.hpp"

namespace chomp {

std::uint64_t binomial(int n, int k) {
  if (n < 0 || k < 0 || k > n)
    throw std::invalid_argument("binomial(" + std::to_string(n) + ", " + std::to_string(k) +
                                ") needs 0 <= k <= n");
  k = std::min(k, n - k);
  // C(n, i) = C(n, i-1) (n-i+1) / i, exact at every step; dividing i out of
  // C(n, i-1) first (by their gcd) keeps the product no larger than the result.
  std::uint64_t c = 1;
  for (int i = 1; i <= k; ++i) {
    const std::uint64_t g = std::gcd(c, static_cast<std::uint64_t>(i));
    const std::uint64_t factor = static_cast<std::uint64_t>(n - i + 1) / (static_cast<std::uint64_t>(i) / g);
    if (__builtin_mul_overflow(c / g, factor, &c))
      throw std::overflow_error("C(" + std::to_string(n) + ", " + std::to_string(k) +
                                ") does not fit in 64 bits");
  }
  return c;
}

std::uint64_t count_subpositions(std::span<const int> shape) {
  if (shape.empty()) return 1;
  validate_rows(shape);
  // ways[j]: fillings of the rows below the current one whose top row has
  // length exactly j, summed bottom-up over the rows.
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const auto add = [](std::uint64_t a, std::uint64_t b) { return a > kMax - b ? kMax : a + b; };
  std::vector<std::uint64_t> below(static_cast<std::size_t>(shape.front()) + 1, 0), here(below.size());
  below[0] = 1;  // under the last row: nothing
  for (std::size_t k = shape.size(); k-- > 0;) {
    std::uint64_t prefix = 0;  // fillings below whose top row is <= j
    for (std::size_t j = 0; j < here.size(); ++j) {
      prefix = add(prefix, below[j]);
      here[j] = j <= static_cast<std::size_t>(shape[k]) ? prefix : 0;
    }
    std::swap(below, here);
  }
  std::uint64_t total = 0;
  for (std::uint64_t w : below) total = add(total, w);
  return total;
}

std::string positions_text(std::uint64_t count) {
  return count == std::numeric_limits<std::uint64_t>::max() ? std::string("more than 2^64") : std::to_string(count);
}

Rows box_shape(int rows, int cols) {
  if (rows < 1 || cols < 1)
    throw InvalidPosition("a board needs at least one row and one column, not " + std::to_string(rows) +
                          " x " + std::to_string(cols));
  Rows shape(static_cast<std::size_t>(rows), cols);
  validate_rows(shape);
  return shape;
}

bool fits_inside(std::span<const int> rows, std::span<const int> shape) {
  if (rows.size() > shape.size()) return false;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i] > shape[i]) return false;
  return true;
}

BoundedRanking::BoundedRanking(std::span<const int> shape) : shape_(shape.begin(), shape.end()) {
  if (shape_.empty()) throw InvalidPosition("a bounded board needs at least one tile");
  validate_rows(shape_);
  const std::uint64_t domain = count_subpositions(shape_);
  if (domain > kMaxDomainPositions)
    throw std::length_error("the positions inside " + rows_to_string(shape_) + " number " +
                            positions_text(domain) +
                            ", more than the " + std::to_string(kMaxDomainPositions) + " a solver holds");
  rows_ = static_cast<int>(shape_.size());
  cols_ = shape_.front();
  tiles_ = static_cast<int>(tile_count(shape_));
  row_stride_ = static_cast<std::size_t>(tiles_) + 1;
  const std::size_t cols1 = static_cast<std::size_t>(cols_) + 1;
  table_.assign((static_cast<std::size_t>(rows_) + 1) * row_stride_ * cols1, 0);
  const auto cell = [&](int k, int R) {
    return table_.data() + (static_cast<std::size_t>(k) * row_stride_ + static_cast<std::size_t>(R)) * cols1;
  };
  std::fill(cell(rows_, 0), cell(rows_, 0) + cols1, 1);  // below the last row: only 0 tiles
  for (int k = rows_ - 1; k >= 0; --k) {
    const int lam = shape_[static_cast<std::size_t>(k)];
    for (int R = 0; R <= tiles_; ++R) {
      std::uint64_t* p = cell(k, R);
      p[0] = (R == 0) ? 1 : 0;
      // Row k holds at most j: either at most j-1, or exactly j over a
      // filling of the rows below that holds at most j per row.
      for (int j = 1; j <= lam; ++j) p[j] = p[j - 1] + (R >= j ? cell(k + 1, R - j)[j] : 0);
      for (int j = lam + 1; j <= cols_; ++j) p[j] = p[lam];
    }
  }
  offset_.assign(static_cast<std::size_t>(tiles_) + 2, 0);
  for (int n = 0; n <= tiles_; ++n)
    offset_[static_cast<std::size_t>(n) + 1] = offset_[static_cast<std::size_t>(n)] + positions(n);
}

std::uint64_t BoundedRanking::rank(std::span<const int> rows) const {
  assert(fits_inside(rows, shape_));
  int R = static_cast<int>(tile_count(rows));
  std::uint64_t r = 0;
  const int r_rows = static_cast<int>(rows.size());
  for (int k = 0; k < r_rows;) {
    const int v = rows[static_cast<std::size_t>(k)];
    int q = 1;
    while (k + q < r_rows && rows[static_cast<std::size_t>(k + q)] == v) ++q;
    r += at(k, R)[v] - at(k + q, R - q * v)[v];
    R -= q * v;
    k += q;
  }
  return r;
}

void BoundedRanking::unrank_into(int n, std::uint64_t rank, Rows& out) const {
  out.clear();
  int R = n, cap = cols_;
  for (int k = 0; R > 0; ++k) {
    const std::uint64_t* p = at(k, R);
    // Largest row length v with T(k, R, v-1) <= rank: the rows before it
    // in the order are those with a shorter row k.
    const int lo = detail::next_row_length(p, std::min({cap, shape_[static_cast<std::size_t>(k)], R}), rank);
    rank -= p[lo - 1];
    out.push_back(lo);
    R -= lo;
    cap = lo;
  }
}

Rows BoundedRanking::unrank(int n, std::uint64_t rank) const {
  if (n < 0 || n > tiles_ || rank >= positions(n))
    throw std::invalid_argument("no position of level " + std::to_string(n) + " with rank " +
                                std::to_string(rank) + " inside " + rows_to_string(shape_));
  Rows out;
  unrank_into(n, rank, out);
  return out;
}

}  // namespace chomp
