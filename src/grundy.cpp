/// @file grundy.cpp
/// @brief Grundy values level by level (a pull through the ranking), inside
/// a shape, and sums of boards.
///
/// ## The rank of a move's result, in a few lookups
/// Rows are 0-based here. For a position lam with r rows and n tiles let
/// T_k be the tiles of rows k.. and C_k = sum over k' >= k of
/// P(T_k', lam_k' - 1), the rank terms (ranking.hpp) of rows k... Taking tile
/// (i, v + 1) (column v + 1) cuts every row k >= i to min(lam_k, v). With
/// t = c_(v+1), the number of rows longer than v (a column length), rows
/// i..t-1 become q = t - i rows of length v and rows t.. are unchanged. So
/// the result, of m = S_i + q v + T_t tiles (S_i the tiles of rows 0..i-1),
/// has the rank
///
///     prefix + P(q v + T_t, v) - P(T_t, v) + C_t
///
/// where the middle term is the q equal rows telescoped (P(R, v) =
/// P(R, v-1) + P(R-v, v)), the last is unchanged because the rows and their
/// tile counts are, and the prefix is the rank terms of rows 0..i-1 with the
/// new tile counts m - S_k, telescoped over each run of equal rows the same
/// way. A move costs two lookups per run of equal rows above it plus four.

#include "chomp/grundy.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <chrono>
#include <stdexcept>
#include <string>

#include "chomp/bounded.hpp"

namespace chomp {

namespace {

using Clock = std::chrono::steady_clock;

/// The least value not in a set of values below 256, held as 256 bits.
struct ValueSet {
  std::array<std::uint64_t, 4> bits{};
  void add(unsigned g) { bits[g >> 6] |= std::uint64_t{1} << (g & 63); }
  int mex() const {
    for (int w = 0; w < 4; ++w)
      if (~bits[static_cast<std::size_t>(w)] != 0)
        return w * 64 + std::countr_one(bits[static_cast<std::size_t>(w)]);
    return 256;
  }
};

using Histogram = std::array<std::uint64_t, 256>;

}  // namespace

std::uint64_t grundy_table_bytes(int max_tiles) {
  const PartitionTable t(max_tiles);
  std::uint64_t sum = 0;
  for (int n = 1; n <= max_tiles; ++n) sum += t.positions(n);
  return sum;
}

// ---------------------------------------------------------------------------
// GrundyTable

struct GrundyTable::Impl {
  explicit Impl(int max_tiles) : table(max_tiles) {}
  PartitionTable table;
  std::vector<std::vector<std::uint8_t>> values;  // index n, values[0] empty
  std::vector<GrundyLevel> levels;

  /// Throws GrundyInterrupted when *stop is raised before the level ends.
  void solve_level(int n, const std::atomic<bool>* stop, const GrundyProgressFn& progress);
};

void GrundyTable::Impl::solve_level(int n, const std::atomic<bool>* stop, const GrundyProgressFn& progress) {
  const auto stopped = [stop] { return stop != nullptr && stop->load(std::memory_order_relaxed); };
  if (stopped()) throw GrundyInterrupted("stopped before level " + std::to_string(n));
  const auto t0 = Clock::now();
  const std::uint64_t p = table.positions(n);
  std::vector<std::uint8_t>& out = values[static_cast<std::size_t>(n)];
  out.assign(p, 0);
  tbb::enumerable_thread_specific<Histogram> hist([] { return Histogram{}; });
  const PartitionTable& T = table;
  const std::vector<std::vector<std::uint8_t>>& vals = values;
  // The partition table as one flat array: P(m, k) = Pt[m * stride + k].
  const std::uint64_t* const Pt = T.row(0);
  const std::ptrdiff_t stride = T.row(1) - T.row(0);
  const auto P = [Pt, stride](int m, int k) { return Pt[m * stride + k]; };
  const std::uint8_t* const* level_ptr = nullptr;
  std::vector<const std::uint8_t*> level_data(static_cast<std::size_t>(n) + 1, nullptr);
  for (int m = 1; m < n; ++m) level_data[static_cast<std::size_t>(m)] = vals[static_cast<std::size_t>(m)].data();
  level_ptr = level_data.data();
  // How far the level is: the positions valued (a solved one and its
  // transpose), of p(n). A count of ranks would misread it: the high ranks
  // (long first rows) are mostly transposes, passed over in a moment, so
  // the thread that takes them races ahead.
  std::atomic<std::uint64_t> valued_total{0}, reports{0};
  constexpr std::uint64_t kReportRanks = 2048;

  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, p, 2048), [&](const tbb::blocked_range<std::uint64_t>& br) {
    // A stop skips the rest of the level, which is then dropped whole.
    if (stopped()) return;
    Histogram& h = hist.local();
    Rows lam;
    lam.reserve(static_cast<std::size_t>(n));
    std::array<int, kMaxTiles + 2> S{}, Tt{}, col{}, run_end{};
    std::array<std::uint64_t, kMaxTiles + 2> C{};
    std::array<const std::uint8_t*, kMaxTiles + 1> addr{};
    std::uint64_t valued = 0;  // positions given a value since the last report
    // Every 2,048 ranks: the positions valued go to the level's count, and
    // every 64th report to `progress`; and a stop is looked at. (The
    // partitioner hands a thread chunks of up to a hundredth of the level,
    // 1.5 million ranks at n = 100, so the chunks alone are too coarse.)
    const auto report = [&] {
      const std::uint64_t done = valued_total.fetch_add(valued, std::memory_order_relaxed) + valued;
      valued = 0;
      if (progress && (reports.fetch_add(1, std::memory_order_relaxed) + 1) % 64 == 0)
        progress(n, static_cast<double>(done) / static_cast<double>(p));
    };
    for (std::uint64_t rank = br.begin(); rank != br.end(); ++rank) {
      if (rank != br.begin() && (rank - br.begin()) % kReportRanks == 0) {
        report();
        if (stopped()) return;
      }
      lam.clear();
      T.unrank_into(n, n, rank, lam);
      const int r = static_cast<int>(lam.size());
      const int c = lam[0];
      {
        // col[j] = rows of length >= j, j = 1 .. lam_0: the transpose.
        int k = r;
        for (int j = 1; j <= c; ++j) {
          while (k > 0 && lam[static_cast<std::size_t>(k) - 1] < j) --k;
          col[static_cast<std::size_t>(j)] = k;
        }
      }
      // G(lam) = G(transpose): only the smaller of the two (rows compared
      // lexicographically) is solved, and its value written for both.
      int cmp = 0;
      for (int k = 0; k < std::min(r, c) && cmp == 0; ++k) {
        const int a = lam[static_cast<std::size_t>(k)], b = col[static_cast<std::size_t>(k) + 1];
        cmp = a < b ? -1 : a > b ? 1 : 0;
      }
      if (cmp == 0) cmp = r < c ? -1 : r > c ? 1 : 0;
      if (cmp > 0) continue;
      // Suffix tiles and rank terms, prefix tiles, run ends, column lengths.
      Tt[static_cast<std::size_t>(r)] = 0;
      C[static_cast<std::size_t>(r)] = 0;
      for (int k = r - 1; k >= 0; --k) {
        const int len = lam[static_cast<std::size_t>(k)];
        Tt[static_cast<std::size_t>(k)] = Tt[static_cast<std::size_t>(k) + 1] + len;
        C[static_cast<std::size_t>(k)] =
            C[static_cast<std::size_t>(k) + 1] + P(Tt[static_cast<std::size_t>(k)], len - 1);
        run_end[static_cast<std::size_t>(k)] =
            (k + 1 < r && lam[static_cast<std::size_t>(k) + 1] == len) ? run_end[static_cast<std::size_t>(k) + 1] : k + 1;
      }
      for (int k = 0; k <= r; ++k) S[static_cast<std::size_t>(k)] = n - Tt[static_cast<std::size_t>(k)];
      int moves = 0;
      for (int i = 0; i < r; ++i) {
        const int li = lam[static_cast<std::size_t>(i)];
        for (int v = (i == 0 ? 1 : 0); v < li; ++v) {
          const int t = col[static_cast<std::size_t>(v) + 1];
          const int q = t - i;
          const int tail = Tt[static_cast<std::size_t>(t)];
          const int m = S[static_cast<std::size_t>(i)] + q * v + tail;
          std::uint64_t rk = C[static_cast<std::size_t>(t)];
          if (v > 0) rk += P(q * v + tail, v) - P(tail, v);
          for (int k = 0; k < i;) {
            const int w = lam[static_cast<std::size_t>(k)];
            const int e = std::min(run_end[static_cast<std::size_t>(k)], i);
            const int R = m - S[static_cast<std::size_t>(k)];
            rk += P(R, w) - P(R - (e - k) * w, w);
            k = e;
          }
          const std::uint8_t* a = level_ptr[static_cast<std::size_t>(m)] + rk;
          __builtin_prefetch(a);
          addr[static_cast<std::size_t>(moves++)] = a;
        }
      }
      ValueSet seen;
      for (int k = 0; k < moves; ++k) seen.add(*addr[static_cast<std::size_t>(k)]);
      const int g = seen.mex();
      out[rank] = static_cast<std::uint8_t>(g);
      ++h[static_cast<std::size_t>(g)];
      ++valued;
      if (cmp < 0) {
        std::uint64_t rt = 0;
        for (int k = 0, R = n; k < c; ++k) {
          const int len = col[static_cast<std::size_t>(k) + 1];
          rt += P(R, len - 1);
          R -= len;
        }
        out[rt] = static_cast<std::uint8_t>(g);  // a byte no other position writes
        ++h[static_cast<std::size_t>(g)];
        ++valued;
      }
    }
    report();
  });
  if (stopped()) throw GrundyInterrupted("stopped during level " + std::to_string(n));
  Histogram total{};
  for (const Histogram& h : hist)
    for (std::size_t g = 0; g < total.size(); ++g) total[g] += h[g];
  GrundyLevel level;
  level.tiles = n;
  level.positions = p;
  int largest = 0;
  for (int g = 0; g < 256; ++g)
    if (total[static_cast<std::size_t>(g)]) largest = g;
  level.counts.assign(total.begin(), total.begin() + largest + 1);
  level.largest = largest;
  level.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  levels.push_back(std::move(level));
}

GrundyTable::GrundyTable(int max_tiles, const GrundyLevelFn& on_level, const std::atomic<bool>* stop,
                         const GrundyProgressFn& progress)
    : impl_(std::make_unique<Impl>(max_tiles)) {
  impl_->values.resize(static_cast<std::size_t>(max_tiles) + 1);
  // Level 1: the poisoned tile alone, no move, value 0.
  impl_->values[1].assign(1, 0);
  impl_->levels.push_back(GrundyLevel{1, 1, {1}, 0, 0.0});
  if (on_level) on_level(impl_->levels.back());
  for (int n = 2; n <= max_tiles; ++n) {
    impl_->solve_level(n, stop, progress);
    if (on_level) on_level(impl_->levels.back());
  }
}

GrundyTable::~GrundyTable() = default;
GrundyTable::GrundyTable(GrundyTable&&) noexcept = default;
GrundyTable& GrundyTable::operator=(GrundyTable&&) noexcept = default;

int GrundyTable::max_tiles() const { return impl_->table.max_tiles(); }
const PartitionTable& GrundyTable::ranking() const { return impl_->table; }

std::span<const std::uint8_t> GrundyTable::level(int n) const {
  if (n < 1 || n > max_tiles())
    throw std::invalid_argument("level " + std::to_string(n) + " is outside 1.." + std::to_string(max_tiles()));
  return impl_->values[static_cast<std::size_t>(n)];
}

int GrundyTable::value(std::span<const int> rows) const {
  validate_rows(rows);
  if (rows.empty()) throw InvalidPosition("the empty board has no Grundy value (the poisoned tile is never taken)");
  const std::uint64_t n = tile_count(rows);
  if (n > static_cast<std::uint64_t>(max_tiles()))
    throw InvalidPosition("position " + rows_to_string(rows) + " has " + std::to_string(n) +
                          " tiles; the table holds levels up to " + std::to_string(max_tiles()));
  return impl_->values[static_cast<std::size_t>(n)][impl_->table.rank(rows)];
}

const std::vector<GrundyLevel>& GrundyTable::levels() const { return impl_->levels; }

// ---------------------------------------------------------------------------
// BoundedGrundy

struct BoundedGrundy::Impl {
  explicit Impl(std::span<const int> shape) : ranking(shape) {}
  BoundedRanking ranking;
  std::vector<std::uint16_t> values;  // every level laid end to end (ranking.level_offset)
};

BoundedGrundy::BoundedGrundy(std::span<const int> shape) {
  validate_rows(shape);
  if (shape.empty()) throw InvalidPosition("an empty board has no Grundy value (the poisoned tile is never taken)");
  const std::uint64_t domain = count_subpositions(shape);
  if (domain > kMaxGrundyDomain)
    throw std::length_error("the positions inside " + rows_to_string(shape) + " number " +
                            positions_text(domain) +
                            ", more than the " + std::to_string(kMaxGrundyDomain) +
                            " a Grundy solve holds (up to 12 x 12, 10 x 15 or 6 x 34)");
  impl_ = std::make_unique<Impl>(shape);
  const BoundedRanking& R = impl_->ranking;
  std::vector<std::uint16_t>& vals = impl_->values;
  vals.assign(R.total_positions(), 0);
  const int max_tiles = R.max_tiles();
  const std::size_t words = static_cast<std::size_t>(max_tiles) / 64 + 1;
  for (int n = 2; n <= max_tiles; ++n) {
    const std::uint64_t p = R.positions(n);
    const std::uint64_t base = R.level_offset(n);
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, p, 256), [&](const tbb::blocked_range<std::uint64_t>& br) {
      Rows pos, after;
      std::vector<std::uint64_t> seen(words);
      for (std::uint64_t rank = br.begin(); rank != br.end(); ++rank) {
        R.unrank_into(n, rank, pos);
        std::fill(seen.begin(), seen.end(), 0);
        for (int i = 1; i <= static_cast<int>(pos.size()); ++i)
          for (int j = (i == 1 ? 2 : 1); j <= pos[static_cast<std::size_t>(i) - 1]; ++j) {
            // The move (i, j): rows i.. cut to j - 1.
            after.assign(pos.begin(), pos.begin() + (i - 1));
            if (j > 1)
              for (std::size_t k = static_cast<std::size_t>(i) - 1; k < pos.size(); ++k)
                after.push_back(std::min(pos[k], j - 1));
            const int m = static_cast<int>(tile_count(after));
            const unsigned g = vals[R.level_offset(m) + R.rank(after)];
            seen[g >> 6] |= std::uint64_t{1} << (g & 63);
          }
        std::size_t w = 0;
        while (~seen[w] == 0) ++w;
        vals[base + rank] = static_cast<std::uint16_t>(w * 64 + static_cast<std::size_t>(std::countr_one(seen[w])));
      }
    });
  }
}

BoundedGrundy::~BoundedGrundy() = default;
BoundedGrundy::BoundedGrundy(BoundedGrundy&&) noexcept = default;
BoundedGrundy& BoundedGrundy::operator=(BoundedGrundy&&) noexcept = default;

const Rows& BoundedGrundy::shape() const { return impl_->ranking.shape(); }

int BoundedGrundy::value(std::span<const int> rows) const {
  validate_rows(rows);
  if (rows.empty()) throw InvalidPosition("the empty board has no Grundy value (the poisoned tile is never taken)");
  if (!fits_inside(rows, shape()))
    throw InvalidPosition("position " + rows_to_string(rows) + " is not inside " + rows_to_string(shape()));
  const int n = static_cast<int>(tile_count(rows));
  return impl_->values[impl_->ranking.level_offset(n) + impl_->ranking.rank(rows)];
}

// ---------------------------------------------------------------------------
// Sums

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// "3x4" (or "3X4") as 3 rows of 4, else row lengths.
Rows parse_component(std::string_view text) {
  const std::size_t x = text.find_first_of("xX");
  if (x == std::string_view::npos) return parse_rows(text);
  // "XXX/XX" or rows of 'X' on stdin: a picture drawn with the wrong mark.
  if (text.find_first_of("0123456789") == std::string_view::npos)
    throw InvalidPosition("'" + std::string(text.substr(0, 20)) + (text.size() > 20 ? "...'" : "'") +
                          " has no number: a rectangle is ROWSxCOLS, such as 3x4, and a picture draws each row "
                          "with '#', one row a line, on stdin (printf '###\\n##\\n' | chomp analyze)");
  const std::string_view a = trim(text.substr(0, x)), b = trim(text.substr(x + 1));
  const auto number = [&](std::string_view s) {
    if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw InvalidPosition("a rectangle is ROWSxCOLS with whole numbers, such as 3x4");
    // (Any number of digits: a side of 4 or more digits is past the limit below.)
    return s.size() > 3 ? kMaxPathSteps + 1 : std::stoi(std::string(s));
  };
  const int rows = number(a), cols = number(b);
  if (rows < 1 || cols < 1) throw InvalidPosition("a rectangle needs at least one row and one column");
  if (rows + cols > kMaxPathSteps)
    throw InvalidPosition("a rectangle's rows plus columns are at most " + std::to_string(kMaxPathSteps));
  return Rows(static_cast<std::size_t>(rows), cols);
}

}  // namespace

std::vector<Rows> parse_sum(std::string_view text) {
  if (text.size() > 100000) throw InvalidPosition("the sum is longer than 100000 characters");
  std::vector<Rows> out;
  std::size_t start = 0;
  for (int index = 1;; ++index) {
    const std::size_t plus = text.find('+', start);
    const std::string_view part =
        trim(text.substr(start, plus == std::string_view::npos ? std::string_view::npos : plus - start));
    if (part.empty())
      throw InvalidPosition("board " + std::to_string(index) +
                            " of the sum is empty (boards are separated by '+', e.g. \"3,2 + 4,4,1 + 2\")");
    try {
      out.push_back(parse_component(part));
    } catch (const InvalidPosition& e) {
      if (index == 1 && plus == std::string_view::npos) throw;  // one board: not a sum
      throw InvalidPosition("board " + std::to_string(index) + " of the sum: " + e.what());
    }
    if (plus == std::string_view::npos) break;
    start = plus + 1;
  }
  return out;
}

SumAnalysis analyze_sum(const std::vector<Rows>& components) {
  SumAnalysis a;
  a.components = components;
  std::vector<BoundedGrundy> solved;
  solved.reserve(components.size());
  for (const Rows& c : components) {
    solved.emplace_back(c);
    a.values.push_back(solved.back().value(c));
    a.nim_sum ^= a.values.back();
  }
  if (a.nim_sum == 0) return a;
  for (std::size_t c = 0; c < components.size(); ++c) {
    const int want = a.values[c] ^ a.nim_sum;
    // Every move is looked at: a move to a larger value can win too.
    const Rows& pos = components[c];
    for (int i = 1; i <= static_cast<int>(pos.size()); ++i)
      for (int j = (i == 1 ? 2 : 1); j <= pos[static_cast<std::size_t>(i) - 1]; ++j) {
        Rows after = apply_move(pos, {i, j});
        const int g = solved[c].value(after);
        if (g == want) a.winning_moves.push_back({static_cast<int>(c), {i, j}, std::move(after), g});
      }
  }
  return a;
}

}  // namespace chomp
