/// @file test_losing_store.cpp
/// @brief The store on disk: its gap code round-trips every gap, levels in
/// runs read back in rank order, damage and foreign files are refused, and
/// a losing position costs under a byte.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "chomp/losing_store.hpp"
#include "chomp_process.hpp"
#include "config.hpp"
#include "gap_code.hpp"

using namespace chomp;
using chomp::detail::GapCode;
using chomp::testing::ScratchDir;

namespace {

/// Increasing ranks with gaps like a level's: mostly a few dozen, now and
/// then huge (up to 2^40), starting at `first`.
std::vector<std::uint64_t> ranks_like_a_level(std::size_t count, std::uint64_t first, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::geometric_distribution<std::uint64_t> small(1.0 / 40);
  std::vector<std::uint64_t> out;
  std::uint64_t r = first;
  for (std::size_t i = 0; i < count; ++i) {
    out.push_back(r);
    const std::uint64_t gap = rng() % 500 == 0 ? 1 + rng() % (std::uint64_t{1} << (rng() % 41)) : 1 + small(rng);
    r += gap;
  }
  return out;
}

std::vector<std::uint64_t> decode(const GapCode& code, const std::vector<std::uint64_t>& ranks) {
  std::vector<std::uint8_t> bytes;
  code.code_block(ranks, bytes);
  EXPECT_EQ(bytes.size() % 8, 0u);
  std::vector<std::uint64_t> out(ranks.size());
  EXPECT_TRUE(code.decode_block(bytes, ranks.front(), ranks.size(), out.data()));
  return out;
}

}  // namespace

TEST(GapCode, EveryCodeRoundTripsEveryGap) {
  const auto ranks = ranks_like_a_level(20000, 12345, 1);
  GapCode::Histogram h(GapCode::kHistogramBins, 0);
  for (std::size_t i = 1; i < ranks.size(); ++i) ++h[std::min<std::uint64_t>(ranks[i] - ranks[i - 1], h.size() - 1)];
  const GapCode fitted = GapCode::fitted(h);
  EXPECT_GE(fitted.low_bits(), 2);
  for (const GapCode& code : {GapCode(), fitted}) {
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{77}, ranks.size()}) {
      const std::vector<std::uint64_t> part(ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(n));
      EXPECT_EQ(decode(code, part), part) << n << " ranks, k = " << code.low_bits();
    }
  }
  // The largest gaps a level can have (p(255) is about 1.2e14) and gaps of 1.
  const std::vector<std::uint64_t> extremes{0, 1, 2, std::uint64_t{1} << 47, (std::uint64_t{1} << 47) + 1,
                                            (std::uint64_t{1} << 48) - 1};
  EXPECT_EQ(decode(fitted, extremes), extremes);
}

TEST(GapCode, FittedCodeSpendsUnderAByteOnLevelLikeGaps) {
  const auto ranks = ranks_like_a_level(100000, 0, 2);
  GapCode::Histogram h(GapCode::kHistogramBins, 0);
  std::vector<std::uint8_t> bytes;
  GapCode().code_block(ranks, bytes, &h);
  const GapCode code = GapCode::fitted(h);
  code.code_block(ranks, bytes);
  EXPECT_LT(static_cast<double>(bytes.size()) / static_cast<double>(ranks.size()), 0.95);
}

TEST(GapCode, DamagedBytesAreRefusedWithoutReadingPastThem) {
  const auto ranks = ranks_like_a_level(3000, 7, 3);
  const GapCode code;
  std::vector<std::uint8_t> bytes;
  code.code_block(ranks, bytes);
  std::vector<std::uint64_t> out(ranks.size() + 1000);
  // Too few bytes for the count, or all zeros (an escape's gamma never ends).
  EXPECT_FALSE(code.decode_block(std::span(bytes).first(bytes.size() / 2 / 8 * 8), 7, ranks.size(), out.data()));
  const std::vector<std::uint8_t> zeros(64, 0);
  EXPECT_FALSE(code.decode_block(zeros, 7, 1000, out.data()));
  EXPECT_THROW(GapCode(9, code.lengths()), std::invalid_argument);
  auto lengths = code.lengths();
  lengths[0] = 5;  // no longer a complete prefix code
  EXPECT_THROW(GapCode(0, lengths), std::invalid_argument);
}

TEST(LosingStore, LevelsInRunsReadBackInRankOrder) {
  ScratchDir dir;
  const std::string path = dir.file("s.store"), id = new_run_id();
  const auto all = ranks_like_a_level(30000, 100, 4);
  std::vector<StoredLevel> records;
  {
    const auto store = LosingStore::create(path, id);
    store->begin_level(1);
    store->append(std::vector<std::uint64_t>{0});
    records.push_back(store->finish_level());
    // Level 2 in three runs, the highest ranks first (as slices come), each
    // appended in pieces of odd sizes.
    store->begin_level(2);
    const std::size_t cuts[] = {0, 9000, 21111, all.size()};
    for (int run = 2; run >= 0; --run) {
      for (std::size_t at = cuts[run]; at < cuts[run + 1]; at += 3001)
        store->append(std::span(all).subspan(at, std::min<std::size_t>(3001, cuts[run + 1] - at)));
      store->end_run();
    }
    // A rank below the run's last is refused; the run goes on.
    store->begin_level(2);
    for (int run = 2; run >= 0; --run) {
      store->append(std::span(all).subspan(cuts[run], cuts[run + 1] - cuts[run]));
      EXPECT_THROW(store->append(std::vector<std::uint64_t>{all[cuts[run]]}), std::logic_error);
      store->end_run();
    }
    records.push_back(store->finish_level());
    EXPECT_EQ(store->levels(), 2);
    EXPECT_EQ(store->all(2), all);
    const auto blocks = store->blocks(2);
    EXPECT_TRUE(std::is_sorted(blocks.begin(), blocks.end(),
                               [](const StoreBlock& a, const StoreBlock& b) { return a.first_rank < b.first_rank; }));
    for (const std::uint64_t r : {all[0], all[9000], all[21110], all.back()}) EXPECT_TRUE(store->contains(2, r));
    EXPECT_FALSE(store->contains(2, all[5] + 1 == all[6] ? all[7] + 1 : all[5] + 1));
    EXPECT_NO_THROW(store->check_level(2, all.back() + 1));
    EXPECT_THROW(store->check_level(2, all.back()), StoreError) << "a rank at the limit";
    EXPECT_EQ(records[1].count, all.size());
  }
  // Opened again from the records, for reading and for appending.
  const auto again = LosingStore::open(path, id, records, false);
  EXPECT_EQ(again->all(2), all);
  EXPECT_THROW(LosingStore::open(path, new_run_id(), records, false), StoreError);
  std::vector<StoredLevel> wrong = records;
  wrong[1].digest ^= 1;
  EXPECT_THROW(LosingStore::open(path, id, wrong, false), StoreError);
}

TEST(LosingStore, OverlappingRunsAreRefused) {
  const auto store = LosingStore::temporary();
  store->begin_level(1);
  store->append(std::vector<std::uint64_t>{10, 20, 30});
  store->end_run();
  store->append(std::vector<std::uint64_t>{25, 26});
  EXPECT_THROW(store->finish_level(), std::logic_error);
}

TEST(LosingStore, ALargeBatchIsCheckedWholeAndReadsBackInOrder) {
  // A scan's batch (up to millions of ranks; 699,000 here, its blocks
  // coded in parallel): one pair out of order anywhere in it (at the first
  // pair, at the edges of chunks of 2^16 and halves that a parallel check
  // would take, and between them), two equal ranks at its very end, or a
  // first rank equal to the run's last, is refused and nothing of it is
  // kept; in order, it reads back exactly (every block's CRC checked),
  // with one index entry for each block in rank order, its digest matching
  // its ranks, and the level opens again.
  const auto all = ranks_like_a_level(700000, 77, 9);
  ScratchDir dir;
  const std::string id = new_run_id();
  StoredLevel level;
  {
    const auto store = LosingStore::create(dir.file("big.store"), id);
    store->begin_level(1);
    store->append(std::span(all).first(1000));
    const auto rest = std::span(all).subspan(1000);
    std::vector<std::uint64_t> bad;
    for (const std::size_t i : {std::size_t{1}, std::size_t{65535}, std::size_t{65536}, std::size_t{65537},
                                std::size_t{131072}, std::size_t{174750}, std::size_t{345679}, std::size_t{349500},
                                std::size_t{524288}, rest.size() - 1}) {
      bad.assign(rest.begin(), rest.end());
      std::swap(bad[i - 1], bad[i]);
      EXPECT_THROW(store->append(bad), std::logic_error) << "pair " << i - 1 << ", " << i;
    }
    bad.assign(rest.begin(), rest.end());
    bad.back() = bad[bad.size() - 2];
    EXPECT_THROW(store->append(bad), std::logic_error);
    bad.assign(rest.begin(), rest.end());
    bad.front() = all[999];  // equal to the run's last
    EXPECT_THROW(store->append(bad), std::logic_error);
    store->append(rest);
    level = store->finish_level();
    EXPECT_EQ(store->all(1), all);
    const auto blocks = store->blocks(1);
    ASSERT_EQ(blocks.size(), (all.size() + config::kStoreBlockRanks - 1) / config::kStoreBlockRanks);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      EXPECT_EQ(blocks[b].first_rank, all[b * config::kStoreBlockRanks]) << "block " << b;
      if (b) {
        EXPECT_GT(blocks[b].offset, blocks[b - 1].offset) << "block " << b;
      }
    }
  }
  // Opened again from its record: the blocks read back (their CRCs
  // checked), and the digest summed at the write matches the ranks.
  const auto again = LosingStore::open(dir.file("big.store"), id, std::span<const StoredLevel>(&level, 1), false);
  EXPECT_EQ(again->all(1), all);
  EXPECT_NO_THROW(again->check_level(1, all.back() + 1));
}

TEST(LosingStore, AnAbandonedLevelGivesItsBytesBackAndAReopenCutsOffWhatFollowsTheLastLevel) {
  ScratchDir dir;
  const std::string path = dir.file("s.store"), id = new_run_id();
  std::vector<StoredLevel> records;
  std::uint64_t end = 0;
  {
    const auto store = LosingStore::create(path, id);
    store->begin_level(1);
    store->append(ranks_like_a_level(10000, 0, 5));
    records.push_back(store->finish_level());
    end = store->file_bytes();
    EXPECT_EQ(std::filesystem::file_size(path), end);
    store->begin_level(2);
    store->append(ranks_like_a_level(50000, 0, 6));
    EXPECT_GT(std::filesystem::file_size(path), end);
    store->abandon_level();
    EXPECT_EQ(std::filesystem::file_size(path), end);
    store->begin_level(2);
    store->append(ranks_like_a_level(50000, 0, 6));  // left unfinished: a kill
  }
  EXPECT_GT(std::filesystem::file_size(path), end);
  {
    const auto reader = LosingStore::open(path, id, records, false);
    EXPECT_GT(std::filesystem::file_size(path), end) << "reading changes nothing";
  }
  const auto store = LosingStore::open(path, id, records, true);
  EXPECT_EQ(std::filesystem::file_size(path), end);
  store->begin_level(2);
  store->append(std::vector<std::uint64_t>{3, 4});
  store->finish_level();
  EXPECT_EQ(store->all(2), (std::vector<std::uint64_t>{3, 4}));
}

TEST(LosingStore, ForeignTruncatedAndDamagedStoresAreRefused) {
  ScratchDir dir;
  const std::string path = dir.file("s.store"), id = new_run_id();
  std::vector<StoredLevel> records;
  {
    const auto store = LosingStore::create(path, id);
    for (int n = 1; n <= 3; ++n) {
      store->begin_level(n);
      store->append(ranks_like_a_level(9000, 0, 7 + n));
      records.push_back(store->finish_level());
    }
  }
  const auto refused = [&](const std::string& says) {
    try {
      LosingStore::open(path, id, records, false);
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const StoreError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  const std::string good = chomp::testing::read_text(path);
  const auto put = [&](const std::string& bytes) { std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes; };
  put(good.substr(0, records[2].trailer + 10));
  refused("lies outside the file");
  put(good.substr(0, 30));
  refused("not a chomp store");
  put("CHOMPSTO" + good.substr(8, 30) + std::string(40, '\0'));
  refused("fails its checksum");
  std::string flipped = good;
  flipped[static_cast<std::size_t>(records[1].trailer) + 20] ^= 1;  // inside level 2's trailer
  put(flipped);
  refused("level 2's trailer at byte");
  put(good);
  EXPECT_NO_THROW(LosingStore::open(path, id, records, false));
  std::filesystem::remove(path);
  refused("is missing");
  std::filesystem::create_directory(path);
  refused("is not a regular file");
}

TEST(LosingStore, StorePathsSitBesideTheResultFile) {
  EXPECT_EQ(store_path_for("out/levels-170.h5"), "out/levels-170.store");
  EXPECT_EQ(store_path_for("run"), "run.store");
  EXPECT_EQ(store_path_for(".h5"), ".h5.store");
  EXPECT_EQ(new_run_id().size(), 32u);
  EXPECT_NE(new_run_id(), new_run_id());
}
