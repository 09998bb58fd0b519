/// @file exact_key_set.hpp
/// @brief (internal) Fixed-width exact keys of a few 64-bit words, their
/// hash, and a static exact set of them, shared by the 3D sieve
/// (plane_key.hpp) and the box solver of the divisor game (box_chomp.cpp).
///
/// In ExactKeySet the hash only chooses the bucket to look in; membership
/// compares the whole key, so the set is exact (no collision can change an
/// answer). (An open-addressing table with the keys inline, one cache miss
/// a look-up instead of two, was no faster for the box solver: measured on
/// the 2^6 box, 6.9 s against 6.4 s of CPU.)
#pragma once

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace chomp::detail {

/// A key of N words; what the words mean is the user's (the 3D sieve's
/// unary height matrix, the box solver's packed heights).
template <std::size_t N>
struct Key {
  std::uint64_t w[N] = {};
  friend bool operator==(const Key&, const Key&) = default;
  friend auto operator<=>(const Key&, const Key&) = default;
  bool zero() const {
    std::uint64_t any = 0;
    for (std::size_t i = 0; i < N; ++i) any |= w[i];
    return any == 0;
  }
};

/// A word-wise multiply-xor folded through splitmix64's finalizer. For
/// N = 3 it is the hash the 3D sieve has always used.
template <std::size_t N>
std::uint64_t key_hash(const Key<N>& k) {
  static constexpr std::uint64_t kMul[8] = {0x9E3779B97F4A7C15ULL, 0xC2B2AE3D27D4EB4FULL, 0x165667B19E3779F9ULL,
                                            0x27D4EB2F165667C5ULL, 0xFF51AFD7ED558CCDULL, 0xC4CEB9FE1A85EC53ULL,
                                            0x85EBCA77C2B2AE63ULL, 0xD6E8FEB86659FD93ULL};
  static_assert(N >= 1 && N <= 8, "a key of 1 to 8 words");
  std::uint64_t x = 0;
  for (std::size_t i = 0; i < N; ++i) x ^= k.w[i] * kMul[i];
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
template <std::size_t N>
class ExactKeySet {
 public:
  /// Keys a set can hold: its directory's entries are 32-bit indices (2
  /// bytes of directory a key; 64-bit ones would take 4 more). A larger set
  /// is refused (std::length_error), never built with indices that wrap.
  static constexpr std::size_t kMaxKeys = 0xFFFFFFFFu;

  ExactKeySet() = default;
  /// keys may repeat (they are kept once); `words` is how many of each
  /// key's words can be non-zero (1..N).
  explicit ExactKeySet(std::vector<Key<N>> keys, int words = static_cast<int>(N)) : words_(words) {
    std::vector<std::pair<std::uint64_t, Key<N>>> order;
    order.reserve(keys.size());
    for (const Key<N>& k : keys) order.push_back({key_hash(k), k});
    keys.clear();
    keys.shrink_to_fit();
    tbb::parallel_sort(order.begin(), order.end());
    order.erase(std::unique(order.begin(), order.end()), order.end());
    size_ = order.size();
    refuse_if_too_large();
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
  /// The same set from keys in parts (the 3D sieve's threads' lists, in
  /// chunks): each part is sorted by hash in place (in parallel), and the
  /// parts are merged into the set. What it holds at most is the parts and
  /// the set, never a copy of the keys beside them (the constructor above
  /// holds the keys, a hash a key and the set); the parts are freed at
  /// the end.
  ExactKeySet(std::vector<std::vector<Key<N>>> parts, int words) : words_(words) {
    const auto by_hash = [](const Key<N>& a, const Key<N>& b) {
      const std::uint64_t ha = key_hash(a), hb = key_hash(b);
      return ha != hb ? ha < hb : a < b;
    };
    tbb::parallel_for(std::size_t{0}, parts.size(), [&](std::size_t i) {
      std::sort(parts[i].begin(), parts[i].end(), by_hash);
    });
    std::size_t total = 0;
    for (const auto& p : parts) total += p.size();
    words_store_.reserve(total * static_cast<std::size_t>(words_));
    // The parts' heads by (hash, key), smallest first; a key equal to the
    // last one kept is a repeat.
    struct Head {
      std::uint64_t hash;
      Key<N> key;
      std::size_t part, at;
      bool operator>(const Head& o) const { return hash != o.hash ? hash > o.hash : key > o.key; }
    };
    std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (!parts[i].empty()) heads.push(Head{key_hash(parts[i][0]), parts[i][0], i, 0});
    Key<N> last;
    bool any = false;
    while (!heads.empty()) {
      Head h = heads.top();
      heads.pop();
      if (!any || !(h.key == last)) {
        for (int w = 0; w < words_; ++w) words_store_.push_back(h.key.w[w]);
        last = h.key, any = true;
      }
      if (++h.at < parts[h.part].size()) {
        h.key = parts[h.part][h.at];
        h.hash = key_hash(h.key);
        heads.push(h);
      }
    }
    std::vector<std::vector<Key<N>>>().swap(parts);
    size_ = words_store_.size() / static_cast<std::size_t>(words_);
    refuse_if_too_large();
    bits_ = 1;
    while ((std::size_t{1} << bits_) < size_ / 2 + 1) ++bits_;
    dir_.assign((std::size_t{1} << bits_) + 1, 0);
    std::size_t b = 0;
    for (std::size_t i = 0; i < size_; ++i) {
      const std::size_t bucket = static_cast<std::size_t>(key_hash(key(i)) >> (64 - bits_));
      while (b <= bucket) dir_[b++] = static_cast<std::uint32_t>(i);
    }
    while (b < dir_.size()) dir_[b++] = static_cast<std::uint32_t>(size_);
  }
  bool contains(const Key<N>& k) const { return size_ != 0 && contains(k, bucket(k)); }

  /// The look-up in three steps, for callers that overlap many (each a
  /// cache miss or two in a large set): bucket(k), then prefetch(b) (the
  /// directory entry), then prefetch_keys(b) (the bucket's keys), then
  /// contains(k, b). Each prefetch only hints; any step may be skipped.
  std::size_t bucket(const Key<N>& k) const { return static_cast<std::size_t>(key_hash(k) >> (64 - bits_)); }
  void prefetch(std::size_t b) const {
    if (size_ != 0) __builtin_prefetch(&dir_[b]);
  }
  void prefetch_keys(std::size_t b) const {
    if (size_ != 0 && dir_[b] < size_)
      __builtin_prefetch(&words_store_[static_cast<std::size_t>(dir_[b]) * static_cast<std::size_t>(words_)]);
  }
  bool contains(const Key<N>& k, std::size_t bucket) const {
    if (size_ == 0) return false;
    for (std::uint32_t i = dir_[bucket], end = dir_[bucket + 1]; i < end; ++i) {
      const std::uint64_t* w = &words_store_[static_cast<std::size_t>(i) * static_cast<std::size_t>(words_)];
      bool same = true;
      for (int j = 0; j < words_; ++j) same &= w[j] == k.w[j];
      for (int j = words_; j < static_cast<int>(N); ++j) same &= k.w[j] == 0;
      if (same) return true;
    }
    return false;
  }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return words_store_.size() * 8 + dir_.size() * 4; }
  /// Key i in hash order (i < size()).
  Key<N> key(std::size_t i) const {
    Key<N> k;
    for (int j = 0; j < words_; ++j)
      k.w[j] = words_store_[i * static_cast<std::size_t>(words_) + static_cast<std::size_t>(j)];
    return k;
  }
  /// The keys, in hash order.
  std::vector<Key<N>> keys() const {
    std::vector<Key<N>> out(size_);
    for (std::size_t i = 0; i < size_; ++i)
      for (int j = 0; j < words_; ++j)
        out[i].w[j] = words_store_[i * static_cast<std::size_t>(words_) + static_cast<std::size_t>(j)];
    return out;
  }

 private:
  void refuse_if_too_large() const {
    if (size_ > kMaxKeys)
      throw std::length_error("a set of " + std::to_string(size_) + " positions: more than the " +
                              std::to_string(kMaxKeys) + " its 32-bit directory can index");
  }

  int words_ = static_cast<int>(N);
  int bits_ = 1;
  std::size_t size_ = 0;
  std::vector<std::uint64_t> words_store_;
  std::vector<std::uint32_t> dir_;
};

}  // namespace chomp::detail
