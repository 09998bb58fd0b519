/// @file gap_code.hpp
/// @brief How the store codes the gaps between a level's losing ranks: the
/// low k bits of each gap as they are, the rest by a Huffman code fitted to
/// the level below.
///
/// A level's losing positions are about 1% of it, and the gaps between
/// their ranks are far from uniform: at n = 110 the median gap is 32, the
/// mean 72, and a few gaps run to millions. Their zeroth-order entropy is
/// 7.15 bits, 0.46 bits below a geometric distribution of the same mean.
/// A gap g >= 1 is split as g - 1 = q 2^k + low: `low` takes k raw bits,
/// and the quotient q a prefix code (symbols 0..62, and 63 as an escape
/// followed by an Elias gamma code of q - 62). The code is fitted to the
/// gaps of the level below (a level's distribution moves little from one
/// level to the next), so a level is coded in one pass, in parallel, and
/// the code goes with the level in the store. Measured on levels 80, 100
/// and 110: 6.90, 7.12 and 7.21 bits per gap (0.86-0.90 bytes), against
/// 1.07-1.10 bytes for the LEB128 varints the in-memory store used and
/// 1.18 for the deflated 64-bit ranks of the format 2 result file.
///
/// Bits are written least significant first into 64-bit little-endian
/// words; a code of at most kMaxCodeBits bits is decoded with one table
/// lookup of the next kMaxCodeBits bits. A block's gaps alternate between
/// four streams (after a header of their sizes), so that decoding follows
/// four independent chains of bit positions: one chain is a load, a table
/// lookup and an add a gap long, and one alone decoded 157 million ranks a
/// second against 280-440 million for LEB128 varints (the same level-like
/// gaps, one thread: BM_GapCodeDecode, BM_VarintDecode).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace chomp::detail {

class GapCode {
 public:
  static constexpr int kSymbols = 64;      ///< quotients 0..62, and the escape
  static constexpr int kEscape = kSymbols - 1;
  static constexpr int kMaxCodeBits = 12;  ///< longest prefix code: a 4096-entry table
  static constexpr int kMaxLowBits = 8;    ///< k is chosen in 0..kMaxLowBits
  /// Gaps counted one by one when fitting the next level's code; larger
  /// ones are counted together (they take the escape for every k).
  static constexpr std::size_t kHistogramBins = std::size_t{1} << 14;
  /// Zero bytes that must follow a block's bytes in memory for decode_part.
  static constexpr std::size_t kPadding = 32;
  /// A block's gaps alternate between this many streams of bits (gap i in
  /// stream i % kStreams), after a header of their sizes.
  static constexpr std::size_t kStreams = 4;
  static constexpr std::size_t kHeaderBytes = 16;
  using Histogram = std::vector<std::uint64_t>;  ///< kHistogramBins counts, gap g in bin min(g, bins - 1)

  /// A flat code (k = 0, every symbol 6 bits): for the first levels.
  GapCode();
  /// The code with k low bits and these code lengths (1..kMaxCodeBits each,
  /// a complete prefix code); throws std::invalid_argument otherwise.
  GapCode(int k, const std::array<std::uint8_t, kSymbols>& lengths);
  /// The code that spends the fewest bits on gaps distributed as in
  /// `histogram` (kHistogramBins counts; empty or all zero: the flat code).
  static GapCode fitted(const Histogram& histogram);

  int low_bits() const { return k_; }
  const std::array<std::uint8_t, kSymbols>& lengths() const { return lengths_; }

  /// Bytes that code_block writes at most for `count` ranks.
  static std::size_t max_block_bytes(std::size_t count);
  /// Codes the gaps of ranks[1..] (ranks strictly increasing; the first rank
  /// is kept apart, in the block's index entry) into out, resized to the
  /// bytes written: a multiple of 8. Adds each gap to histogram if given.
  void code_block(std::span<const std::uint64_t> ranks, std::vector<std::uint8_t>& out,
                  Histogram* histogram = nullptr) const;
  /// Decodes `count` ranks starting at `first` from bytes (bytes.size() a
  /// multiple of 8, as code_block writes them) into out. Returns false when
  /// the bytes do not hold a block of that many ranks (damage): the code
  /// runs past their end.
  bool decode_block(std::span<const std::uint8_t> bytes, std::uint64_t first, std::size_t count,
                    std::uint64_t* out) const;

  /// Where decoding a block has got to: ranks [0, index) known, `rank` the
  /// last of them, the next gaps of its streams at bits pos (index 0:
  /// nothing decoded); ended once every gap is decoded and all four streams
  /// ended within their bytes.
  struct Cursor {
    std::size_t index = 0;
    std::uint64_t pos[4] = {0, 0, 0, 0};
    std::uint64_t rank = 0;
    bool ended = false;
  };
  /// Ranks [from, from + n) of a block of `count` ranks from `first` into
  /// out, decoding on from the cursor when the part lies ahead of it (so
  /// that the parts of a block taken in order decode it once), else from
  /// the block's start. `bytes` must be followed by kPadding zero bytes in
  /// memory. Returns false on damage (the cursor is reset).
  bool decode_part(std::span<const std::uint8_t> bytes, std::uint64_t first, std::size_t count, Cursor& cursor,
                   std::size_t from, std::size_t n, std::uint64_t* out) const;

 private:
  void build_tables();

  int k_ = 0;
  std::array<std::uint8_t, kSymbols> lengths_{};
  std::array<std::uint16_t, kSymbols> codes_{};              // bit-reversed canonical codes
  std::array<std::uint16_t, std::size_t{1} << kMaxCodeBits> table_{};  // next bits -> symbol | length << 8
};

}  // namespace chomp::detail
