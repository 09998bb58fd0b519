// The divisor game and Chomp on the down-sets of a box of any dimension:
// factoring, counting down-sets, and the box solver against the 2D bounded
// solver (every position of small boards), the 3D solver (every position
// of small boxes) and, for N with four and five primes, an independent
// brute force over sets of numbers that knows nothing of boxes; then
// `chomp divisors` end to end against `chomp analyze` and `chomp rectangles`.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <regex>
#include <set>
#include <unordered_map>

#include "chomp/analyze3d.hpp"
#include "chomp/bounded.hpp"
#include "chomp/box_chomp.hpp"
#include "chomp/divisors.hpp"
#include "chomp/plane_partition.hpp"
#include "chomp/plane_ranking.hpp"
#include "chomp_process.hpp"

using namespace chomp;

namespace {

/// Every down-set of a box of at most 64 cells, by adding cells to the
/// down-sets found so far until nothing new appears (a plain closure, not
/// the solver's reverse search), in the order of their cells as bit masks.
std::vector<CellSet> all_down_sets(const Box& box) {
  EXPECT_LE(box.cells(), 64u);
  const auto mask_of = [](const CellSet& p) {
    std::uint64_t m = 0;
    for (std::size_t c = 0; c < p.size(); ++c) m |= std::uint64_t{p[c] ? 1u : 0u} << c;
    return m;
  };
  std::set<std::uint64_t> seen{0};
  std::vector<CellSet> todo{CellSet(box.cells(), 0)}, out;
  while (!todo.empty()) {
    const CellSet p = todo.back();
    todo.pop_back();
    out.push_back(p);
    for (std::size_t c = 0; c < box.cells(); ++c) {
      if (p[c]) continue;
      CellSet q = p;
      q[c] = 1;
      if (down_set_problem(box, q).empty() && seen.insert(mask_of(q)).second) todo.push_back(q);
    }
  }
  std::sort(out.begin(), out.end(), [&](const CellSet& a, const CellSet& b) { return mask_of(a) < mask_of(b); });
  return out;
}

/// A 2D cell set as the rows of a staircase (axis 0 the row).
Rows rows_of(const Box& box, const CellSet& p) {
  Rows rows;
  for (int r = 1; r <= box.extent(0); ++r) {
    int len = 0;
    while (len < box.extent(1) && p[box.index(std::vector<int>{r, len + 1})]) ++len;
    if (len == 0) break;
    rows.push_back(len);
  }
  return rows;
}

/// A 3D cell set as a height matrix (axes: row, column, layer).
Heights heights_of(const Box& box, const CellSet& p) {
  Heights h;
  for (int r = 1; r <= box.extent(0); ++r) {
    std::vector<int> row;
    for (int c = 1; c <= box.extent(1); ++c) {
      int v = 0;
      while (v < box.extent(2) && p[box.index(std::vector<int>{r, c, v + 1})]) ++v;
      if (v == 0) break;
      row.push_back(v);
    }
    if (row.empty()) break;
    h.push_back(row);
  }
  return h;
}

// ---------------------------------------------------------------------------
// Factoring

std::uint64_t product(const std::vector<PrimePower>& f) {
  std::uint64_t n = 1;
  for (const PrimePower& p : f)
    for (int i = 0; i < p.exponent; ++i) n *= p.prime;
  return n;
}

TEST(Divisors, IsPrimeMatchesTrialDivision) {
  for (std::uint64_t n = 0; n < 20000; ++n) {
    bool prime = n >= 2;
    for (std::uint64_t d = 2; d * d <= n && prime; ++d) prime = n % d != 0;
    ASSERT_EQ(is_prime(n), prime) << n;
  }
  EXPECT_TRUE(is_prime(18446744073709551557ULL));  // the largest 64-bit prime
  EXPECT_FALSE(is_prime(18446744073709551557ULL - 2));
  EXPECT_FALSE(is_prime(3215031751ULL));  // a strong pseudoprime to bases 2, 3, 5, 7
  EXPECT_FALSE(is_prime(3825123056546413051ULL));  // to bases 2 .. 23
}

TEST(Divisors, FactorizesSixtyFourBitNumbers) {
  EXPECT_EQ(factorize(72), (std::vector<PrimePower>{{2, 3}, {3, 2}}));
  EXPECT_EQ(factorize(1), std::vector<PrimePower>{});
  EXPECT_EQ(factorize(std::uint64_t{1} << 63), (std::vector<PrimePower>{{2, 63}}));
  EXPECT_EQ(factorize(18446744073709551615ULL),  // 2^64 - 1
            (std::vector<PrimePower>{{3, 1}, {5, 1}, {17, 1}, {257, 1}, {641, 1}, {65537, 1}, {6700417, 1}}));
  EXPECT_EQ(factorize(4294967291ULL * 4294967279ULL),  // two primes just below 2^32
            (std::vector<PrimePower>{{4294967279ULL, 1}, {4294967291ULL, 1}}));
  EXPECT_EQ(factorize(1000003ULL * 1000003ULL * 1000033ULL), (std::vector<PrimePower>{{1000003, 2}, {1000033, 1}}));
  EXPECT_THROW(factorize(0), std::invalid_argument);
  std::mt19937_64 rng(25);
  for (int t = 0; t < 2000; ++t) {
    const std::uint64_t n = rng() >> (rng() % 63);
    if (n == 0) continue;
    const std::vector<PrimePower> f = factorize(n);
    ASSERT_EQ(product(f), n);
    for (std::size_t i = 0; i < f.size(); ++i) {
      ASSERT_TRUE(is_prime(f[i].prime)) << n;
      if (i) {
        ASSERT_LT(f[i - 1].prime, f[i].prime);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// The board

TEST(Divisors, SeventyTwoIsTheThreeByFourBoard) {
  const DivisorBoard b(72);
  EXPECT_EQ(b.box().extents(), (std::vector<int>{4, 3}));
  EXPECT_EQ(b.factor_text(), "2^3 * 3^2");
  EXPECT_EQ(b.divisor(0), 72u);
  EXPECT_EQ(b.picture(whole_box(b.box())), "  72 36 18  9\n  24 12  6  3\n   8  4  2  1\n");
  for (std::size_t c = 0; c < b.box().cells(); ++c) EXPECT_EQ(b.cell_of(b.divisor(c)), c);
  EXPECT_FALSE(b.cell_of(5));
  EXPECT_FALSE(b.cell_of(0));
  EXPECT_EQ(b.factors().size(), 2u);
  EXPECT_THROW(DivisorBoard(1), std::invalid_argument);
  EXPECT_EQ(DivisorBoard(7).picture(whole_box(DivisorBoard(7).box())), "  7 1\n");
}

TEST(Divisors, ThreePrimesAreLayersOfGrids) {
  const DivisorBoard b(180);  // 2^2 3^2 5
  const CellSet p = b.parse_position("180,90,45,60,30,20,36,18,12");
  EXPECT_EQ(b.picture(p),
            "  5^1:\n"
            "    180  90  45\n"
            "     60  30   .\n"
            "     20   .   .\n"
            "\n"
            "  5^0:\n"
            "     36  18   .\n"
            "     12   .   .\n"
            "      .   .   .\n");
  EXPECT_EQ(b.position_text(p), "180,90,60,45,36,30,20,18,12");
}

TEST(Divisors, PositionTextIsCheckedNumberByNumber) {
  const DivisorBoard b(72);
  const CellSet p = b.parse_position(" 72, 36 ,24,12,8");
  EXPECT_EQ(b.numbers(p), (std::vector<std::uint64_t>{72, 36, 24, 12, 8}));
  const auto why = [&](const std::string& text) {
    try {
      b.parse_position(text);
    } catch (const InvalidPosition& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(why("").find("empty list"), std::string::npos);
  EXPECT_NE(why("72,,36").find("entry 2 is empty"), std::string::npos);
  EXPECT_NE(why("72,36,").find("entry 3 is empty"), std::string::npos);
  EXPECT_NE(why("72,3x").find("not a whole number"), std::string::npos);
  EXPECT_NE(why("72,-36").find("not a whole number"), std::string::npos);
  EXPECT_NE(why("72,5").find("5 does not divide 72"), std::string::npos);
  EXPECT_NE(why("72,0").find("0 does not divide 72"), std::string::npos);
  EXPECT_NE(why("72,99999999999999999999").find("larger than 72"), std::string::npos);
  EXPECT_NE(why("72,36,72").find("72 is listed twice"), std::string::npos);
  EXPECT_NE(why("36,18").find("72 is not listed"), std::string::npos);
  EXPECT_NE(why("72,9").find("9 remains but its multiple 18 is not listed"), std::string::npos);
  EXPECT_NE(why("72,36,24,12,6").find("multiple 18 is not listed"), std::string::npos);
}

// ---------------------------------------------------------------------------
// Counting

/// prod over i <= a, j <= b of (i + j + c - 1) / (i + j - 1), exactly: the
/// prime exponents of numerator and denominator are summed, then multiplied out.
std::uint64_t macmahon(int a, int b, int c) {
  std::map<int, int> e;
  const auto add = [&](int v, int sign) {
    for (int p = 2; v > 1; ++p)
      while (v % p == 0) e[p] += sign, v /= p;
  };
  for (int i = 1; i <= a; ++i)
    for (int j = 1; j <= b; ++j) {
      add(i + j + c - 1, 1);
      add(i + j - 1, -1);
    }
  std::uint64_t n = 1;
  for (const auto& [p, k] : e) {
    EXPECT_GE(k, 0);
    for (int t = 0; t < k; ++t) n *= static_cast<std::uint64_t>(p);
  }
  return n;
}

TEST(BoxChomp, CountsMatchClosedFormsAndDedekind) {
  for (int a = 1; a <= 14; ++a)
    for (int b = 1; b <= 14; ++b) {
      const PositionCount c = count_down_sets(Box({a, b}));
      ASSERT_TRUE(c.exact);
      ASSERT_EQ(c.value, binomial(a + b, a)) << a << " x " << b;
    }
  // Plane partitions in an a x b x c box: MacMahon's product.
  EXPECT_EQ(count_down_sets(Box({2, 2, 2})).value, 20u);
  EXPECT_EQ(count_down_sets(Box({3, 3, 3})).value, 980u);
  for (int a = 1; a <= 7; ++a)
    for (int b = a; b <= 7; ++b)
      for (int c = b; c <= 7; ++c) {  // 7 x 7 x 7 still fits in 64 bits
        const PositionCount n = count_down_sets(Box({b, c, a}));
        ASSERT_TRUE(n.exact);
        ASSERT_EQ(n.value, macmahon(a, b, c)) << a << " x " << b << " x " << c;
      }
  // Dedekind numbers: the down-sets of the Boolean lattice 2^k.
  const std::uint64_t dedekind[] = {2, 3, 6, 20, 168, 7581, 7828354};
  for (int k = 1; k <= 6; ++k) {
    const PositionCount c = count_down_sets(Box(std::vector<int>(static_cast<std::size_t>(k), 2)));
    EXPECT_TRUE(c.exact) << k;
    EXPECT_EQ(c.value, dedekind[k]) << k;
  }
  EXPECT_EQ(count_down_sets(Box({1})).value, 2u);
  EXPECT_EQ(count_down_sets(Box({64})).value, 65u);
  // Too many to count: a lower bound above the limit, not exact.
  const PositionCount big = count_down_sets(Box(std::vector<int>(15, 2)));
  EXPECT_FALSE(big.exact);
  EXPECT_GT(big.value, kMaxBoxPositions);
  const PositionCount over = count_down_sets(Box({40, 40}));
  EXPECT_FALSE(over.exact);  // C(80, 40) > 2^64
}

TEST(BoxChomp, CountEqualsEnumeration) {
  for (const std::vector<int>& ext : std::vector<std::vector<int>>{
           {3}, {2, 3}, {3, 2, 2}, {2, 2, 2, 2}, {3, 2, 2, 2}, {2, 3, 1, 2}, {3, 3, 2}, {1, 1, 1}}) {
    const Box box(ext);
    const std::uint64_t n = all_down_sets(box).size();
    EXPECT_EQ(count_down_sets(box).value, n);
    EXPECT_EQ(BoxSolver(box, whole_box(box)).positions(), n);
  }
}

// ---------------------------------------------------------------------------
// The solver against the 2D and 3D engines

TEST(BoxChomp, TwoDimensionsAgreeWithTheBoundedSolver) {
  for (int a = 1; a <= 6; ++a)
    for (int b = 1; b <= 7; ++b) {
      const Box box({a, b});
      const BoxSolver solver(box, whole_box(box));
      const BoundedSolver ref = BoundedSolver::box(a, b);
      ASSERT_EQ(solver.positions(), ref.ranking().total_positions());
      for (const CellSet& p : all_down_sets(box)) {
        const Rows rows = rows_of(box, p);
        ASSERT_EQ(solver.is_losing(p), ref.is_losing(rows)) << rows_to_string(rows);
        if (rows.empty()) continue;
        std::vector<Move> moves;
        for (std::size_t c : solver.winning_moves(p)) {
          const std::vector<int> rc = box.coordinates(c);
          moves.push_back({rc[0], rc[1]});
        }
        ASSERT_EQ(moves, ref.winning_moves(rows)) << rows_to_string(rows);
      }
    }
}

TEST(BoxChomp, ThreeDimensionsAgreeWithAnalyze3d) {
  for (const std::vector<int>& ext :
       std::vector<std::vector<int>>{{2, 2, 2}, {3, 2, 2}, {2, 3, 4}, {3, 3, 3}, {4, 2, 3}, {1, 3, 5}}) {
    const Box box(ext);
    const BoxSolver solver(box, whole_box(box));
    for (const CellSet& p : all_down_sets(box)) {
      if (cells_in(p) == 0) continue;
      const Heights h = heights_of(box, p);
      const Analysis3d ref = analyze_3d(h);
      ASSERT_EQ(solver.is_losing(p), ref.losing) << heights_to_string(h);
      std::vector<Cube> moves;
      for (std::size_t c : solver.winning_moves(p)) {
        const std::vector<int> rcl = box.coordinates(c);
        moves.push_back({rcl[0], rcl[1], rcl[2]});
      }
      std::sort(moves.begin(), moves.end());
      ASSERT_EQ(moves, ref.winning_moves) << heights_to_string(h);
    }
  }
}

TEST(BoxChomp, InsideAPositionOnlyItsSubPositionsAreSolved) {
  const Box box({4, 4, 3});
  const BoxSolver whole(box, whole_box(box));
  std::mt19937_64 rng(7);
  const std::vector<CellSet> all = all_down_sets(box);
  for (int t = 0; t < 20; ++t) {
    const CellSet& p = all[rng() % all.size()];
    const BoxSolver part(box, p);
    std::uint64_t inside = 0;
    for (const CellSet& q : all) {
      bool in = true;
      for (std::size_t c = 0; c < q.size() && in; ++c) in = !q[c] || p[c];
      if (!in) continue;
      ++inside;
      ASSERT_EQ(part.is_losing(q), whole.is_losing(q));
    }
    EXPECT_EQ(part.positions(), inside);
    if (cells_in(p) < box.cells()) {
      EXPECT_THROW(part.is_losing(whole_box(box)), std::invalid_argument);
    }
  }
}

TEST(BoxChomp, RefusesWhatItCannotSolve) {
  const Box box({3, 3});
  CellSet bad = whole_box(box);
  bad[0] = 0;
  EXPECT_NE(down_set_problem(box, bad), "");
  EXPECT_NE(down_set_problem(box, bad).find("(1,1) is gone"), std::string::npos);
  EXPECT_THROW(BoxSolver(box, bad), std::invalid_argument);
  EXPECT_THROW(BoxSolver(box, CellSet(4, 1)), std::invalid_argument);
  EXPECT_THROW(BoxSolver(Box({10, 10}), whole_box(Box({10, 10})), {}, 1000), std::length_error);
  EXPECT_THROW(BoxSolver(Box({2, 256}), whole_box(Box({2, 256}))), std::length_error);  // heights are bytes
  EXPECT_EQ(count_down_sets(Box({2, 256})).value, binomial(258, 2));               // counted all the same
  const BoxSolver ok(box, whole_box(box));
  EXPECT_THROW(ok.is_losing(bad), std::invalid_argument);
  EXPECT_THROW(Box({}), std::invalid_argument);
  EXPECT_THROW(Box({3, 0}), std::invalid_argument);
  EXPECT_THROW(take(box, CellSet(9, 0), 0), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// An independent brute force: positions as sets of numbers

/// The game on the divisors of n with nothing but divisibility: positions
/// are bit masks over the divisors (ascending), a move picks d (not n) and
/// removes every remaining divisor of d; losing iff every move leaves a
/// winning position, so {n} alone is losing.
class NumberGame {
 public:
  explicit NumberGame(std::uint64_t n) : n_(n) {
    for (std::uint64_t d = 1; d <= n; ++d)
      if (n % d == 0) divisors_.push_back(d);
    for (std::size_t i = 0; i < divisors_.size(); ++i) {
      std::uint64_t m = 0;
      for (std::size_t j = 0; j < divisors_.size(); ++j)
        if (divisors_[i] % divisors_[j] == 0) m |= std::uint64_t{1} << j;
      below_.push_back(m);
    }
  }
  const std::vector<std::uint64_t>& divisors() const { return divisors_; }
  std::uint64_t full() const { return (std::uint64_t{1} << divisors_.size()) - 1; }
  bool losing(std::uint64_t mask) {
    if (auto it = memo_.find(mask); it != memo_.end()) return it->second;
    bool lose = true;
    for (std::size_t i = 0; i + 1 < divisors_.size() && lose; ++i)  // the last divisor is n
      if ((mask >> i & 1) && losing(mask & ~below_[i])) lose = false;
    memo_[mask] = lose;
    return lose;
  }
  std::vector<std::uint64_t> winning_moves(std::uint64_t mask) {
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0; i + 1 < divisors_.size(); ++i)
      if ((mask >> i & 1) && losing(mask & ~below_[i])) out.push_back(divisors_[i]);
    return out;
  }
  std::size_t solved() const { return memo_.size(); }

 private:
  std::uint64_t n_;
  std::vector<std::uint64_t> divisors_;
  std::vector<std::uint64_t> below_;
  std::unordered_map<std::uint64_t, bool> memo_;
};

/// Every position of the number game reachable from all of n's divisors
/// (removing the divisors of a number, never n), compared with the box
/// solver through DivisorBoard.
void expect_agrees_with_numbers(std::uint64_t n) {
  const DivisorBoard board(n);
  const BoxSolver solver(board.box(), whole_box(board.box()));
  NumberGame game(n);
  const std::vector<std::uint64_t>& ds = game.divisors();
  std::set<std::uint64_t> seen{game.full()};
  std::vector<std::uint64_t> todo{game.full()};
  while (!todo.empty()) {
    const std::uint64_t mask = todo.back();
    todo.pop_back();
    CellSet p(board.box().cells(), 0);
    for (std::size_t i = 0; i < ds.size(); ++i)
      if (mask >> i & 1) p[*board.cell_of(ds[i])] = 1;
    ASSERT_EQ(solver.is_losing(p), game.losing(mask)) << n << ": " << board.position_text(p);
    std::vector<std::uint64_t> moves;
    for (std::size_t c : solver.winning_moves(p)) moves.push_back(board.divisor(c));
    std::sort(moves.begin(), moves.end());
    ASSERT_EQ(moves, game.winning_moves(mask)) << n << ": " << board.position_text(p);
    for (std::size_t i = 0; i + 1 < ds.size(); ++i) {
      if (!(mask >> i & 1)) continue;
      std::uint64_t below = 0;
      for (std::size_t j = 0; j < ds.size(); ++j)
        if (ds[i] % ds[j] == 0) below |= std::uint64_t{1} << j;
      if (seen.insert(mask & ~below).second) todo.push_back(mask & ~below);
    }
  }
  // Reachable positions are every down-set but the empty one.
  EXPECT_EQ(seen.size() + 1, solver.positions()) << n;
}

TEST(Divisors, FourAndFivePrimesAgreeWithABruteForceOverSets) {
  expect_agrees_with_numbers(210);   // 2 3 5 7: 16 divisors, 168 positions
  expect_agrees_with_numbers(420);   // 2^2 3 5 7
  expect_agrees_with_numbers(2310);  // 2 3 5 7 11: 7581 positions
  expect_agrees_with_numbers(72);
  expect_agrees_with_numbers(900);   // 2^2 3^2 5^2
  expect_agrees_with_numbers(64);
}

TEST(Divisors, TheFullBoardIsAlwaysWon) {
  // Strategy stealing: N's board is won (were it lost, picking 1 would
  // leave a won position, and its winning reply, which removes 1 too,
  // would win from the board itself). Every board of up to 48 divisors.
  for (std::uint64_t n = 2; n <= 3000; ++n) {
    const DivisorBoard b(n);
    if (b.box().cells() > 48) continue;
    const BoxSolver s(b.box(), whole_box(b.box()));
    ASSERT_FALSE(s.is_losing(whole_box(b.box()))) << n;
    ASSERT_FALSE(s.winning_moves(whole_box(b.box())).empty()) << n;
  }
}

// ---------------------------------------------------------------------------
// chomp divisors, end to end

using chomp::testing::run_chomp;

std::uint64_t power(std::uint64_t p, int e) {
  std::uint64_t v = 1;
  while (e-- > 0) v *= p;
  return v;
}

/// What `chomp divisors` printed: the status and the numbers to pick.
struct Answer {
  bool losing = false;
  std::vector<std::uint64_t> picks;  // ascending
};

Answer divisors_answer(const std::vector<std::string>& args) {
  const chomp::testing::ProcessResult r = run_chomp(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Answer a;
  a.losing = r.out.find("Status: losing") != std::string::npos;
  EXPECT_TRUE(a.losing || r.out.find("Status: winning") != std::string::npos) << r.out;
  static const std::regex move(R"(\n  (\d+)  removes )");
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), move); it != std::sregex_iterator(); ++it)
    a.picks.push_back(std::stoull((*it)[1]));
  std::sort(a.picks.begin(), a.picks.end());
  return a;
}

/// `chomp analyze --json`'s status and moves as coordinate lists.
struct Analyzed {
  bool losing = false;
  std::vector<std::vector<int>> moves;
};

Analyzed analyze_answer(const std::vector<std::string>& args) {
  const chomp::testing::ProcessResult r = run_chomp(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Analyzed a;
  a.losing = r.out.find("\"status\": \"losing\"") != std::string::npos;
  static const std::regex move(R"re(\{"row": (\d+), "col": (\d+)(, "layer": (\d+))?)re");
  const std::string moves = r.out.substr(0, r.out.find("\"best_move\""));
  for (auto it = std::sregex_iterator(moves.begin(), moves.end(), move); it != std::sregex_iterator(); ++it) {
    std::vector<int> m{std::stoi((*it)[1]), std::stoi((*it)[2])};
    if ((*it)[4].matched) m.push_back(std::stoi((*it)[4]));
    a.moves.push_back(m);
  }
  return a;
}

/// Every position of n's game: the sets of divisors that hold n and, with
/// each number, its multiples that divide n (n has at most 16 divisors).
std::vector<std::vector<std::uint64_t>> every_position(std::uint64_t n) {
  std::vector<std::uint64_t> ds;
  for (std::uint64_t d = 1; d <= n; ++d)
    if (n % d == 0) ds.push_back(d);
  std::vector<std::vector<std::uint64_t>> out;
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << ds.size()); ++mask) {
    std::set<std::uint64_t> set;
    for (std::size_t i = 0; i < ds.size(); ++i)
      if (mask >> i & 1) set.insert(ds[i]);
    if (!set.count(n)) continue;
    bool closed = true;
    for (std::uint64_t d : set)
      for (std::uint64_t m : ds)
        if (m % d == 0 && !set.count(m)) closed = false;
    if (closed) out.emplace_back(set.rbegin(), set.rend());
  }
  return out;
}

std::string joined(const std::vector<std::uint64_t>& v) {
  std::string s;
  for (std::uint64_t d : v) {
    if (!s.empty()) s += ',';
    s += std::to_string(d);
  }
  return s;
}

TEST(DivisorsCommand, SeventyTwoShowsTheSeedsGridAndItsWinningMove) {
  const chomp::testing::ProcessResult r = run_chomp({"divisors", "72"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The grid's rows, in order, whatever the alignment.
  std::vector<std::string> rows;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string w, norm;
    while (words >> w) norm += (norm.empty() ? "" : " ") + w;
    rows.push_back(norm);
  }
  const auto grid = std::find(rows.begin(), rows.end(), "72 36 18 9");
  ASSERT_NE(grid, rows.end()) << r.out;
  ASSERT_LE(grid + 3, rows.end());
  EXPECT_EQ(grid[1], "24 12 6 3");
  EXPECT_EQ(grid[2], "8 4 2 1");
  EXPECT_NE(r.out.find("72 = 2^3 * 3^2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3 x 4 board"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Status: winning"), std::string::npos) << r.out;
  // The winning first moves are those of the 3 x 4 rectangle in analyze,
  // tile (row, col) being 3^(3 - row) 2^(4 - col).
  const Answer mine = divisors_answer({"divisors", "72"});
  const Analyzed ref = analyze_answer({"analyze", "--json", "4,4,4"});
  std::vector<std::uint64_t> expected;
  for (const auto& m : ref.moves) expected.push_back(power(3, 3 - m[0]) * power(2, 4 - m[1]));
  std::sort(expected.begin(), expected.end());
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(mine.picks, expected);
  // Only 72 left: the one move picks it (not "every move leaves a winning position").
  const chomp::testing::ProcessResult last = run_chomp({"divisors", "72", "--position", "72"});
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_NE(last.out.find("Status: losing for the player to move (the only move picks 72)\n"), std::string::npos)
      << last.out;
}

TEST(DivisorsCommand, TwoPrimesAgreeWithAnalyzeOnEveryPosition) {
  // N = 2^P 3^Q is the (Q+1) x (P+1) board: divisor 2^a 3^b is the tile
  // (Q - b + 1, P - a + 1). (Sanitizer builds, several times slower to
  // start, take the boards up to 2 x 3.)
  const bool full = !chomp::testing::sanitized_binary();
  for (int P = 0; P <= (full ? 3 : 2); ++P)
    for (int Q = 0; Q <= (full ? 2 : 1); ++Q) {
      const std::uint64_t n = power(2, P) * power(3, Q);
      if (n < 2) continue;
      for (const std::vector<std::uint64_t>& pos : every_position(n)) {
        Rows rows(static_cast<std::size_t>(Q + 1), 0);
        for (std::uint64_t d : pos) {
          int a = 0, b = 0;
          for (std::uint64_t x = d; x % 2 == 0; x /= 2) ++a;
          for (std::uint64_t x = d; x % 3 == 0; x /= 3) ++b;
          ++rows[static_cast<std::size_t>(Q - b)];
        }
        while (!rows.empty() && rows.back() == 0) rows.pop_back();
        const Answer mine = divisors_answer({"divisors", std::to_string(n), "--position", joined(pos)});
        const Analyzed ref = analyze_answer({"analyze", "--json", rows_to_string(rows)});
        ASSERT_EQ(mine.losing, ref.losing) << n << " " << joined(pos);
        std::vector<std::uint64_t> expected;
        for (const auto& m : ref.moves) expected.push_back(power(3, Q - m[0] + 1) * power(2, P - m[1] + 1));
        std::sort(expected.begin(), expected.end());
        ASSERT_EQ(mine.picks, expected) << n << " " << joined(pos);
      }
    }
}

TEST(DivisorsCommand, FullBoardsAgreeWithRectangles) {
  chomp::testing::ScratchDir dir;
  const std::string csv = dir.file("rect.csv");
  const chomp::testing::ProcessResult r =
      run_chomp({"rectangles", "--max-rows", "4", "--max-cols", "7", "--csv", csv, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::pair<int, int>, std::vector<std::uint64_t>> wins;  // a x b: numbers of 2^(b-1) 3^(a-1)
  std::istringstream in(chomp::testing::read_text(csv));
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    int a = 0, b = 0, mr = 0, mc = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "%d,%d,%d,%d", &a, &b, &mr, &mc), 4) << line;
    wins[{a, b}].push_back(power(3, a - mr) * power(2, b - mc));
  }
  ASSERT_FALSE(wins.empty());
  for (auto& [ab, expected] : wins) {
    std::sort(expected.begin(), expected.end());
    const Answer mine = divisors_answer({"divisors", std::to_string(power(2, ab.second - 1) * power(3, ab.first - 1))});
    EXPECT_FALSE(mine.losing);
    EXPECT_EQ(mine.picks, expected) << ab.first << " x " << ab.second;
  }
}

TEST(DivisorsCommand, ThreePrimesAgreeWithAnalyzeInThreeDimensions) {
  // N = 2^P 3^Q 5^R: divisor 2^a 3^b 5^c is the cube (row Q - b + 1,
  // column P - a + 1, layer R - c + 1) of analyze --dimensions 3.
  const bool full = !chomp::testing::sanitized_binary();
  for (const auto& [P, Q, R] : full ? std::vector<std::array<int, 3>>{{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}}
                                    : std::vector<std::array<int, 3>>{{1, 1, 1}}) {
    const std::uint64_t n = power(2, P) * power(3, Q) * power(5, R);
    for (const std::vector<std::uint64_t>& pos : every_position(n)) {
      Heights h(static_cast<std::size_t>(Q + 1), std::vector<int>(static_cast<std::size_t>(P + 1), 0));
      for (std::uint64_t d : pos) {
        int a = 0, b = 0;
        for (std::uint64_t x = d; x % 2 == 0; x /= 2) ++a;
        for (std::uint64_t x = d; x % 3 == 0; x /= 3) ++b;
        ++h[static_cast<std::size_t>(Q - b)][static_cast<std::size_t>(P - a)];
      }
      for (auto& row : h)
        while (!row.empty() && row.back() == 0) row.pop_back();
      while (!h.empty() && h.back().empty()) h.pop_back();
      const Answer mine = divisors_answer({"divisors", std::to_string(n), "--position", joined(pos)});
      const Analyzed ref = analyze_answer({"analyze", "--json", "--dimensions", "3", heights_to_string(h)});
      ASSERT_EQ(mine.losing, ref.losing) << n << " " << joined(pos);
      std::vector<std::uint64_t> expected;
      for (const auto& m : ref.moves)
        expected.push_back(power(2, P - m[1] + 1) * power(3, Q - m[0] + 1) * power(5, R - m[2] + 1));
      std::sort(expected.begin(), expected.end());
      ASSERT_EQ(mine.picks, expected) << n << " " << joined(pos);
    }
  }
  // Larger boxes: the full board against the 3D library.
  for (const auto& [P, Q, R] : std::vector<std::array<int, 3>>{{2, 2, 1}, {2, 2, 2}, {3, 2, 1}, {4, 1, 1}}) {
    const std::uint64_t n = power(2, P) * power(3, Q) * power(5, R);
    const Heights box(static_cast<std::size_t>(Q + 1), std::vector<int>(static_cast<std::size_t>(P + 1), R + 1));
    const Analysis3d ref = analyze_3d(box);
    std::vector<std::uint64_t> expected;
    for (const Cube& m : ref.winning_moves)
      expected.push_back(power(2, P - m.col + 1) * power(3, Q - m.row + 1) * power(5, R - m.layer + 1));
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(divisors_answer({"divisors", std::to_string(n)}).picks, expected) << n;
  }
}

TEST(DivisorsCommand, FourPrimesAgreeWithTheBruteForce) {
  for (const std::uint64_t n : {210ULL, 1155ULL, 420ULL}) {
    NumberGame game(n);
    std::vector<std::uint64_t> expected = game.winning_moves(game.full());
    const Answer mine = divisors_answer({"divisors", std::to_string(n)});
    EXPECT_FALSE(mine.losing);
    EXPECT_EQ(mine.picks, expected) << n;
  }
  // A losing position of 210: every one the brute force finds losing says so.
  NumberGame game(210);
  int checked = 0;
  for (const std::vector<std::uint64_t>& pos : every_position(210)) {
    std::uint64_t mask = 0;
    for (std::uint64_t d : pos)
      for (std::size_t i = 0; i < game.divisors().size(); ++i)
        if (game.divisors()[i] == d) mask |= std::uint64_t{1} << i;
    if (!game.losing(mask) || ++checked > 12) continue;
    EXPECT_TRUE(divisors_answer({"divisors", "210", "--position", joined(pos)}).losing) << joined(pos);
  }
  EXPECT_GT(checked, 5);
  const chomp::testing::ProcessResult r = run_chomp({"divisors", "210"});
  EXPECT_NE(r.out.find("4D Chomp in a 2 x 2 x 2 x 2 box"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("5^1 7^1:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Solved the 168 positions"), std::string::npos) << r.out;
}

TEST(DivisorsCommand, MalformedInputExitsTwoWithAReason) {
  const auto refused = [](const std::vector<std::string>& args, const std::string& why) {
    const chomp::testing::ProcessResult r = run_chomp(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.out << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << args.back() << ": " << r.err;
    EXPECT_EQ(r.out, "") << args.back();
  };
  refused({"divisors"}, "N is required");
  refused({"divisors", "1"}, "too small: at least 2");
  refused({"divisors", "0"}, "too small: at least 2");
  refused({"divisors", "12.5"}, "not a whole number");
  refused({"divisors", "abc"}, "not a whole number");
  refused({"divisors", "0x10"}, "not a whole number");
  refused({"divisors", ""}, "empty value");
  refused({"divisors", "18446744073709551616"}, "too large: at most 18446744073709551615");
  refused({"divisors", "--", "-6"}, "negative");
  // 2^20 3^20: the 21 x 21 board, C(42, 21) positions.
  refused({"divisors", "3656158440062976"}, "has 538,257,874,440 positions");
  refused({"divisors", "3656158440062976"}, "at most 2^26 = 67,108,864");
  // The first fifteen primes: a Boolean lattice far beyond counting.
  refused({"divisors", "614889782588491410"}, "has at least 18,446,744,073,709,551,615 positions");
  // Seven primes: the Boolean lattice 2^7, bounded (at least 7,828,354 x 33) without counting.
  refused({"divisors", "510510"}, "has at least 258,335,682 positions");
  refused({"divisors", "72", "--position", ""}, "invalid position: an empty list");
  refused({"divisors", "72", "--position", "72,5"}, "5 does not divide 72");
  refused({"divisors", "72", "--position", "36,18,12"}, "72 is not listed");
  refused({"divisors", "72", "--position", "72,9"}, "9 remains but its multiple 18 is not listed");
  refused({"divisors", "72", "--position", "72,,36"}, "entry 2 is empty");
  refused({"divisors", "72", "--position", "72,36,36"}, "36 is listed twice");
  refused({"divisors", "72", "--position", "72;36"}, "not a whole number");
  refused({"divisors", "72", "--threads", "0"}, "too small");
}

}  // namespace
