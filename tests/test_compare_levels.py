"""experiments/compare_levels.py: a run's levels against the committed tables,
equal ones reported (with their losing digests where the table's HDF5 file is
beside its CSV), a differing one named with exit status 1; a run file that
is missing, a folder, a 3D run or not a table of `chomp sieve`, a committed row
cut short and a data folder with no committed table refused with one line and
exit status 2 (experiments/promote_levels.sh stops on either)."""
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "experiments" / "compare_levels.py"
CHOMP = os.environ["CHOMP_BIN"]


def compare(run, data):
    return subprocess.run([sys.executable, str(SCRIPT), str(run), "--chomp", CHOMP, "--data", str(data)],
                          capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    run = tmp / "run.h5"
    subprocess.run([CHOMP, "sieve", "--max-tiles", "40", "--output", str(run), "-q", "--file-all-marks"],
                   check=True)
    # The committed table as it is: levels 1..40 equal it.
    data = tmp / "data"
    (data / "run-1").mkdir(parents=True)
    table = max((ROOT / "data").glob("levels-*.csv"), key=lambda p: int(p.stem.split("-")[1]))
    lines = table.read_text().splitlines(keepends=True)
    (data / "levels-50.csv").write_text("".join(l for l in lines if l.startswith("#") or l.startswith("tiles")
                                                or (l[0].isdigit() and int(l.split(",")[0]) <= 50)))
    ok = compare(run, data)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "levels 1..40 of" in ok.stdout and "(40 levels): p(n), L(n), marks equal data/levels-50.csv" in ok.stdout, \
        ok.stdout
    # With the table's HDF5 file beside its CSV, the sets of losing positions are compared too (by their digests),
    # and a set that differs with the same counts is named.
    shutil.copyfile(table.with_suffix(".h5"), data / "levels-50.h5")
    ok = compare(run, data)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "(40 levels): p(n), L(n), marks, losing digests equal data/levels-50.csv" in ok.stdout, ok.stdout
    import h5py  # the notebooks' Python has it
    with h5py.File(data / "levels-50.h5", "r+") as f:
        right = int(f["levels/losing_digest"][29])
        f["levels/losing_digest"][29] = right ^ 1
    other = compare(run, data)
    assert other.returncode == 1, other.stdout + other.stderr
    assert (f"level 30 differs from data/levels-50.csv: losing digest {right:016x} against {right ^ 1:016x} "
            "(data/levels-50.h5: another set of losing positions)") in other.stdout, other.stdout
    assert "levels 1..29, 31..40 of" in other.stdout and "(39 levels): p(n), L(n), marks, losing digests equal" \
        in other.stdout, other.stdout
    # An HDF5 file beside the CSV that is not the table's own (other counts) is refused, not read as a
    # level that differs; one that cannot be read leaves the digests out, with a note.
    with h5py.File(data / "levels-50.h5", "r+") as f:
        f["levels/losing_digest"][29] = right
        # L(10) one more, its fraction and ratio to match (a file whose derived columns disagree with its
        # counts is refused as damaged, and then only its digests go uncompared: see below).
        losing, positions = int(f["levels/losing"][9]) + 1, int(f["levels/positions"][9])
        f["levels/losing"][9] = losing
        f["levels/losing_fraction"][9] = losing / positions
        f["levels/hypothesis_ratio"][9] = losing / (positions / math.log(positions))
    swapped = compare(run, data)
    assert swapped.returncode == 2 and swapped.stdout == "", swapped.stdout + swapped.stderr
    assert swapped.stderr.startswith(f"error: {data / 'levels-50.h5'} does not match {data / 'levels-50.csv'} "
                                     "at level 10"), swapped.stderr
    (data / "levels-50.h5").write_bytes(b"not an HDF5 file\n" * 100)
    unread = compare(run, data)
    assert unread.returncode == 0, unread.stdout + unread.stderr
    assert "(40 levels): p(n), L(n), marks equal data/levels-50.csv" in unread.stdout, unread.stdout
    assert "note: digests of data/levels-50.csv not compared: " in unread.stdout, unread.stdout
    (data / "levels-50.h5").unlink()
    # The committed tables themselves: the first series' levels 1..156 (data/run-170/) have the same losing
    # positions as the third series' table, by their digests (data/README.md says so).
    first = compare(ROOT / "data" / "run-170" / "levels-156.h5", ROOT / "data")
    assert first.returncode == 0, first.stdout + first.stderr
    assert f"(156 levels): p(n), L(n), marks, losing digests equal data/{table.name}" in first.stdout, first.stdout
    # A longer table of the run (data/run-*/) is read first; one level off by one is named.
    altered = []
    for l in lines:
        if l[0].isdigit() and int(l.split(",")[0]) == 30:
            f = l.split(",")
            f[2] = str(int(f[2]) + 1)
            l = ",".join(f)
        if l.startswith("#") or l.startswith("tiles") or int(l.split(",")[0]) <= 60:
            altered.append(l)
    (data / "run-1" / "levels-60.csv").write_text("".join(altered))
    bad = compare(run, data)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "level 30 differs from data/run-1/levels-60.csv: losing" in bad.stdout, bad.stdout
    assert "levels 1..29, 31..40 of" in bad.stdout and "(39 levels)" in bad.stdout, bad.stdout
    # Levels beyond every table are said to be unchecked.
    shutil.rmtree(data)
    data.mkdir()
    (data / "levels-20.csv").write_text("".join(l for l in lines if l.startswith("#") or l.startswith("tiles")
                                                or (l[0].isdigit() and int(l.split(",")[0]) <= 20)))
    part = compare(run, data)
    assert part.returncode == 0 and "levels 21..40: beyond every committed table" in part.stdout, part.stdout
    # A run that inferred the marks of the first two rows' moves (the default) is
    # compared on p(n) and L(n) alone, and says so.
    inferred = tmp / "inferred.h5"
    subprocess.run([CHOMP, "sieve", "--max-tiles", "20", "--output", str(inferred), "-q"], check=True)
    same = compare(inferred, data)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "(20 levels): p(n), L(n) equal data/levels-20.csv" in same.stdout, same.stdout
    assert "marks not compared: the run inferred" in same.stdout, same.stdout
    # A file of `chomp grundy` (which chomp show reads too), a missing file, a CSV, a committed table that is
    # not a levels table: refused, nothing compared.
    grundy = ROOT / "data" / "grundy-80.h5"
    for bad_run, said in [
            (grundy, f"error: {grundy} is not a table of `chomp sieve`: "
                     'its root attribute format = "chomp-grundy" marks a file of `chomp grundy`'),
            (tmp / "none.h5", f"error: no run file {tmp / 'none.h5'}"),
            (ROOT / "data" / "levels-170.csv", "is not an HDF5 file")]:
        refused = compare(bad_run, data)
        assert refused.returncode == 2 and refused.stdout == "", (bad_run, refused.stdout + refused.stderr)
        assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("error: "), refused.stderr
        assert said in refused.stderr, refused.stderr
    (data / "levels-80.csv").write_text(subprocess.run([CHOMP, "show", str(grundy), "--csv"],
                                                       check=True, capture_output=True, text=True).stdout)
    refused = compare(run, data)
    assert refused.returncode == 2 and refused.stderr == \
        f"error: {data / 'levels-80.csv'} is not a table of `chomp sieve` (no column losing)\n", refused.stderr

    def refuses(run_file, data, said):
        r = compare(run_file, data)
        what = f"{run_file} --data {data}: rc {r.returncode}\n{r.stdout}{r.stderr}"
        assert r.returncode == 2 and r.stdout == "", what  # 1 would say "a level differs" to promote_levels.sh
        assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, what  # one line: no traceback
        assert said in r.stderr, what

    # A committed row cut short is a damaged table, not a level that differs.
    short = tmp / "short"
    short.mkdir()
    (short / "levels-170.csv").write_text("tiles,positions,losing\n1,1\n")
    refuses(run, short, f"{short / 'levels-170.csv'}, line 2: 2 fields where the header has 3")
    # A 3D run is not compared with the 2D tables (its level 2 has PL(2) = 3 positions, not p(2) = 2).
    refuses(ROOT / "data" / "levels3d-30.h5", ROOT / "data",
            "is a 3D table (root attribute dimensions = 3): compare_levels compares 2D runs with data/levels-N.csv")
    # No committed table to compare with: a missing or empty folder, or one of header-only tables.
    empty, header_only = tmp / "empty", tmp / "header-only"
    empty.mkdir()
    (header_only / "run-1").mkdir(parents=True)
    (header_only / "levels-50.csv").write_text("tiles,positions,losing,marks\n")
    (header_only / "run-1" / "levels-60.csv").write_text("# a comment\ntiles,positions,losing,marks\n")
    for folder in (tmp / "none", empty, header_only):
        refuses(run, folder, f"no committed table in {folder}")
    # A folder where the run file is expected.
    refuses(tmp, ROOT / "data", f"{tmp} is a folder, not a run file")
print("compare_levels: ok")
