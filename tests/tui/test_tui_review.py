"""The curator's side of the review loop in the TUI: the conflicts queue keeps the resolution you
chose, the gate's candidates read in the order of their scores and page on past three, and verdicts
agents recorded are accepted or rejected from the queue. Pilot tests asserting on the files on disk,
then snapshots."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Button, OptionList
from tui_helpers import settle

from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.confirm_plan import ConfirmPlanDialog
from workbench.tui.dialogs.conflicts import ConflictsDialog


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
