#!/usr/bin/env python3
"""Copies a chomp sieve result file's table without its losing ranks, with a
verifiable sample.

Files of format 2 keep the losing ranks of every level under /resume (about
1 GB at n = 130); files of format 3 keep them in a store file beside them
(tens of GB at n = 170). The per-level table and the provenance are all an
analysis needs. This writes /levels, /losing_positions (if any) and every root
attribute to a new file, unchanged, and marks it levels_only = 1.

For a file with its store beside it, it also records the losing positions of
at most three rows of every level (from `chomp show RUN.h5 --three-rows`) in
/verifiable/three_row_losing (columns tiles, row_1, row_2, row_3), which
`chomp verify` checks in the copy against three-rowed Chomp solved on its own
(doc/FILE_FORMAT.md).

Usage: /usr/bin/python3 experiments/h5_levels_only.py RUN.h5 OUT.h5 [--chomp PATH]
"""
import argparse
import csv
import io
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np


def three_row_losing(chomp: str, run: str) -> dict:
    out = subprocess.run([chomp, "show", run, "--three-rows"], check=True, capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    return {c: np.array([int(r[c]) for r in rows], dtype=np.uint32) for c in ("tiles", "row_1", "row_2", "row_3")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("run", help="result file of chomp sieve")
    ap.add_argument("out", help="the copy to write (must not exist)")
    ap.add_argument("--chomp", default=str(Path(__file__).resolve().parent.parent / "build" / "chomp"),
                    help="the chomp program that reads the store (default: build/chomp)")
    args = ap.parse_args()
    with h5py.File(args.run, "r") as f:
        if int(f.attrs.get("complete", 0)) != 1:
            print(f"error: {args.run} is not a complete run (attribute complete != 1)", file=sys.stderr)
            return 1
        has_store = int(f.attrs.get("format_version", 0)) >= 3
    sample = three_row_losing(args.chomp, args.run) if has_store else None
    with h5py.File(args.run, "r") as f, h5py.File(args.out, "w-") as g:
        for name in ("levels", "losing_positions"):
            if name in f:
                f.copy(name, g)
        for key, value in f.attrs.items():
            g.attrs[key] = value
        g.attrs["levels_only"] = 1
        if sample is not None:
            grp = g.create_group("verifiable/three_row_losing")
            grp.attrs["description"] = (
                "every losing position with at most three rows of every level, as the run's store holds "
                "them: row lengths row_1 >= row_2 >= row_3 >= 0 with tiles = their sum; chomp verify checks "
                "them against three-rowed Chomp solved on its own")
            for c, v in sample.items():
                grp.create_dataset(c, data=v)
    return 0


if __name__ == "__main__":
    sys.exit(main())
