#!/usr/bin/env python3
"""The README's results table is made from the committed table: the text
between <!-- results:begin --> and <!-- results:end --> in README.md, from
the largest data/levels-N.csv (levels-100.csv is another kind of file).

    experiments/readme_results.py [--update] [README.md [DATA_DIR]]

It says which levels are computed and which are new, and gives one row per
tenth level from 90 and one for the last level: p(n), L(n), the losing
share and r(n) = L(n) / (p(n) / ln p(n)). Without --update it checks that
the README's copy is the one the table makes, word for word (a test runs
it, so a README not carried along when levels are committed fails); with
--update it writes it (experiments/promote_levels.sh does), once the
table's levels 20, 30, ..., 90 equal the published ones (reference/ beside
it) and its header says its run finished. Exit status 1 when the README's
copy differs or it has no such block; 2, with one line `error: ...`, when a
file is missing, the table is not one of `chomp sieve`, is of a run that
did not finish, or disagrees with the published levels, or the README
cannot be written (it is written whole or not at all).
Only the standard library: any python3 runs it.
"""

import argparse
import math
import re
import sys
from pathlib import Path

from levels_csv import read_levels  # beside this script
from write_whole import write_text  # beside this script

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"(<!-- results:begin -->\n)(.*?)(<!-- results:end -->)", flags=re.S)
# Levels the independent checks cover (data/README.md, "Checks of the committed tables").
PUBLISHED = (20, 90, 10)  # data/reference/caribou_density.csv: levels 20, 30, ..., 90
INDEPENDENT = (1, 130)    # T. Herchen's hash-keyed table


def largest_table(data: Path) -> Path:
    tables = [(int(m.group(1)), p) for p in data.glob("levels-*.csv")
              if (m := re.fullmatch(r"levels-(\d+)\.csv", p.name)) and m.group(1) != "100"]
    if not tables:
        raise FileNotFoundError(f"no committed table {data}/levels-N.csv")
    return max(tables)[1]


def read_rows(table: Path) -> dict:
    """Level -> {positions, losing} (integers) of a levels CSV; ValueError for a
    file that is not one (or one with a row cut short)."""
    return read_levels(table, ("positions", "losing"))


def check_published(table: Path, rows: dict, levels: list) -> None:
    """The table's levels `levels` against the published ones
    (reference/caribou_density.csv beside the table), which the README says
    they agree with: ValueError naming the first that does not."""
    reference = table.parent / "reference" / "caribou_density.csv"
    published = read_levels(reference, ("positions", "losing"), consecutive=False)  # levels 20, 30, ..., 90
    for n in levels:
        if n not in published:
            raise ValueError(f"{reference} has no level {n}, which the README says the table agrees with")
        if published[n] != rows[n]:
            raise ValueError(f"{table}, level {n}: p(n) = {rows[n]['positions']}, L(n) = {rows[n]['losing']}, "
                             f"where the published table ({reference}) has {published[n]['positions']} and "
                             f"{published[n]['losing']}: the README would say they agree")


def block(table: Path) -> str:
    rows = read_rows(table)
    last = max(rows, default=0)
    if not rows or sorted(rows) != list(range(1, last + 1)):
        raise ValueError(f"{table} does not hold every level 1..{last}")
    # The README says every level is computed: not of a run that did not finish.
    done = re.search(r"(?m)^# format_version: .*?\bcomplete: (\w+)", table.read_text(encoding="utf-8"))
    if not done or done.group(1) != "1":
        raise ValueError(f"{table} " + (f"is the table of a run that did not finish (complete: {done.group(1)})"
                                        if done else "has no '# format_version: ...; complete: 1' line (the "
                                        "CSV experiments/h5_to_csv.py writes from a finished run)")
                         + "; the README's results come from a finished run")
    shown = [n for n in range(90, last + 1, 10)] + ([last] if last % 10 or last < 90 else [])
    # What the checks cover of this table: a shorter one (a table made to
    # try the scripts) is not said to hold levels it does not have.
    listed = list(range(PUBLISHED[0], min(PUBLISHED[1], last) + 1, PUBLISHED[2]))
    if len(listed) > 3:
        published = f"levels {listed[0]}, {listed[1]}, ..., {listed[-1]}"
    elif len(listed) > 1:
        published = "levels " + ", ".join(map(str, listed[:-1])) + f" and {listed[-1]}"
    else:
        published = f"level {listed[0]}" if listed else None
    check_published(table, rows, listed)
    independent = f"{INDEPENDENT[0]}..{min(INDEPENDENT[1], last)}"
    checked = (f"Their p(n) and L(n) agree with the published table's\n{published} and with the independent "
               f"table above on\n{independent}" if published else
               f"Levels {independent} have the p(n) and L(n) of the independent table above")
    new = f"; **levels {INDEPENDENT[1] + 1}..{last} are new**." if last > INDEPENDENT[1] else "."
    lines = [
        f"Every level n = 1..{last} is computed exactly (`data/{table.with_suffix('.h5').name}`, CSV",
        "beside it, provenance inside). " + checked + new,
        "",
        "| n | positions p(n) | losing L(n) | losing share | L(n) / (p(n) / ln p(n)) |",
        "|---|---|---|---|---|",
    ]
    for n in shown:
        p, losing = rows[n]["positions"], rows[n]["losing"]
        share = 100 * losing / p
        ratio = losing * math.log(p) / p
        lines.append(f"| {n} | {p:,} | {losing:,} | {share:.4f} % | {ratio:.6f} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--update", action="store_true", help="write the table into the README")
    ap.add_argument("readme", nargs="?", default=str(ROOT / "README.md"))
    ap.add_argument("data", nargs="?", default=str(ROOT / "data"))
    a = ap.parse_args()
    readme = Path(a.readme)
    if readme.is_dir():
        print(f"error: {readme} is a folder, not a README (give README.md)", file=sys.stderr)
        return 2
    if not readme.is_file():
        print(f"error: no README at {readme}", file=sys.stderr)
        return 2
    try:
        text = readme.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        print(f"error: {readme} is not a text file, so not a README (give README.md)", file=sys.stderr)
        return 2
    m = BLOCK.search(text)
    if not m:
        print(f"error: {readme} has no <!-- results:begin --> ... <!-- results:end --> block", file=sys.stderr)
        return 1
    try:
        table = largest_table(Path(a.data))
        want = block(table)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.update:
        try:
            write_text(readme, text[:m.start(2)] + want + text[m.end(2):])
        except OSError as e:  # (1 says the README's copy differs)
            print(f"error: cannot write {readme}: {e.strerror or e} (the README is as it was)", file=sys.stderr)
            return 2
        print(f"{readme}: results from {table}")
        return 0
    if m.group(2) != want:
        print(f"error: the README's results are not those of {table}; run "
              f"experiments/readme_results.py --update\n--- README\n{m.group(2)}--- {table.name}\n{want}",
              file=sys.stderr)
        return 1
    print(f"{readme}: results are those of {table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
