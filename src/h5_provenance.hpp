/// @file h5_provenance.hpp
/// @brief Provenance as root attributes: the facts of the program that wrote
/// a file (every result file carries them) and the attributes of a sieve
/// run (its parameters, and its status as it starts and ends).
#pragma once

#include <hdf5.h>

#include <string>

#include "chomp/provenance.hpp"
#include "h5_util.hpp"

namespace chomp::h5 {

/// The provenance every result file carries about the program that wrote it:
/// program, version, git_revision, compiler, build_type, hdf5_version,
/// tbb_version, host, license and references.
void write_build_attributes(hid_t file);

/// A new file at `tmp` for a command that writes its result whole and then
/// renames it (`chomp grundy`, `chomp rectangles`): created (truncated), with
/// the build attributes and the root attribute format. Throws H5Error.
Handle create_whole_file(const std::string& tmp, const std::string& format);

/// A sieve run's root attributes after format_version: dimensions,
/// command_line, max_tiles, threads, mpi_ranks, mpi_library, store_losing,
/// memory_budget, store_file, run_id, start_utc, an empty end_utc,
/// resume_history, complete = 0 and status "running".
void write_run_attributes(hid_t file, const Provenance& provenance);

/// Whether a run's file may hold `status`: "complete", "interrupted",
/// "failed" or "running" (doc/FILE_FORMAT.md); no writer makes another.
bool known_status(const std::string& status);
/// The text that says so, for a message: "complete, interrupted, failed or running".
inline constexpr const char* kKnownStatuses = "complete, interrupted, failed or running";

/// Throws std::invalid_argument("WHO: dimensions is N; 2 (tiles) or 3
/// (cubes)") unless dimensions is 2 or 3.
void require_dimensions(int dimensions, const std::string& who);

/// The end of a run: end_utc, status, and complete = 1 only for status
/// "complete". Written over in place (SWMR writing allows that).
void write_end_attributes(hid_t file, const std::string& status);

}  // namespace chomp::h5
