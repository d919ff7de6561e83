"""The dialogs as a family (each one is the shared `.wb-dialog` frame from app.tcss), and the pure
parts of the both-versions dialog."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import settle

from workbench.core.changes import FileChange, Plan
from workbench.core.inbox import Inbox
from workbench.core.model import Document, Problem, Severity
from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.confirm_forget import ConfirmForgetDialog
from workbench.tui.dialogs.confirm_plan import ConfirmPlanDialog
from workbench.tui.dialogs.conflicts import ConflictsDialog
from workbench.tui.dialogs.consolidate import ConsolidateDialog
from workbench.tui.dialogs.external_change import (
    ExternalChangeDialog,
    Versions,
    first_difference,
    versions_diff,
)
from workbench.tui.dialogs.inbox import InboxDialog
from workbench.tui.dialogs.keys import KeysDialog
from workbench.tui.dialogs.lifecycle import LifecycleDialog
from workbench.tui.dialogs.new_document import NewDocumentDialog
from workbench.tui.dialogs.problems import ProblemsDialog
from workbench.tui.proposal import changed_since_read


def no_search(query: str, limit: int) -> list:
    return []


NOTE = Document("mem-note-x", "notes/mem-note-x.md", {"title": "X", "status": "active", "type": "note"}, "")

DIALOGS = {
    "confirm": lambda: ConfirmPlanDialog("edit x", "--- a\n+++ b\n"),
    "confirm_forget": lambda: ConfirmForgetDialog("mem-note-x"),
    "inbox": lambda: InboxDialog(Inbox((), None), lambda request: ""),
    "conflicts": lambda: ConflictsDialog([]),
    "consolidate": lambda: ConsolidateDialog([], {}, no_search),
    "external_change": lambda: ExternalChangeDialog(Versions("notes/x.md", b"a\nb\n", b"a\nc\n", planned=True)),
    "keys": lambda: KeysDialog([]),
    "lifecycle": lambda: LifecycleDialog(NOTE, no_search),
    "new_document": lambda: NewDocumentDialog(no_search, lambda draft: []),
    "problems": lambda: ProblemsDialog([], {}),
}


@pytest.mark.parametrize("name", sorted(DIALOGS))
async def test_every_dialog_wears_the_shared_frame(sample_copy: Path, name: str):
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await app.push_screen(DIALOGS[name]())
        await pilot.pause()
        dialog = app.screen
        assert dialog.has_class("wb-dialog")
        frame = dialog.query_one("#dialog")
        assert frame.styles.border_top[0] == "thick"
        assert frame.styles.background == app.current_theme.to_color_system().surface
        assert (dialog.styles.align_horizontal, dialog.styles.align_vertical) == ("center", "middle")
        assert frame.region.width <= 100


READ, DISK, OURS = b"one\ntwo\nthree\n", b"one\ntwo, said an agent\nthree\n", b"one\ntwo\nthree\nfour\n"


async def test_the_problems_list_puts_errors_first():
    warnings = [Problem(f"a{n}.md", Severity.WARNING, "stale-link", "links an old one") for n in range(3)]
    error = Problem("z.md", Severity.ERROR, "conflict-markers", "git conflict markers")
    dialog = ProblemsDialog([*warnings[:2], error, warnings[2]], {})
    assert dialog.problems == [error, *warnings]


def test_versions_diff_reads_from_old_to_new():
    planned = versions_diff(Versions("x.md", DISK, OURS, planned=True))
    assert "--- x.md (on disk now)" in planned and "+++ x.md (what you were about to write)" in planned
    assert "-two, said an agent" in planned and "+four" in planned  # writing it would drop the agent's words
    read = versions_diff(Versions("x.md", DISK, READ, planned=False))
    assert "--- x.md (the version you read)" in read and "+two, said an agent" in read
    assert versions_diff(Versions("x.md", READ, READ, planned=False)) == ""
    assert first_difference(Versions("x.md", DISK, READ, planned=False)) == 1
    assert first_difference(Versions("x.md", READ, OURS, planned=True)) == 3


def test_changed_since_read_finds_a_plan_made_on_another_version():
    plan = Plan("edit", [FileChange("a.md", DISK, OURS), FileChange("b.md", b"b", b"b2")])
    assert changed_since_read(plan, {}) is None
    assert changed_since_read(plan, {"a.md": DISK, "b.md": b"b"}) is None
    assert changed_since_read(plan, {"a.md": READ}).path == "a.md"
    assert changed_since_read(Plan("create", [FileChange("c.md", None, b"new")]), {"c.md": b"old"}) is None
