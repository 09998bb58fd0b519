/// @file share.cpp
/// @brief The split of work items between processes (share.hpp).

#include "share.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace chomp::detail {

std::vector<ItemRun> share_of(std::vector<ItemRun> classes, int processes, int me) {
  if (processes < 1 || me < 0 || me >= processes) throw std::invalid_argument("share_of: no such process");
  std::stable_sort(classes.begin(), classes.end(), [](const ItemRun& a, const ItemRun& b) { return a.weight > b.weight; });
  const auto P = static_cast<std::size_t>(processes), mine = static_cast<std::size_t>(me);
  std::vector<double> load(P, 0.0);
  std::vector<std::size_t> order(P);
  std::vector<ItemRun> share;
  for (const ItemRun& c : classes) {
    if (c.count == 0) continue;
    // Every process takes `each` items: every P-th from its own index on.
    const std::size_t each = c.count / P, left = c.count % P;
    if (each > 0) {
      for (double& l : load) l += static_cast<double>(each) * c.weight;
      share.push_back({c.first + mine * c.step, c.step * P, each, c.weight});
    }
    if (left == 0) continue;
    // The last `left` items go to the least loaded processes, in that order.
    std::iota(order.begin(), order.end(), std::size_t{0});
    auto lighter = [&](std::size_t a, std::size_t b) { return load[a] < load[b] || (load[a] == load[b] && a < b); };
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(left - 1), order.end(), lighter);
    std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(left), lighter);
    for (std::size_t k = 0; k < left; ++k) {
      load[order[k]] += c.weight;
      if (order[k] == mine) share.push_back({c.first + (each * P + k) * c.step, c.step, 1, c.weight});
    }
  }
  return share;
}

}  // namespace chomp::detail
