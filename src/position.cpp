/// @file position.cpp
/// @brief Lattice-path encoding, parsing, printing and moves of Chomp positions.

#include "chomp/position.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdio>
#include <string>

namespace chomp {

namespace {

/// Longest text the parsers look at; anything longer is refused outright so a
/// runaway input cannot make us allocate or loop for long.
constexpr std::size_t kMaxInputChars = kMaxPositionText / 16;

[[noreturn]] void fail(const std::string& what) { throw InvalidPosition(what); }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/// A character of the input as a message may show it: quoted if printable,
/// else its byte value, so that what() stays one printable line.
std::string describe(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7F) return std::string("'") + c + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02X", u);
  return buf;
}

/// At most the first dozen characters of a long number.
std::string shorten(std::string_view digits) {
  return digits.size() <= 12 ? std::string(digits) : std::string(digits.substr(0, 12)) + "...";
}

}  // namespace

void validate_rows(std::span<const int> rows) {
  if (rows.empty()) fail("a position needs at least one row");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] <= 0)
      fail("row " + std::to_string(i + 1) + " has length " + std::to_string(rows[i]) +
           "; every row needs at least one tile");
    if (i > 0 && rows[i] > rows[i - 1])
      fail("row " + std::to_string(i + 1) + " (" + std::to_string(rows[i]) +
           ") is longer than the row above it (" + std::to_string(rows[i - 1]) +
           "); rows must not increase from top to bottom");
  }
  const long long steps = static_cast<long long>(rows.size()) + rows.front();
  if (steps > kMaxPathSteps)
    fail("position has " + std::to_string(rows.size()) + " rows and " +
         std::to_string(rows.front()) + " columns; the encoding holds rows + columns <= " +
         std::to_string(kMaxPathSteps));
}

LatticePath LatticePath::from_rows(std::span<const int> rows) {
  LatticePath p;
  if (rows.empty()) return p;
  validate_rows(rows);
  // Walk from the bottom row up: east steps for the growth of each row over
  // the one below it, then one north step for the row itself.
  int k = 0;
  int below = 0;
  for (std::size_t i = rows.size(); i-- > 0;) {
    k += rows[i] - below;  // east steps are zero bits
    p.set_step(k++);
    below = rows[i];
  }
  p.length_ = k;
  p.num_rows_ = static_cast<int>(rows.size());
  return p;
}

Rows LatticePath::rows() const {
  Rows r(static_cast<std::size_t>(num_rows_));
  int width = 0;
  int row = num_rows_;
  for (int k = 0; k < length_; ++k) {
    if (step(k))
      r[static_cast<std::size_t>(--row)] = width;
    else
      ++width;
  }
  return r;
}

std::uint64_t LatticePath::tiles() const {
  std::uint64_t total = 0;
  int north_after = num_rows_;
  for (int k = 0; k < length_; ++k) {
    if (step(k))
      --north_after;
    else
      total += static_cast<std::uint64_t>(north_after);
  }
  return total;
}

std::uint64_t LatticePath::word() const {
  if (length_ > 64)
    fail("path of " + std::to_string(length_) + " steps does not fit one 64-bit word");
  return words_[0];
}

LatticePath LatticePath::transposed() const {
  LatticePath t;
  t.length_ = length_;
  t.num_rows_ = num_cols();
  for (int k = 0; k < length_; ++k)
    if (!step(length_ - 1 - k)) t.set_step(k);
  return t;
}

bool LatticePath::contains(Move m) const {
  if (m.row < 1 || m.col < 1 || m.row > num_rows_) return false;
  // Row m.row's length is the number of east steps before its north step,
  // which is the (num_rows_ - m.row + 1)-th north step from the start.
  int north_needed = num_rows_ - m.row + 1;
  int width = 0;
  for (int k = 0; k < length_; ++k) {
    if (step(k)) {
      if (--north_needed == 0) return m.col <= width;
    } else {
      ++width;
    }
  }
  return false;
}

LatticePath LatticePath::after(Move m) const {
  const Rows r = chomp::apply_move(rows(), m);
  return from_rows(r);
}

std::string LatticePath::to_string() const { return rows_to_string(rows()); }

std::string LatticePath::picture() const {
  std::string out;
  for (int len : rows()) {
    out.append(static_cast<std::size_t>(len), '#');
    out.push_back('\n');
  }
  return out;
}

std::uint64_t tile_count(std::span<const int> rows) {
  std::uint64_t total = 0;
  for (int r : rows) total += static_cast<std::uint64_t>(r);
  return total;
}

Rows transpose(std::span<const int> rows) {
  Rows cols;
  if (rows.empty()) return cols;
  cols.assign(static_cast<std::size_t>(rows.front()), 0);
  for (int len : rows)
    for (int c = 0; c < len; ++c) ++cols[static_cast<std::size_t>(c)];
  return cols;
}

Rows apply_move(std::span<const int> rows, Move m) {
  if (m.row < 1 || m.col < 1 || static_cast<std::size_t>(m.row) > rows.size() ||
      rows[static_cast<std::size_t>(m.row - 1)] < m.col)
    fail("tile (" + std::to_string(m.row) + "," + std::to_string(m.col) +
         ") is not on the board " + rows_to_string(rows));
  Rows out;
  out.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    int len = rows[i];
    if (static_cast<int>(i) + 1 >= m.row) len = std::min(len, m.col - 1);
    if (len == 0) break;  // rows below are no longer than this one
    out.push_back(len);
  }
  return out;
}

std::string rows_to_string(std::span<const int> rows) {
  std::string s;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i) s.push_back(',');
    s += std::to_string(rows[i]);
  }
  return s;
}

Rows parse_rows(std::string_view text) {
  if (text.size() > kMaxInputChars)
    fail("position text is " + std::to_string(text.size()) + " characters long; at most " +
         std::to_string(kMaxInputChars) + " are accepted");
  Rows rows;
  std::size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && is_space(text[i])) ++i;
  };
  skip_space();
  if (i == text.size()) fail("empty position; give row lengths such as 7,3,3,1,1");
  for (;;) {
    skip_space();
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (start == i) {
      if (i == text.size()) fail("position ends with a comma; give a row length after it");
      const unsigned char c = static_cast<unsigned char>(text[i]);
      if (c == '-') fail("negative row length in position; rows are positive whole numbers");
      if (c == '+') fail("row lengths are plain numbers without a '+' sign");
      if (c == ',') fail("empty row length between commas; write rows as 7,3,3,1,1");
      if (c >= 0x80) fail("position contains a non-ASCII character; use digits and commas only");
      fail("unexpected character " + describe(static_cast<char>(c)) +
           " in position; use row lengths such as 7,3,3,1,1");
    }
    std::size_t first = start;  // leading zeros do not make a number large
    while (first + 1 < i && text[first] == '0') ++first;
    if (i - first > 3)
      fail("row length " + shorten(text.substr(start, i - start)) +
           " is too large; a position may have at most " + std::to_string(kMaxPathSteps - 1) +
           " columns");
    int value = 0;
    std::from_chars(text.data() + first, text.data() + i, value);
    rows.push_back(value);
    if (rows.size() > static_cast<std::size_t>(kMaxPathSteps))
      fail("position has more than " + std::to_string(kMaxPathSteps - 1) + " rows");
    skip_space();
    if (i == text.size()) break;
    if (text[i] != ',') {
      const unsigned char c = static_cast<unsigned char>(text[i]);
      if (c >= 0x80) fail("position contains a non-ASCII character; use digits and commas only");
      if (c >= '0' && c <= '9') fail("two numbers without a comma between them in position");
      fail("unexpected character " + describe(static_cast<char>(c)) +
           " in position; separate row lengths with commas");
    }
    ++i;
  }
  validate_rows(rows);
  return rows;
}

Rows parse_picture(std::string_view text) {
  if (text.size() > kMaxInputChars * 16)
    fail("picture is " + std::to_string(text.size()) + " characters long; at most " +
         std::to_string(kMaxInputChars * 16) + " are accepted");
  Rows rows;
  bool ended = false;  // a blank line after the rows: nothing but blanks may follow
  int blank_line = 0;  // the first such line
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    ++line_no;
    pos = nl + 1;
    std::size_t b = 0, e = line.size();
    while (b < e && is_space(line[b])) ++b;
    while (e > b && is_space(line[e - 1])) --e;
    line = line.substr(b, e - b);
    if (line.empty()) {
      if (!rows.empty() && !ended) ended = true, blank_line = line_no;
      continue;
    }
    if (ended) fail("blank line inside the picture (line " + std::to_string(blank_line) + ")");
    for (char c : line)
      if (c != '#')
        fail("line " + std::to_string(line_no) + " of the picture has " + describe(c) +
             (c == 'X' || c == 'x' ? " (chomp play's mark of the poisoned tile): draw every tile, the poisoned one "
                                     "too, with '#'"
              : c == '.'          ? " (chomp play's mark of an eaten tile): draw only the tiles left, with '#'"
                                  : "; draw each row with '#' only"));
    rows.push_back(static_cast<int>(line.size()));
    if (rows.size() > static_cast<std::size_t>(kMaxPathSteps))
      fail("picture has more than " + std::to_string(kMaxPathSteps - 1) + " rows");
  }
  if (rows.empty()) fail("empty picture; draw rows of '#', one per line");
  validate_rows(rows);
  return rows;
}

Rows parse_position(std::string_view text) {
  if (text.find('#') != std::string_view::npos) return parse_picture(text);
  // Allow one trailing newline, as from `echo 3,2,1 | chomp ...`.
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  if (text.find('\n') != std::string_view::npos) {
    // Lines without a digit are a picture drawn with another mark: its
    // reader names the mark (and 'X' or '.', chomp play's, as such).
    if (text.find_first_of("0123456789") == std::string_view::npos) return parse_picture(text);
    fail("position spans several lines; give row lengths on one line or a picture of '#'");
  }
  return parse_rows(text);
}

}  // namespace chomp
