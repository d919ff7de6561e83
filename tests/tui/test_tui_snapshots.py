"""Snapshots of the main screen in each built-in theme (pytest-textual-snapshot).

Review a failing snapshot's report before `pytest --snapshot-update`: a changed picture is a changed UI.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import settle, type_text

from workbench.tui.app import WorkbenchApp


@pytest.mark.parametrize("theme", ["workbench-dark", "workbench-light"])
def test_superseded_document(snap_compare, vault_path: Path, theme: str):
    async def open_superseded(pilot):
        await settle(pilot)
        await type_text(pilot, "status:superseded celery")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(WorkbenchApp(vault_path, theme=theme), terminal_size=(100, 30), run_before=open_superseded)


@pytest.mark.parametrize("theme", ["workbench-dark", "workbench-light"])
@pytest.mark.parametrize("key", ["p", "o"])
def test_flow_dialogs(snap_compare, vault_path: Path, theme: str, key: str):
    """The problems list and consolidation, as a person first sees them.

    The conflicts queue (`c`) has no snapshot yet: the core's conflict reasons list "shared words"
    in an order that changes from run to run (set iteration), so its picture is not stable.
    """

    async def open_dialog(pilot):
        await settle(pilot)
        await pilot.press("escape", key)
        await settle(pilot)

    assert snap_compare(WorkbenchApp(vault_path, theme=theme), terminal_size=(100, 30), run_before=open_dialog)


@pytest.mark.parametrize("theme", ["workbench-dark", "workbench-light"])
def test_write_gate_candidates(snap_compare, vault_path: Path, theme: str):
    async def draft(pilot):
        await settle(pilot)
        await pilot.press("escape", "n")
        await settle(pilot)
        await type_text(pilot, "Store money as integer cents")
        pilot.app.screen.links.append(("related_to", "mem-entity-invoice-model"))
        await pilot.press("ctrl+s")
        await settle(pilot)

    assert snap_compare(WorkbenchApp(vault_path, theme=theme), terminal_size=(100, 30), run_before=draft)
