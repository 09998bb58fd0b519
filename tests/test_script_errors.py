"""ctest python.script_errors: the scripts of experiments/ that read tables
refuse a file that is missing or not a table of `chomp sieve` (a file of
`chomp grundy`, a CSV where HDF5 is read, an HDF5 file where a CSV is read)
with one line `error: ...` on stderr, nothing on stdout and exit status 2,
and still read the committed tables; a truncated HDF5 file is named, a
folder is said to be one, and a binary file given as the README is refused;
a file that cannot be written (a file size limit) is one line, exit status
2, and leaves the earlier one as it was (h5_to_csv.py, make_figures.py,
readme_results.py and readme_verdict.py --update), an empty verdict is
refused, and long_run_table.py --from beyond the levels is one line;
regenerate_data.sh, promote_levels.sh and thread_scaling.sh without their
number or with a bad one print a usage line and exit 2;
--help works without the package, and a run says how to get it (where it is
not installed).
(compare_levels.py, h5_levels_only.py, mark_classes.py and pull_over_tails.py
have these checks in their own tests.)

    CHOMP_BIN=build/chomp /usr/bin/python3 tests/test_script_errors.py
"""
import os
import pathlib
import resource
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
CHOMP = os.environ.get("CHOMP_BIN", str(ROOT / "build" / "chomp"))
GRUNDY = DATA / "grundy-80.h5"
TABLE = max(DATA.glob("levels-*.csv"), key=lambda p: int(p.stem.split("-")[1]))  # the committed table
RESULT = TABLE.with_suffix(".h5")
SAYS_GRUNDY = ('is not a table of `chomp sieve`: its root attribute format = "chomp-grundy" '
               "marks a file of `chomp grundy`")


def script(name, *args, package=True, cwd=None, env=None, file_limit=None):
    """The script's run; with file_limit, files it writes stop at that many bytes (ulimit -f: a write
    beyond fails with EFBIG, as on a full disk)."""
    env = dict(os.environ, MPLCONFIGDIR=str(tmp / "matplotlib"), **(env or {}))
    env.pop("PYTHONPATH", None)
    if package:
        env["PYTHONPATH"] = str(ROOT / "python")
    limit = (lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))) if file_limit else None
    return subprocess.run([sys.executable, str(ROOT / "experiments" / name), *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=cwd or ROOT, preexec_fn=limit)


def refused(name, *args, says, **how):
    r = script(name, *args, **how)
    what = f"{name} {' '.join(map(str, args))}: rc {r.returncode}\n{r.stdout}{r.stderr}"
    assert r.returncode == 2 and r.stdout == "", what
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, what  # one line: no traceback
    assert says in r.stderr, what


with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    missing = tmp / "none.h5"

    # --help before the package is imported: it works without it.
    for name in ("h5_to_csv.py", "make_figures.py"):
        r = script(name, "--help", package=False, cwd=tmp)
        assert r.returncode == 0 and r.stdout.startswith("usage: "), r.stdout + r.stderr
    # Without PYTHONPATH, from another folder, a run takes the checkout's python/ (it used to stop and ask for it).
    r = script("h5_to_csv.py", RESULT, "-o", tmp / "x.csv", package=False, cwd=tmp)
    assert r.returncode == 0 and (tmp / "x.csv").read_text().startswith("# chomp sieve per-level table"), r.stderr
    (tmp / "x.csv").unlink()

    # h5_to_csv.py: the committed table exports to its committed CSV, byte for byte.
    for bad, says in [(GRUNDY, SAYS_GRUNDY), (missing, f"no result file at {missing}"),
                      (TABLE, f"{TABLE} is not an HDF5 file")]:
        refused("h5_to_csv.py", bad, "-o", tmp / "x.csv", says=says)
        assert not (tmp / "x.csv").exists()
    # A truncated file is named and said to be truncated (HDF5's own message names neither;
    # compare_public_table.py names it too). A folder is said to be one.
    truncated = tmp / "truncated.h5"
    truncated.write_bytes(RESULT.read_bytes()[:3000])
    refused("h5_to_csv.py", truncated, "-o", tmp / "x.csv", says=f"error: {truncated} cannot be read: the file is truncated")
    refused("h5_to_csv.py", tmp, "-o", tmp / "x.csv", says=f"error: {tmp} is a folder, not a result file")
    assert not (tmp / "x.csv").exists()
    r = script("h5_to_csv.py", RESULT, "-o", tmp / TABLE.name)
    assert r.returncode == 0, r.stderr
    assert (tmp / TABLE.name).read_bytes() == TABLE.read_bytes(), "h5_to_csv.py no longer writes the committed CSV"
    # A write that fails part way (a file size limit, a full disk): one line, and the earlier CSV as it was,
    # with no partial file beside it.
    refused("h5_to_csv.py", RESULT, "-o", tmp / TABLE.name, file_limit=12 * 1024, says=f"error: cannot write "
            f"{tmp / TABLE.name}: File too large")
    assert (tmp / TABLE.name).read_bytes() == TABLE.read_bytes()
    assert not list(tmp.glob(f".{TABLE.name}*")), list(tmp.iterdir())

    # make_figures.py (the figure itself: notebooks/test_density_fits.py and the notebooks).
    refused("make_figures.py", GRUNDY, "-o", tmp / "x.png", says=SAYS_GRUNDY)
    refused("make_figures.py", missing, "-o", tmp / "x.png", says=f"no result file at {missing}")
    refused("make_figures.py", truncated, "-o", tmp / "x.png", says=f"error: {truncated} cannot be read: the file is truncated")
    refused("make_figures.py", tmp, "-o", tmp / "x.png", says=f"error: {tmp} is a folder, not a result file")
    # A 3D table is not drawn against the 2D conjecture's published rows (it was, under a 2D title).
    THREE_D = ROOT / "data" / "levels3d-40.h5"
    refused("make_figures.py", THREE_D, "-o", tmp / "x.png", says=f"{THREE_D} is a table of 3D Chomp")
    assert not (tmp / "x.png").exists()
    # A short table draws (31 levels: a holdout of 30 left no level, an IndexError).
    short_run = tmp / "short.h5"
    assert subprocess.run([str(CHOMP), "sieve", "-n", "31", "-q", "-o", str(short_run)], capture_output=True).returncode == 0
    r = script("make_figures.py", short_run, "-o", tmp / "short.png")
    assert r.returncode == 0 and (tmp / "short.png").stat().st_size > 0, r.stdout + r.stderr
    # A name without a suffix: matplotlib writes NAME.png, and that is the name said. A folder is refused.
    r = script("make_figures.py", short_run, "-o", tmp / "bare")
    assert r.returncode == 0 and (tmp / "bare.png").is_file() and "wrote " in r.stdout and "bare.png" in r.stdout, \
        r.stdout + r.stderr
    refused("make_figures.py", short_run, "-o", tmp, says=f"--output {tmp} is a folder; give a file name")
    (tmp / "taken.png").mkdir()
    refused("make_figures.py", short_run, "-o", tmp / "taken", says=f"--output {tmp / 'taken.png'} is a folder")
    refused("make_figures.py", short_run, "-o", tmp / "fig.v2", says="give a name ending in .png, .pdf or .svg")
    # A figure that cannot be written: one line, and an earlier figure as it was. A missing or empty table
    # of the published rows: one line.
    refused("make_figures.py", short_run, "-o", "/proc/f.png", says="error: cannot write /proc/f.png: ")
    good = (tmp / "short.png").read_bytes()
    refused("make_figures.py", short_run, "-o", tmp / "short.png", file_limit=20 * 1024,
            says=f"error: cannot write {tmp / 'short.png'}: File too large")
    assert (tmp / "short.png").read_bytes() == good and not list(tmp.glob(".short.png*"))
    (tmp / "no-reference" / "reference").mkdir(parents=True)
    refused("make_figures.py", short_run, "-o", tmp / "x.png", env={"CHOMP_DATA_DIR": str(tmp / "no-reference")},
            says=f"error: no reference table {tmp / 'no-reference' / 'reference' / 'caribou_density.csv'}")
    (tmp / "no-reference" / "reference" / "caribou_density.csv").write_text("")
    refused("make_figures.py", short_run, "-o", tmp / "x.png", env={"CHOMP_DATA_DIR": str(tmp / "no-reference")},
            says="caribou_density.csv holds no rows: copy it again from the repository's data/reference/")
    assert not (tmp / "x.png").exists()
    # h5_to_csv.py never writes its CSV over the result file it reads.
    copy = tmp / "copy.h5"
    copy.write_bytes(short_run.read_bytes())
    refused("h5_to_csv.py", copy, "-o", copy, says="named like a result file or one of a run's side files")
    refused("h5_to_csv.py", short_run, "-o", tmp / "short.store", says="named like a result file or one of a run's side")
    odd = tmp / "odd.csv"  # a result file named .csv: its default CSV is itself
    odd.write_bytes(short_run.read_bytes())
    refused("h5_to_csv.py", odd, says="would replace the result file it is made from")
    assert odd.read_bytes() == short_run.read_bytes()
    assert copy.read_bytes() == short_run.read_bytes()
    # Nor over it through a hard link named .csv, nor under a suffix in capitals.
    linked = tmp / "linked.csv"
    os.link(copy, linked)
    refused("h5_to_csv.py", copy, "-o", linked, says=f"{linked} is the result file {copy} the table is read from")
    refused("h5_to_csv.py", copy, "-o", tmp / "x.H5", says="named like a result file or one of a run's side files")
    assert copy.read_bytes() == short_run.read_bytes()

    # compare_public_table.py: both arguments.
    public = tmp / "public.txt"
    public.write_text("1 1 1\n12 77 10\n60 966467 20106\n")
    refused("compare_public_table.py", GRUNDY, public, says=SAYS_GRUNDY)
    refused("compare_public_table.py", TABLE, public, says=f"{TABLE} is not an HDF5 file")
    refused("compare_public_table.py", missing, public, says=f"no result file at {missing}")
    refused("compare_public_table.py", RESULT, missing, says=f"no table at {missing}")
    refused("compare_public_table.py", RESULT, GRUNDY, says=f"{GRUNDY} is not a text table")
    refused("compare_public_table.py", truncated, public, says=f"error: {truncated}: ")
    refused("compare_public_table.py", tmp, public, says=f"error: {tmp} is a folder, not a result file")
    refused("compare_public_table.py", RESULT, tmp, says=f"error: {tmp} is a folder, not a table")
    refused("compare_public_table.py", THREE_D, public, says=f"{THREE_D} is a table of 3D Chomp")
    # A text file with no level line is not read as "no level in both" (exit 1, "they differ").
    prose = tmp / "prose.txt"
    prose.write_text("levels of Chomp\nn, p(n), L(n)\n")
    refused("compare_public_table.py", RESULT, prose, says=f"{prose} has no line \"n p(n) L(n)\"")
    beyond = tmp / "beyond.txt"
    beyond.write_text("171 1 1\n")
    refused("compare_public_table.py", RESULT, beyond, says="no level is in both")
    r = script("compare_public_table.py", RESULT, public)
    assert r.returncode == 0 and "levels 1, 12, 60 (3 in both): all agree" in r.stdout, r.stdout + r.stderr
    # A killed run's last row written in part (store_trailer 0, counts reading 0) is no level: not compared, and
    # not a difference; the run is said to be unfinished.
    import h5py
    killed = tmp / "killed.h5"
    killed.write_bytes(short_run.read_bytes())
    with h5py.File(killed, "r+") as f:
        f.attrs["complete"], f.attrs["status"] = 0, "running"
        for column in ("store_trailer", "losing", "losing_fraction", "hypothesis_ratio"):
            f["levels"][column][30] = 0
    public31 = tmp / "public31.txt"
    public31.write_text("12 77 10\n31 6842 241\n")
    r = script("compare_public_table.py", killed, public31)
    assert r.returncode == 0 and "levels 12 (1 in both): all agree" in r.stdout, r.stdout + r.stderr
    assert f"note: {killed} is a run that did not finish: only its finished levels, 1..30, were read" in r.stdout, \
        r.stdout

    # long_run_table.py reads through chomp show, which reads a grundy file too.
    refused("long_run_table.py", GRUNDY, "--chomp", CHOMP, says=SAYS_GRUNDY)
    refused("long_run_table.py", missing, "--chomp", CHOMP, says=f"no run file {missing}")
    refused("long_run_table.py", tmp, "--chomp", CHOMP, says=f"error: {tmp} is a folder, not a run file")
    # A file before format 3 records no window_seconds (show --csv leaves the column empty).
    refused("long_run_table.py", DATA / "levels-100.h5", "--chomp", CHOMP,
            says="records no window_seconds (a file before format 3")
    refused("long_run_table.py", RESULT, "--chomp", CHOMP, "--from", 171,
            says=f"error: --from 171: {RESULT} holds levels 1..170: give --from 170 or less")
    refused("long_run_table.py", RESULT, "--chomp", CHOMP, "--from", -5, says="error: --from -5: levels start at 1")
    r = script("long_run_table.py", RESULT, "--chomp", CHOMP, "--from", 1)
    assert r.returncode == 0 and r.stdout.startswith("| levels | positions |") and "| 1.." in r.stdout, \
        r.stdout + r.stderr
    # The committed table is a levels-only copy: no store, so its size is unknown ("-"), not 0.00 GiB.
    assert all(line.endswith("| - | - |") for line in r.stdout.splitlines()[2:] if line.startswith("| ")), r.stdout

    # readme_results.py: a data folder whose largest levels-N.csv is not a levels table.
    (tmp / "grundy").mkdir()
    (tmp / "grundy" / "levels-80.csv").write_text(
        subprocess.run([CHOMP, "show", str(GRUNDY), "--csv"], check=True, capture_output=True, text=True).stdout)
    refused("readme_results.py", ROOT / "README.md", tmp / "grundy", says="(no column losing)")
    refused("readme_results.py", missing, says=f"no README at {missing}")
    (tmp / "empty").mkdir()
    refused("readme_results.py", ROOT / "README.md", tmp / "empty", says=f"no committed table {tmp}/empty/levels-N.csv")
    # A committed row cut short; a binary file (a result file) or a folder given as the README.
    (tmp / "short").mkdir()
    (tmp / "short" / "levels-170.csv").write_text("tiles,positions,losing\n1,1\n")
    refused("readme_results.py", ROOT / "README.md", tmp / "short",
            says=f"{tmp}/short/levels-170.csv, line 2: 2 fields where the header has 3")
    refused("readme_results.py", RESULT, says=f"error: {RESULT} is not a text file, so not a README")
    # A table shorter than the checks (levels 1..60) is not said to hold levels beyond it, nor new ones.
    (tmp / "sixty").mkdir()
    rows = [line for line in TABLE.read_text().splitlines() if not line.startswith("#")]
    finished = "# format_version: 3; complete: 1; status: complete; levels 1..60\n"
    (tmp / "sixty" / "levels-60.csv").write_text(finished + "\n".join(rows[:61]) + "\n")
    (tmp / "sixty" / "README.md").write_text("<!-- results:begin -->\n<!-- results:end -->\n")
    (tmp / "sixty" / "reference").mkdir()
    (tmp / "sixty" / "reference" / "caribou_density.csv").write_bytes((DATA / "reference" / "caribou_density.csv").read_bytes())
    r = script("readme_results.py", "--update", tmp / "sixty" / "README.md", tmp / "sixty")
    assert r.returncode == 0, r.stderr
    said = (tmp / "sixty" / "README.md").read_text()
    assert ("Their p(n) and L(n) agree with the published table's\nlevels 20, 30, ..., 60 and with the independent "
            "table above on\n1..60.\n") in said, said
    assert "are new" not in said and "| 60 | 966,467 | 20,106 |" in said, said
    # The agreement it states is checked: a table whose L(20) differs from the published 42 is refused, the
    # README unchanged; so is the table of a run that did not finish.
    (tmp / "sixty" / "levels-60.csv").write_text(
        finished + "\n".join(rows[:20] + [rows[20].replace(",42,", ",43,", 1)] + rows[21:61]) + "\n")
    refused("readme_results.py", "--update", tmp / "sixty" / "README.md", tmp / "sixty",
            says="level 20: p(n) = 627, L(n) = 43, where the published table")
    assert (tmp / "sixty" / "README.md").read_text() == said
    (tmp / "sixty" / "levels-60.csv").write_text("# format_version: 3; complete: 0; status: interrupted; levels 1..60\n"
                                               + "\n".join(rows[:61]) + "\n")
    refused("readme_results.py", "--update", tmp / "sixty" / "README.md", tmp / "sixty",
            says="is the table of a run that did not finish (complete: 0)")
    (tmp / "sixty" / "levels-60.csv").write_text("\n".join(rows[:61]) + "\n")
    refused("readme_results.py", "--update", tmp / "sixty" / "README.md", tmp / "sixty",
            says="has no '# format_version: ...; complete: 1' line")
    assert (tmp / "sixty" / "README.md").read_text() == said
    refused("readme_results.py", tmp, says=f"error: {tmp} is a folder, not a README")
    # A README that cannot be written: one line, exit status 2 (1 says it differs), the README as it was.
    (tmp / "sixty" / "levels-60.csv").write_text(finished + "\n".join(rows[:61]) + "\n")
    (tmp / "sixty" / "README.md").write_text("<!-- results:begin -->\n<!-- results:end -->\n")
    refused("readme_results.py", "--update", tmp / "sixty" / "README.md", tmp / "sixty", file_limit=200,
            says=f"error: cannot write {tmp / 'sixty' / 'README.md'}: File too large (the README is as it was)")
    assert (tmp / "sixty" / "README.md").read_text() == "<!-- results:begin -->\n<!-- results:end -->\n"
    assert not list((tmp / "sixty").glob(".README.md*"))

    # readme_verdict.py: a paragraph that differs is an error, on stderr (exit status 1).
    (tmp / "VERDICT.md").write_text("Not the verdict.\n")
    r = script("readme_verdict.py", ROOT / "README.md", tmp / "VERDICT.md")
    assert r.returncode == 1 and r.stdout == "" and r.stderr.startswith("error: ") and "first difference" in r.stderr, \
        r.stdout + r.stderr
    refused("readme_verdict.py", ROOT / "README.md", missing, says=f"no file {missing}")
    refused("readme_verdict.py", RESULT, tmp / "VERDICT.md", says=f"error: {RESULT} is not a text file")
    refused("readme_verdict.py", ROOT / "README.md", RESULT, says=f"error: {RESULT} is not a text file")
    refused("readme_verdict.py", tmp, tmp / "VERDICT.md", says=f"error: {tmp} is a folder, not a file")
    # --update: an empty verdict is refused (it wiped the paragraph, "0 words", exit status 0); a README that
    # cannot be written is one line, exit status 2, the README as it was.
    readme = tmp / "README.md"
    readme.write_text("# A README\n<!-- verdict:begin -->\nThe old verdict.\n<!-- verdict:end -->\n")
    (tmp / "EMPTY.md").write_text("<!-- nothing -->\n")
    refused("readme_verdict.py", "--update", readme, tmp / "EMPTY.md", says=f"error: {tmp / 'EMPTY.md'} has no words")
    (tmp / "VERDICT.md").write_text("The new verdict, " + "at length " * 40 + "\n")
    refused("readme_verdict.py", "--update", readme, tmp / "VERDICT.md", file_limit=200,
            says=f"error: cannot write {readme}: File too large (the README is as it was)")
    assert readme.read_text() == "# A README\n<!-- verdict:begin -->\nThe old verdict.\n<!-- verdict:end -->\n"
    assert not list(tmp.glob(".README.md*"))
    r = script("readme_verdict.py", "--update", readme, tmp / "VERDICT.md")
    assert r.returncode == 0 and "wrote the verdict (83 words)" in r.stdout, r.stdout + r.stderr
    assert "at length at length" in readme.read_text() and readme.read_text().startswith("# A README\n")

    # The shell scripts a user runs with a number: no argument or a bad one is a usage line, exit
    # status 2, before any work (no argument used to be bash's own "line 44: 1: usage", exit 1).
    for name, args, says in [("regenerate_data.sh", [], "usage: experiments/regenerate_data.sh MAX_TILES"),
                             ("regenerate_data.sh", ["0"], "MAX_TILES must be a whole number of tiles, not '0'"),
                             ("promote_levels.sh", [], "usage: experiments/promote_levels.sh K [RUN.h5]"),
                             ("promote_levels.sh", ["x"], "K must be a level number, not 'x'"),
                             ("thread_scaling.sh", ["0"], "usage: "),
                             ("thread_scaling.sh", ["1", "2"], "usage: ")]:
        r = subprocess.run(["bash", str(ROOT / "experiments" / name), *args], capture_output=True, text=True,
                           cwd=tmp, env=dict(os.environ, CHOMP=CHOMP))
        assert r.returncode == 2 and r.stdout == "" and says in r.stderr and r.stderr.count("\n") == 1, \
            f"{name} {args}: rc {r.returncode}\n{r.stdout}{r.stderr}"
print("script_errors: ok")
