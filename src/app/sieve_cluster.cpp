/// @file sieve_cluster.cpp
/// @brief The leader/follower protocol of an MPI `chomp sieve` run.

#include "sieve_cluster.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <exception>
#include <new>
#include <vector>

#include "chomp/sieve.hpp"

namespace chomp::app {

int ClusterRun::guard(const std::function<int()>& body) {
  if (!group()) return body();
  std::string why;
  try {
    const int code = body();
    if (leader() && !started_) cancel();
    return code;
  } catch (const std::bad_alloc&) {
    if (!started_) {
      if (leader()) cancel();
      throw;
    }
    why = "out of memory; try more processes, a smaller --max-tiles, or free memory";
  } catch (const std::exception& e) {
    if (!started_) {
      if (leader()) cancel();
      throw;
    }
    why = std::string("error: ") + e.what();
  } catch (...) {
    if (!started_) {
      if (leader()) cancel();
      throw;
    }
    why = "error: an unexpected failure";
  }
  cluster_.abort(why, 1);
}

namespace {

/// Text as 64-bit words for a broadcast: its length, then its bytes.
std::vector<std::uint64_t> words_of(const std::string& text) {
  std::vector<std::uint64_t> w(1 + (text.size() + 7) / 8, 0);
  w[0] = text.size();
  std::memcpy(w.data() + 1, text.data(), text.size());
  return w;
}

/// Broadcasts text from process 0 (others pass anything).
std::string broadcast_text(ProcessGroup& g, const std::string& text) {
  std::uint64_t size = text.size();
  g.broadcast(std::span<std::uint64_t>(&size, 1), 0);
  std::vector<std::uint64_t> w = g.index() == 0 ? words_of(text) : std::vector<std::uint64_t>(1 + (size + 7) / 8);
  g.broadcast(w, 0);
  return std::string(reinterpret_cast<const char*>(w.data() + 1), static_cast<std::size_t>(size));
}

}  // namespace

void ClusterRun::start(int max_tiles, const SieveOptions& o, const std::string& store_path, const std::string& run_id,
                       std::span<const StoredLevel> levels) {
  if (!group()) return;
  std::uint64_t decision[11] = {1,
                                static_cast<std::uint64_t>(max_tiles),
                                levels.size(),
                                o.memory_budget,
                                o.round_marks,
                                o.window_bits,
                                o.scan_batch,
                                static_cast<std::uint64_t>(o.min_slices),
                                static_cast<std::uint64_t>(o.slice_from),
                                o.transposes ? 1U : 0U,
                                o.direct_call_marks};  // the test seam CHOMP_DIRECT_CALL_MARKS, every process's
  group()->broadcast(decision, 0);
  broadcast_text(*group(), store_path);
  broadcast_text(*group(), run_id);
  std::vector<std::uint64_t> records;
  for (const StoredLevel& l : levels) records.insert(records.end(), {l.trailer, l.count, l.digest});
  group()->broadcast(records, 0);
  started_ = true;
}

void ClusterRun::cancel() {
  std::uint64_t decision[11] = {};  // no run
  group()->broadcast(decision, 0);
}

int ClusterRun::follow(int threads, const std::atomic<bool>* stop) {
  std::uint64_t decision[11] = {};
  group()->broadcast(decision, 0);
  if (decision[0] == 0) return 0;
  started_ = true;
  const int max_tiles = static_cast<int>(decision[1]);
  SieveOptions o;
  o.threads = threads;
  o.memory_budget = decision[3];
  o.round_marks = decision[4];
  o.window_bits = decision[5];
  o.scan_batch = decision[6];
  o.min_slices = static_cast<int>(decision[7]);
  o.slice_from = static_cast<int>(decision[8]);
  o.transposes = decision[9] != 0;
  o.direct_call_marks = decision[10];
  const std::string store_path = broadcast_text(*group(), "");
  const std::string run_id = broadcast_text(*group(), "");
  std::vector<std::uint64_t> records(static_cast<std::size_t>(decision[2]) * 3);
  group()->broadcast(records, 0);
  std::vector<StoredLevel> levels;
  for (std::size_t i = 0; i + 2 < records.size(); i += 3) levels.push_back({records[i], records[i + 1], records[i + 2]});
  const std::unique_ptr<LosingStore> store = LosingStore::open(store_path, run_id, levels, false);
  Sieve sieve(max_tiles, *store, o, group());
  sieve.set_stop_flag(stop);
  sieve.run({});
  return 0;
}

}  // namespace chomp::app
