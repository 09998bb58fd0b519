/// @file test_resume_library.cpp
/// @brief Resuming in-process through the library (Resume, LevelFileWriter,
/// Sieve): runs stopped right after levels without losing positions, and a
/// stop while the levels of the old file are checked.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "chomp/h5_output.hpp"
#include "chomp/losing_store.hpp"
#include "chomp/resume.hpp"
#include "chomp/sieve.hpp"
#include "chomp/sieve_run.hpp"
#include "chomp_process.hpp"
#include "committed_data.hpp"

using namespace chomp;
using namespace chomp::testing;

namespace {

/// The provenance of a new run to max_tiles written to `path` with default
/// options, as doc/LIBRARY.md says: its store's id and name, its marks.
Provenance new_run_provenance(const std::string& path, int max_tiles, int store_losing = 0) {
  Provenance prov;
  prov.max_tiles = max_tiles;
  prov.store_losing = store_losing;
  prov.run_id = new_run_id();
  prov.store_file = std::filesystem::path(store_path_for(path)).filename().string();
  prov.inferred_marks = inferred_marks_text(inferred_rows(max_tiles, SieveOptions{}));
  return prov;
}

/// In-process: a run to max_tiles stopped after `levels` levels, with its
/// store beside it.
void write_interrupted_run(const std::string& path, int max_tiles, int levels) {
  const Provenance prov = new_run_provenance(path, max_tiles);
  const auto store = LosingStore::create(store_path_for(path), prov.run_id);
  LevelFileWriter out(path, prov);
  Sieve sieve(max_tiles, *store, SieveOptions{});
  for (int n = 1; n <= levels; ++n) save_level(out, sieve, sieve.next_level());
  out.finish("interrupted");
}

}  // namespace

// In-process: levels without losing positions (L(2) = L(4) = 0) as the last
// finished ones.
TEST(ResumeLibrary, RunsStoppedRightAfterLevelsWithoutLosingPositions) {
  ScratchDir dir;
  for (int stop_after : {2, 4}) {
    const std::string path = dir.file("stop" + std::to_string(stop_after) + ".h5");
    write_interrupted_run(path, 12, stop_after);
    Resume resume(ResumeRequest{path, 0, -1});
    EXPECT_EQ(resume.state().levels, stop_after);
    const std::string continued = path + ".continued";
    LevelFileWriter out(continued, resume.state().provenance);
    const auto store = resume.open_store(true);
    resume.restore(*store, out);
    Sieve sieve(12, *store, SieveOptions{});
    EXPECT_EQ(sieve.levels_done(), stop_after);
    sieve.run([&](const LevelResult& r) { save_level(out, sieve, r); });
    out.finish("complete");
    const LevelTable t = read_level_file(continued);
    const std::vector<std::uint64_t> expected{1, 0, 1, 0, 3, 0, 3, 2, 5, 2, 3, 10};  // small_counts.csv
    EXPECT_EQ(t.losing, expected);
  }
}

// In-process: a stop while levels are being checked is obeyed at once (a
// resume reads the whole store back, a minute at n = 170), and every level
// is reported as it goes.
TEST(ResumeLibrary, StopsWhileCheckingLevelsAndReportsEachOne) {
  ScratchDir dir;
  const std::string path = dir.file("stopped.h5");
  write_interrupted_run(path, 20, 15);
  Resume resume(ResumeRequest{path, 0, -1});
  ASSERT_EQ(resume.state().levels, 15);
  const auto store = resume.open_store(false);
  {
    LevelFileWriter out(path + ".whole", resume.state().provenance);
    std::vector<int> reported;
    resume.restore(*store, out, [&](int n) { reported.push_back(n); });
    EXPECT_EQ(reported.size(), 15U);
    EXPECT_EQ(reported.back(), 15);
    EXPECT_EQ(out.rows(), 15U);
  }
  // The flag raised while level 6 is checked: restoring stops before level 7.
  LevelFileWriter out(path + ".stopped", resume.state().provenance);
  std::atomic<bool> stop{false};
  int last = 0;
  EXPECT_THROW(resume.restore(*store, out, [&](int n) {
    last = n;
    if (n == 6) stop = true;
  }, &stop), SieveInterrupted);
  EXPECT_EQ(last, 6);
  EXPECT_EQ(out.rows(), 6U);
}

// A file whose provenance says its marks count every move, written by a
// sieve that infers the first two rows' moves (or the other way round),
// would have its marks read wrongly: save_level refuses it and writes no
// row.
TEST(ResumeLibrary, SaveLevelRefusesAFileThatSaysOtherMarksThanTheSieveCounts) {
  ScratchDir dir;
  for (int sieve_rows : {0, 2}) {
    const std::string path = dir.file("lie" + std::to_string(sieve_rows) + ".h5");
    Provenance prov;
    prov.max_tiles = 12;
    prov.run_id = new_run_id();
    prov.inferred_marks = inferred_marks_text(2 - sieve_rows);
    const auto store = LosingStore::create(store_path_for(path), prov.run_id);
    LevelFileWriter out(path, prov);
    SieveOptions options;
    options.inferred_rows = sieve_rows;
    Sieve sieve(12, *store, options);
    ASSERT_EQ(sieve.plan().tail_rows, sieve_rows);
    try {
      save_level(out, sieve, sieve.next_level());
      ADD_FAILURE() << "save_level wrote a level whose marks the file misnames";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("provenance says inferred_marks \"" + inferred_marks_text(2 - sieve_rows) + "\""),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(out.rows(), 0U);
  }
}

// The attribute inferred_marks of a file whose legs counted `marks` two
// ways names each way and the level it took over from, latest first; the
// rows a resumed run may infer are the latest way's.
TEST(Provenance, InferredMarksNameEachLegsWayAndWhereItBegan) {
  EXPECT_EQ(continued_inferred_marks("rows 1-2", 2, 13), "rows 1-2");
  EXPECT_EQ(continued_inferred_marks("rows 1-2", 0, 1), "none");
  EXPECT_EQ(continued_inferred_marks("", 0, 9), "none");  // files from before the attribute filed every mark
  const std::string twice = continued_inferred_marks("rows 1-2", 1, 13);
  EXPECT_EQ(twice, "row 1 from level 13; rows 1-2 below");
  EXPECT_EQ(inferred_rows_of(twice), 1);
  EXPECT_EQ(continued_inferred_marks(twice, 1, 20), twice);
  const std::string thrice = continued_inferred_marks(twice, 0, 20);
  EXPECT_EQ(thrice, "none from level 20; row 1 from level 13; rows 1-2 below");
  EXPECT_EQ(inferred_rows_of(thrice), 0);
  // A leg that finished no level leaves no way behind: the next leg, from
  // the same level, replaces it.
  EXPECT_EQ(continued_inferred_marks(twice, 0, 13), "none from level 13; rows 1-2 below");
  EXPECT_EQ(continued_inferred_marks(twice, 2, 13), "rows 1-2");
  EXPECT_EQ(continued_inferred_marks(thrice, 1, 20), twice);
  EXPECT_EQ(continued_inferred_marks(thrice, 0, 18), "none from level 18; row 1 from level 13; rows 1-2 below");
  EXPECT_EQ(inferred_rows_of("rows 1-2 from level 5; none below"), 2);
  EXPECT_EQ(inferred_rows_of("row 1"), 1);
  EXPECT_EQ(inferred_rows_of("rows 1-3"), 0);  // unknown: none
}

// SieveRun, the class `chomp sieve` wraps, used as its header says: a new
// run to 30 and its resume to 40 give the committed table's levels. Steps
// out of order throw std::logic_error naming the step needed (they crashed,
// or left the finished table as FILE.partial), and make no file.
TEST(ResumeLibrary, SieveRunInItsOrderGivesTheTableAndOutOfOrderSaysWhichStepComesFirst) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  const auto request = [&](int max) {
    return SieveRunRequest{out, store_path_for(out), max, 0, SieveOptions{}, 1, "test", 2, ""};
  };
  const auto says = [](const std::function<void()>& step, const std::string& needs) {
    try {
      step();
      ADD_FAILURE() << "no error; expected: " << needs;
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find(needs), std::string::npos) << e.what();
    }
  };
  {
    SieveRun early(request(30), nullptr);
    says([&] { early.open_file(); }, "call open_store() first");
    says([&] { early.make_sieve(nullptr, nullptr); }, "the file is not named yet");
    early.open_store();
    says([&] { early.name_file(); }, "call open_file() first");
    early.open_file();
    says([&] { early.make_sieve(nullptr, nullptr); }, "name_file() for a new run");
    says([&] { early.restore([](int, int) {}, nullptr); }, "a new run has nothing to restore");
    says([&] { early.finish(); }, "the file is not named yet");
    EXPECT_FALSE(early.failed(std::runtime_error("given up")));  // FILE.partial removed
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".partial"));
  std::filesystem::remove(store_path_for(out));

  {
    SieveRun run(request(30), nullptr);
    run.open_store();
    run.open_file();
    run.name_file();
    says([&] { run.run([](const LevelResult&) {}, nullptr); }, "call make_sieve()");
    says([&] { static_cast<void>(run.sieve()); }, "SieveRun::sieve() before make_sieve()");
    says([&] { static_cast<void>(run.sieve3d()); }, "SieveRun::sieve3d() before make_sieve3d()");
    run.make_sieve(nullptr, nullptr);
    run.run([](const LevelResult&) {}, nullptr);
    run.finish();
  }
  {
    SieveRun resumed(request(40), std::make_unique<Resume>(ResumeRequest{out, 40, -1}));
    resumed.open_store();
    resumed.open_file();
    says([&] { resumed.name_file(); }, "named by restore()");
    resumed.restore([](int, int) {}, nullptr);
    EXPECT_EQ(resumed.restored_levels(), 30);
    resumed.make_sieve(nullptr, nullptr);
    resumed.run([](const LevelResult&) {}, nullptr);
    resumed.finish();
  }
  const LevelTable t = read_level_file(out);
  ASSERT_TRUE(t.complete());
  ASSERT_EQ(t.tiles.size(), 40u);
  const LevelTable committed = read_level_file(committed_levels_file("h5"));
  for (std::size_t i = 0; i < 40; ++i) {
    EXPECT_EQ(t.losing[i], committed.losing[i]) << "n = " << i + 1;
    EXPECT_EQ(t.losing_digest[i], committed.losing_digest[i]) << "n = " << i + 1;
  }
}

// A request without a store path puts the store beside the output, as
// store_path_for says (it threw "cannot create store : No such file or
// directory"); a store in another folder, which the file could not name, is
// refused before anything is made.
TEST(ResumeLibrary, SieveRunKeepsItsStoreBesideTheOutput) {
  ScratchDir dir;
  const std::string out = dir.file("run.h5");
  {
    SieveRun run(SieveRunRequest{out, "", 12, 0, SieveOptions{}, 1, "test", 2, ""}, nullptr);
    run.open_store();
    run.open_file();
    run.name_file();
    run.make_sieve(nullptr, nullptr);
    run.run([](const LevelResult&) {}, nullptr);
    run.finish();
  }
  EXPECT_TRUE(std::filesystem::exists(store_path_for(out)));
  const LevelTable t = read_level_file(out);
  ASSERT_TRUE(t.complete());
  EXPECT_EQ(t.losing[11], read_level_file(committed_levels_file("h5")).losing[11]);

  std::filesystem::create_directory(dir.file("elsewhere"));
  const std::string other = dir.file("other.h5");
  try {
    SieveRun run(SieveRunRequest{other, dir.file("elsewhere/other.h5.store"), 12, 0, SieveOptions{}, 1, "test", 2, ""},
                 nullptr);
    ADD_FAILURE() << "a store outside the output's folder was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("is not in the folder of output"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(other));
  EXPECT_FALSE(std::filesystem::exists(dir.file("elsewhere/other.h5.store")));
}

// A writer asked to finish a file "complete" with levels missing refuses
// (every reader would call the file damaged) and writes nothing; the same
// file finishes "interrupted", readable with its levels.
TEST(ResumeLibrary, AFileWithLevelsMissingCannotBeFinishedComplete) {
  ScratchDir dir;
  const std::string path = dir.file("short.h5");
  const Provenance prov = new_run_provenance(path, 12);
  const auto store = LosingStore::create(store_path_for(path), prov.run_id);
  LevelFileWriter out(path, prov);
  Sieve sieve(12, *store, SieveOptions{});
  for (int n = 1; n <= 3; ++n) save_level(out, sieve, sieve.next_level());
  try {
    out.finish("complete");
    ADD_FAILURE() << "finish(\"complete\") with 3 of 12 levels was taken";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("levels 1..3 of max_tiles 12"), std::string::npos) << e.what();
  }
  out.finish("interrupted");
  const LevelTable t = read_level_file(path);
  EXPECT_EQ(t.status(), "interrupted");
  EXPECT_EQ(t.tiles.size(), 3u);
  // Its store records: three, and no more than the file holds.
  const LevelFileReader reader(path);
  EXPECT_EQ(reader.stored_levels(3).size(), 3u);
  EXPECT_THROW(reader.stored_levels(4), std::out_of_range);
}

// A file that keeps the losing positions of its first levels takes a row of
// such a level only after its positions, as many as the row counts; the
// positions only for the next level (they used to be taken in any order,
// and a row without them read back as a level with none stored).
TEST(ResumeLibrary, AStoreLosingFileTakesEachRowAfterItsPositions) {
  ScratchDir dir;
  const std::string path = dir.file("kept.h5");
  const Provenance prov = new_run_provenance(path, 8, 6);
  const auto store = LosingStore::create(store_path_for(path), prov.run_id);
  LevelFileWriter out(path, prov);
  Sieve sieve(8, *store, SieveOptions{});
  save_level(out, sieve, sieve.next_level());  // level 1: its one position, then its row
  const LevelResult two = sieve.next_level();   // L(2) = 0
  const std::vector<std::uint64_t> made_up{3, 5, 6};
  EXPECT_THROW(out.write_losing_positions(3, made_up), std::logic_error);  // not the next level
  out.write_losing_positions(2, made_up);                                  // 3 words for a level of none
  EXPECT_THROW(out.append(two), std::logic_error);
  save_level(out, sieve, two);
  const LevelResult three = sieve.next_level();
  EXPECT_THROW(out.append(three), std::logic_error);  // no positions written for it
  save_level(out, sieve, three);
  out.finish("interrupted");
  const LevelTable t = read_level_file(path);
  EXPECT_EQ(t.tiles.size(), 3u);
  LevelFileReader reader(path);
  EXPECT_TRUE(reader.losing_positions(2).empty());  // the made-up words are gone
  EXPECT_EQ(reader.losing_positions(3).size(), three.losing);
}

// A provenance or a call that would leave a file every reader calls damaged
// is refused by the writer itself, before the file is made or the row
// written: max_tiles 0, dimensions 5, a level past max_tiles, a status no
// reader knows. Each used to write such a file without a word.
TEST(ResumeLibrary, TheWriterRefusesWhatReadersWouldCallDamaged) {
  ScratchDir dir;
  const std::string path = dir.file("hand.h5");
  const auto refused = [&](Provenance prov, const std::string& says) {
    try {
      LevelFileWriter out(path, prov);
      ADD_FAILURE() << "no error; expected: " << says;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(path)) << says;
  };
  Provenance prov = new_run_provenance(path, 3);
  prov.max_tiles = 0;
  refused(prov, "Provenance::max_tiles is 0; a 2D run's is 1..255");
  prov.max_tiles = 3;
  prov.dimensions = 5;
  refused(prov, "LevelFileWriter: Provenance: dimensions is 5; 2 (tiles) or 3 (cubes)");
  prov.dimensions = 3;
  prov.max_tiles = 64;
  refused(prov, "a 3D run's is 1..63");
  // A store named by its path (or a temporary store's description) made a
  // file that said "complete" and that its own reader refused as damaged.
  prov = new_run_provenance(path, 3);
  prov.store_file = dir.file("hand.h5.store");
  refused(prov, "Provenance::store_file \"" + prov.store_file.substr(0, 60) + "\" is not a file name");
  prov.store_file = "/tmp/chomp-store-x (temporary)";
  refused(prov, "is not a file name: give the store's name alone");
  prov = new_run_provenance(path, 3);
  prov.run_id = "not-an-id";
  refused(prov, "Provenance::run_id \"not-an-id\" is not 32 hexadecimal digits");
  prov.run_id.clear();
  refused(prov, "is not 32 hexadecimal digits");  // a store named, no id
  prov = new_run_provenance(path, 3);
  prov.store_losing = 4;
  refused(prov, "Provenance::store_losing is 4; 0..min(63, max_tiles)");

  const Provenance three = new_run_provenance(path, 3);
  const auto store = LosingStore::create(store_path_for(path), three.run_id);
  {
    LevelFileWriter out(path, three);
    Sieve sieve(5, *store, SieveOptions{});
    for (int n = 1; n <= 3; ++n) save_level(out, sieve, sieve.next_level());
    try {
      out.append(sieve.next_level());
      ADD_FAILURE() << "level 4 appended to a file of max_tiles 3";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("level 4 is beyond max_tiles 3"), std::string::npos) << e.what();
    }
    EXPECT_THROW(out.finish("bogus"), std::invalid_argument);
    out.finish("complete");  // the refusals wrote nothing: the file is whole
  }
  const LevelTable t = read_level_file(path);
  EXPECT_TRUE(t.complete());
  EXPECT_EQ(t.tiles.size(), 3u);
  // A provenance without a start time records the writer's (it was left empty).
  ASSERT_TRUE(t.text_attributes.count("start_utc"));
  EXPECT_EQ(t.text_attributes.at("start_utc").size(), std::string("2026-12-07T16:00:00Z").size())
      << t.text_attributes.at("start_utc");
}
