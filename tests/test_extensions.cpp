/// @file test_extensions.cpp
/// @brief The marking kernel (src/extensions.hpp) against the definition:
/// a source's extensions are exactly the positions that reduce to it, small
/// and large blocks, reused corners, levels taken together; and the
/// transposes: ranks, the bits that are not canonical, canonical-only
/// decoders.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "chomp/extensions.hpp"
#include "chomp/ranking.hpp"
#include "extensions.hpp"
#include "reference_extensions.hpp"

using namespace chomp;

TEST(Extensions, AreExactlyThePositionsThatReduceToTheSource) {
  // For every position mu with up to 12 tiles and every d up to 8, the
  // kernel's extensions are exactly the positions with |mu| + d tiles that
  // have a move to mu, each once.
  const int max_n = 20;
  const PartitionTable t(max_n);
  std::map<int, std::vector<Rows>> level;
  for (int n = 1; n <= max_n; ++n)
    for (std::uint64_t r = 0; r < t.positions(n); ++r) level[n].push_back(t.unrank(n, r));
  for (int m = 1; m <= 12; ++m)
    for (const Rows& mu : level[m])
      for (int d = 1; m + d <= max_n && d <= 8; ++d) {
        std::multiset<Rows> got;
        for (const Rows& l : extensions_of(t, mu, d)) got.insert(l);
        std::multiset<Rows> want;
        for (const Rows& l : level[m + d]) {
          bool reduces = false;
          for (int i = 1; i <= static_cast<int>(l.size()) && !reduces; ++i)
            for (int j = 1; j <= l[i - 1] && !reduces; ++j)
              if (apply_move(l, {i, j}) == mu) reduces = true;
          if (reduces) want.insert(l);
        }
        ASSERT_EQ(got, want) << rows_to_string(mu) << " + " << d;
      }
}

TEST(Extensions, TheShapeTableHoldsEverySmallBlockOnce) {
  // BlockShapes: for every e, cap and number of parts, the listed shapes
  // are exactly the partitions of e with parts <= cap and at most that many
  // parts, each once, with runs of equal parts in decreasing order and
  // multiplicity 0 only after the last run.
  const auto& shapes = detail::BlockShapes::get();
  const int E = detail::BlockShapes::kTiles;
  std::size_t all = 0;
  for (int e = 1; e <= E; ++e)
    for (int vcap = 1; vcap <= E + 2; ++vcap)
      for (int parts = 1; parts <= E + 2; ++parts) {
        std::set<Rows> want;
        const auto add = [&](const auto& self, Rows& nu, int left, int largest) -> void {
          if (left == 0) {
            if (static_cast<int>(nu.size()) <= parts) want.insert(nu);
            return;
          }
          for (int x = std::min(largest, left); x >= 1; --x) {
            nu.push_back(x);
            self(self, nu, left - x, x);
            nu.pop_back();
          }
        };
        Rows nu;
        add(add, nu, e, vcap);
        std::multiset<Rows> got;
        for (auto* s = shapes.begin(e, vcap); s != shapes.end(e, vcap, parts); ++s) {
          Rows block;
          bool ended = false;
          for (int j = 0; j < detail::BlockShapes::kRuns; ++j) {
            if (s->rows[j] == 0) {
              ended = true;
              continue;
            }
            ASSERT_FALSE(ended) << "a run after a run of multiplicity 0";
            ASSERT_TRUE(block.empty() || s->value[j] < block.back());
            block.insert(block.end(), s->rows[j], s->value[j]);
          }
          got.insert(block);
        }
        ASSERT_EQ(got, std::multiset<Rows>(want.begin(), want.end()))
            << e << " tiles, parts <= " << vcap << ", at most " << parts << " parts";
        if (vcap == e && parts == e) all += got.size();
      }
  // Every partition of every e <= E is in some list: sum of p(e).
  std::size_t partitions = 0;
  const PartitionTable t(E);
  for (int e = 1; e <= E; ++e) partitions += t.positions(e);
  EXPECT_EQ(all, partitions);
}

TEST(Extensions, LargeBlocksAreThePositionsBuiltCornerByCorner) {
  // Blocks of more tiles than the shape table holds are enumerated part by
  // part down to the table. For every position mu with up to 9 tiles, a few
  // with long runs of equal rows, and every d up to 26, the kernel's ranks
  // are those of mu plus every staircase block at every corner, built row by
  // row and ranked from scratch.
  const int max_n = 48;
  const PartitionTable t(max_n);
  std::vector<Rows> sources;
  for (int m = 1; m <= 9; ++m)
    for (std::uint64_t r = 0; r < t.positions(m); ++r) sources.push_back(t.unrank(m, r));
  sources.push_back({4, 4, 4, 4, 4, 1, 1, 1, 1, 1, 1});
  sources.push_back({9, 2, 2, 2, 2, 2, 2, 2, 2, 1});
  sources.push_back({3, 3, 3, 3, 3, 3, 3});
  for (const Rows& mu : sources) {
    const int m = static_cast<int>(tile_count(mu));
    for (int d = 1; d <= 26 && m + d <= max_n; ++d) {
      std::vector<std::uint64_t> want;
      chomp::testing::reference_extension_ranks(t, mu, d, want);
      std::vector<std::uint64_t> got = extension_ranks(t, mu, d);
      std::sort(got.begin(), got.end());
      std::sort(want.begin(), want.end());
      ASSERT_EQ(got, want) << rows_to_string(mu) << " + " << d;
    }
  }
}

namespace {

/// The kernel's marks in the order they came: points, and ranges as
/// (first, count) pairs.
struct Collect {
  std::vector<std::uint64_t> points, ranges;
  void point(std::uint64_t r) { points.push_back(r); }
  void range(std::uint64_t first, std::uint64_t count) {
    ranges.push_back(first);
    ranges.push_back(count);
  }
  /// Puts points and ranges in order, to compare marks made in any order.
  void sort() {
    std::sort(points.begin(), points.end());
    std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
    for (std::size_t i = 0; i < ranges.size(); i += 2) pairs.emplace_back(ranges[i], ranges[i + 1]);
    std::sort(pairs.begin(), pairs.end());
    ranges.clear();
    for (const auto& [first, count] : pairs) ranges.insert(ranges.end(), {first, count});
  }
};

/// Walks one decoder (making every extension, or canonical ones only)
/// through every position of level m in rank order, with seek, decoding
/// afresh every `fresh_every` ranks as a chunk of sources would start, and
/// calls f(walked, rank) at each.
template <class F>
void walk_level(const PartitionTable& t, int m, bool canonical_only, std::uint64_t fresh_every, F&& f) {
  detail::Source walked(t);
  walked.set_canonical_only(canonical_only);
  for (std::uint64_t r = 0; r < t.positions(m); ++r) {
    if (r % fresh_every == 0)
      walked.decode(m, r);
    else
      walked.seek(r);
    f(walked, r);
    if (::testing::Test::HasFatalFailure()) return;  // as an ASSERT in the loop would
  }
}

}  // namespace

TEST(Extensions, ReusedCornersOfTheLastSourceMatchAFreshDecode) {
  // A decoder walked through increasing ranks (seek) shifts the marks of
  // the corners it shares with the previous source instead of enumerating
  // them. Every position of level 30 in turn (a fresh decode every 97, as a
  // chunk would start), with d = 3 and 20 for every source (reused from the
  // previous one), d varying (reused after gaps, or asked twice of one
  // source), and d = 20 at another offset every third source: the ranks must
  // equal those of a decoder that starts from scratch for each call.
  // Both kinds of decoder: every extension, and the canonical ones only
  // (whose top corner's marks also depend on the number of rows).
  const int m = 30, max_n = 50;
  const PartitionTable t(max_n);
  for (bool canonical_only : {false, true}) {
    walk_level(t, m, canonical_only, 97, [&](detail::Source& walked, std::uint64_t r) {
      for (int d : {3, 1 + static_cast<int>(r % 20), 20, 1 + static_cast<int>((r + 7) % 20)}) {
        const std::uint64_t offset = (d == 20 && r % 3 == 0) ? 1000 : 0;
        Collect a, b;
        walked.for_each_extension(d, a, offset);
        detail::Source once(t);
        once.set_canonical_only(canonical_only);
        once.decode(m, r);
        once.for_each_extension(d, b, offset);
        a.sort();
        b.sort();
        ASSERT_EQ(a.points, b.points) << "rank " << r << " + " << d << ", canonical only " << canonical_only;
        ASSERT_EQ(a.ranges, b.ranges) << "rank " << r << " + " << d << ", canonical only " << canonical_only;
      }
    });
  }
}

TEST(Extensions, TheNextSourceNamedOrMisnamedChangesNoMark) {
  // The sieve names each source's successor (set_next), and only the
  // corners that successor shares are recorded for it. A decoder walked
  // through every third position of level 30 and every second of level
  // 26, each source naming in turn the one that follows it, one farther
  // (fewer corners recorded than it needs), one nearer (more), or none
  // (all but the last), asked for d = 3, 20 and 1..40 together, making
  // every extension or the canonical ones only, with the first two rows'
  // moves made or inferred: its marks must equal a fresh decoder's. And a
  // source that named its successor right recorded no corner beyond those
  // the successor shares (the runs its seek keeps) or that it shifted from
  // its own predecessor's record (which the record keeps), and in nine
  // cases of ten at least every one the successor shares (a record that
  // overflows keeps fewer; the test cannot see which did).
  const PartitionTable t(70);
  std::vector<std::uint64_t> offsets(41);
  for (int d = 0; d <= 40; ++d) offsets[static_cast<std::size_t>(d)] = static_cast<std::uint64_t>(d) << 40;
  int exact = 0, named = 0;
  for (const auto& [m, step] : {std::pair{30, 3}, std::pair{26, 2}}) {
    for (bool canonical_only : {false, true}) {
      for (int rows : {0, 2}) {
        detail::Source walked(t);
        walked.set_canonical_only(canonical_only);
        walked.set_rows_inferred(rows);
        const std::uint64_t positions = t.positions(m);
        std::vector<int> recorded;  // by d, for a source that named its successor right
        int shifted = 0;            // and the runs that source kept from its predecessor
        for (std::uint64_t r = 0, i = 0; r < positions; r += static_cast<std::uint64_t>(step), ++i) {
          if (r == 0) walked.decode(m, r); else walked.seek(r);
          if (!recorded.empty()) {
            for (int d : {3, 20}) {
              const int got = recorded[static_cast<std::size_t>(d)];
              ASSERT_LE(got, std::max(walked.kept_runs(), shifted)) << "level " << m << " rank " << r << " + " << d;
              ++named;
              exact += got >= walked.kept_runs();
            }
            recorded.clear();
          }
          const std::uint64_t next = r + static_cast<std::uint64_t>(step);
          switch (i % 4) {
            case 0: walked.set_next(next); break;
            case 1: walked.set_next(next + static_cast<std::uint64_t>(step)); break;
            case 2: walked.set_next(next - 1); break;
            default: break;
          }
          for (const auto& [dlo, dhi] : {std::pair{3, 3}, std::pair{20, 20}, std::pair{1, 40}}) {
            Collect got, want;
            walked.for_each_extension(dlo, dhi, got, offsets.data() + dlo);
            for (int d = dlo; d <= dhi; ++d) {
              detail::Source once(t);
              once.set_canonical_only(canonical_only);
              once.set_rows_inferred(rows);
              once.decode(m, r);
              once.for_each_extension(d, want, offsets[static_cast<std::size_t>(d)]);
            }
            got.sort();
            want.sort();
            ASSERT_EQ(got.points, want.points) << "level " << m << " rank " << r << " + " << dlo << ".." << dhi;
            ASSERT_EQ(got.ranges, want.ranges) << "level " << m << " rank " << r << " + " << dlo << ".." << dhi;
          }
          // (A source that makes only its top corner's marks, or none,
          // records at most that corner.)
          const bool pruned = canonical_only && walked.run_length(1) < walked.rows();
          if (i % 4 == 0 && next < positions && !pruned) {
            recorded.assign(41, 0);
            shifted = walked.kept_runs();
            for (int d : {3, 20}) recorded[static_cast<std::size_t>(d)] = walked.recorded_corners(d);
          }
        }
      }
    }
  }
  // (Records rarely overflow: most named successors find every corner they share.)
  EXPECT_GT(named, 2000);
  EXPECT_GT(exact, named * 9 / 10);
}

TEST(Extensions, LevelsTakenTogetherMatchOneLevelAtATime) {
  // The sieve hands a source's levels up to config::kJointExtraTiles above
  // it to the kernel in one call, which walks each corner once for all of
  // them and splits longer spans. Every position of level 16 in turn (seek,
  // a fresh decode every 41), with d = 1..40 together (two walks), a part of
  // that span, and, every fifth source, one d alone before them (so that
  // marks recorded by one kind of call are reused by the other): every
  // level's marks must equal those of a fresh decoder asked for that level
  // alone. Each level has its own offset, so a mark names its level.
  const int m = 16, max_d = 40;
  static_assert(max_d > config::kJointExtraTiles, "the span must need two walks");
  const PartitionTable t(m + max_d);
  std::vector<std::uint64_t> offsets(max_d + 1);
  for (int d = 0; d <= max_d; ++d) offsets[static_cast<std::size_t>(d)] = static_cast<std::uint64_t>(d) << 40;
  for (bool canonical_only : {false, true}) {
    const auto fresh = [&](std::uint64_t r, int dlo, int dhi) {
      Collect want;
      for (int d = dlo; d <= dhi; ++d) {
        detail::Source once(t);
        once.set_canonical_only(canonical_only);
        once.decode(m, r);
        once.for_each_extension(d, want, offsets[static_cast<std::size_t>(d)]);
      }
      want.sort();
      return want;
    };
    walk_level(t, m, canonical_only, 41, [&](detail::Source& walked, std::uint64_t r) {
      if (r % 5 == 0) {
        const int d = 1 + static_cast<int>(r % max_d);
        Collect alone;
        walked.for_each_extension(d, alone, offsets[static_cast<std::size_t>(d)]);
        alone.sort();
        const Collect want = fresh(r, d, d);
        ASSERT_EQ(alone.points, want.points) << "rank " << r << " + " << d;
        ASSERT_EQ(alone.ranges, want.ranges) << "rank " << r << " + " << d;
      }
      const int lo = 1 + static_cast<int>(r % 7), hi = 10 + static_cast<int>(r % 23);
      for (const auto& [dlo, dhi] : {std::pair{1, max_d}, std::pair{lo, hi}}) {
        Collect together;
        walked.for_each_extension(dlo, dhi, together, offsets.data() + dlo);
        together.sort();
        const Collect want = fresh(r, dlo, dhi);
        ASSERT_EQ(together.points, want.points) << "rank " << r << " + " << dlo << ".." << dhi;
        ASSERT_EQ(together.ranges, want.ranges) << "rank " << r << " + " << dlo << ".." << dhi;
      }
    });
  }
}

namespace {

/// Whether a position is canonical: its first row at least as long as its
/// first column.
bool canonical(const Rows& rows) { return rows.front() >= static_cast<int>(rows.size()); }

/// The transpose, column by column.
Rows transposed(const Rows& rows) {
  Rows out;
  for (int c = 0; c < rows.front(); ++c)
    out.push_back(static_cast<int>(std::count_if(rows.begin(), rows.end(), [&](int len) { return len > c; })));
  return out;
}

/// Runs of equal rows, (row length, rows), top first.
using Runs = std::vector<std::pair<int, int>>;
Runs runs_of(const Rows& rows) {
  Runs runs;
  for (int len : rows) {
    if (!runs.empty() && runs.back().first == len) ++runs.back().second; else runs.emplace_back(len, 1);
  }
  return runs;
}
Runs runs_of(const detail::Source& s) {
  Runs runs;
  for (int k = 1; k <= s.runs(); ++k) runs.emplace_back(s.run_length(k), s.run_rows(k));
  return runs;
}

}  // namespace

TEST(Transposes, RowsAndTransposedRankOfEveryPositionUpTo30Tiles) {
  const PartitionTable t(30);
  detail::Source s(t);
  for (int n = 1; n <= 30; ++n)
    for (std::uint64_t r = 0; r < t.positions(n); ++r) {
      const Rows rows = t.unrank(n, r);
      if (r % 13 == 0) s.decode(n, r); else s.seek(r);
      ASSERT_EQ(s.rows(), static_cast<int>(rows.size())) << rows_to_string(rows);
      ASSERT_EQ(s.transposed_rank(), t.rank(transposed(rows))) << rows_to_string(rows);
    }
}

TEST(Decoding, EveryRankJustAboveTheTableOfTailsGivesTheRowsOfTheRanking) {
  // Levels 28..42: the first runs are found by search, not read from the
  // table of decoded tails (config::kDecodedTailTiles), and every run
  // length and row count the search can meet at these sizes occurs: parts
  // of 2 (found in closed form), runs of one row (the test of q = 2 fails)
  // and of many. Each rank decoded from scratch and reached by seek from
  // the one before: the runs are those of PartitionTable::unrank's rows,
  // and the transposed rank, asked for two ranks in three (the sum kept
  // from an earlier call must survive seeks that did not ask), twice for
  // some, is the rank of the transposed rows. The walk decodes afresh in
  // the middle of each level (which must drop the kept sum).
  static_assert(config::kDecodedTailTiles < 28, "the levels must start above the table");
  const PartitionTable t(42);
  for (int n = 28; n <= 42; ++n) {
    detail::Source walked(t), fresh(t);
    for (std::uint64_t r = 0; r < t.positions(n); ++r) {
      if (r == 0 || r == t.positions(n) / 2) walked.decode(n, r); else walked.seek(r);
      fresh.decode(n, r);
      const Rows rows = t.unrank(n, r);
      for (const detail::Source* s : {&walked, &fresh})
        ASSERT_EQ(runs_of(*s), runs_of(rows)) << "n = " << n << ", rank " << r << (s == &walked ? " (seek)" : " (decode)");
      if (r % 3 != 2) {
        const std::uint64_t want = t.rank(transposed(rows));
        ASSERT_EQ(walked.transposed_rank(), want) << "n = " << n << ", rank " << r;
        if (r % 5 == 0) {
          ASSERT_EQ(walked.transposed_rank(), want) << "n = " << n << ", rank " << r << " (again)";
        }
      }
    }
  }
}

TEST(Decoding, SeeksThroughSparseRanksOfLargeLevelsGiveTheRowsOfTheRanking) {
  // A decoder walked through increasing ranks about a hundred apart, as
  // through a level's losing positions, at 60, 120 and 200 tiles, from
  // rank 0, p(n) / 3 and 2 p(n) / 3 (first runs short and long; the
  // bisections above config::kDecodedTailTiles tiles, the table of decoded
  // tails below), and each position decoded from scratch: its runs are
  // those of PartitionTable::unrank's rows, and its rows and transposed
  // rank follow.
  const PartitionTable t(200);
  std::mt19937_64 rng(7);
  for (int n : {60, 120, 200}) {
    for (std::uint64_t third = 0; third < 3; ++third) {
      detail::Source walked(t), fresh(t);
      std::uint64_t r = t.positions(n) / 3 * third;
      for (int i = 0; i < 3000; ++i) {
        r += 1 + rng() % 200;
        ASSERT_LT(r, t.positions(n));
        if (i == 0) walked.decode(n, r); else walked.seek(r);
        fresh.decode(n, r);
        const Rows rows = t.unrank(n, r);
        for (const detail::Source* s : {&walked, &fresh}) {
          ASSERT_EQ(runs_of(*s), runs_of(rows)) << "n = " << n << ", rank " << r << (s == &walked ? " (seek)" : " (decode)");
          ASSERT_EQ(s->rows(), static_cast<int>(rows.size()));
        }
        ASSERT_EQ(walked.transposed_rank(), t.rank(transposed(rows))) << "n = " << n << ", rank " << r;
      }
    }
  }
}

TEST(Transposes, NotCanonicalBitsAreExactlyThePositionsWithALongerFirstColumn) {
  // Whole levels, and levels cut into pieces of 64, 128 and 4,096 bits (the
  // sieve sets a segment at a time), against each position's own rows;
  // level 61 reads the second table's patterns of up to 59 tiles.
  const PartitionTable t(61);
  for (int n : {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 61}) {
    const std::uint64_t p = t.positions(n);
    for (std::uint64_t piece : {std::uint64_t{64}, std::uint64_t{128}, std::uint64_t{4096}, p + 64}) {
      piece &= ~std::uint64_t{63};
      std::vector<std::uint64_t> words(p / 64 + 1, 0);
      for (std::uint64_t lo = 0; lo < p; lo += piece)
        detail::set_not_canonical(t, n, lo, std::min(p, lo + piece), words.data() + lo / 64);
      std::uint64_t set = 0;
      for (std::uint64_t r = 0; r < p; ++r) {
        const bool bit = (words[r / 64] >> (r % 64)) & 1;
        set += bit;
        ASSERT_EQ(bit, !canonical(t.unrank(n, r))) << "n = " << n << ", rank " << r << ", pieces of " << piece;
      }
      for (std::uint64_t r = p; r < words.size() * 64; ++r) ASSERT_FALSE((words[r / 64] >> (r % 64)) & 1);
      if (n >= 3) {
        EXPECT_GT(set, 0U);
      }
    }
  }
}

TEST(Transposes, CanonicalOnlyDecodersMakeEveryCanonicalExtensionAndLessBesides) {
  // Every source of levels 1..14 (one decoder walked through each level
  // with seek, so reuse records are in play), extended by 1..20 tiles (more
  // than config::kShapeTiles, so a top corner's bounded blocks are also
  // enumerated part by part): a decoder that makes canonical extensions only
  // must still make every canonical one, and nothing that is not an
  // extension; a source whose first row is shorter than its first column
  // must make canonical ones only. Ranges count position by position.
  const int max_m = 14, max_d = 20;
  static_assert(max_d > config::kShapeTiles, "blocks beyond the shape table");
  const PartitionTable t(max_m + max_d);
  std::uint64_t all = 0, kept = 0;
  for (int m = 1; m <= max_m && !HasFatalFailure(); ++m)
    walk_level(t, m, true, t.positions(m), [&](detail::Source& pruned, std::uint64_t r) {
      const Rows source = t.unrank(m, r);
      for (int d = 1; d <= max_d; ++d) {
        // The oracle shares no code with the kernel (tests/reference_extensions.hpp).
        std::vector<std::uint64_t> want, got;
        chomp::testing::reference_extension_ranks(t, source, d, want);
        Collect c;
        pruned.for_each_extension(d, c);
        got = c.points;
        for (std::size_t i = 0; i < c.ranges.size(); i += 2)
          for (std::uint64_t x = 0; x < c.ranges[i + 1]; ++x) got.push_back(c.ranges[i] + x);
        std::sort(want.begin(), want.end());
        std::sort(got.begin(), got.end());
        ASSERT_TRUE(std::adjacent_find(got.begin(), got.end()) == got.end()) << "a mark made twice";
        ASSERT_TRUE(std::includes(want.begin(), want.end(), got.begin(), got.end()))
            << rows_to_string(source) << " + " << d << ": a mark that is not an extension";
        for (std::uint64_t x : want) {
          const bool made = std::binary_search(got.begin(), got.end(), x);
          if (canonical(t.unrank(m + d, x))) {
            ASSERT_TRUE(made) << rows_to_string(source) << " + " << d << ": " << rows_to_string(t.unrank(m + d, x))
                              << " not made";
          }
        }
        if (!canonical(source)) {
          for (std::uint64_t x : got) ASSERT_TRUE(canonical(t.unrank(m + d, x))) << rows_to_string(t.unrank(m + d, x));
        }
        all += want.size();
        kept += got.size();
      }
    });
  // Sources this small, far below most of their targets, make most of
  // their marks at the top corner and in the new row: a fifth of the marks
  // is saved here (0.79 kept), against a third in the sieve's runs.
  EXPECT_LT(kept, all * 85 / 100);
  EXPECT_GT(kept, all / 2);
}

TEST(Extensions, RowsInferredAndTopOnlySplitTheExtensionsByTheRowOfTheirMove) {
  // The kernels of src/tail_marks.hpp: one that leaves the moves of the
  // first row, or the first two, to their bits (set_rows_inferred), one
  // that makes only the top corner (set_top_only, the rays). For every
  // source of levels 1..14 walked with seek (reuse records in play) and
  // every d up to 20 (top-corner blocks beyond the shape table), an
  // extension's move is at the first row where it differs from the source:
  // the second kernel makes exactly those of the first row; the first
  // exactly those below the inferred rows, and those that add rows under a
  // source with fewer rows (its new row, a row of length 0 before). With
  // canonical_only, the first still makes every canonical one of those, and
  // a source whose first row is shorter than its first column makes none.
  const int max_m = 14, max_d = 20;
  static_assert(max_d > config::kShapeTiles, "blocks beyond the shape table");
  const PartitionTable t(max_m + max_d);
  std::uint64_t top = 0, second = 0, rest = 0;
  for (const int rows : {1, 2})
  for (const bool canonical_only : {false, true})
    for (int m = 1; m <= max_m && !HasFatalFailure(); ++m) {
      detail::Source rays(t);
      rays.set_top_only(true);
      walk_level(t, m, canonical_only, 53, [&](detail::Source& inferred, std::uint64_t r) {
        inferred.set_rows_inferred(rows);
        if (r % 53 == 0)
          rays.decode(m, r);
        else
          rays.seek(r);
        const Rows source = t.unrank(m, r);
        for (int d = 1; d <= max_d; ++d) {
          Collect a, b;
          inferred.for_each_extension(d, a);
          rays.for_each_extension(d, b);
          ASSERT_TRUE(b.ranges.empty());
          std::vector<std::uint64_t> got = a.points;
          for (std::size_t i = 0; i < a.ranges.size(); i += 2)
            for (std::uint64_t x = 0; x < a.ranges[i + 1]; ++x) got.push_back(a.ranges[i] + x);
          std::sort(got.begin(), got.end());
          std::sort(b.points.begin(), b.points.end());
          ASSERT_TRUE(std::adjacent_find(got.begin(), got.end()) == got.end()) << "a mark made twice";
          ASSERT_TRUE(std::adjacent_find(b.points.begin(), b.points.end()) == b.points.end()) << "a ray made twice";
          std::vector<std::uint64_t> all;  // the independent reference, not the kernel
          chomp::testing::reference_extension_ranks(t, source, d, all);
          for (const std::uint64_t x : all) {
            const Rows ext = t.unrank(m + d, x);
            std::size_t row = 0;
            while (row < source.size() && ext[row] == source[row]) ++row;
            const bool first_row = row == 0;
            const bool made = !(static_cast<int>(row) < rows && row < source.size());
            const bool in_a = std::binary_search(got.begin(), got.end(), x);
            const bool in_b = std::binary_search(b.points.begin(), b.points.end(), x);
            ASSERT_EQ(in_b, first_row) << rows_to_string(source) << " + " << d << ": " << rows_to_string(ext);
            if (!made || !canonical_only) {
              ASSERT_EQ(in_a, made) << rows_to_string(source) << " + " << d << ": " << rows_to_string(ext);
            } else if (canonical(ext)) {
              ASSERT_TRUE(in_a) << rows_to_string(source) << " + " << d << ": " << rows_to_string(ext);
            }
            if (canonical_only && !canonical(source)) {
              ASSERT_FALSE(in_a) << rows_to_string(source) << " + " << d;
            }
            if (rows == 2) top += first_row, second += row == 1 && source.size() >= 2, rest += in_a;
          }
          // Nothing besides the extensions.
          ASSERT_LE(got.size() + b.points.size(), all.size());
        }
      });
    }
  EXPECT_GT(top, rest / 4) << "the top corner is a large share of the marks";
  EXPECT_GT(second, rest / 20) << "so is the second row";
}

TEST(Extensions, TheBoundOfACallIsNeverBelowWhatItMarks) {
  // Source::extension_bound(d) decides which calls skip the buckets (the
  // memory a round can take rests on it): every source of levels 1..24,
  // walked with seek (reuse records in play), every extension and the
  // canonical ones only, whole and in slices of first rows, d = 1..40
  // (beyond the joint span and the shape table): the marks a call makes,
  // a range counted as its length, are at most the bound, and some calls
  // meet it exactly.
  const int max_m = 24, max_d = 40;
  const PartitionTable t(max_m + max_d);
  std::uint64_t calls = 0, tight = 0;
  for (bool canonical_only : {false, true})
    for (const auto& [lo, hi] : {std::pair{1, kMaxTiles + 1}, std::pair{12, 20}}) {
      for (int m = 1; m <= max_m && !HasFatalFailure(); ++m)
        walk_level(t, m, canonical_only, 61, [&](detail::Source& s, std::uint64_t r) {
          s.set_first_rows(lo, hi);
          for (int d = 1; d <= max_d; ++d) {
            Collect c;
            s.for_each_extension(d, c);
            std::uint64_t made = c.points.size();
            for (std::size_t i = 1; i < c.ranges.size(); i += 2) made += c.ranges[i];
            const std::uint64_t bound = s.extension_bound(d);
            ASSERT_LE(made, bound) << rows_to_string(t.unrank(m, r)) << " + " << d << ", first rows " << lo << ".."
                                   << hi << (canonical_only ? ", canonical only" : "");
            ++calls;
            tight += made == bound;
          }
        });
    }
  EXPECT_GT(tight, calls / 100) << "the bound is met exactly by some calls (a single corner of one row, say)";
}
