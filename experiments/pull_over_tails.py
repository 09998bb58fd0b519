#!/usr/bin/env python3
"""Prices a pull over tails against the sieve's push of marks (issue 21).

    experiments/pull_over_tails.py N [--table data/levels-K.csv] [--count-to M ...]

Write a position as (a, T): its first row a and its tail T (rows 2..), b
the length of T's first row (0 when there is none). Every move of (a, T)
is one of three:

  a cut of the first row alone, beyond b:    (a, T) -> (a', T), max(b, 1) <= a' < a;
  a cut of the first row at a column 2..b:   (a, T) -> (w, T cut to w columns), w = 1..b-1;
  a cut inside the tail:                     (a, T) -> (a, T'), T' one move below T.

Two losing first rows of one tail would be a move apart, so each tail T
holds at most one, a*(T), and

  a*(T) = none, when for some w = 1..b-1 the tail T cut to w columns has
          w as its a* (every (a, T) moves to that losing position);
  a*(T) = otherwise, the least a >= max(b, 1) that no tail T' one move
          below T has as its a*(T'),

a recursion over tails alone, in increasing size (the empty tail: a* = 1,
the poisoned tile). The losing positions of level n are the tails with
|T| + a*(T) = n. This script computes L(n) for n = 1..N that way, with no
engine code and no level bitmaps, and checks it against a committed table
(--table), an independent check of levels 1..N.

It is also the sieve turned into a pull. T cut to w columns is itself a
tail one move below T (T less its tile in column w + 1 of its first row
and every tile right of and below it), so a tail reads a*(T') at most once
per tile of T, |T| reads, where the sieve pushes a mark from each losing
position to each position above it. For the levels up to M (--count-to,
default 100 110 120 140 160) it counts those |T| reads exactly, by
partition counts, and prints them against the marks the sieve filed (the
table's `marks`): the tails needed are those with |T| + max(b, 1) <= M,
exactly p(M) of them. That is an upper bound: a tail whose truncation is
losing needs only the truncations read up to that one, and for levels up
to N the script counts what such a pull (truncations first, w = 1, 2, ...)
reads, against the bound. A table of format 1 (data/levels-100.csv, another
engine's marks) is refused where its marks would be read (--count-to with
an M), as is the table of a run that inferred some of its marks; so are an M below 2, a table cut short and a table of 3D Chomp (one
line `error: ...`, exit status 2). Only the standard library; N = 50 takes
about 16 s.
"""

import argparse
import sys

# Beside this script: every partition of n (parts at most `largest`), rows
# i.. cut to their first j columns, a levels CSV's columns as integers, and
# the error for a table with none of the levels checked.
from mark_classes import after_move, no_levels, partitions, read_columns
from levels_csv import format_version  # the format of the result file a table was written from


def read_table(path, marks=True):
    """Level -> (p(n), L(n), marks) of a levels CSV, (p(n), L(n)) without
    marks; FileNotFoundError or ValueError for a file that is not one (with
    marks, also for the table of a run that inferred some of its marks)."""
    return read_columns(path, ("positions", "losing", "marks") if marks else ("positions", "losing"))


def moves_below(tail):
    """Every tail one move below `tail`: a tile (i, j) taken with every tile
    (i' >= i, j' >= j)."""
    for i, row in enumerate(tail):
        for j in range(row):  # the tile in column j + 1 of row i
            yield after_move(tail, i, j)


def losing_by_tails(n_max):
    """(L(n) for n = 0..n_max, the reads |T| summed over the tails, the
    reads of a pull that checks the truncations first and stops at a losing
    one) from the recursion over tails."""
    star = {}
    losing = [0] * (n_max + 1)
    bound = reads = 0
    # Tails with |T| + max(b, 1) <= n_max: sizes up to n_max - 1, b <= n_max - |T|.
    for size in range(n_max):
        for tail in partitions(size, n_max - size):
            b = tail[0] if tail else 0
            bound += size
            killed = next((w for w in range(1, b) if star[after_move(tail, 0, w)] == w), None)
            if killed is not None:
                star[tail] = None
                reads += killed
                continue
            reads += size
            taken = {star[t] for t in moves_below(tail)}
            a = max(b, 1)
            while a in taken:
                a += 1
            star[tail] = a
            if size + a <= n_max:
                losing[size + a] += 1
    return losing, bound, reads


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
    ap.add_argument("--count-to", type=int, nargs="*", default=[100, 110, 120, 140, 160], metavar="M",
                    help="with --table: the levels M up to which to count a pull's reads against the table's "
                         "marks (default 100 110 120 140 160; none with --count-to alone)")
    args = ap.parse_args()
    if not 1 <= args.n <= 70:
        print("error: N must be 1..70 (the 4 million tails of level 70 are tuples in memory)", file=sys.stderr)
        return 2
    if bad := [m for m in args.count_to if m < 2]:
        print(f"error: --count-to {bad[0]}: give levels M of 2 or more (level 1 files no mark)", file=sys.stderr)
        return 2
    try:
        table = read_table(args.table, marks=bool(args.count_to)) if args.table else None
        if table is not None and (said := no_levels(table, args.table, args.n)):
            raise ValueError(said)
        # A table of format 1 (the engines before 6220284, data/levels-100.csv)
        # counted a mark for every extension: not the marks a pull is priced against.
        if table is not None and args.count_to and format_version(open(args.table).read()) == 1:
            raise ValueError(f"{args.table} is a table of format 1 (its # format_version line), whose marks are "
                             "another engine's: give a table of format 3 (data/levels-170.csv), or --count-to "
                             "with no M to check L(n) alone")
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    losing, bound, reads = losing_by_tails(args.n)
    bad = 0
    for n in range(1, args.n + 1):
        print(f"L({n}) = {losing[n]}")
        if table is not None and n in table and table[n][1] != losing[n]:
            bad += 1
            print(f"level {n}: L = {losing[n]} by tails and {table[n][1]} in {args.table}", file=sys.stderr)
    share = f" ({reads / bound:.3f})" if bound else ""  # (level 1's one tail reads none)
    print(f"levels up to {args.n}: {bound} reads at one a tile, {reads} truncations first{share}")
    if table is not None:
        missing = [n for n in range(1, args.n + 1) if n not in table]
        print(f"levels 1..{args.n}: " + (f"levels differ: {bad}" if bad else "equal to the table")
              + (f"; not in the table: {missing[0]}..{missing[-1]}" if missing else ""))

    if table is not None and args.count_to:
        print("M  tails  reads  marks  reads/marks")
        for m in args.count_to:
            if not all(n in table for n in range(1, m + 1)):
                print(f"{m}: the table does not reach it")
                continue
            tails, at_most = pull_reads(m)
            marks = sum(table[n][2] for n in range(1, m + 1))
            assert tails == table[m][0], "the tails with |T| + max(b, 1) <= M are p(M)"
            print(f"{m}  {tails}  {at_most}  {marks}  {at_most / marks:.2f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
