/// @file three_rows.cpp
/// @brief Three-rowed Chomp by a pull over moves (include/chomp/three_rows.hpp).

#include "chomp/three_rows.hpp"

#include <algorithm>
#include <stdexcept>

#include "h5_util.hpp"

namespace chomp {

std::vector<ThreeRows> three_row_positions(int n) {
  std::vector<ThreeRows> out;
  for (int a = n; a >= 1; --a)
    for (int b = std::min(a, n - a); b >= 0; --b) {
      const int c = n - a - b;
      if (c <= b && c >= 0) out.push_back({a, b, c});
    }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::vector<ThreeRows>> three_row_losing(int max_tiles) {
  if (max_tiles < 1) return {};
  // lose[a][b][c] for a + b + c <= max_tiles, a dense cube of bytes.
  const auto side = static_cast<std::size_t>(max_tiles) + 1;
  std::vector<std::uint8_t> lose(side * side * side, 0);
  auto at = [&](int a, int b, int c) -> std::uint8_t& {
    return lose[(static_cast<std::size_t>(a) * side + static_cast<std::size_t>(b)) * side + static_cast<std::size_t>(c)];
  };
  std::vector<std::vector<ThreeRows>> levels(static_cast<std::size_t>(max_tiles));
  for (int a = 1; a <= max_tiles; ++a)
    for (int b = 0; b <= a && a + b <= max_tiles; ++b)
      for (int c = 0; c <= b && a + b + c <= max_tiles; ++c) {
        bool winning = false;
        for (int j = 1; j < a && !winning; ++j) winning = at(j, std::min(b, j), std::min(c, j));
        for (int j = 0; j < b && !winning; ++j) winning = at(a, j, std::min(c, j));
        for (int j = 0; j < c && !winning; ++j) winning = at(a, b, j);
        if (!winning) {
          at(a, b, c) = 1;
          levels[static_cast<std::size_t>(a + b + c - 1)].push_back({a, b, c});
        }
      }
  for (auto& l : levels) std::sort(l.begin(), l.end());
  return levels;
}

std::vector<std::vector<ThreeRows>> read_three_row_record(const std::string& path, int max_tiles, bool& present) {
  using h5::check;
  using h5::Handle;
  present = false;
  std::vector<std::vector<ThreeRows>> levels(static_cast<std::size_t>(max_tiles));
  const std::string what = "cannot read /verifiable/three_row_losing of " + path;
  Handle f = h5::open_for_reading(path);
  if (H5Lexists(f.get(), "verifiable", H5P_DEFAULT) <= 0 ||
      H5Lexists(f.get(), "verifiable/three_row_losing", H5P_DEFAULT) <= 0)
    return levels;
  present = true;
  Handle g = h5::open_group(f.get(), "verifiable/three_row_losing", what);
  // At most one losing position per (row_2, row_3) and level: fewer than
  // kMaxTiles^3 entries in all.
  const hsize_t most = static_cast<hsize_t>(max_tiles) * static_cast<hsize_t>(max_tiles) * static_cast<hsize_t>(max_tiles);
  const auto tiles = h5::read_column<std::uint32_t>(g.get(), "tiles", H5T_NATIVE_UINT32, most, what);
  const auto r1 = h5::read_column<std::uint32_t>(g.get(), "row_1", H5T_NATIVE_UINT32, most, what);
  const auto r2 = h5::read_column<std::uint32_t>(g.get(), "row_2", H5T_NATIVE_UINT32, most, what);
  const auto r3 = h5::read_column<std::uint32_t>(g.get(), "row_3", H5T_NATIVE_UINT32, most, what);
  if (r1.size() != tiles.size() || r2.size() != tiles.size() || r3.size() != tiles.size())
    throw H5Error(what + ": its columns differ in length");
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const std::uint64_t n = tiles[i];
    if (n < 1 || n > static_cast<std::uint64_t>(max_tiles) || r1[i] < r2[i] || r2[i] < r3[i] ||
        std::uint64_t{r1[i]} + r2[i] + r3[i] != n)
      throw H5Error(what + ": entry " + std::to_string(i) + " is not a position of at most three rows "
                            "with its tiles");
    levels[n - 1].push_back({static_cast<int>(r1[i]), static_cast<int>(r2[i]), static_cast<int>(r3[i])});
  }
  for (auto& l : levels) std::sort(l.begin(), l.end());
  return levels;
}

}  // namespace chomp
