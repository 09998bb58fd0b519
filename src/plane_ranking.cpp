/// @file plane_ranking.cpp
/// @brief PL(n), the enumeration of plane partitions in rank order, and the
/// rank/unrank bijection (plane_ranking.hpp has the order).

#include "chomp/plane_ranking.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace chomp {

std::vector<std::uint64_t> plane_partition_counts(int max_cubes) {
  if (max_cubes < 0 || max_cubes > kMaxCubes)
    throw std::invalid_argument("plane partition counts are kept for 0.." + std::to_string(kMaxCubes) + " cubes");
  // prod_k (1 - q^k)^-k: multiply k times by 1 / (1 - q^k) for each k.
  std::vector<std::uint64_t> c(static_cast<std::size_t>(max_cubes) + 1, 0);
  c[0] = 1;
  for (int k = 1; k <= max_cubes; ++k)
    for (int t = 0; t < k; ++t)
      for (int m = k; m <= max_cubes; ++m) c[static_cast<std::size_t>(m)] += c[static_cast<std::size_t>(m - k)];
  return c;
}

namespace {

/// The rows ν ⊆ lambda with 1 <= |ν| <= r, in vector order: at each entry
/// first "the row ends here" (if it has an entry), then each height upwards.
void for_each_row(const std::vector<int>& lambda, int r, const std::function<void(const std::vector<int>&)>& f) {
  std::vector<int> row;
  auto rec = [&](auto&& self, int left, int cap) -> void {
    if (!row.empty()) f(row);
    const std::size_t j = row.size();
    if (j >= lambda.size()) return;
    const int top = std::min({cap, lambda[j], left});
    for (int v = 1; v <= top; ++v) {
      row.push_back(v);
      self(self, left - v, v);
      row.pop_back();
    }
  };
  rec(rec, r, r);
}

std::vector<int> cut(const std::vector<int>& lambda, int r) {
  std::vector<int> out;
  for (std::size_t j = 0; j < lambda.size() && static_cast<int>(j) < r; ++j) out.push_back(std::min(lambda[j], r));
  return out;
}

int sum(const std::vector<int>& v) {
  int s = 0;
  for (int x : v) s += x;
  return s;
}

}  // namespace

void for_each_plane_partition(int n, const std::function<void(const Heights&)>& f) {
  if (n < 1 || n > kMaxCubes) throw std::invalid_argument("cube count out of range 1.." + std::to_string(kMaxCubes));
  Heights h;
  auto rec = [&](auto&& self, const std::vector<int>& above, int r) -> void {
    if (r == 0) {
      f(h);
      return;
    }
    for_each_row(above, r, [&](const std::vector<int>& row) {
      h.push_back(row);
      self(self, row, r - sum(row));
      h.pop_back();
    });
  };
  rec(rec, std::vector<int>(static_cast<std::size_t>(n), n), n);
}

PlaneRanking::PlaneRanking(int max_cubes) : max_(max_cubes), counts_(plane_partition_counts(max_cubes)) {
  if (max_cubes < 1) throw std::invalid_argument("PlaneRanking needs max_cubes >= 1");
}

std::uint64_t PlaneRanking::count(int n) const {
  if (n < 0 || n > max_) throw std::out_of_range("cube count " + std::to_string(n) + " outside 0.." + std::to_string(max_));
  return counts_[static_cast<std::size_t>(n)];
}

const PlaneRanking::State& PlaneRanking::state(int r, const std::vector<int>& lambda) {
  Key key{r, cut(lambda, r)};
  if (auto it = states_.find(key); it != states_.end()) return it->second;
  State s;
  if (r == 0) {
    s.total = 1;
  } else {
    for_each_row(key.second, r, [&](const std::vector<int>& row) { s.rows.push_back(row); });
    for (const auto& row : s.rows) {
      s.before.push_back(s.total);
      s.total += state(r - sum(row), row).total;  // may rehash nothing: std::map keeps references
    }
  }
  return states_.emplace(std::move(key), std::move(s)).first->second;
}

std::uint64_t PlaneRanking::rank(const Heights& h) {
  validate_heights(h);
  const int n = cube_count(h);
  if (n > max_)
    throw InvalidPosition("position of " + std::to_string(n) + " cubes; this ranking holds up to " + std::to_string(max_));
  std::uint64_t rank = 0;
  std::vector<int> above(static_cast<std::size_t>(n), n);
  int r = n;
  for (const auto& row : h) {
    const State& s = state(r, above);
    const auto it = std::lower_bound(s.rows.begin(), s.rows.end(), row);
    rank += s.before[static_cast<std::size_t>(it - s.rows.begin())];
    r -= sum(row);
    above = row;
  }
  return rank;
}

Heights PlaneRanking::unrank(int n, std::uint64_t x) {
  if (n < 1 || n > max_ || x >= count(n))
    throw std::out_of_range("no 3D position of " + std::to_string(n) + " cubes has rank " + std::to_string(x));
  Heights h;
  std::vector<int> above(static_cast<std::size_t>(n), n);
  int r = n;
  while (r > 0) {
    const State& s = state(r, above);
    const auto it = std::upper_bound(s.before.begin(), s.before.end(), x);
    const auto i = static_cast<std::size_t>(it - s.before.begin()) - 1;
    x -= s.before[i];
    h.push_back(s.rows[i]);
    r -= sum(s.rows[i]);
    above = s.rows[i];
  }
  return h;
}

}  // namespace chomp
