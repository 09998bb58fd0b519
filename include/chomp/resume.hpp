/// @file resume.hpp
/// @brief Continuing a sieve run from its result file and store after a
/// kill or a stop.
///
/// A result file (h5_output.hpp) holds, for every finished level, its
/// /levels row, which names where the run's store (losing_store.hpp) keeps
/// the level's losing positions, with their count and digest. Resuming
/// trusts a level only when both agree with the engine and with each other:
///
/// - the file is of the dimensions asked for (root attribute dimensions:
///   2, tiles, or 3, cubes, whose store keeps MacMahonRanking's ranks);
/// - the rows are levels 1, 2, ... in order, and every stored p(n) is the
///   p(n) (PL(n) in 3D) the engine computes;
/// - the store is the run's (its id is the result file's run_id), and each
///   level's trailer in it is where the row says, passes its checksum and
///   holds the row's count and digest;
/// - every block of every level is read back: it passes its checksum,
///   decodes to increasing ranks below p(n), and the ranks add up to the
///   level's count and digest (a changed rank is found even when its
///   block's checksum was made anew).
///
/// The rows are then copied into a fresh result file (a resumed run never
/// writes into a file whose writer was killed), the store is cut back to
/// its last trusted level and the run continues in it.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "chomp/h5_output.hpp"
#include "chomp/sieve.hpp"

namespace chomp {

/// The file cannot be resumed with the parameters asked for (a smaller
/// --max-tiles, another --store-losing, the other --dimensions): a usage
/// problem, the file is fine. For the other --dimensions, file_dimensions()
/// is the file's (else 0), and the message is reason() followed by the
/// command that continues the file (without its --output), which a caller
/// that knows its program and file can give whole instead.
class ResumeMismatch : public std::runtime_error {
 public:
  explicit ResumeMismatch(const std::string& what, int file_dimensions = 0, std::string reason = "")
      : std::runtime_error(what), file_dimensions_(file_dimensions), reason_(std::move(reason)) {}
  int file_dimensions() const { return file_dimensions_; }
  /// The message without the command that continues the file.
  std::string reason() const { return reason_.empty() ? what() : reason_; }

 private:
  int file_dimensions_;
  std::string reason_;
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
  int dimensions = 2;    ///< the run's (--dimensions): a file of the other is refused
};

/// What a result file offers, after every check that needs no store.
struct ResumeState {
  int file_max_tiles = 0;
  int max_tiles = 0;      ///< the run's target after resuming
  int store_losing = 0;
  int levels = 0;         ///< trusted finished levels: 1..levels
  bool complete = false;  ///< the file says complete = 1
  std::string status;
  std::string store_path;  ///< the store file, beside the result file
  Provenance provenance;  ///< the original run's, for the continued file
  std::vector<std::string> notes;  ///< what was ignored, one line each
  std::vector<std::uint64_t> losing;  ///< L(n) of the trusted levels (a plan's known levels)
  /// The top rows whose moves the file's last leg did not count in `marks`
  /// (the latest way its attribute inferred_marks names, "rows 1-k"; 0 for
  /// "none" or none): a resumed run infers no more rows than that, so that
  /// a leg never counts more marks in than the legs before it; one that
  /// infers fewer (its bits no longer fit, or it was asked to) is named
  /// in the attribute with the level it took over from.
  int inferred_rows = 0;
};

class Resume {
 public:
  /// Opens and checks the file. Throws ResumeMismatch or ResumeRefused.
  explicit Resume(const ResumeRequest& request);
  ~Resume();
  Resume(const Resume&) = delete;
  Resume& operator=(const Resume&) = delete;

  const ResumeState& state() const;

  /// Opens the run's store (for appending: what follows the last trusted
  /// level is cut off) and checks each trusted level's trailer against its
  /// row. Throws ResumeRefused.
  std::unique_ptr<LosingStore> open_store(bool append) const;

  /// Reads back every block of every trusted level of the store (checks
  /// above) and appends each level's row to out, in order; restoring(n) is
  /// called as level n is checked, checked(n) once it passed, before its
  /// row is appended (the 3D run loads the level's ranks there; a
  /// StoreError it throws refuses the resume). Throws ResumeRefused when
  /// the store disagrees, SieveInterrupted when *stop is raised.
  void restore(const LosingStore& store, LevelFileWriter& out, const std::function<void(int n)>& restoring = {},
               const std::atomic<bool>* stop = nullptr, const std::function<void(int n)>& checked = {}) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Writes a finished level of the sieve to the file: its losing positions
/// when the file stores that level's, then its row. Throws
/// std::invalid_argument, writing nothing, when the file's provenance says
/// other rows' moves are inferred than the sieve infers (its `marks` would
/// then be read wrongly): with rows = sieve.plan().tail_rows, set
/// Provenance::inferred_marks to inferred_marks_text(rows) for a new file,
/// continued_inferred_marks(before, rows, first level) for a resumed one
/// (as SieveRun does).
void save_level(LevelFileWriter& out, const Sieve& sieve, const LevelResult& level);

}  // namespace chomp
