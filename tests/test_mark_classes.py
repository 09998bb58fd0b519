"""experiments/mark_classes.py: its brute force agrees with the committed
table's L(n), its classes add up, and a table it disagrees with is named
with exit status 1 (the marks of data/levels-100.csv, another engine's, too);
a table it cannot read (a row cut short, none of the levels checked) is refused
with one line and exit status 2."""
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "experiments" / "mark_classes.py"
table = max((ROOT / "data").glob("levels-*.csv"), key=lambda p: int(p.stem.split("-")[1]))


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


ok = run(20, "--table", table)
assert ok.returncode == 0, ok.stdout + ok.stderr
m = re.search(r"N = 20: (\d+) marks  first ([0-9.]+)  top ([0-9.]+)  other ([0-9.]+)  distinct \(S, T\) (\d+)  kept ([0-9.]+)",
              ok.stdout)
assert m, ok.stdout
total, first, top, other, pairs, kept = int(m[1]), float(m[2]), float(m[3]), float(m[4]), int(m[5]), float(m[6])
# The marks of levels 1..20 (the committed table's, which --table checked
# level by level) and doc/PERFORMANCE.md's distinct (S, T) pairs.
assert (total, pairs) == (2658, 131), ok.stdout
assert abs(first + top + other - 1) < 2e-3, ok.stdout
assert abs(kept - (other + pairs / total)) < 2e-3, ok.stdout

with tempfile.TemporaryDirectory() as tmp:
    bad = pathlib.Path(tmp) / "bad.csv"
    lines = table.read_text().splitlines(keepends=True)
    bad.write_text("".join(l.replace("12,77,10,", "12,77,11,", 1) if l.startswith("12,") else l for l in lines))
    assert "12,77,11," in bad.read_text(), "the committed table's level 12 is not p = 77, L = 10"
    wrong = run(14, "--table", bad)
    assert wrong.returncode == 1 and "level 12: L = 10 and" in wrong.stderr and ", 11 and" in wrong.stderr, \
        wrong.stdout + wrong.stderr
    # Marks off by one are named too.
    def more_marks(line):  # column 7 is marks (more columns may follow)
        f = line.rstrip("\n").split(",")
        return ",".join(f[:6] + [str(int(f[6]) + 1)] + f[7:]) + "\n"
    lines_marks = [more_marks(l) if l.startswith("13,") else l for l in lines]
    bad.write_text("".join(lines_marks))
    wrong = run(14, "--table", bad)
    assert wrong.returncode == 1 and "level 13: L = " in wrong.stderr, wrong.stdout + wrong.stderr

    # A row cut short, a table of the header alone, one with none of the levels checked, a folder.
    short, header_only, beyond = (pathlib.Path(tmp) / f for f in ("short.csv", "header-only.csv", "beyond.csv"))
    short.write_text("tiles,positions,losing,losing_fraction,hypothesis_ratio,seconds,marks\n1,1\n")
    header_only.write_text("# a comment\ntiles,positions,losing,losing_fraction,hypothesis_ratio,seconds,marks\n")
    beyond.write_text("".join(l for l in lines if not l[:1].isdigit() or int(l.split(",")[0]) > 20))
    beyond_line = 1 + next(i for i, l in enumerate(beyond.read_text().splitlines()) if l.startswith("21,"))
    no_newline = pathlib.Path(tmp) / "no-newline.csv"
    no_newline.write_text("".join(lines)[:-1])
    # The table of a run that inferred its first rows' moves (h5_to_csv.py
    # says so in its # lines): its marks are not every move; it read as a
    # difference at level 2 here, and as a wrong ratio in pull_over_tails.py.
    inferred = pathlib.Path(tmp) / "inferred.csv"
    inferred.write_text("# inferred_marks: rows 1-2\n" + "".join(lines))
    for bad, said in [(ROOT / "data" / "grundy-80.h5", "grundy-80.h5 is not a CSV table"),
                      (pathlib.Path(tmp) / "none.csv", "no table at"),
                      (ROOT / "data" / "reference" / "small_counts.csv", "(no column marks)"),
                      (short, f"{short}, line 2: 2 fields where the header has 7"),
                      (header_only, f"{header_only} holds no level (a header alone): nothing to check"),
                      (beyond, f"{beyond}, line {beyond_line}: level 21 where level 1 comes next"),
                      (no_newline, f"{no_newline}, line {len(lines)}: the table ends without a newline: it was "
                                   "cut short (write it again from its .h5: experiments/h5_to_csv.py)"),
                      (ROOT / "data" / "levels3d-30.csv", "levels3d-30.csv is a table of 3D Chomp (its # dimensions "
                                                          "line): give a 2D table (data/levels-K.csv)"),
                      (inferred, "inferred the marks of its first rows' moves (inferred_marks: rows 1-2)"),
                      (pathlib.Path(tmp), f"{tmp} is a folder, not a table")]:
        refused = run(12, "--table", bad)
        assert refused.returncode == 2 and refused.stderr.startswith("error: ") and refused.stderr.count("\n") == 1, \
            refused.stderr
        assert said in refused.stderr, refused.stderr

# The same L(n), other marks: the marks check fails (as --help says).
other = run(12, "--table", ROOT / "data" / "levels-100.csv")
assert other.returncode == 1 and re.search(r"level \d+: L = (\d+) and \d+ marks here, \1 and \d+ in", other.stderr), \
    other.stdout + other.stderr

for n in (1, 61):
    refused = run(n)
    assert refused.returncode == 2 and "N must be 2..60" in refused.stderr, refused.stderr
print("mark_classes: ok")
