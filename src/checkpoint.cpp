/// @file checkpoint.cpp
/// @brief A window's checkpoint. From level 149 on a window's marking pass
/// takes hours, and a stop inside it used to lose all of it. So when a run
/// is stopped inside a pass over a window of whole levels (and every
/// SieveOptions::checkpoint_seconds of a long one), the bitmaps of the
/// window's unfinished levels and the pass's progress (the items taken, the
/// rests of those cut, the marks applied per segment) go to a file beside
/// the result file. A sieve made later over the same store, with any
/// thread count (a checkpoint keeps the cut of the items; one of version 1,
/// which did not, needs the thread count it was made with), reads them back
/// and goes on with the pass where it stopped; the levels come out bit for bit as an
/// uninterrupted run's, marks included (tests/test_resume.cpp).
///
/// A checkpoint is taken between two rounds, when every mark filed has been
/// applied: then the bitmap and the list of items done say the same thing.
/// It names the run (the store's run id), the last finished level and its
/// digest, so it is never applied to another state; anything that does not
/// match, or a CRC that fails, and the window is marked again from the
/// start (only time is lost). A level in slices is saved with the slices
/// before the one in hand (their blocks copied from the store, which a
/// resume cuts back to its finished levels) and they are written back on
/// resume. MPI runs are not checkpointed.
///
/// Layout (little-endian; doc/FILE_FORMAT.md): "CHOMPWIN", u32 version, u32
/// header bytes, the header fields, u32 CRC-32 of the header; the bitmap of
/// the unfinished levels as the window holds them; a u32 CRC-32 for every
/// config::kCheckpointChunk bytes of it; for a level in slices, the store's
/// bytes of the slices before and their CRC-32s; "CHOMPEND".

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "chomp/provenance.hpp"
#include "config.hpp"
#include "sieve_impl.hpp"
#include "store_impl.hpp"

namespace chomp {

namespace {

constexpr char kMagic[8] = {'C', 'H', 'O', 'M', 'P', 'W', 'I', 'N'};
constexpr char kEndMagic[8] = {'C', 'H', 'O', 'M', 'P', 'E', 'N', 'D'};
/// 1: windows of whole levels; 2: also a level's slices; 3: the same
/// layout, a sliced level's seconds being the level's so far (its slices
/// before the saved one too), not the saved pass's alone; 4: a window
/// without the marks of the first two rows' moves (tail_marks.hpp); 5: of
/// the first row's moves, or of the first two rows'. Every version
/// 1..kVersion is read.
constexpr std::uint32_t kVersion = 5;
/// A header larger than this is not one. Most of a large one is the block
/// index of a sliced level's slices so far: 36 bytes a block of 4,096
/// losing ranks, about 200 MB at level 170.
constexpr std::uint64_t kMostHeaderBytes = std::uint64_t{1} << 30;

using store_file::Bytes;
using store_file::crc_of;
using store_file::errno_text;

std::uint64_t chunks_of(std::uint64_t bytes) {
  return (bytes + config::kCheckpointChunk - 1) / config::kCheckpointChunk;
}

/// A file descriptor closed on every path.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

/// Writes all of it or says why not.
bool write_all(int fd, const void* data, std::size_t bytes, std::string& error) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  while (bytes > 0) {
    const ssize_t w = ::write(fd, p, bytes < (std::size_t{1} << 30) ? bytes : (std::size_t{1} << 30));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      error = errno_text(w < 0 ? errno : ENOSPC);
      return false;
    }
    p += w, bytes -= static_cast<std::size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* data, std::size_t bytes, std::uint64_t at) {
  auto* p = static_cast<std::uint8_t*>(data);
  while (bytes > 0) {
    const ssize_t r = ::pread(fd, p, bytes < (std::size_t{1} << 30) ? bytes : (std::size_t{1} << 30),
                              static_cast<off_t>(at));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r, bytes -= static_cast<std::size_t>(r), at += static_cast<std::uint64_t>(r);
  }
  return true;
}

/// CRC-32 of every chunk of `bytes` at data, the chunks shared by the threads.
std::vector<std::uint32_t> chunk_crcs(const std::uint8_t* data, std::uint64_t bytes) {
  std::vector<std::uint32_t> crcs(static_cast<std::size_t>(chunks_of(bytes)));
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, crcs.size(), 1), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t c = r.begin(); c != r.end(); ++c) {
      const std::uint64_t at = c * config::kCheckpointChunk;
      const std::uint64_t len = std::min(config::kCheckpointChunk, bytes - at);
      crcs[c] = crc_of(data + at, static_cast<std::size_t>(len));
    }
  });
  return crcs;
}

std::string levels_text(const std::vector<WindowLevel>& parts) {
  const int a = parts.front().n, b = parts.back().n;
  return a == b ? "level " + std::to_string(a) : "levels " + std::to_string(a) + ".." + std::to_string(b);
}

}  // namespace

bool Sieve::Impl::can_checkpoint() const {
  return !options.checkpoint.empty() && !distributed() && !window.empty() &&
         (window.front().whole() || slicing.has_value()) && window_bits > config::kDirectMarkBits;
}

void Sieve::Impl::drop_checkpoint(const std::string& why) {
  if (!checkpoint) return;
  checkpoint_report = "ignored the window's checkpoint " + options.checkpoint + " (" + why +
                      "); the window is marked again";
  checkpoint.reset();
  remove_checkpoint();
}

void Sieve::Impl::remove_checkpoint() {
  if (options.checkpoint.empty()) return;
  std::error_code ec;
  std::filesystem::remove(options.checkpoint, ec);
  std::filesystem::remove(options.checkpoint + ".tmp", ec);
}

bool Sieve::Impl::save_checkpoint(const detail::PassProgress& pass) {
  if (!can_checkpoint()) return false;
  // A pass of no source level (the first window, before its first level is
  // finished) has marked nothing: a checkpoint would hold an empty window,
  // and the reader takes sources 1..0 for a damaged header.
  if (pass.from > pass.to) return false;
  const detail::PhaseTimer timer(phases.checkpoints);
  // The window's levels not finished yet (a pass that follows a finished
  // level marks the levels above it): from that level's base on, as held.
  std::size_t first = 0;
  while (first < window.size() && window[first].n <= done) ++first;
  if (first == window.size()) return false;
  const std::vector<WindowLevel> parts(window.begin() + static_cast<std::ptrdiff_t>(first), window.end());
  const std::uint64_t base = parts.front().base, bytes = (window_bits - base) / 8;
  const std::uint64_t seg0 = base >> config::kSegmentBitsLog2;
  const auto* bits = reinterpret_cast<const std::uint8_t*>(bitmap() + base / 64);

  Bytes h;
  h.put_bytes(kMagic, sizeof kMagic);
  h.put(kVersion);
  h.put(std::uint32_t{0});  // header bytes, filled in below
  const std::string& id = store.run_id();
  h.put(static_cast<std::uint32_t>(id.size()));
  h.put_bytes(id.data(), id.size());
  h.put(static_cast<std::uint32_t>(max));
  h.put(static_cast<std::uint32_t>(tuning.threads));
  // Bit 0: canonical positions only; bits 1-2 (version 5): the window holds
  // no marks of moves of its first that many rows, inferred from the bits
  // instead (version 4: bit 1, the first two rows).
  h.put(static_cast<std::uint32_t>((options.transposes ? 1 : 0) | ((tails ? tails->rows() : 0) << 1)));
  h.put(static_cast<std::uint32_t>(done));
  h.put(done > 0 ? store.digest(done) : std::uint64_t{0});
  h.put(done > 0 ? store.count(done) : std::uint64_t{0});
  h.put(static_cast<std::uint32_t>(pass.from));
  h.put(static_cast<std::uint32_t>(pass.to));
  h.put(static_cast<std::uint32_t>(pass.lo));
  h.put(pass.cursor);
  h.put(pass.seconds);
  h.put(static_cast<std::uint32_t>(parts.size()));
  for (const WindowLevel& w : parts) {
    h.put(static_cast<std::uint32_t>(w.n));
    h.put(w.marks);
  }
  h.put(static_cast<std::uint32_t>(pass.left.size()));
  for (const detail::Piece& p : pass.left) {
    h.put(static_cast<std::uint32_t>(p.item.level));
    h.put(static_cast<std::uint64_t>(p.item.block));
    h.put(static_cast<std::uint32_t>(p.item.part));
    h.put(static_cast<std::uint64_t>(p.item.sources));
    h.put(static_cast<std::uint32_t>(p.item.lo));
    h.put(static_cast<std::uint32_t>(p.item.hi));
    h.put(static_cast<std::uint64_t>(p.from.source));
    h.put(static_cast<std::uint32_t>(p.from.level));
  }
  const std::uint64_t segments = (window_bits - base) >> config::kSegmentBitsLog2;
  h.put(segments);
  for (std::uint64_t s = 0; s < segments; ++s) h.put(pass.segment_marks[seg0 + s]);
  h.put(bytes);
  h.put(pass.items);
  h.put(pass.signature);
  h.put(static_cast<std::uint32_t>(pass.pieces));
  PendingLevel pending;
  const bool sliced = slicing.has_value();
  h.put(static_cast<std::uint32_t>(sliced ? 1 : 0));
  if (sliced) {
    pending = store.pending_level();
    h.put(static_cast<std::uint32_t>(slicing->slices.size()));
    for (const detail::Slice& sl : slicing->slices) {
      h.put(static_cast<std::uint32_t>(sl.lo));
      h.put(static_cast<std::uint32_t>(sl.hi));
    }
    h.put(static_cast<std::uint32_t>(slicing->index));
    h.put(slicing->marks);
    h.put(pending.count);
    h.put(pending.digest);
    h.put(pending.from);
    h.put(pending.end);
    h.put(static_cast<std::uint64_t>(pending.histogram.size()));
    for (const std::uint64_t v : pending.histogram) h.put(v);
    h.put(static_cast<std::uint64_t>(pending.blocks.size()));
    for (const StoreBlock& b : pending.blocks) {
      h.put(b.first_rank);
      h.put(b.last_rank);
      h.put(b.offset);
      h.put(b.count);
      h.put(b.bytes);
      h.put(b.crc);
    }
  }
  if (h.data.size() + 4 > kMostHeaderBytes) {
    checkpoint_report = "could not save the window's progress: its header of " + std::to_string(h.data.size() >> 20) +
                        " MiB is over the limit; a resumed run marks it again";
    return false;
  }
  const auto header_bytes = static_cast<std::uint32_t>(h.data.size() + 4);
  std::memcpy(h.data.data() + 12, &header_bytes, 4);
  h.put(crc_of(h.data.data(), h.data.size()));

  const std::vector<std::uint32_t> crcs = chunk_crcs(bits, bytes);
  // Room: the checkpoint replaces the last one, and must leave the store
  // what it still needs (SieveOptions::store_bytes_planned).
  {
    const std::uint64_t needs = h.data.size() + bytes + crcs.size() * 4 + (pending.end - pending.from);
    const std::uint64_t store_left =
        options.store_bytes_planned > store.file_bytes() ? options.store_bytes_planned - store.file_bytes() : 0;
    std::error_code ec;
    const std::filesystem::path folder = std::filesystem::absolute(options.checkpoint, ec).parent_path();
    const std::filesystem::space_info room = std::filesystem::space(folder, ec);
    std::uint64_t old_bytes = std::filesystem::file_size(options.checkpoint, ec);
    if (ec) old_bytes = 0;
    if (store_left > 0 && room.available != static_cast<std::uintmax_t>(-1) &&
        static_cast<std::uint64_t>(room.available) + old_bytes < needs + store_left) {
      checkpoint_report = "did not save the progress of the window of " + levels_text(parts) + " (" +
                          std::to_string(needs >> 20) + " MiB): its disk would keep too little room for the " +
                          std::to_string(store_left >> 20) + " MiB the store still needs; a resumed run marks it again";
      return false;
    }
    // The new one is written beside the last one, which goes only once it
    // is whole: for that moment the disk holds both.
    if (room.available != static_cast<std::uintmax_t>(-1) && static_cast<std::uint64_t>(room.available) < needs) {
      checkpoint_report = "did not save the progress of the window of " + levels_text(parts) + " (" +
                          std::to_string(needs >> 20) + " MiB): its disk has " +
                          std::to_string(static_cast<std::uint64_t>(room.available) >> 20) +
                          " MiB free" +
                          (old_bytes > 0 ? ", and the new save is written beside the last one before it replaces "
                                           "it; a resumed run continues from the last one saved where it still "
                                           "fits, else marks the window again"
                                         : "; a resumed run marks the window again");
      return false;
    }
  }
  const std::string tmp = options.checkpoint + ".tmp";
  std::string error;
  bool ok = false;
  {
    Fd f{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
    if (f.fd < 0) {
      error = errno_text(errno);
    } else {
      ok = write_all(f.fd, h.data.data(), h.data.size(), error);
      // The bitmap a chunk at a time, each dropped from the page cache once
      // it is on disk: 14 GiB of dirty pages would crowd the run's memory.
      for (std::uint64_t at = 0; ok && at < bytes; at += config::kCheckpointChunk) {
        const std::uint64_t len = std::min(config::kCheckpointChunk, bytes - at);
        ok = write_all(f.fd, bits + at, static_cast<std::size_t>(len), error);
        if (ok && ::fdatasync(f.fd) != 0) ok = false, error = errno_text(errno);
        if (ok) ::posix_fadvise(f.fd, static_cast<off_t>(h.data.size() + at), static_cast<off_t>(len), POSIX_FADV_DONTNEED);
      }
      if (ok) ok = write_all(f.fd, crcs.data(), crcs.size() * 4, error);
      // A sliced level's slices so far: their bytes in the store, copied.
      std::vector<std::uint32_t> pending_crcs;
      std::vector<std::uint8_t> piece;
      for (std::uint64_t at = pending.from; ok && at < pending.end; at += config::kCheckpointChunk) {
        const auto len = static_cast<std::size_t>(std::min(config::kCheckpointChunk, pending.end - at));
        piece.resize(len);
        try {
          store.read_raw(at, len, piece.data());
        } catch (const std::exception& e) {
          ok = false, error = e.what();
          break;
        }
        pending_crcs.push_back(crc_of(piece.data(), len));
        const std::uint64_t file_at = h.data.size() + bytes + crcs.size() * 4 + (at - pending.from);
        ok = write_all(f.fd, piece.data(), len, error);
        if (ok && ::fdatasync(f.fd) != 0) ok = false, error = errno_text(errno);
        if (ok) ::posix_fadvise(f.fd, static_cast<off_t>(file_at), static_cast<off_t>(len), POSIX_FADV_DONTNEED);
      }
      if (ok) ok = write_all(f.fd, pending_crcs.data(), pending_crcs.size() * 4, error);
      if (ok) ok = write_all(f.fd, kEndMagic, sizeof kEndMagic, error);
      if (ok && ::fsync(f.fd) != 0) ok = false, error = errno_text(errno);
    }
  }
  if (ok && std::rename(tmp.c_str(), options.checkpoint.c_str()) != 0) ok = false, error = errno_text(errno);
  if (!ok) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    checkpoint_report = "could not save the progress of the window of " + levels_text(parts) + " to " +
                        options.checkpoint + " (" + error + "); a resumed run marks it again";
    return false;
  }
  // The rename is durable once the folder is.
  const std::string folder = std::filesystem::path(options.checkpoint).parent_path().string();
  Fd dir{::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd >= 0) ::fsync(dir.fd);
  const std::string what = sliced ? "slice " + std::to_string(slicing->index + 1) + " of " +
                                        std::to_string(slicing->slices.size()) + " of level " +
                                        std::to_string(parts.front().n)
                                  : "the window of " + levels_text(parts);
  checkpoint_stale = false;
  checkpoint_saved_this_level = true;
  checkpoint_report = "the progress of " + what + " is saved in " + options.checkpoint + " (" +
                      std::to_string((bytes + pending.end - pending.from) >> 20) + " MiB); --resume continues it";
  return true;
}

namespace {

/// A checkpoint's header as it was written: every field read and checked
/// for what the file alone can say (its CRC, bounds, the parts following
/// the level it continues), nothing yet compared with a run.
struct Header {
  std::uint32_t version = 0, header_bytes = 0;
  std::string run_id;
  std::uint32_t max = 0, threads = 0, transposes = 0, done = 0;
  std::uint64_t digest = 0, count = 0;
  std::uint64_t segments = 0, bytes = 0;  // of the bitmap saved
  detail::Checkpoint cp;  // parts hold their level and marks only; pending its fields but n
};

/// Reads the header of the checkpoint open as fd (size bytes) into h, or
/// says why it is not one.
std::string parse_header(int fd, std::uint64_t size, Header& h) {
  std::uint8_t head[16];
  if (size < sizeof head || !read_all(fd, head, sizeof head, 0) || std::memcmp(head, kMagic, 8) != 0)
    return "not a checkpoint";
  std::memcpy(&h.version, head + 8, 4);
  std::memcpy(&h.header_bytes, head + 12, 4);
  if (h.version < 1 || h.version > kVersion)
    return "version " + std::to_string(h.version) + ", this program reads 1 to " + std::to_string(kVersion);
  const std::uint32_t header_bytes = h.header_bytes;
  if (header_bytes < 24 || header_bytes > kMostHeaderBytes || header_bytes > size) return "damaged header";
  std::vector<std::uint8_t> data(header_bytes);
  if (!read_all(fd, data.data(), data.size(), 0)) return "truncated";
  std::uint32_t crc = 0;
  std::memcpy(&crc, data.data() + header_bytes - 4, 4);
  if (crc != crc_of(data.data(), header_bytes - 4)) return "its header fails its CRC";
  store_file::Reader r(data.data() + 16, header_bytes - 20);
  const auto id_len = r.get<std::uint32_t>();
  if (id_len > 256 || id_len > header_bytes - 24) return "damaged header";
  h.run_id.assign(reinterpret_cast<const char*>(r.here()), id_len);
  r.skip(id_len);
  h.max = r.get<std::uint32_t>(), h.threads = r.get<std::uint32_t>();
  h.transposes = r.get<std::uint32_t>(), h.done = r.get<std::uint32_t>();
  h.digest = r.get<std::uint64_t>(), h.count = r.get<std::uint64_t>();
  detail::Checkpoint& cp = h.cp;
  detail::PassProgress& pass = cp.pass;
  pass.from = static_cast<int>(r.get<std::uint32_t>());
  pass.to = static_cast<int>(r.get<std::uint32_t>());
  pass.lo = static_cast<int>(r.get<std::uint32_t>());
  pass.cursor = r.get<std::uint64_t>();
  pass.seconds = r.get<double>();
  const int done = static_cast<int>(h.done), max = static_cast<int>(h.max);
  const auto nparts = r.get<std::uint32_t>();
  if (nparts == 0 || nparts > static_cast<std::uint32_t>(kMaxTiles)) return "damaged header";
  for (std::uint32_t i = 0; i < nparts; ++i) {
    WindowLevel w;
    w.n = static_cast<int>(r.get<std::uint32_t>());
    w.marks = r.get<std::uint64_t>();
    if (w.n != done + 1 + static_cast<int>(i) || w.n > max) return "damaged header";
    cp.parts.push_back(w);
  }
  if (pass.lo != done + 1 || pass.from < 1 || pass.from > pass.to || pass.to > done) return "damaged header";
  const auto nleft = r.get<std::uint32_t>();
  if (nleft > (1u << 20)) return "damaged header";
  for (std::uint32_t i = 0; i < nleft; ++i) {
    detail::Piece p;
    p.item.level = static_cast<int>(r.get<std::uint32_t>());
    p.item.block = static_cast<std::size_t>(r.get<std::uint64_t>());
    p.item.part = static_cast<int>(r.get<std::uint32_t>());
    p.item.sources = static_cast<std::size_t>(r.get<std::uint64_t>());
    p.item.lo = static_cast<int>(r.get<std::uint32_t>());
    p.item.hi = static_cast<int>(r.get<std::uint32_t>());
    p.from.source = static_cast<std::size_t>(r.get<std::uint64_t>());
    p.from.level = static_cast<int>(r.get<std::uint32_t>());
    const bool sane = p.item.level >= pass.from && p.item.level <= pass.to && p.item.sources > 0 &&
                      p.item.sources <= config::kStoreBlockRanks && p.item.lo >= pass.lo && p.item.lo <= p.item.hi &&
                      p.item.hi <= cp.parts.back().n && p.from.source < p.item.sources &&
                      p.from.level >= p.item.lo && p.from.level <= p.item.hi &&
                      static_cast<std::uint64_t>(p.item.part) * p.item.sources + p.from.source <
                          config::kStoreBlockRanks;
    if (!sane) return "damaged header";
    pass.left.push_back(p);
  }
  h.segments = r.get<std::uint64_t>();
  if (h.segments > (std::uint64_t{1} << 26)) return "damaged header";
  pass.segment_marks.resize(static_cast<std::size_t>(h.segments));
  for (auto& m : pass.segment_marks) m = r.get<std::uint64_t>();
  h.bytes = r.get<std::uint64_t>();
  if (h.version >= 2) {
    pass.items = r.get<std::uint64_t>(), pass.signature = r.get<std::uint64_t>();
    pass.pieces = static_cast<int>(r.get<std::uint32_t>());
    if (pass.pieces < 1 || pass.pieces > kMaxTiles) return "damaged header";
  }
  if (h.version >= 2 && r.get<std::uint32_t>() != 0) {
    // A level in slices: the one part is the saved slice.
    cp.sliced = true;
    const auto nslices = r.get<std::uint32_t>();
    if (nparts != 1 || nslices == 0 || nslices > static_cast<std::uint32_t>(kMaxTiles)) return "damaged header";
    for (std::uint32_t i = 0; i < nslices; ++i) {
      detail::Slice sl;
      sl.lo = static_cast<int>(r.get<std::uint32_t>());
      sl.hi = static_cast<int>(r.get<std::uint32_t>());
      if (sl.lo < 1 || sl.lo > sl.hi || sl.hi > cp.parts.front().n) return "damaged header";
      cp.slices.push_back(sl);
    }
    cp.slice = r.get<std::uint32_t>();
    if (cp.slice >= cp.slices.size()) return "damaged header";
    cp.level_marks = r.get<std::uint64_t>();
    PendingLevel& p = cp.pending;
    p.count = r.get<std::uint64_t>();
    p.digest = r.get<std::uint64_t>();
    p.from = r.get<std::uint64_t>();
    p.end = r.get<std::uint64_t>();
    const auto bins = r.get<std::uint64_t>();
    if (bins != detail::GapCode::kHistogramBins || p.end < p.from) return "damaged header";
    p.histogram.resize(static_cast<std::size_t>(bins));
    for (auto& v : p.histogram) v = r.get<std::uint64_t>();
    const auto blocks = r.get<std::uint64_t>();
    if (blocks > header_bytes / 36) return "damaged header";
    p.blocks.resize(static_cast<std::size_t>(blocks));
    for (StoreBlock& b : p.blocks) {
      b.first_rank = r.get<std::uint64_t>();
      b.last_rank = r.get<std::uint64_t>();
      b.offset = r.get<std::uint64_t>();
      b.count = r.get<std::uint32_t>();
      b.bytes = r.get<std::uint32_t>();
      b.crc = r.get<std::uint32_t>();
    }
  }
  if (r.here() != data.data() + header_bytes - 4) return "damaged header";  // every byte read, no more
  return {};
}

}  // namespace

void Sieve::Impl::read_checkpoint() {
  checkpoint.reset();
  if (options.checkpoint.empty() || distributed()) return;
  std::error_code ec;
  std::filesystem::remove(options.checkpoint + ".tmp", ec);  // a save that was killed
  if (!std::filesystem::exists(options.checkpoint, ec)) return;
  const std::string& path = options.checkpoint;
  const auto ignore = [&](const std::string& why) {
    checkpoint.reset();
    checkpoint_report = "ignored the window's checkpoint " + path + " (" + why + "); the window is marked again";
    remove_checkpoint();
  };
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  struct stat st {};
  if (f.fd < 0 || ::fstat(f.fd, &st) != 0) return ignore("cannot read it: " + errno_text(errno));
  const auto size = static_cast<std::uint64_t>(st.st_size);
  Header h;
  if (const std::string why = parse_header(f.fd, size, h); !why.empty()) return ignore(why);
  if (h.run_id != store.run_id()) return ignore("it belongs to another run");
  if (static_cast<int>(h.done) != done)
    return ignore("it continues level " + std::to_string(h.done) + ", the store ends at level " +
                  std::to_string(done));
  if (done > 0 && (h.digest != store.digest(done) || h.count != store.count(done)))
    return ignore("level " + std::to_string(done) + " of the store is not the one it continues");
  if (static_cast<int>(h.max) != max) return ignore("it was made for --max-tiles " + std::to_string(h.max));
  if (((h.transposes & 1) != 0) != options.transposes) return ignore("it was made with other options");
  // A run that infers no more rows than the window did may go on from it
  // (what the bits make, this run's and the window's filed marks make
  // together); a run that infers fewer would miss the marks the window
  // left to bits it does not hold.
  const int saved_rows = h.version >= 5 ? static_cast<int>((h.transposes >> 1) & 3) : (h.transposes & 2) != 0 ? 2 : 0;
  if (saved_rows > (tails ? tails->rows() : 0))
    return ignore("its window leaves the moves of " + inferred_marks_text(saved_rows) +
                  " to their bits, which this run does not hold" + (tails ? " for all of them" : ""));
  // Version 1 kept no cut of the items, which the thread count then fixed.
  if (h.version == 1 && static_cast<int>(h.threads) != tuning.threads)
    return ignore("it was made with " + std::to_string(h.threads) + " threads, which fix its work items; "
                  "resume with --threads " + std::to_string(h.threads) + " to continue it");
  detail::Checkpoint cp = std::move(h.cp);
  for (const detail::Piece& p : cp.pass.left)
    if (p.item.block >= store.blocks(p.item.level).size()) return ignore("damaged header");
  // The parts as the window holds them: whole levels, or the saved slice.
  std::uint64_t bits = 0;
  for (WindowLevel& w : cp.parts) {
    w.set_slice(table, 1, w.n);
    bits += w.bits();
  }
  if (cp.sliced) {
    cp.pending.n = done + 1;
    WindowLevel& w = cp.parts.front();
    const detail::Slice& sl = cp.slices[cp.slice];
    w.set_slice(table, sl.lo, sl.hi);
    bits = w.bits();
  }
  const std::uint64_t bytes = h.bytes, header_bytes = h.header_bytes;
  if (bytes != bits / 8 || h.segments != bits >> config::kSegmentBitsLog2) return ignore("damaged header");
  if (bits > tuning.window_bits)
    return ignore("its window of " + std::to_string(bytes >> 20) + " MiB does not fit this run's budget");
  const std::uint64_t chunks = chunks_of(bytes);
  const std::uint64_t pending_bytes = cp.pending.end - cp.pending.from, pending_chunks = chunks_of(pending_bytes);
  if (pending_bytes > size) return ignore("truncated, or damaged");
  const std::uint64_t tail = header_bytes + bytes + 4 * chunks + pending_bytes + 4 * pending_chunks;
  if (size != tail + sizeof kEndMagic) return ignore("truncated, or damaged");
  cp.bitmap_at = header_bytes;
  cp.chunk_crcs.resize(static_cast<std::size_t>(chunks));
  cp.pending_at = header_bytes + bytes + 4 * chunks;
  cp.pending_crcs.resize(static_cast<std::size_t>(pending_chunks));
  char end[8];
  if (!read_all(f.fd, cp.chunk_crcs.data(), 4 * chunks, header_bytes + bytes) ||
      !read_all(f.fd, cp.pending_crcs.data(), 4 * pending_chunks, cp.pending_at + pending_bytes) ||
      !read_all(f.fd, end, sizeof end, tail) || std::memcmp(end, kEndMagic, 8) != 0)
    return ignore("truncated, or damaged");
  const std::string what = cp.sliced ? "slice " + std::to_string(cp.slice + 1) + " of " +
                                           std::to_string(cp.slices.size()) + " of level " +
                                           std::to_string(cp.parts.front().n)
                                     : levels_text(cp.parts);
  checkpoint_report = "continuing the marking of " + what + " from " + path + " (saved after " +
                      std::to_string(static_cast<long long>(std::llround(cp.pass.seconds))) + " s " +
                      (cp.sliced ? "on the level)" : "of it)");
  checkpoint = std::move(cp);
}

bool Sieve::Impl::adopt_checkpoint_slices() {
  const detail::Checkpoint& cp = *checkpoint;
  const std::string& path = options.checkpoint;
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  std::string failure;
  try {
    if (f.fd < 0) throw StoreError("cannot read it: " + errno_text(errno));
    const detail::PhaseTimer timer(phases.checkpoints);
    // Read back a chunk at a time (the store writes back what it is given
    // in pieces of at most a chunk), each checked against its CRC.
    std::vector<std::uint8_t> chunk;
    std::uint64_t held = ~std::uint64_t{0};
    store.adopt_pending_level(cp.pending, [&](std::uint64_t at, std::size_t len, std::uint8_t* out) {
      std::uint64_t off = at - cp.pending.from;
      while (len > 0) {
        const std::uint64_t c = off / config::kCheckpointChunk;
        if (c != held) {
          const std::uint64_t first = c * config::kCheckpointChunk;
          chunk.resize(static_cast<std::size_t>(
              std::min(config::kCheckpointChunk, cp.pending.end - cp.pending.from - first)));
          if (!read_all(f.fd, chunk.data(), chunk.size(), cp.pending_at + first)) throw StoreError("truncated");
          if (crc_of(chunk.data(), chunk.size()) != cp.pending_crcs[static_cast<std::size_t>(c)])
            throw StoreError("the slices it keeps fail their CRCs");
          held = c;
        }
        const std::uint64_t in = off - c * config::kCheckpointChunk;
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(len, chunk.size() - in));
        std::memcpy(out, chunk.data() + in, n);
        out += n, len -= n, off += n;
      }
    });
    return true;
  } catch (const std::exception& e) {
    failure = e.what();
  }
  store.begin_level(cp.pending.n);  // drops what was written back
  drop_checkpoint(failure);
  return false;
}

bool Sieve::Impl::restore_checkpoint_window() {
  const detail::Checkpoint& cp = *checkpoint;
  const std::string& path = options.checkpoint;
  const auto fail = [&](const std::string& why) {
    checkpoint_report = "ignored the window's checkpoint " + path + " (" + why + "); the window is marked again";
    close_window();
    checkpoint.reset();
    remove_checkpoint();
    return false;
  };
  // Every word of the window is read back, so none is cleared or set first
  // (at 149..151 that takes minutes).
  open_window(cp.parts, false);
  {
    const detail::PhaseTimer timer(phases.checkpoints);
    const std::uint64_t bytes = window_bits / 8;
    auto* bits = reinterpret_cast<std::uint8_t*>(bitmap());
    Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (f.fd < 0) return fail("cannot read it: " + errno_text(errno));
    for (std::uint64_t at = 0; at < bytes; at += config::kCheckpointChunk) {
      const std::uint64_t len = std::min(config::kCheckpointChunk, bytes - at);
      if (!read_all(f.fd, bits + at, static_cast<std::size_t>(len), cp.bitmap_at + at)) return fail("truncated");
      ::posix_fadvise(f.fd, static_cast<off_t>(cp.bitmap_at + at), static_cast<off_t>(len), POSIX_FADV_DONTNEED);
    }
    if (chunk_crcs(bits, bytes) != cp.chunk_crcs) return fail("its bitmap fails its CRCs");
  }
  for (std::size_t i = 0; i < window.size(); ++i) window[i].marks = cp.parts[i].marks;
  return true;
}

std::optional<CheckpointInfo> peek_checkpoint(const std::string& path) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  struct stat st {};
  if (f.fd < 0 || ::fstat(f.fd, &st) != 0) return std::nullopt;
  Header h;
  if (!parse_header(f.fd, static_cast<std::uint64_t>(st.st_size), h).empty()) return std::nullopt;
  CheckpointInfo info;
  info.run_id = h.run_id;
  info.level = static_cast<int>(h.done);
  // Version 2 saves how its items are cut, whatever the thread count.
  info.threads = h.version == 1 ? static_cast<int>(h.threads) : 0;
  info.bitmap_bytes = h.bytes;
  return info;
}

bool Sieve::Impl::checkpoint_items_match() const {
  const detail::PassProgress& pass = checkpoint->pass;
  if (pass.signature == 0) return true;  // version 1 kept none
  const auto [items, signature] = items_signature(pass.from, pass.to, pass.lo, pass.pieces);
  return items == pass.items && signature == pass.signature;
}

std::string Sieve::checkpoint_report() const { return impl_->checkpoint_report; }

double Sieve::resumed_seconds() const { return impl_->checkpoint ? impl_->checkpoint->pass.seconds : 0.0; }

bool Sieve::resumed_first_pass() const {
  // A window's first pass marks from levels 1..lo-1, a later level's from
  // lo-1 alone (sieve.cpp): the two are told apart from level 3 on.
  return impl_->checkpoint && impl_->checkpoint->pass.from == 1 && impl_->checkpoint->pass.lo > 2;
}

}  // namespace chomp
