/// @file h5_output.cpp
/// @brief HDF5 writer and reader of the per-level result table and the resume
/// data (C API, RAII, SWMR writing so a killed run leaves a readable file).

#include "chomp/h5_output.hpp"

#include <hdf5.h>
#include <oneapi/tbb/version.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iterator>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "build_info.hpp"
#include "config.hpp"
#include "h5_util.hpp"
#include "sieve_testing.hpp"

namespace chomp {

std::atomic<std::uint64_t> detail::g_read_batch_for_testing{0};

namespace {

using h5::check;
using h5::Handle;
using h5::hdf5_reason;
using h5::write_attr;

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

void h5::write_build_attributes(hid_t f) {
  write_attr(f, "program", "chomp");
  write_attr(f, "version", build::kVersion);
  write_attr(f, "git_revision", build::kGitRevision);
  write_attr(f, "compiler", build::kCompiler);
  write_attr(f, "build_type", build::kBuildType);
  write_attr(f, "hdf5_version", hdf5_version());
  write_attr(f, "tbb_version", tbb_version());
  write_attr(f, "host", host_name());
}

namespace {

// Chunks are written once and never rewritten. A chunk rewritten in place
// can be torn by a kill (Linux may stop a write that spans pages at a page
// boundary), and a torn chunk fails its checksum, taking with it every
// finished level it held. So each /levels row is its own chunk, and each
// level's ranks start a new chunk of /resume/losing_ranks (the previous
// level's last chunk stays as written, its tail the fill value 0). 2^14
// ranks (128 KiB) per chunk deflate well; the padding of small levels costs
// a few hundred bytes each on disk. Stored losing positions are levels of at
// most 63 tiles, a few thousand positions each, written once.
constexpr hsize_t kRowChunk = 1;
constexpr hsize_t kRankChunk = hsize_t{1} << 14;
// Chunks of ranks the reader takes from the file at a time before undoing
// their filters in parallel: 256 hold 32 MiB of ranks.
constexpr hsize_t kReadBatch = 256;
constexpr hsize_t kPositionChunk = 4096;
// Deflate level 1: after the shuffle filter the high bytes of increasing
// ranks are long runs that even the fastest level squeezes (levels 1..85:
// 4.2 M ranks in a 5.9 MB file, 1.4 bytes each); level 6 saved 12% more at
// twice the write time (2-core VM, whole run: 0.3 s against 0.7 s). That
// is HDF5's own deflate, which the stored losing positions still use; the
// chunks of losing ranks are deflated by the writer itself (RankDeflater).
constexpr unsigned kDeflateLevel = 1;

std::string level_name(int n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "level_%03d", n);
  return buf;
}

/// File access in the HDF5 1.10 format, which SWMR writing requires.
Handle latest_format_access() {
  Handle fapl = check(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "cannot make a file access list");
  check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST),
        "cannot select the HDF5 1.10 file format");
  return fapl;
}

/// An empty, extendible, chunked, checksummed 1-D dataset.
Handle make_series(hid_t loc, const std::string& name, hid_t type, hsize_t chunk, bool compress,
                   const std::string& description, const std::string& what) {
  const hsize_t zero = 0, unlimited = H5S_UNLIMITED;
  Handle space = check(H5Screate_simple(1, &zero, &unlimited), H5Sclose, what);
  Handle dcpl = check(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
  check(H5Pset_chunk(dcpl.get(), 1, &chunk), what);
  if (compress) {
    check(H5Pset_shuffle(dcpl.get()), what);
    check(H5Pset_deflate(dcpl.get(), kDeflateLevel), what);
  }
  check(H5Pset_fletcher32(dcpl.get()), what);
  Handle ds = check(H5Dcreate2(loc, name.c_str(), type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                    H5Dclose, what);
  write_attr(ds.get(), "description", description);
  return ds;
}

/// Writes count values at index `at`, growing the dataset to at + count.
void append_values(hid_t ds, hsize_t at, hsize_t count, hid_t mem_type, const void* data,
                   const std::string& what) {
  if (count == 0) return;
  const hsize_t size = at + count;
  check(H5Dset_extent(ds, &size), what);
  Handle file_space = check(H5Dget_space(ds), H5Sclose, what);
  check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &at, nullptr, &count, nullptr), what);
  Handle mem_space = check(H5Screate_simple(1, &count, nullptr), H5Sclose, what);
  check(H5Dwrite(ds, mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, data), what);
}

/// The Fletcher-32 checksum as HDF5 computes it for its fletcher32 filter:
/// the data as big-endian 16-bit words (an odd last byte as the high half
/// of one), both sums folded to 16 bits every 360 words, where they could
/// otherwise overflow, and once more at the end; sum2 in the high half.
std::uint32_t hdf5_fletcher32(const std::uint8_t* data, std::size_t bytes) {
  std::uint32_t sum1 = 0, sum2 = 0;
  const auto fold = [](std::uint32_t x) { return (x & 0xffff) + (x >> 16); };
  for (std::size_t words = bytes / 2; words > 0;) {
    const std::size_t n = std::min<std::size_t>(words, 360);
    words -= n;
    for (std::size_t i = 0; i < n; ++i, data += 2) {
      sum1 += static_cast<std::uint32_t>(data[0]) << 8 | data[1];
      sum2 += sum1;
    }
    sum1 = fold(sum1);
    sum2 = fold(sum2);
  }
  if (bytes % 2) {
    sum1 += static_cast<std::uint32_t>(data[0]) << 8;
    sum2 += sum1;
    sum1 = fold(sum1);
    sum2 = fold(sum2);
  }
  return fold(sum2) << 16 | fold(sum1);
}

/// A zlib deflate stream for chunks of ranks, reset for each, with the
/// run-length strategy (matches at distance 1 only; zlib then ignores the
/// level beyond its being nonzero). After the shuffle a chunk is byte
/// planes: the high ones runs of one value, the low ones nearly random, so
/// looking further back finds little. On the ranks of levels 91..100: 5.90
/// times smaller at 51 million ranks a second against 5.80 times (1.7% more
/// bytes) at 34 million with the default strategy at level 1; but the
/// file of a run to 140 came out 3% larger (2.75 against 2.67 GB): the
/// middle planes of large levels seem to repeat further back. Speed wins:
/// on many cores the deflate of a level is the writer's whole cost. Any
/// zlib stream inflates alike, so HDF5's deflate filter reads it.
class RankDeflater {
 public:
  RankDeflater() {
    if (deflateInit2(&z_, static_cast<int>(kDeflateLevel), Z_DEFLATED, 15, 8, Z_RLE) != Z_OK)
      throw H5Error("zlib could not start deflating losing ranks");
  }
  ~RankDeflater() { deflateEnd(&z_); }
  RankDeflater(const RankDeflater&) = delete;
  RankDeflater& operator=(const RankDeflater&) = delete;

  /// Deflates `bytes` bytes of `in` into out (resized to the stream), as a
  /// zlib stream (header and Adler-32 included), leaving `spare` bytes
  /// free after it.
  void deflate_into(const std::uint8_t* in, std::size_t bytes, std::vector<std::uint8_t>& out, std::size_t spare) {
    if (deflateReset(&z_) != Z_OK) throw H5Error("zlib could not restart deflating losing ranks");
    out.resize(deflateBound(&z_, static_cast<uLong>(bytes)) + spare);
    z_.next_in = const_cast<Bytef*>(in);
    z_.avail_in = static_cast<uInt>(bytes);
    z_.next_out = out.data();
    z_.avail_out = static_cast<uInt>(out.size() - spare);
    if (deflate(&z_, Z_FINISH) != Z_STREAM_END) throw H5Error("zlib could not deflate a chunk of losing ranks");
    out.resize(z_.total_out);
  }

 private:
  z_stream z_{};
};

/// One chunk of /resume/losing_ranks as its filters would store it, so
/// that chunks can be made in parallel and written whole (H5Dwrite_chunk):
/// shuffled (byte k of every rank together, the little-endian file bytes),
/// deflated as a zlib stream, then the Fletcher-32 of that appended in
/// little-endian order.
void filter_rank_chunk(const std::uint64_t* ranks, RankDeflater& deflater, std::vector<std::uint8_t>& shuffled,
                       std::vector<std::uint8_t>& out) {
  static_assert(std::endian::native == std::endian::little, "ranks are stored as little-endian u64");
  constexpr std::size_t n = kRankChunk, bytes = n * sizeof(std::uint64_t);
  shuffled.resize(bytes);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t k = 0; k < sizeof(std::uint64_t); ++k)
      shuffled[k * n + j] = static_cast<std::uint8_t>(ranks[j] >> (8 * k));
  deflater.deflate_into(shuffled.data(), bytes, out, 4);
  const std::size_t size = out.size();
  const std::uint32_t sum = hdf5_fletcher32(out.data(), size);
  out.resize(size + 4);
  for (std::size_t k = 0; k < 4; ++k) out[size + k] = static_cast<std::uint8_t>(sum >> (8 * k));
}

/// A zlib inflate stream for chunks of ranks, reset for each.
class RankInflater {
 public:
  RankInflater() {
    if (inflateInit(&z_) != Z_OK) throw H5Error("zlib could not start inflating losing ranks");
  }
  ~RankInflater() { inflateEnd(&z_); }
  RankInflater(const RankInflater&) = delete;
  RankInflater& operator=(const RankInflater&) = delete;

  /// Inflates a zlib stream of `size` bytes into exactly `bytes` bytes of
  /// out; false if it is not one, or inflates to another length.
  bool inflate_into(const std::uint8_t* in, std::size_t size, std::uint8_t* out, std::size_t bytes) {
    if (inflateReset(&z_) != Z_OK) return false;
    z_.next_in = const_cast<Bytef*>(in);
    z_.avail_in = static_cast<uInt>(size);
    z_.next_out = out;
    z_.avail_out = static_cast<uInt>(bytes);
    return inflate(&z_, Z_FINISH) == Z_STREAM_END && z_.total_out == bytes;
  }

 private:
  z_stream z_{};
};

/// "WHAT: chunk c (entries ...)", naming a chunk of /resume/losing_ranks.
std::string rank_chunk_name(const std::string& what, std::uint64_t c) {
  return what + ": chunk " + std::to_string(c) + " (entries " + std::to_string(c * kRankChunk) + ".." +
         std::to_string((c + 1) * kRankChunk - 1) + ")";
}

/// Undoes filter_rank_chunk, as HDF5's filters would on reading: checks
/// stored chunk c's Fletcher-32, inflates it and unshuffles its entries
/// lo..hi-1 into out. Returns whether its entries from hi on are all 0 (the
/// padding after a level's last rank). Throws H5Error naming the chunk if
/// it is damaged.
bool unfilter_rank_chunk(const std::vector<std::uint8_t>& stored, RankInflater& inflater,
                         std::vector<std::uint8_t>& shuffled, std::size_t lo, std::size_t hi, std::uint64_t* out,
                         const std::string& what, std::uint64_t c) {
  constexpr std::size_t n = kRankChunk, bytes = n * sizeof(std::uint64_t);
  const std::size_t size = stored.size() < 4 ? 0 : stored.size() - 4;
  std::uint32_t sum = 0;
  for (std::size_t k = 0; k < 4 && size > 0; ++k) sum |= static_cast<std::uint32_t>(stored[size + k]) << (8 * k);
  if (size == 0 || hdf5_fletcher32(stored.data(), size) != sum)
    throw H5Error(rank_chunk_name(what, c) + " fails its Fletcher32 checksum (damaged file)");
  shuffled.resize(bytes);
  if (!inflater.inflate_into(stored.data(), size, shuffled.data(), bytes))
    throw H5Error(rank_chunk_name(what, c) + " passes its Fletcher32 checksum but does not inflate to " +
                  std::to_string(n) + " ranks (damaged file, or written by another program)");
  for (std::size_t j = lo; j < hi; ++j) {
    std::uint64_t r = 0;
    for (std::size_t k = 0; k < sizeof(std::uint64_t); ++k)
      r |= static_cast<std::uint64_t>(shuffled[k * n + j]) << (8 * k);
    out[j - lo] = r;
  }
  for (std::size_t k = 0; k < sizeof(std::uint64_t); ++k)
    for (std::size_t j = hi; j < n; ++j)
      if (shuffled[k * n + j] != 0) return false;
  return true;
}

/// Closes a file and reports a failed close (the last flush happens there).
void close_file(Handle& file, const std::string& what) {
  const hid_t id = file.get();
  file.release();
  if (id >= 0) check(H5Fclose(id), what);
}

}  // namespace

struct LevelFileWriter::Impl {
  Handle file;                    // declared first: closed after the datasets
  std::vector<Handle> columns;    // /levels datasets, in columns() order
  Handle ranks;                   // /resume/losing_ranks
  std::vector<Handle> positions;  // /losing_positions/level_NNN, index n - 1
  hsize_t rows = 0;
  hsize_t ranks_end = 0;  // extent of /resume/losing_ranks
  int store_losing = 0;

  void flush(const std::string& what) const { check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), what); }
  void close_datasets() {
    positions.clear();
    ranks.reset();
    columns.clear();
  }
};

LevelFileWriter::LevelFileWriter(const std::string& path, const Provenance& prov)
    : impl_(std::make_unique<Impl>()), path_(path) {
  {
    Handle fapl = latest_format_access();
    impl_->file = check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose,
                        "cannot create " + path);
  }
  const hid_t f = impl_->file.get();
  h5::write_build_attributes(f);
  write_attr(f, "format_version", kFormatVersion);
  write_attr(f, "command_line", prov.command_line);
  write_attr(f, "max_tiles", prov.max_tiles);
  write_attr(f, "threads", prov.threads);
  write_attr(f, "mpi_ranks", prov.processes);
  write_attr(f, "store_losing", prov.store_losing);
  write_attr(f, "start_utc", prov.start_utc);
  write_attr(f, "end_utc", "");
  write_attr(f, "resume_history", prov.resume_history);
  write_attr(f, "complete", 0);
  write_attr(f, "status", "running");

  // SWMR writing allows no new objects, so every dataset is made now; the
  // groups are closed before it starts (only datasets may stay open).
  {
    Handle group = check(H5Gcreate2(f, "levels", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                         "cannot create group /levels in " + path);
    write_attr(group.get(), "description",
                      "one row per tile count n = 1..max_tiles, appended as each level completes");
    for (const Column& c : columns())
      impl_->columns.push_back(make_series(group.get(), c.name, c.file_type, kRowChunk, false,
                                           c.description,
                                           std::string("cannot create /levels/") + c.name + " in " + path));
  }
  {
    Handle group = check(H5Gcreate2(f, "resume", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                         "cannot create group /resume in " + path);
    write_attr(group.get(), "description",
                      "what `chomp sieve --resume` restores an interrupted run from");
    impl_->ranks = make_series(group.get(), "losing_ranks", H5T_STD_U64LE, kRankChunk, true,
                               "losing ranks (chomp's rank of a position among the p(n) with n tiles) "
                               "of every finished level, increasing within a level; each level starts "
                               "at a multiple of level_alignment: level n occupies the L(n) entries "
                               "from the sum over m < n of ceil(L(m) / level_alignment) * "
                               "level_alignment (L from /levels/losing); entries between levels are 0",
                               "cannot create /resume/losing_ranks in " + path);
    write_attr(impl_->ranks.get(), "level_alignment", static_cast<std::int64_t>(kRankChunk));
  }
  impl_->store_losing = prov.store_losing;
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

void LevelFileWriter::append(const LevelResult& level, const LosingLevel& losing, const StoredChunks* stored) {
  if (!impl_->file.valid()) throw H5Error(path_ + " is already finished");
  if (static_cast<hsize_t>(level.tiles) != impl_->rows + 1 || losing.size() != level.losing)
    throw H5Error("level " + std::to_string(level.tiles) + " with " + std::to_string(losing.size()) +
                  " ranks cannot follow row " + std::to_string(impl_->rows) + " of " + path_);
  const std::string where = " of level " + std::to_string(level.tiles) + " to " + path_;
  const hsize_t start = (impl_->ranks_end + kRankChunk - 1) / kRankChunk * kRankChunk;
  const hsize_t end = start + losing.size();
  if (end > start) check(H5Dset_extent(impl_->ranks.get(), &end), "cannot extend the losing ranks" + where);
  // Whole chunks, each written once: kRankChunk ranks are kStorePerChunk
  // chunks of the store, the level's last chunk padded with the fill value
  // 0. Deflating is most of the work: batches of chunks are filtered in
  // parallel, then written in order. This thread (not one of oneTBB's) has
  // an arena of its own, where oneTBB's worker threads join it when they
  // are free; isolate() keeps it to the batch's tasks all the same.
  static_assert(kRankChunk % config::kStoreChunk == 0, "a file chunk holds whole store chunks");
  constexpr std::size_t kStorePerChunk = kRankChunk / config::kStoreChunk;
  constexpr std::size_t kBatch = 64;
  const std::size_t file_chunks = static_cast<std::size_t>((losing.size() + kRankChunk - 1) / kRankChunk);
  const auto write_chunk = [&](std::size_t j, const std::vector<std::uint8_t>& chunk) {
    const hsize_t offset = start + j * kRankChunk;
    check(H5Dwrite_chunk(impl_->ranks.get(), H5P_DEFAULT, 0, &offset, chunk.size(), chunk.data()),
          "cannot write the losing ranks" + where);
  };
  if (stored && stored->size() == file_chunks) {
    // Chunks as another file stores them, checked by its reader: as they are.
    for (std::size_t j = 0; j < file_chunks; ++j) write_chunk(j, (*stored)[j]);
  } else {
    std::vector<std::vector<std::uint8_t>> filtered(std::min(kBatch, file_chunks));
    for (std::size_t b0 = 0; b0 < file_chunks; b0 += kBatch) {
      const std::size_t b1 = std::min(file_chunks, b0 + kBatch);
      tbb::this_task_arena::isolate([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(b0, b1, 1), [&](const tbb::blocked_range<std::size_t>& r) {
          std::vector<std::uint64_t> ranks, piece;
          std::vector<std::uint8_t> shuffled;
          RankDeflater deflater;
          for (std::size_t j = r.begin(); j != r.end(); ++j) {
            ranks.clear();
            const std::size_t c1 = std::min(losing.chunks(), (j + 1) * kStorePerChunk);
            for (std::size_t c = j * kStorePerChunk; c < c1; ++c) {
              losing.decode_chunk(c, piece);
              ranks.insert(ranks.end(), piece.begin(), piece.end());
            }
            ranks.resize(kRankChunk, 0);
            filter_rank_chunk(ranks.data(), deflater, shuffled, filtered[j - b0]);
          }
        });
      });
      for (std::size_t j = b0; j < b1; ++j) write_chunk(j, filtered[j - b0]);
    }
  }
  // The ranks reach the file before the row that vouches for them.
  impl_->flush("cannot flush the losing ranks" + where);
  if (end > start) impl_->ranks_end = end;

  const std::uint32_t tiles = static_cast<std::uint32_t>(level.tiles);
  const double fraction = level.losing_fraction(), ratio = level.hypothesis_ratio();
  const void* values[] = {&tiles, &level.positions, &level.losing, &fraction,
                          &ratio, &level.seconds,   &level.marks};
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
  append_values(impl_->positions[static_cast<std::size_t>(n - 1)].get(), 0, words.size(), H5T_NATIVE_UINT64,
                words.data(), what);
  impl_->flush(what);
}

void LevelFileWriter::abandon() {
  for (Handle& h : impl_->positions) h.release();
  for (Handle& h : impl_->columns) h.release();
  impl_->ranks.release();
  impl_->file.release();
}

void LevelFileWriter::rename_to(const std::string& new_path) {
  std::error_code ec;
  std::filesystem::rename(path_, new_path, ec);
  if (ec) throw H5Error("cannot rename " + path_ + " to " + new_path + ": " + ec.message());
  path_ = new_path;
}

void LevelFileWriter::finish(const std::string& status) {
  if (!impl_->file.valid()) throw H5Error(path_ + " is already finished");
  // Written over in place while SWMR writing goes on: the file is never
  // open without SWMR, whose "open for writing" mark would make a file
  // killed at this moment unreadable (seen once in 300 random kills when
  // finish reopened the file to write these).
  const hid_t f = impl_->file.get();
  write_attr(f, "end_utc", utc_now());
  write_attr(f, "status", status);
  write_attr(f, "complete", status == "complete" ? 1 : 0);
  impl_->close_datasets();
  close_file(impl_->file, "cannot record the status of " + path_);
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

/// The length of a 1-D dataset.
hsize_t extent_of(hid_t ds, const std::string& what) {
  Handle space = check(H5Dget_space(ds), H5Sclose, what);
  if (H5Sget_simple_extent_ndims(space.get()) != 1) throw H5Error(what + ": not a 1-D dataset");
  hsize_t n = 0;
  check(H5Sget_simple_extent_dims(space.get(), &n, nullptr), what);
  return n;
}

/// count values from index first of a 1-D dataset.
template <class T>
std::vector<T> read_values(hid_t ds, hid_t mem_type, hsize_t first, hsize_t count, const std::string& what) {
  std::vector<T> out(static_cast<std::size_t>(count));
  if (count == 0) return out;
  Handle file_space = check(H5Dget_space(ds), H5Sclose, what);
  check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &first, nullptr, &count, nullptr), what);
  Handle mem_space = check(H5Screate_simple(1, &count, nullptr), H5Sclose, what);
  check(H5Dread(ds, mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, out.data()), what);
  return out;
}

template <class T>
std::vector<T> read_column(hid_t group, const Column& c, const std::string& path) {
  const std::string what = std::string("cannot read /levels/") + c.name + " from " + path;
  Handle ds = check(H5Dopen2(group, c.name, H5P_DEFAULT), H5Dclose, what);
  return read_values<T>(ds.get(), c.mem_type, 0, extent_of(ds.get(), what), what);
}

bool link_exists(hid_t loc, const char* name) { return H5Lexists(loc, name, H5P_DEFAULT) > 0; }

/// Whether /resume/losing_ranks is laid out and filtered as this program
/// writes it (little-endian u64 in chunks of kRankChunk; shuffle, deflate,
/// Fletcher-32, in that order), so that its chunks can be read whole and
/// unfiltered here (unfilter_rank_chunk) rather than by HDF5.
bool ranks_filtered_as_written(hid_t ds) {
  const Handle type(H5Dget_type(ds), H5Tclose);
  if (!type.valid() || H5Tequal(type.get(), H5T_STD_U64LE) <= 0) return false;
  const Handle dcpl(H5Dget_create_plist(ds), H5Pclose);
  if (!dcpl.valid() || H5Pget_layout(dcpl.get()) != H5D_CHUNKED) return false;
  hsize_t chunk = 0;
  if (H5Pget_chunk(dcpl.get(), 1, &chunk) != 1 || chunk != kRankChunk) return false;
  const H5Z_filter_t expected[] = {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32};
  if (H5Pget_nfilters(dcpl.get()) != static_cast<int>(std::size(expected))) return false;
  for (unsigned i = 0; i < std::size(expected); ++i) {
    unsigned flags = 0, config = 0;
    std::size_t values = 0;
    if (H5Pget_filter2(dcpl.get(), i, &flags, &values, nullptr, 0, nullptr, &config) != expected[i]) return false;
  }
  return true;
}

}  // namespace

struct LevelFileReader::Impl {
  Handle file;  // declared first: closed after the datasets
  Handle ranks;
  hsize_t ranks_stored = 0;
  hsize_t ranks_alignment = 1;
  bool whole_chunks = false;  // ranks_filtered_as_written
  LevelTable table;

  /// Reads the chunks [c0, c1) of /resume/losing_ranks as stored; false if
  /// one is not in the file (the fill value) or skipped a filter.
  bool read_stored_chunks(hsize_t c0, hsize_t c1, StoredChunks& chunks, const std::string& what) const {
    // No chunk of ranks deflates to more than this (zlib's bound, the checksum).
    static const hsize_t most = compressBound(kRankChunk * sizeof(std::uint64_t)) + 4;
    chunks.resize(static_cast<std::size_t>(c1 - c0));
    for (hsize_t c = c0; c < c1; ++c) {
      hsize_t offset = c * kRankChunk, size = 0;
      if (H5Dget_chunk_storage_size(ranks.get(), &offset, &size) < 0 || size == 0) return false;
      if (size > most)
        throw H5Error(rank_chunk_name(what, c) + " claims " + std::to_string(size) + " bytes, more than " +
                      std::to_string(most) + " (damaged file)");
      std::vector<std::uint8_t>& bytes = chunks[static_cast<std::size_t>(c - c0)];
      bytes.resize(static_cast<std::size_t>(size));
      std::uint32_t skipped = 0;
      check(H5Dread_chunk(ranks.get(), H5P_DEFAULT, &offset, &skipped, bytes.data()), what);
      if (skipped != 0) return false;
    }
    return true;
  }
};

LevelFileReader::LevelFileReader(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw H5Error("cannot read " + path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw H5Error("cannot read " + path + ": it is a folder");
  if (access(path.c_str(), R_OK) != 0) throw H5Error("cannot read " + path + ": permission denied");
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw H5Error(path + " is not an HDF5 file, so not a chomp result (or its first bytes are damaged)");
  // A file whose SWMR writer was killed (or is still running) opens only
  // for SWMR reading.
  hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id < 0) {
    // Without the SWMR mark the first attempt's reason is the one to give.
    const std::string first = hdf5_reason();
    id = H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT);
    if (id < 0 && hdf5_reason().find("not already open for SWMR") != std::string::npos)
      throw H5Error("cannot open " + path + " (truncated or damaged?): " + first);
  }
  impl_->file = check(id, H5Fclose, "cannot open " + path + " (truncated or damaged?)");
  const hid_t f = impl_->file.get();
  LevelTable& t = impl_->table;
  {
    h5::Attributes attrs = h5::read_attributes(f);
    t.text_attributes = std::move(attrs.text);
    t.number_attributes = std::move(attrs.numbers);
  }
  const auto program = t.text_attributes.find("program");
  const auto fv = t.number_attributes.find("format_version");
  if (program == t.text_attributes.end() || program->second != "chomp" || fv == t.number_attributes.end())
    throw H5Error(path + " is not a chomp result file (no program = \"chomp\" and format_version attributes)");
  if (fv->second < kOldestReadableFormatVersion || fv->second > kFormatVersion)
    throw H5Error(path + " has format_version " + std::to_string(fv->second) + "; this program reads " +
                  std::to_string(kOldestReadableFormatVersion) + " to " + std::to_string(kFormatVersion));
  {
    Handle group = check(H5Gopen2(f, "levels", H5P_DEFAULT), H5Gclose, "cannot open group /levels in " + path);
    const auto& c = columns();
    // Read in the reverse of the order append() writes the columns: a live
    // writer may add levels meanwhile, and the rows that the column written
    // last already has are then whole in every column read after it.
    t.marks = read_column<std::uint64_t>(group.get(), c[6], path);
    t.seconds = read_column<double>(group.get(), c[5], path);
    t.hypothesis_ratio = read_column<double>(group.get(), c[4], path);
    t.losing_fraction = read_column<double>(group.get(), c[3], path);
    t.losing = read_column<std::uint64_t>(group.get(), c[2], path);
    t.positions = read_column<std::uint64_t>(group.get(), c[1], path);
    t.tiles = read_column<std::uint32_t>(group.get(), c[0], path);
  }
  const std::size_t n = std::min({t.tiles.size(), t.positions.size(), t.losing.size(), t.losing_fraction.size(),
                                  t.hypothesis_ratio.size(), t.seconds.size(), t.marks.size()});
  const std::size_t most = std::max({t.tiles.size(), t.positions.size(), t.losing.size(), t.losing_fraction.size(),
                                     t.hypothesis_ratio.size(), t.seconds.size(), t.marks.size()});
  // Rows that not every column has belong to levels that were not finished
  // when the file was read: a writer killed while appending a row leaves it
  // in some columns only, and a live writer may append levels while the
  // columns are read. They are dropped (a resume recomputes and checks the
  // last level it keeps). In a complete file every column has every row.
  if (most != n && t.complete())
    throw H5Error(path + ": the /levels datasets have different lengths (damaged file)");
  for (auto* v : {&t.positions, &t.losing, &t.marks}) v->resize(n);
  for (auto* v : {&t.losing_fraction, &t.hypothesis_ratio, &t.seconds}) v->resize(n);
  t.tiles.resize(n);

  if (link_exists(f, "resume") && link_exists(f, "resume/losing_ranks")) {
    const std::string what = "cannot open /resume/losing_ranks in " + path;
    impl_->ranks = check(H5Dopen2(f, "resume/losing_ranks", H5P_DEFAULT), H5Dclose, what);
    impl_->ranks_stored = extent_of(impl_->ranks.get(), what);
    // Levels start at multiples of the level_alignment attribute (the chunk
    // size). The first files of format 2, written before levels were
    // aligned, have no such attribute: their levels follow each other
    // without gaps. (Taking the chunk size for them would read every level
    // after the first at the wrong place.)
    const h5::Attributes attrs = h5::read_attributes(impl_->ranks.get());
    const auto alignment = attrs.numbers.find("level_alignment");
    if (alignment != attrs.numbers.end()) {
      if (alignment->second < 1)
        throw H5Error(path + ": /resume/losing_ranks has level_alignment " + std::to_string(alignment->second) +
                      " (damaged file)");
      impl_->ranks_alignment = static_cast<hsize_t>(alignment->second);
    }
    impl_->whole_chunks = ranks_filtered_as_written(impl_->ranks.get());
  }
}

LevelFileReader::~LevelFileReader() = default;

const LevelTable& LevelFileReader::table() const { return impl_->table; }
bool LevelFileReader::has_resume_data() const { return impl_->ranks.valid(); }
std::uint64_t LevelFileReader::stored_losing_ranks() const { return impl_->ranks_stored; }
std::uint64_t LevelFileReader::losing_ranks_alignment() const { return impl_->ranks_alignment; }

std::uint64_t LevelFileReader::first_losing_rank(int n) const {
  const LevelTable& t = impl_->table;
  if (n < 1 || static_cast<std::size_t>(n) > t.losing.size() + 1)
    throw std::out_of_range("level " + std::to_string(n) + " is not in " + path_);
  const std::uint64_t a = impl_->ranks_alignment;
  std::uint64_t first = 0;
  for (std::size_t i = 0; i + 1 < static_cast<std::size_t>(n); ++i) first = (first + t.losing[i] + a - 1) / a * a;
  return first;
}

std::vector<std::uint64_t> LevelFileReader::losing_ranks(std::uint64_t first, std::uint64_t count,
                                                         StoredChunks* stored) const {
  const std::string what = "cannot read /resume/losing_ranks from " + path_;
  if (stored) stored->clear();
  if (!impl_->ranks.valid()) throw H5Error(what + ": the file has no resume data");
  if (count == 0) return {};  // a level without losing positions may start past the end
  if (first > impl_->ranks_stored || count > impl_->ranks_stored - first)
    throw H5Error(what + ": entries " + std::to_string(first) + ".." + std::to_string(first + count) +
                  " are beyond the " + std::to_string(impl_->ranks_stored) + " stored");
  if (!impl_->whole_chunks)
    return read_values<std::uint64_t>(impl_->ranks.get(), H5T_NATIVE_UINT64, first, count, what);
  // The chunks are read whole, a batch at a time, and unfiltered in
  // parallel: through HDF5 one thread inflates them all, which took 20 s of
  // the 135 s a resume of a run to 130 spent restoring its levels.
  std::vector<std::uint64_t> out(static_cast<std::size_t>(count));
  const hsize_t last = first + count, c0 = first / kRankChunk, c1 = (last + kRankChunk - 1) / kRankChunk;
  const hsize_t batch_size = detail::seam_or(detail::g_read_batch_for_testing, kReadBatch);
  // The chunks are kept only if they can hold exactly these entries.
  const bool keep = stored && first % kRankChunk == 0;
  StoredChunks kept, batch;
  bool padded = true;  // the entries after the range in its last chunk are 0
  for (hsize_t b0 = c0; b0 < c1; b0 += batch_size) {
    const hsize_t b1 = std::min(c1, b0 + batch_size);
    if (!impl_->read_stored_chunks(b0, b1, batch, what)) {
      out = {};  // not held beside HDF5's copy
      return read_values<std::uint64_t>(impl_->ranks.get(), H5T_NATIVE_UINT64, first, count, what);
    }
    tbb::this_task_arena::isolate([&] {
      tbb::parallel_for(tbb::blocked_range<hsize_t>(b0, b1, 1), [&](const tbb::blocked_range<hsize_t>& r) {
        RankInflater inflater;
        std::vector<std::uint8_t> shuffled;
        for (hsize_t c = r.begin(); c != r.end(); ++c) {
          const hsize_t lo = std::max<hsize_t>(first, c * kRankChunk);
          const hsize_t hi = std::min<hsize_t>(last, (c + 1) * kRankChunk);
          const bool zeros = unfilter_rank_chunk(batch[static_cast<std::size_t>(c - b0)], inflater, shuffled,
                                                 static_cast<std::size_t>(lo - c * kRankChunk),
                                                 static_cast<std::size_t>(hi - c * kRankChunk),
                                                 out.data() + (lo - first), what, c);
          if (c + 1 == c1) padded = zeros;
        }
      });
    });
    if (keep) std::move(batch.begin(), batch.end(), std::back_inserter(kept));
  }
  // Handed back only when they hold exactly these entries (then zeros):
  // another file may store them as they are.
  if (keep && padded) stored->swap(kept);
  return out;
}

std::vector<std::uint64_t> LevelFileReader::losing_positions(int n) const {
  const hid_t f = impl_->file.get();
  const std::string name = "losing_positions/" + level_name(n);
  if (!link_exists(f, "losing_positions") || !link_exists(f, name.c_str())) return {};
  const std::string what = "cannot read /" + name + " from " + path_;
  Handle ds = check(H5Dopen2(f, name.c_str(), H5P_DEFAULT), H5Dclose, what);
  return read_values<std::uint64_t>(ds.get(), H5T_NATIVE_UINT64, 0, extent_of(ds.get(), what), what);
}

std::vector<std::uint64_t> read_losing_positions(const std::string& path, int n) {
  return LevelFileReader(path).losing_positions(n);
}

LevelTable read_level_file(const std::string& path) { return LevelFileReader(path).table(); }

}  // namespace chomp
