/// @file grundy_file.cpp
/// @brief Writing and reading `chomp grundy`'s HDF5 file (grundy_file.hpp).

#include "chomp/grundy_file.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "build_info.hpp"
#include "chomp/ranking.hpp"
#include "chomp/resume.hpp"
#include "h5_provenance.hpp"
#include "h5_util.hpp"

namespace chomp {

namespace {
constexpr const char* kFormat = "chomp-grundy";
}

void write_grundy_file(const std::string& path, int max_tiles, const std::vector<GrundyLevel>& levels,
                       const GrundyProvenance& prov, const std::string& status) {
  const bool complete = status == "complete";
  // What read_grundy_file would refuse as damaged is refused here, before
  // anything is written (rows cut to max_tiles values, a level out of place,
  // a status no reader or resume knows).
  if (max_tiles < 1 || max_tiles > kMaxTiles)
    throw std::invalid_argument("write_grundy_file: max_tiles is " + std::to_string(max_tiles) + "; 1.." +
                                std::to_string(kMaxTiles));
  if (levels.size() > static_cast<std::size_t>(max_tiles))
    throw std::invalid_argument("write_grundy_file: " + std::to_string(levels.size()) + " levels for max_tiles " +
                                std::to_string(max_tiles));
  for (std::size_t l = 0; l < levels.size(); ++l)
    if (levels[l].tiles != static_cast<int>(l) + 1)
      throw std::invalid_argument("write_grundy_file: row " + std::to_string(l + 1) + " holds level " +
                                  std::to_string(levels[l].tiles) + "; the rows are levels 1, 2, ... in order");
  if (!h5::known_status(status))
    throw std::invalid_argument("write_grundy_file: status \"" + status + "\"; it is " + h5::kKnownStatuses +
                                " (doc/FILE_FORMAT.md)");
  if (complete && levels.size() != static_cast<std::size_t>(max_tiles))
    throw std::logic_error("write_grundy_file: a complete file holds every level 1.." + std::to_string(max_tiles));
  using h5::check;
  using h5::Handle;
  using h5::write_attr;
  using h5::write_column;
  const std::string tmp = path + ".tmp";
  // A write that fails part way (a full disk, a file size limit) leaves no
  // NAME.tmp behind: the file under the name keeps its last version.
  try {
    {
      Handle file = h5::create_whole_file(tmp, kFormat);
      const hid_t f = file.get();
      write_attr(f, "format_version", std::int64_t{kGrundyFormatVersion});
      write_attr(f, "convention", kGrundyConvention);
      write_attr(f, "command_line", prov.command_line);
      write_attr(f, "max_tiles", std::int64_t{max_tiles});
      write_attr(f, "threads", std::int64_t{prov.threads});
      write_attr(f, "memory_bytes", static_cast<std::int64_t>(grundy_table_bytes(max_tiles)));
      write_attr(f, "start_utc", prov.start_utc);
      write_attr(f, "checked_against", prov.checked_against);
      write_attr(f, "checked_to_level", std::int64_t{prov.checked_to_level});
      write_attr(f, "resume_history", prov.resume_history);
      write_attr(f, "first_git_revision",
                 prov.first_git_revision.empty() ? std::string(build::kGitRevision) : prov.first_git_revision);

      std::vector<std::uint32_t> tiles, largest;
      std::vector<std::uint64_t> positions, zeros;
      std::vector<double> seconds;
      const std::size_t width = static_cast<std::size_t>(max_tiles);
      std::vector<std::uint64_t> counts(levels.size() * width, 0);
      for (std::size_t l = 0; l < levels.size(); ++l) {
        const GrundyLevel& g = levels[l];
        tiles.push_back(static_cast<std::uint32_t>(g.tiles));
        positions.push_back(g.positions);
        largest.push_back(static_cast<std::uint32_t>(g.largest));
        zeros.push_back(g.zeros());
        seconds.push_back(g.seconds);
        for (std::size_t v = 0; v < g.counts.size() && v < width; ++v) counts[l * width + v] = g.counts[v];
      }
      Handle group = check(H5Gcreate2(f, "levels", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                           "cannot create group /levels in " + tmp);
      const hid_t g = group.get();
      write_attr(g, "description", "one row per level n = 1 .. max_tiles");
      write_column(g, "tiles", H5T_STD_U32LE, H5T_NATIVE_UINT32, tiles, "tile count n of the level");
      write_column(g, "positions", H5T_STD_U64LE, H5T_NATIVE_UINT64, positions,
                   "p(n): number of positions (partitions of n) with n tiles");
      write_column(g, "largest_value", H5T_STD_U32LE, H5T_NATIVE_UINT32, largest,
                   "the largest Grundy value of the level (n - 1, the single row)");
      write_column(g, "value_zero", H5T_STD_U64LE, H5T_NATIVE_UINT64, zeros,
                   "positions of value 0: the losing positions, L(n)");
      write_column(g, "seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, seconds, "wall-clock seconds of the level");
      {
        // As the sieve's seconds columns say theirs.
        const Handle ds = check(H5Dopen2(g, "seconds", H5P_DEFAULT), H5Dclose, "cannot open dataset seconds in " + tmp);
        write_attr(ds.get(), "units", "s");
      }
      {
        const std::string what = "cannot write dataset grundy_counts in " + tmp;
        const hsize_t dims[2] = {levels.size(), width};
        Handle space = check(H5Screate_simple(2, dims, nullptr), H5Sclose, what);
        Handle dcpl = check(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
        if (dims[0] > 0) {
          check(H5Pset_chunk(dcpl.get(), 2, dims), what);
          check(H5Pset_fletcher32(dcpl.get()), what);
          check(H5Pset_shuffle(dcpl.get()), what);
          check(H5Pset_deflate(dcpl.get(), 6), what);
        }
        Handle ds = check(H5Dcreate2(g, "grundy_counts", H5T_STD_U64LE, space.get(), H5P_DEFAULT, dcpl.get(),
                                     H5P_DEFAULT),
                          H5Dclose, what);
        write_attr(ds.get(), "description",
                   "row n - 1, column g: the number of positions with n tiles whose Grundy value is g "
                   "(g = 0 .. max_tiles - 1); each row sums to p(n)");
        write_attr(ds.get(), "convention", kGrundyConvention);
        if (dims[0] > 0) check(H5Dwrite(ds.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, counts.data()), what);
      }
      write_attr(f, "end_utc", status == "running" ? std::string() : utc_now());
      write_attr(f, "complete", std::int64_t{complete ? 1 : 0});
      write_attr(f, "status", status);
      check(H5Fflush(f, H5F_SCOPE_GLOBAL), "cannot flush " + tmp + " (is the disk full?)");
    }
  } catch (...) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(std::filesystem::symlink_status(tmp, ec))) std::remove(tmp.c_str());
    throw;
  }
  // Durable before it takes the name, and the name durable after: a power
  // cut then leaves the last level's file or the one before it, never an
  // empty file under the name.
  if (const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!synced) {
      std::remove(tmp.c_str());
      throw H5Error("cannot write " + tmp + " to disk (is the disk full?)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw H5Error("cannot rename " + tmp + " to " + path);
  }
  const std::string folder = std::filesystem::absolute(path).parent_path().string();
  if (const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

bool is_grundy_file(const std::string& path) {
  try {
    const h5::Handle file = h5::open_for_reading(path);
    const h5::Attributes attrs = h5::read_attributes(file.get(), path);
    const auto fmt = attrs.text.find("format");
    return fmt != attrs.text.end() && fmt->second == kFormat;
  } catch (const H5Error&) {
    return false;
  }
}

GrundyFile read_grundy_file(const std::string& path) {
  using h5::check;
  using h5::Handle;
  Handle file = h5::open_for_reading(path);
  const h5::Attributes attrs = h5::read_attributes(file.get(), path);
  const auto fmt = attrs.text.find("format");
  if (fmt == attrs.text.end() || fmt->second != kFormat)
    throw H5Error(path + " is not a chomp grundy file (no format attribute \"chomp-grundy\")");
  GrundyFile out;
  out.text_attributes = attrs.text;
  out.number_attributes = attrs.numbers;
  Handle group = h5::open_group(file.get(), "levels", "cannot open /levels in " + path);
  const hid_t g = group.get();
  const hsize_t most = kMaxTiles;
  const std::string col = "cannot read /levels of " + path;
  out.tiles = h5::read_column<std::uint32_t>(g, "tiles", H5T_NATIVE_UINT32, most, col);
  out.positions = h5::read_column<std::uint64_t>(g, "positions", H5T_NATIVE_UINT64, most, col);
  out.largest = h5::read_column<std::uint32_t>(g, "largest_value", H5T_NATIVE_UINT32, most, col);
  out.zeros = h5::read_column<std::uint64_t>(g, "value_zero", H5T_NATIVE_UINT64, most, col);
  out.seconds = h5::read_column<double>(g, "seconds", H5T_NATIVE_DOUBLE, most, col);
  const std::string what = "cannot read /levels/grundy_counts in " + path;
  Handle ds = h5::open_dataset(g, "grundy_counts", what);
  Handle space = check(H5Dget_space(ds.get()), H5Sclose, what);
  if (H5Sget_simple_extent_ndims(space.get()) != 2) throw H5Error(what + ": not a 2-D dataset");
  hsize_t dims[2] = {0, 0};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (dims[0] > most || dims[1] > most + 1)
    throw H5Error(what + ": it claims " + std::to_string(dims[0]) + " x " + std::to_string(dims[1]) +
                  " counts, more than levels of at most " + std::to_string(kMaxTiles) + " tiles have");
  std::vector<std::uint64_t> flat(static_cast<std::size_t>(dims[0] * dims[1]));
  if (!flat.empty()) check(H5Dread(ds.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, flat.data()), what);
  for (hsize_t l = 0; l < dims[0]; ++l)
    out.counts.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(l * dims[1]),
                            flat.begin() + static_cast<std::ptrdiff_t>((l + 1) * dims[1]));
  if (out.counts.size() != out.tiles.size()) throw H5Error(what + ": its rows do not match /levels/tiles");
  // What every row of a Grundy file holds, which its checksums may still
  // not vouch for (a damaged chunk index reads a chunk as 0, or as another
  // chunk, with a checksum that holds): the level of its place, p(n) > 0,
  // counts that add up to p(n), and a largest value and value-0 count that
  // its counts give. Every reader (show, --resume) refuses a file that
  // breaks one.
  const std::size_t rows = out.tiles.size();
  for (const std::size_t n : {out.positions.size(), out.largest.size(), out.zeros.size(), out.seconds.size()})
    if (n != rows) throw H5Error("cannot read /levels of " + path + ": its columns have different lengths (damaged file)");
  for (std::size_t i = 0; i < rows; ++i) {
    const std::string level = path + ": level " + std::to_string(i + 1) + " ";
    if (out.tiles[i] != i + 1)
      throw H5Error(path + ": row " + std::to_string(i + 1) + " of /levels is for " + std::to_string(out.tiles[i]) +
                    " tiles, not " + std::to_string(i + 1) + " (damaged file)");
    const std::vector<std::uint64_t>& c = out.counts[i];
    std::uint64_t sum = 0;
    std::size_t last = 0;
    for (std::size_t g = 0; g < c.size(); ++g) {
      if (c[g] > out.positions[i] - sum)
        throw H5Error(level + "has counts that add up to more than its p(n) = " + std::to_string(out.positions[i]) +
                      " (damaged file)");
      sum += c[g];
      if (c[g]) last = g;
    }
    if (sum != out.positions[i] || sum == 0)
      throw H5Error(level + "has counts that add up to " + std::to_string(sum) + ", not its p(n) = " +
                    std::to_string(out.positions[i]) + (sum == 0 ? ", or p(n) is 0" : "") + " (damaged file)");
    if (out.largest[i] != last || out.zeros[i] != c[0])
      throw H5Error(level + "has a largest_value or value_zero that its counts contradict (damaged file)");
  }
  // The root attributes every reader goes by (show prints them, --resume
  // continues from them), checked as the sieve's reader checks its own.
  const auto number = [&](const char* name) {
    const auto it = out.number_attributes.find(name);
    return it == out.number_attributes.end() ? std::optional<std::int64_t>() : std::optional<std::int64_t>(it->second);
  };
  const auto format = number("format_version");
  if (!format || *format < 1 || *format > kGrundyFormatVersion)
    throw H5Error(path + (format ? " has format_version " + std::to_string(*format) : " has no format_version") +
                  "; this program reads Grundy files of format_version 1 to " + std::to_string(kGrundyFormatVersion));
  const auto status = out.text_attributes.find("status");
  if (status == out.text_attributes.end() || !h5::known_status(status->second))
    throw H5Error(path + ": its status " +
                  (status == out.text_attributes.end() ? std::string("is missing") : "\"" + status->second + "\"") +
                  " is none of " + h5::kKnownStatuses + " (damaged file)");
  const auto max_tiles = number("max_tiles");
  if (!max_tiles || *max_tiles < 1 || *max_tiles > kMaxTiles || static_cast<std::size_t>(*max_tiles) < rows)
    throw H5Error(path + ": its max_tiles attribute (" + (max_tiles ? std::to_string(*max_tiles) : "missing") +
                  ") is impossible for " + std::to_string(rows) + " levels of at most " + std::to_string(kMaxTiles) +
                  " tiles (damaged file)");
  const auto complete = number("complete");
  if (complete != 0 && complete != 1)
    throw H5Error(path + ": its complete attribute is " + (complete ? std::to_string(*complete) : "missing") +
                  ", neither 0 nor 1 (damaged file)");
  if (*complete == 1 && (status->second != "complete" || static_cast<std::size_t>(*max_tiles) != rows))
    throw H5Error(path + ": it says complete with status \"" + status->second + "\" and " + std::to_string(rows) +
                  " of its " + std::to_string(*max_tiles) + " levels (damaged file)");
  return out;
}

GrundyResumeState check_grundy_resume(const std::string& path, int requested_max_tiles) {
  if (requested_max_tiles < 0 || requested_max_tiles > kMaxTiles)
    throw std::invalid_argument("check_grundy_resume: requested_max_tiles is " + std::to_string(requested_max_tiles) +
                                "; 0 (the file's) or 1.." + std::to_string(kMaxTiles));
  const std::string cannot = "cannot resume " + path + ": ";
  GrundyFile f;
  try {
    f = read_grundy_file(path);
  } catch (const H5Error& e) {
    // A Grundy file that is damaged, or another kind of file.
    if (is_grundy_file(path))
      throw ResumeRefused(std::string("cannot resume: ") + e.what() +
                          "; use an undamaged copy of it, or start over with --force");
    throw ResumeRefused(std::string("cannot resume: ") + e.what() +
                        "; --resume continues a file that chomp grundy wrote (a chomp sieve file is continued "
                        "with chomp sieve --resume)");
  }
  const auto number = [&](const char* name, std::int64_t fallback) {
    const auto it = f.number_attributes.find(name);
    return it == f.number_attributes.end() ? fallback : it->second;
  };
  const auto text = [&](const char* name) {
    const auto it = f.text_attributes.find(name);
    return it == f.text_attributes.end() ? std::string() : it->second;
  };
  const std::int64_t format = number("format_version", 0);
  if (format != kGrundyFormatVersion)
    throw ResumeRefused(cannot + "it has format_version " + std::to_string(format) + "; only format_version " +
                        std::to_string(kGrundyFormatVersion) + " Grundy files can be resumed (start over with --force)");
  // (max_tiles 1..kMaxTiles and at least the rows, a known status:
  // read_grundy_file checked them.)
  const std::int64_t file_max = number("max_tiles", 0);
  GrundyResumeState s;
  s.file_max_tiles = static_cast<int>(file_max);
  s.max_tiles = requested_max_tiles > 0 ? requested_max_tiles : s.file_max_tiles;
  if (s.max_tiles < s.file_max_tiles)
    throw ResumeMismatch(cannot + "its run goes to --max-tiles " + std::to_string(file_max) +
                         " (as it was started, or last extended)" +
                         "; a resumed run may extend it (a larger --max-tiles) but not cut it short (" +
                         std::to_string(s.max_tiles) + "); omit --max-tiles to finish it as started");
  s.complete = number("complete", 0) == 1;
  s.status = text("status");

  // Every row as the engine would write it, or the file is refused.
  const std::size_t rows = f.tiles.size();
  const PartitionTable table(s.file_max_tiles);
  for (std::size_t i = 0; i < rows; ++i) {
    const int n = static_cast<int>(i) + 1;
    const std::string level = "level " + std::to_string(n) + " ";
    const auto damaged = [&](const std::string& what) { return ResumeRefused(cannot + level + what + " (damaged file)"); };
    // (Its columns' lengths, its level and the sums of its counts the
    // reader has checked.)
    if (f.positions[i] != table.positions(n))
      throw ResumeRefused(cannot + level + "has p(" + std::to_string(n) + ") = " + std::to_string(f.positions[i]) +
                          " but the engine computes " + std::to_string(table.positions(n)) +
                          " (damaged file, or written by an incompatible program)");
    const std::vector<std::uint64_t>& c = f.counts[i];
    if (c.size() != static_cast<std::size_t>(file_max))
      throw damaged("has " + std::to_string(c.size()) + " counts, not one per value 0.." + std::to_string(file_max - 1));
    // (Its tiles, counts, largest value and value-0 count the reader has
    // checked against each other.)
    const std::size_t last = f.largest[i];
    GrundyLevel g;
    g.tiles = n;
    g.positions = f.positions[i];
    g.counts.assign(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(last) + 1);
    g.largest = static_cast<int>(last);
    g.seconds = f.seconds[i];
    s.saved.push_back(std::move(g));
  }
  if (s.complete && rows != static_cast<std::size_t>(file_max))
    throw ResumeRefused(cannot + "it is marked complete but holds levels 1.." + std::to_string(rows) + " of " +
                        std::to_string(file_max) + " (damaged file)");

  GrundyProvenance& p = s.provenance;
  p.command_line = text("command_line");
  p.start_utc = text("start_utc");
  p.checked_against = text("checked_against");
  p.checked_to_level = static_cast<int>(number("checked_to_level", 0));
  p.resume_history = text("resume_history");
  // As for sieve files (resume.cpp): the file's own revision until a resume
  // replaced it; unknown for a file resumed before the attribute.
  p.first_git_revision = text("first_git_revision");
  if (p.first_git_revision.empty())
    p.first_git_revision =
        p.resume_history.empty() ? text("git_revision") : "unknown (resumed before the attribute, 2026-12-06)";
  p.threads = static_cast<int>(number("threads", 0));
  return s;
}

void check_recomputed_level(const GrundyResumeState& state, const GrundyLevel& recomputed, const std::string& path) {
  const std::size_t i = static_cast<std::size_t>(recomputed.tiles) - 1;
  if (recomputed.tiles < 1 || i >= state.saved.size())
    throw std::logic_error("check_recomputed_level: level " + std::to_string(recomputed.tiles) + " is not saved");
  const GrundyLevel& saved = state.saved[i];
  if (recomputed.positions == saved.positions && recomputed.counts == saved.counts &&
      recomputed.largest == saved.largest)
    return;
  std::size_t g = 0;
  while (g < recomputed.counts.size() && g < saved.counts.size() && recomputed.counts[g] == saved.counts[g]) ++g;
  const auto at = [g](const std::vector<std::uint64_t>& c) { return g < c.size() ? c[g] : 0; };
  throw ResumeRefused("cannot resume " + path + ": level " + std::to_string(recomputed.tiles) + " computed again has " +
                      std::to_string(at(recomputed.counts)) + " positions of value " + std::to_string(g) +
                      " but the file has " + std::to_string(at(saved.counts)) +
                      " (a changed file, or one written by a program that computes other values); start over "
                      "with --force");
}

}  // namespace chomp
