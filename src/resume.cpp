/// @file resume.cpp
/// @brief Checks a result file and its store and continues the run in them.

#include "chomp/resume.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "chomp/plane_ranking.hpp"
#include "chomp/ranking.hpp"

namespace chomp {

namespace {

std::int64_t number_attribute(const LevelTable& t, const char* name, std::int64_t fallback) {
  const auto it = t.number_attributes.find(name);
  return it == t.number_attributes.end() ? fallback : it->second;
}

std::string text_attribute(const LevelTable& t, const char* name) {
  const auto it = t.text_attributes.find(name);
  return it == t.text_attributes.end() ? std::string() : it->second;
}

/// The row of level n (1-based) as the engine reports a level.
LevelResult row_of(const LevelTable& t, int n) {
  const auto i = static_cast<std::size_t>(n - 1);
  LevelResult r;
  r.tiles = n;
  r.positions = t.positions[i];
  r.losing = t.losing[i];
  r.marks = t.marks[i];
  r.seconds = t.seconds[i];
  r.window_seconds = t.window_seconds[i];
  r.slices = static_cast<int>(t.slices[i]);
  r.stored = StoredLevel{t.store_trailer[i], t.losing[i], t.losing_digest[i]};
  return r;
}

/// p(n) (2D) or PL(n) (3D) for n = 0..max.
std::vector<std::uint64_t> position_counts(int dimensions, int max) {
  if (dimensions == 3) return plane_partition_counts(max);
  const PartitionTable table(max);
  std::vector<std::uint64_t> out{1};
  for (int n = 1; n <= max; ++n) out.push_back(table.positions(n));
  return out;
}

/// What continues a file of `dimensions` (refusing a file of the other).
std::string continued_by(std::int64_t dimensions) {
  if (dimensions == 3) return "continue it with chomp sieve --dimensions 3 --resume";
  if (dimensions == 2) return "continue it with chomp sieve --resume (without --dimensions 3)";
  return "which chomp sieve --resume does not continue";
}

}  // namespace

struct Resume::Impl {
  std::unique_ptr<LevelFileReader> reader;
  ResumeState state;
  std::vector<std::uint64_t> positions;  // p(n) or PL(n), n = 0..max_tiles
};

Resume::Resume(const ResumeRequest& request) : impl_(std::make_unique<Impl>()) {
  const std::string& path = request.path;
  const std::string cannot = "cannot resume " + path + ": ";
  try {
    impl_->reader = std::make_unique<LevelFileReader>(path);
  } catch (const H5Error& e) {
    throw ResumeRefused(std::string("cannot resume: ") + e.what());
  }
  const LevelFileReader& reader = *impl_->reader;
  const LevelTable& t = reader.table();
  ResumeState& s = impl_->state;

  const int dims = request.dimensions;
  const bool cubes = dims == 3;
  if (const std::int64_t file_dims = number_attribute(t, "dimensions", 2); file_dims != dims) {
    const std::string reason = cannot + "it is a table of " + std::to_string(file_dims) +
                               "D Chomp (root attribute dimensions = " + std::to_string(file_dims) + "), not " +
                               std::to_string(dims) + "D";
    throw ResumeMismatch(reason + "; " + continued_by(file_dims),
                         file_dims == 2 || file_dims == 3 ? static_cast<int>(file_dims) : 0, reason);
  }
  const std::int64_t format = number_attribute(t, "format_version", 0);
  if (cubes && format == kFormatVersion && !reader.has_store())
    throw ResumeRefused(cannot + "it was written by a 3D run that kept its losing positions in memory only "
                        "(no store file: it was written before 3D runs kept one); start it over with --dimensions 3 "
                        "--force");
  if (format == kFormatVersion && !reader.has_store() && !t.number_attributes.count("levels_only"))
    // Every run of this format names its store: an empty name is a damaged
    // file (HDF5 reads the text of a damaged global heap as empty strings).
    throw ResumeRefused(cannot + "its store_file attribute is empty (or its run_id missing), which every run of "
                        "format_version " + std::to_string(kFormatVersion) + " writes: the file's text attributes are "
                        "damaged; restore a copy of it, or start the run over with --force");
  if (format != kFormatVersion || !reader.has_store())
    throw ResumeRefused(cannot + "it has format_version " + std::to_string(format) +
                        (format < 3 ? " (its losing ranks are not in a store file)" : " and names no store file") +
                        "; only format_version " + std::to_string(kFormatVersion) +
                        " files can be resumed (start over with --force)");
  const std::int64_t file_max = number_attribute(t, "max_tiles", 0);
  const std::int64_t file_store = number_attribute(t, "store_losing", -1);
  const std::int64_t largest = cubes ? kMaxCubes : kMaxTiles;
  if (file_max < 1 || file_max > largest || file_store < 0 || file_store > std::min<std::int64_t>(kMaxStoredTiles, file_max) ||
      (cubes && file_store != 0))
    throw ResumeRefused(cannot + "its max_tiles (" + std::to_string(file_max) + ") or store_losing (" +
                        std::to_string(file_store) + ") attribute is missing or impossible (damaged file)");
  s.file_max_tiles = static_cast<int>(file_max);
  s.store_losing = static_cast<int>(file_store);
  s.max_tiles = request.max_tiles > 0 ? request.max_tiles : s.file_max_tiles;
  if (s.max_tiles < s.file_max_tiles)
    throw ResumeMismatch(cannot + "its run goes to --max-tiles " + std::to_string(file_max) +
                         " (as it was started, or last extended)" +
                         "; a resumed run may extend it (a larger --max-tiles) but not cut it short (" +
                         std::to_string(s.max_tiles) + "); omit --max-tiles to finish it as started");
  if (request.store_losing >= 0 && request.store_losing != s.store_losing)
    throw ResumeMismatch(cannot + "it was started with --store-losing " + std::to_string(file_store) +
                         ", not " + std::to_string(request.store_losing) +
                         "; omit --store-losing or give the same value");
  s.complete = t.complete();
  s.status = t.status();
  s.store_path = reader.store_path();

  // Trust the rows in order while each agrees with the engine. (A row for
  // another level than its place, with more losing positions than
  // positions, or whose fraction or ratio disagrees with its counts, the
  // reader has refused already.)
  impl_->positions = position_counts(dims, s.max_tiles);
  const std::vector<std::uint64_t>& positions = impl_->positions;
  const std::string p_of = cubes ? "PL(" : "p(";
  const std::size_t rows = t.tiles.size();
  if (rows > static_cast<std::size_t>(s.file_max_tiles))
    throw ResumeRefused(cannot + "it has " + std::to_string(rows) + " levels but was started with --max-tiles " +
                        std::to_string(file_max) + " (damaged file)");
  for (std::size_t i = 0; i < rows; ++i) {
    const int n = static_cast<int>(i) + 1;
    const std::string level = "level " + std::to_string(n) + " ";
    // A last row whose write failed part way (a file size limit or a full
    // disk while HDF5 flushed it) can be in every column with some columns'
    // values never written: read as 0 (its tiles and p too). A finished
    // level's trailer lies past the store's header, never at 0, and every
    // column has its chunk; such a row is a level to compute again,
    // whatever its other columns hold (LevelFileReader).
    if (i + 1 == rows && reader.last_row_written_in_part()) {
      s.notes.push_back("row " + std::to_string(n) + " of " + path + " was written only in part (a write that "
                        "failed, such as on a full disk: its store trailer is 0, or a column has no data for it); "
                        "level " + std::to_string(n) + " is computed again");
      break;
    }
    const std::uint64_t p = positions[static_cast<std::size_t>(n)];
    if (t.positions[i] != p)
      throw ResumeRefused(cannot + level + "has " + p_of + std::to_string(n) + ") = " +
                          std::to_string(t.positions[i]) + " but the engine computes " + std::to_string(p) +
                          " (damaged file, or written by an incompatible program)");
    s.levels = n;
    s.losing.push_back(t.losing[i]);
  }
  if (s.complete && s.levels != s.file_max_tiles)
    throw ResumeRefused(cannot + "it is marked complete but only levels 1.." + std::to_string(s.levels) +
                        " of " + std::to_string(file_max) + " can be trusted (damaged file)");

  Provenance& p = s.provenance;
  p.command_line = text_attribute(t, "command_line");
  p.start_utc = text_attribute(t, "start_utc");
  p.resume_history = text_attribute(t, "resume_history");
  // The first leg's build: the file's own until a resume replaced its build
  // attributes; unknown for a file resumed before the attribute (its
  // resume_history names the later legs' revisions).
  p.first_git_revision = text_attribute(t, "first_git_revision");
  if (p.first_git_revision.empty())
    p.first_git_revision = p.resume_history.empty() ? text_attribute(t, "git_revision")
                                                    : "unknown (resumed before the attribute, 2026-12-06)";
  p.max_tiles = s.max_tiles;
  p.store_losing = s.store_losing;
  p.threads = static_cast<int>(number_attribute(t, "threads", 0));
  p.store_file = std::filesystem::path(s.store_path).filename().string();
  p.run_id = reader.run_id();
  p.dimensions = dims;
  // Files from before the attribute filed them.
  p.inferred_marks = text_attribute(t, "inferred_marks");
  if (p.inferred_marks.empty()) p.inferred_marks = "none";
  s.inferred_rows = inferred_rows_of(p.inferred_marks);
}

Resume::~Resume() = default;

const ResumeState& Resume::state() const { return impl_->state; }

namespace {

/// A resume refused for its store: a damaged one says what to do.
std::string store_refusal(const std::string& path, const StoreError& e) {
  std::string what = "cannot resume " + path + ": " + e.what();
  if (what.find("damaged") != std::string::npos || what.find("truncated") != std::string::npos ||
      what.find("not a chomp store") != std::string::npos)
    what += "; put back an undamaged copy of the store beside it (chomp verify --finished checks one), or start "
            "the run over with --force, which computes every level again";
  return what;
}

}  // namespace

std::unique_ptr<LosingStore> Resume::open_store(bool append) const {
  const ResumeState& s = impl_->state;
  try {
    return LosingStore::open(s.store_path, s.provenance.run_id, impl_->reader->stored_levels(s.levels), append);
  } catch (const StoreError& e) {
    throw ResumeRefused(store_refusal(impl_->reader->path(), e));
  }
}

void Resume::restore(const LosingStore& store, LevelFileWriter& out, const std::function<void(int n)>& restoring,
                     const std::atomic<bool>* stop, const std::function<void(int n)>& checked) const {
  const ResumeState& s = impl_->state;
  const LevelTable& t = impl_->reader->table();
  if (store.levels() != s.levels) throw std::logic_error("Resume::restore needs the store of open_store()");
  // The levels whose positions the file keeps (at most 63 tiles) are checked
  // against the store's ranks, unranked.
  const int kept = std::min(out.store_losing(), s.levels);
  const std::unique_ptr<PartitionTable> ranks = kept > 0 ? std::make_unique<PartitionTable>(kept) : nullptr;
  for (int n = 1; n <= s.levels; ++n) {
    if (stop && stop->load()) throw SieveInterrupted("stopped while checking level " + std::to_string(n));
    if (restoring) restoring(n);
    try {
      store.check_level(n, impl_->positions[static_cast<std::size_t>(n)]);
      if (checked) checked(n);
    } catch (const StoreError& e) {
      throw ResumeRefused(store_refusal(impl_->reader->path(), e));
    }
    const LevelResult row = row_of(t, n);
    if (n <= out.store_losing()) {
      // The file's own copy of the level's losing positions, one a losing
      // position: fewer or more than its row counts is damage to the file.
      // The same set as the store's, checked (as chomp verify does): a
      // position edited or repeated in the copy is damage, which a resumed
      // run must not carry into a file it marks complete.
      const std::vector<std::uint64_t> words = impl_->reader->losing_positions(n);
      if (words.size() != row.losing)
        throw ResumeRefused("cannot resume " + impl_->reader->path() + ": its " + losing_positions_dataset(n) + " holds " +
                            std::to_string(words.size()) + " positions, but level " + std::to_string(n) + " has " +
                            std::to_string(row.losing) + " losing ones (damaged file); restore a copy of it, or "
                            "start the run over with --force");
      std::vector<std::uint64_t> in_file = words, in_store;
      for (const std::uint64_t rank : store.all(n))
        in_store.push_back(LatticePath::from_rows(ranks->unrank(n, rank)).word());
      std::sort(in_file.begin(), in_file.end());
      std::sort(in_store.begin(), in_store.end());
      if (in_file != in_store)
        throw ResumeRefused("cannot resume " + impl_->reader->path() + ": its " + losing_positions_dataset(n) +
                            " holds positions that are not the store's losing ones of level " + std::to_string(n) +
                            " (damaged file); restore a copy of it, or start the run over with --force");
      out.write_losing_positions(n, words);
    }
    out.append(row);
  }
}

void save_level(LevelFileWriter& out, const Sieve& sieve, const LevelResult& level) {
  if (out.inferred_rows() != sieve.plan().tail_rows)
    throw std::invalid_argument(out.path() + "'s provenance says inferred_marks \"" +
                                inferred_marks_text(out.inferred_rows()) + "\", but its sieve's is \"" +
                                inferred_marks_text(sieve.plan().tail_rows) + "\"" +
                                ": its marks would be read wrongly (set Provenance::inferred_marks as SieveRun "
                                "does: inferred_marks_text(rows) for a new file, continued_inferred_marks(before, "
                                "rows, first level) for a resumed one, rows = sieve.plan().tail_rows)");
  if (level.tiles <= out.store_losing()) {
    std::vector<std::uint64_t> words;
    for (const Rows& rows : sieve.losing_positions(level.tiles))
      words.push_back(LatticePath::from_rows(rows).word());
    out.write_losing_positions(level.tiles, words);
  }
  out.append(level);
}

}  // namespace chomp
