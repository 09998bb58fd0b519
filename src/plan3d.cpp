/// @file plan3d.cpp
/// @brief The memory and disk a 3D run needs (sieve3d.hpp's Sieve3dPlan):
/// the losing sets of the levels below the last, building the last, the
/// store; L(n) known from a resumed file or estimated from the measured
/// trend.

#include <algorithm>
#include <cmath>

#include "chomp/plane_ranking.hpp"
#include "chomp/sieve3d.hpp"
#include "config.hpp"
#include "store_impl.hpp"

namespace chomp {

std::uint64_t estimated_losing_3d(int n) {
  const std::vector<std::uint64_t> pl = plane_partition_counts(n);
  const double p = static_cast<double>(pl[static_cast<std::size_t>(n)]);
  if (p < 3) return pl[static_cast<std::size_t>(n)];
  const double r = 1.0 + 0.003 * std::max(0, n - 40);
  return std::min(pl[static_cast<std::size_t>(n)], static_cast<std::uint64_t>(std::ceil(r * p / std::log(p))));
}

namespace {

/// Words of a key of n cubes (3n bits at most), as the sieve keeps them.
std::uint64_t key_words(int n) { return static_cast<std::uint64_t>((3 * n + 63) / 64); }

}  // namespace

std::uint64_t losing_set_bytes(int n, std::uint64_t count) {
  // As ExactKeySet holds them: key_words(n) words a key, and a directory of
  // 2^b + 1 entries of 4 bytes, 2^b the least power of two from count / 2 + 1 (b >= 1).
  const std::uint64_t words = key_words(n);
  std::uint64_t buckets = 2;
  while (buckets < count / 2 + 1) buckets *= 2;
  return count * words * 8 + (buckets + 1) * 4;
}

Sieve3dPlan plan_sieve3d(int max_cubes, std::span<const std::uint64_t> known) {
  Sieve3dPlan plan;
  const std::vector<std::uint64_t> pl = plane_partition_counts(max_cubes);
  plan.first_estimated = max_cubes + 1;
  double store = 64;  // the header
  for (int n = 1; n <= max_cubes; ++n) {
    const bool is_known = static_cast<std::size_t>(n) <= known.size();
    const std::uint64_t losing = is_known ? known[static_cast<std::size_t>(n - 1)] : estimated_losing_3d(n);
    if (!is_known) plan.first_estimated = std::min(plan.first_estimated, n);
    if (losing > Sieve3dPlan::kMostLosingPerLevel && plan.first_too_large == 0) plan.first_too_large = n;
    plan.losing += losing;
    if (n < max_cubes)
      plan.sets_bytes += losing_set_bytes(n, losing);
    else
      plan.level_bytes = (plan.build_bytes_each = Sieve3dPlan::kBuildBytes + 8 * key_words(n)) * losing;
    // The store, as the 2D plan counts it (memory_plan.cpp).
    store += store_file::level_bytes_estimate(static_cast<double>(losing),
                                              static_cast<double>(pl[static_cast<std::size_t>(n)]));
  }
  plan.store_bytes = static_cast<std::uint64_t>(store);
  plan.result_bytes = (std::uint64_t{64} << 10) + static_cast<std::uint64_t>(max_cubes) * 1024;
  return plan;
}

}  // namespace chomp
