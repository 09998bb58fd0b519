/// @file share.hpp
/// @brief How the processes of a distributed sieve share a pass's work
/// items, without listing them.
///
/// A pass has one work item per chunk of stored losing positions and piece
/// of target levels: 71 million when a window opens at n = 150. Items come
/// in few classes of equal estimated work (a level's full chunks for one
/// piece, and its last chunk), and the items of a class are numbered in
/// steps: first, first + step, ... So a share is a short list of such
/// runs, computed the same way by every process from the same classes.
#pragma once

#include <cstddef>
#include <vector>

namespace chomp::detail {

/// Items first, first + step, ..., count of them, each of estimated work
/// `weight`.
struct ItemRun {
  std::size_t first = 0;
  std::size_t step = 1;
  std::size_t count = 0;
  double weight = 0;
};

/// Process `me`'s share of the classes among `processes` processes, its
/// heaviest items first. The classes must not share items. Classes are
/// taken heaviest first (in their given order among equals); each process
/// gets the same number of a class's items (every processes-th, starting at
/// its own index), and the few left over go one each to the least loaded
/// processes (lowest index among equals). Shares are disjoint, cover every item, and their loads differ
/// by at most the heaviest item's weight.
std::vector<ItemRun> share_of(std::vector<ItemRun> classes, int processes, int me);

}  // namespace chomp::detail
