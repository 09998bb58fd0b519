/// @file h5_util.hpp
/// @brief Small RAII helpers over the HDF5 C API shared by every result file:
/// owned identifiers, checked calls that report HDF5's own reason, scalar
/// attributes, and whole 1-D datasets (for files written in one go, like the
/// rectangle table; the level file appends, see h5_output.cpp).
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "chomp/h5_output.hpp"

namespace chomp::h5 {

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
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Gives up ownership without closing.
  void release() { id_ = H5I_INVALID_HID; }
  void reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = H5I_INVALID_HID;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

/// The most specific entry of HDF5's error stack: for a failed read or write
/// of the file it carries the system's message ("No space left on device"),
/// which is what a user can act on; otherwise HDF5's own words.
std::string hdf5_reason();

/// Throws H5Error("what: reason"), the reason from HDF5's error stack.
[[noreturn]] void fail(const std::string& what);

/// Wraps an identifier, throwing (fail) when the call failed.
inline Handle check(hid_t id, Handle::Closer close, const std::string& what) {
  if (id < 0) fail(what);
  return Handle(id, close);
}

inline void check(herr_t status, const std::string& what) {
  if (status < 0) fail(what);
}

/// A variable-length UTF-8 string type.
inline Handle string_type() {
  Handle t = check(H5Tcopy(H5T_C_S1), H5Tclose, "cannot make a string type");
  check(H5Tset_size(t.get(), H5T_VARIABLE), "cannot size a string type");
  check(H5Tset_cset(t.get(), H5T_CSET_UTF8), "cannot set a string type's character set");
  return t;
}

/// The attribute `name` of obj, made with `type` if it does not exist yet.
/// An existing attribute is written over in place, which SWMR writing
/// allows (deleting and re-creating it would not be).
inline Handle scalar_attr(hid_t obj, const char* name, hid_t type) {
  if (H5Aexists(obj, name) > 0)
    return check(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose, std::string("cannot open attribute ") + name);
  Handle space = check(H5Screate(H5S_SCALAR), H5Sclose, "cannot make a dataspace");
  return check(H5Acreate2(obj, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
               std::string("cannot create attribute ") + name);
}

inline void write_attr(hid_t obj, const char* name, const std::string& value) {
  Handle type = string_type();
  Handle attr = scalar_attr(obj, name, type.get());
  const char* p = value.c_str();
  check(H5Awrite(attr.get(), type.get(), &p), std::string("cannot write attribute ") + name);
}

inline void write_attr(hid_t obj, const char* name, const char* value) { write_attr(obj, name, std::string(value)); }

inline void write_attr(hid_t obj, const char* name, std::int64_t value) {
  Handle attr = scalar_attr(obj, name, H5T_STD_I64LE);
  check(H5Awrite(attr.get(), H5T_NATIVE_INT64, &value), std::string("cannot write attribute ") + name);
}

inline void write_attr(hid_t obj, const char* name, int value) { write_attr(obj, name, std::int64_t{value}); }

inline void write_attr(hid_t obj, const char* name, double value) {
  Handle attr = scalar_attr(obj, name, H5T_IEEE_F64LE);
  check(H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, &value), std::string("cannot write attribute ") + name);
}

/// The provenance every result file carries about the program that wrote it:
/// program, version, git_revision, compiler, build_type, hdf5_version,
/// tbb_version and host (defined in h5_output.cpp, beside the build facts).
void write_build_attributes(hid_t file);

/// A 1-D dataset written whole: chunked, Fletcher-32 checksummed, shuffled
/// and deflated, with a `description` attribute.
template <class T>
void write_column(hid_t group, const char* name, hid_t file_type, hid_t mem_type, const std::vector<T>& values,
                  const std::string& description) {
  const std::string what = std::string("cannot write dataset ") + name;
  const hsize_t n = values.size();
  Handle space = check(H5Screate_simple(1, &n, nullptr), H5Sclose, what);
  Handle dcpl = check(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
  if (n > 0) {
    const hsize_t chunk = n < 65536 ? n : 65536;
    check(H5Pset_chunk(dcpl.get(), 1, &chunk), what);
    check(H5Pset_fletcher32(dcpl.get()), what);
    check(H5Pset_shuffle(dcpl.get()), what);
    check(H5Pset_deflate(dcpl.get(), 6), what);
  }
  Handle ds = check(H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose,
                    what);
  write_attr(ds.get(), "description", description);
  if (n > 0) check(H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), what);
}

/// Strings as a variable-length string dataset (not compressed: HDF5 keeps
/// variable-length data on the heap).
inline void write_column(hid_t group, const char* name, const std::vector<std::string>& values,
                         const std::string& description) {
  const std::string what = std::string("cannot write dataset ") + name;
  std::vector<const char*> ptrs;
  ptrs.reserve(values.size());
  for (const std::string& v : values) ptrs.push_back(v.c_str());
  const hsize_t n = values.size();
  Handle type = string_type();
  Handle space = check(H5Screate_simple(1, &n, nullptr), H5Sclose, what);
  Handle ds = check(H5Dcreate2(group, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                    H5Dclose, what);
  write_attr(ds.get(), "description", description);
  if (n > 0) check(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()), what);
}

/// Reads a whole 1-D numeric dataset.
template <class T>
std::vector<T> read_column(hid_t group, const char* name, hid_t mem_type) {
  const std::string what = std::string("cannot read dataset ") + name;
  Handle ds = check(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose, what);
  Handle space = check(H5Dget_space(ds.get()), H5Sclose, what);
  if (H5Sget_simple_extent_ndims(space.get()) != 1) throw H5Error(what + ": not a 1-D dataset");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);
  std::vector<T> out(static_cast<std::size_t>(n));
  if (n > 0) check(H5Dread(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), what);
  return out;
}

/// Reads a whole 1-D variable-length string dataset.
inline std::vector<std::string> read_strings(hid_t group, const char* name) {
  const std::string what = std::string("cannot read dataset ") + name;
  Handle ds = check(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose, what);
  Handle space = check(H5Dget_space(ds.get()), H5Sclose, what);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);
  std::vector<char*> ptrs(static_cast<std::size_t>(n), nullptr);
  Handle type = string_type();
  if (n > 0) check(H5Dread(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()), what);
  std::vector<std::string> out;
  out.reserve(ptrs.size());
  for (char* p : ptrs) out.emplace_back(p ? p : "");
  if (n > 0) H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, ptrs.data());
  return out;
}

/// Every string and integer attribute of an object.
struct Attributes {
  std::map<std::string, std::string> text;
  std::map<std::string, std::int64_t> numbers;
  std::map<std::string, double> reals;
};

inline Attributes read_attributes(hid_t obj) {
  Attributes out;
  auto collect = [](hid_t loc, const char* name, const H5A_info_t*, void* data) -> herr_t {
    auto* a = static_cast<Attributes*>(data);
    Handle attr(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
    if (!attr.valid()) return 0;
    Handle type(H5Aget_type(attr.get()), H5Tclose);
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls == H5T_STRING && H5Tis_variable_str(type.get()) > 0) {
      Handle mem = string_type();
      char* value = nullptr;
      if (H5Aread(attr.get(), mem.get(), &value) >= 0 && value) {
        a->text[name] = value;
        Handle space(H5Aget_space(attr.get()), H5Sclose);
        H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, &value);
      }
    } else if (cls == H5T_INTEGER) {
      std::int64_t v = 0;
      if (H5Aread(attr.get(), H5T_NATIVE_INT64, &v) >= 0) a->numbers[name] = v;
    } else if (cls == H5T_FLOAT) {
      double v = 0;
      if (H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &v) >= 0) a->reals[name] = v;
    }
    return 0;
  };
  H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, collect, &out);
  return out;
}

}  // namespace chomp::h5
