/// @file sieve_args.hpp
/// @brief `chomp sieve`'s arguments, and what both of its runs (2D,
/// cmd_sieve.cpp; 3D, cmd_sieve3d.cpp) do with them before they start:
/// the checks against each other and the files, the run in --output to
/// resume, and the command that continues a stopped run.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chomp/resume.hpp"
#include "config.hpp"
#include "run_claim.hpp"

namespace chomp::app {

class ClusterRun;  // sieve_cluster.hpp

struct SieveArgs {
  int max_tiles = 90;
  std::string output = "chomp-levels.h5";
  int threads = 0;
  bool force = false;
  bool resume = false;
  bool dry_run = false;
  bool quiet = false;
  int store_losing = 0;
  std::string memory_limit;
  int processes = 0;   // --processes: plan for this many MPI processes (dry runs)
  int slices = 0;      // about this many slices a level (measurements)
  bool file_all_marks = false;  // file them rather than infer them (tail_marks.hpp)
  int inferred_rows = SieveOptions{}.inferred_rows;  // the most top rows whose moves are inferred
  int slice_from = 1;  //   from this level on
  int dimensions = 2;  // 3: cubes (plane partitions)
  double checkpoint_minutes = config::kCheckpointSeconds / 60;  // --checkpoint-every (0: only at a stop)
  // Whether the user gave them: a resumed run otherwise takes the file's.
  const CLI::Option* max_tiles_option = nullptr;
  const CLI::Option* store_losing_option = nullptr;
  // Options the 3D sieve refuses when given.
  std::vector<const CLI::Option*> not_in_3d;
};

/// The command that continues the run in `output`, with every parameter
/// the run was given (--max-tiles and --store-losing, so that it also
/// continues a run killed before its first level was saved; the threads
/// and the memory limit it ran with; --dimensions 3).
std::string resume_command(const SieveArgs& a, const std::string& output, int max_tiles, int store_losing);

/// The command that starts the run of result file `output` over (its
/// store gone): `chomp sieve [--dimensions 3] --max-tiles N [--store-losing
/// K] --output F --force`, N, K and the dimensions read from the file's
/// table (the machine's options, threads and memory, are left out).
std::string start_over_command(const std::string& output, const LevelTable& t, const char* how = "--force");
std::string start_over_command(const std::string& output, std::int64_t max_tiles, int dimensions,
                               std::int64_t store_losing, const char* how = "--force");

/// The same command with --resume in place of --force, and the latest leg's
/// --memory-limit, --threads, --file-all-marks, --inferred-rows, --slices,
/// --slice-from and --checkpoint-every (from resume_history, else
/// command_line): what continues a run whose writer was killed.
std::string resume_command(const std::string& output, const LevelTable& t);

/// Checks the arguments against each other and the file system; nothing is
/// written before this passes.
void check_arguments(const SieveArgs& a, bool output_exists);

/// The run in --output to continue, when --resume finds one (its notes
/// on stderr), or none. A file of the other --dimensions is a usage error.
std::unique_ptr<Resume> open_resume(const SieveArgs& a, bool output_exists);

/// The window's checkpoint beside the store: run.store -> run.window.
std::string checkpoint_path_for(const std::string& store_path);

/// What both sieve drivers do first: a.output becomes the file it names
/// (output_file); a run claims it (not a dry run: of two runs on one
/// output started together, one claims it and the other stops here,
/// before it looks at any file); the arguments are checked against
/// whether it exists; and the output, its partial file and its store are
/// refused while another run holds them. An output named like a run's side
/// file (.store, .window, .partial, .lock, .tmp), or whose window's
/// checkpoint would be a result file, is refused: one run would remove or
/// overwrite the other's result. The claim lasts as long as this.
class ClaimedOutput {
 public:
  explicit ClaimedOutput(SieveArgs& a);
  bool exists() const { return exists_; }
  const std::string& store_path() const { return store_path_; }

 private:
  std::optional<RunClaim> claim_, store_claim_;
  bool exists_ = false;
  std::string store_path_;
};

/// `chomp sieve --dimensions 3` (cmd_sieve3d.cpp).
int lead_sieve3d(const SieveArgs& a, ClusterRun& cluster);

}  // namespace chomp::app
