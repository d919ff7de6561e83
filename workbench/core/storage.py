"""Writing files so that nothing is ever lost: atomic, checked replacement and the change journal.

A change is a list of whole-file replacements (`FileChange`: the bytes before, the bytes after).
`ChangeWriter.apply` carries it out under the vault lock (`lock.py`): it refuses if any file is no
longer what the change was computed from, records the change in a journal, writes each file
(a unique temporary file in the same folder, fsync, read back and checked, then swapped in, the
folder fsynced), and only then marks the journal committed. The next open of the vault finds any
journal a crash left: an uncommitted change is rolled back, a committed one is finished, and
stray temporary files are removed. Committed journals move to the history, which is what undo
reads; an undo or a redo names in its own journal the history record it moves between the history
and the redo stack (`undo.py`), and a new change clears the redo stack, so a crash finishes that
move with the change or leaves both undone, never one without the other. Every path is reached through `vaultfs.Folders`: never through a symlink, and a path read
back from a journal or the history must be a normal path inside the vault, or the record is set
aside under `.workbench/refused/` and named in the notes.

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
dropped and kept under `.recovery/`, said in the log.

No version of a file that anyone else wrote is deleted unseen. A file is removed only when it is
provably the change's own (its inode and bytes) or holds exactly the bytes the change was made
from; anything else a swap hands back, and any version others wrote that a refused change puts
back (a tool that read the change's version in that instant may still rename it, plus its own
line, over theirs), is kept under `.recovery/` and named in the log and the notes. The protocol
for agents that write the files themselves is in docs/agents-file-protocol.md.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import errno
import json
import os
import re
import stat
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterable
from typing import Any, Callable

from .files import read_file
from .lock import LockTimeout, VaultLock
from .model import ConflictError, UnsafePathError, WorkbenchError
from .textmerge import merge3
from .vaultfs import (
    FILE_FLAGS,
    RECOVERY_DIR,
    TEMP_MARK,
    Folders,
    first_link,
    fsync_folder,
    is_temporary,
    read_fd,
    relative_path,
    split,
    temporary_name,
    unsafe_reason,
    write_all,
)

__all__ = [
    "sync_folders",
    "FileChange",
    "VaultLock",
    "LockTimeout",
    "WriteError",
    "ChangeWriter",
    "write_atomic",
    "write_all",
    "read_bytes",
    "TEMP_MARK",
    "USE_EXCHANGE",
    "crash_point",
]

HISTORY_KEEP = 200
_RECORD_NAME = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]*\.json")  # a history record's name: never a path
_TEMP_NAME = re.compile(r"\.(.+)" + re.escape(TEMP_MARK) + r"[0-9a-f]{12}\.tmp")  # temporary_name's names
RENAME_EXCHANGE = 2  # Linux's RENAME_EXCHANGE and macOS's RENAME_SWAP alike
# Swap a new file and the one it replaces in one step where the system can (Linux renameat2); off,
# every replacement takes the plain-rename way that other systems take.
USE_EXCHANGE = True


class WriteError(WorkbenchError):
    """A file did not read back as written, twice; the change was rolled back."""


def crash_point(name: str) -> None:
    """A named step where tests kill the process (`WORKBENCH_CRASH_AT=name[:n]`) to prove recovery,
    or act as an agent would at that moment (by replacing this function)."""
    wanted = os.environ.get("WORKBENCH_CRASH_AT")
    if not wanted:
        return
    step, _, count = wanted.partition(":")
    if step != name:
        return
    remaining = int(count or 1) - 1
    if remaining <= 0:
        os._exit(137)
    os.environ["WORKBENCH_CRASH_AT"] = f"{step}:{remaining}"


@dataclass(frozen=True)
class FileChange:
    """One file's replacement: `before` None means it did not exist, `after` None deletes it."""

    path: str  # relative to the vault root, with forward slashes
    before: bytes | None
    after: bytes | None


def read_bytes(path: Path) -> bytes | None:
    """The bytes of the regular file at `path`, None when there is none. A symlink as the last part
    is refused (UnsafePathError); a named pipe, a folder or a file that cannot be read raises
    `UnreadableFile` (an OSError): reading a pipe would wait for a writer forever."""
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise UnsafePathError(f"{path} is a symbolic link; it is not read")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        pass  # read_file says what is wrong, naming the file
    return read_file(path)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, sync_folder: bool = True) -> None:
    """Replace `path` with `data` so that a crash leaves either the old or the new file, never half.
    For files outside a vault (a migration's new vault); a vault's own go through `ChangeWriter`.
    A caller writing many files into a few folders passes `sync_folder=False` and syncs each
    folder once at the end (`sync_folders`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.parent / f".{path.name}{TEMP_MARK}{uuid.uuid4().hex[:12]}.tmp"
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o644
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        crash_point("before-rename")
        os.replace(temp, path)
    except BaseException:
        try:
            temp.unlink()
        except FileNotFoundError:
            pass
        raise
    if sync_folder:
        _fsync_dir(path.parent)


def sync_folders(paths: Iterable[Path]) -> None:
    """Make the renames into these files' folders durable, one fsync per folder."""
    for folder in sorted({path.parent for path in paths}):
        _fsync_dir(folder)


_renameat2: Any = None


def _exchange(folder_fd: int, first: str, second: str) -> bool:
    """Swap two names in one folder in one step; False where the system cannot (then nothing moved)."""
    global _renameat2
    if not USE_EXCHANGE:
        return False
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


def _lstat(folder_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _read_name(folder_fd: int, name: str) -> tuple[int, bytes] | None:
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


def _encode(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _decode(data: object) -> bytes | None:
    if data is None:
        return None
    if not isinstance(data, str):
        raise ValueError("file bytes that are not base64 text")
    return base64.b64decode(data, validate=True)


def _join(before: bytes, after: bytes, old: bytes, now: bytes) -> bytes | None:
    """A file with a change undone and every other writer's bytes kept: `old` is the replaced file
    as others left it (it held `before`), `now` the new one as others left it (it held `after`).
    None when the edits cannot be told apart."""
    if old.startswith(before) and now.startswith(after):
        return old + now[len(after) :]  # appends, the common case: in the order they were made
    texts = [data.decode("utf-8", "surrogateescape") for data in (before, after, old, now)]
    undone = merge3(texts[1], texts[3], texts[0])  # `before`, with the edits made to our version
    joined = merge3(texts[0], undone, texts[2]) if undone is not None else None  # and those made to the old one
    return None if joined is None else joined.encode("utf-8", "surrogateescape")


Verifier = Callable[[str, bytes], str | None]


@dataclass
class _Replaced:
    """A file of a change in progress, replaced and not yet let go: the replaced file stays under
    `aside` (or open, `held`) until the change commits, so that it can be checked and put back."""

    change: FileChange
    folder_fd: int
    name: str
    aside: str | None  # the name the replaced (or deleted) file waits under
    old_inode: int | None
    new_inode: int | None
    held: int | None = None  # the replaced file held open, where names could not be swapped


class ChangeWriter:
    """Applies changes to the files under `root`, with journal, verification and history.

    `notes` collects, for a person to read, what the writer did beyond the change it was asked for
    (a record set aside, an agent's late bytes kept)."""

    def __init__(self, root: Path, state_dir: Path, lock: VaultLock, log_path: Path, notes: list[str] | None = None):
        self.root = root
        self.state = state_dir.name
        self.journal_dir = state_dir / "journal"
        self.history_dir = state_dir / "history"
        self.journal = f"{self.state}/journal"
        self.history_folder = f"{self.state}/history"
        self.redo_folder = f"{self.history_folder}/redo"  # steps undone since the last new change
        self.undone_folder = f"{self.history_folder}/undone"  # undone steps no longer redoable, kept for forget
        self.refused_folder = f"{self.state}/refused"
        self.lock = lock
        self.log_path = log_path
        # State of a vault of another format is kept outside it (the user's cache): reached under
        # its folder's name, as if it were in the vault, through a mount of the folder handles.
        self.mounts = {} if state_dir.parent == root else {self.state: state_dir}
        self.log_name = (
            log_path.relative_to(root).as_posix() if log_path.is_relative_to(root) else f"{self.state}/{log_path.name}"
        )
        self.notes: list[str] = [] if notes is None else notes
        self.opened = time.time()
        """When this writer (the vault, opened) started: a step made before it is from an earlier session."""
        self.made_here: set[str] = set()
        """The ids of the changes this writer made: the rest of the history came from other processes."""

    def _folders(self) -> Folders:
        return Folders(self.root, self.mounts)

    def _root_of(self, path: str) -> Path:
        """The folder a vault-relative path of ours is under: the vault's, or, for state kept
        outside it, the folder that holds that state."""
        first = path.split("/", 1)[0]
        return self.mounts[first].parent if first in self.mounts else self.root

    # -- applying -------------------------------------------------------------------------------

    def apply(
        self,
        changes: list[FileChange],
        summary: str,
        log_lines: list[str],
        verify: Verifier | None = None,
        keep_history: bool = True,
        step: tuple[str, str] | None = None,
    ) -> str:
        """Write every change or none; returns the change's id. Raises ConflictError, with nothing
        of the change written, if a file is not what the change was computed from, before or while
        it is written; UnsafePathError, before writing anything, for a symlink on any path.

        `step` is ("undo", record name) or ("redo", record name) for an undo or a redo: the record
        moves to the redo stack or back to the history as the change finishes. Any other change
        clears the redo stack."""
        changes = [c for c in changes if c.before != c.after]
        if not changes:
            return ""
        for change in changes:
            relative_path(change.path)
        with self.lock, self._folders() as folders:
            if any(name.endswith(".json") for name in self._names(folders, self.journal)):
                self.notes.extend(self._recover_journals(folders))  # a holder that died left it
            self.check_state(*([self.history_folder, self.redo_folder] if step else []), keep_history=keep_history)
            for change in changes:
                self._refuse_unsafe(folders, change.path)
            for change in changes:
                if folders.read(change.path) != change.before:
                    raise ConflictError(change.path)
            # Nanoseconds in the id: two changes in one second must still sort in the order they
            # were made, or undo would take the wrong one. Second and nanoseconds come from one
            # reading of the clock: read twice, a change made as the second turns sorted first.
            now = time.time_ns()
            second = time.strftime("%Y%m%dT%H%M%S", time.localtime(now // 1_000_000_000))
            change_id = f"{second}.{now % 1_000_000_000:09d}-{uuid.uuid4().hex[:8]}"
            record = {
                "id": change_id,
                "summary": summary,
                "time": time.time(),
                "state": "prepared",
                "log": log_lines,
                "files": [{"path": c.path, "before": _encode(c.before), "after": _encode(c.after)} for c in changes],
                "keep_history": keep_history,  # a forget killed after it committed must never become undoable
                **({"step": list(step)} if step else {}),
            }
            journal = f"{self.journal}/{change_id}.json"
            self._write_state(folders, journal, record)
            crash_point("journal-written")
            done: list[_Replaced] = []
            try:
                for change in changes:
                    self._replace(folders, change, verify, done)
                    crash_point("file-written")
                for replaced in done:  # the last look: nobody wrote to a replaced file meanwhile
                    if not self._untouched(replaced):
                        raise ConflictError(
                            replaced.change.path,
                            f"{replaced.change.path} was written by another process while "
                            "the change was made; its bytes are kept and nothing was written",
                        )
            except BaseException as exc:
                left = self._put_back_all(folders, done)
                folders.remove(journal)
                self._tell(folders, [f"{summary}: not made; {line}" for line in left])
                if left and isinstance(exc, ConflictError):
                    raise ConflictError(exc.path, f"{exc}; but {'; '.join(left)}") from None
                raise
            record["state"] = "committed"
            self._write_state(folders, journal, record)
            crash_point("committed")
            late = self._let_go(folders, done) + self._overwritten(done)
            self._finish(folders, journal, record, keep_history, late)
            self.made_here.add(change_id)
            return change_id

    def check_state(self, *also: str, keep_history: bool = True) -> None:
        """Refuse (UnsafePathError) when the journal's or the history's folder (or those in `also`)
        or the log is a symlink, or the log not a regular file: nothing is written or deleted then."""
        blocked = self.blocked(*also, keep_history=keep_history)
        if blocked:
            raise UnsafePathError(blocked[1])

    def blocked(self, *also: str, keep_history: bool = True) -> tuple[str, str] | None:
        """(path, why) of what makes `check_state` refuse every change, or None: for `check` to
        report before a change is tried."""
        folders = [self.state, self.journal, *([self.history_folder] if keep_history else []), *also]
        for folder in folders:
            why = unsafe_reason(self._root_of(folder), folder, regular=False)
            if why:
                return folder, why
        why = unsafe_reason(self._root_of(self.log_name), self.log_name)
        if why:
            return self.log_name, f"{why}; the change log cannot be written"
        return None

    def _refuse_unsafe(self, folders: Folders, path: str) -> None:
        folder, _ = split(path)
        try:
            folders.fd(folder)  # every part that exists is opened: a symlink among them is refused
        except FileNotFoundError:
            link = first_link(self._root_of(path), path)
            if link:
                raise UnsafePathError(
                    f"{link} is a symbolic link; the workbench never writes or deletes through one"
                ) from None
            return
        found = folders.lstat(path)
        if found is not None and not stat.S_ISREG(found.st_mode):
            why = unsafe_reason(self._root_of(path), path)
            raise UnsafePathError(why or f"{path} is not a regular file")

    @staticmethod
    def _names(folders: Folders, folder: str) -> list[str]:
        try:
            return folders.names(folder)
        except UnsafePathError:
            return []

    def _write_state(self, folders: Folders, path: str, record: dict[str, Any]) -> None:
        folders.write(path, json.dumps(record).encode("utf-8"), before_rename=lambda: crash_point("before-rename"))

    def _write_new(self, folder_fd: int, name: str, change: FileChange, verify: Verifier | None, mode: int) -> str:
        """A temporary file beside `name` holding `change.after`, fsynced, read back and checked;
        written again once if it reads back wrong. Its name."""
        assert change.after is not None
        failure = ""
        for _attempt in (1, 2):
            temp = temporary_name(name)
            fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_EXCL | FILE_FLAGS, mode, dir_fd=folder_fd)
            try:
                write_all(fd, change.after)
                os.fsync(fd)
                back = read_fd(fd)
            finally:
                os.close(fd)
            failure = None if back == change.after else "the file read back differs from what was written"
            if failure is None and verify is not None:
                failure = verify(change.path, back)
            if failure is None:
                return temp
            Folders.remove_name(folder_fd, temp)
        raise WriteError(f"{change.path}: {failure}; the change was rolled back")

    def _replace(self, folders: Folders, change: FileChange, verify: Verifier | None, done: list[_Replaced]) -> None:
        """Put one file of the change in place, checked against `change.before` at that moment, and
        note it in `done` (so the change can be undone) as soon as it is in place."""
        folder, name = split(change.path)
        folder_fd = folders.fd(folder, create=change.after is not None)
        old_fd = None
        temp = None
        try:
            if change.before is not None:
                old_fd = folders.open_file(change.path)
                if old_fd is None:
                    raise ConflictError(change.path)
            old = os.fstat(old_fd) if old_fd is not None else None
            if change.after is not None:
                temp = self._write_new(folder_fd, name, change, verify, stat.S_IMODE(old.st_mode) if old else 0o644)
            if old_fd is not None and read_fd(old_fd) != change.before:
                raise ConflictError(change.path)
            if change.before is None and _lstat(folder_fd, name) is not None:
                raise ConflictError(change.path)
            crash_point("before-rename")
            if change.after is None:
                aside = temporary_name(name)
                os.rename(name, aside, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
                done.append(_Replaced(change, folder_fd, name, aside, old.st_ino if old else None, None))
            else:
                assert temp is not None
                new_inode = os.stat(temp, dir_fd=folder_fd).st_ino
                if change.before is None:
                    self._create(folder_fd, temp, name, change.path)
                    done.append(_Replaced(change, folder_fd, name, None, None, new_inode))
                elif _exchange(folder_fd, temp, name):
                    done.append(_Replaced(change, folder_fd, name, temp, old.st_ino if old else None, new_inode))
                else:
                    # The last look before a rename that cannot hand back what it replaced: the
                    # name must still hold the file checked (the window left is this one call).
                    if getattr(_lstat(folder_fd, name), "st_ino", None) != (old.st_ino if old else None):
                        raise ConflictError(change.path)
                    os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
                    done.append(
                        _Replaced(change, folder_fd, name, None, old.st_ino if old else None, new_inode, held=old_fd)
                    )
                    old_fd = None
                temp = None
            fsync_folder(folder_fd)
            if not self._untouched(done[-1]):
                raise ConflictError(
                    change.path,
                    f"{change.path} was written by another process as it was replaced; "
                    "its bytes are kept and nothing was written",
                )
        finally:
            if old_fd is not None:
                os.close(old_fd)
            if temp is not None:
                Folders.remove_name(folder_fd, temp)

    @staticmethod
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
            if _lstat(folder_fd, name) is not None:
                raise ConflictError(path) from None
            os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
            return
        Folders.remove_name(folder_fd, temp)

    @staticmethod
    def _untouched(replaced: _Replaced) -> bool:
        """Whether the file this one replaced is the one that was checked, still holding exactly the
        bytes the change was computed from."""
        before = replaced.change.before
        if before is None:
            return True
        if replaced.held is not None:
            return read_fd(replaced.held) == before
        assert replaced.aside is not None
        found = _read_name(replaced.folder_fd, replaced.aside)
        return found is not None and found == (replaced.old_inode, before)

    def _put_back_all(self, folders: Folders, done: list[_Replaced]) -> list[str]:
        """Undo the files of a change that did not complete, last first; what could not be put
        back as it was, in words."""
        left: list[str] = []
        for replaced in reversed(done):
            try:
                left += self._put_back(folders, replaced)
            except OSError as exc:
                left.append(f"{replaced.change.path} could not be put back ({exc.strerror})")
            finally:
                if replaced.held is not None:
                    os.close(replaced.held)
                    replaced.held = None
        return left

    def _put_back(self, folders: Folders, replaced: _Replaced) -> list[str]:
        kept = self._put_back_file(folders, replaced)
        fsync_folder(replaced.folder_fd)
        return kept

    def _put_back_file(self, folders: Folders, replaced: _Replaced) -> list[str]:
        change, folder_fd, name = replaced.change, replaced.folder_fd, replaced.name
        now = _read_name(folder_fd, name)
        ours = now is not None and now == (replaced.new_inode, change.after)
        if change.after is None:  # deleted: the file waits under `aside`
            assert replaced.aside is not None
            try:
                os.link(replaced.aside, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd, follow_symlinks=False)
            except FileExistsError:
                return [self._keep(folders, replaced, f"a new {change.path} took its place")]
            Folders.remove_name(folder_fd, replaced.aside)
        elif change.before is None:  # created
            if ours:
                return self._take_back(folders, folder_fd, name, change.path, (replaced.new_inode, change.after))
            if now is not None:
                return [f"{change.path} was written by another process after it was created; it keeps that version"]
        elif replaced.aside is not None:  # swapped: the replaced file waits under `aside`
            if ours:
                old = _read_name(folder_fd, replaced.aside)
                if not _exchange(folder_fd, replaced.aside, name):
                    raise OSError(errno.ENOTSUP, "cannot swap the files back")
                # What came back is what held the name as it swapped: ours, or a file renamed over
                # ours since the look just before (then it is someone's, and kept).
                kept = self._drop(
                    folders,
                    folder_fd,
                    replaced.aside,
                    change.path,
                    (replaced.new_inode, change.after),
                    "was replaced by another process as the change was undone",
                )
                return kept + self._copy_written(folders, change, old[1] if old else None)
            # Written on since it went in: undo the change in it, keeping every writer's bytes.
            old = _read_name(folder_fd, replaced.aside)
            joined = (
                _join(change.before, change.after, old[1], now[1])
                if old and now and change.before is not None
                else None
            )
            if joined is None:
                return [
                    self._keep(
                        folders,
                        replaced,
                        "it was written by another process after it was replaced, and keeps that version",
                    )
                ]
            kept: list[str] = []
            if not self._swap_in(folders, folder_fd, name, change.path, joined, now, kept):
                return kept + [
                    self._keep(
                        folders,
                        replaced,
                        "it was written by another process after it was replaced, and keeps that version",
                    )
                ]
            # The version the others' bytes were joined from stays too: a writer that read the file
            # before the join may put back a version without them.
            return kept + [
                self._keep(
                    folders,
                    replaced,
                    "it was written by another process while it was replaced; both writers' lines are joined in it",
                )
            ]
        else:  # renamed over; the replaced file is held open
            assert replaced.held is not None and change.before is not None
            old_bytes = read_fd(replaced.held)
            joined = old_bytes if ours else _join(change.before, change.after, old_bytes, now[1]) if now else None
            kept = []
            if joined is None or not self._swap_in(folders, folder_fd, name, change.path, joined, now, kept):
                if old_bytes != change.before:
                    return kept + [
                        self._keep_bytes(
                            folders, change.path, old_bytes, "was written by another process while it was replaced"
                        )
                    ]
                return kept + [
                    f"{change.path} was written by another process after it was replaced; it keeps that version"
                ]
            return kept + self._copy_written(folders, change, old_bytes)
        return []

    def _copy_written(self, folders: Folders, change: FileChange, put_back: bytes | None) -> list[str]:
        """A copy under `.recovery/` of a version others wrote while the change was in, now put back
        (whole, or joined): a writer that read the file in that moment saw the change's version
        without their bytes, and may yet rename it, plus its own, over them."""
        if put_back is None or put_back == change.before:
            return []
        return [
            self._keep_bytes(
                folders,
                change.path,
                put_back,
                "was written by another process while the change was in; that version is put back",
            )
        ]

    def _swap_in(
        self,
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
        found = _lstat(folder_fd, name)
        temp: str | None = self._write_new(
            folder_fd, name, FileChange(path, expected[1], data), None, stat.S_IMODE(found.st_mode) if found else 0o644
        )
        assert temp is not None
        mine = (os.stat(temp, dir_fd=folder_fd, follow_symlinks=False).st_ino, data)
        try:
            if _exchange(folder_fd, temp, name):
                if _read_name(folder_fd, temp) == expected:
                    return True  # the file it replaced, now under `temp`, goes below
                _exchange(folder_fd, temp, name)
                # Back under `temp` is what held the name as it swapped back: ours, or someone's.
                kept += self._drop(
                    folders, folder_fd, temp, path, mine, "was replaced by another process as it was put back"
                )
                temp = None
                return False
            if _read_name(folder_fd, name) != expected:
                return False
            os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
            temp = None
            return True
        finally:
            if temp is not None:
                Folders.remove_name(folder_fd, temp)

    def _drop(
        self,
        folders: Folders,
        folder_fd: int,
        name: str,
        path: str,
        expected: tuple[int | None, bytes | None] | None,
        why: str,
    ) -> list[str]:
        """Delete the file under the temporary `name` if it is `expected` (inode, bytes); anything
        else is someone's version of `path`, kept under `.recovery/`: what was kept, in words."""
        found = _read_name(folder_fd, name)
        if found is None:
            return []
        if expected is not None and found == expected:
            Folders.remove_name(folder_fd, name)
            return []
        return [self._keep_name(folders, folder_fd, name, path, why)]

    def _take_back(
        self, folders: Folders, folder_fd: int, name: str, path: str, expected: tuple[int | None, bytes | None]
    ) -> list[str]:
        """Remove a file this change created, by moving the name away in one step and looking at
        what it held: a file another process put there meanwhile is put back, or kept."""
        aside = temporary_name(name)
        try:
            os.rename(name, aside, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        except FileNotFoundError:
            return []
        found = _read_name(folder_fd, aside)
        if found is not None and found == expected:
            Folders.remove_name(folder_fd, aside)
            return []
        try:
            os.link(aside, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd, follow_symlinks=False)
            Folders.remove_name(folder_fd, aside)
            return [f"{path} was written by another process after it was created; it keeps that version"]
        except OSError:
            return [
                self._keep_name(folders, folder_fd, aside, path, "was written by another process after it was created")
            ]

    def _keep_name(self, folders: Folders, folder_fd: int, name: str, path: str, why: str) -> str:
        """Move the file under `name` (beside `path`) to `.recovery/`: a version of `path` that
        only it holds. Where it cannot go there, it stays beside `path` under a visible name."""
        target = self._recovery_name(folders, path)
        try:
            folder, target_name = split(target)
            os.rename(name, target_name, src_dir_fd=folder_fd, dst_dir_fd=folders.fd(folder, create=True))
        except (OSError, UnsafePathError):
            target = f"{split(path)[0]}/.{split(path)[1]}.kept-{uuid.uuid4().hex[:8]}".lstrip("/")
            os.rename(name, split(target)[1], src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        return f"{path} {why}; that version is kept in {target}"

    def _keep(self, folders: Folders, replaced: _Replaced, why: str) -> str:
        """Move the replaced file, under `aside`, to `.recovery/` (or beside its place) instead of
        dropping it: someone may have written to it."""
        assert replaced.aside is not None
        found = _read_name(replaced.folder_fd, replaced.aside)
        if found is not None and found[1] == replaced.change.before:
            Folders.remove_name(replaced.folder_fd, replaced.aside)
            return f"{replaced.change.path}: {why}"
        target = self._recovery_name(folders, replaced.change.path)
        try:
            folder, name = split(target)
            os.rename(replaced.aside, name, src_dir_fd=replaced.folder_fd, dst_dir_fd=folders.fd(folder, create=True))
        except (OSError, UnsafePathError):
            target = f"{split(replaced.change.path)[0]}/.{replaced.name}.kept-{uuid.uuid4().hex[:8]}".lstrip("/")
            os.rename(replaced.aside, split(target)[1], src_dir_fd=replaced.folder_fd, dst_dir_fd=replaced.folder_fd)
        return f"{replaced.change.path}: {why}; the version it replaced is kept in {target}"

    def _keep_bytes(self, folders: Folders, path: str, data: bytes, why: str) -> str:
        target = self._recovery_name(folders, path)
        try:
            folders.write(target, data)
        except (OSError, UnsafePathError):
            folder, name = split(path)
            target = f"{folder}/.{name}.kept-{uuid.uuid4().hex[:8]}".lstrip("/")
            folders.write(target, data)
        return f"{path} {why}; what it wrote is kept in {target}"

    @staticmethod
    def _recovery_name(folders: Folders, path: str) -> str:
        stamp = time.strftime("%Y%m%dT%H%M%S")
        target, counter = f"{RECOVERY_DIR}/{path}.{stamp}", 1
        while folders.lstat(target) is not None:
            counter += 1
            target = f"{RECOVERY_DIR}/{path}.{stamp}-{counter}"
        return target

    def _tell(self, folders: Folders, lines: list[str]) -> None:
        """Say in the notes and in the log what a refused change did to keep others' bytes."""
        if not lines:
            return
        self.notes.extend(lines)
        try:
            self._append_log(folders, [f"- {time.strftime('%Y-%m-%d %H:%M')} {line}" for line in lines])
        except (OSError, UnsafePathError):
            pass  # the notes still say it, and the refusal's message

    def _overwritten(self, done: list[_Replaced]) -> list[str]:
        """The files of a committed change that another process replaced (renamed over) right after
        they were written: the change is in the history, the file holds the other version."""
        lines = []
        for replaced in done:
            if (
                replaced.change.after is not None
                and getattr(_lstat(replaced.folder_fd, replaced.name), "st_ino", None) != replaced.new_inode
            ):
                lines.append(
                    f"{replaced.change.path} was replaced by another process right after this change wrote it; "
                    "it holds that process's version, and this change is in the history"
                )
        self.notes.extend(lines)
        return lines

    def _let_go(self, folders: Folders, done: list[_Replaced]) -> list[str]:
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
                        self._keep_bytes(
                            folders, replaced.change.path, late, "was written by another process as it was replaced"
                        )
                    )
                except (OSError, UnsafePathError) as exc:  # the change is in: say what could not be kept
                    kept.append(
                        f"{replaced.change.path} was written by another process as it was replaced, and that could not be kept: {exc}"
                    )
        self.notes.extend(kept)  # the names dropped need no fsync: a crash leaves them to the next open
        return kept

    def _restore(self, folders: Folders, path: str, data: bytes | None) -> None:
        if data is None:
            folders.remove(path)
        else:
            folders.write(path, data)

    def _finish(
        self, folders: Folders, journal: str, record: dict[str, Any], keep_history: bool, more: list[str] = ()
    ) -> None:
        lines = list(record.get("log") or [])
        lines += [f"- {time.strftime('%Y-%m-%d %H:%M')} {line}" for line in more]
        try:
            self._append_log(folders, lines)
        except UnsafePathError as exc:
            self.notes.append(f"the change log could not be written: {exc}")
        crash_point("logged")
        self._move_step(folders, record.get("step"))
        name = split(journal)[1]
        if keep_history:
            folders.move(journal, f"{self.history_folder}/{name}")
            self._trim(folders, self.history_folder)
        else:
            folders.remove(journal)
        crash_point("cleaned")

    def _append_log(self, folders: Folders, lines: list[str]) -> None:
        if not lines:
            return
        fd = folders.open_file(self.log_name, os.O_RDWR | os.O_APPEND | os.O_CREAT, create_folders=True)
        assert fd is not None
        try:
            existing = read_fd(fd)
            text = "".join(line.rstrip("\n") + "\n" for line in lines)
            if existing and existing.decode("utf-8", "replace").endswith(text):
                return  # a recovered change whose log line already landed
            lead = b"# Log\n\n" if not existing else b"" if existing.endswith(b"\n") else b"\n"
            write_all(fd, lead + text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)

    @staticmethod
    def _trim(folders: Folders, folder: str) -> None:
        records = [name for name in folders.names(folder) if name.endswith(".json")]
        for old in records[:-HISTORY_KEEP]:
            folders.remove(f"{folder}/{old}")

    # -- the records kept under .workbench --------------------------------------------------------

    def _read_record(self, folders: Folders, path: str) -> dict[str, Any]:
        """A journal or history record, its paths checked: each must be a normal path inside the
        vault, outside `.workbench/`, with no symlink on the way (UnsafePathError otherwise); a
        record that is not one is a ValueError."""
        raw = folders.read(path)
        if raw is None:
            raise ValueError("it is gone")
        try:
            record = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise ValueError("it is not a change record") from None
        if not isinstance(record, dict) or not isinstance(record.get("files"), list) or not record["files"]:
            raise ValueError("it is not a change record")
        if not isinstance(record.get("summary", ""), str) or not all(
            isinstance(line, str) for line in record.get("log") or []
        ):
            raise ValueError("it is not a change record")
        files = []
        for entry in record["files"]:
            if not isinstance(entry, dict):
                raise ValueError("it is not a change record")
            target = relative_path(entry.get("path"))
            if target.split("/")[0] == self.state:
                raise UnsafePathError(f"{target!r} is the workbench's own state, never a file of a change")
            link = first_link(self._root_of(target), target)
            if link is not None:
                raise UnsafePathError(f"{link} is a symbolic link")
            try:
                files.append(FileChange(target, _decode(entry.get("before")), _decode(entry.get("after"))))
            except ValueError:
                raise ValueError("its file bytes are not base64") from None
        record["files"] = files
        return record

    def _set_aside(self, folders: Folders, path: str, why: str) -> str:
        """Move a record that cannot be trusted out of the journal or the history, keeping it for a
        person to look at; the note that says so."""
        target = f"{self.refused_folder}/{split(path)[1]}"
        try:
            folders.move(path, target)
        except (OSError, UnsafePathError):
            folders.remove(path)
            return f"removed {path}, which could not be set aside: {why}"
        return f"set aside {path} as {target}: {why}"

    # -- recovery -------------------------------------------------------------------------------

    def needs_recovery(self, temporaries: list[Path]) -> bool:
        try:
            with self._folders() as folders:
                if self._journal_names(folders):
                    return True
                return bool(self._hidden_temporaries(folders)) or any(self._ours(t, set()) for t in temporaries)
        except OSError:
            return False

    def _journal_names(self, folders: Folders) -> list[str]:
        """The journals a crash left. A folder so named is a person's, never ours: left alone. A
        link or a pipe so named is offered too, to be refused and set aside as a planted record."""
        names = []
        for name in self._names(folders, self.journal):
            found = folders.lstat(f"{self.journal}/{name}") if name.endswith(".json") else None
            if found is not None and not stat.S_ISDIR(found.st_mode):
                names.append(name)
        return names

    def _ours(self, temp: Path, journaled: set[str]) -> bool:
        """Whether a file the walk found named like a temporary file is provably one of ours: the
        temporary of the log or of a file a journal names, by `temporary_name`'s exact pattern.
        Anything else is a person's file, whatever its name: never removed."""
        match = _TEMP_NAME.fullmatch(temp.name)
        if match is None or temp.is_symlink() or not temp.is_file() or not temp.parent.is_relative_to(self.root):
            return False
        target = (temp.parent / match.group(1)).relative_to(self.root).as_posix()
        return target == self.log_name or target in journaled

    def _hidden_temporaries(self, folders: Folders) -> list[str]:
        """Temporary files in the hidden folders the vault walk skips (journal, history, backups)."""
        found = []
        for folder in (self.state, RECOVERY_DIR):
            try:
                found.extend(path for path in folders.files_under(folder) if is_temporary(split(path)[1]))
            except UnsafePathError:
                continue
        return found

    def recover(self, temporaries: list[Path]) -> list[str]:
        """Finish or undo what a crash interrupted, then remove the temporary files it left
        (`temporaries`, found by the caller's walk); returns what was done, for a person to read.
        A change another live process is making is left to it: nothing waits for it here."""
        notes: list[str] = []
        if not self.needs_recovery(temporaries):
            return notes
        if not self.lock.try_acquire():
            return notes
        try:
            with self._folders() as folders:
                journaled = self._journaled(folders)
                notes += self._recover_journals(folders)
                ours = [t.relative_to(self.root).as_posix() for t in temporaries if self._ours(t, journaled)]
                paths = ours + self._hidden_temporaries(folders)
                for path in paths:
                    try:
                        if folders.remove(path):
                            notes.append(f"removed a temporary file left by a crash: {path}")
                    except UnsafePathError:
                        continue
        finally:
            self.lock.release()
        return notes

    def _journaled(self, folders: Folders) -> set[str]:
        """Every path the journals a crash left name: their temporary files are ours."""
        paths: set[str] = set()
        try:
            for name in self._journal_names(folders):
                try:
                    paths.update(
                        change.path for change in self._read_record(folders, f"{self.journal}/{name}")["files"]
                    )
                except (ValueError, UnsafePathError, KeyError, TypeError):
                    continue
        except UnsafePathError:
            pass
        return paths

    def _recover_journals(self, folders: Folders) -> list[str]:
        notes: list[str] = []
        try:
            names = self._journal_names(folders)
        except UnsafePathError as exc:
            return [f"{exc}; no journal was read"]
        for name in names:
            journal = f"{self.journal}/{name}"
            try:
                record = self._read_record(folders, journal)
            except (ValueError, UnsafePathError) as exc:
                notes.append(self._set_aside(folders, journal, str(exc)))
                continue
            files: list[FileChange] = record["files"]
            if record.get("state") == "committed":
                self._finish(folders, journal, record, keep_history=record.get("keep_history") is not False)
                notes.append(f"finished the interrupted change: {record.get('summary', '')}")
                continue
            for change in files:
                try:
                    current = folders.read(change.path)
                    if current == change.after and current != change.before:
                        self._restore(folders, change.path, change.before)
                    elif current != change.before:
                        notes.append(f"{change.path} changed after the interrupted change; left as it is")
                except UnsafePathError as exc:
                    notes.append(f"{change.path} was not rolled back: {exc}")
            folders.remove(journal)
            notes.append(f"rolled back the interrupted change: {record.get('summary', '')}")
        return notes

    # -- history --------------------------------------------------------------------------------

    def _move_step(self, folders: Folders, step: object) -> None:
        """Move the record an undo or a redo acted on between the history and the redo stack; for
        any other change, clear the redo stack. Run as a change finishes (again by recovery, so
        each move is idempotent) and never raising: the change is in by then, and a record left
        in place is only a stack that says less (undo and redo check every file again)."""
        try:
            if not step:
                for name in self._names(folders, self.redo_folder):
                    if _RECORD_NAME.fullmatch(name):
                        folders.move(f"{self.redo_folder}/{name}", f"{self.undone_folder}/{name}")
                        self._trim(folders, self.undone_folder)
                return
            kind, name = step if isinstance(step, (list, tuple)) and len(step) == 2 else (None, None)
            if kind not in ("undo", "redo") or not isinstance(name, str) or not _RECORD_NAME.fullmatch(name):
                self.notes.append(
                    f"a journal named a step that is not one of ours ({step!r}); the undo stack was left as it was"
                )
                return
            source, target = (
                (self.history_folder, self.redo_folder) if kind == "undo" else (self.redo_folder, self.history_folder)
            )
            if folders.lstat(f"{source}/{name}") is not None:
                folders.move(f"{source}/{name}", f"{target}/{name}")
                self._trim(folders, self.history_folder)
        except (OSError, UnsafePathError) as exc:
            self.notes.append(f"the undo stack could not be updated ({exc}); undo and redo check every file again")

    def move_step(self, kind: str, record_path: Path) -> None:
        """Move a record as an undo ("undo") or a redo ("redo") does, with no file to write: its files
        are already as that step would leave them (an undo or a redo made by hand)."""
        with self.lock, self._folders() as folders:
            self._move_step(folders, [kind, record_path.name])

    def history(self) -> list[dict[str, Any]]:
        """Committed changes, newest first, with their files' before and after bytes: the steps undo
        takes, in order. A record whose paths cannot be trusted is set aside and named in `notes`,
        never used."""
        return self._records(self.history_folder)[::-1]

    def redo_stack(self) -> list[dict[str, Any]]:
        """The steps undone since the last new change, the one undone last first: what redo takes,
        in order. Undo takes the newest step each time, so the one undone last is the oldest here."""
        return self._records(self.redo_folder)

    def _records(self, folder: str) -> list[dict[str, Any]]:
        """The trusted records in `folder`, oldest first (their names sort by time)."""
        records = []
        with self._folders() as folders:
            names = [name for name in folders.names(folder) if name.endswith(".json")]
            for name in names:
                path = f"{folder}/{name}"
                found = folders.lstat(path)
                if found is None or stat.S_ISDIR(found.st_mode) or stat.S_ISFIFO(found.st_mode):
                    continue  # a folder or a pipe so named is not a record of ours: never read, never moved
                try:
                    record = self._read_record(folders, path)
                except (ValueError, UnsafePathError) as exc:
                    self.notes.append(self._set_aside_locked(folders, path, str(exc)))
                    continue
                record["record_path"] = self._root_of(path) / path
                records.append(record)
        return records

    def _set_aside_locked(self, folders: Folders, path: str, why: str) -> str:
        if not self.lock.try_acquire(1.0):
            return f"skipped {path}: {why}"
        try:
            return self._set_aside(folders, path, why)
        finally:
            self.lock.release()

    # -- the few files services reach directly ----------------------------------------------------

    def read(self, path: str) -> bytes | None:
        """The bytes of a vault file as they are now, reached without following a symlink."""
        with self._folders() as folders:
            return folders.read(relative_path(path))

    def write(self, path: str, data: bytes) -> None:
        """Replace a vault file atomically (backups, the log), never through a symlink."""
        with self._folders() as folders:
            folders.write(relative_path(path), data)

    def remove(self, path: str) -> bool:
        with self._folders() as folders:
            return folders.remove(relative_path(path))

    def remove_tree(self, path: str) -> None:
        with self._folders() as folders:
            folders.remove_tree(relative_path(path))

    def files_under(self, folder: str) -> list[str]:
        """Every regular file under `folder` (vault-relative), symlinks neither followed nor listed."""
        with self._folders() as folders:
            return list(folders.files_under(relative_path(folder)))

    def names(self, folder: str) -> list[str]:
        with self._folders() as folders:
            return folders.names(relative_path(folder))
