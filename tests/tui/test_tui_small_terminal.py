"""The workbench at 80x24 and 160x45 as a new user meets it: what the first screen lists, what a
notice covers, where the keys lead. Each test is a problem seen in a real terminal, fixed."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button
from textual.widgets._toast import Toast
from tui_helpers import settle, wait_for

from workbench import Vault
from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.confirm_plan import ConfirmPlanDialog

FASTAPI = "mem-decision-api-fastapi"


def covered_buttons(app: WorkbenchApp) -> list[str]:
    """The labels of the dialog's buttons that a notice is drawn over."""
    toasts = [toast.region for toast in app.screen.query(Toast)]
    return [str(button.label) for button in app.screen.query(Button)
            if button.display and any(button.region.overlaps(toast) for toast in toasts)]


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
        await wait_for(pilot, lambda: bool(app.screen.query(Toast)), seconds=3)  # the notice, on the dialog too
        assert isinstance(app.screen, ConfirmPlanDialog) or then == "p"
        assert covered_buttons(app) == []
