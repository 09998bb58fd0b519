/// @file sieve_cluster.hpp
/// @brief `chomp sieve` as an MPI job: process 0 leads (it checks the
/// arguments, reads and writes the result file and prints), the others
/// follow its decision and take their share of every level.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "chomp/cluster.hpp"

namespace chomp::app {

/// One `chomp sieve` run across the processes of an MPI job (or this
/// process alone: then every call below is a no-op and guard() just runs
/// the body).
class ClusterRun {
 public:
  bool leader() const { return cluster_.leader(); }
  int processes() const { return cluster_.size(); }
  /// For the leader's Sieve; nullptr for one process.
  ProcessGroup* group() { return cluster_.group(); }

  /// Runs body (the leader's or a follower's part of the run) on this
  /// process. Until start(), a failure or an early return on the leader is
  /// passed on to the followers, which end quietly, and every process
  /// finalises MPI; once the processes work on one sieve they wait for each
  /// other, so a failure on any of them stops the whole job (MPI_Abort) with
  /// the reason on stderr instead of leaving the others waiting.
  int guard(const std::function<int()>& body);

  /// Leader: the followers make a sieve to max_tiles and, resuming, follow
  /// the restoring of `restored` levels (Resume::restore). From here on the
  /// processes work in step.
  void start(int max_tiles, int restored);

  /// Follower: waits for the leader's decision, then runs its share of the
  /// same sieve with `threads` threads (0: all cores). Returns 0, also when
  /// the leader decided against a run (it says why); throws
  /// SieveInterrupted when the run is stopped.
  int follow(int threads, const std::atomic<bool>* stop);

  /// Leader, once the result file is closed: records how many processes
  /// computed it (root attribute mpi_ranks).
  void record(const std::string& output) const;

 private:
  void cancel();
  Cluster cluster_;
  bool started_ = false;
};

}  // namespace chomp::app
