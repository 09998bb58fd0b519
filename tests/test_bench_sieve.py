"""experiments/bench_sieve.sh and experiments/thread_scaling.sh refuse to time runs while
another chomp is at work (the long run, most often), in one line that names its pid and
says how to stop it, before they write any row or log; BESIDE=1 times anyway, and its row
holds the committed table's L(N).

A copy of cat named chomp, reading a pipe that ends with this test, stands for the other run
(the scripts look at each process's name in /proc). Once it is gone, and where no other chomp
runs (a long run, or a test beside this one), a run without BESIDE must go ahead: the scripts
must not take themselves for another chomp (beside another chomp, that step runs in a PID
namespace of its own, or is reported as a skip). thread_scaling.sh runs the checkout's build/chomp;
where that is absent its refusal is not checked. Without /usr/bin/time, which bench_sieve.sh
needs first, the test is skipped (exit status 77).

    CHOMP_BIN=build/chomp /usr/bin/python3 tests/test_bench_sieve.py
"""
import csv
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHOMP = os.environ.get("CHOMP_BIN", str(ROOT / "build" / "chomp"))
TABLE = max((ROOT / "data").glob("levels-*.csv"), key=lambda p: int(p.stem.split("-")[1]))
N = 12

if not os.access("/usr/bin/time", os.X_OK):
    print("skipped: bench_sieve.sh needs /usr/bin/time (Debian package 'time')")
    sys.exit(77)


def chomps():
    """The pids of the processes named chomp now."""
    found = []
    for proc in pathlib.Path("/proc").glob("[0-9]*"):
        try:
            if (proc / "comm").read_text().strip() == "chomp":
                found.append(int(proc.name))
        except OSError:
            pass
    return found


with TABLE.open() as f:
    losing = {int(r["tiles"]): int(r["losing"]) for r in csv.DictReader(line for line in f if not line.startswith("#"))}

with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    fake = tmp / "chomp"
    shutil.copy(shutil.which("cat"), fake)
    other = subprocess.Popen([str(fake)], stdin=subprocess.PIPE)  # ends when the pipe does
    try:
        table, logs = tmp / "bench.csv", tmp / "logs"
        env = dict(os.environ, CHOMPS=CHOMP, NAIVE="0", THREADS="1", LOGS=str(logs))
        env.pop("BESIDE", None)

        def script(name, *args, wrap=(), **extra):
            return subprocess.run([*wrap, "bash", str(ROOT / "experiments" / name), *map(str, args)],
                                  capture_output=True, text=True, env=dict(env, **extra), timeout=120)

        # A setting that is not a number is refused as a bad command line is (exit 2, one line), before
        # anything is timed or written; NAIVE_MAX's used to skip every push-sieve run without a word.
        for key, value, says in (("ROUNDS", "two", "ROUNDS must be a positive number, not 'two'"),
                                 ("THREADS", "0", "thread counts, not '0'"),
                                 ("PIN", "2", "PIN must be 0, 1 or last, not '2'"),
                                 ("NAIVE_MAX", "1e2", "NAIVE_MAX must be a level number, not '1e2'"),
                                 ("CHOMPS", " ", "CHOMPS names no binary")):
            r = script("bench_sieve.sh", table, N, **{key: value})
            what = f"{key}={value}: rc {r.returncode}\n{r.stdout}{r.stderr}"
            assert r.returncode == 2 and r.stderr == f"error: {says}\n" if key != "THREADS" else \
                r.returncode == 2 and says in r.stderr and r.stderr.count("\n") == 1, what
            assert not table.exists() and not logs.exists(), what

        runs = [("bench_sieve.sh", table, N)]
        if (ROOT / "build" / "chomp").exists():
            runs.append(("thread_scaling.sh", N))
        for name, *args in runs:
            r = script(name, *args, CSV=str(table))
            what = f"{name} beside pid {other.pid}: rc {r.returncode}\n{r.stdout}{r.stderr}"
            assert r.returncode == 1, what
            assert r.stderr.startswith("error: chomp is running beside this benchmark (") and \
                r.stderr.count("\n") == 1, what
            assert f"pid {other.pid}: {fake}" in r.stderr, what
            assert "experiments/long_run.sh --stop" in r.stderr and "BESIDE=1" in r.stderr, what
            assert not table.exists() and not logs.exists(), f"{name} wrote before refusing"

        r = script("bench_sieve.sh", table, N, BESIDE="1")
        assert r.returncode == 0, f"BESIDE=1: rc {r.returncode}\n{r.stdout}{r.stderr}"
        rows = list(csv.DictReader(table.open()))
        assert len(rows) == 1, rows
        row = rows[0]
        assert (row["program"], row["max_tiles"], row["threads"]) == ("chomp", str(N), "1"), row
        assert int(row["losing_at_max"]) == losing[N], (row, losing[N])
        assert (logs / f"bench-chomp-{N}-1.log").exists(), sorted(logs.iterdir())
    finally:
        other.kill()
        other.wait()

    # Alone, without BESIDE: the run goes ahead. Where another chomp runs (the
    # long run, a test beside this one), the script runs in a PID namespace of
    # its own (unshare, as root), which shows it no other process; where that
    # cannot be made either, the step is reported as a skip (77), not a pass.
    wrap = ()
    if chomps():
        probe = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True)
        if probe.returncode != 0:
            print(f"skipped: other chomp processes run ({chomps()}) and no PID namespace can hide them")
            sys.exit(77)
        wrap = ("unshare", "--pid", "--fork", "--mount-proc")
    r = script("bench_sieve.sh", table, N, wrap=wrap)
    assert r.returncode == 0, f"alone: rc {r.returncode}\n{r.stdout}{r.stderr}"
    assert len(list(csv.DictReader(table.open()))) == 2
print("ok")
