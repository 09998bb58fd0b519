/// @file losing_store.cpp
/// @brief Varint gap coding of the losing ranks of each level.

#include "chomp/losing_store.hpp"

#include <algorithm>
#include <stdexcept>

#include "config.hpp"

namespace chomp {

void LosingLevel::append(std::span<const std::uint64_t> ranks) {
  for (std::uint64_t r : ranks) {
    if (count_ % config::kStoreChunk == 0) {
      if (count_ > 0 && r <= last_) throw std::logic_error("losing ranks must increase");
      chunk_first_.push_back(r);
      chunk_offset_.push_back(bytes_.size());
    } else {
      if (r <= last_) throw std::logic_error("losing ranks must increase");
      std::uint64_t gap = r - last_;
      while (gap >= 0x80) {
        bytes_.push_back(static_cast<std::uint8_t>(gap | 0x80));
        gap >>= 7;
      }
      bytes_.push_back(static_cast<std::uint8_t>(gap));
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
  const std::uint8_t* p = bytes_.data() + chunk_offset_[c];
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
  return bytes_.capacity() + (chunk_first_.capacity() + chunk_offset_.capacity()) * 8;
}

std::uint64_t LosingStore::memory_bytes() const {
  std::uint64_t total = 0;
  for (const auto& l : levels_) total += l.memory_bytes();
  return total;
}

}  // namespace chomp
