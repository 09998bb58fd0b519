/// @file losing_store.cpp
/// @brief The on-disk store of losing ranks: made, opened (its trailers
/// checked against the result file's rows) and written, blocks coded in
/// parallel and appended. The header and trailers are store_format.cpp's,
/// the checked reads store_reads.cpp's.

#include "chomp/losing_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <system_error>

#include "config.hpp"
#include "gap_code.hpp"
#include "store_impl.hpp"

namespace chomp {

static_assert(std::endian::native == std::endian::little, "the store file is written as the machine holds it");

using namespace store_file;  // the layout's own names
using detail::GapCode;

namespace {

/// Serial numbers of the process's stores (BlockCache keys).
std::atomic<std::uint64_t> g_store_serials{0};

/// Blocks coded in parallel from this many on.
constexpr std::size_t kParallelBlocks = 4;

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

void LosingStore::Impl::write_blocks(std::span<const std::uint64_t> ranks) {
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

LosingStore::LosingStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
  impl_->serial = ++g_store_serials;
}
LosingStore::~LosingStore() = default;

bool LosingStore::holds_no_level(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > store_file::kHeaderBytes) return false;
  if (size == 0) return true;  // created, its header not yet written
  // Only a store's header: another small file of that name (a note, a
  // file of the user's) is not a store a new run may empty.
  char magic[sizeof store_file::kFileMagic] = {};
  std::ifstream in(path, std::ios::binary);
  return in.read(magic, sizeof magic) && std::memcmp(magic, store_file::kFileMagic, sizeof magic) == 0;
}

std::unique_ptr<LosingStore> LosingStore::create(const std::string& path, const std::string& run_id) {
  if (run_id.size() != kIdChars) throw std::invalid_argument("a run id has 32 characters");
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->run_id = run_id;
  impl->writable = true;
  impl->fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (impl->fd < 0) {
    const int e = errno;
    throw StoreError("cannot create store " + path + ": " + errno_text(e) +
                     " (check that its folder exists and this user may write there)");
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

void LosingStore::Impl::refuse_finished_levels_beyond(int levels, std::uint64_t size) const {
  // What follows the levels the result file names is blocks (16 bytes of
  // stream sizes, then the streams) and, where a level was finished, its
  // trailer. One finished level there is a kill between the store's
  // trailer and the result file's row (cut off and marked again, as ever);
  // two or more are a result file older than its store.
  using namespace store_file;
  std::uint64_t at = end;
  int finished = 0;
  for (std::uint64_t hops = 0; at + 16 <= size && hops < (std::uint64_t{1} << 32); ++hops) {
    std::uint8_t head[16];
    read_all(head, sizeof head, at);
    if (std::memcmp(head, kLevelMagic, sizeof kLevelMagic) == 0) {
      std::uint64_t bytes = 0;
      try {
        bytes = read_trailer(levels + finished + 1, at, size).trailer_bytes;
      } catch (const StoreError&) {
        break;  // a trailer cut short: the level was not finished
      }
      ++finished;
      at += bytes;
      continue;
    }
    std::uint64_t block = 16;
    for (int i = 0; i < 4; ++i) {
      std::uint32_t stream;
      std::memcpy(&stream, head + 4 * i, sizeof stream);
      if (stream % 8 != 0) return;  // not a block: what a kill left half written
      block += stream;
    }
    if (block == 16 || block > size - at) break;
    at += block;
  }
  if (finished >= 2)
    throw StoreError(where() + " holds " + std::to_string(finished) + " finished levels (" +
                     std::to_string(levels + 1) + ".." + std::to_string(levels + finished) +
                     ") after the last one the result file names (" + std::to_string(levels) +
                     "): the result file is older than its store (a copy put back?), and a resume would cut "
                     "them off. Put back the result file that names them; or, to give them up, cut the store "
                     "to its levels 1.." + std::to_string(levels) + " (truncate -s " + std::to_string(end) + " " +
                     path + ") and resume");
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
      throw StoreMissing("store " + path + " is missing: the result file's losing positions are kept there; "
                         "give it back (move it beside the result file), or start the run over");
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
  if (append && size > impl->end) impl->refuse_finished_levels_beyond(static_cast<int>(levels.size()), size);
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

PendingLevel LosingStore::pending_level() const {
  const Impl& s = *impl_;
  if (!s.writing || !s.carry.empty()) throw std::logic_error(s.where() + ": no level between two runs");
  PendingLevel p;
  p.n = s.writing;
  p.blocks = s.pending.blocks;
  p.count = s.pending.count;
  p.digest = s.pending.digest;
  p.histogram = s.histogram;
  p.from = s.finished_end();
  p.end = s.end;
  return p;
}

void LosingStore::read_raw(std::uint64_t at, std::size_t bytes, std::uint8_t* out) const {
  impl_->read_all(out, bytes, at);
}

void LosingStore::adopt_pending_level(
    const PendingLevel& p, const std::function<void(std::uint64_t at, std::size_t bytes, std::uint8_t* out)>& fill) {
  Impl& s = *impl_;
  if (s.writing != p.n || s.pending.count != 0 || !s.pending.blocks.empty())
    throw std::logic_error(s.where() + ": adopt_pending_level right after begin_level");
  if (p.from != s.finished_end() || p.end < p.from || p.histogram.size() != GapCode::kHistogramBins)
    throw StoreError(s.where() + ": the checkpoint's level " + std::to_string(p.n) +
                     " does not start where the store's finished levels end");
  for (const StoreBlock& b : p.blocks)
    if (b.offset < p.from || b.offset + b.bytes > p.end)
      throw StoreError(s.where() + ": the checkpoint's blocks of level " + std::to_string(p.n) + " lie outside it");
  std::vector<std::uint8_t> buf;
  constexpr std::uint64_t kPiece = std::uint64_t{16} << 20;
  for (std::uint64_t at = p.from; at < p.end; at += kPiece) {
    const auto len = static_cast<std::size_t>(std::min(kPiece, p.end - at));
    buf.resize(len);
    fill(at, len, buf.data());
    s.write_all(buf.data(), len, at);
  }
  s.end = p.end;
  s.pending.blocks = p.blocks;
  s.pending.count = p.count;
  s.pending.digest = p.digest;
  s.histogram = p.histogram;
}

}  // namespace chomp
