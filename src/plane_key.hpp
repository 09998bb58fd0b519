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
/// In KeySet the hash only chooses the bucket to look in; membership
/// compares the whole key, so the set is exact (no collision can change an
/// answer).
#pragma once

#include <tbb/parallel_sort.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace chomp::detail {

struct Key3 {
  std::uint64_t w[3] = {0, 0, 0};
  friend bool operator==(const Key3&, const Key3&) = default;
  friend auto operator<=>(const Key3&, const Key3&) = default;
  bool zero() const { return (w[0] | w[1] | w[2]) == 0; }
};

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

inline std::uint64_t key_hash(const Key3& k) {
  std::uint64_t x = k.w[0] * 0x9E3779B97F4A7C15ULL ^ k.w[1] * 0xC2B2AE3D27D4EB4FULL ^ k.w[2] * 0x165667B19E3779F9ULL;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 32;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// An exact, static set of keys, built once and then read by many
/// threads: the keys, each in as many words as its level needs, sorted by
/// their hash, and a directory of where each value of the hash's top bits
/// starts. A lookup reads one directory entry and compares the whole key
/// with the two or so keys of its bucket: about 2 bytes of directory a key.
class KeySet {
 public:
  KeySet() = default;
  /// keys may repeat (they are kept once); `words` is how many of each
  /// key's words can be non-zero (1..3).
  KeySet(std::vector<Key3> keys, int words) : words_(words) {
    std::vector<std::pair<std::uint64_t, Key3>> order;
    order.reserve(keys.size());
    for (const Key3& k : keys) order.push_back({key_hash(k), k});
    keys.clear();
    keys.shrink_to_fit();
    tbb::parallel_sort(order.begin(), order.end());
    order.erase(std::unique(order.begin(), order.end()), order.end());
    size_ = order.size();
    bits_ = 1;
    while ((std::size_t{1} << bits_) < size_ / 2 + 1) ++bits_;
    dir_.assign((std::size_t{1} << bits_) + 1, 0);
    words_store_.reserve(size_ * static_cast<std::size_t>(words_));
    std::size_t b = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::size_t bucket = static_cast<std::size_t>(order[i].first >> (64 - bits_));
      while (b <= bucket) dir_[b++] = static_cast<std::uint32_t>(i);
      for (int w = 0; w < words_; ++w) words_store_.push_back(order[i].second.w[w]);
    }
    while (b < dir_.size()) dir_[b++] = static_cast<std::uint32_t>(size_);
  }
  bool contains(const Key3& k) const {
    if (size_ == 0) return false;
    const std::size_t bucket = static_cast<std::size_t>(key_hash(k) >> (64 - bits_));
    for (std::uint32_t i = dir_[bucket], end = dir_[bucket + 1]; i < end; ++i) {
      const std::uint64_t* w = &words_store_[static_cast<std::size_t>(i) * static_cast<std::size_t>(words_)];
      bool same = true;
      for (int j = 0; j < words_; ++j) same &= w[j] == k.w[j];
      for (int j = words_; j < 3; ++j) same &= k.w[j] == 0;
      if (same) return true;
    }
    return false;
  }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return words_store_.size() * 8 + dir_.size() * 4; }
  /// The keys, in hash order.
  std::vector<Key3> keys() const {
    std::vector<Key3> out(size_);
    for (std::size_t i = 0; i < size_; ++i)
      for (int j = 0; j < words_; ++j) out[i].w[j] = words_store_[i * static_cast<std::size_t>(words_) + static_cast<std::size_t>(j)];
    return out;
  }

 private:
  int words_ = 1;
  int bits_ = 1;
  std::size_t size_ = 0;
  std::vector<std::uint64_t> words_store_;
  std::vector<std::uint32_t> dir_;
};

}  // namespace chomp::detail
