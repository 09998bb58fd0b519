#!/usr/bin/python3
"""Draw the README figure: the ratio r(n) = L(n) / (p(n) / ln p(n)) per level
with the conjectured limit 0.286 and the published rows, and beside it the best
model of each kind (limit 0, free limit, limit 0.286) fitted on every level and
fitted without the last levels (its out-of-sample prediction), as in
notebooks/density_hypothesis.ipynb (the same code draws both).

    /usr/bin/python3 experiments/make_figures.py [LEVELS.h5] [--output PNG]

LEVELS.h5 defaults to the committed data/levels-N.h5 with the largest N.  The
figure goes to out/<name of LEVELS>-hypothesis_ratio.png unless --output says
otherwise; the README's copy is written only when asked for by name
(--output data/hypothesis_ratio.png, as experiments/regenerate_data.sh does).
Run with Debian's /usr/bin/python3 (python3-h5py, python3-numpy,
python3-matplotlib); it refuses files of unfinished runs (exit status 2, with
one line `error: ...`, as for a file that is not a table of chomp sieve, a
missing or empty data/reference/caribou_density.csv, or a figure it cannot
write: it writes the figure whole or not at all).
"""

import argparse
import os
import sys
from pathlib import Path

from sieve_table import import_chomp_results  # beside this script
from write_whole import replace_whole  # beside this script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "notebooks"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("levels", nargs="?", type=Path, help="result file of chomp sieve "
                    "(default: the largest data/levels-N.h5)")
    ap.add_argument("-o", "--output", type=Path,
                    help="PNG to write (default: out/<name of LEVELS>-hypothesis_ratio.png)")
    args = ap.parse_args()
    # After the arguments, so that --help needs none of them.
    import matplotlib

    matplotlib.use("Agg")
    cp = import_chomp_results()
    import density_fits as fits

    if args.levels is not None and args.levels.is_dir():
        print(f"error: {args.levels} is a folder, not a result file (give its levels-N.h5)", file=sys.stderr)
        return 2
    path = args.levels
    try:
        path = args.levels or cp.default_levels_file()
        levels = cp.read_levels(path)
    except cp.IncompleteRunError as e:  # the figure is of a finished table
        print(f"error: {e.what}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as e:  # missing, not a table of chomp sieve
        # HDF5's own message for a truncated file does not name it.
        print(f"error: {e}" if path is None or str(path) in str(e) else f"error: {path}: {e}", file=sys.stderr)
        return 2
    if int(levels.attrs.get("dimensions", 2)) == 3:
        print(f"error: {path} is a table of 3D Chomp (root attribute dimensions = 3); this figure is of the 2D "
              "conjecture, against its published rows (notebooks/three_d.ipynb draws the 3D ratio)", file=sys.stderr)
        return 2
    output = args.output or ROOT / "out" / f"{levels.path.stem}-hypothesis_ratio.png"
    if not output.suffix and not output.is_dir():  # matplotlib adds .png: say the name it writes
        output = output.with_suffix(".png")
    if output.is_dir():
        print(f"error: --output {output} is a folder; give a file name (e.g. {output / 'ratio.png'})", file=sys.stderr)
        return 2
    if output.suffix.lower() not in (".png", ".pdf", ".svg"):
        print(f"error: --output {output}: give a name ending in .png, .pdf or .svg (the figure's format)",
              file=sys.stderr)
        return 2
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError, PermissionError) as e:
        print(f"error: cannot make the folder of --output {output}: {e.strerror or e} (give a path in a folder)",
              file=sys.stderr)
        return 2
    try:
        reference = cp.read_reference()
    except (OSError, ValueError) as e:  # missing or empty: the published rows are drawn
        print(f"error: {e}", file=sys.stderr)
        return 2
    fig = fits.figure_hypothesis(levels, reference)
    a = levels.attrs
    # no date in the metadata, so an unchanged figure stays byte-identical
    metadata = {"Source": f"{levels.path.name}, git {a.get('git_revision')}", "Software": None}
    try:  # whole or not at all: an earlier figure stays as it was
        replace_whole(output, lambda part: fig.savefig(part, format=output.suffix[1:].lower(), metadata=metadata))
    except OSError as e:
        print(f"error: cannot write {output}: {e.strerror or e} (an earlier figure there is as it was)",
              file=sys.stderr)
        return 2
    print(f"wrote {os.path.relpath(output)} from {levels.path.name} (levels 1..{levels.max_tiles})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
