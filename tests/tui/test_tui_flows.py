"""Pilot tests of the live vault and the guided flows, each asserting on the files on disk."""

from __future__ import annotations

import asyncio
import contextlib
import stat
from pathlib import Path

import pytest
from textual.widgets import Button, OptionList
from tui_helpers import burst, notes, open_by_search, open_dialog, running, screen_text, settle, type_text, wait_for

from workbench import Vault
from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.confirm_plan import ConfirmPlanDialog
from workbench.tui.dialogs.conflicts import ConflictsDialog
from workbench.tui.dialogs.consolidate import ConsolidateDialog
from workbench.tui.dialogs.external_change import ExternalChangeDialog
from workbench.tui.dialogs.new_document import NewDocumentDialog
from workbench.tui.dialogs.problems import ProblemsDialog
from workbench.tui.screens.main import MainScreen
from workbench.tui.screens.messages import ChangeApplied, VaultRead
from workbench.tui.widgets.document_picker import DocumentPicker
from workbench.tui.widgets.viewer import DocumentViewer

FASTAPI = "mem-decision-api-fastapi"
FASTAPI_FILE = "decisions/mem-decision-api-fastapi.md"
NOTE_FILE = "notes/mem-note-procrastinate-queueing-lock.md"


@contextlib.asynccontextmanager
async def watched_app(sample_copy: Path, opened: str):
    """The app at 100x30, noting every notification, its watcher in place and a document opened by
    search: where a test then changes files behind its back."""
    async with running(sample_copy, (100, 30)) as (app, pilot):
        main = app.screen
        await wait_for(pilot, lambda: main.watcher is not None and main.watcher.ready.is_set())
        await open_by_search(pilot, opened)
        yield app, pilot


async def test_live_changes_refresh_lists_and_the_open_document(sample_copy: Path):
    async with watched_app(sample_copy, "fastapi") as (app, pilot):
        main = app.screen
        path = sample_copy / FASTAPI_FILE
        path.write_bytes(path.read_bytes() + b"\nAn agent added this line.\n")
        viewer = main.query_one(DocumentViewer)
        await wait_for(pilot, lambda: "An agent added this line." in viewer.view.source)
        assert any("changed on disk" in n for n in notes(app))
        new = (sample_copy / NOTE_FILE).read_text().replace("mem-note-procrastinate-queueing-lock", "mem-note-live-one")
        (sample_copy / "notes/mem-note-live-one.md").write_text(new)
        await wait_for(pilot, lambda: main.summary.files == 68)
        await pilot.press("slash", "ctrl+u")
        await wait_for(pilot, lambda: len(main.query_one("#results", OptionList).options) == 68)
        assert "68 documents" in screen_text(app)
        watcher = main.watcher
    assert watcher is not None and not watcher._thread.is_alive(), "quitting stops the watcher"


async def test_the_open_documents_links_follow_files_written_elsewhere(sample_copy: Path):
    async with watched_app(sample_copy, "fastapi") as (app, pilot):
        new = (sample_copy / NOTE_FILE).read_text().replace("mem-note-procrastinate-queueing-lock", "mem-note-quokka")
        new = new.replace("links:\n", "links:\n  - type: explains\n    target: mem-decision-api-fastapi\n", 1)
        new = "\n".join("title: Quokka notes" if line.startswith("title:") else line for line in new.split("\n"))
        (sample_copy / "notes/mem-note-quokka.md").write_text(new)
        await wait_for(pilot, lambda: "Quokka notes" in screen_text(app))  # a backlink, without reopening
        (sample_copy / "notes/mem-note-quokka.md").unlink()
        await wait_for(pilot, lambda: "Quokka notes" not in screen_text(app))


async def test_our_own_writes_are_not_reported_as_outside_changes(sample_copy: Path):
    async with watched_app(sample_copy, "fastapi") as (app, pilot):
        await pilot.press("l", "down", "enter")  # one step from active: deprecated
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        await pilot.pause(0.5)
        await settle(pilot)
        assert not any("changed on disk" in n for n in notes(app))


async def test_credential_warning_in_the_viewer(sample_copy: Path):
    path = sample_copy / FASTAPI_FILE
    path.write_text(path.read_text() + "\napi_key = sk3cretValue99xyz\n")
    async with running(sample_copy, (100, 30)) as (app, pilot):
        await open_by_search(pilot, "fastapi")
        assert "This document seems to hold a" in screen_text(app)
        assert "credential (line 31)" in str(app.screen.query_one("#credential").render())


async def test_undo_shows_the_diff_then_reverts(sample_copy: Path):
    path = sample_copy / FASTAPI_FILE
    before = path.read_bytes()
    async with running(sample_copy, (100, 30)) as (app, pilot):
        await open_by_search(pilot, "fastapi")
        await pilot.press("l", "down", "enter")  # one step from active: deprecated
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert b"status: deprecated" in path.read_bytes()
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert "+status: active" in app.screen.diff and app.screen.summary.startswith("undo")
        assert b"status: deprecated" in path.read_bytes(), "nothing before confirming"
        await pilot.press("y")
        await settle(pilot)
        assert path.read_bytes() == before
        assert app.screen.query_one(DocumentViewer).view.document.status == "active"
        await pilot.press("u")  # nothing left to undo: said, not raised
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert any("nothing to undo" in n for n in notes(app))


async def test_edit_runs_the_editor_then_rereads_and_checks(sample_copy: Path, tmp_path: Path, monkeypatch):
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "\\napi_key = sk3cretValue99xyz\\n" >> "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("EDITOR", str(editor))
    async with running(sample_copy, (100, 30)) as (app, pilot):
        await open_by_search(pilot, "fastapi")
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)  # what was saved is shown before it is written
        assert b"api_key" not in (sample_copy / FASTAPI_FILE).read_bytes()
        await pilot.press("y")
        await settle(pilot)
        assert b"api_key = sk3cretValue99xyz" in (sample_copy / FASTAPI_FILE).read_bytes()
        # Checked once written, in a worker: waited for, as a person waits for the notice.
        await wait_for(pilot, lambda: any("problem(s) after editing" in n and "credential" in n for n in notes(app)))
        assert "api_key" in app.screen.query_one(DocumentViewer).view.source


def appending_editor(tmp_path: Path, monkeypatch, script: str) -> None:
    """$EDITOR set to a shell script that changes the file it is given (`$1`)."""
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\n{script}\n")
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("EDITOR", str(editor))


async def test_the_edits_check_is_said_when_the_watchers_report_of_it_comes_at_once(
    sample_copy: Path, tmp_path: Path, monkeypatch
):
    """The check after an edit ran as a document read, in the group where a newer read cancels
    the older: the watcher's report of the very write, handled before the check's thread began,
    cancelled it, and the notice of the credential just written never came. The watcher's report
    is handled here right behind the write's own news, an order a loaded machine gives."""
    appending_editor(tmp_path, monkeypatch, 'printf "\\napi_key = sk3cretValue99xyz\\n" >> "$1"')
    reports: list[str] = []

    def watcher_reports_the_write_at_once(message) -> None:
        if isinstance(message, ChangeApplied) and not reports:
            reports.append(FASTAPI_FILE)
            main = next(screen for screen in app.screen_stack if isinstance(screen, MainScreen))
            # What the screen does with the watcher's `DiskChanged`, done as soon as the handler of
            # the write's news returns, before the event loop runs anything else.
            main.call_next(main.disk_news.changed, [FASTAPI_FILE])

    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30), message_hook=watcher_reports_the_write_at_once) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: any("problem(s) after editing" in n and "credential" in n for n in notes(app)))
        assert reports == [FASTAPI_FILE]
        assert "api_key" in app.screen.query_one(DocumentViewer).view.source


async def _notice_of_a_secret_after_six_broken_links(sample_copy: Path, tmp_path: Path, monkeypatch, said: str) -> str:
    """The notice starting with `said` after `e` wrote six broken links, then a secret at the end of
    the file: seventh in the file's order."""
    links = "".join(f"\\n  - {{type: related_to, target: mem-gone-{n}}}" for n in range(1, 7))
    appending_editor(
        tmp_path,
        monkeypatch,
        f'sed -i "s/^links:$/links:{links}/" "$1"\nprintf "\\napi_key = sk3cretValue99xyz\\n" >> "$1"',
    )
    async with running(sample_copy, (100, 30)) as (app, pilot):
        await open_by_search(pilot, "fastapi")
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: any(said in n for n in notes(app)))
        return next(n for n in notes(app) if said in n)


async def test_a_credential_an_edit_wrote_is_named_first_in_its_notice(sample_copy: Path, tmp_path: Path, monkeypatch):
    """The notice names five problems; the secret came seventh in the file's order and was not named."""
    notice = await _notice_of_a_secret_after_six_broken_links(
        sample_copy, tmp_path, monkeypatch, "problem(s) after editing"
    )
    assert "7 problem(s)" in notice and "mem-gone-1" in notice
    assert "credential" in notice.split("\n")[0]  # the title, then the first problem named: the secret
    assert "2 more" in notice and "mem-gone-5" not in notice


async def test_a_credential_among_a_changes_new_problems_is_named_first(sample_copy: Path, tmp_path: Path, monkeypatch):
    """The write's notice of new problems names three, in the file's order: the secret went unnamed."""
    said = "new problem(s) since this change"
    notice = await _notice_of_a_secret_after_six_broken_links(sample_copy, tmp_path, monkeypatch, said)
    assert "7 new problem(s)" in notice, notice
    named = notice.split("\n")
    assert "credentials" in named[0], notice  # the title, then the first problem named: the secret
    assert "mem-gone-1" in notice and "mem-gone-3" not in notice


async def test_the_check_after_an_edit_reads_the_vault_once_and_keeps_the_problems_it_left_elsewhere(
    sample_copy: Path, tmp_path: Path, monkeypatch
):
    """The check after `e` summarised the whole vault again, which the write had just done
    (seconds at 100,000 documents). An edit that changes the document's id leaves a broken link in
    each file that named it: said with the write; and the check finds the document by its path
    (it said "Cannot re-read it" when the id had changed)."""
    import workbench.tui.screens.flows as flows
    import workbench.tui.screens.proposing as proposing

    summaries: list[str] = []

    def counted(module):
        real = module.summarise

        def summarise(vault, given):
            summaries.append(module.__name__.rsplit(".", 1)[-1])
            return real(vault, given)

        monkeypatch.setattr(module, "summarise", summarise)

    counted(flows)
    counted(proposing)
    appending_editor(
        tmp_path,
        monkeypatch,
        'sed -i "s/^id: mem-decision-api-fastapi$/id: mem-decision-api-fastapi-v2/" "$1"\n'
        'printf "\\napi_key = sk3cretValue99xyz\\n" >> "$1"',
    )
    async with running(sample_copy, (100, 30)) as (app, pilot):
        await open_by_search(pilot, "fastapi")
        summaries.clear()
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: any("problem(s) after editing" in n for n in notes(app)))
        await settle(pilot)
        said = "\n".join(notes(app))
        assert "credential" in next(n for n in notes(app) if "problem(s) after editing" in n)
        assert "Cannot re-read it" not in said, said
        elsewhere = next(n for n in notes(app) if "new problem(s) since this change" in n)
        assert "mem-decision-api-fastapi" in elsewhere and "no document has that id" in elsewhere, elsewhere
        assert summaries == ["proposing"], summaries  # the write's summary alone, not the check's again
        viewer = app.screen.query_one(DocumentViewer)
        assert viewer.view.document.id == "mem-decision-api-fastapi-v2" and "api_key" in viewer.view.source
        assert any(
            p.path != FASTAPI_FILE and "mem-decision-api-fastapi" in p.message for p in app.screen.summary.problems
        )


async def test_an_edit_in_the_editor_is_a_step_that_undo_takes_back(sample_copy: Path, tmp_path: Path, monkeypatch):
    """`u` after `e` undid the step before the edit: the editor wrote the file behind the history."""
    before = (sample_copy / FASTAPI_FILE).read_bytes()
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nsed -i "s/Use FastAPI/Use FastAPI, by hand,/" "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("EDITOR", str(editor))
    Vault.open(sample_copy).set_status("mem-note-design-tokens-export", "archived")  # the step before
    async with running(sample_copy, (100, 30)) as (app, pilot):
        await open_by_search(pilot, "fastapi")
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert b"Use FastAPI, by hand," in (sample_copy / FASTAPI_FILE).read_bytes()
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert f"edit {FASTAPI_FILE} in your editor" in app.screen.summary
        await pilot.press("y")
        await settle(pilot)
    assert (sample_copy / FASTAPI_FILE).read_bytes() == before
    assert Vault.open(sample_copy).get("mem-note-design-tokens-export").status == "archived"


async def test_an_agents_write_while_the_editor_is_open_is_kept_beside_the_edit(
    sample_copy: Path, tmp_path: Path, monkeypatch
):
    """The editor once wrote the file over whatever an agent wrote to it while the person edited."""
    real = sample_copy / FASTAPI_FILE
    editor = tmp_path / "editor.sh"
    editor.write_text(
        f'#!/bin/sh\nsed -i "s/Use FastAPI/Use FastAPI, by hand,/" "$1"\nprintf "\\nAn agent\'s line.\\n" >> "{real}"\n'
    )
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("EDITOR", str(editor))
    async with running(sample_copy, (100, 30)) as (app, pilot):
        await open_by_search(pilot, "fastapi")
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, ExternalChangeDialog)  # both versions first
        await pilot.press("r")  # planned again on the new version: the edit carried onto it
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        await pilot.press("y")
        await settle(pilot)
    text = real.read_text()
    assert "Use FastAPI, by hand," in text and "An agent's line." in text


async def test_the_problems_list_follows_the_vault_while_open(sample_copy: Path):
    """It was a snapshot taken when `p` was pressed, while the inbox follows the vault."""
    async with running(sample_copy, (110, 34)) as (app, pilot):
        dialog = await open_dialog(pilot, "p", ProblemsDialog)
        assert not [p for p in dialog.problems if p.path == NOTE_FILE]
        path = sample_copy / NOTE_FILE
        path.write_text(path.read_text().replace("created_at: 2026-08-14\n", ""))  # an agent's plain write
        await wait_for(pilot, lambda: any(p.path == NOTE_FILE for p in dialog.problems))
        assert app.screen is dialog and NOTE_FILE in screen_text(app)
        assert "1 error(s)" in str(dialog.query_one("#dialog").border_title)


async def test_problems_open_and_repair_with_preview(sample_copy: Path):
    path = sample_copy / NOTE_FILE
    path.write_text(path.read_text().replace("created_at: 2026-08-14\n", ""))
    async with running(sample_copy, (110, 34)) as (app, pilot):
        await open_dialog(pilot, "p", ProblemsDialog)
        text = screen_text(app)
        assert f"{NOTE_FILE}" in text and "contexts/mem-context-local-dev-setup.md:11" in text
        listing = app.screen.query_one(OptionList)
        listing.highlighted = next(i for i, p in enumerate(app.screen.problems) if p.path == NOTE_FILE)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.screen.current.document.path == NOTE_FILE
        await pilot.press("p", "r")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert "+created_at:" in app.screen.diff
        assert b"created_at" not in path.read_bytes()
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, ProblemsDialog), "the list comes back after the repair"
    assert b"created_at:" in path.read_bytes()


async def test_problems_repair_only_the_selected_file(sample_copy: Path):
    first, second = sample_copy / NOTE_FILE, sample_copy / "notes/mem-note-flaky-pdf-snapshot-fonts.md"
    for path in (first, second):
        text = path.read_text()
        assert "\ncreated_at:" in text
        path.write_text("\n".join(line for line in text.split("\n") if not line.startswith("created_at:")))
    untouched = second.read_bytes()
    async with running(sample_copy, (110, 34)) as (app, pilot):
        dialog = await open_dialog(pilot, "p", ProblemsDialog)
        broken = {p.path for p in dialog.problems}
        assert {NOTE_FILE, "notes/mem-note-flaky-pdf-snapshot-fonts.md"} <= broken
        dialog.query_one(OptionList).highlighted = next(i for i, p in enumerate(dialog.problems) if p.path == NOTE_FILE)
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert app.screen.summary == "repair 1 document(s)"
        assert f"+++ b/{NOTE_FILE}" in app.screen.diff and "mem-note-flaky-pdf-snapshot-fonts" not in app.screen.diff
        assert b"created_at" not in first.read_bytes(), "nothing before confirming"
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, ProblemsDialog), "the list comes back after the repair"
        left = {p.path for p in app.screen.problems}
        assert NOTE_FILE not in left and "notes/mem-note-flaky-pdf-snapshot-fonts.md" in left
    assert b"\ncreated_at:" in first.read_bytes()
    assert second.read_bytes() == untouched


async def test_problems_repair_of_a_file_with_nothing_repairable_says_so(sample_copy: Path):
    async with running(sample_copy, (110, 34)) as (app, pilot):
        dialog = await open_dialog(pilot, "p", ProblemsDialog)
        stale = next(i for i, p in enumerate(dialog.problems) if p.path == "contexts/mem-context-local-dev-setup.md")
        dialog.query_one(OptionList).highlighted = stale
        before = (sample_copy / "contexts/mem-context-local-dev-setup.md").read_bytes()
        await pilot.press("f")
        await settle(pilot)
        assert any(
            "Nothing to change" in n and "nothing in it can be repaired automatically; enter opens it" in n
            for n in notes(app)
        )
        back = app.screen  # the list again, at that file, so that "enter opens it" is true
        assert isinstance(back, ProblemsDialog) and back.selected.path == "contexts/mem-context-local-dev-setup.md"
        await pilot.press("enter")
        await settle(pilot)
        assert (
            isinstance(app.screen, MainScreen)
            and app.screen.current.document.path == "contexts/mem-context-local-dev-setup.md"
        )
    assert (sample_copy / "contexts/mem-context-local-dev-setup.md").read_bytes() == before


async def test_conflicts_queue_resolves_with_preview(sample_copy: Path):
    cents = sample_copy / "decisions/mem-decision-money-integer-cents.md"
    async with running(sample_copy, (120, 36)) as (app, pilot):
        dialog = await open_dialog(pilot, "c", ConflictsDialog)
        text = screen_text(app)
        # Each kind in words in the list; the highlighted one's code beside them above its reason.
        assert "May replace an older one · contradiction" in text and "Links to a replaced one" in text
        assert "may replace" in text
        buttons = list(dialog.query(Button).filter("#resolutions Button"))
        assert (
            str(buttons[0].label) == "“Store money as NUMERIC(12,2) decimals” supersedes “Store money as integer cents”"
        )
        await pilot.press("enter")  # to the resolutions
        assert app.focused is buttons[0]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert "+status: superseded" in app.screen.diff
        assert b"status: active" in cents.read_bytes()
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, ConflictsDialog), "the queue comes back after a resolution"
        kinds = [c.kind for c in app.screen.conflicts]
        assert "contradiction" not in kinds
        assert ["mem-index-billing", "mem-decision-money-integer-cents"] in [
            c.ids for c in app.screen.conflicts
        ]  # now a stale link
        await pilot.press("escape")
        assert f"{len(kinds)} conflicts" in screen_text(app)
    assert b"status: superseded" in cents.read_bytes()
    assert (
        b"superseded_by: [mem-decision-money-numeric-decimal]" in cents.read_bytes()
        or b"- mem-decision-money-numeric-decimal" in cents.read_bytes()
    )


async def test_stale_link_is_retargeted(sample_copy: Path):
    source = sample_copy / "contexts/mem-context-local-dev-setup.md"
    async with running(sample_copy, (120, 36)) as (app, pilot):
        await open_dialog(pilot, "c", ConflictsDialog)
        listing = app.screen.query_one("#conflict-list", OptionList)
        listing.highlighted = next(i for i, c in enumerate(app.screen.conflicts) if c.kind == "stale-link")
        await pilot.pause()
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        await pilot.press("y")
        await settle(pilot)
    text = source.read_text()
    assert "target: mem-decision-jobs-procrastinate" in text and "target: mem-decision-jobs-celery-redis" not in text


@pytest.mark.slow
async def test_write_gate_creates_a_linked_document(sample_copy: Path):
    from textual.widgets import Input, TextArea

    async with running(sample_copy, (120, 40)) as (app, pilot):
        dialog = await open_dialog(pilot, "n", NewDocumentDialog)
        await type_text(pilot, "Refunds go through Stripe credit notes")
        dialog.query_one("#tags", Input).value = "billing, refunds"
        dialog.query_one("#link-picker Input", Input).focus()
        await type_text(pilot, "stripe")
        await settle(pilot)
        await pilot.press("enter")  # adds related_to → the best hit
        assert dialog.links == [("related_to", "mem-entity-stripe")]
        dialog.query_one("#body", TextArea).text = "Refunds are issued as credit notes.\n"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert dialog.has_class("-candidates")
        assert "mem-entity-stripe" in [c.id for c in dialog.candidates]
        assert "the draft links to it" in screen_text(app)
        await pilot.press("c")  # the keyboard way; the buttons do the same
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert "+title: Refunds go through Stripe credit notes" in app.screen.diff
        await pilot.press("y")
        await settle(pilot)
        assert app.screen.current.document.title == "Refunds go through Stripe credit notes"
    created = list((sample_copy / "notes").glob("*refunds*"))
    assert len(created) == 1 and "target: mem-entity-stripe" in created[0].read_text()


async def test_write_gate_supersedes_a_decision(sample_copy: Path):
    from textual.widgets import Input, Select

    async with running(sample_copy, (120, 40)) as (app, pilot):
        dialog = await open_dialog(pilot, "n", NewDocumentDialog)
        dialog.query_one("#type", Select).value = "decision"
        dialog.query_one("#title", Input).value = "Store money as integer cents, always"
        dialog.query_one("#tags", Input).value = "money"
        dialog.links.append(("related_to", "mem-entity-invoice-model"))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(dialog, NewDocumentDialog) and dialog.candidates[0].id == "mem-decision-money-integer-cents"
        assert dialog.candidates[0].action == "supersede" and dialog.query_one("#merge").disabled
        await pilot.click("#supersede")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        await pilot.press("y")
        await settle(pilot)
    old = (sample_copy / "decisions/mem-decision-money-integer-cents.md").read_text()
    assert "status: superseded" in old


async def gate_candidates_for_a_money_decision(pilot):
    """The write gate on a decision that the vault already holds twice (and an entity it links)."""
    from textual.widgets import Input, Select, TextArea

    dialog = await open_dialog(pilot, "n", NewDocumentDialog)
    dialog.query_one("#type", Select).value = "decision"
    dialog.query_one("#title", Input).value = "Store money as integer cents, always"
    dialog.query_one("#tags", Input).value = "money, billing"
    dialog.query_one("#body", TextArea).text = "All amounts are integer cents; no floats anywhere.\n"
    dialog.links.append(("related_to", "mem-entity-invoice-model"))
    await pilot.press("ctrl+s")
    await settle(pilot)
    return dialog


async def test_write_gate_shows_each_candidate_beside_the_draft(sample_copy: Path):
    async with running(sample_copy, (120, 40)) as (app, pilot):
        dialog = await gate_candidates_for_a_money_decision(pilot)
        assert [c.id for c in dialog.candidates][:2] == [
            "mem-decision-money-integer-cents",
            "mem-decision-money-numeric-decimal",
        ]
        draft_side, candidate_side = dialog.query_one("#draft-side"), dialog.query_one("#candidate-side")
        assert draft_side.region.y == candidate_side.region.y and draft_side.region.right <= candidate_side.region.x
        draft = str(dialog.query_one("#draft-text").render())
        assert (
            "Store money as integer cents, always" in draft
            and "All amounts are integer cents; no floats anywhere." in draft
        )
        shown = str(dialog.query_one("#candidate-text").render())
        assert "Supersede it" in shown and "shares tags billing, money" in shown  # the reasons
        assert "minor units (cents)" in shown  # the candidate's own text
        assert candidate_side.border_title == "Candidate 1 of 8"
        await pilot.press("down")
        await pilot.pause()
        shown = str(dialog.query_one("#candidate-text").render())
        assert candidate_side.border_title == "Candidate 2 of 8" and "NUMERIC(12,2)" in shown
        await pilot.press("down")
        await pilot.pause()
        assert "Merge the draft into it" in str(dialog.query_one("#candidate-text").render())
        assert not dialog.query_one("#merge").disabled and dialog.query_one("#supersede").disabled
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog) and "mem-entity-invoice-model" in app.screen.summary


async def test_write_gate_comparison_stacks_on_a_small_terminal(sample_copy: Path):
    async with running(sample_copy, (80, 24)) as (app, pilot):
        dialog = await gate_candidates_for_a_money_decision(pilot)
        assert dialog.has_class("-narrow")
        draft_side, candidate_side = dialog.query_one("#draft-side"), dialog.query_one("#candidate-side")
        assert candidate_side.region.y >= draft_side.region.bottom
        assert draft_side.region.height >= 4 and candidate_side.region.height >= 4
        for button in ("#merge", "#supersede", "#create", "#back"):
            region = dialog.query_one(button).region
            assert region.bottom <= 24 and region.right <= 80, button
        text = screen_text(app)
        assert "Your draft" in text and "Candidate 1 of 8" in text and "Store money as integer cents" in text


async def consolidation_dialog(pilot):
    """The consolidation dialog, opened from the main screen on the sample's group of flaky notes."""
    return await open_dialog(pilot, "o", ConsolidateDialog)


async def type_into_merged_text(pilot, dialog, line: str):
    """On to the merged text, and `line` typed at its end; the editor is returned."""
    from textual.widgets import TextArea

    await pilot.press("ctrl+s")
    await settle(pilot)
    editor = dialog.query_one("#merged-body", TextArea)
    editor.move_cursor(editor.document.end)
    await type_text(pilot, line)
    return editor


async def test_consolidation_folds_notes_into_the_target(sample_copy: Path):
    from textual.widgets import SelectionList

    async with running(sample_copy, (120, 40)) as (app, pilot):
        dialog = await consolidation_dialog(pilot)
        assert dialog.target == "mem-context-test-suite"
        notes = dialog.query_one("#notes", SelectionList)
        assert len(notes.selected) == 4
        notes.deselect("mem-note-flaky-pdf-snapshot-fonts")
        await pilot.press("ctrl+s")  # the merged text, left as it is
        await settle(pilot)
        assert "From [[mem-note-flaky-invoice-counter-year-boundary]]" in dialog.query_one("#merged-body").text
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert "consolidate 3 note(s)" in app.screen.summary
        await pilot.press("y")
        await settle(pilot)
        assert app.screen.current.document.id == "mem-context-test-suite"
    target = (sample_copy / "contexts/mem-context-test-suite.md").read_text()
    assert "From [[mem-note-flaky-invoice-counter-year-boundary]]" in target
    assert "mem-note-flaky-pdf-snapshot-fonts]]:" not in target
    assert "status: archived" in (sample_copy / "notes/mem-note-flaky-invoice-counter-year-boundary.md").read_text()
    assert "status: archived" not in (sample_copy / "notes/mem-note-flaky-pdf-snapshot-fonts.md").read_text()


@pytest.mark.slow
async def test_consolidation_writes_the_merged_text_as_edited(sample_copy: Path):
    target = sample_copy / "contexts/mem-context-test-suite.md"
    async with running(sample_copy, (120, 40)) as (app, pilot):
        dialog = await consolidation_dialog(pilot)
        editor = await type_into_merged_text(pilot, dialog, "Pinned TZ=UTC in CI: the date tests stopped flaking.")
        assert dialog.has_class("-merged") and app.focused is editor
        assert editor.text.count("## From [[mem-note-flaky-") == 4
        assert "4 note(s) folded in" in screen_text(app)
        await pilot.press("escape")  # back to the notes, and forward again: the edit is kept
        assert not dialog.has_class("-merged")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert editor.text.endswith("Pinned TZ=UTC in CI: the date tests stopped flaking.")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert "+Pinned TZ=UTC in CI: the date tests stopped flaking." in app.screen.diff
        assert "Pinned" not in target.read_text(), "nothing before confirming"
        await pilot.press("y")
        await settle(pilot)
        assert app.screen.current.document.id == "mem-context-test-suite"
    text = target.read_text()
    assert "Pinned TZ=UTC in CI: the date tests stopped flaking." in text
    assert "derived_from" in text and "From [[mem-note-flaky-pdf-snapshot-fonts]]" in text
    for note in ("invoice-counter-year-boundary", "pdf-snapshot-fonts", "webhook-signature-clock-skew"):
        matches = list((sample_copy / "notes").glob(f"mem-note-flaky-{note}*.md"))
        assert matches and "status: archived" in matches[0].read_text(), note


@pytest.mark.slow
async def test_consolidation_redone_after_an_agent_wrote_to_the_target_keeps_both_edits(sample_copy: Path):
    from workbench.tui.dialogs.external_change import ExternalChangeDialog

    target = sample_copy / "contexts/mem-context-test-suite.md"
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await type_into_merged_text(pilot, await consolidation_dialog(pilot), "Pinned TZ=UTC in CI.")
        agent = target.read_text().replace(
            "Known flakiness (October-November 2026)", "Known flakiness (October-December 2026)"
        )
        target.write_text(agent)  # an agent, while the person was editing
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ExternalChangeDialog)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert "+Pinned TZ=UTC in CI." in app.screen.diff
        assert "-Known flakiness (October-December 2026)" not in app.screen.diff, "the agent's line is not undone"
        await pilot.press("y")
        await settle(pilot)
    text = target.read_text()
    assert "Pinned TZ=UTC in CI." in text and "Known flakiness (October-December 2026)" in text


async def test_consolidation_refusal_is_said_before_editing(sample_copy: Path):
    async with running(sample_copy, (120, 40)) as (app, pilot):
        dialog = await consolidation_dialog(pilot)
        dialog.query_one("#target-picker Input").focus()
        await type_text(pilot, "billing subgraph")
        await settle(pilot)
        await pilot.press("enter")
        assert dialog.target == "mem-index-billing"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConsolidateDialog) and not dialog.has_class("-merged")
        assert any("Cannot consolidate" in n and "canonical" in n for n in notes(app))


async def test_lifecycle_after_an_outside_change_shows_both_versions(sample_copy: Path):
    from workbench.tui.dialogs.external_change import ExternalChangeDialog
    from workbench.tui.dialogs.lifecycle import LifecycleDialog

    path = sample_copy / FASTAPI_FILE
    async with running(sample_copy, (100, 30)) as (app, pilot):
        await open_by_search(pilot, "fastapi")
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LifecycleDialog)
        outside = path.read_text().replace("# ", "# Reviewed by an agent. ", 1)
        path.write_text(outside)
        await pilot.press("down", "enter")  # deprecated, decided on the version read before
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ExternalChangeDialog) and not dialog.versions.planned
        assert dialog.versions.path == FASTAPI_FILE
        assert "+# Reviewed by an agent." in dialog.diff and "the version you read" in dialog.diff
        text = screen_text(app)
        assert "Changed on disk" in text and "Reviewed by an agent" in text and "Change the status?" in text
        await pilot.press("v")  # the two texts, side by side
        await pilot.pause()
        assert "Reviewed by an agent." in str(dialog.query_one("#disk-text").render())
        assert "Reviewed by an agent." not in str(dialog.query_one("#ours-text").render())
        await pilot.pause()
        assert dialog.query_one("#disk-side").scroll_y > 0, "both texts open where they part"
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert "Reviewed by an agent." in app.screen.current.source, "the viewer shows what is on disk now"
        assert any("Nothing was written" in n for n in notes(app))
    assert path.read_text() == outside, "the outside change is kept and nothing else written"


async def test_write_gate_merge_into_a_candidate_changed_meanwhile(sample_copy: Path):
    from workbench.tui.dialogs.external_change import ExternalChangeDialog

    target = sample_copy / "entities/mem-entity-invoice-model.md"
    async with running(sample_copy, (120, 40)) as (app, pilot):
        await gate_candidates_for_a_money_decision(pilot)
        outside = target.read_text() + "\nAn agent noted: invoices are immutable once sent.\n"
        target.write_text(outside)
        await pilot.press("down", "down", "m")
        await settle(pilot)
        assert isinstance(app.screen, ExternalChangeDialog)
        assert "+An agent noted: invoices are immutable once sent." in app.screen.diff
        assert target.read_text() == outside
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        await pilot.press("y")
        await settle(pilot)
    text = target.read_text()
    assert "An agent noted: invoices are immutable once sent." in text and "All amounts are integer cents" in text


async def test_consolidation_of_a_note_changed_meanwhile_writes_nothing(sample_copy: Path):
    from workbench.tui.dialogs.external_change import ExternalChangeDialog

    note = sample_copy / "notes/mem-note-flaky-pdf-snapshot-fonts.md"
    target = sample_copy / "contexts/mem-context-test-suite.md"
    before = target.read_bytes()
    async with running(sample_copy, (120, 40)) as (app, pilot):
        await consolidation_dialog(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        outside = note.read_text() + "\nFixed for good by pinning the fonts.\n"
        note.write_text(outside)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ExternalChangeDialog)
        assert app.screen.versions.path == "notes/mem-note-flaky-pdf-snapshot-fonts.md"
        await pilot.press("escape")
        await settle(pilot)
    assert note.read_text() == outside and target.read_bytes() == before


@pytest.mark.slow
async def test_a_change_that_leaves_new_problems_says_so_with_the_write(sample_copy: Path):
    """Superseding a document its neighbours link to makes their links stale: the header's count
    rose without a word."""
    async with running(sample_copy, (100, 40)) as (app, pilot):
        await open_by_search(pilot, "postgres database")
        await pilot.press("l")
        await settle(pilot)
        app.screen.query_one("#successor Input").focus()
        await type_text(pilot, "postgresql db")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        said = [n for n in notes(app) if "new problem(s) since this change" in n]
        assert said and "superseded" in said[0], notes(app)


async def test_lifecycle_supersede_by_searching_the_successor(sample_copy: Path):
    from workbench.tui.dialogs.lifecycle import LifecycleDialog

    async with running(sample_copy, (100, 40)) as (app, pilot):
        await open_by_search(pilot, "postgres database")
        assert app.screen.current.document.id == "mem-entity-postgres"
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LifecycleDialog)
        app.screen.query_one("#successor Input").focus()
        await type_text(pilot, "postgresql db")
        await settle(pilot)
        assert app.screen.query_one("#successor", DocumentPicker).highlighted == "mem-entity-postgresql-db"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert app.screen.summary == "supersede mem-entity-postgres by mem-entity-postgresql-db"
        await pilot.press("y")
        await settle(pilot)
        assert "Superseded by" in screen_text(app)
    assert "status: superseded" in (sample_copy / "entities/mem-entity-postgres.md").read_text()
    assert "target: mem-entity-postgres\n" in (sample_copy / "entities/mem-entity-postgresql-db.md").read_text()


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_links_panes_headings_are_whole_at_80_and_100_columns(sample_copy: Path, size):
    """ "Context pack: what an agent re…" and "Supersession chain (oldest fi…" were cut."""
    from workbench.tui.widgets.link_pane import LinkPane

    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "status:superseded celery")
        await pilot.press("g")
        await settle(pilot)
        links = app.screen.query_one(LinkPane)
        room = links.scrollable_content_region.width
        for state in ("links", "pack"):
            headings = [str(o.prompt) for o in links.options if o is not None and o.disabled and not o.id]
            assert headings and all(len(heading) <= room for heading in headings), (state, room, headings)
            await pilot.press("x")
            await settle(pilot)


@pytest.mark.slow
async def test_graph_navigator_depth_filter_chain_pack_and_breadcrumbs(sample_copy: Path):
    from workbench.tui.widgets.link_pane import LinkPane

    async with running(sample_copy, (140, 40)) as (app, pilot):
        await open_by_search(pilot, "status:superseded celery")
        links = app.screen.query_one(LinkPane)
        prompts = lambda: [str(o.prompt) for o in links.options if o is not None]
        assert "Supersession chain" in prompts()
        chain = [n.doc_id for n in links.neighbours.chain]
        assert chain == [
            "mem-decision-jobs-cron-table",
            "mem-decision-jobs-celery-redis",
            "mem-decision-jobs-procrastinate",
        ]
        await pilot.press("g", "plus")
        await settle(pilot)
        assert links.neighbours.depth == 2 and links.neighbours.further[2]
        assert "2 links away" in prompts() and links.border_title == "Links · depth 2"
        await pilot.press("minus")
        await settle(pilot)
        assert links.neighbours.depth == 1 and not links.neighbours.further
        await pilot.press("t", "t")  # all → related_to → depends_on
        await settle(pilot)
        assert links.neighbours.link_type == "depends_on"
        assert set(links.neighbours.outgoing) <= {"depends_on"} and set(links.neighbours.incoming) <= {"depends_on"}
        await pilot.press("x")
        await pilot.pause()
        assert links.border_title == "Context pack" and "What an agent reads" in prompts()
        assert links.neighbours.pack[0].doc_id == "mem-decision-jobs-celery-redis"
        await pilot.press("x")
        links.highlighted = next(i for i, o in enumerate(links.options) if o.id and o.id.endswith("mem-entity-redis"))
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.current.document.id == "mem-entity-redis"
        crumbs = str(app.screen.query_one("#crumbs").render())
        assert crumbs == "Use Celery with Redis for background jobs"


async def test_large_vault_looks_for_conflicts_only_when_asked(sample_copy: Path, monkeypatch):
    import workbench.tui.screens.conflicts_search as conflicts_search

    monkeypatch.setattr(conflicts_search, "AUTO_CONFLICTS_LIMIT", 10)
    async with running(sample_copy, (100, 30)) as (app, pilot):
        assert "conflicts: press c" in screen_text(app)
        await pilot.press("escape", "c")
        await settle(pilot)
        assert isinstance(app.screen, ConflictsDialog) and len(app.screen.conflicts) == 3
        assert any("Looking for conflicts" in n for n in notes(app))


async def test_large_vault_shows_a_queue_kept_since_the_command_line_worked_it_out(sample_copy: Path, monkeypatch):
    """Above the limit nothing is worked out unasked, but a queue kept for the vault as it is
    (here by `workbench conflicts`) is shown at once; after a change, `c` works it out again."""
    import workbench.tui.screens.conflicts_search as conflicts_search

    monkeypatch.setattr(conflicts_search, "AUTO_CONFLICTS_LIMIT", 10)
    assert len(Vault.open(sample_copy).conflicts()) == 3  # kept in the vault's derived store
    async with running(sample_copy, (100, 30)) as (app, pilot):
        await wait_for(pilot, lambda: app.screen.conflicts is not None and len(app.screen.conflicts) == 3)
        assert "conflicts: press c" not in screen_text(app)


async def test_c_on_a_large_vault_works_the_queue_out_beside_a_screen_that_answers(tmp_path: Path, monkeypatch):
    """`c` on a vault whose queue is not kept: the queue is worked out in a process of its own
    (seconds here, minutes at 100,000 documents), the header counts the seconds meanwhile, and the
    screen takes keys: a search typed while it runs is in the box before the queue opens."""
    import workbench.tui.screens.conflicts_search as conflicts_search
    from tests.benchmarks.generate import generate_vault
    from textual.widgets import Input

    from workbench.tui.dialogs.conflicts import PAGE

    monkeypatch.setattr(conflicts_search, "AUTO_CONFLICTS_LIMIT", 10)
    root = tmp_path / "generated"
    generate_vault(root, 1000)
    async with running(root, (120, 36)) as (app, pilot):
        await wait_for(pilot, lambda: "conflicts: press c" in screen_text(app))
        search = app.screen.conflicts_search

        async def until(condition) -> None:
            # Not `pilot.press` nor `pilot.pause`: they wait while the process is busy (a second a
            # key), and the queue being worked out keeps it busy.
            async def polled() -> None:
                while not condition():
                    await asyncio.sleep(0.01)

            await asyncio.wait_for(polled(), 60)

        burst(app, "escape", "c")
        await until(lambda: search.reopen)
        assert search.busy and not isinstance(app.screen, ConflictsDialog)
        await until(lambda: search.process._running is not None)
        assert search.process._running.poll() is None  # a process of its own works it out
        # The header says the step the process has started, beside the seconds.
        await until(lambda: "conflicts… weighing 1000 documents" in screen_text(app))
        burst(app, "slash", *"postgres")
        await until(lambda: app.screen.query_one("#search-input", Input).value == "postgres")
        assert search.busy  # the keys were taken while the queue was still being worked out
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictsDialog), seconds=300)
        dialog = app.screen
        listing = dialog.query_one("#conflict-list", OptionList)
        await wait_for(pilot, lambda: listing.option_count > 0)  # listed a frame after the dialog shows
        assert len(dialog.conflicts) > PAGE and listing.option_count == PAGE + 1


async def test_quitting_while_a_large_vaults_queue_is_worked_out_ends_its_process(tmp_path: Path, monkeypatch):
    import workbench.tui.screens.conflicts_search as conflicts_search
    from tests.benchmarks.generate import generate_vault

    monkeypatch.setattr(conflicts_search, "AUTO_CONFLICTS_LIMIT", 10)
    root = tmp_path / "generated"
    generate_vault(root, 1000)
    async with running(root, (100, 30)) as (app, pilot):
        search = app.screen.conflicts_search
        burst(app, "escape", "c")
        deadline = asyncio.get_running_loop().time() + 60
        while search.process._running is None:
            assert asyncio.get_running_loop().time() < deadline, "no process started"
            await asyncio.sleep(0.01)
        process = search.process._running
    assert process.wait(30) != 0  # ended by the app on its way out, not run to its end
    assert Vault.open(root).kept_conflicts() is None


async def test_c_while_a_large_vault_looks_for_a_kept_queue_opens_the_one_worked_out(sample_copy: Path, monkeypatch):
    """`c` pressed while a large vault's screen looks for a kept queue and finds none: the queue is
    worked out and opened (it was never looked for again, and the queue never opened)."""
    import workbench.tui.screens.conflicts_search as conflicts_search

    monkeypatch.setattr(conflicts_search, "AUTO_CONFLICTS_LIMIT", 10)
    async with running(sample_copy, (100, 30)) as (app, pilot):
        assert "conflicts: press c" in screen_text(app)
        search = app.screen.conflicts_search
        search.look()  # the kept queue looked for, as after a change on disk: none is kept
        assert search.busy
        app.screen.ask_for_conflicts(fresh=False)  # `c`, before that answer is back (as `open_queue` asks)
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictsDialog))
        assert len(app.screen.conflicts) == 3


def test_the_header_counts_the_seconds_the_person_waits_for_the_conflicts_and_says_the_step():
    import time

    from workbench.tui.widgets.vault_header import VaultHeader

    header = VaultHeader()
    header.documents, header.conflicts = 100, None
    assert "conflicts…" in str(header._counts(False)[-1]) and " s" not in str(header._counts(False)[-1])
    header.set_reactive(VaultHeader.looking_since, time.monotonic() - 3.5)
    assert str(header._counts(False)[-1]) == "conflicts… 3 s"
    header.set_reactive(VaultHeader.looking_step, "weighing 100000 documents")
    assert str(header._counts(False)[-1]) == "conflicts… weighing 100000 documents 3 s"
    assert str(header._counts(3)[-1]) == "conflicts… weighing 3 s"  # a narrow terminal: the step's first word


@pytest.mark.parametrize(
    ("size", "said"),
    [((80, 24), "conflicts… duplicates 12% 3 s"), ((100, 30), "conflicts… comparing duplicates 12000/97655 3 s")],
)
async def test_the_queues_step_is_readable_in_the_header_at_80_and_100_columns(sample_copy: Path, size, said):
    """At 100 columns the step was cut to its first word, `conflicts… comparing 3 s`, which does
    not say what is compared nor how far it has got."""
    import time

    from workbench.tui.screens.messages import ConflictsStep
    from workbench.tui.widgets.vault_header import VaultHeader

    async with running(sample_copy, size) as (app, pilot):
        header = app.screen.query_one(VaultHeader)
        # A vault of 100,000 documents whose queue's process is comparing titles.
        header.documents, header.errors, header.warnings = 100000, 0, 8266
        header.count_conflicts(None, asked=True)
        header.looking_since = time.monotonic() - 3.5
        app.screen.post_message(ConflictsStep("comparing duplicates 12000/97655"))
        await wait_for(pilot, lambda: header.looking_step != "")
        await settle(pilot)
        first = screen_text(app).splitlines()[0]
        assert said in first and "100000 docs" in first and "8266 warn" in first, first


ADR_RECORD = "# {title}\n\n## Status\n\n{status}\n\n## Context\n\n{context}\n\n## Decision\n\n{decision}\n"


def adr_records(root: Path, records: dict[str, tuple[str, str, str, str]]) -> Path:
    """A folder of ADR records: file name -> (title, status, context, decision)."""
    root.mkdir()
    for name, (title, status, context, decision) in records.items():
        (root / name).write_text(ADR_RECORD.format(title=title, status=status, context=context, decision=decision))
    return root


async def test_a_deprecated_record_is_given_its_successor_from_the_queue_in_an_adr_vault(tmp_path: Path):
    """A deprecated decision that names no successor is listed with its likeliest one, in the
    records' own words; the resolutions offered are those the vault can hold (the supersession in
    the records, "not its successor" in the vault's settings), and applying the first writes both
    records in their own format."""
    root = tmp_path / "adr"
    records = {
        "0001-rabbitmq-queue.md": (
            "Queue backend: RabbitMQ broker",
            "Deprecated",
            "Jobs need a queue.",
            "Background jobs go through a RabbitMQ broker with durable queues and dead letters.",
        ),
        "0002-kafka-queue.md": (
            "Queue backend: Kafka topics",
            "Accepted",
            "The RabbitMQ broker of ADR 0001 could not keep up.",
            "Background jobs go through Kafka topics; durable queues become partitions, dead letters a topic.",
        ),
        "0003-logging.md": (
            "Structured JSON logging",
            "Accepted",
            "Logs were free text.",
            "Every service logs JSON lines with a request id.",
        ),
        "0004-rest.md": (
            "Use REST for the public API",
            "Accepted",
            "Clients differ.",
            "Resources and verbs; JSON bodies; versioned paths.",
        ),
    }
    adr_records(root, records)
    async with running(root, (120, 36)) as (app, pilot):
        dialog = await open_dialog(pilot, "c", ConflictsDialog)
        assert [(c.kind, c.ids) for c in dialog.conflicts] == [("successor-missing", ["ADR-001", "ADR-002"])]
        text = screen_text(app)
        assert "successor-missing" in text and "(Deprecated) names no successor" in text
        labels = [str(button.label) for button in dialog.query("#resolutions Button")]
        assert labels == [
            "“Queue backend: Kafka topics” supersedes “Queue backend: RabbitMQ broker”",
            "“Queue backend: Kafka topics” did not replace “Queue backend: RabbitMQ broker”",
        ]
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        await pilot.press("y")
        await settle(pilot)
    assert "Superseded by ADR-002" in (root / "0001-rabbitmq-queue.md").read_text()
    assert "(supersedes ADR-001)" in (root / "0002-kafka-queue.md").read_text()


async def test_a_draft_over_an_active_decision_is_listed_in_words_with_each_records_own_status(tmp_path: Path):
    """The queue says what kind of conflict it is in words (its code beside, as the CLI prints it),
    and each side's status as the record states it ("Proposed"), not only as the workbench maps it."""
    root = tmp_path / "adr"
    records = {
        "0001-rabbitmq-queue.md": (
            "Queue backend: RabbitMQ broker",
            "Accepted",
            "Jobs need a queue.",
            "Background jobs go through a RabbitMQ broker with durable queues and dead letters.",
        ),
        "0002-kafka-queue.md": (
            "Queue backend: Kafka topics",
            "Proposed",
            "The RabbitMQ broker of ADR 0001 could not keep up.",
            "Background jobs go through Kafka topics; durable queues become partitions, dead letters a topic.",
        ),
        "0003-logging.md": ("Structured JSON logging", "Accepted", "Logs were free text.", "JSON lines."),
    }
    adr_records(root, records)
    async with running(root, (120, 36)) as (app, pilot):
        dialog = await open_dialog(pilot, "c", ConflictsDialog)
        assert [(c.kind, c.ids) for c in dialog.conflicts] == [("draft-replaces", ["ADR-001", "ADR-002"])]
        text = screen_text(app)
        assert "A draft may replace · draft-replaces" in text and "draft-replaces" in text
        assert "the draft “Queue backend: Kafka topics” (Proposed)" in " ".join(text.split())
        assert "● draft “Proposed”" in text and "● active “Accepted”" in text


async def test_the_links_follow_a_summary_shown_while_the_document_was_read(sample_copy: Path, monkeypatch):
    """A document is read in a thread, its links from the graph of the summary on show. When a newer
    summary (a file written elsewhere meanwhile: another session, an agent) is shown before the
    read lands, the links pane shows the newer graph's links, not the read's older ones: two
    sessions in browsers writing at once showed a backlink missing for good."""
    import threading

    from workbench.tui import reading
    from workbench.tui.widgets.link_pane import LinkPane

    async with watched_app(sample_copy, "fastapi") as (app, pilot):
        main = app.screen
        before = main.summary
        new = (sample_copy / NOTE_FILE).read_text().replace("mem-note-procrastinate-queueing-lock", "mem-note-quokka")
        new = new.replace("links:\n", "links:\n  - type: explains\n    target: mem-decision-api-fastapi\n", 1)
        new = "\n".join("title: Quokka notes" if line.startswith("title:") else line for line in new.split("\n"))
        (sample_copy / "notes/mem-note-quokka.md").write_text(new)
        await wait_for(pilot, lambda: "mem-note-quokka" in main.summary.graph)
        await settle(pilot)
        after = main.summary
        held_views: list = []
        release = threading.Event()
        real = reading.read_view

        def held(*args, **kwargs):
            view = real(*args, **kwargs)
            held_views.append(view)
            release.wait(10)
            return view

        landed: list[list[str]] = []  # the links pane's backlinks when the held read lands
        shown = main._after_document_shown

        def spy(view, *args):
            shown(view, *args)
            if held_views and view is held_views[0]:
                pane = main.query_one(LinkPane).neighbours
                landed.append([n.doc_id for group in pane.incoming.values() for n in group])

        monkeypatch.setattr(reading, "read_view", held)
        monkeypatch.setattr(main, "_after_document_shown", spy)

        async def until(condition) -> None:  # not `wait_for`: that waits for the held worker too
            for _ in range(400):
                if condition():
                    return
                await pilot.pause(0.05)
            raise AssertionError("timed out")

        main.summary = before  # a read that starts while the older summary is on show...
        main.read_document(FASTAPI, remember=False)
        await until(lambda: bool(held_views))
        main.post_message(VaultRead(after))  # ...and the newer one is shown before it lands
        await until(lambda: main.summary is after)
        release.set()
        await until(lambda: bool(landed))
        assert "mem-note-quokka" in landed[0], landed
