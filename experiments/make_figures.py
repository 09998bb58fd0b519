#!/usr/bin/python3
"""Draw the README figure: the hypothesis ratio L(n) / (p(n) / ln p(n)) per
level, the conjectured limit 0.286, the published rows and the three fits of
notebooks/density_hypothesis.ipynb (the same code draws both).

    /usr/bin/python3 experiments/make_figures.py [LEVELS.h5] [-o data/hypothesis_ratio.png]

LEVELS.h5 defaults to the committed data/levels-N.h5 with the largest N.
Run with Debian's /usr/bin/python3 (python3-h5py, python3-numpy,
python3-matplotlib); it refuses files of unfinished runs.
"""

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "notebooks"))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import chomp_positions as cp  # noqa: E402
import density_fits as fits  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("levels", nargs="?", type=Path, help="result file of chomp sieve "
                    "(default: the largest data/levels-N.h5)")
    ap.add_argument("-o", "--output", type=Path, default=ROOT / "data" / "hypothesis_ratio.png",
                    help="PNG to write (default: data/hypothesis_ratio.png)")
    args = ap.parse_args()

    levels = cp.read_levels(args.levels or cp.default_levels_file())
    summaries = fits.summarize(levels)
    published = cp.read_reference()
    fig, (whole, zoom) = plt.subplots(1, 2, figsize=(12, 5), dpi=100,
                                      gridspec_kw={"width_ratios": (1, 1.35)})
    fits.plot_hypothesis_ratio(whole, levels, published, n_from=20)
    whole.set_title("every level from n = 20")
    fits.plot_hypothesis_ratio(zoom, levels, published, summaries, n_from=fits.FIT_CUT)
    zoom.set_title(f"n >= {fits.FIT_CUT}: three fits and where they lead")
    a = levels.attrs
    fig.suptitle("Losing Chomp positions: L(n) / (p(n) / ln p(n)) against the conjectured 0.286")
    fig.text(0.99, 0.005, f"data: {levels.path.name}, chomp {a.get('version')} (git {a.get('git_revision')})",
             ha="right", va="bottom", fontsize=7, color="0.4")
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    fig.savefig(args.output, metadata={"Source": f"{levels.path.name}, git {a.get('git_revision')}"})
    print(f"wrote {os.path.relpath(args.output)} from {levels.path.name} (levels 1..{levels.max_tiles})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
