"""experiments/bench_ratios.py: each chomp run of the base revision paired with the next chomp
run of its N and threads, if another revision's that began within 120 s of the base run's
end, and summed up by N with the revisions pooled; a base run followed by the base again, by
a run that began later, by nothing, or with another program or thread count between, is
handled as documented; --since keeps the later pairs; a missing file, a CSV of another kind,
a malformed row (fields missing, a wall time of inf, nan, 0 or below), a bad date are refused in
one line naming the file and line, exit status 2.

    /usr/bin/python3 tests/test_bench_ratios.py
"""
import datetime
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "experiments" / "bench_ratios.py"
HEADER = "program,max_tiles,threads,wall_s,cpu_s,peak_rss_mib,losing_at_max,git_revision,host,date_utc,cpus"
T0 = datetime.datetime(2026, 12, 5)


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


class Table:
    """Rows as bench_sieve.sh writes them: each run ends `gap` s after the last one ended plus its wall time."""

    def __init__(self):
        self.rows, self.clock = [HEADER], T0

    def add(self, n, wall, rev, gap=3, threads=2, program="chomp"):
        self.clock += datetime.timedelta(seconds=gap + wall)
        self.rows.append(f"{program},{n},{threads},{wall:.2f},{2 * wall:.2f},100.0,1,{rev},vm,"
                         f"{self.clock:%Y-%m-%dT%H:%M:%S}Z,2")

    def write(self, path):
        path.write_text("\n".join(self.rows) + "\n")


with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    t = Table()
    t.add(110, 30, "d06904d9693a"), t.add(110, 20, "abc-dirty")                 # 1.50
    t.add(120, 90, "d06904d9693a"), t.add(120, 50, "abc-dirty")                 # 1.80 (110 and 120 interleaved)
    t.add(110, 33, "d06904d9693a"), t.add(110, 60, "naive", program="naive")   # a naive run between...
    t.add(110, 15, "abc-dirty")                                                 # ...so this began 63 s late: 2.20
    t.add(110, 36, "d06904d9693a"), t.add(110, 20, "abc", gap=130)             # began 130 s late: no pair
    t.add(110, 36, "d06904d9693a"), t.add(110, 36, "d06904d9693a")             # the base again: no pair for the
    t.add(110, 24, "def")                                                       # first; the second with def: 1.50
    t.add(110, 60, "d06904d9693a", threads=1), t.add(110, 30, "abc", threads=1)  # one thread: 2.00
    t.add(110, 20, "abc"), t.add(110, 32, "d06904d9693a")                       # the other first: this base run is
    t.add(120, 10, "abc")                                                       # followed by no run of its N
    since = t.clock
    t.add(110, 40, "d06904d9693a"), t.add(110, 25, "def", gap=100)             # 1.60 (began 100 s later)
    table = tmp / "bench.csv"
    t.write(table)

    r = run(table)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:5] == ["N", "rounds", "median", "least", "most"], r.stdout
    assert lines[1].split() == ["110", "4", "1.55x", "1.50x", "2.20x", "1", "1.50,", "2.20,", "1.50,", "1.60"], r.stdout
    assert lines[2].split() == ["120", "1", "1.80x", "1.80x", "1.80x", "0", "1.80"], r.stdout
    assert lines[3] == "against d06904d: abc-dirty (3), def (2)", r.stdout
    assert len(lines) == 4, r.stdout
    r = run(table, "--since", f"{since:%Y-%m-%dT%H:%M:%S}", "--target", "1.55")
    assert r.stdout.splitlines()[1].split() == ["110", "1", "1.60x", "1.60x", "1.60x", "1", "1.60"], r.stdout
    # An offset is applied: the same time an hour ahead, at +01:00, and an hour behind it, at -01:00 (none).
    r = run(table, "--since", f"{since + datetime.timedelta(hours=1):%Y-%m-%dT%H:%M:%S}+01:00")
    assert r.stdout.splitlines()[1].split()[:2] == ["110", "1"], r.stdout
    r = run(table, "--since", f"{since:%Y-%m-%dT%H:%M:%S}-01:00")
    assert r.returncode == 1 and r.stdout.startswith("no run of d06904d"), r.stdout + r.stderr
    r = run(table, "--threads", "1")
    assert r.stdout.splitlines()[1].split()[:3] == ["110", "1", "2.00x"], r.stdout
    r = run(table, "--base", "zzz")
    assert r.returncode == 1 and r.stdout.startswith("no run of zzz with 2 threads"), r.stdout + r.stderr

    bad = tmp / "bad.csv"
    bad.write_text("\n".join(t.rows[:2] + [t.rows[2].replace(",20.00,", ",soon,")]) + "\n")
    latin = tmp / "latin.csv"
    latin.write_bytes((HEADER + "\n").encode() + b"chomp,110,2,1.0,2.0,1.0,1,\xe9,vm,2026-12-05T00:00:00Z,2\n")
    # A row with fields missing or one too many, a wall time that does not divide (inf, nan, 0, below 0):
    # the file and line are named (they were tracebacks, or ratios of 0 and inf).
    rows = {}
    for name, row in (("short", t.rows[2].rsplit(",", 3)[0]), ("long", t.rows[2] + ",extra"),
                      *((f"wall-{w}", t.rows[2].replace(",20.00,", f",{w},")) for w in ("inf", "nan", "0", "-20"))):
        rows[name] = tmp / f"{name}.csv"
        rows[name].write_text("\n".join(t.rows[:2] + [row] + t.rows[3:]) + "\n")
    for args, says in (((tmp / "none.csv",), "cannot read"),
                       ((ROOT / "data" / "levels-100.csv",), "is not a CSV of experiments/bench_sieve.sh"),
                       ((bad,), f"{bad}, line 3: its max_tiles, wall_s or date_utc does not read ('110', 'soon',"),
                       ((rows["short"],), f"{rows['short']}, line 3: 8 fields where the header has 11"),
                       ((rows["long"],), f"{rows['long']}, line 3: 12 fields where the header has 11"),
                       *(((rows[f"wall-{w}"],), f"{rows[f'wall-{w}']}, line 3: wall_s = {w}: a run's wall time is a "
                          "number of seconds above 0") for w in ("inf", "nan", "0", "-20")),
                       ((latin,), "is not a text CSV"),
                       ((table, "--since", "yesterday"), "--since must be an ISO date"),
                       ((table, "--threads", "0"), "--threads 0: give the runs' thread count, 1 or more"),
                       ((table, "--target", "-1"), "--target -1.0: give a ratio above 0")):
        r = run(*args)
        what = f"{args}: rc {r.returncode}\n{r.stdout}{r.stderr}"
        assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, what
        assert r.stderr.startswith("error: ") and says in r.stderr, what
    # The committed CSV reads (its rows change as sessions add to it: only that it reads).
    r = run()
    assert r.returncode == 0 and r.stdout.startswith("   N rounds"), r.stdout + r.stderr
print("bench_ratios: ok")
