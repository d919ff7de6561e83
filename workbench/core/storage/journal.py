"""The change journal, the history and the redo stack: the records a change leaves in the state folder.

A change is recorded in the journal (`journal/ID.json`: each file's bytes before and after) before
any file is written, and marked committed once every file is in. The next open of the vault finds
any journal a crash left: an uncommitted change is rolled back, a committed one is finished (its
log lines written, its record moved to the history). Committed records move to the history, which
is what undo reads; an undo or a redo names in its own journal the history record it moves between
the history and the redo stack (`undo.py`), and a new change clears the redo stack, so a crash
finishes that move with the change or leaves both undone, never one without the other.

Every path is reached through `vaultfs.Folders`: never through a symlink, and a path read back
from a journal or the history must be a normal path inside the vault, or the record is set aside
under `refused/` of the state folder and named in the notes.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import crashpoint
from .changes import FileChange
from .lock import VaultLock
from ..vocabulary.model import UnsafePathError
from .vaultfs import Folders, first_link, read_fd, relative_path, split, unsafe_reason, write_all

__all__ = ["HISTORY_KEEP", "Journal"]

HISTORY_KEEP = 200
_RECORD_NAME = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]*\.json")  # a history record's name: never a path


def _encode(data: bytes | None) -> str | None:
    import base64  # here, not at import: a process that writes nothing keeps no journal

    return None if data is None else base64.b64encode(data).decode("ascii")


def _decode(data: object) -> bytes | None:
    if data is None:
        return None
    if not isinstance(data, str):
        raise ValueError("file bytes that are not base64 text")
    import base64

    return base64.b64decode(data, validate=True)


class Journal:
    """The journal, history and redo stack of one vault, and its log, under its state folder.

    `notes` collects, for a person to read, what was done beyond the change asked for (a record
    set aside, a step that could not be moved). State of a vault of another format is kept outside
    it (the user's cache): reached under its folder's name, as if it were in the vault, through a
    mount of the folder handles (`folders`)."""

    def __init__(self, root: Path, state_dir: Path, lock: VaultLock, log_path: Path, notes: list[str]):
        self.root = root
        self.state = state_dir.name
        self.folder = f"{self.state}/journal"
        self.history_folder = f"{self.state}/history"
        self.redo_folder = f"{self.history_folder}/redo"  # steps undone since the last new change
        self.undone_folder = f"{self.history_folder}/undone"  # undone steps no longer redoable, kept for forget
        self.refused_folder = f"{self.state}/refused"
        self.lock = lock
        self.mounts = {} if state_dir.parent == root else {self.state: state_dir}
        self.log_name = (
            log_path.relative_to(root).as_posix() if log_path.is_relative_to(root) else f"{self.state}/{log_path.name}"
        )
        self.notes = notes

    def folders(self) -> Folders:
        """The vault's folder handles, with the state folder mounted where it lives."""
        return Folders(self.root, self.mounts)

    def root_of(self, path: str) -> Path:
        """The folder a vault-relative path of ours is under: the vault's, or, for state kept
        outside it, the folder that holds that state."""
        first = path.split("/", 1)[0]
        return self.mounts[first].parent if first in self.mounts else self.root

    def check_state(self, *also: str, keep_history: bool = True) -> None:
        """Refuse (UnsafePathError) when the journal's or the history's folder (or those in `also`)
        or the log is a symlink, or the log not a regular file: nothing is written or deleted then."""
        blocked = self.blocked(*also, keep_history=keep_history)
        if blocked:
            raise UnsafePathError(blocked[1])

    def blocked(self, *also: str, keep_history: bool = True) -> tuple[str, str] | None:
        """(path, why) of what makes `check_state` refuse every change, or None: for `check` to
        report before a change is tried."""
        folders = [self.state, self.folder, *([self.history_folder] if keep_history else []), *also]
        for folder in folders:
            why = unsafe_reason(self.root_of(folder), folder, regular=False)
            if why:
                return folder, why
        why = unsafe_reason(self.root_of(self.log_name), self.log_name)
        if why:
            return self.log_name, f"{why}; the change log cannot be written"
        return None

    @staticmethod
    def _names(folders: Folders, folder: str) -> list[str]:
        try:
            return folders.names(folder)
        except UnsafePathError:
            return []

    def _write_state(self, folders: Folders, path: str, record: dict[str, Any]) -> None:
        folders.write(path, json.dumps(record).encode("utf-8"), crash_step="before-rename")

    def begin(
        self,
        folders: Folders,
        changes: list[FileChange],
        summary: str,
        log_lines: list[str],
        keep_history: bool,
        step: tuple[str, str] | None,
    ) -> tuple[str, dict[str, Any]]:
        """Record a change before any of its files is written: the journal's path and its record."""
        # Nanoseconds in the id: two changes in one second must still sort in the order they
        # were made, or undo would take the wrong one. Second and nanoseconds come from one
        # reading of the clock: read twice, a change made as the second turns sorted first.
        now = time.time_ns()
        second = time.strftime("%Y%m%dT%H%M%S", time.localtime(now // 1_000_000_000))
        change_id = f"{second}.{now % 1_000_000_000:09d}-{os.urandom(4).hex()}"
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
        path = f"{self.folder}/{change_id}.json"
        self._write_state(folders, path, record)
        return path, record

    def commit(self, folders: Folders, path: str, record: dict[str, Any]) -> None:
        """Mark a change whose files are all in as committed: from here a crash finishes it."""
        record["state"] = "committed"
        self._write_state(folders, path, record)

    def tell(self, folders: Folders, lines: list[str]) -> None:
        """Say in the notes and in the log what a refused change did to keep others' bytes."""
        if not lines:
            return
        self.notes.extend(lines)
        try:
            self.append_log(folders, [f"- {time.strftime('%Y-%m-%d %H:%M')} {line}" for line in lines])
        except (OSError, UnsafePathError):
            pass  # the notes still say it, and the refusal's message

    def _restore(self, folders: Folders, path: str, data: bytes | None) -> None:
        if data is None:
            folders.remove(path)
        else:
            folders.write(path, data)

    def finish(
        self, folders: Folders, journal: str, record: dict[str, Any], keep_history: bool, more: Sequence[str] = ()
    ) -> None:
        """Write a committed change's log lines, move the step it names, and move its record to the
        history (or drop it): run as a change commits and again by recovery, each part idempotent."""
        lines = list(record.get("log") or [])
        lines += [f"- {time.strftime('%Y-%m-%d %H:%M')} {line}" for line in more]
        try:
            self.append_log(folders, lines)
        except UnsafePathError as exc:
            self.notes.append(f"the change log could not be written: {exc}")
        crashpoint.crash_point("logged")
        self._move_step(folders, record.get("step"))
        name = split(journal)[1]
        if keep_history:
            folders.move(journal, f"{self.history_folder}/{name}")
            self._trim(folders, self.history_folder)
        else:
            folders.remove(journal)
        crashpoint.crash_point("cleaned")

    def append_log(self, folders: Folders, lines: list[str]) -> None:
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

    # -- the records kept in the state folder --------------------------------------------------------

    def read_record(self, folders: Folders, path: str) -> dict[str, Any]:
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
            link = first_link(self.root_of(target), target)
            if link is not None:
                raise UnsafePathError(f"{link} is a symbolic link")
            try:
                files.append(FileChange(target, _decode(entry.get("before")), _decode(entry.get("after"))))
            except ValueError:
                raise ValueError("its file bytes are not base64") from None
        record["files"] = files
        return record

    def set_aside(self, folders: Folders, path: str, why: str) -> str:
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

    def pending(self, folders: Folders) -> list[str]:
        """The journals a crash left. A folder so named is a person's, never ours: left alone. A
        link or a pipe so named is offered too, to be refused and set aside as a planted record."""
        names = []
        for name in self._names(folders, self.folder):
            found = folders.lstat(f"{self.folder}/{name}") if name.endswith(".json") else None
            if found is not None and not stat.S_ISDIR(found.st_mode):
                names.append(name)
        return names

    def journaled(self, folders: Folders) -> set[str]:
        """Every path the journals a crash left name: their temporary files are ours."""
        paths: set[str] = set()
        try:
            for name in self.pending(folders):
                try:
                    paths.update(change.path for change in self.read_record(folders, f"{self.folder}/{name}")["files"])
                except (ValueError, UnsafePathError, KeyError, TypeError):
                    continue
        except UnsafePathError:
            pass
        return paths

    def recover(self, folders: Folders) -> list[str]:
        """Roll back each uncommitted change a crash left and finish each committed one (a record
        that cannot be trusted is set aside); what was done, in words."""
        notes: list[str] = []
        try:
            names = self.pending(folders)
        except UnsafePathError as exc:
            return [f"{exc}; no journal was read"]
        for name in names:
            journal = f"{self.folder}/{name}"
            try:
                record = self.read_record(folders, journal)
            except (ValueError, UnsafePathError) as exc:
                notes.append(self.set_aside(folders, journal, str(exc)))
                continue
            files: list[FileChange] = record["files"]
            if record.get("state") == "committed":
                self.finish(folders, journal, record, keep_history=record.get("keep_history") is not False)
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
            kind, record = step if isinstance(step, (list, tuple)) and len(step) == 2 else (None, None)
            if kind not in ("undo", "redo") or not isinstance(record, str) or not _RECORD_NAME.fullmatch(record):
                self.notes.append(
                    f"a journal named a step that is not one of ours ({step!r}); the undo stack was left as it was"
                )
                return
            source, target = (
                (self.history_folder, self.redo_folder) if kind == "undo" else (self.redo_folder, self.history_folder)
            )
            if folders.lstat(f"{source}/{record}") is not None:
                folders.move(f"{source}/{record}", f"{target}/{record}")
                self._trim(folders, self.history_folder)
        except (OSError, UnsafePathError) as exc:
            self.notes.append(f"the undo stack could not be updated ({exc}); undo and redo check every file again")

    def move_step(self, kind: str, record_path: Path) -> None:
        """Move a record as an undo ("undo") or a redo ("redo") does, with no file to write: its files
        are already as that step would leave them (an undo or a redo made by hand)."""
        with self.lock, self.folders() as folders:
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
        with self.folders() as folders:
            names = [name for name in folders.names(folder) if name.endswith(".json")]
            for name in names:
                path = f"{folder}/{name}"
                found = folders.lstat(path)
                if found is None or stat.S_ISDIR(found.st_mode) or stat.S_ISFIFO(found.st_mode):
                    continue  # a folder or a pipe so named is not a record of ours: never read, never moved
                try:
                    record = self.read_record(folders, path)
                except (ValueError, UnsafePathError) as exc:
                    self.notes.append(self._set_aside_locked(folders, path, str(exc)))
                    continue
                record["record_path"] = self.root_of(path) / path
                records.append(record)
        return records

    def _set_aside_locked(self, folders: Folders, path: str, why: str) -> str:
        if not self.lock.try_acquire(1.0):
            return f"skipped {path}: {why}"
        try:
            return self.set_aside(folders, path, why)
        finally:
            self.lock.release()
