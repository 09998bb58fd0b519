#!/usr/bin/env python3
"""Compares the levels of a run with the committed tables.

    experiments/compare_levels.py [RUN.h5] [--chomp build/chomp] [--data data]

reads the run's levels through `chomp show --csv` (which also reads a file
the run still has open) and every committed table (data/levels-N.csv and
data/run-*/levels-N.csv), and prints, for the levels both have, whether
p(n), L(n), the marks and the losing digests agree (the largest table that holds a level is the
one compared; its marks, like the run's, are those of an engine that decides
canonical positions only, from 6220284 on; a run that inferred the marks of
moves of its first rows from bits, root attribute inferred_marks = "row 1"
or "rows 1-2", has no marks to compare and is compared on p(n) and L(n);
so are a run of format 1 and a committed table whose header says
inferred_marks or format_version 1).
The losing digest (doc/FILE_FORMAT.md, a sum of a 64-bit mix of each
losing rank) is read from the table's own losing_digest column (tables of
format 3), else from its HDF5 file beside it, levels-N.h5, through `chomp
show --json`: equal digests say that the two runs found the same set of
losing positions, not only as many (a different set gives the same digest
with odds of 2^-64). An HDF5 file beside a table is read as well and must be
the one the CSV was written from: its p(n), L(n) and digests equal the
CSV's. Exit status 1 when a level differs, so that a run started again
(doc/RUNNING.md, "The run's second start") is checked level by level as it
comes; 2, with one line `error: ...`, when a file is missing or not a table
of `chomp sieve` (such as a file of `chomp grundy`, as the run or beside a
table), the run is a 3D one (root attribute dimensions = 3), a table is cut
short (a row, its last newline, levels missing), an HDF5 file beside a table
is not the one its CSV was written from, the run has no finished level, or DATA holds no committed table.
Only the standard library: any python3 runs it.
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys

from levels_csv import format_version, header_value, parse_levels  # beside this script

ROOT = pathlib.Path(__file__).resolve().parent.parent


def read_csv(text, name):
    """Level -> {positions, losing, marks, losing_digest} of a levels CSV, the
    counts as integers and the digest as its 16 hex digits (marks and digest
    None where the table has none); ValueError naming `name` if it is not one."""
    return parse_levels(text, name, ("positions", "losing"), optional=("marks", "losing_digest"))


TEXT = {"positions": "p(n)", "losing": "L(n)", "marks": "marks", "digest": "losing digests"}

# The program's other files say what they are by their root attribute format.
OTHER_FORMATS = {"chomp-grundy": "`chomp grundy`", "chomp rectangles": "`chomp rectangles`"}


def runs(levels):
    """Consecutive levels as ranges: [1, 2, 3, 5] -> "1..3, 5"."""
    out, start = [], None
    for i, n in enumerate(levels):
        if start is None:
            start = n
        if i + 1 == len(levels) or levels[i + 1] != n + 1:
            out.append(f"{start}..{n}" if n > start else f"{n}")
            start = None
    return ", ".join(out)


def chomp_show(chomp, path, flag):
    """What `chomp show PATH FLAG` prints; OSError, ValueError naming what failed."""
    try:
        shown = subprocess.run([chomp, "show", str(path), flag], capture_output=True, text=True)
    except OSError as e:
        raise OSError(f"cannot run {chomp} ({e.strerror or e}): build it (scripts/build.sh) or give --chomp")
    if shown.returncode != 0:
        raise ValueError(f"{chomp} show {path}: {(shown.stderr.strip().splitlines() or ['failed'])[0]}")
    return shown.stdout


def show_json(chomp, path):
    """`chomp show PATH --json` as a dict; OSError, ValueError naming what failed."""
    text = chomp_show(chomp, path, "--json")
    try:
        return json.loads(text)
    except ValueError:
        raise ValueError(f"{chomp} show {path} --json printed no JSON: is {chomp} the chomp program? "
                         "(give it with --chomp)") from None


def digests(about):
    """Level -> losing digest (hex text) of a `chomp show --json` dict, for the levels that have one."""
    return {int(r["tiles"]): r["losing_digest"] for r in about.get("levels", []) if r.get("losing_digest")}


def committed(data, chomp):
    """(Level -> (row, file name), notes) from every committed table, the largest first. A row's "digest"
    is the table's own losing_digest column, else that of its HDF5 file beside it (levels-N.h5), None where
    neither has one; "source" names the file it came from. The HDF5 file beside a table is read as well: one
    that cannot be read is left out, with a note; one that is not a table of `chomp sieve`, or whose counts or
    digests are not its CSV's, is refused (ValueError)."""
    # levels-N.csv alone (a copy such as levels-170.orig.csv is not a table of the folder's)
    files = sorted((p for p in list(data.glob("levels-*.csv")) + list(data.glob("run-*/levels-*.csv"))
                    if re.fullmatch(r"levels-[0-9]+", p.stem)),
                   key=lambda p: int(p.stem.split("-")[1]), reverse=True)
    out, notes = {}, []
    for f in files:
        try:
            text = f.read_text()
        except UnicodeDecodeError:
            raise ValueError(f"{f} is not a CSV table") from None
        # A table of format 1 (the engines before 6220284, such as
        # levels-100.csv) counted a mark for every extension, and one of a
        # run that inferred its first rows' moves (header inferred_marks)
        # fewer: neither's marks are comparable with a run's, and are not
        # compared.
        old_marks = format_version(text) == 1 or header_value(text, "inferred_marks") not in (None, "none")
        rows = read_csv(text, f)
        mine = [n for n in rows if n not in out]  # the levels this table supplies
        h5 = f.with_suffix(".h5")
        sums, name = {}, str(f.relative_to(data.parent))
        if mine and h5.is_file():
            try:
                shown = show_json(chomp, h5)
            except ValueError as e:
                notes.append(f"{h5.relative_to(data.parent)} not read (its counts and digests not checked "
                             f"against {name}): {e}")
                shown = {}
            sums = beside(h5, f, rows, shown)
        for n in mine:
            row = dict(rows[n], marks=None) if old_marks else rows[n]
            digest, source = ((row["losing_digest"], name) if row["losing_digest"] else
                              (sums.get(n), str(h5.relative_to(data.parent))))
            out[n] = (dict(row, digest=digest, source=source), name)
    if not out:
        why = "no such folder" if not data.is_dir() else "no levels-N.csv or run-*/levels-N.csv with a level"
        raise FileNotFoundError(f"no committed table in {data} ({why}): give the folder of the committed tables "
                                "with --data")
    return out, notes


def beside(h5, csv, rows, shown):
    """Level -> losing digest of `chomp show --json`'s dict `shown` of the HDF5 file `h5` beside the table
    `csv` (levels `rows`); ValueError for a file that is not a table of `chomp sieve`, or whose p(n), L(n) or
    digests are not the CSV's: the HDF5 file beside a table must be the one its CSV was written from."""
    own = "the HDF5 file beside a table must be the one its CSV was written from (experiments/h5_to_csv.py)"
    if kind := shown.get("attributes", {}).get("format"):
        raise ValueError(f"{h5} is not a table of `chomp sieve`: its root attribute format = \"{kind}\" marks a "
                         f"file of {OTHER_FORMATS.get(kind, 'another command')}; {own}")
    sums = digests(shown)
    for r in shown.get("levels", []):
        if not all(k in r for k in ("tiles", "positions", "losing")):
            raise ValueError(f"{h5} is not a table of `chomp sieve` (a level without tiles, positions or losing); "
                             f"{own}")
        n = int(r["tiles"])
        if n not in rows:
            continue
        if (r["positions"], r["losing"]) != (rows[n]["positions"], rows[n]["losing"]):
            raise ValueError(f"{h5} does not match {csv} at level {n} (p(n), L(n) {r['positions']}, "
                             f"{r['losing']} against {rows[n]['positions']}, {rows[n]['losing']}): {own}")
        if n in sums and rows[n]["losing_digest"] and sums[n].lower() != rows[n]["losing_digest"]:
            raise ValueError(f"{h5} does not match {csv} at level {n} (losing digest {sums[n]} against "
                             f"{rows[n]['losing_digest']}): {own}")
    return sums


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default="/var/tmp/chomp-run/levels-170.h5",
                    help="the run's result file (default: the long run's, %(default)s)")
    ap.add_argument("--chomp", default=str(ROOT / "build" / "chomp"), help="the program that reads the file")
    ap.add_argument("--data", default=str(ROOT / "data"), help="the folder of the committed tables")
    args = ap.parse_args()
    try:
        return compare(args)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a fault of this script's, not a level that differs (exit 1)
        print(f"error: could not compare ({type(e).__name__}: {e})", file=sys.stderr)
        return 2


def compare(args):
    if pathlib.Path(args.file).is_dir():
        raise IsADirectoryError(f"{args.file} is a folder, not a run file (give the run's RUN.h5)")
    if not pathlib.Path(args.file).is_file():
        raise FileNotFoundError(f"no run file {args.file}")
    table_text = chomp_show(args.chomp, args.file, "--csv")
    about = show_json(args.chomp, args.file)
    attributes = about.get("attributes", {})
    if kind := attributes.get("format"):
        raise ValueError(f"{args.file} is not a table of `chomp sieve`: its root attribute format = "
                         f"\"{kind}\" marks a file of {OTHER_FORMATS.get(kind, 'another command')}")
    if (dims := attributes.get("dimensions", 2)) != 2:
        raise ValueError(f"{args.file} is a {dims}D table (root attribute dimensions = {dims}): compare_levels "
                         "compares 2D runs with data/levels-N.csv (compare its `chomp show --csv` with "
                         "data/levels3d-N.csv)")
    run = read_csv(table_text, args.file)
    if not run:
        raise ValueError(f"{args.file} has no finished level yet: nothing to compare (wait for its first level)")
    shown = digests(about)  # (its CSV has them too, where the file has digests)
    for n, row in run.items():
        row["digest"] = row["losing_digest"] or shown.get(n)
    way = attributes.get("inferred_marks")
    inferred = way not in (None, "none")
    # A run of format 1 counted a mark for every extension, as a table of
    # format 1 does (committed(), below): its marks are not the tables'.
    old_format = attributes.get("format_version") == 1
    table, notes = committed(pathlib.Path(args.data).resolve(), args.chomp)
    same, differ, beyond = [], [], []
    for n in sorted(run):
        if n not in table:
            beyond.append(n)
            continue
        row, name = table[n]
        mine = run[n]
        marks = not inferred and not old_format and None not in (row["marks"], mine["marks"])
        fields = (["positions", "losing"] + (["marks"] if marks else [])
                  + (["digest"] if row["digest"] and mine.get("digest") else []))
        bad = [f for f in fields if mine[f] != row[f]]
        if bad:
            differ.append((n, name, bad))
        else:
            same.append((n, name, fields))
    # One line for each way the levels were compared (the digests where both files have them).
    ways = {}
    for n, name, compared in same:
        ways.setdefault(tuple(compared), []).append((n, name))
    for compared, levels in sorted(ways.items(), key=lambda w: w[1][0][0]):
        names = sorted({name for _, name in levels})
        print(f"levels {runs([n for n, _ in levels])} of {args.file} ({len(levels)} levels): "
              f"{', '.join(TEXT[f] for f in compared)} equal {', '.join(names)}")
    for n, name, bad in differ:
        row = table[n][0]
        print(f"level {n} differs from {name}: " + ", ".join(
            f"losing digest {run[n][f]} against {row[f]} ({row['source']}: another set of losing positions)"
            if f == "digest" else f"{f} {run[n][f]} against {row[f]}" for f in bad))
    for note in notes:
        print(f"note: {note}")
    if inferred:
        print(f"marks not compared: the run inferred the marks of moves of its top rows (inferred_marks = "
              f"{way}; chomp sieve --file-all-marks files them as the committed tables did)")
    elif old_format:
        print("marks not compared: the run is of format 1 (root attribute format_version), whose engines "
              "counted a mark for every extension, not for canonical positions only")
    if beyond:
        print(f"levels {runs(beyond)}: beyond every committed table (check them with chomp verify --moves)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
