/// @file cli_checks.cpp
/// @brief Strict validators for command-line values; printable echoes of input.

#include "cli_checks.hpp"
#include "chomp/position.hpp"
#include "commands.hpp"
#include "cgroup_memory.hpp"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tbb/info.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace chomp::app {

namespace {

/// Length of the valid UTF-8 sequence starting at s[i] (2..4), or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  unsigned min = 0;
  if (c >= 0xC2 && c <= 0xDF) len = 2, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) len = 3, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) len = 4, min = 0x10000;
  else return 0;
  if (i + len > s.size()) return 0;
  unsigned cp = c & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

bool all_digits(std::string_view s) {
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return !s.empty();
}

std::string in_quotes(const std::string& value) { return "'" + printable(value) + "'"; }

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (out.size() >= max_bytes) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (const std::size_t len = c >= 0x80 ? utf8_sequence(text, i) : 0; len > 0) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
      ++i;
    }
  }
  return out;
}

CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi, const std::string& why_max) {
  const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        if (value.empty()) return "an empty value is not a number; give a whole number from " + range;
        if (value[0] == '-' && all_digits(std::string_view(value).substr(1)))
          return in_quotes(value) + " is negative; give a whole number from " + range;
        if (!all_digits(value))
          return in_quotes(value) + " is not a whole number; give decimal digits only, from " + range;
        // Leading zeros are read as decimal ("010" is ten, "08" eight): the
        // value is handed on without them, since CLI11's own conversion
        // would read a leading 0 as octal.
        const std::size_t first = std::min(value.find_first_not_of('0'), value.size() - 1);
        const std::string digits = value.substr(first);
        std::uint64_t number = 0;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
        if (ec != std::errc() || end != digits.data() + digits.size() || number > hi)
          return in_quotes(value) + " is too large: at most " + std::to_string(hi) + why_max;
        if (number < lo) return in_quotes(value) + " is too small: at least " + std::to_string(lo);
        value = digits;
        return {};
      },
      "INT in " + std::to_string(lo) + ".." + std::to_string(hi));
}

CLI::Validator decimal_number(double hi) {
  char bound[32];
  std::snprintf(bound, sizeof bound, "%.0f", hi);  // whole: the validator refuses "1e+06"
  const std::string range = std::string("0 to ") + bound;
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        const std::size_t point = value.find('.');
        const std::string digits =
            point == std::string::npos ? value : value.substr(0, point) + value.substr(point + 1);
        if (!value.empty() && value[0] == '-') return in_quotes(value) + " is negative; give a number from " + range;
        if (digits.empty() || !all_digits(digits))  // a second point is left in digits
          return in_quotes(value) + " is not a decimal number; give digits with at most one point, from " + range;
        if (std::strtod(value.c_str(), nullptr) > hi) return in_quotes(value) + " is too large: at most " + bound;
        return {};
      },
      "NUMBER in " + range);
}

CLI::Validator input_file(const std::string& what) {
  return CLI::Validator(
      [what](std::string& value) -> std::string {
        std::error_code ec;
        const auto status = std::filesystem::status(value, ec);
        if (std::filesystem::is_directory(status)) return in_quotes(value) + " is a folder; give " + what;
        if (!std::filesystem::exists(status))
          return "there is no file " + in_quotes(value) + "; give " + what + " (check the name and the folder)";
        return {};
      },
      "FILE");
}

CLI::Validator output_file_name(bool dash_is_stdout) {
  return CLI::Validator(
      [dash_is_stdout](std::string& value) -> std::string {
        if (value.empty()) return "an empty file name; give the name of a file to write";
        if (value == "-" && !dash_is_stdout)
          return "'-' would name a file called '-': an HDF5 file does not go to standard output; give a file name";
        for (char c : value)
          if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
            return in_quotes(value) + " contains a control character; give a plain file name";
        if (value.back() == '/') return in_quotes(value) + " names a folder; give a file name";
        // A device, pipe or socket (/dev/null, a FIFO): results are written
        // to a new file renamed over the name, which would replace the device
        // itself when run as root, and a pipe cannot hold an HDF5 file.
        // ('-' is standard output where an option takes it, as --csv does.)
        std::error_code ec;
        const auto status = std::filesystem::status(value, ec);
        if (value != "-" && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status) &&
            !std::filesystem::is_directory(status))
          return in_quotes(value) + " is not a regular file (a device, a pipe or a socket); give the name of a "
                 "file to write";
        if (value.size() >= PATH_MAX)
          return "the file name is " + std::to_string(value.size()) + " bytes long; at most " +
                 std::to_string(PATH_MAX - 1) + " are possible";
        std::size_t part = 0;
        for (std::size_t i = 0; i <= value.size(); ++i) {
          if (i == value.size() || value[i] == '/') {
            if (part > NAME_MAX)
              return in_quotes(value) + " has a part of " + std::to_string(part) + " bytes; at most " +
                     std::to_string(NAME_MAX) + " are possible";
            part = 0;
          } else {
            ++part;
          }
        }
        return {};
      },
      "FILE");
}

std::optional<std::uint64_t> parse_byte_size(std::string_view text, std::string& why) {
  const std::string shown = in_quotes(std::string(text));
  const std::string form = "; give a size such as 512M or 20G (K, M, G, T are powers of 1024)";
  std::size_t i = 0;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
  const std::string_view number = text.substr(0, i);
  std::string unit(text.substr(i));
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
  if (text.empty()) {
    why = "an empty size" + form;
    return std::nullopt;
  }
  if (!all_digits(whole) || (dot != std::string_view::npos && !all_digits(frac))) {
    why = shown + " is not a size" + form;
    return std::nullopt;
  }
  int shift = -1;
  const char* units[][3] = {{"", "B", ""}, {"K", "KB", "KIB"}, {"M", "MB", "MIB"}, {"G", "GB", "GIB"}, {"T", "TB", "TIB"}};
  for (int u = 0; u < 5; ++u)
    for (const char* name : units[u])
      if (unit == name && (*name || u == 0)) shift = 10 * u;
  if (shift < 0) {
    why = shown + " has an unknown unit" + form;
    return std::nullopt;
  }
  if (whole.size() > 15) {
    why = shown + " is too large" + form;
    return std::nullopt;
  }
  if (frac.size() > 15) {
    why = shown + " has more than 15 digits after the point" + form;
    return std::nullopt;
  }
  const long double value =
      std::stold(std::string(whole) + (frac.empty() ? "" : "." + std::string(frac))) * std::ldexp(1.0L, shift);
  // At most 2^60 bytes (1048576T): files record a budget as a signed 64-bit
  // number, and a plan's sizes in bits must stay below 2^64.
  if (value > std::ldexp(1.0L, 60)) {
    why = shown + " is more than 1048576T (2^60 bytes)" + form;
    return std::nullopt;
  }
  if (value < 1) {
    why = shown + " is zero" + form;
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(value);
}

CLI::Validator byte_size() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        std::string why;
        return parse_byte_size(value, why) ? std::string() : why;
      },
      "SIZE");
}

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

int with_words_hint(const std::vector<std::string>& words, const std::string& what, const std::function<int()>& run) {
  try {
    return run();
  } catch (const InvalidPosition& e) {
    const bool plus = std::any_of(words.begin(), words.end(),
                                  [](const std::string& w) { return w.find('+') != std::string::npos; });
    if (words.size() < 2 || plus) throw;
    throw InvalidPosition(std::string(e.what()) + " (" + what + " came as " + std::to_string(words.size()) +
                          " words, read as one: join the boards of a sum with '+', such as \"3x4 + 2x5\", or "
                          "give one position)");
  }
}

std::string shell_quote(const std::string& text) {
  bool plain = !text.empty();
  for (char c : text)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' || c == '-' ||
          c == '+' || c == ',' || c == ':' || c == '='))
      plain = false;
  if (plain) return text;
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out.push_back(c);
  }
  return out + "'";
}

int worker_threads(int requested) {
  const int cores = tbb::info::default_concurrency();
  return requested > 0 && requested < cores ? requested : cores;
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", b, units[u]);
  return buf;
}

/// Memory this process may still use, in bytes, and what bounds it; 0 if
/// unknown. The least of MemAvailable, the room left under the memory
/// limits of its cgroups (cgroup_memory_left), and ulimit -v.
std::pair<std::uint64_t, std::string> available_memory() {
  std::uint64_t best = 0;
  std::string source;
  auto consider = [&](std::uint64_t bytes, const char* what) {
    if (bytes > 0 && (best == 0 || bytes < best)) best = bytes, source = what;
  };
  {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    std::uint64_t kb = 0;
    while (in >> key >> kb >> unit)
      if (key == "MemAvailable:") consider(kb * 1024, "available (MemAvailable)");
  }
  consider(cgroup_memory_left(), "left under the memory limit of this process's cgroup");
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    consider(static_cast<std::uint64_t>(as.rlim_cur), "allowed by ulimit -v");
  return {best, source};
}

std::uint64_t machine_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kb = 0;
  while (in >> key >> kb >> unit)
    if (key == "MemTotal:") return kb * 1024;
  return 0;
}

void refuse_unless_memory_left(std::uint64_t bytes, const std::string& what, const std::string& detail,
                               const std::string& advice) {
  const auto [avail, source] = available_memory();
  if (avail == 0 || bytes <= avail) return;
  throw UsageError(what + " needs about " + human_bytes(static_cast<double>(bytes)) + " of memory (" + detail +
                   "), and only " + human_bytes(static_cast<double>(avail)) + " is " + source + "; " + advice);
}

void refuse_folder_stdin(const std::string& what) {
  struct stat st {};
  if (fstat(STDIN_FILENO, &st) == 0 && S_ISDIR(st.st_mode))
    throw UsageError("standard input is a folder, from which " + what + " cannot be read; give it a file or a pipe");
}

void refuse_side_file_name(const std::string& output, const std::string& option, const std::string& ending) {
  const std::string name = std::filesystem::path(output).filename().string();
  for (const std::string_view suffix : {".store", ".window", ".partial", ".lock", ".tmp"})
    if (name.size() > suffix.size() && name.ends_with(suffix))
      throw UsageError(option + " " + printable(output, 200) + " ends in " + std::string(suffix) +
                       ", the name of a run's side file (its store, window's checkpoint, partial file or lock), "
                       "which another run's output may own; give a name ending in " + ending);
}

}  // namespace chomp::app
