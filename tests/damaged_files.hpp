/// @file damaged_files.hpp
/// @brief Test support: result files and stores damaged on purpose. A
/// finished run to copy; HDF5 edits through the C API (a dataset or
/// attribute rewritten, replaced by a value of another type or shape, a
/// group or a link); flipped and overwritten bytes; a store rewritten with
/// one wrong fact that every checksum vouches for.
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp_process.hpp"

namespace chomp::testing {

// ---- Runs to damage ---------------------------------------------------------

/// The levels of finished_run().
inline constexpr int kFinishedRunLevels = 50;

/// A finished run to 50 tiles, made once per test program.
inline const std::string& finished_run() {
  static ScratchDir dir;
  static const std::string path = [] {
    const std::string p = dir.file("base.h5");
    const ProcessResult r = run_chomp({"sieve", "-n", std::to_string(kFinishedRunLevels), "-q", "-o", p});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return p;
  }();
  return path;
}

/// Copies a result file and its store to `path` (and its store's name).
inline void copy_run(const std::string& from, const std::string& path) {
  std::filesystem::copy_file(from, path);
  std::filesystem::copy_file(store_path_for(from), store_path_for(path));
}

// ---- Bytes ------------------------------------------------------------------

inline void flip_byte(const std::string& path, std::uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x5A));
}

/// Writes `bytes` at `offset` of a file.
inline void write_bytes(const std::string& path, std::uint64_t offset, const void* bytes, std::size_t n) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(static_cast<const char*>(bytes), static_cast<std::streamsize>(n));
}

// ---- A result file's datasets and attributes --------------------------------

/// Opens a result file for writing with the HDF5 C API, for tampering.
class RawFile {
 public:
  explicit RawFile(const std::string& path) : id_(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)) {
    EXPECT_GE(id_, 0) << "cannot open " << path;
  }
  ~RawFile() { H5Fclose(id_); }
  RawFile(const RawFile&) = delete;
  RawFile& operator=(const RawFile&) = delete;
  hid_t get() const { return id_; }

  /// File offset and stored size of chunk `index` of a dataset.
  std::pair<haddr_t, hsize_t> chunk(const char* dataset, hsize_t index) const {
    const hid_t ds = H5Dopen2(id_, dataset, H5P_DEFAULT);
    const hid_t space = H5Dget_space(ds);  // HDF5 1.10 does not take H5S_ALL here
    hsize_t offset = 0, size = 0;
    haddr_t addr = 0;
    unsigned mask = 0;
    EXPECT_GE(H5Dget_chunk_info(ds, space, index, &offset, &mask, &addr, &size), 0) << dataset;
    H5Sclose(space);
    H5Dclose(ds);
    return {addr, size};
  }

  template <class T>
  std::vector<T> read(const char* dataset, hid_t mem_type) const {
    const hid_t ds = H5Dopen2(id_, dataset, H5P_DEFAULT);
    const hid_t space = H5Dget_space(ds);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(space, &n, nullptr);
    std::vector<T> out(n);
    EXPECT_GE(H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0);
    H5Sclose(space);
    H5Dclose(ds);
    return out;
  }

  /// Rewrites a whole dataset (its checksums are recomputed: a consistent lie).
  template <class T>
  void write(const char* dataset, hid_t mem_type, const std::vector<T>& values) const {
    const hid_t ds = H5Dopen2(id_, dataset, H5P_DEFAULT);
    const hsize_t n = values.size();
    EXPECT_GE(H5Dset_extent(ds, &n), 0);
    EXPECT_GE(H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
    H5Dclose(ds);
  }

  /// Sets row i's counts p and L, and the columns derived from them
  /// (losing_fraction, hypothesis_ratio) as the writer computes them: a
  /// table that is wrong but whole, which only the engine, the store or
  /// the rule can catch (a derived column that disagrees with its counts is
  /// refused by every reader of the table).
  void set_counts(std::size_t i, std::uint64_t positions, std::uint64_t losing) const {
    auto p = read<std::uint64_t>("levels/positions", H5T_NATIVE_UINT64);
    auto L = read<std::uint64_t>("levels/losing", H5T_NATIVE_UINT64);
    auto fraction = read<double>("levels/losing_fraction", H5T_NATIVE_DOUBLE);
    auto ratio = read<double>("levels/hypothesis_ratio", H5T_NATIVE_DOUBLE);
    p.at(i) = positions;
    L.at(i) = losing;
    fraction.at(i) = static_cast<double>(losing) / static_cast<double>(positions);
    ratio.at(i) = chomp::hypothesis_ratio(positions, losing);
    write("levels/positions", H5T_NATIVE_UINT64, p);
    write("levels/losing", H5T_NATIVE_UINT64, L);
    write("levels/losing_fraction", H5T_NATIVE_DOUBLE, fraction);
    write("levels/hypothesis_ratio", H5T_NATIVE_DOUBLE, ratio);
  }

  void set_int_attribute(const char* name, std::int64_t value) const {
    const hid_t attr = H5Aopen(id_, name, H5P_DEFAULT);
    EXPECT_GE(H5Awrite(attr, H5T_NATIVE_INT64, &value), 0);
    H5Aclose(attr);
  }

 private:
  hid_t id_;
};

/// Handles of the HDF5 C API, closed in reverse order.
struct Ids {
  std::vector<std::pair<hid_t, herr_t (*)(hid_t)>> ids;
  Ids() = default;
  Ids(const Ids&) = delete;
  Ids& operator=(const Ids&) = delete;
  hid_t operator()(hid_t id, herr_t (*close)(hid_t)) {
    EXPECT_GE(id, 0) << "an HDF5 call failed while crafting the file";
    ids.emplace_back(id, close);
    return id;
  }
  ~Ids() {
    for (auto it = ids.rbegin(); it != ids.rend(); ++it)
      if (it->first >= 0) it->second(it->first);
  }
};

inline hid_t vlen_string(Ids& ids) {
  const hid_t t = ids(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t, H5T_VARIABLE);
  return t;
}

/// What a crafted value is: its file type, its dataspace, its bytes.
struct Value {
  std::function<hid_t(Ids&)> type;
  std::function<hid_t(Ids&)> space;
  std::function<const void*()> data;  ///< nullptr: nothing written
};

inline hid_t scalar(Ids& ids) { return ids(H5Screate(H5S_SCALAR), H5Sclose); }

inline Value int_array() {
  static const std::vector<std::int64_t> v(16, 7);
  return {[](Ids&) { return H5T_STD_I64LE; },
          [](Ids& ids) {
            const hsize_t n = 16;
            return ids(H5Screate_simple(1, &n, nullptr), H5Sclose);
          },
          [] { return static_cast<const void*>(v.data()); }};
}
inline Value int_value(std::int64_t x) {
  auto v = std::make_shared<std::int64_t>(x);
  return {[](Ids&) { return H5T_STD_I64LE; }, scalar, [v] { return static_cast<const void*>(v.get()); }};
}
inline Value real_value() {
  static const double v = 3.5;
  return {[](Ids&) { return H5T_IEEE_F64LE; }, scalar, [] { return static_cast<const void*>(&v); }};
}
inline Value text_value(std::string s) {
  auto text = std::make_shared<std::string>(std::move(s));
  auto ptr = std::make_shared<const char*>(nullptr);
  return {vlen_string, scalar, [text, ptr] {
            *ptr = text->c_str();
            return static_cast<const void*>(ptr.get());
          }};
}
inline Value text_array() {
  static const char* v[3] = {"a", "b", "c"};
  return {vlen_string,
          [](Ids& ids) {
            const hsize_t n = 3;
            return ids(H5Screate_simple(1, &n, nullptr), H5Sclose);
          },
          [] { return static_cast<const void*>(v); }};
}
inline Value empty_of(bool text) {
  return {text ? std::function<hid_t(Ids&)>(vlen_string) : [](Ids&) { return H5T_STD_I64LE; },
          [](Ids& ids) { return ids(H5Screate(H5S_NULL), H5Sclose); }, [] { return nullptr; }};
}
inline Value compound_value() {
  static const std::int64_t v[2] = {1, 2};
  return {[](Ids& ids) {
            const hid_t t = ids(H5Tcreate(H5T_COMPOUND, 16), H5Tclose);
            H5Tinsert(t, "a", 0, H5T_STD_I64LE);
            H5Tinsert(t, "b", 8, H5T_STD_I64LE);
            return t;
          },
          scalar, [] { return static_cast<const void*>(v); }};
}

/// Replaces (or adds) root attribute `name` with `v`.
inline void set_attribute(const std::string& path, const std::string& name, const Value& v) {
  Ids ids;
  const hid_t f = ids(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  if (H5Aexists(f, name.c_str()) > 0) {
    EXPECT_GE(H5Adelete(f, name.c_str()), 0);
  }
  const hid_t type = v.type(ids);
  const hid_t a = ids(H5Acreate2(f, name.c_str(), type, v.space(ids), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (const void* d = v.data()) {
    EXPECT_GE(H5Awrite(a, type, d), 0);
  }
}

inline void delete_attribute(const std::string& path, const std::string& name) {
  Ids ids;
  const hid_t f = ids(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  EXPECT_GE(H5Adelete(f, name.c_str()), 0);
}

/// The names of the root attributes, and of the datasets of a group.
inline std::vector<std::string> names_in(const std::string& path, const char* group, bool attributes) {
  Ids ids;
  const hid_t f = ids(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  std::vector<std::string> out;
  if (attributes) {
    H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, nullptr,
                [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
                  static_cast<std::vector<std::string>*>(data)->push_back(name);
                  return 0;
                },
                &out);
  } else {
    const hid_t g = ids(H5Gopen2(f, group, H5P_DEFAULT), H5Gclose);
    H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, nullptr,
               [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
                 static_cast<std::vector<std::string>*>(data)->push_back(name);
                 return 0;
               },
               &out);
  }
  return out;
}

/// Replaces dataset `name` (a path such as "levels/tiles") with one of
/// type `type`, dims, maxdims, chunk rows (0: contiguous), deflated or not;
/// `rows` values of zero bytes are written unless `write` is false.
inline void replace_dataset(const std::string& path, const std::string& name, hid_t type, std::vector<hsize_t> dims,
                            std::vector<hsize_t> maxdims, hsize_t chunk, bool deflate, bool write = true) {
  Ids ids;
  const hid_t f = ids(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  EXPECT_GE(H5Ldelete(f, name.c_str(), H5P_DEFAULT), 0);
  const int rank = static_cast<int>(dims.size());
  const hid_t space =
      ids(rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims.data(), maxdims.empty() ? nullptr : maxdims.data()),
          H5Sclose);
  const hid_t dcpl = ids(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  if (chunk) {
    std::vector<hsize_t> c(static_cast<std::size_t>(rank), 1);
    c[0] = chunk;
    EXPECT_GE(H5Pset_chunk(dcpl, rank, c.data()), 0);
    if (deflate) H5Pset_deflate(dcpl, 9);
  }
  const hid_t ds = ids(H5Dcreate2(f, name.c_str(), type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose);
  if (!write) return;
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  if (H5Tget_class(type) == H5T_STRING) {
    std::vector<const char*> v(n, "7");
    EXPECT_GE(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  } else {
    std::vector<char> zeros(n * H5Tget_size(type), 0);
    EXPECT_GE(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data()), 0);
  }
}

inline void set_extent(const std::string& path, const std::string& name, hsize_t rows) {
  Ids ids;
  const hid_t f = ids(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  const hid_t ds = ids(H5Dopen2(f, name.c_str(), H5P_DEFAULT), H5Dclose);
  EXPECT_GE(H5Dset_extent(ds, &rows), 0);
}

inline void replace_with_group(const std::string& path, const std::string& name) {
  Ids ids;
  const hid_t f = ids(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  EXPECT_GE(H5Ldelete(f, name.c_str(), H5P_DEFAULT), 0);
  ids(H5Gcreate2(f, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
}

inline void replace_with_soft_link(const std::string& path, const std::string& name, const std::string& target) {
  Ids ids;
  const hid_t f = ids(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  EXPECT_GE(H5Ldelete(f, name.c_str(), H5P_DEFAULT), 0);
  EXPECT_GE(H5Lcreate_soft(target.c_str(), f, name.c_str(), H5P_DEFAULT, H5P_DEFAULT), 0);
}

/// The file offset of the root group's object header.
inline haddr_t root_header(const std::string& path) {
  Ids ids;
  const hid_t f = ids(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  H5O_info_t info{};
  EXPECT_GE(H5Oget_info2(f, &info, H5O_INFO_BASIC), 0);
  return info.addr;
}

// ---- A store with one wrong fact --------------------------------------------

/// The store of a result file, opened for reading.
inline std::unique_ptr<LosingStore> store_of(const std::string& path) {
  const LevelFileReader r(path);
  return LosingStore::open(r.store_path(), r.run_id(), r.stored_levels(static_cast<int>(r.table().tiles.size())),
                           false);
}

/// Writes the run's store anew with level n's ranks changed by `change`
/// (kept increasing), and points the result file's rows at it: a result
/// file and store whose checksums and digests all agree, with one wrong fact.
inline void rewrite_store(const std::string& path, int n,
                          const std::function<void(std::vector<std::uint64_t>&)>& change) {
  std::string store_path, run_id;
  int rows = 0;
  {
    const LevelFileReader reader(path);  // closed before the file is written
    rows = static_cast<int>(reader.table().tiles.size());
    store_path = reader.store_path();
    run_id = reader.run_id();
  }
  std::vector<std::vector<std::uint64_t>> levels;
  {
    const auto old = store_of(path);
    for (int m = 1; m <= rows; ++m) levels.push_back(old->all(m));
  }
  change(levels[static_cast<std::size_t>(n - 1)]);
  std::vector<std::uint64_t> trailers, digests, losing;
  {
    const auto fresh = LosingStore::create(store_path, run_id);
    for (int m = 1; m <= rows; ++m) {
      fresh->begin_level(m);
      fresh->append(levels[static_cast<std::size_t>(m - 1)]);
      const StoredLevel rec = fresh->finish_level();
      trailers.push_back(rec.trailer);
      digests.push_back(rec.digest);
      losing.push_back(rec.count);
    }
  }
  RawFile raw(path);
  raw.write("levels/store_trailer", H5T_NATIVE_UINT64, trailers);
  raw.write("levels/losing_digest", H5T_NATIVE_UINT64, digests);
  const auto positions = raw.read<std::uint64_t>("levels/positions", H5T_NATIVE_UINT64);
  for (int m = 1; m <= rows; ++m)
    raw.set_counts(static_cast<std::size_t>(m - 1), positions.at(static_cast<std::size_t>(m - 1)),
                   losing[static_cast<std::size_t>(m - 1)]);
}

/// Moves one losing rank of level n (from about `at` of the way through it)
/// up to a winning neighbour, keeping the list increasing. Returns it.
inline std::uint64_t move_one_losing_rank(const std::string& path, int n, double at = 0.0) {
  std::uint64_t moved = 0;
  rewrite_store(path, n, [&](std::vector<std::uint64_t>& ranks) {
    std::size_t k = static_cast<std::size_t>(at * static_cast<double>(ranks.size()));
    while (ranks[k + 1] - ranks[k] < 3) ++k;
    moved = ++ranks[k];
  });
  return moved;
}

}  // namespace chomp::testing
