/// @file sieve_cluster.hpp
/// @brief `chomp sieve` as an MPI job: process 0 leads (it checks the
/// arguments, reads and writes the result file and prints), the others
/// follow its decision and take their share of every level.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include <span>

#include "chomp/cluster.hpp"
#include "chomp/sieve.hpp"

namespace chomp::app {

/// One `chomp sieve` run across the processes of an MPI job (or this
/// process alone: then every call below is a no-op and guard() just runs
/// the body).
class ClusterRun {
 public:
  bool leader() const { return cluster_.leader(); }
  int processes() const { return cluster_.size(); }
  /// The MPI library ("Open MPI v4.1.4"); empty without MPI.
  std::string mpi_library() const { return cluster_.library_version(); }
  /// For the leader's Sieve; nullptr for one process.
  ProcessGroup* group() { return cluster_.group(); }

  /// Runs body (the leader's or a follower's part of the run) on this
  /// process. Until start(), a failure or an early return on the leader is
  /// passed on to the followers, which end quietly, and every process
  /// finalises MPI; once the processes work on one sieve they wait for each
  /// other, so a failure on any of them stops the whole job (MPI_Abort) with
  /// the reason on stderr instead of leaving the others waiting.
  int guard(const std::function<int()>& body);

  /// Leader: the followers make a sieve to max_tiles with these options
  /// (the leader's budget and tuning: every process must plan the same
  /// windows), over the store at store_path (the run run_id) whose
  /// finished levels are `levels`, opened for reading. From here on the
  /// processes work in step.
  void start(int max_tiles, const SieveOptions& options, const std::string& store_path, const std::string& run_id,
             std::span<const StoredLevel> levels);

  /// Follower: waits for the leader's decision, then runs its share of the
  /// same sieve with `threads` threads (0: all cores). Returns 0, also when
  /// the leader decided against a run (it says why); throws
  /// SieveInterrupted when the run is stopped.
  int follow(int threads, const std::atomic<bool>* stop);

 private:
  void cancel();
  Cluster cluster_;
  bool started_ = false;
};

}  // namespace chomp::app
