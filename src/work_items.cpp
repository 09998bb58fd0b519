/// @file work_items.cpp
/// @brief The rests of cut work items, shared between threads.

#include "work_items.hpp"

#include "sieve_testing.hpp"

namespace chomp::detail {

void Remainders::put(const Piece& p) {
  const std::lock_guard<std::mutex> lock(mutex_);
  left_.push_back(p);
  size_.store(left_.size());
  g_items_cut.fetch_add(1, std::memory_order_relaxed);
}

bool Remainders::take_locked(Piece& p) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (left_.empty()) return false;
  p = left_.back();
  left_.pop_back();
  size_.store(left_.size());
  return true;
}

void Remainders::clear() {
  const std::lock_guard<std::mutex> lock(mutex_);
  left_.clear();
  size_.store(0);
}

}  // namespace chomp::detail
