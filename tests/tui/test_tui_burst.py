"""Keys sent in one burst (a paste of keys, a macro, `tmux send-keys` of several at once) act where
the same keys typed one by one act: each key goes to the widget the keys before it led to."""

from __future__ import annotations

import stat
from pathlib import Path

from textual.widgets import Input, OptionList
from tui_helpers import burst, settle, wait_for

from workbench.tui.app import WorkbenchApp
from workbench.tui.widgets.link_pane import LinkPane


def recording_editor(tmp_path: Path) -> tuple[Path, Path]:
    """An editor that only notes the file it was given."""
    log = tmp_path / "edited.log"
    editor = tmp_path / "editor.sh"
    editor.write_text(f'#!/bin/sh\necho "$1" >> "{log}"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    return editor, log


async def test_a_search_opened_and_edited_in_one_burst_edits_the_document_found(
    sample_copy: Path, tmp_path: Path, monkeypatch
):
    editor, log = recording_editor(tmp_path)
    monkeypatch.setenv("EDITOR", str(editor))
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(app, "slash", *"stripe", "enter", "e")
        await wait_for(pilot, lambda: log.exists())
        await settle(pilot)
        assert app.screen.query_one("#search-input", Input).value == "stripe"  # the `e` was not typed
        opened = app.screen.current
        assert opened is not None and "stripe" in opened.document.id
        assert Path(log.read_text().strip()).name == Path(opened.document.path).name  # a copy of it


async def test_keys_after_g_in_one_burst_act_in_the_links_pane(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"stripe", "enter")
        await settle(pilot)
        first = app.screen.current.document.id
        results = app.screen.query_one("#results", OptionList)
        highlighted = results.highlighted
        burst(app, "g", "down", "enter")
        await wait_for(pilot, lambda: app.screen.current.document.id != first)
        await settle(pilot)
        assert results.highlighted == highlighted  # `down` and `enter` acted in the links, not in the results
        assert app.screen.query_one(LinkPane).has_focus or app.screen.focused.id == "viewer"
