#!/usr/bin/python3
"""Tests of the chomp_results package: the lattice-path decoder against
hand-worked and brute-force positions, and the reader against a file written
by the sieve.

    CHOMP_POSITIONS_FILE=levels.h5 PYTHONPATH=python python3 python/tests/test_chomp_results.py

(or with the package installed, and CHOMP_DATA_DIR=.../data outside the checkout).

The file must come from `chomp sieve --max-tiles 60 --store-losing K` or
more, K >= 12 (ctest writes one); without the variable the file tests are
skipped.
"""

import math
import os
import shutil
import sys
import tempfile
import unittest
from functools import lru_cache
from pathlib import Path

sys.dont_write_bytecode = True

import chomp_results as cp  # noqa: E402

FILE = os.environ.get("CHOMP_POSITIONS_FILE")


def partitions(n, largest=None):
    """Every partition of n as row lengths, top row first."""
    largest = n if largest is None else largest
    if n == 0:
        yield ()
        return
    for first in range(min(n, largest), 0, -1):
        for rest in partitions(n - first, first):
            yield (first,) + rest


def moves(rows):
    """Every position reachable in one move, except the empty board (taking (1,1))."""
    for i, length in enumerate(rows):
        for j in range(length):
            if i == j == 0:
                continue
            after = tuple(x for x in (rows[:i] + tuple(min(x, j) for x in rows[i:])) if x)
            yield after


@lru_cache(maxsize=None)
def losing(rows):
    """Brute force, straight from the rules: losing iff no move leads to a losing position."""
    return not any(losing(m) for m in moves(rows))


class DecoderTest(unittest.TestCase):
    def test_examples_in_docstrings(self):
        import doctest

        self.assertEqual(doctest.testmod(cp).failed, 0)

    def test_hand_worked_paths(self):
        # (3,2): east east north east north = 0b10100; see include/chomp/h5_output.hpp
        self.assertEqual(cp.decode_path(0b10100), (3, 2))
        self.assertEqual(cp.decode_path(0b11010), (2, 2, 1))
        self.assertEqual(cp.decode_path(0b100110), (3, 1, 1))
        self.assertEqual(cp.decode_path(0b10), (1,))
        self.assertEqual(cp.decode_path(0b1110), (1, 1, 1))
        self.assertEqual(cp.decode_path(0b1000), (3,))

    def test_invalid_paths(self):
        for word in (0, 1, 0b101):  # no north step; a row of length 0 first
            with self.assertRaises(ValueError):
                cp.decode_path(word)
        # A path is an integer (numpy's too), not a text or a float that int() would round.
        import numpy as np

        self.assertEqual(cp.decode_path(np.uint64(38)), (3, 1, 1))
        for word in ("38", 2.9):
            with self.assertRaises(TypeError):
                cp.decode_path(word)
        with self.assertRaises(ValueError):
            cp.encode_rows((1, 2))
        # Inputs that used to give a wrong answer without a word.
        with self.assertRaises(TypeError):
            cp.encode_rows("31")  # was 18, the path of (3, 1)
        with self.assertRaises(ValueError):
            cp.transpose((1, 3))  # was (2,)
        with self.assertRaises(ValueError):
            cp.partition_numbers(-1)  # was [1]
        with self.assertRaises(ValueError):
            cp.plane_partition_numbers(-1)  # was [1]
        self.assertEqual(cp.transpose(()), ())

    def test_round_trip_and_transpose(self):
        for n in range(1, 16):
            words = set()
            for rows in partitions(n):
                word = cp.encode_rows(rows)
                self.assertEqual(cp.decode_path(word), rows)
                self.assertEqual(cp.transpose(cp.transpose(rows)), rows)
                self.assertEqual(sum(cp.transpose(rows)), n)
                # Column j's height: the rows longer than j, counted by hand (the identity passes the two
                # checks above; this one it does not).
                self.assertEqual(cp.transpose(rows), tuple(len([r for r in rows if r >= j])
                                                           for j in range(1, rows[0] + 1)))
                words.add(word)
            self.assertEqual(len(words), cp.partition_numbers(n)[n])

    def test_partition_numbers(self):
        small = cp.read_reference("small_counts.csv")
        p = cp.partition_numbers(30)
        self.assertEqual([p[t] for t in small["tiles"]], list(small["positions"]))
        self.assertEqual(cp.partition_numbers(100)[100], 190569292)

    def test_plane_partition_numbers(self):
        # OEIS A000219, and the values doc/THREE_D.md quotes
        pl = cp.plane_partition_numbers(50)
        self.assertEqual(pl[:11], [1, 1, 3, 6, 13, 24, 48, 86, 160, 282, 500])
        self.assertEqual((pl[30], pl[40], pl[50]), (5668963, 281846923, 10499640707))

    def test_brute_force_agrees_with_the_reference(self):
        # Guards the brute force used below: counts from data/reference/small_counts.csv.
        small = cp.read_reference("small_counts.csv")
        for t, count in zip(small["tiles"], small["losing"]):
            if t <= 14:
                self.assertEqual(sum(losing(x) for x in partitions(t)), count, t)


class OtherFilesTest(unittest.TestCase):
    """Files that are not a `chomp sieve` table are refused with ValueError
    (FileNotFoundError when missing), saying what they are; the committed
    files in data/ (see data_dir)."""

    def test_a_grundy_file_is_named(self):
        for name in ("grundy-80.h5", "grundy-100.h5"):
            with self.assertRaisesRegex(ValueError, r'format = "chomp-grundy" marks a file of `chomp grundy` '
                                                    r'\(read_grundy reads it, `chomp show` prints it;'):
                cp.read_levels(cp.data_dir() / name)

    def test_read_grundy(self):
        """The committed Grundy tables: value 0 is L(n) of the sieve's table, each row sums to p(n), and
        the counts by value of levels 1..12 are those of a brute-force mex straight from the rules."""
        levels = cp.read_levels(cp.data_dir() / "levels-170.h5")
        for name, n in (("grundy-80.h5", 80), ("grundy-100.h5", 100)):
            g = cp.read_grundy(cp.data_dir() / name)
            self.assertEqual(g.max_tiles, n)
            self.assertEqual(g.counts.shape, (n, n))
            self.assertEqual([int(x) for x in g.value_zero], [int(x) for x in levels.losing[:n]])
            self.assertEqual([int(x) for x in g.positions], cp.partition_numbers(n)[1:])
            self.assertEqual(g.attrs["format"], "chomp-grundy")
        @lru_cache(maxsize=None)
        def grundy(rows):
            seen = {grundy(m) for m in moves(rows)}
            return next(v for v in range(len(seen) + 1) if v not in seen)

        g = cp.read_grundy(cp.data_dir() / "grundy-80.h5")
        for n in range(1, 13):
            by_value = [0] * g.counts.shape[1]
            for x in partitions(n):
                by_value[grundy(x)] += 1
            self.assertEqual([int(c) for c in g.counts[n - 1]], by_value, n)
        # Not a Grundy file: the sieve's table, named as such; a missing file as open_h5 says.
        with self.assertRaisesRegex(cp.NotATableError, r"is not a file of `chomp grundy` .*a file of `chomp sieve`"):
            cp.read_grundy(cp.data_dir() / "levels-100.h5")
        with self.assertRaises(FileNotFoundError):
            cp.read_grundy(cp.data_dir() / "grundy-999.h5")

    @unittest.skipUnless(os.environ.get("CHOMP_BIN"), "set CHOMP_BIN to the chomp program")
    def test_a_rectangles_file_is_named(self):
        import subprocess

        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "rectangles.h5"
            subprocess.run([os.environ["CHOMP_BIN"], "rectangles", "--max-rows", "3", "--max-cols", "3",
                            "-o", str(out), "-q", "-t", "1"], check=True, capture_output=True)
            with self.assertRaisesRegex(ValueError, r'format = "chomp rectangles" marks a file of `chomp rectangles`'):
                cp.read_levels(out)
            # `chomp show` reads sieve and Grundy files, not this one: the message does not send the user there.
            with self.assertRaises(ValueError) as refused:
                cp.read_levels(out)
            self.assertNotIn("chomp show", str(refused.exception))
            self.assertIn("read_rectangles reads it", str(refused.exception))

    @unittest.skipUnless(os.environ.get("CHOMP_BIN"), "set CHOMP_BIN to the chomp program")
    def test_read_rectangles(self):
        """Every winning first move of the boards up to 5 x 7, as a brute force from the rules finds them;
        the known ones (2 x b leaves b, b - 1; a square is answered by (2, 2)); edits refused."""
        import subprocess

        import h5py

        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "rectangles.h5"
            subprocess.run([os.environ["CHOMP_BIN"], "rectangles", "--max-rows", "5", "--max-cols", "7",
                            "-o", str(out), "-q", "-t", "1"], check=True, capture_output=True)
            r = cp.read_rectangles(out)
            self.assertEqual((r.attrs["max_rows"], r.attrs["max_cols"]), (5, 7))
            boards = [(a, b) for a in range(2, 6) for b in range(a, 8)]
            self.assertEqual(list(zip(r.board_rows.tolist(), r.board_cols.tolist())), boards)
            def brute(a, b):
                """The winning first moves of a board of a rows and b columns, from the rules."""
                board = (b,) * a
                return sorted((i + 1, j + 1, m) for i in range(a) for j in range(b) if (i, j) != (0, 0)
                              for m in [tuple(x for x in board[:i] + tuple(min(x, j) for x in board[i:]) if x)]
                              if losing(m))

            for a, b in boards:
                self.assertEqual(sorted(r.moves(a, b)), brute(a, b), (a, b))
                self.assertEqual(sorted(r.moves(b, a)), brute(b, a), (b, a))
                self.assertEqual(int(r.winning_moves[boards.index((a, b))]), len(brute(a, b)))
            self.assertEqual(r.moves(3, 2), [(3, 2, (2, 2, 1))])  # 3 rows of 2: the corner tile of the last row
            for b in range(2, 8):
                self.assertEqual(r.moves(2, b), [(2, b, (b, b - 1))])
            for a in range(2, 6):
                self.assertEqual(r.moves(a, a), [(2, 2, (a,) + (1,) * (a - 1))])
            with self.assertRaises(KeyError):
                r.moves(6, 6)
            # Edits: a move's tile, the position it leaves, a board's count; each refused as damaged.
            for name, edit in (("move_row", lambda f: f["moves/move_row"].__setitem__(0, 1)),
                               ("leaves", lambda f: f["moves/leaves"].__setitem__(3, "9,9")),
                               ("spelling", lambda f: f["moves/leaves"].__setitem__(0, "+2,1")),
                               ("count", lambda f: f["boards/winning_moves"].__setitem__(2, 2))):
                copy = Path(tmp) / f"edited-{name}.h5"
                shutil.copy(out, copy)
                with h5py.File(copy, "r+") as f:
                    edit(f)
                with self.assertRaisesRegex(ValueError, "damaged", msg=name):
                    cp.read_rectangles(copy)
        with self.assertRaisesRegex(cp.NotATableError, r"is not a file of `chomp rectangles` .*a file of `chomp grundy`"):
            cp.read_rectangles(cp.data_dir() / "grundy-80.h5")

    def test_an_installed_package_finds_data_from_notebooks(self):
        # Installed (not a checkout's python/), used from the checkout's
        # notebooks/ (where a kernel runs): data_dir() is ../data, not ./data.
        import subprocess

        checkout = Path(__file__).resolve().parent.parent.parent
        if not (checkout / "notebooks").is_dir():
            self.skipTest(f"run from a copy of the tests without the checkout's notebooks/ ({checkout})")
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(Path(cp.__file__).parent, Path(tmp) / "site" / "chomp_results")
            env = {k: v for k, v in os.environ.items() if k != "CHOMP_DATA_DIR"}
            env["PYTHONPATH"] = str(Path(tmp) / "site")
            found = subprocess.run([sys.executable, "-B", "-c", "import chomp_results as c; print(c.data_dir())"],
                                   cwd=checkout / "notebooks", env=env, capture_output=True, text=True, check=True)
            self.assertEqual(Path(found.stdout.strip()), checkout / "data")

    def test_a_csv_is_not_hdf5(self):
        table = next(cp.data_dir().glob("levels-*.csv"))
        with self.assertRaisesRegex(ValueError, r"is not an HDF5 file"):
            cp.read_levels(table)
        # A run's store or checkpoint given for its table: the message names the table beside it.
        with tempfile.TemporaryDirectory() as tmp:
            store = Path(tmp) / "levels-90.store"
            store.write_bytes(b"CHOMPSTORE" + bytes(100))
            with self.assertRaisesRegex(cp.NotATableError, r"not an HDF5 file but a run's store file: the result "
                                                           r"file is the \.h5 beside it \(levels-90\.h5\)"):
                cp.read_levels(store)

    def test_another_hdf5_file_is_not_a_table(self):
        import h5py

        with tempfile.TemporaryDirectory() as tmp:
            other = Path(tmp) / "other.h5"
            with h5py.File(other, "w") as f:
                f["data"] = [1, 2, 3]
            no_levels = Path(tmp) / "no-levels.h5"
            with h5py.File(no_levels, "w") as f:
                f.attrs["format_version"] = 3
                f["losing_positions/level_005"] = [1]
            for path, said in ((other, r"format_version = None"), (no_levels, r"has no /levels group")):
                for read in (cp.read_levels, cp.stored_levels, lambda p: cp.read_losing_positions(p, 5)):
                    with self.assertRaisesRegex(cp.NotATableError, said):
                        read(path)

    @unittest.skipUnless(os.environ.get("CHOMP_BIN"), "set CHOMP_BIN to the chomp program")
    def test_a_3d_table_is_said_to_store_no_positions(self):
        import subprocess

        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "d3.h5"
            subprocess.run([os.environ["CHOMP_BIN"], "sieve", "--dimensions", "3", "--max-tiles", "12",
                            "--output", str(out), "-q"], check=True, capture_output=True)
            levels = cp.read_levels(out)
            self.assertEqual(levels.dimensions, 3)
            self.assertEqual([int(x) for x in levels.positions], cp.plane_partition_numbers(12)[1:])
            with self.assertRaisesRegex(KeyError, r"a table of 3D Chomp: 3D runs store no positions"):
                cp.read_losing_positions(out, 5)
            # An unfinished 3D run is continued with --dimensions 3 (without it the resume is refused).
            import h5py

            with h5py.File(out, "r+") as f:
                f.attrs["complete"] = 0
                f.attrs["status"] = "interrupted"
            with self.assertRaises(cp.IncompleteRunError) as caught:
                cp.read_levels(out)
            self.assertIn(f"continue it with `chomp sieve --dimensions 3 --resume --output {out}`", caught.exception.what)
            self.assertNotIn("read_levels", caught.exception.what)  # the Python hint is the message's alone
            self.assertIn("require_complete=False", str(caught.exception))

    def test_a_missing_reference_table_says_where_to_look(self):
        # (Either way of saying it, as CHOMP_DATA_DIR is unset or set: ctest sets it.)
        with self.assertRaisesRegex(FileNotFoundError, r"no reference table .*(set CHOMP_DATA_DIR to|CHOMP_DATA_DIR "
                                                       r"names this folder: set it to) the repository's data/"):
            cp.read_reference("none.csv")
        # The folder's README is no table: the tables there are named (it failed on float('- ...')).
        with self.assertRaisesRegex(ValueError, r"README\.md is not a reference table: give one of "
                                                r"caribou_density\.csv, small_counts\.csv"):
            cp.read_reference("README.md")
        # A data folder without the tables says where to point, whatever the name; a table whose row has more
        # fields than its header is named (it raised KeyError: None).
        from unittest import mock

        with tempfile.TemporaryDirectory() as tmp:
            with mock.patch.dict(os.environ, {"CHOMP_DATA_DIR": tmp}):
                with self.assertRaisesRegex(FileNotFoundError, r"CHOMP_DATA_DIR names this folder: set it to the "
                                                               r"repository's data/ folder, which holds reference/"):
                    cp.read_reference("x.txt")
                with self.assertRaisesRegex(FileNotFoundError, rf"no levels-N\.h5 in {tmp} \(CHOMP_DATA_DIR names "
                                                               r"this folder: set it to the repository's data/"):
                    cp.default_levels_file()
                (Path(tmp) / "reference").mkdir()
                (Path(tmp) / "reference" / "bad.csv").write_text("tiles,positions\n1,1,9\n")
                with self.assertRaisesRegex(ValueError, r"bad\.csv has a row whose fields do not match its header"):
                    cp.read_reference("bad.csv")

    def test_a_missing_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaisesRegex(FileNotFoundError, "no result file at"):
                cp.read_levels(Path(tmp) / "none.h5")

    def test_a_levels_only_copy_is_said_to_keep_no_positions(self):
        # The committed table is a levels-only copy: the advice is to read the run's own file.
        with self.assertRaisesRegex(KeyError, r"does not store the losing positions of level 5 \(a levels-only copy of a run that stored none"):
            cp.read_losing_positions(cp.default_levels_file(), 5)

    def test_row_of_a_level_not_in_the_table(self):
        levels = cp.read_levels(cp.default_levels_file())
        self.assertEqual(levels.row(1), 0)
        self.assertEqual(levels.row(levels.max_tiles), len(levels.tiles) - 1)
        for n in (0, -1, levels.max_tiles + 1):
            with self.assertRaisesRegex(IndexError, rf"level {n} is not in .*: it holds levels 1\.\.{levels.max_tiles}"):
                levels.row(n)
        with self.assertRaises(TypeError):
            levels.row(2.5)  # was the row of level 2

    def test_other_kinds_and_bad_levels_for_losing_positions(self):
        with self.assertRaisesRegex(ValueError, r'format = "chomp-grundy" marks a file of `chomp grundy`'):
            cp.read_losing_positions(cp.data_dir() / "grundy-80.h5", 5)
        with self.assertRaisesRegex(ValueError, r"levels start at 1"):
            cp.read_losing_positions(cp.default_levels_file(), 0)

    def test_to_csv_keeps_its_source_and_an_earlier_csv(self):
        import dataclasses

        import numpy as np

        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / "levels.h5"
            shutil.copy(cp.default_levels_file(), source)
            before = source.read_bytes()
            levels = cp.read_levels(source)
            # The result file itself, by a hard link or a symbolic one named .csv: refused, the file kept.
            os.link(source, Path(tmp) / "hard.csv")
            os.symlink(source, Path(tmp) / "soft.csv")
            for out in ("hard.csv", "soft.csv", "levels.h5"):
                with self.assertRaisesRegex(ValueError, r"is the result file .*levels\.h5 the table is read from"):
                    cp.to_csv(levels, Path(tmp) / out)
            self.assertEqual(source.read_bytes(), before)
            for suffix in (".h5", ".store", ".window", ".lock", ".partial"):
                with self.assertRaisesRegex(ValueError, rf"is named like a run's file \({suffix}\)"):
                    cp.to_csv(levels, str(Path(tmp) / f"other{suffix}"))
                self.assertFalse((Path(tmp) / f"other{suffix}").exists())
            # An error while writing leaves an earlier CSV as it was, and no partial file beside it.
            out = Path(tmp) / "levels.csv"
            cp.to_csv(levels, out)
            good = out.read_text()
            # The CSV gets the mode a file opened for writing would (mkstemp's is 0600), and the umask is
            # read without being set (setting it to read it gave other threads' files mode 0666 meanwhile).
            from unittest import mock

            real = os.umask(0)
            os.umask(real)
            with mock.patch("os.umask", side_effect=AssertionError("the umask was set")):
                self.assertEqual(cp._umask(), real)
            self.assertEqual(out.stat().st_mode & 0o777, 0o666 & ~cp._umask())
            mask = os.umask(0o027)
            try:
                self.assertEqual(cp._umask(), 0o027)
                cp.to_csv(levels, Path(tmp) / "other.csv")
                self.assertEqual((Path(tmp) / "other.csv").stat().st_mode & 0o777, 0o640)
            finally:
                os.umask(mask)
            (Path(tmp) / "other.csv").unlink()
            self.assertIn(f"\n{levels.max_tiles},", good)
            seconds = levels.seconds.astype(object)
            seconds[100] = "not a number"
            with self.assertRaises(ValueError):
                cp.to_csv(dataclasses.replace(levels, seconds=np.array(seconds)), out)
            self.assertEqual(out.read_text(), good)
            self.assertEqual(sorted(p.name for p in Path(tmp).iterdir()),
                             ["hard.csv", "levels.csv", "levels.h5", "soft.csv"])

    @staticmethod
    def _index_entry(data, path, column, row):
        """Where the chunk index of /levels/column (or of the dataset of that
        path, when it starts with /) in the file `path` (whose bytes are
        `data`) files the address of row `row`'s chunk: its only occurrence
        as 8 little-endian bytes."""
        with cp.open_h5(path) as f:
            d = f[column] if column.startswith("/") else f["levels"][column]
            address = d.id.get_chunk_info_by_coord((row,)).byte_offset
        found = [i for i in range(len(data) - 7) if data[i:i + 8] == address.to_bytes(8, "little")]
        assert len(found) == 1, f"the address {address} of row {row} of {column} is in {len(found)} places"
        return found[0], address

    def test_a_damaged_chunk_index_is_refused(self):
        # One byte of a chunk index changed (the committed table's v1
        # B-tree has no checksum): a row read as 0 (its chunk missing) or as
        # another row's values (two entries at one place), in a table that
        # looked whole; the chunks themselves keep their valid checksums.
        import h5py

        table = cp.default_levels_file()
        data = Path(table).read_bytes()
        with tempfile.TemporaryDirectory() as tmp:
            # The address of row 100's seconds made that of row 101.
            at, _ = self._index_entry(data, table, "seconds", 100)
            _, other = self._index_entry(data, table, "seconds", 101)
            shared = Path(tmp) / "shared.h5"
            shared.write_bytes(data[:at] + other.to_bytes(8, "little") + data[at + 8:])
            with h5py.File(shared, "r") as f:  # what HDF5 alone reads: row 101's seconds as row 100's
                self.assertEqual(f["levels/seconds"][100], f["levels/seconds"][101])
            for read in (cp.read_levels, cp.stored_levels):
                with self.assertRaisesRegex(cp.NotATableError, r"shared\.h5: /levels/seconds: two chunks share one "
                                            r"place in the file .*a damaged chunk index; use an undamaged copy"):
                    read(shared)

            def lose_chunk(name, column, row, complete, also=None):
                """A copy of the table whose index entry for row `row` of column (and for row `also`) names a
                row far beyond its rows (the top byte of its chunk offset, in the key before the address), with
                root attribute complete as given."""
                copy = Path(tmp) / name
                shutil.copy(table, copy)
                with h5py.File(copy, "r+") as f:
                    f.attrs["complete"], f.attrs["status"] = complete, "complete" if complete else "interrupted"
                damaged = bytearray(copy.read_bytes())
                for r in (row,) if also is None else (row, also):
                    at, _ = self._index_entry(damaged, copy, column, r)
                    self.assertEqual(int.from_bytes(damaged[at - 16:at - 8], "little"), r)  # the key's chunk offset
                    damaged[at - 9] ^= 0xFF
                copy.write_bytes(damaged)
                with h5py.File(copy, "r") as f:  # what HDF5 alone reads: the fill value
                    self.assertEqual(f["levels"][column][row], 0)
                return copy

            last = cp.read_levels(table).max_tiles - 1
            gap = lose_chunk("gap.h5", "marks", 92, 0)
            for read in (cp.read_levels, cp.stored_levels):
                with self.assertRaisesRegex(cp.NotATableError, r"/levels/marks: its chunk of the rows from row 93 is missing "
                                            r"from its chunk index while later rows have theirs .*use an undamaged"):
                    read(gap)
            with self.assertRaisesRegex(cp.NotATableError, rf"/levels/seconds: its chunk of the rows from row {last + 1} is "
                                        r"missing from its chunk index in a complete file"):
                cp.read_levels(lose_chunk("complete.h5", "seconds", last, 1))
            # The last row of an unfinished run's column missing: a row its killed writer never wrote.
            levels = cp.read_levels(lose_chunk("unfinished.h5", "seconds", last, 0), require_complete=False)
            self.assertEqual(levels.max_tiles, last)
            self.assertEqual(list(levels.seconds), list(cp.read_levels(table).seconds[:last]))
            # Two rows missing at the end: more than a write that failed part way leaves.
            with self.assertRaisesRegex(cp.NotATableError, rf"/levels/seconds: its chunk of the rows from row {last} is "
                                        r"missing from its chunk index, and more rows than an unfinished run's last"):
                cp.read_levels(lose_chunk("two.h5", "seconds", last - 1, 0, also=last), require_complete=False)

    def test_stored_positions_whose_chunk_is_lost_are_refused(self):
        # The stored positions of a level, written whole, read as lattice path 0 (no position at all)
        # where their chunk's index entry was lost: refused, naming the file and the damage.
        table = cp.data_dir() / "levels-100.h5"
        self.assertEqual(len(cp.read_losing_positions(table, 40)), 1022)  # L(40)
        damaged = bytearray(table.read_bytes())
        at, _ = self._index_entry(damaged, table, "/losing_positions/level_040", 0)
        damaged[at - 9] ^= 0xFF  # the top byte of the key's chunk offset, before the address
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "lost.h5"
            copy.write_bytes(damaged)
            with self.assertRaisesRegex(cp.NotATableError, r"lost\.h5: /losing_positions/level_040: its chunk of the "
                                        r"rows from row 1 is missing from its chunk index .*use an undamaged copy"):
                cp.read_losing_positions(copy, 40)
            self.assertEqual(len(cp.read_losing_positions(copy, 39)), 877)  # L(39): the others read

    def test_dimensions_other_than_2_or_3_are_refused(self):
        import h5py

        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "seven.h5"
            shutil.copy(cp.default_levels_file(), copy)
            with h5py.File(copy, "r+") as f:
                f.attrs["dimensions"] = 7
            for read in (cp.read_levels, cp.stored_levels):
                with self.assertRaisesRegex(cp.NotATableError, r"seven\.h5: its root attribute dimensions = 7, "
                                            r"which no chomp result file has \(2 or 3\): a damaged file"):
                    read(copy)

    def test_to_csv_takes_any_text_file_and_refuses_a_binary_one(self):
        import io

        levels = cp.read_levels(cp.default_levels_file())
        with tempfile.NamedTemporaryFile("w+", suffix=".csv") as t:  # not an io.TextIOBase
            cp.to_csv(levels, t)
            t.seek(0)
            self.assertIn("\n170,", t.read())
        with self.assertRaisesRegex(TypeError, "to_csv writes text"):
            cp.to_csv(levels, io.BytesIO())
        # A file name where the table goes is said to be one; the CSV's own name in the errors, not the
        # temporary file's beside it.
        with self.assertRaisesRegex(TypeError, r"to_csv takes the Levels that read_levels returns, not str"):
            cp.to_csv(str(cp.default_levels_file()), io.StringIO())
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaisesRegex(IsADirectoryError, rf"{tmp} is a folder: give a file name for the CSV"):
                cp.to_csv(levels, tmp)
            with self.assertRaisesRegex(FileNotFoundError, r"the folder of .*nodir/x\.csv does not exist"):
                cp.to_csv(levels, Path(tmp) / "nodir" / "x.csv")
            self.assertEqual(list(Path(tmp).iterdir()), [])


@unittest.skipUnless(FILE, "set CHOMP_POSITIONS_FILE to a file from chomp sieve --store-losing 12 or more")
class FileTest(unittest.TestCase):
    def test_level_5(self):
        self.assertEqual(sorted(cp.read_losing_positions(FILE, 5)), [(2, 2, 1), (3, 1, 1), (3, 2)])

    def test_stored_levels_match_brute_force(self):
        stored = cp.stored_levels(FILE)
        self.assertGreaterEqual(len(stored), 12)
        levels = cp.read_levels(FILE)
        for t in stored:
            found = cp.read_losing_positions(FILE, t)
            self.assertEqual(len(found), levels.losing[levels.row(t)], t)
            if t <= 14:
                self.assertEqual(sorted(found), sorted(x for x in partitions(t) if losing(x)), t)

    def test_reader(self):
        levels = cp.read_levels(FILE)
        self.assertEqual(list(levels.tiles), list(range(1, levels.max_tiles + 1)))
        self.assertEqual(levels.attrs["complete"], 1)
        self.assertEqual([int(x) for x in levels.positions], cp.partition_numbers(levels.max_tiles)[1:])
        with self.assertRaisesRegex(KeyError, r"run chomp sieve with --store-losing"):
            cp.read_losing_positions(FILE, levels.attrs["store_losing"] + 1)
        # Beyond the run, or beyond what any run stores: no --store-losing that the program refuses is suggested.
        beyond = levels.max_tiles + 1
        self.assertLessEqual(beyond, cp.MAX_STORED_LEVEL)
        with self.assertRaisesRegex(KeyError, rf"its run goes to level {levels.max_tiles}: run chomp sieve to "
                                              rf"{beyond} with --store-losing {beyond}"):
            cp.read_losing_positions(FILE, beyond)
        with self.assertRaisesRegex(KeyError, r"no run stores a level above 63: chomp sieve --store-losing takes "
                                              r"0\.\.63"):
            cp.read_losing_positions(FILE, 64)

    @staticmethod
    def _copy_with_status(folder, name, status, edit=None):
        """A copy of FILE in folder whose run reads as not complete (status),
        after edit(f) of the open copy, if given."""
        import h5py

        copy = Path(folder) / name
        shutil.copy(FILE, copy)
        with h5py.File(copy, "r+") as f:
            f.attrs["complete"] = 0
            f.attrs["status"] = status
            if edit:
                edit(f)
        return copy

    def test_refuses_incomplete_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            copy = self._copy_with_status(tmp, "interrupted.h5", "interrupted")
            with self.assertRaisesRegex(cp.IncompleteRunError, r"status = 'interrupted'\): continue it with "
                                        r"`chomp sieve --resume --output .*interrupted\.h5`, with the options of "
                                        r"its first leg's command line as needed \(`.*sieve .*`\); "
                                        r".*require_complete=False"):
                cp.read_levels(copy)
            self.assertEqual(cp.read_levels(copy, require_complete=False).attrs["complete"], 0)
            # Stopped before its first level finished: said so, whatever its status, not "levels are not 1, 2, ...".
            for status, why in [("interrupted", "the run was stopped before its first level finished"),
                                ("running", "the run has just started")]:
                empty = self._copy_with_status(tmp, f"empty-{status}.h5", status,
                                               lambda f: [f["levels"][c].resize((0,)) for c in f["levels"]])
                with self.assertRaisesRegex(ValueError, rf"no level finished yet \(status = '{status}'\): {why}"):
                    cp.read_levels(empty, require_complete=False)
            # A status no writer makes is damage, as the program reads it, not a run to wait for.
            bogus = self._copy_with_status(tmp, "bogus.h5", "bogus")
            with self.assertRaisesRegex(cp.NotATableError, r"its status 'bogus' is none of complete, interrupted, "
                                        r"failed or running: a damaged file"):
                cp.read_levels(bogus, require_complete=False)

    def test_row_written_in_part_is_no_level(self):
        # A write that failed part way (a full disk, a file size limit) leaves
        # a last row whose store_trailer reads 0: `chomp sieve --resume`
        # computes that level again, and the reader must not return it.
        import h5py

        def cut_last_row(f):
            last = len(f["levels"]["tiles"]) - 1
            f["levels"]["store_trailer"][last] = 0
            f["levels"]["losing"][last] = 0  # (its fraction and ratio left: such a row's columns are not checked)

        with tempfile.TemporaryDirectory() as tmp:
            copy = self._copy_with_status(tmp, "stopped.h5", "running", cut_last_row)
            last = len(cp.read_levels(FILE).tiles) - 1
            levels = cp.read_levels(copy, require_complete=False)
            self.assertEqual(levels.max_tiles, last)
            self.assertGreater(int(levels.losing[-1]), 0)
            # A complete file's rows are every level: that row is one, and no finished level has a store
            # trailer of 0 (nor do its counts agree with its fraction).
            with h5py.File(copy, "r+") as f:
                f.attrs["complete"] = 1
                f.attrs["status"] = "complete"
            with self.assertRaisesRegex(ValueError, rf"row {last + 1} of /levels has store_trailer 0"):
                cp.read_levels(copy)

    def test_a_derived_column_that_disagrees_with_its_counts_is_refused(self):
        # Rewritten through HDF5 (its checksums whole): the fraction or the
        # ratio a reader looks at first would be wrong in a table that looks
        # whole. The level, the column and both values are named.
        import h5py

        def refused(tmp, name, says, **rows):
            """A copy of FILE with rows[column] = {row: value} written, which read_levels refuses saying `says`."""
            copy = Path(tmp) / name
            shutil.copy(FILE, copy)
            with h5py.File(copy, "r+") as f:
                for column, values in rows.items():
                    for i, v in values.items():
                        f["levels"][column][i] = v
            with self.assertRaisesRegex(ValueError, says):
                cp.read_levels(copy)

        levels = cp.read_levels(FILE)
        with tempfile.TemporaryDirectory() as tmp:
            for column in ("losing_fraction", "hypothesis_ratio"):
                refused(tmp, f"{column}.h5", rf"level 20: {column} = .* disagrees with L = 42, p = 627, which give "
                        r".*one of them is wrong", **{column: {19: 1.5 * getattr(levels, column)[19]}})
            refused(tmp, "more.h5", r"level 20: has more losing positions \(628\) than positions \(627\)",
                    losing={19: 628}, losing_fraction={19: 628 / 627},
                    hypothesis_ratio={19: 628 / (627 / math.log(627))})
            # The first level at fault is named, as `chomp show` names it: the ratio of level 5 before the
            # fraction of level 10.
            refused(tmp, "two.h5", r"level 5: hypothesis_ratio = 2\.0 disagrees", hypothesis_ratio={4: 2.0},
                    losing_fraction={9: 0.5})
            # Values no finished level holds (a damaged chunk index reads them with a checksum that holds),
            # refused as `chomp show` refuses them.
            damage = r" \(a damaged file: use an undamaged copy"
            refused(tmp, "tiles.h5", r"row 30 of /levels is for level 0, not 30 \(the levels are 1, 2, \.\.\.\)" + damage,
                    tiles={29: 0})
            refused(tmp, "slices.h5", r"row 30 of /levels says the level was finished in 0 slices", slices={29: 0})
            refused(tmp, "trailer.h5", r"row 30 of /levels has store_trailer 0", store_trailer={29: 0})
            refused(tmp, "digest.h5", r"row 30 of /levels has losing_digest 0 for 220 losing positions",
                    losing_digest={29: 0})
            refused(tmp, "marks.h5", r"row 30 of /levels has marks 0, which no level from 10 on has",
                    marks={29: 0})
            # Levels below 10 may have no marks to count (levels 1..5 of a run that infers both rows'
            # moves): 0 there reads.
            copy = Path(tmp) / "marks9.h5"
            shutil.copy(FILE, copy)
            with h5py.File(copy, "r+") as f:
                f["levels"]["marks"][8] = 0
            self.assertEqual(cp.read_levels(copy).marks[8], 0)
        self.assertEqual(len(cp.read_levels(FILE).tiles), cp.read_levels(FILE).max_tiles)  # the original reads

    def test_to_csv(self):
        import csv
        import io

        levels = cp.read_levels(FILE)
        buf = io.StringIO()
        cp.to_csv(levels, buf)
        lines = buf.getvalue().splitlines()
        self.assertTrue(lines[0].startswith("# chomp sieve per-level table"))
        self.assertIn(f"# command_line: {levels.attrs['command_line']}", lines)
        rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
        self.assertEqual(len(rows), levels.max_tiles)
        self.assertEqual(int(rows[59]["losing"]), 20106)  # L(60), data/reference
        self.assertEqual(float(rows[59]["hypothesis_ratio"]), float(levels.hypothesis_ratio[59]))
        # The run's columns of format 3: the windows' passes, the slices and each level's losing digest
        # in 16 hex digits (`chomp show --json`'s). Level 1's one losing rank (0) has the digest
        # splitmix64(0); level 2 has no losing position, and so the digest 0.
        self.assertEqual(list(rows[0])[-3:], ["window_seconds", "slices", "losing_digest"])
        self.assertEqual([r["losing_digest"] for r in rows[:2]], ["e220a8397b1dcdaf", "0000000000000000"])
        self.assertEqual(int(rows[59]["losing_digest"], 16), int(levels.losing_digest[59]))
        self.assertTrue(all(int(r["slices"]) == 1 for r in rows))
        self.assertAlmostEqual(sum(float(r["seconds"]) + float(r["window_seconds"]) for r in rows),
                               levels.seconds_in_all(), places=6)
        self.assertGreater(float(rows[0]["window_seconds"]), 0.0)  # the pass that opened the first window
        # A committed table changed by hand after its run says so (root attribute edits), in its
        # provenance and its CSV; one as the program wrote it has no such line.
        edited = cp.read_levels(cp.data_dir() / "run-170" / "levels-156.h5")
        self.assertIn("edits:         2026-12-02, by hand", edited.provenance())
        # It is a snapshot of levels 1..156 of a run to 170, whose command line it keeps: it says so.
        self.assertIn("snapshot:      levels 1..156, each finished and final, copied at 2026-12-02T03:05:27Z "
                      "from a run to 170 tiles", edited.provenance())
        self.assertNotIn("snapshot", levels.provenance())
        self.assertNotIn("dimensions", levels.provenance())
        # A resumed run names each leg after the first (its git_revision is the last leg's alone): the
        # committed table's provenance and CSV said nothing of its seven resumes.
        committed = cp.read_levels(cp.data_dir() / "levels-170.h5")
        self.assertIn("\nresumed:       2026-12-02T11:25:38Z: restored levels 1..123 with 2 threads (chomp 0.2.0, "
                      "revision ff2a3e731e5b)", committed.provenance())
        self.assertEqual(committed.provenance().count("\nresumed:"), 7)
        buf = io.StringIO()
        cp.to_csv(committed, buf)
        self.assertIn("\n# resume_history: 2026-12-02T11:25:38Z: restored levels 1..123", buf.getvalue())
        self.assertIn("\n#   2026-12-03T07:36:37Z: restored levels 1..168", buf.getvalue())
        self.assertNotIn("resume", levels.provenance())   # a run never resumed
        # A table of 3D Chomp says so (its counts are of plane partitions).
        self.assertIn("dimensions:    3 (positions are plane partitions)",
                      cp.read_levels(cp.data_dir() / "levels3d-40.h5").provenance())
        buf = io.StringIO()
        cp.to_csv(edited, buf)
        self.assertIn("\n# edits: 2026-12-02, by hand", buf.getvalue())
        self.assertNotIn("edits", levels.provenance())
        # An attribute of several lines stays in # lines: the table still reads.
        edited.attrs["edits"] = "2026-12-01: one change\n2026-12-07: another"
        buf = io.StringIO()
        cp.to_csv(edited, buf)
        text = buf.getvalue()
        self.assertIn("\n#   2026-12-07: another\n", text)
        lines = text.splitlines()
        header = lines.index("tiles,positions,losing,losing_fraction,hypothesis_ratio,seconds,marks,window_seconds,"
                             "slices,losing_digest")
        self.assertTrue(all(line.startswith("#") for line in lines[:header]), lines[:header])
        # A bare carriage return too (pandas' parser ends a line there).
        edited.attrs["edits"] = "one\rtwo"
        buf = io.StringIO()
        cp.to_csv(edited, buf)
        self.assertIn("\n#   two\n", buf.getvalue())
        # A file of format 1 has none of them: the seven columns it has.
        old = cp.read_levels(cp.data_dir() / "levels-100.h5")
        self.assertIsNone(old.losing_digest)
        buf = io.StringIO()
        cp.to_csv(old, buf)
        self.assertIn("\ntiles,positions,losing,losing_fraction,hypothesis_ratio,seconds,marks\n1,", buf.getvalue())

    def test_to_dataframe(self):
        levels = cp.read_levels(FILE)
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaisesRegex(ImportError, "python3-pandas"):
                levels.to_dataframe()
            return
        df = levels.to_dataframe()
        self.assertEqual(int(df.loc[60, "losing"]), 20106)
        self.assertEqual(df.attrs["complete"], 1)

    @unittest.skipUnless(os.environ.get("CHOMP_BIN"), "set CHOMP_BIN to the chomp program")
    def test_stored_levels_leave_out_a_row_written_in_part(self):
        # As read_levels: a last row whose store_trailer reads 0 is no finished level, so its stored
        # positions are not offered either (stored_levels said 30 where read_levels said 29).
        import subprocess

        import h5py

        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "all.h5"
            subprocess.run([os.environ["CHOMP_BIN"], "sieve", "-n", "30", "--store-losing", "30", "-q", "-t", "1",
                            "-o", str(out)], check=True, capture_output=True)
            self.assertEqual(cp.stored_levels(out)[-1], 30)
            with h5py.File(out, "r+") as f:
                f.attrs["complete"], f.attrs["status"] = 0, "running"
                f["levels"]["store_trailer"][29] = 0
            self.assertEqual(cp.read_levels(out, require_complete=False).max_tiles, 29)
            self.assertEqual(cp.stored_levels(out), list(range(1, 30)))
            # The run stores level 30 but has not finished it: said so, not "run with --store-losing 30".
            with self.assertRaisesRegex(KeyError, r"does not store the losing positions of level 30 \(the run "
                                                  r"stores that level but has not finished it yet"):
                cp.read_losing_positions(out, 30)
            # Of a run that stopped there, the hint is to continue it.
            with h5py.File(out, "r+") as f:
                f.attrs["status"] = "interrupted"
            with self.assertRaisesRegex(KeyError, r"not finished it yet: the run stopped before it \(status "
                                                  r"\"interrupted\"\); continue it with chomp sieve --resume"):
                cp.read_losing_positions(out, 30)

    @unittest.skipUnless(os.environ.get("CHOMP_BIN"), "set CHOMP_BIN to the chomp program")
    def test_file_of_a_killed_run(self):
        # A run killed with SIGKILL leaves its file marked open for SWMR
        # writing: plain h5py refuses it, the reader opens it (as a SWMR
        # reader) and gives its finished levels, refusing it as complete.
        import signal
        import subprocess
        import time

        import h5py

        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "killed.h5"
            run = subprocess.Popen([os.environ["CHOMP_BIN"], "sieve", "--max-tiles", "115", "--output", str(out), "-q"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                deadline = time.time() + 30
                while time.time() < deadline:
                    time.sleep(0.5)
                    if out.exists():
                        try:
                            done = len(cp.read_levels(out, require_complete=False).tiles)
                        except (OSError, ValueError):
                            continue
                        if done >= 12:
                            break
            finally:
                run.send_signal(signal.SIGKILL)
                run.wait()
            with self.assertRaises(OSError):
                h5py.File(out, "r").close()
            levels = cp.read_levels(out, require_complete=False)
            self.assertGreaterEqual(len(levels.tiles), 12)
            self.assertLess(len(levels.tiles), 115)
            self.assertEqual(int(levels.losing[11]), 10)  # L(12), data/reference/small_counts.csv
            with self.assertRaises(cp.IncompleteRunError):
                cp.read_levels(out)
            # Damaged as well: a SWMR reader retried HDF5's checksums for ever (its default); the reader bounds
            # them and says the file is damaged within seconds. In a child process, so that a hang fails the test.
            with open(out, "r+b") as f:
                f.seek(512)
                block = bytearray(f.read(256))
                f.seek(512)
                f.write(bytes(b ^ 0xFF for b in block))
            code = ("import sys, chomp_results as cp\n"
                    "try:\n    cp.read_levels(sys.argv[1], require_complete=False)\n"
                    "except ValueError as e:\n    print(e)\n")
            started = time.time()
            said = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, timeout=120,
                                  env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
            self.assertLess(time.time() - started, 60)
            self.assertIn("the file is damaged", said.stdout, said.stderr)

    @unittest.skipUnless(os.environ.get("CHOMP_BIN"), "set CHOMP_BIN to the chomp program")
    def test_a_live_file_reads_whole_while_levels_are_appended(self):
        # Read over and over while a run appends levels and ends: every read
        # gives levels 1..k, k never falls, and none fails (a read that meets
        # the run's end failed about once in 1,100 before the reader read
        # again; test_a_file_seen_truncated_is_read_again makes that race
        # certain). A read before the first level says so.
        import subprocess

        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "live.h5"
            run = subprocess.Popen([os.environ["CHOMP_BIN"], "sieve", "--max-tiles", "70", "--threads", "1",
                                    "--output", str(out), "-q"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            reads, rows, errors = 0, 0, []
            try:
                while run.poll() is None:
                    if not out.exists():
                        continue
                    try:
                        levels = cp.read_levels(out, require_complete=False)
                    except ValueError as e:
                        if "no level finished yet" not in str(e):
                            errors.append(e)
                        continue
                    except OSError as e:
                        errors.append(e)
                        continue
                    self.assertGreaterEqual(len(levels.tiles), rows)
                    rows = len(levels.tiles)
                    self.assertEqual(list(levels.tiles), list(range(1, rows + 1)))
                    reads += 1
            finally:
                if run.poll() is None:
                    run.kill()
                run.wait()
            self.assertEqual(run.returncode, 0)
            self.assertEqual(errors, [])
            self.assertGreaterEqual(reads, 5)
            done = cp.read_levels(out)
            self.assertEqual(done.max_tiles, 70)
            self.assertEqual(int(done.losing[59]), 20106)  # L(60), as in test_to_csv

    @unittest.skipUnless(os.environ.get("CHOMP_BIN"), "set CHOMP_BIN to the chomp program")
    def test_a_file_seen_truncated_is_read_again(self):
        # As its writer closes it, a file is for a moment shorter than its
        # superblock says. The reader reads again and gets the whole file
        # once its end is there; a file that stays truncated is refused.
        import subprocess
        import threading
        import time

        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "run.h5"
            subprocess.run([os.environ["CHOMP_BIN"], "sieve", "--max-tiles", "20", "--output", str(out), "-q"],
                           check=True, capture_output=True)
            data = out.read_bytes()
            cut = len(data) - 4096
            out.write_bytes(data[:cut])

            def close():
                time.sleep(0.05)
                with open(out, "ab") as f:  # the file only grows
                    f.write(data[cut:])

            closer = threading.Thread(target=close)
            closer.start()
            try:
                levels = cp.read_levels(out)
            finally:
                closer.join()
            self.assertEqual(levels.max_tiles, 20)
            self.assertEqual(int(levels.losing[11]), 10)  # L(12), data/reference/small_counts.csv
            out.write_bytes(data[:cut])
            with self.assertRaisesRegex(ValueError, r"cannot be read: the file is truncated .* Copy it again"):
                cp.read_levels(out)

    def test_a_file_another_program_writes_is_said_to_be_locked(self):
        # HDF5's file lock, held by another process that has the file open
        # for writing: not "damaged", and no advice to copy it again.
        import subprocess

        with tempfile.TemporaryDirectory() as tmp:
            held = Path(tmp) / "held.h5"
            shutil.copy(FILE, held)
            writer = subprocess.Popen([sys.executable, "-c", "import h5py, sys; f = h5py.File(sys.argv[1], 'r+'); "
                                       "print('open', flush=True); sys.stdin.read()", str(held)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                self.assertEqual(writer.stdout.readline().strip(), "open")
                with self.assertRaisesRegex(ValueError, r"another program holds it open for writing"):
                    cp.read_levels(held)
            finally:
                writer.stdin.close()
                writer.wait()
                writer.stdout.close()
            self.assertEqual(cp.read_levels(held).max_tiles, cp.read_levels(FILE).max_tiles)  # once it is closed

    def test_a_damaged_file_is_said_to_be_damaged(self):
        # Bytes of its metadata overwritten (HDF5 finds their checksums
        # wrong): a ValueError that says so and what to do, not h5py's own
        # RuntimeError or KeyError.
        with tempfile.TemporaryDirectory() as tmp:
            for where in (512, 1024):
                damaged = bytearray(Path(FILE).read_bytes())
                damaged[where:where + 256] = bytes(b ^ 0xFF for b in damaged[where:where + 256])
                out = Path(tmp) / f"damaged-{where}.h5"
                out.write_bytes(damaged)
                for read in (cp.read_levels, cp.stored_levels):
                    with self.assertRaisesRegex(ValueError, r"cannot be read: the file is damaged .*Copy it again"):
                        read(out)

    def test_levels_file_from_environment(self):
        os.environ["CHOMP_TEST_LEVELS"] = FILE
        try:
            self.assertEqual(cp.levels_file("CHOMP_TEST_LEVELS"), Path(FILE))
        finally:
            del os.environ["CHOMP_TEST_LEVELS"]


if __name__ == "__main__":
    unittest.main(verbosity=2)
