/// @file h5_output.cpp
/// @brief HDF5 writer and reader of the per-level result table (C API, RAII).

#include "chomp/h5_output.hpp"

#include <hdf5.h>
#include <oneapi/tbb/version.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <utility>

#include "build_info.hpp"

namespace chomp {

namespace {

/// Owns one HDF5 identifier and closes it with the matching function.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  Handle& operator=(Handle&& o) noexcept {
    reset();
    id_ = std::exchange(o.id_, H5I_INVALID_HID);
    close_ = o.close_;
    return *this;
  }
  ~Handle() { reset(); }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = H5I_INVALID_HID;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

/// HDF5 prints its own error stack by default; we report errors ourselves.
struct SilenceHdf5 {
  SilenceHdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }
};
const SilenceHdf5 silence_hdf5;

Handle check(hid_t id, Handle::Closer close, const std::string& what) {
  if (id < 0) throw H5Error(what);
  return Handle(id, close);
}

void check(herr_t status, const std::string& what) {
  if (status < 0) throw H5Error(what);
}

Handle string_type() {
  Handle t = check(H5Tcopy(H5T_C_S1), H5Tclose, "cannot make a string type");
  check(H5Tset_size(t.get(), H5T_VARIABLE), "cannot size a string type");
  check(H5Tset_cset(t.get(), H5T_CSET_UTF8), "cannot set a string type's character set");
  return t;
}

void write_string_attr(hid_t obj, const char* name, const std::string& value) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  Handle type = string_type();
  Handle space = check(H5Screate(H5S_SCALAR), H5Sclose, "cannot make a dataspace");
  Handle attr = check(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                      H5Aclose, std::string("cannot create attribute ") + name);
  const char* p = value.c_str();
  check(H5Awrite(attr.get(), type.get(), &p), std::string("cannot write attribute ") + name);
}

void write_int_attr(hid_t obj, const char* name, std::int64_t value) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  Handle space = check(H5Screate(H5S_SCALAR), H5Sclose, "cannot make a dataspace");
  Handle attr = check(H5Acreate2(obj, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                      H5Aclose, std::string("cannot create attribute ") + name);
  check(H5Awrite(attr.get(), H5T_NATIVE_INT64, &value), std::string("cannot write attribute ") + name);
}

struct Column {
  const char* name;
  hid_t file_type;
  hid_t mem_type;
  const char* description;
};

// The order is the file's column order; LevelFileWriter::append follows it.
const std::array<Column, 7>& columns() {
  static const std::array<Column, 7> cols{{
      {"tiles", H5T_STD_U32LE, H5T_NATIVE_UINT32, "tile count n of the level"},
      {"positions", H5T_STD_U64LE, H5T_NATIVE_UINT64,
       "p(n): number of positions (partitions of n) with n tiles"},
      {"losing", H5T_STD_U64LE, H5T_NATIVE_UINT64, "L(n): number of losing positions with n tiles"},
      {"losing_fraction", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, "L(n) / p(n)"},
      {"hypothesis_ratio", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
       "L(n) / (p(n) / ln p(n)); NaN where ln p(n) = 0; conjectured to tend to 0.286"},
      {"seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, "wall-clock seconds spent on the level"},
      {"marks", H5T_STD_U64LE, H5T_NATIVE_UINT64,
       "winning marks applied at the level (positions marked from smaller losing ones, with repeats)"},
  }};
  return cols;
}

}  // namespace

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string hdf5_version() {
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  return std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
}

std::string tbb_version() { return TBB_runtime_version(); }

struct LevelFileWriter::Impl {
  Handle file;
  Handle group;
  std::vector<Handle> datasets;
  Handle positions;  // /losing_positions, made on first use
  hsize_t rows = 0;
};

LevelFileWriter::LevelFileWriter(const std::string& path, const Provenance& prov)
    : impl_(std::make_unique<Impl>()), path_(path) {
  impl_->file = check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                      "cannot create " + path + " (check that the folder exists and is writable)");
  const hid_t f = impl_->file.get();
  write_string_attr(f, "program", "chomp");
  write_string_attr(f, "version", build::kVersion);
  write_string_attr(f, "git_revision", build::kGitRevision);
  write_int_attr(f, "format_version", kFormatVersion);
  write_string_attr(f, "command_line", prov.command_line);
  write_int_attr(f, "max_tiles", prov.max_tiles);
  write_int_attr(f, "threads", prov.threads);
  write_int_attr(f, "store_losing", prov.store_losing);
  write_string_attr(f, "hdf5_version", hdf5_version());
  write_string_attr(f, "tbb_version", tbb_version());
  write_string_attr(f, "compiler", build::kCompiler);
  write_string_attr(f, "build_type", build::kBuildType);
  write_string_attr(f, "host", host_name());
  write_string_attr(f, "start_utc", prov.start_utc);
  write_string_attr(f, "end_utc", "");
  write_int_attr(f, "complete", 0);
  write_string_attr(f, "status", "running");

  impl_->group = check(H5Gcreate2(f, "levels", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                       "cannot create group /levels in " + path);
  write_string_attr(impl_->group.get(), "description",
                    "one row per tile count n = 1..max_tiles, appended as each level completes");
  const hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = 256;
  for (const Column& c : columns()) {
    Handle space = check(H5Screate_simple(1, &zero, &unlimited), H5Sclose, "cannot make a dataspace");
    Handle dcpl = check(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "cannot make a property list");
    check(H5Pset_chunk(dcpl.get(), 1, &chunk), "cannot set chunking");
    check(H5Pset_fletcher32(dcpl.get()), "cannot set checksums");
    Handle ds = check(H5Dcreate2(impl_->group.get(), c.name, c.file_type, space.get(), H5P_DEFAULT,
                                 dcpl.get(), H5P_DEFAULT),
                      H5Dclose, std::string("cannot create dataset /levels/") + c.name + " in " + path);
    write_string_attr(ds.get(), "description", c.description);
    impl_->datasets.push_back(std::move(ds));
  }
  check(H5Fflush(f, H5F_SCOPE_GLOBAL), "cannot flush " + path);
}

LevelFileWriter::~LevelFileWriter() = default;

void LevelFileWriter::append(const LevelResult& level) {
  const std::uint32_t tiles = static_cast<std::uint32_t>(level.tiles);
  const double fraction = level.losing_fraction(), ratio = level.hypothesis_ratio();
  const void* values[] = {&tiles,    &level.positions, &level.losing, &fraction,
                          &ratio,    &level.seconds,   &level.marks};
  const hsize_t row = impl_->rows, one = 1, size = row + 1;
  for (std::size_t i = 0; i < columns().size(); ++i) {
    const hid_t ds = impl_->datasets[i].get();
    const std::string what = std::string("cannot append to /levels/") + columns()[i].name + " in " +
                             path_ + " (is the disk full?)";
    check(H5Dset_extent(ds, &size), what);
    Handle file_space = check(H5Dget_space(ds), H5Sclose, what);
    check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &row, nullptr, &one, nullptr), what);
    Handle mem_space = check(H5Screate_simple(1, &one, nullptr), H5Sclose, what);
    check(H5Dwrite(ds, columns()[i].mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, values[i]),
          what);
  }
  impl_->rows = size;
  check(H5Fflush(impl_->file.get(), H5F_SCOPE_GLOBAL), "cannot flush " + path_ + " (is the disk full?)");
}

namespace {
std::string level_name(int n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "level_%03d", n);
  return buf;
}
}  // namespace

void LevelFileWriter::write_losing_positions(int n, std::span<const std::uint64_t> words) {
  const hid_t f = impl_->file.get();
  const std::string what = "cannot store the losing positions of level " + std::to_string(n) +
                           " in " + path_ + " (is the disk full?)";
  if (!impl_->positions.valid()) {
    impl_->positions = check(H5Gcreate2(f, "losing_positions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                             H5Gclose, what);
    write_string_attr(impl_->positions.get(), "description",
                      "losing positions of each stored level, one dataset per level");
    write_string_attr(impl_->positions.get(), "encoding",
                      "uint64 lattice path: bit k = step k from the bottom-left corner, 1 = north, "
                      "0 = east; the highest set bit is the last (north) step; each north step "
                      "closes a row as long as the east steps before it, bottom row first");
  }
  const hsize_t count = words.size();
  Handle space = check(H5Screate_simple(1, &count, nullptr), H5Sclose, what);
  Handle dcpl = check(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
  if (count > 0) {
    const hsize_t chunk = std::min<hsize_t>(count, 1 << 16);
    check(H5Pset_chunk(dcpl.get(), 1, &chunk), what);
    check(H5Pset_fletcher32(dcpl.get()), what);
  }
  Handle ds = check(H5Dcreate2(impl_->positions.get(), level_name(n).c_str(), H5T_STD_U64LE,
                               space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                    H5Dclose, what);
  write_string_attr(ds.get(), "description",
                    "lattice paths of the losing positions with " + std::to_string(n) +
                        " tiles, in increasing rank order");
  write_int_attr(ds.get(), "tiles", n);
  if (count > 0)
    check(H5Dwrite(ds.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, words.data()), what);
  check(H5Fflush(f, H5F_SCOPE_GLOBAL), what);
}

void LevelFileWriter::finish(const std::string& status) {
  const hid_t f = impl_->file.get();
  write_string_attr(f, "end_utc", utc_now());
  write_string_attr(f, "status", status);
  write_int_attr(f, "complete", status == "complete" ? 1 : 0);
  check(H5Fflush(f, H5F_SCOPE_GLOBAL), "cannot flush " + path_ + " (is the disk full?)");
}

bool LevelTable::complete() const {
  const auto it = number_attributes.find("complete");
  return it != number_attributes.end() && it->second == 1;
}

namespace {

template <class T>
std::vector<T> read_column(hid_t group, const Column& c, const std::string& path) {
  const std::string what = std::string("cannot read /levels/") + c.name + " from " + path;
  Handle ds = check(H5Dopen2(group, c.name, H5P_DEFAULT), H5Dclose, what);
  Handle space = check(H5Dget_space(ds.get()), H5Sclose, what);
  hsize_t n = 0;
  if (H5Sget_simple_extent_ndims(space.get()) != 1) throw H5Error(what + ": not a 1-D dataset");
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);
  std::vector<T> out(static_cast<std::size_t>(n));
  if (n > 0) check(H5Dread(ds.get(), c.mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), what);
  return out;
}

herr_t collect_attr(hid_t loc, const char* name, const H5A_info_t*, void* data) {
  auto* table = static_cast<LevelTable*>(data);
  Handle attr(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) return 0;
  Handle type(H5Aget_type(attr.get()), H5Tclose);
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls == H5T_STRING && H5Tis_variable_str(type.get()) > 0) {
    Handle mem = string_type();
    char* value = nullptr;
    if (H5Aread(attr.get(), mem.get(), &value) >= 0 && value) {
      table->text_attributes[name] = value;
      Handle space(H5Aget_space(attr.get()), H5Sclose);
      H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, &value);
    }
  } else if (cls == H5T_INTEGER) {
    std::int64_t v = 0;
    if (H5Aread(attr.get(), H5T_NATIVE_INT64, &v) >= 0) table->number_attributes[name] = v;
  }
  return 0;
}

}  // namespace

std::vector<std::uint64_t> read_losing_positions(const std::string& path, int n) {
  Handle file = check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "cannot open " + path);
  const std::string name = "losing_positions/" + level_name(n);
  if (H5Lexists(file.get(), "losing_positions", H5P_DEFAULT) <= 0 ||
      H5Lexists(file.get(), name.c_str(), H5P_DEFAULT) <= 0)
    return {};
  Handle group = check(H5Gopen2(file.get(), "losing_positions", H5P_DEFAULT), H5Gclose, "cannot open " + name);
  const std::string ds = level_name(n);
  return read_column<std::uint64_t>(group.get(), Column{ds.c_str(), H5T_STD_U64LE, H5T_NATIVE_UINT64, ""},
                                    path);
}

LevelTable read_level_file(const std::string& path) {
  if (access(path.c_str(), R_OK) != 0) throw H5Error("cannot read " + path + ": no such readable file");
  if (H5Fis_hdf5(path.c_str()) <= 0) throw H5Error(path + " is not an HDF5 file");
  Handle file = check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                      "cannot open " + path + " (truncated or damaged?)");
  LevelTable t;
  H5Aiterate2(file.get(), H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, collect_attr, &t);
  const auto fv = t.number_attributes.find("format_version");
  if (fv == t.number_attributes.end())
    throw H5Error(path + " has no format_version attribute; it was not written by chomp sieve");
  if (fv->second != kFormatVersion)
    throw H5Error(path + " has format_version " + std::to_string(fv->second) + "; this program reads " +
                  std::to_string(kFormatVersion));
  Handle group = check(H5Gopen2(file.get(), "levels", H5P_DEFAULT), H5Gclose,
                       "cannot open group /levels in " + path);
  const auto& c = columns();
  t.tiles = read_column<std::uint32_t>(group.get(), c[0], path);
  t.positions = read_column<std::uint64_t>(group.get(), c[1], path);
  t.losing = read_column<std::uint64_t>(group.get(), c[2], path);
  t.losing_fraction = read_column<double>(group.get(), c[3], path);
  t.hypothesis_ratio = read_column<double>(group.get(), c[4], path);
  t.seconds = read_column<double>(group.get(), c[5], path);
  t.marks = read_column<std::uint64_t>(group.get(), c[6], path);
  const std::size_t n = t.tiles.size();
  if (t.positions.size() != n || t.losing.size() != n || t.losing_fraction.size() != n ||
      t.hypothesis_ratio.size() != n || t.seconds.size() != n || t.marks.size() != n)
    throw H5Error(path + ": the /levels datasets have different lengths (damaged file)");
  return t;
}

}  // namespace chomp
