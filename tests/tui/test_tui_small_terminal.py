"""The workbench at 80x24 and 160x45 as a new user meets it: what the first screen lists, what a
notice covers, where the keys lead. Each test is a problem seen in a real terminal, fixed."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button
from textual.widgets._toast import Toast
from tui_helpers import screen_text, settle, type_text, wait_for

from workbench import Vault
from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.confirm_plan import ConfirmPlanDialog

FASTAPI = "mem-decision-api-fastapi"


def covered_buttons(app: WorkbenchApp) -> list[str]:
    """The labels of the dialog's buttons that a notice is drawn over."""
    toasts = [toast.region for toast in app.screen.query(Toast) if toast.region.area]
    return [
        str(button.label)
        for button in app.screen.query(Button)
        if button.display and any(button.region.overlaps(toast) for toast in toasts)
    ]


@pytest.mark.parametrize("then", ["u", "p"])
async def test_a_notice_after_a_write_never_covers_the_next_dialogs_buttons(sample_copy: Path, then: str):
    vault = Vault.open(sample_copy)
    vault.set_status(FASTAPI, "deprecated")
    vault.set_status(FASTAPI, "active")
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        await pilot.press("y")  # undone: a notice of several lines says what and what comes next
        await settle(pilot)
        await pilot.press(then)
        await settle(pilot)
        await wait_for(pilot, lambda: bool(app.screen.query(Button)))
        await wait_for(pilot, lambda: bool(app.screen.query(Toast)), seconds=3)  # the notice, hidden on the dialog
        assert isinstance(app.screen, ConfirmPlanDialog) or then == "p"
        assert covered_buttons(app) == []


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_the_first_screen_lists_whole_ids_one_line_each_and_the_column_grows(sample_copy: Path, size):
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        lines = [
            line.split("│")[1].strip(" ▁▂▃▄▅▆▇█") for line in screen_text(app).splitlines() if line.startswith("│")
        ]
        listed = [doc.id for doc in Vault.open(sample_copy).search("", 20)]
        shown = [line for line in lines if line.startswith("mem-")]  # an id's line, whole or cut
        for doc_id, line in zip(listed, shown, strict=False):
            assert line == doc_id or (line.endswith("…") and doc_id.startswith(line[:-1])), (doc_id, line)
        assert len(shown) >= (5 if size == (80, 24) else 12)
        assert shown[:5] == listed[:5]  # the first screen's five: whole
        search = app.screen.query_one("#search").region.width
        assert search >= size[0] * 2 // 5 if size[0] < 100 else search >= size[0] // 4


async def test_a_search_that_matches_nothing_says_so_and_the_box_suggests_this_vaults_filters(builder):
    for n in range(3):
        builder.add(f"mem-note-plain-{n}", tags=["cooking"])
    app = WorkbenchApp(builder.root, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        box = app.screen.query_one("#search-input")
        assert "type:" not in box.placeholder, "every document is a note: a type filter narrows nothing"
        assert "tag:cooking" in box.placeholder
        for query in ("type:decision", "is:orphan zebra"):
            await type_text(pilot, query)
            await settle(pilot)
            listed = " ".join(
                line.split("│")[1].strip() for line in screen_text(app).splitlines() if line.startswith("│")
            )
            assert f"No document matches {query}" in " ".join(listed.split()), screen_text(app)
            await pilot.press(*["backspace"] * len(query))
            await settle(pilot)


async def test_the_footer_does_not_offer_back_where_backspace_deletes_a_letter(sample_copy: Path):
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("s", "escape")  # another document, so there is a way back
        await type_text(pilot, "stripe")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert "⌫ Back" in screen_text(app).splitlines()[-1]
        await pilot.press("slash")
        await settle(pilot)
        assert "⌫" not in screen_text(app).splitlines()[-1]


@pytest.mark.parametrize("leave", ["escape", "g", "tab"])
async def test_below_100_columns_the_keys_that_brought_the_links_give_the_results_back(sample_copy: Path, leave: str):
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert app.focused is app.screen.query_one("#links") and not app.screen.query_one("#search").display
        await pilot.press(leave)
        await settle(pilot)
        assert app.screen.query_one("#search").display and app.focused is app.screen.query_one("#results")


async def test_t_offers_only_the_link_types_the_document_has_and_another_document_shows_them_all(builder):
    builder.add(
        "mem-note-hub",
        links=[{"type": "related_to", "target": "mem-note-a"}, {"type": "depends_on", "target": "mem-note-b"}],
    )
    builder.add("mem-note-a", links=[{"type": "related_to", "target": "mem-note-b"}])
    builder.add("mem-note-b")
    app = WorkbenchApp(builder.root, theme="workbench-dark")
    seen: list[str] = []
    async with app.run_test(size=(80, 24), message_hook=lambda m: seen.append(getattr(m, "link_type", "-"))) as pilot:
        await settle(pilot)
        await type_text(pilot, "id:mem-note-hub")
        await pilot.press("enter")
        await settle(pilot)
        links = app.screen.query_one("#links")
        titles = []
        for _ in range(3):
            await pilot.press("t")
            await settle(pilot)
            titles.append(f"{links.border_title} | {links.border_subtitle}")
        assert titles == [
            "Links · depth 1 | related_to only · t",
            "Links · depth 1 | depends_on only · t",
            "Links · depth 1 | ",
        ]
        await pilot.press("t")  # related_to only, then open a related document
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.screen.current.document.id == "mem-note-a"
        assert not links.border_subtitle, "the filter was for the hub"
        await pilot.press("t")  # mem-note-a has related_to links only (out and in): nothing to filter
        await settle(pilot)
        assert not links.border_subtitle


async def test_the_write_gate_at_80x24_shows_its_whole_links_label_and_a_tags_hint_that_is_no_value(sample_copy: Path):
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        shown = " ".join(line.strip("█ ") for line in screen_text(app).splitlines())
        assert "pick a type, search a target, enter adds it" in " ".join(shown.split())
        assert app.screen.query_one("#tags").placeholder.startswith("none yet")
        assert "Candidates" in screen_text(app).splitlines()[-1]
