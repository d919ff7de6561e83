"""The curator's side of the review loop in the TUI: the conflicts queue keeps the resolution you
chose, the gate's candidates read in the order of their scores and page on past three, and verdicts
agents recorded are accepted or rejected from the queue. Pilot tests asserting on the files on disk,
then snapshots."""

from __future__ import annotations

import re
from pathlib import Path

from textual.widgets import Button, Input, OptionList, Select, TextArea
from tui_helpers import settle

from workbench.core.gate import Candidate
from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.confirm_plan import ConfirmPlanDialog
from workbench.tui.dialogs.conflicts import ConflictsDialog
from workbench.tui.dialogs.new_document import (
    CANDIDATES,
    PAGE,
    NewDocumentDialog,
    candidate_group,
    candidate_prompt,
)


def markdown_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.md")) if ".workbench" not in p.parts}


# -- the queue as you left it ----------------------------------------------------------------------


async def test_no_at_a_preview_returns_to_the_resolution_chosen_not_the_first(sample_copy: Path):
    """`n` at a resolution's preview comes back with that resolution focused: `enter` previews it
    again, never the conflict's first resolution."""
    before = markdown_files(sample_copy)
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("escape", "c")
        await settle(pilot)
        dialog = app.screen
        duplicate = next(i for i, c in enumerate(dialog.conflicts) if c.kind == "duplicate")
        dialog.query_one("#conflict-list", OptionList).highlighted = duplicate
        await pilot.pause()
        await pilot.press("enter", "down", "down")  # the third: "merge … into …"
        merge = app.focused
        assert isinstance(merge, Button) and "merge" in str(merge.label)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        first_diff = app.screen.diff
        await pilot.press("n")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConflictsDialog)
        assert dialog.query_one("#conflict-list", OptionList).highlighted == duplicate
        assert isinstance(app.focused, Button) and str(app.focused.label) == str(merge.label)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog) and app.screen.diff == first_diff, "the merge again"
        await pilot.press("n")
        await settle(pilot)
    assert markdown_files(sample_copy) == before


# -- the gate's candidates: in the order of their scores, three at a time ---------------------------


async def pdf_decision_candidates(pilot) -> NewDocumentDialog:
    """The gate on a new decision the sample's decisions and entities are both alike to."""
    await settle(pilot)
    await pilot.press("escape", "n")
    await settle(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, NewDocumentDialog)
    dialog.query_one("#type", Select).value = "decision"
    dialog.query_one("#title", Input).value = "Invoices go out as PDF via a job queue"
    dialog.query_one("#tags", Input).value = "billing, jobs"
    dialog.query_one("#body", TextArea).text = "Invoices render to PDF in a background job on Redis.\n"
    dialog.links.append(("related_to", "mem-entity-invoice-model"))
    await pilot.press("ctrl+s")
    await settle(pilot)
    return dialog


def listed(dialog: NewDocumentDialog) -> list[str]:
    """The candidate list's lines as shown: headings and candidates."""
    return [str(option.prompt) for option in dialog.query_one("#candidate-list", OptionList).options]


def scores_in_order(lines: list[str]) -> bool:
    """Within each heading's group, the scores shown never rise."""
    groups: list[list[float]] = [[]]
    for line in lines:
        found = re.match(r"\s*\d+\s+(\d+\.\d\d)\s", line)
        if found is None:
            groups.append([])
        else:
            groups[-1].append(float(found.group(1)))
    return all(group == sorted(group, reverse=True) for group in groups)


async def test_the_gates_candidates_page_on_three_at_a_time_in_the_order_of_their_scores(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await pdf_decision_candidates(pilot)
        total = len(dialog.candidates)
        assert 7 <= total <= CANDIDATES, "more than a page: up to ten asked of the gate"
        pages, seen = [], []
        while True:
            lines = listed(dialog)
            pages.append(lines)
            ids = [option.id for option in dialog.query_one("#candidate-list", OptionList).options if option.id]
            assert len(ids) <= PAGE
            seen.extend(ids)
            if len(seen) == total:
                break
            await pilot.press("right_square_bracket")
            await pilot.pause()
        assert seen == [str(i) for i in range(total)], "each candidate once, in the gate's order"
        # The gate ranks the decisions a new one likely replaces first, whatever the others' scores:
        # a heading says so, and the scores read in order under each heading.
        every_line = [line for page in pages for line in page]
        assert any("likely replaces" in line for line in every_line) and any("Others" in line for line in every_line)
        assert scores_in_order([line for line in every_line if "likely" not in line or re.match(r"\s*\d", line)])
        ranks = [int(re.match(r"\s*(\d+)", line).group(1)) for line in every_line if re.match(r"\s*\d", line)]
        assert ranks == list(range(1, total + 1))
        side = dialog.query_one("#candidate-side")
        assert side.border_title == f"Candidate {total - (total - 1) % PAGE} of {total}", (
            "the page's first beside the draft"
        )
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert listed(dialog) == pages[-2]
        await pilot.press("m" if dialog.selected.action == "merge" else "s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog), "a candidate on a later page is chosen as any other"


def test_a_candidates_line_fits_its_width_and_keeps_score_type_and_status():
    long = Candidate("mem-decision-x", "A very long title " * 5, "decision", "deprecated", 0.4242, ["why"], "supersede")
    line = candidate_prompt(12, long, width=60)
    assert line.cell_length <= 60
    assert "0.42" in line.plain and line.plain.endswith("decision · deprecated") and "…" in line.plain
    assert candidate_prompt(1, long).plain.count("A very long title") == 5


def test_headings_follow_the_gates_own_groups():
    likely = Candidate("a", "A", "decision", "active", 0.5, ["r"], "supersede")
    weak = Candidate("b", "B", "decision", "active", 0.1, ["r"], "supersede")
    home = Candidate("c", "C", "entity", "active", 0.9, ["r"], "merge")
    assert candidate_group(likely) and not candidate_group(weak) and not candidate_group(home)
