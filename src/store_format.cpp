/// @file store_format.cpp
/// @brief The store file's header and level trailers, written and read
/// back checked (store_impl.hpp; the layout is in doc/FILE_FORMAT.md).

#include "store_impl.hpp"

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "config.hpp"

namespace chomp {

using namespace store_file;  // the layout's own names, in the layout's own file
using detail::GapCode;

void LosingStore::Impl::write_header() {
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

void LosingStore::Impl::check_header() const {
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

std::vector<std::uint8_t> LosingStore::Impl::trailer_of(int n, const LevelIndex& l) const {
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

LevelIndex LosingStore::Impl::read_trailer(int n, std::uint64_t at, std::uint64_t limit) const {
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

}  // namespace chomp
