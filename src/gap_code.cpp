/// @file gap_code.cpp
/// @brief The store's gap code: fitting it to a histogram, coding and
/// decoding a block of ranks.

#include "gap_code.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace chomp::detail {

namespace {

/// Largest gamma exponent a gap can need: gaps are below 2^48 (p(255) is
/// about 1.2e14), so q - 62 < 2^48.
constexpr int kMaxGammaZeros = 48;

/// Huffman code lengths for these counts (every count >= 1), limited to
/// GapCode::kMaxCodeBits: while the longest code is too long, the counts
/// are flattened (halved, at least 1) and the code is made again.
std::array<std::uint8_t, GapCode::kSymbols> huffman_lengths(std::array<std::uint64_t, GapCode::kSymbols> counts) {
  constexpr int S = GapCode::kSymbols;
  for (;;) {
    // Nodes 0..S-1 are the symbols, S.. the merged ones; parent[] gives depths.
    std::uint64_t weight[2 * S];
    int parent[2 * S];
    bool used[2 * S] = {};
    for (int i = 0; i < S; ++i) weight[i] = counts[static_cast<std::size_t>(i)];
    int nodes = S;
    for (int merges = 0; merges < S - 1; ++merges) {
      int a = -1, b = -1;
      for (int i = 0; i < nodes; ++i) {
        if (used[i]) continue;
        if (a < 0 || weight[i] < weight[a]) b = a, a = i;
        else if (b < 0 || weight[i] < weight[b]) b = i;
      }
      used[a] = used[b] = true;
      weight[nodes] = weight[a] + weight[b];
      parent[a] = parent[b] = nodes;
      ++nodes;
    }
    std::array<std::uint8_t, S> lengths{};
    int longest = 0;
    for (int i = 0; i < S; ++i) {
      int depth = 0;
      for (int j = i; j != nodes - 1; j = parent[j]) ++depth;
      lengths[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(depth);
      longest = std::max(longest, depth);
    }
    if (longest <= GapCode::kMaxCodeBits) return lengths;
    for (auto& c : counts) c = std::max<std::uint64_t>(1, c / 2);
  }
}

/// Reads the next 57 or more bits at bit position pos (bytes must have 8
/// readable bytes beyond pos / 8).
inline std::uint64_t peek(const std::uint8_t* bytes, std::uint64_t pos) {
  std::uint64_t w;
  std::memcpy(&w, bytes + (pos >> 3), sizeof w);
  return w >> (pos & 7);
}

/// Writes bits least significant first into 64-bit little-endian words.
class BitWriter {
 public:
  explicit BitWriter(std::uint8_t* out) : out_(out) {}
  /// Appends the low `len` bits of v (len <= 32; v has no higher bits).
  void put(std::uint64_t v, int len) {
    acc_ |= v << used_;
    used_ += len;
    if (used_ >= 64) {
      std::memcpy(out_, &acc_, sizeof acc_);
      out_ += 8;
      used_ -= 64;
      acc_ = used_ ? v >> (len - used_) : 0;
    }
  }
  /// Flushes the last partial word; returns the end of the output.
  std::uint8_t* finish() {
    if (used_) {
      std::memcpy(out_, &acc_, sizeof acc_);
      out_ += 8;
    }
    return out_;
  }

 private:
  std::uint8_t* out_;
  std::uint64_t acc_ = 0;
  int used_ = 0;
};

}  // namespace

GapCode::GapCode() {
  lengths_.fill(6);  // 64 symbols, 6 bits each
  build_tables();
}

GapCode::GapCode(int k, const std::array<std::uint8_t, kSymbols>& lengths) : k_(k), lengths_(lengths) {
  if (k < 0 || k > kMaxLowBits) throw std::invalid_argument("gap code: low bits out of range");
  // Kraft sum exactly 1 (a complete code), every length in 1..kMaxCodeBits.
  std::uint64_t kraft = 0;
  for (const std::uint8_t l : lengths) {
    if (l < 1 || l > kMaxCodeBits) throw std::invalid_argument("gap code: a code length out of range");
    kraft += std::uint64_t{1} << (kMaxCodeBits - l);
  }
  if (kraft != std::uint64_t{1} << kMaxCodeBits) throw std::invalid_argument("gap code: not a complete prefix code");
  build_tables();
}

void GapCode::build_tables() {
  // Canonical codes: by length, then symbol; each reversed, since the
  // decoder reads the first bit of a code as the lowest.
  std::uint32_t code = 0;
  for (int len = 1; len <= kMaxCodeBits; ++len) {
    for (int s = 0; s < kSymbols; ++s) {
      if (lengths_[static_cast<std::size_t>(s)] != len) continue;
      std::uint32_t reversed = 0;
      for (int b = 0; b < len; ++b) reversed |= ((code >> b) & 1U) << (len - 1 - b);
      codes_[static_cast<std::size_t>(s)] = static_cast<std::uint16_t>(reversed);
      for (std::uint32_t x = reversed; x < table_.size(); x += std::uint32_t{1} << len)
        table_[x] = static_cast<std::uint16_t>(s | len << 8);
      ++code;
    }
    code <<= 1;
  }
}

GapCode GapCode::fitted(const Histogram& histogram) {
  std::uint64_t total = 0;
  for (const std::uint64_t c : histogram) total += c;
  if (total == 0 || histogram.size() != kHistogramBins) return GapCode();
  GapCode best;
  double best_bits = -1;
  for (int k = 0; k <= kMaxLowBits; ++k) {
    // Counts per symbol (each at least 1, so that every quotient has a
    // code) and the gamma bits the escapes need.
    std::array<std::uint64_t, kSymbols> counts;
    counts.fill(1);
    double extra = 0;
    for (std::size_t g = 1; g < kHistogramBins; ++g) {
      if (histogram[g] == 0) continue;
      const std::uint64_t q = (g - 1) >> k;
      if (q < kEscape && g + 1 < kHistogramBins) {
        counts[q] += histogram[g];
      } else {
        counts[kEscape] += histogram[g];
        const std::uint64_t v = q >= kEscape ? q - (kEscape - 1) : 1;
        extra += static_cast<double>(histogram[g]) * (2 * (std::bit_width(v) - 1) + 1);
      }
    }
    const auto lengths = huffman_lengths(counts);
    double bits = extra + static_cast<double>(total) * k;
    for (int s = 0; s < kSymbols; ++s)
      bits += static_cast<double>(counts[static_cast<std::size_t>(s)]) * lengths[static_cast<std::size_t>(s)];
    if (best_bits < 0 || bits < best_bits) best_bits = bits, best = GapCode(k, lengths);
  }
  return best;
}

std::size_t GapCode::max_block_bytes(std::size_t count) {
  // A gap takes at most kMaxCodeBits + kMaxLowBits + a gamma code of
  // 2 kMaxGammaZeros + 1 bits: 117 bits, under 15 bytes.
  return (count * 15 + 15) / 8 * 8 + 8;
}

void GapCode::code_block(std::span<const std::uint64_t> ranks, std::vector<std::uint8_t>& out,
                         Histogram* histogram) const {
  out.resize(max_block_bytes(ranks.size()));
  BitWriter bits(out.data());
  const std::uint64_t low_mask = (std::uint64_t{1} << k_) - 1;
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    const std::uint64_t gap = ranks[i] - ranks[i - 1];
    if (histogram) ++(*histogram)[std::min<std::uint64_t>(gap, kHistogramBins - 1)];
    const std::uint64_t q = (gap - 1) >> k_;
    if (q < kEscape) {
      bits.put(codes_[q], lengths_[q]);
    } else {
      bits.put(codes_[kEscape], lengths_[kEscape]);
      const std::uint64_t v = q - (kEscape - 1);  // >= 1
      const int z = std::bit_width(v) - 1;
      int zeros = z;  // z zeros, then a one
      for (; zeros > 31; zeros -= 31) bits.put(0, 31);
      bits.put(std::uint64_t{1} << zeros, zeros + 1);
      const std::uint64_t rest = v & ((std::uint64_t{1} << z) - 1);
      if (z > 32) {
        bits.put(rest & 0xffffffffU, 32);
        bits.put(rest >> 32, z - 32);
      } else {
        bits.put(rest, z);
      }
    }
    bits.put((gap - 1) & low_mask, k_);
  }
  out.resize(static_cast<std::size_t>(bits.finish() - out.data()));
}

bool GapCode::decode_block(std::span<const std::uint8_t> bytes, std::uint64_t first, std::size_t count,
                           std::uint64_t* out) const {
  Cursor c;
  return decode_part(bytes, first, count, c, 0, count, out) && (count == 0 || c.pos <= bytes.size() * 8);
}

bool GapCode::decode_part(std::span<const std::uint8_t> bytes, std::uint64_t first, std::size_t count, Cursor& c,
                          std::size_t from, std::size_t n, std::uint64_t* out) const {
  if (n == 0) return true;
  if (from + n > count || bytes.size() % 8) return false;
  // Peeks near the end read a zero-padded copy of the last bytes, and
  // beyond the end read zeros (a damaged block runs into them).
  const std::uint64_t end_bits = bytes.size() * 8;
  constexpr std::size_t kTail = 16;
  std::uint8_t tail[kTail + 8] = {};
  const std::size_t safe = bytes.size() >= kTail ? bytes.size() - kTail : 0;  // peeks below this byte read bytes
  std::memcpy(tail, bytes.data() + safe, bytes.size() - safe);
  const auto look = [&](std::uint64_t pos) -> std::uint64_t {
    const std::uint64_t byte = pos >> 3;
    if (byte < safe) return peek(bytes.data(), pos);
    if (byte < bytes.size()) return peek(tail, pos - safe * 8);
    return 0;
  };
  const std::uint64_t low_mask = (std::uint64_t{1} << k_) - 1;
  std::uint64_t pos = c.pos, rank = c.rank;
  std::size_t index = c.index;
  // Decodes the next gap: index, rank and pos move on.
  const auto step = [&]() -> bool {
    if (pos >= end_bits) return false;
    std::uint64_t w = look(pos);
    const std::uint16_t e = table_[w & ((1U << kMaxCodeBits) - 1)];
    const int sym = e & 0xff, len = e >> 8;
    std::uint64_t q = static_cast<std::uint64_t>(sym);
    pos += static_cast<std::uint64_t>(len);
    if (sym == kEscape) {
      w = look(pos);
      if (w == 0) return false;
      const int z = std::countr_zero(w);
      if (z > kMaxGammaZeros) return false;
      pos += static_cast<std::uint64_t>(z) + 1;
      w = look(pos);
      q = ((std::uint64_t{1} << z) | (w & ((std::uint64_t{1} << z) - 1))) + (kEscape - 1);
      pos += static_cast<std::uint64_t>(z);
      w = look(pos);
      rank += ((q << k_) | (w & low_mask)) + 1;
    } else {
      rank += ((q << k_) | ((w >> len) & low_mask)) + 1;
    }
    pos += static_cast<std::uint64_t>(k_);
    ++index;
    return true;
  };
  // Ranks [0, index) are known, rank the last of them: start again when
  // the part begins before it, else decode on.
  if (index == 0 || index > from + 1) index = 1, rank = first, pos = 0;
  bool ok = true;
  while (ok && index < from) ok = step();
  std::size_t j = 0;
  if (ok && index == from + 1) out[j++] = rank;
  for (; ok && j < n; ++j) {
    ok = step();
    out[j] = rank;
  }
  c.pos = pos, c.rank = rank, c.index = index;
  if (!ok) c = Cursor{};
  return ok;
}

}  // namespace chomp::detail
