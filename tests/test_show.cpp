/// @file test_show.cpp
/// @brief `chomp show`: a result file's table, provenance and store figures
/// as text, CSV and JSON, equal to what the file holds.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "chomp/h5_output.hpp"
#include "chomp_process.hpp"
#include "committed_data.hpp"

using namespace chomp;
using namespace chomp::testing;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST(Show, PrintsTheTableProvenanceAndStoreAsTextCsvAndJson) {
  ScratchDir dir;
  const std::string file = dir.file("run.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "40", "-q", "-o", file}).exit_code, 0);
  const LevelTable t = read_level_file(file);
  // Every result file says under what licence its data are and where the
  // game, the table and the conjecture come from.
  EXPECT_NE(t.text_attributes.at("license").find("CC-BY-4.0"), std::string::npos);
  EXPECT_NE(t.text_attributes.at("references").find("cariboutests.com"), std::string::npos);
  EXPECT_NE(t.text_attributes.at("references").find("anematode/chomp"), std::string::npos);

  const ProcessResult text = run_chomp({"show", file});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(": 40 levels, status complete\n"), std::string::npos) << text.out;
  const std::string run_id = t.text_attributes.at("run_id");
  ASSERT_FALSE(run_id.empty());
  EXPECT_NE(text.out.find("run_id"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(run_id), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("B/losing"), std::string::npos) << text.out;

  const ProcessResult csv = run_chomp({"show", file, "--csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.err, "");  // a finished run's table needs no note
  const auto rows = lines_of(csv.out);
  ASSERT_EQ(rows.size(), 41u) << csv.out;  // header and 40 levels
  EXPECT_EQ(rows[0].substr(0, 22), "tiles,positions,losing");
  EXPECT_EQ(rows[40].substr(0, 14), "40,37338,1022,");
  std::vector<std::string> header, row40_fields;
  for (auto [line, fields] : {std::pair{&rows[0], &header}, std::pair{&rows[40], &row40_fields}}) {
    std::istringstream in(*line);
    for (std::string field; std::getline(in, field, ',');) fields->push_back(field);
  }
  const auto column = [&](const std::string& name) {
    const auto at = std::find(header.begin(), header.end(), name);
    return at == header.end() || static_cast<std::size_t>(at - header.begin()) >= row40_fields.size()
               ? std::string("(none)")
               : row40_fields[static_cast<std::size_t>(at - header.begin())];
  };
  // Level 40's 1,022 losing positions take under a byte each in the store.
  const double per = std::stod(column("store_bytes_per_losing"));
  EXPECT_GT(per, 0.5);
  EXPECT_LT(per, 1.0);
  // Its losing digest, in the 16 hex digits --json gives (below).
  char hex[24];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(t.losing_digest[39]));
  EXPECT_EQ(column("losing_digest"), hex) << rows[0] << "\n" << rows[40];

  const ProcessResult json = run_chomp({"show", file, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"run_id\": \"" + run_id + "\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("{\"tiles\": 40, \"positions\": 37338, \"losing\": 1022,"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"hypothesis_ratio\": null"), std::string::npos) << "n = 1 has no ratio";
  EXPECT_NE(json.out.find("{\"tiles\": 40, \"positions\": 37338, \"losing\": 1022, \"losing_fraction\": 0.0273"),
            std::string::npos) << json.out;
  // Each level's losing digest, as 16 hex digits (a JSON number would lose
  // digits past 2^53 in most readers): what compare_levels.py compares.
  char digest[64];
  const std::size_t row40 = json.out.find("{\"tiles\": 40,");
  ASSERT_NE(row40, std::string::npos) << json.out;
  std::snprintf(digest, sizeof digest, "\"losing_digest\": \"%016llx\"}",
                static_cast<unsigned long long>(t.losing_digest[39]));
  EXPECT_NE(t.losing_digest[39], 0u);
  EXPECT_NE(json.out.find(digest, row40), std::string::npos) << digest << "\n" << json.out;
  // A file of format 1 has no digests: null, not a digest of 0.
  const ProcessResult old = run_chomp({"show", std::string(CHOMP_DATA_DIR) + "/levels-100.h5", "--json"});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_NE(old.out.find("\"format_version\": 1"), std::string::npos) << old.out.substr(0, 2000);
  EXPECT_NE(old.out.find("\"losing_digest\": null}"), std::string::npos) << old.out.substr(0, 2000);
  EXPECT_EQ(old.out.find("\"losing_digest\": \""), std::string::npos) << old.out.substr(0, 2000);
  // Nor window_seconds and slices, which format 3 added.
  EXPECT_NE(old.out.find("\"window_seconds\": null, \"slices\": null,"), std::string::npos) << old.out.substr(0, 2000);
  // and in the CSV an empty field.
  const ProcessResult old_csv = run_chomp({"show", std::string(CHOMP_DATA_DIR) + "/levels-100.h5", "--csv"});
  ASSERT_EQ(old_csv.exit_code, 0) << old_csv.err;
  const auto old_rows = lines_of(old_csv.out);
  ASSERT_EQ(old_rows.size(), 101u) << old_csv.out;
  EXPECT_EQ(old_rows[0].substr(old_rows[0].rfind(',')), ",losing_digest");
  EXPECT_EQ(old_rows[100].back(), ',') << old_rows[100];
  EXPECT_NE(old_rows[100].find(",,,"), std::string::npos) << "no window_seconds, slices: " << old_rows[100];
  // and in the table a "-" (it printed 1 slice for every level).
  const ProcessResult old_table = run_chomp({"show", std::string(CHOMP_DATA_DIR) + "/levels-100.h5"});
  ASSERT_EQ(old_table.exit_code, 0) << old_table.err;
  EXPECT_NE(old_table.out.find("\n   100        190569292"), std::string::npos) << old_table.out;
  EXPECT_NE(old_table.out.find(" -        -\n", old_table.out.find("\n   100        190569292")), std::string::npos)
      << old_table.out;
  // Its engine kept no store: verify and --three-rows say so, rather than send the reader after the run's own
  // file (this is it).
  const std::string old_file = std::string(CHOMP_DATA_DIR) + "/levels-100.h5";
  const ProcessResult old_verify = run_chomp({"verify", old_file});
  EXPECT_EQ(old_verify.exit_code, 1);
  EXPECT_NE(old_verify.err.find("is a file of format_version 1, written by an engine that kept no store"),
            std::string::npos)
      << old_verify.err;
  const ProcessResult old_rows3 = run_chomp({"show", old_file, "--three-rows"});
  EXPECT_EQ(old_rows3.exit_code, 1);
  EXPECT_NE(old_rows3.err.find("and an engine of format_version 1 kept none"), std::string::npos) << old_rows3.err;

  // Without its store, the table still shows, and says why there are no bytes.
  std::filesystem::remove(store_path_for(file));
  const ProcessResult lone = run_chomp({"show", file});
  EXPECT_EQ(lone.exit_code, 0) << lone.err;
  EXPECT_NE(lone.out.find("  store              " + store_path_for(file) +
                          " is missing: the table's counts are whole without it"),
            std::string::npos) << lone.out;
  // The command it names to start over is this run's, and runs it again
  // (a bare `chomp sieve --force` wrote the default output, 90 levels).
  const std::string said = " sieve --max-tiles 40 --output " + file + " --force\n";
  ASSERT_NE(lone.out.find(said), std::string::npos) << lone.out;
  ASSERT_EQ(run_chomp({"sieve", "--max-tiles", "40", "--output", file, "--force", "-q"}).exit_code, 0);
  EXPECT_TRUE(read_level_file(file).complete());
  std::filesystem::remove(store_path_for(file));
  // A run that kept its losing positions in the file keeps doing so.
  const std::string kept = dir.file("kept.h5");
  ASSERT_EQ(run_chomp({"sieve", "-n", "20", "--store-losing", "10", "-q", "-o", kept}).exit_code, 0);
  std::filesystem::remove(store_path_for(kept));
  EXPECT_TRUE(contains(run_chomp({"show", kept}).out,
                       " sieve --max-tiles 20 --store-losing 10 --output " + kept + " --force\n"));
  EXPECT_EQ(run_chomp({"show", file, "--csv", "--json"}).exit_code, 2);
}

// A file name that is not UTF-8 (a Latin-1 name) is accepted by the sieve;
// show --json escapes its byte as \udcXX (read back to the byte by Python's
// surrogateescape) instead of writing it raw, which no JSON reader takes.
// UTF-8 names are written as they are.
TEST(Show, JsonStaysJsonForFileNamesThatAreNotUtf8) {
  ScratchDir dir;
  const std::string latin1 = dir.file("caf\xe9.h5"), utf8 = dir.file("caf\xc3\xa9.h5");
  for (const std::string& file : {latin1, utf8})
    ASSERT_EQ(run_chomp({"sieve", "-n", "5", "-q", "-t", "1", "-o", file}).exit_code, 0);
  const ProcessResult bad = run_chomp({"show", latin1, "--json"});
  ASSERT_EQ(bad.exit_code, 0) << bad.err;
  EXPECT_EQ(bad.out.find('\xe9'), std::string::npos) << bad.out;
  EXPECT_TRUE(contains(bad.out, "caf\\udce9.h5")) << bad.out;
  const ProcessResult good = run_chomp({"show", utf8, "--json"});
  ASSERT_EQ(good.exit_code, 0) << good.err;
  EXPECT_TRUE(contains(good.out, "caf\xc3\xa9.h5")) << good.out;
  EXPECT_FALSE(contains(good.out, "\\udc")) << good.out;
}

// A levels-only copy (the committed table) was made without its store on
// purpose: show says so, rather than that its store is missing and a run
// must start over with --force.
TEST(Show, ALevelsOnlyCopyIsNamedAsOneNotAsAFileThatLostItsStore) {
  const std::string file = committed_levels_file("h5");
  ASSERT_FALSE(file.empty());
  ASSERT_EQ(read_level_file(file).number_attributes.count("levels_only"), 1u) << file;
  const ProcessResult shown = run_chomp({"show", file});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("store              none beside it: a levels-only copy"), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("is missing"), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("--force"), std::string::npos) << shown.out;
}

// A committed file whose values were changed by hand after its run says so
// in its root attribute edits, which show prints (a sieve table and a
// Grundy table); a file the program wrote as it is has none.
TEST(Show, SaysWhatWasChangedByHandAfterTheRun) {
  const std::string data = CHOMP_DATA_DIR;
  for (const auto& [file, says] : {std::pair{data + "/run-170/levels-156.h5", "  edits              2026-12-02, by hand"},
                                   std::pair{data + "/levels-170.h5", "  edits              2026-12-05, by hand: repacked"},
                                   std::pair{data + "/grundy-100.h5", "  edits            2026-12-01, by hand"}}) {
    const ProcessResult shown = run_chomp({"show", file});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_NE(shown.out.find(says), std::string::npos) << shown.out;
  }
  const ProcessResult plain = run_chomp({"show", data + "/levels3d-40.h5"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("edits"), std::string::npos) << plain.out;
}

// A file whose run was killed still says "running": show adds that no
// process writes it, and the command that continues it. While its run
// lives, it adds nothing.
TEST(Show, SaysWhenARunningFileHasNoWriter) {
  ScratchDir dir;
  const std::string file = dir.file("k.h5");
  ChompProcess run({"sieve", "--max-tiles", kFullSize ? "100" : "95", "--output", file, "-t", "1"});
  ASSERT_TRUE(run.wait_until([&] { return run.last_level_printed() >= 60; })) << run.err();
  const ProcessResult live = run_chomp({"show", file});
  EXPECT_EQ(live.exit_code, 0) << live.err;
  EXPECT_NE(live.out.find("levels, status running\n"), std::string::npos) << live.out;
  // Through a symbolic link too: the run's lock is beside the file itself.
  std::filesystem::create_symlink(file, dir.file("link.h5"));
  const ProcessResult linked = run_chomp({"show", dir.file("link.h5")});
  EXPECT_NE(linked.out.find("levels, status running\n"), std::string::npos) << linked.out;
  // A CSV cannot say so itself, and is what gets redirected into a file:
  // standard error says that the table is a running run's.
  const ProcessResult live_csv = run_chomp({"show", file, "--csv"});
  EXPECT_EQ(live_csv.exit_code, 0) << live_csv.err;
  EXPECT_NE(live_csv.err.find("is unfinished (status running): the table holds "), std::string::npos) << live_csv.err;
  EXPECT_NE(live_csv.err.find(", and its run is still writing it\n"), std::string::npos) << live_csv.err;
  run.send(SIGKILL);
  EXPECT_EQ(run.wait().signal, SIGKILL);
  const ProcessResult dead = run_chomp({"show", file});
  EXPECT_EQ(dead.exit_code, 0) << dead.err;
  const std::string said = "status running (but no chomp process is writing it: its run ended unfinished, killed "
                           "or stopped where its status could not be written, as on a full disk; once that cause "
                           "is gone, ";
  ASSERT_NE(dead.out.find(said), std::string::npos) << dead.out;
  // With the run's own options (it ran with -t 1), not --max-tiles and --output alone.
  EXPECT_NE(dead.out.find(" sieve --max-tiles " + std::string(kFullSize ? "100" : "95") + " --output " + file +
                          " --threads 1 --resume continues it)"),
            std::string::npos)
      << dead.out;
  for (const char* view : {"--csv", "--three-rows"}) {
    const ProcessResult r = run_chomp({"show", file, view});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::size_t rows = read_level_file(file).tiles.size();
    EXPECT_NE(r.err.find("is unfinished (status running): the table holds " + std::to_string(rows) + " finished " +
                         "levels of the run's " + (kFullSize ? "100" : "95") + "; ") ,
              std::string::npos)
        << view << ": " << r.err;
    EXPECT_NE(r.err.find(" --threads 1 --resume continues it\n"), std::string::npos) << r.err;
  }
}

// The same for a Grundy table: its CSV carries no status either.
TEST(Show, TheCsvOfAnUnfinishedGrundyRunSaysSoOnStandardError) {
  ScratchDir dir;
  const std::string file = dir.file("g.h5");
  ChompProcess run({"grundy", "-n", "90", "-t", "1", "-o", file});
  ASSERT_TRUE(run.wait_until([&] { return run.last_level_printed() >= 20; })) << run.err();
  run.send(SIGINT);
  ASSERT_EQ(run.wait().exit_code, 130);
  const ProcessResult csv = run_chomp({"show", file, "--csv"});
  EXPECT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.err.find("is unfinished (status interrupted): the table holds "), std::string::npos) << csv.err;
  EXPECT_NE(csv.err.find(" of the run's 90; "), std::string::npos) << csv.err;
  EXPECT_NE(csv.err.find(" grundy --resume --output " + file + " continues it\n"), std::string::npos) << csv.err;
}

// The provenance's command_line quotes each word a shell would split or
// expand, so that it reads back as the words the program was given: a
// file name with a space and a quote comes back whole from /bin/sh.
TEST(Show, CommandLineReadsBackAsTheWordsTheProgramWasGiven) {
  ScratchDir dir;
  const std::string file = dir.file("a b's $HOME.h5");
  const std::vector<std::string> args{"sieve", "-n", "5", "-q", "-t", "1", "-o", file};
  ASSERT_EQ(run_chomp(args).exit_code, 0);
  const std::string line = read_level_file(file).text_attributes.at("command_line");
  EXPECT_TRUE(contains(line, " sieve -n 5 -q -t 1 -o '")) << line;  // plain words stay as typed
  const std::string script = dir.file("words.sh");
  {
    std::FILE* f = std::fopen(script.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "set -- %s\nshift\nprintf '%%s\\n' \"$@\"\n", line.c_str());
    std::fclose(f);
  }
  std::FILE* sh = popen(("/bin/sh '" + script + "'").c_str(), "r");
  ASSERT_NE(sh, nullptr);
  std::string out;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, sh)) out += buffer;
  ASSERT_EQ(pclose(sh), 0) << out;
  EXPECT_EQ(lines_of(out), args) << line;
}
