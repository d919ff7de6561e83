"""A search names the invalid documents its words also match, apart from the hits and with their
problem (`SearchResults.also_invalid`): the document a curator must repair is found by its words."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList
from tui_helpers import result_ids, screen_text, settle, type_text

from workbench.tui.app import WorkbenchApp

BROKEN = "---\nid: mem-note-broken\ntype: note\ntitle: Quokka migration notes\n---\nQuokkas move at dusk.\n"


async def test_invalid_documents_that_match_are_listed_apart_with_their_problem(sample_copy: Path):
    (sample_copy / "notes" / "mem-note-broken.md").write_text(BROKEN)
    (sample_copy / "notes" / "mem-note-quokka.md").write_text(
        (sample_copy / "notes" / "mem-note-stripe-test-clocks.md")
        .read_text()
        .replace("mem-note-stripe-test-clocks", "mem-note-quokka")
        .replace("title: ", "title: Quokka ", 1)
    )
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await type_text(pilot, "quokka")
        await settle(pilot)
        ids = result_ids(app)
        assert ids[0] == "mem-note-quokka"  # the valid hit first
        assert "mem-note-broken" in ids and ids.index("mem-note-broken") > ids.index("mem-note-quokka")
        text = screen_text(app)
        assert "Invalid documents that match" in text and "field-missing" in text
        results = app.screen.query_one("#results", OptionList)
        assert results.border_subtitle.endswith("1 invalid")


async def test_a_search_only_invalid_documents_match_says_so_and_opens_one(sample_copy: Path):
    (sample_copy / "notes" / "mem-note-broken.md").write_text(BROKEN)
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await type_text(pilot, "quokka")
        await settle(pilot)
        text = screen_text(app)
        assert "No valid document matches quokka" in text
        assert "field-missing" in text
        await pilot.press("enter")  # the invalid one is highlighted: open it to see what is wrong
        await settle(pilot)
        assert app.screen.current is not None and app.screen.current.document.id == "mem-note-broken"
