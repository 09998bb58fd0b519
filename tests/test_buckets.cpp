/// @file test_buckets.cpp
/// @brief The mark buckets (src/buckets.hpp): entries staged in lines and
/// written a line at a time (or one by one after a flush), over rounds that
/// use the pool again: every mark filed is set once its segment is applied,
/// nothing else is, and every mark is counted. And the sink that ORs marks
/// into a bitmap atomically, clipped to a range of bits (src/mark_sinks.hpp).

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "buckets.hpp"
#include "mark_sinks.hpp"

using chomp::detail::MarkBuckets;
namespace detail = chomp::detail;
namespace config = chomp::config;

namespace {

/// Files `points` random points and `ranges` random ranges (some across
/// segments, some a whole segment or more) into b, in `batches` with a
/// flush after each (filing after a flush takes the unaligned path), then
/// applies every segment; compares with the bits set directly.
void file_and_compare(MarkBuckets& b, std::size_t segments, int points, int ranges, int batches, std::uint64_t seed,
                      int rounds = 1) {
  const std::uint64_t bits = segments * config::kSegmentBits;
  b.prepare(segments);
  // Rounds as a pass makes them: file, flush, apply, recycle, file again
  // (the pool's blocks used anew, without another prepare).
  for (int round = 0; round < rounds; ++round) {
  std::vector<std::uint64_t> want(bits / 64, 0), got(bits / 64, 0);
  std::mt19937_64 rng(seed + static_cast<std::uint64_t>(round));
  std::uint64_t marks = 0;
  for (int batch = 0; batch < batches; ++batch) {
    for (int i = 0; i < points / batches; ++i) {
      // Half of them crowded into a few segments: long chains, blocks freed and used again.
      const std::uint64_t r = (i % 2) ? rng() % bits : rng() % (3 * config::kSegmentBits);
      b.point(r);
      want[r / 64] |= std::uint64_t{1} << (r % 64);
      ++marks;
    }
    for (int i = 0; i < ranges / batches; ++i) {
      const std::uint64_t most = (i % 50 == 0) ? 3 * config::kSegmentBits : 300;
      const std::uint64_t first = rng() % bits;
      const std::uint64_t count = std::min<std::uint64_t>(1 + rng() % most, bits - first);
      b.range(first, count);
      // Bit by bit, not through set_bit_range (which applying uses).
      for (std::uint64_t r = first; r < first + count; ++r) want[r / 64] |= std::uint64_t{1} << (r % 64);
      marks += count;
    }
    b.flush();
  }
  std::uint64_t applied = 0;
  for (std::size_t s = 0; s < segments; ++s)
    applied += b.apply_segment(s, got.data() + s * (config::kSegmentBits / 64), s % 3 == 0);
  b.recycle();
  EXPECT_EQ(applied, marks);
  std::size_t differ = 0;
  for (std::size_t w = 0; w < want.size(); ++w) differ += want[w] != got[w];
  EXPECT_EQ(differ, 0u) << "words that differ, round " << round;
  }
}

}  // namespace

TEST(MarkBuckets, EveryEntryStagedInLinesLands) {
  MarkBuckets b(16);  // small pool pages: the pool grows many times
  file_and_compare(b, 37, 400000, 20000, 1, 1);
  file_and_compare(b, 37, 100000, 5000, 3, 2);  // the pool kept, filing after flushes
  file_and_compare(b, 37, 100000, 5000, 1, 7, 3);  // rounds without a prepare between
  file_and_compare(b, 100, 300000, 10000, 2, 8, 2);
}

// Every run of bits inside four words (starts and ends on and beside the
// word edges included) sets exactly its bits, ORed over what was there.
TEST(MarkBuckets, SetBitRangeSetsExactlyItsRun) {
  for (std::uint64_t first = 0; first < 256; ++first) {
    for (std::uint64_t count = 0; first + count <= 256; ++count) {
      std::uint64_t words[4] = {0, 0x8000000000000001ULL, 0, 0};
      detail::set_bit_range(words, first, count);
      for (std::uint64_t bit = 0; bit < 256; ++bit) {
        const bool before = bit == 64 || bit == 127;
        const bool want = before || (bit >= first && bit < first + count);
        ASSERT_EQ((words[bit / 64] >> (bit % 64)) & 1, want ? 1U : 0U)
            << "first " << first << ", count " << count << ", bit " << bit;
      }
    }
  }
}

TEST(AtomicSink, KeepsAndCountsOnlyTheMarksOfItsBits) {
  // A process of a distributed sieve makes a split call for the first rows
  // of its own window bits [lo, lo + span) and keeps only the marks in
  // them, its bitmap's bit 0 being window bit lo: points and ranges below,
  // across either end, inside, above and over the whole, against a plain
  // set of bits. More than one batch of points (64) is held in between.
  const std::uint64_t lo = 1000, span = 300;
  std::vector<std::uint64_t> words(8, 0);
  std::set<std::uint64_t> want;
  std::uint64_t want_marks = 0;
  detail::AtomicSink sink(words.data(), lo, span);
  const auto keep = [&](std::uint64_t bit) {
    if (bit >= lo && bit < lo + span) want.insert(bit - lo), ++want_marks;
  };
  for (std::uint64_t bit = 900; bit < 1400; bit += 3) sink.point(bit), keep(bit);
  const std::pair<std::uint64_t, std::uint64_t> ranges[] = {
      {10, 100}, {950, 50}, {950, 51}, {990, 70}, {1100, 64}, {1250, 200}, {1299, 1}, {1300, 5}, {2000, 9}, {0, 5000}};
  for (const auto& [first, count] : ranges) {
    sink.range(first, count);
    for (std::uint64_t bit = first; bit < first + count; ++bit) keep(bit);
  }
  sink.flush();
  std::set<std::uint64_t> got;
  for (std::uint64_t i = 0; i < 64 * words.size(); ++i)
    if (words[i >> 6] >> (i & 63) & 1) got.insert(i);
  EXPECT_EQ(got, want);
  EXPECT_EQ(sink.marks, want_marks);
}
