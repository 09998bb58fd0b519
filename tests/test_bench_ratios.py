"""experiments/bench_ratios.py: alternating runs of the base revision and another, paired
and summed up by N; a base run whose next run of its N is the base's again, or comes more
than 400 s later, or has other threads, makes no pair; --since keeps the later pairs; a
missing file, a CSV of another kind and a bad date are refused in one line, exit status 2.

    /usr/bin/python3 tests/test_bench_ratios.py
"""
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "experiments" / "bench_ratios.py"
HEADER = "program,max_tiles,threads,wall_s,cpu_s,peak_rss_mib,losing_at_max,git_revision,host,date_utc,cpus"


def row(n, threads, wall, rev, t):
    return f"chomp,{n},{threads},{wall},{2 * wall},100.0,1,{rev},vm,2026-12-05T{t}Z,2"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    table = tmp / "bench.csv"
    table.write_text("\n".join([
        HEADER,
        row(110, 2, 30.0, "d06904d9693a", "01:00:00"), row(110, 2, 20.0, "abc-dirty", "01:00:30"),  # 1.50
        row(120, 2, 90.0, "d06904d9693a", "01:01:00"), row(120, 2, 50.0, "abc-dirty", "01:02:00"),  # 1.80
        row(110, 2, 33.0, "d06904d9693a", "02:00:00"), row(110, 2, 15.0, "abc-dirty", "02:00:40"),  # 2.20
        row(110, 2, 36.0, "d06904d9693a", "03:00:00"), row(110, 2, 20.0, "abc", "03:10:00"),        # too late
        row(110, 2, 36.0, "d06904d9693a", "04:00:00"), row(110, 2, 36.0, "d06904d9693a", "04:00:40"),  # base twice
        row(110, 1, 60.0, "d06904d9693a", "05:00:00"), row(110, 1, 30.0, "abc", "05:01:00"),        # one thread
        row(110, 2, 32.0, "d06904d9693a", "06:00:00"), row(110, 2, 20.0, "def", "06:00:30"),        # 1.60
    ]) + "\n")
    r = run(table)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:5] == ["N", "rounds", "median", "least", "most"], r.stdout
    assert lines[1].split() == ["110", "3", "1.60x", "1.50x", "2.20x", "1", "1.50,", "2.20,", "1.60"], r.stdout
    assert lines[2].split() == ["120", "1", "1.80x", "1.80x", "1.80x", "0", "1.80"], r.stdout
    assert len(lines) == 3, r.stdout
    r = run(table, "--since", "2026-12-05T01:30", "--target", "1.55")
    assert r.stdout.splitlines()[1].split() == ["110", "2", "1.90x", "1.60x", "2.20x", "2", "2.20,", "1.60"], r.stdout
    assert len(r.stdout.splitlines()) == 2, r.stdout
    r = run(table, "--threads", "1")
    assert r.stdout.splitlines()[1].split()[:3] == ["110", "1", "2.00x"], r.stdout
    r = run(table, "--base", "zzz")
    assert r.returncode == 1 and r.stdout.startswith("no run of zzz with 2 threads"), r.stdout + r.stderr

    for args, says in (((tmp / "none.csv",), "cannot read"),
                       ((ROOT / "data" / "levels-100.csv",), "is not a CSV of experiments/bench_sieve.sh"),
                       ((table, "--since", "yesterday"), "--since must be an ISO date")):
        r = run(*args)
        what = f"{args}: rc {r.returncode}\n{r.stdout}{r.stderr}"
        assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, what
        assert r.stderr.startswith("error: ") and says in r.stderr, what
    # The committed CSV reads (its rows change as sessions add to it: only that it reads).
    r = run()
    assert r.returncode == 0 and r.stdout.startswith("   N rounds"), r.stdout + r.stderr
print("bench_ratios: ok")
