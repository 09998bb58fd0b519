"""Writing a file whole or not at all, for the scripts of experiments/: the
new text goes to a temporary file beside the target, under a name of its
own, which takes the target's place only once it is whole, so that an error
(a full disk, a file size limit) leaves the earlier file as it was and no
partial one. Standard library only.
"""
import os
import tempfile


def replace_whole(path, write):
    """Calls write(part), which writes the new file at the path `part` beside
    `path` (an empty file made for it), then puts it in path's place
    (os.replace) with the mode a new file would have. On any error the
    temporary file is removed and the error raised again (OSError for a
    write that failed)."""
    path = os.fspath(path)
    folder, name = os.path.split(path)
    fd, part = tempfile.mkstemp(dir=folder or ".", prefix=f".{name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(part)
        os.chmod(part, 0o666 & ~umask())
        os.replace(part, path)
    except BaseException:
        if os.path.lexists(part):
            os.unlink(part)
        raise


def umask():
    """The process's umask, read from /proc/self/status where Linux gives it
    (setting it to read it back would, for that moment, give files another
    thread makes mode 0666), else set and set back."""
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


def write_text(path, text):
    """`text` written to `path` (UTF-8) whole or not at all (replace_whole)."""
    def write(part):
        with open(part, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    replace_whole(path, write)
