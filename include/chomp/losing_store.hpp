/// @file losing_store.hpp
/// @brief The losing positions of finished levels, kept compactly as rank gaps.
///
/// Losing positions are about 1-3% of a level, so the gap between successive
/// losing ranks is usually below 128 and fits one byte of a LEB128 varint.
/// Each level keeps, every kStoreChunk entries, the absolute rank of the
/// chunk's first entry and where the gap of its second begins, so chunks
/// decode independently (the unit of parallel work) and memory stays near
/// one or two bytes per losing position.
///
/// The gap bytes live in blocks that never move (a chunk never straddles
/// two): a level of half a billion positions grows without the copies and
/// the up-to-double capacity of one growing array, so what the store holds
/// is what the memory plan counts.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace chomp {

class LosingLevel {
 public:
  /// Makes room in the chunk index for `count` ranks in all (appending
  /// more still works; this only avoids regrowing the index).
  void reserve(std::uint64_t count);

  /// Appends ranks, which must be strictly increasing across calls (else
  /// it throws std::logic_error). Batches of many whole chunks are coded
  /// in parallel (oneTBB), each piece of chunks at its own offset of one
  /// new block of exactly the bytes they take.
  void append(std::span<const std::uint64_t> ranks);

  std::uint64_t size() const { return count_; }
  std::size_t chunks() const { return chunk_first_.size(); }

  /// Decodes chunk c into out (cleared first).
  void decode_chunk(std::size_t c, std::vector<std::uint64_t>& out) const;

  /// True when rank is one of the stored ranks.
  bool contains(std::uint64_t rank) const;

  /// Every rank, in increasing order.
  std::vector<std::uint64_t> all() const;

  /// Bytes held (gap blocks plus chunk index).
  std::uint64_t memory_bytes() const;

 private:
  void new_block();
  void append_one(std::uint64_t rank);
  void append_chunks(std::span<const std::uint64_t> ranks);

  std::vector<std::unique_ptr<std::uint8_t[]>> blocks_;
  std::uint64_t block_bytes_ = 0;             // bytes of all blocks together
  std::uint8_t* free_ = nullptr;              // free space of the last block:
  std::uint8_t* end_ = nullptr;               //   [free_, end_)
  std::vector<std::uint64_t> chunk_first_;    // rank of each chunk's first entry
  std::vector<const std::uint8_t*> chunk_at_;  // where each chunk's second entry's gap begins
  std::uint64_t count_ = 0;
  std::uint64_t last_ = 0;
};

/// The losing positions of levels 1..n, indexed by tile count.
class LosingStore {
 public:
  explicit LosingStore(int max_tiles) : levels_(static_cast<std::size_t>(max_tiles) + 1) {}
  LosingLevel& level(int n) { return levels_[static_cast<std::size_t>(n)]; }
  const LosingLevel& level(int n) const { return levels_[static_cast<std::size_t>(n)]; }
  std::uint64_t memory_bytes() const;

 private:
  std::vector<LosingLevel> levels_;
};

}  // namespace chomp
