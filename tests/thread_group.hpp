/// @file thread_group.hpp
/// @brief A ProcessGroup whose processes are threads of this process: the
/// distributed sieve tested (and its traffic measured) without MPI.
#pragma once

#include <atomic>
#include <barrier>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "chomp/process_group.hpp"

namespace chomp::testing {

/// `size` simulated processes. run() starts one thread per process, each
/// with its own ProcessGroup; collective calls meet at a barrier, where each
/// reads what the others posted, as MPI would have carried it.
class ThreadGroups {
 public:
  explicit ThreadGroups(int size) : size_(size), barrier_(size), posts_(static_cast<std::size_t>(size)) {}

  /// Calls body(group) on one thread per process and waits for all.
  void run(const std::function<void(ProcessGroup&)>& body) {
    std::vector<std::thread> threads;
    std::vector<Member> members;
    members.reserve(static_cast<std::size_t>(size_));
    for (int i = 0; i < size_; ++i) members.emplace_back(*this, i);
    for (int i = 0; i < size_; ++i) threads.emplace_back([&, i] { body(members[static_cast<std::size_t>(i)]); });
    for (auto& t : threads) t.join();
  }

  /// Bytes the processes sent to each other so far (what MPI would carry).
  std::uint64_t bytes_sent() const { return bytes_.load(); }

 private:
  struct Post {
    const std::uint64_t* values = nullptr;
    const std::size_t* counts = nullptr;
    std::uint64_t* mutable_values = nullptr;
  };

  class Member final : public ProcessGroup {
   public:
    Member(ThreadGroups& all, int index) : all_(all), index_(index) {}
    int index() const override { return index_; }
    int size() const override { return all_.size_; }

    void exchange(std::span<const std::uint64_t> send, std::span<const std::size_t> send_counts,
                  std::vector<std::uint64_t>& received, std::vector<std::size_t>& received_counts) override {
      const auto P = static_cast<std::size_t>(all_.size_), me = static_cast<std::size_t>(index_);
      all_.posts_[me] = Post{send.data(), send_counts.data(), nullptr};
      std::uint64_t sent = 0;
      for (std::size_t p = 0; p < P; ++p)
        if (p != me) sent += send_counts[p] * sizeof(std::uint64_t);
      all_.bytes_ += sent;
      all_.barrier_.arrive_and_wait();
      received.clear();
      received_counts.assign(P, 0);
      for (std::size_t q = 0; q < P; ++q) {
        const Post& from = all_.posts_[q];
        std::size_t at = 0;
        for (std::size_t p = 0; p < me; ++p) at += from.counts[p];
        received.insert(received.end(), from.values + at, from.values + at + from.counts[me]);
        received_counts[q] = from.counts[me];
      }
      all_.barrier_.arrive_and_wait();
    }

    void sum(std::span<std::uint64_t> values) override {
      all_.posts_[static_cast<std::size_t>(index_)] = Post{values.data(), nullptr, nullptr};
      all_.barrier_.arrive_and_wait();
      std::vector<std::uint64_t> total(values.size(), 0);
      for (const Post& from : all_.posts_)
        for (std::size_t i = 0; i < values.size(); ++i) total[i] += from.values[i];
      all_.bytes_ += values.size() * sizeof(std::uint64_t) * static_cast<std::uint64_t>(all_.size_ - 1);
      all_.barrier_.arrive_and_wait();  // everyone has read the values before they change
      std::copy(total.begin(), total.end(), values.begin());
    }

    void broadcast(std::span<std::uint64_t> values, int root) override {
      all_.posts_[static_cast<std::size_t>(index_)] = Post{nullptr, nullptr, values.data()};
      all_.barrier_.arrive_and_wait();
      if (index_ != root) {
        const std::uint64_t* from = all_.posts_[static_cast<std::size_t>(root)].mutable_values;
        std::copy(from, from + values.size(), values.begin());
      } else {
        all_.bytes_ += values.size() * sizeof(std::uint64_t) * static_cast<std::uint64_t>(all_.size_ - 1);
      }
      all_.barrier_.arrive_and_wait();
    }

   private:
    ThreadGroups& all_;
    int index_;
  };

  int size_;
  std::barrier<> barrier_;
  std::vector<Post> posts_;
  std::atomic<std::uint64_t> bytes_{0};
};

}  // namespace chomp::testing
