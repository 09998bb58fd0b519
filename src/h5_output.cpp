/// @file h5_output.cpp
/// @brief The sieve's result file, written and read: its /levels columns and
/// stored losing positions (SWMR writing, so a killed run leaves a readable
/// file), and the checked reader of everything a file claims. The chunk
/// layout is h5_series.cpp's, the provenance attributes h5_provenance.cpp's.

#include "chomp/h5_output.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <chrono>
#include <cstdint>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>

#include "chomp/plane_partition.hpp"
#include "chomp/ranking.hpp"
#include "config.hpp"
#include "h5_provenance.hpp"
#include "h5_series.hpp"
#include "h5_util.hpp"

namespace chomp {

namespace {

using h5::append_values;
using h5::check;
using h5::Handle;
using h5::kPositionChunk;
using h5::kRowChunk;
using h5::make_series;
using h5::write_attr;

struct Column {
  const char* name;
  hid_t file_type;
  hid_t mem_type;
  const char* description;
  /// In a table of 3D Chomp (dimensions = 3), where a level is a cube
  /// count and its positions are plane partitions; null: the same.
  const char* description_3d = nullptr;
};

// The order is the file's column order; LevelFileWriter::append follows it.
// Columns after the first seven are new in format_version 3 (optional when
// older files are read).
constexpr std::size_t kColumns = 11;
const std::array<Column, kColumns>& columns() {
  static const std::array<Column, kColumns> cols{{
      {"tiles", H5T_STD_U32LE, H5T_NATIVE_UINT32, "tile count n of the level", "cube count n of the level (3D Chomp)"},
      {"positions", H5T_STD_U64LE, H5T_NATIVE_UINT64,
       "p(n): number of positions (partitions of n) with n tiles",
       "PL(n): number of 3D positions (plane partitions of n) with n cubes"},
      {"losing", H5T_STD_U64LE, H5T_NATIVE_UINT64, "L(n): number of losing positions with n tiles",
       "L(n): number of losing 3D positions with n cubes"},
      {"losing_fraction", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, "L(n) / p(n)", "L(n) / PL(n)"},
      {"hypothesis_ratio", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
       "L(n) / (p(n) / ln p(n)); NaN where ln p(n) = 0; conjectured to tend to 0.286",
       "L(n) / (PL(n) / ln PL(n)); NaN where ln PL(n) = 0 (the 2D conjecture's ratio, computed for 3D Chomp)"},
      {"seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
       "wall-clock seconds of the level's own work: its slices, the marks of the levels below it in its "
       "window, its transposes and scan (not the pass that opened its window: window_seconds)",
       "wall-clock seconds of the level's work (the 3D sieve has no windows: window_seconds is 0)"},
      {"marks", H5T_STD_U64LE, H5T_NATIVE_UINT64,
       "winning marks applied at the level (positions marked from smaller losing ones, with repeats; the moves "
       "of the rows the root attribute inferred_marks names are inferred, not counted)",
       "moves examined at the level (the 3D sieve decides each position by its moves)"},
      {"window_seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
       "wall-clock seconds of the pass that opened the level's window, shared by the window's levels and "
       "recorded with its first level only (0 for the others)",
       "0 (the 3D sieve has no windows: a level's time is all in seconds)"},
      {"slices", H5T_STD_U32LE, H5T_NATIVE_UINT32,
       "slices the level was finished in (1: whole; more when its bitmap did not fit the memory budget)",
       "slices the level was finished in (1: the 3D sieve finishes each level whole)"},
      {"store_trailer", H5T_STD_U64LE, H5T_NATIVE_UINT64,
       "byte offset of the level's trailer in the store file (root attribute store_file)"},
      {"losing_digest", H5T_STD_U64LE, H5T_NATIVE_UINT64,
       "digest of the level's losing ranks: the sum mod 2^64 of splitmix64(rank) over them "
       "(doc/FILE_FORMAT.md), checked when the store is read back"},
  }};
  return cols;
}

/// Whether name is one plain file name (the writer records the store's name
/// without a folder: a path here could point the run at any file).
bool plain_file_name(const std::string& name) {
  if (name.empty() || name.size() > 255 || name == "." || name == "..") return false;
  for (const char c : name)
    if (c == '/' || static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return false;
  return true;
}

bool run_id_form(const std::string& id) {
  if (id.size() != 32) return false;
  for (const char c : id)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

namespace {

std::string level_name(int n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "level_%03d", n);
  return buf;
}

}  // namespace

std::string losing_positions_dataset(int n) { return "/losing_positions/" + level_name(n); }

struct LevelFileWriter::Impl {
  Handle file;                    // declared first: closed after the datasets
  std::vector<Handle> columns;    // /levels datasets, in columns() order
  std::vector<Handle> positions;  // /losing_positions/level_NNN, index n - 1
  hsize_t rows = 0;
  int store_losing = 0;
  int inferred_rows = 0;  // as the provenance's inferred_marks says (latest way)
  int max_tiles = 0;      // the provenance's: a "complete" file has that many rows
  // The level whose losing positions were written last, and how many (the
  // next append() of a level <= store_losing must match them).
  int positions_level = 0;
  std::uint64_t positions_count = 0;

  // A row flushed is on disk before the next level is begun: H5Fflush hands
  // it to the kernel, fdatasync makes it durable, as the store's blocks are
  // (a power cut otherwise left the store levels ahead of the table, which
  // the resume takes for a copy put back and refuses).
  void flush(const std::string& what) const {
    check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), what);
    void* handle = nullptr;
    if (H5Fget_vfd_handle(file.get(), H5P_DEFAULT, &handle) >= 0 && handle != nullptr &&
        ::fdatasync(*static_cast<int*>(handle)) != 0)
      throw H5Error(what + ": " + std::error_code(errno, std::generic_category()).message());
  }
  void close_datasets() {
    positions.clear();
    columns.clear();
  }
};

LevelFileWriter::LevelFileWriter(const std::string& path, const Provenance& prov)
    : impl_(std::make_unique<Impl>()), path_(path) {
  // What every reader refuses as damaged is refused here, before the file
  // is made: the reader's bounds (read_level_file).
  h5::require_dimensions(prov.dimensions, "LevelFileWriter: Provenance");
  if (const int largest = prov.dimensions == 3 ? kMaxCubes : kMaxTiles; prov.max_tiles < 1 || prov.max_tiles > largest)
    throw std::invalid_argument("LevelFileWriter: Provenance::max_tiles is " + std::to_string(prov.max_tiles) +
                                "; a " + std::to_string(prov.dimensions) + "D run's is 1.." + std::to_string(largest));
  if (prov.store_losing < 0 || prov.store_losing > std::min(kMaxStoredTiles, prov.max_tiles))
    throw std::invalid_argument("LevelFileWriter: Provenance::store_losing is " + std::to_string(prov.store_losing) +
                                "; 0..min(" + std::to_string(kMaxStoredTiles) + ", max_tiles)");
  // The store is named relative to this file's folder: a path (such as a
  // temporary store's, "/tmp/chomp-store-... (temporary)") made a file that
  // said "complete" and that every reader then refused as damaged.
  if (!prov.store_file.empty() && !plain_file_name(prov.store_file))
    throw std::invalid_argument("LevelFileWriter: Provenance::store_file \"" + prov.store_file.substr(0, 60) +
                                "\" is not a file name: give the store's name alone, beside this file "
                                "(std::filesystem::path(store_path_for(path)).filename())");
  if (!run_id_form(prov.run_id) && !(prov.run_id.empty() && prov.store_file.empty()))
    throw std::invalid_argument("LevelFileWriter: Provenance::run_id \"" + prov.run_id.substr(0, 40) +
                                "\" is not 32 hexadecimal digits (new_run_id(), the store's id)");
  Provenance recorded = prov;
  if (recorded.start_utc.empty()) recorded.start_utc = utc_now();
  {
    Handle fapl = h5::latest_format_access();
    impl_->file = check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose,
                        "cannot create " + path);
  }
  const hid_t f = impl_->file.get();
  h5::write_build_attributes(f);
  write_attr(f, "format_version", kFormatVersion);
  h5::write_run_attributes(f, recorded);

  // SWMR writing allows no new objects, so every dataset is made now; the
  // groups are closed before it starts (only datasets may stay open).
  {
    Handle group = check(H5Gcreate2(f, "levels", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                         "cannot create group /levels in " + path);
    write_attr(group.get(), "description",
               prov.dimensions == 3 ? "one row per cube count n = 1..max_tiles, appended as each level completes"
                                    : "one row per tile count n = 1..max_tiles, appended as each level completes");
    for (const Column& c : columns()) {
      const char* description = prov.dimensions == 3 && c.description_3d ? c.description_3d : c.description;
      impl_->columns.push_back(make_series(group.get(), c.name, c.file_type, kRowChunk, false, description,
                                           std::string("cannot create /levels/") + c.name + " in " + path));
      if (std::string(c.name).find("seconds") != std::string::npos)
        write_attr(impl_->columns.back().get(), "units", "s");
    }
  }
  impl_->store_losing = prov.store_losing;
  impl_->max_tiles = prov.max_tiles;
  impl_->inferred_rows = inferred_rows_of(prov.inferred_marks);
  if (prov.store_losing > 0) {
    const std::string what = "cannot create /losing_positions in " + path;
    Handle group = check(H5Gcreate2(f, "losing_positions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                         H5Gclose, what);
    write_attr(group.get(), "description",
               "losing positions of each stored level, one dataset per level (empty until the "
               "level is finished)");
    write_attr(group.get(), "encoding",
               "uint64 lattice path: bit k = step k from the bottom-left corner, 1 = north, "
               "0 = east; the highest set bit is the last (north) step; each north step "
               "closes a row as long as the east steps before it, bottom row first");
    for (int n = 1; n <= prov.store_losing; ++n) {
      Handle ds = make_series(group.get(), level_name(n), H5T_STD_U64LE, kPositionChunk, true,
                              "lattice paths of the losing positions with " + std::to_string(n) +
                                  " tiles, in increasing rank order",
                              what);
      write_attr(ds.get(), "tiles", n);
      impl_->positions.push_back(std::move(ds));
    }
  }
  check(H5Fstart_swmr_write(f), "cannot start SWMR writing of " + path);
}

LevelFileWriter::~LevelFileWriter() = default;

std::uint64_t LevelFileWriter::rows() const { return impl_->rows; }
int LevelFileWriter::store_losing() const { return impl_->store_losing; }
int LevelFileWriter::inferred_rows() const { return impl_->inferred_rows; }

void LevelFileWriter::append(const LevelResult& level) {
  if (!impl_->file.valid()) throw H5Error(path_ + " is already finished");
  if (static_cast<hsize_t>(level.tiles) != impl_->rows + 1)
    throw H5Error("level " + std::to_string(level.tiles) + " cannot follow row " + std::to_string(impl_->rows) +
                  " of " + path_);
  if (level.tiles > impl_->max_tiles)
    throw std::logic_error("LevelFileWriter::append: level " + std::to_string(level.tiles) + " is beyond max_tiles " +
                           std::to_string(impl_->max_tiles) + " of " + path_ + " (a reader would call it damaged)");
  // A file that keeps the losing positions of levels 1..store_losing: each
  // such level's row follows its positions, one word each (save_level,
  // resume.hpp, writes both); a row without them read back as a level with
  // none stored.
  if (level.tiles <= impl_->store_losing &&
      (impl_->positions_level != level.tiles || impl_->positions_count != level.losing))
    throw std::logic_error(
        "level " + std::to_string(level.tiles) + " of " + path_ + ", which keeps the losing positions of levels 1.." +
        std::to_string(impl_->store_losing) + ": write_losing_positions(" + std::to_string(level.tiles) + ", ...) with its " +
        std::to_string(level.losing) + " positions first" +
        (impl_->positions_level == level.tiles ? " (" + std::to_string(impl_->positions_count) + " were written)" : "") +
        "; save_level (resume.hpp) writes both");
  const std::string where = " of level " + std::to_string(level.tiles) + " to " + path_;
  const std::uint32_t tiles = static_cast<std::uint32_t>(level.tiles), slices = static_cast<std::uint32_t>(level.slices);
  const double fraction = level.losing_fraction(), ratio = level.hypothesis_ratio();
  const void* values[] = {&tiles,         &level.positions,     &level.losing, &fraction,
                          &ratio,         &level.seconds,       &level.marks,  &level.window_seconds,
                          &slices,        &level.stored.trailer, &level.stored.digest};
  static_assert(std::size(values) == kColumns);
  for (std::size_t i = 0; i < columns().size(); ++i)
    append_values(impl_->columns[i].get(), impl_->rows, 1, columns()[i].mem_type, values[i],
                  std::string("cannot append to /levels/") + columns()[i].name + where);
  impl_->flush("cannot flush the /levels row" + where);
  ++impl_->rows;
}

void LevelFileWriter::write_losing_positions(int n, std::span<const std::uint64_t> words) {
  const std::string what = "cannot store the losing positions of level " + std::to_string(n) + " in " + path_;
  if (n < 1 || static_cast<std::size_t>(n) > impl_->positions.size())
    throw H5Error(what + ": the file was made for levels 1.." + std::to_string(impl_->positions.size()));
  if (static_cast<hsize_t>(n) != impl_->rows + 1)
    throw std::logic_error(what + ": a level's losing positions go in just before its row, and the next row is level " +
                           std::to_string(impl_->rows + 1));
  // The extent is set whatever the count: a level of no losing positions
  // written over an earlier call keeps none of its words.
  const hid_t ds = impl_->positions[static_cast<std::size_t>(n - 1)].get();
  const hsize_t size = words.size();
  if (size == 0) check(H5Dset_extent(ds, &size), what);
  append_values(ds, 0, words.size(), H5T_NATIVE_UINT64, words.data(), what);
  impl_->flush(what);
  impl_->positions_level = n;
  impl_->positions_count = words.size();
}

void LevelFileWriter::abandon() {
  for (Handle& h : impl_->positions) h.release();
  for (Handle& h : impl_->columns) h.release();
  impl_->file.release();
}

void LevelFileWriter::rename_to(const std::string& new_path) {
  // The file is durable (flush above); the rename is made durable too, by
  // an fsync of its folder, so that a power cut after it leaves the new
  // file under the name, not an empty or old one.
  std::error_code ec;
  std::filesystem::rename(path_, new_path, ec);
  if (ec) throw H5Error("cannot rename " + path_ + " to " + new_path + ": " + ec.message());
  path_ = new_path;
  const std::filesystem::path folder = std::filesystem::absolute(new_path).parent_path();
  if (const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

void LevelFileWriter::finish(const std::string& status) {
  if (!impl_->file.valid()) throw H5Error(path_ + " is already finished");
  if (!h5::known_status(status))
    throw std::invalid_argument("LevelFileWriter::finish(\"" + status + "\") on " + path_ + ": the status is " +
                                h5::kKnownStatuses + " (doc/FILE_FORMAT.md)");
  // A file marked complete with levels missing is refused by every reader
  // as damaged: say so to the writer, before anything is written.
  if (status == "complete" && impl_->rows != static_cast<hsize_t>(impl_->max_tiles))
    throw std::logic_error("LevelFileWriter::finish(\"complete\") on " + path_ + " with levels 1.." +
                           std::to_string(impl_->rows) + " of max_tiles " + std::to_string(impl_->max_tiles) +
                           (impl_->rows < static_cast<hsize_t>(impl_->max_tiles)
                                ? ": a file with levels missing is not complete (finish it as \"interrupted\")"
                                : ": a complete file holds exactly max_tiles levels"));
  // Written over in place while SWMR writing goes on: the file is never
  // open without SWMR, whose "open for writing" mark would make a file
  // killed at this moment unreadable (seen once in 300 random kills when
  // finish reopened the file to write these).
  h5::write_end_attributes(impl_->file.get(), status);
  impl_->close_datasets();
  h5::close_file(impl_->file, "cannot record the status of " + path_);
}

bool LevelTable::complete() const {
  const auto it = number_attributes.find("complete");
  return it != number_attributes.end() && it->second == 1;
}

std::string LevelTable::status() const {
  const auto it = text_attributes.find("status");
  return it == text_attributes.end() ? std::string() : it->second;
}

namespace {

bool link_exists(hid_t loc, const char* name) { return H5Lexists(loc, name, H5P_DEFAULT) > 0; }

/// A /levels dataset has a row per level: at most kMaxTiles.
constexpr hsize_t kMaxRows = kMaxTiles;

/// A /levels column; an empty one when `optional` and it is not in the file.
/// Its chunks' places in the file are added to `chunks`, and `written`
/// lowered to the rows before its first missing chunk (h5::checked_rows).
template <class T>
std::vector<T> read_column(hid_t group, const Column& c, const std::string& path, std::vector<haddr_t>& chunks,
                           hsize_t& written, bool optional = false) {
  if (optional && !link_exists(group, c.name)) return {};
  hsize_t rows = 0;
  std::vector<T> out = h5::read_column<T>(group, c.name, c.mem_type, kMaxRows,
                                          std::string("cannot read /levels/") + c.name + " from " + path, &chunks,
                                          &rows);
  written = std::min(written, rows);
  return out;
}

/// The root attributes this program knows, and what each must hold: a file
/// whose attribute of one of these names holds anything else is refused
/// (unknown attributes are not read).
const std::vector<std::pair<const char*, h5::Kind>>& root_schema() {
  using h5::Kind;
  static const std::vector<std::pair<const char*, Kind>> schema{
      {"program", Kind::text},        {"version", Kind::text},        {"git_revision", Kind::text},
      {"format_version", Kind::integer}, {"command_line", Kind::text}, {"max_tiles", Kind::integer},
      {"threads", Kind::integer},     {"mpi_ranks", Kind::integer},   {"store_losing", Kind::integer},
      {"memory_budget", Kind::integer}, {"store_file", Kind::text},   {"run_id", Kind::text},
      {"hdf5_version", Kind::text},   {"tbb_version", Kind::text},    {"compiler", Kind::text},
      {"build_type", Kind::text},     {"host", Kind::text},           {"start_utc", Kind::text},
      {"end_utc", Kind::text},        {"resume_history", Kind::text}, {"complete", Kind::integer},
      {"status", Kind::text},         {"levels_only", Kind::integer}, {"dimensions", Kind::integer},
      {"license", Kind::text},        {"references", Kind::text},     {"inferred_marks", Kind::text},
      {"mpi_library", Kind::text},    {"first_git_revision", Kind::text},
  };
  return schema;
}

/// Refuses root attributes of a format 3 file that no writer makes.
void check_root_values(const LevelTable& t, const std::string& path) {
  const auto refuse = [&](const std::string& name, const std::string& is) {
    throw H5Error("attribute " + name + " of " + path + " " + is + " (damaged file)");
  };
  const auto number = [&](const char* name) -> std::int64_t {
    const auto it = t.number_attributes.find(name);
    if (it == t.number_attributes.end()) refuse(name, "is missing");
    return it->second;
  };
  const std::int64_t max_tiles = number("max_tiles"), store_losing = number("store_losing");
  const std::int64_t complete = number("complete");
  if (max_tiles < 1 || max_tiles > kMaxTiles)
    refuse("max_tiles", "is " + std::to_string(max_tiles) + ", not a level count 1.." + std::to_string(kMaxTiles));
  if (store_losing < 0 || store_losing > std::min<std::int64_t>(kMaxStoredTiles, max_tiles))
    refuse("store_losing", "is " + std::to_string(store_losing) + ", not 0..min(" +
                               std::to_string(kMaxStoredTiles) + ", max_tiles)");
  if (complete != 0 && complete != 1) refuse("complete", "is " + std::to_string(complete) + ", not 0 or 1");
  if (const auto d = t.number_attributes.find("dimensions"); d != t.number_attributes.end() && d->second != 2 &&
                                                              d->second != 3)
    refuse("dimensions", "is " + std::to_string(d->second) + ", not 2 or 3");
  if (const auto f = t.text_attributes.find("store_file"); f != t.text_attributes.end() && !f->second.empty() &&
                                                            !plain_file_name(f->second))
    refuse("store_file", "is not a file name (\"" + f->second.substr(0, 60) + "\")");
  // (A run with no store, such as a 3D one before 3D runs kept a store, records an empty run_id.)
  if (const auto id = t.text_attributes.find("run_id");
      id != t.text_attributes.end() && !run_id_form(id->second) &&
      !(id->second.empty() && t.text_attributes.count("store_file") && t.text_attributes.at("store_file").empty()))
    refuse("run_id", "is not 32 hexadecimal digits");
}

}  // namespace

std::string row_value_problem(const LevelTable& t, std::size_t i) {
  const std::uint64_t p = t.positions[i], L = t.losing[i];
  if (L > p) return "has more losing positions (" + std::to_string(L) + ") than positions (" + std::to_string(p) + ")";
  // Recomputed as the writer computes them, these are equal to the bit; the
  // tolerance only spares a file written with another platform's libm.
  const auto same = [](double stored, double computed) {
    if (std::isnan(computed)) return std::isnan(stored);
    return stored == computed || std::fabs(stored - computed) <= 1e-12 * std::fabs(computed);
  };
  const auto text = [](double v) {  // shortest round trip
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
  };
  const double fraction = p ? static_cast<double>(L) / static_cast<double>(p) : 0.0;
  const double ratio = hypothesis_ratio(p, L);
  for (const auto& [column, stored, computed] : {std::tuple{"losing_fraction", t.losing_fraction[i], fraction},
                                                 std::tuple{"hypothesis_ratio", t.hypothesis_ratio[i], ratio}})
    if (!same(stored, computed))
      return std::string(column) + " = " + text(stored) + " disagrees with L = " + std::to_string(L) + ", p = " +
             std::to_string(p) + ", which give " + text(computed);
  return "";
}

struct LevelFileReader::Impl {
  Handle file;
  LevelTable table;
  int format = 0;
  std::size_t written = 0;  ///< rows before a column's first chunk missing from its index
  bool last_in_part = false;  ///< last_row_written_in_part()
};

LevelFileReader::LevelFileReader(const std::string& path, bool check_rows)
    : impl_(std::make_unique<Impl>()), path_(path) {
  // Reads the table from impl_->file.
  const auto load = [&] {
    const hid_t f = impl_->file.get();
    LevelTable& t = impl_->table;
    {
      const h5::Attributes attrs = h5::read_attributes(f, path);
      for (const auto& [name, kind] : root_schema()) h5::expect_kind(attrs, name, kind, path);
      const auto program = attrs.text.find("program");
      // The program's other files (`chomp grundy`, `chomp rectangles`) say what they are.
      if (const auto kind = attrs.text.find("format");
          kind != attrs.text.end() && program != attrs.text.end() && program->second == "chomp")
        throw H5Error(path + " is not a table of `chomp sieve`: its root attribute format = \"" + kind->second +
                      "\" marks a file of another command" +
                      (kind->second == "chomp-grundy"       ? " (`chomp grundy`; `chomp show` reads it)"
                       : kind->second == "chomp rectangles" ? " (`chomp rectangles`, which prints its table; "
                                                              "h5dump or h5py read it, doc/FILE_FORMAT.md)"
                                                            : ""));
      if (program == attrs.text.end() || program->second != "chomp" || !attrs.numbers.count("format_version"))
        throw H5Error(path + " is not a chomp result file (no program = \"chomp\" and format_version attributes)");
      t.text_attributes = attrs.text;
      t.number_attributes = attrs.numbers;
    }
    const std::int64_t fv = t.number_attributes.at("format_version");
    if (fv < kOldestReadableFormatVersion || fv > kFormatVersion)
      throw H5Error(path + " has format_version " + std::to_string(fv) + "; this program reads " +
                    std::to_string(kOldestReadableFormatVersion) + " to " + std::to_string(kFormatVersion));
    impl_->format = static_cast<int>(fv);
    if (impl_->format >= 3) check_root_values(t, path);
    {
      Handle group = h5::open_group(f, "levels", "cannot open group /levels in " + path);
      const auto& c = columns();
      // Read in the reverse of the order append() writes the columns: a live
      // writer may add levels meanwhile, and the rows that the column written
      // last already has are then whole in every column read after it.
      // Columns new in format 3 are optional in older files.
      const bool old = impl_->format < 3;
      std::vector<haddr_t> chunks;  // every column's, which no two may share
      hsize_t written = kMaxRows;   // the rows before any column's first missing chunk
      t.losing_digest = read_column<std::uint64_t>(group.get(), c[10], path, chunks, written, old);
      t.store_trailer = read_column<std::uint64_t>(group.get(), c[9], path, chunks, written, old);
      t.slices = read_column<std::uint32_t>(group.get(), c[8], path, chunks, written, old);
      t.window_seconds = read_column<double>(group.get(), c[7], path, chunks, written, old);
      t.marks = read_column<std::uint64_t>(group.get(), c[6], path, chunks, written);
      t.seconds = read_column<double>(group.get(), c[5], path, chunks, written);
      t.hypothesis_ratio = read_column<double>(group.get(), c[4], path, chunks, written);
      t.losing_fraction = read_column<double>(group.get(), c[3], path, chunks, written);
      t.losing = read_column<std::uint64_t>(group.get(), c[2], path, chunks, written);
      t.positions = read_column<std::uint64_t>(group.get(), c[1], path, chunks, written);
      t.tiles = read_column<std::uint32_t>(group.get(), c[0], path, chunks, written);
      h5::expect_distinct_chunks(std::move(chunks), "cannot read /levels from " + path);
      impl_->written = static_cast<std::size_t>(written);
      if (old) {
        const std::size_t rows = t.tiles.size();
        t.losing_digest.assign(rows, 0);
        t.store_trailer.assign(rows, 0);
        t.slices.assign(rows, 1);
        t.window_seconds.assign(rows, 0.0);
      }
    }
    const std::size_t n = std::min({t.tiles.size(), t.positions.size(), t.losing.size(), t.losing_fraction.size(),
                                    t.hypothesis_ratio.size(), t.seconds.size(), t.marks.size(),
                                    t.window_seconds.size(), t.slices.size(), t.store_trailer.size(),
                                    t.losing_digest.size()});
    const std::size_t most = std::max({t.tiles.size(), t.positions.size(), t.losing.size(), t.losing_fraction.size(),
                                       t.hypothesis_ratio.size(), t.seconds.size(), t.marks.size(),
                                       t.window_seconds.size(), t.slices.size(), t.store_trailer.size(),
                                       t.losing_digest.size()});
    // Rows that not every column has belong to levels that were not finished
    // when the file was read: a writer killed while appending a row leaves it
    // in some columns only, and a live writer may append levels while the
    // columns are read. They are dropped. In a complete file every column has
    // every row.
    if (most != n && t.complete())
      throw H5Error(path + ": the /levels datasets have different lengths (damaged file)");
    if (impl_->format >= 3 && static_cast<std::int64_t>(n) > t.number_attributes.at("max_tiles"))
      throw H5Error(path + " has " + std::to_string(n) + " levels in /levels but attribute max_tiles is " +
                    std::to_string(t.number_attributes.at("max_tiles")) + " (damaged file)");
    // A run is marked complete only once its last level is written.
    if (impl_->format >= 3 && t.complete() && static_cast<std::int64_t>(n) != t.number_attributes.at("max_tiles"))
      throw H5Error(path + " is marked complete (attribute complete = 1) but /levels holds levels 1.." +
                    std::to_string(n) + " of max_tiles " + std::to_string(t.number_attributes.at("max_tiles")) +
                    " (damaged file)");
    // A status no writer makes (LevelFileWriter::finish refuses one).
    if (const std::string status = t.status(); impl_->format >= 3 && !h5::known_status(status))
      throw H5Error(path + ": its status \"" + status + "\" is none of " + h5::kKnownStatuses + " (damaged file)");
    for (auto* v : {&t.positions, &t.losing, &t.marks, &t.store_trailer, &t.losing_digest}) v->resize(n);
    for (auto* v : {&t.losing_fraction, &t.hypothesis_ratio, &t.seconds, &t.window_seconds}) v->resize(n);
    t.tiles.resize(n);
    t.slices.resize(n);
    // Rows whose chunks are missing from a column's index read as 0. In a
    // run's last row, that is a write that failed part way (a file size
    // limit, a full disk); anywhere else, or in a complete file, damage.
    const std::size_t written = std::min(n, impl_->written);
    if (written < n && (t.complete() || written + 1 < n))
      throw H5Error(path + ": /levels has no data for the rows from row " + std::to_string(written + 1) +
                    " in its chunk index, where " + (t.complete() ? "a complete file" : "an unfinished run's file") +
                    " has data for " + (t.complete() ? "every row" : "every row but the last") +
                    " (a damaged chunk index: use an undamaged copy, or compute the levels again with chomp sieve)");
    // A last row written only in part (a failed write: its store trailer
    // reads 0, or a column has no chunk for it) is one that --resume
    // computes again; its values are not checked here.
    const bool last_in_part =
        !t.complete() && n > 0 && (written < n || (impl_->format >= 3 && t.store_trailer[n - 1] == 0));
    impl_->last_in_part = last_in_part;
    // What every finished row of a file of this format holds, whatever its
    // level: a value the file's checksums vouch for may still be one a
    // damaged chunk index put there.
    const auto dims = t.number_attributes.find("dimensions");
    const bool stored = has_store(), digests = stored || (impl_->format >= 3 && (dims == t.number_attributes.end() ||
                                                                                   dims->second == 2));
    const auto damaged = [&](std::size_t i, const std::string& what) {
      return H5Error(path + ": row " + std::to_string(i + 1) + " of /levels " + what +
                     " (a damaged file: use an undamaged copy, or compute the levels again with chomp sieve)");
    };
    for (std::size_t i = 0; check_rows && i < (last_in_part ? n - 1 : n); ++i) {
      if (t.tiles[i] != i + 1) throw damaged(i, "is for level " + std::to_string(t.tiles[i]) + ", not " +
                                                    std::to_string(i + 1) + " (the levels are 1, 2, ...)");
      if (impl_->format >= 3 && t.slices[i] == 0)
        throw damaged(i, "says the level was finished in 0 slices (one at least)");
      if (stored && t.store_trailer[i] == 0)
        throw damaged(i, "has store_trailer 0, which only a row written in part has, and only the last");
      if (digests && t.losing[i] > 0 && t.losing_digest[i] == 0)
        throw damaged(i, "has losing_digest 0 for " + std::to_string(t.losing[i]) + " losing positions");
      if (i + 1 >= static_cast<std::size_t>(config::kMarkedFromLevel) && t.marks[i] == 0)
        throw damaged(i, "has marks 0, which no level from " + std::to_string(config::kMarkedFromLevel) +
                             " on has (each has moves to losing positions to count)");
      if (const std::string problem = row_value_problem(t, i); !problem.empty())
        throw H5Error(path + ": level " + std::to_string(t.tiles[i]) + " (row " + std::to_string(i + 1) + "): " +
                      problem + ": one of them is wrong (a damaged or edited file; where the run's store is "
                      "kept, chomp verify tells which; else use an undamaged copy, or compute the levels again "
                      "with chomp sieve)");
    }
  };
  // A read that fails is made again from the start (config.hpp,
  // kLiveReadAttempts) when the file may be changing under it: a live
  // writer holds it (it may be rewriting attributes), or it was seen
  // shorter than its superblock says (HDF5 writes the superblock of a file
  // it closes before the file reaches that end). Any other failure, or one
  // that lasts, is reported.
  double pause = config::kLiveReadFirstPauseSeconds;
  for (int attempt = 1;; ++attempt) {
    bool live = false;
    try {
      impl_->file = h5::open_for_reading(path);
      live = h5::opened_live(impl_->file.get());
      load();
      return;
    } catch (const H5Error& e) {
      const bool closing = std::string(e.what()).find("truncated file") != std::string::npos;
      if (!(live || closing) || attempt >= config::kLiveReadAttempts) throw;
    }
    impl_->file.reset();
    impl_->table = LevelTable{};
    std::this_thread::sleep_for(std::chrono::duration<double>(pause));
    pause *= 2;
  }
}

LevelFileReader::~LevelFileReader() = default;

const LevelTable& LevelFileReader::table() const { return impl_->table; }
int LevelFileReader::format_version() const { return impl_->format; }
bool LevelFileReader::last_row_written_in_part() const { return impl_->last_in_part; }

bool LevelFileReader::has_store() const {
  const auto& text = impl_->table.text_attributes;
  const auto file = text.find("store_file");
  return impl_->format >= 3 && file != text.end() && !file->second.empty() && text.count("run_id");
}

std::string LevelFileReader::store_path() const {
  if (!has_store()) return {};
  // The store with the file's own name (mine.store beside mine.h5) when
  // there is one: the pair was copied or renamed together, and a copy's
  // store is its own, not its original's (which a resumed copy would
  // otherwise write into). Else the store the file names, beside it: the
  // file alone was renamed or copied.
  const std::string own = store_path_for(path_);
  std::error_code ec;
  if (std::filesystem::exists(own, ec)) return own;
  return (std::filesystem::path(path_).parent_path() / impl_->table.text_attributes.at("store_file")).string();
}

std::string LevelFileReader::run_id() const {
  const auto& text = impl_->table.text_attributes;
  const auto it = text.find("run_id");
  return it == text.end() ? std::string() : it->second;
}

std::vector<StoredLevel> LevelFileReader::stored_levels(int levels) const {
  const LevelTable& t = impl_->table;
  if (levels < 0 || static_cast<std::size_t>(levels) > t.tiles.size())
    throw std::out_of_range("stored_levels(" + std::to_string(levels) + ") of " + path_ + ", which holds levels 1.." +
                            std::to_string(t.tiles.size()));
  std::vector<StoredLevel> out;
  for (std::size_t i = 0; i < static_cast<std::size_t>(levels); ++i)
    out.push_back(StoredLevel{t.store_trailer[i], t.losing[i], t.losing_digest[i]});
  return out;
}

std::vector<std::uint64_t> LevelFileReader::losing_positions(int n) const {
  const hid_t f = impl_->file.get();
  if (n < 1 || n > kMaxStoredTiles || !link_exists(f, "losing_positions")) return {};
  const std::string name = level_name(n);
  const std::string what = "cannot read /losing_positions/" + name + " from " + path_;
  Handle group = h5::open_group(f, "losing_positions", what);
  if (!link_exists(group.get(), name.c_str())) return {};
  // A level has p(n) positions, so at most that many losing ones.
  static const PartitionTable table(kMaxStoredTiles);
  return h5::read_column<std::uint64_t>(group.get(), name.c_str(), H5T_NATIVE_UINT64, table.positions(n), what);
}

std::vector<std::uint64_t> read_losing_positions(const std::string& path, int n) {
  return LevelFileReader(path).losing_positions(n);
}

LevelTable read_level_file(const std::string& path) { return LevelFileReader(path).table(); }

}  // namespace chomp
