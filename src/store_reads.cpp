/// @file store_reads.cpp
/// @brief The store's checked reads: a block read back whole or in parts
/// (its CRC-32 checked, its gap code decoded to exactly its ranks), read
/// ahead, looked up through each thread's cache of decoded blocks, and a
/// level checked against its count and digest.

#include "store_impl.hpp"

#include <fcntl.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <span>
#include <string>
#include <vector>

namespace chomp {

using namespace store_file;  // the layout's own names
using detail::GapCode;

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

}  // namespace chomp
