/// @file test_parser_fuzz.cpp
/// @brief Randomized tests of the position parsers: random bytes and
/// near-valid mutations never crash; every input is either parsed into
/// valid rows that round-trip or refused with InvalidPosition and a one-line,
/// printable message; parse_rows and parse_picture agree with obvious
/// reference parsers on every input.
///
/// CHOMP_FUZZ_ITERATIONS sets the number of inputs per test (default 20000,
/// 4000 in Debug and sanitizer builds);
/// CHOMP_TEST_SEED replays a run (the seed is printed on failure).

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <sstream>

#include "chomp/position.hpp"
#include "chomp_process.hpp"

using namespace chomp;

namespace {

int iterations() {
  const char* s = std::getenv("CHOMP_FUZZ_ITERATIONS");
  return s ? std::atoi(s) : chomp::testing::kFullSize ? 20000 : 4000;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

/// Rows that a staircase may have: positive, non-increasing, rows + columns
/// within the lattice path.
bool valid_rows(const Rows& rows) {
  if (rows.empty()) return false;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i] <= 0 || (i > 0 && rows[i] > rows[i - 1])) return false;
  return static_cast<long long>(rows.size()) + rows.front() <= kMaxPathSteps;
}

/// The obvious reading of "7,3,3,1,1": comma-separated whole numbers, blanks
/// around them allowed, at most 4096 characters.
std::optional<Rows> reference_rows(std::string_view text) {
  if (text.size() > 4096) return std::nullopt;
  Rows rows;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view token = trim(text.substr(start, comma - start));
    if (token.empty()) return std::nullopt;
    long long value = 0;
    for (char c : token) {
      if (c < '0' || c > '9') return std::nullopt;
      value = std::min<long long>(value * 10 + (c - '0'), 1'000'000);
    }
    rows.push_back(static_cast<int>(value));
    if (comma == text.size()) break;
    start = comma + 1;
  }
  if (!valid_rows(rows)) return std::nullopt;
  return rows;
}

/// The obvious reading of a picture: lines of '#', blanks around each line
/// and blank lines before and after allowed, at most 65536 characters.
std::optional<Rows> reference_picture(std::string_view text) {
  if (text.size() > 65536) return std::nullopt;
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (;;) {
    const std::size_t nl = std::min(text.find('\n', start), text.size());
    lines.push_back(trim(text.substr(start, nl - start)));
    if (nl == text.size()) break;
    start = nl + 1;
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  std::size_t first = 0;
  while (first < lines.size() && lines[first].empty()) ++first;
  Rows rows;
  for (std::size_t i = first; i < lines.size(); ++i) {
    if (lines[i].empty()) return std::nullopt;
    for (char c : lines[i])
      if (c != '#') return std::nullopt;
    rows.push_back(static_cast<int>(std::min<std::size_t>(lines[i].size(), 1'000'000)));
  }
  if (!valid_rows(rows)) return std::nullopt;
  return rows;
}

/// Runs a parser; checks that it either returns valid rows that round-trip
/// or throws InvalidPosition with a one-line printable message.
std::optional<Rows> checked_parse(Rows (*parse)(std::string_view), const std::string& input) {
  try {
    Rows rows = parse(input);
    EXPECT_TRUE(valid_rows(rows)) << rows_to_string(rows);
    EXPECT_EQ(parse_rows(rows_to_string(rows)), rows);
    EXPECT_EQ(LatticePath::from_rows(rows).rows(), rows);
    return rows;
  } catch (const InvalidPosition& e) {
    const std::string what = e.what();
    EXPECT_FALSE(what.empty());
    EXPECT_LE(what.size(), 300U) << what;
    for (char c : what)
      EXPECT_TRUE(c >= 0x20 && c < 0x7F) << "message with an unprintable byte: " << ::testing::PrintToString(what);
    return std::nullopt;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "a parser threw something other than InvalidPosition: " << e.what();
    return std::nullopt;
  }
}

void check_input(const std::string& input) {
  SCOPED_TRACE(::testing::PrintToString(input.size() > 200 ? input.substr(0, 200) + "..." : input));
  const std::optional<Rows> rows = checked_parse(parse_rows, input);
  EXPECT_EQ(rows, reference_rows(input));
  const std::optional<Rows> picture = checked_parse(parse_picture, input);
  EXPECT_EQ(picture, reference_picture(input));
  checked_parse(parse_position, input);
}

/// A random staircase, sometimes at the size limits.
Rows random_rows(std::mt19937_64& rng) {
  const int nrows = std::uniform_int_distribution<int>(1, rng() % 8 == 0 ? 260 : 8)(rng);
  int width = std::uniform_int_distribution<int>(1, rng() % 8 == 0 ? 260 : 12)(rng);
  Rows rows;
  for (int i = 0; i < nrows; ++i) {
    rows.push_back(width);
    if (rng() % 2) width = std::max(1, width - static_cast<int>(rng() % 3));
  }
  return rows;
}

std::string picture_of(const Rows& rows) {
  std::string s;
  for (int r : rows) s += std::string(static_cast<std::size_t>(r), '#') + "\n";
  return s;
}

const std::string kInteresting = "0123456789,#- +\t\r\n\x00\xff\xc3\xa9\x7f";

/// Small edits of a valid string: the inputs most likely to hit a parser's
/// corner cases.
std::string mutate(std::string s, std::mt19937_64& rng) {
  const int edits = std::uniform_int_distribution<int>(1, 3)(rng);
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
    const char c = kInteresting[rng() % kInteresting.size()];
    switch (rng() % 7) {
      case 0: s.insert(at, 1, c); break;
      case 1: if (at < s.size()) s.erase(at, 1); break;
      case 2: if (at < s.size()) s[at] = c; break;
      case 3: s.insert(at, std::to_string(rng() % 2 ? rng() : rng() % 300)); break;
      case 4: s.insert(at, std::string(rng() % 5000, c)); break;
      case 5: if (at < s.size()) s = s.substr(0, at); break;
      default: s += s.substr(0, std::min<std::size_t>(s.size(), 64)); break;
    }
  }
  return s;
}

}  // namespace

TEST(ParserFuzz, RandomBytes) {
  const auto seed = chomp::testing::test_seed();
  SCOPED_TRACE("CHOMP_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int i = 0; i < iterations(); ++i) {
    std::string s(rng() % 40, '\0');
    const bool any_byte = rng() % 3 == 0;
    for (char& c : s)
      c = any_byte ? static_cast<char>(rng()) : kInteresting[rng() % kInteresting.size()];
    check_input(s);
    if (::testing::Test::HasFailure()) break;  // one input's report is enough
  }
}

TEST(ParserFuzz, NearValidStrings) {
  const auto seed = chomp::testing::test_seed();
  SCOPED_TRACE("CHOMP_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int i = 0; i < iterations(); ++i) {
    const Rows rows = random_rows(rng);
    const std::string text = rng() % 2 ? rows_to_string(rows) : picture_of(rows);
    check_input(rng() % 8 == 0 ? text : mutate(text, rng));
    if (::testing::Test::HasFailure()) break;
  }
}

TEST(ParserFuzz, EdgeCases) {
  for (const std::string& s :
       {std::string(), std::string(" "), std::string(","), std::string("\n"), std::string("#"),
        std::string("0005,3"), std::string("255"), std::string("256"), std::string("1,").append(4094, '1'),
        std::string(4096, '1'), std::string(4097, '1'), std::string("9999999999999999999999999,1"),
        std::string("3,2,1\n"), std::string("3,2,1\r\n"), std::string("3,2\n1"), std::string("\xef\xbc\x93,1"),
        std::string("3\0,1", 4), std::string(255, '#'), std::string(256, '#'), std::string(65536, '#'),
        std::string(65537, '\n')}) {
    check_input(s);
  }
  Rows tall(255, 1);
  check_input(rows_to_string(tall));
  check_input(picture_of(tall));
  tall.push_back(1);
  check_input(rows_to_string(tall));
}
