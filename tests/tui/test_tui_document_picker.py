"""The DocumentPicker widget on its own: a search box, the hits, and the `Picked` message."""

from __future__ import annotations

import threading
from pathlib import Path

from textual import on
from textual.app import App, ComposeResult
from textual.widgets import OptionList
from tui_helpers import settle, type_text

from workbench.core.vault import Vault
from workbench.tui.widgets.document_picker import DocumentPicker


class PickerApp(App[None]):
    def __init__(self, searcher, **options) -> None:
        super().__init__()
        self.searcher = searcher
        self.options = options
        self.picked: list[tuple[str | None, str]] = []

    def compose(self) -> ComposeResult:
        yield DocumentPicker(self.searcher, id="picker", **self.options)

    def on_mount(self) -> None:
        self.query_one(DocumentPicker).focus_input()

    @on(DocumentPicker.Picked, "#picker")
    def _picked(self, message: DocumentPicker.Picked) -> None:
        self.picked.append((message.control.id, message.doc_id))


async def test_enter_picks_the_best_hit_through_the_core_search(sample_copy: Path):
    vault = Vault.open(sample_copy)
    seen = []
    app = PickerApp(vault.search, limit=5, exclude=["mem-entity-postgres"])
    async with app.run_test(size=(80, 20), message_hook=seen.append) as pilot:
        picker = app.query_one(DocumentPicker)
        assert picker.has_class("-empty")
        await type_text(pilot, "postgres")
        await settle(pilot)
        hits = [o.id for o in picker.query_one(OptionList).options]
        assert hits and len(hits) <= 5 and "mem-entity-postgres" not in hits
        assert not picker.has_class("-empty")
        await pilot.press("enter")
        await pilot.pause()
        assert app.picked == [("picker", hits[0])]
        assert any(isinstance(m, DocumentPicker.Picked) and m.control is picker for m in seen)
        await pilot.press("down", "down", "enter")  # into the list, then the second hit
        await pilot.pause()
        assert app.picked[-1] == ("picker", hits[1])
        picker.clear()
        await settle(pilot)
        assert picker.query_text == "" and picker.has_class("-empty")


async def test_enter_before_the_hits_arrive_waits_for_them():
    release = threading.Event()
    queries = []

    def slow_search(query: str, limit: int):
        from workbench.core.views.search import Hit

        queries.append(query)
        if query == "ab":
            release.wait(5)
        return [
            Hit(
                id=f"mem-note-{query}",
                path=f"notes/mem-note-{query}.md",
                title=query,
                type="note",
                status="active",
                score=1.0,
            )
        ]

    app = PickerApp(slow_search)
    async with app.run_test(size=(80, 20)) as pilot:
        await type_text(pilot, "a")
        await settle(pilot)
        await type_text(pilot, "b")
        await pilot.press("enter")  # the list still answers "a"
        await pilot.pause()
        assert app.picked == []
        release.set()
        await settle(pilot)
        assert app.picked == [("picker", "mem-note-ab")]


async def test_blank_query_and_no_searcher_offer_nothing():
    app = PickerApp(None)
    async with app.run_test(size=(80, 20)) as pilot:
        await type_text(pilot, "anything")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.picked == [] and app.query_one(DocumentPicker).has_class("-empty")


async def test_a_filter_typed_wrong_is_said_in_the_list_and_picks_nothing(sample_copy: Path):
    vault = Vault.open(sample_copy)
    app = PickerApp(vault.search, limit=5)
    async with app.run_test(size=(80, 20)) as pilot:
        picker = app.query_one(DocumentPicker)
        await type_text(pilot, "type:decsion")
        await settle(pilot)
        listing = picker.query_one(OptionList)
        said = listing.get_option_at_index(0)
        assert listing.option_count == 1 and said.disabled and "no such type" in str(said.prompt)
        assert not picker.has_class("-empty") and not app._notifications
        await pilot.press("enter")
        await pilot.pause()
        assert app.picked == []
