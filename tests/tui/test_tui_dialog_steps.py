"""Dialogs step back without losing work, say up front what a vault's format cannot do, and fit a
small terminal: Pilot tests asserting on the screens and the files on disk, then snapshots."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from textwrap import dedent

import pytest
import time_machine
from textual.widgets import Input, OptionList, SelectionList, TextArea
from tui_helpers import open_by_search, screen_text, settle, steady_cursors, type_text

from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.confirm_plan import ConfirmPlanDialog, diff_parts, file_starts, files_line
from workbench.core.vocabulary.model import Document
from workbench.tui.dialogs.conflicts import ConflictsDialog, short_id, titled
from workbench.tui.dialogs.consolidate import ConsolidateDialog
from workbench.tui.dialogs.discard import DiscardDialog
from workbench.tui.dialogs.lifecycle import LifecycleDialog
from workbench.tui.dialogs.new_document import NewDocumentDialog, in_dialog_terms
from workbench.tui.screens.main import MainScreen

THEMES = ["workbench-dark", "workbench-light", "workbench-high-contrast"]
SIZES = [(80, 24), (160, 45)]
TARGET = "contexts/mem-context-test-suite.md"


def notices(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


def snapshot_of(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*.md")) if ".workbench" not in p.parts}


def dendron_vault(root: Path) -> Path:
    """Three Dendron notes linking each other: a format with no status and no Memory Core fields."""
    root.mkdir(parents=True)
    (root / "dendron.yml").write_text("version: 5\n")
    for name, title, link in [
        ("proj.alpha", "Alpha", "proj.beta"),
        ("proj.beta", "Beta", "proj.gamma"),
        ("proj.gamma", "Gamma", "proj.alpha"),
    ]:
        (root / f"{name}.md").write_text(
            dedent(f"""\
            ---
            id: {name}-id
            title: {title}
            desc: ''
            updated: 1700000000000
            created: 1700000000000
            ---

            {title} is part of the project; see [[{link}]].
            """)
        )
    return root


# -- one step back, never further -----------------------------------------------------------------


async def merged_text_typed(pilot, line: str) -> ConsolidateDialog:
    await settle(pilot)
    await pilot.press("escape", "o")
    await settle(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, ConsolidateDialog)
    await pilot.press("ctrl+s")
    await settle(pilot)
    editor = dialog.query_one("#merged-body", TextArea)
    editor.move_cursor(editor.document.end)
    await type_text(pilot, line)
    return dialog


async def test_cancelling_the_consolidation_preview_returns_to_the_edited_text(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await merged_text_typed(pilot, "Pinned TZ=UTC in CI.")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        await pilot.press("n")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConsolidateDialog) and dialog.has_class("-merged"), "back at the merged text"
        assert dialog.query_one("#merged-body", TextArea).text.endswith("Pinned TZ=UTC in CI.")
        assert "Pinned" not in (sample_copy / TARGET).read_text()
        await pilot.press("ctrl+s")  # and on, once more: the edit is still the one previewed
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog) and "+Pinned TZ=UTC in CI." in app.screen.diff
        await pilot.press("y")
        await settle(pilot)
    assert "Pinned TZ=UTC in CI." in (sample_copy / TARGET).read_text()


async def test_no_at_a_resolutions_preview_returns_to_the_queue_at_that_conflict(sample_copy: Path):
    before = snapshot_of(sample_copy)
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("escape", "c")
        await settle(pilot)
        listing = app.screen.query_one("#conflict-list", OptionList)
        stale = next(i for i, c in enumerate(app.screen.conflicts) if c.kind == "stale-link")
        listing.highlighted = stale
        await pilot.pause()
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, ConflictsDialog), "the queue, not the main screen"
        assert app.screen.query_one("#conflict-list", OptionList).highlighted == stale
    assert snapshot_of(sample_copy) == before


async def gate_draft(pilot, title: str) -> NewDocumentDialog:
    await settle(pilot)
    await pilot.press("escape", "n")
    await settle(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, NewDocumentDialog)
    await type_text(pilot, title)
    return dialog


async def test_a_gate_create_refused_for_lacking_a_link_keeps_the_draft_and_says_how_in_the_dialog(sample_copy: Path):
    before = snapshot_of(sample_copy)
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await gate_draft(pilot, "Refunds go through credit notes")
        dialog.query_one("#body", TextArea).text = "Issued as credit notes.\n"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert dialog.has_class("-candidates")
        await pilot.press("c")
        await settle(pilot)
        assert app.screen is dialog, "the dialog stays open"
        assert not dialog.has_class("-candidates"), "back at the draft, where the link is added"
        assert app.focused is dialog.query_one("#link-picker Input")
        assert dialog.query_one("#title", Input).value == "Refunds go through credit notes"
        assert dialog.query_one("#body", TextArea).text == "Issued as credit notes.\n"
        said = [n for n in notices(app) if "link" in n]
        assert said and "--link" not in said[-1] and "under Links" in said[-1]
        await type_text(pilot, "stripe")
        await settle(pilot)
        await pilot.press("enter", "ctrl+s")
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
    assert snapshot_of(sample_copy) == before


async def test_cancelling_the_gates_preview_returns_to_the_draft_at_its_candidates(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await gate_draft(pilot, "Refunds go through credit notes")
        dialog.links.append(("related_to", "mem-entity-stripe"))
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        await pilot.press("escape")
        await settle(pilot)
        again = app.screen
        assert isinstance(again, NewDocumentDialog) and again.has_class("-candidates")
        assert again.query_one("#title", Input).value == "Refunds go through credit notes"
        assert again.links == [("related_to", "mem-entity-stripe")]


async def test_ctrl_q_in_a_half_written_draft_asks_before_discarding_it(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await gate_draft(pilot, "Half a thought")
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert isinstance(app.screen, DiscardDialog) and "Discard the draft?" in screen_text(app)
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is dialog and dialog.query_one("#title", Input).value == "Half a thought"
        await pilot.press("escape")  # closing the dialog asks too
        await settle(pilot)
        assert isinstance(app.screen, DiscardDialog)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is dialog
        await pilot.press("ctrl+q")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.return_code == 0 and not app.is_running


async def test_ctrl_q_on_an_empty_draft_quits_at_once(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("escape", "n")
        await settle(pilot)
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert not app.is_running


async def test_ctrl_q_at_the_preview_of_an_edited_consolidation_asks(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await merged_text_typed(pilot, "Pinned.")
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert isinstance(app.screen, DiscardDialog) and "merged text" in screen_text(app)
        await pilot.press("n", "ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert isinstance(app.screen, DiscardDialog)


def test_the_gates_refusals_are_said_without_command_line_flags():
    said = in_dialog_terms(
        "a new document must link to at least one existing document (--link TYPE:TARGET), so it is part of the graph"
    )
    assert "--" not in said and "pick a type, search a target" in said


# -- what a format cannot do, said before anyone works for it ---------------------------------------


async def test_a_dendron_vault_dims_lifecycle_new_and_consolidate_and_says_why(tmp_path: Path):
    root = dendron_vault(tmp_path / "dendron")
    before = snapshot_of(root)
    app = WorkbenchApp(root)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        main = app.screen
        assert main.vault.flavour.name == "dendron"
        await open_by_search(pilot, "alpha")
        for key, action in [("l", "lifecycle"), ("n", "new_document"), ("o", "consolidate")]:
            assert main.active_bindings[key].enabled is False, f"{key} is dimmed"
            assert main.check_action(action, ()) is None
            await pilot.press(key)
            await settle(pilot)
            assert app.screen is main, f"{key} opens nothing it cannot finish"
            said = notices(app)[-1]
            assert "Dendron" in said and "workbench migrate" in said, said
        for key, action in [("u", "undo"), ("p", "problems"), ("c", "conflicts"), ("e", "edit")]:
            assert main.check_action(action, ()) is True, key
    assert snapshot_of(root) == before


async def test_an_obsidian_vault_offers_the_status_but_not_supersession(tmp_path: Path):
    root = tmp_path / "notes"
    (root / ".obsidian").mkdir(parents=True)
    (root / "Alpha.md").write_text("---\nstatus: active\n---\n# Alpha\n\nSee [[Beta]].\n")
    (root / "Beta.md").write_text("# Beta\n\nSee [[Alpha]].\n")
    app = WorkbenchApp(root)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.screen.vault.flavour.name == "markdown"
        await open_by_search(pilot, "alpha")
        await pilot.press("l")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, LifecycleDialog)
        assert dialog.query("#statuses") and not dialog.query("#successor"), "no supersede search it cannot write"
        await pilot.press("down", "enter")  # one step from active: deprecated
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog) and "+status: deprecated" in app.screen.diff
        await pilot.press("y")
        await settle(pilot)
    assert "status: deprecated" in (root / "Alpha.md").read_text()


# -- the diff preview -------------------------------------------------------------------------------


async def consolidation_preview(pilot) -> ConfirmPlanDialog:
    await settle(pilot)
    await pilot.press("escape", "o")
    await settle(pilot)
    await pilot.press("ctrl+s")
    await settle(pilot)
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ConfirmPlanDialog)
    return pilot.app.screen


async def test_the_preview_scrolls_from_the_keyboard_and_enter_still_applies(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await consolidation_preview(pilot)
        scroll = dialog.query_one("#diff-scroll")
        assert scroll.max_scroll_y > 0
        await pilot.press("down")
        await pilot.pause()
        assert scroll.scroll_y == 1
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_y > 2
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert "status: archived" in (sample_copy / "notes/mem-note-flaky-invoice-counter-year-boundary.md").read_text()


async def test_the_preview_wraps_long_diff_lines_at_80x24(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await consolidation_preview(pilot)
        scroll = dialog.query_one("#diff-scroll")
        width = scroll.scrollable_content_region.width
        assert any(len(line) > width for line in dialog.diff.splitlines()), "a line longer than the box"
        assert scroll.max_scroll_x == 0, "no sideways scrolling"
        first_long = next(line for line in dialog.diff.splitlines() if len(line) > width)
        # the end of the first long line shows, on the line below its start
        scroll.scroll_to(y=0, animate=False)
        await pilot.pause()
        index = dialog.diff.splitlines().index(first_long)
        scroll.scroll_to(y=max(0, index - 2), animate=False)
        await pilot.pause()
        assert first_long.split()[-1] in screen_text(app), first_long


async def test_a_change_to_several_files_names_them_and_moves_file_to_file(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await consolidation_preview(pilot)
        assert len(dialog.files) == 5
        assert "5 files: contexts/mem-context-test-suite.md" in screen_text(app).replace(
            "\n", " "
        ) or "5 files:" in screen_text(app)
        scroll = dialog.query_one("#diff-scroll")
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert scroll.border_title.startswith("file 2 of 5")
        header = dialog.diff.splitlines()[dialog.starts[1]][:30]
        rows = screen_text(app).splitlines()
        top = scroll.content_region.y
        assert header in rows[top] or (
            scroll.scroll_y == scroll.max_scroll_y and any(header in row for row in rows[top:])
        ), "the second file's header tops the box, its long lines above wrapped"
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert scroll.scroll_y == 0 and scroll.border_title.startswith("file 1 of 5")
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, ConsolidateDialog), "cancel goes back a step"


def test_a_backup_is_named_with_the_file_it_backs_up_not_as_the_part_that_shows_the_files_diff():
    """A repair's preview titled its first part as the backup file while showing the document's diff."""
    diff = (
        "# backup of the file as it was: .recovery/notes/x.md.20261206T005248\n"
        "--- a/notes/x.md\n+++ b/notes/x.md\n@@ -1 +1 @@\n-a\n+b\n"
        "--- a/notes/y.md\n+++ b/notes/y.md\n@@ -1 +1 @@\n-a\n+b\n"
    )
    assert diff_parts(diff) == [
        (0, "notes/x.md · its backup: .recovery/notes/x.md.20261206T005248"),
        (6, "notes/y.md"),
    ]
    dialog = ConfirmPlanDialog("repair", diff, files=[".recovery/notes/x.md.20261206T005248", "notes/x.md"])
    assert dialog._file_title().startswith("file 1 of 2: notes/x.md")


def test_files_line_and_file_starts():
    assert files_line(["a.md"]) == ""
    assert files_line(["a.md", "b.md"]) == "2 files: a.md, b.md"
    assert files_line([f"{n}.md" for n in range(12)]) == "12 files: 0.md, 1.md, 2.md, …"
    diff = "--- a/x.md\n+++ b/x.md\n@@ -1 +1 @@\n-a\n+b\n# backup of the file as it was: .recovery/y\n--- a/z.md\n+++ b/z.md\n"
    assert file_starts(diff) == [0, 5, 6]


# -- conflicts, consolidation and the gate at 80x24 -----------------------------------------------


async def open_conflicts(pilot) -> ConflictsDialog:
    """The conflicts queue, opened as a person does: from the results, `c`."""
    await settle(pilot)
    await pilot.press("escape", "c")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ConflictsDialog)
    return pilot.app.screen


async def test_conflicts_are_listed_by_title_with_whole_ids(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_conflicts(pilot)
        first = dialog.conflicts[0]
        text = screen_text(app)
        assert dialog.documents[first.ids[0]].title[:20] in text
        listing = dialog.query_one("#conflict-list", OptionList)
        width = listing.scrollable_content_region.width
        for doc_id in first.ids:  # each id on one line, whole or visibly shortened, never wrapped
            shown = next(
                line.strip()
                for line in (listing.get_option_at_index(0).prompt.plain.splitlines())
                if "mem-" in line
                and doc_id[:5] in line
                and line.strip()[-4:] == doc_id[-4:]
                and line.strip() in (doc_id, short_id(doc_id, len(line.strip())))
            )
            assert len(shown) + 4 <= width and f"    {shown}" in text, shown


def test_a_resolution_names_its_documents_by_title_unless_titles_are_shared():
    def doc(doc_id, title=None):
        return Document(id=doc_id, path=f"{doc_id}.md", meta={"title": title} if title else {}, body="")

    docs = {
        d.id: d
        for d in (doc("adr-1", "Use Postgres"), doc("adr-10", "Use SQLite"), doc("adr-2", "Use Postgres"), doc("adr-3"))
    }
    assert titled("adr-10 supersedes adr-1", ["adr-1", "adr-10"], docs) == "“Use SQLite” supersedes “Use Postgres”"
    assert (
        titled("merge adr-1 into adr-2", ["adr-1", "adr-2"], docs) == "merge adr-1 into adr-2"
    )  # the same title: ids tell them apart
    assert titled("adr-3 supersedes adr-1", ["adr-1", "adr-3"], docs) == "adr-3 supersedes adr-1"  # no title of its own
    assert titled("link adr-1 instead", ["adr-1", "adr-404"], docs) == "link adr-1 instead"  # not in the vault


async def test_a_resolutions_button_names_titles_not_ids_at_80x24(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_conflicts(pilot)
        conflict = next(
            c
            for c in dialog.conflicts
            if c.kind in ("contradiction", "duplicate", "one-sided-supersession")
            and len({dialog.documents[i].title for i in c.ids}) == len(c.ids)
        )
        dialog.query_one("#conflict-list", OptionList).highlighted = dialog.conflicts.index(conflict)
        await settle(pilot)
        labels = [str(button.label) for button in dialog.query("#resolutions Button")]
        assert any(f"“{dialog.documents[conflict.ids[0]].title}”" in label for label in labels), labels
        assert not any(doc_id in label for doc_id in conflict.ids for label in labels), labels


async def test_up_and_down_move_among_a_conflicts_resolutions(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("escape", "c")
        await settle(pilot)
        dialog = app.screen
        buttons = list(dialog.query("#resolutions Button"))
        assert len(buttons) >= 2
        await pilot.press("enter")
        assert app.focused is buttons[0]
        await pilot.press("down")
        assert app.focused is buttons[1]
        await pilot.press("up", "up")
        assert app.focused is dialog.query_one("#conflict-list")


def _luminance(color) -> float:
    """WCAG relative luminance of an opaque colour."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def _contrast(a, b) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("theme", [*THEMES, "textual-dark", "textual-light"])
async def test_the_focused_resolution_stands_out_in_every_theme(sample_copy: Path, theme: str):
    """Not the same fill with its label reversed: a fill of its own that differs clearly from every
    other resolution's, and a label that reads on it."""
    app = WorkbenchApp(sample_copy, theme=theme)
    async with app.run_test(size=(120, 36)) as pilot:
        dialog = await open_conflicts(pilot)
        await pilot.press("enter", "down")
        await settle(pilot)
        buttons = list(dialog.query("#resolutions Button"))
        focused = buttons[1]
        assert app.focused is focused
        _, _, fill, label = focused.colors
        assert not focused.styles.text_style.reverse, "a reversed label on a full-width button shows as a short bar"
        assert _contrast(fill, label) >= 4.5, (fill, label)
        for other in buttons[:1] + buttons[2:]:
            assert _contrast(fill, other.colors[2]) >= 1.8, (theme, fill, other.colors[2])


async def test_consolidation_ticks_differ_in_shape(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("escape", "o")
        await settle(pilot)
        notes = app.screen.query_one("#notes", SelectionList)
        notes.deselect("mem-note-flaky-pdf-snapshot-fonts")
        await pilot.pause()
        text = screen_text(app)
        assert text.count("[x]") == 3 and text.count("[ ]") == 1


async def test_space_toggles_the_first_note_as_soon_as_the_notes_have_the_focus(sample_copy: Path):
    """Before, `space` did nothing until an arrow key had highlighted a note."""
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("escape", "o")
        await settle(pilot)
        await pilot.press("enter")  # the group chosen: on to its notes
        await pilot.pause()
        notes = app.screen.query_one("#notes", SelectionList)
        assert notes.has_focus and len(notes.selected) == 4
        await pilot.press("space")
        await pilot.pause()
        assert len(notes.selected) == 3 and notes.highlighted == 0


async def test_every_gate_candidate_is_visible_at_80x24(sample_copy: Path):
    from textual.widgets import Select

    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("escape", "n")
        await settle(pilot)
        dialog = app.screen
        dialog.query_one("#type", Select).value = "decision"
        dialog.query_one("#title", Input).value = "Store money as integer cents, always"
        dialog.query_one("#tags", Input).value = "money, billing"
        dialog.links.append(("related_to", "mem-entity-invoice-model"))
        await pilot.press("ctrl+s")
        await settle(pilot)
        listing = dialog.query_one("#candidate-list", OptionList)
        listed = [option for option in listing.options if option.id is not None]
        assert len(listed) == 3 and listing.max_scroll_y == 0, "the page's three in sight"
        assert listing.border_title.endswith(f"· {len(dialog.candidates)}")


@pytest.mark.parametrize("theme", THEMES)
async def test_the_focused_field_of_the_gate_stands_out(sample_copy: Path, theme: str):
    app = WorkbenchApp(sample_copy, theme=theme)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("escape", "n")
        await settle(pilot)
        title, tags = app.screen.query_one("#title", Input), app.screen.query_one("#tags", Input)
        assert app.focused is title
        focused, blurred = title.styles.background, tags.styles.background
        assert focused != blurred and abs(focused.brightness - blurred.brightness) > 0.05


async def test_a_tasks_lifecycle_at_80x24_shows_the_hits_found_under_its_title_in_a_framed_box(sample_copy: Path):
    """A task has one more list: the hits were found below the window's edge, and the search box
    had no frame, its placeholder read as one more line of help."""
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "type:task flaky")
        await pilot.press("l")
        await settle(pilot)
        dialog = app.screen
        box = dialog.query_one("#successor Input", Input)
        assert box.styles.border_top[0] == "round" and box.outer_size.height == 3
        box.focus()
        await type_text(pilot, "money")
        await settle(pilot)
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "Lifecycle · Get the flaky test rate" in text and "Store money as integer cents" in text


async def test_the_lifecycle_dialog_keeps_its_top_in_sight_while_searching_at_80x24(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        await pilot.press("l")
        await settle(pilot)
        dialog = app.screen
        dialog.query_one("#successor Input").focus()
        await type_text(pilot, "money")
        await settle(pilot)
        await pilot.press("down")  # into the hits
        await pilot.pause()
        assert dialog.query_one("#dialog").scroll_y == 0, "the dialog itself does not scroll"
        assert "Lifecycle · Use FastAPI for the HTTP API" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)


# -- snapshots ----------------------------------------------------------------------------------------


async def _to_preview(pilot) -> None:
    await consolidation_preview(pilot)
    await pilot.press("right_square_bracket")
    await pilot.pause()


async def _to_conflicts(pilot) -> None:
    await settle(pilot)
    await pilot.press("escape", "c")
    await settle(pilot)
    await pilot.press("enter")
    await pilot.pause()


async def _to_gate_refusal(pilot) -> None:
    await gate_draft(pilot, "Refunds go through credit notes")
    await pilot.press("ctrl+s")
    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


async def _to_discard(pilot) -> None:
    await gate_draft(pilot, "Half a thought")
    await pilot.press("ctrl+q")
    await settle(pilot)


async def _to_ticks(pilot) -> None:
    await settle(pilot)
    await pilot.press("escape", "o")
    await settle(pilot)
    pilot.app.screen.query_one("#notes", SelectionList).deselect("mem-note-flaky-pdf-snapshot-fonts")
    await pilot.pause()


STATES = {
    "preview": _to_preview,
    "conflicts": _to_conflicts,
    "gate-draft": _to_gate_refusal,
    "discard": _to_discard,
    "consolidation": _to_ticks,
}


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("state", list(STATES))
def test_dialog_snapshots(snap_compare, sample_copy: Path, state: str, theme: str, size: tuple[int, int]):
    app = WorkbenchApp(sample_copy, theme=theme)

    async def steadily(pilot) -> None:
        await STATES[state](pilot)
        steady_cursors(pilot)  # the box a refusal focuses blinked: off in a snapshot taken late
        await pilot.pause()

    # A change's diff writes today's date: the day is fixed, the clock still runs for Textual's timers.
    with time_machine.travel(dt.datetime(2026, 12, 1, 12, 0), tick=True):
        assert snap_compare(app, run_before=steadily, terminal_size=size)


async def _dendron_footer(pilot) -> None:
    await settle(pilot)
    await open_by_search(pilot, "alpha")
    await pilot.press("n")
    await settle(pilot)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("theme", THEMES)
def test_dendron_footer_snapshots(snap_compare, tmp_path: Path, theme: str, size: tuple[int, int]):
    app = WorkbenchApp(dendron_vault(tmp_path / "dendron"), theme=theme)
    assert snap_compare(app, run_before=_dendron_footer, terminal_size=size)
