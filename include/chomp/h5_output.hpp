/// @file h5_output.hpp
/// @brief The sieve's HDF5 result file: one row per level, provenance
/// attributes, and where the run's store keeps each level's losing positions.
///
/// Layout (format_version 3; doc/FILE_FORMAT.md is the one place it is
/// specified):
///
///     /levels/tiles             uint32   tile count n
///     /levels/positions         uint64   p(n)
///     /levels/losing            uint64   L(n)
///     /levels/losing_fraction   float64  L(n) / p(n)
///     /levels/hypothesis_ratio  float64  L(n) / (p(n) / ln p(n)), NaN where ln p(n) = 0
///     /levels/seconds           float64  wall time of the level's own work
///     /levels/marks             uint64   winning marks applied (work counter)
///     /levels/window_seconds    float64  the pass that opened the level's window (first level of a window)
///     /levels/slices            uint32   slices the level was finished in
///     /levels/store_trailer     uint64   where the level's trailer starts in the store file
///     /levels/losing_digest     uint64   digest of the level's losing ranks (losing_store.hpp)
///
/// Every dataset is 1-D, chunked (one row per chunk, never rewritten),
/// extendible, Fletcher-32 checksummed, and has a `description` attribute.
/// The losing positions themselves are in the run's store file
/// (losing_store.hpp), named by the root attribute store_file (relative to
/// the result file's folder) and tied to it by run_id; a level's row is
/// written only once the store holds the level durably, so a row never
/// exists without its losing positions.
///
/// The file is written in HDF5's single-writer/multiple-reader (SWMR) mode:
/// HDF5 then orders its metadata writes so that the file on disk is readable
/// at every instant, which is what lets a run killed at any moment (SIGKILL,
/// power to the process cut) keep every finished level. A file whose writer
/// was killed still carries HDF5's "open for SWMR writing" mark: this
/// library reads it, `chomp sieve --resume` continues it, and other tools
/// need `h5clear -s FILE` first (or h5py's `swmr=True`).
///
/// With `chomp sieve --store-losing K`, the losing positions of levels 1..K
/// (K <= 63) are stored in the result file too, one dataset per level
/// (empty until the level is finished):
///
///     /losing_positions/level_NNN  uint64  one lattice path per losing position
///
/// Each value is the position's boundary path (position.hpp): bit k is step k
/// from the bottom-left corner, 1 = north, 0 = east; the highest set bit is
/// the final north step. Rows are read off by walking the bits: each north
/// step closes a row whose length is the number of east steps so far,
/// bottom row first. python/chomp_results has a decoder (decode_path,
/// read_losing_positions).
///
/// Root attributes (doc/FILE_FORMAT.md has each one's meaning): program,
/// version, git_revision, license, references, format_version,
/// dimensions (2, or 3 for a table of 3D Chomp by cube count, whose
/// positions column is PL(n) and whose store keeps MacMahonRanking's
/// ranks), command_line, max_tiles, threads, mpi_ranks, mpi_library, store_losing, memory_budget,
/// inferred_marks, store_file, run_id, first_git_revision, hdf5_version, tbb_version, compiler, build_type,
/// host, start_utc, end_utc, resume_history (one line per `--resume`: when,
/// which levels were restored, threads, the resuming program's version and
/// git revision, command line; the build attributes are those of the
/// program that wrote the file last), complete (1 only once every level was
/// written; 0 while running or after an interrupted run) and status
/// ("running", "complete", "interrupted" or "failed"; a killed run stays
/// "running").
///
/// Files of format_version 1 and 2 (whose losing ranks were under /resume)
/// are still read as tables; they cannot be resumed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "chomp/h5_error.hpp"
#include "chomp/provenance.hpp"
#include "chomp/sieve.hpp"

namespace chomp {

inline constexpr int kFormatVersion = 3;
/// The oldest format read_level_file still reads (version 1 lacks /resume).
inline constexpr int kOldestReadableFormatVersion = 1;

class LevelFileWriter {
 public:
  /// Creates (truncating) the file, writes the provenance with complete = 0
  /// and status "running", makes every dataset, and starts SWMR writing.
  /// Throws H5Error. The provenance a sieve's file needs besides the
  /// defaults: max_tiles, run_id and store_file (the store's run id and file
  /// name, beside this file: without them readers find no store), and
  /// inferred_marks (inferred_marks_text of the sieve's inferred rows;
  /// save_level, resume.hpp, refuses a mismatch). An empty start_utc is
  /// recorded as now. Throws std::invalid_argument, making no file, for
  /// what every reader would call damaged: dimensions other than 2 or 3,
  /// max_tiles outside 1..kMaxTiles (kMaxCubes in 3D), store_losing outside
  /// 0..min(kMaxStoredTiles, max_tiles), a store_file that is not a plain
  /// file name (a path, or a temporary store's description), or a run_id
  /// that is not 32 hexadecimal digits (empty only with no store_file). doc/LIBRARY.md
  /// says when to write a file by hand; tests/test_resume_library.cpp does.
  LevelFileWriter(const std::string& path, const Provenance& provenance);
  ~LevelFileWriter();
  LevelFileWriter(const LevelFileWriter&) = delete;
  LevelFileWriter& operator=(const LevelFileWriter&) = delete;

  /// Appends level n = rows() + 1's row to /levels and flushes it. Write
  /// it only once the store holds the level (LosingStore::finish_level).
  /// A sieve's levels go through save_level (resume.hpp), which also
  /// writes the losing positions of a store_losing file and checks the
  /// marks; append alone does not check the marks, and throws
  /// std::logic_error for a level <= store_losing whose positions were not
  /// written just before it (write_losing_positions) and for a level beyond
  /// the provenance's max_tiles.
  void append(const LevelResult& level);

  /// Stores the losing positions of level n <= store_losing as 64-bit lattice
  /// paths, one word each; call it just before append() of that level
  /// (n = rows() + 1), whose row then must count as many losing positions:
  /// either out of order throws std::logic_error.
  void write_losing_positions(int n, std::span<const std::uint64_t> path_words);

  /// Moves the file to a new name (same file system) and keeps writing it.
  void rename_to(const std::string& new_path);

  /// Records end_utc and status (complete = 1 only for status "complete"),
  /// written over in place while SWMR writing goes on, and closes the file.
  /// Throws std::logic_error, writing nothing, for "complete" with other
  /// than the provenance's max_tiles rows (a reader would call the file
  /// damaged): a file with levels missing is "interrupted"; and
  /// std::invalid_argument for a status other than "complete",
  /// "interrupted", "failed" or "running".
  void finish(const std::string& status);

  /// After a failed write (a full disk): lets go of the file without
  /// closing it, which would write HDF5's superblock over a file whose last
  /// writes failed. The file is left as a killed run leaves it: readable,
  /// resumable, status "running".
  void abandon();

  /// The number of /levels rows written.
  std::uint64_t rows() const;
  /// Levels 1..store_losing() keep their losing positions.
  int store_losing() const;
  /// The top rows whose moves the file's marks leave out, as its
  /// provenance's inferred_marks says for the latest leg (0: none).
  int inferred_rows() const;
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
  std::vector<double> window_seconds;
  std::vector<std::uint32_t> slices;
  std::vector<std::uint64_t> store_trailer;
  std::vector<std::uint64_t> losing_digest;
  std::vector<double> losing_fraction;
  std::vector<double> hypothesis_ratio;
  std::vector<double> seconds;
  std::map<std::string, std::string> text_attributes;    ///< string root attributes
  std::map<std::string, std::int64_t> number_attributes;  ///< integer root attributes
  /// True only for a run that wrote every level (attribute complete = 1).
  bool complete() const;
  /// The status attribute: "running" (or killed), "complete", "interrupted", "failed".
  std::string status() const;
};

/// What is wrong with row i of a table's derived columns, or "": more
/// losing positions than positions, or a losing_fraction or
/// hypothesis_ratio that is not what L and p give. The writer computes both
/// from L and p, so they never differ; a value rewritten through HDF5 keeps
/// its dataset's Fletcher-32 checksum whole, and would otherwise put a
/// wrong ratio into a table that looks complete. ("losing_fraction = 0.1
/// disagrees with L = 42, p = 627, which give 0.06698564593301436".)
std::string row_value_problem(const LevelTable& t, std::size_t i);

/// Reads a result file, also one whose writer was killed. Opening checks that
/// it is a chomp result of a readable format version; every read is checked
/// against the datasets' Fletcher-32 checksums. Throws H5Error naming the
/// file and the problem.
class LevelFileReader {
 public:
  /// Refuses a file one of whose rows fails row_value_problem (above), but
  /// a last row written only in part; with check_rows false the caller
  /// checks them (chomp verify, which can tell a wrong column from a wrong
  /// count by the store).
  explicit LevelFileReader(const std::string& path, bool check_rows = true);
  ~LevelFileReader();
  LevelFileReader(const LevelFileReader&) = delete;
  LevelFileReader& operator=(const LevelFileReader&) = delete;

  /// The /levels table and the root attributes. A row that a killed writer
  /// left in only some of the /levels datasets is dropped.
  const LevelTable& table() const;

  int format_version() const;
  /// Whether table()'s last row was written only in part: a file not
  /// complete whose last row's store_trailer is 0 (format 3 or later), or
  /// which a column has no chunk for (a write that failed part way, on a
  /// full disk or at a file size limit; a finished level's trailer is never
  /// at 0, and every column has its chunk). That row is no finished level:
  /// `--resume` computes it again, and readers leave it out. (A chunk
  /// missing from any other row is damage, which the reader refuses.)
  bool last_row_written_in_part() const;
  /// True when the file names its store (format_version >= 3).
  bool has_store() const;
  /// The store file's path: the store with the result file's own name
  /// (store_path_for) when it exists, else store_file resolved beside the
  /// result file; "" for a file that names no store (has_store() false).
  std::string store_path() const;
  std::string run_id() const;
  /// What the file records of levels 1..levels in the store; throws
  /// std::out_of_range for more levels than the file holds.
  std::vector<StoredLevel> stored_levels(int levels) const;

  /// The stored losing positions of level n (lattice path words); empty if
  /// the level was not stored.
  std::vector<std::uint64_t> losing_positions(int n) const;

  const std::string& path() const { return path_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

/// The stored losing positions of level n (lattice path words); empty if
/// the level was not stored.
std::vector<std::uint64_t> read_losing_positions(const std::string& path, int n);

/// The dataset that holds level n's losing positions: "/losing_positions/level_007".
std::string losing_positions_dataset(int n);

/// Reads a result file; throws H5Error if it is missing, unreadable or not a
/// result file of a known format version.
LevelTable read_level_file(const std::string& path);

}  // namespace chomp
