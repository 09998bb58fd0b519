/// @file macmahon_ranking.hpp
/// @brief A second exact bijection between the 3D positions of n cubes and
/// 0..PL(n)-1, small and fast enough to rank every losing position of the
/// 3D sieve's levels (its store, doc/THREE_D.md).
///
/// PlaneRanking (plane_ranking.hpp) ranks row by row, and its table has a
/// state for every (cubes left, row above) with the list of every row that
/// fits under it: measured, 190 MB at n = 30, growing 1.5x a level (some
/// 10 GB at n = 40), and 5 us a rank. This ranking goes through MacMahon's
/// product instead, prod_{i,j >= 1} (1 - q^(i+j-1))^-1:
///
///  1. A plane partition h is the pair of its halves on either side of the
///     diagonal, each a reverse semistandard tableau of the diagonal's shape
///     mu (mu_k = h(k,k)): P(k,c) = #{j >= k : h(k,j) > c} (row k from the
///     diagonal on, read by levels), Q(k,c) = #{i >= k : h(i,k) > c} (the
///     same down column k), c < mu_k. The diagonal slices of h interlace,
///     which is what makes P and Q tableaux; |h| = |P| + |Q| - |mu|.
///  2. RSK (entries read in decreasing order, so that reverse tableaux are
///     tableaux) takes the pair (P, Q) to a matrix of natural numbers a_ij,
///     i the entries of Q, j those of P, with |h| = sum a_ij (i + j - 1):
///     a multiset of "parts" (i, j) of weight i + j - 1 (Stanley, EC2,
///     Theorem 7.20.1; Bender and Knuth 1972).
///  3. The multiset is ranked among those of weight n: parts in the order
///     of weight, then i; multisets by their multiplicities, part by part.
///     With C(t, w) the number of multisets of weight w from parts t, t+1,
///     ... (a table of n(n+1)/2 x (n+1) numbers, 1 MiB for n = 63), the
///     rank is the sum over the parts t present m_t times of C(t, w_t) -
///     C(t, w_t - m_t weight(t)), w_t the weight left before part t.
///
/// C(0, n) = PL(n) is checked against MacMahon's product at construction.
/// The order of the ranks has no meaning of its own (it is not
/// PlaneRanking's); the store needs only that it is a bijection, which the
/// tests check on every level up to 20 (and unrank(rank(h)) = h). The
/// table is built once and only read: rank and unrank may be called from
/// any number of threads at once.
#pragma once

#include <cstdint>
#include <vector>

#include "chomp/plane_partition.hpp"

namespace chomp {

namespace detail {
struct HeightGrid;  // src/height_grid.hpp: a height matrix in fixed arrays
}

class MacMahonRanking {
 public:
  /// Ranks positions of up to max_cubes cubes (1..kMaxCubes).
  explicit MacMahonRanking(int max_cubes);

  int max_cubes() const { return max_; }
  /// PL(n), for 0 <= n <= max_cubes().
  std::uint64_t count(int n) const;

  /// The rank of h among the positions with cube_count(h) cubes. Throws
  /// InvalidPosition if h is not a plane partition or too large.
  std::uint64_t rank(const Heights& h) const;
  /// The position of n cubes with rank r; throws std::out_of_range unless
  /// 1 <= n <= max_cubes() and r < count(n).
  Heights unrank(int n, std::uint64_t r) const;

  /// The same on a height matrix in fixed arrays (the 3D sieve's store),
  /// unchecked: g must be a plane partition of 1..max_cubes() cubes, and
  /// r < count(n).
  std::uint64_t rank(const detail::HeightGrid& g) const;
  void unrank(int n, std::uint64_t r, detail::HeightGrid& g) const;

 private:
  /// C(t, w) for parts t..: index t * (max_ + 1) + w.
  std::uint64_t after(int t, int w) const {
    return table_[static_cast<std::size_t>(t) * static_cast<std::size_t>(max_ + 1) + static_cast<std::size_t>(w)];
  }
  int max_;
  int parts_;  // n(n+1)/2 parts of weight <= max_
  std::vector<std::uint64_t> table_;
};

}  // namespace chomp
