/// @file tail_marks.cpp
/// @brief The bits of the first two rows (tail_marks.hpp): set from final
/// levels, ORed into a level before it is scanned.

#include "tail_marks.hpp"

#include "bit_copy.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>

namespace chomp::detail {

/// Ray marks, and the bits of losing positions' own tails and contexts,
/// into the bits. They land anywhere in them (about 2.9 p(N) bits), so
/// each is held, as its offset in its region of the bits (4 bytes: half
/// the buffers of whole bit numbers, 1.3 MB a thread at N = 120 instead of
/// 2.6), in a buffer of that region (Pending) and ORed
/// when that buffer fills, under the region's lock, with plain ORs, each
/// word prefetched a few ORs ahead (flush_region); settle() ORs what is
/// left.
/// ORed one at a time with an atomic OR each, waiting for its line, they
/// took most of add_ranks' own time (doc/PERFORMANCE.md). (A ray's first
/// row is bounded where it is made: set_first_rows, or the loops of a top
/// run of one or two rows.)
struct TailMarks::RaySink {
  TailMarks& owner;
  Pending& p;
  std::uint64_t count = 0;
  void point(std::uint64_t bit) {
    const std::size_t r = static_cast<std::size_t>(bit >> kRegionShift);
    std::uint32_t& fill = p.fill[r];
    p.held[r * kRegionHeld + fill] = static_cast<std::uint32_t>(bit & ((std::uint64_t{1} << kRegionShift) - 1));
    ++count;
    if (++fill == kRegionHeld) owner.flush_region(p, r, true);
  }
  void range(std::uint64_t, std::uint64_t) {}  // the top corner makes no ranges
};

void TailMarks::flush_region(Pending& p, std::size_t r, bool lock) {
  if (lock)
    while (locks_[r].test_and_set(std::memory_order_acquire)) {
    }
  const std::uint32_t* held = p.held.get() + r * kRegionHeld;
  std::uint64_t* region = words_ + (r << (kRegionShift - 6));
  // The region is seldom in cache: each OR's word is asked for kAhead ORs
  // before it. chomp_bench --benchmark_filter=TailMarks, one thread,
  // alternating, seven rounds: medians 292-340 ms against 304-367 ms
  // without, 1-20% lower round by round (4% in the median round).
  constexpr std::uint32_t kAhead = 32;
  const std::uint32_t n = p.fill[r];
  for (std::uint32_t i = 0; i < n && i < kAhead; ++i) __builtin_prefetch(region + (held[i] >> 6), 1);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (i + kAhead < n) __builtin_prefetch(region + (held[i + kAhead] >> 6), 1);
    region[held[i] >> 6] |= std::uint64_t{1} << (held[i] & 63);
  }
  p.fill[r] = 0;
  if (lock) locks_[r].clear(std::memory_order_release);
}

void TailMarks::settle() {
  // (Every region by one task: no locks.)
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, regions_, 16), [&](const tbb::blocked_range<std::size_t>& rs) {
    for (Pending& p : pending_)
      if (p.held)
        for (std::size_t r = rs.begin(); r != rs.end(); ++r) flush_region(p, r, false);
  });
}

std::uint64_t TailMarks::pending_bytes(const PartitionTable& table, int max_tiles, int rows) {
  const std::uint64_t regions = (lay_out(table, max_tiles, rows, nullptr, nullptr) >> kRegionShift) + 1;
  return regions * (kRegionHeld * sizeof(std::uint32_t) + sizeof(std::uint32_t));
}

namespace {

/// Bits of the second rows' contexts (a, V) of V's with v tiles: V's first
/// part at most a (it is under the second row b <= a) and at most max - a - v
/// (b is at least it and a + b + v <= max).
std::uint64_t second_count(const PartitionTable& t, int max, int a, int v) {
  return t.count(v, std::min(a, max - a - v));
}

}  // namespace

std::uint64_t TailMarks::lay_out(const PartitionTable& table, int max_tiles, int rows, std::vector<std::uint64_t>* base,
                                 std::vector<std::uint64_t>* base2) {
  const auto words = [](std::uint64_t bits) { return (bits + 63) & ~std::uint64_t{63}; };
  std::uint64_t bits = 0;
  for (int t = 0; t < max_tiles; ++t) {
    if (base) base->push_back(bits);
    bits += words(table.count(t, max_tiles - t));
  }
  const std::size_t stride = static_cast<std::size_t>(max_tiles) + 1;
  if (rows >= 2) {
    if (base2) base2->assign(stride * stride, 0);
    for (int a = 1; a < max_tiles; ++a)
      for (int v = 0; a + v < max_tiles; ++v) {
        if (base2) (*base2)[static_cast<std::size_t>(a) * stride + static_cast<std::size_t>(v)] = bits;
        bits += words(second_count(table, max_tiles, a, v));
      }
  }
  return bits;
}

std::uint64_t TailMarks::bytes_for(const PartitionTable& table, int max_tiles, int rows) {
  return lay_out(table, max_tiles, rows, nullptr, nullptr) / 8 + 8;
}

TailMarks::TailMarks(const PartitionTable& table, int max_tiles, bool canonical_only, int rows)
    : t_(table), max_(max_tiles), rows_(rows), canonical_only_(canonical_only), sources_([&table] {
        RaySources s{{Source(table), Source(table)}, Source(table)};
        s.row[0].set_top_only(true);
        s.row[1].set_top_only(true);
        s.heavy.set_top_only(true);
        return s;
      }) {
  const std::uint64_t bits = lay_out(table, max_tiles, rows, &base_, &base2_);
  regions_ = static_cast<std::size_t>(bits >> kRegionShift) + 1;
  locks_.reset(new std::atomic_flag[regions_]);
  for (std::size_t r = 0; r < regions_; ++r) locks_[r].clear();
  // Rays land anywhere in the bits: huge pages spare most of them a TLB miss.
  memory_ = HugeBuffer((bits / 64 + 1) * sizeof(std::uint64_t));  // one word more: bits_at reads past the last
  words_ = memory_.as<std::uint64_t>();
}

bool TailMarks::settled(int t, std::uint64_t r) const {
  const std::uint64_t bit = base_[static_cast<std::size_t>(t)] + r;
  return (words_[bit >> 6] >> (bit & 63)) & 1;
}

bool TailMarks::settled_second(int a, int v, std::uint64_t r) const {
  if (rows_ < 2) return false;  // (no second-row bits)
  const std::uint64_t bit = base2(a, v) + r;
  return (words_[bit >> 6] >> (bit & 63)) & 1;
}

void TailMarks::or_into(int n, int a_lo, int a_hi, std::uint64_t* words, std::uint64_t offset) const {
  const std::uint64_t* row = t_.row(n);
  // First rows in parallel, and second rows within them (a level's largest
  // first row holds about a tenth of it).
  tbb::parallel_for(tbb::blocked_range<int>(a_lo, a_hi + 1, 1), [&](const tbb::blocked_range<int>& as) {
    for (int a = as.begin(); a != as.end(); ++a) {
      const int t = n - a;
      or_bits<true>(words, offset + row[a - 1], words_, base_[static_cast<std::size_t>(t)], t_.count(t, a));
      if (rows_ < 2) continue;
      const std::uint64_t* second = t_.row(t);
      tbb::parallel_for(tbb::blocked_range<int>(1, std::min(a, t) + 1, 4), [&](const tbb::blocked_range<int>& bs) {
        for (int b = bs.begin(); b != bs.end(); ++b) {
          // Second rows b: (a, b, V) are ranks P(n, a-1) + P(t, b-1) + rank(V),
          // V the first P(v, b) partitions of v = t - b.
          const int v = t - b;
          or_bits<true>(words, offset + row[a - 1] + second[b - 1], words_, base2(a, v), t_.count(v, b));
        }
      });
    }
  });
}

void TailMarks::add_level(int n, std::span<const std::uint64_t> ranks) {
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, ranks.size(), 4096),
                    [&](const tbb::blocked_range<std::size_t>& r) {
    add_ranks(n, ranks.subspan(r.begin(), r.end() - r.begin()));
  });
  settle();
}

TailMarks::Pending& TailMarks::local_pending() {
  Pending& pending = pending_.local();
  if (!pending.held) {
    pending.held.reset(new std::uint32_t[regions_ * kRegionHeld]);
    pending.fill.reset(new std::uint32_t[regions_]());
  }
  return pending;
}

void TailMarks::add_ranks(int n, std::span<const std::uint64_t> ranks) {
  if (ranks.empty()) return;
  const std::uint64_t* row = t_.row(n);
  RaySources& sources = sources_.local();
  RaySink sink{*this, local_pending()};  // the rays, and the bits of the positions' own tails and contexts
  std::uint64_t own = 0;
  // The rays of U (u tiles, rank ru, starting with rows of length c): the
  // partitions U with those rows extended by e = 1..most tiles, into the
  // bits at base_of(u + e), first part at most cap(e). `fits(rows(U),
  // most)` gives the e that some canonical position needs (0: none).
  const auto make_rays = [&](Source& src, int u, std::uint64_t ru, int c, int most, auto base_of, auto cap,
                             auto fits) {
    // The rays of sizes e = lo..hi by the kernel, from a decoded U.
    const auto rays_of = [&](Source& from, RaySink& to, int lo, int hi) {
      for (int e = lo; e <= hi; ++e) {
        from.set_first_rows(1, cap(e));
        from.for_each_extension(e, to, base_of(u + e));
      }
    };
    // U = (c, U') with U' shorter than c: each ray is (c + e, U'), whose
    // rank among the partitions of u + e is P(u + e, c + e - 1) + rank(U')
    // (ranking.hpp). Most ray sources are such, one ray a level: no
    // decode, no call of the kernel. (Not bounded by U's rows, as below:
    // that needs a decode, and a ray that only positions that are not
    // canonical read is true all the same.)
    const std::uint64_t rest = ru - t_.count(u, c - 1);
    if (rest < t_.count(u - c, c - 1)) {
      for (int e = 1; e <= most && c + e <= cap(e); ++e)
        sink.point(base_of(u + e) + t_.count(u + e, c + e - 1) + rest);
      return;
    }
    // U = (c, c, U'') with U'' shorter than c: the rays are (c + v1, c +
    // v2, U''), v1 >= v2 >= 0, v1 + v2 = e, ranked P(u + e, c + v1 - 1) +
    // P(u + e - c - v1, c + v2 - 1) + rank(U''): two table reads a ray.
    const std::uint64_t rest2 = rest - t_.count(u - c, c - 1);
    if (u >= 2 * c && rest2 < t_.count(u - 2 * c, c - 1)) {
      for (int e = 1; e <= most; ++e) {
        const int hi = cap(e) - c;  // v1 at most
        if (hi < (e + 1) / 2) break;  // (caps fall as e grows)
        const std::uint64_t at = base_of(u + e) + rest2;
        for (int v1 = std::min(e, hi); 2 * v1 >= e; --v1)
          sink.point(at + t_.count(u + e, c + v1 - 1) + t_.count(u + e - c - v1, c + e - v1 - 1));
      }
      return;
    }
    // Ray sources of one size come in rising ranks (a first row's tails,
    // a context's rows 3..): a seek keeps the runs they share, and the
    // kernel then shifts the top corner's rays of the last one instead of
    // enumerating them again when its first run is the same.
    if (src.tiles() == u && ru > src.rank())
      src.seek(ru);
    else
      src.decode(u, ru);
    if (canonical_only_) most = fits(src.rows(), most);
    while (most > 0 && cap(most) <= c) --most;  // (caps fall as e grows)
    // A source with many equal top rows makes every partition of e into
    // that many parts, for every e: one such source can be most of a low
    // level's rays (at N = 120, one losing position of level 35 took 0.18 s
    // on one thread, its level's longest part), so its ray sizes are
    // shared among threads, each decoding it for itself into a decoder of
    // its own (`heavy`). Isolated: a thread waiting for them runs only
    // them, never another part of the level, which would move the
    // decoders (`src`) and the sink this call is using. Summed over a run
    // to 120, the longest part of each level took 2.43 s with single
    // sources indivisible and 0.51 s with this (doc/PERFORMANCE.md,
    // *Thread scaling*).
    const int k = src.run_rows(1);
    std::uint64_t bound = most > 0 ? static_cast<std::uint64_t>(most) * t_.count(most, k) : 0;
    if (bound >= shared_rays_) {
      bound = 0;
      for (int e = 1; e <= most; ++e) bound += t_.count(e, k);
    }
    if (bound >= shared_rays_) {
      std::atomic<std::uint64_t> made{0};
      tbb::this_task_arena::isolate([&] {
        tbb::parallel_for(tbb::blocked_range<int>(1, most + 1, 1), [&](const tbb::blocked_range<int>& es) {
          Source& h = sources_.local().heavy;
          RaySink part{*this, local_pending()};
          h.decode(u, ru);
          rays_of(h, part, es.begin(), es.end() - 1);
          made.fetch_add(part.count, std::memory_order_relaxed);
        });
      });
      sink.count += made.load(std::memory_order_relaxed);
      return;
    }
    rays_of(src, sink, 1, most);
  };
  // The first row of the first rank, then on as ranks ascend.
  int a = static_cast<int>(std::upper_bound(row, row + n + 1, ranks.front()) - row);
  // The second row, likewise: it rises with the ranks of one first row
  // (searched again when the first row changes). chomp_bench
  // --benchmark_filter=TailMarks, one thread, alternating, seven rounds:
  // medians 266-402 ms against 316-471 ms with a search for every rank,
  // 7-36% lower round by round (17% in the median round).
  int c = 0, c_of = 0;  // c is the second row of a rank with first row c_of
  for (const std::uint64_t x : ranks) {
    while (x >= row[a]) ++a;
    const int t = n - a;
    const std::uint64_t tail = x - row[a - 1];
    if (t >= max_) continue;  // (a = 0 cannot be; t < max whenever n <= max)
    sink.point(base_[static_cast<std::size_t>(t)] + tail), ++own;
    if (t == 0) continue;  // a single row (level 1's (1) settles every other)
    // Rays: the tail starts with rows of length a (rank at least P(t, a-1)).
    // A ray T of t + e tiles has a first row of a + 1 or more and the rows
    // of U, 1 + rows(U) with its first row: some position (a', T) of the
    // run is canonical only if a' >= both, and a' <= max - t - e.
    if (tail >= t_.count(t, a - 1) && max_ - t - a - 1 >= 1)
      make_rays(
          sources.row[0], t, tail, a, max_ - t - a - 1, [&](int w) { return base_[static_cast<std::size_t>(w)]; },
          [&](int e) { return max_ - t - e; },
          [&](int rows, int most) { return rows > a ? max_ - t - rows - 1 : most; });
    // The second row: the tail is (c, U), U of u tiles; (a, c, U) settles
    // the context (a, U) (every (a, b, U) with b > c moves to it), and its
    // rays are (a, V), V = U with its rows of length c extended, first
    // part at most a and a + V_1 + |V| <= max. A position (a, b, V) is
    // canonical only if a >= 2 + rows(U).
    if (rows_ < 2) continue;
    const std::uint64_t* trow = t_.row(t);
    if (c_of != a) {
      c = static_cast<int>(std::upper_bound(trow, trow + t + 1, tail) - trow);
      c_of = a;
    } else {
      while (tail >= trow[c]) ++c;  // (trow[t] = p(t) > tail: it stops there at the latest)
    }
    const int u = t - c;
    const std::uint64_t ru = tail - trow[c - 1];
    sink.point(base2(a, u) + ru), ++own;
    if (u > 0 && c < a && ru >= t_.count(u, c - 1) && max_ - a - u - c - 1 >= 1)
      make_rays(
          sources.row[1], u, ru, c, max_ - a - u - c - 1, [&](int w) { return base2(a, w); },
          [&](int e) { return std::min(a, max_ - a - u - e); },
          [&](int rows, int most) { return rows + 2 > a ? 0 : most; });
  }
  rays_.fetch_add(sink.count - own, std::memory_order_relaxed);
}

}  // namespace chomp::detail
