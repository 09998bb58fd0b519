#!/usr/bin/python3
"""The README's results paragraph is the one notebooks/density_hypothesis.ipynb
generates from the committed table (notebooks/VERDICT.md): the text between
<!-- verdict:begin --> and <!-- verdict:end --> in README.md.

    /usr/bin/python3 experiments/readme_verdict.py [--update] [README.md [VERDICT.md]]

Without --update it checks that the two say the same, word for word (the
notebook test runs it, so a README that was not carried along when the table
grew or the analysis changed fails); with --update it copies the paragraph
into the README, wrapped to 78 columns. Exit status 1 when they differ (or
the README has no such block), 2 when a file is missing or not text, the
verdict has no words, or the README cannot be written (it is written whole
or not at all); the errors go to stderr.
"""

import argparse
import re
import sys
from pathlib import Path

from write_whole import write_text  # beside this script

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"(<!-- verdict:begin -->\n)(.*?)(<!-- verdict:end -->)", flags=re.S)
# a line of Markdown must not start like a list item, a quote or a heading
NO_START = re.compile(r"^([-+*>#]|\d+[.)])$")


def words(text: str) -> list:
    return re.sub(r"<!--.*?-->", "", text, flags=re.S).split()


def wrap(ws: list, width: int = 78) -> str:
    lines, line = [], []
    for w in ws:
        if line and len(" ".join(line + [w])) > width:
            if NO_START.match(w) and len(line) > 1:   # carry the word before down with it
                lines.append(" ".join(line[:-1]))
                line = line[-1:]
            else:
                lines.append(" ".join(line))
                line = []
        line.append(w)
    lines.append(" ".join(line))
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--update", action="store_true", help="write the paragraph into the README")
    ap.add_argument("readme", nargs="?", type=Path, default=ROOT / "README.md")
    ap.add_argument("verdict", nargs="?", type=Path, default=ROOT / "notebooks" / "VERDICT.md")
    args = ap.parse_args()
    texts = []
    for path, what in ((args.readme, "README.md"), (args.verdict, "the notebook's VERDICT.md")):
        if path.is_dir():
            print(f"error: {path} is a folder, not a file (give {what})", file=sys.stderr)
            return 2
        if not path.is_file():
            print(f"error: no file {path}", file=sys.stderr)
            return 2
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            print(f"error: {path} is not a text file (give {what})", file=sys.stderr)
            return 2
    readme, verdict = texts
    m = BLOCK.search(readme)
    if not m:
        print(f"error: {args.readme} has no <!-- verdict:begin --> ... <!-- verdict:end --> block", file=sys.stderr)
        return 1
    want = words(verdict)
    if not want:
        print(f"error: {args.verdict} has no words: run notebooks/density_hypothesis.ipynb on the committed table "
              "to write the verdict", file=sys.stderr)
        return 2
    if args.update:
        try:
            write_text(args.readme, readme[:m.start(2)] + wrap(want) + readme[m.end(2):])
        except OSError as e:  # (1 says the paragraphs differ)
            print(f"error: cannot write {args.readme}: {e.strerror or e} (the README is as it was)", file=sys.stderr)
            return 2
        print(f"wrote the verdict ({len(want)} words) into {args.readme}")
        return 0
    got = words(m.group(2))
    if got != want:
        i = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        print(f"error: {args.readme}'s results paragraph is not the notebook's verdict ({args.verdict}); "
              f"first difference at word {i}:\n  README:   {' '.join(got[max(i - 8, 0):i + 8])}\n"
              f"  notebook: {' '.join(want[max(i - 8, 0):i + 8])}\n"
              "Run the notebook on the committed table, then experiments/readme_verdict.py --update.",
              file=sys.stderr)
        return 1
    print(f"{args.readme}'s results paragraph is the notebook's verdict ({len(want)} words)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
