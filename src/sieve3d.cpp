/// @file sieve3d.cpp
/// @brief The 3D sieve: a pull over the moves of every plane partition of a
/// level, with exact sets of the losing positions of the levels below.

#include "chomp/sieve3d.hpp"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <stdexcept>
#include <string>

#include "chomp/macmahon_ranking.hpp"
#include "chomp/plane_ranking.hpp"
#include "plane_key.hpp"

namespace chomp {

namespace {

using detail::Key3;
using detail::KeySet;
static_assert(KeySet::kMaxKeys == Sieve3dPlan::kMostLosingPerLevel, "the plan refuses what a set cannot hold");
using detail::KeyWriter;

/// A position during the enumeration: row lengths and heights, and where
/// each cell starts in the position's key.
struct Grid {
  int rows = 0;
  int len[kMaxCubes + 1] = {};
  std::uint8_t h[kMaxCubes + 1][kMaxCubes + 1] = {};
  std::uint8_t off[kMaxCubes + 1][kMaxCubes + 1] = {};  // bit offset of cell (r, s) in the key
  int after_last = 0;                                    // bits in the key
};

Key3 encode(Grid& g) {
  KeyWriter w;
  for (int r = 0; r < g.rows; ++r) {
    for (int s = 0; s < g.len[r]; ++s) {
      g.off[r][s] = static_cast<std::uint8_t>(w.bits());
      w.height(g.h[r][s]);
    }
    w.end_row();
  }
  // The offset "cell (rows, 0)": the end of the key, where a move that
  // takes whole rows leaves it.
  g.off[g.rows][0] = static_cast<std::uint8_t>(w.bits());
  g.after_last = w.bits();
  return w.key();
}

Key3 encode(const Heights& hs) {
  detail::HeightGrid g;
  detail::to_grid(hs, g);
  return detail::key_of(g);
}

Heights decode(const Key3& k) {
  detail::HeightGrid g;
  detail::grid_of(k, g);
  return detail::to_heights(g);
}

/// Extents of a position: rows, columns (of the first row), height of the corner.
std::array<int, 3> extents(const Grid& g) { return {g.rows, g.len[0], g.h[0][0]}; }

/// The key of g with its axes permuted (cube (c0, c1, c2) to (c[p0], c[p1],
/// c[p2])), built in `img`; `decided` says whether the image is one the
/// symmetric sieve decides (height <= rows <= columns).
Key3 image_key(const Grid& g, const std::array<int, 3>& p, Grid& img, bool& decided) {
  const std::array<int, 3> ext = extents(g);
  const int rows = ext[static_cast<std::size_t>(p[0])], cols = ext[static_cast<std::size_t>(p[1])];
  decided = ext[static_cast<std::size_t>(p[2])] <= rows && rows <= cols;
  for (int a = 0; a < rows; ++a)
    for (int b = 0; b < cols; ++b) img.h[a][b] = 0;
  for (int r = 0; r < g.rows; ++r)
    for (int s = 0; s < g.len[r]; ++s)
      for (int k = 1; k <= g.h[r][s]; ++k) {
        const int co[3] = {r + 1, s + 1, k};
        std::uint8_t& cell = img.h[co[p[0]] - 1][co[p[1]] - 1];
        cell = std::max(cell, static_cast<std::uint8_t>(co[p[2]]));
      }
  img.rows = rows;
  for (int a = 0; a < rows; ++a) {
    int len = 0;
    while (len < cols && img.h[a][len] > 0) ++len;
    img.len[a] = len;
  }
  return encode(img);
}

/// A move: the cube at row i, column j (from 0) and height k (from 1) and
/// every cube above, behind and beside it. (0, 0, 1) is the poisoned
/// corner, never a move; it stands for "no move yet".
struct CubeMove {
  int i = 0, j = 0, k = 1;
};

/// A thread's losing keys of the level, in chunks of at most kChunkKeys
/// (1.5 MiB; a chunk's vector doubles up to that, so no more than one
/// chunk a thread has room to spare), which become the level's set
/// without being copied into one list first.
struct Chunks {
  static constexpr std::size_t kChunkKeys = std::size_t{1} << 16;
  std::vector<std::vector<Key3>> chunks;
  void push(const Key3& k) {
    if (chunks.empty() || chunks.back().size() == kChunkKeys) chunks.emplace_back();
    chunks.back().push_back(k);
  }
};

/// Words a key of a level-n position can use (3n bits at most).
int key_words(int n) { return (3 * n + 63) / 64; }

}  // namespace

struct Sieve3d::Impl {
  int max = 0;
  Sieve3dOptions options;
  std::vector<std::uint64_t> counts;  // PL(n)
  std::vector<KeySet> losing;         // index n: level n's losing positions (index 0 unused)
  const std::atomic<bool>* stop = nullptr;
  std::unique_ptr<MacMahonRanking> ranking;  // the store's ranks

  /// The key of the child of g (parent: g's key) after the move at cell
  /// (i, j) down to height k - 1, and the cubes it removes.
  static Key3 child(const Grid& g, const Key3& parent, int i, int j, int k, int& removed) {
    const int cap = k - 1;
    KeyWriter w(parent, g.off[i][j]);
    removed = 0;
    for (int r = i; r < g.rows; ++r) {
      const int len = g.len[r];
      if (r > i)
        for (int s = 0; s < std::min(j, len); ++s) w.height(g.h[r][s]);
      if (cap == 0 && j == 0) {  // rows i.. go entirely
        for (int rr = r; rr < g.rows; ++rr)
          for (int s = 0; s < g.len[rr]; ++s) removed += g.h[rr][s];
        break;
      }
      for (int s = j; s < len; ++s) {
        int v = g.h[r][s];
        if (v > cap) removed += v - cap, v = cap;
        if (v > 0) w.height(v);
      }
      w.end_row();
    }
    return w.key();
  }

  /// Whether g (a position of n cubes) is losing; counts the moves examined.
  /// `hint` is the move that won the last winning position this thread
  /// decided: neighbours in the enumeration differ in their last cells
  /// only, so it often wins again and is tried first. A winning position
  /// leaves its winning move there.
  bool decide(Grid& g, int n, std::uint64_t& moves, CubeMove& hint) const {
    const Key3 parent = encode(g);
    // The hint first, then the moves from the top of the last cell back to
    // the poisoned corner: the small takes first (children on the levels
    // just below). They are looked up kBatch at a time: each child's
    // directory entry is prefetched as soon as its key is made, the
    // bucket's keys once the batch is full, and then the batch is tested
    // in order, `moves` counting the moves up to the one that wins as one
    // at a time would; so the cache misses of a batch overlap each other
    // and the making of the next keys.
    constexpr int kBatch = 8;
    struct Probe {
      Key3 key;
      const KeySet* set;
      std::size_t bucket;
      CubeMove move;
    };
    Probe batch[kBatch];
    int size = 0;
    auto add = [&](int i, int j, int k) {
      Probe& p = batch[size++];
      int removed = 0;
      p.key = child(g, parent, i, j, k, removed);
      p.set = &losing[static_cast<std::size_t>(n - removed)];
      p.bucket = p.set->bucket(p.key);
      p.set->prefetch(p.bucket);
      p.move = CubeMove{i, j, k};
    };
    auto test = [&]() {
      for (int b = 0; b < size; ++b) batch[b].set->prefetch_keys(batch[b].bucket);
      for (int b = 0; b < size; ++b) {
        ++moves;
        if (batch[b].set->contains(batch[b].key, batch[b].bucket)) {
          hint = batch[b].move;
          return true;
        }
      }
      size = 0;
      return false;
    };
    const bool hint_valid = (hint.i | hint.j | (hint.k - 1)) != 0 && hint.i < g.rows && hint.j < g.len[hint.i] &&
                            hint.k <= g.h[hint.i][hint.j];
    if (hint_valid) add(hint.i, hint.j, hint.k);
    for (int i = g.rows - 1; i >= 0; --i) {
      for (int j = g.len[i] - 1; j >= 0; --j) {
        for (int k = g.h[i][j]; k >= 1; --k) {
          if (i == 0 && j == 0 && k == 1) continue;
          if (hint_valid && i == hint.i && j == hint.j && k == hint.k) continue;
          add(i, j, k);
          if (size == kBatch && test()) return false;
        }
      }
    }
    if (size > 0 && test()) return false;
    return true;
  }
};

Sieve3d::Sieve3d(int max_cubes, const Sieve3dOptions& options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  if (max_cubes < 1 || max_cubes > kMaxCubes)
    throw std::invalid_argument("the 3D sieve classifies 1.." + std::to_string(kMaxCubes) + " cubes, not " +
                                std::to_string(max_cubes));
  impl_->max = max_cubes;
  impl_->counts = plane_partition_counts(max_cubes);
  impl_->ranking = std::make_unique<MacMahonRanking>(max_cubes);
  impl_->losing.resize(1);
}

Sieve3d::~Sieve3d() = default;

void Sieve3d::set_stop_flag(const std::atomic<bool>* flag) { impl_->stop = flag; }
int Sieve3d::levels_done() const { return static_cast<int>(impl_->losing.size()) - 1; }
int Sieve3d::max_cubes() const { return impl_->max; }

LevelResult Sieve3d::next_level(const ProgressFn& progress) {
  const int n = levels_done() + 1;
  if (n > impl_->max) throw std::logic_error("the 3D sieve has finished its levels");
  const auto t0 = std::chrono::steady_clock::now();

  // One task per first row (every row of 1..n cubes, in rank order).
  std::vector<std::vector<int>> firsts;
  {
    std::vector<int> row;
    auto rec = [&](auto&& self, int left, int cap) -> void {
      if (!row.empty()) firsts.push_back(row);
      for (int v = 1; v <= std::min(cap, left); ++v) {
        row.push_back(v);
        self(self, left - v, v);
        row.pop_back();
      }
    };
    rec(rec, n, n);
  }
  const bool sym = impl_->options.symmetry;
  // Symmetric: the first row's length (columns) is at least its corner height.
  if (sym)
    firsts.erase(std::remove_if(firsts.begin(), firsts.end(),
                                [](const std::vector<int>& f) { return f[0] > static_cast<int>(f.size()); }),
                 firsts.end());

  struct Local {
    Chunks losing;
    std::uint64_t positions = 0, moves = 0;
    std::uint64_t weight = 0;  // symmetric: 360 / D a position decided, summed (60 PL(n) in all)
  };
  tbb::enumerable_thread_specific<Local> locals;
  std::atomic<std::size_t> done{0};
  std::atomic<std::uint64_t> shown{0};
  const double level_weight = static_cast<double>(impl_->counts[static_cast<std::size_t>(n)]) * (sym ? 60.0 : 1.0);
  std::atomic<bool> stopped{false};
  const Impl& im = *impl_;

  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, firsts.size(), 1), [&](const tbb::blocked_range<std::size_t>& range) {
    Local& local = locals.local();
    auto grid = std::make_unique<Grid>();
    auto scratch = std::make_unique<Grid>();
    Grid& g = *grid;
    const auto& perms = axis_permutations();
    for (std::size_t t = range.begin(); t != range.end(); ++t) {
      if (stopped.load(std::memory_order_relaxed) || (im.stop && im.stop->load(std::memory_order_relaxed))) {
        stopped.store(true);
        return;
      }
      // Each first row starts without a hint, so that the moves examined
      // (the level's marks) do not depend on which thread took which row.
      CubeMove hint;
      const auto& first = firsts[t];
      int used = 0;
      g.rows = 1;
      g.len[0] = static_cast<int>(first.size());
      for (std::size_t s = 0; s < first.size(); ++s) g.h[0][s] = static_cast<std::uint8_t>(first[s]), used += first[s];
      // Row r in vector order under row r - 1, as for_each_plane_partition.
      auto rows = [&](auto&& self, int r, int left) -> void {
        if (left == 0) {
          if (!sym) {
            ++local.positions;
            if (im.decide(g, n, local.moves, hint)) local.losing.push(encode(g));
            return;
          }
          const std::array<int, 3> ext = extents(g);
          if (ext[2] > ext[0]) return;  // height > rows: an image of it is decided
          ++local.positions;
          const bool lose = im.decide(g, n, local.moves, hint);
          // Of the six permutations, D put the extents in the decided order
          // (D = 1 for distinct extents, 2 with two equal, 6 with three).
          // An orbit of o images (a stabiliser of 6 / o permutations) has
          // D o / 6 of them decided, so 360 / D each sums to 60 o: the
          // weights of a level sum to 60 PL(n) without building an image.
          int d = 0;
          for (const auto& p : perms)
            d += ext[static_cast<std::size_t>(p[2])] <= ext[static_cast<std::size_t>(p[0])] &&
                 ext[static_cast<std::size_t>(p[0])] <= ext[static_cast<std::size_t>(p[1])];
          local.weight += static_cast<std::uint64_t>(360 / d);
          if (lose)  // every image is losing (repeats are kept once by the set)
            for (const auto& p : perms) {
              bool decided = false;
              local.losing.push(image_key(g, p, *scratch, decided));
            }
          return;
        }
        if (sym && r >= g.len[0]) return;  // more rows than columns: an image of it is decided
        g.rows = r + 1;
        auto cells = [&](auto&& cself, int s, int rest, int cap) -> void {
          if (s > 0) {
            g.len[r] = s;
            self(self, r + 1, rest);
            g.rows = r + 1;
          }
          if (s >= g.len[r - 1]) return;
          const int top = std::min({cap, static_cast<int>(g.h[r - 1][s]), rest});
          for (int v = 1; v <= top; ++v) {
            g.h[r][s] = static_cast<std::uint8_t>(v);
            g.len[r] = s + 1;
            cself(cself, s + 1, rest - v, v);
          }
        };
        cells(cells, 0, left, left);
        g.rows = r;
      };
      const std::uint64_t before = sym ? local.weight : local.positions;
      rows(rows, 1, n - used);
      // How far the level is: the positions its first rows done stand for
      // (the weights, 60 a position, when only some of them are decided), of
      // PL(n). First rows differ by orders of magnitude in work, so a count
      // of them would read 57% a fifth of the way into a level.
      const std::uint64_t mine = (sym ? local.weight : local.positions) - before;
      const std::uint64_t accounted = shown.fetch_add(mine, std::memory_order_relaxed) + mine;
      const std::size_t finished = done.fetch_add(1) + 1;
      if (progress && finished % 64 == 0) progress(n, static_cast<double>(accounted) / level_weight);
    }
  });
  if (stopped.load()) throw SieveInterrupted("the 3D sieve was stopped during level " + std::to_string(n));

  LevelResult r;
  r.tiles = n;
  std::vector<std::vector<Key3>> parts;
  std::uint64_t visited = 0, weight = 0;
  std::size_t found = 0;
  for (Local& l : locals) {
    visited += l.positions;
    weight += l.weight;
    r.marks += l.moves;
    for (std::vector<Key3>& c : l.losing.chunks) found += c.size(), parts.push_back(std::move(c));
    l.losing.chunks.clear();
  }
  const std::uint64_t pl = impl_->counts[static_cast<std::size_t>(n)];
  if (sym ? weight != 60 * pl : visited != pl)
    throw std::logic_error("the 3D sieve's positions of " + std::to_string(n) + " cubes count " +
                           (sym ? std::to_string(weight) + " / 60" : std::to_string(visited)) +
                           ", not PL(n) = " + std::to_string(pl));
  r.positions = pl;
  impl_->losing.emplace_back(std::move(parts), key_words(n));
  r.losing = impl_->losing.back().size();
  if (!sym && r.losing != found) throw std::logic_error("the 3D sieve found a losing position twice");
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

bool Sieve3d::losing(const Heights& h) const {
  validate_heights(h);
  const int n = cube_count(h);
  if (n > levels_done())
    throw InvalidPosition("position of " + std::to_string(n) + " cubes; the sieve has classified levels 1.." +
                          std::to_string(levels_done()));
  return impl_->losing[static_cast<std::size_t>(n)].contains(encode(h));
}

std::vector<Heights> Sieve3d::losing_positions(int n) const {
  if (n < 1 || n > levels_done()) throw std::out_of_range("level " + std::to_string(n) + " is not finished");
  std::vector<Heights> out;
  for (const Key3& k : impl_->losing[static_cast<std::size_t>(n)].keys()) out.push_back(decode(k));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint64_t> Sieve3d::losing_ranks(int n) const {
  if (n < 1 || n > levels_done()) throw std::out_of_range("level " + std::to_string(n) + " is not finished");
  const KeySet& set = impl_->losing[static_cast<std::size_t>(n)];
  const MacMahonRanking& ranking = *impl_->ranking;
  std::vector<std::uint64_t> out(set.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, out.size(), 4096), [&](const tbb::blocked_range<std::size_t>& r) {
    detail::HeightGrid g;
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      detail::grid_of(set.key(i), g);
      out[i] = ranking.rank(g);
    }
  });
  tbb::parallel_sort(out.begin(), out.end());
  return out;
}

void Sieve3d::restore_level(std::span<const std::uint64_t> ranks) {
  const int n = levels_done() + 1;
  if (n > impl_->max) throw std::logic_error("the 3D sieve has finished its levels");
  const std::uint64_t pl = impl_->counts[static_cast<std::size_t>(n)];
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i] >= pl || (i > 0 && ranks[i] <= ranks[i - 1]))
      throw std::invalid_argument("the ranks of level " + std::to_string(n) +
                                  " must increase and stay below PL(n) = " + std::to_string(pl));
  const MacMahonRanking& ranking = *impl_->ranking;
  constexpr std::size_t kChunk = Chunks::kChunkKeys;
  std::vector<std::vector<Key3>> parts((ranks.size() + kChunk - 1) / kChunk);
  tbb::parallel_for(std::size_t{0}, parts.size(), [&](std::size_t c) {
    detail::HeightGrid g;
    const std::size_t end = std::min(ranks.size(), (c + 1) * kChunk);
    parts[c].reserve(end - c * kChunk);
    for (std::size_t i = c * kChunk; i < end; ++i) {
      ranking.unrank(n, ranks[i], g);
      parts[c].push_back(detail::key_of(g));
    }
  });
  impl_->losing.emplace_back(std::move(parts), key_words(n));
  if (impl_->losing.back().size() != ranks.size()) {
    impl_->losing.pop_back();
    throw std::logic_error("two ranks of level " + std::to_string(n) + " gave one position");
  }
}

std::uint64_t Sieve3d::bytes() const {
  std::uint64_t b = 0;
  for (const KeySet& s : impl_->losing) b += s.bytes();
  return b;
}

}  // namespace chomp
