"""A real `workbench serve` and a real browser for the browser face's tests.

`served` runs the server on a free loopback port, its token read from a file. `Browser` drives
Debian's chromium through Playwright (pointed at the system's browser: Playwright's own browser
download is not used), one fresh profile per browser, so two browsers are two people. The page
draws the terminal on a canvas, so the DOM holds no text: `Page.screen` is what the app has drawn,
rebuilt from the terminal output that crossed the page's WebSocket (`Screen`, a small terminal
emulator for what Textual writes: cursor moves, text, styles ignored).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata
from codecs import getincrementaldecoder
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from mcp_client import ROOT, free_port, wait_listening

TOKEN = "browser-token-0123456789abcdef"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium() -> str:
    """The system's chromium, or the test is skipped saying why."""
    path = os.environ.get("WORKBENCH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.skip("no chromium here: `apt-get install chromium` (or set WORKBENCH_CHROMIUM) to run the browser tests")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("playwright is not installed: `pip install -e '.[test]'`")
    return path


class Server:
    def __init__(self, process: subprocess.Popen, port: int) -> None:
        self.process = process
        self.port = port
        self.base = f"http://127.0.0.1:{port}/"

    def children(self) -> list[int]:
        """The server's child processes: one app per open page."""
        found: list[int] = []
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            try:
                found += [int(pid) for pid in (task / "children").read_text().split()]
            except OSError:
                pass
        return found


@contextmanager
def served(vault: Path, token_file: Path, *options: str) -> Iterator[Server]:
    port = free_port()
    command = [sys.executable, "-m", "workbench.cli", "--vault", str(vault), "serve", f"127.0.0.1:{port}"]
    process = subprocess.Popen(
        [*command, "--token-file", str(token_file), *options],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_listening(process, port)
        yield Server(process, port)
    finally:
        process.terminate()
        said, _ = process.communicate(timeout=60)
        assert "Traceback" not in said, said
        assert token_file.read_text().strip() not in said  # a token read from a file is never printed


CONTROL = re.compile(r"\x1b\[([0-9;?<>=$]*)([ -/]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b.")


class Screen:
    """The terminal as the app drew it: Textual places every run of text with a cursor move."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = [[" "] * width for _ in range(height)]
        self.row = self.col = 0
        self.decoder = getincrementaldecoder("utf-8")("replace")
        self.pending = ""

    def feed(self, data: bytes) -> None:
        text = self.pending + self.decoder.decode(data)
        cut = text.rfind("\x1b")
        if cut != -1 and not CONTROL.match(text, cut):  # a sequence split between two frames
            text, self.pending = text[:cut], text[cut:]
        else:
            self.pending = ""
        at = 0
        for match in CONTROL.finditer(text):
            self.put(text[at : match.start()])
            at = match.end()
            if match.group(3) == "H":
                parts = (match.group(1) or "1;1").split(";")
                self.row = int(parts[0] or 1) - 1
                self.col = int(parts[1] or 1) - 1 if len(parts) > 1 else 0
        self.put(text[at:])

    def put(self, text: str) -> None:
        for char in text:
            if char == "\n":
                self.row, self.col = self.row + 1, 0
            elif char == "\r":
                self.col = 0
            elif char >= " " and 0 <= self.row < self.height:
                wide = unicodedata.east_asian_width(char) in "WF"
                if 0 <= self.col < self.width:
                    self.cells[self.row][self.col] = char
                    if wide and self.col + 1 < self.width:
                        self.cells[self.row][self.col + 1] = ""
                self.col += 2 if wide else 1

    def text(self) -> str:
        return "\n".join("".join(row).rstrip() for row in self.cells)


class Page:
    """One browser page on the server, and the screen its WebSocket carried."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.screen: Screen | None = None
        self.requests: list[str] = []
        self.frames = 0
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("websocket", self._socket)

    def _socket(self, socket: Any) -> None:
        size = parse_qs(urlsplit(socket.url).query)
        self.screen = Screen(int(size["width"][0]), int(size["height"][0]))
        socket.on("framereceived", self._frame)

    def _frame(self, payload: bytes | str) -> None:
        if isinstance(payload, bytes) and self.screen is not None:  # text frames are textual-serve's pings
            self.frames += 1
            self.screen.feed(payload)

    def text(self) -> str:
        return self.screen.text() if self.screen else ""

    def wait_for(self, condition: Callable[[str], bool], seconds: float = 30.0) -> str:
        deadline = time.monotonic() + seconds
        while True:
            text = self.text()
            if condition(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"the page never showed what was awaited; it shows:\n{text}")
            self.page.wait_for_timeout(50)

    def wait_quiet(self, seconds: float = 0.4) -> None:
        """Until no frame arrived for `seconds`: the app has drawn what the last key asked for."""
        while True:
            seen = self.frames
            self.page.wait_for_timeout(seconds * 1000)
            if self.frames == seen:
                return

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(key)

    def type(self, text: str) -> None:
        self.page.keyboard.type(text, delay=20)


class Browser:
    """A chromium of its own (a fresh profile): its cookies are its own."""

    def __init__(self, playwright: Any, executable: str, size: tuple[int, int] = (1200, 700)) -> None:
        from playwright.sync_api import Error

        self.profile = tempfile.mkdtemp(prefix="workbench-chromium-")
        try:
            self.context = playwright.chromium.launch_persistent_context(
                self.profile,
                executable_path=executable,
                headless=True,
                args=ARGS,
                viewport={"width": size[0], "height": size[1]},
            )
        except Error as exc:  # a browser that cannot start here is no browser: not the server's fault
            shutil.rmtree(self.profile, ignore_errors=True)
            pytest.skip(f"{executable} did not start: {str(exc).splitlines()[0]}")

    def page(self) -> Page:
        return Page(self.context.new_page())

    def close(self) -> None:
        self.context.close()
        shutil.rmtree(self.profile, ignore_errors=True)
