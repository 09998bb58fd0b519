// The 3D sieve against an independent brute force (positions as sets of
// cubes, built by adding cubes one at a time, solved by memoized recursion
// over every move), the six axis symmetries, the 2D engine on flat
// positions, and `chomp sieve --dimensions 3` end to end.

#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include "chomp/analyze3d.hpp"
#include "chomp/h5_output.hpp"
#include "chomp/macmahon_ranking.hpp"
#include "chomp/plane_partition.hpp"
#include "chomp/plane_ranking.hpp"
#include "chomp/sieve.hpp"
#include "chomp/sieve3d.hpp"
#include "chomp_process.hpp"
#include "h5_attributes.hpp"

using namespace chomp;
using namespace chomp::testing;

namespace {

using CubeSet = std::set<std::array<int, 3>>;  // 1-based (row, column, layer)

/// Every down-closed set of n cubes containing (1,1,1), for n = 1..max, by
/// adding one cube at a time to the sets of n - 1 (a cube may be added when
/// its three lower neighbours are there or off the board).
std::vector<std::set<CubeSet>> brute_levels(int max) {
  std::vector<std::set<CubeSet>> levels(static_cast<std::size_t>(max) + 1);
  levels[1].insert(CubeSet{{1, 1, 1}});
  for (int n = 2; n <= max; ++n)
    for (const CubeSet& p : levels[static_cast<std::size_t>(n - 1)]) {
      std::set<std::array<int, 3>> candidates;
      for (const auto& c : p)
        for (int a = 0; a < 3; ++a) {
          auto d = c;
          ++d[static_cast<std::size_t>(a)];
          candidates.insert(d);
        }
      for (const auto& d : candidates) {
        if (p.count(d)) continue;
        bool supported = true;
        for (int a = 0; a < 3; ++a) {
          auto e = d;
          if (--e[static_cast<std::size_t>(a)] >= 1 && !p.count(e)) supported = false;
        }
        if (!supported) continue;
        CubeSet q = p;
        q.insert(d);
        levels[static_cast<std::size_t>(n)].insert(std::move(q));
      }
    }
  return levels;
}

/// Losing iff every move (taking c and every cube >= c, c not the poisoned
/// cube) leaves a winning position; the single cube is losing.
class BruteForce3d {
 public:
  bool losing(const CubeSet& p) {
    if (auto it = memo_.find(p); it != memo_.end()) return it->second;
    bool lose = true;
    for (const auto& c : p) {
      if (c == std::array<int, 3>{1, 1, 1}) continue;
      CubeSet q;
      for (const auto& x : p)
        if (!(x[0] >= c[0] && x[1] >= c[1] && x[2] >= c[2])) q.insert(x);
      if (losing(q)) {
        lose = false;
        break;
      }
    }
    return memo_[p] = lose;
  }

 private:
  std::map<CubeSet, bool> memo_;
};

CubeSet cube_set(const Heights& h) {
  CubeSet s;
  for (const Cube& c : cubes_of(h)) s.insert({c.row, c.col, c.layer});
  return s;
}

constexpr int kBruteMax = 15;

}  // namespace

TEST(Sieve3d, AgreesWithBruteForceOnEveryLosingSetUpTo15) {
  const auto levels = brute_levels(kBruteMax);
  BruteForce3d brute;
  Sieve3d sieve(kBruteMax);
  const auto pl = plane_partition_counts(kBruteMax);
  for (int n = 1; n <= kBruteMax; ++n) {
    const LevelResult r = sieve.next_level();
    ASSERT_EQ(r.tiles, n);
    EXPECT_EQ(levels[static_cast<std::size_t>(n)].size(), pl[static_cast<std::size_t>(n)]) << n;
    EXPECT_EQ(r.positions, pl[static_cast<std::size_t>(n)]) << n;
    std::set<CubeSet> expect;
    for (const CubeSet& p : levels[static_cast<std::size_t>(n)])
      if (brute.losing(p)) expect.insert(p);
    std::set<CubeSet> got;
    for (const Heights& h : sieve.losing_positions(n)) got.insert(cube_set(h));
    EXPECT_EQ(got, expect) << "level " << n;
    EXPECT_EQ(r.losing, expect.size()) << n;
  }
  // The first levels by hand: 1 cube loses; 2 cubes win (take all but the
  // poisoned cube); of the 6 positions of 3 cubes the losing ones are the
  // L shape of 2D (2,1 flat) in its three orientations.
  EXPECT_EQ(sieve.losing_positions(1), (std::vector<Heights>{{{1}}}));
  EXPECT_TRUE(sieve.losing_positions(2).empty());
  EXPECT_EQ(sieve.losing_positions(3).size(), 3u);
  EXPECT_TRUE(sieve.losing(parse_heights("1,1/1")));
  EXPECT_TRUE(sieve.losing(parse_heights("2/1")));
  EXPECT_TRUE(sieve.losing(parse_heights("2,1")));
  EXPECT_FALSE(sieve.losing(parse_heights("1,1,1")));
  EXPECT_THROW(sieve.losing(parse_heights("16")), InvalidPosition);
}

TEST(Sieve3d, LosingSetsAreClosedUnderTheSixAxisPermutations) {
  Sieve3d sieve(18);
  for (int n = 1; n <= 18; ++n) {
    sieve.next_level();
    const auto losing = sieve.losing_positions(n);
    const std::set<Heights> set(losing.begin(), losing.end());
    for (const Heights& h : losing)
      for (const auto& p : axis_permutations()) EXPECT_TRUE(set.count(permute_axes(h, p))) << heights_to_string(h);
  }
}

TEST(Sieve3d, SymmetricAndFullSievesFindTheSameSets) {
  Sieve3d sym(18), full(18, Sieve3dOptions{false});
  for (int n = 1; n <= 18; ++n) {
    const LevelResult a = sym.next_level(), b = full.next_level();
    EXPECT_EQ(a.positions, b.positions);
    EXPECT_EQ(a.losing, b.losing) << n;
    EXPECT_LE(a.marks, b.marks);  // fewer moves examined
    EXPECT_EQ(sym.losing_positions(n), full.losing_positions(n)) << n;
  }
}

// The committed 3D table (data/levels3d-40.h5, made by the CLI on two
// threads) is what the sieve computes now: levels 1..30 (about a second),
// positions, losing and marks. Levels 1..15 are checked against brute force
// above; this pins the table beyond them to the engine that made it.
TEST(Sieve3d, LevelsTo30AreTheCommittedTable) {
  const LevelTable committed = read_level_file(std::string(CHOMP_DATA_DIR) + "/levels3d-40.h5");
  ASSERT_GE(committed.tiles.size(), 30U);
  Sieve3d sieve(30);
  for (int n = 1; n <= 30; ++n) {
    const LevelResult row = sieve.next_level();
    const auto i = static_cast<std::size_t>(n - 1);
    ASSERT_EQ(committed.tiles[i], static_cast<std::uint32_t>(n));
    EXPECT_EQ(row.positions, committed.positions[i]) << "level " << n;
    EXPECT_EQ(row.losing, committed.losing[i]) << "level " << n;
    EXPECT_EQ(row.marks, committed.marks[i]) << "level " << n;
  }
}

// The moves examined (a level's marks) depend on the move tried first,
// which is reset at every first row: 1, 2 and 3 threads give the same rows.
TEST(Sieve3d, OneTwoAndThreeThreadsGiveTheSameLevelsAndMarks) {
  constexpr int kMax = 24;
  std::vector<std::vector<LevelResult>> runs;
  for (int threads : {1, 2, 3}) {
    // An arena of that many threads: 3 are 3 on a 2-core machine too.
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    tbb::task_arena arena(threads);
    std::vector<LevelResult> rows;
    arena.execute([&] {
      EXPECT_EQ(tbb::this_task_arena::max_concurrency(), threads);
      Sieve3d sieve(kMax);
      for (int n = 1; n <= kMax; ++n) rows.push_back(sieve.next_level());
    });
    runs.push_back(rows);
  }
  for (std::size_t t = 1; t < runs.size(); ++t)
    for (int n = 1; n <= kMax; ++n) {
      const LevelResult &a = runs[0][static_cast<std::size_t>(n - 1)], &b = runs[t][static_cast<std::size_t>(n - 1)];
      EXPECT_EQ(a.positions, b.positions) << n;
      EXPECT_EQ(a.losing, b.losing) << n;
      EXPECT_EQ(a.marks, b.marks) << "level " << n << ", " << t + 1 << " threads";
    }
}

TEST(Sieve3d, AnalyzeOfOnePositionAgreesWithTheSieve) {
  Sieve3d sieve(12);
  for (int n = 1; n <= 12; ++n) sieve.next_level();
  int checked = 0;
  for (int n = 1; n <= 12; ++n)
    for_each_plane_partition(n, [&](const Heights& h) {
      const Analysis3d a = analyze_3d(h);
      ASSERT_EQ(a.losing, sieve.losing(h)) << heights_to_string(h);
      for (const Cube& c : moves_3d(h)) {
        const bool to_losing = sieve.losing(apply_move(h, c));
        const bool listed = std::find(a.winning_moves.begin(), a.winning_moves.end(), c) != a.winning_moves.end();
        ASSERT_EQ(listed, to_losing) << heights_to_string(h);
      }
      ++checked;
    });
  EXPECT_EQ(checked, 1 + 3 + 6 + 13 + 24 + 48 + 86 + 160 + 282 + 500 + 859 + 1479);
  EXPECT_THROW(analyze_3d(parse_heights("5,5,5/5,5,5/5,5,5"), 1000), std::length_error);
  // A long solve reports its progress every 65,536 positions, up to the
  // limit at which it gives up.
  std::vector<std::uint64_t> seen;
  EXPECT_THROW(analyze_3d(parse_heights("4,4,4,4,3/4,4,4,3,2/4,4,3,2,1/4,3,2,1"), 200'000,
                          [&](std::uint64_t solved, std::uint64_t limit) {
                            EXPECT_EQ(limit, 200'000U);
                            seen.push_back(solved);
                          }),
               std::length_error);
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{65'536, 131'072, 196'608}));
}

TEST(Sieve3d, CliAnalyzesA3dPosition) {
  // 2,2/2,2: the divisors of 30 = 2 x 3 x 5, the 2 x 2 x 2 box.
  const ProcessResult r = run_chomp({"analyze", "--dimensions", "3", "2,2/2,2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Analysis3d a = analyze_3d(parse_heights("2,2/2,2"));
  ASSERT_FALSE(a.losing);
  EXPECT_NE(r.out.find("Status: winning"), std::string::npos) << r.out;
  for (const Cube& c : a.winning_moves) {
    const std::string line = "(" + std::to_string(c.row) + "," + std::to_string(c.col) + "," + std::to_string(c.layer) +
                             ") leaves " + heights_to_string(apply_move(parse_heights("2,2/2,2"), c));
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
  const ProcessResult l = run_chomp({"analyze", "--dimensions", "3", "2,1", "--json"});
  ASSERT_EQ(l.exit_code, 0) << l.err;
  EXPECT_NE(l.out.find("\"status\": \"losing\""), std::string::npos) << l.out;
  // From a losing position, as in 2D, the best move leaves the most cubes
  // (the first such in move order); the text names it, the JSON too.
  const Heights losing = parse_heights("2,1");
  Cube best{};
  int most = -1;
  for (const Cube& c : moves_3d(losing))
    if (cube_count(apply_move(losing, c)) > most) most = cube_count(apply_move(losing, c)), best = c;
  const std::string left = heights_to_string(apply_move(losing, best));
  EXPECT_NE(l.out.find("\"best_move\": {\"row\": " + std::to_string(best.row) + ", \"col\": " +
                       std::to_string(best.col) + ", \"layer\": " + std::to_string(best.layer) + ", \"leaves\": \"" +
                       left + "\"}"),
            std::string::npos)
      << l.out;
  const ProcessResult lt = run_chomp({"analyze", "--dimensions", "3", "2,1"});
  EXPECT_NE(lt.out.find("Best move: (" + std::to_string(best.row) + "," + std::to_string(best.col) + "," +
                        std::to_string(best.layer) + ") leaves " + left + ", the largest position left"),
            std::string::npos)
      << lt.out;
  const ProcessResult poisoned = run_chomp({"analyze", "--dimensions", "3", "1"});
  EXPECT_NE(poisoned.out.find("Best move: (1,1,1) leaves nothing"), std::string::npos) << poisoned.out;
  const ProcessResult bad = run_chomp({"analyze", "--dimensions", "3", "1,2/1"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("must not increase along a row"), std::string::npos) << bad.err;
}

TEST(Sieve3d, FlatPositionsHaveTheirTwoDimensionalStatus) {
  constexpr int kMax = 20;
  Sieve3d sieve(kMax);
  Sieve plane(kMax);  // the 2D engine
  for (int n = 1; n <= kMax; ++n) {
    sieve.next_level();
    plane.next_level();
  }
  int flat = 0, flat_losing = 0;
  for (int n = 1; n <= kMax; ++n)
    for_each_plane_partition(n, [&](const Heights& h) {
      if (h[0][0] != 1) return;  // flat: every height 1
      const Rows rows = flat_rows(h);
      ++flat;
      const bool lose = plane.is_losing(rows);
      flat_losing += lose;
      EXPECT_EQ(sieve.losing(h), lose) << heights_to_string(h);
    });
  // Every 2D position of 1..20 tiles, and the 2D engine's losing count.
  std::uint64_t p = 0, l = 0;
  for (int n = 1; n <= kMax; ++n) p += plane.table().positions(n), l += plane.losing_positions(n).size();
  EXPECT_EQ(static_cast<std::uint64_t>(flat), p);
  EXPECT_EQ(static_cast<std::uint64_t>(flat_losing), l);
}

// What a resumed run does: levels restored from the ranks of their losing
// positions, then the levels above classified as an uninterrupted sieve does.
TEST(Sieve3d, LevelsRestoredFromTheirRanksGiveTheSameLevelsAbove) {
  constexpr int kMax = 17, kRestored = 12;
  Sieve3d whole(kMax);
  std::vector<LevelResult> rows;
  for (int n = 1; n <= kMax; ++n) rows.push_back(whole.next_level());
  const MacMahonRanking ranking(kMax);
  Sieve3d resumed(kMax);
  for (int n = 1; n <= kRestored; ++n) {
    const std::vector<std::uint64_t> ranks = whole.losing_ranks(n);
    ASSERT_EQ(ranks.size(), rows[static_cast<std::size_t>(n - 1)].losing);
    EXPECT_TRUE(std::is_sorted(ranks.begin(), ranks.end()));
    std::vector<Heights> positions;
    for (std::uint64_t r : ranks) positions.push_back(ranking.unrank(n, r));
    std::sort(positions.begin(), positions.end());
    EXPECT_EQ(positions, whole.losing_positions(n)) << "level " << n;
    resumed.restore_level(ranks);
  }
  EXPECT_EQ(resumed.levels_done(), kRestored);
  EXPECT_EQ(resumed.bytes(), [&] {
    Sieve3d part(kRestored);
    for (int n = 1; n <= kRestored; ++n) part.next_level();
    return part.bytes();
  }());
  for (int n = kRestored + 1; n <= kMax; ++n) {
    const LevelResult r = resumed.next_level();
    EXPECT_EQ(r.losing, rows[static_cast<std::size_t>(n - 1)].losing) << n;
    EXPECT_EQ(r.marks, rows[static_cast<std::size_t>(n - 1)].marks) << n;
    EXPECT_EQ(resumed.losing_positions(n), whole.losing_positions(n)) << n;
    EXPECT_EQ(resumed.losing_ranks(n), whole.losing_ranks(n)) << n;
  }
  // Ranks that are not a level's: out of order, repeated, beyond PL(n).
  Sieve3d bad(5);
  EXPECT_THROW(bad.restore_level(std::vector<std::uint64_t>{1}), std::invalid_argument);  // PL(1) = 1
  bad.restore_level(std::vector<std::uint64_t>{0});
  EXPECT_THROW(bad.restore_level(std::vector<std::uint64_t>{2, 1}), std::invalid_argument);
  EXPECT_THROW(bad.restore_level(std::vector<std::uint64_t>{1, 1}), std::invalid_argument);
  EXPECT_EQ(bad.levels_done(), 1);
}

TEST(Sieve3d, CliWritesTheLevelTableWithDimensions3) {
  ScratchDir dir;
  const std::string out = dir.file("levels3d.h5");
  const ProcessResult r = run_chomp({"sieve", "--dimensions", "3", "--max-tiles", "14", "--output", out, "-t", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const LevelTable t = read_level_file(out);
  EXPECT_TRUE(t.complete());
  EXPECT_EQ(t.number_attributes.at("dimensions"), 3);
  EXPECT_EQ(t.number_attributes.at("max_tiles"), 14);
  Sieve3d sieve(14);
  const auto pl = plane_partition_counts(14);
  ASSERT_EQ(t.tiles.size(), 14u);
  for (int n = 1; n <= 14; ++n) {
    const LevelResult level = sieve.next_level();
    const auto i = static_cast<std::size_t>(n - 1);
    EXPECT_EQ(t.tiles[i], static_cast<std::uint32_t>(n));
    EXPECT_EQ(t.positions[i], pl[static_cast<std::size_t>(n)]);
    EXPECT_EQ(t.losing[i], level.losing);
    const double pl_n = static_cast<double>(t.positions[i]);
    if (n == 1)
      EXPECT_TRUE(std::isnan(t.hypothesis_ratio[i]));  // ln PL(1) = 0
    else
      EXPECT_NEAR(t.hypothesis_ratio[i], static_cast<double>(t.losing[i]) / (pl_n / std::log(pl_n)), 1e-12);
  }
  // The columns say what they hold in 3D: cubes and plane partitions.
  EXPECT_NE(h5_text_attribute(out, "/levels/tiles", "description").find("cube count"), std::string::npos);
  EXPECT_NE(h5_text_attribute(out, "/levels/positions", "description").find("plane partitions"), std::string::npos);
  EXPECT_NE(h5_text_attribute(out, "/levels/marks", "description").find("moves examined"), std::string::npos);
  EXPECT_NE(h5_text_attribute(out, "/levels/hypothesis_ratio", "description").find("PL(n) / ln PL(n)"), std::string::npos);
  EXPECT_EQ(h5_text_attribute(out, "/levels/losing_fraction", "description"), "L(n) / PL(n)");
  // The printed table has the same counts (level 3: 6 positions, 3 losing).
  char row[64];
  std::snprintf(row, sizeof row, "%6d %16d %14d ", 3, 6, 3);
  EXPECT_NE(r.out.find(row), std::string::npos) << r.out;
}

TEST(Sieve3d, CliRefusesWhatItDoesNotSupport) {
  ScratchDir dir;
  const std::string out = dir.file("x.h5");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"sieve", "--dimensions", "3", "--store-losing", "3", "--max-tiles", "5", "-o", out}, "--store-losing"},
      {{"sieve", "--dimensions", "3", "--slices", "2", "--max-tiles", "5", "-o", out}, "--slices"},
      {{"sieve", "--dimensions", "3", "--slice-from", "3", "--max-tiles", "5", "-o", out}, "--slice-from"},
      {{"sieve", "--dimensions", "3", "--processes", "2", "--dry-run", "--max-tiles", "5", "-o", out}, "--processes"},
      {{"sieve", "--dimensions", "3", "--max-tiles", "64", "-o", out}, "at most 56 cubes"},
      {{"sieve", "--dimensions", "4", "--max-tiles", "5", "-o", out}, "dimensions"},
  };
  for (const Case& c : cases) {
    const ProcessResult r = run_chomp(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.says;
  }
  // A 3D file is not continued by the 2D --resume (test_resume3d.cpp has
  // the rest of 3D --resume).
  ASSERT_EQ(run_chomp({"sieve", "--dimensions", "3", "--max-tiles", "4", "-o", out}).exit_code, 0);
  const ProcessResult r = run_chomp({"sieve", "--resume", "--max-tiles", "6", "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--dimensions 3 --resume"), std::string::npos) << r.err;
  EXPECT_EQ(read_level_file(out).tiles.size(), 4u);
}
