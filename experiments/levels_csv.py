"""Reading a levels table of `chomp sieve` (the CSV beside a result file,
data/levels-N.csv, or `chomp show --csv`) strictly, for the scripts of
experiments/: a row cut short, a table cut short between rows (no last
newline, levels not 1, 2, ..., n, fewer than its `# ...; levels 1..N` line
says), a number that is not whole, a losing digest that is not 16 hex
digits or a missing column is a ValueError that names the table and the
line, never a row skipped. Standard library only, so that the scripts that need no h5py
(mark_classes.py, pull_over_tails.py) run with any Python 3.
"""
import csv
import os
import re

REWRITE = "write it again from its .h5: experiments/h5_to_csv.py"


def parse_levels(text, name, columns, optional=(), consecutive=True):
    """Level -> {column: int} of the table `text` (named `name` in errors),
    for the columns `columns`, which it must have, and `optional`, None in
    a row where they are empty or the table has no such column
    (losing_digest: its 16 hex digits as text). Lines that are blank or
    start with # are not rows. A table cut short is refused: one whose text
    does not end with a newline (every writer ends its last row with one),
    whose levels are not 1, 2, ..., n (with `consecutive`; a reference table
    of some levels passes False), or fewer than its `# ...; levels 1..N`
    line says."""
    if text and not text.endswith("\n"):
        raise ValueError(f"{name}, line {text.count(chr(10)) + 1}: the table ends without a newline: it was cut "
                         f"short ({REWRITE})")
    lines = [(i, line) for i, line in enumerate(text.splitlines(), 1) if line.strip() and not line.startswith("#")]
    header = next(csv.reader([lines[0][1]])) if lines else []
    if missing := [c for c in ("tiles", *columns) if c not in header]:
        raise ValueError(f"{name} is not a table of `chomp sieve` (no column {', '.join(missing)})")
    out = {}
    for i, line in lines[1:]:
        fields = next(csv.reader([line]))
        if len(fields) != len(header):
            raise ValueError(f"{name}, line {i}: {len(fields)} fields where the header has {len(header)}: "
                             f"a table cut short or damaged ({REWRITE})")
        row = dict(zip(header, fields))
        digest = row.get("losing_digest", "")
        if digest and not re.fullmatch(r"[0-9a-fA-F]{16}", digest):
            raise ValueError(f"{name}, line {i}: losing_digest {digest!r} is not 16 hex digits: a table cut short "
                             f"or damaged ({REWRITE})")
        try:
            n = int(row["tiles"])
            values = {c: int(row[c]) for c in columns}
            values.update({c: (row[c].lower() if c == "losing_digest" else int(row[c]))
                           if row.get(c, "") != "" else None for c in optional})
        except ValueError:
            raise ValueError(f"{name}, line {i}: the tiles, {', '.join((*columns, *optional))} of a level are not "
                             f"whole numbers: a damaged table ({REWRITE})") from None
        if consecutive and n != len(out) + 1:
            raise ValueError(f"{name}, line {i}: level {n} where level {len(out) + 1} comes next (its levels are "
                             f"not 1, 2, ..., n): a table cut short or damaged ({REWRITE})")
        out[n] = values
    said = re.search(r"(?m)^#.*; levels 1\.\.(\d+)$", text)
    if said and int(said[1]) != len(out):
        raise ValueError(f"{name}, line {text[:said.start()].count(chr(10)) + 1}: it says levels 1..{said[1]} and "
                         f"has {len(out)} rows of levels: a table cut short ({REWRITE})")
    return out


def format_version(text):
    """The format of the result file a table was written from (its
    `# format_version: N; ...` line), or None where it does not say."""
    said = re.search(r"(?m)^# format_version: (\d+);", text)
    return int(said[1]) if said else None


def header_value(text, key):
    """The value of a `# key: value` line among the table's leading #
    lines (the provenance h5_to_csv.py writes), or None."""
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        if line.startswith(f"# {key}: "):
            return line[len(f"# {key}: "):].strip()
    return None


def read_levels(path, columns, optional=(), consecutive=True):
    """parse_levels of the file at `path`; IsADirectoryError,
    FileNotFoundError or ValueError (not a text file) for a path that is
    not a table, and ValueError for a table of 3D Chomp (its `# dimensions`
    line): the scripts that read tables by path check 2D levels."""
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path} is a folder, not a table (give the CSV beside a result file: "
                                "data/levels-K.csv)")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no table at {path}")
    try:
        with open(path, newline="") as f:
            text = f.read()
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a CSV table (give the CSV beside a result file: data/levels-K.csv)") from None
    if (dims := header_value(text, "dimensions")) and dims.split()[0] != "2":
        raise ValueError(f"{path} is a table of {dims.split()[0]}D Chomp (its # dimensions line): give a 2D table "
                         "(data/levels-K.csv)")
    levels = parse_levels(text, path, columns, optional, consecutive)
    # A run that inferred the moves of its first rows from bits filed fewer
    # marks: a table of it counts other marks than every move examined.
    if "marks" in columns and (way := header_value(text, "inferred_marks")) not in (None, "none"):
        raise ValueError(f"{path} is the table of a run that inferred the marks of its first rows' moves "
                         f"(inferred_marks: {way}): its marks are not every move examined; give the table of a "
                         "run made with --file-all-marks (such as data/levels-170.csv)")
    return levels
