/// @file extensions.cpp
/// @brief Decoding of sources for the marking kernel, and the public wrappers.

#include "extensions.hpp"

#include "chomp/extensions.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace chomp {
namespace detail {

const BlockShapes& BlockShapes::get() {
  static const BlockShapes shapes;
  return shapes;
}

BlockShapes::BlockShapes()
    : first_((kTiles + 1) * (kTiles + 1), 0), upto_((kTiles + 1) * (kTiles + 1) * (kTiles + 1), 0) {
  std::vector<std::vector<int>> blocks;  // the partitions of e with parts <= vcap
  std::vector<int> parts;
  const auto add = [&](const auto& self, int left, int largest) -> void {
    if (left == 0) {
      blocks.push_back(parts);
      return;
    }
    for (int x = largest < left ? largest : left; x >= 1; --x) {
      parts.push_back(x);
      self(self, left - x, x);
      parts.pop_back();
    }
  };
  for (int e = 1; e <= kTiles; ++e)
    for (int vcap = 1; vcap <= e; ++vcap) {
      blocks.clear();
      add(add, e, vcap);
      std::stable_sort(blocks.begin(), blocks.end(),
                       [](const auto& a, const auto& b) { return a.size() < b.size(); });
      const std::size_t i = index(e, vcap);
      first_[i] = static_cast<std::uint32_t>(shapes_.size());
      for (const auto& nu : blocks) {
        for (std::size_t p = nu.size(); p <= static_cast<std::size_t>(kTiles); ++p) ++upto_[i * (kTiles + 1) + p];
        Shape shape{};  // runs past the last have multiplicity 0
        int run = 0;
        for (std::size_t a = 0; a < nu.size(); ++run) {
          std::size_t b = a;
          while (b < nu.size() && nu[b] == nu[a]) ++b;
          shape.value[run] = static_cast<std::uint8_t>(nu[a]);
          shape.rows[run] = static_cast<std::uint8_t>(b - a);
          a = b;
        }
        shapes_.push_back(shape);
      }
    }
}

void Source::decode(int m, std::uint64_t rank) {
  m_ = m;
  rank_ = rank;
  ++serial_;
  kept_ = 0;
  c_[0] = m + 1;  // sentinel: the first run may be as long as the level allows
  R_[1] = m;
  C_[1] = 0;
  descend(1, m, rank);
}

void Source::seek(std::uint64_t rank) {
  // hi_[t] is one past the last rank whose first t runs equal ours; these
  // intervals are nested, so hi_ is non-increasing. Successive losing ranks
  // are close, so the first run that changes is usually near the bottom:
  // walk up from there.
  int t = T_;
  while (t > 1 && rank >= hi_[t - 1]) --t;
  rank_ = rank;
  ++serial_;
  kept_ = t - 1;
  descend(t, c_[t - 1] - 1, rank - C_[t]);
}

void Source::descend(int t, int max_part, std::uint64_t rank_left) {
  // Partitions of R with parts <= a, ordered as in ranking.hpp: first part a
  // is the block starting at P(R, a-1); within it, those that start with q
  // copies of a are the last P(R - q a, a) (the lexicographically largest).
  while (R_[t] > 0) {
    const int R = R_[t];
    const std::uint64_t* p = t_.row(R);
    int a = 1, q = R;
    if (rank_left != 0) {
      // Largest a <= max_part with P(R, a-1) <= rank_left: a branch-free
      // binary search over p[0..hi-1] (p[0] = P(R, 0) = 0 always qualifies),
      // since its comparisons are as good as random to the branch predictor.
      const int hi = max_part < R ? max_part : R;
      int lo = 0;
      for (int n = hi; n > 1;) {
        const int half = n / 2;
        lo = p[lo + half] <= rank_left ? lo + half : lo;
        n -= half;
      }
      a = lo + 1;
      // Largest q with rank_left >= P(R, a) - P(R - q a, a), looked up down
      // column a. Most runs are one row (q = 1): test q = 2 first.
      const std::uint64_t* col = t_.col(a);
      const int qmax = R / a;
      q = 1;
      if (qmax >= 2 && rank_left >= p[a] - col[R - 2 * a]) {
        int qlo = 2, qhi = qmax;
        while (qlo < qhi) {
          const int mid = (qlo + qhi + 1) / 2;
          if (rank_left >= p[a] - col[R - mid * a])
            qlo = mid;
          else
            qhi = mid - 1;
        }
        q = qlo;
      }
    }
    const std::uint64_t term = run_term(R, a, q);
    rank_left -= term;
    c_[t] = a;
    k_[t] = q;
    C_[t + 1] = C_[t] + term;
    R_[t + 1] = R - q * a;
    hi_[t] = C_[t + 1] + t_.row(R_[t + 1])[a - 1];
    max_part = a - 1;
    ++t;
  }
  T_ = t - 1;
}

}  // namespace detail

namespace {

struct Collect {
  std::vector<std::uint64_t>* out;
  void point(std::uint64_t r) { out->push_back(r); }
  void range(std::uint64_t first, std::uint64_t count) {
    for (std::uint64_t i = 0; i < count; ++i) out->push_back(first + i);
  }
};

}  // namespace

std::vector<std::uint64_t> extension_ranks(const PartitionTable& table, std::span<const int> rows,
                                           int extra) {
  const std::uint64_t m = table.rank(rows), n = tile_count(rows);
  if (extra < 1 || n + static_cast<std::uint64_t>(extra) > static_cast<std::uint64_t>(table.max_tiles()))
    throw std::invalid_argument("extension by " + std::to_string(extra) +
                                " tiles leaves the table's range");
  detail::Source s(table);
  s.decode(static_cast<int>(n), m);
  std::vector<std::uint64_t> out;
  Collect sink{&out};
  s.for_each_extension(extra, sink);
  return out;
}

std::vector<Rows> extensions_of(const PartitionTable& table, std::span<const int> rows, int extra) {
  const int n = static_cast<int>(tile_count(rows)) + extra;
  std::vector<Rows> out;
  for (std::uint64_t r : extension_ranks(table, rows, extra)) out.push_back(table.unrank(n, r));
  return out;
}

}  // namespace chomp
