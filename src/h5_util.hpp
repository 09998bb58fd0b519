/// @file h5_util.hpp
/// @brief Small RAII helpers over the HDF5 C API shared by every result file:
/// owned identifiers, checked calls that report HDF5's own reason, scalar
/// attributes, and whole 1-D datasets (for files written in one go, like the
/// rectangle table; the level file appends, see h5_series.hpp), and the
/// checked reads of what a file claims. The lowest layer of the HDF5 files:
/// it includes no file's own header.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "chomp/h5_error.hpp"

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

/// Opens a file for reading after checking that it is a readable regular
/// file (a FIFO would block the open, a device never end), in SWMR mode
/// when its writer was killed or still runs, with HDF5's metadata retries
/// bounded (SWMR readers otherwise retry a failed checksum with doubling
/// sleeps, for ever in effect). Throws H5Error naming the file.
Handle open_for_reading(const std::string& path);

/// Whether file was opened for SWMR reading: a writer holds it open (or was
/// killed holding it), so what it reads may be changing meanwhile.
bool opened_live(hid_t file);

/// Limits on what a file may make this program allocate: a text
/// attribute, and a chunk that HDF5 decompresses whole to read one value.
/// (A chunk compressed 1,000 to 1 still inflates to no more than 260 MB.)
inline constexpr std::size_t kMaxTextBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxChunkBytes = std::size_t{1} << 18;

/// Opens `name` in loc as a dataset (or group) reached by a hard link: a
/// soft or external link could lead anywhere, another file included.
/// Throws H5Error("what: ...").
Handle open_dataset(hid_t loc, const char* name, const std::string& what);
Handle open_group(hid_t loc, const char* name, const std::string& what);

/// The rows of a 1-D dataset, after checking everything a read would trust:
/// its class, width and sign are mem_type's, as the writer makes them (an
/// 8-bit column where 64 bits belong is refused; strings are of variable
/// length), it has at most max_rows rows, its chunks hold
/// at most kMaxChunkBytes and max(max_rows, 4096) rows, its filters are
/// those this program writes, its data lies in the file (no external or
/// virtual storage), and no chunk stores more bytes than its rows need (no
/// decompression bomb: HDF5 inflates a chunk whole, however large). Throws
/// H5Error("what: ...") naming what is wrong.
///
/// Its chunk index is checked too, since a damaged one passes every
/// checksum: HDF5 reads a chunk the index has lost as the fill value (0)
/// and one it points elsewhere as what lies there. Two chunks at one place
/// in the file, or a chunk missing before one that is there, are damage
/// (thrown). Chunks missing at the end can be rows a writer never wrote
/// (a file size limit or a full disk while HDF5 flushed a row): they read
/// as 0, and `written`, when given, receives the rows before them, for the
/// caller to judge. `addresses`, when given, receives the chunks' places in
/// the file, for a check across the datasets of one table.
hsize_t checked_rows(hid_t ds, hid_t mem_type, hsize_t max_rows, const std::string& what,
                     std::vector<haddr_t>* addresses = nullptr, hsize_t* written = nullptr);

/// Reads a whole 1-D numeric dataset of at most max_rows rows
/// (checked_rows, with `addresses` and `written` as there).
template <class T>
std::vector<T> read_column(hid_t group, const char* name, hid_t mem_type, hsize_t max_rows,
                           const std::string& what, std::vector<haddr_t>* addresses = nullptr,
                           hsize_t* written = nullptr) {
  Handle ds = open_dataset(group, name, what);
  const hsize_t n = checked_rows(ds.get(), mem_type, max_rows, what, addresses, written);
  std::vector<T> out(static_cast<std::size_t>(n));
  if (n > 0) check(H5Dread(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), what);
  return out;
}

/// Throws H5Error("what: ...") when two of `addresses` (checked_rows'
/// chunks of the datasets of one table) are the same place in the file.
void expect_distinct_chunks(std::vector<haddr_t> addresses, const std::string& what);

/// The attributes of an object that hold one value each (a scalar, or a
/// dataspace of one element) of integer class (at most 64 bits), float
/// class or string class (at most kMaxTextBytes); every other attribute is
/// in `unreadable` with what is wrong with it, and is not read.
struct Attributes {
  std::map<std::string, std::string> text;
  std::map<std::string, std::int64_t> numbers;
  std::map<std::string, double> reals;
  std::map<std::string, std::string> unreadable;  ///< name -> what is wrong
};

/// Reads them; throws H5Error naming `where` when they cannot be listed
/// (a damaged object header).
Attributes read_attributes(hid_t obj, const std::string& where);

/// What an attribute must hold.
enum class Kind { text, integer, real };

/// Throws H5Error("attribute NAME of WHERE ...") when the attribute is in
/// the file but is not one value of that kind.
void expect_kind(const Attributes& attrs, const std::string& name, Kind kind, const std::string& where);

}  // namespace chomp::h5
