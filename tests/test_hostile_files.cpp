/// @file test_hostile_files.cpp
/// @brief Crafted result files against every command that reads one
/// (`verify`, `sieve --resume`, `show`), table-driven: every root attribute
/// and /levels dataset the program reads, each as the wrong type, an array,
/// empty, a huge claim; superblock and object-header flips; a FIFO, a folder,
/// a symbolic link. Each run must end within a time limit and a memory
/// bound, exit 1 or 2 with a message naming the object, print no HDF5
/// error stack, and leave the file and its store byte for byte as they were.

#include <gtest/gtest.h>

#include <hdf5.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp_process.hpp"
#include "damaged_files.hpp"

using namespace chomp;
using namespace chomp::testing;

namespace {

constexpr int kLevels = 30;
constexpr int kStoreLosing = 10;

/// A run to 30 tiles (losing positions of 1..10 in the file), marked as
/// interrupted so that a resume reads and checks every level (and verify
/// needs --finished); made once.
const std::string& base_file() {
  static ScratchDir dir;
  static const std::string path = [] {
    const std::string p = dir.file("base.h5");
    const ProcessResult r = run_chomp({"sieve", "-n", std::to_string(kLevels), "--store-losing",
                                       std::to_string(kStoreLosing), "-q", "-o", p});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    RawFile(p).set_int_attribute("complete", 0);
    return p;
  }();
  return path;
}

/// One crafted file: what is done to a copy of the base run, and what the
/// refusal must name.
struct Craft {
  std::string what;
  std::function<void(const std::string& path)> damage;
  std::string names;
  bool resume_only = false;  ///< only a resume reads it (/losing_positions)
};

std::vector<Craft> crafts(std::uint64_t seed) {
  std::vector<Craft> out;
  const std::string base = base_file();
  // Every root attribute: an array, the other kind, empty, a compound.
  const std::vector<std::string> numbers{"format_version", "max_tiles", "threads", "mpi_ranks", "store_losing",
                                         "memory_budget", "complete", "levels_only"};
  std::vector<std::string> attributes = names_in(base, nullptr, true);
  if (std::find(attributes.begin(), attributes.end(), "levels_only") == attributes.end())
    attributes.push_back("levels_only");  // read when present
  EXPECT_GE(attributes.size(), 20U);
  for (const std::string& name : attributes) {
    const bool number = std::find(numbers.begin(), numbers.end(), name) != numbers.end();
    const auto attr = [name](Value v) { return [name, v](const std::string& p) { set_attribute(p, name, v); }; };
    out.push_back({"attribute " + name + " as an array of 16 integers", attr(int_array()), name});
    out.push_back({"attribute " + name + " as an array of 3 strings", attr(text_array()), name});
    out.push_back({"attribute " + name + " empty (a null dataspace)", attr(empty_of(!number)), name});
    out.push_back({"attribute " + name + " as a compound", attr(compound_value()), name});
    if (number) {
      out.push_back({"attribute " + name + " as a string", attr(text_value("12")), name});
      out.push_back({"attribute " + name + " as a float", attr(real_value()), name});
    } else {
      out.push_back({"attribute " + name + " as an integer", attr(int_value(12)), name});
    }
  }
  // Values of the right kind that no writer makes.
  const auto attr = [](std::string name, Value v) {
    return [name, v](const std::string& p) { set_attribute(p, name, v); };
  };
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{256}, std::int64_t{1} << 62})
    out.push_back({"max_tiles = " + std::to_string(v), attr("max_tiles", int_value(v)), "max_tiles"});
  out.push_back({"max_tiles below the rows", attr("max_tiles", int_value(20)), "max_tiles"});
  for (std::int64_t v : {std::int64_t{-1}, std::int64_t{64}, std::int64_t{1} << 40})
    out.push_back({"store_losing = " + std::to_string(v), attr("store_losing", int_value(v)), "store_losing"});
  out.push_back({"complete = 7", attr("complete", int_value(7)), "complete"});
  out.push_back({"format_version = 2^40", attr("format_version", int_value(std::int64_t{1} << 40)), "format_version"});
  out.push_back({"store_file with a folder", attr("store_file", text_value("../../etc/passwd")), "store_file"});
  out.push_back({"store_file absolute", attr("store_file", text_value("/etc/passwd")), "store_file"});
  out.push_back({"run_id not hexadecimal", attr("run_id", text_value("not-an-id")), "run_id"});
  out.push_back({"program another", attr("program", text_value("h5py")), "program"});
  out.push_back({"command_line of 2 MiB", attr("command_line", text_value(std::string(2 << 20, 'x'))),
                 "command_line"});
  // (Without run_id and store_file a file is a levels-only copy, which
  // show reads and verify and resume refuse as such.)
  for (const char* name : {"program", "format_version", "max_tiles", "store_losing", "complete"})
    out.push_back({std::string("attribute ") + name + " missing",
                   [name](const std::string& p) { delete_attribute(p, name); }, name});

  // Every /levels dataset: another class, strings, 2-D, a scalar, huge
  // claims, one huge chunk, a group, a soft link.
  for (const std::string& column : names_in(base, "levels", false)) {
    const std::string ds = "levels/" + column, named = "/levels/" + column;
    const hsize_t rows = kLevels, unlimited = H5S_UNLIMITED;
    out.push_back({named + " as 8-bit integers",
                   [=](const std::string& p) { replace_dataset(p, ds, H5T_STD_I8LE, {rows}, {}, 0, false); }, named});
    out.push_back({named + " as 128-bit integers",
                   [=](const std::string& p) {
                     const hid_t t = H5Tcopy(H5T_STD_U64LE);
                     H5Tset_size(t, 16);
                     H5Tset_precision(t, 128);
                     replace_dataset(p, ds, t, {rows}, {}, 0, false);
                     H5Tclose(t);
                   },
                   named});
    out.push_back({named + " as floats or integers (the other class)",
                   [=](const std::string& p) {
                     const bool real = column.find("seconds") != std::string::npos || column == "losing_fraction" ||
                                       column == "hypothesis_ratio";
                     replace_dataset(p, ds, real ? H5T_STD_U64LE : H5T_IEEE_F64LE, {rows}, {}, 0, false);
                   },
                   named});
    out.push_back({named + " as strings",
                   [=](const std::string& p) {
                     const hid_t t = H5Tcopy(H5T_C_S1);
                     H5Tset_size(t, H5T_VARIABLE);
                     replace_dataset(p, ds, t, {rows}, {}, 0, false);
                     H5Tclose(t);
                   },
                   named});
    out.push_back({named + " 2-D", [=](const std::string& p) { replace_dataset(p, ds, H5T_STD_U64LE, {rows, 2}, {}, 0, false); },
                   named});
    out.push_back({named + " a scalar", [=](const std::string& p) { replace_dataset(p, ds, H5T_STD_U64LE, {}, {}, 0, false); },
                   named});
    for (hsize_t claim : {hsize_t{30'000'000}, hsize_t{1'000'000'000'000}})
      out.push_back({named + " claiming " + std::to_string(claim) + " rows",
                     [=](const std::string& p) { set_extent(p, ds, claim); }, named});
    out.push_back({named + " in one deflated chunk of 2^26 rows",
                   [=](const std::string& p) {
                     replace_dataset(p, ds, H5T_STD_U64LE, {rows}, {unlimited}, hsize_t{1} << 26, true, false);
                   },
                   named});
    out.push_back({named + " a group", [=](const std::string& p) { replace_with_group(p, ds); }, named});
    out.push_back({named + " a soft link",
                   [=](const std::string& p) { replace_with_soft_link(p, ds, column == "tiles" ? "/levels/slices" : "/levels/tiles"); },
                   named});
  }
  out.push_back({"/levels a dataset",
                 [](const std::string& p) {
                   Ids ids;
                   const hid_t f = ids(H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
                   H5Ldelete(f, "levels", H5P_DEFAULT);
                   const hsize_t n = 4;
                   ids(H5Dcreate2(f, "levels", H5T_STD_U64LE, ids(H5Screate_simple(1, &n, nullptr), H5Sclose),
                                  H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       H5Dclose);
                 },
                 "/levels"});

  // /losing_positions, which a resume copies: more rows than p(n), one
  // chunk of 2 GiB (not written: the claim alone must be refused), floats.
  const std::string lp = "losing_positions/level_007", lp_named = "/losing_positions/level_007";
  out.push_back({lp_named + " claiming 10^9 rows", [=](const std::string& p) { set_extent(p, lp, 1'000'000'000); },
                 lp_named, true});
  out.push_back({lp_named + " claiming more rows than p(7)", [=](const std::string& p) { set_extent(p, lp, 16); },
                 lp_named, true});
  // Fewer or more rows than level 7's L(7) = 3 losing positions, within
  // p(7): the rows themselves are paths, but not the level's.
  out.push_back({lp_named + " cut to 2 of its 3 rows", [=](const std::string& p) { set_extent(p, lp, 2); },
                 lp_named, true});
  out.push_back({lp_named + " grown to 5 rows", [=](const std::string& p) { set_extent(p, lp, 5); }, lp_named, true});
  out.push_back({lp_named + " in one chunk of 2^28 rows",
                 [=](const std::string& p) {
                   replace_dataset(p, lp, H5T_STD_U64LE, {4}, {H5S_UNLIMITED}, hsize_t{1} << 28, true, false);
                 },
                 lp_named, true});
  out.push_back({lp_named + " as floats",
                 [=](const std::string& p) { replace_dataset(p, lp, H5T_IEEE_F64LE, {4}, {}, 0, false); }, lp_named,
                 true});
  out.push_back({"/losing_positions a dataset",
                 [](const std::string& p) {
                   Ids ids;
                   const hid_t f = ids(H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
                   H5Ldelete(f, "losing_positions", H5P_DEFAULT);
                   const hsize_t n = 4;
                   ids(H5Dcreate2(f, "losing_positions", H5T_STD_U64LE,
                                  ids(H5Screate_simple(1, &n, nullptr), H5Sclose), H5P_DEFAULT, H5P_DEFAULT,
                                  H5P_DEFAULT),
                       H5Dclose);
                 },
                 "/losing_positions", true});

  // The superblock (bytes 8..47 of a version 3 superblock, checksum
  // included) and the root group's object header: a flip fails a checksum,
  // which the message names (its version and field sizes, bytes 8..10, are
  // read before the checksum and named as such). Bytes 11..47 all reach
  // the same checksum path, a second of HDF5's retries each: a sixth of them
  // a run, every sixth from an offset the test's seed picks, so that runs
  // take turns over them.
  const std::uint64_t sixth = seed % 6;
  for (std::uint64_t at = 8; at < 48; ++at)
    if (at < 11 || (at - 11) % 6 == sixth)
      out.push_back({"superblock byte " + std::to_string(at) + " flipped",
                   [at](const std::string& p) { flip_byte(p, at); },
                   at == 8 ? "bad superblock version" : at < 11 ? "bad byte number" : "checksum"});
  const haddr_t root = root_header(base);
  for (std::uint64_t at : {6, 12, 20, 40, 80, 120})
    out.push_back({"root object header byte " + std::to_string(at) + " flipped",
                   [=](const std::string& p) { flip_byte(p, root + at); }, "checksum"});
  return out;
}

/// Sanitizer builds reserve terabytes of address space: RLIMIT_AS only in
/// plain builds; the resident peak is checked in every build.
ProcessOptions bounded_options() {
  ProcessOptions opts;
  if (!sanitized_binary()) opts.address_space_limit = 2LL << 30;
  return opts;
}

/// A command run under a time limit and a memory limit.
struct Bounded {
  ProcessResult result;
  bool hung = false;
};

/// Waits for p until `deadline`, then kills it.
Bounded finish(ChompProcess& p, std::chrono::steady_clock::time_point deadline) {
  Bounded b;
  const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
  b.hung = !p.wait_until([] { return false; }, std::max(left, 0.0)) && !p.exited();
  if (b.hung) p.send(SIGKILL);
  b.result = p.wait();
  return b;
}

Bounded run_bounded(const std::vector<std::string>& args, double seconds = 30) {
  ChompProcess p(args, bounded_options());
  return finish(p, std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                          std::chrono::duration<double>(seconds)));
}

/// The bytes of a file, or "" when it is not a regular file.
std::string bytes_of(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) ? read_text(path) : std::string();
}

/// A command on a crafted file that must be refused: started, then checked.
class Refusal {
 public:
  Refusal(std::vector<std::string> args, std::string path, std::string names)
      : args_(std::move(args)), path_(std::move(path)), names_(std::move(names)),
        before_(bytes_of(path_)), store_before_(bytes_of(store_path_for(path_))) {}
  void start() {
    deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    process_ = std::make_unique<ChompProcess>(args_, bounded_options());
  }
  /// Waits for it and checks exit, message, time, memory and the files.
  void check() {
    const Bounded b = finish(*process_, deadline_);
    const ProcessResult& r = b.result;
    std::string cmd;
    for (const std::string& a : args_) cmd += a.size() > 60 ? a.substr(0, 60) + "... " : a + " ";
    SCOPED_TRACE(cmd);
    EXPECT_FALSE(b.hung) << "still running after 30 s";
    EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal << ": " << r.err;
    EXPECT_TRUE(r.exit_code == 1 || r.exit_code == 2) << "exit " << r.exit_code << ": " << r.err;
    EXPECT_NE(r.err.find(names_), std::string::npos) << "the message does not name " << names_ << ": " << r.err;
    EXPECT_EQ(r.err.find("HDF5-DIAG"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("out of memory"), std::string::npos) << r.err;
    EXPECT_LE(count_lines(r.err), 3) << r.err;
    EXPECT_LT(r.err.size(), 2000U) << r.err.substr(0, 2000);
    EXPECT_LT(r.max_rss_kib, 300 * 1024) << "a refusal took " << r.max_rss_kib / 1024 << " MiB";
    const std::string store = store_path_for(path_);
    EXPECT_TRUE(bytes_of(path_) == before_) << path_ << " was changed";
    EXPECT_TRUE(bytes_of(store) == store_before_) << store << " was changed";
    EXPECT_FALSE(std::filesystem::exists(path_ + ".partial"));
    EXPECT_FALSE(std::filesystem::exists(path_ + ".lock"));
  }

 private:
  std::vector<std::string> args_;
  std::string path_, names_, before_, store_before_;
  std::chrono::steady_clock::time_point deadline_;
  std::unique_ptr<ChompProcess> process_;
};

/// Runs `args` on a crafted file at `path` and checks the refusal.
void expect_refusal(const std::vector<std::string>& args, const std::string& path, const std::string& names) {
  Refusal r(args, path, names);
  r.start();
  r.check();
}

}  // namespace

TEST(HostileFiles, TheBaseRunPassesEveryCommand) {
  // The crafts below are refusals only because of what each one changes.
  ScratchDir dir;
  const std::string path = dir.file("run.h5");
  copy_run(base_file(), path);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"verify", "--finished", path}, {"show", path}, {"sieve", "--resume", "-q", "-o", path}}) {
    const Bounded b = run_bounded(args);
    EXPECT_EQ(b.result.exit_code, 0) << args[0] << ": " << b.result.err;
  }
  EXPECT_TRUE(read_level_file(path).complete());
}

TEST(HostileFiles, EveryCraftedFileIsRefusedQuicklyWithItsNameAndLeftAsItWas) {
  const std::uint64_t seed = chomp::testing::test_seed();  // picks the superblock bytes and the sanitizer's quarter
  const std::vector<Craft> all = crafts(seed);
  EXPECT_GT(all.size(), 250U);
  // A sanitizer build runs several times slower: it gets a quarter of the
  // crafts, every fourth from an offset the test's seed picks, so that runs
  // take turns over the four quarters (it took the same quarter every time);
  // a plain build gets every one.
  const std::size_t stride = sanitized_binary() ? 4 : 1;
  const std::size_t offset = static_cast<std::size_t>(seed % stride);
  SCOPED_TRACE("CHOMP_TEST_SEED=" + std::to_string(seed) + ": crafts " + std::to_string(offset) + ", " +
               std::to_string(offset + stride) + ", ...");
  // Crafts run in batches, each command on a copy of its own, all at once:
  // most of a refusal's time is HDF5's bounded wait for a flush that never
  // comes (a damaged superblock), not work.
  constexpr std::size_t kBatch = 8;
  std::vector<std::size_t> chosen;
  for (std::size_t i = offset; i < all.size(); i += stride) chosen.push_back(i);
  for (std::size_t first = 0; first < chosen.size() && !::testing::Test::HasFailure(); first += kBatch) {
    std::vector<std::unique_ptr<ScratchDir>> dirs;
    std::vector<std::pair<const Craft*, std::unique_ptr<Refusal>>> runs;
    for (std::size_t k = first; k < std::min(first + kBatch, chosen.size()); ++k) {
      const Craft& c = all[chosen[k]];
      for (const char* command : {"resume", "verify", "show"}) {
        if (c.resume_only && std::string(command) != "resume") continue;
        dirs.push_back(std::make_unique<ScratchDir>());
        const std::string path = dirs.back()->file("run.h5");
        copy_run(base_file(), path);
        c.damage(path);
        std::vector<std::string> args = std::string(command) == "resume"
                                            ? std::vector<std::string>{"sieve", "--resume", "-q", "-o", path}
                                            : std::string(command) == "verify"
                                                  ? std::vector<std::string>{command, "--finished", path}
                                                  : std::vector<std::string>{command, path};
        runs.emplace_back(&c, std::make_unique<Refusal>(args, path, c.names));
      }
    }
    for (auto& [c, r] : runs) r->start();
    for (auto& [c, r] : runs) {
      SCOPED_TRACE(c->what);
      r->check();
    }
  }
}

TEST(HostileFiles, FifosFoldersAndLinksAreRefusedWithoutBlocking) {
  ScratchDir dir;
  const std::string fifo = dir.file("fifo.h5");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  for (const auto& args : {std::vector<std::string>{"verify", "--finished", fifo}, {"show", fifo},
                           {"sieve", "--resume", "-q", "-o", fifo}}) {
    const Bounded b = run_bounded(args, 20);
    EXPECT_FALSE(b.hung) << args[0] << " blocked on a FIFO";
    EXPECT_TRUE(b.result.exit_code == 1 || b.result.exit_code == 2) << b.result.err;
    EXPECT_NE(b.result.err.find("fifo.h5"), std::string::npos) << b.result.err;
  }
  // A run whose store is a FIFO.
  const std::string run = dir.file("run.h5");
  std::filesystem::copy_file(base_file(), run);
  ASSERT_EQ(mkfifo(store_path_for(run).c_str(), 0644), 0);
  for (const auto& args : {std::vector<std::string>{"verify", "--finished", run}, {"sieve", "--resume", "-q", "-o", run}}) {
    const Bounded b = run_bounded(args, 20);
    EXPECT_FALSE(b.hung) << args[0] << " blocked on a FIFO store";
    EXPECT_EQ(b.result.exit_code, 1) << b.result.err;  // a run's file that cannot be used
    EXPECT_NE(b.result.err.find("not a regular file"), std::string::npos) << b.result.err;
  }
  // A folder as the file.
  const std::string folder = dir.file("folder.h5");
  std::filesystem::create_directory(folder);
  for (const auto& args : {std::vector<std::string>{"verify", "--finished", folder}, {"show", folder},
                           {"sieve", "--resume", "-q", "-o", folder}}) {
    const Bounded b = run_bounded(args, 20);
    EXPECT_TRUE(b.result.exit_code == 1 || b.result.exit_code == 2) << b.result.err;
    EXPECT_NE(b.result.err.find("folder.h5"), std::string::npos) << b.result.err;
  }
  // /dev/zero and a symbolic link loop.
  const std::string loop = dir.file("loop.h5");
  std::filesystem::create_symlink(loop, loop);
  for (const std::string& path : {std::string("/dev/zero"), loop}) {
    for (const auto& args : {std::vector<std::string>{"verify", "--finished", path}, {"show", path}}) {
      const Bounded b = run_bounded(args, 20);
      EXPECT_FALSE(b.hung);
      EXPECT_TRUE(b.result.exit_code == 1 || b.result.exit_code == 2) << b.result.err;
    }
  }
  // A symbolic link to a crafted file: refused, the target unchanged.
  const std::string target = dir.file("target.h5"), link = dir.file("link.h5");
  copy_run(base_file(), target);
  set_attribute(target, "max_tiles", int_array());
  std::filesystem::create_symlink(target, link);
  expect_refusal({"verify", "--finished", link}, target, "max_tiles");
  expect_refusal({"sieve", "--resume", "-q", "-o", link}, target, "max_tiles");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
}

// An output that is a FIFO (or a device: /dev/null, run as root) is refused
// by every command that writes files, --force or not. Each writes a new file
// and renames it over the name, which replaced the FIFO with a regular file
// (and, as root, /dev/null itself) and exited 0.
TEST(HostileFiles, AnOutputThatIsNotARegularFileIsNeverReplaced) {
  ScratchDir dir;
  const std::string fifo = dir.file("fifo.h5");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  const std::string rect = dir.file("rect.h5");
  for (const auto& args :
       {std::vector<std::string>{"sieve", "-n", "10", "-q", "-o", fifo, "--force"},
        {"sieve", "-n", "10", "-q", "-o", fifo},
        {"sieve", "--dimensions", "3", "-n", "6", "-q", "-o", fifo, "--force"},
        {"grundy", "-n", "6", "-q", "-o", fifo, "--force"},
        {"rectangles", "--max-rows", "3", "--max-cols", "3", "-q", "-o", fifo, "--force"},
        {"rectangles", "--max-rows", "3", "--max-cols", "3", "-q", "-o", rect, "--csv", fifo, "--force"}}) {
    SCOPED_TRACE(args[0] + " " + args.back());
    const Bounded b = run_bounded(args, 20);
    EXPECT_FALSE(b.hung);
    EXPECT_EQ(b.result.exit_code, 2) << b.result.err;
    EXPECT_NE(b.result.err.find("fifo.h5' is not a regular file"), std::string::npos) << b.result.err;
    std::error_code ec;
    EXPECT_TRUE(std::filesystem::is_fifo(std::filesystem::symlink_status(fifo, ec)));
    EXPECT_FALSE(std::filesystem::exists(dir.file("fifo.store")));
    EXPECT_FALSE(std::filesystem::exists(rect));
  }
  // '-' is standard output for --csv, even beside a FIFO of that name.
  ASSERT_EQ(mkfifo(dir.file("-").c_str(), 0644), 0);
  ProcessOptions here;
  here.cwd = dir.path().string();
  const ProcessResult dash = run_chomp({"rectangles", "--max-rows", "3", "--max-cols", "3", "--csv", "-"}, here);
  EXPECT_EQ(dash.exit_code, 0) << dash.err;
  EXPECT_NE(dash.out.find("rows,cols,move_row,move_col,leaves\n"), std::string::npos) << dash.out;
  // A new run whose store would be a FIFO: refused before it starts.
  ASSERT_EQ(mkfifo(dir.file("run.store").c_str(), 0644), 0);
  const Bounded b = run_bounded({"sieve", "-n", "10", "-q", "-o", dir.file("run.h5"), "--force"}, 20);
  EXPECT_FALSE(b.hung);
  EXPECT_EQ(b.result.exit_code, 2) << b.result.err;
  EXPECT_NE(b.result.err.find("run.store, which is not a regular file"), std::string::npos) << b.result.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("run.h5")));
}

// --resume through a symbolic link continues the run in its target: the
// link stays a link, the target is the finished file, and a note says so.
TEST(HostileFiles, ResumeThroughASymbolicLinkWritesItsTarget) {
  ScratchDir dir;
  const std::string target = dir.file("target.h5"), link = dir.file("link.h5");
  copy_run(base_file(), target);
  std::filesystem::create_symlink(target, link);
  const ProcessResult r = run_chomp({"sieve", "--resume", "-n", "32", "-q", "-o", link});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("is a symbolic link; its target"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  const LevelTable t = read_level_file(target);
  EXPECT_TRUE(t.complete());
  EXPECT_EQ(t.tiles.size(), 32U);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"link.h5", "target.h5", "target.store"}));
}

// A link (relative, through a second link) to a file not made yet: a new
// run writes that file, not the link's own name.
TEST(HostileFiles, ANewRunThroughALinkToAFileNotMadeYetWritesIt) {
  ScratchDir dir;
  std::filesystem::create_directory(dir.path() / "runs");
  std::filesystem::create_symlink("runs/new.h5", dir.path() / "first.h5");
  std::filesystem::create_symlink("first.h5", dir.path() / "link.h5");
  for (const bool resume : {false, true}) {
    std::vector<std::string> args{"sieve", "-n", resume ? "14" : "12", "-q", "-o", dir.file("link.h5")};
    if (resume) args.push_back("--resume");
    const ProcessResult r = run_chomp(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("its target " + (dir.path() / "runs" / "new.h5").string() + " is the file written"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(read_level_file(dir.file("runs/new.h5")).tiles.size(), resume ? 14U : 12U);
  }
  EXPECT_TRUE(std::filesystem::is_symlink(dir.path() / "link.h5"));
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"first.h5", "link.h5", "runs"}));
  // A folder that is a link, and ".." after it: resolved where the kernel
  // resolves it (disk/store/x.h5), not by the names (./store/x.h5).
  std::filesystem::create_directories(dir.path() / "disk" / "runs");
  std::filesystem::create_directories(dir.path() / "disk" / "store");
  std::filesystem::create_directory_symlink("../disk/runs", dir.path() / "runs" / "sub");
  std::filesystem::create_symlink("../store/x.h5", dir.path() / "disk" / "runs" / "current.h5");
  const std::string through = dir.file("runs/sub/current.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "12", "-q", "-o", through}).exit_code, 0);
  const ProcessResult resumed = run_chomp({"sieve", "-n", "14", "-q", "--resume", "-o", through});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(resumed.err.find("starting a new run"), std::string::npos) << resumed.err;
  EXPECT_EQ(read_level_file(dir.file("disk/store/x.h5")).tiles.size(), 14U);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "runs" / "store"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "store"));
}

// HDF5's own error stack only with --debug.
TEST(HostileFiles, Hdf5ErrorStackOnlyWithDebug) {
  ScratchDir dir;
  const std::string path = dir.file("run.h5");
  std::filesystem::copy_file(base_file(), path);
  flip_byte(path, 20);
  const ProcessResult plain = run_chomp({"verify", "--finished", path});
  EXPECT_EQ(plain.exit_code, 1) << plain.err;
  EXPECT_EQ(plain.err.find("HDF5-DIAG"), std::string::npos) << plain.err;
  EXPECT_EQ(count_lines(plain.err), 1) << plain.err;
  const ProcessResult debug = run_chomp({"--debug", "verify", "--finished", path});
  EXPECT_EQ(debug.exit_code, 1) << debug.err;
  EXPECT_NE(debug.err.find("HDF5-DIAG"), std::string::npos) << debug.err;
}

// Grundy and rectangle files are written to NAME.tmp and renamed. A
// symbolic link left at the temporary name was written through (its target
// overwritten); a link at the name itself was replaced by the new file,
// its target left as it was. Now the link at NAME.tmp is removed and the
// link's target at NAME is the file written, as chomp sieve does.
TEST(HostileFiles, LinksAtTheTemporaryNameOrTheNameAreNotWrittenThroughOrReplaced) {
  ScratchDir dir;
  const std::string victim = dir.file("victim"), grundy = dir.file("g.h5"), csv = dir.file("r.csv"),
                    boxes = dir.file("r.h5");
  std::ofstream(victim) << "precious\n";
  for (const std::string& name : {grundy, csv, boxes}) std::filesystem::create_symlink(victim, name + ".tmp");
  ASSERT_EQ(run_chomp({"grundy", "-n", "10", "-q", "-o", grundy}).exit_code, 0);
  ASSERT_EQ(run_chomp({"rectangles", "--max-rows", "3", "--max-cols", "3", "-q", "--csv", csv, "-o", boxes}).exit_code,
            0);
  EXPECT_EQ(read_text(victim), "precious\n");
  for (const std::string& name : {grundy, csv, boxes}) {
    EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::symlink_status(name))) << name;
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(name + ".tmp"))) << name;
  }
  // A link to a Grundy file: --resume extends the target, and the link stays.
  const std::string link = dir.file("link.h5");
  std::filesystem::create_symlink(grundy, link);
  const ProcessResult r = run_chomp({"grundy", "--resume", "-n", "12", "-q", "-o", link});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: --output " + link + " is a symbolic link"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  const std::string shown = run_chomp({"show", grundy}).out;
  EXPECT_EQ(shown.rfind(grundy + ": Grundy values of 12 levels, status complete", 0), 0u) << shown;
  // So for the rectangles' two outputs.
  const std::string csv_link = dir.file("csv-link.csv"), h5_link = dir.file("h5-link.h5");
  std::filesystem::create_symlink(csv, csv_link);
  std::filesystem::create_symlink(boxes, h5_link);
  ASSERT_EQ(run_chomp({"rectangles", "--max-rows", "4", "--max-cols", "4", "-q", "--force", "--csv", csv_link, "-o",
                       h5_link})
                .exit_code,
            0);
  EXPECT_TRUE(std::filesystem::is_symlink(csv_link));
  EXPECT_TRUE(std::filesystem::is_symlink(h5_link));
  EXPECT_NE(read_text(csv).find("\n4,4,"), std::string::npos) << read_text(csv);
}

// HDF5 1.10 crashes (SIGSEGV) reading the attributes of some files with one
// byte flipped in their root object header's text references, which no
// checksum covers (h5dump crashes on the same files): a Grundy file (of the
// oldest file format) crashed chomp show at about one offset in ten there.
// Every such read now ends with the file named as damaged, exit 1; no
// flipped byte of that stretch may end the program by a signal.
TEST(HostileFiles, AFlippedByteInTheAttributesTextNeverCrashesTheProgram) {
  ScratchDir dir;
  const std::string made = dir.file("made.h5");
  ASSERT_EQ(run_chomp({"grundy", "-n", "12", "-q", "-o", made}).exit_code, 0);
  const std::string bytes = read_text(made);
  ASSERT_GT(bytes.size(), 2048u);
  // Some flips make HDF5 allocate gigabytes: each run is held to 1 GiB and
  // 30 s, four at a time (a long run may be beside the tests).
  constexpr std::size_t kFrom = 800, kTo = 2048, kStep = 5, kBatch = 4;
  ProcessOptions capped = bounded_options();
  if (!sanitized_binary()) capped.address_space_limit = 1LL << 30;
  int caught = 0, runs = 0;
  for (std::size_t first = kFrom; first < kTo; first += kStep * kBatch) {
    std::vector<std::unique_ptr<ChompProcess>> batch;
    std::vector<std::size_t> offsets;
    for (std::size_t at = first; at < std::min(kTo, first + kStep * kBatch); at += kStep) {
      const std::string copy = dir.file("flipped-" + std::to_string(at) + ".h5");
      std::string changed = bytes;
      changed[at] = static_cast<char>(changed[at] ^ 0xFF);
      std::ofstream(copy, std::ios::binary) << changed;
      batch.push_back(std::make_unique<ChompProcess>(std::vector<std::string>{"show", copy}, capped));
      offsets.push_back(at);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const Bounded b = finish(*batch[i], deadline);
      EXPECT_FALSE(b.hung) << "byte " << offsets[i];
      const ProcessResult& r = b.result;
      ++runs;
      if (!b.hung) EXPECT_EQ(r.signal, 0) << "byte " << offsets[i] << " flipped: ended by signal " << r.signal << "\n" << r.err;
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << "byte " << offsets[i] << ": " << r.err;
      if (r.err.find("the HDF5 library crashed reading the attributes of") != std::string::npos) {
        ++caught;
        EXPECT_EQ(r.exit_code, 1);
        EXPECT_NE(r.err.find("(damaged file"), std::string::npos) << r.err;
      }
    }
  }
  EXPECT_EQ(runs, 250);
  RecordProperty("crashes_caught", caught);
}
