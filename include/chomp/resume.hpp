/// @file resume.hpp
/// @brief Continuing a sieve run from its HDF5 result file after a kill.
///
/// A result file (h5_output.hpp) holds, for every finished level, its /levels
/// row and its losing ranks in /resume/losing_ranks, the ranks written and
/// flushed before the row. Resuming trusts a level only when it has both and
/// both agree with the engine:
///
/// - the rows are levels 1, 2, ... in order, and every stored p(n) is the
///   p(n) the engine computes;
/// - the level's L(n) ranks are all stored (ranks beyond the last trusted
///   level, from a level cut off by the kill, are ignored), strictly
///   increasing and below p(n), and every read passes its Fletcher-32
///   checksum;
/// - the last trusted level is not re-installed but recomputed from the
///   levels below it, and its ranks must equal the stored ones: a cheap
///   check (one level, the run's most recent) that the stored data and this
///   program's ranking agree.
///
/// The levels are then copied into a fresh file, so a resumed run never
/// writes into a file whose writer was killed.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "chomp/h5_output.hpp"
#include "chomp/sieve.hpp"

namespace chomp {

/// The file cannot be resumed with the parameters asked for (a smaller
/// --max-tiles, another --store-losing): a usage problem, the file is fine.
class ResumeMismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The file cannot be resumed at all: not a chomp result, an unknown
/// format_version, no resume data, failed checksums, or counts that
/// contradict the engine.
class ResumeRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What the caller asks for; 0 / -1 take the file's own value.
struct ResumeRequest {
  std::string path;
  int max_tiles = 0;     ///< at least the file's max_tiles (a larger one extends the run)
  int store_losing = -1; ///< must equal the file's
};

/// What a result file offers, after every check that needs no sieve.
struct ResumeState {
  int file_max_tiles = 0;
  int max_tiles = 0;      ///< the run's target after resuming
  int store_losing = 0;
  int levels = 0;         ///< trusted finished levels: 1..levels
  bool complete = false;  ///< the file says complete = 1
  std::string status;
  Provenance provenance;  ///< the original run's, for the continued file
  std::vector<std::string> notes;  ///< what was ignored, one line each
};

class Resume {
 public:
  /// Opens and checks the file. Throws ResumeMismatch or ResumeRefused.
  explicit Resume(const ResumeRequest& request);
  ~Resume();
  Resume(const Resume&) = delete;
  Resume& operator=(const Resume&) = delete;

  const ResumeState& state() const;

  /// Re-installs levels 1..state().levels - 1 into the sieve (made for
  /// state().max_tiles, nothing finished yet), recomputes the last trusted
  /// level and checks it against the file, and appends every restored level
  /// to out, in order; restored(n) is called as level n is copied (minutes
  /// of work at n = 140), progress while the last one is recomputed. Throws
  /// ResumeRefused when the stored data disagree, SieveInterrupted when the
  /// sieve's stop flag is raised.
  void restore(Sieve& sieve, LevelFileWriter& out, const ProgressFn& progress = {},
               const std::function<void(int n)>& restored = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Writes a finished level of the sieve to the file: its losing positions
/// when the file stores that level's, then its ranks and row (append; with
/// `stored`, the level's ranks as another file stores them).
void save_level(LevelFileWriter& out, const Sieve& sieve, const LevelResult& level,
                const StoredChunks* stored = nullptr);

}  // namespace chomp
