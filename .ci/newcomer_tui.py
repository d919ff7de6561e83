"""The TUI as a newcomer meets it after `pip install .` alone: it starts on the bundled sample,
goes to the search box (`/`, as the footer says), answers a question of several words there, and
quits. Run headless by CI."""

import asyncio
import sys
import time

from textual.widgets import OptionList

from workbench.cli import resolve_vault_path
from workbench.tui.app import WorkbenchApp
from workbench.tui.widgets.search import SearchPane

QUESTION = "how do we handle stripe webhooks"


async def main() -> int:
    app = WorkbenchApp(resolve_vault_path(None))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("slash")
        await pilot.pause()
        await pilot.press(*["space" if ch == " " else ch for ch in QUESTION])
        pane = app.screen.query_one(SearchPane)
        deadline = time.monotonic() + 60
        while pane._shown_query != QUESTION and time.monotonic() < deadline:
            await pilot.pause(0.1)
        results = [option.id for option in app.screen.query_one("#results", OptionList).options]
        problems = [note.message for note in app._notifications]
        await pilot.press("ctrl+q")
    print(f"TUI: {len(results)} result(s) for {QUESTION!r}; notifications: {problems}")
    return 0 if results and not problems else 1


sys.exit(asyncio.run(main()))
