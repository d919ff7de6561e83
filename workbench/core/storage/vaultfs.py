"""Reaching a vault's files without following a symlink: the only way the store writes or deletes.

A vault is a folder others write too, and a symlink planted in it (`log.md`, a type folder,
`.workbench`, `.recovery`) would carry a write or a delete to a file outside it; a path read back
from the store's own state (a journal, an undo record) could name one outright (`../x`, `/etc/x`).
So every path the store touches is vault-relative and normalised (`relative_path`), and it is
reached one folder at a time from the root (`Folders`), each folder opened with `O_NOFOLLOW |
O_DIRECTORY` and the file then opened, created, renamed or removed relative to the last folder's
descriptor. A symlink anywhere on the way is refused with `UnsafePathError` naming it, never
followed, even one that appears between a check and the write. Files are opened with
`O_NONBLOCK` and must be regular: a FIFO named `log.md` would otherwise hang the writer.

`first_link` and `special_files` only look (`lstat`), for `check` to report what would be refused.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from . import crashpoint
from ..vocabulary.model import UnsafePathError

__all__ = [
    "FILE_FLAGS",
    "Folders",
    "RECOVERY_DIR",
    "STATE_DIR",
    "TEMP_MARK",
    "first_link",
    "fsync_folder",
    "is_temporary",
    "read_fd",
    "relative_path",
    "split",
    "temporary_name",
    "unsafe_reason",
    "write_all",
]

TEMP_MARK = ".wb-"
STATE_DIR = ".workbench"  # the store's own state: lock, journal, history, derived caches
RECOVERY_DIR = ".recovery"  # byte-for-byte copies of files before a repair changed them
DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
READ_LIMIT = 1 << 30  # what `read_fd` reads at most: a state file or a document, never a disk


def relative_path(path: object) -> str:
    """`path` if it names a file inside the vault in normal form (`notes/a.md`: no leading `/`, no
    `.` or `..` or empty part, no NUL), else UnsafePathError. Paths from the store's own state go
    through here before anything is read or written with them."""
    if not isinstance(path, str) or not path:
        raise UnsafePathError(f"{path!r} is not a path inside the vault")
    if "\x00" in path or path.startswith("/") or any(part in ("", ".", "..") for part in path.split("/")):
        raise UnsafePathError(f"{path!r} is not a path inside the vault")
    return path


def split(path: str) -> tuple[str, str]:
    """(folder, name) of a vault-relative path; the root is the folder ""."""
    folder, _, name = path.rpartition("/")
    return folder, name


def temporary_name(name: str) -> str:
    """A unique hidden name beside `name` that the vault's walk and recovery know as temporary."""
    return f".{name}{TEMP_MARK}{os.urandom(6).hex()}.tmp"


def is_temporary(name: str) -> bool:
    return name.startswith(".") and TEMP_MARK in name and name.endswith(".tmp")


def read_fd(fd: int) -> bytes:
    """Everything in an open file, from its start, whatever its offset."""
    chunks, at = [], 0
    while at < READ_LIMIT:
        chunk = os.pread(fd, 1 << 20, at)
        if not chunk:
            break
        chunks.append(chunk)
        at += len(chunk)
    return b"".join(chunks)


def fsync_folder(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError:
        pass


def first_link(root: Path, path: str) -> str | None:
    """The first part of `path` (relative to `root`) that is a symlink, as a relative path; None when
    none is (a part that does not exist ends the look)."""
    current = root
    parts = path.split("/")
    for number, part in enumerate(parts):
        current = current / part
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return "/".join(parts[: number + 1])
        except OSError:
            return None
    return None


def unsafe_reason(root: Path, path: str, regular: bool = True) -> str | None:
    """Why the store would refuse to write `path`: a symlink on the way, or (with `regular`) a file
    that is there and is not a regular file. None when nothing is in the way."""
    link = first_link(root, path)
    if link is not None:
        return f"{link} is a symbolic link; the workbench never writes or deletes through one"
    if regular:
        try:
            mode = os.lstat(root / path).st_mode
        except OSError:
            return None
        if not stat.S_ISREG(mode):
            return f"{path} is not a regular file ({_kind(mode)}); the workbench writes only regular files"
    return None


def _kind(mode: int) -> str:
    for test, word in (
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    ):
        if test(mode):
            return word
    return "not a file"


class Folders:
    """Descriptors of a vault's folders, each reached from the root without following a symlink,
    kept open while a change runs so that every step of it acts on the same folders.

    `open_file`, `read`, `replace`, `remove`... take vault-relative paths and act relative to the
    folder's descriptor, so a symlink is refused at whichever part of the path it sits."""

    def __init__(self, root: Path, mounts: dict[str, Path] | None = None):
        self.root = root
        self.mounts = mounts or {}  # a top-level name reached at another place: state kept outside the vault
        self._fds: dict[str, int] = {}

    def __enter__(self) -> Folders:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()

    def fd(self, folder: str, create: bool = False) -> int:
        """The folder's descriptor (the root's for ""); with `create`, missing folders are made.
        FileNotFoundError when it does not exist; UnsafePathError at a symlink or a non-folder."""
        if folder in self._fds:
            return self._fds[folder]
        if folder == "":
            fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the root was resolved on open
        elif folder in self.mounts:
            if create:
                self.mounts[folder].mkdir(parents=True, exist_ok=True)
            fd = os.open(self.mounts[folder], DIRECTORY_FLAGS)
        else:
            relative_path(folder)
            parent, name = split(folder)
            fd = self._open_folder(self.fd(parent, create), name, folder, create)
        self._fds[folder] = fd
        return fd

    def _open_folder(self, parent_fd: int, name: str, folder: str, create: bool) -> int:
        try:
            return os.open(name, DIRECTORY_FLAGS, dir_fd=parent_fd)
        except FileNotFoundError:
            if not create:
                raise
            try:
                os.mkdir(name, 0o755, dir_fd=parent_fd)
            except FileExistsError:
                pass
            return self._open_folder(parent_fd, name, folder, False)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                raise UnsafePathError(self._why(parent_fd, name, folder)) from None
            raise

    @staticmethod
    def _why(parent_fd: int, name: str, path: str) -> str:
        try:
            mode = os.stat(name, dir_fd=parent_fd, follow_symlinks=False).st_mode
        except OSError:
            mode = 0
        if stat.S_ISLNK(mode):
            return f"{path} is a symbolic link; the workbench never writes or deletes through one"
        return f"{path} is not a folder"

    def lstat(self, path: str) -> os.stat_result | None:
        """The entry at `path` itself (a link is not followed); None when there is none."""
        folder, name = split(path)
        try:
            return os.stat(name, dir_fd=self.fd(folder), follow_symlinks=False)
        except FileNotFoundError:
            return None

    def open_file(
        self, path: str, flags: int = os.O_RDONLY, mode: int = 0o644, create_folders: bool = False
    ) -> int | None:
        """A descriptor of the regular file at `path`; None when it (or its folder) does not exist.
        UnsafePathError at a symlink or for anything that is not a regular file (a FIFO, a folder)."""
        folder, name = split(path)
        try:
            fd = os.open(name, flags | FILE_FLAGS, mode, dir_fd=self.fd(folder, create_folders))
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.EMLINK):
                raise UnsafePathError(self._file_why(path)) from None
            raise
        mode_now = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode_now):
            os.close(fd)
            raise UnsafePathError(
                f"{path} is not a regular file ({_kind(mode_now)}); the workbench reads and writes only regular files"
            )
        return fd

    def _file_why(self, path: str) -> str:
        found = self.lstat(path)
        if found is not None and stat.S_ISLNK(found.st_mode):
            return f"{path} is a symbolic link; the workbench never writes or deletes through one"
        return f"{path} is not a regular file ({_kind(found.st_mode) if found else 'gone'})"

    def read(self, path: str) -> bytes | None:
        """The bytes of the regular file at `path`, None when there is none."""
        fd = self.open_file(path)
        if fd is None:
            return None
        try:
            return read_fd(fd)
        finally:
            os.close(fd)

    def write(self, path: str, data: bytes, crash_step: str | None = None) -> None:
        """Replace `path` with `data` atomically (a temporary file beside it, fsync, rename, fsync of
        the folder): a crash leaves the old file or the new one, never half. `crash_step` names the
        moment before the rename where tests stop the process (`crashpoint.py`)."""
        folder, name = split(path)
        folder_fd = self.fd(folder, create=True)
        existing = self.lstat(path)
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            raise UnsafePathError(self._file_why(path))
        temp = temporary_name(name)
        fd = os.open(
            temp,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | FILE_FLAGS,
            stat.S_IMODE(existing.st_mode) if existing else 0o644,
            dir_fd=folder_fd,
        )
        try:
            try:
                write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            if crash_step is not None:
                crashpoint.crash_point(crash_step)
            os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        except BaseException:
            self.remove_name(folder_fd, temp)
            raise
        fsync_folder(folder_fd)

    def remove(self, path: str) -> bool:
        """Delete the file (or the link itself) at `path`; False when there was none. A folder on the
        way that is a symlink is refused: the entry removed is always the vault's own."""
        folder, name = split(path)
        try:
            folder_fd = self.fd(folder)
        except FileNotFoundError:
            return False
        if not self.remove_name(folder_fd, name):
            return False
        fsync_folder(folder_fd)
        return True

    @staticmethod
    def remove_name(folder_fd: int, name: str) -> bool:
        try:
            os.unlink(name, dir_fd=folder_fd)
        except FileNotFoundError:
            return False
        return True

    def remove_tree(self, path: str) -> None:
        """Delete `path` and, for a folder, everything in it; a symlink is removed, never followed."""
        folder, name = split(path)
        found = self.lstat(path)
        if found is None:
            return
        if stat.S_ISDIR(found.st_mode):
            import shutil  # here, not at import: it imports the compression modules

            shutil.rmtree(name, dir_fd=self.fd(folder))
        else:
            self.remove(path)

    def move(self, source: str, target: str) -> None:
        """Rename `source` to `target` (both vault-relative), replacing it."""
        source_folder, source_name = split(source)
        target_folder, target_name = split(target)
        source_fd, target_fd = self.fd(source_folder), self.fd(target_folder, create=True)
        os.replace(source_name, target_name, src_dir_fd=source_fd, dst_dir_fd=target_fd)
        fsync_folder(target_fd)
        if source_fd != target_fd:
            fsync_folder(source_fd)

    def names(self, folder: str) -> list[str]:
        """The names in `folder`, sorted; [] when it does not exist."""
        try:
            return sorted(os.listdir(self.fd(folder)))
        except FileNotFoundError:
            return []

    def files_under(self, folder: str) -> Iterator[str]:
        """Every regular file under `folder`, as vault-relative paths; symlinks are not followed
        and not listed. Nothing when the folder does not exist."""
        try:
            top = self.fd(folder)
        except FileNotFoundError:
            return
        for here, _subfolders, names, here_fd in os.fwalk(".", dir_fd=top, follow_symlinks=False):
            prefix = folder if here == "." else f"{folder}/{here[2:]}"
            for name in sorted(names):
                try:
                    if stat.S_ISREG(os.stat(name, dir_fd=here_fd, follow_symlinks=False).st_mode):
                        yield f"{prefix}/{name}"
                except FileNotFoundError:
                    continue


def write_all(fd: int, data: bytes) -> None:
    """Write all of `data` to `fd` (a write may take only part of it)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
