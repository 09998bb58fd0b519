/// @file losing_store.cpp
/// @brief Varint gap coding of the losing ranks of each level.

#include "chomp/losing_store.hpp"

#include <algorithm>
#include <stdexcept>

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

void LosingLevel::append(std::span<const std::uint64_t> ranks) {
  for (std::uint64_t r : ranks) {
    if (count_ % config::kStoreChunk == 0) {
      if (count_ > 0 && r <= last_) throw std::logic_error("losing ranks must increase");
      // A chunk's gaps go to one block, so a chunk decodes from one pointer.
      if (static_cast<std::size_t>(end_ - free_) < kMaxChunkBytes) new_block();
      chunk_first_.push_back(r);
      chunk_at_.push_back(free_);
    } else {
      if (r <= last_) throw std::logic_error("losing ranks must increase");
      std::uint64_t gap = r - last_;
      while (gap >= 0x80) {
        *free_++ = static_cast<std::uint8_t>(gap | 0x80);
        gap >>= 7;
      }
      *free_++ = static_cast<std::uint8_t>(gap);
    }
    last_ = r;
    ++count_;
  }
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
