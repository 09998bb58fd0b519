/// @file test_kernel_reference.cpp
/// @brief The marking kernel as the sieve calls it, against an enumeration
/// that shares none of its code: every losing position of levels 1..60,
/// extended into every level up to 70.
///
/// The reference builds each extension row by row (a block of d tiles at
/// each corner of the source, as a partition of d into at most the corner's
/// rows, each part at most the room above it; the new row's as any
/// partition of d with parts at most the last row) and ranks the rows from
/// scratch with PartitionTable::rank. The kernel is walked through each
/// level's losing ranks as the sieve walks a part of its store: one decoder,
/// seek from source to source (so the corners shared with the previous
/// source are shifted, not enumerated), a fresh decode at the start of each
/// part, the levels up to config::kJointExtraTiles above the source in one
/// call and the others one at a time, each level at its own offset.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "chomp/position.hpp"
#include "chomp/ranking.hpp"
#include "chomp/sieve.hpp"
#include "config.hpp"
#include "extensions.hpp"

using namespace chomp;

namespace {

constexpr int kSourceLevels = 60;
constexpr int kTargetLevels = 70;
/// Sources between fresh decodes (the sieve's parts hold more; any number
/// puts the reuse records through the same cases).
constexpr std::size_t kPart = 61;

/// Level n's ranks sit at offset n << 40 (p(70) < 2^40), so that a mark
/// names its level.
std::uint64_t offset_of(int n) { return static_cast<std::uint64_t>(n) << 40; }

/// The kernel's marks, ranges position by position.
struct Marks {
  std::vector<std::uint64_t> got;
  void point(std::uint64_t r) { got.push_back(r); }
  void range(std::uint64_t first, std::uint64_t count) {
    for (std::uint64_t x = 0; x < count; ++x) got.push_back(first + x);
  }
};

/// Every position of |mu| + d tiles with a move to mu, built corner by
/// corner, whose move is at row `first_row` (0-based) or below, or that
/// adds rows: (offset + rank) of each into `out`.
void reference_extensions(const PartitionTable& t, const Rows& mu, int d, std::size_t first_row,
                          std::vector<std::uint64_t>& out) {
  const std::uint64_t offset = offset_of(static_cast<int>(tile_count(mu)) + d);
  Rows l;
  Rows nu;
  for (std::size_t j = 0; j <= mu.size(); ++j) {
    if (j > 0 && j < mu.size() && mu[j] == mu[j - 1]) continue;  // not a corner
    if (j < first_row && j < mu.size()) continue;                 // a move of a row left out
    const int c = j < mu.size() ? mu[j] : 0;
    std::size_t k = 0;
    while (j + k < mu.size() && mu[j + k] == c) ++k;
    const std::size_t rows_cap = j < mu.size() ? k : static_cast<std::size_t>(d);
    const int room = j == 0 ? d : mu[j - 1] - c;
    const auto add = [&](const auto& self, int left, int largest) -> void {
      if (left == 0) {
        l = mu;
        if (j == mu.size()) l.resize(mu.size() + nu.size(), 0);
        for (std::size_t i = 0; i < nu.size(); ++i) l[j + i] += nu[i];
        out.push_back(offset + t.rank(l));
        return;
      }
      if (nu.size() == rows_cap) return;
      for (int x = std::min(largest, left); x >= 1; --x) {
        nu.push_back(x);
        self(self, left - x, x);
        nu.pop_back();
      }
    };
    add(add, d, room);
  }
}

/// Calls the kernel for one source as the sieve does: levels m + 1 ..
/// m + kJointExtraTiles in one call, then each level above alone.
void sieve_calls(detail::Source& s, int m, const std::vector<std::uint64_t>& offsets, Marks& marks) {
  const int joint_top = std::min(kTargetLevels - m, config::kJointExtraTiles);
  s.for_each_extension(1, joint_top, marks, offsets.data() + m + 1);
  for (int d = joint_top + 1; m + d <= kTargetLevels; ++d)
    s.for_each_extension(d, marks, offsets[static_cast<std::size_t>(m + d)]);
}

bool canonical(const Rows& rows) { return rows.front() >= static_cast<int>(rows.size()); }

}  // namespace

TEST(KernelReference, EveryLosingSourceOfLevels1To60MarksExactlyItsExtensionsUpTo70) {
  // Two kernels: one that makes every extension (what a run that files
  // every mark uses), and the sieve's default, canonical positions only and
  // the moves of the first two rows left to their bits: it walks the
  // canonical sources only (the others are skipped undecoded), and makes
  // exactly the extensions whose move is below the second row or that add
  // rows, canonical or not; a source that is not canonical makes none.
  SieveOptions o;
  o.threads = 2;
  Sieve sieve(kSourceLevels, o);
  sieve.run({});
  const PartitionTable t(kTargetLevels);
  std::vector<std::uint64_t> offsets(kTargetLevels + 1);
  for (int n = 0; n <= kTargetLevels; ++n) offsets[static_cast<std::size_t>(n)] = offset_of(n);
  std::uint64_t sources = 0, marks_all = 0, marks_inferred = 0, not_canonical = 0;
  for (int m = 1; m <= kSourceLevels; ++m) {
    const std::vector<std::uint64_t> ranks = sieve.losing().all(m);
    for (const bool sieve_default : {false, true}) {
      detail::Source walked(t);
      walked.set_canonical_only(sieve_default);
      walked.set_rows_inferred(sieve_default ? 2 : 0);
      std::size_t walked_here = 0;
      std::vector<std::uint64_t> want;
      for (const std::uint64_t r : ranks) {
        const Rows mu = t.unrank(m, r);
        if (sieve_default && !canonical(mu)) {
          // Not walked; a decoder asked anyway makes nothing.
          detail::Source once(t);
          once.set_canonical_only(true);
          once.set_rows_inferred(2);
          once.decode(m, r);
          Marks none;
          sieve_calls(once, m, offsets, none);
          ASSERT_TRUE(none.got.empty()) << rows_to_string(mu);
          ++not_canonical;
          continue;
        }
        if (walked_here++ % kPart == 0)
          walked.decode(m, r);
        else
          walked.seek(r);
        Marks marks;
        sieve_calls(walked, m, offsets, marks);
        want.clear();
        for (int d = 1; m + d <= kTargetLevels; ++d) reference_extensions(t, mu, d, sieve_default ? 2 : 0, want);
        std::sort(marks.got.begin(), marks.got.end());
        std::sort(want.begin(), want.end());
        ASSERT_EQ(marks.got, want) << rows_to_string(mu) << (sieve_default ? ", the sieve's kernel" : ", every mark");
        (sieve_default ? marks_inferred : marks_all) += want.size();
        sources += !sieve_default;
      }
    }
  }
  // All of them (sum of L(m) for m <= 60: 149,226, half of them not
  // canonical), for 42.3 million marks, 16.1 million of them the sieve's.
  EXPECT_EQ(sources, 149'226U);
  EXPECT_GT(not_canonical, sources / 3);
  EXPECT_LT(marks_inferred, marks_all / 2);
  EXPECT_GT(marks_inferred, marks_all / 20);
}
