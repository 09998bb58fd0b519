/// @file committed_data.hpp
/// @brief The committed exact table the tests compare against: the
/// data/levels-N.h5 (or .csv) with the largest N, as the notebooks read it,
/// so that a longer table needs no edit here.
#pragma once

#include <filesystem>
#include <regex>
#include <string>

namespace chomp::testing {

/// data/levels-N.EXT with the largest N (ext "h5" or "csv"); empty when none.
inline std::string committed_levels_file(const std::string& ext) {
  const std::regex name("levels-([0-9]+)\\." + ext);
  std::string best;
  int most = 0;
  for (const auto& entry : std::filesystem::directory_iterator(CHOMP_DATA_DIR)) {
    std::smatch m;
    const std::string file = entry.path().filename().string();
    if (std::regex_match(file, m, name) && std::stoi(m[1].str()) > most) {
      most = std::stoi(m[1].str());
      best = entry.path().string();
    }
  }
  return best;
}

}  // namespace chomp::testing
