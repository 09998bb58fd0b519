#!/usr/bin/python3
"""ctest python.promote_levels: experiments/promote_levels.sh commits a run's
finished levels only once they check. On a run to 40 and a committed table
of levels 1..30: promoting 36 verifies levels 31..36, writes the levels-only
copy of 1..36 and its CSV, and removes the table it replaces; a committed
table that disagrees with the run, a store that fails `chomp verify`, a
level the run has not finished, one below the committed table, a
malformed one and a run whose marks leave out the moves it inferred are
refused, with data/ left as it was.

    CHOMP_BIN=build/chomp /usr/bin/python3 tests/test_promote_levels.py
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import h5py

ROOT = Path(__file__).resolve().parent.parent
CHOMP = os.environ.get("CHOMP_BIN", str(ROOT / "build" / "chomp"))
SCRIPT = ROOT / "experiments" / "promote_levels.sh"
# chomp_results, for h5_to_csv.py, unless installed
PY_ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "python"), os.environ.get("PYTHONPATH")])))


class PromoteLevels(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.run_file = Path(cls.tmp.name) / "run.h5"
        # Every move filed, as the committed tables' marks count them.
        r = subprocess.run([CHOMP, "sieve", "-n", "40", "-o", str(cls.run_file), "-q", "--file-all-marks"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        # The committed table the promotion replaces: levels 1..30 of the same run.
        cls.committed = Path(cls.tmp.name) / "committed"
        cls.committed.mkdir()
        subprocess.run([sys.executable, str(ROOT / "experiments" / "h5_levels_only.py"), str(cls.run_file),
                        str(cls.committed / "levels-30.h5"), "--chomp", CHOMP, "--through", "30"], check=True,
                       capture_output=True)
        subprocess.run([sys.executable, str(ROOT / "experiments" / "h5_to_csv.py"),
                        str(cls.committed / "levels-30.h5")], check=True, capture_output=True, env=PY_ENV)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def promote(self, k, data):
        env = dict(PY_ENV, CHOMP=CHOMP, DATA=str(data), NOTEBOOKS="0", OUT=str(Path(self.tmp.name) / "out"),
                   MOVES="50", PYTHON=sys.executable)
        return subprocess.run(["bash", str(SCRIPT), str(k), str(self.run_file)], capture_output=True, text=True,
                              env=env, cwd=ROOT)

    def fresh_data(self, name):
        data = Path(self.tmp.name) / name
        shutil.copytree(self.committed, data)
        return data

    def test_checked_levels_replace_the_committed_table(self):
        data = self.fresh_data("data-ok")
        r = self.promote(36, data)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(sorted(p.name for p in data.iterdir()), ["levels-36.csv", "levels-36.h5"])
        with h5py.File(data / "levels-36.h5", "r") as f:
            self.assertEqual(list(f["levels"]["tiles"]), list(range(1, 37)))
            self.assertEqual(int(f.attrs["levels_only"]), 1)
            self.assertEqual(int(f.attrs["max_tiles"]), 36)
        with open(data / "levels-36.csv") as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
        self.assertEqual(int(rows[-1]["tiles"]), 36)
        self.assertEqual(int(rows[35]["losing"]), 542)  # L(36), as in the committed table
        report = (Path(self.tmp.name) / "out" / "verify-31-36.txt").read_text()
        self.assertIn(f"levels 31..36 of {self.run_file} passed:", report)
        # The report's summary, for the provenance: the rule checked move by move.
        self.assertIn("chomp verify --finished --from 31 --to 36 --moves 50", r.stdout)
        self.assertRegex(r.stdout, r"the rule: \d+ positions .* one in 50\)")
        # The promoted copy passes verify on its own (its three-row sample).
        v = subprocess.run([CHOMP, "verify", str(data / "levels-36.h5")], capture_output=True, text=True)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)

    def test_a_committed_table_that_disagrees_stops_it_before_data_changes(self):
        data = self.fresh_data("data-bad")
        lines = (data / "levels-30.csv").read_text().splitlines(keepends=True)
        for i, line in enumerate(lines):
            if line.startswith("25,"):
                cells = line.split(",")
                cells[2] = str(int(cells[2]) + 1)  # L(25) off by one
                lines[i] = ",".join(cells)
        (data / "levels-30.csv").write_text("".join(lines))
        before = sorted(p.name for p in data.iterdir())
        r = self.promote(36, data)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("nothing was promoted", r.stderr)
        self.assertEqual(sorted(p.name for p in data.iterdir()), before)

    def test_a_damaged_store_fails_verify_before_data_changes(self):
        # A copy of the run whose store is damaged in its middle (levels
        # 34..37 lie there: the store holds the levels in order, each a few
        # hundred bytes here). Opening the store checks every level's
        # trailer, so any damage fails verify, whatever levels it checks.
        damaged = Path(self.tmp.name) / "damaged"
        damaged.mkdir()
        shutil.copy(self.run_file, damaged / "run.h5")
        store = bytearray(self.run_file.with_suffix(".store").read_bytes())
        for i in range(len(store) * 62 // 100, len(store) * 78 // 100):
            store[i] ^= 0x5A
        (damaged / "run.store").write_bytes(bytes(store))
        data = self.fresh_data("data-damaged")
        env = dict(PY_ENV, CHOMP=CHOMP, DATA=str(data), NOTEBOOKS="0", OUT=str(damaged), MOVES="50",
                   PYTHON=sys.executable)
        r = subprocess.run(["bash", str(SCRIPT), "36", str(damaged / "run.h5")], capture_output=True, text=True,
                           env=env, cwd=ROOT)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("damaged file", r.stderr)
        self.assertIn("chomp verify failed: nothing was promoted", r.stderr)
        self.assertEqual(sorted(p.name for p in data.iterdir()), ["levels-30.csv", "levels-30.h5"])

    def test_levels_not_finished_or_already_committed_are_refused(self):
        data = self.fresh_data("data-refused")
        r = self.promote(45, data)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("finished levels 1..40 only", r.stderr)
        r = self.promote(29, data)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("below the committed table", r.stderr)
        r = self.promote(30, data)  # a refresh, of a folder other than data/: nothing to do
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("is the committed table", r.stdout)
        r = self.promote("036", data)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("must be a level number", r.stderr)
        self.assertEqual(sorted(p.name for p in data.iterdir()), ["levels-30.csv", "levels-30.h5"])

    def test_a_run_that_inferred_marks_is_refused(self):
        # The default sieve infers its first two rows' moves and counts
        # fewer marks: committed, its table would make every later run's
        # marks differ from data/.
        data = self.fresh_data("data-inferred")
        inferred = Path(self.tmp.name) / "inferred.h5"
        r = subprocess.run([CHOMP, "sieve", "-n", "34", "-o", str(inferred), "-q"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        env = dict(PY_ENV, CHOMP=CHOMP, DATA=str(data), NOTEBOOKS="0", OUT=str(Path(self.tmp.name) / "out"),
                   MOVES="50", PYTHON=sys.executable)
        r = subprocess.run(["bash", str(SCRIPT), "33", str(inferred)], capture_output=True, text=True, env=env,
                           cwd=ROOT)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("inferred_marks = rows 1-2", r.stderr)
        self.assertIn("chomp sieve --file-all-marks", r.stderr)
        self.assertEqual(sorted(p.name for p in data.iterdir()), ["levels-30.csv", "levels-30.h5"])


if __name__ == "__main__":
    unittest.main()
