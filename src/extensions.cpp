/// @file extensions.cpp
/// @brief Decoding of sources for the marking kernel, and the public wrappers.

#include "extensions.hpp"

#include "bit_copy.hpp"
#include "buckets.hpp"

#include "chomp/extensions.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace chomp {
namespace detail {

const BlockShapes& BlockShapes::get() {
  static const BlockShapes shapes;
  return shapes;
}

BlockShapes::BlockShapes()
    : first_((kTiles + 1) * (kTiles + 1), 0), upto_((kTiles + 1) * (kTiles + 1) * (kTiles + 1), 0) {
  std::vector<std::vector<int>> blocks;  // the partitions of e with parts <= vcap
  std::vector<int> parts;
  const auto add = [&](const auto& self, int left, int largest) -> void {
    if (left == 0) {
      blocks.push_back(parts);
      return;
    }
    for (int x = largest < left ? largest : left; x >= 1; --x) {
      parts.push_back(x);
      self(self, left - x, x);
      parts.pop_back();
    }
  };
  for (int e = 1; e <= kTiles; ++e)
    for (int vcap = 1; vcap <= e; ++vcap) {
      blocks.clear();
      add(add, e, vcap);
      std::stable_sort(blocks.begin(), blocks.end(),
                       [](const auto& a, const auto& b) { return a.size() < b.size(); });
      const std::size_t i = index(e, vcap);
      first_[i] = static_cast<std::uint32_t>(shapes_.size());
      for (const auto& nu : blocks) {
        for (std::size_t p = nu.size(); p <= static_cast<std::size_t>(kTiles); ++p) ++upto_[i * (kTiles + 1) + p];
        Shape shape{};  // runs past the last have multiplicity 0
        int run = 0;
        for (std::size_t a = 0; a < nu.size(); ++run) {
          std::size_t b = a;
          while (b < nu.size() && nu[b] == nu[a]) ++b;
          shape.value[run] = static_cast<std::uint8_t>(nu[a]);
          shape.rows[run] = static_cast<std::uint8_t>(b - a);
          a = b;
        }
        shapes_.push_back(shape);
      }
    }
}

void Source::decode(int m, std::uint64_t rank) {
  m_ = m;
  rank_ = rank;
  ++serial_;
  kept_ = 0;
  next_known_ = false;
  trank_valid_ = 0;
  c_[0] = m + 1;  // sentinel: the first run may be as long as the level allows
  R_[1] = m;
  C_[1] = 0;
  K_[1] = 0;
  descend(1, m, rank);
}

void Source::seek(std::uint64_t rank) {
  // hi_[t] is one past the last rank whose first t runs equal ours; these
  // intervals are nested, so hi_ is non-increasing. Successive losing ranks
  // are close, so the first run that changes is usually near the bottom:
  // walk up from there.
  int t = T_;
  while (t > 1 && rank >= hi_[t - 1]) --t;
  rank_ = rank;
  ++serial_;
  kept_ = t - 1;
  next_known_ = false;
  if (trank_valid_ > kept_) trank_valid_ = kept_;
  descend(t, c_[t - 1] - 1, rank - C_[t]);
}

DecodedTails::DecodedTails() : first_(kTiles + 1, 0) {
  // Each partition's rows from the ranking (the order Source::descend
  // decodes in), packed as runs of equal rows.
  const PartitionTable t(kTiles);
  for (int R = 1; R <= kTiles; ++R) {
    first_[static_cast<std::size_t>(R)] = static_cast<std::uint32_t>(words_.size());
    for (std::uint64_t x = 0; x < t.positions(R); ++x) {
      const Rows rows = t.unrank(R, x);
      std::uint64_t word = 0;
      int runs = 0;
      for (std::size_t i = 0; i < rows.size(); ++runs) {
        std::size_t j = i;
        while (j < rows.size() && rows[j] == rows[i]) ++j;
        word |= (static_cast<std::uint64_t>(rows[i]) | static_cast<std::uint64_t>(j - i) << 5) << (3 + 10 * runs);
        i = j;
      }
      words_.push_back(word | static_cast<std::uint64_t>(runs));
    }
  }
}

const DecodedTails& DecodedTails::get() {
  static const DecodedTails tails;
  return tails;
}

void Source::descend(int t, int max_part, std::uint64_t rank_left) {
  // Partitions of R with parts <= a, ordered as in ranking.hpp: first part a
  // is the block starting at P(R, a-1); within it, those that start with q
  // copies of a are the last P(R - q a, a) (the lexicographically largest).
  while (R_[t] > 0) {
    const int R = R_[t];
    if (R <= DecodedTails::kTiles) {
      // The rest from the table: its runs, and each run's terms.
      std::uint64_t word = tails_.runs(R, rank_left);
      const int runs = static_cast<int>(word & 7);
      word >>= 3;
      for (int i = 0; i < runs; ++i, word >>= 10, ++t) {
        set_run(t, static_cast<int>(word & 31), static_cast<int>(word >> 5 & 31));
      }
      break;
    }
    const std::uint64_t* p = t_.row(R);
    int a = 1, q = R;
    if (rank_left != 0) {
      // Largest a <= max_part with P(R, a-1) <= rank_left, that is the
      // number of j < min(max_part, R) with p[j] <= rank_left (p[0] = 0).
      // The runs a seek decodes again are the bottom ones, whose parts are
      // small: below 17 the count is one loop the compiler vectorises (99%
      // of the searches at n = 95); above, a branch-free binary search,
      // since its comparisons are as good as random to a branch predictor.
      const int hi = max_part < R ? max_part : R;
      if (hi <= config::kCountedParts) {
        int count = 0;
        for (int j = 0; j < hi; ++j) count += p[j] <= rank_left;
        a = count;
      } else {
        int lo = 0;
        for (int n = hi; n > 1;) {
          const int half = n / 2;
          lo = p[lo + half] <= rank_left ? lo + half : lo;
          n -= half;
        }
        a = lo + 1;
      }
      // Largest q <= R / a with rank_left >= P(R, a) - P(R - q a, a), that
      // is P(R - q a, a) >= P(R, a) - rank_left, down column a (which falls
      // as q grows). Parts of 2: P(R', 2) = R' / 2 + 1, so q = rank_left
      // (which is at least P(R, 1) = 1 and below P(R, 2); the bound R / 2
      // only keeps a rank outside the level from reading outside the
      // table). Otherwise q = 1 when R < 2a, and a test of q = 2 first
      // (where it fails, q = 1 and no search), then a branch-free
      // bisection over 2..R / a. (BM_SourceSeekSparse/110,
      // 150, 170, alternating: 47.9-49.0, 50.8-52.4, 46.3-46.6 ns against
      // 55.4-57.4, 63.5-64.9, 52.2-54.2 ns with one bisection over 1..R / a;
      // a branching search from q = 2 upward took 17% longer a seek.)
      q = 1;
      if (a == 2) {
        q = rank_left < static_cast<std::uint64_t>(R / 2) ? static_cast<int>(rank_left) : R / 2;
      } else if (R >= 2 * a) {
        const std::uint64_t* col = t_.col(a);
        const std::uint64_t need = p[a] - rank_left;
        if (col[R - 2 * a] >= need) {
          q = 2;
          for (int n = R / a - 1; n > 1;) {
            const int half = n / 2;
            q = col[R - (q + half) * a] >= need ? q + half : q;
            n -= half;
          }
        }
      }
    }
    rank_left -= set_run(t, a, q);
    max_part = a - 1;
    ++t;
  }
  T_ = t - 1;
}

namespace {

/// The walk of set_not_canonical.
class NotCanonical {
 public:
  NotCanonical(const PartitionTable& t, std::uint64_t lo, std::uint64_t hi, std::uint64_t* words)
      : NotCanonical(t, lo, hi, words, &small()) {}

  /// Ranks base .. base + P(R, v) - 1 are the partitions of R with parts <= v
  /// (ranking.hpp); sets those with at least q parts.
  void walk(int R, int v, std::uint64_t base, int q) const {
    const std::uint64_t count = t_.count(R, v);
    if (base >= hi_ || base + count <= lo_) return;
    if (R < kSmall && v < kSmall && q >= 0 && q < kSmall && count <= 64) {
      set_pattern(small_->pattern[R][v][q], count, base);
      return;
    }
    if (long_ && R < kLongTiles && q <= R) {
      const int w = v < R ? v : R;
      const std::uint32_t first = long_->first[R][w];
      const int q_lo = (R + w - 1) / w + 1;  // below it, every partition has q parts (expand's range)
      if (first != kNone && q >= q_lo) {
        or_pattern(long_->words.data() + first + static_cast<std::uint64_t>(q - q_lo) * ((count + 63) / 64), count,
                   base);
        return;
      }
    }
    expand(R, v, base, q, count);
  }

 private:
  /// Below this many tiles, a walk whose P(R, v) <= 64 partitions fit one
  /// word is read from a table of their bit patterns (config.hpp).
  static constexpr int kSmall = config::kPatternTiles;
  struct Small {
    std::uint64_t pattern[kSmall][kSmall][kSmall] = {};  // [R][v][q]
  };
  /// Walks over fewer tiles than this whose P(R, v) partitions are more
  /// than 64 and at most kLongBits are read from a second table of
  /// patterns, several words each (config.hpp, kLongPatternTiles).
  static constexpr int kLongTiles = config::kLongPatternTiles;
  static constexpr std::uint64_t kLongBits = config::kLongPatternBits;
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  struct Long {
    // [R][min(v, R)]: the first word of the pattern of q = ceil(R / v) + 1
    // parts (fewer are all set), then those of q + 1 .. R, each
    // ceil(P(R, v) / 64) words; kNone for none.
    std::uint32_t first[kLongTiles][kLongTiles];
    std::vector<std::uint64_t> words;  // the patterns
  };
  NotCanonical(const PartitionTable& t, std::uint64_t lo, std::uint64_t hi, std::uint64_t* words,
               const Small* small, const Long* long_patterns = &long_table())
      : t_(t), lo_(lo), hi_(hi), words_(words), small_(small), long_(long_patterns) {}
  static const Long& long_table() {
    static const Long table = [] {
      Long l;
      const PartitionTable t(kLongTiles);
      for (auto& by_v : l.first)
        for (std::uint32_t& first : by_v) first = kNone;
      for (int R = 1; R < kLongTiles; ++R)
        for (int v = 1; v <= R; ++v) {
          const std::uint64_t count = t.count(R, v);
          if (count <= 64 || count > kLongBits) continue;  // (the first table's, or too long)
          // q above the parts every partition has at least (the whole run
          // is set at once then) and at most R (none has more).
          l.first[R][v] = static_cast<std::uint32_t>(l.words.size());
          for (int q = (R + v - 1) / v + 1; q <= R; ++q) {
            const std::size_t at = l.words.size();
            l.words.resize(at + (count + 63) / 64);
            NotCanonical(t, 0, count, l.words.data() + at, &small(), nullptr).expand(R, v, 0, q, count);
          }
        }
      l.words.push_back(0);  // or_pattern reads a word past a pattern's last
      return l;
    }();
    return table;
  }

  /// ORs the first `count` bits of `src` in at rank base, within [lo, hi)
  /// (the pattern table ends in a spare word for the last one's reads).
  void or_pattern(const std::uint64_t* src, std::uint64_t count, std::uint64_t base) const {
    std::uint64_t from = 0;
    if (base < lo_) from = lo_ - base, count -= from, base = lo_;
    if (base + count > hi_) count = hi_ - base;
    or_bits<false>(words_, base - lo_, src, from, count);
  }
  static const Small& small() {
    static const Small table = [] {
      Small s;
      const PartitionTable t(kSmall);
      for (int R = 0; R < kSmall; ++R)
        for (int v = 0; v < kSmall; ++v) {
          const std::uint64_t count = t.count(R, v);
          if ((R == 0 || v > 0) && count <= 64)
            for (int q = 0; q < kSmall; ++q)  // smaller R first: expand reads only those
              NotCanonical(t, 0, count, &s.pattern[R][v][q], &s, nullptr).expand(R, v, 0, q, count);
        }
      return s;
    }();
    return table;
  }

  /// walk below its checks; count = P(R, v).
  void expand(int R, int v, std::uint64_t base, int q, std::uint64_t count) const {
    if (q <= 0 || (R > 0 && (R + v - 1) / v >= q)) {  // even the fewest parts are enough
      const std::uint64_t a = std::max(base, lo_), b = std::min(base + count, hi_);
      set_bit_range(words_, a - lo_, b - a);
      return;
    }
    if (R < q) return;  // not even R parts of 1 are enough
    // First part x, then R - x in parts <= x, at least q - 1 of them (so x <= R - q + 1).
    const int xmax = std::min(v, R - q + 1);
    for (int x = 1; x <= xmax; ++x) {
      const std::uint64_t b = base + t_.count(R, x - 1);
      if (b >= hi_) break;
      walk(R - x, x, b, q - 1);
    }
  }

  /// Sets bit base + i for each bit i of `bits` (count <= 64 of them), within [lo, hi).
  void set_pattern(std::uint64_t bits, std::uint64_t count, std::uint64_t base) const {
    if (base < lo_) {
      bits >>= lo_ - base;  // < 64: the runs overlap
      count -= lo_ - base;
      base = lo_;
    }
    if (base + count > hi_) bits &= (std::uint64_t{1} << (hi_ - base)) - 1;  // hi - base < 64
    const std::uint64_t at = base - lo_, w = at >> 6, shift = at & 63;
    words_[w] |= bits << shift;
    if (shift && (bits >> (64 - shift))) words_[w + 1] |= bits >> (64 - shift);
  }

  const PartitionTable& t_;
  std::uint64_t lo_, hi_;
  std::uint64_t* words_;
  const Small* small_;
  const Long* long_;  // (null while the tables are built)
};

}  // namespace

void set_not_canonical(const PartitionTable& table, int n, std::uint64_t lo, std::uint64_t hi,
                       std::uint64_t* words) {
  const NotCanonical walk(table, lo, hi, words);
  // First row a, then more than a rows: the rest has at least a parts.
  for (int a = 1; 2 * a <= n; ++a) walk.walk(n - a, a, table.count(n, a - 1), a);
}

}  // namespace detail

namespace {

struct Collect {
  std::vector<std::uint64_t>* out;
  void point(std::uint64_t r) { out->push_back(r); }
  void range(std::uint64_t first, std::uint64_t count) {
    for (std::uint64_t i = 0; i < count; ++i) out->push_back(first + i);
  }
};

}  // namespace

std::vector<std::uint64_t> extension_ranks(const PartitionTable& table, std::span<const int> rows,
                                           int extra) {
  const std::uint64_t m = table.rank(rows), n = tile_count(rows);
  if (extra < 1 || n + static_cast<std::uint64_t>(extra) > static_cast<std::uint64_t>(table.max_tiles()))
    throw std::invalid_argument("extension by " + std::to_string(extra) +
                                " tiles leaves the table's range");
  detail::Source s(table);
  s.decode(static_cast<int>(n), m);
  std::vector<std::uint64_t> out;
  Collect sink{&out};
  s.for_each_extension(extra, sink);
  return out;
}

std::vector<Rows> extensions_of(const PartitionTable& table, std::span<const int> rows, int extra) {
  const int n = static_cast<int>(tile_count(rows)) + extra;
  std::vector<Rows> out;
  for (std::uint64_t r : extension_ranks(table, rows, extra)) out.push_back(table.unrank(n, r));
  return out;
}

}  // namespace chomp
