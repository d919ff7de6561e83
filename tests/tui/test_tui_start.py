"""From launch to the first titles: what the first screen waits for, and what it does not.

The titles that fill the pane go on screen before the rest of the list is laid out, and a fresh
interpreter starting the TUI on a vault opened before loads none of the modules the first titles
do not use: the dialogs, the flows, the reading and rendering of a document, the palette's commands,
the notebook face, PyYAML (no file is parsed, the theme files are read after), networkx (the graph
comes with the summary, after the titles)."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import OptionList
from tui_helpers import notes, result_ids, screen_text, settle, wait_for

from vault_builders import VaultBuilder
from workbench.core.vault import Vault
from workbench.tui.app import WorkbenchApp
from workbench.tui.widgets.viewer import DocumentViewer
from workbench.tui.screens.messages import VaultOpened
from workbench.tui.widgets.search import SHOWN, SearchPane

NOTES = SHOWN + 40


@pytest.fixture
def many(builder: VaultBuilder) -> Path:
    for n in range(NOTES):
        builder.add(f"mem-note-many-{n:03d}", updated=f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}")
    return builder.root


async def test_the_titles_that_fill_the_pane_come_before_the_rest_of_the_list(many, monkeypatch):
    expected = [hit.id for hit in Vault.open(many).search("", SHOWN)]
    put: list[int] = []  # how many documents each list put on show held
    replace = OptionList.set_options

    def counted(self, options):
        options = list(options)
        if self.id == "results" and any(option.id for option in options):
            put.append(len(options))
        return replace(self, options)

    monkeypatch.setattr(OptionList, "set_options", counted)
    listed: dict[int, int] = {}  # each Listed (seen again as it bubbles up): the titles then listed
    app = WorkbenchApp(many, theme="workbench-dark")

    def seen(message) -> None:
        if isinstance(message, SearchPane.Listed):
            listed.setdefault(id(message), app.screen.query_one("#results", OptionList).option_count)

    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        results = app.screen.query_one("#results", OptionList)
        await wait_for(pilot, lambda: bool(listed))
        await settle(pilot)
        assert put == [results.scrollable_content_region.height + 1]  # a pageful first, not the whole list
        assert list(listed.values()) == [SHOWN]  # said once, when every title is listed
        assert result_ids(app) == expected
        assert results.highlighted == 0
        assert results.border_subtitle == f"first {SHOWN}"


async def test_a_list_replaced_before_the_rest_of_the_last_one_arrived_keeps_none_of_it(many, monkeypatch):
    replace = OptionList.set_options
    replaced: list[bool] = []

    def then_unavailable(self, options):
        options = list(options)
        result = replace(self, options)
        if self.id == "results" and any(option.id for option in options) and not replaced:
            replaced.append(True)  # after the first titles' paint, before the rest of them is added
            pane = self.app.screen.query_one(SearchPane)
            pane.call_after_refresh(pane.unavailable, "the vault went away")
        return result

    monkeypatch.setattr(OptionList, "set_options", then_unavailable)
    app = WorkbenchApp(many, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: bool(replaced))
        await settle(pilot)
        results = app.screen.query_one("#results", OptionList)
        assert results.option_count == 1 and "the vault went away" in str(results.get_option_at_index(0).prompt)


DEFERRED = (
    "yaml",
    "networkx",
    "watchfiles",
    "pygments",
    "tomllib",
    "workbench.notebook",
    "workbench.core.views.live_graph",
    "workbench.tui.commands",
    "workbench.tui.dialogs.confirm_plan",
    "workbench.tui.dialogs.discard",
    "workbench.tui.dialogs.external_change",
    "workbench.tui.dialogs.lifecycle",
    "workbench.tui.markdown_render",
    "workbench.tui.neighbours",
    "workbench.tui.proposal",
    "workbench.tui.reading",
    "workbench.tui.screens.editor",
    "workbench.tui.screens.flows",
    "workbench.tui.screens.proposing",
)

# What is loaded is looked at the moment the first titles are put in the list (not by polling
# after, which on a loaded machine saw what is read right after them).
FIRST_TITLES = """
import sys
from pathlib import Path
from textual.widgets import OptionList
import workbench.tui.app
from workbench.tui.app import WorkbenchApp

loaded = []
set_options = OptionList.set_options

def listed(self, options):
    options = list(options)
    if self.id == "results" and not loaded and any(option.id for option in options):
        loaded.append(" ".join(name for name in sys.argv[2:] if name in sys.modules))
        self.app.exit(loaded[0])
    return set_options(self, options)

OptionList.set_options = listed

class FirstTitles(WorkbenchApp):
    CSS_PATH = str(Path(workbench.tui.app.__file__).with_name(WorkbenchApp.CSS_PATH))

print(FirstTitles(Path(sys.argv[1]), theme="workbench-dark").run(headless=True))
"""


def test_the_first_titles_of_a_vault_opened_before_load_only_what_they_need(sample_copy):
    Vault.open(sample_copy)  # the derived store in place: no file is parsed at the next start
    loaded = subprocess.run(
        [sys.executable, "-c", FIRST_TITLES, str(sample_copy), *DEFERRED],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert loaded.stdout.split() == []


async def test_the_theme_files_are_read_once_the_first_titles_are_listed(sample_copy):
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "workbench-high-contrast" in app.available_themes)


async def test_a_theme_from_a_file_asked_for_at_start_is_read_at_once(sample_copy):
    app = WorkbenchApp(sample_copy, theme="workbench-high-contrast")
    assert app.theme == "workbench-high-contrast"


async def test_what_the_open_read_is_frozen_before_its_titles_are_listed(sample_copy):
    """The cycle collector, woken after the open, walked every record read on the way to the first
    titles; frozen first, it never walks them."""
    gc.unfreeze()  # whatever earlier tests froze
    frozen: list[int] = []

    def seen(message) -> None:
        if isinstance(message, VaultOpened) and not frozen:
            frozen.append(gc.get_freeze_count())

    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await wait_for(pilot, lambda: bool(frozen))
    assert frozen[0] > 0


def test_what_was_imported_is_frozen_when_the_app_runs(sample_copy, monkeypatch):
    """The cycle collector ran a hundred-odd passes before the first titles, each walking every
    object the imports made (Textual's and the workbench's modules, classes and functions), all of
    which live as long as the program: frozen when the app runs, it walks only what is new."""
    from textual.app import App

    frozen: list[int] = []
    monkeypatch.setattr(App, "run", lambda self, *args, **kwargs: frozen.append(gc.get_freeze_count()))
    gc.unfreeze()  # whatever earlier tests froze
    try:
        WorkbenchApp(sample_copy, theme="workbench-dark").run(headless=True)
    finally:
        gc.unfreeze()  # a test process goes on: its garbage stays collectable
    assert frozen and frozen[0] > 1000


def test_the_screen_gets_the_interpreter_back_sooner_while_the_app_runs(sample_copy, monkeypatch):
    """While a worker thread runs Python (the summary of a large vault, a search), each time the
    screen's thread lets go of the interpreter (its event loop polls at every turn) it waited up to
    the switch interval to get it back: the screen was still 100-200 ms at a time at 100,000
    documents. A shorter interval while the app runs, the one before restored after."""
    import sys

    from textual.app import App

    seen: list[float] = []
    monkeypatch.setattr(App, "run", lambda self, *args, **kwargs: seen.append(sys.getswitchinterval()))
    before = sys.getswitchinterval()
    try:
        WorkbenchApp(sample_copy, theme="workbench-dark").run(headless=True)
    finally:
        gc.unfreeze()  # as above: a test process goes on
    assert seen and seen[0] < before and seen[0] <= 0.001
    assert sys.getswitchinterval() == before


async def test_the_theme_list_has_the_theme_files_even_when_no_titles_came(tmp_path):
    app = WorkbenchApp(tmp_path / "no-such-vault", theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "workbench-high-contrast" not in app.available_themes  # read after the first titles, which never came
        app.action_change_theme()
        await pilot.pause()
        assert "workbench-high-contrast" in app.available_themes


async def open_first_hit(app: WorkbenchApp, pilot) -> tuple[str, DocumentViewer]:
    """Open the first title listed, as soon as there is one (titles, not the message that the
    vault is loading): its id, and the viewer, once it shows a document or after five seconds."""
    for _ in range(400):
        if any(result_ids(app)):
            break
        await pilot.pause(0.05)
    first = result_ids(app)[0]
    await pilot.press("enter")
    viewer = app.screen.query_one(DocumentViewer)
    for _ in range(100):
        if viewer.view is not None:
            break
        await pilot.pause(0.05)
    return first, viewer


async def test_a_document_opened_before_the_vault_is_summarised_is_shown(sample_copy: Path, monkeypatch):
    """On a large vault the summary (every problem, the graph) takes seconds after the first
    titles; a hit opened meanwhile is shown, not forgotten."""
    from workbench.tui.screens import main

    go_on = threading.Event()
    summarise = main.summarise

    def held(vault, given):  # the summary waits until the test lets it go on
        go_on.wait(20)
        return summarise(vault, given)

    monkeypatch.setattr(main, "summarise", held)
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        try:
            first, viewer = await open_first_hit(app, pilot)
            assert app.screen.summary is None  # still summarising
            assert viewer.view is not None and viewer.view.document.id == first
        finally:
            go_on.set()
        await settle(pilot)
        assert app.screen.summary is not None and viewer.view.document.id == first


def test_what_the_screen_reads_of_a_summary_is_worked_out_in_the_summary_thread(sample_copy: Path):
    """The example query reads every document's tags: asked for by the screen when the summary
    came, it held the screen a second at 100,000 documents. The summary works it out itself, in
    its thread, as it does the titles every breadcrumb reads."""
    from workbench.tui.summary import summarise

    summary = summarise(Vault.open(sample_copy), sample_copy)
    assert {"example_query", "titles"} <= vars(summary).keys()


@pytest.fixture
def held_graph(monkeypatch) -> Iterator[threading.Event]:
    """The whole vault's graph and the summary held back until the test sets the event it gives:
    slow, as on a large vault (set again at the end, so no thread waits past the test)."""
    from workbench.tui.screens import main

    go_on = threading.Event()
    graph, summarise = Vault.graph, main.summarise

    def held_graph(vault):
        go_on.wait(20)
        return graph(vault)

    def held(vault, given):
        go_on.wait(20)
        return summarise(vault, given)

    monkeypatch.setattr(Vault, "graph", held_graph)
    monkeypatch.setattr(main, "summarise", held)
    yield go_on
    go_on.set()


async def test_a_document_opened_before_the_summary_does_not_wait_for_the_whole_vaults_graph(
    sample_copy: Path, held_graph: threading.Event
):
    """Its graph and the problems across files are worked out for the whole vault (seconds at
    100,000 documents): a document opened before the summary has them is shown at once, its links
    said to come once the vault is read, and they follow the summary."""
    from workbench.tui.widgets.link_pane import LinkPane

    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 30)) as pilot:
        try:
            first, viewer = await open_first_hit(app, pilot)
            assert viewer.view is not None and viewer.view.document.id == first  # not held by the graph
            assert viewer.view.neighbours.pending
            await wait_for(pilot, lambda: "Reading the vault…" in screen_text(app))  # in the links pane
        finally:
            held_graph.set()
        await wait_for(pilot, lambda: app.screen.summary is not None and not viewer.view.neighbours.pending)
        assert viewer.view.document.id == first
        # the pane is given the links on the screen's next turn
        await wait_for(pilot, lambda: app.screen.query_one(LinkPane).neighbours == viewer.view.neighbours)
        assert viewer.view.problems == app.screen.vault.problems_for(first)


async def test_the_link_type_asked_for_before_the_links_are_known_says_they_are_coming(
    sample_copy: Path, held_graph: threading.Event
):
    """`t` on a document opened while the vault's graph is still worked out: its links are not
    known yet, so it says they are coming (it said the document had none), and they show once known."""
    from workbench.tui.widgets.link_pane import LinkPane

    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 30)) as pilot:
        try:
            first, viewer = await open_first_hit(app, pilot)
            assert viewer.view is not None and viewer.view.neighbours.pending
            await pilot.press("t")
            await wait_for(pilot, lambda: any("Link type" in note for note in notes(app)))
            said = [note for note in notes(app) if "Link type" in note]
            assert "still being worked out" in said[-1], said
            assert "no links" not in said[-1]
        finally:
            held_graph.set()
        links = app.screen.query_one(LinkPane)
        await wait_for(pilot, lambda: links.neighbours is not None and not links.neighbours.pending)
        assert links.neighbours.root == first and not links.neighbours.empty
        assert links.option_count > 1 and links.get_option_at_index(0).id is None  # a heading, then the links
