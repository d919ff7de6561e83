"""The vault-wide write lock: held by a live process only, whatever that process is doing.

The lock is a `flock` on `.workbench/lock`. The kernel releases it when its holder's process
ends, however it ends, and never before: a holder that is paused (SIGSTOP, a debugger, a laptop
lid) keeps it, so no other process can decide it is stale, roll back its half-done change and
then lose its own when the holder wakes and finishes. A live holder is waited for, up to `wait`
seconds, then reported by name. The file's contents only name the holder for that message
(`locked by process N on HOST`); an empty or garbled file is simply taken.

The holder removes the file on release, still holding it; whoever locks a file checks it is still
the one at that name, or tries again, so two processes never hold two different files. A symlink
or a FIFO at `.workbench` or `.workbench/lock` is refused (`UnsafePathError`), never followed.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from ..vocabulary.model import VaultError
from .vaultfs import Folders, read_fd

try:
    import fcntl
except ImportError:  # pragma: no cover - the workbench targets POSIX systems
    fcntl = None  # type: ignore[assignment]

__all__ = ["LOCK_WAIT", "LockTimeout", "VaultLock"]

LOCK_WAIT = 35.0


class LockTimeout(VaultError):
    """Another live process held the vault lock for longer than we wait."""


class VaultLock:
    """The vault's write lock, reentrant within a process (`with lock:` nests)."""

    def __init__(self, state_dir: Path, wait: float | None = None):
        self.path = state_dir / "lock"
        self.wait = LOCK_WAIT if wait is None else wait
        self._root, self._name = state_dir.parent, state_dir.name
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None
        self._folders: Folders | None = None

    def holder(self) -> dict[str, Any] | None:
        """Who holds the lock, as its file says: {"pid", "host", "since"}; None if it says nothing."""
        try:
            with Folders(self._root) as folders:
                fd = folders.open_file(f"{self._name}/lock")
                if fd is None:
                    return None
                try:
                    info = json.loads(read_fd(fd)[:4096])
                finally:
                    os.close(fd)
        except Exception:  # only ever for a message: whatever the file holds, it names no one
            return None
        return info if isinstance(info, dict) else None

    def _try_take(self) -> bool:
        folders = Folders(self._root)
        try:
            folder_fd = folders.fd(self._name, create=True)
            fd = folders.open_file(f"{self._name}/lock", os.O_RDWR | os.O_CREAT)
            assert fd is not None
        except BaseException:
            folders.close()
            raise
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # The holder before us may have removed the file as it released it: hold the one at the name.
            now = os.stat("lock", dir_fd=folder_fd, follow_symlinks=False)
            if now.st_ino != os.fstat(fd).st_ino:
                raise BlockingIOError
        except (BlockingIOError, FileNotFoundError):
            os.close(fd)
            folders.close()
            return False
        except BaseException:
            os.close(fd)
            folders.close()
            raise
        import socket  # here, not at import: a process that writes nothing takes no lock (3 ms of imports)

        info = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode("utf-8"), 0)
        self._fd, self._folders = fd, folders
        return True

    def acquire(self, wait: float | None = None) -> None:
        """Take the lock, waiting up to `wait` seconds (the lock's own `wait` by default) for a
        live holder; LockTimeout naming it after that."""
        if not self.try_acquire(self.wait if wait is None else wait):
            info = self.holder() or {}
            raise LockTimeout(
                f"the vault is locked by process {info.get('pid', '?')} on {info.get('host', '?')}; "
                f"waited {self.wait if wait is None else wait:.0f} s"
            )

    def try_acquire(self, wait: float = 0.0) -> bool:
        """Take the lock if it is free within `wait` seconds; False when a live process holds it."""
        self._thread_lock.acquire()
        if self._depth:
            self._depth += 1
            return True
        deadline = time.monotonic() + wait
        delay = 0.002
        try:
            while not self._try_take():
                if time.monotonic() >= deadline:
                    self._thread_lock.release()
                    return False
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        except BaseException:
            self._thread_lock.release()
            raise
        self._depth = 1
        return True

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0:
            fd, folders = self._fd, self._folders
            self._fd = self._folders = None
            try:
                if folders is not None:
                    folders.remove_name(folders.fd(self._name), "lock")  # while still holding it
            finally:
                if fd is not None:
                    os.close(fd)  # closing releases the flock
                if folders is not None:
                    folders.close()
        self._thread_lock.release()

    def __enter__(self) -> VaultLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
