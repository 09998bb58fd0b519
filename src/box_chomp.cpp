/// @file box_chomp.cpp
/// @brief Down-sets of a box of any dimension: counting them, and the
/// level-by-level solver (box_chomp.hpp; the box and its cell sets are
/// box.cpp).

#include "chomp/box_chomp.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "exact_key_set.hpp"

namespace chomp {

// ---------------------------------------------------------------------------
// Positions as heights

namespace {

using Clock = std::chrono::steady_clock;

/// The most columns a key can hold: kMaxKeyWords words of one-bit heights.
constexpr int kMaxColumns = kMaxKeyWords * 64;

/// Counting a box goes through the down-sets of its faces: at most this
/// many of them (2^20) are enumerated; beyond, the count is only bounded.
constexpr std::uint64_t kMaxCountStates = std::uint64_t{1} << 20;

/// Positions as heights: the internal axes are the box's with its longest
/// last, the *height axis*; the others form the base, whose cells, the
/// *columns*, are numbered row-major. A down-set is then a height in
/// 0..height for each column, non-increasing one step up any base axis.
/// The key packs the heights in `bits` bits each, `per_word` to a word.
struct Layout {
  int k = 1;
  std::vector<int> axis;     ///< internal axis a is the box's axis axis[a]
  std::vector<int> base;     ///< extents of the k - 1 base axes
  int height = 1;            ///< extent of the height axis
  int columns = 1;
  std::vector<int> stride;   ///< of the base axes
  std::vector<int> coord;    ///< columns x (k - 1): 0-based base coordinates
  std::vector<std::uint32_t> next_begin, next;  ///< columns one step up each base axis
  std::vector<std::uint32_t> prev_begin, prev;  ///< one step down
  std::vector<std::uint32_t> cone_begin, cone;  ///< columns j with j >= i on every base axis
  std::vector<std::uint8_t> in_cone;            ///< columns x columns: j in cone(i)
  int bits = 1, per_word = 64, words = 1;
  std::uint64_t mask = 1;
  std::vector<std::uint8_t> word, shift;  ///< where each column's height sits in the key

  std::span<const std::uint32_t> next_of(int i) const { return span(next, next_begin, i); }
  std::span<const std::uint32_t> prev_of(int i) const { return span(prev, prev_begin, i); }
  std::span<const std::uint32_t> cone_of(int i) const { return span(cone, cone_begin, i); }
  int level(int column) const {  // a linear extension: the sum of the coordinates
    int s = 0;
    for (int a = 0; a < k - 1; ++a) s += coord[static_cast<std::size_t>(column * (k - 1) + a)];
    return s;
  }

 private:
  static std::span<const std::uint32_t> span(const std::vector<std::uint32_t>& v,
                                             const std::vector<std::uint32_t>& begin, int i) {
    const std::size_t b = begin[static_cast<std::size_t>(i)], e = begin[static_cast<std::size_t>(i) + 1];
    return {v.data() + b, e - b};
  }
};

/// The layout of a box of these extents. Throws std::length_error when the
/// key would need more than kMaxKeyWords words or an axis is longer than
/// kMaxExtent (heights are held in bytes).
Layout make_layout(const std::vector<int>& extents) {
  Layout L;
  L.k = static_cast<int>(extents.size());
  const int h = static_cast<int>(std::max_element(extents.begin(), extents.end()) - extents.begin());
  if (extents[static_cast<std::size_t>(h)] > kMaxExtent)
    throw std::length_error("an axis of " + std::to_string(extents[static_cast<std::size_t>(h)]) +
                            " cells, more than the " + std::to_string(kMaxExtent) + " the solver holds");
  for (int a = 0; a < L.k; ++a)
    if (a != h) L.axis.push_back(a);
  L.axis.push_back(h);
  for (int a = 0; a + 1 < L.k; ++a) L.base.push_back(extents[static_cast<std::size_t>(L.axis[static_cast<std::size_t>(a)])]);
  L.height = extents[static_cast<std::size_t>(h)];
  L.bits = std::bit_width(static_cast<unsigned>(L.height));
  L.per_word = 64 / L.bits;
  std::size_t columns = 1;  // at most the cells of a Box, 2^20
  for (int e : L.base) columns *= static_cast<std::size_t>(e);
  const std::size_t words = (columns + static_cast<std::size_t>(L.per_word) - 1) / static_cast<std::size_t>(L.per_word);
  if (words > static_cast<std::size_t>(kMaxKeyWords))
    throw std::length_error("its positions need keys of " + std::to_string(words) + " words, more than the " +
                            std::to_string(kMaxKeyWords) + " the solver holds");
  L.columns = static_cast<int>(columns);
  L.words = static_cast<int>(words);
  L.mask = (std::uint64_t{1} << L.bits) - 1;
  const int d = L.k - 1;
  L.stride.assign(static_cast<std::size_t>(d), 1);
  for (int a = d - 1, s = 1; a >= 0; --a) {
    L.stride[static_cast<std::size_t>(a)] = s;
    s *= L.base[static_cast<std::size_t>(a)];
  }
  L.coord.assign(columns * static_cast<std::size_t>(d), 0);
  for (int i = 0; i < L.columns; ++i)
    for (int a = 0; a < d; ++a)
      L.coord[static_cast<std::size_t>(i * d + a)] =
          i / L.stride[static_cast<std::size_t>(a)] % L.base[static_cast<std::size_t>(a)];
  const auto c = [&](int i, int a) { return L.coord[static_cast<std::size_t>(i * d + a)]; };
  L.next_begin.push_back(0);
  L.prev_begin.push_back(0);
  L.cone_begin.push_back(0);
  L.in_cone.assign(columns * columns, 0);
  for (int i = 0; i < L.columns; ++i) {
    for (int a = 0; a < d; ++a) {
      if (c(i, a) + 1 < L.base[static_cast<std::size_t>(a)])
        L.next.push_back(static_cast<std::uint32_t>(i + L.stride[static_cast<std::size_t>(a)]));
      if (c(i, a) > 0) L.prev.push_back(static_cast<std::uint32_t>(i - L.stride[static_cast<std::size_t>(a)]));
    }
    for (int j = i; j < L.columns; ++j) {
      bool up = true;
      for (int a = 0; a < d && up; ++a) up = c(j, a) >= c(i, a);
      if (up) {
        L.cone.push_back(static_cast<std::uint32_t>(j));
        L.in_cone[static_cast<std::size_t>(i) * columns + static_cast<std::size_t>(j)] = 1;
      }
    }
    L.next_begin.push_back(static_cast<std::uint32_t>(L.next.size()));
    L.prev_begin.push_back(static_cast<std::uint32_t>(L.prev.size()));
    L.cone_begin.push_back(static_cast<std::uint32_t>(L.cone.size()));
  }
  for (int i = 0; i < L.columns; ++i) {
    L.word.push_back(static_cast<std::uint8_t>(i / L.per_word));
    L.shift.push_back(static_cast<std::uint8_t>(i % L.per_word * L.bits));
  }
  return L;
}

using Heights8 = std::array<std::uint8_t, kMaxColumns>;

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t p = 0;
  return __builtin_mul_overflow(a, b, &p) ? std::numeric_limits<std::uint64_t>::max() : p;
}

/// The solver and the counter for keys of one width.
class EngineBase {
 public:
  virtual ~EngineBase() = default;
  /// Solves every position under `cap` (heights), filling `levels`.
  virtual void solve(const std::vector<std::uint8_t>& cap, const BoxProgressFn& progress,
                     std::uint64_t max_positions, std::vector<BoxLevel>& levels) = 0;
  /// Whether a solved, non-empty position (heights) is losing.
  virtual bool losing(const std::vector<std::uint8_t>& heights, int cells) const = 0;
  /// The down-sets of this box times a chain of m cells: the chains
  /// S_1 >= ... >= S_m of down-sets of this box (the slices), counted by
  /// summing m times over the down-sets below (requires this box to have
  /// at most kMaxCountStates down-sets).
  virtual PositionCount chains(int m) const = 0;
};

/// A move's code: column and layer (1-based); 0 means "losing".
constexpr std::uint32_t kLosing = 0;

template <std::size_t W>
class Engine final : public EngineBase {
  using K = detail::Key<W>;

 public:
  explicit Engine(Layout layout) : L_(std::move(layout)) {}

  void solve(const std::vector<std::uint8_t>& cap, const BoxProgressFn& progress, std::uint64_t max_positions,
             std::vector<BoxLevel>& levels) override {
    int max_cells = 0;
    for (std::uint8_t c : cap) max_cells += c;
    std::vector<K> keys{K{}};
    std::vector<std::uint32_t> witness{kLosing};  // (the empty position's is never read)
    levels.assign(1, BoxLevel{0, 1, 0});
    losing_.clear();
    losing_.emplace_back();  // no empty position is losing
    std::uint64_t total = 1;
    for (int n = 0; n < max_cells; ++n) {
      std::vector<K> next_keys;
      std::vector<std::uint32_t> next_witness;
      const std::uint64_t lost = next_level(n, cap, keys, witness, next_keys, next_witness, total, max_positions);
      total += next_keys.size();
      levels.push_back({n + 1, next_keys.size(), lost});
      std::vector<K> lose;
      lose.reserve(lost);
      for (std::size_t t = 0; t < next_keys.size(); ++t)
        if (next_witness[t] == kLosing) lose.push_back(next_keys[t]);
      losing_.emplace_back(std::move(lose));
      keys = std::move(next_keys);
      witness = std::move(next_witness);
      if (progress) progress(n + 1, max_cells, total);
    }
  }

  bool losing(const std::vector<std::uint8_t>& heights, int cells) const override {
    return cells > 0 && static_cast<std::size_t>(cells) < losing_.size() &&
           losing_[static_cast<std::size_t>(cells)].contains(encode(heights.data()));
  }

  PositionCount chains(int m) const override {
    // Every down-set of the box, then the pairs (s, s less one of its top
    // cells) grouped by that cell in a linear extension of the cells.
    const std::vector<std::uint8_t> full(static_cast<std::size_t>(L_.columns), static_cast<std::uint8_t>(L_.height));
    std::vector<K> all;
    for_each_position(full, [&](const K& k) { all.push_back(k); });
    std::sort(all.begin(), all.end());
    const auto index_of = [&](const K& k) {
      return static_cast<std::uint32_t>(std::lower_bound(all.begin(), all.end(), k) - all.begin());
    };
    struct Step {
      std::uint32_t order, s, t;
    };
    std::vector<Step> steps;
    Heights8 h{};
    for (std::uint32_t s = 0; s < all.size(); ++s) {
      decode(all[s], h.data());
      for (int i = 0; i < L_.columns; ++i) {
        if (!removable(h.data(), i)) continue;
        K t = all[s];
        put(t, i, h[static_cast<std::size_t>(i)] - 1);
        // The cell (column i, layer h_i) by coordinate sum, then by name.
        const std::uint32_t cell = static_cast<std::uint32_t>(i * (L_.height + 1) + h[static_cast<std::size_t>(i)]);
        const std::uint32_t sum = static_cast<std::uint32_t>(L_.level(i) + h[static_cast<std::size_t>(i)]);
        steps.push_back({sum * static_cast<std::uint32_t>(L_.columns * (L_.height + 1)) + cell, s, index_of(t)});
      }
    }
    std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.order < b.order; });
    // g = 1 is the chain of one slice; each round sums g over the down-sets
    // below (the sum over subsets, one cell at a time along a linear
    // extension: adding g(s - x) when x is a top cell of s).
    std::vector<std::uint64_t> g(all.size(), 1);
    for (int round = 0; round < m; ++round)
      for (const Step& st : steps) g[st.s] = saturating_add(g[st.s], g[st.t]);
    const std::uint64_t v = g[index_of(encode(full.data()))];
    return {v, v != std::numeric_limits<std::uint64_t>::max()};
  }

 private:
  Layout L_;
  std::vector<detail::ExactKeySet<W>> losing_;  // index n: the losing positions of n cells

  int get(const K& k, int i) const {
    return static_cast<int>((k.w[L_.word[static_cast<std::size_t>(i)]] >> L_.shift[static_cast<std::size_t>(i)]) & L_.mask);
  }
  void put(K& k, int i, int v) const {
    std::uint64_t& w = k.w[L_.word[static_cast<std::size_t>(i)]];
    const int s = L_.shift[static_cast<std::size_t>(i)];
    w = (w & ~(L_.mask << s)) | (static_cast<std::uint64_t>(v) << s);
  }
  K encode(const std::uint8_t* h) const {
    K k;
    for (int i = 0; i < L_.columns; ++i) put(k, i, h[i]);
    return k;
  }
  void decode(const K& k, std::uint8_t* h) const {
    for (int i = 0; i < L_.columns; ++i) h[i] = static_cast<std::uint8_t>(get(k, i));
  }
  bool removable(const std::uint8_t* h, int i) const {
    if (h[i] == 0) return false;
    for (std::uint32_t j : L_.next_of(i))
      if (h[j] >= h[i]) return false;
    return true;
  }
  bool addable(const std::uint8_t* h, const std::uint8_t* cap, int i) const {
    if (h[i] >= cap[i]) return false;
    for (std::uint32_t j : L_.prev_of(i))
      if (h[j] <= h[i]) return false;
    return true;
  }
  /// The columns on which a cell can be added to give a child in the
  /// reverse search: addable, and not before the last removable column.
  template <class Fn>
  void for_each_child_column(const std::uint8_t* h, const std::uint8_t* cap, Fn fn) const {
    int r = L_.columns - 1;
    while (r >= 0 && !removable(h, r)) --r;
    for (int i = std::max(r, 0); i < L_.columns; ++i)
      if (addable(h, cap, i)) fn(i);
  }
  /// Every position under cap, level by level (for counting small boxes).
  template <class Fn>
  void for_each_position(const std::vector<std::uint8_t>& cap, Fn fn) const {
    std::vector<K> level{K{}};
    Heights8 h{};
    while (!level.empty()) {
      std::vector<K> next;
      for (const K& k : level) {
        fn(k);
        decode(k, h.data());
        for_each_child_column(h.data(), cap.data(), [&](int i) {
          K c = k;
          put(c, i, h[static_cast<std::size_t>(i)] + 1);
          next.push_back(c);
        });
      }
      level = std::move(next);
    }
  }

  std::uint32_t code(int column, int layer) const {
    return static_cast<std::uint32_t>(column * (L_.height + 1) + layer);
  }

  /// The witness of q (a winning move's code) or kLosing: q has n1 cells
  /// and was made by adding layer v on column i to a parent whose witness
  /// is parent_w.
  std::uint32_t decide(const K& q, const std::uint8_t* qh, int n1, int i, int v, std::uint32_t parent_w) const {
    if (n1 == 1) return kLosing;  // the poisoned cell alone
    if (parent_w == kLosing) return code(i, v);  // take the new cell: the parent is left
    const int wi = static_cast<int>(parent_w) / (L_.height + 1), wl = static_cast<int>(parent_w) % (L_.height + 1);
    if (v >= wl && L_.in_cone[static_cast<std::size_t>(wi) * static_cast<std::size_t>(L_.columns) +
                              static_cast<std::size_t>(i)])
      return parent_w;  // the parent's move takes the new cell too and leaves what it left
    // Every move, the smallest takes first (far columns, high layers).
    for (int j = L_.columns - 1; j >= 0; --j) {
      for (int l = qh[j]; l >= 1; --l) {
        if (j == 0 && l == 1) continue;
        K child = q;
        int removed = 0;
        for (std::uint32_t t : L_.cone_of(j)) {
          const int ht = qh[t];
          if (ht >= l) {
            removed += ht - l + 1;
            put(child, static_cast<int>(t), l - 1);
          }
        }
        if (losing_[static_cast<std::size_t>(n1 - removed)].contains(child)) return code(j, l);
      }
    }
    return kLosing;
  }

  /// Level n + 1 from level n: counted, then made and decided, in chunks
  /// whose outputs keep the order of their inputs. Returns its losing count.
  std::uint64_t next_level(int n, const std::vector<std::uint8_t>& cap, const std::vector<K>& keys,
                           const std::vector<std::uint32_t>& witness, std::vector<K>& out_keys,
                           std::vector<std::uint32_t>& out_witness, std::uint64_t total,
                           std::uint64_t max_positions) const {
    // A chunk of positions is a few hundred microseconds of deciding.
    constexpr std::size_t kChunk = 1024;
    const std::size_t chunks = (keys.size() + kChunk - 1) / kChunk;
    std::vector<std::size_t> offset(chunks + 1, 0);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
      Heights8 h{};
      for (std::size_t c = r.begin(); c != r.end(); ++c) {
        std::size_t count = 0;
        for (std::size_t p = c * kChunk, end = std::min(keys.size(), p + kChunk); p < end; ++p) {
          decode(keys[p], h.data());
          for_each_child_column(h.data(), cap.data(), [&](int) { ++count; });
        }
        offset[c + 1] = count;
      }
    });
    for (std::size_t c = 0; c < chunks; ++c) offset[c + 1] += offset[c];
    const std::uint64_t size = offset[chunks];
    if (total + size > max_positions)
      throw std::length_error("the position contains more than " + std::to_string(max_positions) +
                              " positions (at least " + std::to_string(total + size) + " by level " +
                              std::to_string(n + 1) + ")");
    out_keys.resize(size);
    out_witness.resize(size);
    std::vector<std::uint64_t> lost(chunks, 0);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
      Heights8 h{};
      for (std::size_t c = r.begin(); c != r.end(); ++c) {
        std::size_t o = offset[c];
        for (std::size_t p = c * kChunk, end = std::min(keys.size(), p + kChunk); p < end; ++p) {
          decode(keys[p], h.data());
          for_each_child_column(h.data(), cap.data(), [&](int i) {
            K q = keys[p];
            const int v = h[static_cast<std::size_t>(i)] + 1;
            put(q, i, v);
            h[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v);
            const std::uint32_t w = decide(q, h.data(), n + 1, i, v, witness[p]);
            h[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v - 1);
            out_keys[o] = q;
            out_witness[o] = w;
            lost[c] += w == kLosing;
            ++o;
          });
        }
      }
    });
    std::uint64_t l = 0;
    for (std::uint64_t x : lost) l += x;
    return l;
  }
};

template <std::size_t W>
std::unique_ptr<EngineBase> engine_of(Layout L) {
  if constexpr (W > static_cast<std::size_t>(kMaxKeyWords)) {
    throw std::length_error("keys wider than the solver holds");
  } else {
    if (static_cast<std::size_t>(L.words) == W) return std::make_unique<Engine<W>>(std::move(L));
    return engine_of<W + 1>(std::move(L));
  }
}

std::unique_ptr<EngineBase> make_engine(Layout L) { return engine_of<1>(std::move(L)); }

/// count_down_sets for extents in ascending order.
PositionCount count_sorted(std::vector<int> ext) {
  if (ext.size() == 1) return {static_cast<std::uint64_t>(ext[0]) + 1, true};
  const int m = ext.back();
  ext.pop_back();
  if (m == 1) return {2, true};  // every extent 1: a single cell
  const PositionCount faces = count_sorted(ext);
  std::uint64_t face_cells = 1;
  for (int e : ext) face_cells = saturating_mul(face_cells, static_cast<std::uint64_t>(e));
  // With m >= 2 slices, the pairs S_1 >= S_2 alone number at least the sum
  // over face down-sets s of |s| + 1 (a chain up to s), and the complement
  // turned about the centre pairs sizes |s| and cells - |s|: a mean of half
  // the face.
  const auto bound = [&] {
    return PositionCount{std::max(faces.value, saturating_mul(faces.value, face_cells / 2 + 1)), false};
  };
  if (!faces.exact || faces.value > kMaxCountStates) return bound();
  Layout L;
  try {
    L = make_layout(ext);
  } catch (const std::length_error&) {
    return bound();
  }
  return make_engine(std::move(L))->chains(m);
}

}  // namespace

PositionCount count_down_sets(const Box& box) {
  std::vector<int> ext = box.extents();
  std::sort(ext.begin(), ext.end());
  return count_sorted(std::move(ext));
}

// ---------------------------------------------------------------------------
// BoxSolver

struct BoxSolver::Impl {
  explicit Impl(const Box& b) : box(b), layout(make_layout(b.extents())) {
    column_of.resize(box.cells());
    layer_of.resize(box.cells());
    for (std::size_t e = 0; e < box.cells(); ++e) {
      const std::vector<int> c = box.coordinates(e);
      int col = 0;
      for (int a = 0; a + 1 < layout.k; ++a)
        col += (c[static_cast<std::size_t>(layout.axis[static_cast<std::size_t>(a)])] - 1) *
               layout.stride[static_cast<std::size_t>(a)];
      column_of[e] = static_cast<std::uint32_t>(col);
      layer_of[e] = static_cast<std::uint8_t>(c[static_cast<std::size_t>(layout.axis.back())]);
    }
  }

  /// The heights of a down-set.
  std::vector<std::uint8_t> heights(const CellSet& position) const {
    std::vector<std::uint8_t> h(static_cast<std::size_t>(layout.columns), 0);
    for (std::size_t e = 0; e < position.size(); ++e)
      if (position[e]) h[column_of[e]] = std::max(h[column_of[e]], layer_of[e]);
    return h;
  }

  /// Throws std::invalid_argument unless position is a down-set inside cap.
  std::vector<std::uint8_t> checked_heights(const CellSet& position) const {
    if (const std::string why = down_set_problem(box, position); !why.empty())
      throw std::invalid_argument("not a position: " + why);
    std::vector<std::uint8_t> h = heights(position);
    for (std::size_t i = 0; i < h.size(); ++i)
      if (h[i] > cap[i]) throw std::invalid_argument("the position is not inside the one solved");
    return h;
  }

  Box box;
  Layout layout;
  std::vector<std::uint32_t> column_of;
  std::vector<std::uint8_t> layer_of;
  std::vector<std::uint8_t> cap;
  std::unique_ptr<EngineBase> engine;
  std::vector<BoxLevel> levels;
  std::uint64_t positions = 0;
  double seconds = 0;
};

BoxSolver::BoxSolver(const Box& box, const CellSet& position, const BoxProgressFn& progress,
                     std::uint64_t max_positions)
    : impl_(std::make_unique<Impl>(box)) {
  if (const std::string why = down_set_problem(box, position); !why.empty())
    throw std::invalid_argument("not a position: " + why);
  const auto start = Clock::now();
  impl_->cap = impl_->heights(position);
  impl_->engine = make_engine(impl_->layout);
  impl_->engine->solve(impl_->cap, progress, max_positions, impl_->levels);
  for (const BoxLevel& l : impl_->levels) impl_->positions += l.positions;
  impl_->seconds = std::chrono::duration<double>(Clock::now() - start).count();
}

BoxSolver::~BoxSolver() = default;
BoxSolver::BoxSolver(BoxSolver&&) noexcept = default;
BoxSolver& BoxSolver::operator=(BoxSolver&&) noexcept = default;

const Box& BoxSolver::box() const { return impl_->box; }
const std::vector<BoxLevel>& BoxSolver::levels() const { return impl_->levels; }
std::uint64_t BoxSolver::positions() const { return impl_->positions; }
double BoxSolver::seconds() const { return impl_->seconds; }

bool BoxSolver::is_losing(const CellSet& position) const {
  const std::vector<std::uint8_t> h = impl_->checked_heights(position);
  return impl_->engine->losing(h, static_cast<int>(cells_in(position)));
}

std::vector<std::size_t> BoxSolver::winning_moves(const CellSet& position) const {
  impl_->checked_heights(position);
  std::vector<std::size_t> out;
  for (std::size_t e = 1; e < position.size(); ++e) {  // cell 0 is the poisoned one
    if (!position[e]) continue;
    const CellSet after = take(impl_->box, position, e);
    if (impl_->engine->losing(impl_->heights(after), static_cast<int>(cells_in(after)))) out.push_back(e);
  }
  return out;
}

}  // namespace chomp
