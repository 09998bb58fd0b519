#!/usr/bin/env python3
"""The speed ratios of alternating benchmark runs, from a CSV of experiments/bench_sieve.sh.

    experiments/bench_ratios.py [CSV] [--base REV] [--since DATE] [--threads T] [--target X]

Each `chomp sieve` run (program "chomp") of a base revision (default d06904d,
issue 21's yardstick) is paired with the next chomp run of its N and thread count,
if that one is of another revision and began within 120 s of the base run's end
(a row's date is when its run ended; it began wall_s earlier). That is what
CHOMPS="BASE NEW" ROUNDS=R experiments/bench_sieve.sh ... records: the base must
run first in each round (with CHOMPS="NEW BASE" the rounds make no pairs). The
ratio is the base's wall time over the other's. By N: the rounds, their median,
least and largest ratio, how many reach --target, and the ratios in order; then
the other revisions pooled in them (the git_revision of each, with its count).

CSV defaults to experiments/results/bench.csv; --since (an ISO date or time,
UTC) keeps the pairs whose base run ended then or later; --threads (default 2)
the runs' thread count; --target (default 2.0) the ratio counted. Exit status:
0, 1 where no pair is found, 2 for a file that cannot be read as such a CSV
(one line `error: FILE, line N: ...` for a row with fields missing, or whose
wall_s is not a number of seconds above 0).
"""
import argparse
import collections
import csv
import datetime
import math
import statistics
import sys
from pathlib import Path

HEADER = ["program", "max_tiles", "threads", "wall_s", "cpu_s", "peak_rss_mib", "losing_at_max", "git_revision",
          "host", "date_utc", "cpus"]
#: The longest wait from the end of the base run to the start of the other's.
GAP_S = 120


def when(text):
    """A UTC time from ISO text (naive, or with an offset, which is applied)."""
    t = datetime.datetime.fromisoformat(text[:-1] if text.endswith("Z") else text)
    if t.tzinfo is not None:
        t = t.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return t


def checked(reader, name):
    """The rows of `reader`, each checked: every field there, max_tiles a
    whole number, wall_s a number of seconds above 0 (it divides), date_utc
    an ISO time; ValueError naming the file and line of the first that is not."""
    rows = []
    for r in reader:
        where = f"{name}, line {reader.line_num}"
        if None in r or None in r.values():  # (DictReader: extra fields under None, missing ones None)
            fields = sum(v is not None for k, v in r.items() if k is not None) + len(r.get(None, []))
            raise ValueError(f"{where}: {fields} fields where the header has {len(HEADER)}: a row cut short or "
                             "damaged")
        try:
            int(r["max_tiles"])
            wall = float(r["wall_s"])
            when(r["date_utc"])
        except ValueError:
            raise ValueError(f"{where}: its max_tiles, wall_s or date_utc does not read "
                             f"({r['max_tiles']!r}, {r['wall_s']!r}, {r['date_utc']!r})") from None
        if not math.isfinite(wall) or wall <= 0:
            raise ValueError(f"{where}: wall_s = {r['wall_s']}: a run's wall time is a number of seconds above 0")
        rows.append(r)
    return rows


def pairs(rows, base, threads):
    """(base run's end, N, ratio, other revision) for each base run whose next run is another revision's."""
    rows = [r for r in rows if r["program"] == "chomp" and r["threads"] == str(threads)]
    found = []
    for i, r in enumerate(rows):
        if not r["git_revision"].startswith(base):
            continue
        s = next((s for s in rows[i + 1:] if s["max_tiles"] == r["max_tiles"]), None)
        if s is None or s["git_revision"].startswith(base):
            continue
        began = when(s["date_utc"]) - datetime.timedelta(seconds=float(s["wall_s"]))
        # (The dates are whole seconds: a run may seem to begin a second before the last ended.)
        if -2 <= (began - when(r["date_utc"])).total_seconds() <= GAP_S:
            found.append((when(r["date_utc"]), int(r["max_tiles"]), float(r["wall_s"]) / float(s["wall_s"]),
                          s["git_revision"]))
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="?", default=str(Path(__file__).resolve().parent / "results" / "bench.csv"),
                    help="a CSV of experiments/bench_sieve.sh (default: experiments/results/bench.csv)")
    ap.add_argument("--base", default="d06904d", help="the base revision (a prefix; default d06904d)")
    ap.add_argument("--since", help="pairs whose base run ended then or later (UTC, ISO, e.g. 2026-12-05T03:40)")
    ap.add_argument("--threads", type=int, default=2, help="the runs' thread count (default 2)")
    ap.add_argument("--target", type=float, default=2.0, help="the ratio counted (default 2.0)")
    a = ap.parse_args(argv)
    if a.threads < 1:
        print(f"error: --threads {a.threads}: give the runs' thread count, 1 or more", file=sys.stderr)
        return 2
    if not a.target > 0:
        print(f"error: --target {a.target}: give a ratio above 0, such as 2.0", file=sys.stderr)
        return 2
    try:
        since = when(a.since) if a.since else None
    except ValueError:
        print(f"error: --since must be an ISO date or time such as 2026-12-05T03:40, not '{a.since}'", file=sys.stderr)
        return 2
    try:
        with open(a.csv, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames != HEADER:
                print(f"error: {a.csv} is not a CSV of experiments/bench_sieve.sh (its first line: "
                      f"{','.join(reader.fieldnames or [])})", file=sys.stderr)
                return 2
            rows = checked(reader, a.csv)
        found = [p for p in pairs(rows, a.base, a.threads) if since is None or p[0] >= since]
    except OSError as e:
        print(f"error: cannot read {a.csv}: {e.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"error: {a.csv} is not a text CSV (not UTF-8)", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"error: {e}; each row is program,N,threads,wall seconds,...,date (ISO, UTC),cpus", file=sys.stderr)
        return 2
    if not found:
        print(f"no run of {a.base} with {a.threads} threads followed by another revision's in {a.csv}")
        return 1
    print(f"{'N':>4} {'rounds':>6} {'median':>7} {'least':>6} {'most':>6} {'>= %.2fx' % a.target:>9}  ratios, in order")
    for n in sorted({p[1] for p in found}):
        r = [p[2] for p in found if p[1] == n]
        print(f"{n:>4} {len(r):>6} {statistics.median(r):>6.2f}x {min(r):>5.2f}x {max(r):>5.2f}x "
              f"{sum(x >= a.target for x in r):>9}  {', '.join('%.2f' % x for x in r)}")
    others = collections.Counter(p[3] for p in found)
    print(f"against {a.base}: " + ", ".join(f"{rev} ({k})" for rev, k in others.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
