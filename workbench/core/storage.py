"""Writing files so that nothing is ever lost: atomic writes and the change journal.

A change is a list of whole-file replacements (`FileChange`: the bytes before, the bytes after).
`ChangeWriter.apply` carries it out under the vault lock (`lock.py`): it refuses if any file is no longer what
the change was computed from, records the change in a journal, writes each file atomically (a
unique temporary file in the same folder, fsync, rename, fsync of the folder), reads each one back,
and only then marks the journal committed. The next open of the vault finds any journal a crash
left: an uncommitted change is rolled back, a committed one is finished, and stray temporary files
are removed. Committed journals move to the history, which is what undo reads.
"""

from __future__ import annotations

import base64
import json
import os
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .lock import LockTimeout, VaultLock
from .model import ConflictError, WorkbenchError

__all__ = [
    "FileChange",
    "VaultLock",
    "LockTimeout",
    "WriteError",
    "ChangeWriter",
    "write_atomic",
    "read_bytes",
    "TEMP_MARK",
    "crash_point",
]

TEMP_MARK = ".wb-"
HISTORY_KEEP = 200


class WriteError(WorkbenchError):
    """A file did not read back as written, twice; the change was rolled back."""


def crash_point(name: str) -> None:
    """A named step where tests kill the process (`WORKBENCH_CRASH_AT=name[:n]`) to prove recovery."""
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
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


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


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so that a crash leaves either the old or the new file, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.parent / f".{path.name}{TEMP_MARK}{uuid.uuid4().hex[:12]}.tmp"
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o644
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
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
    _fsync_dir(path.parent)


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        return
    _fsync_dir(path.parent)


def _encode(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _decode(data: str | None) -> bytes | None:
    return None if data is None else base64.b64decode(data)


Verifier = Callable[[str, bytes], str | None]


class ChangeWriter:
    """Applies changes to the files under `root`, with journal, verification and history."""

    def __init__(self, root: Path, state_dir: Path, lock: VaultLock, log_path: Path):
        self.root = root
        self.journal_dir = state_dir / "journal"
        self.history_dir = state_dir / "history"
        self.lock = lock
        self.log_path = log_path

    # -- applying -------------------------------------------------------------------------------

    def apply(self, changes: list[FileChange], summary: str, log_lines: list[str], verify: Verifier | None = None, keep_history: bool = True) -> str:
        """Write every change or none; returns the change's id. Raises ConflictError before writing
        anything if a file is not what the change was computed from."""
        changes = [c for c in changes if c.before != c.after]
        if not changes:
            return ""
        with self.lock:
            if self.journal_dir.is_dir() and any(self.journal_dir.glob("*.json")):
                self._recover_journals()  # a holder that died mid-change left it: undo or finish it first
            for change in changes:
                if read_bytes(self.root / change.path) != change.before:
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
            }
            journal = self.journal_dir / f"{change_id}.json"
            write_atomic(journal, json.dumps(record).encode("utf-8"))
            crash_point("journal-written")
            touched: list[FileChange] = []
            try:
                for change in changes:
                    touched.append(change)  # before writing: a failed write may have replaced it
                    self._write_verified(change, verify)
                    crash_point("file-written")
            except BaseException:
                for change in reversed(touched):
                    if read_bytes(self.root / change.path) != change.before:
                        self._restore(change.path, change.before)
                _remove(journal)
                raise
            record["state"] = "committed"
            write_atomic(journal, json.dumps(record).encode("utf-8"))
            crash_point("committed")
            self._finish(journal, record, keep_history)
            return change_id

    def _write_verified(self, change: FileChange, verify: Verifier | None) -> None:
        target = self.root / change.path
        for attempt in (1, 2):
            if change.after is None:
                _remove(target)
                if not target.exists():
                    return
                failure = "the file is still there after removing it"
            else:
                write_atomic(target, change.after)
                back = read_bytes(target)
                failure = None if back == change.after else "the file read back differs from what was written"
                if failure is None and verify is not None:
                    failure = verify(change.path, back)
                if failure is None:
                    return
        raise WriteError(f"{change.path}: {failure}; the change was rolled back")

    def _restore(self, relative: str, data: bytes | None) -> None:
        target = self.root / relative
        if data is None:
            _remove(target)
        else:
            write_atomic(target, data)

    def _finish(self, journal: Path, record: dict[str, Any], keep_history: bool) -> None:
        self._append_log(record.get("log") or [])
        crash_point("logged")
        if keep_history:
            self.history_dir.mkdir(parents=True, exist_ok=True)
            os.replace(journal, self.history_dir / journal.name)
            _fsync_dir(self.history_dir)
            self._trim_history()
        else:
            _remove(journal)
        crash_point("cleaned")

    def _append_log(self, lines: list[str]) -> None:
        if not lines:
            return
        existing = read_bytes(self.log_path)
        text = "".join(line.rstrip("\n") + "\n" for line in lines)
        if existing is not None and existing.decode("utf-8", "replace").endswith(text):
            return  # a recovered change whose log line already landed
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        fd = os.open(self.log_path, flags, 0o644)
        try:
            if not existing:
                os.write(fd, b"# Log\n\n")
            elif not existing.endswith(b"\n"):
                os.write(fd, b"\n")
            os.write(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)

    def _trim_history(self) -> None:
        records = sorted(self.history_dir.glob("*.json"))
        for old in records[:-HISTORY_KEEP]:
            _remove(old)

    # -- recovery -------------------------------------------------------------------------------

    def needs_recovery(self, temporaries: list[Path]) -> bool:
        return bool(temporaries) or bool(self._hidden_temporaries()) or (self.journal_dir.is_dir() and any(self.journal_dir.glob("*.json")))

    def _hidden_temporaries(self) -> list[Path]:
        """Temporary files in the hidden folders the vault walk skips (journal, history, backups)."""
        found = []
        for folder in (self.journal_dir.parent, self.root / ".recovery"):
            if folder.is_dir():
                found.extend(p for p in folder.rglob(f".*{TEMP_MARK}*.tmp") if not p.is_symlink())
        return found

    def recover(self, temporaries: list[Path]) -> list[str]:
        """Finish or undo what a crash interrupted, then remove the temporary files it left
        (`temporaries`, found by the caller's walk); returns what was done, for a person to read."""
        notes: list[str] = []
        if not self.needs_recovery(temporaries):
            return notes
        if not self.lock.try_acquire():
            return notes  # a live process is making a change: its journal and temporary files are its own
        try:
            notes += self._recover_journals()
            for temp in list(temporaries) + self._hidden_temporaries():
                _remove(temp)
                notes.append(f"removed a temporary file left by a crash: {temp.relative_to(self.root)}")
        finally:
            self.lock.release()
        return notes

    def _recover_journals(self) -> list[str]:
        notes: list[str] = []
        for journal in sorted(self.journal_dir.glob("*.json")) if self.journal_dir.is_dir() else []:
            try:
                record = json.loads(journal.read_text("utf-8"))
            except (OSError, ValueError):
                _remove(journal)  # a journal torn before its rename never reached any file
                notes.append(f"removed an unreadable journal {journal.name}")
                continue
            files = [FileChange(f["path"], _decode(f["before"]), _decode(f["after"])) for f in record["files"]]
            if record.get("state") == "committed":
                self._finish(journal, record, keep_history=True)
                notes.append(f"finished the interrupted change: {record.get('summary', '')}")
                continue
            for change in files:
                current = read_bytes(self.root / change.path)
                if current == change.after and current != change.before:
                    self._restore(change.path, change.before)
                elif current != change.before:
                    notes.append(f"{change.path} changed after the interrupted change; left as it is")
            _remove(journal)
            notes.append(f"rolled back the interrupted change: {record.get('summary', '')}")
        return notes

    # -- history --------------------------------------------------------------------------------

    def retire(self, record_path: Path) -> None:
        """Move an undone change out of the history, so the next undo takes the one before it."""
        undone = self.history_dir / "undone"
        undone.mkdir(parents=True, exist_ok=True)
        os.replace(record_path, undone / record_path.name)
        _fsync_dir(self.history_dir)
        for old in sorted(undone.glob("*.json"))[:-HISTORY_KEEP]:
            _remove(old)

    def history(self) -> list[dict[str, Any]]:
        """Committed changes, newest first, with their files' before and after bytes."""
        if not self.history_dir.is_dir():
            return []
        records = []
        for path in sorted(self.history_dir.glob("*.json"), reverse=True):
            try:
                record = json.loads(path.read_text("utf-8"))
            except (OSError, ValueError):
                continue
            record["files"] = [FileChange(f["path"], _decode(f["before"]), _decode(f["after"])) for f in record["files"]]
            record["record_path"] = path
            records.append(record)
        return records
