/// @file losing_store.cpp
/// @brief Varint gap coding of the losing ranks of each level.

#include "chomp/losing_store.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>
#include <utility>

#include "config.hpp"

namespace chomp {

namespace {

/// The most bytes one chunk's gaps take: every entry but the first is a
/// gap of at most 10 varint bytes (64 bits, 7 per byte).
constexpr std::size_t kMaxChunkBytes = (config::kStoreChunk - 1) * 10;

/// A new gap block is an eighth of the level's blocks so far (small levels
/// stay small, at most an eighth is left unused), within these bounds.
constexpr std::uint64_t kMaxBlockBytes = std::uint64_t{4} << 20;
constexpr std::uint64_t kMinBlockBytes = 4096;
static_assert(kMinBlockBytes >= kMaxChunkBytes, "a block must hold a whole chunk");

/// Whole chunks appended at once are coded in parallel from this many
/// ranks on, in pieces of kPieceChunks chunks (64 Ki ranks).
constexpr std::size_t kParallelRanks = std::size_t{1} << 17;
constexpr std::size_t kPieceChunks = 1024;

/// Bytes of a gap (> 0) as an LEB128 varint: 7 bits a byte.
inline std::uint64_t gap_bytes(std::uint64_t gap) {
  return static_cast<std::uint64_t>(70 - std::countl_zero(gap)) / 7;
}

/// Writes a gap as an LEB128 varint; returns the byte after it.
inline std::uint8_t* put_gap(std::uint8_t* out, std::uint64_t gap) {
  while (gap >= 0x80) {
    *out++ = static_cast<std::uint8_t>(gap | 0x80);
    gap >>= 7;
  }
  *out++ = static_cast<std::uint8_t>(gap);
  return out;
}

}  // namespace

void LosingLevel::reserve(std::uint64_t count) {
  const std::uint64_t chunks = (count + config::kStoreChunk - 1) / config::kStoreChunk;
  chunk_first_.reserve(chunks);
  chunk_at_.reserve(chunks);
}

void LosingLevel::new_block() {
  const std::uint64_t size = std::clamp(block_bytes_ / 8, kMinBlockBytes, kMaxBlockBytes);
  blocks_.push_back(std::make_unique_for_overwrite<std::uint8_t[]>(size));
  free_ = blocks_.back().get();
  end_ = free_ + size;
  block_bytes_ += size;
}

void LosingLevel::append_one(std::uint64_t r) {
  if (count_ % config::kStoreChunk == 0) {
    if (count_ > 0 && r <= last_) throw std::logic_error("losing ranks must increase");
    // A chunk's gaps go to one block, so a chunk decodes from one pointer.
    if (static_cast<std::size_t>(end_ - free_) < kMaxChunkBytes) new_block();
    chunk_first_.push_back(r);
    chunk_at_.push_back(free_);
  } else {
    if (r <= last_) throw std::logic_error("losing ranks must increase");
    free_ = put_gap(free_, r - last_);
  }
  last_ = r;
  ++count_;
}

void LosingLevel::append(std::span<const std::uint64_t> ranks) {
  // The rest of the last chunk, whole chunks (in parallel when they are
  // many: append_chunks), and the start of a last chunk, which later
  // ranks continue in the last block: a chunk's gaps must be in one piece.
  std::size_t i = 0;
  for (; i < ranks.size() && count_ % config::kStoreChunk != 0; ++i) append_one(ranks[i]);
  const std::size_t whole = (ranks.size() - i) / config::kStoreChunk * config::kStoreChunk;
  if (whole >= kParallelRanks) {
    append_chunks(ranks.subspan(i, whole));
    i += whole;
  }
  for (; i < ranks.size(); ++i) append_one(ranks[i]);
}

void LosingLevel::append_chunks(std::span<const std::uint64_t> ranks) {
  // Whole chunks only, in pieces of kPieceChunks chunks. First pass: check
  // that the ranks increase and count each piece's gap bytes; nothing
  // changes if they do not. Second pass: every piece writes its chunks at
  // its offset in one new block of exactly the bytes counted.
  constexpr std::size_t kPieceRanks = kPieceChunks * config::kStoreChunk;
  const std::size_t pieces = (ranks.size() + kPieceRanks - 1) / kPieceRanks;
  const auto bounds = [&](std::size_t p) {
    return std::pair{p * kPieceRanks, std::min(ranks.size(), (p + 1) * kPieceRanks)};
  };
  std::vector<std::uint64_t> at(pieces + 1, 0);
  std::atomic<bool> increasing{count_ == 0 || ranks.front() > last_};
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pieces), [&](const tbb::blocked_range<std::size_t>& range) {
    for (std::size_t p = range.begin(); p != range.end(); ++p) {
      const auto [lo, hi] = bounds(p);
      std::uint64_t bytes = 0;
      bool ok = lo == 0 || ranks[lo] > ranks[lo - 1];
      for (std::size_t j = lo + 1; j < hi; ++j) {
        ok = ok && ranks[j] > ranks[j - 1];
        if (j % config::kStoreChunk != 0) bytes += gap_bytes(ranks[j] - ranks[j - 1]);
      }
      if (!ok) increasing.store(false, std::memory_order_relaxed);
      at[p + 1] = bytes;
    }
  });
  if (!increasing.load()) throw std::logic_error("losing ranks must increase");
  for (std::size_t p = 0; p < pieces; ++p) at[p + 1] += at[p];
  const std::uint64_t total = std::max<std::uint64_t>(at[pieces], 1);
  // Everything that can fail to allocate comes before the first change, so
  // a failed batch leaves the level as it was.
  const std::size_t first_chunk = chunk_first_.size();
  const std::size_t chunks = (ranks.size() + config::kStoreChunk - 1) / config::kStoreChunk;
  chunk_first_.reserve(first_chunk + chunks);
  chunk_at_.reserve(first_chunk + chunks);
  auto block_memory = std::make_unique_for_overwrite<std::uint8_t[]>(total);
  blocks_.reserve(blocks_.size() + 1);
  std::uint8_t* const block = block_memory.get();
  blocks_.push_back(std::move(block_memory));
  block_bytes_ += total;
  chunk_first_.resize(first_chunk + chunks);
  chunk_at_.resize(first_chunk + chunks);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pieces), [&](const tbb::blocked_range<std::size_t>& range) {
    for (std::size_t p = range.begin(); p != range.end(); ++p) {
      const auto [lo, hi] = bounds(p);
      std::uint8_t* out = block + at[p];
      for (std::size_t j = lo; j < hi; ++j) {
        if (j % config::kStoreChunk == 0) {
          chunk_first_[first_chunk + j / config::kStoreChunk] = ranks[j];
          chunk_at_[first_chunk + j / config::kStoreChunk] = out;
        } else {
          out = put_gap(out, ranks[j] - ranks[j - 1]);
        }
      }
    }
  });
  count_ += ranks.size();
  last_ = ranks.back();
}

void LosingLevel::decode_chunk(std::size_t c, std::vector<std::uint64_t>& out) const {
  out.clear();
  const std::uint64_t first_index = static_cast<std::uint64_t>(c) * config::kStoreChunk;
  const std::uint64_t n = std::min<std::uint64_t>(config::kStoreChunk, count_ - first_index);
  std::uint64_t r = chunk_first_[c];
  out.push_back(r);
  const std::uint8_t* p = chunk_at_[c];
  for (std::uint64_t i = 1; i < n; ++i) {
    std::uint64_t gap = 0;
    int shift = 0;
    for (;;) {
      const std::uint8_t b = *p++;
      gap |= static_cast<std::uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) break;
      shift += 7;
    }
    r += gap;
    out.push_back(r);
  }
}

bool LosingLevel::contains(std::uint64_t rank) const {
  // The last chunk whose first rank is <= rank holds it, if anything does.
  auto it = std::upper_bound(chunk_first_.begin(), chunk_first_.end(), rank);
  if (it == chunk_first_.begin()) return false;
  std::vector<std::uint64_t> chunk;
  decode_chunk(static_cast<std::size_t>(it - chunk_first_.begin() - 1), chunk);
  return std::binary_search(chunk.begin(), chunk.end(), rank);
}

std::vector<std::uint64_t> LosingLevel::all() const {
  std::vector<std::uint64_t> result, chunk;
  result.reserve(count_);
  for (std::size_t c = 0; c < chunks(); ++c) {
    decode_chunk(c, chunk);
    result.insert(result.end(), chunk.begin(), chunk.end());
  }
  return result;
}

std::uint64_t LosingLevel::memory_bytes() const {
  return block_bytes_ + chunk_first_.capacity() * sizeof(std::uint64_t) +
         chunk_at_.capacity() * sizeof(const std::uint8_t*);
}

std::uint64_t LosingStore::memory_bytes() const {
  std::uint64_t total = 0;
  for (const auto& l : levels_) total += l.memory_bytes();
  return total;
}

}  // namespace chomp
