"""Writing files so that nothing is ever lost: the vault lock, atomic writes and the change journal.

A change is a list of whole-file replacements (`FileChange`: the bytes before, the bytes after).
`ChangeWriter.apply` carries it out under the vault lock: it refuses if any file is no longer what
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
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .files import read_file
from .model import ConflictError, VaultError, WorkbenchError

try:
    import fcntl
except ImportError:  # pragma: no cover - the workbench targets POSIX systems
    fcntl = None  # type: ignore[assignment]

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

STALE_AFTER = 30.0
TEMP_MARK = ".wb-"
HISTORY_KEEP = 200
_TEMP_NAME = re.compile(r"\.(.+)" + re.escape(TEMP_MARK) + r"[0-9a-f]{12}\.tmp")  # write_atomic's names


class LockTimeout(VaultError):
    """Another live process held the vault lock for longer than we wait."""


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
    """The file's bytes, None when nothing is there; `UnreadableFile` (an OSError) for a named
    pipe, a folder or anything else that is not a readable regular file: never a hang."""
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


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie holds no lock: it has exited and waits only to be reaped
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


class VaultLock:
    """The vault-wide write lock: a lock file naming its holder, reentrant within a process.

    A holder whose process is gone is taken over at once; a lock older than `stale_after` seconds is
    stale and removed; a live holder is waited for, up to `wait` seconds. Creating, inspecting and
    removing the lock file happen under a short `flock` on a guard file, so two processes can never
    both decide that the same lock is stale and remove each other's.
    """

    def __init__(self, state_dir: Path, stale_after: float = STALE_AFTER, wait: float | None = None):
        self.path = state_dir / "lock"
        self.guard_path = state_dir / "lock.guard"
        self.stale_after = stale_after
        self.wait = stale_after + 5 if wait is None else wait
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._nonce = ""

    @contextmanager
    def _guard(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.guard_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the flock

    def holder(self) -> dict[str, Any] | None:
        try:
            return json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return None

    def _is_stale(self) -> bool:
        try:
            age = time.time() - self.path.stat().st_mtime
        except FileNotFoundError:
            return True
        if age > self.stale_after:
            return True
        info = self.holder()
        if info and info.get("host") == socket.gethostname() and isinstance(info.get("pid"), int):
            return not _pid_alive(info["pid"])
        return False

    def _try_take(self) -> bool:
        with self._guard():
            if self.path.exists():
                if not self._is_stale():
                    return False
                _remove(self.path)
            return self._create_locked()

    def _create_locked(self) -> bool:
        nonce = uuid.uuid4().hex
        info = {"pid": os.getpid(), "host": socket.gethostname(), "nonce": nonce, "since": time.time()}
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(info, handle)
            handle.flush()
            os.fsync(handle.fileno())
        self._nonce = nonce
        return True

    def acquire(self) -> None:
        self._thread_lock.acquire()
        if self._depth:
            self._depth += 1
            return
        deadline = time.monotonic() + self.wait
        delay = 0.005
        try:
            while not self._try_take():
                if time.monotonic() > deadline:
                    info = self.holder() or {}
                    raise LockTimeout(
                        f"the vault is locked by process {info.get('pid', '?')} on {info.get('host', '?')}; "
                        f"waited {self.wait:.0f} s"
                    )
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
        except BaseException:
            self._thread_lock.release()
            raise
        self._depth = 1

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0:
            with self._guard():
                info = self.holder()
                if info and info.get("nonce") == self._nonce:
                    _remove(self.path)
            self._nonce = ""
        self._thread_lock.release()

    def __enter__(self) -> VaultLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


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
                "keep_history": keep_history,  # a forget is never kept, even when a crash finishes it
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
        if self._journals():
            return True
        return any(self._ours(temp, set()) for temp in list(temporaries) + self._hidden_temporaries())

    def _journals(self) -> list[Path]:
        """The journals a crash left: regular files only (a folder or a pipe so named is not ours)."""
        if not self.journal_dir.is_dir():
            return []
        return sorted(p for p in self.journal_dir.glob("*.json") if not p.is_symlink() and p.is_file())

    def _hidden_temporaries(self) -> list[Path]:
        """Temporary files in the hidden folders the vault walk skips (journal, history, backups)."""
        found = []
        for folder in (self.journal_dir.parent, self.root / ".recovery"):
            if folder.is_dir():
                found.extend(p for p in folder.rglob(f".*{TEMP_MARK}*.tmp") if not p.is_symlink() and p.is_file())
        return found

    def _ours(self, temp: Path, journaled: set[Path]) -> bool:
        """Whether a file named like a temporary file is provably one of ours: inside our own state
        folder, or `write_atomic`'s temporary (`.NAME.wb-<12 hex>.tmp`) of the log or of a file a
        journal names. Anything else is a person's file, whatever its name: never removed."""
        if temp.is_symlink() or not temp.is_file():
            return False
        if self.journal_dir.parent in temp.parents:
            return True
        match = _TEMP_NAME.fullmatch(temp.name)
        if match is None:
            return False
        target = temp.parent / match.group(1)
        return target == self.log_path or target in journaled

    def recover(self, temporaries: list[Path]) -> list[str]:
        """Finish or undo what a crash interrupted, then remove the temporary files it left
        (`temporaries`, found by the caller's walk, those provably ours); returns what was done,
        for a person to read."""
        notes: list[str] = []
        if not self.needs_recovery(temporaries):
            return notes
        with self.lock:
            journaled: set[Path] = set()
            for journal in self._journals():
                try:
                    record = json.loads(read_bytes(journal) or b"")
                    files = [FileChange(f["path"], _decode(f["before"]), _decode(f["after"])) for f in record["files"]]
                except (OSError, ValueError, TypeError, KeyError):
                    _remove(journal)  # a journal torn before its rename never reached any file
                    notes.append(f"removed an unreadable journal {journal.name}")
                    continue
                journaled.update(self.root / change.path for change in files)
                if record.get("state") == "committed":
                    keep = record.get("keep_history", True)
                    try:
                        self._finish(journal, record, keep_history=keep)
                    except OSError as error:  # the log cannot take the line (not a file?): the change is done
                        self._finish(journal, {**record, "log": []}, keep_history=keep)
                        notes.append(f"the log could not be written ({error}); the change is finished without its line")
                    notes.append(f"finished the interrupted change: {record.get('summary', '')}")
                    continue
                for change in files:
                    try:
                        current = read_bytes(self.root / change.path)
                    except OSError as error:
                        notes.append(f"{change.path} is not what the interrupted change left ({error}); left as it is")
                        continue
                    if current == change.after and current != change.before:
                        self._restore(change.path, change.before)
                    elif current != change.before:
                        notes.append(f"{change.path} changed after the interrupted change; left as it is")
                _remove(journal)
                notes.append(f"rolled back the interrupted change: {record.get('summary', '')}")
            for temp in list(temporaries) + self._hidden_temporaries():
                if self._ours(temp, journaled):
                    _remove(temp)
                    notes.append(f"removed a temporary file left by a crash: {temp.relative_to(self.root)}")
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
                record = json.loads(read_bytes(path) or b"")
                record["files"] = [FileChange(f["path"], _decode(f["before"]), _decode(f["after"])) for f in record["files"]]
            except (OSError, ValueError, TypeError, KeyError):
                continue  # not a record (a folder, a pipe, a torn file): undo never reads it
            record["record_path"] = path
            records.append(record)
        return records
