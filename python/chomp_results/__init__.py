"""Read `chomp sieve` result files in Python: the per-level table, its
provenance, and the stored losing positions.

Install (offline, next to Debian's python3-h5py and python3-numpy)::

    python3 -m venv --system-site-packages ~/chomp-venv
    ~/chomp-venv/bin/pip install --no-index --no-build-isolation ./python

The file layout is specified in doc/FILE_FORMAT.md; in short:

    /levels/tiles, positions, losing, losing_fraction, hypothesis_ratio,
            seconds, marks (and from format 3: window_seconds, slices,
            store_trailer, losing_digest)       one row per level n = 1..max_tiles
    /losing_positions/level_NNN                 uint64 lattice paths (--store-losing)
    root attributes                             provenance; complete == 1 once
                                                every level was written

A position is a staircase of rows, written as row lengths, top row first:
``(3, 1, 1)`` is::

    ###
    #
    #

Its *lattice path* is the boundary from the bottom-left corner to the top-right
corner, one bit per step starting at bit 0: 1 = a step north, 0 = a step east.
The highest set bit is the final north step.  Each north step closes a row
whose length is the number of east steps taken so far, bottom row first.
``(3, 1, 1)`` is east, north, north, east, east, north = 0b100110 = 38.

Typical use::

    import chomp_results as cr
    levels = cr.read_levels("levels-110.h5")       # refuses incomplete runs
    levels.tiles, levels.losing, levels.hypothesis_ratio   # numpy arrays (exact integers)
    cr.to_csv(levels, "levels-110.csv")            # the table with its provenance
    levels.to_dataframe()                           # a pandas DataFrame, if pandas is installed
    cr.read_losing_positions(path, 5)   # [(2, 2, 1), (3, 1, 1), (3, 2)] (file order)

A file whose writer was killed still carries HDF5's "open for SWMR writing"
mark, which plain ``h5py.File(path)`` refuses; this reader opens such files as
a SWMR reader.
"""

from __future__ import annotations

import csv
import operator
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__version__ = "0.2.0"

__all__ = [
    "GrundyTable",
    "IncompleteRunError",
    "Levels",
    "NotATableError",
    "Rectangles",
    "decode_path",
    "default_levels_file",
    "data_dir",
    "encode_rows",
    "levels_file",
    "open_h5",
    "partition_numbers",
    "plane_partition_numbers",
    "read_grundy",
    "read_levels",
    "read_losing_positions",
    "read_rectangles",
    "read_reference",
    "stored_levels",
    "to_csv",
    "transpose",
]

#: The file formats this reader understands (root attribute ``format_version``).
#: The columns below and /losing_positions are the same in all; version 2 adds
#: the /resume group (losing ranks for `chomp sieve --resume`), version 3 moves
#: the losing ranks to a store file beside the result file and adds columns
#: about it; neither is read here.
FORMAT_VERSIONS = (1, 2, 3)

#: Endings of the files of a run (the result file and those beside it), which
#: to_csv does not overwrite with a CSV.
RUN_FILE_SUFFIXES = (".h5", ".store", ".window", ".lock", ".partial")

#: The highest level whose losing positions a run stores (chomp sieve
#: --store-losing takes 0..63, kMaxStoredTiles in include/chomp/position.hpp).
MAX_STORED_LEVEL = 63

#: Columns of /levels, in the order the program writes them.
LEVEL_COLUMNS = ("tiles", "positions", "losing", "losing_fraction", "hypothesis_ratio",
                 "seconds", "marks")

#: Columns of /levels from format 3 on, read where the file has them (None in
#: Levels where it has not): the seconds of the pass that opened a level's
#: window, the slices it was finished in, and the digest of its losing ranks
#: (doc/FILE_FORMAT.md). A file with no digests (formats 1 and 2, a 3D file
#: written before 3D runs kept a store) has None for losing_digest.
RUN_COLUMNS = ("window_seconds", "slices", "losing_digest")

def data_dir() -> Path:
    """The folder of committed tables: $CHOMP_DATA_DIR if set; else the
    repository's data/ when this module is used from a checkout (python/../data);
    else the nearest data/ with a reference/ folder from the current folder up
    (an installed package used in the checkout's notebooks/ finds ../data);
    else ./data."""
    if value := os.environ.get("CHOMP_DATA_DIR"):
        return Path(value)
    checkout = Path(__file__).resolve().parent.parent.parent / "data"
    if (checkout / "reference").is_dir():
        return checkout
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / "data" / "reference").is_dir():
            return folder / "data"
    return Path("data")


class IncompleteRunError(RuntimeError):
    """The file is a result file, but its run did not finish (complete != 1).

    ``what`` says so and how to go on with the run (a command line), without
    the Python hint that ends the message; a script prints it with its own
    option for reading the finished levels."""

    def __init__(self, what: str, api_hint: str):
        super().__init__(f"{what}; {api_hint}")
        self.what = what


# --------------------------------------------------------------------------
# Positions and lattice paths
# --------------------------------------------------------------------------

def decode_path(word: int) -> tuple[int, ...]:
    """Row lengths, top row first, of the position whose lattice path is `word`.

    >>> decode_path(20), decode_path(26), decode_path(38)
    ((3, 2), (2, 2, 1), (3, 1, 1))
    """
    word = operator.index(word)  # an integer (numpy's too); not "38" or 2.9
    if word <= 0:
        raise ValueError(f"lattice path {word} has no north step")
    rows_bottom_first = []
    east = 0
    while word:
        if word & 1:
            if east == 0:
                raise ValueError("lattice path has a row of length 0 (north step before any east step)")
            rows_bottom_first.append(east)
        else:
            east += 1
        word >>= 1
    return tuple(reversed(rows_bottom_first))


def encode_rows(rows) -> int:
    """The lattice path of a staircase given as row lengths, top row first
    (the inverse of `decode_path`).

    >>> encode_rows((3, 1, 1))
    38
    """
    rows = _staircase(rows)
    word, bit, east = 0, 0, 0
    for length in reversed(rows):  # bottom row first
        bit += length - east       # east steps up to this row's length (bits stay 0)
        east = length
        word |= 1 << bit           # the north step that closes the row
        bit += 1
    return word


def _staircase(rows) -> tuple[int, ...]:
    """rows as a tuple of whole numbers; TypeError for a string (whose
    characters are not row lengths) or a non-integer, ValueError unless they
    are positive and non-increasing."""
    if isinstance(rows, (str, bytes)):
        raise TypeError(f"{rows!r} is a string: give the row lengths as numbers, e.g. (3, 1)")
    rows = tuple(operator.index(r) for r in rows)
    if not rows or rows[-1] <= 0 or any(a < b for a, b in zip(rows, rows[1:])):
        raise ValueError(f"{rows} is not a staircase (non-increasing positive row lengths)")
    return rows


def transpose(rows) -> tuple[int, ...]:
    """The position with rows and columns exchanged (keeps winning/losing
    status); () for the empty position. ValueError for row lengths that are
    not a staircase.

    >>> transpose((3, 1))
    (2, 1, 1)
    """
    if not isinstance(rows, (str, bytes)) and len(rows := tuple(rows)) == 0:
        return ()
    rows = _staircase(rows)
    return tuple(sum(1 for r in rows if r > j) for j in range(rows[0]))


def partition_numbers(n_max: int) -> list[int]:
    """p(0), ..., p(n_max) as exact integers (Euler's pentagonal recurrence).

    Independent of the sieve, so the notebooks can check the file's `positions`
    column and evaluate p(n) beyond the computed levels.
    """
    n_max = operator.index(n_max)
    if n_max < 0:
        raise ValueError(f"n_max = {n_max}: give a level of 0 or more")
    p = [1] + [0] * n_max
    for n in range(1, n_max + 1):
        total, k = 0, 1
        while True:
            g1 = k * (3 * k - 1) // 2
            if g1 > n:
                break
            sign = 1 if k % 2 else -1
            total += sign * p[n - g1]
            g2 = k * (3 * k + 1) // 2
            if g2 <= n:
                total += sign * p[n - g2]
            k += 1
        p[n] = total
    return p


def plane_partition_numbers(n_max: int) -> list[int]:
    """PL(0), ..., PL(n_max), the plane partitions of n (the 3D positions of n
    cubes), as exact integers: MacMahon's product prod_k (1 - q^k)^-k gives
    n PL(n) = sum_{k=1..n} sigma_2(k) PL(n - k), sigma_2(k) the sum of the
    squares of k's divisors.

    >>> plane_partition_numbers(8)
    [1, 1, 3, 6, 13, 24, 48, 86, 160]
    """
    n_max = operator.index(n_max)
    if n_max < 0:
        raise ValueError(f"n_max = {n_max}: give a level of 0 or more")
    sigma2 = [0] * (n_max + 1)
    for d in range(1, n_max + 1):
        for m in range(d, n_max + 1, d):
            sigma2[m] += d * d
    pl = [1] + [0] * n_max
    for n in range(1, n_max + 1):
        pl[n] = sum(sigma2[k] * pl[n - k] for k in range(1, n + 1)) // n
    return pl


# --------------------------------------------------------------------------
# Result files
# --------------------------------------------------------------------------

@dataclass
class Levels:
    """The per-level table of one result file, as numpy arrays (one entry per
    level, tiles = 1..max_tiles), plus the file's root attributes. Counts
    are exact unsigned integers (tiles and slices uint32; positions, losing
    and marks uint64): take ``.astype(numpy.int64)`` before subtracting
    (``numpy.diff``), as unsigned differences wrap."""

    path: Path
    tiles: np.ndarray
    positions: np.ndarray
    losing: np.ndarray
    losing_fraction: np.ndarray
    hypothesis_ratio: np.ndarray
    seconds: np.ndarray
    marks: np.ndarray
    attrs: dict = field(default_factory=dict)          # root attributes (provenance)
    descriptions: dict = field(default_factory=dict)   # column -> its `description` attribute
    window_seconds: np.ndarray | None = None           # RUN_COLUMNS: None where the file has no such column
    slices: np.ndarray | None = None
    losing_digest: np.ndarray | None = None            # uint64; compare with `chomp show --json`'s hex

    @property
    def columns(self) -> tuple:
        """The columns this table has: LEVEL_COLUMNS, then those of
        RUN_COLUMNS its file holds."""
        return LEVEL_COLUMNS + tuple(c for c in RUN_COLUMNS if getattr(self, c) is not None)

    def seconds_in_all(self) -> float:
        """The run's wall-clock seconds over its levels: each level's own
        `seconds` plus its windows' passes (`window_seconds`, where the file
        has them; the sum of `seconds` alone leaves the passes out)."""
        own = float(np.sum(self.seconds))
        return own + (float(np.sum(self.window_seconds)) if self.window_seconds is not None else 0.0)

    @property
    def max_tiles(self) -> int:
        """The last level the table holds; the run's own target is attrs["max_tiles"]."""
        return int(self.tiles[-1])

    @property
    def dimensions(self) -> int:
        """2 for Chomp's boards; 3 for a table of 3D Chomp, whose levels are
        cube counts and whose positions are the plane partitions (PL(n))."""
        return int(self.attrs.get("dimensions", 2))

    def row(self, n: int) -> int:
        """Index of level n in the arrays; IndexError for a level the table
        does not hold."""
        n = operator.index(n)  # a level is a whole number: TypeError for 2.5
        first, last = int(self.tiles[0]), int(self.tiles[-1])
        if not first <= int(n) <= last:
            raise IndexError(f"level {n} is not in {self.path.name}: it holds levels {first}..{last}")
        return int(n) - first

    def to_dataframe(self):
        """The table as a pandas DataFrame indexed by tiles (needs pandas:
        Debian's python3-pandas); the root attributes are in ``df.attrs``."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("Levels.to_dataframe needs pandas (apt-get install python3-pandas); "
                              "the numpy arrays of Levels need nothing more") from e
        df = pd.DataFrame({c: getattr(self, c) for c in self.columns}).set_index("tiles")
        df.attrs = dict(self.attrs)
        return df

    def provenance(self) -> str:
        """A few lines saying which program, revision and command made the file."""
        a = self.attrs
        return "\n".join([
            f"file:          {self.path.name}",
            f"program:       {a.get('program', '?')} {a.get('version', '?')} "
            f"(git {a.get('git_revision', '?')}, {a.get('build_type', '?')}, {a.get('compiler', '?')})",
            f"command line:  {a.get('command_line', '?')}",
            # A resumed run: git_revision is its latest leg's; the first leg's and every resume say the rest.
            *([f"first leg:     git {a['first_git_revision']}"]
              if a.get("first_git_revision") and a.get("first_git_revision") != a.get("git_revision") else []),
            *[f"resumed:       {line}" for line in str(a.get("resume_history") or "").splitlines() if line],
            f"run:           {a.get('start_utc', '?')} .. {a.get('end_utc', '?')} on {a.get('host', '?')}, "
            f"{a.get('threads', '?')} threads; status {a.get('status', '?')}",
            f"libraries:     HDF5 {a.get('hdf5_version', '?')}, oneTBB {a.get('tbb_version', '?')}",
            # A 3D table, and a snapshot of levels of a longer run, say so: the command line is the run's.
            *([f"dimensions:    {a['dimensions']} (positions are plane partitions)"]
              if a.get("dimensions", 2) != 2 else []),
            *([f"snapshot:      {a['snapshot_of_run']}"] if a.get("snapshot_of_run") else []),
            *([f"edits:         {a['edits']}"] if a.get("edits") else []),
        ])


def _attr(value):
    """HDF5 attribute -> plain Python value (strings decoded, scalars unwrapped)."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.generic):
        return value.item()
    return value


#: Read attempts of checksummed metadata for a SWMR reader, as the program's
#: own reader bounds them (src/h5_util.cpp): HDF5 sleeps between attempts,
#: doubling from a nanosecond, so 28 wait 0.3 s at most; its default, 100,
#: waits for ever on a damaged file.
_SWMR_READ_ATTEMPTS = 28


def _hdf5_library():
    """The HDF5 C library this process's h5py uses (for the one setting h5py
    does not wrap), or None where it cannot be found: through h5py's own
    extension module, whose dependencies a symbol lookup searches, else the
    library file mapped into this process."""
    import ctypes

    import h5py

    try:
        lib = ctypes.CDLL(h5py.h5p.__file__)
        if hasattr(lib, "H5Pset_metadata_read_attempts"):
            return lib
    except (OSError, AttributeError):
        pass
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                lib = line.split()[-1]
                name = os.path.basename(lib)
                if re.match(r"libhdf5([-_.][^/]*)?\.so", name) and "hl" not in name and "cpp" not in name:
                    found = ctypes.CDLL(lib)
                    if hasattr(found, "H5Pset_metadata_read_attempts"):
                        return found
    except OSError:
        pass
    return None


def _open_swmr(path):
    """`path` opened as a SWMR reader, its metadata read attempts bounded
    (_SWMR_READ_ATTEMPTS) where the HDF5 library can be reached, so that a
    damaged file fails in a moment instead of HDF5 retrying for ever."""
    import ctypes

    import h5py

    lib = _hdf5_library()
    if lib is None or not hasattr(lib, "H5Pset_metadata_read_attempts"):
        return h5py.File(path, "r", swmr=True)
    fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
    fapl.set_fclose_degree(h5py.h5f.CLOSE_STRONG)  # as h5py.File's own: closing the file closes its objects
    bound = lib.H5Pset_metadata_read_attempts
    bound.argtypes, bound.restype = [ctypes.c_int64, ctypes.c_uint], ctypes.c_int
    if bound(fapl.id, _SWMR_READ_ATTEMPTS) < 0:
        return h5py.File(path, "r", swmr=True)
    return h5py.File(h5py.h5f.open(os.fsencode(path), h5py.h5f.ACC_RDONLY | h5py.h5f.ACC_SWMR_READ, fapl=fapl))


def open_h5(path):
    """A result file opened read-only with h5py, as this package reads it: a
    file whose writer was killed still carries HDF5's "open for writing"
    mark and opens only as a SWMR reader (with HDF5's read attempts bounded,
    so a damaged file fails at once). FileNotFoundError for no file,
    IsADirectoryError for a folder, ValueError for a file that is not HDF5
    (NotATableError), PermissionError for one this user may not read,
    BlockingIOError (an OSError) for one another program holds open for
    writing without SWMR (read_levels turns it into a ValueError), OSError
    for a damaged or truncated one."""
    import h5py  # imported here so the path helpers work without h5py

    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder, not a result file (give its levels-N.h5)")
    if not path.is_file():
        raise FileNotFoundError(f"no result file at {path}")
    try:
        return h5py.File(path, "r")
    except OSError:
        try:
            return _open_swmr(path)
        except OSError:
            try:
                hdf5 = h5py.is_hdf5(path)
            except OSError as e:  # it cannot be read at all
                raise _unreadable(path, e) from None
            if not hdf5:  # a CSV, say; a truncated HDF5 file keeps its OSError
                if path.suffix.lower() in (".store", ".window"):
                    raise NotATableError(f"{path} is not an HDF5 file but a run's {path.suffix[1:]} file: the "
                                         f"result file is the .h5 beside it ({path.with_suffix('.h5').name})") from None
                raise NotATableError(f"{path} is not an HDF5 file, so not a chomp result file") from None
            raise


_open = open_h5


# A read of a file that may be changing under it is made again when it
# fails, as the program's own reader does (src/config.hpp, kLiveReadAttempts):
# a live writer rewrites attributes as a run ends, and HDF5 does not order
# those writes for readers; and a file being closed reads as truncated for a
# moment. Other failures are reported at once.
_LIVE_READ_ATTEMPTS = 8
# The first level whose marks are at least 1 however a run counts them
# (src/config.hpp, kMarkedFromLevel): marks 0 there is damage.
_MARKED_FROM = 10
_LIVE_READ_FIRST_PAUSE = 0.01  # seconds, doubling: 1.27 s in all


def _said(e: BaseException) -> str:
    """The messages of this error and of those it followed (_open tries a
    plain open, then a SWMR one), joined."""
    said = []
    while e is not None:
        said.append(str(e))
        e = e.__context__
    return " ".join(said)


def _truncated(e: BaseException) -> bool:
    """Whether HDF5 called the file truncated, in this error or one it followed."""
    return "truncated file" in _said(e)


def _read_settled(path, read):
    """read(f) of the open file, made again from the start when it fails
    while the file may be changing under it."""
    import time

    import h5py

    pause = _LIVE_READ_FIRST_PAUSE
    for attempt in range(1, _LIVE_READ_ATTEMPTS + 1):
        live = False
        try:
            with _open(path) as f:
                # (from the file's intent: h5py 2.x wraps a low-level file without its swmr_mode)
                live = bool(f.id.get_intent() & h5py.h5f.ACC_SWMR_READ)
                return read(f)
        except (FileNotFoundError, IsADirectoryError):
            raise
        except NotATableError:  # the readers' own refusal: final unless a live writer may be mid-update
            if not live or attempt == _LIVE_READ_ATTEMPTS:
                raise
        # h5py raises OSError, KeyError, ValueError or RuntimeError by HDF5's error code.
        except (OSError, KeyError, ValueError, RuntimeError) as e:
            if not (live or (isinstance(e, OSError) and _truncated(e))) or attempt == _LIVE_READ_ATTEMPTS:
                error = _unreadable(path, e)
                raise error from (None if error is e else e)
        time.sleep(pause)
        pause *= 2


class NotATableError(ValueError):
    """The file was read and is not what the caller asked for (raised by the
    readers themselves; read again only while a live writer may be
    rewriting its attributes)."""


def _unreadable(path, e: BaseException) -> BaseException:
    """The error that an HDF5 failure while reading `path` stands for, saying
    what to do: a file cut short or damaged (ValueError), one this user may
    not read (PermissionError), one another program holds open for writing
    (ValueError); a file that opened but lacks an object the program always
    writes is not a result file."""
    if isinstance(e, ValueError) and "is not an HDF5 file" in str(e):
        return e
    if isinstance(e, KeyError) and "doesn't exist" in str(e):
        return ValueError(f"{path} is not a chomp result file: it lacks an object every result file has ({e})")
    first, said = str(e), _said(e)
    if "Permission denied" in said or "[Errno 13]" in said or "[Errno 1]" in said:
        return PermissionError(f"{path} cannot be read: permission denied (give this user read access to it)")
    if "unable to lock file" in said:
        return ValueError(f"{path} cannot be read: another program holds it open for writing (HDF5's file lock); "
                          "read it once that program has closed it")
    what = "truncated" if "truncated file" in said else "damaged"
    return ValueError(f"{path} cannot be read: the file is {what} (HDF5: {first}). Copy it "
                      "again from where it was made, or make it again; `chomp verify FILE` checks a result file "
                      "that opens")


#: Root attribute ``format`` of the program's other files -> the command that
#: writes them (a `chomp sieve` table has no such attribute).
OTHER_FORMATS = {"chomp-grundy": "chomp grundy", "chomp rectangles": "chomp rectangles"}


def _refuse_other_kind(f, path) -> None:
    """ValueError for a file of another command (its root attribute format)."""
    if "format" in f.attrs:
        fmt = _attr(f.attrs["format"])
        kind = OTHER_FORMATS.get(fmt)
        raise NotATableError(f"{path} is not a table of `chomp sieve`: its root attribute format = "
                             f"\"{fmt}\" marks a file of " + (f"`{kind}`" if kind else "another command") +
                             " (" + {"chomp-grundy": "read_grundy reads it, `chomp show` prints it; ",
                                     "chomp rectangles": "read_rectangles reads it; "}.get(fmt, "") +
                             "doc/FILE_FORMAT.md says what it holds)")


def _check_table(f, path) -> dict:
    """The root attributes of a `chomp sieve` table; ValueError for any other file."""
    attrs = {k: _attr(v) for k, v in f.attrs.items()}
    _refuse_other_kind(f, path)
    if attrs.get("format_version") in FORMAT_VERSIONS and "levels" not in f:
        raise NotATableError(f"{path} is not a chomp result file: it has no /levels group")
    if attrs.get("format_version") not in FORMAT_VERSIONS:
        raise NotATableError(f"{path} is not a chomp result file of format version "
                         f"{' or '.join(map(str, FORMAT_VERSIONS))} "
                         f"(format_version = {attrs.get('format_version')!r})")
    if missing := [c for c in LEVEL_COLUMNS if c not in f["levels"]]:
        raise NotATableError(f"{path} is not a chomp result file: /levels has no {', '.join(missing)}")
    if attrs.get("dimensions", 2) not in (2, 3):
        raise NotATableError(f"{path}: its root attribute dimensions = {attrs.get('dimensions')!r}, which no chomp "
                             "result file has (2 or 3): a damaged file; use an undamaged copy, or compute the levels "
                             "again with chomp sieve")
    # The statuses the writer makes (doc/FILE_FORMAT.md); files before format 3 may lack one.
    if attrs.get("format_version", 0) >= 3 and attrs.get("status") not in ("complete", "interrupted", "failed",
                                                                           "running"):
        raise NotATableError(f"{path}: its status {attrs.get('status')!r} is none of complete, interrupted, failed or "
                             "running: a damaged file; use an undamaged copy, or compute the levels again with "
                             "chomp sieve")
    return attrs


_DAMAGED_INDEX = "a damaged chunk index; use an undamaged copy, or compute the levels again with chomp sieve"


def _chunks_present(d, where: str, name: str, places: dict):
    """Which of the chunks that the 1-D dataset `d`'s rows need its chunk
    index holds (a list of bools), None for a dataset that is not chunked;
    NotATableError (naming `where`) for an index entry between chunks, a
    chunk named twice, or a chunk at a place in the file that `places` (place
    -> (dataset name, row), filled as it goes) already holds."""
    if d.chunks is None or not hasattr(d.id, "get_num_chunks"):  # contiguous or compact; or HDF5 before 1.10.5
        return None
    rows, chunk = d.shape[0], d.chunks[0]
    needed = -(-rows // chunk)
    present = [False] * needed
    for i in range(d.id.get_num_chunks()):
        info = d.id.get_chunk_info(i)
        if info.byte_offset is None:  # an index entry that points nowhere: a chunk missing
            continue
        offset = info.chunk_offset[0]
        if offset % chunk:
            raise NotATableError(f"{where}: its chunk index names a chunk at row {offset + 1}, between chunks: "
                                 f"{_DAMAGED_INDEX}")
        if offset // chunk < needed:
            if present[offset // chunk]:
                raise NotATableError(f"{where}: its chunk index names the chunk of the rows from row {offset + 1} "
                                     f"twice: {_DAMAGED_INDEX}")
            present[offset // chunk] = True
        if info.byte_offset in places:
            other, row = places[info.byte_offset]
            raise NotATableError(f"{where}: two chunks share one place in the file (its rows from row {offset + 1} "
                                 f"and {other}'s from row {row + 1}): {_DAMAGED_INDEX}")
        places[info.byte_offset] = name, offset
    return present


def _column_lengths(f, attrs: dict, path) -> dict:
    """The rows each /levels dataset holds, checked against its chunk index
    (NotATableError for a damaged one, whose rows would silently read as 0
    or as another row's values): no two chunks of /levels at one place in the
    file, no chunk index entry between chunks, and every chunk its rows need
    present. A chunk missing at the end shortens its column in a file whose
    run did not finish (a row a killed writer never wrote); anywhere else,
    or in a complete file, it is damage. Chunks beyond the rows are those a
    live writer files before it extends the dataset: not read."""
    places, lengths = {}, {}
    for name, d in f["levels"].items():
        if getattr(d, "ndim", 0) < 1:
            continue
        rows = d.shape[0]
        lengths[name] = rows
        present = _chunks_present(d, f"{path}: /levels/{name}", f"/levels/{name}", places)
        if present is None:
            continue
        where, chunk = f"{path}: /levels/{name}", d.chunks[0]
        if False in present:
            gap = present.index(False)
            # Only an unfinished run's last row may lack its data (a write that failed part way), as
            # the program's reader has it.
            if True in present[gap:] or attrs.get("complete") == 1 or gap * chunk + 1 < rows:
                raise NotATableError(f"{where}: its chunk of the rows from row {gap * chunk + 1} is missing from its chunk index"
                                     + (" while later rows have theirs" if True in present[gap:] else
                                        " in a complete file" if attrs.get("complete") == 1 else
                                        ", and more rows than an unfinished run's last one lack theirs")
                                     + f" (such rows would read as 0): {_DAMAGED_INDEX}")
            lengths[name] = gap * chunk
    return lengths


def _first_leg_options(attrs: dict) -> str:
    """For a resume hint: the run's command line, whose options (--threads, --memory-limit, ...) the resume
    may want again (the program's own message lists them; a file knows only the first leg's command)."""
    line = str(attrs.get("command_line") or "").strip()
    return f", with the options of its first leg's command line as needed (`{line}`)" if line else ""


def read_levels(path, require_complete: bool = True) -> Levels:
    """Open a `chomp sieve` result file and return its level table.

    Raises FileNotFoundError if the file is missing, ValueError if it is not a
    result file of a known format version (not HDF5, or a file of another
    command such as `chomp grundy`, named by its root attribute ``format``),
    its levels are not 1, 2, ..., or it holds no finished level yet (a run
    just started, or stopped or killed before its first level), and
    IncompleteRunError if `require_complete` and the run did
    not finish. A file that a run is still writing reads whole: its finished
    levels.
    """
    path = Path(path)

    def read(f):
        attrs = _check_table(f, path)
        # The digests of a file that has none read 0 (a 3D file written
        # before 3D runs kept a store): left out, as `chomp show --json` does.
        digests = int(attrs.get("format_version", 0)) >= 3 and (
            int(attrs.get("dimensions", 2)) == 2 or bool(attrs.get("store_file")))
        names = LEVEL_COLUMNS + tuple(c for c in RUN_COLUMNS if c in f["levels"] and (c != "losing_digest" or digests))
        # Every column's length (a killed writer may leave a row in some of
        # them only; a chunk it never wrote shortens its column), and the
        # store's trailers (a row written in part).
        rows = _column_lengths(f, attrs, path)
        cols = {c: f["levels"][c][:rows[c]] for c in names}
        descriptions = {c: _attr(f["levels"][c].attrs.get("description", "")) for c in names}
        lengths = list(rows.values())
        trailers = f["levels"]["store_trailer"][:rows["store_trailer"]] if "store_trailer" in rows else None
        # Checked here, inside the reads made again while a live writer may be mid-update.
        finished = _finished_rows(attrs, [len(v) for v in cols.values()] + lengths, trailers)
        _check_rows_hold_levels(cols, trailers, attrs, finished, path)
        _check_derived(cols, finished, path)
        return attrs, cols, descriptions, lengths, trailers

    attrs, cols, descriptions, lengths, trailers = _read_settled(path, read)
    if require_complete and attrs.get("complete") != 1:
        status = attrs.get("status")
        resume = "`chomp sieve" + (" --dimensions 3" if int(attrs.get("dimensions", 2)) == 3 else "") + \
            f" --resume --output {path}`" + _first_leg_options(attrs)
        todo = ("it is still being written, or its writer was killed: wait for it to finish, or "
                f"continue a killed run with {resume}" if status == "running" else f"continue it with {resume}")
        raise IncompleteRunError(f"{path}: the run did not finish (complete = {attrs.get('complete')!r}, "
                                 f"status = {status!r}): {todo}",
                                 "read_levels(path, require_complete=False) reads its finished levels")
    rows = _finished_rows(attrs, [len(v) for v in cols.values()] + lengths, trailers)
    levels = Levels(path=path, attrs=attrs, descriptions=descriptions,
                    **{c: v[:rows] for c, v in cols.items()})
    if len(levels.tiles) == 0 and attrs.get("complete") != 1:
        status = attrs.get("status")
        why = ("the run has just started (read it again once it has written its first level) or was killed before"
               if status == "running" else "the run was stopped before its first level finished")
        raise ValueError(f"{path}: no level finished yet (status = {status!r}): {why}")
    if len(levels.tiles) == 0 or not np.array_equal(levels.tiles, np.arange(1, len(levels.tiles) + 1)):
        raise ValueError(f"{path}: levels are not 1, 2, ..., n")
    if require_complete and levels.max_tiles != attrs.get("max_tiles"):
        raise ValueError(f"{path}: {levels.max_tiles} levels but max_tiles = {attrs.get('max_tiles')}")
    return levels


def _check_rows_hold_levels(cols: dict, trailers, attrs: dict, rows: int, path) -> None:
    """NotATableError for the first of the `rows` finished rows that holds a
    value no finished level of such a file holds, as `chomp show` checks (a
    damaged chunk index can put one there with a checksum that holds): a row
    for another level than its place, 0 slices, a store trailer of 0 (a file
    with a store), a losing digest of 0 for a level with losing positions,
    marks of 0 for a level from _MARKED_FROM on."""
    stored = bool(attrs.get("store_file")) and "run_id" in attrs  # as the program's LevelFileReader::has_store
    L = cols["losing"][:rows]
    checks = [(cols["tiles"][:rows] != np.arange(1, rows + 1),
               lambda i: f"is for level {int(cols['tiles'][i])}, not {i + 1} (the levels are 1, 2, ...)")]
    if "slices" in cols:
        checks.append((cols["slices"][:rows] == 0, lambda i: "says the level was finished in 0 slices (one at least)"))
    if stored and trailers is not None:
        checks.append((trailers[:rows] == 0,
                       lambda i: "has store_trailer 0, which only a row written in part has, and only the last"))
    if "losing_digest" in cols:
        checks.append(((cols["losing_digest"][:rows] == 0) & (L > 0),
                       lambda i: f"has losing_digest 0 for {int(L[i])} losing positions"))
    if "marks" in cols:
        checks.append(((cols["marks"][:rows] == 0) & (np.arange(1, rows + 1) >= _MARKED_FROM),
                       lambda i: f"has marks 0, which no level from {_MARKED_FROM} on has (each has moves to "
                                 "losing positions to count)"))
    bad = [(int(np.nonzero(wrong)[0][0]), say) for wrong, say in checks if wrong.any()]
    if bad:
        i, say = min(bad, key=lambda b: b[0])
        raise NotATableError(f"{path}: row {i + 1} of /levels {say(i)} (a damaged file: use an undamaged copy, or "
                             "compute the levels again with chomp sieve)")


def _check_derived(cols: dict, rows: int, path) -> None:
    """NotATableError (a ValueError) for the first of the `rows` levels of the
    /levels columns `cols` with more losing positions than positions, or whose
    losing fraction L/p or ratio L / (p / ln p) is not what its counts give (in
    that order within a level, as `chomp show` checks). The writer computes
    both from L and p, so they never differ; a file whose values were
    rewritten through HDF5 (which keeps its checksums whole) would otherwise
    show a wrong ratio in a table that looks complete."""
    positions, losing = cols["positions"][:rows], cols["losing"][:rows]
    p, L = positions.astype(np.float64), losing.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p = np.log(p)
        want = {"losing_fraction": np.where(p > 0, L / p, 0.0),
                "hypothesis_ratio": np.where(log_p == 0, np.nan, L / (p / log_p))}
    got = {name: np.asarray(cols[name][:rows], dtype=np.float64) for name in want}
    # Equal to the bit as this package computes them; the tolerance spares another libm's last digit.
    wrong = {name: ~(np.isclose(got[name], w, rtol=1e-12, atol=0) | (np.isnan(got[name]) & np.isnan(w)))
             for name, w in want.items()}
    more = losing > positions
    bad = np.nonzero(more | wrong["losing_fraction"] | wrong["hypothesis_ratio"])[0]
    if not bad.size:
        return
    i = int(bad[0])
    what = (f"has more losing positions ({int(losing[i])}) than positions ({int(positions[i])})"
            if more[i] else next(f"{name} = {float(got[name][i])!r} disagrees with L = {int(losing[i])}, "
                                 f"p = {int(positions[i])}, which give {float(want[name][i])!r}"
                                 for name in want if wrong[name][i]))
    raise NotATableError(f"{path}: level {i + 1}: {what}: one of them is wrong (a damaged or edited file; where the "
                     "run's store is kept, `chomp verify` tells which; else use an undamaged copy, or compute "
                     "the levels again with chomp sieve)")


def to_csv(levels: Levels, out, source: str = "chomp_results.to_csv") -> None:
    """Writes the table as CSV to a path or an open text file.

    A path is written through a temporary file beside it, put in its place
    once whole: an error (OSError) leaves no partial CSV, and an earlier one
    as it was. ValueError for a path that is the result file itself or is
    named like a run's file (RUN_FILE_SUFFIXES).

    The CSV starts with ``#`` lines that carry the file's provenance (program,
    revision, command line, run dates, host, build, libraries, what each column
    means), then a header row and one row per level, integers exact and floats
    in shortest round-trip form (hypothesis_ratio is ``nan`` for n = 1, where
    ln p(1) = 0). The columns are LEVEL_COLUMNS, then those of RUN_COLUMNS the
    file has (format 3): window_seconds, slices, and losing_digest in 16 hex
    digits, as `chomp show --json` writes it. Read it back with, e.g.::

        numpy.genfromtxt((l for l in open(path) if not l.startswith("#")),
                         delimiter=",", names=True, dtype=None)
    """
    import io

    if not isinstance(levels, Levels):
        raise TypeError(f"to_csv takes the Levels that read_levels returns, not {type(levels).__name__}: "
                        "to_csv(read_levels(path), out)")
    a = levels.attrs
    header = [
        f"chomp sieve per-level table, exported from {levels.path.name} by {source}",
        f"program: {a.get('program')} {a.get('version')}",
        f"git_revision: {a.get('git_revision')}",
        f"command_line: {a.get('command_line')}",
        # A resumed run: git_revision is its latest leg's; the first leg's and each resume (one line each).
        *([f"first_git_revision: {a.get('first_git_revision')}"]
          if a.get("first_git_revision") and a.get("first_git_revision") != a.get("git_revision") else []),
        *([f"resume_history: {a.get('resume_history')}"] if a.get("resume_history") else []),
        f"run: {a.get('start_utc')} .. {a.get('end_utc')} on host {a.get('host')}, {a.get('threads')} threads",
        f"build: {a.get('build_type')}, {a.get('compiler')}; HDF5 {a.get('hdf5_version')}; "
        f"oneTBB {a.get('tbb_version')}",
        f"format_version: {a.get('format_version')}; complete: {a.get('complete')}; status: {a.get('status')}; "
        f"levels 1..{levels.max_tiles}",
        *([f"snapshot_of_run: {a.get('snapshot_of_run')}"] if a.get("snapshot_of_run") else []),
        # Values changed by hand after the run, where any were (root attribute edits).
        *([f"edits: {a.get('edits')}"] if a.get("edits") else []),
        # Whether the marks count every move examined ("none") or leave out
        # the moves of the first rows, inferred from bits (scripts check it).
        *([f"inferred_marks: {a.get('inferred_marks')}"] if a.get("inferred_marks") else []),
        *([f"dimensions: {int(a.get('dimensions'))} (3D Chomp by cube count: tiles = cubes n, positions = PL(n), "
           "the plane partitions of n; marks = moves examined; doc/THREE_D.md)"]
          if int(a.get("dimensions", 2)) == 3 else []),
        "columns:",
        *(f"  {c}: {levels.descriptions.get(c, '')}" + (" (16 hex digits)" if c == "losing_digest" else "")
          for c in levels.columns),
    ]
    own = isinstance(out, (str, os.PathLike))
    if not own and (not hasattr(out, "write") or isinstance(out, (io.RawIOBase, io.BufferedIOBase))
                    or "b" in getattr(out, "mode", "")):
        raise TypeError(f"to_csv writes text: give a path or a file open for text, not {type(out).__name__}")

    def write(fh):
        # An attribute of several lines (resume_history, edits) stays in # lines.
        fh.writelines("# " + "\n#   ".join(line.splitlines() or [""]) + "\n" for line in header)
        columns = levels.columns
        text = {"losing_fraction": lambda v: repr(float(v)), "hypothesis_ratio": lambda v: repr(float(v)),
                "seconds": lambda v: repr(float(v)), "window_seconds": lambda v: repr(float(v)),
                "losing_digest": lambda v: format(int(v), "016x")}
        fh.write(",".join(columns) + "\n")
        for i in range(len(levels.tiles)):
            fh.write(",".join(text.get(c, lambda v: str(int(v)))(getattr(levels, c)[i]) for c in columns) + "\n")

    if not own:
        write(out)
        return
    out = Path(out)
    if out.resolve() == Path(levels.path).resolve() or (out.exists() and Path(levels.path).exists()
                                                        and os.path.samefile(out, levels.path)):
        raise ValueError(f"{out} is the result file {levels.path} the table is read from: give another name "
                         "for the CSV")
    if out.suffix.lower() in RUN_FILE_SUFFIXES:
        raise ValueError(f"{out} is named like a run's file ({out.suffix}), not a CSV: give a name ending in .csv")
    # The CSV's own name in the errors, not the temporary file's beside it.
    if out.is_dir():
        raise IsADirectoryError(f"{out} is a folder: give a file name for the CSV, such as {out / 'levels.csv'}")
    if not out.parent.is_dir():
        raise FileNotFoundError(f"the folder of {out} does not exist: make it first, or give another name for the CSV")
    # Written beside it under a name of its own, then put in its place: an
    # error leaves no partial CSV, and an earlier one whole.
    import tempfile

    try:
        fd, part = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    except OSError as e:
        raise OSError(e.errno, f"cannot write {out}: {e.strerror} (in its folder {out.parent})") from None
    try:
        with open(fd, "w", newline="\n") as fh:
            write(fh)
        os.chmod(part, 0o666 & ~_umask())
        os.replace(part, out)
    except BaseException:
        Path(part).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process's umask (mkstemp makes its file 0600; the CSV it becomes
    gets the mode a file opened for writing would have). Read from
    /proc/self/status where Linux gives it: setting the umask to read it
    back would, for that moment, give files another thread makes mode 0666."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _finished_rows(attrs: dict, lengths: list, trailers) -> int:
    """How many rows of /levels are finished levels. A killed writer may leave
    a row in only some of the datasets (`lengths`, each one's): full rows
    only. And a last row whose write failed part way (a full disk, a file size
    limit) reads with store_trailer 0, which no finished level has: it is no
    level (`chomp sieve --resume` computes it again)."""
    rows = min(lengths)
    if (trailers is not None and rows > 0 and attrs.get("complete") != 1
            and int(attrs.get("format_version", 0)) >= 3 and trailers[rows - 1] == 0):
        rows -= 1
    return rows


def stored_levels(path) -> list[int]:
    """The finished levels whose losing positions the file stores
    (--store-losing); ValueError for a file of another command."""
    def read(f):
        attrs = _check_table(f, path)
        rows = _column_lengths(f, attrs, path)
        if "losing_positions" not in f:
            return []
        finished = _finished_rows(attrs, list(rows.values()),
                                  f["levels"]["store_trailer"][:rows["store_trailer"]] if "store_trailer" in rows else None)
        # Each level looked up by name, not the group's links iterated: HDF5 1.10 crashed the interpreter
        # (SIGSEGV) iterating a group whose metadata a flipped bit had damaged, where a lookup raises.
        group = f["losing_positions"]
        try:
            kept = min(finished, MAX_STORED_LEVEL, int(attrs.get("store_losing", MAX_STORED_LEVEL)))
            return [n for n in range(1, kept + 1)
                    if f"level_{n:03d}" in group]
        except (RuntimeError, OSError, KeyError) as e:
            raise ValueError(f"{path}: its /losing_positions group cannot be read ({e}): the file is damaged") from e

    return _read_settled(path, read)


def read_losing_positions(path, n: int) -> list[tuple[int, ...]]:
    """The losing positions with n tiles, as row-length tuples in file order.

    Raises KeyError if the file does not store level n (or its run has not
    finished it yet), ValueError for a level below 1 or a file of another
    command. It reads the positions
    only: read_levels checks the table's counts against their fraction and
    ratio (a file that fails that check is damaged or edited, and its
    positions deserve no more trust)."""
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"level {n}: levels start at 1 tile")
    if int(n) not in stored_levels(path):
        # A levels-only copy keeps the positions its run stored, up to the
        # level it was copied through: of the committed tables, none.
        attrs = _read_settled(path, lambda f: {k: _attr(f.attrs.get(k, 0))
                                               for k in ("levels_only", "dimensions", "max_tiles")})
        bare_copy = not stored_levels(path) and int(attrs["levels_only"]) == 1
        if int(attrs["dimensions"] or 2) == 3:
            hint = "a table of 3D Chomp: 3D runs store no positions (doc/THREE_D.md)"
        elif bare_copy:
            hint = "a levels-only copy of a run that stored none: read a run's own file made with --store-losing"
        elif _read_settled(path, lambda f: f"losing_positions/level_{int(n):03d}" in f):
            status = _read_settled(path, lambda f: _attr(f.attrs.get("status", "")))
            hint = ("the run stores that level but has not finished it yet: " +
                    ("read it once the run has (stored_levels says which it has)" if status == "running" else
                     f"the run stopped before it (status \"{status}\"); continue it with chomp sieve --resume "
                     f"--output {path}"))
        elif n > MAX_STORED_LEVEL:
            hint = f"no run stores a level above {MAX_STORED_LEVEL}: chomp sieve --store-losing takes 0..{MAX_STORED_LEVEL}"
        elif n > int(attrs["max_tiles"]):
            hint = f"its run goes to level {int(attrs['max_tiles'])}: run chomp sieve to {n} with --store-losing {n}"
        else:
            hint = f"run chomp sieve with --store-losing {n} or more"
        raise KeyError(f"{path} does not store the losing positions of level {n} ({hint})")
    def read(f):
        d = f[f"losing_positions/level_{int(n):03d}"]
        # A level's positions are written whole: every chunk they need is in the index.
        present = _chunks_present(d, f"{path}: /losing_positions/level_{int(n):03d}", d.name, {})
        if present is not None and False in present:
            raise NotATableError(f"{path}: /losing_positions/level_{int(n):03d}: its chunk of the rows from row "
                                 f"{present.index(False) * d.chunks[0] + 1} is missing from its chunk index (such "
                                 f"rows would read as 0): {_DAMAGED_INDEX}")
        return d[()]

    words = _read_settled(path, read)
    return [decode_path(w) for w in words]


def _attrs_of_format(f, path, fmt: str) -> dict:
    """The root attributes of a file of another command than the sieve (root
    attribute format = fmt); NotATableError, naming what the file is, otherwise."""
    attrs = {k: _attr(v) for k, v in f.attrs.items()}
    if attrs.get("format") != fmt:
        kind = OTHER_FORMATS.get(attrs.get("format")) or ("chomp sieve" if "format_version" in attrs else None)
        raise NotATableError(f"{path} is not a file of `{OTHER_FORMATS[fmt]}` (root attribute format = "
                             f"{attrs.get('format')!r}" + (f": a file of `{kind}`" if kind else "") + ")")
    return attrs


@dataclass
class GrundyTable:
    """The Sprague-Grundy counts of a `chomp grundy` file (doc/FILE_FORMAT.md,
    *The Grundy file*): one row per level n = 1..max_tiles. ``counts[n - 1, g]``
    positions of n tiles have value g (each row sums to p(n)); value 0 is
    the losing positions, ``value_zero`` = ``counts[:, 0]`` = L(n). Counts are
    uint64: take ``.astype(numpy.int64)`` before subtracting."""

    path: Path
    tiles: np.ndarray
    positions: np.ndarray
    counts: np.ndarray          # [levels, max_tiles]: /levels/grundy_counts
    largest_value: np.ndarray
    value_zero: np.ndarray
    seconds: np.ndarray
    attrs: dict = field(default_factory=dict)   # root attributes (provenance, convention)

    @property
    def max_tiles(self) -> int:
        """The last level the table holds; the run's own target is attrs["max_tiles"]."""
        return int(self.tiles[-1])


def read_grundy(path, require_complete: bool = True) -> GrundyTable:
    """The table of a `chomp grundy` file, checked as its readers check it:
    levels 1..k in order, each row summing to p(n), value_zero its column 0.
    IncompleteRunError (with the command that continues the run) for an
    unfinished run unless require_complete is False; NotATableError for a
    file of another command; the errors of open_h5 otherwise (a file is
    written whole after each level, so it is never read mid-write)."""
    path = Path(path)

    def read(f):
        attrs = _attrs_of_format(f, path, "chomp-grundy")
        if "levels" not in f:
            raise NotATableError(f"{path} is not a Grundy file: it has no /levels group")
        g = f["levels"]
        cols = {c: g[c][:] for c in ("tiles", "positions", "largest_value", "value_zero", "grundy_counts")}
        cols["seconds"] = g["seconds"][:] if "seconds" in g else np.zeros(len(cols["tiles"]))
        return attrs, cols

    attrs, cols = _read_settled(path, read)
    if require_complete and attrs.get("complete") != 1:
        status = attrs.get("status")
        resume = f"chomp grundy --resume --output {path}"
        raise IncompleteRunError(f"{path}: the run did not finish (complete = {attrs.get('complete')!r}, "
                                 f"status = {status!r}): continue it with `{resume}`" + _first_leg_options(attrs),
                                 "read_grundy(path, require_complete=False) reads its finished levels")
    k = len(cols["tiles"])
    counts = cols["grundy_counts"]
    if k == 0:
        raise ValueError(f"{path}: no level finished yet")
    if any(len(cols[c]) != k for c in ("positions", "largest_value", "value_zero", "seconds")) or counts.shape[0] != k:
        raise ValueError(f"{path}: its /levels columns have different lengths: a damaged file")
    tiles = cols["tiles"].astype(np.int64)
    if not np.array_equal(tiles, np.arange(1, k + 1)):
        raise ValueError(f"{path}: levels are not 1, 2, ..., n")
    p = np.array(partition_numbers(k)[1:], dtype=np.uint64)
    if not (np.array_equal(cols["positions"], p) and np.array_equal(counts.sum(axis=1, dtype=np.uint64), p)
            and np.array_equal(counts[:, 0], cols["value_zero"])):
        raise ValueError(f"{path}: its counts disagree (rows that do not sum to p(n), or value_zero not the counts "
                         "of value 0): a damaged or edited file; `chomp show FILE` reads it, `chomp grundy` makes "
                         "it again")
    if require_complete and k != attrs.get("max_tiles"):
        raise ValueError(f"{path}: {k} levels but max_tiles = {attrs.get('max_tiles')}")
    return GrundyTable(path=path, tiles=cols["tiles"], positions=cols["positions"], counts=counts,
                       largest_value=cols["largest_value"], value_zero=cols["value_zero"], seconds=cols["seconds"],
                       attrs=attrs)


@dataclass
class Rectangles:
    """The winning first moves of every a x b board of a `chomp rectangles` file
    (doc/FILE_FORMAT.md, *The rectangles file*): boards 2 <= a <= b, a <=
    attrs["max_rows"], b <= attrs["max_cols"], a then b ascending. A move
    (move_row, move_col), 1-based from the top left, takes that tile and
    every tile below and right of it; it wins because the position it
    leaves, row lengths top first, is losing."""

    path: Path
    board_rows: np.ndarray      # /boards/rows: a of each board
    board_cols: np.ndarray      # /boards/cols: b
    winning_moves: np.ndarray   # /boards/winning_moves: how many first moves of the board win
    move_board_rows: np.ndarray  # /moves/rows: the board of each winning move
    move_board_cols: np.ndarray  # /moves/cols
    move_row: np.ndarray
    move_col: np.ndarray
    leaves: list                # /moves/leaves as tuples of row lengths
    attrs: dict = field(default_factory=dict)   # root attributes (provenance, the box solved)

    def moves(self, a: int, b: int) -> list:
        """The winning first moves of the board of a rows and b columns as
        (move_row, move_col, leaves); for a > b, those of b x a transposed.
        KeyError for a board the file does not hold."""
        if a > b:
            return [(c, r, transpose(left)) for r, c, left in self.moves(b, a)]
        if not (2 <= a <= self.attrs["max_rows"] and b <= self.attrs["max_cols"]):
            raise KeyError(f"{a} x {b}: the file holds the boards 2 <= a <= b with a <= {self.attrs['max_rows']} "
                           f"and b <= {self.attrs['max_cols']} (and their transposes)")
        at = np.flatnonzero((self.move_board_rows == a) & (self.move_board_cols == b))
        return [(int(self.move_row[i]), int(self.move_col[i]), self.leaves[i]) for i in at]


def _left_by(a: int, b: int, r: int, c: int) -> tuple:
    """The rows of the a x b board after the move (r, c): rows above r whole, the rest c - 1 long."""
    return tuple([b] * (r - 1) + ([c - 1] * (a - r + 1) if c > 1 else []))


def read_rectangles(path) -> Rectangles:
    """The table of a `chomp rectangles` file, checked: every board 2 <= a <=
    b within max_rows and max_cols once, in order; each board's moves as
    many as its winning_moves, each a tile of the board other than the
    poisoned one, and `leaves` the position that tile's move leaves.
    ValueError for a file that fails a check; NotATableError for a file of
    another command; the errors of open_h5 otherwise (the program writes the
    file whole and renames it into place, so it is never read unfinished)."""
    path = Path(path)

    def read(f):
        attrs = _attrs_of_format(f, path, "chomp rectangles")
        if attrs.get("format_version") != 1:
            raise ValueError(f"{path}: format_version {attrs.get('format_version')!r}; this reader knows 1")
        for name in ("boards/rows", "boards/cols", "boards/winning_moves", "moves/rows", "moves/cols",
                     "moves/move_row", "moves/move_col", "moves/leaves"):
            if name not in f:
                raise ValueError(f"{path}: no /{name}: a damaged file")
        cols = {("boards", c): f["boards"][c][:] for c in ("rows", "cols", "winning_moves")}
        cols.update({("moves", c): f["moves"][c][:] for c in ("rows", "cols", "move_row", "move_col")})
        cols[("moves", "leaves")] = list(f["moves"]["leaves"].asstr()[:])
        return attrs, cols

    attrs, cols = _read_settled(path, read)
    max_rows, max_cols = attrs.get("max_rows"), attrs.get("max_cols")
    if not isinstance(max_rows, int) or not isinstance(max_cols, int):
        raise ValueError(f"{path}: no max_rows or max_cols attribute: a damaged file")
    boards = [(a, b) for a in range(2, max_rows + 1) for b in range(a, max_cols + 1)]
    rows, bcols, wins = (cols[("boards", c)] for c in ("rows", "cols", "winning_moves"))
    if len(rows) != len(boards) or len(bcols) != len(boards) or len(wins) != len(boards) or \
            [(int(a), int(b)) for a, b in zip(rows, bcols)] != boards:
        raise ValueError(f"{path}: /boards does not list every board 2 <= a <= b, a <= {max_rows}, b <= {max_cols}, "
                         "once and in order: a damaged or edited file")
    mrows, mcols, mr, mc = (cols[("moves", c)] for c in ("rows", "cols", "move_row", "move_col"))
    texts = cols[("moves", "leaves")]
    m = len(texts)
    if any(len(x) != m for x in (mrows, mcols, mr, mc)) or m != int(wins.sum(dtype=np.uint64)):
        raise ValueError(f"{path}: /moves has columns of different lengths, or not one row per winning move "
                         "that /boards counts: a damaged file")
    expected_boards = [board for board, k in zip(boards, wins) for _ in range(int(k))]
    leaves = []
    for i in range(m):
        a, b, r, c = int(mrows[i]), int(mcols[i]), int(mr[i]), int(mc[i])
        left = _left_by(a, b, r, c)
        # a board's moves in order, rows then columns, as the program writes them (each once)
        in_order = i == 0 or expected_boards[i - 1] != (a, b) or (int(mr[i - 1]), int(mc[i - 1])) < (r, c)
        if (a, b) != expected_boards[i] or not (1 <= r <= a and 1 <= c <= b) or (r, c) == (1, 1) \
                or not in_order or texts[i] != ",".join(map(str, left)):
            raise ValueError(f"{path}: winning move {i} (board {a} x {b}, tile ({r}, {c}), leaves {texts[i]!r}) "
                             "is not a move of its board, in order, with the position it leaves: a damaged or "
                             "edited file")
        leaves.append(left)
    return Rectangles(path=path, board_rows=rows, board_cols=bcols, winning_moves=wins, move_board_rows=mrows,
                      move_board_cols=mcols, move_row=mr, move_col=mc, leaves=leaves, attrs=attrs)


def _point_data_dir(holds: str) -> str:
    """What to do when data_dir() lacks a file: set CHOMP_DATA_DIR, or set
    it to another folder where it names this one."""
    if os.environ.get("CHOMP_DATA_DIR"):
        return f"CHOMP_DATA_DIR names this folder: set it to the repository's data/ folder, which holds {holds}"
    return f"set CHOMP_DATA_DIR to the repository's data/ folder, which holds {holds}"


def default_levels_file(with_positions: bool = False) -> Path:
    """The committed result file: the data/levels-N.h5 with the largest N
    (with `with_positions`, the largest one that stores losing positions)."""
    found = []
    for p in data_dir().glob("levels-*.h5"):
        if m := re.fullmatch(r"levels-(\d+)\.h5", p.name):
            if with_positions and not stored_levels(p):
                continue
            found.append((int(m.group(1)), p))
    if not found:
        raise FileNotFoundError(f"no levels-N.h5 in {data_dir()}"
                                + (" with stored losing positions" if with_positions else "")
                                + f" ({_point_data_dir('the committed levels-N.h5')})")
    return max(found)[1]


def levels_file(env_var: str = "CHOMP_LEVELS_FILE") -> Path:
    """The file named by the environment variable, else the default one
    (`CHOMP_POSITIONS_FILE` defaults to a file that stores positions)."""
    value = os.environ.get(env_var)
    if value:
        return Path(value)
    return default_levels_file(with_positions=(env_var == "CHOMP_POSITIONS_FILE"))


def read_reference(name: str = "caribou_density.csv") -> dict[str, np.ndarray]:
    """A reference table from data/reference/ (see data_dir) as one numpy array per column
    (integers stay exact integers, other columns are floats).

    caribou_density.csv: the published table, n = 20, 30, ..., 90 (tiles,
    positions, losing, percent_losing truncated to two decimals, as published).
    small_counts.csv: positions and losing for n = 1..30 from an independent
    brute-force solver."""
    path = data_dir() / "reference" / name
    tables = sorted(p.name for p in path.parent.glob("*.csv"))
    if not tables or (not path.is_file() and path.suffix.lower() == ".csv"):
        raise FileNotFoundError(f"no reference table {path} ({_point_data_dir('reference/')})")
    if path.suffix.lower() != ".csv" or not path.is_file():
        raise ValueError(f"{name} is not a reference table: give one of {', '.join(tables)}")
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        raise ValueError(f"the reference table {path} holds no rows: copy it again from the repository's "
                         "data/reference/")
    if any(None in r or None in r.values() for r in rows):  # more fields, or fewer, than the header names
        raise ValueError(f"the reference table {path} has a row whose fields do not match its header: copy it "
                         "again from the repository's data/reference/")
    table = {}
    for col in rows[0]:
        values = [r[col] for r in rows]
        if all(re.fullmatch(r"\d+", v or "") for v in values):
            table[col] = np.array([int(v) for v in values], dtype=np.int64)
        else:
            try:
                table[col] = np.array([float(v) for v in values])
            except (TypeError, ValueError):
                raise ValueError(f"the reference table {path} has a value that is not a number in column "
                                 f"{col!r}: copy it again from the repository's data/reference/") from None
    return table
