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
        await type_text(pilot, "celery with redis")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(WorkbenchApp(vault_path, theme=theme), terminal_size=(100, 30), run_before=open_superseded)
