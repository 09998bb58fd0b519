/// @file cmd_grundy.cpp
/// @brief `chomp grundy`: the Sprague–Grundy value of every position of every
/// level up to --max-tiles, counted per level and written to HDF5.

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "chomp/grundy.hpp"
#include "chomp/grundy_file.hpp"
#include "chomp/h5_output.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"

namespace chomp::app {
namespace {

struct GrundyArgs {
  int max_tiles = 0;
  std::string output;
  std::string check_sieve;
  std::string memory_limit;
  bool force = false;
  bool dry_run = false;
  bool quiet = false;
  int threads = 0;
};

/// The sieve's L(n) for levels 1..N of a sieve result file, read before the
/// run so that a wrong file is refused before minutes of work.
std::vector<std::uint64_t> sieve_losing(const std::string& path, int max_tiles) {
  LevelTable t;
  try {
    t = read_level_file(path);
  } catch (const H5Error& e) {
    throw UsageError(std::string("--check-sieve: ") + e.what());
  }
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < t.tiles.size() && static_cast<int>(t.tiles[i]) <= max_tiles; ++i) {
    if (t.tiles[i] != i + 1) throw UsageError("--check-sieve: " + path + " does not list its levels 1, 2, 3, ...");
    out.push_back(t.losing[i]);
  }
  if (out.empty()) throw UsageError("--check-sieve: " + path + " holds no level");
  return out;
}

int run_grundy(const GrundyArgs& a) {
  const std::uint64_t bytes = grundy_table_bytes(a.max_tiles);
  std::uint64_t budget = 0;
  std::string budget_source;
  if (!a.memory_limit.empty()) {
    std::string why;
    budget = *parse_byte_size(a.memory_limit, why);
    budget_source = "--memory-limit";
  } else {
    const auto [avail, source] = available_memory();
    budget = avail / 10 * 9;
    budget_source = "nine tenths of the memory " + source;
  }
  const std::string plan = "levels 1.." + std::to_string(a.max_tiles) + " take " +
                           human_bytes(static_cast<double>(bytes)) + " (one byte per position, " +
                           std::to_string(bytes) + " positions)";
  if (a.dry_run) {
    std::printf("%s; budget %s (%s): %s\n", plan.c_str(), human_bytes(static_cast<double>(budget)).c_str(),
                budget_source.c_str(), budget == 0 || bytes <= budget ? "fits" : "does not fit");
    return budget == 0 || bytes <= budget ? 0 : 1;
  }
  if (a.output.empty()) throw UsageError("--output FILE is required (or --dry-run)");
  if (std::filesystem::exists(a.output) && !a.force)
    throw UsageError("output file " + a.output + " already exists; pass --force to overwrite it");
  {
    const std::filesystem::path parent = std::filesystem::path(a.output).parent_path();
    if (!parent.empty() && !std::filesystem::is_directory(parent))
      throw UsageError("the folder of --output " + a.output + " does not exist");
  }
  if (budget > 0 && bytes > budget)
    throw UsageError(plan + ", more than the budget of " + human_bytes(static_cast<double>(budget)) + " (" +
                     budget_source + "); choose a smaller --max-tiles or a larger --memory-limit");
  const std::vector<std::uint64_t> losing = a.check_sieve.empty() ? std::vector<std::uint64_t>{}
                                                                     : sieve_losing(a.check_sieve, a.max_tiles);

  const int threads = a.threads > 0 ? a.threads : tbb::info::default_concurrency();
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  GrundyProvenance prov{command_line(), threads, utc_now(), a.check_sieve};
  const auto t0 = std::chrono::steady_clock::now();
  if (!a.quiet)
    std::printf("%6s %16s %14s %14s %14s %8s %10s\n", "tiles", "positions", "G=0 (losing)", "G=1", "G=2", "largest",
                "seconds");
  std::fflush(stdout);
  int mismatches = 0;
  const GrundyTable table(a.max_tiles, [&](const GrundyLevel& l) {
    const auto at = [&](std::size_t g) { return g < l.counts.size() ? l.counts[g] : 0; };
    if (!a.quiet) {
      std::printf("%6d %16llu %14llu %14llu %14llu %8d %10.3f\n", l.tiles, static_cast<unsigned long long>(l.positions),
                  static_cast<unsigned long long>(at(0)), static_cast<unsigned long long>(at(1)),
                  static_cast<unsigned long long>(at(2)), l.largest, l.seconds);
      std::fflush(stdout);
    }
    const std::size_t i = static_cast<std::size_t>(l.tiles) - 1;
    if (i < losing.size() && losing[i] != l.zeros()) {
      std::fprintf(stderr, "chomp: level %d: %llu positions of value 0, but %s has L(%d) = %llu\n", l.tiles,
                   static_cast<unsigned long long>(l.zeros()), a.check_sieve.c_str(), l.tiles,
                   static_cast<unsigned long long>(losing[i]));
      ++mismatches;
    }
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (mismatches > 0) {
    std::fprintf(stderr, "chomp: error: %d levels disagree with %s; no file written\n", mismatches,
                 a.check_sieve.c_str());
    return 1;
  }
  write_grundy_file(a.output, a.max_tiles, table.levels(), prov);
  std::fprintf(stderr, "wrote %s (levels 1..%d, %d threads, %.2f s, %s of values)\n", a.output.c_str(), a.max_tiles,
               threads, seconds, human_bytes(static_cast<double>(bytes)).c_str());
  if (!losing.empty())
    std::fprintf(stderr, "value 0 counts equal L(n) of %s for levels 1..%zu\n", a.check_sieve.c_str(),
                 std::min(losing.size(), static_cast<std::size_t>(a.max_tiles)));
  return 0;
}

const RegisterCommand reg(12, "grundy",
                          "Sprague-Grundy value of every position up to --max-tiles tiles; per-level counts to HDF5",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<GrundyArgs>();
  sub.add_option("-n,--max-tiles", a->max_tiles, "Largest tile count (level)")
      ->required()
      ->check(whole_number(1, kMaxTiles, " (positions of up to 255 tiles fit the ranking)"));
  sub.add_option("-o,--output", a->output, "HDF5 file for the per-level counts of each value")
      ->check(output_file_name());
  sub.add_flag("-f,--force", a->force, "Overwrite the output file if it exists");
  sub.add_option("--check-sieve", a->check_sieve,
                 "A `chomp sieve` result file: the run fails (exit 1, no file written) unless every level's "
                 "count of value 0 equals that file's L(n)");
  sub.add_option("--memory-limit", a->memory_limit,
                 "Memory the values may take (e.g. 512M, 4G; powers of 1024); a run that needs more is refused "
                 "(default: nine tenths of the available memory)")
      ->check(byte_size());
  sub.add_flag("--dry-run", a->dry_run, "Print the memory the run takes and whether it fits, and exit");
  sub.add_option("-t,--threads", a->threads, "Worker threads (default: all cores)")->check(whole_number(1, 4096));
  sub.add_flag("-q,--quiet", a->quiet, "Do not print the per-level table");
  sub.footer(
      "Convention: a board in a sum never has its poisoned tile taken, so the single\n"
      "poisoned tile has value 0 and G = mex over the moves other than taking (1,1);\n"
      "G = 0 exactly for the losing positions (the G=0 column is the sieve's L(n)).\n"
      "Method: level by level, each value the mex of the values its n - 1 moves leave,\n"
      "found by rank in the levels below, which are all held in memory, one byte per\n"
      "position: sum of p(k) for k <= N (N = 80: 0.11 GiB, 100: 1.5 GiB). That memory,\n"
      "and the time (N - 1 moves a position, half the positions solved: G is the same\n"
      "for a position and its transpose), bound a run: N = 80 takes 110 CPU-seconds\n"
      "(a minute on two idle cores) and 0.13 GiB; N = 100 about 1.5 GiB.\n"
      "The file is written when the run ends (NAME.tmp, then renamed); a stopped run\n"
      "leaves no file and is resumed by running it again, which recomputes it.\n"
      "Examples:\n"
      "  chomp grundy --max-tiles 80 --output grundy-80.h5\n"
      "  chomp sieve -n 60 -o levels-60.h5 && chomp grundy -n 60 -o grundy-60.h5 --check-sieve levels-60.h5\n");
  return [a] { return run_grundy(*a); };
});

}  // namespace
}  // namespace chomp::app
