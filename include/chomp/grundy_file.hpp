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
/// Root attributes: those of every result file (program, version,
/// git_revision, compiler, build_type, hdf5_version, tbb_version, host),
/// format, format_version, convention, command_line, max_tiles, threads,
/// memory_bytes, start_utc, end_utc, checked_against (the sieve file whose
/// L(n) the zeros were compared with, or ""), complete = 1, status
/// "complete". The file is written whole when the run ends (to NAME.tmp,
/// then renamed), so a file that exists is complete.
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
  std::string command_line;
  int threads = 0;
  std::string start_utc;
  std::string checked_against;
};

/// Writes the levels (1..N, in order) as a complete file; throws H5Error.
void write_grundy_file(const std::string& path, int max_tiles, const std::vector<GrundyLevel>& levels,
                       const GrundyProvenance& prov);

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

/// Reads a Grundy file; throws H5Error if it is missing or not one.
GrundyFile read_grundy_file(const std::string& path);

}  // namespace chomp
