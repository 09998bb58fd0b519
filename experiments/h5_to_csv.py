#!/usr/bin/python3
"""Export the per-level table of a `chomp sieve` result file to CSV.

    /usr/bin/python3 experiments/h5_to_csv.py LEVELS.h5 [-o LEVELS.csv]

The CSV (default: next to the input, same name, .csv) starts with `#` comment
lines that carry the file's provenance: program version, git revision, command
line, run dates, host, build and libraries, and what each column means. Then
one header row and one row per level:

    tiles,positions,losing,losing_fraction,hypothesis_ratio,seconds,marks

Floats are written in full (shortest round-trip form); hypothesis_ratio is
`nan` for n = 1, where ln p(1) = 0. Read it back with, e.g.,

    numpy.genfromtxt((l for l in open(path) if not l.startswith("#")),
                     delimiter=",", names=True, dtype=None)

(genfromtxt alone would take its names from the first comment line).
Refuses files of unfinished runs unless --allow-incomplete is given.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "notebooks"))

import chomp_positions as cp  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("levels", type=Path, help="result file of chomp sieve")
    ap.add_argument("-o", "--output", type=Path, help="CSV to write (default: LEVELS with .csv)")
    ap.add_argument("--allow-incomplete", action="store_true",
                    help="export the finished levels of an unfinished run (marked in the header)")
    args = ap.parse_args()

    levels = cp.read_levels(args.levels, require_complete=not args.allow_incomplete)
    out = args.output or args.levels.with_suffix(".csv")
    a = levels.attrs
    header = [
        f"chomp sieve per-level table, exported from {levels.path.name} by experiments/h5_to_csv.py",
        f"program: {a.get('program')} {a.get('version')}",
        f"git_revision: {a.get('git_revision')}",
        f"command_line: {a.get('command_line')}",
        f"run: {a.get('start_utc')} .. {a.get('end_utc')} on host {a.get('host')}, {a.get('threads')} threads",
        f"build: {a.get('build_type')}, {a.get('compiler')}; HDF5 {a.get('hdf5_version')}; "
        f"oneTBB {a.get('tbb_version')}",
        f"format_version: {a.get('format_version')}; complete: {a.get('complete')}; status: {a.get('status')}; "
        f"levels 1..{levels.max_tiles}",
        *([f"dimensions: {int(a.get('dimensions'))} (3D Chomp by cube count: tiles = cubes n, positions = PL(n), "
           "the plane partitions of n; marks = moves examined; doc/THREE_D.md)"]
          if int(a.get("dimensions", 2)) == 3 else []),
        "columns:",
        *(f"  {c}: {levels.descriptions.get(c, '')}" for c in cp.LEVEL_COLUMNS),
    ]
    with open(out, "w", newline="\n") as fh:
        fh.writelines(f"# {line}\n" for line in header)
        fh.write(",".join(cp.LEVEL_COLUMNS) + "\n")
        for i in range(len(levels.tiles)):
            fh.write(",".join([
                str(int(levels.tiles[i])), str(int(levels.positions[i])), str(int(levels.losing[i])),
                repr(float(levels.losing_fraction[i])), repr(float(levels.hypothesis_ratio[i])),
                repr(float(levels.seconds[i])), str(int(levels.marks[i])),
            ]) + "\n")
    print(f"wrote {out} (levels 1..{levels.max_tiles})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
