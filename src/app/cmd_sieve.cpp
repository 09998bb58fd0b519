/// @file cmd_sieve.cpp
/// @brief `chomp sieve`: the level-by-level table of losing positions.

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "chomp/h5_output.hpp"
#include "chomp/sieve.hpp"
#include "commands.hpp"

namespace chomp::app {
namespace {

struct SieveArgs {
  int max_tiles = 90;
  std::string output = "chomp-levels.h5";
  int threads = 0;
  bool force = false;
  bool dry_run = false;
  bool quiet = false;
  int store_losing = 0;
};

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", b, units[u]);
  return buf;
}

/// MemAvailable from /proc/meminfo, in bytes; 0 if unknown.
std::uint64_t available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

/// Progress on stderr: a line rewritten in place on a terminal, an
/// occasional plain line in a log.
class ProgressLine {
 public:
  ProgressLine() : tty_(isatty(STDERR_FILENO) == 1) {}
  void update(int tiles, double fraction) {
    if (!tty_) {
      // Logs get a line at most every 30 s (the sieve calls every ~0.5 s).
      if (++calls_ % 60 != 0) return;
      std::fprintf(stderr, "level %d: %.0f%%\n", tiles, 100 * fraction);
      return;
    }
    std::fprintf(stderr, "\rlevel %d: %3.0f%% ", tiles, 100 * fraction);
    std::fflush(stderr);
    shown_ = true;
  }
  void clear() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
    shown_ = false;
  }

 private:
  bool tty_;
  bool shown_ = false;
  long calls_ = 0;
};

int run_sieve(const SieveArgs& a) {
  const MemoryPlan plan = plan_memory(a.max_tiles);
  const std::uint64_t avail = available_memory();
  std::cerr << "plan: max level p(" << a.max_tiles << ") bitmap " << human_bytes(plan.bitmap_bytes)
            << ", losing store ~" << human_bytes(plan.store_bytes) << ", mark buckets ~"
            << human_bytes(plan.bucket_bytes) << "; total ~" << human_bytes(plan.total());
  if (avail) std::cerr << " of " << human_bytes(avail) << " available";
  std::cerr << '\n';
  if (a.dry_run) return 0;
  if (a.store_losing > a.max_tiles)
    throw UsageError("--store-losing " + std::to_string(a.store_losing) + " exceeds --max-tiles " +
                     std::to_string(a.max_tiles));
  if (avail && plan.total() > avail)
    throw UsageError("--max-tiles " + std::to_string(a.max_tiles) + " needs about " +
                     human_bytes(plan.total()) + " but only " + human_bytes(avail) +
                     " is available; choose a smaller --max-tiles");

  if (std::filesystem::exists(a.output) && !a.force)
    throw UsageError("output file " + a.output +
                     " already exists; pass --force to overwrite it or choose another --output");

  const int threads = a.threads > 0 ? a.threads : tbb::info::default_concurrency();
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));

  Provenance prov;
  prov.command_line = command_line();
  prov.max_tiles = a.max_tiles;
  prov.threads = threads;
  prov.store_losing = a.store_losing;
  prov.start_utc = utc_now();
  LevelFileWriter out(a.output, prov);

  Sieve sieve(a.max_tiles);
  ProgressLine progress;
  if (!a.quiet)
    std::printf("%6s %16s %14s %10s %10s %10s\n", "tiles", "positions", "losing", "%losing",
                "ratio", "seconds");
  double total = 0;
  try {
    sieve.run(
        [&](const LevelResult& r) {
          progress.clear();
          out.append(r);
          if (r.tiles <= a.store_losing) {
            std::vector<std::uint64_t> words;
            for (const Rows& rows : sieve.losing_positions(r.tiles))
              words.push_back(LatticePath::from_rows(rows).word());
            out.write_losing_positions(r.tiles, words);
          }
          total += r.seconds;
          if (!a.quiet) {
            std::printf("%6d %16llu %14llu %10.4f %10.6f %10.3f\n", r.tiles,
                        static_cast<unsigned long long>(r.positions),
                        static_cast<unsigned long long>(r.losing), 100 * r.losing_fraction(),
                        r.hypothesis_ratio(), r.seconds);
            std::fflush(stdout);
          }
        },
        [&](int tiles, double fraction) { progress.update(tiles, fraction); });
  } catch (...) {
    progress.clear();
    try {
      out.finish("failed");
    } catch (...) {
    }
    throw;
  }
  out.finish("complete");
  std::cerr << "wrote " << a.output << " (levels 1.." << a.max_tiles << ", " << threads
            << " threads, " << std::fixed << std::setprecision(2) << total << " s)\n";
  return 0;
}

const RegisterCommand reg(10, "sieve", "Classify every position up to --max-tiles tiles; write the per-level table to HDF5",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<SieveArgs>();
  sub.add_option("-n,--max-tiles", a->max_tiles, "Largest tile count (level) to classify")
      ->check(CLI::Range(1, kMaxTiles))
      ->capture_default_str();
  sub.add_option("-o,--output", a->output, "HDF5 file for the per-level table")->capture_default_str();
  sub.add_option("-t,--threads", a->threads, "Worker threads (default: all cores)")
      ->check(CLI::Range(1, 4096));
  sub.add_flag("-f,--force", a->force, "Overwrite the output file if it exists");
  sub.add_option("--store-losing", a->store_losing,
                 "Also store the losing positions of levels 1..K in the file (K <= 63)")
      ->check(CLI::Range(0, 63));
  sub.add_flag("--dry-run", a->dry_run, "Print the memory plan and exit");
  sub.add_flag("-q,--quiet", a->quiet, "Do not print the per-level table");
  return [a] { return run_sieve(*a); };
});

}  // namespace
}  // namespace chomp::app
