/// @file sieve.cpp
/// @brief The level loop: windows of whole levels while they fit the
/// budget, a level in slices when it does not; the marks of each window,
/// its transposes and its scan into the store.

#include "chomp/sieve.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "chomp/process_group.hpp"
#include "config.hpp"
#include "sieve_impl.hpp"

namespace chomp {

double hypothesis_ratio(std::uint64_t positions, std::uint64_t losing) {
  const double lp = std::log(static_cast<double>(positions));
  if (lp == 0.0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(losing) / (static_cast<double>(positions) / lp);
}

double LevelResult::losing_fraction() const {
  return positions ? static_cast<double>(losing) / static_cast<double>(positions) : 0.0;
}

double LevelResult::hypothesis_ratio() const { return chomp::hypothesis_ratio(positions, losing); }

namespace {

/// The options a library caller may give: a negative thread count or more
/// inferred rows than two were taken silently (as every core, and as two).
const SieveOptions& checked_options(const SieveOptions& o) {
  if (o.threads < 0)
    throw std::invalid_argument("SieveOptions::threads is " + std::to_string(o.threads) + ": give 0 (every core) or more");
  if (o.inferred_rows < 0 || o.inferred_rows > 2)
    throw std::invalid_argument("SieveOptions::inferred_rows is " + std::to_string(o.inferred_rows) +
                                ": give 0, 1 or 2 (the first rows whose moves are inferred)");
  return o;
}

}  // namespace

Sieve::Impl::Impl(int max_tiles, LosingStore& s, const SieveOptions& o, ProcessGroup* g)
    : table(max_tiles), store(s), options(checked_options(o)), max(max_tiles),
      states([this] {
        return detail::ThreadState(table, options.transposes, tails ? tails->rows() : 0, tuning.pool_page_blocks);
      }) {
  if (g && g->size() > 1) group = g, procs = g->size(), me = g->index();
  tuning = detail::tuning_for(max, options, procs);
  memory_plan = plan_run(max, options, procs);
  arena.initialize(tuning.threads);
  done = store.levels();
  if (done > max)
    throw std::invalid_argument("the store holds " + std::to_string(done) + " levels, more than the run's " +
                                std::to_string(max));
  if (tuning.tail_bytes > 0) {
    tails = std::make_unique<detail::TailMarks>(table, max, options.transposes, tuning.tail_rows);
    for (int n = 1; n <= done; ++n) take_tails_of(n);
  }
  read_checkpoint();
}

void Sieve::Impl::add_tail_marks(int n) {
  if (!tails) return;
  const detail::PhaseTimer timer(phases.tails);
  const WindowLevel& w = window_level(n);
  arena.execute([&] { tails->or_into(n, w.a_lo, w.a_hi, bitmap(), w.offset()); });
}

void Sieve::Impl::take_tails_of(int n) {
  if (!tails) return;
  const detail::PhaseTimer timer(phases.tails);
  // Block by block (the level whole would be 8 bytes a losing rank of
  // fresh pages).
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, store.blocks(n).size(), 1),
                      [&](const tbb::blocked_range<std::size_t>& r) {
      std::vector<std::uint64_t> block;
      std::vector<std::uint8_t> bytes;
      for (std::size_t b = r.begin(); b != r.end(); ++b) {
        store.read_block(n, b, block, bytes);
        // Low levels, a block or two, make most of the rays (their sources
        // reach far): their ranks are shared out in small parts, of 256
        // (consecutive ranks share runs, and a thread's decoder of ray
        // sources seeks from one to the next and shifts the rays of a
        // shared top corner: a part split between threads loses that), and
        // down to single ranks in a level of one block (levels up to 49).
        // With parts of 256, each of levels 1..31 (under 256 losing
        // positions) was one task and levels 32..49 two to sixteen: at
        // N = 110 on one thread, levels 1..34 took 0.9 s of the 5.1 s that
        // adding levels took, most of it out of reach of more threads
        // (doc/PERFORMANCE.md, *Thread scaling*).
        const std::span<const std::uint64_t> ranks = block;
        const std::size_t grain = store.blocks(n).size() == 1 ? 1 : 256;
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, ranks.size(), grain),
                          [&](const tbb::blocked_range<std::size_t>& part) {
          tails->add_ranks(n, ranks.subspan(part.begin(), part.size()));
        });
      }
    });
    tails->settle();
  });
}

SieveInterrupted Sieve::Impl::interrupted(int n) const {
  return SieveInterrupted("level " + std::to_string(n) + " was interrupted; levels 1.." + std::to_string(done) +
                          " are complete");
}

LevelResult Sieve::Impl::next_level(const ProgressFn& progress) {
  if (done >= max) throw std::logic_error("sieve already reached its last level");
  const auto start = detail::Clock::now();
  const int n = done + 1;
  // A checkpoint of a state before level `done` (which is in the result
  // file now that the caller asks for the next one) is of no use.
  if (checkpoint_stale && !checkpoint) {
    remove_checkpoint();
    checkpoint_stale = false;
  }
  LevelResult res;
  res.tiles = n;
  res.positions = table.positions(n);
  double window_seconds = 0;
  double saved_seconds = 0;  // of window_seconds, what a checkpoint's earlier run spent
  try {
    // The losing positions of level n - 1 mark the rest of the window
    // first (mark_pending).
    if (mark_pending) {
      mark_pending = false;
      if (mark(n - 1, n - 1, n, progress)) throw interrupted(n);
    }
    bool restored = false;
    if (checkpoint && !checkpoint->sliced && window.empty() && restore_checkpoint_window()) {
      restored = checkpoint_items_match();
      if (!restored) {
        close_window();
        drop_checkpoint("its work items are not the ones this program makes");
      }
    }
    if (restored) {
      // A window saved when a run stopped: its pass goes on from there
      // (checkpoint.cpp), then the level is finished as below. The file
      // stays until level n is in the result file.
      const auto opened = detail::Clock::now();
      const detail::PassProgress& pass = checkpoint->pass;
      if (mark(pass.from, pass.to, pass.lo, progress, &pass)) throw interrupted(n);
      saved_seconds = pass.seconds;
      window_seconds = pass.seconds + std::chrono::duration<double>(detail::Clock::now() - opened).count();
      checkpoint.reset();
      checkpoint_stale = true;
    } else if (window.empty() || n > window.back().n) {
      // Whole levels n..n1, or level n in slices (the plan foresees the
      // same windows by the same rule).
      detail::NextWindow next = detail::next_window(table, n, max, tuning.window_bits, procs, options);
      const int n1 = next.last;
      if (!next.slices.empty()) {
        const std::vector<detail::Slice> slices = std::move(next.slices);
        // A checkpoint of this level's slices continues only if they are
        // the same slices (the same budget).
        bool resume = false;
        if (checkpoint && checkpoint->sliced) {
          const auto& saved = checkpoint->slices;
          const bool same = saved.size() == slices.size() &&
                            std::equal(saved.begin(), saved.end(), slices.begin(), [](const auto& a, const auto& b) {
                              return a.lo == b.lo && a.hi == b.hi;
                            });
          if (same)
            resume = true;
          else
            drop_checkpoint("this run cuts level " + std::to_string(n) + " into other slices");
        }
        // (res.seconds comes back as the level's time in earlier runs.)
        res = finish_level(n, slices, progress, window_seconds, resume);
        done = n;
        take_tails_of(n);
        res.seconds += std::chrono::duration<double>(detail::Clock::now() - start).count();
        if (checkpoint_saved_this_level) checkpoint_stale = true;
        checkpoint_saved_this_level = false;
        return res;
      }
      // A window of whole levels n..n1, marked from every level below.
      if (checkpoint) drop_checkpoint("this run holds level " + std::to_string(n) + " whole, not in slices");
      const auto opened = detail::Clock::now();
      std::vector<WindowLevel> parts;
      for (int k = n; k <= n1; ++k) {
        WindowLevel w;
        w.n = k;
        w.set_slice(table, 1, k);
        parts.push_back(w);
      }
      open_window(parts);
      if (mark(1, n - 1, n, progress)) throw interrupted(n);
      window_seconds = std::chrono::duration<double>(detail::Clock::now() - opened).count();
    }
    if (!distributed() && stop_requested()) throw interrupted(n);
    if (me == 0) store.begin_level(n);
    add_tail_marks(n);
    if (options.transposes) add_transposes(n);
    res.losing = scan_into_store(n);
    res.marks = window_level(n).marks;
    if (distributed()) {
      std::uint64_t m = res.marks;
      group->sum(std::span<std::uint64_t>(&m, 1));
      res.marks = m;
    }
    res.stored = finish_store_level(n);
  } catch (...) {
    close_window();  // partly marked bitmaps must not be reused
    if (me == 0) store.abandon_level();
    throw;
  }
  done = n;
  // (Level n is final: its losing positions' tails and rays, before any
  // level above it is scanned.)
  take_tails_of(n);
  if (checkpoint_saved_this_level) checkpoint_stale = true;
  checkpoint_saved_this_level = false;
  // The new losing positions mark the rest of the window when the next
  // level starts: level n is final now, and the caller's write of it
  // overlaps that long pass rather than the short ones that begin a level.
  mark_pending = n < window.back().n;
  res.window_seconds = window_seconds;
  // This process's time on the level, less its share of the window's pass
  // (window_seconds holds the time of an earlier run, too, when the pass
  // was continued from a checkpoint: this process did not spend that).
  res.seconds = std::chrono::duration<double>(detail::Clock::now() - start).count() - (window_seconds - saved_seconds);
  return res;
}

/// A level too large for the window, in slices: each slice (highest first
/// rows first) is marked by the sources that reach it, gets the transposes
/// of the losing positions of the slices above and of its own, and is
/// scanned into the store as a run of its own.
LevelResult Sieve::Impl::finish_level(int n, const std::vector<detail::Slice>& slices, const ProgressFn& progress,
                                      double& window_seconds, bool resume) {
  const auto begun = detail::Clock::now();
  double saved = 0;  // the level's time in earlier runs (a checkpoint's)
  LevelResult res;
  res.tiles = n;
  res.positions = table.positions(n);
  res.slices = static_cast<int>(slices.size());
  window_seconds = 0;
  try {
    if (me == 0) store.begin_level(n);
    std::uint64_t done_positions = 0;
    std::size_t first = 0;
    const detail::PassProgress* pass = nullptr;
    // A checkpoint inside slice k: the slices before it go back into the
    // store, and slice k's pass goes on from where it was saved.
    if (resume && adopt_checkpoint_slices()) {
      first = checkpoint->slice;
      res.marks = checkpoint->level_marks;
      res.losing = checkpoint->pending.count;
      for (std::size_t i = 0; i < first; ++i)
        done_positions += table.count(n, slices[i].hi) - table.count(n, slices[i].lo - 1);
      pass = &checkpoint->pass;
      // The level's time before the stop: the slices before the saved one
      // and the saved pass's part (a version 2 checkpoint saved the pass's
      // part alone).
      saved = pass->seconds;
    }
    slicing = detail::Slicing{slices, first, res.marks};
    for (std::size_t k = first; k < slices.size(); ++k) {
      const detail::Slice& s = slices[k];
      slicing->index = k;
      slicing->marks = res.marks;
      WindowLevel w;
      w.n = n;
      w.set_slice(table, s.lo, s.hi);
      if (pass && restore_checkpoint_window() && !checkpoint_items_match())
        drop_checkpoint("its work items are not the ones this program makes");
      if (!(pass && checkpoint)) {
        // No checkpoint, or its bitmap or items did not check: the slices
        // before it stay adopted, and this one is marked from the start.
        pass = nullptr;
        open_window({w});
      }
      // The level's fraction done: the slices before this one, and this
      // one's part.
      const double before = static_cast<double>(done_positions), share = static_cast<double>(w.hi - w.lo);
      const double all = static_cast<double>(res.positions);
      const ProgressFn in_slice = [&](int tiles, double f) {
        if (progress) progress(tiles, (before + f * share) / all);
      };
      // The level's time before this slice's pass (this run's restoring
      // of a checkpoint included), which a checkpoint of the pass saves.
      slicing->seconds = saved + std::chrono::duration<double>(detail::Clock::now() - begun).count();
      if (mark(1, n - 1, n, in_slice, pass)) throw interrupted(n);
      if (pass) {
        pass = nullptr;
        checkpoint.reset();
        checkpoint_stale = true;  // until the level is in the result file
      }
      if (!distributed() && stop_requested()) throw interrupted(n);
      add_tail_marks(n);
      if (options.transposes) {
        add_transposes_from_store(n);
        add_transposes(n);
      }
      res.losing += scan_into_store(n);
      res.marks += window_level(n).marks;
      share_pending_blocks(n);
      done_positions += w.hi - w.lo;
    }
    if (distributed()) {
      std::uint64_t m = res.marks;
      group->sum(std::span<std::uint64_t>(&m, 1));
      res.marks = m;
    }
    slicing.reset();
    res.stored = finish_store_level(n);
    res.seconds = saved;  // the caller adds this run's
  } catch (...) {
    slicing.reset();
    close_window();
    if (me == 0) store.abandon_level();
    throw;
  }
  close_window();
  return res;
}

/// Process 0 ends the level in the store; the others read its trailer.
StoredLevel Sieve::Impl::finish_store_level(int n) {
  StoredLevel rec;
  if (me == 0) rec = store.finish_level();
  if (!distributed()) return rec;
  std::uint64_t v[3] = {rec.trailer, rec.count, rec.digest};
  group->broadcast(v, 0);
  rec = StoredLevel{v[0], v[1], v[2]};
  if (me != 0) store.adopt_level(rec);
  (void)n;
  return rec;
}

/// Distributed: after a slice, process 0's blocks of the level so far go
/// to the others, which read them for the transposes of the slices below.
void Sieve::Impl::share_pending_blocks(int n) {
  if (!distributed()) return;
  std::vector<std::uint64_t> v;
  std::uint64_t count = me == 0 ? store.blocks(n).size() : 0;
  group->broadcast(std::span<std::uint64_t>(&count, 1), 0);
  v.resize(static_cast<std::size_t>(count) * 5);
  if (me == 0) {
    const auto blocks = store.blocks(n);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      v[5 * b] = blocks[b].first_rank;
      v[5 * b + 1] = blocks[b].last_rank;
      v[5 * b + 2] = blocks[b].offset;
      v[5 * b + 3] = static_cast<std::uint64_t>(blocks[b].count) << 32 | blocks[b].bytes;
      v[5 * b + 4] = blocks[b].crc;
    }
  }
  group->broadcast(v, 0);
  if (me == 0) return;
  std::vector<StoreBlock> blocks(static_cast<std::size_t>(count));
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    blocks[b].first_rank = v[5 * b];
    blocks[b].last_rank = v[5 * b + 1];
    blocks[b].offset = v[5 * b + 2];
    blocks[b].count = static_cast<std::uint32_t>(v[5 * b + 3] >> 32);
    blocks[b].bytes = static_cast<std::uint32_t>(v[5 * b + 3]);
    blocks[b].crc = static_cast<std::uint32_t>(v[5 * b + 4]);
  }
  store.adopt_pending(n, blocks);
}

Sieve::Sieve(int max_tiles, const SieveOptions& options)
    : own_store_(LosingStore::temporary()),
      impl_(std::make_unique<Impl>(max_tiles, *own_store_, options, nullptr)) {}

Sieve::Sieve(int max_tiles, LosingStore& store, const SieveOptions& options, ProcessGroup* group)
    : impl_(std::make_unique<Impl>(max_tiles, store, options, group)) {}

Sieve::~Sieve() = default;

int Sieve::max_tiles() const { return impl_->max; }
int Sieve::levels_done() const { return impl_->done; }

std::pair<int, int> Sieve::window_levels() const {
  const auto first = impl_->window_first.load(std::memory_order_relaxed);
  const auto last = impl_->window_last.load(std::memory_order_relaxed);
  return first ? std::pair<int, int>{first, last} : std::pair<int, int>{impl_->done + 1, impl_->done};
}
std::uint64_t Sieve::marks_applied() const { return impl_->marks_applied.load(std::memory_order_relaxed); }
const MemoryPlan& Sieve::plan() const { return impl_->memory_plan; }
const PartitionTable& Sieve::table() const { return impl_->table; }
const LosingStore& Sieve::losing() const { return impl_->store; }
PhaseTimes Sieve::phase_times() const { return impl_->phases; }

LevelResult Sieve::next_level(const ProgressFn& progress) {
  return impl_->arena.execute([&] { return impl_->next_level(progress); });
}

void Sieve::set_stop_flag(const std::atomic<bool>* flag) { impl_->stop = flag; }
bool Sieve::stop_requested() const { return !impl_->distributed() && impl_->stop_requested(); }

void Sieve::run(const std::function<void(const LevelResult&)>& on_level, const ProgressFn& progress) {
  while (levels_done() < max_tiles()) {
    const LevelResult r = next_level(progress);
    if (on_level) on_level(r);
  }
  // Every level is written: a checkpoint left from a periodic save is stale.
  if (impl_->checkpoint_stale) impl_->remove_checkpoint();
  impl_->checkpoint_stale = false;
}

std::vector<Rows> Sieve::losing_positions(int n) const {
  if (n < 1 || n > levels_done()) throw std::invalid_argument("level " + std::to_string(n) + " is not finished");
  std::vector<Rows> out;
  for (std::uint64_t r : impl_->store.all(n)) out.push_back(impl_->table.unrank(n, r));
  return out;
}

bool Sieve::is_losing(std::span<const int> rows) const {
  const std::uint64_t n = tile_count(rows);
  if (n < 1 || n > static_cast<std::uint64_t>(levels_done()))
    throw std::invalid_argument("position has " + std::to_string(n) + " tiles; the sieve has finished levels 1.." +
                                std::to_string(levels_done()));
  return impl_->store.contains(static_cast<int>(n), impl_->table.rank(rows));
}

}  // namespace chomp
