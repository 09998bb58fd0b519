"""experiments/long_run.sh on a folder whose run is finished: nothing to resume, and no leg
started (a leg would only spend minutes checking the stored levels); a smaller N is refused;
--status says it is not running and compares its levels, digests included, with data/, and
exits 1 where one differs; a pid file naming another process called chomp is not taken for the
run's; the same run marked unfinished gets a leg, numbered one above the highest log's; --status on a folder that is gone or holds no run says
so and how to start one.

long_run.sh runs the checkout's build/chomp; where the suite's program is another (a build
tree elsewhere) the test is skipped (exit status 77).

    CHOMP_BIN=build/chomp /usr/bin/python3 tests/test_long_run.py
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHOMP = pathlib.Path(os.environ.get("CHOMP_BIN", ROOT / "build" / "chomp"))
SCRIPT = ROOT / "experiments" / "long_run.sh"

if not (ROOT / "build" / "chomp").exists() or (ROOT / "build" / "chomp").resolve() != CHOMP.resolve():
    print(f"skipped: long_run.sh runs {ROOT / 'build' / 'chomp'}, not this suite's {CHOMP}")
    sys.exit(77)

with tempfile.TemporaryDirectory() as tmp:
    run_dir = pathlib.Path(tmp) / "run"
    run_dir.mkdir()
    subprocess.run([str(CHOMP), "sieve", "-n", "20", "-q", "-o", str(run_dir / "levels-20.h5")],
                   check=True, capture_output=True)
    env = dict(os.environ, RUN_DIR=str(run_dir))

    def long_run(*args):
        return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=120)

    for args in ((), ("20",)):
        r = long_run(*args)
        what = f"long_run.sh {' '.join(args)}: rc {r.returncode}\n{r.stdout}{r.stderr}"
        assert r.returncode == 0, what
        assert f"the folder's run {run_dir / 'levels-20.h5'} is complete (levels 1..20): nothing to resume" \
            in r.stdout, what
        assert not list(run_dir.glob("leg-*.log")) and not (run_dir / "chomp").exists(), what  # no leg started
    r = long_run("19")
    assert r.returncode == 2 and "is a run to 20 tiles" in r.stderr, r.stdout + r.stderr
    # A folder that is gone (a new machine) or empty: --status says there is no run, and how to start one.
    for where, says in ((pathlib.Path(tmp) / "gone", "does not exist"), (pathlib.Path(tmp) / "empty", "holds no run")):
        if says == "holds no run":
            where.mkdir()
        r = subprocess.run(["bash", str(SCRIPT), "--status"], capture_output=True, text=True,
                           env=dict(env, RUN_DIR=str(where)), timeout=60)
        assert r.returncode == 0 and r.stdout == f"not running\nno run: {where} {says}; {SCRIPT} starts one " \
            "(to 170 tiles, or N)\n", r.stdout + r.stderr
    r = long_run("--status")
    assert r.returncode == 0 and r.stdout.startswith("not running\n") and "no run:" not in r.stdout, r.stdout + r.stderr
    assert "(20 levels): p(n), L(n), losing digests equal data/levels-" in r.stdout, r.stdout + r.stderr
    # A checkout with no build/chomp (the script alone, copied): the levels are not compared, and --status says
    # so with exit 2, not 0 as if they had been.
    bare = pathlib.Path(tmp) / "bare"
    (bare / "experiments").mkdir(parents=True)
    subprocess.run(["cp", str(SCRIPT), str(bare / "experiments")], check=True)
    r = subprocess.run(["bash", str(bare / "experiments" / "long_run.sh"), "--status"], capture_output=True,
                       text=True, env=env, timeout=60)
    assert r.returncode == 2 and "its levels not compared with data/: build/chomp is not built" in r.stdout, \
        f"rc {r.returncode}\n{r.stdout}{r.stderr}"
    # A pid file naming a live process called chomp that is not the folder's own binary (a pid
    # given since to a test's or a benchmark's chomp) is not the run: --status says so.
    fake = pathlib.Path(tmp) / "chomp"
    fake.write_bytes(pathlib.Path("/bin/cat").read_bytes())
    fake.chmod(0o755)
    other = subprocess.Popen([str(fake)], stdin=subprocess.PIPE)
    try:
        (run_dir / "pid").write_text(f"{other.pid}\n")
        r = long_run("--status")
        assert r.stdout.startswith("not running\n"), r.stdout + r.stderr
        r = long_run("--stop")
        assert r.returncode == 0 and "no run is going" in r.stdout and other.poll() is None, r.stdout + r.stderr
    finally:
        other.kill()
        other.wait()
    # A level that differs from data/ (its digest changed by hand): --status exits 1.
    import h5py  # the notebooks' Python has it
    copy = pathlib.Path(tmp) / "differs"
    copy.mkdir()
    subprocess.run(["cp", str(run_dir / "levels-20.h5"), str(run_dir / "levels-20.store"), str(copy)], check=True)
    with h5py.File(copy / "levels-20.h5", "r+") as f:
        digests = f["levels/losing_digest"][...]
        digests[5] += 1 if digests[5] == 0 else -1
        f["levels/losing_digest"][...] = digests
    r = subprocess.run(["bash", str(SCRIPT), "--status"], capture_output=True, text=True,
                       env=dict(env, RUN_DIR=str(copy)), timeout=60)
    assert r.returncode == 1 and "differ" in r.stdout + r.stderr, f"rc {r.returncode}\n{r.stdout}{r.stderr}"
    # The same run marked unfinished (as a stop leaves it): a leg goes on with it.
    with h5py.File(run_dir / "levels-20.h5", "r+") as f:
        f.attrs["complete"] = f.attrs["complete"] * 0
        f.attrs["status"] = "interrupted"
    # Legs are numbered one above the highest log (leg 2 moved aside leaves 1 and 3: the next is 4).
    for k in (1, 3):
        (run_dir / f"leg-{k}.log").write_text(f"# leg {k}\n")
    r = long_run()
    what = f"long_run.sh on an unfinished run: rc {r.returncode}\n{r.stdout}{r.stderr}"
    assert "nothing to resume" not in r.stdout and "leg 4 " in r.stdout + r.stderr, what
    assert (run_dir / "leg-4.log").exists() and (run_dir / "leg-1.log").read_text() == "# leg 1\n", what
    # Its marks count every move, as the committed tables' do (promote_levels.sh refuses others).
    assert "--memory-limit 18G --file-all-marks" in (run_dir / "leg-4.log").read_text(), what
    # The pid file names the leg; let it (a few levels at most) end before its folder goes (one
    # that ended within the script's first seconds says so).
    pid = int((run_dir / "pid").read_text())
    if "started (pid " in r.stdout:
        assert f"started (pid {pid})" in r.stdout, what
        for _ in range(600):
            if not pathlib.Path(f"/proc/{pid}").exists():
                break
            time.sleep(0.1)
    else:
        assert "leg 4 finished at once" in r.stdout, what
print("long_run: ok")
