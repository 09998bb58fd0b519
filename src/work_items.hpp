/// @file work_items.hpp
/// @brief The work of one marking pass, numbered without being listed:
/// parts of the store's blocks of sources, each with a range of target
/// levels, shared between processes and taken heaviest first.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "share.hpp"

namespace chomp::detail {

/// Sources of one level to extend into window levels lo..hi: part `part`
/// of store block `block`, the block's entries part * sources ..
/// (part + 1) * sources - 1.
struct WorkItem {
  int level = 0;
  std::size_t block = 0;
  int part = 0;
  std::size_t sources = 0;  ///< sources per part of the block
  int lo = 0, hi = 0;
};

/// Where the rest of an item starts: its source `source` (an index into
/// the part), from target level `level` on.
struct ItemPosition {
  std::size_t source = 0;
  int level = 0;
};

/// An item, or what is left of one.
struct Piece {
  WorkItem item;
  ItemPosition from;
};

/// The rests of items that a thread left when it reached its share of a
/// round (one source of a low level extended into a window of many levels
/// can file more than a whole round's budget: 1.5 GiB of buckets at
/// N = 126 before items were cut). Any thread takes them up, before new
/// items, in the next round.
class Remainders {
 public:
  void put(const Piece& p);
  bool take(Piece& p) {
    if (size_.load(std::memory_order_relaxed) == 0) return false;  // the usual case: no lock
    return take_locked(p);
  }
  /// Between rounds (no thread is taking or putting).
  bool empty() const { return size_.load() == 0; }
  void clear();
  /// Between rounds: the rests held (a checkpoint saves them), and rests
  /// put back from one (not counted as cuts).
  std::vector<Piece> pieces() const { return left_; }
  void restore(const std::vector<Piece>& pieces) {
    left_ = pieces;
    size_.store(left_.size());
  }

 private:
  bool take_locked(Piece& p);
  std::mutex mutex_;
  std::vector<Piece> left_;
  std::atomic<std::size_t> size_{0};
};

/// The sources of one level that a pass extends: blocks [block0, block1)
/// of the store's level, each cut into `parts` parts of `sources` entries.
struct SourceSpan {
  int level = 0;
  std::size_t block0 = 0, block1 = 0;
  int parts = 1;
  std::size_t sources = 0;  ///< entries per part (the last part of a block may have fewer, or none)
};

/// The work items of one pass: for every source span in order, every part
/// of every block, each cut into `pieces` ranges of the target levels
/// lo..hi. (Opening a window at n = 150 extends 71 million chunks of 64
/// sources: 1.14 GB as a list of items, which no memory plan counted.)
struct ItemList {
  int lo = 1, hi = 0, pieces = 1;
  std::vector<SourceSpan> spans;
  std::vector<std::size_t> first;  // first item of each span; last entry: the count

  std::size_t size() const { return first.empty() ? 0 : first.back(); }

  void add(const SourceSpan& s) {
    if (first.empty()) first.push_back(0);
    spans.push_back(s);
    first.push_back(first.back() + (s.block1 - s.block0) * static_cast<std::size_t>(s.parts) *
                                       static_cast<std::size_t>(pieces));
  }

  WorkItem operator[](std::size_t i) const {
    const auto l = static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), i) - first.begin()) - 1;
    const SourceSpan& s = spans[l];
    std::size_t j = i - first[l];
    const int p = static_cast<int>(j % static_cast<std::size_t>(pieces)), levels = hi - lo + 1;
    j /= static_cast<std::size_t>(pieces);
    WorkItem it;
    it.level = s.level;
    it.part = static_cast<int>(j % static_cast<std::size_t>(s.parts));
    it.block = s.block0 + j / static_cast<std::size_t>(s.parts);
    it.sources = s.sources;
    it.lo = lo + levels * p / pieces;
    it.hi = lo + levels * (p + 1) / pieces - 1;
    return it;
  }
};

/// One process's share of a pass's items (share.hpp), numbered: runs of
/// items of the whole list, in the order they are to be taken.
class ShareList {
 public:
  ShareList(const ItemList& all, std::vector<ItemRun> runs) : all_(all), runs_(std::move(runs)) {
    first_.push_back(0);
    for (const auto& r : runs_) first_.push_back(first_.back() + r.count);
  }

  std::size_t size() const { return first_.back(); }

  /// The sum of work(item) over the share's items [0, end), for a work
  /// estimate that is the same for every item of a class (of a run).
  template <class Work>
  double work_before(std::size_t end, Work&& work) const {
    double sum = 0;
    for (std::size_t r = 0; r < runs_.size() && first_[r] < end; ++r)
      sum += static_cast<double>(std::min(end, first_[r + 1]) - first_[r]) * work(all_[runs_[r].first]);
    return sum;
  }

  WorkItem operator[](std::size_t i) const {
    const auto r = static_cast<std::size_t>(std::upper_bound(first_.begin(), first_.end(), i) - first_.begin()) - 1;
    return all_[runs_[r].first + (i - first_[r]) * runs_[r].step];
  }

 private:
  const ItemList& all_;
  std::vector<ItemRun> runs_;
  std::vector<std::size_t> first_;  // first share item of each run; last entry: the count
};

}  // namespace chomp::detail
