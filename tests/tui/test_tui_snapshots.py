"""Snapshots of every screen and dialog in each theme the workbench ships (pytest-textual-snapshot).

Review a failing snapshot's report before `pytest --snapshot-update`: a changed picture is a changed
UI. Nothing shown may depend on the day or the moment the tests run: the change preview is given a
fixed diff (a real one would carry today's `updated_at`), the watcher is stopped before a file is
changed behind the app's back (so no toast arrives at a random moment), and text cursors do not
blink.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, TextArea
from tui_helpers import open_by_search, settle, steady_cursors, type_text

from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.confirm_plan import ConfirmPlanDialog

THEMES = ["workbench-dark", "workbench-light", "workbench-high-contrast"]

FASTAPI_FILE = "decisions/mem-decision-api-fastapi.md"

STATUS_DIFF = """\
--- a/decisions/mem-decision-api-fastapi.md
+++ b/decisions/mem-decision-api-fastapi.md
@@ -3,9 +3,9 @@
 id: mem-decision-api-fastapi
 type: decision
 title: Use FastAPI for the HTTP API
-status: active
+status: deprecated
 created_at: 2026-02-12
-updated_at: 2026-02-12
+updated_at: 2026-06-01
 project: tern
"""


async def money_decision_candidates(pilot) -> None:
    await settle(pilot)
    await pilot.press("escape", "n")
    await settle(pilot)
    await type_text(pilot, "Store money as integer cents")
    pilot.app.screen.links.append(("related_to", "mem-entity-invoice-model"))
    await pilot.press("ctrl+s")
    await settle(pilot)


@pytest.mark.parametrize("theme", THEMES)
def test_superseded_document(snap_compare, sample_copy: Path, theme: str):
    async def open_superseded(pilot):
        await settle(pilot)
        await open_by_search(pilot, "status:superseded celery")

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), terminal_size=(100, 30), run_before=open_superseded)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("key", ["p", "o", "c", "question_mark"])
def test_flow_dialogs(snap_compare, sample_copy: Path, theme: str, key: str):
    """Problems, consolidation, the conflicts queue and the keys, as a person first sees them."""

    async def open_dialog(pilot):
        await settle(pilot)
        await pilot.press("escape", key)
        await settle(pilot)

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), terminal_size=(100, 30), run_before=open_dialog)


@pytest.mark.slow
@pytest.mark.parametrize("theme", THEMES)
def test_write_gate_draft(snap_compare, sample_copy: Path, theme: str):
    async def draft(pilot):
        await settle(pilot)
        await pilot.press("escape", "n")
        await settle(pilot)
        dialog = pilot.app.screen
        await type_text(pilot, "Refunds go through Stripe credit notes")
        dialog.query_one("#tags", Input).value = "billing, refunds"
        dialog.links.append(("related_to", "mem-entity-stripe"))
        dialog._show_links()
        dialog.query_one("#body", TextArea).text = "Refunds are issued as credit notes.\n"
        steady_cursors(pilot)
        await settle(pilot)

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), terminal_size=(100, 30), run_before=draft)


@pytest.mark.parametrize("theme", THEMES)
def test_write_gate_candidates(snap_compare, sample_copy: Path, theme: str):
    assert snap_compare(
        WorkbenchApp(sample_copy, theme=theme), terminal_size=(100, 30), run_before=money_decision_candidates
    )


@pytest.mark.parametrize("theme", THEMES)
def test_write_gate_candidates_on_a_small_terminal(snap_compare, sample_copy: Path, theme: str):
    """At 80x24 the draft and the candidate stack instead of standing side by side."""
    assert snap_compare(
        WorkbenchApp(sample_copy, theme=theme), terminal_size=(80, 24), run_before=money_decision_candidates
    )


@pytest.mark.parametrize("theme", THEMES)
def test_lifecycle_dialog(snap_compare, sample_copy: Path, theme: str):
    async def lifecycle(pilot):
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        await pilot.press("l")
        await settle(pilot)

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), terminal_size=(100, 30), run_before=lifecycle)


@pytest.mark.parametrize("theme", THEMES)
def test_consolidation_merged_text(snap_compare, sample_copy: Path, theme: str):
    async def merged(pilot):
        await settle(pilot)
        await pilot.press("escape", "o")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        steady_cursors(pilot)
        await pilot.pause()

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), terminal_size=(100, 30), run_before=merged)


@pytest.mark.parametrize("theme", THEMES)
def test_change_preview(snap_compare, sample_copy: Path, theme: str):
    async def preview(pilot):
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        await pilot.app.push_screen(
            ConfirmPlanDialog(
                "status mem-decision-api-fastapi: active → deprecated", STATUS_DIFF, title="Change the status?"
            )
        )
        await settle(pilot)

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), terminal_size=(100, 30), run_before=preview)


@pytest.mark.parametrize("theme", THEMES)
def test_changed_on_disk(snap_compare, sample_copy: Path, theme: str):
    async def outside_change(pilot):
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        pilot.app.screen.stop_watching()
        await pilot.press("l")
        await settle(pilot)
        path = sample_copy / FASTAPI_FILE
        path.write_text(path.read_text().replace("# Use FastAPI", "# Reviewed by an agent. Use FastAPI", 1))
        await pilot.press("down", "enter")
        await settle(pilot)

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), terminal_size=(100, 30), run_before=outside_change)
