/// @file communication_volume.cpp
/// @brief What the processes of a distributed sieve send each other (the
/// bytes MPI would carry), per position and per mark of each level, with
/// processes simulated by threads: the figures of
/// experiments/cluster/README.md. A measurement, not a check.
///
/// Usage: chomp_communication_volume [N]   (default 80; K = 2 and 4 processes)

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <vector>

#include "chomp/sieve.hpp"
#include "sieve_testing.hpp"
#include "thread_group.hpp"

using namespace chomp;

int main(int argc, char** argv) {
  const int top = argc > 1 ? std::atoi(argv[1]) : 80;
  if (top < 2 || top > 120) {
    std::cerr << "usage: chomp_communication_volume [N]   (2 <= N <= 120)\n";
    return 2;
  }
  // One level per window, as in large runs, and the default rounds.
  const detail::ForTesting one_level(detail::g_window_bytes_for_testing, 1);
  for (int k : {2, 4}) {
    testing::ThreadGroups groups(k);
    std::vector<std::uint64_t> bytes;
    std::vector<LevelResult> levels;
    groups.run([&](ProcessGroup& g) {
      Sieve s(top, &g);
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
