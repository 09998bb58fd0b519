"""experiments/compare_levels.py: a run's levels against the committed tables,
equal ones reported (with their losing digests, from the table itself or
its HDF5 file beside it), a differing one named with exit status 1, the
marks of a run of format 1 left out; a run file that
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

    def first_levels(last, edit=lambda fields: fields):
        """The committed table's levels 1..last (its # line saying so), each row's fields through edit."""
        return "".join(l.replace(f"levels 1..{table.stem.split('-')[1]}\n", f"levels 1..{last}\n")
                       if l.startswith("#") else l if l.startswith("tiles") else ",".join(edit(l.split(",")))
                       for l in lines if not l[0].isdigit() or int(l.split(",")[0]) <= last)

    (data / "levels-50.csv").write_text(first_levels(50))
    # The table's own digests (its losing_digest column): the sets of losing positions are compared, not only
    # their counts, with the CSV alone.
    ok = compare(run, data)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "levels 1..40 of" in ok.stdout and \
        "(40 levels): p(n), L(n), marks, losing digests equal data/levels-50.csv" in ok.stdout, ok.stdout
    digest_of = {int(l.split(",")[0]): l.rstrip("\n").split(",")[-1] for l in lines if l[0].isdigit()}
    right, wrong = digest_of[30], f"{int(digest_of[30], 16) ^ 1:016x}"
    (data / "levels-50.csv").write_text(first_levels(50, lambda f: f[:-1] + [wrong + "\n"] if f[0] == "30" else f))
    other = compare(run, data)
    assert other.returncode == 1, other.stdout + other.stderr
    assert (f"level 30 differs from data/levels-50.csv: losing digest {right} against {wrong} "
            "(data/levels-50.csv: another set of losing positions)") in other.stdout, other.stdout
    assert "levels 1..29, 31..40 of" in other.stdout and "(39 levels): p(n), L(n), marks, losing digests equal" \
        in other.stdout, other.stdout
    # With the table's HDF5 file beside its CSV, that file is read too: one whose digests are not its CSV's is
    # not the table's own, and is refused, not read as a level that differs.
    shutil.copyfile(table.with_suffix(".h5"), data / "levels-50.h5")
    swapped = compare(run, data)
    assert swapped.returncode == 2 and swapped.stdout == "", swapped.stdout + swapped.stderr
    assert swapped.stderr == (f"error: {data / 'levels-50.h5'} does not match {data / 'levels-50.csv'} at level 30 "
                              f"(losing digest {right} against {wrong}): the HDF5 file beside a table must be the "
                              "one its CSV was written from (experiments/h5_to_csv.py)\n"), swapped.stderr
    (data / "levels-50.csv").write_text(first_levels(50))
    ok = compare(run, data)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "(40 levels): p(n), L(n), marks, losing digests equal data/levels-50.csv" in ok.stdout, ok.stdout
    # A table of another command beside the CSV (a file of `chomp grundy` renamed): one line, exit status 2.
    shutil.copyfile(ROOT / "data" / "grundy-80.h5", data / "levels-50.h5")
    grundy = compare(run, data)
    assert grundy.returncode == 2 and grundy.stdout == "" and grundy.stderr.count("\n") == 1, \
        grundy.stdout + grundy.stderr
    assert grundy.stderr.startswith(f"error: {data / 'levels-50.h5'} is not a table of `chomp sieve`: its root "
                                    'attribute format = "chomp-grundy" marks a file of `chomp grundy`; the HDF5 '
                                    "file beside a table must be"), grundy.stderr
    shutil.copyfile(table.with_suffix(".h5"), data / "levels-50.h5")
    import h5py  # the notebooks' Python has it
    # An HDF5 file beside the CSV with other counts is refused too; one that cannot be read is left out,
    # with a note (the CSV's digests still compared).
    with h5py.File(data / "levels-50.h5", "r+") as f:
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
    assert "(40 levels): p(n), L(n), marks, losing digests equal data/levels-50.csv" in unread.stdout, unread.stdout
    assert "note: data/levels-50.h5 not read (its counts and digests not checked against data/levels-50.csv): " \
        in unread.stdout, unread.stdout
    (data / "levels-50.h5").unlink()
    # The committed tables themselves: the first series' levels 1..156 (data/run-170/) have the same losing
    # positions as the third series' table, by their digests (data/README.md says so).
    first = compare(ROOT / "data" / "run-170" / "levels-156.h5", ROOT / "data")
    assert first.returncode == 0, first.stdout + first.stderr
    assert f"(156 levels): p(n), L(n), marks, losing digests equal data/{table.name}" in first.stdout, first.stdout
    # A longer table of the run (data/run-*/) is read first; one level off by one is named.
    (data / "run-1" / "levels-60.csv").write_text(
        first_levels(60, lambda f: f[:2] + [str(int(f[2]) + 1)] + f[3:] if f[0] == "30" else f))
    bad = compare(run, data)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "level 30 differs from data/run-1/levels-60.csv: losing" in bad.stdout, bad.stdout
    assert "levels 1..29, 31..40 of" in bad.stdout and "(39 levels)" in bad.stdout, bad.stdout
    # Levels beyond every table are said to be unchecked.
    shutil.rmtree(data)
    data.mkdir()
    (data / "levels-20.csv").write_text(first_levels(20))
    part = compare(run, data)
    assert part.returncode == 0 and "levels 21..40: beyond every committed table" in part.stdout, part.stdout
    # A run that inferred the marks of the first two rows' moves (the default) is
    # compared on p(n) and L(n) alone, and says so.
    inferred = tmp / "inferred.h5"
    subprocess.run([CHOMP, "sieve", "--max-tiles", "20", "--output", str(inferred), "-q"], check=True)
    same = compare(inferred, data)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "(20 levels): p(n), L(n), losing digests equal data/levels-20.csv" in same.stdout, same.stdout
    assert "marks not compared: the run inferred" in same.stdout, same.stdout
    # A committed table of such a run (its header says inferred_marks) has fewer marks than a run that filed
    # every move: its marks are not compared either, and do not read as levels that differ.
    m = next(l for l in lines if l.startswith("tiles,")).split(",").index("marks")
    fewer = first_levels(20, lambda f: f[:m] + [str(int(f[m]) // 2)] + f[m + 1:] if f[0] != "1" else f)
    (data / "levels-20.csv").write_text(fewer.replace("tiles,", "# inferred_marks: rows 1-2\ntiles,", 1))
    table_inferred = compare(run, data)
    assert table_inferred.returncode == 0, table_inferred.stdout + table_inferred.stderr
    assert "(20 levels): p(n), L(n), losing digests equal data/levels-20.csv" in table_inferred.stdout, \
        table_inferred.stdout
    (data / "levels-20.csv").write_text(first_levels(20))
    # A run with no finished level yet (its columns empty, as just after its start): nothing was compared, and
    # exit 0 would read as a clean comparison to long_run.sh --status and promote_levels.sh.
    import h5py
    empty = tmp / "empty.h5"
    shutil.copyfile(inferred, empty)
    shutil.copyfile(inferred.with_suffix(".store"), empty.with_suffix(".store"))
    with h5py.File(empty, "r+") as f:
        for column in f["levels"].values():
            column.resize((0,) + column.shape[1:])
        f.attrs["complete"] = 0
    none = compare(empty, data)
    assert none.returncode == 2 and none.stdout == "", none.stdout + none.stderr
    assert none.stderr == f"error: {empty} has no finished level yet: nothing to compare (wait for its first " \
        "level)\n", none.stderr
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
    # A table cut short between rows: its last newline missing, fewer levels than its # line says, a level
    # missing, a digest cut short.
    cut = first_levels(50)
    last, says = len(cut.splitlines()), 1 + next(i for i, l in enumerate(cut.splitlines()) if "levels 1..50" in l)
    for text, said in [(cut[:-1], f"line {last}: the table ends without a newline: it was cut short"),
                       (cut.replace("levels 1..50\n", "levels 1..51\n"),
                        f"line {says}: it says levels 1..51 and has 50 rows of levels: a table cut short"),
                       ("".join(l for l in cut.splitlines(keepends=True) if not l.startswith("31,")),
                        "level 32 where level 31 comes next"),
                       (first_levels(50, lambda f: f[:-1] + ["e220a83\n"] if f[0] == "1" else f),
                        "losing_digest 'e220a83' is not 16 hex digits")]:
        (short / "levels-170.csv").write_text(text)
        refuses(run, short, f"{short / 'levels-170.csv'}, {said}" if said.startswith("line") else said)
    assert "write it again from its .h5: experiments/h5_to_csv.py" in compare(run, short).stderr
    # A run of format 1 (data/levels-100.h5) counted a mark for every extension: its marks are not compared
    # with the tables' (they would differ at every level), its p(n) and L(n) are, and are equal.
    old = compare(ROOT / "data" / "levels-100.h5", ROOT / "data")
    assert old.returncode == 0, old.stdout + old.stderr
    assert "(100 levels): p(n), L(n) equal" in old.stdout and "differs" not in old.stdout, old.stdout
    assert "marks not compared: the run is of format 1" in old.stdout, old.stdout
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
