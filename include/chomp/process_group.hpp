/// @file process_group.hpp
/// @brief The processes that share one sieve run (the ranks of an MPI job),
/// seen through the few collective operations the sieve needs.
///
/// A distributed Sieve (sieve.hpp) splits each window of levels between the
/// processes of a group: each holds the bitmap of its own contiguous range of
/// segments, extends its share of the stored losing positions, sends every
/// mark to the process that owns the segment it lands in, scans its own
/// segments, and sends the losing ranks it found to process 0. Process 0
/// alone writes the losing store, a file every process reads; the others
/// learn where each new level's blocks lie from a broadcast, and none holds
/// a copy of the store (doc/MPI.md).
///
/// Every operation is collective: every process of the group calls the same
/// operations in the same order, and each returns only once all have called
/// it. The MPI build implements it over a communicator (cluster.hpp); the
/// tests implement it with threads of one process. Nothing here depends on
/// MPI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace chomp {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;

  /// This process's index, 0 .. size() - 1 (its MPI rank).
  virtual int index() const = 0;
  /// The number of processes.
  virtual int size() const = 0;

  /// Personalised all-to-all exchange: `send` holds, in process order, the
  /// send_counts[p] values meant for process p. On return `received` holds
  /// what every process sent to this one, in process order, and
  /// received_counts[p] how many came from process p.
  virtual void exchange(std::span<const std::uint64_t> send, std::span<const std::size_t> send_counts,
                        std::vector<std::uint64_t>& received, std::vector<std::size_t>& received_counts) = 0;

  /// Element-wise sum over the processes, in place (the spans have the same
  /// length on every process).
  virtual void sum(std::span<std::uint64_t> values) = 0;

  /// Process `root`'s values, on every process (the spans have the same
  /// length on every process).
  virtual void broadcast(std::span<std::uint64_t> values, int root) = 0;
};

}  // namespace chomp
