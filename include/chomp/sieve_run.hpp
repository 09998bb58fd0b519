/// @file sieve_run.hpp
/// @brief One batch run of the sieve into a result file and its store, new
/// or resumed: the provenance it records, the store it makes or continues,
/// the result file made as FILE.partial and named FILE once it is whole, the
/// levels it restores and computes, and what it leaves when it is stopped
/// or fails. `chomp sieve` is this class with a command line, locks, signals
/// and messages around it.
///
/// The steps, in order (the caller locks each file as it is made):
///
///     SieveRun run(request, resume);
///     run.open_store();     // made, or continued in place
///     run.open_file();      // FILE.partial
///     run.name_file();      // a new run: FILE.partial becomes FILE at once
///     run.restore(...);     // a resumed run: its levels checked, then FILE
///     run.make_sieve(...);
///     run.run(...);
///     run.finish();         // or stopped() / failed() when run() throws
///
/// A step called before a step it needs throws std::logic_error naming that
/// step (a new run whose file is never named would otherwise end as
/// FILE.partial alone); calling a step twice is not guarded.
///
/// A 3D run (request.dimensions = 3, sieve3d.hpp) makes its sieve first,
/// make_sieve3d() before restore(), which loads every trusted level's
/// ranks from the store into it; run() then stores each new level's ranks
/// (MacMahonRanking, macmahon_ranking.hpp) as the 2D sieve stores its own.
///
/// A kill at any point leaves a readable FILE, or none, and nothing writes
/// into a file whose writer was killed: a new run's file becomes FILE once
/// its empty datasets are made (a kill while HDF5 builds them would leave a
/// file it cannot open), a resumed run's once the trusted levels are copied
/// in.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/resume.hpp"
#include "chomp/sieve.hpp"
#include "chomp/sieve3d.hpp"

namespace chomp {

class ProcessGroup;  // process_group.hpp

/// What a run is asked for.
struct SieveRunRequest {
  std::string output;      ///< the result file
  std::string store_path;  ///< a new run's store, in output's folder; empty: store_path_for(output)
  int max_tiles = 0;
  int store_losing = 0;
  SieveOptions options;    ///< threads and memory_budget are recorded in the file
  int processes = 1;       ///< the MPI processes sharing the run (attribute mpi_ranks)
  std::string command_line;
  int dimensions = 2;      ///< 3: the 3D sieve, max_tiles cubes
  std::string mpi_library;  ///< the MPI library of the processes ("" for one: attribute mpi_library)
};

class SieveRun {
 public:
  /// A run of `request`; `resume` is the run in request.output to continue
  /// (a Resume made on it), or null for a new run. Makes the provenance
  /// the file will carry; writes nothing. Throws std::invalid_argument for
  /// request.dimensions other than 2 or 3, and for a store_path outside
  /// output's folder (the file names its store relative to that folder).
  SieveRun(SieveRunRequest request, std::unique_ptr<Resume> resume);
  ~SieveRun();
  SieveRun(const SieveRun&) = delete;
  SieveRun& operator=(const SieveRun&) = delete;

  /// Whether the run continues the run in its output.
  bool resuming() const { return resuming_; }
  const Provenance& provenance() const { return provenance_; }

  /// A new run makes its store; a resumed one continues it in place, cut
  /// back to its last trusted level. Throws std::runtime_error (a store's
  /// error) or ResumeRefused.
  void open_store();
  /// Makes the result file as partial_path(). Throws H5Error, and
  /// std::invalid_argument for a max_tiles the file cannot hold
  /// (LevelFileWriter).
  void open_file();
  /// A new run: renames FILE.partial to FILE (its datasets are made).
  void name_file();
  const std::string& partial_path() const { return partial_; }

  /// A resumed run: checks every trusted level of the store and copies its
  /// row into the new file (checking(n, levels) as level n is checked), then
  /// renames FILE.partial to FILE. Throws SieveInterrupted when *stop is
  /// raised, ResumeRefused when the store disagrees.
  void restore(const std::function<void(int n, int levels)>& checking, const std::atomic<bool>* stop);
  /// The levels restore() checked, and the seconds it took.
  int restored_levels() const { return restored_levels_; }
  double restore_seconds() const { return restore_seconds_; }

  const LosingStore& store() const { return *store_; }

  /// The sieve over the store (group: the processes of an MPI run, or
  /// nullptr), stopped when *stop is raised.
  Sieve& make_sieve(ProcessGroup* group, const std::atomic<bool>* stop);
  /// A 3D run's sieve (before restore()), stopped when *stop is raised.
  Sieve3d& make_sieve3d(const std::atomic<bool>* stop);
  /// Throws std::logic_error before make_sieve3d().
  const Sieve3d& sieve3d() const {
    if (!sieve3d_) throw std::logic_error("SieveRun::sieve3d() before make_sieve3d()");
    return *sieve3d_;
  }
  /// Computes the remaining levels, each saved (losing positions, then its
  /// row) before on_level is called. A 3D level's seconds include storing
  /// its ranks.
  void run(const std::function<void(const LevelResult&)>& on_level, const ProgressFn& progress);
  /// Seconds of the levels this run computed (their own and their windows').
  double compute_seconds() const { return compute_seconds_; }
  /// Throws std::logic_error before make_sieve().
  const Sieve& sieve() const {
    if (!sieve_) throw std::logic_error("SieveRun::sieve() before make_sieve()");
    return *sieve_;
  }
  bool has_sieve() const { return sieve_ != nullptr; }

  /// Records status "complete" and closes the file.
  void finish();

  /// After SieveInterrupted: false when there is no file yet (a store that
  /// open_store() made stays), or the run stopped while the old file was
  /// being checked (FILE.partial is removed; FILE is untouched); true
  /// when FILE is finished with status "interrupted" (or left as a kill
  /// would leave it, status "running", when its disk, or its size limit,
  /// has no room to record the status: left_status()).
  bool stopped();
  /// The levels finished when a run stopped.
  int levels_done() const;

  /// After any other failure `e`: false when there was no file yet, or it
  /// was still FILE.partial (it is removed); else FILE is left as `e` requires: a
  /// failed write leaves it as a kill would (status "running": closing would
  /// write HDF5's superblock over the failed writes), a full store disk
  /// "interrupted", anything else "failed"; but a disk with less than
  /// config::kFinishRoomBytes free, or a file within
  /// config::kFinishRoomUnderLimit of its size limit (ulimit -f), leaves it
  /// "running" too (left_status()).
  bool failed(const std::exception& e);
  /// The status stopped() or failed() left the file with.
  const std::string& left_status() const { return left_status_; }
  /// The levels the result file holds.
  std::uint64_t rows() const { return out_ ? out_->rows() : 0; }

 private:
  SieveRunRequest request_;
  std::unique_ptr<Resume> resume_;  // until restore()
  bool resuming_;
  Provenance provenance_;
  std::string partial_;
  std::string left_status_ = "running";
  void finish_or_leave(const std::string& status);
  bool named() const;  // the file is made and named FILE
  // Declared in this order so that the sieve goes before the file and the
  // store it reads.
  std::unique_ptr<LosingStore> store_;
  std::optional<LevelFileWriter> out_;
  std::unique_ptr<Sieve> sieve_;
  std::unique_ptr<Sieve3d> sieve3d_;
  int restored_levels_ = 0;
  double restore_seconds_ = 0;
  double compute_seconds_ = 0;
};

}  // namespace chomp
