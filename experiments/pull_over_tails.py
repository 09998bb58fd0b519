#!/usr/bin/env python3
"""Prices a pull over tails against the sieve's push of marks (issue 21).

    experiments/pull_over_tails.py N [--table data/levels-K.csv] [--count-to M ...]

Write a position as (a, T): its first row a and its tail T (rows 2..), b
the length of T's first row (0 when there is none). Every move of (a, T)
is one of three:

  a cut of the first row alone, beyond b:    (a, T) -> (a', T), max(b, 1) <= a' < a;
  a cut of the first row at a column 2..b:   (a, T) -> (j - 1, T cut to j - 1 columns);
  a cut inside the tail:                     (a, T) -> (a, T'), T' one move below T.

So each tail T holds at most one losing first row a*(T), and

  a*(T) = none, when some T cut to j - 1 columns (2 <= j <= b) has
          a*(that) = j - 1 (every (a, T) moves to it);
  a*(T) = the least a >= max(b, 1) that no T' one move below T has as a*(T'),

a recursion over tails alone, in increasing size (the empty tail: a* = 1,
the poisoned tile). The losing positions of level n are the tails with
|T| + a*(T) = n. This script computes L(n) for n = 1..N that way, with no
engine code and no level bitmaps, and checks it against a committed table
(--table), an independent check of levels 1..N.

It is also the sieve turned into a pull: a tail reads a*(T') for each of
its |T| moves (one per tile of T), where the sieve pushes a mark from each
losing position to each position above it. For every level up to M
(--count-to, default 100 110 120 140 160) it counts those reads exactly, by
partition counts, and prints them against the marks the sieve filed (the
table's `marks`): the tails needed are those with |T| + max(b, 1) <= M,
exactly p(M) of them. Only the standard library; N = 50 takes about a
minute.
"""

import argparse
import csv
import sys


def read_table(path):
    with open(path) as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {int(r["tiles"]): (int(r["positions"]), int(r["losing"]), int(r["marks"])) for r in rows}


def partitions_by_size(n_max, largest_max):
    """Every partition of t = 0..n_max (parts at most largest_max), by t."""
    by_size = [[] for _ in range(n_max + 1)]

    def rec(prefix, left, largest, total):
        by_size[total].append(tuple(prefix))
        for part in range(min(left, largest), 0, -1):
            prefix.append(part)
            rec(prefix, left - part, part, total + part)
            prefix.pop()

    rec([], n_max, largest_max, 0)
    return by_size


def moves_below(tail):
    """Every tail one move below `tail`: a tile (i, j) taken with every tile
    (i' >= i, j' >= j)."""
    for i, row in enumerate(tail):
        for j in range(row):  # the tile in column j + 1 of row i
            cut = tail[:i] + tuple(min(r, j) for r in tail[i:])
            yield cut[: len(cut) - sum(1 for r in cut if r == 0)]


def truncated(tail, width):
    cut = tuple(min(r, width) for r in tail)
    return cut[: len(cut) - sum(1 for r in cut if r == 0)]


def losing_by_tails(n_max):
    """L(n) for n = 1..n_max from the recursion over tails."""
    # Tails with |T| + max(b, 1) <= n_max: sizes up to n_max - 1, b <= n_max - |T|.
    by_size = partitions_by_size(n_max - 1, n_max)
    star = {}
    losing = [0] * (n_max + 1)
    for size, tails in enumerate(by_size):
        for tail in tails:
            b = tail[0] if tail else 0
            if size + max(b, 1) > n_max:
                continue
            if any(star.get(truncated(tail, w)) == w for w in range(1, b)):
                star[tail] = None
                continue
            taken = {star.get(t) for t in moves_below(tail)}
            a = max(b, 1)
            while a in taken:
                a += 1
            star[tail] = a
            if size + a <= n_max:
                losing[size + a] += 1
    return losing


def pull_reads(m):
    """(tails, reads): the tails with |T| + max(b, 1) <= m, and the sum of
    their sizes (one read of a*(T') per tile of T), from partition counts."""
    # q[t][b]: partitions of t whose parts are at most b.
    q = [[1] * (m + 1)] + [[0] * (m + 1) for _ in range(m)]
    for t in range(1, m + 1):
        for b in range(1, m + 1):
            q[t][b] = q[t][b - 1] + (q[t - b][b] if t >= b else 0)
    tails, reads = 1, 0  # the empty tail
    for t in range(1, m):
        for b in range(1, m - t + 1):
            count = q[t][b] - q[t][b - 1]  # largest part exactly b
            tails += count
            reads += count * t
    return tails, reads


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, help="levels 1..N from the recursion over tails")
    ap.add_argument("--table", help="a committed CSV (data/levels-K.csv): check L(n), read marks")
    ap.add_argument("--count-to", type=int, nargs="*", default=[100, 110, 120, 140, 160])
    args = ap.parse_args()
    if not 1 <= args.n <= 70:
        sys.exit("error: N must be 1..70 (the tails of level 70 are 4 million tuples in memory)")
    table = read_table(args.table) if args.table else None

    losing = losing_by_tails(args.n)
    bad = 0
    for n in range(1, args.n + 1):
        print(f"L({n}) = {losing[n]}")
        if table and n in table and table[n][1] != losing[n]:
            bad += 1
            print(f"level {n}: L = {losing[n]} by tails and {table[n][1]} in {args.table}", file=sys.stderr)
    if table:
        print(f"levels 1..{args.n}: " + ("equal to the table" if not bad else f"{bad} levels differ"))

    if table:
        print("M  tails  reads  marks  reads/marks")
        for m in args.count_to:
            if all(n in table for n in range(1, m + 1)):
                tails, reads = pull_reads(m)
                marks = sum(table[n][2] for n in range(1, m + 1))
                assert tails == table[m][0], "the tails with |T| + max(b, 1) <= M are p(M)"
                print(f"{m}  {tails}  {reads}  {marks}  {reads / marks:.2f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
