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

/// The rest of a gap whose quotient took the escape (rare), from bit p + len
/// (past the escape's code): an Elias gamma code of q - 62, then k low
/// bits. Returns the gap, or 0 when the bits cannot be one (damage).
[[gnu::noinline]] std::uint64_t escaped_gap(const std::uint8_t* bits, std::uint64_t& p, std::uint64_t stop,
                                            unsigned len, int k, std::uint64_t low_mask) {
  p += len;
  if (p >= stop) return 0;
  std::uint64_t w = peek(bits, p);
  if (w == 0) return 0;
  const int z = std::countr_zero(w);
  if (z > kMaxGammaZeros) return 0;
  p += static_cast<std::uint64_t>(z) + 1;
  if (p >= stop + 64) return 0;
  w = peek(bits, p);
  const std::uint64_t q = ((std::uint64_t{1} << z) | (w & ((std::uint64_t{1} << z) - 1))) + (GapCode::kEscape - 1);
  p += static_cast<std::uint64_t>(z);
  if (p >= stop + 64) return 0;
  w = peek(bits, p);
  p += static_cast<std::uint64_t>(k);
  return ((q << k) | (w & low_mask)) + 1;
}

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
  // 2 kMaxGammaZeros + 1 bits: 117 bits, under 15 bytes; and the header,
  // and a partial last word for each stream.
  return (count * 15 + 15) / 8 * 8 + kHeaderBytes + 8 * kStreams;
}

namespace {

/// Writes one gap into a stream of bits.
void put_gap(BitWriter& bits, std::uint64_t gap, int k, const std::array<std::uint16_t, GapCode::kSymbols>& codes,
             const std::array<std::uint8_t, GapCode::kSymbols>& lengths) {
  const std::uint64_t q = (gap - 1) >> k;
  if (q < GapCode::kEscape) {
    bits.put(codes[q], lengths[q]);
  } else {
    bits.put(codes[GapCode::kEscape], lengths[GapCode::kEscape]);
    const std::uint64_t v = q - (GapCode::kEscape - 1);  // >= 1
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
  bits.put((gap - 1) & ((std::uint64_t{1} << k) - 1), k);
}

}  // namespace

void GapCode::code_block(std::span<const std::uint64_t> ranks, std::vector<std::uint8_t>& out,
                         Histogram* histogram) const {
  // kStreams streams, gap i in stream i % kStreams, so that a decoder
  // follows as many independent chains of bit positions at once; the header
  // (kHeaderBytes) holds the byte sizes of all four streams.
  const std::size_t most = max_block_bytes(ranks.size());
  std::array<std::vector<std::uint8_t>, kStreams> streams;
  std::array<std::uint8_t*, kStreams> starts{};
  for (std::size_t t = 0; t < kStreams; ++t) streams[t].resize(most), starts[t] = streams[t].data();
  std::array<BitWriter, kStreams> writers{BitWriter(starts[0]), BitWriter(starts[1]), BitWriter(starts[2]),
                                          BitWriter(starts[3])};
  static_assert(kStreams == 4, "one writer per stream");
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    const std::uint64_t gap = ranks[i] - ranks[i - 1];
    if (histogram) ++(*histogram)[std::min<std::uint64_t>(gap, kHistogramBins - 1)];
    put_gap(writers[i % kStreams], gap, k_, codes_, lengths_);
  }
  std::array<std::uint32_t, kStreams> sizes{};
  std::size_t total = kHeaderBytes;
  for (std::size_t t = 0; t < kStreams; ++t) {
    sizes[t] = static_cast<std::uint32_t>(writers[t].finish() - starts[t]);
    total += sizes[t];
  }
  out.resize(total);
  std::memcpy(out.data(), sizes.data(), kHeaderBytes);
  std::size_t at = kHeaderBytes;
  for (std::size_t t = 0; t < kStreams; ++t) {
    std::memcpy(out.data() + at, starts[t], sizes[t]);
    at += sizes[t];
  }
}

bool GapCode::decode_block(std::span<const std::uint8_t> bytes, std::uint64_t first, std::size_t count,
                           std::uint64_t* out) const {
  // The decoder reads past the bytes: a padded copy.
  std::vector<std::uint8_t> padded(bytes.size() + kPadding, 0);
  std::memcpy(padded.data(), bytes.data(), bytes.size());
  Cursor c;
  return decode_part(std::span(padded).first(bytes.size()), first, count, c, 0, count, out) && (count == 0 || c.ended);
}

bool GapCode::decode_part(std::span<const std::uint8_t> bytes, std::uint64_t first, std::size_t count, Cursor& c,
                          std::size_t from, std::size_t n, std::uint64_t* out) const {
  if (n == 0) return true;
  if (from + n > count || bytes.size() % 8) return false;
  // bytes are followed by kPadding zero bytes: every peek below starts
  // within its stream or at most 16 bytes past it (a gap's code and low
  // bits take at most 20 bits, a gamma code 97; each step checks that it
  // starts inside its stream), so no peek needs a bound of its own.
  const std::uint8_t* data = bytes.data();
  // Stream t holds gaps i = t (mod kStreams) and spans bits [start[t], end[t]).
  std::uint64_t start[kStreams], end[kStreams];
  {
    std::uint32_t sizes[kStreams] = {};
    if (bytes.size() < kHeaderBytes) return false;
    std::memcpy(sizes, data, kHeaderBytes);
    std::uint64_t at = kHeaderBytes;
    for (std::size_t t = 0; t < kStreams; ++t) {
      if (sizes[t] % 8 || at + sizes[t] > bytes.size()) return false;
      start[t] = at * 8;
      end[t] = (at + sizes[t]) * 8;
      at += sizes[t];
    }
    if (at != bytes.size()) return false;
  }
  const std::uint64_t low_mask = (std::uint64_t{1} << k_) - 1;
  std::uint64_t p0 = c.pos[0], p1 = c.pos[1], p2 = c.pos[2], p3 = c.pos[3];
  std::uint64_t rank = c.rank;
  std::size_t index = c.index;
  // Decodes the next gap of the stream at p (ending at bit `stop`), 0 on
  // damage; each stream's position is a chain of its own, in a register.
  const auto step = [&](std::uint64_t& p, std::uint64_t stop) -> std::uint64_t {
    if (p >= stop) [[unlikely]] return 0;
    std::uint64_t w = peek(data, p);
    const std::uint16_t e = table_[w & ((1U << kMaxCodeBits) - 1)];
    const unsigned sym = e & 0xffU, len = e >> 8;
    if (sym != kEscape) [[likely]] {
      p += len + static_cast<unsigned>(k_);
      return ((static_cast<std::uint64_t>(sym) << k_) | ((w >> len) & low_mask)) + 1;
    }
    return escaped_gap(data, p, stop, len, k_, low_mask);
  };
  // The gap of the next index, from its stream.
  const auto next = [&]() -> bool {
    std::uint64_t gap = 0;
    switch (index % kStreams) {
      case 0: gap = step(p0, end[0]); break;
      case 1: gap = step(p1, end[1]); break;
      case 2: gap = step(p2, end[2]); break;
      default: gap = step(p3, end[3]); break;
    }
    rank += gap;
    ++index;
    return gap != 0;
  };
  // Ranks [0, index) are known, rank the last of them: start again when
  // the part begins before it, else decode on.
  if (index == 0 || index > from + 1) {
    index = 1, rank = first;
    p0 = start[0], p1 = start[1], p2 = start[2], p3 = start[3];
  }
  bool ok = true;
  while (ok && index < from) ok = next();
  std::size_t j = 0;
  if (ok && index == from + 1) out[j++] = rank;
  while (ok && j < n && index % kStreams != 1) {
    ok = next();
    out[j++] = rank;
  }
  // Four gaps at a time, one from each stream, so that their chains overlap.
  for (; ok && j + 3 < n; j += 4) {
    const std::uint64_t g1 = step(p1, end[1]), g2 = step(p2, end[2]), g3 = step(p3, end[3]), g0 = step(p0, end[0]);
    out[j] = rank += g1;
    out[j + 1] = rank += g2;
    out[j + 2] = rank += g3;
    out[j + 3] = rank += g0;
    ok = (g1 != 0) & (g2 != 0) & (g3 != 0) & (g0 != 0);
    index += 4;
  }
  while (ok && j < n) {
    ok = next();
    out[j++] = rank;
  }
  c.pos[0] = p0, c.pos[1] = p1, c.pos[2] = p2, c.pos[3] = p3, c.rank = rank, c.index = index;
  c.ended = ok && index == count && p0 <= end[0] && p1 <= end[1] && p2 <= end[2] && p3 <= end[3];
  if (!ok) c = Cursor{};
  return ok;
}

}  // namespace chomp::detail
