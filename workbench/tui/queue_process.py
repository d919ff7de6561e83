"""A large vault's conflicts queue worked out in a process of its own, beside the app.

Working the queue out at 100,000 documents takes minutes of Python, and some of its steps are
single calls that never let go of the interpreter for one or two seconds (sorting every pair of
titles drawn, the first weighing of every decision): in a thread of the app the screen stood
still through each. A process of its own opens the vault, works the queue out and keeps it in the
vault's derived store, as any process does (`Vault.conflicts`); the app then reads it back from
there (`Vault.kept_conflicts`, entry by entry). Nothing large crosses between the two, and the
app's interpreter is free meanwhile but for the wait. The process says each step as it starts
it, a line on its output (`reading the vault`, `weighing 100000 documents`), and how far each of
the weighing's long passes has gone (`weighing pairs 1000/75000`, told by `Vault.conflicts`'s
progress hook), which the header shows beside the seconds.

Run as `python -m workbench.tui.queue_process ROOT FLAVOUR`.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

__all__ = ["QueueProcess"]

STEP = "step: "
"""What starts a line of the process's output that says the step it starts (anything else on it is not for the header)."""


class QueueProcess:
    """One run of the process at a time; `stop` ends a run for good (the app is quitting)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: subprocess.Popen[bytes] | None = None
        self._stopped = False

    def work_out(self, root: Path, flavour: str, said: Callable[[str], object] | None = None) -> bool:
        """Work the queue of the vault at `root` out in the process and wait for it (in a worker's
        thread), each step it starts given to `said`; False when stopped meanwhile. RuntimeError
        with the process's last words when it failed."""
        with tempfile.TemporaryFile() as errors:  # a file, not a pipe: nothing waits on it filling
            with self._lock:
                if self._stopped:
                    return False
                self._running = process = subprocess.Popen(
                    [sys.executable, "-m", __name__, str(root), flavour],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=errors,
                )
            try:
                assert process.stdout is not None
                for line in process.stdout:
                    text = line.decode("utf-8", "replace").strip()
                    if text.startswith(STEP) and said is not None:
                        said(text[len(STEP) :])
                process.wait()
            finally:
                with self._lock:
                    self._running = None
            if self._stopped:
                return False
            if process.returncode != 0:
                errors.seek(0)
                words = errors.read().decode("utf-8", "replace").strip().splitlines()
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
    print(f"{STEP}reading the vault", flush=True)
    vault = Vault.open(Path(root), flavour=flavour)
    print(f"{STEP}weighing {len(vault)} documents", flush=True)
    vault.conflicts(progress=lambda name, done, total: print(f"{STEP}{name} {done}/{total}", flush=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
