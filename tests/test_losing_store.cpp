/// @file test_losing_store.cpp
/// @brief The losing store gives back exactly the ranks it was given, chunk
/// by chunk, whatever the gaps and however the appends were cut.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "chomp/losing_store.hpp"
#include "config.hpp"

using namespace chomp;

namespace {

/// Increasing ranks with gaps of many varint lengths: mostly one byte,
/// some of two, a few of three to six, and a last one of nine (the first
/// rank is 0).
std::vector<std::uint64_t> mixed_ranks(std::size_t count, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> ranks;
  std::uint64_t r = 0;
  for (std::size_t i = 0; i < count; ++i) {
    ranks.push_back(r);
    const unsigned kind = static_cast<unsigned>(rng() % 100);
    const int bits = kind < 80 ? 7 : kind < 99 ? 14 : 20 + static_cast<int>(rng() % 20);
    r += 1 + rng() % (std::uint64_t{1} << bits);
  }
  ranks.back() = ranks[ranks.size() - 2] + (std::uint64_t{1} << 62);  // a 9-byte gap
  return ranks;
}

/// The level holds exactly `ranks`: every rank in order, every step-th
/// chunk decoded alone, and every step-th rank (but no rank just after it
/// that is not stored) found by contains().
void expect_holds(const LosingLevel& level, const std::vector<std::uint64_t>& ranks, std::size_t step) {
  ASSERT_EQ(level.size(), ranks.size());
  EXPECT_EQ(level.chunks(), (ranks.size() + config::kStoreChunk - 1) / config::kStoreChunk);
  EXPECT_EQ(level.all(), ranks);
  std::vector<std::uint64_t> chunk;
  for (std::size_t c = 0; c < level.chunks(); c += step) {
    level.decode_chunk(c, chunk);
    const auto first = ranks.begin() + static_cast<std::ptrdiff_t>(c * config::kStoreChunk);
    ASSERT_EQ(chunk, std::vector<std::uint64_t>(first, first + static_cast<std::ptrdiff_t>(chunk.size())));
  }
  for (std::size_t i = 0; i + 1 < ranks.size(); i += step * 10 + 3) {
    EXPECT_TRUE(level.contains(ranks[i]));
    if (ranks[i] + 1 != ranks[i + 1]) {
      EXPECT_FALSE(level.contains(ranks[i] + 1));
    }
  }
}

}  // namespace

TEST(LosingStore, GivesBackEveryRankInOrderWhateverTheAppends) {
  const std::vector<std::uint64_t> ranks = mixed_ranks(200'000, 7);
  LosingLevel level;
  level.reserve(ranks.size() / 2);  // a short reservation must not matter
  std::mt19937 rng(3);
  for (std::size_t at = 0; at < ranks.size();) {
    const std::size_t n = std::min<std::size_t>(ranks.size() - at, rng() % 1000);
    level.append(std::span<const std::uint64_t>(ranks.data() + at, n));
    at += n;
  }
  expect_holds(level, ranks, 97);
}

TEST(LosingStore, LargeBatchesCodedInParallelGiveBackTheSameRanks) {
  // Batches of 2^17 ranks and more take the parallel path (pieces of 1,024
  // chunks); small ones between them leave the level in mid-chunk, so a
  // large batch starts with the rest of a chunk.
  const std::vector<std::uint64_t> ranks = mixed_ranks(1'500'000, 11);
  LosingLevel level;
  std::mt19937 rng(5);
  std::size_t large = 0;
  for (std::size_t at = 0; at < ranks.size();) {
    const bool big = rng() % 2 == 0;
    const std::size_t want = big ? (std::size_t{1} << 17) + rng() % 200'000 : rng() % 1000;
    const std::size_t n = std::min(ranks.size() - at, want);
    large += n >= (std::size_t{1} << 17);
    level.append(std::span<const std::uint64_t>(ranks.data() + at, n));
    at += n;
  }
  EXPECT_GE(large, 3u);
  expect_holds(level, ranks, 89);
  // One batch, all in parallel, against the same ranks appended one by
  // one, with a 9-byte gap inside a whole chunk as well.
  std::vector<std::uint64_t> big = ranks;
  for (std::size_t i = 700'000; i < big.size(); ++i) big[i] += std::uint64_t{1} << 61;
  LosingLevel whole, one_by_one;
  whole.append(big);
  for (std::uint64_t r : big) one_by_one.append(std::span<const std::uint64_t>(&r, 1));
  expect_holds(whole, big, 101);
  EXPECT_EQ(whole.all(), one_by_one.all());
  // Exact blocks for the whole chunks, and one block of at most an eighth
  // of them more for the chunk the tail starts; at least every gap byte.
  std::uint64_t gap_bytes = 0;
  for (std::size_t i = 1; i < big.size(); ++i)
    if (i % config::kStoreChunk != 0)
      for (std::uint64_t gap = big[i] - big[i - 1]; gap; gap >>= 7) ++gap_bytes;
  EXPECT_GE(whole.memory_bytes(), gap_bytes);
  EXPECT_LE(whole.memory_bytes(), one_by_one.memory_bytes() + one_by_one.memory_bytes() / 8);
}

TEST(LosingStore, LargeBatchesThatDoNotIncreaseAreRefusedWhole) {
  std::vector<std::uint64_t> ranks(std::size_t{1} << 18);
  for (std::size_t i = 0; i < ranks.size(); ++i) ranks[i] = 1000 + 3 * i;
  LosingLevel level;
  std::vector<std::uint64_t> first(config::kStoreChunk);
  for (std::size_t i = 0; i < first.size(); ++i) first[i] = i;
  level.append(first);  // one whole chunk: the next batch is coded in parallel
  ASSERT_EQ(level.size(), first.size());
  // A repeat deep in a later piece, one at the first rank of a piece
  // (pieces of 65,536 ranks), then a first rank that does not follow.
  std::vector<std::uint64_t> bad = ranks;
  bad[200'000] = bad[199'999];
  EXPECT_THROW(level.append(bad), std::logic_error);
  EXPECT_EQ(level.size(), first.size());
  bad = ranks;
  bad[65'536] = bad[65'535];
  EXPECT_THROW(level.append(bad), std::logic_error);
  EXPECT_EQ(level.size(), first.size());
  bad = ranks;
  bad[0] = first.back();
  EXPECT_THROW(level.append(bad), std::logic_error);
  EXPECT_EQ(level.size(), first.size());
  level.append(ranks);
  std::vector<std::uint64_t> all = first;
  all.insert(all.end(), ranks.begin(), ranks.end());
  EXPECT_EQ(level.all(), all);
}

TEST(LosingStore, RefusesRanksThatDoNotIncrease) {
  LosingLevel level;
  const std::vector<std::uint64_t> first{5, 9};
  level.append(first);
  const std::vector<std::uint64_t> same{9};
  EXPECT_THROW(level.append(same), std::logic_error);
}

TEST(LosingStore, HoldsAboutABytePerSmallGap) {
  // A large level with small gaps: the gap bytes plus the chunk index, and
  // no more than one partly used block of slack. (Its 33.6 MB of gaps are
  // just past 2^25: one growing array would hold 2^26.)
  LosingLevel level;
  const std::uint64_t count = 34'100'000;
  level.reserve(count);
  std::vector<std::uint64_t> piece;
  for (std::uint64_t i = 0; i < count; ++i) {
    piece.push_back(i * 100);
    if (piece.size() == 4096) {
      level.append(piece);
      piece.clear();
    }
  }
  level.append(piece);
  const double per_rank = static_cast<double>(level.memory_bytes()) / static_cast<double>(count);
  EXPECT_GT(per_rank, 1.0);
  EXPECT_LT(per_rank, 1.0 + 16.0 / config::kStoreChunk + 0.02 + 4.0 * (1 << 20) / static_cast<double>(count));
}
