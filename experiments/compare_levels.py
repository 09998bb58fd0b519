#!/usr/bin/env python3
"""Compares the levels of a run with the committed tables.

    experiments/compare_levels.py [RUN.h5] [--chomp build/chomp] [--data data]

reads the run's levels through `chomp show --csv` (which also reads a file
the run still has open) and every committed table (data/levels-N.csv and
data/run-*/levels-N.csv), and prints, for the levels both have, whether
p(n), L(n) and the marks agree (the largest table that holds a level is the
one compared; its marks, like the run's, are those of an engine that decides
canonical positions only, from 6220284 on; a run that inferred the marks of
moves of its first rows from bits, root attribute inferred_marks = "row 1"
or "rows 1-2", has no marks to compare and is compared on p(n) and L(n)). Exit
status 1 when a level differs, so that a run started again (doc/RUNNING.md,
"The run's second start") is checked level by level as it comes; 2, with one
line `error: ...`, when a file is missing or not a table of `chomp sieve` (such
as a file of `chomp grundy`), the run is a 3D one (root attribute dimensions =
3), a table has a row cut short, or DATA holds no committed table. Only the
standard library: any python3 runs it.
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys

from levels_csv import parse_levels  # beside this script

ROOT = pathlib.Path(__file__).resolve().parent.parent


def read_csv(text, name):
    """Level -> {positions, losing, marks} of a levels CSV, as integers (marks
    None where the table has none); ValueError naming `name` if it is not one."""
    return parse_levels(text, name, ("positions", "losing"), optional=("marks",))


TEXT = {"positions": "p(n)", "losing": "L(n)", "marks": "marks"}

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


def committed(data):
    """Level -> (row, file name) from every committed table, the largest first."""
    # levels-N.csv alone (a copy such as levels-170.orig.csv is not a table of the folder's)
    files = sorted((p for p in list(data.glob("levels-*.csv")) + list(data.glob("run-*/levels-*.csv"))
                    if re.fullmatch(r"levels-[0-9]+", p.stem)),
                   key=lambda p: int(p.stem.split("-")[1]), reverse=True)
    out = {}
    for f in files:
        try:
            text = f.read_text()
        except UnicodeDecodeError:
            raise ValueError(f"{f} is not a CSV table") from None
        # A table of format 1 (the engines before 6220284, such as
        # levels-100.csv) counted a mark for every extension: its marks are
        # not this engine's, and are not compared.
        old_marks = re.search(r"^# format_version: 1;", text, re.M) is not None
        for n, row in read_csv(text, f).items():
            if old_marks:
                row = dict(row, marks=None)
            out.setdefault(n, (row, str(f.relative_to(data.parent))))
    if not out:
        why = "no such folder" if not data.is_dir() else "no levels-N.csv or run-*/levels-N.csv with a level"
        raise FileNotFoundError(f"no committed table in {data} ({why}): give the folder of the committed tables "
                                "with --data")
    return out


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


def compare(args):
    if pathlib.Path(args.file).is_dir():
        raise IsADirectoryError(f"{args.file} is a folder, not a run file (give the run's RUN.h5)")
    if not pathlib.Path(args.file).is_file():
        raise FileNotFoundError(f"no run file {args.file}")
    try:
        shown = subprocess.run([args.chomp, "show", args.file, "--csv"], capture_output=True, text=True)
        about = subprocess.run([args.chomp, "show", args.file, "--json"], capture_output=True, text=True)
    except OSError as e:
        raise OSError(f"cannot run {args.chomp} ({e.strerror or e}): build it (scripts/build.sh) or give --chomp")
    if shown.returncode != 0:
        raise ValueError(f"{args.chomp} show {args.file}: {(shown.stderr.strip().splitlines() or ['failed'])[0]}")
    try:
        attributes = json.loads(about.stdout).get("attributes", {}) if about.returncode == 0 else {}
    except ValueError:
        raise ValueError(f"{args.chomp} show {args.file} --json printed no JSON: is {args.chomp} the chomp "
                         "program? (give it with --chomp)") from None
    if kind := attributes.get("format"):
        raise ValueError(f"{args.file} is not a table of `chomp sieve`: its root attribute format = "
                         f"\"{kind}\" marks a file of {OTHER_FORMATS.get(kind, 'another command')}")
    if (dims := attributes.get("dimensions", 2)) != 2:
        raise ValueError(f"{args.file} is a {dims}D table (root attribute dimensions = {dims}): compare_levels "
                         "compares 2D runs with data/levels-N.csv (compare its `chomp show --csv` with "
                         "data/levels3d-N.csv)")
    run = read_csv(shown.stdout, args.file)
    way = attributes.get("inferred_marks")
    inferred = way not in (None, "none")
    table = committed(pathlib.Path(args.data).resolve())
    same, differ, beyond = [], [], []
    for n in sorted(run):
        if n not in table:
            beyond.append(n)
            continue
        row, name = table[n]
        mine = run[n]
        marks = not inferred and None not in (row["marks"], mine["marks"])
        fields = ["positions", "losing"] + (["marks"] if marks else [])
        bad = [f for f in fields if mine[f] != row[f]]
        if bad:
            differ.append((n, name, bad))
        else:
            same.append((n, name, fields))
    if same:
        names = sorted({name for _, name, _ in same})
        fields = sorted({f for _, _, compared in same for f in compared}, key=["positions", "losing", "marks"].index)
        print(f"levels {runs([n for n, _, _ in same])} of {args.file} ({len(same)} levels): "
              f"{', '.join(TEXT[f] for f in fields)} equal {', '.join(names)}")
    for n, name, bad in differ:
        print(f"level {n} differs from {name}: " + ", ".join(f"{f} {run[n][f]} against {table[n][0][f]}" for f in bad))
    if inferred:
        print(f"marks not compared: the run inferred the marks of moves of its top rows (inferred_marks = "
              f"{way}; chomp sieve --file-all-marks files them as the committed tables did)")
    if beyond:
        print(f"levels {runs(beyond)}: beyond every committed table (check them with chomp verify --moves)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
