/// @file h5_provenance.cpp
/// @brief The build and run attributes of result files, and the library and
/// machine facts they record.

#include "h5_provenance.hpp"

#include <oneapi/tbb/version.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "build_info.hpp"
#include "h5_util.hpp"

namespace chomp {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string inferred_marks_text(int rows) {
  if (rows <= 0) return "none";
  if (rows == 1) return "row 1";
  return "rows 1-" + std::to_string(rows);
}

int inferred_rows_of(const std::string& text) {
  // The latest way comes first: "row 1 from level 13; rows 1-2 below".
  const std::string way = text.substr(0, std::min(text.find(" from level "), text.find(';')));
  if (way == "row 1") return 1;
  if (way == "rows 1-2") return 2;
  return 0;
}

std::string continued_inferred_marks(const std::string& before, int rows, int first_level) {
  if (first_level <= 1) return inferred_marks_text(rows);
  std::string was = before.empty() ? "none" : before;
  // A way from a level not below first_level counted no level that is kept
  // (its leg stopped before finishing one): it is dropped.
  const std::string from = " from level ";
  for (std::size_t at = was.find(from); at != std::string::npos && at < was.find(';'); at = was.find(from)) {
    if (std::atoi(was.c_str() + at + from.size()) < first_level) break;
    was.erase(0, was.find("; ") + 2);
    if (was.find(from) == std::string::npos && was.size() > 6 && was.compare(was.size() - 6, 6, " below") == 0)
      was.resize(was.size() - 6);  // one way left: its own text
  }
  if (inferred_rows_of(was) == rows) return was;
  // An unchanged way's own text ("rows 1-2") becomes "rows 1-2 below".
  const bool one_way = was.find(from) == std::string::npos;
  return inferred_marks_text(rows) + from + std::to_string(first_level) + "; " + was + (one_way ? " below" : "");
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string hdf5_version() {
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  return std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
}

std::string tbb_version() { return TBB_runtime_version(); }

namespace h5 {

void write_build_attributes(hid_t f) {
  write_attr(f, "program", "chomp");
  write_attr(f, "version", build::kVersion);
  write_attr(f, "git_revision", build::kGitRevision);
  write_attr(f, "compiler", build::kCompiler);
  write_attr(f, "build_type", build::kBuildType);
  write_attr(f, "hdf5_version", hdf5_version());
  write_attr(f, "tbb_version", tbb_version());
  write_attr(f, "host", host_name());
  write_attr(f, "license",
             "the data in this file: CC-BY-4.0 (cite the chomp project, CITATION.cff); the program that wrote it: "
             "BSD-2-Clause");
  write_attr(f, "references",
             "D. Gale, A curious Nim-type game, Amer. Math. Monthly 81 (1974) 876-879 (the game); Caribou "
             "Contests, Chomp, https://cariboutests.com/games/chomp.php (the density table for n = 20..90 and the "
             "0.286 conjecture); T. Herchen, https://github.com/anematode/chomp, files/130.txt (levels 1..130); "
             "the layout of this file: doc/FILE_FORMAT.md");
}

Handle create_whole_file(const std::string& tmp, const std::string& format) {
  // The temporary name is the writer's own: a symbolic link left there is
  // removed, not written through (the truncating create would follow it).
  std::error_code ec;
  if (std::filesystem::is_symlink(tmp, ec)) std::filesystem::remove(tmp, ec);
  Handle file = check(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                      "cannot create " + tmp + " (check that the folder exists and is writable)");
  write_build_attributes(file.get());
  write_attr(file.get(), "format", format);
  return file;
}

void write_run_attributes(hid_t f, const Provenance& prov) {
  write_attr(f, "dimensions", prov.dimensions);
  write_attr(f, "command_line", prov.command_line);
  write_attr(f, "max_tiles", prov.max_tiles);
  write_attr(f, "threads", prov.threads);
  write_attr(f, "mpi_ranks", prov.processes);
  write_attr(f, "mpi_library", prov.mpi_library);
  write_attr(f, "store_losing", prov.store_losing);
  write_attr(f, "memory_budget", static_cast<std::int64_t>(prov.memory_budget));
  write_attr(f, "inferred_marks", prov.inferred_marks);
  write_attr(f, "store_file", prov.store_file);
  write_attr(f, "run_id", prov.run_id);
  write_attr(f, "start_utc", prov.start_utc);
  write_attr(f, "end_utc", "");
  write_attr(f, "resume_history", prov.resume_history);
  write_attr(f, "first_git_revision", prov.first_git_revision.empty() ? std::string(build::kGitRevision)
                                                                      : prov.first_git_revision);
  write_attr(f, "complete", 0);
  write_attr(f, "status", "running");
}

void write_end_attributes(hid_t f, const std::string& status) {
  write_attr(f, "end_utc", utc_now());
  write_attr(f, "status", status);
  write_attr(f, "complete", status == "complete" ? 1 : 0);
}

bool known_status(const std::string& status) {
  return status == "complete" || status == "interrupted" || status == "failed" || status == "running";
}

void require_dimensions(int dimensions, const std::string& who) {
  if (dimensions != 2 && dimensions != 3)
    throw std::invalid_argument(who + ": dimensions is " + std::to_string(dimensions) + "; 2 (tiles) or 3 (cubes)");
}

}  // namespace h5
}  // namespace chomp
