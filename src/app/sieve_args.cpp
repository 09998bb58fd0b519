/// @file sieve_args.cpp
/// @brief What `chomp sieve` checks of its arguments before a run, the run
/// it resumes, and the command that continues a stopped run
/// (sieve_args.hpp).

#include "sieve_args.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>
#include <vector>
#include <system_error>

#include "cli_checks.hpp"
#include "commands.hpp"
#include "run_guards.hpp"
#include <sstream>

#include "chomp/losing_store.hpp"

namespace chomp::app {

std::string start_over_command(const std::string& output, const LevelTable& t, const char* how) {
  const auto number = [&](const char* key) {
    const auto it = t.number_attributes.find(key);
    return it == t.number_attributes.end() ? std::int64_t{0} : it->second;
  };
  const std::int64_t max_tiles = number("max_tiles") > 0 ? number("max_tiles") : static_cast<std::int64_t>(t.tiles.size());
  return start_over_command(output, max_tiles, number("dimensions") == 3 ? 3 : 2, number("store_losing"), how);
}

std::string start_over_command(const std::string& output, std::int64_t max_tiles, int dimensions,
                               std::int64_t store_losing, const char* how) {
  return shell_quote(program_path()) + " sieve" + (dimensions == 3 ? " --dimensions 3" : "") + " --max-tiles " +
         std::to_string(max_tiles) + (store_losing > 0 ? " --store-losing " + std::to_string(store_losing) : "") +
         " --output " + shell_quote(output) + " " + how;
}

std::string resume_command(const std::string& output, const LevelTable& t) {
  // The latest leg's command (the last line of resume_history, after "): ",
  // else command_line): its options that shape the run go on, so that a
  // run given --memory-limit does not resume under the default budget.
  const auto text = [&](const char* key) {
    const auto it = t.text_attributes.find(key);
    return it == t.text_attributes.end() ? std::string() : it->second;
  };
  std::string latest = text("command_line");
  if (std::string history = text("resume_history"); !history.empty()) {
    while (!history.empty() && history.back() == '\n') history.pop_back();
    const auto line = history.rfind('\n');
    const std::string last = history.substr(line == std::string::npos ? 0 : line + 1);
    // "...: restored levels 1..k with T threads (chomp V, revision R): CMD";
    // before 2026-12-02 "... with T threads: CMD". A line of neither form
    // (a command with a newline in it): no options, rather than the first
    // leg's.
    latest.clear();
    for (const char* end : {"): ", " threads: ", " thread: "})
      if (const auto at = last.find(end); at != std::string::npos) {
        latest = last.substr(at + std::string(end).size());
        break;
      }
  }
  std::vector<std::string> words;
  for (std::istringstream in(latest); in;) {
    std::string w;
    if (in >> w) words.push_back(w);
  }
  const auto plain = [](const std::string& v) {
    return !v.empty() && v.find_first_not_of("0123456789.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") ==
                             std::string::npos;
  };
  std::string options;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string name = words[i], value;
    if (const auto eq = name.find('='); eq != std::string::npos && name.starts_with("--"))
      value = name.substr(eq + 1), name = name.substr(0, eq);
    if (name == "--file-all-marks") {
      options += " --file-all-marks";
      continue;
    }
    // Short options, alone or grouped, with the value joined or next:
    // -t 2, -t2, -qt 2, -qt2.
    if (name.size() >= 2 && name[0] == '-' && name[1] != '-') {
      const auto at = name.find('t');  // -t among the flags before it
      if (at == std::string::npos || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz", 1) < at) continue;
      value = name.substr(at + 1);
      name = "--threads";
    }
    if (name != "--memory-limit" && name != "--threads" && name != "--inferred-rows" && name != "--slices" &&
        name != "--slice-from" && name != "--checkpoint-every")
      continue;
    if (value.empty() && i + 1 < words.size()) value = words[++i];
    if (plain(value)) options += " " + name + " " + value;
  }
  return start_over_command(output, t, (options.empty() ? std::string() : options.substr(1) + " ").append("--resume").c_str());
}

std::string resume_command(const SieveArgs& a, const std::string& output, int max_tiles, int store_losing) {
  std::string c = shell_quote(program_path()) + " sieve --output " + shell_quote(output) + " --max-tiles " +
                  std::to_string(max_tiles);
  if (store_losing > 0) c += " --store-losing " + std::to_string(store_losing);
  if (a.threads > 0) c += " --threads " + std::to_string(a.threads);
  if (!a.memory_limit.empty()) c += " --memory-limit " + shell_quote(a.memory_limit);
  if (a.file_all_marks) c += " --file-all-marks";
  if (a.inferred_rows != SieveOptions{}.inferred_rows && !a.file_all_marks) c += " --inferred-rows " + std::to_string(a.inferred_rows);
  if (a.slices > 0) c += " --slices " + std::to_string(a.slices) + " --slice-from " + std::to_string(a.slice_from);
  if (a.dimensions == 3) c += " --dimensions 3";
  if (a.checkpoint_minutes != config::kCheckpointSeconds / 60) {
    // Fixed notation, shortest exact: what --checkpoint-every reads back.
    char minutes[64];
    const auto end = std::to_chars(minutes, minutes + sizeof minutes, a.checkpoint_minutes, std::chars_format::fixed).ptr;
    c += " --checkpoint-every " + std::string(minutes, end);
  }
  if (a.quiet) c += " --quiet";
  return c + " --resume";
}

void check_arguments(const SieveArgs& a, bool output_exists) {
  if (a.force && a.resume)
    throw UsageError("--force and --resume contradict each other: --force starts over, --resume continues "
                     "the run in --output; give one of them");
  std::error_code ec;
  if (std::filesystem::is_directory(a.output, ec))
    throw UsageError("--output " + printable(a.output) + " is a folder; give a file name");
  refuse_missing_folder(a.output, "--output");  // before any plan, a dry run's too
  if (output_exists && !a.force && !a.resume)
    throw UsageError("output file " + printable(a.output) +
                     " already exists; pass --resume to continue it, --force to start over, or choose "
                     "another --output" + (a.dry_run ? " (a dry run refuses what the run would; it writes nothing)" : ""));
  // A --resume of a file that is not there starts a new run, to the levels
  // asked for: without --max-tiles a mistyped name would start a run of the
  // default size in its place.
  if (a.resume && !output_exists && a.max_tiles_option && !a.max_tiles_option->count())
    throw UsageError("there is no " + printable(a.output) + " to resume (a --resume of an existing file takes the "
                     "file's levels); check the name, or give --max-tiles N to start a new run there");
}

std::unique_ptr<Resume> open_resume(const SieveArgs& a, bool output_exists) {
  std::unique_ptr<Resume> resume;
  if (a.resume && output_exists) {
    ResumeRequest request;
    request.path = a.output;
    request.max_tiles = a.max_tiles_option->count() ? a.max_tiles : 0;
    request.store_losing = a.store_losing_option->count() ? a.store_losing : -1;
    request.dimensions = a.dimensions;
    try {
      resume = std::make_unique<Resume>(request);
    } catch (const ResumeMismatch& e) {
      // The command that continues a file of the other dimensions, whole
      // (this program, the file's --output: without it, the command would
      // go to the default file).
      if (const int d = e.file_dimensions())
        throw UsageError(e.reason() + "; continue it with " + shell_quote(program_path()) + " sieve" +
                         (d == 3 ? " --dimensions 3" : "") + " --resume --output " + shell_quote(a.output) +
                         (d == 2 ? " (without --dimensions 3)" : ""));
      throw UsageError(e.what());
    }
    // A resumed run writes the store with its output's name (the one it
    // locks): a file copied or renamed without its store names another
    // file's, which it must not write into.
    const std::string own = store_path_for(a.output), named = resume->state().store_path;
    std::error_code ec;
    const ResumeState& st = resume->state();
    const bool nothing_to_do = st.complete && st.max_tiles == st.file_max_tiles;
    if (named != own && !nothing_to_do && std::filesystem::exists(named, ec))
      throw UsageError("cannot resume " + printable(a.output, 200) + ": its store is " + printable(named, 200) +
                       ", which has another file's name (this file was copied or renamed without it), and a "
                       "resumed run writes the store named after its output, " + printable(own, 200) +
                       ". Copy the store to that name (cp " + shell_quote(named) + " " + shell_quote(own) +
                       "; mv if the file it was named for is gone) to continue this file, or resume the file the "
                       "store belongs to");
    // Renamed without its store, which is not beside it under either name:
    // the advice is the name to give it back under (the one it had would be
    // refused as another file's, above).
    if (named != own && !nothing_to_do && !std::filesystem::exists(named, ec) && !std::filesystem::exists(own, ec))
      throw ResumeRefused("cannot resume " + printable(a.output, 200) + ": its store " +
                          printable(std::filesystem::path(named).filename().string(), 200) +
                          " is missing (the name it had where its run wrote it: this file was renamed or copied "
                          "from there), and a resumed run writes the store named after its output: copy that run's "
                          "store to " + printable(own, 200) + " (cp /path/to/" +
                          shell_quote(std::filesystem::path(named).filename().string()) + " " + shell_quote(own) +
                          ")");
    // The store gone under its own name: give it back, or start over.
    if (named == own && !nothing_to_do && !std::filesystem::exists(named, ec))
      throw ResumeRefused("cannot resume " + printable(a.output, 200) + ": its store " + printable(own, 200) +
                          " is missing: the file's losing positions are kept there; give it back (move it beside "
                          "the file), or, to run again, start over with " +
                          start_over_command(a.output, st.max_tiles, a.dimensions, st.store_losing));
    for (const std::string& note : resume->state().notes) std::cerr << "note: " << note << '\n';
  } else if (a.resume) {
    std::cerr << "no " << a.output << " yet: starting a new run\n";
  }
  return resume;
}

namespace {

/// True when path is a regular file that starts with HDF5's signature.
bool is_hdf5_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  return in.read(head, sizeof head) && std::string_view(head, sizeof head) == std::string_view("\x89HDF\r\n\x1a\n", 8);
}

}  // namespace

std::string checkpoint_path_for(const std::string& store_path) {
  constexpr std::string_view suffix = ".store";
  if (store_path.size() > suffix.size() && store_path.ends_with(suffix))
    return store_path.substr(0, store_path.size() - suffix.size()) + ".window";
  return store_path + ".window";
}

ClaimedOutput::ClaimedOutput(SieveArgs& a) {
  a.output = output_file(a.output);
  refuse_side_file_name(a.output);
  if (!a.dry_run) claim_.emplace(a.output);
  std::error_code ec;
  exists_ = std::filesystem::exists(std::filesystem::symlink_status(a.output, ec));
  check_arguments(a, exists_);
  store_path_ = store_path_for(a.output);
  // The store is claimed too: two outputs share one store name (run and
  // run.h5), and two runs started together on them must not both make it.
  if (!a.dry_run) store_claim_.emplace(store_path_);
  refuse_files_in_use({a.output, a.output + ".partial", store_path_},
                      "let it finish, or stop it (SIGINT or SIGTERM) and then resume");
  // run and run.h5 have one store name, run.store: a run on one of them must
  // not write the store of a result file that is the other.
  const std::string h5 = ".h5";
  const bool named_h5 = a.output.size() > h5.size() && a.output.compare(a.output.size() - h5.size(), h5.size(), h5) == 0;
  const std::string twin = named_h5 ? a.output.substr(0, a.output.size() - h5.size()) : a.output + h5;
  if (is_hdf5_file(twin))
    throw UsageError("--output " + printable(a.output, 200) + " and the result file " + printable(twin, 200) +
                     " would share one store, " + printable(store_path_, 200) + " (a name with and without .h5 has "
                     "the same store); give another --output");
  // A result file where this run keeps its window's checkpoint (one named
  // x.window by a version that let it): the run would remove it as a
  // checkpoint that is not one.
  const std::string window = checkpoint_path_for(store_path_);
  if (is_hdf5_file(window))
    throw UsageError("the result file " + printable(window, 200) + " has the name of the window's checkpoint of " +
                     printable(a.output, 200) + ", which a run on it would remove; rename that file (and its store "
                     "with it), or give another --output");
  // A folder with the store's name: no --force can make the store there.
  if (std::filesystem::is_directory(store_path_, ec))
    throw UsageError("the store of " + printable(a.output, 200) + " would be " + printable(store_path_, 200) +
                     ", which is a folder; move the folder away, or give another --output");
  // A device, pipe or socket with the store's name (run.store as a link to
  // /dev/null): the store cannot be kept there, and --force must not replace it.
  {
    const auto status = std::filesystem::status(store_path_, ec);
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
      const std::string what = "the store of " + printable(a.output, 200) + " would be " +
                               printable(store_path_, 200) +
                               ", which is not a regular file (a device, a pipe or a socket); move it away, or "
                               "give another --output";
      // A run's own store that became one is a file that cannot be used
      // (exit 1, as verify says of it); for a new run it is the name given.
      if (a.resume && exists_) throw std::runtime_error(what);
      throw UsageError(what);
    }
  }
  // A store without its result file: the file was renamed, copied or moved
  // without it (and may still name it), or removed. A new run would empty it.
  // (A store with no level in it is the start of a run killed before its
  // first level, or before its result file was named: nothing to lose.)
  if (!exists_ && !a.force && !a.dry_run && std::filesystem::exists(std::filesystem::symlink_status(store_path_, ec)) &&
      !LosingStore::holds_no_level(store_path_))
    throw UsageError("the store " + printable(store_path_, 200) + " exists but " + printable(a.output, 200) +
                     " does not: it may be the store of a result file renamed or copied without it, which a new "
                     "run would empty; move it away first, or pass --force to overwrite it");
}

}  // namespace chomp::app
