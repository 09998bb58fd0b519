/// @file cgroup_memory.hpp
/// @brief The room left under the memory limits of a process's cgroups,
/// for the default memory budget (`chomp sieve` and the other commands
/// that size themselves to the memory available).
#pragma once

#include <cstdint>
#include <string>

namespace chomp {

/// The room left under the memory limits of this process's cgroup and of
/// each cgroup above it (batch schedulers and containers set one, on the
/// job's cgroup, not on the root): cgroup v2's memory.max less
/// memory.current, v1's memory.limit_in_bytes less memory.usage_in_bytes,
/// each not counting the cgroup's inactive page cache (the pages of files
/// written, a store or a checkpoint, which the kernel reclaims before it
/// runs out; container runtimes count a working set so). 0 where no limit
/// is set or none can be read. The paths are the kernel's by default; a
/// test gives a tree of its own.
std::uint64_t cgroup_memory_left(const std::string& self_cgroup = "/proc/self/cgroup",
                                 const std::string& v2_root = "/sys/fs/cgroup",
                                 const std::string& v1_root = "/sys/fs/cgroup/memory");

}  // namespace chomp
