#!/usr/bin/env python3
"""The long run's cost, window by window, as a Markdown table.

    experiments/long_run_table.py [RUN.h5] [--chomp build/chomp] [--from N]

reads the run's levels through `chomp show --csv` (which also reads a file
the run still has open) and prints, for every window of levels marked
together: its levels, positions, marks, seconds (the window's marking plus
each level's own scan), nanoseconds per position and per mark, the store's
bytes per losing position at its last level and the store's size so far.
With rss.log beside the file (written by experiments/long_run.sh: one line
"UNIX-SECONDS VmHWM-KiB VmRSS-KiB" every five minutes, after a line
"# leg K" for each leg from 2026-12-07 on), it adds the peak resident
memory of the run, and of each leg whose lines are so marked. Exit status 2, with one line `error: ...`, for
a file that is missing or not a table of `chomp sieve` (such as a file of
`chomp grundy`), or --from beyond its levels. Only the standard library: any python3 runs it.
"""

import argparse
import csv
import io
import json
import os
import subprocess
import sys

# The columns of `chomp show --csv` this table reads (window_seconds is empty for a file before format 3).
COLUMNS = ("tiles", "positions", "losing", "seconds", "window_seconds", "marks", "store_bytes_per_losing")

# The program's other files say what they are by their root attribute format.
OTHER_FORMATS = {"chomp-grundy": "`chomp grundy`", "chomp rectangles": "`chomp rectangles`"}


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def sliced(row):
    """Whether the level was marked in slices (a window of its own, whose
    window_seconds is 0: its marking is in its own seconds)."""
    return int(row.get("slices") or 1) > 1


def windows(rows):
    """Rows grouped by window: a window starts where window_seconds > 0, and
    a level marked in slices is a window of its own."""
    group = []
    for r in rows:
        if group and (float(r["window_seconds"]) > 0 or sliced(r) or sliced(group[-1])):
            yield group
            group = []
        group.append(r)
    if group:
        yield group


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default="/var/tmp/chomp-run/levels-170.h5",
                    help="the run's result file (default: the long run's, %(default)s)")
    ap.add_argument("--chomp", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                    "build", "chomp"),
                    help="the program that reads the file (default: the checkout's build/chomp)")
    ap.add_argument("--from", dest="first", type=int, default=100, help="first level shown (default 100)")
    a = ap.parse_args()
    if a.first < 1:
        fail(f"--from {a.first}: levels start at 1")
    if os.path.isdir(a.file):
        fail(f"{a.file} is a folder, not a run file (give the run's RUN.h5)")
    if not os.path.isfile(a.file):
        fail(f"no run file {a.file}")
    try:
        out = subprocess.run([a.chomp, "show", "--csv", a.file], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        said = (getattr(e, "stderr", "") or "").strip().splitlines()
        fail(f"cannot read {a.file} with {a.chomp}: {said[0] if said else e}")
    reader = csv.DictReader(io.StringIO(out))
    if missing := [c for c in COLUMNS if c not in (reader.fieldnames or ())]:
        about = subprocess.run([a.chomp, "show", "--json", a.file], capture_output=True, text=True)
        try:
            kind = json.loads(about.stdout).get("attributes", {}).get("format")
        except ValueError:
            kind = None
        fail(f"{a.file} is not a table of `chomp sieve`: " +
             (f"its root attribute format = \"{kind}\" marks a file of {OTHER_FORMATS.get(kind, 'another command')}"
              if kind else f"chomp show gives no {', '.join(missing)}"))
    rows = list(reader)
    if rows and any(r["window_seconds"] == "" for r in rows):
        fail(f"{a.file} records no window_seconds (a file before format 3, such as data/levels-100.h5): its "
             "levels cannot be grouped by window")
    last = int(rows[-1]["tiles"]) if rows else 0
    if a.first > last:
        fail(f"--from {a.first}: {a.file} holds levels 1..{last}" + (f": give --from {last} or less" if last else
                                                                      " (no level finished yet)"))
    print("| levels | positions | marks | seconds | ns/position | ns/mark | B/losing | store GiB |")
    print("|---|---|---|---|---|---|---|---|")
    store = 0.0
    # A levels-only copy (experiments/h5_levels_only.py) keeps no store: its size is not known, not 0.
    stored = any(r["store_bytes_per_losing"] for r in rows)
    for w in windows(rows):
        for r in w:
            if r["store_bytes_per_losing"]:
                store += float(r["store_bytes_per_losing"]) * int(r["losing"])
        last = int(w[-1]["tiles"])
        if last < a.first:
            continue
        first = int(w[0]["tiles"])
        positions = sum(int(r["positions"]) for r in w)
        marks = sum(int(r["marks"]) for r in w)
        seconds = sum(float(r["seconds"]) + float(r["window_seconds"]) for r in w)
        levels = f"{first}" if first == last else f"{first}..{last}"
        bpl = w[-1]["store_bytes_per_losing"] or "-"
        bpl = f"{float(bpl):.3f}" if bpl != "-" else bpl
        print(f"| {levels} | {positions:.3e} | {marks:.3e} | {seconds:.0f} | {1e9 * seconds / positions:.2f} | "
              f"{1e9 * seconds / max(marks, 1):.2f} | {bpl} | {f'{store / 2**30:.2f}' if stored else '-'} |")
    rss = os.path.join(os.path.dirname(os.path.abspath(a.file)), "rss.log")
    if os.path.exists(rss):
        peak, legs, leg = 0, {}, None
        with open(rss) as f:
            for line in f:
                parts = line.split()
                if parts[:2] == ["#", "leg"] and len(parts) == 3:
                    leg = parts[2]
                elif len(parts) >= 2 and parts[1].isdigit():
                    peak = max(peak, int(parts[1]))
                    if leg is not None:
                        legs[leg] = max(legs.get(leg, 0), int(parts[1]))
        print(f"\npeak resident memory in {rss}: {peak / 2**20:.1f} GiB")
        for leg, kib in legs.items():
            print(f"  leg {leg}: {kib / 2**20:.1f} GiB")


if __name__ == "__main__":
    main()
