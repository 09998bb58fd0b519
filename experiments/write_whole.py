"""Writing a file whole or not at all, for the scripts of experiments/: the
new text goes to a temporary file beside the target, which takes the
target's place only once it is whole, so that an error (a full disk, a file
size limit) leaves the earlier file as it was and no partial one. Standard
library only.
"""
import os


def replace_whole(path, write):
    """Calls write(part), which writes the new file at the path `part` beside
    `path`, then puts it in path's place (os.replace). On any error the
    temporary file is removed and the error raised again (OSError for a
    write that failed)."""
    path = os.fspath(path)
    folder, name = os.path.split(path)
    part = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        write(part)
        os.replace(part, path)
    except BaseException:
        if os.path.lexists(part):
            os.unlink(part)
        raise


def write_text(path, text):
    """`text` written to `path` (UTF-8) whole or not at all (replace_whole)."""
    def write(part):
        with open(part, "x", encoding="utf-8", newline="") as f:
            f.write(text)
    replace_whole(path, write)
