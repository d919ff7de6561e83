"""Replacing the files of a change, each checked at the moment it is replaced.

Agents write the same files with plain file I/O, and a rename cannot be compare-and-swap: between
the last look at a file and the rename over it, an agent may append to it, and the rename would
drop what it wrote. So each file is checked again at the moment it is replaced. Where the system
can (Linux's `renameat2` with `RENAME_EXCHANGE`), the new file and the old one swap names in one
step, which hands back exactly the file that was replaced: it stays under a temporary name until
the change commits, and is checked right after the swap and again once every file is written. If
anyone wrote to it, or replaced it, since it was read, the swap is undone (the agent's file, with
its bytes, goes back under its name, the same inode its open handles point at), the other files
of the change go back too, and `ConflictError` is raised. Elsewhere the old file is held open
across a plain rename and checked the same way; only a file renamed over the target in the
microseconds between the last check and the rename is then beyond reach. Bytes written to an old
file after the last check, through a handle opened before the change, are found when it is
dropped and kept under `.recovery/`.

Letting the replaced files go once the change commits is `let_go` here; putting the files back
when the change is refused is `putback`. No version of a file that anyone else wrote is deleted
unseen by either: what is not provably the change's own is kept under `.recovery/`.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from . import crashpoint
from .changes import FileChange
from ..vocabulary.model import ConflictError, UnsafePathError, WorkbenchError
from .vaultfs import FILE_FLAGS, RECOVERY_DIR, Folders, fsync_folder, read_fd, split, temporary_name, write_all

if TYPE_CHECKING:  # the pool and ctypes are loaded by the calls that need them, not at import
    from concurrent.futures import Future, ThreadPoolExecutor

__all__ = [
    "Replaced",
    "Verifier",
    "WriteError",
    "USE_EXCHANGE",
    "exchange",
    "join_versions",
    "keep_bytes",
    "let_go",
    "lstat_name",
    "overwritten",
    "read_name",
    "recovery_name",
    "replace_files",
    "untouched",
    "write_new",
]

RENAME_EXCHANGE = 2  # Linux's RENAME_EXCHANGE and macOS's RENAME_SWAP alike
# Swap a new file and the one it replaces in one step where the system can (Linux renameat2); off,
# every replacement takes the plain-rename way that other systems take.
USE_EXCHANGE = True
FSYNC_THREADS = 8
"""How many new files are written and fsynced at once: the disk takes overlapping fsyncs in one go."""

Verifier = Callable[[str, bytes], str | None]
"""Checks a file's bytes as read back before they go in: None, or what is wrong with them."""


class WriteError(WorkbenchError):
    """A file did not read back as written, twice; the change was rolled back."""


_renameat2: Any = None


def exchange(folder_fd: int, first: str, second: str) -> bool:
    """Swap two names in one folder in one step; False where the system cannot (then nothing moved)."""
    global _renameat2
    if not USE_EXCHANGE:
        return False
    import ctypes

    if _renameat2 is None:
        _renameat2 = False
        with contextlib.suppress(AttributeError, OSError):
            libc = ctypes.CDLL(None, use_errno=True)
            # Linux's renameat2(RENAME_EXCHANGE), else macOS's renameatx_np(RENAME_SWAP): the same call.
            _renameat2 = getattr(libc, "renameat2", None) or libc.renameatx_np
            _renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if _renameat2 is False:
        return False
    if _renameat2(folder_fd, os.fsencode(first), folder_fd, os.fsencode(second), RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), second)


def lstat_name(folder_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def read_name(folder_fd: int, name: str) -> tuple[int, bytes] | None:
    """(inode, bytes) of the regular file `name` in the folder; None if there is none."""
    try:
        fd = os.open(name, os.O_RDONLY | FILE_FLAGS, dir_fd=folder_fd)
    except OSError:
        return None
    try:
        found = os.fstat(fd)
        return (found.st_ino, read_fd(fd)) if stat.S_ISREG(found.st_mode) else None
    finally:
        os.close(fd)


def join_versions(before: bytes, after: bytes, old: bytes, now: bytes) -> bytes | None:
    """A file with a change undone and every other writer's bytes kept: `old` is the replaced file
    as others left it (it held `before`), `now` the new one as others left it (it held `after`).
    None when the edits cannot be told apart."""
    if old.startswith(before) and now.startswith(after):
        return old + now[len(after) :]  # appends, the common case: in the order they were made
    from ..editing.textmerge import merge3  # an undo's, where others wrote since: rare

    texts = [data.decode("utf-8", "surrogateescape") for data in (before, after, old, now)]
    undone = merge3(texts[1], texts[3], texts[0])  # `before`, with the edits made to our version
    joined = merge3(texts[0], undone, texts[2]) if undone is not None else None  # and those made to the old one
    return None if joined is None else joined.encode("utf-8", "surrogateescape")


@dataclass
class Replaced:
    """A file of a change in progress, replaced and not yet let go: the replaced file stays under
    `aside` (or open, `held`) until the change commits, so that it can be checked and put back."""

    change: FileChange
    folder_fd: int
    name: str
    aside: str | None  # the name the replaced (or deleted) file waits under
    old_inode: int | None
    new_inode: int | None
    held: int | None = None  # the replaced file held open, where names could not be swapped


def _write_temp(
    folder_fd: int, name: str, data: bytes, mode: int, named: Callable[[str], None] | None = None
) -> tuple[str, bytes]:
    """A new temporary file beside `name` holding `data`, fsynced: its name and its bytes read back.
    Safe to run in several threads at once (it touches nothing shared); fsync lets go of the GIL.
    `named` hears the name the moment the file exists, so that a caller whose wait for the answer
    was cut short (Ctrl+C) still knows what to remove."""
    temp = temporary_name(name)
    fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_EXCL | FILE_FLAGS, mode, dir_fd=folder_fd)
    if named is not None:
        named(temp)
    try:
        crashpoint.crash_point("temp-created")
        write_all(fd, data)
        os.fsync(fd)
        back = read_fd(fd)
    except BaseException:
        Folders.remove_name(folder_fd, temp)  # a full disk, say: nobody else knows its name
        raise
    finally:
        os.close(fd)
    return temp, back


def write_new(
    folder_fd: int,
    name: str,
    change: FileChange,
    verify: Verifier | None,
    mode: int,
    written: tuple[str, bytes] | None = None,
) -> str:
    """A temporary file beside `name` holding `change.after`, fsynced, read back and checked;
    written again once if it reads back wrong. Its name. `written` is a first attempt already
    made (`_write_temp`'s answer)."""
    assert change.after is not None
    failure: str | None = ""
    for attempt in (1, 2):
        temp, back = written if attempt == 1 and written else _write_temp(folder_fd, name, change.after, mode)
        failure = None if back == change.after else "the file read back differs from what was written"
        if failure is None and verify is not None:
            failure = verify(change.path, back)
        if failure is None:
            return temp
        Folders.remove_name(folder_fd, temp)
    raise WriteError(f"{change.path}: {failure}; the change was rolled back")


def _wait_out(pool: ThreadPoolExecutor) -> BaseException | None:
    """Shut `pool` down once every write it started has ended. An interrupt (Ctrl+C) that lands
    meanwhile is held and returned, and the writes not started yet are cancelled: let through at
    once, it would leave the writes under way to finish after the change was given up, their
    temporary files named nowhere and never removed."""
    interrupted: BaseException | None = None
    while True:
        try:
            pool.shutdown(wait=True, cancel_futures=interrupted is not None)
            return interrupted
        except BaseException as exc:  # KeyboardInterrupt, or what a signal handler raises
            interrupted = interrupted or exc


def _write_all_new(folders: Folders, changes: list[FileChange], verify: Verifier | None, temps: dict[int, str]) -> None:
    """Write the new version of every file of the change to a temporary file beside it, their
    fsyncs overlapped in a few threads; each read back and checked here, in this thread. Each
    temporary file's name goes into `temps` (by the change's index) as soon as it exists, so that
    the caller removes them all whatever happens."""
    jobs: list[tuple[int, int, str, int]] = []
    for index, change in enumerate(changes):
        if change.after is None:
            continue
        folder, name = split(change.path)
        folder_fd = folders.fd(folder, create=True)
        found = lstat_name(folder_fd, name)
        mode = stat.S_IMODE(found.st_mode) if found is not None and stat.S_ISREG(found.st_mode) else 0o644
        jobs.append((index, folder_fd, name, mode))
    if len(jobs) <= 1:
        written = {index: _write_temp(fd, name, changes[index].after or b"", mode) for index, fd, name, mode in jobs}
    else:
        written = {}
        futures: dict[int, Future[tuple[str, bytes]]] = {}
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(max_workers=min(FSYNC_THREADS, len(jobs)))
        try:
            for index, fd, name, mode in jobs:
                named = functools.partial(temps.__setitem__, index)
                futures[index] = pool.submit(_write_temp, fd, name, changes[index].after or b"", mode, named)
        finally:  # every file written is named in `temps`, even when this thread is interrupted
            interrupted = _wait_out(pool)
            failed: BaseException | None = interrupted
            for index, future in futures.items():
                if future.cancelled() or not future.done():
                    continue
                if future.exception() is not None:
                    failed = failed or future.exception()
                else:
                    written[index] = future.result()
                    temps[index] = written[index][0]
        if failed is not None:
            raise failed
    for index, (temp, _) in written.items():
        temps[index] = temp
    for index, folder_fd, name, mode in jobs:
        temps[index] = write_new(folder_fd, name, changes[index], verify, mode, written[index])


def replace_files(folders: Folders, changes: list[FileChange], verify: Verifier | None, done: list[Replaced]) -> None:
    """Put every file of a change in place, each checked against `change.before` at the moment it
    is replaced, and note each in `done` (so the change can be undone) as soon as it is in place.

    The new versions are written and fsynced first, all of them (the fsyncs overlapped); then
    each file is checked and swapped in, one after another; then each folder is fsynced once. A
    file written meanwhile by anyone, with plain file I/O too, is refused as it would be one at a
    time: it is read at the moment before its swap, and the swap hands back what it replaced."""
    temps: dict[int, str] = {}
    try:
        _write_all_new(folders, changes, verify, temps)
        for index, change in enumerate(changes):
            _swap_in_new(folders, index, change, temps, done)
            crashpoint.crash_point("file-written")
        for folder_fd in dict.fromkeys(replaced.folder_fd for replaced in done):
            fsync_folder(folder_fd)
    finally:
        _remove_temps(folders, changes, temps)


def _remove_temps(folders: Folders, changes: list[FileChange], temps: dict[int, str]) -> None:
    """Remove every temporary file a change left; a Ctrl+C landing meanwhile is held until the
    last is gone, then raised (let through at once, it would leave the rest in the vault)."""
    held: BaseException | None = None
    for index, temp in list(temps.items()):
        while True:
            try:
                Folders.remove_name(folders.fd(split(changes[index].path)[0]), temp)
                break
            except KeyboardInterrupt as exc:
                held = held or exc
    if held is not None:
        raise held


def _swap_in_new(folders: Folders, index: int, change: FileChange, temps: dict[int, str], done: list[Replaced]) -> None:
    """Check one file against `change.before` and put its new version (`temps[index]`, written
    already) in its place; the temporary name leaves `temps` once it no longer holds ours."""
    folder, name = split(change.path)
    folder_fd = folders.fd(folder, create=change.after is not None)
    old_fd = None
    try:
        if change.before is not None:
            old_fd = folders.open_file(change.path)
            if old_fd is None or read_fd(old_fd) != change.before:
                raise ConflictError(change.path)
        old = os.fstat(old_fd) if old_fd is not None else None
        if change.before is None and lstat_name(folder_fd, name) is not None:
            raise ConflictError(change.path)
        crashpoint.crash_point("before-rename")
        if change.after is None:
            aside = temporary_name(name)
            os.rename(name, aside, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
            done.append(Replaced(change, folder_fd, name, aside, old.st_ino if old else None, None))
        else:
            temp = temps[index]
            new_inode = os.stat(temp, dir_fd=folder_fd).st_ino
            if change.before is None:
                _create(folder_fd, temp, name, change.path)
                del temps[index]
                done.append(Replaced(change, folder_fd, name, None, None, new_inode))
            elif exchange(folder_fd, temp, name):
                del temps[index]  # the replaced file waits under that name now
                done.append(Replaced(change, folder_fd, name, temp, old.st_ino if old else None, new_inode))
            else:
                # The last look before a rename that cannot hand back what it replaced: the
                # name must still hold the file checked (the window left is this one call).
                if getattr(lstat_name(folder_fd, name), "st_ino", None) != (old.st_ino if old else None):
                    raise ConflictError(change.path)
                os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
                del temps[index]
                done.append(
                    Replaced(change, folder_fd, name, None, old.st_ino if old else None, new_inode, held=old_fd)
                )
                old_fd = None
        if not untouched(done[-1]):
            raise ConflictError(
                change.path,
                f"{change.path} was written by another process as it was replaced; "
                "its bytes are kept and nothing was written",
            )
    finally:
        if old_fd is not None:
            os.close(old_fd)


def _create(folder_fd: int, temp: str, name: str, path: str) -> None:
    """A new file under `name`, never over one that appeared meanwhile: a hard link fails if the
    name is taken (where links cannot be made, a last look and a rename)."""
    try:
        os.link(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd, follow_symlinks=False)
    except FileExistsError:
        raise ConflictError(path, f"{path} was created by another process meanwhile; nothing was written") from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS):
            raise
        if lstat_name(folder_fd, name) is not None:
            raise ConflictError(path) from None
        os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        return
    Folders.remove_name(folder_fd, temp)


def untouched(replaced: Replaced) -> bool:
    """Whether the file this one replaced is the one that was checked, still holding exactly the
    bytes the change was computed from."""
    before = replaced.change.before
    if before is None:
        return True
    if replaced.held is not None:
        return read_fd(replaced.held) == before
    assert replaced.aside is not None
    found = read_name(replaced.folder_fd, replaced.aside)
    return found is not None and found == (replaced.old_inode, before)


def overwritten(done: list[Replaced]) -> list[str]:
    """The files of a committed change that another process replaced (renamed over) right after
    they were written: the change is in the history, the file holds the other version."""
    lines = []
    for replaced in done:
        if (
            replaced.change.after is not None
            and getattr(lstat_name(replaced.folder_fd, replaced.name), "st_ino", None) != replaced.new_inode
        ):
            lines.append(
                f"{replaced.change.path} was replaced by another process right after this change wrote it; "
                "it holds that process's version, and this change is in the history"
            )
    return lines


def keep_bytes(folders: Folders, path: str, data: bytes, why: str) -> str:
    """Write a version of `path` that only these bytes hold under `.recovery/` (beside its place,
    under a visible name, where that cannot be); what was kept, in words."""
    target = recovery_name(folders, path)
    try:
        folders.write(target, data)
    except (OSError, UnsafePathError):
        folder, name = split(path)
        target = f"{folder}/.{name}.kept-{os.urandom(4).hex()}".lstrip("/")
        folders.write(target, data)
    return f"{path} {why}; what it wrote is kept in {target}"


def recovery_name(folders: Folders, path: str) -> str:
    """A free name under `.recovery/` for a version of `path`, stamped with the time."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target, counter = f"{RECOVERY_DIR}/{path}.{stamp}", 1
    while folders.lstat(target) is not None:
        counter += 1
        target = f"{RECOVERY_DIR}/{path}.{stamp}-{counter}"
    return target


def let_go(folders: Folders, done: list[Replaced]) -> list[str]:
    """Drop the replaced files once the change committed, looking at each one last time:
    bytes written to it after the last check (through a handle opened before the change)
    are kept under `.recovery/`; what was kept, in words."""
    kept: list[str] = []
    for replaced in done:
        before = replaced.change.before
        try:
            if replaced.held is not None:
                late = read_fd(replaced.held)
                os.close(replaced.held)
                replaced.held = None
            elif replaced.aside is not None:
                fd = os.open(replaced.aside, os.O_RDONLY | FILE_FLAGS, dir_fd=replaced.folder_fd)
                try:
                    Folders.remove_name(replaced.folder_fd, replaced.aside)
                    late = read_fd(fd)  # after the name went: a write that made it in is here
                finally:
                    os.close(fd)
            else:
                continue
        except OSError:
            continue  # a temporary name left behind is removed by the next open
        if before is not None and late != before:
            try:
                kept.append(
                    keep_bytes(folders, replaced.change.path, late, "was written by another process as it was replaced")
                )
            except (OSError, UnsafePathError) as exc:  # the change is in: say what could not be kept
                kept.append(
                    f"{replaced.change.path} was written by another process as it was replaced, and that could not be kept: {exc}"
                )
    return kept
