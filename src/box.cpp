/// @file box.cpp
/// @brief The box of the divisor game and its cell sets: cells and their
/// order, positions (down-sets) as sets of cells, checking one and making a
/// move in it (box_chomp.hpp). The solver and the counter are box_chomp.cpp.

#include <cassert>
#include <stdexcept>
#include <string>
#include <utility>

#include "chomp/box_chomp.hpp"

namespace chomp {
// ---------------------------------------------------------------------------
// The box and its cell sets

Box::Box(std::vector<int> extents) : extents_(std::move(extents)) {
  if (extents_.empty()) throw std::invalid_argument("a box needs at least one axis");
  strides_.assign(extents_.size(), 1);
  for (std::size_t a = extents_.size(); a-- > 0;) {
    const int e = extents_[a];
    if (e < 1) throw std::invalid_argument("every extent of a box must be at least 1, not " + std::to_string(e));
    if (cells_ > kMaxBoxCells / static_cast<std::size_t>(e))
      throw std::invalid_argument("a box of more than " + std::to_string(kMaxBoxCells) + " cells");
    strides_[a] = cells_;
    cells_ *= static_cast<std::size_t>(e);
  }
}

std::size_t Box::index(std::span<const int> cell) const {
  assert(cell.size() == extents_.size());
  std::size_t i = 0;
  for (std::size_t a = 0; a < extents_.size(); ++a) {
    assert(cell[a] >= 1 && cell[a] <= extents_[a]);
    i += static_cast<std::size_t>(cell[a] - 1) * strides_[a];
  }
  return i;
}

std::vector<int> Box::coordinates(std::size_t index) const {
  std::vector<int> c(extents_.size());
  for (std::size_t a = 0; a < extents_.size(); ++a)
    c[a] = static_cast<int>(index / strides_[a] % static_cast<std::size_t>(extents_[a])) + 1;
  return c;
}

bool Box::below(std::size_t a, std::size_t b) const {
  for (std::size_t x = 0; x < extents_.size(); ++x) {
    const std::size_t e = static_cast<std::size_t>(extents_[x]);
    if (a / strides_[x] % e > b / strides_[x] % e) return false;
  }
  return true;
}

CellSet whole_box(const Box& box) { return CellSet(box.cells(), 1); }

std::size_t cells_in(const CellSet& position) {
  return static_cast<std::size_t>(std::count_if(position.begin(), position.end(), [](std::uint8_t f) { return f; }));
}

namespace {

std::string cell_text(const std::vector<int>& c) {
  std::string s = "(";
  for (std::size_t a = 0; a < c.size(); ++a) {
    if (a) s += ',';
    s += std::to_string(c[a]);
  }
  return s + ")";
}

}  // namespace

std::string down_set_problem(const Box& box, const CellSet& position) {
  if (position.size() != box.cells())
    return "a position of " + std::to_string(position.size()) + " cells for a box of " + std::to_string(box.cells());
  // Closed under one step down along each axis is closed under all.
  for (std::size_t i = 0; i < box.cells(); ++i) {
    if (!position[i]) continue;
    std::vector<int> c = box.coordinates(i);
    for (std::size_t a = 0; a < c.size(); ++a) {
      if (c[a] == 1) continue;
      std::vector<int> d = c;
      --d[a];
      if (!position[box.index(d)]) return cell_text(c) + " remains but " + cell_text(d) + " is gone";
    }
  }
  return {};
}

CellSet take(const Box& box, const CellSet& position, std::size_t cell) {
  if (cell >= position.size() || !position[cell])
    throw std::invalid_argument("the cell taken does not remain in the position");
  CellSet out = position;
  for (std::size_t j = 0; j < out.size(); ++j)
    if (out[j] && box.below(cell, j)) out[j] = 0;
  return out;
}

}  // namespace chomp
