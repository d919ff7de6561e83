"""Fixtures of the TUI tests: a copy of the sample vault with what agents left in it."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_work import leave_requests, leave_verdicts

from workbench.core.services.verdicts import Verdict
from workbench.tui.app import WorkbenchApp


@pytest.fixture(autouse=True)
def noted_notifications(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every app notes each notification as it gives it (`tui_helpers.notes` reads them)."""
    given = WorkbenchApp.notify

    def notify(self: WorkbenchApp, message: str, *args, title: str = "", **kwargs):
        self.__dict__.setdefault("_seen_notifications", []).append(f"{title}: {message}")
        return given(self, message, *args, title=title, **kwargs)

    monkeypatch.setattr(WorkbenchApp, "notify", notify)


@pytest.fixture
def verdicts(sample_copy: Path) -> list[Verdict]:
    """The sample copy with four verdicts agents recorded (`agent_work.leave_verdicts`), in order."""
    return leave_verdicts(sample_copy)


@pytest.fixture
def requested(sample_copy: Path) -> dict[str, str]:
    """The sample copy with three requests agents left in the inbox (`agent_work.leave_requests`)."""
    return leave_requests(sample_copy)
