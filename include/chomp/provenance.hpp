/// @file provenance.hpp
/// @brief Where a result file came from: the run's parameters (Provenance,
/// written as root attributes of the sieve's result file) and the facts of
/// the library and machine that every file records.
#pragma once

#include <cstdint>
#include <string>

namespace chomp {

/// Where a run came from; written as root attributes.
struct Provenance {
  std::string command_line;
  int max_tiles = 0;
  int threads = 0;  ///< the threads the run used (SieveOptions::threads; 0: oneTBB's default, every core)
  int processes = 1;     ///< MPI processes sharing the run (attribute mpi_ranks)
  std::string mpi_library;  ///< their MPI library, e.g. "Open MPI v4.1.4" ("" for one process)
  int store_losing = 0;  ///< levels 1..store_losing keep their losing positions
  std::uint64_t memory_budget = 0;  ///< the sieve's budget in bytes (0: none)
  std::string store_file;  ///< the store's name, relative to the result file's folder
  std::string run_id;      ///< the store's id
  std::string start_utc;   ///< when the run started (utc_now(); LevelFileWriter records now where it is empty)
  std::string resume_history;  ///< empty for a run that was never resumed
  /// The revision of the build that started the run (attribute
  /// first_git_revision): git_revision and the other build attributes are
  /// the latest leg's. Empty: this build's (a new run).
  std::string first_git_revision;
  int dimensions = 2;  ///< 2: tiles (partitions); 3: cubes (plane partitions, sieve3d.hpp)
  /// "rows 1-2" or "row 1": the run inferred the marks of moves of those
  /// rows from bits (src/tail_marks.hpp), and its levels' `marks` leave
  /// them out; "none": it filed them (as every run before this attribute).
  /// A resumed leg that infers fewer rows than the legs before it says
  /// from which level on: "none from level 13; rows 1-2 below". The latest
  /// way of a file written by save_level must be its sieve's
  /// (sieve.plan().tail_rows rows: inferred_marks_text for a new file,
  /// continued_inferred_marks for a resumed one); save_level refuses
  /// otherwise.
  std::string inferred_marks = "none";
};

/// Provenance::inferred_marks for a run that infers the moves of its top
/// `rows` rows, and back: the rows of the latest way a text names ("none"
/// and anything unknown: 0).
std::string inferred_marks_text(int rows);
int inferred_rows_of(const std::string& text);
/// The attribute of a file whose levels 1..first_level-1 were counted as
/// `before` says, continued by a leg that infers `rows` rows: `before`
/// itself when the leg's way is the same, else the leg's way from
/// first_level on, then `before` ("none from level 13; rows 1-2 below").
std::string continued_inferred_marks(const std::string& before, int rows, int first_level);

/// Library and machine facts for provenance.
std::string utc_now();
std::string host_name();
std::string hdf5_version();
std::string tbb_version();

}  // namespace chomp
