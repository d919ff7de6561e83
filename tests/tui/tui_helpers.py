"""Helpers for the TUI tests: drive the pilot, and read the screen as plain text."""

from __future__ import annotations

import io

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.worker import WorkerCancelled


async def settle(pilot: Pilot) -> None:
    """Let workers finish and the messages they posted be handled (twice: results can chain)."""
    for _ in range(3):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:  # an exclusive worker replaced by a newer one
            pass
        await pilot.pause()


async def type_text(pilot: Pilot, text: str) -> None:
    await pilot.press(*["space" if ch == " " else ch for ch in text])


def screen_text(app: App) -> str:
    """What the terminal shows, as plain text (the same render `export_screenshot` uses)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, force_terminal=True,
                      color_system="truecolor", legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()
