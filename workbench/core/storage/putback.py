"""Putting back the files of a change that was refused, without deleting a version anyone else
wrote.

A file is removed only when it is provably the change's own (its inode and bytes) or holds exactly
the bytes the change was made from. Anything else, a version another process wrote while the change
was in or renamed over a file in the instant between two looks, is kept under `.recovery/` (or
beside its place, under a visible name, where that cannot be) and named in what these functions
return, for the writer to put in the log and the notes. Replacing the files is `filereplace`.
"""

from __future__ import annotations

import errno
import os
import stat

from ..vocabulary.model import UnsafePathError
from .changes import FileChange
from .filereplace import Replaced, exchange, join_versions, keep_bytes, lstat_name, read_name, recovery_name, write_new
from .vaultfs import Folders, fsync_folder, read_fd, split, temporary_name

__all__ = ["put_back_all"]


def put_back_all(folders: Folders, done: list[Replaced]) -> list[str]:
    """Undo the files of a change that did not complete, last first; what could not be put
    back as it was, in words."""
    left: list[str] = []
    for replaced in reversed(done):
        try:
            left += _put_back(folders, replaced)
        except OSError as exc:
            left.append(f"{replaced.change.path} could not be put back ({exc.strerror})")
        finally:
            if replaced.held is not None:
                os.close(replaced.held)
                replaced.held = None
    return left


def _put_back(folders: Folders, replaced: Replaced) -> list[str]:
    kept = _put_back_file(folders, replaced)
    fsync_folder(replaced.folder_fd)
    return kept


def _put_back_file(folders: Folders, replaced: Replaced) -> list[str]:
    change, folder_fd, name = replaced.change, replaced.folder_fd, replaced.name
    now = read_name(folder_fd, name)
    ours = now is not None and now == (replaced.new_inode, change.after)
    if change.after is None:  # deleted: the file waits under `aside`
        assert replaced.aside is not None
        try:
            os.link(replaced.aside, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd, follow_symlinks=False)
        except FileExistsError:
            return [_keep(folders, replaced, f"a new {change.path} took its place")]
        Folders.remove_name(folder_fd, replaced.aside)
    elif change.before is None:  # created
        if ours:
            return _take_back(folders, folder_fd, name, change.path, (replaced.new_inode, change.after))
        if now is not None:
            return [f"{change.path} was written by another process after it was created; it keeps that version"]
    elif replaced.aside is not None:  # swapped: the replaced file waits under `aside`
        if ours:
            old = read_name(folder_fd, replaced.aside)
            if not exchange(folder_fd, replaced.aside, name):
                raise OSError(errno.ENOTSUP, "cannot swap the files back")
            # What came back is what held the name as it swapped: ours, or a file renamed over
            # ours since the look just before (then it is someone's, and kept).
            kept = _drop(
                folders,
                folder_fd,
                replaced.aside,
                change.path,
                (replaced.new_inode, change.after),
                "was replaced by another process as the change was undone",
            )
            return kept + _copy_written(folders, change, old[1] if old else None)
        # Written on since it went in: undo the change in it, keeping every writer's bytes.
        old = read_name(folder_fd, replaced.aside)
        joined = (
            join_versions(change.before, change.after, old[1], now[1])
            if old and now and change.before is not None
            else None
        )
        if joined is None:
            return [
                _keep(
                    folders,
                    replaced,
                    "it was written by another process after it was replaced, and keeps that version",
                )
            ]
        kept = []
        if not _swap_in(folders, folder_fd, name, change.path, joined, now, kept):
            return kept + [
                _keep(
                    folders,
                    replaced,
                    "it was written by another process after it was replaced, and keeps that version",
                )
            ]
        # The version the others' bytes were joined from stays too: a writer that read the file
        # before the join may put back a version without them.
        return kept + [
            _keep(
                folders,
                replaced,
                "it was written by another process while it was replaced; both writers' lines are joined in it",
            )
        ]
    else:  # renamed over; the replaced file is held open
        assert replaced.held is not None and change.before is not None
        old_bytes = read_fd(replaced.held)
        joined = old_bytes if ours else join_versions(change.before, change.after, old_bytes, now[1]) if now else None
        kept = []
        if joined is None or not _swap_in(folders, folder_fd, name, change.path, joined, now, kept):
            if old_bytes != change.before:
                return kept + [
                    keep_bytes(folders, change.path, old_bytes, "was written by another process while it was replaced")
                ]
            return kept + [f"{change.path} was written by another process after it was replaced; it keeps that version"]
        return kept + _copy_written(folders, change, old_bytes)
    return []


def _copy_written(folders: Folders, change: FileChange, put_back: bytes | None) -> list[str]:
    """A copy under `.recovery/` of a version others wrote while the change was in, now put back
    (whole, or joined): a writer that read the file in that moment saw the change's version
    without their bytes, and may yet rename it, plus its own, over them."""
    if put_back is None or put_back == change.before:
        return []
    return [
        keep_bytes(
            folders,
            change.path,
            put_back,
            "was written by another process while the change was in; that version is put back",
        )
    ]


def _swap_in(
    folders: Folders,
    folder_fd: int,
    name: str,
    path: str,
    data: bytes,
    expected: tuple[int, bytes] | None,
    kept: list[str],
) -> bool:
    """Put `data` under `name` if the file there is still `expected` (inode, bytes); False, with
    nothing changed, if another process wrote it meanwhile. A file renamed over the name in the
    instant between the two swaps of a failed attempt is kept, said in `kept`."""
    if expected is None:
        return False
    found = lstat_name(folder_fd, name)
    temp: str | None = write_new(
        folder_fd, name, FileChange(path, expected[1], data), None, stat.S_IMODE(found.st_mode) if found else 0o644
    )
    assert temp is not None
    mine = (os.stat(temp, dir_fd=folder_fd, follow_symlinks=False).st_ino, data)
    try:
        if exchange(folder_fd, temp, name):
            if read_name(folder_fd, temp) == expected:
                return True  # the file it replaced, now under `temp`, goes below
            exchange(folder_fd, temp, name)
            # Back under `temp` is what held the name as it swapped back: ours, or someone's.
            kept += _drop(folders, folder_fd, temp, path, mine, "was replaced by another process as it was put back")
            temp = None
            return False
        if read_name(folder_fd, name) != expected:
            return False
        os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        temp = None
        return True
    finally:
        if temp is not None:
            Folders.remove_name(folder_fd, temp)


def _drop(
    folders: Folders,
    folder_fd: int,
    name: str,
    path: str,
    expected: tuple[int | None, bytes | None] | None,
    why: str,
) -> list[str]:
    """Delete the file under the temporary `name` if it is `expected` (inode, bytes); anything
    else is someone's version of `path`, kept under `.recovery/`: what was kept, in words."""
    found = read_name(folder_fd, name)
    if found is None:
        return []
    if expected is not None and found == expected:
        Folders.remove_name(folder_fd, name)
        return []
    return [_keep_name(folders, folder_fd, name, path, why)]


def _take_back(
    folders: Folders, folder_fd: int, name: str, path: str, expected: tuple[int | None, bytes | None]
) -> list[str]:
    """Remove a file this change created, by moving the name away in one step and looking at
    what it held: a file another process put there meanwhile is put back, or kept."""
    aside = temporary_name(name)
    try:
        os.rename(name, aside, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
    except FileNotFoundError:
        return []
    found = read_name(folder_fd, aside)
    if found is not None and found == expected:
        Folders.remove_name(folder_fd, aside)
        return []
    try:
        os.link(aside, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd, follow_symlinks=False)
        Folders.remove_name(folder_fd, aside)
        return [f"{path} was written by another process after it was created; it keeps that version"]
    except OSError:
        return [_keep_name(folders, folder_fd, aside, path, "was written by another process after it was created")]


def _keep_name(folders: Folders, folder_fd: int, name: str, path: str, why: str) -> str:
    """Move the file under `name` (beside `path`) to `.recovery/`: a version of `path` that
    only it holds. Where it cannot go there, it stays beside `path` under a visible name."""
    target = recovery_name(folders, path)
    try:
        folder, target_name = split(target)
        os.rename(name, target_name, src_dir_fd=folder_fd, dst_dir_fd=folders.fd(folder, create=True))
    except (OSError, UnsafePathError):
        target = f"{split(path)[0]}/.{split(path)[1]}.kept-{os.urandom(4).hex()}".lstrip("/")
        os.rename(name, split(target)[1], src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
    return f"{path} {why}; that version is kept in {target}"


def _keep(folders: Folders, replaced: Replaced, why: str) -> str:
    """Move the replaced file, under `aside`, to `.recovery/` (or beside its place) instead of
    dropping it: someone may have written to it."""
    assert replaced.aside is not None
    found = read_name(replaced.folder_fd, replaced.aside)
    if found is not None and found[1] == replaced.change.before:
        Folders.remove_name(replaced.folder_fd, replaced.aside)
        return f"{replaced.change.path}: {why}"
    target = recovery_name(folders, replaced.change.path)
    try:
        folder, name = split(target)
        os.rename(replaced.aside, name, src_dir_fd=replaced.folder_fd, dst_dir_fd=folders.fd(folder, create=True))
    except (OSError, UnsafePathError):
        target = f"{split(replaced.change.path)[0]}/.{replaced.name}.kept-{os.urandom(4).hex()}".lstrip("/")
        os.rename(replaced.aside, split(target)[1], src_dir_fd=replaced.folder_fd, dst_dir_fd=replaced.folder_fd)
    return f"{replaced.change.path}: {why}; the version it replaced is kept in {target}"
