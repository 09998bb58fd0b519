/// @file plane_partition.cpp
/// @brief 3D positions (plane partitions): parser, printer, moves, symmetries.

#include "chomp/plane_partition.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace chomp {

namespace {

std::string at(std::size_t i, std::size_t j) {
  return "h(" + std::to_string(i + 1) + "," + std::to_string(j + 1) + ")";
}

}  // namespace

void validate_heights(const Heights& h) {
  if (h.empty()) throw InvalidPosition("a 3D position needs at least one cube (the poisoned cube 1)");
  long long total = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (h[i].empty()) throw InvalidPosition("row " + std::to_string(i + 1) + " of the height matrix is empty");
    if (i > 0 && h[i].size() > h[i - 1].size())
      throw InvalidPosition("row " + std::to_string(i + 1) + " has " + std::to_string(h[i].size()) +
                            " heights, more than the " + std::to_string(h[i - 1].size()) +
                            " of the row above (a height would stand on nothing)");
    for (std::size_t j = 0; j < h[i].size(); ++j) {
      const int v = h[i][j];
      if (v <= 0)
        throw InvalidPosition(at(i, j) + " is " + std::to_string(v) +
                              "; heights inside the matrix must be positive (leave a zero height out)");
      if (j > 0 && v > h[i][j - 1])
        throw InvalidPosition(at(i, j) + " = " + std::to_string(v) + " is larger than " + at(i, j - 1) + " = " +
                              std::to_string(h[i][j - 1]) + ": heights must not increase along a row");
      if (i > 0 && v > h[i - 1][j])
        throw InvalidPosition(at(i, j) + " = " + std::to_string(v) + " is larger than " + at(i - 1, j) + " = " +
                              std::to_string(h[i - 1][j]) + ": heights must not increase down a column");
      total += v;
      if (total > kMaxCubes)
        throw InvalidPosition("more than " + std::to_string(kMaxCubes) + " cubes (the most a 3D position may have)");
    }
  }
}

Heights parse_heights(std::string_view text) {
  if (text.size() > 4096) throw InvalidPosition("3D position text is longer than 4096 characters");
  Heights h;
  std::vector<int> row;
  std::size_t k = 0;
  auto skip_spaces = [&] {
    while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
  };
  bool expect_number = true;
  while (true) {
    skip_spaces();
    if (expect_number) {
      if (k >= text.size() || !std::isdigit(static_cast<unsigned char>(text[k]))) {
        if (k >= text.size() && h.empty() && row.empty())
          throw InvalidPosition("empty 3D position; give rows of heights such as 3,2/1");
        std::string what = "the end";
        if (k < text.size()) what = {'\'', text[k], '\''};
        throw InvalidPosition("expected a height at " + what + " (character " + std::to_string(k + 1) +
                              "); a 3D position is rows of positive heights, e.g. 3,2/1");
      }
      long long v = 0;
      while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) {
        v = v * 10 + (text[k] - '0');
        if (v > kMaxCubes)
          throw InvalidPosition("the height at character " + std::to_string(k + 1) +
                                " exceeds " + std::to_string(kMaxCubes) + " (the most cubes a 3D position may have)");
        ++k;
      }
      if (v == 0)
        throw InvalidPosition("height 0 in row " + std::to_string(h.size() + 1) +
                              ": heights inside the matrix must be positive (leave a zero height out)");
      row.push_back(static_cast<int>(v));
      expect_number = false;
      continue;
    }
    if (k >= text.size()) break;
    if (text[k] == ',') {
      ++k, expect_number = true;
    } else if (text[k] == '/') {
      ++k, expect_number = true;
      h.push_back(std::move(row));
      row.clear();
    } else {
      throw InvalidPosition("unexpected '" + std::string(1, text[k]) + "' at character " + std::to_string(k + 1) +
                            "; separate heights with ',' and rows with '/', e.g. 3,2/1");
    }
  }
  h.push_back(std::move(row));
  validate_heights(h);
  return h;
}

std::string heights_to_string(const Heights& h) {
  std::string out;
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (i) out += '/';
    for (std::size_t j = 0; j < h[i].size(); ++j) {
      if (j) out += ',';
      out += std::to_string(h[i][j]);
    }
  }
  return out;
}

std::string heights_picture(const Heights& h) {
  const int width = h.empty() ? 1 : static_cast<int>(std::to_string(h[0][0]).size());
  std::ostringstream out;
  for (const auto& row : h) {
    for (std::size_t j = 0; j < row.size(); ++j) {
      const std::string v = std::to_string(row[j]);
      out << (j ? " " : "") << std::string(static_cast<std::size_t>(width) - v.size(), ' ') << v;
    }
    out << '\n';
  }
  return out.str();
}

int cube_count(const Heights& h) {
  int n = 0;
  for (const auto& row : h)
    for (int v : row) n += v;
  return n;
}

bool contains(const Heights& h, Cube c) {
  if (c.row < 1 || c.col < 1 || c.layer < 1 || c.row > static_cast<int>(h.size())) return false;
  const auto& row = h[static_cast<std::size_t>(c.row - 1)];
  return c.col <= static_cast<int>(row.size()) && c.layer <= row[static_cast<std::size_t>(c.col - 1)];
}

std::vector<Cube> cubes_of(const Heights& h) {
  std::vector<Cube> out;
  for (std::size_t i = 0; i < h.size(); ++i)
    for (std::size_t j = 0; j < h[i].size(); ++j)
      for (int k = 1; k <= h[i][j]; ++k) out.push_back({static_cast<int>(i + 1), static_cast<int>(j + 1), k});
  return out;
}

Heights apply_move(const Heights& h, Cube c) {
  if (!contains(h, c))
    throw InvalidPosition("cube (" + std::to_string(c.row) + "," + std::to_string(c.col) + "," +
                          std::to_string(c.layer) + ") is not on the board " + heights_to_string(h));
  Heights out;
  for (std::size_t i = 0; i < h.size(); ++i) {
    std::vector<int> row;
    for (std::size_t j = 0; j < h[i].size(); ++j) {
      int v = h[i][j];
      if (static_cast<int>(i) >= c.row - 1 && static_cast<int>(j) >= c.col - 1) v = std::min(v, c.layer - 1);
      if (v == 0) break;
      row.push_back(v);
    }
    if (row.empty()) break;
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<Cube> moves_3d(const Heights& h) {
  std::vector<Cube> out = cubes_of(h);
  if (!out.empty()) out.erase(out.begin());  // (1,1,1) sorts first; the empty board has no cube
  return out;
}

const std::array<std::array<int, 3>, 6>& axis_permutations() {
  static const std::array<std::array<int, 3>, 6> perms{
      {{0, 1, 2}, {1, 0, 2}, {0, 2, 1}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}}};
  return perms;
}

Heights permute_axes(const Heights& h, const std::array<int, 3>& p) {
  // The height at (a, b) of the image is the number of cubes above it: the
  // image is down-closed as the position is, so it is a plane partition.
  std::vector<std::vector<int>> grid;
  for (const Cube& c : cubes_of(h)) {
    const int co[3] = {c.row, c.col, c.layer};
    const auto a = static_cast<std::size_t>(co[p[0]] - 1), b = static_cast<std::size_t>(co[p[1]] - 1);
    if (grid.size() <= a) grid.resize(a + 1);
    if (grid[a].size() <= b) grid[a].resize(b + 1, 0);
    grid[a][b] = std::max(grid[a][b], co[p[2]]);
  }
  return grid;
}

Heights canonical_3d(const Heights& h) {
  Heights best = h;
  for (const auto& p : axis_permutations()) best = std::min(best, permute_axes(h, p));
  return best;
}

Heights flat_position(const Rows& rows) {
  validate_rows(rows);
  Heights h;
  for (int len : rows) h.push_back(std::vector<int>(static_cast<std::size_t>(len), 1));
  validate_heights(h);
  return h;
}

Rows flat_rows(const Heights& h) {
  Rows rows;
  for (const auto& row : h) {
    for (int v : row)
      if (v != 1) throw InvalidPosition(heights_to_string(h) + " is not flat (a height exceeds 1)");
    rows.push_back(static_cast<int>(row.size()));
  }
  return rows;
}

}  // namespace chomp
