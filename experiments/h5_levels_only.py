#!/usr/bin/python3
"""Copies a chomp sieve result file's table without its losing ranks, with a
verifiable sample for 2D runs.

Files of format 2 keep the losing ranks of every level under /resume (about
1 GB at n = 130); files of format 3 keep them in a store file beside them
(tens of GB at n = 170). The per-level table and the provenance are all an
analysis needs. This writes /levels, /losing_positions (if any) and every root
attribute to a new file, unchanged, and marks it levels_only = 1.

For a file with its store beside it, it also records the losing positions of
at most three rows of every level (from `chomp show RUN.h5 --three-rows`) in
/verifiable/three_row_losing (columns tiles, row_1, row_2, row_3), which
`chomp verify` checks in the copy against three-rowed Chomp solved on its own
(doc/FILE_FORMAT.md). A 3D run (root attribute dimensions = 3) has no such
sample: its store holds plane partitions, and the copy is the table alone.

A run still going (or stopped) can be copied up to a level it finished with
--through K: the copy holds exactly levels 1..K, says so (max_tiles = K,
complete = 1 and status "complete" for its table, snapshot_of_run naming
the run's goal and state when copied) and keeps the run's provenance
unchanged.

It copies nothing, and exits with status 2 and one line `error: ...`, for a
RUN.h5 that is missing or not a table of `chomp sieve` (such as a file of
`chomp grundy`), a run not finished without --through, a K past its finished
levels, or an OUT.h5 that exists or whose folder does not.

Usage: /usr/bin/python3 experiments/h5_levels_only.py RUN.h5 OUT.h5 [--chomp PATH] [--through K]
"""
import argparse
import csv
import datetime
import io
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np

from sieve_table import import_chomp_results, open_h5, open_sieve_table  # beside this script


def fail(message) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def check_run(path: str) -> None:
    """FileNotFoundError or ValueError unless `path` is a result file of chomp sieve."""
    open_sieve_table(path, columns=("tiles",)).close()


def three_row_losing(chomp: str, run: str, through: int) -> dict:
    out = subprocess.run([chomp, "show", run, "--three-rows"], check=True, capture_output=True, text=True).stdout
    rows = [r for r in csv.DictReader(io.StringIO(out)) if int(r["tiles"]) <= through]
    return {c: np.array([int(r[c]) for r in rows], dtype=np.uint32) for c in ("tiles", "row_1", "row_2", "row_3")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="result file of chomp sieve")
    ap.add_argument("out", help="the copy to write (must not exist)")
    ap.add_argument("--chomp", default=str(Path(__file__).resolve().parent.parent / "build" / "chomp"),
                    help="the chomp program that reads the store (default: build/chomp)")
    ap.add_argument("--through", type=int, metavar="K",
                    help="copy levels 1..K of a run not finished yet (K at most its last finished level)")
    args = ap.parse_args()
    try:
        check_run(args.run)
    except (OSError, ValueError) as e:
        return fail(e)
    if Path(args.out).exists():
        return fail(f"{args.out} exists: the copy writes a new file (remove it or name another)")
    if not (folder := Path(args.out).parent).is_dir():
        return fail(f"cannot write {args.out}: " + (f"{folder} is a file, not a folder" if folder.exists() else
                    f"no folder {folder}") + " (make the folder, or name a copy in one that exists)")
    try:
        with open_h5(args.run) as f:
            complete = int(f.attrs.get("complete", 0)) == 1
            run_max = int(f.attrs.get("max_tiles", 0))
            status = f.attrs.get("status", "")
            status = status.decode() if isinstance(status, bytes) else str(status)
            has_store = int(f.attrs.get("format_version", 0)) >= 3
            two_d = int(f.attrs.get("dimensions", 2)) == 2
    except (KeyError, RuntimeError, OSError, ValueError, UnicodeError) as e:  # h5py's errors of a damaged file
        return fail(f"{args.run}: the file is damaged where the copy reads it ({e})")
    # The finished levels are those the package's reader counts, as the
    # program does: full rows only (a killed writer may leave a row in some
    # columns, or a column without the chunk of its last row, which reads as
    # zeros), less a last row whose store write failed part way
    # (store_trailer 0; the run's --resume computes it again).
    try:
        finished = len(import_chomp_results().read_levels(args.run, require_complete=False).tiles)
    except ValueError as e:  # (its messages name the file, most of them first)
        return fail(str(e) if str(args.run) in str(e) else f"{args.run}: {e}")
    if args.through is None:
        if not complete:
            return fail(f"{args.run} is not a complete run (attribute complete != 1); "
                        f"--through K copies levels 1..K of its {finished} finished levels")
        through = finished
    else:
        through = args.through
        if not 1 <= through <= finished:
            return fail(f"--through {through}: {args.run} has finished levels 1..{finished}")
    try:
        sample = three_row_losing(args.chomp, args.run, through) if has_store and two_d else None
    except (OSError, subprocess.CalledProcessError) as e:
        said = (getattr(e, "stderr", "") or "").strip().splitlines()
        return fail(f"cannot read the three-row sample of {args.run} with {args.chomp}: {said[0] if said else e}")
    try:
        copy = h5py.File(args.out, "w-")
    except OSError as e:
        return fail(f"cannot write {args.out}: {e}")
    try:
        with open_h5(args.run) as f, copy as g:
            if "losing_positions" in f:
                # Only the levels copied: a level above K would be a level the copy does not hold.
                src, dst = f["losing_positions"], g.create_group("losing_positions")
                for key, value in src.attrs.items():
                    dst.attrs[key] = value
                for name in src:
                    if int(name.split("_")[-1]) <= through:
                        src.copy(name, dst)
            levels = g.create_group("levels")
            for key, value in f["levels"].attrs.items():  # the group's description
                levels.attrs[key] = value
            for name, column in f["levels"].items():
                data = column[:through]
                d = levels.create_dataset(name, data=data, maxshape=(None,) + data.shape[1:],
                                          chunks=column.chunks, compression=column.compression,
                                          compression_opts=column.compression_opts, shuffle=column.shuffle,
                                          fletcher32=column.fletcher32)
                for key, value in column.attrs.items():
                    d.attrs[key] = value
            for key, value in f.attrs.items():
                g.attrs[key] = value
            g.attrs["levels_only"] = 1
            if through < run_max or not complete:
                now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
                g.attrs["max_tiles"] = np.int64(through)
                g.attrs["store_losing"] = np.int64(min(int(f.attrs.get("store_losing", 0)), through))
                g.attrs["complete"] = np.int64(1)
                g.attrs["status"] = "complete"  # the copy's table: levels 1..through, each final
                g.attrs["snapshot_of_run"] = (
                    f"levels 1..{through}, each finished and final, copied at {now} from a run to {run_max} tiles "
                    f"(status {status!r}, {finished} levels finished); max_tiles, complete and status describe this "
                    f"copy, every other attribute is the run's")
            if sample is not None:
                grp = g.create_group("verifiable/three_row_losing")
                grp.attrs["description"] = (
                    "every losing position with at most three rows of every level, as the run's store holds "
                    "them: row lengths row_1 >= row_2 >= row_3 >= 0 with tiles = their sum; chomp verify checks "
                    "them against three-rowed Chomp solved on its own")
                for c, v in sample.items():
                    grp.create_dataset(c, data=v, fletcher32=True)
    except (KeyError, RuntimeError, OSError, ValueError, UnicodeError) as e:
        copy.close()
        Path(args.out).unlink(missing_ok=True)  # no copy that looks whole and is not
        return fail(f"{args.run}: the file is damaged where the copy reads it ({e}); no copy written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
