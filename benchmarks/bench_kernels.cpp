/// @file bench_kernels.cpp
/// @brief Google Benchmark of the sieve's kernels: rank, unrank, decoding a
/// run of sources, enumerating extensions, and applying a segment's bucket.
///
/// Run: build/benchmarks/chomp_bench [--benchmark_filter=...]

#include <benchmark/benchmark.h>
#include <tbb/global_control.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

#include "buckets.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/ranking.hpp"
#include "chomp/sieve.hpp"
#include "config.hpp"
#include "extensions.hpp"
#include "gap_code.hpp"
#include "huge_pages.hpp"
#include "tail_marks.hpp"

using namespace chomp;

namespace {

const PartitionTable& table() {
  static const PartitionTable t(140);
  return t;
}

/// Losing positions of levels up to 70, computed once for the benchmarks.
const Sieve& sieve70() {
  static Sieve* s = [] {
    auto* p = new Sieve(70);
    p->run({});
    return p;
  }();
  return *s;
}

std::vector<std::uint64_t> random_ranks(int n, std::size_t count) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::uint64_t> dist(0, table().positions(n) - 1);
  std::vector<std::uint64_t> r(count);
  for (auto& x : r) x = dist(rng);
  return r;
}

void BM_Unrank(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const auto ranks = random_ranks(n, 4096);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(table().unrank(n, ranks[i++ & 4095]));
  }
}
BENCHMARK(BM_Unrank)->Arg(90)->Arg(130);

void BM_Rank(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<Rows> rows;
  for (std::uint64_t r : random_ranks(n, 4096)) rows.push_back(table().unrank(n, r));
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(table().rank(rows[i++ & 4095]));
}
BENCHMARK(BM_Rank)->Arg(90)->Arg(130);

/// Decodes increasing ranks of level m in turn (seek), from the first again
/// after the last, one an iteration, and calls after(decoder) on each.
template <class After>
void time_seeks(benchmark::State& state, const PartitionTable& t, int m, const std::vector<std::uint64_t>& ranks,
                After&& after) {
  detail::Source src(t);
  std::size_t i = 0;
  for (auto _ : state) {
    if (i == 0)
      src.decode(m, ranks[0]);
    else
      src.seek(ranks[i]);
    after(src);
    if (++i == ranks.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
void time_seeks(benchmark::State& state, const PartitionTable& t, int m, const std::vector<std::uint64_t>& ranks) {
  time_seeks(state, t, m, ranks, [](const detail::Source&) {});
}

/// Decoding the stored losing positions of a level in order (seek).
void BM_SourceSeek(benchmark::State& state) {
  time_seeks(state, sieve70().table(), 70, sieve70().losing().all(70));
}
BENCHMARK(BM_SourceSeek);

/// Decoding increasing ranks of level n (arg) about a hundred apart, as a
/// window visits the losing positions of a level of the long run (L(n) /
/// p(n) is 0.8-1.2% at n = 100-170): 65,536 ranks, gaps uniform in 1..200.
const PartitionTable& table170() {
  static const PartitionTable t(170);
  return t;
}
std::vector<std::uint64_t> sparse_ranks(int m) {
  std::mt19937_64 rng(11);
  std::vector<std::uint64_t> ranks;
  std::uint64_t r = table170().positions(m) / 3;
  for (int i = 0; i < 65536; ++i) ranks.push_back(r += 1 + rng() % 200);
  return ranks;
}
void BM_SourceSeekSparse(benchmark::State& state) {
  const int m = static_cast<int>(state.range(0));
  time_seeks(state, table170(), m, sparse_ranks(m));
}
BENCHMARK(BM_SourceSeekSparse)->Arg(110)->Arg(150)->Arg(170);

/// Counts point marks (since 233d502 these include the new-row corners of a
/// single position, which were ranges before: items/s from before and after
/// that commit are not comparable).
struct CountSink {
  std::uint64_t points = 0, sum = 0;
  void point(std::uint64_t r) {
    ++points;
    sum += r;
  }
  void range(std::uint64_t first, std::uint64_t) { sum += first; }
};

/// Walks a decoder through the given ranks of level m in order, as the
/// sieve does with a chunk, and calls f() at each source.
template <class F>
void for_each_source(detail::Source& src, int m, const std::vector<std::uint64_t>& ranks, F&& f) {
  bool first = true;
  for (std::uint64_t r : ranks) {
    if (first)
      src.decode(m, r);
    else
      src.seek(r);
    first = false;
    f();
  }
}

/// Extensions of every losing position of level 60 by d tiles (d = arg).
void BM_Extensions(benchmark::State& state) {
  const int m = 60, d = static_cast<int>(state.range(0));
  const auto ranks = sieve70().losing().all(m);
  detail::Source src(sieve70().table());
  CountSink sink;
  for (auto _ : state) for_each_source(src, m, ranks, [&] { src.for_each_extension(d, sink); });
  benchmark::DoNotOptimize(sink.sum);
  state.SetItemsProcessed(static_cast<std::int64_t>(sink.points));
  state.counters["points_per_source"] =
      static_cast<double>(sink.points) / static_cast<double>(state.iterations() * ranks.size());
}
BENCHMARK(BM_Extensions)->Arg(1)->Arg(5)->Arg(10);

/// Extensions of every losing position of level 60 by 1..d tiles (d = arg),
/// all levels in one walk over each source's corners, as the sieve asks for
/// them, against BM_ExtensionsOneLevelAtATime for the same marks.
void extensions_up_to(benchmark::State& state, bool together, bool canonical_only = false) {
  const int m = 60, top = static_cast<int>(state.range(0));
  const auto ranks = sieve70().losing().all(m);
  detail::Source src(sieve70().table());
  src.set_canonical_only(canonical_only);
  CountSink sink;
  const std::vector<std::uint64_t> offsets(static_cast<std::size_t>(top), 0);
  for (auto _ : state)
    for_each_source(src, m, ranks, [&] {
      if (together)
        src.for_each_extension(1, top, sink, offsets.data());
      else
        for (int d = 1; d <= top; ++d) src.for_each_extension(d, sink);
    });
  benchmark::DoNotOptimize(sink.sum);
  state.SetItemsProcessed(static_cast<std::int64_t>(sink.points));
  state.counters["sources"] = benchmark::Counter(static_cast<double>(state.iterations() * ranks.size()),
                                                 benchmark::Counter::kIsRate);
}
void BM_ExtensionsLevelsTogether(benchmark::State& state) { extensions_up_to(state, true); }
void BM_ExtensionsOneLevelAtATime(benchmark::State& state) { extensions_up_to(state, false); }
BENCHMARK(BM_ExtensionsLevelsTogether)->Arg(10);
BENCHMARK(BM_ExtensionsOneLevelAtATime)->Arg(10);

/// The same walk as BM_ExtensionsLevelsTogether, making canonical
/// extensions only, as the sieve does: fewer marks (items), more sources a
/// second.
void BM_ExtensionsCanonicalOnly(benchmark::State& state) { extensions_up_to(state, true, true); }
BENCHMARK(BM_ExtensionsCanonicalOnly)->Arg(10);

/// Transposed ranks of every losing position of level 60, walked with seek
/// as the sieve's add_transposes does (items: positions).
void BM_TransposedRank(benchmark::State& state) {
  const int m = 60;
  const auto ranks = sieve70().losing().all(m);
  detail::Source src(sieve70().table());
  std::uint64_t sum = 0;
  for (auto _ : state) for_each_source(src, m, ranks, [&] { sum += src.transposed_rank(); });
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ranks.size()));
}
BENCHMARK(BM_TransposedRank);

/// Seek and transposed rank through the sparse ranks of
/// BM_SourceSeekSparse, every one of them, about as add_transposes walks a
/// level's canonical losing positions of 110..170 tiles (items: positions).
void BM_TransposedRankSparse(benchmark::State& state) {
  const int m = static_cast<int>(state.range(0));
  std::uint64_t sum = 0;
  time_seeks(state, table170(), m, sparse_ranks(m), [&](detail::Source& src) { sum += src.transposed_rank(); });
  benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_TransposedRankSparse)->Arg(110)->Arg(150)->Arg(170);

/// The bits of level n's positions that are not canonical (n = arg), set a
/// segment at a time as a window opens (items: positions).
void BM_SetNotCanonical(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const PartitionTable t(n);
  const std::uint64_t p = t.positions(n);
  std::vector<std::uint64_t> words((p + 63) / 64 + 1);
  for (auto _ : state) {
    std::fill(words.begin(), words.end(), 0);
    for (std::uint64_t lo = 0; lo < p; lo += config::kSegmentBits)
      detail::set_not_canonical(t, n, lo, std::min(p, lo + config::kSegmentBits), words.data() + lo / 64);
    benchmark::DoNotOptimize(words.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * p));
}
BENCHMARK(BM_SetNotCanonical)->Arg(90)->Unit(benchmark::kMillisecond);

/// Filing random marks into buckets, then applying them (the time is the
/// apply's; filing is a counter):
/// 2^20 marks into 64 segments (16 MiB, near the caches), or 2^26 into
/// 1,600 segments (400 MiB, a round at N = 105, where the apply waits on
/// memory and the prefetch in apply_segment matters).
void BM_SegmentApply(benchmark::State& state) {
  const auto segments = static_cast<std::size_t>(state.range(0));
  const std::size_t count = segments > 64 ? std::size_t{1} << 26 : std::size_t{1} << 20;
  detail::MarkBuckets b;
  // In huge pages, as the sieve's bitmaps are: with 4 KiB pages nearly
  // every mark of the large case would also miss the TLB.
  const detail::HugeBuffer bitmap(segments * config::kSegmentBits / 8);
  std::uint64_t* words = bitmap.as<std::uint64_t>();
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<std::uint64_t> dist(0, segments * config::kSegmentBits - 1);
  std::vector<std::uint64_t> marks(count);
  for (auto& m : marks) m = dist(rng);
  b.prepare(segments);
  auto file = [&] {
    for (std::uint64_t m : marks) b.point(m);
    b.flush();
  };
  auto apply = [&] {
    for (std::size_t s = 0; s < segments; ++s) b.apply_segment(s, words + s * (config::kSegmentBits / 64));
    b.recycle();
  };
  // Fault in the bitmap and the bucket pool first, as a running sieve has.
  std::fill(words, words + segments * config::kSegmentBits / 64, std::uint64_t{0});
  file();
  apply();
  double filing = 0;
  for (auto _ : state) {
    // The benchmark's time is the apply; filing is reported as a counter.
    state.PauseTiming();
    const auto start = std::chrono::steady_clock::now();
    file();
    filing += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.ResumeTiming();
    apply();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * marks.size()));
  state.counters["filing_s_per_round"] = filing / static_cast<double>(state.iterations());
}
BENCHMARK(BM_SegmentApply)->Arg(64)->Arg(1600)->Unit(benchmark::kMillisecond);

/// Filing alone, 2^26 uniformly random marks, into as many segments as a
/// window has: 1,600 (400 MiB, N = 105), 16,384 (the 4 GiB windows up to
/// N = 120-140) and 65,536 (the 16 GiB windows of the long run from 149 on).
/// No bitmap: the time is the filing's, per mark (items processed),
/// flush() included.
void BM_SegmentFiling(benchmark::State& state) {
  const auto segments = static_cast<std::size_t>(state.range(0));
  const std::size_t count = std::size_t{1} << 26;
  detail::MarkBuckets b;
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<std::uint64_t> dist(0, segments * config::kSegmentBits - 1);
  std::vector<std::uint64_t> marks(count);
  for (auto& m : marks) m = dist(rng);
  b.prepare(segments);
  for (std::uint64_t m : marks) b.point(m);  // the pool faulted in, as a running sieve's is
  b.flush();
  for (auto _ : state) {
    b.prepare(segments);
    for (std::uint64_t m : marks) b.point(m);
    b.flush();  // staged entries to their segments: part of filing
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * marks.size()));
}
BENCHMARK(BM_SegmentFiling)->Arg(1600)->Arg(16384)->Arg(65536)->Unit(benchmark::kMillisecond);

/// A whole small sieve (levels 1..70), for a quick end-to-end figure.
void BM_Sieve70(benchmark::State& state) {
  for (auto _ : state) {
    Sieve s(70);
    s.run({});
    benchmark::DoNotOptimize(s.levels_done());
  }
}
BENCHMARK(BM_Sieve70)->Unit(benchmark::kMillisecond);

/// The losing positions of levels 1..90 by level, from one sieve run
/// (with all threads), computed once for the benchmarks.
struct Levels90 {
  Sieve sieve{90};
  std::vector<std::vector<std::uint64_t>> ranks;
};
const Levels90& levels90() {
  static const Levels90* l = [] {
    auto* p = new Levels90;
    p->sieve.run({});
    p->ranks.resize(91);
    for (int m = 1; m <= 90; ++m) p->ranks[static_cast<std::size_t>(m)] = p->sieve.losing().all(m);
    return p;
  }();
  return *l;
}

/// The rows' bits' phase alone (the sieve's "tails"): every losing position
/// of levels 1..90 added to the bits of both rows, level by level as the
/// sieve adds them, on one thread (a source with many rays is shared out
/// to the arena's threads: here, one). The same bits take every iteration
/// (add_ranks does not read them), so that only the first, untimed, touches
/// their fresh pages: the figure is the rays' enumeration and ORs.
void BM_TailMarksLevels(benchmark::State& state) {
  const Levels90& l = levels90();
  const int n = 90;
  const tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  detail::TailMarks bits(l.sieve.table(), n, true);
  const auto add_all = [&] {
    for (int m = 1; m <= n; ++m) {
      bits.add_ranks(m, l.ranks[static_cast<std::size_t>(m)]);
      bits.settle();
    }
  };
  add_all();
  const std::uint64_t rays = bits.rays();
  for (auto _ : state) add_all();
  state.counters["rays"] = static_cast<double>(rays);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rays));
}
BENCHMARK(BM_TailMarksLevels)->Unit(benchmark::kMillisecond);

/// A level of 2^22 losing ranks with gaps like a large level's (geometric,
/// mean 70, as at 1.4% losing).
const std::vector<std::uint64_t>& level_like_ranks() {
  static const std::vector<std::uint64_t> ranks = [] {
    std::vector<std::uint64_t> r(std::size_t{1} << 22);
    std::mt19937_64 rng(7);
    std::geometric_distribution<std::uint64_t> gap(1.0 / 70);
    std::uint64_t x = 0;
    for (auto& v : r) v = x += 1 + gap(rng);
    return r;
  }();
  return ranks;
}

/// The same level in a temporary store (its second level, so that its gap
/// code is fitted to the first, as in a run).
const LosingStore& level_like_store() {
  static const std::unique_ptr<LosingStore> store = [] {
    auto s = LosingStore::temporary();
    for (int n = 1; n <= 2; ++n) {
      s->begin_level(n);
      s->append(level_like_ranks());
      s->finish_level();
    }
    return s;
  }();
  return *store;
}

/// Appending that level to a store with Arg threads: coding blocks in
/// parallel and writing them (the page cache takes the writes).
void BM_StoreAppend(benchmark::State& state) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(state.range(0)));
  const auto& ranks = level_like_ranks();
  const auto store = LosingStore::temporary();
  store->begin_level(1);
  store->append(ranks);
  store->finish_level();
  for (auto _ : state) {
    store->begin_level(2);
    for (std::size_t at = 0; at < ranks.size(); at += config::kScanBatchRanks / 4)
      store->append(std::span(ranks).subspan(at, std::min(config::kScanBatchRanks / 4, ranks.size() - at)));
    store->abandon_level();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ranks.size()));
}
BENCHMARK(BM_StoreAppend)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

/// Reading every block of the level back as the sieve does (pread from the
/// page cache, CRC-32, decode), one thread.
void BM_StoreReadBlocks(benchmark::State& state) {
  const LosingStore& store = level_like_store();
  std::vector<std::uint64_t> ranks;
  std::vector<std::uint8_t> bytes;
  std::uint64_t sum = 0;
  for (auto _ : state)
    for (std::size_t b = 0; b < store.blocks(2).size(); ++b) {
      store.read_block(2, b, ranks, bytes);
      sum += ranks.back();
    }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * store.count(2)));
  state.counters["bytes_per_rank"] =
      static_cast<double>(store.file_bytes() / 2) / static_cast<double>(store.count(2));
}
BENCHMARK(BM_StoreReadBlocks)->Unit(benchmark::kMillisecond);

/// Decoding the level's gaps alone, from memory: the store's gap code
/// (blocks of 4,096, fitted code) against the LEB128 varints the store
/// held in memory before it moved to disk (chunks of 64), one thread.
void BM_GapCodeDecode(benchmark::State& state) {
  const auto& ranks = level_like_ranks();
  constexpr std::size_t B = config::kStoreBlockRanks;
  detail::GapCode::Histogram h(detail::GapCode::kHistogramBins, 0);
  std::vector<std::uint8_t> scratch;
  detail::GapCode().code_block(ranks, scratch, &h);
  const detail::GapCode code = detail::GapCode::fitted(h);
  std::vector<std::vector<std::uint8_t>> blocks;
  std::vector<std::size_t> sizes;
  for (std::size_t at = 0; at < ranks.size(); at += B) {
    blocks.emplace_back();
    code.code_block(std::span(ranks).subspan(at, B), blocks.back());
    sizes.push_back(blocks.back().size());
    blocks.back().resize(sizes.back() + detail::GapCode::kPadding, 0);  // as the store reads them
  }
  std::vector<std::uint64_t> out(B);
  std::uint64_t sum = 0;
  for (auto _ : state)
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      detail::GapCode::Cursor c;
      code.decode_part(std::span(blocks[b]).first(sizes[b]), ranks[b * B], B, c, 0, B, out.data());
      sum += out[B - 1];
    }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ranks.size()));
}
BENCHMARK(BM_GapCodeDecode)->Unit(benchmark::kMillisecond);

void BM_VarintDecode(benchmark::State& state) {
  const auto& ranks = level_like_ranks();
  constexpr std::size_t C = 64;
  std::vector<std::uint8_t> bytes;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i % C == 0) continue;  // a chunk's first rank is kept apart
    std::uint64_t gap = ranks[i] - ranks[i - 1];
    while (gap >= 0x80) bytes.push_back(static_cast<std::uint8_t>(gap | 0x80)), gap >>= 7;
    bytes.push_back(static_cast<std::uint8_t>(gap));
  }
  std::uint64_t out[C];
  std::uint64_t sum = 0;
  for (auto _ : state) {
    const std::uint8_t* p = bytes.data();
    for (std::size_t c = 0; c < ranks.size() / C; ++c) {
      std::uint64_t r = out[0] = ranks[c * C];
      for (std::size_t i = 1; i < C; ++i) {
        std::uint64_t gap = 0;
        for (int shift = 0;; shift += 7) {
          const std::uint8_t b = *p++;
          gap |= static_cast<std::uint64_t>(b & 0x7f) << shift;
          if (b < 0x80) break;
        }
        out[i] = r += gap;
      }
      sum += out[C - 1];
    }
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ranks.size()));
}
BENCHMARK(BM_VarintDecode)->Unit(benchmark::kMillisecond);

}  // namespace
