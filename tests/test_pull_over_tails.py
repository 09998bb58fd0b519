"""experiments/pull_over_tails.py: the recursion over tails finds the
committed table's L(n), a table it disagrees with is named with exit status
1, a table it cannot read (a row cut short, none of the levels checked) is
refused with one line and exit status 2, and its count of a pull's reads
equals a count over the tails themselves."""
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "experiments" / "pull_over_tails.py"
table = max((ROOT / "data").glob("levels-*.csv"), key=lambda p: int(p.stem.split("-")[1]))


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


ok = run(32, "--table", table, "--count-to", 20, 24)
assert ok.returncode == 0 and "levels 1..32: equal to the table" in ok.stdout, ok.stdout + ok.stderr
assert "L(32) = 302\n" in ok.stdout, ok.stdout


def tails(size, largest):
    if size == 0:
        yield ()
        return
    for part in range(min(size, largest), 0, -1):
        for rest in tails(size - part, part):
            yield (part,) + rest


marks = {}
for line in table.read_text().splitlines():
    if line[:1].isdigit():
        cells = line.split(",")
        marks[int(cells[0])] = int(cells[6])
for m in (20, 24):
    # Every tail T with |T| + max(b, 1) <= m, each read once per tile of T,
    # against the marks the committed table says the sieve filed.
    listed = [t for size in range(m) for t in tails(size, m) if size + max(t[0] if t else 0, 1) <= m]
    row = re.search(rf"^{m}  (\d+)  (\d+)  (\d+)  ", ok.stdout, re.M)
    assert row, ok.stdout
    assert (int(row[1]), int(row[2])) == (len(listed), sum(map(sum, listed))), (row[0], len(listed))
    assert int(row[3]) == sum(marks[n] for n in range(1, m + 1)), row[0]

# The bound for levels up to N is the same sum; reading the truncations
# first reads less (doc/PERFORMANCE.md: 0.790 of it for the levels up to 20).
twenty = run(20, "--count-to")
bound = sum(sum(t) for size in range(20) for t in tails(size, 20) if size + max(t[0] if t else 0, 1) <= 20)
share = re.search(r"levels up to 20: (\d+) reads at one a tile, (\d+) truncations first \(([0-9.]+)\)", twenty.stdout)
assert share and int(share[1]) == bound and int(share[2]) < bound and share[3] == "0.790", twenty.stdout
# Level 1 alone reads nothing: no share to give (it divided by zero).
one = run(1)
assert one.returncode == 0 and "L(1) = 1\nlevels up to 1: 0 reads at one a tile, 0 truncations first\n" in one.stdout, \
    one.stdout + one.stderr

beyond = run(10, "--table", table, "--count-to", 1000)
assert beyond.returncode == 0 and "1000: the table does not reach it" in beyond.stdout, beyond.stdout

with tempfile.TemporaryDirectory() as tmp:
    bad = pathlib.Path(tmp) / "bad.csv"
    lines = table.read_text().splitlines(keepends=True)
    bad.write_text("".join(l.replace("12,77,10,", "12,77,11,", 1) if l.startswith("12,") else l for l in lines))
    assert "12,77,11," in bad.read_text(), "the committed table's level 12 is not p = 77, L = 10"
    wrong = run(14, "--table", bad, "--count-to")
    assert wrong.returncode == 1 and "level 12: L = 10 by tails and 11 in" in wrong.stderr, wrong.stdout + wrong.stderr
    assert "levels 1..14: levels differ: 1" in wrong.stdout, wrong.stdout
    # A row cut short, a table of the header alone, one with none of the levels checked, a folder.
    short, header_only, beyond = (pathlib.Path(tmp) / f for f in ("short.csv", "header-only.csv", "beyond.csv"))
    short.write_text("tiles,positions,losing,losing_fraction,hypothesis_ratio,seconds,marks\n1,1\n")
    header_only.write_text("# a comment\ntiles,positions,losing,losing_fraction,hypothesis_ratio,seconds,marks\n")
    beyond.write_text("".join(l for l in lines if not l[:1].isdigit() or int(l.split(",")[0]) > 20))
    beyond_line = 1 + next(i for i, l in enumerate(beyond.read_text().splitlines()) if l.startswith("21,"))
    no_newline = pathlib.Path(tmp) / "no-newline.csv"
    no_newline.write_text("".join(lines)[:-1])
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
                      (pathlib.Path(tmp), f"{tmp} is a folder, not a table")]:
        refused = run(10, "--table", bad)
        assert refused.returncode == 2 and refused.stderr.startswith("error: ") and refused.stderr.count("\n") == 1, \
            refused.stderr
        assert said in refused.stderr and refused.stdout == "", refused.stdout + refused.stderr

# The marks of a table of format 1 (another engine's, data/levels-100.csv) are not priced against; its
# L(n) is still checked. --count-to below 2 (level 1 files no mark) is refused.
old = run(10, "--table", ROOT / "data" / "levels-100.csv", "--count-to", 10)
assert old.returncode == 2 and old.stdout == "" and old.stderr.count("\n") == 1 and "levels-100.csv is a table of " \
    "format 1 (its # format_version line), whose marks are another engine's" in old.stderr, old.stdout + old.stderr
old = run(10, "--table", ROOT / "data" / "levels-100.csv", "--count-to")
assert old.returncode == 0 and "levels 1..10: equal to the table" in old.stdout, old.stdout + old.stderr
assert "reads/marks" not in old.stdout, old.stdout   # no table of counts when none is asked for
# So with the table of a run that inferred some of its marks: refused where they would be read, checked on L(n).
with tempfile.TemporaryDirectory() as tmp:
    inferred = pathlib.Path(tmp) / "inferred.csv"
    lines = open(table).readlines()
    inferred.write_text("".join(lines[:1] + ["# inferred_marks: rows 1-2\n"] + lines[1:]))
    refused = run(10, "--table", inferred, "--count-to", 10)
    assert refused.returncode == 2 and "inferred the marks of its first rows' moves" in refused.stderr, refused.stderr
    checked = run(10, "--table", inferred, "--count-to")
    assert checked.returncode == 0 and "levels 1..10: equal to the table" in checked.stdout, \
        checked.stdout + checked.stderr
for m in ("0", "-3", "1"):
    refused = run(10, "--table", table, "--count-to", 20, m)
    assert refused.returncode == 2 and refused.stdout == "" and refused.stderr == \
        f"error: --count-to {m}: give levels M of 2 or more (level 1 files no mark)\n", refused.stdout + refused.stderr

for n in (0, 71):
    refused = run(n)
    assert refused.returncode == 2 and refused.stderr.startswith("error: N must be 1..70"), refused.stderr
print("pull_over_tails: ok")
