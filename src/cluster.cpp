/// @file cluster.cpp
/// @brief MPI start-up and the MPI process group (compiled with MPI only
/// under CHOMP_WITH_MPI).

#include "chomp/cluster.hpp"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#ifdef CHOMP_WITH_MPI
// The C API only: the deprecated C++ bindings would need their own library.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace chomp {

bool started_by_mpi_launcher() {
  // Open MPI's mpirun, PMIx (Open MPI, srun --mpi=pmix), PMI/PMI2 (MPICH's
  // Hydra, srun --mpi=pmi2).
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

int launched_processes() {
  // A count, or -1 where the variable is missing or not a number; capped
  // (a rank of 20 digits must not overflow).
  const auto number = [](const char* name) -> long long {
    const char* v = std::getenv(name);
    if (v == nullptr || *v < '0' || *v > '9') return -1;
    char* end = nullptr;
    const long long n = std::strtoll(v, &end, 10);
    return *end == '\0' ? std::min(n, static_cast<long long>(INT_MAX) - 1) : -1;
  };
  long long n = 1;
  for (const char* size : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) n = std::max(n, number(size));
  // PMIx names the rank alone; srun says the step's size.
  if (std::getenv("PMIX_RANK")) n = std::max(n, number("SLURM_STEP_NUM_TASKS"));
  for (const char* rank : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) n = std::max(n, number(rank) + 1);
  return static_cast<int>(n);
}

namespace {

std::string host() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "?";
  return buf;
}

#ifdef CHOMP_WITH_MPI

/// MPI counts are ints; larger messages are refused with a reason (the
/// sieve keeps its messages far below: a round's marks, a piece of ranks).
int mpi_count(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw std::runtime_error(std::string("MPI message too large: ") + what + " of " + std::to_string(n) +
                             " values exceeds 2^31 - 1");
  return static_cast<int>(n);
}

class MpiGroup final : public ProcessGroup {
 public:
  explicit MpiGroup(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &index_);
    MPI_Comm_size(comm_, &size_);
  }
  int index() const override { return index_; }
  int size() const override { return size_; }

  void exchange(std::span<const std::uint64_t> send, std::span<const std::size_t> send_counts,
                std::vector<std::uint64_t>& received, std::vector<std::size_t>& received_counts) override {
    const auto P = static_cast<std::size_t>(size_);
    std::vector<int> sc(P), sd(P), rc(P), rd(P);
    std::size_t at = 0;
    for (std::size_t p = 0; p < P; ++p) {
      sc[p] = mpi_count(send_counts[p], "marks for one process");
      sd[p] = mpi_count(at, "marks for all processes");
      at += send_counts[p];
    }
    MPI_Alltoall(sc.data(), 1, MPI_INT, rc.data(), 1, MPI_INT, comm_);
    received_counts.assign(P, 0);
    at = 0;
    for (std::size_t p = 0; p < P; ++p) {
      rd[p] = mpi_count(at, "marks received from all processes");
      received_counts[p] = static_cast<std::size_t>(rc[p]);
      at += received_counts[p];
    }
    received.resize(at);
    MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_UINT64_T, received.data(), rc.data(), rd.data(),
                  MPI_UINT64_T, comm_);
  }

  void sum(std::span<std::uint64_t> values) override {
    MPI_Allreduce(MPI_IN_PLACE, values.data(), mpi_count(values.size(), "a sum"), MPI_UINT64_T, MPI_SUM, comm_);
  }

  void broadcast(std::span<std::uint64_t> values, int root) override {
    MPI_Bcast(values.data(), mpi_count(values.size(), "a broadcast"), MPI_UINT64_T, root, comm_);
  }

 private:
  MPI_Comm comm_;
  int index_ = 0, size_ = 1;
};

#endif

}  // namespace

struct Cluster::Impl {
#ifdef CHOMP_WITH_MPI
  bool initialised = false;
  std::unique_ptr<MpiGroup> group;
#endif
  int index = 0, size = 1;
};

Cluster::Cluster() : impl_(std::make_unique<Impl>()) {
#ifdef CHOMP_WITH_MPI
  if (!started_by_mpi_launcher()) return;
  // Only the thread that made the Cluster calls MPI; oneTBB's workers never do.
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Init_thread failed");
  impl_->initialised = true;
  // Errors in MPI calls end the whole job (the default, said explicitly):
  // one process cannot go on without the others.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_rank(MPI_COMM_WORLD, &impl_->index);
  MPI_Comm_size(MPI_COMM_WORLD, &impl_->size);
  if (impl_->size > 1) impl_->group = std::make_unique<MpiGroup>(MPI_COMM_WORLD);
  if (provided < MPI_THREAD_FUNNELED && impl_->index == 0)
    std::fprintf(stderr, "chomp: warning: the MPI library offers no thread support (MPI_THREAD_FUNNELED); "
                         "the sieve's threads never call MPI, but the library may object\n");
#endif
}

Cluster::~Cluster() {
#ifdef CHOMP_WITH_MPI
  if (impl_->initialised) {
    impl_->group.reset();
    MPI_Finalize();
  }
#endif
}

int Cluster::index() const { return impl_->index; }
int Cluster::size() const { return impl_->size; }

ProcessGroup* Cluster::group() {
#ifdef CHOMP_WITH_MPI
  return impl_->group.get();
#else
  return nullptr;
#endif
}

void Cluster::abort(const std::string& why, int exit_code) const {
  std::fprintf(stderr, "chomp: process %d of %d (host %s): %s\n", impl_->index, impl_->size, host().c_str(),
               why.c_str());
#ifdef CHOMP_WITH_MPI
  if (impl_->initialised) {
    std::fprintf(stderr, "chomp: stopping all %d processes of the job (MPI_Abort)\n", impl_->size);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, exit_code);
  }
#endif
  std::fflush(stderr);
  std::_Exit(exit_code);
}

std::string Cluster::library_version() const {
#ifdef CHOMP_WITH_MPI
  char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string v(buf, static_cast<std::size_t>(len));
  const auto cut = v.find_first_of(",\n");  // "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4"
  return cut == std::string::npos ? v : v.substr(0, cut);
#else
  return {};
#endif
}


}  // namespace chomp
