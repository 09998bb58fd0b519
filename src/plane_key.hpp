/// @file plane_key.hpp
/// @brief (internal) A 3D position as an exact 192-bit key, and an exact set
/// of keys, for the 3D sieve.
///
/// The key is the height matrix written in unary: row by row, each height
/// h as h one-bits and a zero-bit, each row closed by one more zero-bit.
/// Bit 0 is the first bit. A position of n cubes with c columns of cubes
/// and r rows takes n + c + r <= 3n bits, so every position of at most
/// kMaxCubes = 63 cubes fits in three words and the code is injective (it
/// decodes uniquely: a zero right after a zero closes a row, two rows
/// closed in a row end the matrix). No key is all zeros.
///
/// The key type, its hash and the exact set of keys are the three-word
/// case of exact_key_set.hpp.
#pragma once

#include <cstdint>

#include "exact_key_set.hpp"
#include "height_grid.hpp"

namespace chomp::detail {

using Key3 = Key<3>;
using KeySet = ExactKeySet<3>;

/// Appends runs of one-bits and zero-bits to a key.
class KeyWriter {
 public:
  KeyWriter() = default;
  /// Continues after the first `bits` bits of k (the later bits are cleared).
  KeyWriter(const Key3& k, int bits) : pos_(bits) {
    for (int i = 0; i < 3; ++i) {
      const int lo = i * 64;
      if (bits >= lo + 64)
        w_[i] = k.w[i];
      else if (bits > lo)
        w_[i] = k.w[i] & ((std::uint64_t{1} << (bits - lo)) - 1);
    }
  }
  /// v one-bits (1 <= v <= 63) and a zero-bit.
  void height(int v) {
    const std::uint64_t m = (std::uint64_t{1} << v) - 1;
    const int i = pos_ >> 6, b = pos_ & 63;
    w_[i] |= m << b;
    if (b + v > 64) w_[i + 1] |= m >> (64 - b);
    pos_ += v + 1;
  }
  void end_row() { ++pos_; }
  int bits() const { return pos_; }
  Key3 key() const { return Key3{{w_[0], w_[1], w_[2]}}; }

 private:
  std::uint64_t w_[4] = {0, 0, 0, 0};  // one word of room for a run that spills
  int pos_ = 0;
};

/// The key of a height matrix.
inline Key3 key_of(const HeightGrid& g) {
  KeyWriter w;
  for (int i = 0; i < g.rows; ++i) {
    for (int j = 0; j < g.len[i]; ++j) w.height(g.h[i][j]);
    w.end_row();
  }
  return w.key();
}

/// The height matrix of a key (key_of backwards).
inline void grid_of(const Key3& k, HeightGrid& g) {
  g.rows = 0;
  int pos = 0, len = 0;
  const auto bit = [&](int p) { return (k.w[p >> 6] >> (p & 63)) & 1U; };
  while (pos < 192) {
    int v = 0;
    while (pos < 192 && bit(pos)) ++v, ++pos;
    ++pos;  // the zero after the run
    if (v > 0) {
      g.h[g.rows][len++] = static_cast<std::uint8_t>(v);
    } else {
      if (len == 0) break;  // a row closed twice: the end
      g.len[g.rows++] = static_cast<std::uint8_t>(len);
      len = 0;
    }
  }
}

}  // namespace chomp::detail
