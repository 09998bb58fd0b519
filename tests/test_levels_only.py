#!/usr/bin/python3
"""ctest python.levels_only: a levels-only copy (experiments/h5_levels_only.py)
keeps a verifiable sample, the losing positions of at most three rows of every
level; `chomp verify` passes the copy, and fails it once one recorded position
is changed into another of the same tiles. A run not finished is refused, and
copied with --through K as exactly its levels 1..K, saying so. A file that is
missing or not a table of `chomp sieve` (data/grundy-80.h5) is refused with
one line and exit status 2, and nothing is written; so is a copy whose folder
does not exist.

    CHOMP_BIN=build/chomp /usr/bin/python3 tests/test_levels_only.py
"""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import h5py
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CHOMP = os.environ.get("CHOMP_BIN", str(ROOT / "build" / "chomp"))


def run(*args):
    return subprocess.run([CHOMP, *args], capture_output=True, text=True)


def levels_only(run_file, copy, *extra, check=True):
    """experiments/h5_levels_only.py RUN COPY --chomp CHOMP EXTRA..."""
    return subprocess.run([sys.executable, str(ROOT / "experiments" / "h5_levels_only.py"), str(run_file), str(copy),
                           "--chomp", CHOMP, *extra], check=check, capture_output=not check, text=True)


class LevelsOnlyCopy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.run_file = Path(cls.tmp.name) / "run.h5"
        cls.copy = Path(cls.tmp.name) / "levels-only.h5"
        r = run("sieve", "-n", "60", "-o", str(cls.run_file), "-q")
        assert r.returncode == 0, r.stderr
        levels_only(cls.run_file, cls.copy)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_copy_records_the_sample_and_verify_passes_it(self):
        with h5py.File(self.copy, "r") as f:
            self.assertEqual(int(f.attrs["levels_only"]), 1)
            g = f["verifiable/three_row_losing"]
            tiles = list(g["tiles"][()])
            rows = list(zip(g["row_1"][()], g["row_2"][()], g["row_3"][()]))
        # Level 5: (2,2,1), (3,1,1), (3,2) lose (data/reference/small_counts.csv: L(5) = 3).
        self.assertEqual(sorted(tuple(int(x) for x in r) for t, r in zip(tiles, rows) if t == 5),
                         [(2, 2, 1), (3, 1, 1), (3, 2, 0)])
        self.assertEqual(max(tiles), 60)
        r = run("verify", str(self.copy))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("a copy with the levels only", r.stderr)
        self.assertIn("independent of the engine", r.stderr)
        self.assertRegex(r.stdout, r"\n +60 +20106 +\d+  ok\n")
        self.assertNotIn("note:", r.stderr)
        # The options of the store's checks do nothing on a copy: said once, the check passes as before.
        r = run("verify", str(self.copy), "--moves", "5", "--seed", "1", "--from", "50")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("note: --moves, --seed set the checks of a run's store, which a levels-only copy lacks: "
                      "they have no effect here\n", r.stderr)
        self.assertIn("levels 50..60 of", r.stderr)

    def test_show_three_rows_of_the_copy_is_that_of_the_run(self):
        # The copy has no store: --three-rows prints the sample it records,
        # line for line what the run's store gives.
        from_run, from_copy = run("show", str(self.run_file), "--three-rows"), run("show", str(self.copy), "--three-rows")
        self.assertEqual(from_copy.returncode, 0, from_copy.stderr)
        self.assertEqual(from_run.returncode, 0, from_run.stderr)
        self.assertIn("\n5,2,2,1\n5,3,1,1\n5,3,2,0\n", from_copy.stdout)
        self.assertEqual(from_copy.stdout, from_run.stdout)

    def test_the_levels_keep_their_values_and_checksums(self):
        # The copy's columns are the run's rows, Fletcher-32 checksummed as
        # the run's are, and so is the verifiable sample (doc/FILE_FORMAT.md).
        with h5py.File(self.run_file, "r") as f, h5py.File(self.copy, "r") as g:
            # The group's own attributes too (its description).
            self.assertIn("description", f["levels"].attrs)
            self.assertEqual(dict(g["levels"].attrs), dict(f["levels"].attrs))
            for name, column in f["levels"].items():
                self.assertTrue(column.fletcher32, name)
                self.assertTrue(g["levels"][name].fletcher32, name)
                np.testing.assert_array_equal(g["levels"][name][()], column[()], err_msg=name)
            for name, column in g["verifiable/three_row_losing"].items():
                self.assertTrue(column.fletcher32, name)

    def test_a_changed_sample_fails(self):
        bad = Path(self.tmp.name) / "changed.h5"
        bad.write_bytes(self.copy.read_bytes())
        with h5py.File(bad, "r+") as f:
            g = f["verifiable/three_row_losing"]
            tiles, r1, r2, r3 = (g[c][()] for c in ("tiles", "row_1", "row_2", "row_3"))
            # The first entry of level 40 with a second row: one tile moved from row 2 to row 1.
            i = next(k for k in range(len(tiles)) if tiles[k] == 40 and r2[k] > r3[k])
            r1[i] += 1
            r2[i] -= 1
            g["row_1"][...] = r1
            g["row_2"][...] = r2
        r = run("verify", str(bad))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"\n +40 .*(stored as losing but wins|losing \(three-rowed Chomp solved on its own\) but not stored)")
        self.assertIn("failed the check", r.stderr)

    def test_a_sample_entry_repeated_or_a_flag_no_copy_writes_fails(self):
        # An entry written twice (the set unchanged) passed; so did levels_only = 0 or 2, read as a copy.
        twice = Path(self.tmp.name) / "twice.h5"
        twice.write_bytes(self.copy.read_bytes())
        with h5py.File(twice, "r+") as f:
            g = f["verifiable/three_row_losing"]
            i = next(k for k, n in enumerate(g["tiles"][()]) if n == 40)
            for c in ("tiles", "row_1", "row_2", "row_3"):
                column = g[c][()]
                del g[c]
                g.create_dataset(c, data=np.append(column, column[i]))
        r = run("verify", str(twice))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"\n +40 .*is recorded more than once \(damaged or edited file\)")
        for flag in (0, 2):
            other = Path(self.tmp.name) / f"flag-{flag}.h5"
            other.write_bytes(self.copy.read_bytes())
            with h5py.File(other, "r+") as f:
                f.attrs["levels_only"] = np.int64(flag)
            r = run("verify", str(other))
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn(f"has levels_only = {flag}, which no copy writes", r.stderr)

    def test_a_run_not_finished_is_refused_or_copied_through_a_finished_level(self):
        # The run's file as a stop inside level 51 of a run to 60 leaves it:
        # 50 rows, complete = 0 (rows cut, attributes set as the writer would).
        stopped = Path(self.tmp.name) / "stopped.h5"
        stopped.write_bytes(self.run_file.read_bytes())
        with h5py.File(stopped, "r+") as f:
            for c in f["levels"].values():
                c.resize((50,))
            f.attrs["complete"] = 0
            f.attrs["status"] = "interrupted"
        refused = levels_only(stopped, Path(self.tmp.name) / "no.h5", check=False)
        self.assertEqual(refused.returncode, 2)
        self.assertIn("--through K copies levels 1..K of its 50 finished levels", refused.stderr)
        self.assertFalse((Path(self.tmp.name) / "no.h5").exists())
        past = levels_only(stopped, Path(self.tmp.name) / "no.h5", "--through", "51", check=False)
        self.assertEqual(past.returncode, 2)
        self.assertIn("has finished levels 1..50", past.stderr)
        snap = Path(self.tmp.name) / "snapshot.h5"
        levels_only(stopped, snap, "--through", "45")
        with h5py.File(snap, "r") as f, h5py.File(self.run_file, "r") as whole:
            self.assertEqual(int(f.attrs["max_tiles"]), 45)
            self.assertEqual(int(f.attrs["complete"]), 1)
            self.assertEqual(f.attrs["status"], "complete")
            self.assertIn("levels 1..45, each finished and final", f.attrs["snapshot_of_run"])
            self.assertIn("from a run to 60 tiles (status 'interrupted', 50 levels finished)", f.attrs["snapshot_of_run"])
            self.assertEqual(list(f["levels/losing"][()]), list(whole["levels/losing"][:45]))
            self.assertEqual(int(max(f["verifiable/three_row_losing/tiles"][()])), 45)
        r = run("verify", str(snap))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\n +45 +\d+ +\d+  ok\n")
        # A row 51 that a killed writer left without its marks chunk (every
        # column 51 rows long, that one's last row never written): not a
        # finished level, as the program and the package read it.
        half = Path(self.tmp.name) / "half.h5"
        half.write_bytes(stopped.read_bytes())
        with h5py.File(half, "r+") as f, h5py.File(self.run_file, "r") as whole:
            for name, c in f["levels"].items():
                c.resize((51,))
                if name != "marks":
                    c[50] = whole["levels"][name][50]
        past = levels_only(half, Path(self.tmp.name) / "no.h5", "--through", "51", check=False)
        self.assertEqual(past.returncode, 2, past.stdout + past.stderr)
        self.assertIn("has finished levels 1..50", past.stderr)
        self.assertFalse((Path(self.tmp.name) / "no.h5").exists())
        # Stopped before its first level: said so in one line that names the file once.
        empty = Path(self.tmp.name) / "empty.h5"
        empty.write_bytes(stopped.read_bytes())
        with h5py.File(empty, "r+") as f:
            for c in f["levels"].values():
                c.resize((0,))
        none = levels_only(empty, Path(self.tmp.name) / "no.h5", "--through", "1", check=False)
        self.assertEqual(none.returncode, 2)
        self.assertEqual(none.stderr, f"error: {empty}: no level finished yet (status = 'interrupted'): "
                                      "the run was stopped before its first level finished\n")

    def test_a_copy_through_a_level_keeps_only_the_stored_positions_it_holds(self):
        # A run that stores the losing positions of levels 1..30, copied
        # through 25: store_losing and /losing_positions say 25, and readers
        # take the copy (a store_losing above max_tiles is refused as damaged).
        run_file = Path(self.tmp.name) / "stored.h5"
        r = run("sieve", "-n", "40", "--store-losing", "30", "-o", str(run_file), "-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        snap = Path(self.tmp.name) / "stored-25.h5"
        levels_only(run_file, snap, "--through", "25")
        with h5py.File(snap, "r") as f:
            self.assertEqual(int(f.attrs["store_losing"]), 25)
            self.assertEqual(sorted(f["losing_positions"]), [f"level_{n:03d}" for n in range(1, 26)])
        shown = run("show", str(snap))
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertEqual(run("verify", str(snap)).returncode, 0)

    def test_a_3d_run_is_copied_without_a_2d_sample(self):
        # A 3D store holds plane partitions, which `chomp show --three-rows`
        # refuses: the copy is the table alone, every row and root attribute kept.
        run_file = Path(self.tmp.name) / "run3d.h5"
        r = run("sieve", "--dimensions", "3", "-n", "14", "-o", str(run_file), "-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        copy = Path(self.tmp.name) / "run3d-levels-only.h5"
        levels_only(run_file, copy)
        with h5py.File(run_file, "r") as f, h5py.File(copy, "r") as g:
            self.assertEqual(int(g.attrs["levels_only"]), 1)
            self.assertEqual(int(g.attrs["dimensions"]), 3)
            self.assertNotIn("verifiable", g)
            # PL(14) = 4167 plane partitions, 419 of them losing (data/levels3d-40.csv).
            self.assertEqual(int(g["levels/positions"][13]), 4167)
            self.assertEqual(int(g["levels/losing"][13]), 419)
            for name, column in f["levels"].items():
                np.testing.assert_array_equal(g["levels"][name][()], column[()], err_msg=name)
            for key, value in f.attrs.items():
                self.assertEqual(g.attrs[key], value, key)
            self.assertIn("3D", g["levels/tiles"].attrs["description"])

    def test_a_file_not_a_table_of_chomp_sieve_is_refused(self):
        # A grundy file has /levels and format_version too, so only its root
        # attribute format tells it apart; the copy was once written anyway.
        out = Path(self.tmp.name) / "refused.h5"
        for source, said in [
            (ROOT / "data" / "grundy-80.h5", 'is not a table of `chomp sieve`: its root attribute format = '
                                             '"chomp-grundy" marks a file of `chomp grundy`'),
            (Path(self.tmp.name) / "none.h5", "no result file at"),
            (ROOT / "data" / "levels-170.csv", "is not an HDF5 file"),
        ]:
            r = levels_only(source, out, check=False)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)  # one line, no traceback
            self.assertTrue(r.stderr.startswith("error: "), r.stderr)
            self.assertIn(f"{source}", r.stderr)
            self.assertIn(said, r.stderr)
            self.assertFalse(out.exists(), source)

    def test_a_folder_or_a_truncated_file_is_refused_by_name(self):
        # HDF5's message for a truncated file does not name it; the error does.
        truncated = Path(self.tmp.name) / "truncated.h5"
        truncated.write_bytes(self.run_file.read_bytes()[:3000])
        out = Path(self.tmp.name) / "refused.h5"
        for source, said in [(truncated, f"{truncated}: "), (Path(self.tmp.name), "is a folder, not a result file")]:
            r = levels_only(source, out, check=False)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)  # one line, no traceback
            self.assertTrue(r.stderr.startswith(f"error: {source}"), r.stderr)
            self.assertIn(said, r.stderr)
            self.assertFalse(out.exists(), source)

    def test_a_copy_in_a_missing_folder_is_refused_up_front(self):
        out = Path(self.tmp.name) / "no-such-folder" / "copy.h5"
        r = levels_only(self.run_file, out, check=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stderr, f"error: cannot write {out}: no folder {out.parent} "
                                   "(make the folder, or name a copy in one that exists)\n")
        self.assertFalse(out.parent.exists())

    def test_a_copy_is_not_written_over(self):
        r = levels_only(self.run_file, self.copy, check=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stderr, f"error: {self.copy} exists: the copy writes a new file (remove it or name another)\n")
        with h5py.File(self.copy, "r") as f:
            self.assertEqual(int(f.attrs["levels_only"]), 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
