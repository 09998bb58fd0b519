/// @file communication_volume.cpp
/// @brief What the processes of a distributed sieve send each other (the
/// bytes MPI would carry), per position and per mark of each level, with
/// processes simulated by threads: the figures of
/// doc/MPI.md. A measurement, not a check.
///
/// Usage: chomp_communication_volume [N]   (default 80; K = 2 and 4 processes)

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <cstdlib>
#include <iostream>
#include <vector>

#include "chomp/sieve.hpp"
#include "thread_group.hpp"

using namespace chomp;

int main(int argc, char** argv) {
  const int top = argc > 1 ? std::atoi(argv[1]) : 80;
  if (top < 2 || top > 120) {
    std::cerr << "usage: chomp_communication_volume [N]   (2 <= N <= 120)\n";
    return 2;
  }
  // Windows of 4 MiB per process (a few levels each at N = 80, one at
  // 100), as in large runs, and the default rounds.
  SieveOptions one_level;
  one_level.window_bits = std::uint64_t{32} << 20;
  for (int k : {2, 4}) {
    // The store: process 0 writes it, the others read it (removed at once:
    // their descriptors keep it).
    std::string path = (std::filesystem::temp_directory_path() / "chomp-volume-XXXXXX").string();
    close(mkstemp(path.data()));
    const std::string id = new_run_id();
    const auto written = LosingStore::create(path, id);
    testing::ThreadGroups groups(k);
    std::vector<std::uint64_t> bytes;
    std::vector<LevelResult> levels;
    groups.run([&](ProcessGroup& g) {
      std::unique_ptr<LosingStore> read;
      if (g.index() != 0) read = LosingStore::open(path, id, {}, false);
      g.sum(std::span<std::uint64_t>());  // every process has the store open
      if (g.index() == 0) std::filesystem::remove(path);
      Sieve s(top, g.index() == 0 ? *written : *read, one_level, &g);
      s.run([&](const LevelResult& l) {
        if (g.index() == 0) bytes.push_back(groups.bytes_sent()), levels.push_back(l);
      });
    });
    std::uint64_t before = 0, positions = 0, marks = 0;
    for (std::size_t i = 0; i < levels.size(); ++i) {
      const LevelResult& l = levels[i];
      const std::uint64_t sent = bytes[i] - before;
      before = bytes[i];
      positions += l.positions, marks += l.marks;
      if (l.tiles % 10 == 0 || l.tiles > top - 3)
        std::cout << "K=" << k << " n=" << l.tiles << " p=" << l.positions << " marks/position="
                  << static_cast<double>(l.marks) / static_cast<double>(l.positions) << " bytes sent=" << sent
                  << " bytes/position=" << static_cast<double>(sent) / static_cast<double>(l.positions)
                  << " bytes/mark=" << static_cast<double>(sent) / static_cast<double>(l.marks) << "\n";
    }
    std::cout << "K=" << k << " levels 1.." << top << ": " << before << " bytes, "
              << static_cast<double>(before) / static_cast<double>(positions) << " per position, "
              << static_cast<double>(before) / static_cast<double>(marks) << " per mark\n";
  }
  return 0;
}
