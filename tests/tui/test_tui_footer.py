"""The footer makes its keys again only when what it shows changes: making them is a widget a key,
and the screen asks for the bindings again after every document opened."""

from __future__ import annotations

from pathlib import Path

from textual.widgets._footer import FooterKey
from tui_helpers import settle

from workbench.tui.app import WorkbenchApp
from workbench.tui.widgets.viewer import DocumentViewer


def keys_made(app) -> list[FooterKey]:
    return list(app.screen.query(FooterKey))


async def test_opening_another_document_keeps_the_keys_and_a_focus_move_makes_them_again(sample_copy: Path):
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.screen.open_document("mem-entity-stripe", focus="viewer")
        await settle(pilot)
        app.screen.open_document("mem-index-vault")  # from here on there is a way back: "Back" is shown
        await settle(pilot)
        assert isinstance(app.focused, DocumentViewer)
        before = keys_made(app)
        assert "Next link" in " ".join(str(key.description) for key in before)
        app.screen.open_document("mem-entity-stripe")
        await settle(pilot)
        assert keys_made(app) == before and all(a is b for a, b in zip(keys_made(app), before))
        await pilot.press("slash")
        await settle(pilot)
        after = keys_made(app)
        assert not any(key in before for key in after)
        assert "Next link" not in " ".join(str(key.description) for key in after)
