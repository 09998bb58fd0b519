/// @file sieve_cluster.cpp
/// @brief The leader/follower protocol of an MPI `chomp sieve` run.

#include "sieve_cluster.hpp"

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <cstdint>
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

void ClusterRun::start(int max_tiles, int restored) {
  if (!group()) return;
  std::uint64_t decision[3] = {1, static_cast<std::uint64_t>(max_tiles), static_cast<std::uint64_t>(restored)};
  group()->broadcast(decision, 0);
  started_ = true;
}

void ClusterRun::cancel() {
  std::uint64_t decision[3] = {0, 0, 0};  // no run
  group()->broadcast(decision, 0);
}

int ClusterRun::follow(int threads, const std::atomic<bool>* stop) {
  std::uint64_t decision[3] = {0, 0, 0};
  group()->broadcast(decision, 0);
  if (decision[0] == 0) return 0;
  started_ = true;
  const int max_tiles = static_cast<int>(decision[1]), restored = static_cast<int>(decision[2]);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads > 0 ? threads : tbb::info::default_concurrency()));
  Sieve sieve(max_tiles, group());
  sieve.set_stop_flag(stop);
  // In step with the leader's Resume::restore: the levels below the last
  // trusted one are re-installed from the leader's ranks, the last trusted
  // one is computed again (and checked by the leader).
  for (int n = 1; n < restored; ++n) sieve.restore_level(n, {}, 0);
  if (restored > 0) sieve.next_level();
  sieve.run({});
  return 0;
}

void ClusterRun::record(const std::string& output) const { record_mpi_ranks(output, processes()); }

}  // namespace chomp::app
