#!/usr/bin/env python3
"""Copies a chomp sieve result file's table without its losing ranks.

Files of format 2 keep the losing ranks of every level under /resume (about
1 GB at n = 130); files of format 3 keep them in a store file beside them
(16 GB at n = 170). The per-level table and the provenance are all an
analysis needs. This writes /levels, /losing_positions (if any) and every root
attribute to a new file, unchanged, and marks it levels_only = 1.

Usage: /usr/bin/python3 experiments/h5_levels_only.py RUN.h5 OUT.h5
"""
import sys

import h5py


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    src, dst = sys.argv[1], sys.argv[2]
    with h5py.File(src, "r") as f, h5py.File(dst, "w-") as g:
        if int(f.attrs.get("complete", 0)) != 1:
            print(f"error: {src} is not a complete run (attribute complete != 1)", file=sys.stderr)
            return 1
        for name in ("levels", "losing_positions"):
            if name in f:
                f.copy(name, g)
        for key, value in f.attrs.items():
            g.attrs[key] = value
        g.attrs["levels_only"] = 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
