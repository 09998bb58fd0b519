#!/usr/bin/env python3
"""The speed ratios of alternating benchmark runs: each run of a base revision
(default d06904d, issue 21's yardstick) in a CSV of experiments/bench_sieve.sh,
paired with the next run of another revision of the same program, N and threads
(CHOMPS="BASE NEW" runs them in turn), and the ratio base wall / other wall. By N:
the rounds, their median, least and largest ratio, and how many reach the target.

    experiments/bench_ratios.py [CSV] [--base REV] [--since DATE] [--threads T] [--target X]

CSV defaults to experiments/results/bench.csv; --since (an ISO date or time, UTC)
keeps pairs from then on; --threads (default 2) the runs' thread count; --target
(default 2.0) the ratio counted. A pair is two rows at most 400 s apart (the
base's run and the next); the other revision is named as its rows give it.
"""
import argparse
import csv
import datetime
import statistics
import sys
from pathlib import Path

HEADER = ["program", "max_tiles", "threads", "wall_s", "cpu_s", "peak_rss_mib", "losing_at_max", "git_revision",
          "host", "date_utc", "cpus"]


def when(text):
    return datetime.datetime.fromisoformat(text.rstrip("Z"))


def pairs(rows, base, threads):
    """(date, N, ratio, other revision) for each base run followed by another revision's run."""
    rows = [r for r in rows if r["program"] == "chomp" and r["threads"] == str(threads)]
    found = []
    for i, r in enumerate(rows):
        if not r["git_revision"].startswith(base):
            continue
        for s in rows[i + 1:]:
            if s["max_tiles"] != r["max_tiles"]:
                continue
            if not s["git_revision"].startswith(base) and \
                    0 <= (when(s["date_utc"]) - when(r["date_utc"])).total_seconds() <= 400:
                found.append((r["date_utc"], int(r["max_tiles"]), float(r["wall_s"]) / float(s["wall_s"]),
                              s["git_revision"]))
            break
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="?", default=str(Path(__file__).resolve().parent / "results" / "bench.csv"))
    ap.add_argument("--base", default="d06904d", help="the base revision (a prefix; default d06904d)")
    ap.add_argument("--since", help="pairs from this UTC date or time on (ISO, e.g. 2026-12-05T03:40)")
    ap.add_argument("--threads", type=int, default=2, help="the runs' thread count (default 2)")
    ap.add_argument("--target", type=float, default=2.0, help="the ratio counted (default 2.0)")
    a = ap.parse_args(argv)
    try:
        with open(a.csv, newline="") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames != HEADER:
                print(f"error: {a.csv} is not a CSV of experiments/bench_sieve.sh (its columns: "
                      f"{','.join(reader.fieldnames or [])})", file=sys.stderr)
                return 2
            rows = list(reader)
        since = when(a.since) if a.since else None
    except OSError as e:
        print(f"error: cannot read {a.csv}: {e.strerror}", file=sys.stderr)
        return 2
    except ValueError:
        print(f"error: --since must be an ISO date or time such as 2026-12-05T03:40, not '{a.since}'", file=sys.stderr)
        return 2
    found = [p for p in pairs(rows, a.base, a.threads) if since is None or when(p[0]) >= since]
    if not found:
        print(f"no run of {a.base} with {a.threads} threads followed by another revision's in {a.csv}")
        return 1
    print(f"{'N':>4} {'rounds':>6} {'median':>7} {'least':>6} {'most':>6} {'>= %.2fx' % a.target:>9}  ratios, in order")
    for n in sorted({p[1] for p in found}):
        r = [p[2] for p in found if p[1] == n]
        print(f"{n:>4} {len(r):>6} {statistics.median(r):>6.2f}x {min(r):>5.2f}x {max(r):>5.2f}x "
              f"{sum(x >= a.target for x in r):>9}  {', '.join('%.2f' % x for x in r)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
