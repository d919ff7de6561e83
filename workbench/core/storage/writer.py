"""Writing files so that nothing is ever lost: a change applied all or nothing, and recovered after a crash.

A change is a list of whole-file replacements (`FileChange`: the bytes before, the bytes after).
`ChangeWriter.apply` carries it out under the vault lock (`lock.py`): it refuses if any file is no
longer what the change was computed from, records the change in the journal (`journal.py`),
writes every file's new version (a unique temporary file in the same folder, fsynced, several at
once, read back and checked), then swaps each in, checked again at that moment, fsyncs each folder
once (`filereplace.py`), and only then marks the journal committed. The next open of the vault finds any journal a crash left and rolls
it back or finishes it, and removes the stray temporary files that are provably the writer's own.
A refused change puts every file back and keeps under `.recovery/` any version someone else wrote
meanwhile, named in the log and the notes. The protocol for agents that write the files
themselves is in docs/agents-file-protocol.md.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Iterable
from pathlib import Path

from . import crashpoint
from .changes import FileChange
from .crashpoint import crash_point
from ..vocabulary.files import read_file
from .filereplace import Replaced, Verifier, WriteError, let_go, overwritten, replace_files, untouched
from .putback import put_back_all
from .journal import Journal
from .lock import LockTimeout, VaultLock
from ..vocabulary.model import ConflictError, UnsafePathError
from .vaultfs import (
    Folders,
    RECOVERY_DIR,
    TEMP_MARK,
    first_link,
    is_temporary,
    relative_path,
    split,
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
    "crash_point",
]

_TEMP_NAME = re.compile(r"\.(.+)" + re.escape(TEMP_MARK) + r"[0-9a-f]{12}\.tmp")  # temporary_name's names


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
    temp = path.parent / f".{path.name}{TEMP_MARK}{os.urandom(6).hex()}.tmp"
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
        crashpoint.crash_point("before-rename")
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


class ChangeWriter:
    """Applies changes to the files under `root`, with journal, verification and history.

    It holds the vault's `journal` (journal, history, redo stack and log). `notes` collects, for a
    person to read, what the writer did beyond the change it was asked for (a record set aside, an
    agent's late bytes kept)."""

    def __init__(self, root: Path, state_dir: Path, lock: VaultLock, log_path: Path, notes: list[str] | None = None):
        self.root = root
        self.lock = lock
        self.notes: list[str] = [] if notes is None else notes
        self.journal = Journal(root, state_dir, lock, log_path, self.notes)
        self.opened = time.time()
        """When this writer (the vault, opened) started: a step made before it is from an earlier session."""
        self.made_here: set[str] = set()
        """The ids of the changes this writer made: the rest of the history came from other processes."""

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
        journal = self.journal
        with self.lock, journal.folders() as folders:
            if journal.pending(folders):
                self.notes.extend(journal.recover(folders))  # a holder that died left it
            journal.check_state(
                *([journal.history_folder, journal.redo_folder] if step else []), keep_history=keep_history
            )
            for change in changes:
                self._refuse_unsafe(folders, change.path)
            for change in changes:
                if folders.read(change.path) != change.before:
                    raise ConflictError(change.path)
            path, record = journal.begin(folders, changes, summary, log_lines, keep_history, step)
            crashpoint.crash_point("journal-written")
            done: list[Replaced] = []
            try:
                replace_files(folders, changes, verify, done)
                for replaced in done:  # the last look: nobody wrote to a replaced file meanwhile
                    if not untouched(replaced):
                        raise ConflictError(
                            replaced.change.path,
                            f"{replaced.change.path} was written by another process while "
                            "the change was made; its bytes are kept and nothing was written",
                        )
            except BaseException as exc:
                left = put_back_all(folders, done)
                folders.remove(path)
                journal.tell(folders, [f"{summary}: not made; {line}" for line in left])
                if left and isinstance(exc, ConflictError):
                    raise ConflictError(exc.path, f"{exc}; but {'; '.join(left)}") from None
                raise
            journal.commit(folders, path, record)
            crashpoint.crash_point("committed")
            late = let_go(folders, done) + overwritten(done)
            self.notes.extend(late)  # the names dropped need no fsync: a crash leaves them to the next open
            journal.finish(folders, path, record, keep_history, late)
            self.made_here.add(record["id"])
            return record["id"]

    def _refuse_unsafe(self, folders: Folders, path: str) -> None:
        folder, _ = split(path)
        try:
            folders.fd(folder)  # every part that exists is opened: a symlink among them is refused
        except FileNotFoundError:
            link = first_link(self.journal.root_of(path), path)
            if link:
                raise UnsafePathError(
                    f"{link} is a symbolic link; the workbench never writes or deletes through one"
                ) from None
            return
        found = folders.lstat(path)
        if found is not None and not stat.S_ISREG(found.st_mode):
            why = unsafe_reason(self.journal.root_of(path), path)
            raise UnsafePathError(why or f"{path} is not a regular file")

    # -- recovery -------------------------------------------------------------------------------

    def needs_recovery(self, temporaries: list[Path]) -> bool:
        try:
            with self.journal.folders() as folders:
                if self.journal.pending(folders):
                    return True
                return bool(self._hidden_temporaries(folders)) or any(self._ours(t, set()) for t in temporaries)
        except OSError:
            return False

    def _ours(self, temp: Path, journaled: set[str]) -> bool:
        """Whether a file the walk found named like a temporary file is provably one of ours: the
        temporary of the log or of a file a journal names, by `temporary_name`'s exact pattern.
        Anything else is a person's file, whatever its name: never removed."""
        match = _TEMP_NAME.fullmatch(temp.name)
        if match is None or temp.is_symlink() or not temp.is_file() or not temp.parent.is_relative_to(self.root):
            return False
        target = (temp.parent / match.group(1)).relative_to(self.root).as_posix()
        return target == self.journal.log_name or target in journaled

    def _hidden_temporaries(self, folders: Folders) -> list[str]:
        """Temporary files in the hidden folders the vault walk skips (journal, history, backups)."""
        found: list[str] = []
        for folder in (self.journal.state, RECOVERY_DIR):
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
            with self.journal.folders() as folders:
                journaled = self.journal.journaled(folders)
                notes += self.journal.recover(folders)
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

    # -- the few files services reach directly ----------------------------------------------------

    def read(self, path: str) -> bytes | None:
        """The bytes of a vault file as they are now, reached without following a symlink."""
        with self.journal.folders() as folders:
            return folders.read(relative_path(path))

    def write(self, path: str, data: bytes) -> None:
        """Replace a vault file atomically (backups, the log), never through a symlink."""
        with self.journal.folders() as folders:
            folders.write(relative_path(path), data)

    def append(self, path: str, lines: bytes) -> None:
        """Add `lines` at the end of a vault file (created when there is none), never through a
        symlink, in one write to a descriptor opened for appending: a line another program appends
        at the same time (with plain file I/O, outside the vault's lock) lands beside it, never
        over it, as a rewrite and rename would lose it. A file that does not end its last line has
        one ended first; a crash can leave only the new last line torn, never an older one."""
        with self.journal.folders() as folders:
            fd = folders.open_file(relative_path(path), os.O_RDWR | os.O_APPEND | os.O_CREAT, create_folders=True)
            assert fd is not None
            try:
                size = os.fstat(fd).st_size
                ended = size == 0 or os.pread(fd, 1, size - 1) == b"\n"
                write_all(fd, lines if ended else b"\n" + lines)
                os.fsync(fd)
            finally:
                os.close(fd)

    def remove(self, path: str) -> bool:
        with self.journal.folders() as folders:
            return folders.remove(relative_path(path))

    def remove_tree(self, path: str) -> None:
        with self.journal.folders() as folders:
            folders.remove_tree(relative_path(path))

    def files_under(self, folder: str) -> list[str]:
        """Every regular file under `folder` (vault-relative), symlinks neither followed nor listed."""
        with self.journal.folders() as folders:
            return list(folders.files_under(relative_path(folder)))

    def names(self, folder: str) -> list[str]:
        with self.journal.folders() as folders:
            return folders.names(relative_path(folder))
