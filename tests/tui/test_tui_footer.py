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


async def test_a_key_that_does_not_fit_whole_is_left_out_not_cut(sample_copy: Path):
    from workbench.tui.widgets.footer import KeysFooter

    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for size in ((80, 24), (60, 24), (160, 30)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            footer = app.screen.query_one(KeysFooter)
            keys = [key for key in footer.query(FooterKey) if not key.has_class("-command-palette")]
            palette = footer.query_one(".-command-palette")
            shown = [key for key in keys if key.display]
            assert shown and all(key.region.right <= palette.region.x for key in shown), size
            assert [key.display for key in keys] == sorted((key.display for key in keys), reverse=True), (
                "only the last ones go"
            )
        assert all(key.display for key in keys), "at 160 columns every key fits"
