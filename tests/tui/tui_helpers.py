"""Helpers for the TUI tests: drive the pilot, wait for the app, and read the screen as plain text."""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, OptionList
from textual.worker import WorkerCancelled

from workbench.tui.app import WorkbenchApp
from workbench.tui.screens.main import MainScreen

ScreenType = TypeVar("ScreenType")


async def settle(pilot: Pilot) -> None:
    """Let workers finish and the messages they posted be handled (twice: results can chain)."""
    for _ in range(3):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:  # an exclusive worker replaced by a newer one
            pass
        await pilot.pause()


async def wait_for(pilot: Pilot, condition: Callable[[], bool], seconds: float = 30.0) -> None:
    """Real time passes here: the watcher and the workers run on their own threads."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        await pilot.pause(0.05)
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:  # a newer search replaced an older one: that is the app working
            pass
    assert condition(), "timed out"


def steady_cursors(pilot: Pilot) -> None:
    """A blinking cursor is caught on or off at random (off once half a second has passed since
    its box took the focus, as it may under load before a snapshot): keep it on."""
    for widget in pilot.app.screen.query("Input, TextArea"):
        widget.cursor_blink = False


async def type_text(pilot: Pilot, text: str) -> None:
    """Type into the focused box; on the main screen, into the search box (`/` first, as a person
    does: the focus starts on the results, where letters are commands)."""
    if isinstance(pilot.app.screen, MainScreen) and not isinstance(pilot.app.focused, Input):
        await pilot.press("slash")
    await pilot.press(*["space" if ch == " " else ch for ch in text])


async def open_by_search(pilot: Pilot, query: str) -> None:
    """Type a search and open its first hit, as a person does."""
    await type_text(pilot, query)
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)


def result_ids(app: App) -> list[str]:
    """The ids the search pane lists, in order."""
    return [option.id for option in app.screen.query_one("#results", OptionList).options]


def notes(app: App) -> list[str]:
    """Every notification the app gave so far, as `title: message`, those that already timed out
    too (the `noted_notifications` fixture notes each as it is given): on a loaded machine a
    notice can time out before a test looks at it."""
    return list(getattr(app, "_seen_notifications", []))


def screen_text(app: App) -> str:
    """What the terminal shows, as plain text (the same render `export_screenshot` uses)."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        record=True,
        force_terminal=True,
        color_system="truecolor",
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


def burst(app: App, *keys: str) -> None:
    """Send keys as a paste or a macro does (`tmux send-keys` of several at once): all at once, as
    the terminal driver posts them, without waiting for any to be handled (`pilot.press` waits)."""
    from textual import events

    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


@contextlib.asynccontextmanager
async def running(
    root: Path,
    size: tuple[int, int] = (100, 30),
    prepare: Callable[[WorkbenchApp], None] | None = None,
    **options: Any,
) -> AsyncIterator[tuple[WorkbenchApp, Pilot]]:
    """The app on the vault at `root` in a terminal of `size`, its first reading settled;
    `prepare` sees the app before it starts, `options` go to `WorkbenchApp` (a theme)."""
    app = WorkbenchApp(root, **options)
    if prepare is not None:
        prepare(app)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        yield app, pilot


async def open_dialog(pilot: Pilot, key: str, kind: type[ScreenType]) -> ScreenType:
    """The dialog `key` opens from the main screen (`escape` first, out of the search box), once
    what it lists is read; it fails unless the dialog shown is a `kind`."""
    await settle(pilot)
    await pilot.press("escape", key)
    await settle(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, kind), f"{key} opened {type(dialog).__name__}, not {kind.__name__}"
    return dialog


def markdown_files(root: Path) -> dict[str, bytes]:
    """Every Markdown file of the vault and its bytes, the derived store left out."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.md")) if ".workbench" not in p.parts}
