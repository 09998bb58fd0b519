/// @file losing_store.cpp
/// @brief The on-disk store of losing ranks: blocks coded in parallel and
/// appended, trailers with each level's index, reads checked by CRC-32.

#include "chomp/losing_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>

#include "config.hpp"
#include "gap_code.hpp"

namespace chomp {

static_assert(std::endian::native == std::endian::little, "the store file is written as the machine holds it");

namespace {

using detail::GapCode;

constexpr char kFileMagic[8] = {'C', 'H', 'O', 'M', 'P', 'S', 'T', 'O'};
constexpr char kLevelMagic[8] = {'C', 'H', 'O', 'M', 'P', 'L', 'V', 'L'};
constexpr std::uint32_t kVersion = 2;  // 2: blocks of four streams
constexpr std::uint64_t kHeaderBytes = 64;
constexpr std::size_t kIdChars = 32;
/// Trailer bytes before the block index, and per block.
constexpr std::size_t kTrailerFixed = 8 + 8 + 24 + 8 + 2 * GapCode::kSymbols;
constexpr std::size_t kTrailerPerBlock = 40;
constexpr std::size_t kTrailerEnd = 8;  // CRC-32 and padding
/// Serial numbers of the process's stores (BlockCache keys).
std::atomic<std::uint64_t> g_store_serials{0};

/// Blocks coded in parallel from this many on.
constexpr std::size_t kParallelBlocks = 4;

std::uint32_t crc_of(const std::uint8_t* data, std::size_t bytes) {
  return static_cast<std::uint32_t>(crc32_z(crc32_z(0, nullptr, 0), data, bytes));
}

std::string errno_text(int e) { return std::system_category().message(e); }

bool is_full(int e) { return e == ENOSPC || e == EDQUOT || e == EFBIG; }

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
  GapCode code;  // of its gaps
  // The code fitted to its gaps, for the level above (its decode table is
  // made only when that level begins).
  int next_k = 0;
  std::array<std::uint8_t, GapCode::kSymbols> next_lengths{};
  GapCode next_code() const { return GapCode(next_k, next_lengths); }
  void set_next_code(const GapCode& c) { next_k = c.low_bits(), next_lengths = c.lengths(); }
};

}  // namespace

std::uint64_t rank_digest(std::uint64_t rank) {
  // splitmix64's finaliser: every input bit moves every output bit.
  std::uint64_t z = rank + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string new_run_id() {
  std::random_device rd;
  static const char* hex = "0123456789abcdef";
  std::string id;
  while (id.size() < kIdChars) {
    std::uint32_t v = rd();
    for (int i = 0; i < 8; ++i, v >>= 4) id += hex[v & 15];
  }
  return id;
}

std::string store_path_for(const std::string& result_path) {
  const std::string suffix = ".h5";
  if (result_path.size() > suffix.size() && result_path.compare(result_path.size() - suffix.size(), suffix.size(), suffix) == 0)
    return result_path.substr(0, result_path.size() - suffix.size()) + ".store";
  return result_path + ".store";
}

struct LosingStore::Impl {
  std::uint64_t serial = 0;  // this store among the process's (BlockCache)
  std::string path, run_id;
  int fd = -1;
  bool writable = false;
  std::vector<LevelIndex> levels;  // levels[n - 1]
  std::uint64_t end = kHeaderBytes;  // where the next bytes go
  // The level being written (0: none).
  int writing = 0;
  LevelIndex pending;
  std::vector<std::uint64_t> carry;  // ranks of the current run not yet in a block
  bool run_started = false;
  std::uint64_t run_last = 0;
  GapCode::Histogram histogram;

  ~Impl() {
    if (fd >= 0) close(fd);
  }

  std::string where() const { return "store " + path; }

  /// End of the last finished level's trailer.
  std::uint64_t finished_end() const {
    return levels.empty() ? kHeaderBytes : levels.back().trailer + levels.back().trailer_bytes;
  }

  void write_all(const std::uint8_t* data, std::size_t bytes, std::uint64_t at) {
    while (bytes > 0) {
      const ssize_t w = pwrite(fd, data, bytes, static_cast<off_t>(at));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        const int e = w < 0 ? errno : ENOSPC;
        if (is_full(e)) throw StoreFull("cannot write " + where() + ": " + errno_text(e));
        throw StoreError("cannot write " + where() + ": " + errno_text(e));
      }
      data += w, bytes -= static_cast<std::size_t>(w), at += static_cast<std::uint64_t>(w);
    }
  }

  void read_all(std::uint8_t* data, std::size_t bytes, std::uint64_t at) const {
    while (bytes > 0) {
      const ssize_t r = pread(fd, data, bytes, static_cast<off_t>(at));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw StoreError("cannot read " + where() + ": " + errno_text(errno));
      if (r == 0) throw StoreError(where() + " ends early at byte " + std::to_string(at) + " (truncated file)");
      data += r, bytes -= static_cast<std::size_t>(r), at += static_cast<std::uint64_t>(r);
    }
  }

  void write_header() {
    Bytes h;
    h.put_bytes(kFileMagic, sizeof kFileMagic);
    h.put<std::uint32_t>(kVersion);
    h.put<std::uint32_t>(static_cast<std::uint32_t>(kHeaderBytes));
    h.put_bytes(run_id.data(), kIdChars);
    h.put<std::uint64_t>(0);
    h.put<std::uint32_t>(crc_of(h.data.data(), h.data.size()));
    h.put<std::uint32_t>(0);
    write_all(h.data.data(), h.data.size(), 0);
  }

  void check_header() const {
    std::uint8_t h[kHeaderBytes];
    try {
      read_all(h, sizeof h, 0);
    } catch (const StoreError&) {
      throw StoreError(where() + " is not a chomp store (too short for its header)");
    }
    if (std::memcmp(h, kFileMagic, sizeof kFileMagic) != 0)
      throw StoreError(where() + " is not a chomp store (no CHOMPSTO header)");
    Reader r(h + 8, sizeof h - 8);
    const auto version = r.get<std::uint32_t>();
    r.get<std::uint32_t>();
    const std::string id(reinterpret_cast<const char*>(r.here()), kIdChars);
    std::uint32_t crc;
    std::memcpy(&crc, h + 56, sizeof crc);
    if (crc != crc_of(h, 56)) throw StoreError(where() + ": its header fails its checksum (damaged file)");
    if (version != kVersion)
      throw StoreError(where() + " has store format " + std::to_string(version) + "; this program reads format " +
                       std::to_string(kVersion));
    if (id != run_id)
      throw StoreError(where() + " belongs to another run (its id is " + id + ", the result file's " + run_id +
                       "); give the store that was written with the result file");
  }

  /// The trailer of a level as bytes.
  std::vector<std::uint8_t> trailer_of(int n, const LevelIndex& l) const {
    Bytes t;
    t.put_bytes(kLevelMagic, sizeof kLevelMagic);
    t.put<std::uint32_t>(kVersion);
    t.put<std::uint32_t>(static_cast<std::uint32_t>(n));
    t.put<std::uint64_t>(l.count);
    t.put<std::uint64_t>(l.digest);
    t.put<std::uint64_t>(l.blocks.size());
    t.put<std::uint8_t>(static_cast<std::uint8_t>(l.code.low_bits()));
    t.put<std::uint8_t>(static_cast<std::uint8_t>(l.next_k));
    for (int i = 0; i < 6; ++i) t.put<std::uint8_t>(0);
    t.put_bytes(l.code.lengths().data(), GapCode::kSymbols);
    t.put_bytes(l.next_lengths.data(), GapCode::kSymbols);
    for (const StoreBlock& b : l.blocks) {
      t.put(b.first_rank);
      t.put(b.last_rank);
      t.put(b.offset);
      t.put(b.count);
      t.put(b.bytes);
      t.put(b.crc);
      t.put<std::uint32_t>(0);
    }
    t.put<std::uint32_t>(crc_of(t.data.data(), t.data.size()));
    t.put<std::uint32_t>(0);
    return std::move(t.data);
  }

  /// Reads and checks level n's trailer at `at`, which must end by `limit`.
  LevelIndex read_trailer(int n, std::uint64_t at, std::uint64_t limit) const {
    const std::string level = where() + ": level " + std::to_string(n) + "'s trailer at byte " + std::to_string(at);
    if (at < kHeaderBytes || at + kTrailerFixed + kTrailerEnd > limit)
      throw StoreError(level + " lies outside the file (truncated or damaged file)");
    std::vector<std::uint8_t> t(kTrailerFixed);
    read_all(t.data(), t.size(), at);
    if (std::memcmp(t.data(), kLevelMagic, sizeof kLevelMagic) != 0)
      throw StoreError(level + " is not a level trailer (damaged file, or not this run's store)");
    Reader r(t.data() + 8, t.size() - 8);
    const auto version = r.get<std::uint32_t>();
    const auto tiles = r.get<std::uint32_t>();
    LevelIndex l;
    l.count = r.get<std::uint64_t>();
    l.digest = r.get<std::uint64_t>();
    const auto blocks = r.get<std::uint64_t>();
    if (version != kVersion || tiles != static_cast<std::uint32_t>(n))
      throw StoreError(level + " is for level " + std::to_string(tiles) + " (damaged file)");
    if (blocks > (limit - at) / kTrailerPerBlock)
      throw StoreError(level + " claims " + std::to_string(blocks) + " blocks, more than the file holds (damaged file)");
    l.trailer = at;
    l.trailer_bytes = kTrailerFixed + blocks * kTrailerPerBlock + kTrailerEnd;
    if (at + l.trailer_bytes > limit)
      throw StoreError(level + " runs past the end of the file (truncated file)");
    t.resize(static_cast<std::size_t>(l.trailer_bytes));
    read_all(t.data() + kTrailerFixed, t.size() - kTrailerFixed, at + kTrailerFixed);
    std::uint32_t crc;
    std::memcpy(&crc, t.data() + t.size() - kTrailerEnd, sizeof crc);
    if (crc != crc_of(t.data(), t.size() - kTrailerEnd))
      throw StoreError(level + " fails its checksum (damaged file)");
    Reader c(t.data() + 40, t.size() - 40);
    const int k = c.get<std::uint8_t>(), next_k = c.get<std::uint8_t>();
    c.skip(6);
    std::array<std::uint8_t, GapCode::kSymbols> lengths, next_lengths;
    std::memcpy(lengths.data(), c.here(), lengths.size());
    c.skip(lengths.size());
    std::memcpy(next_lengths.data(), c.here(), next_lengths.size());
    c.skip(next_lengths.size());
    try {
      l.code = GapCode(k, lengths);
      l.set_next_code(GapCode(next_k, next_lengths));
    } catch (const std::invalid_argument& e) {
      throw StoreError(level + " holds an impossible gap code (damaged file)");
    }
    std::uint64_t count = 0;
    l.blocks.resize(static_cast<std::size_t>(blocks));
    for (StoreBlock& b : l.blocks) {
      b.first_rank = c.get<std::uint64_t>();
      b.last_rank = c.get<std::uint64_t>();
      b.offset = c.get<std::uint64_t>();
      b.count = c.get<std::uint32_t>();
      b.bytes = c.get<std::uint32_t>();
      b.crc = c.get<std::uint32_t>();
      c.get<std::uint32_t>();
      const bool sane = b.count >= 1 && b.count <= config::kStoreBlockRanks && b.first_rank <= b.last_rank &&
                        b.last_rank - b.first_rank >= b.count - 1 && b.offset >= kHeaderBytes &&
                        b.offset + b.bytes <= at && b.bytes % 8 == 0;
      if (!sane || (&b != l.blocks.data() && (&b)[-1].last_rank >= b.first_rank))
        throw StoreError(level + " holds an impossible block index (damaged file)");
      count += b.count;
    }
    if (count != l.count) throw StoreError(level + "'s blocks do not add up to its count (damaged file)");
    return l;
  }

  /// No level begun: the next level's blocks are none, with its code.
  void reset_pending() {
    writing = 0;
    pending = LevelIndex{};
    pending.code = levels.empty() ? GapCode() : levels.back().next_code();
    carry.clear();
    run_started = false;
  }

  const LevelIndex& level(int n) const {
    if (n >= 1 && n <= static_cast<int>(levels.size())) return levels[static_cast<std::size_t>(n - 1)];
    if (n == static_cast<int>(levels.size()) + 1) return pending;
    throw std::invalid_argument(where() + " holds no level " + std::to_string(n));
  }

  /// Codes ranks (whole blocks, the last possibly short) and appends them.
  void write_blocks(std::span<const std::uint64_t> ranks) {
    constexpr std::size_t B = config::kStoreBlockRanks;
    const std::size_t blocks = (ranks.size() + B - 1) / B;
    std::vector<std::vector<std::uint8_t>> coded(blocks);
    std::vector<std::uint64_t> digests(blocks);
    tbb::combinable<GapCode::Histogram> histograms([] { return GapCode::Histogram(GapCode::kHistogramBins, 0); });
    const auto code = [&](std::size_t b) {
      const auto piece = ranks.subspan(b * B, std::min(B, ranks.size() - b * B));
      pending.code.code_block(piece, coded[b], &histograms.local());
      std::uint64_t d = 0;
      for (const std::uint64_t r : piece) d += rank_digest(r);
      digests[b] = d;
    };
    if (blocks >= kParallelBlocks) {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t b = r.begin(); b != r.end(); ++b) code(b);
      });
    } else {
      for (std::size_t b = 0; b < blocks; ++b) code(b);
    }
    histograms.combine_each([&](const GapCode::Histogram& h) {
      for (std::size_t i = 0; i < h.size(); ++i) histogram[i] += h[i];
    });
    std::size_t total = 0;
    for (const auto& c : coded) total += c.size();
    std::vector<std::uint8_t> out(total);
    std::size_t at = 0;
    std::vector<StoreBlock> index(blocks);
    for (std::size_t b = 0; b < blocks; ++b) {
      const auto piece = ranks.subspan(b * B, std::min(B, ranks.size() - b * B));
      std::memcpy(out.data() + at, coded[b].data(), coded[b].size());
      index[b] = StoreBlock{piece.front(), piece.back(), end + at, static_cast<std::uint32_t>(piece.size()),
                            static_cast<std::uint32_t>(coded[b].size()), crc_of(coded[b].data(), coded[b].size())};
      at += coded[b].size();
    }
    write_all(out.data(), out.size(), end);
    end += out.size();
    pending.blocks.insert(pending.blocks.end(), index.begin(), index.end());
    for (const std::uint64_t d : digests) pending.digest += d;
    pending.count += ranks.size();
  }
};

LosingStore::LosingStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
  impl_->serial = ++g_store_serials;
}
LosingStore::~LosingStore() = default;

std::unique_ptr<LosingStore> LosingStore::create(const std::string& path, const std::string& run_id) {
  if (run_id.size() != kIdChars) throw std::invalid_argument("a run id has 32 characters");
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->run_id = run_id;
  impl->writable = true;
  impl->fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (impl->fd < 0) {
    const int e = errno;
    throw StoreError("cannot create store " + path + ": " + errno_text(e));
  }
  impl->write_header();
  return std::unique_ptr<LosingStore>(new LosingStore(std::move(impl)));
}

std::unique_ptr<LosingStore> LosingStore::temporary() {
  std::string name = (std::filesystem::temp_directory_path() / "chomp-store-XXXXXX").string();
  const int fd = mkstemp(name.data());
  if (fd < 0) {
    const int e = errno;
    throw StoreError("cannot create a temporary store in " + std::filesystem::temp_directory_path().string() + ": " +
                     errno_text(e));
  }
  unlink(name.c_str());
  auto impl = std::make_unique<Impl>();
  impl->path = name + " (temporary)";
  impl->run_id = new_run_id();
  impl->writable = true;
  impl->fd = fd;
  impl->write_header();
  return std::unique_ptr<LosingStore>(new LosingStore(std::move(impl)));
}

std::unique_ptr<LosingStore> LosingStore::open(const std::string& path, const std::string& run_id,
                                               std::span<const StoredLevel> levels, bool append) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->run_id = run_id;
  impl->writable = append;
  // O_NONBLOCK: a FIFO given as the store must not block the open.
  impl->fd = ::open(path.c_str(), (append ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NONBLOCK);
  if (impl->fd < 0) {
    const int e = errno;
    if (e == ENOENT)
      throw StoreError("store " + path + " is missing: the result file's losing positions are kept there; "
                       "give it back (move it beside the result file), or start over with --force");
    throw StoreError("cannot open store " + path + ": " + errno_text(e));
  }
  struct stat st {};
  if (fstat(impl->fd, &st) != 0 || !S_ISREG(st.st_mode)) throw StoreError("store " + path + " is not a regular file");
  fcntl(impl->fd, F_SETFL, fcntl(impl->fd, F_GETFL) & ~O_NONBLOCK);
  impl->check_header();
  const auto size = static_cast<std::uint64_t>(st.st_size);
  std::uint64_t limit = size;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const int n = static_cast<int>(i) + 1;
    LevelIndex l = impl->read_trailer(n, levels[i].trailer, limit);
    if (l.count != levels[i].count || l.digest != levels[i].digest)
      throw StoreError(impl->where() + ": level " + std::to_string(n) + " holds " + std::to_string(l.count) +
                       " losing positions with digest " + std::to_string(l.digest) + ", the result file says " +
                       std::to_string(levels[i].count) + " with digest " + std::to_string(levels[i].digest) +
                       " (damaged or mismatched store)");
    if (!impl->levels.empty() && l.blocks.size() && l.blocks.front().offset < impl->finished_end())
      throw StoreError(impl->where() + ": level " + std::to_string(n) + " overlaps the level below (damaged file)");
    impl->levels.push_back(std::move(l));
  }
  impl->end = impl->finished_end();
  impl->reset_pending();
  if (append && size > impl->end && ftruncate(impl->fd, static_cast<off_t>(impl->end)) != 0) {
    const int e = errno;
    throw StoreError("cannot cut off the unfinished level at the end of " + impl->where() + ": " + errno_text(e));
  }
  return std::unique_ptr<LosingStore>(new LosingStore(std::move(impl)));
}

const std::string& LosingStore::path() const { return impl_->path; }
const std::string& LosingStore::run_id() const { return impl_->run_id; }
int LosingStore::levels() const { return static_cast<int>(impl_->levels.size()); }
std::uint64_t LosingStore::count(int n) const { return impl_->level(n).count; }
std::uint64_t LosingStore::digest(int n) const { return impl_->level(n).digest; }

StoredLevel LosingStore::record(int n) const {
  const LevelIndex& l = impl_->level(n);
  return StoredLevel{l.trailer, l.count, l.digest};
}

std::span<const StoreBlock> LosingStore::blocks(int n) const { return impl_->level(n).blocks; }

std::size_t LosingStore::first_block_from(int n, std::uint64_t rank) const {
  const auto& b = impl_->level(n).blocks;
  return static_cast<std::size_t>(
      std::partition_point(b.begin(), b.end(), [rank](const StoreBlock& x) { return x.last_rank < rank; }) - b.begin());
}

std::uint64_t LosingStore::file_bytes() const { return impl_->end; }

std::uint64_t LosingStore::memory_bytes() const {
  std::uint64_t bytes = 0;
  for (const LevelIndex& l : impl_->levels) bytes += l.blocks.capacity() * sizeof(StoreBlock) + sizeof l;
  return bytes + impl_->pending.blocks.capacity() * sizeof(StoreBlock) +
         impl_->histogram.capacity() * sizeof(std::uint64_t);
}

void LosingStore::read_block(int n, std::size_t b, std::vector<std::uint64_t>& out,
                             std::vector<std::uint8_t>& scratch) const {
  BlockCursor cur;
  cur.bytes.swap(scratch);  // the caller's buffer, kept
  read_part(n, b, 0, impl_->level(n).blocks[b].count, cur, out);
  cur.bytes.swap(scratch);
}

void LosingStore::read_part(int n, std::size_t b, std::size_t from, std::size_t count, BlockCursor& cur,
                            std::vector<std::uint64_t>& out) const {
  const LevelIndex& l = impl_->level(n);
  const StoreBlock& blk = l.blocks[b];
  const auto where = [&] {
    return impl_->where() + ": level " + std::to_string(n) + ", block " + std::to_string(b) + " (ranks " +
           std::to_string(blk.first_rank) + ".." + std::to_string(blk.last_rank) + ")";
  };
  if (cur.store != impl_->serial || cur.n != n || cur.b != b) {
    cur.store = 0;
    cur.bytes.assign(blk.bytes + GapCode::kPadding, 0);  // the decoder reads past the bytes
    impl_->read_all(cur.bytes.data(), blk.bytes, blk.offset);
    if (crc_of(cur.bytes.data(), blk.bytes) != blk.crc) throw StoreError(where() + " fails its checksum (damaged file)");
    cur.store = impl_->serial, cur.n = n, cur.b = b;
    cur.index = 0;
  }
  count = from < blk.count ? std::min<std::size_t>(count, blk.count - from) : 0;
  out.resize(count);
  if (count == 0) return;  // an empty part of a short block
  GapCode::Cursor c;
  c.index = cur.index, c.rank = cur.rank;
  std::copy(std::begin(cur.pos), std::end(cur.pos), std::begin(c.pos));
  const bool ok = l.code.decode_part(std::span(cur.bytes).first(blk.bytes), blk.first_rank, blk.count, c, from,
                                     count, out.data());
  cur.index = c.index, cur.rank = c.rank;
  std::copy(std::begin(c.pos), std::end(c.pos), std::begin(cur.pos));
  if (!ok || (c.index == blk.count && (c.rank != blk.last_rank || !c.ended))) {
    cur.store = 0;
    throw StoreError(where() + " does not decode to its ranks (damaged file)");
  }
}

void LosingStore::read_ahead(int n, std::size_t b0, std::size_t b1) const {
  const auto& blocks = impl_->level(n).blocks;
  b1 = std::min(b1, blocks.size());
  if (b0 >= b1) return;
  std::uint64_t lo = blocks[b0].offset, hi = lo;
  for (std::size_t b = b0; b < b1; ++b)
    lo = std::min(lo, blocks[b].offset), hi = std::max(hi, blocks[b].offset + blocks[b].bytes);
  posix_fadvise(impl_->fd, static_cast<off_t>(lo), static_cast<off_t>(hi - lo), POSIX_FADV_WILLNEED);
}

namespace {

/// Each thread's last decoded blocks of finished levels, for lookups
/// (contains): checking the rule move by move looks up a few dozen
/// positions per position checked, mostly in small levels, whose few blocks
/// stay here. Direct-mapped; a store's serial tells its blocks apart from
/// another store's.
struct BlockCache {
  static constexpr std::size_t kBlocks = 256;
  struct Entry {
    std::uint64_t store = 0;  // 0: empty
    int n = 0;
    std::size_t b = 0;
    std::vector<std::uint64_t> ranks;
  };
  std::array<Entry, kBlocks> entries;
  std::vector<std::uint8_t> scratch;
};
thread_local BlockCache t_cache;

}  // namespace

bool LosingStore::contains(int n, std::uint64_t rank) const {
  const std::size_t b = first_block_from(n, rank);
  const auto blocks = this->blocks(n);
  if (b >= blocks.size() || blocks[b].first_rank > rank) return false;
  if (blocks[b].first_rank == rank || blocks[b].last_rank == rank) return true;
  if (n > levels()) {  // the level being written: not cached
    std::vector<std::uint64_t> ranks;
    std::vector<std::uint8_t> scratch;
    read_block(n, b, ranks, scratch);
    return std::binary_search(ranks.begin(), ranks.end(), rank);
  }
  BlockCache::Entry& e = t_cache.entries[(static_cast<std::size_t>(n) * 0x9E3779B9u + b) % BlockCache::kBlocks];
  if (e.store != impl_->serial || e.n != n || e.b != b) {
    e.store = 0;
    read_block(n, b, e.ranks, t_cache.scratch);
    e.store = impl_->serial, e.n = n, e.b = b;
  }
  return std::binary_search(e.ranks.begin(), e.ranks.end(), rank);
}

std::vector<std::uint64_t> LosingStore::all(int n) const {
  std::vector<std::uint64_t> out, ranks;
  std::vector<std::uint8_t> scratch;
  out.reserve(static_cast<std::size_t>(count(n)));
  for (std::size_t b = 0; b < blocks(n).size(); ++b) {
    read_block(n, b, ranks, scratch);
    out.insert(out.end(), ranks.begin(), ranks.end());
  }
  return out;
}

void LosingStore::check_level(int n, std::uint64_t limit) const {
  const LevelIndex& l = impl_->levels.at(static_cast<std::size_t>(n - 1));
  struct Sum {
    std::uint64_t count = 0, digest = 0;
    bool increasing = true;
  };
  const Sum sum = tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, l.blocks.size(), 16), Sum{},
      [&](const tbb::blocked_range<std::size_t>& r, Sum s) {
        std::vector<std::uint64_t> ranks;
        std::vector<std::uint8_t> scratch;
        for (std::size_t b = r.begin(); b != r.end(); ++b) {
          read_block(n, b, ranks, scratch);
          for (std::size_t i = 0; i < ranks.size(); ++i) {
            s.digest += rank_digest(ranks[i]);
            if (ranks[i] >= limit || (i > 0 && ranks[i] <= ranks[i - 1])) s.increasing = false;
          }
          s.count += ranks.size();
        }
        return s;
      },
      [](Sum a, const Sum& b) {
        a.count += b.count, a.digest += b.digest, a.increasing = a.increasing && b.increasing;
        return a;
      });
  const std::string level = impl_->where() + ": level " + std::to_string(n) + " ";
  if (!sum.increasing)
    throw StoreError(level + "holds ranks that do not increase or reach past p(" + std::to_string(n) + ") (damaged file)");
  if (sum.count != l.count || sum.digest != l.digest)
    throw StoreError(level + "does not hold the losing positions its digest names (damaged file)");
}

void LosingStore::begin_level(int n) {
  Impl& s = *impl_;
  if (!s.writable) throw std::logic_error(s.where() + " is open for reading only");
  if (n != levels() + 1) throw std::logic_error(s.where() + ": level " + std::to_string(n) + " cannot follow " + std::to_string(levels()));
  if (s.writing) abandon_level();
  s.reset_pending();
  s.writing = n;
  s.histogram.assign(GapCode::kHistogramBins, 0);
}

void LosingStore::append(std::span<const std::uint64_t> ranks) {
  Impl& s = *impl_;
  if (!s.writing) throw std::logic_error(s.where() + ": append before begin_level");
  if (ranks.empty()) return;
  std::uint64_t last = s.run_last;
  bool started = s.run_started;
  for (const std::uint64_t r : ranks) {
    if (started && r <= last)
      throw std::logic_error(s.where() + ": level " + std::to_string(s.writing) + "'s ranks must increase");
    last = r, started = true;
  }
  s.run_started = true;
  s.run_last = last;
  constexpr std::size_t B = config::kStoreBlockRanks;
  std::size_t i = 0;
  if (!s.carry.empty()) {
    i = std::min(B - s.carry.size(), ranks.size());
    s.carry.insert(s.carry.end(), ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(i));
    if (s.carry.size() < B) return;
    s.write_blocks(s.carry);
    s.carry.clear();
  }
  const std::size_t whole = (ranks.size() - i) / B * B;
  if (whole) s.write_blocks(ranks.subspan(i, whole));
  s.carry.assign(ranks.begin() + static_cast<std::ptrdiff_t>(i + whole), ranks.end());
}

void LosingStore::end_run() {
  Impl& s = *impl_;
  if (!s.carry.empty()) s.write_blocks(s.carry);
  s.carry.clear();
  s.run_started = false;
}

StoredLevel LosingStore::finish_level() {
  Impl& s = *impl_;
  if (!s.writing) throw std::logic_error(s.where() + ": finish_level before begin_level");
  end_run();
  auto& blocks = s.pending.blocks;
  std::sort(blocks.begin(), blocks.end(), [](const StoreBlock& a, const StoreBlock& b) { return a.first_rank < b.first_rank; });
  for (std::size_t b = 1; b < blocks.size(); ++b)
    if (blocks[b - 1].last_rank >= blocks[b].first_rank)
      throw std::logic_error(s.where() + ": level " + std::to_string(s.writing) + "'s runs overlap");
  blocks.shrink_to_fit();
  s.pending.set_next_code(GapCode::fitted(s.histogram));
  s.pending.trailer = s.end;
  const std::vector<std::uint8_t> trailer = s.trailer_of(s.writing, s.pending);
  s.pending.trailer_bytes = trailer.size();
  s.write_all(trailer.data(), trailer.size(), s.end);
  s.end += trailer.size();
  if (fdatasync(s.fd) != 0) {
    const int e = errno;
    if (is_full(e)) throw StoreFull("cannot write " + s.where() + ": " + errno_text(e));
    throw StoreError("cannot make " + s.where() + " durable: " + errno_text(e));
  }
  s.levels.push_back(std::move(s.pending));
  s.reset_pending();
  s.histogram = GapCode::Histogram();
  return record(levels());
}

void LosingStore::abandon_level() {
  Impl& s = *impl_;
  s.reset_pending();
  s.end = s.finished_end();
  if (s.fd >= 0 && s.writable && ftruncate(s.fd, static_cast<off_t>(s.end)) != 0) {
    // The bytes stay until the run resumes, which cuts them off.
  }
}

void LosingStore::adopt_level(const StoredLevel& level) {
  Impl& s = *impl_;
  const int n = levels() + 1;
  struct stat st {};
  if (fstat(s.fd, &st) != 0) throw StoreError("cannot read " + s.where() + ": " + errno_text(errno));
  LevelIndex l = s.read_trailer(n, level.trailer, static_cast<std::uint64_t>(st.st_size));
  if (l.count != level.count || l.digest != level.digest)
    throw StoreError(s.where() + ": level " + std::to_string(n) + " is not the one the leader wrote");
  s.levels.push_back(std::move(l));
  s.end = s.finished_end();
  s.reset_pending();
}

void LosingStore::adopt_pending(int n, std::span<const StoreBlock> blocks) {
  Impl& s = *impl_;
  if (n != levels() + 1) throw std::logic_error(s.where() + ": pending blocks of level " + std::to_string(n));
  s.reset_pending();
  s.pending.blocks.assign(blocks.begin(), blocks.end());
}

}  // namespace chomp
