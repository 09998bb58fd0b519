/// @file cgroup_memory.cpp
/// @brief The room left under the memory limits of a process's cgroups
/// (cgroup_memory.hpp).

#include "cgroup_memory.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

namespace chomp {

std::uint64_t cgroup_memory_left(const std::string& self_cgroup, const std::string& v2_root,
                                 const std::string& v1_root) {
  namespace fs = std::filesystem;
  std::uint64_t best = 0;
  const auto number = [](const fs::path& file, std::uint64_t& value) {
    std::ifstream in(file);
    return static_cast<bool>(in >> value);
  };
  const auto inactive = [](const fs::path& stat, const std::string& key) {
    std::ifstream in(stat);
    std::string k;
    std::uint64_t v = 0;
    while (in >> k >> v)
      if (k == key) return v;
    return std::uint64_t{0};
  };
  // /proc/self/cgroup: "hierarchy:controllers:path", "0::path" for v2.
  std::ifstream self(self_cgroup);
  for (std::string line; std::getline(self, line);) {
    const std::size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    std::string controllers(1, ',');  // ",memory," among ",cpu,memory,", "," + "" + "," for v2
    controllers.append(line, a + 1, b - a - 1).push_back(',');
    const bool v2 = controllers == ",,", v1 = controllers.find(",memory,") != std::string::npos;
    if (!v2 && !v1) continue;
    const fs::path root = v2 ? v2_root : v1_root;
    const char* limit_file = v2 ? "memory.max" : "memory.limit_in_bytes";
    const char* used_file = v2 ? "memory.current" : "memory.usage_in_bytes";
    const std::string inactive_key = v2 ? "inactive_file" : "total_inactive_file";
    // The process's own cgroup and those above it, up to the mount's root
    // (inside a cgroup namespace the path is "/", the root is its own).
    fs::path dir = root / fs::path(line.substr(b + 1)).relative_path();
    for (int depth = 0; depth < 64; ++depth) {
      std::uint64_t limit = 0, used = 0;
      // An unset limit reads "max" (v2) or a number near 2^63 (v1).
      if (number(dir / limit_file, limit) && limit < (std::uint64_t{1} << 60) && number(dir / used_file, used)) {
        used -= std::min(used, inactive(dir / "memory.stat", inactive_key));
        const std::uint64_t left = limit > used ? limit - used : 1;
        if (best == 0 || left < best) best = left;
      }
      if (dir == root || !dir.has_relative_path() || dir.parent_path() == dir) break;
      dir = dir.parent_path();
    }
  }
  return best;
}


}  // namespace chomp
