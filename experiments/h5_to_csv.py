#!/usr/bin/python3
"""Export the per-level table of a `chomp sieve` result file to CSV.

    /usr/bin/python3 experiments/h5_to_csv.py LEVELS.h5 [-o LEVELS.csv]

The CSV (default: next to the input, same name, .csv) starts with `#` comment
lines that carry the file's provenance: program version, git revision, command
line, run dates, host, build and libraries, and what each column means. Then
one header row and one row per level:

    tiles,positions,losing,losing_fraction,hypothesis_ratio,seconds,marks

and, for a file of format 3 (every run since 2026-12-02), window_seconds,
slices and, where the file has digests (not a 3D file written before 3D
runs kept a store), losing_digest (16 hex digits, as `chomp show --json`
gives it; equal digests say two runs found the same losing sets).

The format is chomp_results.to_csv's (python/chomp_results).
Refuses files of unfinished runs unless --allow-incomplete is given. Exit
status 2, with one line `error: ...`, for a file it cannot export.
"""

import argparse
import sys
from pathlib import Path

from sieve_table import import_chomp_results  # beside this script


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("levels", type=Path, help="result file of chomp sieve")
    ap.add_argument("-o", "--output", type=Path, help="CSV to write (default: LEVELS with .csv)")
    ap.add_argument("--allow-incomplete", action="store_true",
                    help="export the finished levels of an unfinished run (marked in the header)")
    args = ap.parse_args()
    cr = import_chomp_results()  # after the arguments, so that --help needs no package

    if args.levels.is_dir():
        print(f"error: {args.levels} is a folder, not a result file (give its levels-N.h5)", file=sys.stderr)
        return 2
    try:
        levels = cr.read_levels(args.levels, require_complete=not args.allow_incomplete)
    except cr.IncompleteRunError as e:
        print(f"error: {e.what}, or export its finished levels with --allow-incomplete", file=sys.stderr)
        return 2
    except (OSError, ValueError) as e:  # missing, not HDF5, not a table of chomp sieve, damaged
        # HDF5's own message for a truncated file does not name it.
        print(f"error: {e}" if str(args.levels) in str(e) else f"error: {args.levels}: {e}", file=sys.stderr)
        return 2
    out = args.output or args.levels.with_suffix(".csv")
    if Path(out).suffix.lower() in (*cr.RUN_FILE_SUFFIXES, ".tmp"):  # a run's files (or a temporary), not a CSV
        print(f"error: --output {out} is named like a result file or one of a run's side files; give a name "
              "ending in .csv", file=sys.stderr)
        return 2
    if Path(out).resolve() == Path(args.levels).resolve():  # (an input already named *.csv, or -o the input)
        print(f"error: the CSV {out} would replace the result file it is made from; give another --output",
              file=sys.stderr)
        return 2
    try:
        cr.to_csv(levels, out, source="experiments/h5_to_csv.py")
    except OSError as e:
        print(f"error: cannot write {out}: {e.strerror or e}", file=sys.stderr)
        return 2
    except ValueError as e:  # the result file itself, through a hard link
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out} (levels 1..{levels.max_tiles})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
