/// @file cmd_show.cpp
/// @brief `chomp show`: a result file's table and provenance from the
/// command line (text, CSV or JSON), with what its store holds per level.

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "chomp/grundy_file.hpp"
#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/ranking.hpp"
#include "chomp/three_rows.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"
#include "run_claim.hpp"
#include "sieve_args.hpp"

namespace chomp::app::cmd_show {
namespace {

struct ShowArgs {
  std::string file;
  bool csv = false;
  bool json = false;
  bool three_rows = false;
};

/// A CSV has no room to say that its run is unfinished, and it is what
/// people redirect into a file: so standard error says it, for a file whose
/// status is not "complete" (its rows are only the levels finished so far).
/// `resume`: the command that continues the run.
void note_unfinished(const std::string& file, const std::string& status, std::size_t rows,
                     std::optional<std::int64_t> max_tiles, const std::string& resume) {
  if (status == "complete") return;
  std::cerr << "note: " << printable(file) << " is unfinished (status " << (status.empty() ? "?" : status)
            << "): the table holds " << rows << " finished level" << (rows == 1 ? "" : "s");
  if (max_tiles) std::cerr << " of the run's " << *max_tiles;
  std::cerr << (RunClaim::held(file) ? ", and its run is still writing it" : "; " + resume + " continues it") << "\n";
}

void note_unfinished(const std::string& file, const LevelTable& t, std::size_t rows) {
  if (t.complete()) return;
  const auto max = t.number_attributes.find("max_tiles");
  note_unfinished(file, t.status(), rows,
                  max == t.number_attributes.end() ? std::nullopt : std::optional<std::int64_t>(max->second),
                  resume_command(file, t));
}

/// The losing positions of at most three rows of every level, from the
/// store, as CSV: what a levels-only copy records as its verifiable sample
/// (and, for such a copy, that sample itself).
int show_three_rows(const ShowArgs& a, const LevelFileReader& reader) {
  const int rows = static_cast<int>(reader.table().tiles.size()) - (reader.last_row_written_in_part() ? 1 : 0);
  if (const auto d = reader.table().number_attributes.find("dimensions");
      d != reader.table().number_attributes.end() && d->second == 3)
    throw UsageError(a.file + " is a table of 3D Chomp (root attribute dimensions = 3): --three-rows lists 2D "
                     "positions of at most three rows, which its store does not hold");
  if (reader.table().number_attributes.count("levels_only")) {
    bool present = false;
    const auto recorded = read_three_row_record(a.file, rows, present);
    if (!present)
      throw std::runtime_error(a.file + " is a levels-only copy without the sample of three-row positions "
                               "(/verifiable/three_row_losing); --three-rows needs the file the run wrote, with "
                               "its store");
    note_unfinished(a.file, reader.table(), static_cast<std::size_t>(rows));
    std::printf("tiles,row_1,row_2,row_3\n");
    for (int n = 1; n <= rows; ++n)  // each level's sorted, as three_row_positions(n)
      for (const ThreeRows& p : recorded[static_cast<std::size_t>(n - 1)])
        std::printf("%d,%d,%d,%d\n", n, p[0], p[1], p[2]);
    return 0;
  }
  if (!reader.has_store())
    throw std::runtime_error(a.file + " names no store: --three-rows reads the losing positions from the store "
                             "of the run itself" +
                             (reader.format_version() < 3
                                  ? std::string(", and an engine of format_version ") +
                                        std::to_string(reader.format_version()) + " kept none"
                                  : std::string()));
  const auto store = LosingStore::open(reader.store_path(), reader.run_id(), reader.stored_levels(rows), false);
  const PartitionTable table(rows);
  note_unfinished(a.file, reader.table(), static_cast<std::size_t>(rows));
  std::printf("tiles,row_1,row_2,row_3\n");
  for (int n = 1; n <= store->levels(); ++n)
    for (const ThreeRows& p : three_row_positions(n)) {
      Rows r;
      for (const int x : p)
        if (x > 0) r.push_back(x);
      if (store->contains(n, table.rank(r))) std::printf("%d,%d,%d,%d\n", n, p[0], p[1], p[2]);
    }
  return 0;
}

/// The length of the well-formed UTF-8 sequence at text[i], or 0.
std::size_t utf8_sequence(const std::string& text, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = at(i);
  const std::size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                        : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((at(i + k) & 0xC0) != 0x80) return 0;
  // No overlong forms, UTF-16 surrogates or code points past U+10FFFF.
  if ((c == 0xE0 && at(i + 1) < 0xA0) || (c == 0xED && at(i + 1) > 0x9F) || (c == 0xF0 && at(i + 1) < 0x90) ||
      (c == 0xF4 && at(i + 1) > 0x8F))
    return 0;
  return n;
}

/// An attribute's text for the table: bytes that are not valid UTF-8 or are
/// control characters (a damaged file's) as \xNN, line by line.
std::string attribute_text(const std::string& text) {
  std::string out;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    out += printable(std::string_view(text).substr(at, end - at), 1 << 16);
    if (end == text.size()) break;
    out += '\n';
    at = end + 1;
  }
  return out;
}

/// text as a JSON string. A byte that is not UTF-8 (a file name or command
/// line in another encoding) is written as \udcXX, the escape Python's
/// "surrogateescape" reads back to the byte, so that the output stays JSON.
std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = utf8_sequence(text, i);
    char buf[8];
    if (n == 0) {
      std::snprintf(buf, sizeof buf, "\\udc%02x", c);
      out += buf;
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out.append(text, i, n);
    }
    i += n;
  }
  return out + "\"";
}

/// A float for JSON (NaN has no JSON form: null).
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// `chomp show` of a `chomp grundy` file: its counts of each value.
int show_grundy(const ShowArgs& a) {
  const GrundyFile g = read_grundy_file(a.file);
  const std::size_t rows = g.tiles.size();
  const std::size_t width = rows ? g.counts[0].size() : 0;
  if (a.csv) {
    const auto status = g.text_attributes.find("status");
    const auto max = g.number_attributes.find("max_tiles");
    note_unfinished(a.file, status == g.text_attributes.end() ? "" : status->second, rows,
                    max == g.number_attributes.end() ? std::nullopt : std::optional<std::int64_t>(max->second),
                    program_path() + " grundy --resume --output " + shell_quote(a.file));
    std::printf("tiles,positions,largest_value,seconds");
    for (std::size_t v = 0; v < width; ++v) std::printf(",g%zu", v);
    std::printf("\n");
    for (std::size_t i = 0; i < rows; ++i) {
      std::printf("%u,%llu,%u,%.6f", g.tiles[i], static_cast<unsigned long long>(g.positions[i]), g.largest[i],
                  g.seconds[i]);
      for (std::uint64_t c : g.counts[i]) std::printf(",%llu", static_cast<unsigned long long>(c));
      std::printf("\n");
    }
    return 0;
  }
  if (a.json) {
    std::printf("{\n  \"file\": %s,\n  \"attributes\": {", json_string(a.file).c_str());
    bool first = true;
    for (const auto& [k, v] : g.number_attributes)
      std::printf("%s\n    %s: %lld", first ? "" : ",", json_string(k).c_str(), static_cast<long long>(v)), first = false;
    for (const auto& [k, v] : g.text_attributes)
      std::printf("%s\n    %s: %s", first ? "" : ",", json_string(k).c_str(), json_string(v).c_str()), first = false;
    std::printf("\n  },\n  \"levels\": [");
    for (std::size_t i = 0; i < rows; ++i) {
      std::printf("%s\n    {\"tiles\": %u, \"positions\": %llu, \"largest_value\": %u, \"seconds\": %s, "
                  "\"counts\": [",
                  i ? "," : "", g.tiles[i], static_cast<unsigned long long>(g.positions[i]), g.largest[i],
                  json_number(g.seconds[i]).c_str());
      for (std::size_t v = 0; v <= g.largest[i] && v < width; ++v)
        std::printf("%s%llu", v ? ", " : "", static_cast<unsigned long long>(g.counts[i][v]));
      std::printf("]}");
    }
    std::printf("\n  ]\n}\n");
    return 0;
  }
  std::printf("%s: Grundy values of %zu levels, status %s\n", a.file.c_str(), rows,
              g.text_attributes.count("status") ? g.text_attributes.at("status").c_str() : "?");
  for (const char* key : {"program", "version", "git_revision", "command_line", "start_utc", "end_utc", "host",
                          "threads", "checked_against", "checked_to_level", "resume_history", "convention", "edits"}) {
    if (const auto it = g.text_attributes.find(key); it != g.text_attributes.end() && !it->second.empty())
      std::printf("  %-16s %s\n", key, attribute_text(it->second).c_str());
    else if (const auto jt = g.number_attributes.find(key);
             jt != g.number_attributes.end() && !(jt->second == 0 && std::string_view(key) == "checked_to_level"))
      std::printf("  %-16s %lld\n", key, static_cast<long long>(jt->second));
  }
  std::printf("%6s %16s %14s %14s %14s %8s %12s %10s\n", "tiles", "positions", "G=0 (losing)", "G=1", "G=2", "largest",
              "most common", "seconds");
  for (std::size_t i = 0; i < rows; ++i) {
    const auto& c = g.counts[i];
    const auto at = [&](std::size_t v) { return static_cast<unsigned long long>(v < c.size() ? c[v] : 0); };
    const std::size_t mode = static_cast<std::size_t>(std::max_element(c.begin(), c.end()) - c.begin());
    std::printf("%6u %16llu %14llu %14llu %14llu %8u %12zu %10.3f\n", g.tiles[i],
                static_cast<unsigned long long>(g.positions[i]), at(0), at(1), at(2), g.largest[i], mode, g.seconds[i]);
  }
  return 0;
}

int run_show(const ShowArgs& a) {
  if (is_grundy_file(a.file)) {
    if (a.three_rows)
      throw UsageError(a.file + " is a `chomp grundy` file: --three-rows lists the losing positions of a "
                       "`chomp sieve` file (its Grundy values are shown without it)");
    return show_grundy(a);
  }
  const LevelFileReader reader(a.file);
  if (a.three_rows) return show_three_rows(a, reader);
  const LevelTable& t = reader.table();
  // A last row written only in part is no finished level (resume computes it again).
  const bool part_row = reader.last_row_written_in_part();
  const std::size_t rows = t.tiles.size() - (part_row ? 1 : 0);
  // The store's bytes per level, when it is beside the file.
  std::vector<std::uint64_t> store_bytes;
  std::string store_note;
  std::error_code ec;
  const bool levels_only = t.number_attributes.count("levels_only") != 0;
  const auto d = t.number_attributes.find("dimensions");
  const bool three_d = d != t.number_attributes.end() && d->second == 3;
  if (levels_only && (!reader.has_store() || !std::filesystem::exists(reader.store_path(), ec))) {
    // Made without its store on purpose (experiments/h5_levels_only.py): not a store gone missing.
    store_note = std::string("none beside it: a levels-only copy of the run's file (its levels and provenance") +
                 (three_d ? "" : ", and a sample of three-row positions that `chomp verify` checks") +
                 "); the run's own file and store hold the losing positions";
  } else if (reader.has_store()) {
    try {
      const auto store = LosingStore::open(reader.store_path(), reader.run_id(),
                                           reader.stored_levels(static_cast<int>(rows)), false);
      for (int n = 1; n <= store->levels(); ++n) {
        std::uint64_t bytes = 0;
        for (const StoreBlock& b : store->blocks(n)) bytes += b.bytes;
        store_bytes.push_back(bytes);
      }
    } catch (const StoreMissing& e) {
      // A copied table needs no store for its counts: say so before the
      // start-over command, which only the losing positions call for.
      store_note = reader.store_path() +
                   " is missing: the table's counts are whole without it; it holds the losing positions, which "
                   "`chomp verify`, `--resume` and the Python package's read_losing_positions read: give it back "
                   "(move it beside the result file) or, for those, start the run over with " +
                   start_over_command(a.file, t);
    } catch (const StoreError& e) {
      store_note = e.what();
    }
  } else {
    store_note = "the file names no store (format_version " + std::to_string(reader.format_version()) + ")" +
                 (reader.format_version() >= 3 && !three_d
                      ? ", which every run of that format names: its text attributes are damaged (the table's "
                        "counts are checksummed and read whole); restore a copy of it"
                      : "");
  }
  const auto bytes_per = [&](std::size_t i) {
    return i < store_bytes.size() && t.losing[i] ? static_cast<double>(store_bytes[i]) / static_cast<double>(t.losing[i])
                                                : std::nan("");
  };
  // The digest of a level's losing ranks (doc/FILE_FORMAT.md), in 16 hex
  // digits (a JSON number past 2^53 loses digits in most readers); none
  // (JSON null, an empty CSV field) where the file has none: format 1 and 2,
  // and 3D files written before 3D runs kept a store (every digest 0).
  const bool digests = reader.format_version() >= 3 && (!three_d || reader.has_store());
  const auto digest_hex = [&](std::size_t i) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(t.losing_digest[i]));
    return digests ? std::string(hex) : std::string();
  };
  const auto digest = [&](std::size_t i) { return digests ? "\"" + digest_hex(i) + "\"" : std::string("null"); };
  // Files before format 3 recorded no window_seconds or slices: null in
  // JSON, empty in CSV.
  const bool run_columns = reader.format_version() >= 3;
  if (a.json) {
    std::printf("{\n  \"file\": %s,\n  \"attributes\": {", json_string(a.file).c_str());
    bool first = true;
    for (const auto& [k, v] : t.number_attributes)
      std::printf("%s\n    %s: %lld", first ? "" : ",", json_string(k).c_str(), static_cast<long long>(v)), first = false;
    for (const auto& [k, v] : t.text_attributes)
      std::printf("%s\n    %s: %s", first ? "" : ",", json_string(k).c_str(), json_string(v).c_str()), first = false;
    std::printf("\n  },\n  \"levels\": [");
    for (std::size_t i = 0; i < rows; ++i)
      std::printf("%s\n    {\"tiles\": %u, \"positions\": %llu, \"losing\": %llu, \"losing_fraction\": %s, "
                  "\"hypothesis_ratio\": %s, "
                  "\"seconds\": %s, \"window_seconds\": %s, \"slices\": %s, \"marks\": %llu, "
                  "\"store_bytes_per_losing\": %s, \"losing_digest\": %s}",
                  i ? "," : "", t.tiles[i], static_cast<unsigned long long>(t.positions[i]),
                  static_cast<unsigned long long>(t.losing[i]), json_number(t.losing_fraction[i]).c_str(),
                  json_number(t.hypothesis_ratio[i]).c_str(), json_number(t.seconds[i]).c_str(),
                  run_columns ? json_number(t.window_seconds[i]).c_str() : "null",
                  run_columns ? std::to_string(t.slices[i]).c_str() : "null",
                  static_cast<unsigned long long>(t.marks[i]), json_number(bytes_per(i)).c_str(),
                  digest(i).c_str());
    std::printf("\n  ]\n}\n");
    return 0;
  }
  if (a.csv) {
    note_unfinished(a.file, t, rows);
    std::printf("tiles,positions,losing,losing_fraction,hypothesis_ratio,seconds,window_seconds,slices,marks,"
                "store_bytes_per_losing,losing_digest\n");
    for (std::size_t i = 0; i < rows; ++i) {
      const double b = bytes_per(i);
      char window[32] = "", slices[16] = "";
      if (run_columns) {
        std::snprintf(window, sizeof window, "%.6f", t.window_seconds[i]);
        std::snprintf(slices, sizeof slices, "%u", t.slices[i]);
      }
      std::printf("%u,%llu,%llu,%.17g,%.17g,%.6f,%s,%s,%llu,%s,%s\n", t.tiles[i],
                  static_cast<unsigned long long>(t.positions[i]), static_cast<unsigned long long>(t.losing[i]),
                  t.losing_fraction[i], t.hypothesis_ratio[i], t.seconds[i], window, slices,
                  static_cast<unsigned long long>(t.marks[i]), std::isnan(b) ? "" : json_number(b).c_str(),
                  digest_hex(i).c_str());
    }
    return 0;
  }
  // "running" with no live writer: the run was killed (or stopped hard).
  const bool orphaned = t.status() == "running" && !RunClaim::held(a.file);
  std::printf("%s: %zu levels, status %s%s%s\n", a.file.c_str(), rows, t.status().c_str(),
              t.complete() && t.status() != "complete" ? " (complete)" : "",
              orphaned ? (" (but no chomp process is writing it: its run ended unfinished, killed or stopped "
                          "where its status could not be written, as on a full disk; once that cause is gone, " +
                          resume_command(a.file, t) + " continues it)").c_str()
                       : "");
  for (const char* key : {"program", "version", "git_revision", "command_line", "start_utc", "end_utc", "host",
                          "dimensions", "threads", "mpi_ranks", "mpi_library", "memory_budget", "inferred_marks", "store_file", "run_id", "first_git_revision",
                          "levels_only", "snapshot_of_run", "license", "edits"}) {
    if (const auto it = t.text_attributes.find(key); it != t.text_attributes.end() && !it->second.empty())
      std::printf("  %-18s %s\n", key, attribute_text(it->second).c_str());
    else if (const auto jt = t.number_attributes.find(key); jt != t.number_attributes.end())
      std::printf("  %-18s %lld\n", key, static_cast<long long>(jt->second));
  }
  if (const auto it = t.text_attributes.find("resume_history"); it != t.text_attributes.end() && !it->second.empty())
    std::printf("  resume_history\n    %s\n", [&] {
      std::string s = attribute_text(it->second);
      for (std::size_t p = s.find('\n'); p != std::string::npos; p = s.find('\n', p + 5)) s.replace(p, 1, "\n    ");
      return s;
    }().c_str());
  if (!store_note.empty()) std::printf("  %-18s %s\n", "store", store_note.c_str());
  if (part_row)
    std::printf("  %-18s row %zu was written only in part (a write that failed: its store_trailer is 0, "
                "or a column has no data for it); "
                "it is not shown, and --resume computes level %zu again\n",
                "note", rows + 1, rows + 1);
  // A 3D table's levels count cubes, as its run printed them (the CSV and
  // JSON keep the column name `tiles`, the dataset's).
  std::printf("%6s %16s %14s %10s %10s %10s %6s %8s\n", three_d ? "cubes" : "tiles", "positions", "losing", "%losing", "ratio",
              "seconds", "slices", "B/losing");
  for (std::size_t i = 0; i < rows; ++i) {
    const double b = bytes_per(i);
    // A file before format 3 recorded no slices: "-", as in B/losing.
    std::printf("%6u %16llu %14llu %10.4f %10.6f %10.3f %6s ", t.tiles[i],
                static_cast<unsigned long long>(t.positions[i]), static_cast<unsigned long long>(t.losing[i]),
                100 * t.losing_fraction[i], t.hypothesis_ratio[i], t.seconds[i] + t.window_seconds[i],
                run_columns ? std::to_string(t.slices[i]).c_str() : "-");
    if (std::isnan(b))
      std::printf("%8s\n", "-");
    else
      std::printf("%8.3f\n", b);
  }
  return 0;
}

const RegisterCommand registration(17, "show", "Print a result file's table and provenance (text, --csv or --json)",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<ShowArgs>();
  sub.add_option("file", a->file, "Result file of `chomp sieve` or `chomp grundy`")->required()->check(
      input_file("a result file of `chomp sieve` or `chomp grundy` (the --output of its run)"));
  auto* csv = sub.add_flag("--csv", a->csv,
                           "The table as CSV on stdout: tiles, positions, losing, losing_fraction, hypothesis_ratio, "
                           "seconds (the level's own), window_seconds (its window's opening pass), slices, marks, "
                           "store_bytes_per_losing, losing_digest (16 hex digits); empty where the file has none. "
                           "No provenance lines: the committed data/levels-N.csv are experiments/h5_to_csv.py's");
  auto* json = sub.add_flag("--json", a->json, "The table and every root attribute as JSON on stdout")->excludes(csv);
  sub.add_flag("--three-rows", a->three_rows,
               "The losing positions of at most three rows of every level, from the store, as CSV "
               "(tiles,row_1,row_2,row_3): the verifiable sample a levels-only copy keeps (read from such a copy "
               "itself)")
      ->excludes(csv)
      ->excludes(json);
  sub.footer("The table has one row per finished level; seconds are the level's own and its\n"
             "window's opening pass; B/losing is what the store beside the file spends per losing\n"
             "position of the level (blocks only, not their index). Reads files still being\n"
             "written too. A `chomp grundy` file shows its counts of each value per level\n"
             "(--csv: one column g0, g1, ... per value).\n"
             "Example: chomp show levels-130.h5 --csv > table-130.csv\n");
  return [a] { return run_show(*a); };
});

}  // namespace
}  // namespace chomp::app::cmd_show
