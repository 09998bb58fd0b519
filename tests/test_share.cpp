/// @file test_share.cpp
/// @brief The split of a pass's work items between processes (share.hpp):
/// every item goes to exactly one process, loads stay within one item of
/// each other, and each process takes its heaviest items first.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "share.hpp"
#include "work_items.hpp"

using chomp::detail::ItemRun;
using chomp::detail::share_of;

namespace {

/// Classes shaped like a pass's: per level and piece of targets, a run of
/// full chunks (step = pieces) and the last chunk, with weights that differ
/// by orders of magnitude and repeat.
std::vector<ItemRun> pass_like_classes(std::mt19937_64& rng, std::size_t* items) {
  std::vector<ItemRun> classes;
  const std::size_t pieces = 1 + rng() % 4;
  std::size_t first = 0;
  for (int level = 0; level < 12; ++level) {
    const std::size_t chunks = 1 + rng() % 40;
    for (std::size_t p = 0; p < pieces; ++p) {
      const double per_source = static_cast<double>(1u << (rng() % 12));
      if (chunks > 1) classes.push_back({first + p, pieces, chunks - 1, 64 * per_source});
      classes.push_back({first + p + (chunks - 1) * pieces, pieces, 1, static_cast<double>(1 + rng() % 64) * per_source});
    }
    first += chunks * pieces;
  }
  *items = first;
  return classes;
}

}  // namespace

TEST(Share, EveryItemGoesToExactlyOneProcessAndLoadsStayWithinOneItem) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    std::size_t items = 0;
    const std::vector<ItemRun> classes = pass_like_classes(rng, &items);
    std::map<std::size_t, double> weight;  // item -> its class's weight
    double heaviest = 0;
    for (const ItemRun& c : classes)
      for (std::size_t k = 0; k < c.count; ++k) weight[c.first + k * c.step] = c.weight, heaviest = std::max(heaviest, c.weight);
    ASSERT_EQ(weight.size(), items);
    for (int processes : {1, 2, 3, 5, 16, 100}) {
      std::vector<int> owner(items, -1);
      std::vector<double> load(static_cast<std::size_t>(processes), 0.0);
      for (int me = 0; me < processes; ++me) {
        const std::vector<ItemRun> share = share_of(classes, processes, me);
        for (std::size_t r = 0; r < share.size(); ++r) {
          if (r > 0) {
            EXPECT_GE(share[r - 1].weight, share[r].weight) << "heaviest first";
          }
          for (std::size_t k = 0; k < share[r].count; ++k) {
            const std::size_t item = share[r].first + k * share[r].step;
            ASSERT_LT(item, items);
            EXPECT_EQ(owner[item], -1) << "item " << item << " given twice";
            owner[item] = me;
            EXPECT_EQ(share[r].weight, weight[item]) << "item " << item << " carries its class's weight";
            load[static_cast<std::size_t>(me)] += weight[item];
          }
        }
      }
      EXPECT_EQ(std::count(owner.begin(), owner.end(), -1), 0) << processes << " processes leave items out";
      const auto [lo, hi] = std::minmax_element(load.begin(), load.end());
      EXPECT_LE(*hi - *lo, heaviest) << processes << " processes, trial " << trial;
    }
  }
}

TEST(Share, AShareIsAFewRunsWhateverTheItemCount) {
  // 71 million items of one weight (as many as a whole pass has when a
  // window opens at n = 150): each of 3 processes gets one run of every
  // third item, and the two left over go to processes 0 and 1.
  const std::vector<ItemRun> classes{{0, 1, 71'000'000, 64.0}, {71'000'000, 1, 1, 3.0}};
  const auto a = share_of(classes, 3, 0), b = share_of(classes, 3, 1), c = share_of(classes, 3, 2);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].first, 0u);
  EXPECT_EQ(a[0].step, 3u);
  EXPECT_EQ(a[0].count, 23'666'666u);
  EXPECT_EQ(a[1].first, 70'999'998u);  // the first of the two left over: process 0 and 1 each take one
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1].first, 70'999'999u);
  ASSERT_EQ(c.size(), 2u);  // and the light last item goes to the one that took fewer
  EXPECT_EQ(c[1].first, 71'000'000u);
  EXPECT_EQ(c[1].count, 1u);
}

TEST(Share, RejectsAProcessOutsideTheGroup) {
  EXPECT_THROW(share_of({}, 0, 0), std::invalid_argument);
  EXPECT_THROW(share_of({}, 2, 2), std::invalid_argument);
  EXPECT_THROW(share_of({}, 2, -1), std::invalid_argument);
}

TEST(Share, WorkBeforeAnItemSumsTheWorkOfTheItemsTakenBefore) {
  // What a pass's progress counts (marking.cpp, ProgressThrottle): the
  // estimated work of a share's first i items, summed run by run, against
  // the items one by one, for every i, with one process and with three.
  chomp::detail::ItemList all;
  all.lo = 10, all.hi = 13, all.pieces = 2;
  for (int level = 5; level <= 7; ++level) {
    chomp::detail::SourceSpan span;
    span.level = level, span.block0 = 0, span.block1 = static_cast<std::size_t>(level - 3);
    span.parts = level == 6 ? 4 : 1, span.sources = 64;
    all.add(span);
  }
  // The work of an item depends on its class (level and piece of targets).
  const auto work = [](const chomp::detail::WorkItem& it) { return 1000.0 * it.level + it.lo; };
  for (int processes : {1, 3}) {
    std::vector<ItemRun> classes;
    for (std::size_t l = 0; l < all.spans.size(); ++l)
      for (std::size_t p = 0; p < 2; ++p)
        classes.push_back({all.first[l] + p, 2, (all.first[l + 1] - all.first[l]) / 2, static_cast<double>(l * 2 + p)});
    for (int me = 0; me < processes; ++me) {
      const chomp::detail::ShareList share(all, share_of(classes, processes, me));
      double sum = 0;
      for (std::size_t i = 0; i <= share.size(); ++i) {
        EXPECT_DOUBLE_EQ(share.work_before(i, work), sum) << "i = " << i << ", process " << me << " of " << processes;
        if (i < share.size()) sum += work(share[i]);
      }
      EXPECT_GT(sum, 0);
    }
  }
}
