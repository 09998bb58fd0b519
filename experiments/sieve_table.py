"""What the scripts of experiments/ share about a `chomp sieve` result file:
open_sieve_table(path), the one check they make before reading it (h5py
only, so that they run without the chomp_results package): the file, open
for reading, or an error that says what it is instead; and
import_chomp_results(), the package for the scripts that need it: the
installed one, else the checkout's python/ beside this folder.
"""
import importlib
import os
import sys

# The program's other files say what they are by their root attribute format.
OTHER_FORMATS = {"chomp-grundy": "`chomp grundy`", "chomp rectangles": "`chomp rectangles`"}


def open_sieve_table(path, columns=("tiles", "positions", "losing"), two_d=False) -> "h5py.File":
    """The result file at `path`, open read-only (`open_h5`: a live or
    killed run's file as a SWMR reader). IsADirectoryError, FileNotFoundError, OSError (a damaged file,
    named) or ValueError (not HDF5; a file of another command; no /levels
    with these columns; with two_d, a table of 3D Chomp) otherwise."""
    import h5py  # here, so that importing this module needs no h5py (--help)

    if os.path.isdir(path):
        raise IsADirectoryError(f"{path} is a folder, not a result file (give its levels-N.h5)")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no result file at {path}")
    if not h5py.is_hdf5(path):
        raise ValueError(f"{path} is not an HDF5 file, so not a chomp result file")
    try:
        f = open_h5(path)
    except OSError as e:  # a truncated or damaged file: HDF5's message does not name it
        raise OSError(f"{path}: {e}") from None
    try:  # a file that opens may still be damaged where these reads go (h5py: KeyError, RuntimeError, OSError)
        kind = f.attrs.get("format")
        table = "format_version" in f.attrs and all(f"levels/{c}" in f for c in columns)
        dimensions = int(f.attrs.get("dimensions", 2))
    except (KeyError, RuntimeError, OSError) as e:
        f.close()
        raise OSError(f"{path}: the file is damaged ({e})") from None
    if kind is not None:
        f.close()
        kind = kind.decode() if isinstance(kind, bytes) else str(kind)
        raise ValueError(f"{path} is not a table of `chomp sieve`: its root attribute format = "
                         f"\"{kind}\" marks a file of {OTHER_FORMATS.get(kind, 'another command')}")
    if not table:
        f.close()
        raise ValueError(f"{path} is not a chomp result file (no format_version attribute and /levels/"
                         f"{', '.join(columns)})")
    if two_d and dimensions == 3:
        f.close()
        raise ValueError(f"{path} is a table of 3D Chomp (root attribute dimensions = 3), whose levels count "
                         "cubes; this compares tables of 2D Chomp")
    return f


def open_h5(path) -> "h5py.File":
    """`path` open read-only with h5py: plainly, or, for a file a killed
    writer left marked, as a SWMR reader whose read attempts are bounded
    (chomp_results.open_h5, where the package is at hand: HDF5's own
    default retries a damaged file's checksums for ever); OSError otherwise."""
    import h5py

    try:
        opener = getattr(import_chomp_results(), "open_h5", None)  # (an older installed package has none)
    except SystemExit:
        opener = None
    if opener is not None:
        return opener(path)
    try:  # h5py's own SWMR open, its read attempts unbounded
        return h5py.File(path, "r")
    except OSError:
        return h5py.File(path, "r", swmr=True)


def import_chomp_results():
    """The chomp_results module: installed, or the checkout's own copy in
    python/ (so that a script runs from a checkout as it is); SystemExit with
    one `error:` line when neither is there."""
    try:
        return importlib.import_module("chomp_results")
    except ImportError:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
    try:
        return importlib.import_module("chomp_results")
    except ImportError:
        sys.exit("error: this script needs the chomp_results package (python/ of the checkout, or "
                 "pip install --no-index --no-build-isolation ./python in a venv made with "
                 "--system-site-packages)")
