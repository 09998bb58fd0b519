/// @file h5_output.hpp
/// @brief The sieve's HDF5 result file: one row per level, provenance attributes.
///
/// Layout (format_version 1; the README documents it for users):
///
///     /levels/tiles             uint32   tile count n
///     /levels/positions         uint64   p(n)
///     /levels/losing            uint64   L(n)
///     /levels/losing_fraction   float64  L(n) / p(n)
///     /levels/hypothesis_ratio  float64  L(n) / (p(n) / ln p(n)), NaN where ln p(n) = 0
///     /levels/seconds           float64  wall time of the level
///     /levels/marks             uint64   winning marks applied (work counter)
///
/// Every dataset is 1-D, chunked, extendible, Fletcher-32 checksummed, and has
/// a `description` attribute. Rows are appended and the file flushed as each
/// level completes, so a killed run keeps every finished level.
///
/// With `chomp sieve --store-losing K`, the losing positions of levels 1..K
/// (K <= 63) are stored too, one dataset per level:
///
///     /losing_positions/level_NNN  uint64  one lattice path per losing position
///
/// Each value is the position's boundary path (position.hpp): bit k is step k
/// from the bottom-left corner, 1 = north, 0 = east; the highest set bit is
/// the final north step. Rows are read off by walking the bits: each north
/// step closes a row whose length is the number of east steps so far,
/// bottom row first. notebooks/chomp_positions.py has a decoder.
///
/// Root attributes: program, version, git_revision, format_version,
/// command_line, max_tiles, threads, store_losing, hdf5_version, tbb_version, compiler,
/// build_type, host, start_utc, end_utc, complete (1 only once every level
/// was written; 0 while running or after an interrupted run) and status
/// ("running", "complete", "interrupted" or "failed").
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <span>
#include <string>
#include <vector>

#include "chomp/sieve.hpp"

namespace chomp {

/// Any failure to create, write or read a result file; what() says which file
/// and what went wrong.
class H5Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kFormatVersion = 1;

/// Where a run came from; written as root attributes.
struct Provenance {
  std::string command_line;
  int max_tiles = 0;
  int threads = 0;
  int store_losing = 0;  ///< levels 1..store_losing keep their losing positions
  std::string start_utc;
};

/// Library and machine facts for provenance.
std::string utc_now();
std::string host_name();
std::string hdf5_version();
std::string tbb_version();

class LevelFileWriter {
 public:
  /// Creates (truncating) the file and writes the provenance with
  /// complete = 0 and status "running". Throws H5Error.
  LevelFileWriter(const std::string& path, const Provenance& provenance);
  ~LevelFileWriter();
  LevelFileWriter(const LevelFileWriter&) = delete;
  LevelFileWriter& operator=(const LevelFileWriter&) = delete;

  /// Appends one row to every dataset and flushes the file to disk.
  void append(const LevelResult& level);

  /// Stores the losing positions of level n as 64-bit lattice paths.
  void write_losing_positions(int n, std::span<const std::uint64_t> path_words);

  /// Records end_utc and status; complete = 1 only for status "complete".
  void finish(const std::string& status);

  const std::string& path() const { return path_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

/// A result file read back.
struct LevelTable {
  std::vector<std::uint32_t> tiles;
  std::vector<std::uint64_t> positions;
  std::vector<std::uint64_t> losing;
  std::vector<std::uint64_t> marks;
  std::vector<double> losing_fraction;
  std::vector<double> hypothesis_ratio;
  std::vector<double> seconds;
  std::map<std::string, std::string> text_attributes;    ///< string root attributes
  std::map<std::string, std::int64_t> number_attributes;  ///< integer root attributes
  bool complete() const;
};

/// The stored losing positions of level n (lattice path words); empty if
/// the level was not stored.
std::vector<std::uint64_t> read_losing_positions(const std::string& path, int n);

/// Reads a result file; throws H5Error if it is missing, unreadable or not a
/// result file of a known format version.
LevelTable read_level_file(const std::string& path);

}  // namespace chomp
