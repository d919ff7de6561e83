"""Pilot tests of the first end-to-end slice: open, search, read, follow links, change a lifecycle."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList
from tui_helpers import open_by_search, result_ids, screen_text, settle, type_text, wait_for

from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.confirm_plan import ConfirmPlanDialog
from workbench.tui.dialogs.keys import KeysDialog
from workbench.tui.dialogs.lifecycle import LifecycleDialog
from workbench.tui.screens.main import MainScreen
from workbench.tui.screens.messages import DocumentRead
from workbench.tui.widgets.link_pane import LinkPane
from workbench.tui.widgets.search import SearchPane
from workbench.tui.widgets.viewer import DocumentViewer

FASTAPI = "mem-decision-api-fastapi"
FASTAPI_FILE = "decisions/mem-decision-api-fastapi.md"


async def test_startup_shows_titles_and_counts(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "67/67" in text
        assert "67 documents" in text and "0 errors" in text and "3 conflicts" in text
        assert len(result_ids(app)) == 67
        assert app.focused is app.screen.query_one("#results")  # single keys work at once
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press("slash")  # pressed again out of habit: the box has the focus already
        assert app.focused.value == ""


async def test_typing_filters_live(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await type_text(pilot, "fastapi")
        await settle(pilot)
        assert result_ids(app)[0] == FASTAPI
        await pilot.press("ctrl+u")  # clear the box: everything is back
        await settle(pilot)
        assert len(result_ids(app)) == 67


@pytest.mark.slow
async def test_search_speaks_the_core_query_language(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await type_text(pilot, "type:decision tag:money")
        await settle(pilot)
        assert sorted(result_ids(app)) == ["mem-decision-money-integer-cents", "mem-decision-money-numeric-decimal"]
        await pilot.press("ctrl+u")
        await type_text(pilot, "strpie")  # a typo
        await settle(pilot)
        assert "mem-entity-stripe" in result_ids(app)[:5]
        await pilot.press("ctrl+u")
        await type_text(pilot, "procrast")  # half typed
        await settle(pilot)
        assert "mem-decision-jobs-procrastinate" in result_ids(app)[:3]


@pytest.mark.slow
async def test_a_filter_typed_wrong_is_said_in_the_list_not_shouted(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await type_text(pilot, "type:decsion")
        await settle(pilot)
        results = app.screen.query_one("#results", OptionList)
        said = results.get_option_at_index(0)
        assert results.option_count == 1 and said.disabled
        assert "type:decsion: no such type" in str(said.prompt) and "decsion: no such" in screen_text(app)
        await type_text(pilot, " updated:>2026-1")  # a date half typed
        await settle(pilot)
        assert "not a date" in str(results.get_option_at_index(0).prompt)
        assert not app._notifications, "no notification at each keystroke"
        await pilot.press("enter")  # nothing to open
        await settle(pilot)
        assert app.screen.current is None
        await pilot.press("ctrl+u")
        await type_text(pilot, "type:decision updated:>2026-10-01")
        await settle(pilot)
        assert result_ids(app) and all(doc_id.startswith("mem-decision-") for doc_id in result_ids(app))


async def test_enter_opens_document_and_focuses_viewer(sample_copy: Path):
    seen = []
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30), message_hook=seen.append) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        viewer = app.screen.query_one(DocumentViewer)
        assert viewer.view.document.id == FASTAPI
        assert app.focused is viewer
        assert any(isinstance(m, DocumentRead) for m in seen)
        assert "decisions/mem-decision-api-fastapi.md" in screen_text(app)


async def test_lifecycle_changes_status_on_disk(sample_copy: Path):
    before = (sample_copy / FASTAPI_FILE).read_bytes()
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LifecycleDialog)
        await pilot.press("down", "enter")  # one step from the current status (active): deprecated
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert "+status: deprecated" in app.screen.diff
        assert (sample_copy / FASTAPI_FILE).read_bytes() == before, "nothing is written before confirming"
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.screen.query_one(DocumentViewer).view.document.status == "deprecated"
    after = (sample_copy / FASTAPI_FILE).read_bytes()
    changed = [
        line for line in difflib.ndiff(before.decode().splitlines(), after.decode().splitlines()) if line[:1] in "+-"
    ]
    assert sorted(line[2:].split(":")[0] for line in changed) == ["status", "status", "updated_at", "updated_at"]
    assert "+ status: deprecated" in changed


def test_the_lifecycle_list_says_the_word_a_format_writes_for_a_status():
    from workbench.tui.dialogs.lifecycle import status_options

    options = {o.id: str(o.prompt) for o in status_options("active", {"archived": "Rejected", "active": "Accepted"})}
    assert options["status:archived"] == "● archived · written “Rejected”"
    assert options["status:active"] == "● active · written “Accepted”  (current)"
    assert options["status:deprecated"] == "● deprecated"


async def test_lifecycle_cancel_writes_nothing(sample_copy: Path):
    before = (sample_copy / FASTAPI_FILE).read_bytes()
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        await pilot.press("l")
        await settle(pilot)
        dialog = app.screen
        statuses = dialog.query_one("#statuses", OptionList)
        draft = statuses.get_option("status:draft")
        assert draft.disabled and "not from active" in str(draft.prompt)
        assert "may go to deprecated, archived" in str(dialog.query_one("Label.section").content)
        assert all("\n" not in str(statuses.get_option_at_index(n).prompt) for n in range(statuses.option_count)), (
            "a line each"
        )
        assert not statuses.get_option("status:deprecated").disabled
        await pilot.press("down", "enter")
        await settle(pilot)
        await pilot.press("n")  # one step back, to the lifecycle editor; escape closes it
        await settle(pilot)
        assert type(app.screen) is type(dialog)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
    assert (sample_copy / FASTAPI_FILE).read_bytes() == before


async def test_the_lifecycle_editor_starts_on_the_current_status(sample_copy: Path):
    """The cursor shows where the document is, not the first status it may go to; `enter` there
    changes nothing and says so, one step down is the likeliest move (active → deprecated)."""
    before = (sample_copy / FASTAPI_FILE).read_bytes()
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        await pilot.press("l")
        await settle(pilot)
        statuses = app.screen.query_one("#statuses", OptionList)
        assert statuses.highlighted_option.id == "status:active"
        await pilot.press("enter")
        await settle(pilot)
        # Said where the person looks, the dialog left open for another choice (it closed with no word).
        assert isinstance(app.screen, LifecycleDialog)
        assert "Status is active already: nothing to change" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("l", "down")
        await settle(pilot)
        assert app.screen.query_one("#statuses", OptionList).highlighted_option.id == "status:deprecated"
    assert (sample_copy / FASTAPI_FILE).read_bytes() == before


async def test_change_on_disk_after_preview_shows_both_versions_then_redoes(sample_copy: Path):
    from workbench.tui.dialogs.external_change import ExternalChangeDialog

    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        await pilot.press("l", "down", "enter")  # one step from active: deprecated
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        path = sample_copy / FASTAPI_FILE
        edited = path.read_bytes() + b"\nAn agent wrote this meanwhile.\n"
        path.write_bytes(edited)
        await pilot.press("y")
        await settle(pilot)
        assert path.read_bytes() == edited, "nothing overwritten"
        dialog = app.screen
        assert isinstance(dialog, ExternalChangeDialog) and dialog.versions.planned
        assert "-An agent wrote this meanwhile." in dialog.diff and "+status: deprecated" in dialog.diff
        assert "Changed on disk" in screen_text(app)
        await pilot.press("r")  # reload and redo: planned again on the new version, previewed again
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert "+status: deprecated" in app.screen.diff and "-An agent wrote this meanwhile." not in app.screen.diff
        await pilot.press("y")
        await settle(pilot)
    text = path.read_text()
    assert "status: deprecated" in text and "An agent wrote this meanwhile." in text


@pytest.mark.slow
async def test_task_execution_state(sample_copy: Path):
    task = sample_copy / "tasks/mem-task-invoice-pdf-accessibility.md"
    assert b"execution_state: todo" in task.read_bytes()
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "invoice pdfs tagged")
        assert app.screen.query_one(DocumentViewer).view.document.id == "mem-task-invoice-pdf-accessibility"
        await pilot.press("l")
        await settle(pilot)
        states = app.screen.query_one("#states", OptionList)
        states.focus()
        states.highlighted = states.get_option_index("execution_state:in-progress")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
    assert b"execution_state: in-progress" in task.read_bytes()


@pytest.mark.slow
async def test_superseded_banner_jumps_to_successor_and_history(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "status:superseded celery")
        viewer = app.screen.query_one(DocumentViewer)
        assert viewer.view.document.id == "mem-decision-jobs-celery-redis"
        assert "Superseded by" in screen_text(app)
        banner = str(app.screen.query_one("#banner").render())
        assert banner.startswith("Superseded by Use a Postgres-backed job queue (procrastinate)")
        await pilot.press("s")
        await settle(pilot)
        assert viewer.view.document.id == "mem-decision-jobs-procrastinate"
        await pilot.press("backspace")
        await settle(pilot)
        assert viewer.view.document.id == "mem-decision-jobs-celery-redis"
        await pilot.press("alt+right")  # shift+backspace's twin for terminals that cannot send it
        await settle(pilot)
        assert viewer.view.document.id == "mem-decision-jobs-procrastinate"


@pytest.mark.slow
async def test_link_pane_groups_and_follows(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "status:superseded celery")
        links = app.screen.query_one(LinkPane)
        prompts = [str(o.prompt) for o in links.options if o is not None]
        assert "depended on by" in prompts and "superseded by" in prompts and "depends_on" in prompts
        await pilot.press("g")
        assert app.focused is links
        links.highlighted = next(i for i, o in enumerate(links.options) if o.id and o.id.endswith("mem-entity-redis"))
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.query_one(DocumentViewer).view.document.id == "mem-entity-redis"
        assert app.focused is links


async def test_raw_source_toggle(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        assert "schema_version: v1" not in screen_text(app)
        await pilot.press("r")
        await pilot.pause()
        assert "schema_version: v1" in screen_text(app)
        await pilot.press("r")
        await pilot.pause()
        assert "schema_version: v1" not in screen_text(app)


async def test_the_raw_view_wraps_long_lines_at_80x24(sample_copy: Path):
    """The source is read, not scrolled sideways line by line: a line longer than the viewer wraps
    and its end shows without scrolling."""
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        await pilot.press("m", "r")  # the viewer alone, for as many lines as can show
        await pilot.pause()
        viewer = app.screen.query_one(DocumentViewer)
        width = viewer.scrollable_content_region.width
        lines = viewer.view.source.splitlines()
        assert any(len(line) > width for line in lines), "a line longer than the viewer"
        assert viewer.max_scroll_x == 0, "no sideways scrolling"
        assert viewer.query_one("#source").size.height > len(lines), "the long lines take more than one row"


async def test_markup_in_titles_is_shown_literally(sample_copy: Path):
    path = sample_copy / "entities/mem-entity-stripe.md"
    text = path.read_text().replace("title: Stripe\n", 'title: "[bold]x[/bold] \\e[31mred"\n', 1)
    path.write_text(text.replace("# Stripe", "# Stripe [bold]body[/bold]", 1))
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert "[bold]x[/bold]" in screen_text(app)
        await open_by_search(pilot, "mem-entity-stripe")
        shown = screen_text(app)
        assert "[bold]x[/bold] \\x1b[31mred" in shown
        assert "[bold]body[/bold]" in shown
        assert "\x1b[31m" not in str(app.screen.query_one("#doc-title").render())


async def test_keys_dialog_lists_every_binding(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("escape", "question_mark")
        assert isinstance(app.screen, KeysDialog)
        from textual.widgets import Label

        text = "\n".join(str(label.render()) for label in app.screen.query(Label))
        for words in (
            "Lifecycle",
            "Raw",
            "Successor",
            "Back",
            "Palette",
            "Results",
            "Maximise",
            "Undo",
            "Edit",
            "Problems",
            "Conflicts",
            "Consolidate",
            "Deeper",
            "Link type",
            "Context pack",
            "Candidates",
            "Repair",
            "Repair file",
            "Merged text",
            "Reload and redo",
        ):
            assert words in text
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_every_binding_has_an_id_and_a_tooltip():
    from workbench.tui.app import KEY_GROUPS
    from workbench.tui.commands import ACTIONS
    from workbench.tui.dialogs.confirm_plan import ConfirmPlanDialog as Confirm
    from workbench.tui.dialogs.conflicts import ConflictsDialog
    from workbench.tui.dialogs.consolidate import ConsolidateDialog
    from workbench.tui.dialogs.external_change import ExternalChangeDialog
    from workbench.tui.dialogs.new_document import NewDocumentDialog
    from workbench.tui.dialogs.problems import ProblemsDialog
    from workbench.tui.widgets.document_picker import DocumentPicker

    owners = (
        WorkbenchApp,
        MainScreen,
        SearchPane,
        LinkPane,
        LifecycleDialog,
        Confirm,
        KeysDialog,
        ProblemsDialog,
        ConflictsDialog,
        NewDocumentDialog,
        ConsolidateDialog,
        ExternalChangeDialog,
        DocumentPicker,
    )
    listed = {b.id for _, bindings in KEY_GROUPS for b in bindings}
    for owner in owners:
        for binding in owner.BINDINGS:
            assert binding.id and binding.tooltip, f"{owner.__name__}: {binding.key}"
            assert binding.id in listed or owner in (KeysDialog, LifecycleDialog), f"{binding.id} is missing from ?"
    palette = {action for _, action, _ in ACTIONS}
    for binding in MainScreen.BINDINGS:
        if not binding.action.startswith("explain("):  # says why a key did nothing: no command of its own
            assert binding.action in palette, f"{binding.action} is missing from the palette"


async def test_command_palette_runs_actions(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        await pilot.press("ctrl+p")
        await type_text(pilot, "lifecycle")
        await pilot.pause(0.3)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, LifecycleDialog)


async def test_narrow_terminal_hides_links_until_asked(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        links = app.screen.query_one(LinkPane)
        assert not links.display or links.region.width == 0
        await pilot.press("g")
        await pilot.pause()
        assert links.region.width > 0
        assert app.screen.query_one(SearchPane).region.width == 0
        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(app.focused, Input)


async def test_q_quits_with_status_zero(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await type_text(pilot, "q")  # in the search box q is a letter
        assert app.is_running and isinstance(app.focused, Input)
        await pilot.press("escape")  # focus leaves the box for the results, where q is a command
        assert app.focused is app.screen.query_one("#results")
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_unopenable_vault_is_a_notification(tmp_path: Path):
    app = WorkbenchApp(tmp_path / "missing")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert any(n.severity == "error" and "no such folder" in n.message for n in app._notifications)
        assert app.is_running
        listed = [str(option.prompt) for option in app.screen.query_one("#results", OptionList).options]
        assert len(listed) == 1 and "could not be opened" in listed[0] and "no such folder" in listed[0], (
            "the list says why, after the toast has gone"
        )
        header = screen_text(app).splitlines()[0]
        assert "not opened" in header and "loading" not in header


async def test_an_empty_folder_is_named_a_new_vault_not_only_0_documents(tmp_path: Path):
    app = WorkbenchApp(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: any("an empty folder" in n.message for n in app._notifications))


async def test_the_theme_list_is_the_workbenchs_themes_as_the_keys_page_names_them(sample_copy: Path):
    """It listed every theme Textual ships (nord, gruvbox, …) where docs/keys.md names three."""
    from textual.command import CommandPalette

    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.search_themes()
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.pause(0.5)
        listed = {str(option.prompt).split("\n")[0] for option in app.screen.query_one("CommandList").options}
    assert listed == {"workbench-dark", "workbench-light", "workbench-high-contrast"}, listed
    page = (Path(__file__).resolve().parents[2] / "docs" / "keys.md").read_text()
    assert all(f"`{name}" in page for name in listed)


async def test_the_chosen_theme_is_remembered_between_runs(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.theme == "workbench-dark"
        app.theme = "workbench-light"
        await settle(pilot)
    again = WorkbenchApp(sample_copy)
    async with again.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert again.theme == "workbench-light"


async def test_another_flavour_is_named_in_the_header_and_can_be_forced(tmp_path):
    from workbench.tui.app import WorkbenchApp
    from workbench.tui.widgets.vault_header import VaultHeader

    folder = tmp_path / "decisions"
    folder.mkdir()
    for n in range(3):
        (folder / f"ADR-00{n}-x.md").write_text(f"# ADR-00{n}: Choice {n}\n\n## Status\n\nAccepted\n")
    for flavour, expected in ((None, "decisions (adr)"), ("markdown", "decisions (markdown)")):
        app = WorkbenchApp(folder, theme="workbench-dark", flavour=flavour)
        async with app.run_test(size=(120, 40)) as pilot:
            header = app.screen.query_one(VaultHeader)
            await wait_for(pilot, lambda: header.documents is not None, seconds=5)
            assert header.vault_name == expected and header.documents == 3


async def test_a_screen_stopped_while_the_vault_loads_starts_no_watcher(sample_copy: Path):
    """Quitting stops the watcher first; a load still running then must not start one after it
    (a watcher thread left posting to a screen that is gone)."""
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        main = app.screen
        main.stop_watching()  # as quitting does, before the vault has been read
        await settle(pilot)
        assert main.summary is not None, "the load went on to its end"
        assert main.watcher is None, "no watcher was started after the stop"


async def test_a_vault_folder_named_in_another_encoding_is_named_with_its_bytes_escaped(tmp_path):
    """The header shows `vault-\\xff`, as `check` names such a name, not a lone surrogate."""
    import os

    from workbench.tui.app import WorkbenchApp
    from workbench.tui.widgets.vault_header import VaultHeader

    folder = Path(os.fsdecode(os.path.join(os.fsencode(tmp_path), b"vault-\xff")))
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "mem-note-one.md").write_text(
        "---\nid: mem-note-one\ntype: note\nstatus: active\ntitle: One\n---\nA note.\n", "utf-8"
    )
    app = WorkbenchApp(folder, theme="workbench-dark")
    async with app.run_test(size=(120, 40)) as pilot:
        header = app.screen.query_one(VaultHeader)
        await wait_for(pilot, lambda: header.documents is not None, seconds=5)
        line = header.render().plain
        assert "vault-\\xff" in line and "\udcff" not in line, line
