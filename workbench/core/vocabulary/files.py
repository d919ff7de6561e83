"""Reading only what is a file: the one way the workbench takes bytes from a path in a vault.

A vault is a folder anyone may have put anything in. A named pipe where a document should be
blocks a plain `open()` for ever (until something writes to it); a device may answer without end;
a folder named `log.md` cannot be read at all; a file a person made unreadable raises. So a path is
looked at before it is opened (only a regular file is read), opened without blocking (a pipe that
appears between the look and the open still cannot hold the reader), and looked at again through
the open descriptor. Whatever is not a readable regular file raises `UnreadableFile`, which names
the path and says why, for the caller to report as a problem or a refusal: never a hang, never a
traceback.

A vault's folder is known by its identity as well as its path (`folder_identity`): another folder
at the same path (deleted and restored from a backup, replaced by a copy) is another vault.
"""

from __future__ import annotations

import os
import stat

__all__ = ["UnreadableFile", "NOT_A_REGULAR_FILE", "UNREADABLE", "folder_identity", "kind_of", "read_file"]

NOT_A_REGULAR_FILE = "not-a-regular-file"
UNREADABLE = "unreadable"
FIRST_READ = 64 * 1024


class UnreadableFile(OSError):
    """A path that holds something other than a regular file this process can read.

    `code` is `not-a-regular-file` (a named pipe, a socket, a device, a folder) or `unreadable`
    (a regular file the reader has no permission to read, or whose read failed)."""

    def __init__(self, path: str | os.PathLike[str], code: str, reason: str):
        super().__init__(f"{os.fspath(path)}: {reason}")
        self.path = os.fspath(path)
        self.code = code
        self.reason = reason

    def __reduce__(self):  # raised in a worker process, it crosses back whole
        return type(self), (self.path, self.code, self.reason)


def kind_of(mode: int) -> str:
    """What a file-system object is, in words, from its mode."""
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symlink"
    return "not a regular file"


def _odd(path, mode: int) -> UnreadableFile:
    return UnreadableFile(path, NOT_A_REGULAR_FILE, f"{kind_of(mode)}, not a regular file; it is never read")


def _denied(path, error: OSError) -> UnreadableFile:
    return UnreadableFile(path, UNREADABLE, f"cannot be read ({error.strerror or error})")


def read_file(path: str | os.PathLike[str], limit: int | None = None) -> bytes | None:
    """The bytes of the regular file at `path` (at most `limit` of them), or None when nothing is
    there. Raises `UnreadableFile` for anything else. Symlinks are followed, as `open` does; the
    vault's walk never offers one as a document."""
    try:
        before = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise _denied(path, error) from None
    if not stat.S_ISREG(before.st_mode):
        raise _odd(path, before.st_mode)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise _denied(path, error) from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):  # replaced between the look and the open
            raise _odd(path, opened.st_mode)
        # Asked for 16 MiB at once, Python allocates them before it reads a byte: a small first
        # read, then the rest only for a large file, made reading a vault three times quicker.
        wanted = FIRST_READ if limit is None else min(FIRST_READ, limit)
        data = os.read(fd, wanted)
        if len(data) < wanted:
            return data
        chunks, total = [data], len(data)
        while limit is None or total < limit:
            chunk = os.read(fd, (1 << 20) if limit is None else min(1 << 20, limit - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    except UnreadableFile:
        raise
    except OSError as error:
        raise _denied(path, error) from None
    finally:
        os.close(fd)


def folder_identity(folder: str | os.PathLike[str]) -> str:
    """The device and inode of a vault's folder ("" when it cannot be looked at): the same path
    holding another folder differs. What the derived store is built for, and what a kept answer
    is kept for; here, below both, so that the quick path asks it without importing the store."""
    try:
        found = os.stat(folder)
    except OSError:
        return ""
    return f"{found.st_dev}:{found.st_ino}"
