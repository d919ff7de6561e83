"""A large vault's conflicts queue worked out in a process of its own, beside the app.

Working the queue out at 100,000 documents takes minutes of Python, and some of its steps are
single calls that never let go of the interpreter for one or two seconds (sorting every pair of
titles drawn, the first weighing of every decision): in a thread of the app the screen stood
still through each. A process of its own opens the vault, works the queue out and keeps it in the
vault's derived store, as any process does (`Vault.conflicts`); the app then reads it back from
there (`Vault.kept_conflicts`, entry by entry). Nothing large crosses between the two, and the
app's interpreter is free meanwhile but for the wait.

Run as `python -m workbench.tui.queue_process ROOT FLAVOUR`.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

__all__ = ["QueueProcess"]


class QueueProcess:
    """One run of the process at a time; `stop` ends a run for good (the app is quitting)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: subprocess.Popen[bytes] | None = None
        self._stopped = False

    def work_out(self, root: Path, flavour: str) -> bool:
        """Work the queue of the vault at `root` out in the process and wait for it (in a worker's
        thread); False when stopped meanwhile. RuntimeError with the process's last words when it
        failed."""
        with self._lock:
            if self._stopped:
                return False
            self._running = process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(root), flavour],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
        try:
            _, said = process.communicate()
        finally:
            with self._lock:
                self._running = None
        if self._stopped:
            return False
        if process.returncode != 0:
            words = said.decode("utf-8", "replace").strip().splitlines()
            raise RuntimeError(words[-1] if words else f"the queue's process ended with {process.returncode}")
        return True

    def stop(self) -> None:
        """End the running process, if any, and start none after."""
        with self._lock:
            self._stopped = True
            process = self._running
        if process is not None:
            process.terminate()


def _main(argv: list[str]) -> int:
    from ..core import Vault

    root, flavour = argv
    Vault.open(Path(root), flavour=flavour).conflicts()
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
