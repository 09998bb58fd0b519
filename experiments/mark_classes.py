#!/usr/bin/env python3
"""Bounds what inferring marks from the game's structure could save.

    experiments/mark_classes.py N [--table data/levels-K.csv]

Brute force over every position of levels 1..N (no engine code): a
position is losing when none of its moves leads to a losing one. A pair
(position Q, losing position S one move below it) is a mark the sieve
files when Q or S is canonical (first row at least as long as the first
column): the sieve decides canonical positions only, and a source that is
not canonical is extended at its top corner only (doc/ALGORITHMS.md,
"Transposes"). Level by level these are the `marks` of the committed
table, which --table checks. Write Q = (a, T): first row a, tail T (rows 2..), b the
length of T's first row (0 when Q has one row). The marks fall into three
classes by the move that leads from Q to S:

  first  a cut of the first row alone, at a column beyond b: S = (a', T).
         Each tail holds at most one losing first row, so the scan could
         infer these (every (a, T) above a losing (a', T) is winning);
  top    a cut of the first row at a column 2..b, which shortens the tail
         too: S does not depend on a, so the mark holds for every first
         row of T (a ray of levels). One mark per distinct (S, T) would do,
         given a state per tail that lasts across levels;
  other  a cut below the first row: needed as today.

It prints each class's share of the marks, the distinct (S, T) pairs, and
`kept`: the marks a kernel inferring both classes would still file (other +
distinct pairs) as a fraction of all marks, an upper bound on the saving
(it ignores the join and the state per tail such a kernel would need). With
--table it checks its L(n) and marks against a committed CSV as it goes
(exit status 1 at the first level that differs; 2, with one line
`error: ...`, for a table it cannot read or one with none of levels 1..N). Only the standard library; N = 50
takes about two minutes.
"""

import argparse
import sys

from levels_csv import read_levels  # beside this script


def partitions(n, largest=None):
    largest = n if largest is None else largest
    if n == 0:
        yield ()
        return
    for first in range(min(n, largest), 0, -1):
        for rest in partitions(n - first, first):
            yield (first,) + rest


def after_move(rows, i, j):
    """Rows i.. (0-based) cut to their first j columns."""
    cut = list(rows)
    for r in range(i, len(cut)):
        cut[r] = min(cut[r], j)
    while cut and cut[-1] == 0:
        cut.pop()
    return tuple(cut)


def read_columns(path, columns):
    """Level -> the integers of `columns` in a levels CSV; FileNotFoundError or
    ValueError for a file that is not one (or one with a row cut short)."""
    return {n: tuple(row[c] for c in columns) for n, row in read_levels(path, columns).items()}


def read_table(path):
    """Level -> (L(n), marks) of a levels CSV; FileNotFoundError or ValueError
    for a file that is not one."""
    return read_columns(path, ("losing", "marks"))


def no_levels(table, path, n):
    """The error for a table that holds none of levels 1..n (nothing to check), else None."""
    if any(k in table for k in range(1, n + 1)):
        return None
    return (f"{path} holds " + ("no level (a header alone)" if not table else f"none of levels 1..{n}")
            + ": nothing to check; give a table of levels 1..K (data/levels-K.csv)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", type=int, help="the last level (levels 1..N)")
    parser.add_argument("--table", help="a committed levels CSV (data/levels-K.csv) to check L(n) and the marks "
                        "against, level by level (exit status 1 at the first that differs); the marks counted "
                        "here are those of an engine that decides canonical positions only, so a table from an "
                        "engine with other marks (data/levels-100.csv) fails the marks check")
    parser.add_argument("--by-row", action="store_true",
                        help="also print the share of the marks by the row of their move (1 = the first)")
    args = parser.parse_args()
    if not 2 <= args.n <= 60:
        print("error: N must be 2..60 (the brute force holds every position in memory)", file=sys.stderr)
        sys.exit(2)

    expected = {}
    if args.table:
        try:
            expected = read_table(args.table)
            if said := no_levels(expected, args.table, args.n):
                raise ValueError(said)
        except (OSError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            sys.exit(2)

    losing = {}
    marks = {"first": 0, "top": 0, "other": 0}
    rays = set()
    by_row = {}
    for n in range(1, args.n + 1):
        count = 0
        level_marks = 0
        for q in partitions(n):
            if n == 1:  # the poisoned square alone: the player to move loses
                losing[q] = True
                count += 1
                continue
            b = q[1] if len(q) > 1 else 0
            is_losing = True
            for i, row in enumerate(q):
                for j in range(row):
                    if i == 0 and j == 0:
                        continue
                    s = after_move(q, i, j)
                    if not losing[s]:
                        continue
                    is_losing = False
                    if q[0] < len(q) and s[0] < len(s):
                        continue  # neither canonical: the sieve files no such mark
                    level_marks += 1
                    by_row[i + 1] = by_row.get(i + 1, 0) + 1
                    if i == 0 and j + 1 > b:
                        marks["first"] += 1
                    elif i == 0:
                        marks["top"] += 1
                        rays.add((s, q[1:]))
                    else:
                        marks["other"] += 1
            losing[q] = is_losing
            count += is_losing
        if n in expected and expected[n] != (count, level_marks):
            sys.exit(f"error: level {n}: L = {count} and {level_marks} marks here, "
                     f"{expected[n][0]} and {expected[n][1]} in {args.table}")

    total = sum(marks.values())
    shares = "  ".join(f"{k} {v / total:.3f}" for k, v in marks.items())
    kept = (marks["other"] + len(rays)) / total
    print(f"N = {args.n}: {total} marks  {shares}  distinct (S, T) {len(rays)}  kept {kept:.3f}")
    if args.by_row:
        print("by the row of the move: " + "  ".join(f"{r} {v / total:.3f}" for r, v in sorted(by_row.items())))


if __name__ == "__main__":
    main()
