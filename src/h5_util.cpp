/// @file h5_util.cpp
/// @brief HDF5 error reporting shared by every result file, and the one
/// reader of what a file claims: opening, attributes, datasets, each checked
/// before HDF5 is asked to read (or allocate) anything.

#include "h5_util.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <system_error>

namespace chomp::h5 {

namespace {

/// HDF5 prints its own error stack by default; we report errors ourselves.
/// Its exit-time cleanup is turned off: after a failed write (a full disk)
/// the file cannot be closed, and HDF5 1.10 crashes when its atexit handler
/// meets such a file. Every file we open is closed by its owner before exit.
/// A file names the filters its data needs: none is ever loaded from a
/// plugin folder on its say.
struct SilenceHdf5 {
  SilenceHdf5() {
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    H5PLset_loading_state(0);
  }
};
const SilenceHdf5 silence_hdf5;

/// Read attempts of checksummed metadata for a SWMR reader: HDF5 sleeps
/// between them, doubling from a nanosecond, so 28 attempts wait 0.3 s at
/// most (its default, 100, waits for ever), enough for a live writer's
/// flush to land.
constexpr unsigned kSwmrReadAttempts = 28;

herr_t keep_innermost(unsigned n, const H5E_error2_t* err, void* data) {
  if (n == 0 && err->desc) *static_cast<std::string*>(data) = err->desc;
  return 0;
}

std::string class_name(H5T_class_t c) {
  switch (c) {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "floating-point";
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    case H5T_ARRAY: return "array";
    case H5T_ENUM: return "enum";
    case H5T_VLEN: return "variable-length";
    case H5T_REFERENCE: return "reference";
    case H5T_OPAQUE: return "opaque";
    case H5T_BITFIELD: return "bitfield";
    case H5T_TIME: return "time";
    default: return "unknown";
  }
}

/// What is wrong with a dataspace that should hold one value ("" if none).
std::string not_one_value(hid_t space) {
  const H5S_class_t c = H5Sget_simple_extent_type(space);
  if (c == H5S_SCALAR) return {};
  if (c == H5S_NULL) return "empty (no value)";
  if (c != H5S_SIMPLE) return "of an unknown shape";
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n == 1) return {};
  return "an array of " + std::to_string(n) + " values";
}

/// Reads one attribute into `a`, or says in a->unreadable why not.
void read_one(hid_t attr, const std::string& name, Attributes& a) {
  Handle type(H5Aget_type(attr), H5Tclose);
  Handle space(H5Aget_space(attr), H5Sclose);
  if (!type.valid() || !space.valid()) {
    a.unreadable[name] = "unreadable (" + hdf5_reason() + ")";
    return;
  }
  if (std::string why = not_one_value(space.get()); !why.empty()) {
    a.unreadable[name] = why;
    return;
  }
  const H5T_class_t cls = H5Tget_class(type.get());
  const std::size_t size = H5Tget_size(type.get());
  const auto failed = [&] { a.unreadable[name] = "unreadable (" + hdf5_reason() + ")"; };
  if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
    if (size == 0 || size > 8) {
      a.unreadable[name] = "a " + class_name(cls) + " of " + std::to_string(size) + " bytes (at most 8 are read)";
      return;
    }
    if (cls == H5T_INTEGER) {
      std::int64_t v = 0;
      if (H5Aread(attr, H5T_NATIVE_INT64, &v) < 0) return failed();
      a.numbers[name] = v;
    } else {
      double v = 0;
      if (H5Aread(attr, H5T_NATIVE_DOUBLE, &v) < 0) return failed();
      a.reals[name] = v;
    }
  } else if (cls == H5T_STRING) {
    std::string value;
    if (H5Tis_variable_str(type.get()) > 0) {
      Handle mem = string_type();
      char* p = nullptr;
      if (H5Aread(attr, mem.get(), &p) < 0) return failed();
      if (p) value = p;
      H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, &p);
    } else {
      if (size > kMaxTextBytes) {
        a.unreadable[name] = "a string of " + std::to_string(size) + " bytes";
        return;
      }
      std::vector<char> buf(size + 1, '\0');
      if (H5Aread(attr, type.get(), buf.data()) < 0) return failed();
      value.assign(buf.data());  // up to its first NUL, as HDF5 pads
    }
    if (value.size() > kMaxTextBytes) {
      a.unreadable[name] = "a string of " + std::to_string(value.size()) + " bytes";
      return;
    }
    a.text[name] = std::move(value);
  } else {
    a.unreadable[name] = "of " + class_name(cls) + " class";
  }
}

}  // namespace

std::string hdf5_reason() {
  std::string desc;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &desc);
  const std::string key = "error message = '";
  const auto p = desc.find(key);
  if (p != std::string::npos) {
    const auto q = desc.find('\'', p + key.size());
    return desc.substr(p + key.size(), q == std::string::npos ? std::string::npos : q - p - key.size());
  }
  return desc;
}

void fail(const std::string& what) {
  const std::string reason = hdf5_reason();
  throw H5Error(reason.empty() ? what : what + ": " + reason);
}

Handle open_for_reading(const std::string& path) {
  {
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      const int e = errno;
      if (e == ENOENT) throw H5Error("cannot read " + path + ": no such file");
      throw H5Error("cannot read " + path + ": " + std::system_category().message(e));
    }
    struct stat st {};
    const int r = fstat(fd, &st);
    close(fd);
    if (r != 0) throw H5Error("cannot read " + path + ": " + std::system_category().message(errno));
    if (S_ISDIR(st.st_mode)) throw H5Error("cannot read " + path + ": it is a folder");
    if (!S_ISREG(st.st_mode))
      throw H5Error("cannot read " + path + ": it is not a regular file (a FIFO, device or socket)");
  }
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw H5Error(path + " is not an HDF5 file, so not a chomp result (or its first bytes are damaged)");
  Handle fapl = check(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "cannot make a file access list");
  check(H5Pset_metadata_read_attempts(fapl.get(), kSwmrReadAttempts), "cannot bound HDF5's read attempts");
  // A file whose SWMR writer was killed (or is still running) opens only
  // for SWMR reading.
  hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
  if (id < 0) {
    // Without the SWMR mark the first attempt's reason is the one to give.
    const std::string first = hdf5_reason();
    id = H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl.get());
    if (id < 0 && hdf5_reason().find("not already open for SWMR") != std::string::npos)
      throw H5Error("cannot open " + path + " (truncated or damaged?): " + first);
  }
  return check(id, H5Fclose, "cannot open " + path + " (truncated or damaged?)");
}

bool opened_live(hid_t file) {
  unsigned intent = 0;
  return H5Fget_intent(file, &intent) >= 0 && (intent & H5F_ACC_SWMR_READ) != 0;
}

namespace {

/// Opens a link of loc that must be a hard link to an object of `type`.
Handle open_hard(hid_t loc, const char* name, H5I_type_t type, const std::string& what) {
  const htri_t exists = H5Lexists(loc, name, H5P_DEFAULT);
  if (exists < 0) fail(what);
  if (exists == 0) throw H5Error(what + ": it is not in the file");
  H5L_info_t info{};
  check(H5Lget_info(loc, name, &info, H5P_DEFAULT), what);
  if (info.type != H5L_TYPE_HARD)
    throw H5Error(what + ": it is a " + (info.type == H5L_TYPE_SOFT ? "soft" : "external") +
                  " link, which this program does not follow (damaged or foreign file)");
  Handle obj = check(H5Oopen(loc, name, H5P_DEFAULT), H5Oclose, what);
  if (H5Iget_type(obj.get()) != type)
    throw H5Error(what + ": it is not a " + (type == H5I_DATASET ? "dataset" : "group") + " (damaged file)");
  return obj;
}

}  // namespace

Handle open_dataset(hid_t loc, const char* name, const std::string& what) {
  return open_hard(loc, name, H5I_DATASET, what);
}

Handle open_group(hid_t loc, const char* name, const std::string& what) {
  return open_hard(loc, name, H5I_GROUP, what);
}

hsize_t checked_rows(hid_t ds, hid_t mem_type, hsize_t max_rows, const std::string& what,
                     std::vector<haddr_t>* addresses, hsize_t* written) {
  const std::string damaged = " (damaged file)";
  Handle type = check(H5Dget_type(ds), H5Tclose, what);
  const H5T_class_t want = H5Tget_class(mem_type), have = H5Tget_class(type.get());
  const std::size_t size = H5Tget_size(type.get());
  if (have != want)
    throw H5Error(what + ": it holds " + class_name(have) + " values, not " + class_name(want) + damaged);
  // The width (and, for integers, the sign) the writer uses, which is the
  // memory type's: a narrower column would be read as a silently
  // different table.
  const bool wrong_width = want == H5T_STRING
                               ? H5Tis_variable_str(type.get()) <= 0
                               : size != H5Tget_size(mem_type) ||
                                     (want == H5T_INTEGER && H5Tget_sign(type.get()) != H5Tget_sign(mem_type));
  if (wrong_width)
    throw H5Error(what + ": its " + class_name(have) + " values are of " + std::to_string(size) + " bytes" +
                  (want == H5T_INTEGER && H5Tget_sign(type.get()) == H5T_SGN_2 ? ", signed" : "") +
                  ", where this program writes " +
                  (want == H5T_STRING ? std::string("variable-length strings")
                                      : std::to_string(H5Tget_size(mem_type)) + "-byte values") +
                  damaged);
  Handle space = check(H5Dget_space(ds), H5Sclose, what);
  if (H5Sget_simple_extent_type(space.get()) != H5S_SIMPLE || H5Sget_simple_extent_ndims(space.get()) != 1)
    throw H5Error(what + ": it is not a 1-D dataset" + damaged);
  hsize_t n = 0;
  check(H5Sget_simple_extent_dims(space.get(), &n, nullptr), what);
  if (n > max_rows)
    throw H5Error(what + ": it claims " + std::to_string(n) + " rows, where at most " + std::to_string(max_rows) +
                  " are possible" + damaged);
  Handle dcpl = check(H5Dget_create_plist(ds), H5Pclose, what);
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  if (H5Pget_external_count(dcpl.get()) != 0 ||
      (layout != H5D_CHUNKED && layout != H5D_CONTIGUOUS && layout != H5D_COMPACT))
    throw H5Error(what + ": its data is stored outside the file (external or virtual storage), which this "
                  "program does not read" + damaged);
  if (written) *written = n;
  if (layout == H5D_CONTIGUOUS) {
    if (H5Dget_storage_size(ds) > n * size) throw H5Error(what + ": it stores more bytes than its rows" + damaged);
    return n;
  }
  if (layout != H5D_CHUNKED) return n;  // compact: in its object header, 64 KiB at most
  hsize_t chunk = 0;
  if (H5Pget_chunk(dcpl.get(), 1, &chunk) != 1) throw H5Error(what + ": its chunks are not 1-D" + damaged);
  const hsize_t most_rows = std::max<hsize_t>(max_rows, 4096);
  if (chunk == 0 || chunk > most_rows || chunk * size > kMaxChunkBytes)
    throw H5Error(what + ": its chunks of " + std::to_string(chunk) + " rows are larger than this program reads (" +
                  std::to_string(std::min<hsize_t>(most_rows, kMaxChunkBytes / size)) + " rows)" + damaged);
  for (int i = 0, filters = H5Pget_nfilters(dcpl.get()); i < filters; ++i) {
    unsigned flags = 0, config = 0;
    std::size_t values = 0;
    const H5Z_filter_t f = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &values, nullptr, 0,
                                          nullptr, &config);
    if (f != H5Z_FILTER_DEFLATE && f != H5Z_FILTER_SHUFFLE && f != H5Z_FILTER_FLETCHER32)
      throw H5Error(what + ": it is stored with filter " + std::to_string(f) +
                    ", which this program does not write (damaged or foreign file)");
  }
  // Each chunk's bytes on disk: at most its rows' with room for the
  // checksum and a compressor's worst case; anything more would be
  // inflated without bound.
  //
  // A live SWMR writer files a chunk before the extent that covers it is
  // visible to readers (data, then index, then extent), so a file read while
  // a row is appended has chunks beyond its rows: rows not yet there, which
  // are not read. Their number is still bounded by the rows the dataset can
  // ever have, so a damaged index cannot make this loop unbounded.
  hsize_t chunks = 0;
  check(H5Dget_num_chunks(ds, space.get(), &chunks), what);
  const hsize_t most_chunks = (std::max(max_rows, n) + chunk - 1) / chunk;
  if (chunks > most_chunks)
    throw H5Error(what + ": it has " + std::to_string(chunks) + " chunks, more than its most rows need (" +
                  std::to_string(most_chunks) + ")" + damaged);
  const hsize_t most_bytes = chunk * size + chunk * size / 8 + 64;
  const std::string index_damage = " (damaged file: use an undamaged copy of it, or make it again)";
  const hsize_t needed = (n + chunk - 1) / chunk;  // the chunks that hold the rows
  std::vector<bool> present(static_cast<std::size_t>(needed), false);
  std::vector<haddr_t> own;
  std::vector<haddr_t>& places = addresses ? *addresses : own;
  const std::size_t first_place = places.size();
  for (hsize_t c = 0; c < chunks; ++c) {
    hsize_t offset = 0, bytes = 0;
    unsigned mask = 0;
    haddr_t addr = 0;
    check(H5Dget_chunk_info(ds, space.get(), c, &offset, &mask, &addr, &bytes), what);
    if (bytes > most_bytes)
      throw H5Error(what + ": a chunk of " + std::to_string(chunk) + " rows stores " + std::to_string(bytes) +
                    " bytes, more than its rows need (a decompression bomb, or damage)");
    if (addr == HADDR_UNDEF) continue;  // an index entry that points nowhere: a chunk missing
    if (offset % chunk != 0)
      throw H5Error(what + ": its chunk index names a chunk at row " + std::to_string(offset + 1) +
                    ", between chunks (a damaged chunk index)" + index_damage);
    if (offset / chunk < needed) {
      if (present[static_cast<std::size_t>(offset / chunk)])
        throw H5Error(what + ": its chunk index names the chunk of the rows from row " + std::to_string(offset + 1) +
                      " twice (a damaged chunk index)" + index_damage);
      present[static_cast<std::size_t>(offset / chunk)] = true;
    }
    places.push_back(addr);
  }
  if (!addresses) expect_distinct_chunks(std::vector<haddr_t>(places.begin() + first_place, places.end()), what);
  // A chunk missing before one that is there: rows read as 0 in a file
  // that has rows after them.
  // A reader that does not judge missing chunks at the end itself (a
  // table written whole, not appended to by a run that may be killed)
  // has none of them either.
  const auto first_missing = std::find(present.begin(), present.end(), false);
  const bool later = std::find(first_missing, present.end(), true) != present.end();
  if (first_missing != present.end() && (later || !written))
    throw H5Error(what + ": its chunk of the rows from row " +
                  std::to_string(static_cast<hsize_t>(first_missing - present.begin()) * chunk + 1) +
                  " is missing from its chunk index" + (later ? " while later rows have theirs" : "") +
                  " (a damaged chunk index: those rows would read as 0)" + index_damage);
  if (written) *written = std::min(n, static_cast<hsize_t>(first_missing - present.begin()) * chunk);
  return n;
}

void expect_distinct_chunks(std::vector<haddr_t> addresses, const std::string& what) {
  std::sort(addresses.begin(), addresses.end());
  if (std::adjacent_find(addresses.begin(), addresses.end()) != addresses.end())
    throw H5Error(what + ": two of its chunks are indexed at the same place in the file (a damaged chunk index: "
                  "one of them would read as the other's values) (damaged file: use an undamaged copy of it, or "
                  "make it again)");
}

namespace {

/// What a crash inside the HDF5 library while it reads attributes prints,
/// set for the length of the read: a signal handler may only write and exit.
std::atomic<const std::string*> g_reading_attributes{nullptr};
/// Whether this thread is the one reading: a crash of another thread
/// meanwhile is no damage of the file.
thread_local bool t_reading_attributes = false;

extern "C" void crashed_reading_attributes(int sig) {
  if (const std::string* message = g_reading_attributes.load(); message && t_reading_attributes) {
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, message->data(), message->size());
    ::_exit(1);
  }
  ::signal(sig, SIG_DFL);  // not in a read: the crash it is
  ::raise(sig);
}

/// HDF5 1.10 crashes (SIGSEGV) on some damaged files while it reads their
/// attributes: variable-length text sits in a part of the file no checksum
/// covers, and a flipped byte there sends its reader out of bounds (h5dump
/// crashes on the same files). For the length of such a read, that crash
/// ends the program with a message naming the file as damaged, exit 1,
/// instead of a segmentation fault; the handlers before are restored after.
/// Files are read this way by one thread at a time (the main thread, before
/// and between the parallel work), which is what the handlers' swap assumes.
class CrashesMeanDamage {
 public:
  explicit CrashesMeanDamage(const std::string& where)
      : message_("chomp: error: the HDF5 library crashed reading the attributes of " + where +
                 " (damaged file: a flipped byte in its text, which no checksum covers); use an undamaged copy of "
                 "it, or make it again\n") {
    struct sigaction on_crash {};
    on_crash.sa_handler = crashed_reading_attributes;
    sigemptyset(&on_crash.sa_mask);
    sigaction(SIGSEGV, &on_crash, &segv_);
    sigaction(SIGBUS, &on_crash, &bus_);
    g_reading_attributes.store(&message_);
    t_reading_attributes = true;
  }
  ~CrashesMeanDamage() {
    t_reading_attributes = false;
    g_reading_attributes.store(nullptr);
    sigaction(SIGSEGV, &segv_, nullptr);
    sigaction(SIGBUS, &bus_, nullptr);
  }
  CrashesMeanDamage(const CrashesMeanDamage&) = delete;
  CrashesMeanDamage& operator=(const CrashesMeanDamage&) = delete;

 private:
  std::string message_;
  struct sigaction segv_ {}, bus_ {};
};

}  // namespace

Attributes read_attributes(hid_t obj, const std::string& where) {
  const CrashesMeanDamage guard(where);
  Attributes out;
  auto collect = [](hid_t loc, const char* name, const H5A_info_t*, void* data) -> herr_t {
    auto* a = static_cast<Attributes*>(data);
    Handle attr(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
    if (!attr.valid()) return -1;  // a damaged header: the iteration fails
    read_one(attr.get(), name, *a);
    return 0;
  };
  if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, collect, &out) < 0)
    fail("cannot read the attributes of " + where + " (damaged file)");
  return out;
}

void expect_kind(const Attributes& attrs, const std::string& name, Kind kind, const std::string& where) {
  const char* wanted = kind == Kind::text ? "a string" : kind == Kind::integer ? "an integer" : "a number";
  const auto bad = [&](const std::string& is) {
    throw H5Error("attribute " + name + " of " + where + " is " + is + "; it must be " + wanted +
                  " (damaged or foreign file)");
  };
  if (const auto u = attrs.unreadable.find(name); u != attrs.unreadable.end()) bad(u->second);
  const bool text = attrs.text.count(name), number = attrs.numbers.count(name), real = attrs.reals.count(name);
  if (kind == Kind::text && (number || real)) bad(number ? "an integer" : "a floating-point number");
  if (kind == Kind::integer && (text || real)) bad(text ? "a string" : "a floating-point number");
  if (kind == Kind::real && text) bad("a string");
}

}  // namespace chomp::h5

namespace chomp {

void show_hdf5_errors(bool show) {
  if (show)
    H5Eset_auto2(H5E_DEFAULT, reinterpret_cast<H5E_auto2_t>(H5Eprint2), stderr);
  else
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

}  // namespace chomp
