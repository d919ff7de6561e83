"""A `workbench follow` process run by a test (`conftest.following`): its stderr gathered line by line."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class Following:
    """A `workbench follow` process on `vault`, its stderr gathered line by line."""

    def __init__(self, vault: Path, *reading: str, options: tuple[str, ...] = ()):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "workbench.cli", "--vault", str(vault), *reading, "follow", *options],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            cwd=ROOT,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))

    def said(self, words: str, count: int = 1, within: float = 60.0) -> None:
        """Wait until `count` lines holding `words` were said (the test fails past `within`)."""
        ends = time.monotonic() + within
        while sum(words in line for line in self.lines) < count:
            assert self.process.poll() is None or self._reader.is_alive(), self.lines
            assert time.monotonic() < ends, self.lines
            time.sleep(0.02)

    def rounds(self) -> int:
        return sum("answers kept in" in line for line in self.lines)

    def stop(self, number: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(number)
        code = self.process.wait(timeout=30)
        self._reader.join(timeout=5)
        return code
