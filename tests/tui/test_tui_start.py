"""From launch to the first titles: what the first screen waits for, and what it does not.

The titles that fill the pane go on screen before the rest of the list is laid out."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList
from tui_helpers import result_ids, settle, wait_for

from vault_builders import VaultBuilder
from workbench.core.vault import Vault
from workbench.tui.app import WorkbenchApp
from workbench.tui.widgets.search import SHOWN, SearchPane

NOTES = SHOWN + 40


@pytest.fixture
def many(builder: VaultBuilder) -> Path:
    for n in range(NOTES):
        builder.add(f"mem-note-many-{n:03d}", updated=f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}")
    return builder.root


async def test_the_titles_that_fill_the_pane_come_before_the_rest_of_the_list(many, monkeypatch):
    expected = [hit.id for hit in Vault.open(many).search("", SHOWN)]
    put: list[int] = []  # how many documents each list put on show held
    replace = OptionList.set_options

    def counted(self, options):
        options = list(options)
        if self.id == "results" and any(option.id for option in options):
            put.append(len(options))
        return replace(self, options)

    monkeypatch.setattr(OptionList, "set_options", counted)
    listed: dict[int, int] = {}  # each Listed (seen again as it bubbles up): the titles then listed
    app = WorkbenchApp(many, theme="workbench-dark")

    def seen(message) -> None:
        if isinstance(message, SearchPane.Listed):
            listed.setdefault(id(message), app.screen.query_one("#results", OptionList).option_count)

    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        results = app.screen.query_one("#results", OptionList)
        await wait_for(pilot, lambda: bool(listed))
        await settle(pilot)
        assert put == [results.scrollable_content_region.height + 1]  # a pageful first, not the whole list
        assert list(listed.values()) == [SHOWN]  # said once, when every title is listed
        assert result_ids(app) == expected
        assert results.highlighted == 0
        assert results.border_subtitle == f"first {SHOWN}"


async def test_a_list_replaced_before_the_rest_of_the_last_one_arrived_keeps_none_of_it(many, monkeypatch):
    replace = OptionList.set_options
    replaced: list[bool] = []

    def then_unavailable(self, options):
        options = list(options)
        result = replace(self, options)
        if self.id == "results" and any(option.id for option in options) and not replaced:
            replaced.append(True)  # after the first titles' paint, before the rest of them is added
            pane = self.app.screen.query_one(SearchPane)
            pane.call_after_refresh(pane.unavailable, "the vault went away")
        return result

    monkeypatch.setattr(OptionList, "set_options", then_unavailable)
    app = WorkbenchApp(many, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: bool(replaced))
        await settle(pilot)
        results = app.screen.query_one("#results", OptionList)
        assert results.option_count == 1 and "the vault went away" in str(results.get_option_at_index(0).prompt)
