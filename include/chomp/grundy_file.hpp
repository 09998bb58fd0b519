/// @file grundy_file.hpp
/// @brief The HDF5 file of `chomp grundy`: per level, the number of
/// positions with each Grundy value, with provenance.
///
/// Layout (format "chomp-grundy", format_version 1; doc/FILE_FORMAT.md):
///
///     /levels/tiles          uint32  [L]      tile count n
///     /levels/positions      uint64  [L]      p(n)
///     /levels/grundy_counts  uint64  [L, V]   positions of level n with value g (column g,
///                                             V = max_tiles: values 0 .. max_tiles - 1)
///     /levels/largest_value  uint32  [L]      the largest value of the level (n - 1)
///     /levels/value_zero     uint64  [L]      positions of value 0 = the losing ones, L(n)
///     /levels/seconds        float64 [L]      wall time of the level
///
/// Root attributes (doc/FILE_FORMAT.md has them all): those of every result
/// file (program, version, git_revision, compiler, build_type, hdf5_version,
/// tbb_version, host, license, references), format, format_version, convention, command_line, max_tiles (the run's
/// target N), threads, memory_bytes, start_utc, end_utc ("" while running),
/// checked_against (the sieve file whose L(n) the zeros were compared with,
/// or ""), checked_to_level (the last level compared with that file and
/// found equal: levels above it are not checked; 0 without one),
/// first_git_revision (of the program that started the file),
/// resume_history (a line per resume, or ""), status and complete.
/// The file is rewritten whole after every level (to NAME.tmp, then renamed),
/// so a kill at any moment leaves its last finished level readable:
///
///     status        complete  the levels present
///     "running"     0         1..k: the run was killed, or is running
///     "interrupted" 0         1..k: stopped by SIGINT, SIGTERM or SIGUSR1
///     "failed"      0         1..k: stopped by an error (a --check-sieve difference)
///     "complete"    1         1..max_tiles
///
/// `chomp grundy --resume` continues any of the first three.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "chomp/grundy.hpp"

namespace chomp {

inline constexpr int kGrundyFormatVersion = 1;

/// The convention every Grundy file and output states.
inline constexpr const char* kGrundyConvention =
    "the poisoned tile is never taken: the single poisoned tile has value 0, G = mex over the moves "
    "other than taking (1,1), and G = 0 exactly for the losing positions";

struct GrundyProvenance {
  std::string command_line;  ///< of the run that started the file
  int threads = 0;
  std::string start_utc;
  std::string checked_against;
  std::string resume_history;  ///< a line per resume, "" for a run never resumed
  int checked_to_level = 0;  ///< levels 1..this are compared with checked_against (0: none)
  /// The revision of the build that started the file ("": this build's,
  /// for a new run); a resume keeps it while replacing git_revision.
  std::string first_git_revision;
};

/// Writes levels 1..levels.size() (in order) of a run to max_tiles with a
/// status (the table above), whole, to PATH.tmp and then renamed over PATH.
/// Throws H5Error, std::logic_error for "complete" without every level, and
/// std::invalid_argument, writing nothing, for max_tiles outside
/// 1..kMaxTiles, more levels than max_tiles, rows that are not levels 1, 2,
/// ... in order, or a status other than complete, interrupted, failed or
/// running.
void write_grundy_file(const std::string& path, int max_tiles, const std::vector<GrundyLevel>& levels,
                       const GrundyProvenance& prov, const std::string& status = "complete");

struct GrundyFile {
  std::vector<std::uint32_t> tiles;
  std::vector<std::uint64_t> positions;
  std::vector<std::vector<std::uint64_t>> counts;  ///< [level][value], every row max_tiles long
  std::vector<std::uint32_t> largest;
  std::vector<std::uint64_t> zeros;
  std::vector<double> seconds;
  std::map<std::string, std::string> text_attributes;
  std::map<std::string, std::int64_t> number_attributes;
};

/// Reads a Grundy file; throws H5Error if it is missing or not one, or if a
/// row contradicts itself (its level, counts that do not add up to p(n), a
/// largest value or value-0 count its counts do not give).
GrundyFile read_grundy_file(const std::string& path);

/// True when `path` says it is a Grundy file (root attribute format), whole
/// or damaged; false for any other file or one that cannot be opened.
bool is_grundy_file(const std::string& path);

/// What a Grundy file offers `chomp grundy --resume`, after every check
/// that needs no values: its levels are 1, 2, ... in order, each with the
/// engine's p(n), counts that sum to p(n), a largest value that is the
/// last non-zero count and a value_zero that is the count of value 0.
struct GrundyResumeState {
  int file_max_tiles = 0;  ///< the max_tiles the file was started with
  int max_tiles = 0;       ///< the resumed run's target
  bool complete = false;
  std::string status;
  GrundyProvenance provenance;     ///< the file's, for the continued file
  std::vector<GrundyLevel> saved;  ///< the file's rows, levels 1..saved.size()
};

/// Opens and checks a Grundy file to resume it; requested_max_tiles 0
/// takes the file's. Throws ResumeRefused (resume.hpp) when the file
/// cannot be resumed (not a Grundy file, another format_version, rows that
/// contradict the engine: damaged) and ResumeMismatch when
/// requested_max_tiles is below the file's max_tiles; std::invalid_argument
/// for requested_max_tiles outside 0..kMaxTiles.
GrundyResumeState check_grundy_resume(const std::string& path, int requested_max_tiles);

/// The file keeps counts, not values, so a resumed run computes the saved
/// levels again; this throws ResumeRefused unless the recomputed level has
/// the file's positions, count of every value and largest value.
void check_recomputed_level(const GrundyResumeState& state, const GrundyLevel& recomputed, const std::string& path);

}  // namespace chomp
