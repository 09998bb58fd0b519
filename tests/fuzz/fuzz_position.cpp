/// @file fuzz_position.cpp
/// @brief libFuzzer target: the position parsers on arbitrary bytes. Each
/// input is either parsed into a valid staircase that round-trips or refused
/// with InvalidPosition and a one-line printable message; anything else
/// (another exception, a sanitizer report, a broken invariant) is a finding.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "chomp/position.hpp"

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

void check(chomp::Rows (*parse)(std::string_view), std::string_view text) {
  try {
    const chomp::Rows rows = parse(text);
    require(!rows.empty() && rows.size() + static_cast<std::size_t>(rows.front()) <= chomp::kMaxPathSteps);
    for (std::size_t i = 0; i < rows.size(); ++i) require(rows[i] > 0 && (i == 0 || rows[i] <= rows[i - 1]));
    require(chomp::parse_rows(chomp::rows_to_string(rows)) == rows);
    require(chomp::LatticePath::from_rows(rows).rows() == rows);
  } catch (const chomp::InvalidPosition& e) {
    const std::string_view what = e.what();
    require(!what.empty() && what.size() <= 300);
    for (char c : what) require(c >= 0x20 && c < 0x7F);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check(chomp::parse_rows, text);
  check(chomp::parse_picture, text);
  check(chomp::parse_position, text);
  return 0;
}
