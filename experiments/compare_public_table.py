#!/usr/bin/python3
"""Compares a chomp result file's levels with another program's table of
counts, one level a line: "n p(n) L(n)" (whitespace or commas; other lines
are ignored), such as files/130.txt of https://github.com/anematode/chomp
(T. Herchen, 2021, commit 35e8b98: a hash-keyed computation of levels 1..130).
The table is not part of this repository: download it first.

Usage: /usr/bin/python3 experiments/compare_public_table.py RESULT.h5 TABLE
The finished levels of a run that did not finish are compared, with a note saying so.
Exit code 0 when every level both hold agrees, 1 when one differs, 2 with one line `error: ...` for a
file it cannot read or when no level is in both (nothing was compared).
"""
import os
import re
import sys

from compare_levels import runs  # beside this script
from sieve_table import import_chomp_results, open_sieve_table  # beside this script


def read_result(path):
    """Level -> (p(n), L(n)) of the finished levels of a chomp sieve result
    file, and whether its run finished; FileNotFoundError, OSError or
    ValueError for a file that is not one."""
    with open_sieve_table(path, two_d=True):  # what the file is, said the scripts' way
        pass
    cr = import_chomp_results()
    # The package's reader counts the finished levels as the program does: a
    # last row a killed run wrote in part (its store_trailer 0, a column's
    # chunk missing) reads as zeros and is no level.
    levels = cr.read_levels(path, require_complete=False)
    return ({int(n): (int(p), int(l)) for n, p, l in zip(levels.tiles, levels.positions, levels.losing)},
            levels.attrs.get("complete") == 1)


def read_table(path):
    """Level -> (p(n), L(n)) from the lines "n p(n) L(n)" of a text table."""
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path} is a folder, not a table (give the text table: one level a line)")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no table at {path}")
    theirs = {}
    try:
        with open(path) as t:
            for line in t:
                m = re.match(r"^\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)\s*$", line)
                if m:
                    theirs[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text table (one level a line: n p(n) L(n))") from None
    if not theirs:
        raise ValueError(f"{path} has no line \"n p(n) L(n)\" (three whole numbers, whitespace or commas between): "
                         "is it the table of counts?")
    return theirs


def main() -> int:
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(sys.argv) != 3:
        print(next(line for line in __doc__.splitlines() if line.startswith("Usage:")), file=sys.stderr)
        return 2
    result, table = sys.argv[1], sys.argv[2]
    try:
        ours, complete = read_result(result)
        theirs = read_table(table)
    except (OSError, ValueError) as e:  # (HDF5's own messages do not name the file)
        print(f"error: {e}" if result in str(e) or table in str(e) else f"error: {result}: {e}", file=sys.stderr)
        return 2
    both = sorted(set(ours) & set(theirs))
    if not both:
        print(f"error: no level is in both {result} and {table}: nothing was compared", file=sys.stderr)
        return 2
    differ = [n for n in both if ours[n] != theirs[n]]
    for n in differ:
        print(f"level {n}: {result} has p = {ours[n][0]}, L = {ours[n][1]}; {table} has "
              f"p = {theirs[n][0]}, L = {theirs[n][1]}")
    print(f"levels {runs(both)} ({len(both)} in both): "
          + ("all agree" if not differ else f"{len(differ)} differ"))
    if not complete:
        print(f"note: {result} is a run that did not finish: only its finished levels, {runs(sorted(ours))}, were read")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
