#!/usr/bin/python3
"""ctest python.levels_only: a levels-only copy (experiments/h5_levels_only.py)
keeps a verifiable sample, the losing positions of at most three rows of every
level; `chomp verify` passes the copy, and fails it once one recorded position
is changed into another of the same tiles.

    CHOMP_BIN=build/chomp /usr/bin/python3 tests/test_levels_only.py
"""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import h5py

ROOT = Path(__file__).resolve().parent.parent
CHOMP = os.environ.get("CHOMP_BIN", str(ROOT / "build" / "chomp"))


def run(*args):
    return subprocess.run([CHOMP, *args], capture_output=True, text=True)


class LevelsOnlyCopy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.run_file = Path(cls.tmp.name) / "run.h5"
        cls.copy = Path(cls.tmp.name) / "levels-only.h5"
        r = run("sieve", "-n", "60", "-o", str(cls.run_file), "-q")
        assert r.returncode == 0, r.stderr
        subprocess.run([sys.executable, str(ROOT / "experiments" / "h5_levels_only.py"), str(cls.run_file),
                        str(cls.copy), "--chomp", CHOMP], check=True)

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


if __name__ == "__main__":
    unittest.main(verbosity=2)
