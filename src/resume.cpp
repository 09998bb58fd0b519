/// @file resume.cpp
/// @brief Checks a result file and re-installs its finished levels into a sieve.

#include "chomp/resume.hpp"

#include <algorithm>

#include "chomp/ranking.hpp"
#include "sieve_testing.hpp"

namespace chomp {

std::atomic<std::uint64_t> detail::g_compare_batch_for_testing{0};

namespace {

/// Stored ranks of the recomputed last level read at a time to compare
/// (32 MiB), like a level's scan (config::kScanBatchRanks).
constexpr std::uint64_t kCompareBatch = std::uint64_t{1} << 22;

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
  return r;
}

}  // namespace

struct Resume::Impl {
  std::unique_ptr<LevelFileReader> reader;
  ResumeState state;
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

  const std::int64_t format = number_attribute(t, "format_version", 0);
  if (format != kFormatVersion || !reader.has_resume_data())
    throw ResumeRefused(cannot + "it has format_version " + std::to_string(format) +
                        " and no /resume data; only format_version " + std::to_string(kFormatVersion) +
                        " files can be resumed (start over with --force)");
  const std::int64_t file_max = number_attribute(t, "max_tiles", 0);
  const std::int64_t file_store = number_attribute(t, "store_losing", -1);
  if (file_max < 1 || file_max > kMaxTiles || file_store < 0 || file_store > std::min<std::int64_t>(63, file_max))
    throw ResumeRefused(cannot + "its max_tiles (" + std::to_string(file_max) + ") or store_losing (" +
                        std::to_string(file_store) + ") attribute is missing or impossible (damaged file)");
  s.file_max_tiles = static_cast<int>(file_max);
  s.store_losing = static_cast<int>(file_store);
  s.max_tiles = request.max_tiles > 0 ? request.max_tiles : s.file_max_tiles;
  if (s.max_tiles < s.file_max_tiles)
    throw ResumeMismatch(cannot + "it was started with --max-tiles " + std::to_string(file_max) +
                         "; a resumed run may extend it (a larger --max-tiles) but not cut it short (" +
                         std::to_string(s.max_tiles) + "); omit --max-tiles to finish it as started");
  if (request.store_losing >= 0 && request.store_losing != s.store_losing)
    throw ResumeMismatch(cannot + "it was started with --store-losing " + std::to_string(file_store) +
                         ", not " + std::to_string(request.store_losing) +
                         "; omit --store-losing or give the same value");
  s.complete = t.complete();
  s.status = t.status();

  // Trust the rows in order while each agrees with the engine and has all
  // its ranks stored.
  const PartitionTable table(s.max_tiles);
  const std::size_t rows = t.tiles.size();
  if (rows > static_cast<std::size_t>(s.file_max_tiles))
    throw ResumeRefused(cannot + "it has " + std::to_string(rows) + " levels but was started with --max-tiles " +
                        std::to_string(file_max) + " (damaged file)");
  const std::uint64_t stored = reader.stored_losing_ranks();
  for (std::size_t i = 0; i < rows; ++i) {
    const int n = static_cast<int>(i) + 1;
    const std::string level = "level " + std::to_string(n) + " ";
    if (t.tiles[i] != static_cast<std::uint32_t>(n))
      throw ResumeRefused(cannot + "row " + std::to_string(n) + " of /levels is for " + std::to_string(t.tiles[i]) +
                          " tiles, not " + std::to_string(n) + " (damaged file)");
    if (t.positions[i] != table.positions(n))
      throw ResumeRefused(cannot + level + "has p(" + std::to_string(n) + ") = " + std::to_string(t.positions[i]) +
                          " but the engine computes " + std::to_string(table.positions(n)) +
                          " (damaged file, or written by an incompatible program)");
    if (t.losing[i] > t.positions[i])
      throw ResumeRefused(cannot + level + "has more losing positions (" + std::to_string(t.losing[i]) +
                          ") than positions (damaged file)");
    const std::uint64_t first = reader.first_losing_rank(n);
    if (t.losing[i] > stored - std::min(stored, first)) {
      s.notes.push_back("levels " + std::to_string(n) + ".." + std::to_string(rows) +
                        " lack their losing ranks; they will be computed again");
      break;
    }
    s.levels = n;
  }
  // Where the ranks of a level after the last row would start.
  const std::uint64_t next_rank = reader.first_losing_rank(static_cast<int>(rows) + 1);
  if (stored > next_rank && s.levels == static_cast<int>(rows))
    s.notes.push_back("ignored " + std::to_string(stored - next_rank) + " losing ranks of level " +
                      std::to_string(s.levels + 1) + ", which was cut off");
  if (s.complete && s.levels != s.file_max_tiles)
    throw ResumeRefused(cannot + "it is marked complete but only levels 1.." + std::to_string(s.levels) +
                        " of " + std::to_string(file_max) + " can be trusted (damaged file)");

  Provenance& p = s.provenance;
  p.command_line = text_attribute(t, "command_line");
  p.start_utc = text_attribute(t, "start_utc");
  p.resume_history = text_attribute(t, "resume_history");
  p.max_tiles = s.max_tiles;
  p.store_losing = s.store_losing;
  p.threads = static_cast<int>(number_attribute(t, "threads", 0));
}

Resume::~Resume() = default;

const ResumeState& Resume::state() const { return impl_->state; }

void Resume::restore(Sieve& sieve, LevelFileWriter& out, const ProgressFn& progress,
                     const std::function<void(int n)>& restored) {
  const ResumeState& s = impl_->state;
  const LevelTable& t = impl_->reader->table();
  const std::string cannot = "cannot resume " + impl_->reader->path() + ": ";
  if (sieve.levels_done() != 0 || sieve.max_tiles() != s.max_tiles)
    throw std::logic_error("Resume::restore needs a fresh sieve made for the resumed run's max_tiles");
  for (int n = 1; n <= s.levels; ++n) {
    const auto i = static_cast<std::size_t>(n - 1);
    const std::string level = "level " + std::to_string(n) + ": ";
    if (sieve.stop_requested())
      throw SieveInterrupted("stopped while restoring level " + std::to_string(n));
    if (restored) restored(n);
    const std::uint64_t first = impl_->reader->first_losing_rank(n), count = t.losing[i];
    const std::uint64_t p = sieve.table().positions(n);
    // Stored ranks, checked to be increasing ranks below p(n) (previous: the
    // rank before them in the level, if any).
    // With `chunks`, the chunks that hold them as stored (the new file takes
    // them as they are: no second deflate).
    StoredChunks chunks;
    auto read = [&](std::uint64_t from, std::uint64_t take, const std::uint64_t* previous,
                    StoredChunks* stored = nullptr) {
      std::vector<std::uint64_t> ranks;
      try {
        ranks = impl_->reader->losing_ranks(first + from, take, stored);
      } catch (const H5Error& e) {
        throw ResumeRefused(cannot + level + e.what());
      }
      for (std::size_t k = 0; k < ranks.size(); ++k)
        if (ranks[k] >= p || (k > 0 ? ranks[k] <= ranks[k - 1] : previous && ranks[k] <= *previous))
          throw ResumeRefused(cannot + level + "its stored losing ranks are not increasing ranks below p(" +
                              std::to_string(n) + ") = " + std::to_string(p) + " (damaged file)");
      return ranks;
    };
    if (n < s.levels) {
      sieve.restore_level(n, read(0, count, nullptr, &chunks), t.marks[i]);
    } else {
      // The last trusted level is computed again from the restored ones: its
      // ranks must come out as stored. They are compared a batch at a time,
      // so that the level is never held at 8 bytes a rank beside the sieve's
      // bitmap (3.7 GB at n = 150, and as much again for a decoded copy).
      const LevelResult again = sieve.next_level(progress);
      const LosingLevel& found = sieve.losing().level(n);
      bool same = found.size() == count;
      std::vector<std::uint64_t> mine;
      std::size_t chunk = 0, at = 0;
      std::uint64_t last = 0;
      for (std::uint64_t done = 0; same && done < count;) {
        const std::uint64_t take = std::min<std::uint64_t>(detail::seam_or(detail::g_compare_batch_for_testing, kCompareBatch), count - done);
        const std::vector<std::uint64_t> stored = read(done, take, done > 0 ? &last : nullptr);
        for (std::size_t k = 0; same && k < stored.size(); ++k) {
          if (at == mine.size()) {
            found.decode_chunk(chunk++, mine);
            at = 0;
          }
          same = mine[at++] == stored[k];
        }
        last = stored.back();
        done += take;
      }
      if (!same)
        throw ResumeRefused(cannot + level + "the file lists " + std::to_string(count) +
                            " losing positions but the engine finds " + std::to_string(again.losing) +
                            (again.losing == count ? ", not the same ones" : "") +
                            " (damaged file, or written by an incompatible program)");
    }
    save_level(out, sieve, row_of(t, n), &chunks);
  }
}

void save_level(LevelFileWriter& out, const Sieve& sieve, const LevelResult& level, const StoredChunks* stored) {
  if (level.tiles <= out.store_losing()) {
    std::vector<std::uint64_t> words;
    for (const Rows& rows : sieve.losing_positions(level.tiles))
      words.push_back(LatticePath::from_rows(rows).word());
    out.write_losing_positions(level.tiles, words);
  }
  out.append(level, sieve.losing().level(level.tiles), stored);
}

}  // namespace chomp
