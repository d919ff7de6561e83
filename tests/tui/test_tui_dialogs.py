"""The dialogs as a family (each one is the shared `.wb-dialog` frame from app.tcss), and the pure
parts of the both-versions dialog."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from textual.widgets import Button, Input
from textual.widgets._toast import Toast
from tui_helpers import screen_text, settle

from workbench.core.storage.changes import FileChange, Plan
from workbench.core.services.inbox import Inbox
from workbench.core.vocabulary.model import Document, Problem, Severity
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
from workbench.tui.widgets.dialog_news import DialogNews


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


async def test_a_long_problems_list_is_listed_a_page_at_a_time(sample_copy: Path):
    # Every problem made into a row at once: 8,266 at 100,000 documents held the screen 3.4 s.
    from textual.widgets import OptionList

    from workbench.tui.dialogs.problems import PAGE, ProblemsResult

    many = PAGE + PAGE // 2
    problems = [Problem(f"notes/n{n}.md", Severity.WARNING, "stale-link", f"links an old one {n}") for n in range(many)]
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        chosen: list[ProblemsResult | None] = []
        dialog = ProblemsDialog(problems, {f"notes/n{n}.md": f"mem-note-n{n}" for n in range(many)})
        await app.push_screen(dialog, chosen.append)
        await pilot.pause()
        listing = dialog.query_one(OptionList)
        assert listing.option_count == PAGE + 1  # a page, and the row that lists more
        assert "50 more not listed yet" in str(listing.get_option_at_index(PAGE).prompt)
        listing.highlighted = PAGE
        assert dialog.selected is None  # the row that lists more is no problem: f repairs nothing
        await pilot.press("enter")
        await pilot.pause()
        assert listing.option_count == many and listing.highlighted == PAGE
        assert dialog.selected == problems[PAGE]
        await pilot.press("end", "enter")
        await pilot.pause()
        assert chosen == [ProblemsResult(doc_id=f"mem-note-n{many - 1}")]
    late = ProblemsDialog(problems, {}, at=f"notes/n{PAGE + 3}.md")  # a repair asked from the second page
    assert late.shown == 2 * PAGE


def duplicates_queue(count: int, infix: str = "") -> list:
    """A conflicts queue of `count` pairs of duplicates, `mem-note-a{infix}N` and `mem-note-b{infix}N`."""
    from workbench.core import Conflict, Resolution

    return [
        Conflict(
            "duplicate",
            [f"mem-note-a{infix}{n}", f"mem-note-b{infix}{n}"],
            f"alike {n}",
            [Resolution("merge", f"merge {n}", f"merge mem-note-a{infix}{n} --into mem-note-b{infix}{n}")],
        )
        for n in range(count)
    ]


async def test_a_long_conflicts_queue_is_listed_a_page_at_a_time(sample_copy: Path):
    # Every conflict made into a row at once: 75,780 at 100,000 documents held the screen for seconds.
    from textual.widgets import OptionList

    from workbench.tui.dialogs.conflicts import PAGE

    many = PAGE + PAGE // 2
    conflicts = duplicates_queue(many)
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        dialog = ConflictsDialog(conflicts)
        await app.push_screen(dialog)
        await settle(pilot)
        listing = dialog.query_one("#conflict-list", OptionList)
        assert listing.option_count == PAGE + 1  # a page, and the row that lists more
        assert "50 more not listed yet" in str(listing.get_option_at_index(PAGE).prompt)
        listing.highlighted = PAGE
        await settle(pilot)
        assert dialog.selected is None and dialog.shown == "0"  # the row that lists more shows nothing new
        listing.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert listing.option_count == many and listing.highlighted == PAGE
        assert dialog.selected == conflicts[PAGE] and dialog.shown == str(PAGE)
    late = ConflictsDialog(conflicts, start=PAGE + 3)  # back from a preview of the second page's conflict
    assert late.listed == 2 * PAGE


async def test_the_conflicts_queue_is_listed_once_for_its_width_and_shown_a_frame_at_a_time(
    sample_copy: Path, monkeypatch
):
    """Each row is made once, for the list's own width (made at a guessed width, then again once
    the width was known, a page of rows cost twice); the detail beside the list comes in a frame
    after the list's. Made and laid out in one turn, the dialog held the screen for 100-130 ms of
    CPU at 100,000 documents."""
    from textual.widgets import OptionList

    import workbench.tui.dialogs.conflicts as conflicts_module
    from workbench.tui.dialogs.conflicts import PAGE

    conflicts = duplicates_queue(PAGE * 2, "-rather-long-id-")
    made: list[int] = []
    prompt = conflicts_module.conflict_prompt
    monkeypatch.setattr(
        conflicts_module,
        "conflict_prompt",
        lambda c, titles=None, width=40: made.append(width) or prompt(c, titles, width),
    )
    painted: list[tuple[int, str | None]] = []  # (rows listed, entry shown) each time the list is drawn
    draw = OptionList.render_lines

    def drawn(listing: OptionList, crop):
        if listing.id == "conflict-list":
            painted.append((listing.option_count, listing.screen.shown))
        return draw(listing, crop)

    monkeypatch.setattr(OptionList, "render_lines", drawn)
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        dialog = ConflictsDialog(conflicts)
        await app.push_screen(dialog)
        await settle(pilot)
        listing = dialog.query_one("#conflict-list", OptionList)
        width = listing.scrollable_content_region.width - 5
        assert width != conflicts_module.ID_WIDTH  # the list's width is not the one a row is made for unasked
        assert made == [width] * PAGE  # a page of rows, each made once, for the list's width
        assert dialog.shown == "0" and listing.option_count == PAGE + 1
        # The dialog was on show before its list, and the list before the detail beside it.
        assert painted[0] == (0, None)
        assert (PAGE + 1, None) in painted


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


@pytest.mark.parametrize("name", sorted(set(DIALOGS) - {"keys"}))
async def test_every_dialog_lists_its_own_keys_on_f1_and_question_mark(sample_copy: Path, name: str):
    """A dialog is modal, so the app's `F1` never reached it, and `?` did nothing there."""
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        dialog = DIALOGS[name]()
        await app.push_screen(dialog)
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        keys = app.screen
        assert isinstance(keys, KeysDialog), name
        titles = [title for title, _ in keys.groups]
        assert "Main screen (outside the search box)" not in titles
        own = {b.id for b in type(dialog).BINDINGS if getattr(b, "id", None)}
        listed = {b.id for _, bindings in keys.groups for b in bindings if b.id}
        assert own <= listed
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is dialog
        box = app.focused
        await pilot.press("question_mark")
        await pilot.pause()
        if isinstance(box, Input):  # a letter in a text box is a letter
            assert app.screen is dialog and box.value.endswith("?")
        else:
            assert isinstance(app.screen, KeysDialog)


def _scrolled_to(widget, frame) -> bool:
    """Whether `widget` sits in a part of the dialog that scrolls (it is reached by scrolling)."""
    node = widget.parent
    while node is not None and node is not frame.parent:
        if getattr(node, "allow_vertical_scroll", False):
            return True
        node = node.parent
    return False


@pytest.mark.parametrize("name", sorted(DIALOGS))
async def test_a_notice_while_a_dialog_is_open_is_said_above_it_never_over_it(sample_copy: Path, name: str):
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.notify("Written before the dialog opened", title="Main screen")
        await pilot.pause()
        await app.push_screen(DIALOGS[name]())
        await pilot.pause()
        app.notify("Accepted mem-note-x: the agent's request is settled, and this line is long enough to wrap")
        await pilot.pause(0.2)
        dialog = app.screen
        assert not [toast for toast in dialog.query(Toast) if toast.region.area], "a toast shows over the dialog"
        news = dialog.query_one(DialogNews)
        frame = dialog.query_one("#dialog")
        assert news.region.area and not news.region.overlaps(frame.region)
        text = screen_text(app)
        assert "Accepted mem-note-x" in text and "Written before the dialog opened" not in text
        for button in dialog.query(Button):
            if button.region.area and not _scrolled_to(button, frame):  # shown, not below a scroll
                assert frame.region.contains_region(button.region) and not news.region.overlaps(button.region)


async def test_a_two_file_preview_keeps_its_buttons_in_sight_at_80x24(sample_copy: Path):
    from workbench import Vault

    plan = Vault.open(sample_copy).supersede(
        "mem-decision-jobs-cron-table", "mem-decision-jobs-procrastinate", dry_run=True
    )
    summary = f"{plan.summary}: the older decision is marked superseded and the newer one names it as replaced"
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.push_screen(ConfirmPlanDialog(summary, plan.diff(), files=plan.paths))
        await pilot.pause()
        for notice in ("", "Wrote it: a notice while the preview is open, long enough to take two lines here"):
            if notice:
                app.notify(notice)
                await pilot.pause(0.2)
            dialog = app.screen
            frame = dialog.query_one("#dialog")
            screen_rows = dialog.region
            for button in dialog.query(Button):
                assert screen_rows.contains_region(button.region) and frame.region.contains_region(button.region)
            assert "Apply  y" in screen_text(app) and "Cancel  n" in screen_text(app)


def many_problems(count: int) -> list[Problem]:
    """`count` warnings, each in a file of its own, as a large vault's checks give them."""
    return [
        Problem(f"notes/mem-note-{n}.md", Severity.WARNING, "stale", f"not reviewed for {n} days", 3)
        for n in range(count)
    ]


async def test_the_problems_list_shows_its_frame_then_its_rows(sample_copy: Path, monkeypatch):
    """The dialog's frame is drawn before its rows are made: made, laid out and drawn in one turn
    with the dialog, a page of rows held the screen for 80-85 ms of CPU at 100,000 documents."""
    from textual.widgets import OptionList

    from workbench.tui.dialogs.paging import PAGE

    painted: list[int] = []  # the rows listed each time the list is drawn
    draw = OptionList.render_lines

    def drawn(listing: OptionList, crop):
        if listing.id == "problem-list":
            painted.append(listing.option_count)
        return draw(listing, crop)

    monkeypatch.setattr(OptionList, "render_lines", drawn)
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        problems = many_problems(3 * PAGE)
        dialog = ProblemsDialog(problems, {}, at=problems[PAGE + 5].path)
        await app.push_screen(dialog)
        await settle(pilot)
        listing = dialog.query_one("#problem-list", OptionList)
        assert painted[0] == 0 and 2 * PAGE + 1 in painted
        assert listing.option_count == 2 * PAGE + 1 and dialog.selected == problems[PAGE + 5]
        assert app.focused is listing


async def _closed_at_each_turn(pilot, turns: int, make) -> None:
    """A dialog made by `make` opened and closed again after 0, 1, ... `turns` - 1 turns of the loop
    (a key in the same burst as the one that opened it)."""
    import asyncio

    for waited in range(turns):
        dialog = make()
        pilot.app.push_screen(dialog)
        for _ in range(waited):
            await asyncio.sleep(0)
        dialog.dismiss(None)
        await pilot.pause()
    await settle(pilot)


async def test_the_problems_list_closed_before_its_rows_come_says_nothing_wrong(sample_copy: Path):
    """Closed in the same burst of keys as `p`, before its rows were listed: nothing is asked of
    the widgets that are gone, and a summary handed on before the rows came is what they list."""
    import asyncio

    from textual.widgets import OptionList

    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        main = app.screen
        await _closed_at_each_turn(pilot, 6, lambda: ProblemsDialog(many_problems(5), {}))
        assert app.screen is main
        dialog = ProblemsDialog(many_problems(5), {})
        app.push_screen(dialog)
        await asyncio.sleep(0)
        dialog.follow_summary(main.summary)  # the vault read again before the first rows came
        await settle(pilot)
        assert dialog.query_one("#problem-list", OptionList).option_count == len(main.summary.problems)


async def test_the_main_screen_is_not_laid_out_again_under_a_dialog_that_opens(sample_copy: Path, monkeypatch):
    """Textual lays out every screen under a dialog again when the dialog gets its first size,
    the terminal's, which the main screen already had: every widget of it arranged again in the
    dialog's first frame."""
    from textual.screen import Screen

    from workbench.tui.screens.main import MainScreen

    laid_out: list[str] = []
    lay_out = Screen._refresh_layout

    def counted(screen, *args, **kwargs):
        laid_out.append(type(screen).__name__)
        return lay_out(screen, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        laid_out.clear()
        await app.push_screen(ProblemsDialog(many_problems(5), {}))
        await settle(pilot)
        assert "ProblemsDialog" in laid_out and "MainScreen" not in laid_out, laid_out
        await app.pop_screen()
        await pilot.resize_terminal(120, 40)  # a new size: laid out again under the dialog
        laid_out.clear()
        await app.push_screen(ProblemsDialog(many_problems(5), {}))
        await settle(pilot)
        await pilot.resize_terminal(110, 36)
        await settle(pilot)
        assert "MainScreen" in laid_out
        assert main._compositor.size == (110, 36)


async def test_the_conflicts_queue_closed_before_its_frames_are_all_made_says_nothing_wrong(sample_copy: Path):
    """Closed at any point of its first frames (a key in the same burst as `c`), the queue leaves
    what it had still to show: it asked a screen whose widgets were gone, and a closed dialog's
    cancelled worker raised in it, and the app stopped with a traceback."""
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        main = app.screen
        await _closed_at_each_turn(
            pilot, 16, lambda: ConflictsDialog(main.conflicts or [], main.summary.by_id, verdicts=lambda: [])
        )
        assert app.screen is main


async def test_a_notice_from_a_thread_as_the_app_shuts_down_is_dropped(sample_copy: Path):
    # A worker's notice can be handled once the screens are closed and before the app's messages
    # stop: the handler asked for the screen on top of none and raised `ScreenStackError`.
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    done = threading.Event()

    def notify_until_done() -> None:
        while not done.is_set():
            app.notify("Re-read 1 file changed on disk")
            time.sleep(0.0005)

    notifier = threading.Thread(target=notify_until_done)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await app.push_screen(ProblemsDialog([], {}))
            await pilot.pause()
            notifier.start()
            await pilot.pause(0.05)
    finally:
        done.set()
        if notifier.is_alive():
            notifier.join()
