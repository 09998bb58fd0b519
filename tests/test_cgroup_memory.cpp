/// @file test_cgroup_memory.cpp
/// @brief The room left under a process's cgroup memory limits, read from
/// trees laid out as the kernel lays out cgroup v2 and v1: the job's own
/// cgroup and those above it, not the mount's root alone.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "cgroup_memory.hpp"
#include "chomp_process.hpp"

namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

void put(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

}  // namespace

// A batch job under cgroup v2: the limit sits on the job's cgroup (its
// step has none), and the job's inactive page cache is not memory in use.
TEST(CgroupMemory, AV2LimitAboveTheProcessCountsLessItsInactivePageCache) {
  chomp::testing::ScratchDir dir;
  const std::filesystem::path root = dir.file("v2");
  put(dir.file("self"), "0::/job/step\n");
  put(root / "job/step/memory.max", "max\n");
  put(root / "job/step/memory.current", std::to_string(2 * kGiB) + "\n");
  put(root / "job/memory.max", std::to_string(8 * kGiB) + "\n");
  put(root / "job/memory.current", std::to_string(3 * kGiB) + "\n");
  put(root / "job/memory.stat", "anon 1\ninactive_file " + std::to_string(kGiB) + "\nactive_file 5\n");
  EXPECT_EQ(chomp::cgroup_memory_left(dir.file("self"), root.string(), dir.file("none")), 6 * kGiB);
  // A limit on the root too, smaller: the least of them.
  put(root / "memory.max", std::to_string(5 * kGiB) + "\n");
  put(root / "memory.current", std::to_string(kGiB) + "\n");
  EXPECT_EQ(chomp::cgroup_memory_left(dir.file("self"), root.string(), dir.file("none")), 4 * kGiB);
}

// cgroup v1, as this machine and many clusters run: the memory controller's
// own hierarchy, an unset limit reading a number near 2^63.
TEST(CgroupMemory, AV1LimitOnTheMemoryControllersHierarchyIsRead) {
  chomp::testing::ScratchDir dir;
  const std::filesystem::path root = dir.file("memory");
  put(dir.file("self"), "12:pids:/x\n4:memory:/slurm/uid_0/job_7\n3:cpu,cpuacct:/y\n1:name=systemd:/z\n");
  put(root / "slurm/uid_0/job_7/memory.limit_in_bytes", std::to_string(4 * kGiB) + "\n");
  put(root / "slurm/uid_0/job_7/memory.usage_in_bytes", std::to_string(kGiB + 4096) + "\n");
  put(root / "slurm/uid_0/job_7/memory.stat", "cache 9\ntotal_inactive_file 4096\n");
  put(root / "slurm/memory.limit_in_bytes", "9223372036854771712\n");
  put(root / "slurm/memory.usage_in_bytes", std::to_string(kGiB) + "\n");
  EXPECT_EQ(chomp::cgroup_memory_left(dir.file("self"), dir.file("none"), root.string()), 3 * kGiB);
}

// No limit anywhere: 0 (the budget then comes from MemAvailable); a cgroup
// already over its limit leaves 1 byte, never a wrapped-around number.
TEST(CgroupMemory, NoLimitIsZeroAndAnOverfullCgroupLeavesAByte) {
  chomp::testing::ScratchDir dir;
  const std::filesystem::path root = dir.file("v2");
  put(dir.file("self"), "0::/\n");
  put(root / "memory.max", "max\n");
  put(root / "memory.current", "123\n");
  EXPECT_EQ(chomp::cgroup_memory_left(dir.file("self"), root.string(), dir.file("none")), 0u);
  EXPECT_EQ(chomp::cgroup_memory_left(dir.file("missing"), root.string(), dir.file("none")), 0u);
  put(dir.file("self"), "0::/full\n");
  put(root / "full/memory.max", std::to_string(kGiB) + "\n");
  put(root / "full/memory.current", std::to_string(2 * kGiB) + "\n");
  EXPECT_EQ(chomp::cgroup_memory_left(dir.file("self"), root.string(), dir.file("none")), 1u);
}
