"""A real terminal for the TUI tests: the workbench run in tmux, read back as a person sees it.

Pilot runs the app headless, where `App.suspend()` is not supported and no terminal is handed
over; what happens to a real terminal (an editor that fails to start, the exit status) needs one.
Each terminal has its own tmux server (a socket of its own), ended with the test.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

WORKBENCH = Path(sys.executable).with_name("workbench")

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Terminal:
    """The workbench in a tmux pane of `width` x `height`, with its own environment."""

    def __init__(self, args: list[str], env: Mapping[str, str], width: int = 80, height: int = 24) -> None:
        self.socket = f"workbench-test-{uuid.uuid4().hex[:12]}"
        self.status_file = Path(env["XDG_CONFIG_HOME"]) / "exit-status"
        command = " ".join(shlex.quote(a) for a in [str(WORKBENCH), *args])
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        # The pane outlives the program (remain-on-exit), so its last screen and status can be read.
        self._tmux(
            "new-session",
            "-d",
            "-x",
            str(width),
            "-y",
            str(height),
            f"env {exports} {command}; echo $? > {shlex.quote(str(self.status_file))}; sleep 600",
        )

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], check=True, capture_output=True, text=True).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-J")  # -J: a line the pane wrapped, whole

    def send(self, *keys: str) -> None:
        self._tmux("send-keys", *keys)

    def wait_for(self, condition: Callable[[str], bool], seconds: float = 30.0) -> str:
        deadline = time.monotonic() + seconds
        while True:
            text = self.screen()
            if condition(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; the screen shows:\n{text}")
            time.sleep(0.1)

    def open_first(self) -> str:
        """Open the first title once the list is on screen (enter again if it came before the
        focus reached the list: a person waits for the list to settle, a test cannot see that)."""
        self.wait_for(lambda text: "? Keys" in text and "documents" in text)
        for _ in range(50):
            self.send("Enter")
            try:
                return self.wait_for(lambda text: "No document open" not in text, seconds=1.0)
            except AssertionError:
                continue
        raise AssertionError(f"no document opened; the screen shows:\n{self.screen()}")

    def exit_status(self, seconds: float = 20.0) -> int:
        deadline = time.monotonic() + seconds
        while not self.status_file.exists() or not self.status_file.read_text().strip():
            if time.monotonic() > deadline:
                raise AssertionError(f"the workbench did not exit; the screen shows:\n{self.screen()}")
            time.sleep(0.1)
        return int(self.status_file.read_text())

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def terminal_env(config: Path, **extra: str) -> dict[str, str]:
    """The environment of a terminal: the user's config and cache kept out, a plain TERM."""
    config.mkdir(parents=True, exist_ok=True)
    return {
        "TERM": "xterm-256color",
        "XDG_CONFIG_HOME": str(config),
        "XDG_CACHE_HOME": str(config / "cache"),
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", str(config)),
        **extra,
    }
