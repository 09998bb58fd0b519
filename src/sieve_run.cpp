/// @file sieve_run.cpp
/// @brief A batch run of the sieve (include/chomp/sieve_run.hpp): its
/// provenance, store, result file, restored and computed levels, and what a
/// stop or a failure leaves.

#include "chomp/sieve_run.hpp"

#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <system_error>
#include <utility>
#include <vector>

#include "build_info.hpp"
#include "h5_provenance.hpp"
#include "config.hpp"

namespace chomp {

namespace {

/// The provenance of a new run, or of a resumed one: the file's, with a
/// line of resume_history naming the resuming program (it may be another
/// build: its revision goes with it).
Provenance run_provenance(const SieveRunRequest& r, const Resume* resume) {
  Provenance prov;
  h5::require_dimensions(r.dimensions, "SieveRunRequest");
  const int threads = r.options.threads;
  if (resume) {
    prov = resume->state().provenance;
    if (!prov.resume_history.empty()) prov.resume_history += '\n';
    // An MPI run's processes too: mpi_ranks keeps only the last run's count.
    prov.resume_history += utc_now() + ": restored levels 1.." + std::to_string(resume->state().levels) + " with " +
                           (r.processes > 1 ? std::to_string(r.processes) + " MPI processes of " : std::string()) +
                           std::to_string(threads) + (threads == 1 ? " thread" : " threads") + " (chomp " +
                           build::kVersion + ", revision " + build::kGitRevision + "): " + r.command_line;
  } else {
    prov.command_line = r.command_line;
    prov.start_utc = utc_now();
    prov.max_tiles = r.max_tiles;
    prov.store_losing = r.store_losing;
    prov.run_id = new_run_id();
    prov.store_file = std::filesystem::path(r.store_path).filename().string();
    prov.dimensions = r.dimensions;
  }
  prov.threads = threads;
  prov.memory_budget = r.options.memory_budget;
  if (r.dimensions == 2) {
    const int rows = inferred_rows(r.max_tiles, r.options, r.processes);
    prov.inferred_marks = resume ? continued_inferred_marks(prov.inferred_marks, rows, resume->state().levels + 1)
                                 : inferred_marks_text(rows);
  }
  prov.processes = r.processes;
  prov.mpi_library = r.processes > 1 ? r.mpi_library : std::string();
  return prov;
}

/// The request with its store beside the output: store_path_for(output)
/// where none is given. The file names its store relative to its own
/// folder, so a store elsewhere would make a file whose readers find none.
SieveRunRequest with_store_beside(SieveRunRequest r) {
  if (r.store_path.empty()) r.store_path = store_path_for(r.output);
  const auto folder = [](const std::string& p) {
    return std::filesystem::absolute(std::filesystem::path(p)).lexically_normal().parent_path();
  };
  if (folder(r.store_path) != folder(r.output))
    throw std::invalid_argument("SieveRunRequest: store_path " + r.store_path + " is not in the folder of output " +
                                r.output + " (the file names its store relative to its own folder; leave "
                                "store_path empty for store_path_for(output))");
  return r;
}

/// A step called out of the header's order: a library caller's mistake,
/// said as one, where it would dereference a part not made yet.
void require(bool ok, const char* step, const char* needs) {
  if (!ok) throw std::logic_error(std::string("SieveRun::") + step + ": " + needs + " (sieve_run.hpp lists the steps in order)");
}

}  // namespace

SieveRun::SieveRun(SieveRunRequest request, std::unique_ptr<Resume> resume)
    : request_(with_store_beside(std::move(request))),
      resume_(std::move(resume)),
      resuming_(resume_ != nullptr),
      provenance_(run_provenance(request_, resume_.get())),
      partial_(request_.output + ".partial") {}

SieveRun::~SieveRun() = default;

void SieveRun::open_store() {
  try {
    store_ = resume_ ? resume_->open_store(true) : LosingStore::create(request_.store_path, provenance_.run_id);
  } catch (const StoreError& e) {
    throw std::runtime_error(e.what());
  }
}

void SieveRun::open_file() {
  require(store_ != nullptr, "open_file", "call open_store() first");
  require(!out_, "open_file", "the file is made already");
  out_.emplace(partial_, provenance_);
}

void SieveRun::name_file() {
  require(!resuming_, "name_file", "a resumed run's file is named by restore(), not name_file()");
  require(out_ && out_->path() == partial_, "name_file", "call open_file() first, once");
  out_->rename_to(request_.output);
}

bool SieveRun::named() const { return out_ && out_->path() == request_.output; }

void SieveRun::restore(const std::function<void(int n, int levels)>& checking, const std::atomic<bool>* stop) {
  require(resume_ != nullptr, "restore", resuming_ ? "the run is restored already" : "a new run has nothing to restore");
  require(out_.has_value(), "restore", "call open_store() and open_file() first");
  require(request_.dimensions != 3 || sieve3d_, "restore", "a 3D run calls make_sieve3d() before restore()");
  const auto start = std::chrono::steady_clock::now();
  const int levels = resume_->state().levels;
  std::function<void(int)> load;
  if (sieve3d_)
    load = [&](int n) {
      const std::vector<std::uint64_t> ranks = store_->all(n);
      sieve3d_->restore_level(ranks);
    };
  resume_->restore(*store_, *out_, [&](int n) { checking(n, levels); }, stop, load);
  out_->rename_to(request_.output);
  restored_levels_ = levels;
  restore_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  resume_.reset();
}

Sieve& SieveRun::make_sieve(ProcessGroup* group, const std::atomic<bool>* stop) {
  require(named(), "make_sieve", "the file is not named yet: name_file() for a new run, restore() for a resumed one");
  require(request_.dimensions != 3, "make_sieve", "a 3D run makes its sieve with make_sieve3d()");
  sieve_ = std::make_unique<Sieve>(request_.max_tiles, *store_, request_.options, group);
  sieve_->set_stop_flag(stop);
  return *sieve_;
}

Sieve3d& SieveRun::make_sieve3d(const std::atomic<bool>* stop) {
  require(request_.dimensions == 3, "make_sieve3d", "a 2D run makes its sieve with make_sieve()");
  sieve3d_ = std::make_unique<Sieve3d>(request_.max_tiles);
  sieve3d_->set_stop_flag(stop);
  return *sieve3d_;
}

void SieveRun::run(const std::function<void(const LevelResult&)>& on_level, const ProgressFn& progress) {
  require(sieve_ || sieve3d_, "run", "call make_sieve() (or make_sieve3d()) first");
  require(named(), "run", "the file is not named yet: name_file() for a new run, restore() for a resumed one");
  if (sieve3d_) {
    while (sieve3d_->levels_done() < request_.max_tiles) {
      LevelResult r = sieve3d_->next_level(progress);
      const auto start = std::chrono::steady_clock::now();
      try {
        const std::vector<std::uint64_t> ranks = sieve3d_->losing_ranks(r.tiles);
        store_->begin_level(r.tiles);
        store_->append(ranks);
        r.stored = store_->finish_level();
      } catch (...) {
        store_->abandon_level();
        throw;
      }
      r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      compute_seconds_ += r.seconds;
      out_->append(r);
      on_level(r);
    }
    return;
  }
  sieve_->run(
      [&](const LevelResult& r) {
        compute_seconds_ += r.seconds + r.window_seconds;
        save_level(*out_, *sieve_, r);
        on_level(r);
      },
      progress);
}

void SieveRun::finish() {
  require(named(), "finish", "the file is not named yet: name_file() for a new run, restore() for a resumed one");
  out_->finish("complete");
}

bool SieveRun::stopped() {
  if (!out_) return false;  // stopped before open_file(): no file
  if (out_->path() == partial_) {
    // Stopped while checking the old file: it is untouched.
    out_.reset();
    std::error_code ec;
    std::filesystem::remove(partial_, ec);
    return false;
  }
  finish_or_leave("interrupted");
  return true;
}

void SieveRun::finish_or_leave(const std::string& status) {
  // Recording the status writes new strings to the file (HDF5 keeps them
  // in a heap that grows): on a disk without room for them, the attribute
  // would point past the end of the file, and the file could no longer be
  // read. Leave it as a kill would instead: its finished levels readable,
  // status "running", resumable.
  // Nor can a file near its size limit (ulimit -f), which the free space
  // does not show: writing the status there failed half way and left the
  // file unreadable (a store that filled up at the limit stopped the run).
  std::error_code ec_size, ec_space;
  const std::uint64_t size = std::filesystem::file_size(out_->path(), ec_size);
  rlimit limit{};
  const bool over_limit = !ec_size && getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
                          size + config::kFinishRoomUnderLimit > static_cast<std::uint64_t>(limit.rlim_cur);
  const auto room = std::filesystem::space(std::filesystem::absolute(out_->path()).parent_path(), ec_space);
  if ((!ec_space && room.available < config::kFinishRoomBytes) || over_limit) {
    out_->abandon();
    left_status_ = "running";
    return;
  }
  out_->finish(status);
  left_status_ = status;
}

int SieveRun::levels_done() const {
  if (sieve3d_) return sieve3d_->levels_done();
  return sieve_ ? sieve_->levels_done() : restored_levels_;
}

bool SieveRun::failed(const std::exception& e) {
  const bool write_failed = dynamic_cast<const H5Error*>(&e) != nullptr;
  const bool disk_full = dynamic_cast<const StoreFull*>(&e) != nullptr;
  if (!out_) return false;  // failed before open_file(): no file
  if (out_->path() == partial_) {
    out_.reset();
    std::error_code ec;
    std::filesystem::remove(partial_, ec);
    return false;
  }
  if (write_failed) {
    // A write failed: closing would write HDF5's superblock over the
    // failed writes; leave the file as a kill would (status "running").
    out_->abandon();
  } else {
    try {
      finish_or_leave(disk_full ? "interrupted" : "failed");
    } catch (...) {
      // The file keeps status "running"; its finished levels stay readable.
    }
  }
  return true;
}

}  // namespace chomp
