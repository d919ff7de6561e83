"""Undo, redo and the undo history in the TUI: `u` previews the newest step by name and, once
confirmed, says what the next `u` would take; `U` redoes the step undone last, refused by name when
an agent wrote its file since; `H` lists every step with the position marked. Snapshots show the
named undo preview and the history at 80x24 and 160x45 in each theme, from a stack planted with
fixed times (a real change would carry today's date)."""

from __future__ import annotations

import base64
import datetime as dt
import json
from pathlib import Path

import pytest
from tui_helpers import screen_text, settle

from workbench import Vault
from workbench.tui.app import KEY_GROUPS, WorkbenchApp
from workbench.tui.dialogs.confirm_plan import ConfirmPlanDialog
from workbench.tui.dialogs.undo_history import UndoHistoryDialog
from workbench.tui.screens.main import MainScreen

THEMES = ["workbench-dark", "workbench-light", "workbench-high-contrast"]
SIZES = [(80, 24), (160, 45)]
FASTAPI, POSTGRES = "mem-decision-api-fastapi", "mem-entity-postgres"


def recorded(app: WorkbenchApp) -> list[str]:
    """Every notification the app shows, as `title: message`, even one already timed out."""
    seen: list[str] = []
    original = app.notify

    def notify(message, *args, title="", **kwargs):
        seen.append(f"{title}: {message}")
        return original(message, *args, title=title, **kwargs)

    app.notify = notify
    return seen


def two_changes(root: Path) -> tuple[Path, bytes, bytes]:
    """Two real changes to the FastAPI decision, made before the app opens: (its path, its bytes
    after the first, after the second)."""
    vault = Vault.open(root)
    path = root / vault.get(FASTAPI).path
    vault.set_status(FASTAPI, "deprecated")
    first = path.read_bytes()
    vault.set_status(FASTAPI, "active")
    return path, first, path.read_bytes()


async def test_u_names_each_step_and_says_what_comes_next_and_U_redoes(sample_copy: Path):
    path, first, second = two_changes(sample_copy)
    app = WorkbenchApp(sample_copy)
    seen = recorded(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("escape", "u")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert app.screen.summary.startswith(f"undo 1 of 2: status {FASTAPI}: deprecated → active (")
        assert app.screen.summary.endswith("; made before this session started)"), "made before the app opened: said"
        await pilot.press("y")
        await settle(pilot)
        assert path.read_bytes() == first
        title, _, message = seen[-1].partition(": ")
        assert title == "Undone (U redoes it)"
        assert f"Next u: undo 2 of 2: status {FASTAPI}: active → deprecated" in message
        await pilot.press("u")
        await settle(pilot)
        assert app.screen.summary.startswith(f"undo 2 of 2: status {FASTAPI}: active → deprecated"), (
            "the one before, knowingly"
        )
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("U")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog) and app.screen.summary.startswith(
            f"redo 1 of 2: status {FASTAPI}"
        )
        assert "+status: active" in app.screen.diff
        assert path.read_bytes() == first, "nothing before confirming"
        await pilot.press("y")
        await settle(pilot)
        assert path.read_bytes() == second
        assert seen[-1].startswith("Redone (u undoes it again): redo 1 of 2")
        await pilot.press("U")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert "nothing to redo" in seen[-1]


async def test_redo_is_refused_by_name_when_an_agent_wrote_the_file_since(sample_copy: Path):
    path, first, _ = two_changes(sample_copy)
    Vault.open(sample_copy).undo()
    with open(path, "a", encoding="utf-8") as handle:  # an agent's plain write
        handle.write("\nAn agent's line.\n")
    agents = path.read_bytes()
    app = WorkbenchApp(sample_copy)
    seen = recorded(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("escape", "U")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen), "no preview of a redo that would overwrite it"
        assert (
            seen[-1].startswith("Refused: cannot redo")
            and "has changed since it was undone; nothing was written" in seen[-1]
        )
        assert path.read_bytes() == agents


async def test_H_lists_the_steps_with_the_position_marked_and_u_there_previews_the_undo(sample_copy: Path):
    two_changes(sample_copy)
    Vault.open(sample_copy).undo()
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("escape", "H")
        await settle(pilot)
        assert isinstance(app.screen, UndoHistoryDialog)
        text = screen_text(app)
        assert "Undo history · 2 step(s), 1 undone" in text
        redo_line = text.index(f"↷   1  status {FASTAPI}: deprecated → active")
        now_line = text.index("── now: the files are as the steps below left them ──")
        undo_line = text.index(f"▶   2  status {FASTAPI}: active → deprecated")
        assert redo_line < now_line < undo_line, "newest first, the position between them"
        assert "made before this session started  · undone · U redoes it" in text
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert app.screen.summary.startswith(f"undo 2 of 2: status {FASTAPI}: active → deprecated")
    assert any(b.key == "U" and b.action == "redo" for _, bindings in KEY_GROUPS for b in bindings), (
        "the keys dialog lists redo"
    )


# -- snapshots: a stack planted with fixed times ------------------------------------------------


def plant_stack(root: Path) -> None:
    """Three steps as the history keeps them: the oldest done, the newest done (the FastAPI
    decision deprecated, its file on disk as that left it), and one undone (redo takes it). Their
    times are fixed, long before any session, so the pictures never depend on the day."""

    def plant(folder: str, name: str, when: dt.datetime, summary: str, path: str, before: bytes, after: bytes) -> None:
        record = {
            "id": name,
            "summary": summary,
            "time": when.timestamp(),
            "state": "committed",
            "log": [],
            "files": [
                {"path": path, "before": base64.b64encode(before).decode(), "after": base64.b64encode(after).decode()}
            ],
            "keep_history": True,
        }
        target = root / ".workbench" / folder
        target.mkdir(parents=True, exist_ok=True)
        (target / f"{name}.json").write_text(json.dumps(record))

    fastapi = "decisions/mem-decision-api-fastapi.md"
    original = (root / fastapi).read_bytes()
    deprecated = original.replace(b"status: active", b"status: deprecated", 1)
    (root / fastapi).write_bytes(deprecated)
    postgres = next(p for p in root.rglob("*.md") if p.stem == POSTGRES).relative_to(root).as_posix()
    now = (root / postgres).read_bytes()
    plant(
        "history",
        "20260210T091500.000000000-aaaaaaaa",
        dt.datetime(2026, 2, 10, 9, 15),
        "tags of mem-entity-postgres: + database",
        postgres,
        now.replace(b"tags:", b"tags_old:", 1),
        now,
    )
    plant(
        "history",
        "20260212T161000.000000000-bbbbbbbb",
        dt.datetime(2026, 2, 12, 16, 10),
        f"status {FASTAPI}: active → deprecated",
        fastapi,
        original,
        deprecated,
    )
    plant(
        "history/redo",
        "20260212T162000.000000000-cccccccc",
        dt.datetime(2026, 2, 12, 16, 20),
        f"status {POSTGRES}: active → archived",
        postgres,
        now,
        now.replace(b"status: active", b"status: archived", 1),
    )


@pytest.mark.slow
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x45"])
def test_undo_preview_names_its_step(snap_compare, sample_copy: Path, theme: str, size: tuple[int, int]):
    plant_stack(sample_copy)

    async def preview(pilot):
        await settle(pilot)
        await pilot.press("escape", "u")
        await settle(pilot)
        assert pilot.app.screen.summary.startswith(
            f"undo 2 of 3: status {FASTAPI}: active → deprecated (from 2026-02-12 16:10; made before"
        )

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), terminal_size=size, run_before=preview)


@pytest.mark.slow
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x45"])
def test_undo_history_marks_the_position(snap_compare, sample_copy: Path, theme: str, size: tuple[int, int]):
    plant_stack(sample_copy)

    async def history(pilot):
        await settle(pilot)
        await pilot.press("escape", "H")
        await settle(pilot)
        assert isinstance(pilot.app.screen, UndoHistoryDialog)

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), terminal_size=size, run_before=history)


async def test_undoing_the_creation_of_the_open_document_is_not_news_from_outside(sample_copy: Path):
    from tui_helpers import open_by_search, wait_for

    from workbench.core.services.gate import Draft
    from workbench.tui.widgets.viewer import DocumentViewer

    plan = Vault.open(sample_copy).create(
        Draft("note", "Pooling connections per tenant", ["postgres"], [("related_to", POSTGRES)], "Pool per tenant.\n")
    )
    created = sample_copy / plan.changes[0].path
    app = WorkbenchApp(sample_copy)
    seen = recorded(app)
    async with app.run_test(size=(100, 30)) as pilot:
        main = app.screen
        await wait_for(pilot, lambda: main.watcher is not None and main.watcher.ready.is_set())
        await open_by_search(pilot, "Pooling connections per tenant")
        viewer = main.query_one(DocumentViewer)
        assert viewer.view is not None and viewer.view.document.title == "Pooling connections per tenant"
        await pilot.press("escape", "u")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog) and "Pooling" in app.screen.summary + app.screen.diff
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: (
                not created.exists()
                and main.summary is not None
                and all(d.path != plan.changes[0].path for d in main.summary.documents)
            ),
        )
        await pilot.pause(1.0)  # the watcher's word of the file going comes, and is not news
        assert not any("Deleted outside the workbench" in note or "deleted on disk" in note for note in seen), seen
        assert not viewer.gone and (viewer.view is None or viewer.view.document.path != plan.changes[0].path)
        assert "Deleted on disk" not in screen_text(app)
