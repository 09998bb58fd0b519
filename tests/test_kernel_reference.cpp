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
#include <cstddef>
#include <cstdint>
#include <vector>

#include "chomp/position.hpp"
#include "chomp/ranking.hpp"
#include "chomp/sieve.hpp"
#include "config.hpp"
#include "extensions.hpp"
#include "reference_extensions.hpp"

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

/// The kernels the sieve uses: every extension (a library run with
/// SieveOptions::transposes = false decides every position); canonical positions only (--file-all-marks:
/// a source whose first row is shorter than its first column makes only
/// top-corner blocks that make its first row at least its first column);
/// and the default, canonical positions only with the moves of the first
/// two rows left to their bits (the sieve walks the canonical sources only,
/// the others being skipped undecoded, and they make exactly the
/// extensions whose move is below the second row, and those that add rows
/// when one of them at least is canonical; a source that is not canonical
/// makes none).
enum class Kernel { every, canonical, inferred };

TEST(KernelReference, EveryLosingSourceOfLevels1To60MarksExactlyItsExtensionsUpTo70) {
  SieveOptions o;
  o.threads = 2;
  Sieve sieve(kSourceLevels, o);
  sieve.run({});
  const PartitionTable t(kTargetLevels);
  std::vector<std::uint64_t> offsets(kTargetLevels + 1);
  for (int n = 0; n <= kTargetLevels; ++n) offsets[static_cast<std::size_t>(n)] = offset_of(n);
  std::uint64_t sources = 0, not_canonical = 0, marks[3] = {};
  for (const Kernel kernel : {Kernel::every, Kernel::canonical, Kernel::inferred}) {
    // One decoder through every level, as a thread's is kept.
    detail::Source walked(t);
    walked.set_canonical_only(kernel != Kernel::every);
    walked.set_rows_inferred(kernel == Kernel::inferred ? 2 : 0);
    const char* name = kernel == Kernel::every       ? "every extension"
                       : kernel == Kernel::canonical ? "canonical positions only"
                                                     : "the first two rows inferred";
    std::vector<std::uint64_t> want;
    for (int m = 1; m <= kSourceLevels; ++m) {
      std::size_t walked_here = 0;
      for (const std::uint64_t r : sieve.losing().all(m)) {
        const Rows mu = t.unrank(m, r);
        const int rows = static_cast<int>(mu.size());
        if (kernel == Kernel::inferred && !canonical(mu)) {
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
        Marks made;
        sieve_calls(walked, m, offsets, made);
        want.clear();
        const std::size_t first_row = kernel == Kernel::inferred ? 2 : 0;
        const int top_least = kernel == Kernel::canonical && !canonical(mu) ? rows - mu.front() : 0;
        for (int d = 1; m + d <= kTargetLevels; ++d)
          chomp::testing::reference_extension_ranks(t, mu, d, want, offset_of(m + d), first_row, top_least,
                                                    kernel == Kernel::inferred);
        std::sort(made.got.begin(), made.got.end());
        std::sort(want.begin(), want.end());
        ASSERT_EQ(made.got, want) << rows_to_string(mu) << ", " << name;
        marks[static_cast<int>(kernel)] += want.size();
        sources += kernel == Kernel::every;
      }
    }
  }
  // All of them (the sum of L(m) for m <= 60), half of them not canonical.
  EXPECT_EQ(sources, 149'226U);
  EXPECT_EQ(not_canonical, 74'598U);
  EXPECT_EQ(marks[0], 42'275'825U);
  EXPECT_EQ(marks[2], 13'043'461U);
  // Canonical positions only: about two thirds of the marks.
  EXPECT_LT(marks[1], marks[0] * 3 / 4);
  EXPECT_GT(marks[1], marks[0] / 2);
}
