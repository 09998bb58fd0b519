/// @file cluster.hpp
/// @brief Running as one process of an MPI job (the optional MPI build,
/// CMake option CHOMP_WITH_MPI): start-up, the process group a distributed
/// Sieve works with, and stopping the whole job when one process fails.
///
/// Built without MPI, or started without an MPI launcher, a Cluster is this
/// process alone and MPI is never touched, so the same program serves
/// workstations and clusters.
#pragma once

#include <memory>
#include <string>

#include "chomp/process_group.hpp"

namespace chomp {

/// True when an MPI launcher (mpirun, mpiexec, srun) started this process.
bool started_by_mpi_launcher();
/// How many processes the launcher that started this one says the job has
/// (from its environment: Open MPI's, PMI's, PMIx under srun; 1 when no
/// launcher started it). Where Cluster's size is 1 under a launcher of
/// several (a build without MPI, or a launcher of another MPI library),
/// `chomp sieve` says that each process runs the whole sieve alone.
int launched_processes();

/// The processes of this run: MPI_COMM_WORLD when built with MPI and started
/// by an MPI launcher, this process alone otherwise. Make one, in the main
/// thread, before any other thread exists (MPI is initialised for use from
/// that thread only; the sieve's worker threads never call MPI).
class Cluster {
 public:
  Cluster();
  /// Finalises MPI. Every process must get here (or call abort()): MPI's
  /// finalisation waits for all of them.
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  /// This process's index, 0 .. size() - 1 (its MPI rank).
  int index() const;
  int size() const;
  /// Process 0: the one that reads and writes files and prints.
  bool leader() const { return index() == 0; }

  /// The group a distributed Sieve works with; nullptr for one process.
  ProcessGroup* group();

  /// Prints `why` on stderr, naming this process, then ends every process of
  /// the job (MPI_Abort) with exit_code. Without MPI: exits this process.
  [[noreturn]] void abort(const std::string& why, int exit_code) const;

  /// The MPI library, e.g. "Open MPI v4.1.4"; empty without MPI.
  std::string library_version() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};


}  // namespace chomp
