/// @file store_impl.hpp
/// @brief The store's state and file layout, shared by its parts: opening
/// and writing (losing_store.cpp), the header and trailers
/// (store_format.cpp) and the checked reads (store_reads.cpp). Internal:
/// not part of the library's interface.
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "chomp/losing_store.hpp"
#include "config.hpp"
#include "gap_code.hpp"

namespace chomp {

/// The store file's layout and helpers (doc/FILE_FORMAT.md).
namespace store_file {

inline constexpr char kFileMagic[8] = {'C', 'H', 'O', 'M', 'P', 'S', 'T', 'O'};
inline constexpr char kLevelMagic[8] = {'C', 'H', 'O', 'M', 'P', 'L', 'V', 'L'};
inline constexpr std::uint32_t kVersion = 2;  // 2: blocks of four streams
inline constexpr std::uint64_t kHeaderBytes = 64;
inline constexpr std::size_t kIdChars = 32;
/// Trailer bytes before the block index, and per block.
inline constexpr std::size_t kTrailerFixed = 8 + 8 + 24 + 8 + 2 * detail::GapCode::kSymbols;
inline constexpr std::size_t kTrailerPerBlock = 40;
inline constexpr std::size_t kTrailerEnd = 8;  // CRC-32 and padding

/// Bytes the memory plans (memory_plan.cpp, plan3d.cpp) count for a level
/// of `losing` ranks among `positions`: about log2 of the mean gap plus 1.1
/// bits a rank (measured: 7.21 bits at n = 110, mean gap 71.8; in 3D 0.70
/// bytes a position to n = 30, mean gap 16-20), 48 bytes a block of
/// config::kStoreBlockRanks (its kTrailerPerBlock entry and 8 to spare),
/// and 400 for the level's header and fixed trailer (kTrailerFixed is 176).
inline double level_bytes_estimate(double losing, double positions) {
  if (losing <= 0) return 0;
  const double bits = std::max(1.0, std::log2(positions / losing) + 1.1);
  return losing * bits / 8 + std::ceil(losing / static_cast<double>(config::kStoreBlockRanks)) * 48 + 400;
}

inline std::uint32_t crc_of(const std::uint8_t* data, std::size_t bytes) {
  return static_cast<std::uint32_t>(crc32_z(crc32_z(0, nullptr, 0), data, bytes));
}

inline std::string errno_text(int e) { return std::system_category().message(e); }

inline bool is_full(int e) { return e == ENOSPC || e == EDQUOT || e == EFBIG; }

/// Little-endian fields into and out of a byte buffer.
class Bytes {
 public:
  std::vector<std::uint8_t> data;
  template <class T>
  void put(T v) {
    const auto at = data.size();
    data.resize(at + sizeof v);
    std::memcpy(data.data() + at, &v, sizeof v);
  }
  void put_bytes(const void* p, std::size_t n) {
    const auto at = data.size();
    data.resize(at + n);
    std::memcpy(data.data() + at, p, n);
  }
};

class Reader {
 public:
  Reader(const std::uint8_t* p, std::size_t n) : p_(p), n_(n) {}
  template <class T>
  T get() {
    T v{};
    if (at_ + sizeof v <= n_) std::memcpy(&v, p_ + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  const std::uint8_t* here() const { return p_ + at_; }
  void skip(std::size_t n) { at_ += n; }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
  std::size_t at_ = 0;
};

/// A finished level in memory: its index and codes.
struct LevelIndex {
  std::vector<StoreBlock> blocks;
  std::uint64_t count = 0, digest = 0, trailer = 0, trailer_bytes = 0;
  detail::GapCode code;  // of its gaps
  // The code fitted to its gaps, for the level above (its decode table is
  // made only when that level begins).
  int next_k = 0;
  std::array<std::uint8_t, detail::GapCode::kSymbols> next_lengths{};
  detail::GapCode next_code() const { return detail::GapCode(next_k, next_lengths); }
  void set_next_code(const detail::GapCode& c) { next_k = c.low_bits(), next_lengths = c.lengths(); }
};

}  // namespace store_file

struct LosingStore::Impl {
  std::uint64_t serial = 0;  // this store among the process's (BlockCache)
  std::string path, run_id;
  int fd = -1;
  bool writable = false;
  std::vector<store_file::LevelIndex> levels;  // levels[n - 1]
  std::uint64_t end = store_file::kHeaderBytes;  // where the next bytes go
  // The level being written (0: none).
  int writing = 0;
  store_file::LevelIndex pending;
  std::vector<std::uint64_t> carry;  // ranks of the current run not yet in a block
  bool run_started = false;
  std::uint64_t run_last = 0;
  detail::GapCode::Histogram histogram;

  ~Impl() {
    if (fd >= 0) close(fd);
  }

  std::string where() const { return "store " + path; }

  /// End of the last finished level's trailer.
  std::uint64_t finished_end() const {
    return levels.empty() ? store_file::kHeaderBytes : levels.back().trailer + levels.back().trailer_bytes;
  }

  void write_all(const std::uint8_t* data, std::size_t bytes, std::uint64_t at) {
    while (bytes > 0) {
      const ssize_t w = pwrite(fd, data, bytes, static_cast<off_t>(at));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        const int e = w < 0 ? errno : ENOSPC;
        if (store_file::is_full(e)) throw StoreFull("cannot write " + where() + ": " + store_file::errno_text(e));
        throw StoreError("cannot write " + where() + ": " + store_file::errno_text(e));
      }
      data += w, bytes -= static_cast<std::size_t>(w), at += static_cast<std::uint64_t>(w);
    }
  }

  void read_all(std::uint8_t* data, std::size_t bytes, std::uint64_t at) const {
    while (bytes > 0) {
      const ssize_t r = pread(fd, data, bytes, static_cast<off_t>(at));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw StoreError("cannot read " + where() + ": " + store_file::errno_text(errno));
      if (r == 0) throw StoreError(where() + " ends early at byte " + std::to_string(at) + " (truncated file)");
      data += r, bytes -= static_cast<std::size_t>(r), at += static_cast<std::uint64_t>(r);
    }
  }

  /// Writes the file header (magic, version, run id, CRC-32).
  void write_header();

  /// Checks the header: a chomp store of this format and this run.
  void check_header() const;

  /// The trailer of a level as bytes.
  std::vector<std::uint8_t> trailer_of(int n, const store_file::LevelIndex& l) const;

  /// Reads and checks level n's trailer at `at`, which must end by `limit`.
  store_file::LevelIndex read_trailer(int n, std::uint64_t at, std::uint64_t limit) const;
  /// Throws StoreError when the bytes from `end` to `size` hold two or
  /// more finished levels after the `levels` the result file names.
  void refuse_finished_levels_beyond(int levels, std::uint64_t size) const;

  /// No level begun: the next level's blocks are none, with its code.
  void reset_pending() {
    writing = 0;
    pending = store_file::LevelIndex{};
    pending.code = levels.empty() ? detail::GapCode() : levels.back().next_code();
    carry.clear();
    run_started = false;
  }

  const store_file::LevelIndex& level(int n) const {
    if (n >= 1 && n <= static_cast<int>(levels.size())) return levels[static_cast<std::size_t>(n - 1)];
    if (n == static_cast<int>(levels.size()) + 1) return pending;
    throw std::invalid_argument(where() + " holds no level " + std::to_string(n));
  }

  /// Codes ranks (whole blocks, the last possibly short) and appends them.
  void write_blocks(std::span<const std::uint64_t> ranks);
};

}  // namespace chomp
