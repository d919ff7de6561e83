"""The first titles kept from the last launch (`workbench/tui/first_page.py`): in the first frame of
the next one, before the vault is read, then replaced by the vault's own listing; a title opened
meanwhile is shown once the vault is read; and a fresh interpreter shows them without importing the
core's reading, searching or formats."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from textual.widgets import OptionList
from tui_helpers import result_ids, settle, wait_for

from vault_builders import VaultBuilder
from workbench.core.vault import Vault
from workbench.tui.app import WorkbenchApp
from workbench.tui.first_page import KEPT, KeptTitle, keep_first_page, kept_first_page, page_path
from workbench.tui.widgets.search import SHOWN
from workbench.tui.widgets.viewer import DocumentViewer


@pytest.fixture
def vault(builder: VaultBuilder) -> Path:
    for n in range(60):
        builder.add(f"mem-note-kept-{n:03d}", updated=f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}")
    return builder.root


@pytest.fixture
def held(monkeypatch):
    """`Vault.open` waits until the test sets the event it returns: the vault is being read meanwhile."""
    go_on = threading.Event()
    opened = Vault.open.__func__

    def waiting(cls, path, flavour=None):
        go_on.wait(30)
        return opened(cls, path, flavour)

    monkeypatch.setattr(Vault, "open", classmethod(waiting))
    yield go_on
    go_on.set()


async def launch_once(root: Path) -> list[str]:
    """A first launch, until the vault is summarised and its first titles kept: the ids listed."""
    app = WorkbenchApp(root, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen.summary is not None and page_path(root, None).exists())
        return result_ids(app)


async def test_a_second_launch_shows_the_kept_titles_before_the_vault_is_read(vault: Path, held):
    held.set()
    listed = await launch_once(vault)
    held.clear()
    kept = [title.id for title in kept_first_page(vault, None)]
    assert kept == listed[:KEPT]
    app = WorkbenchApp(vault, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        results = app.screen.query_one("#results", OptionList)
        assert result_ids(app) == kept
        assert results.border_subtitle == "loading" and app.screen.vault is None
        assert f"Title of {kept[0]}" in str(results.get_option_at_index(0).prompt)
        held.set()
        await wait_for(pilot, lambda: results.border_subtitle != "loading")
        await settle(pilot)
        assert result_ids(app) == [hit.id for hit in Vault.open(vault).search("", SHOWN)]
        assert results.border_subtitle == "60/60" and results.highlighted == 0


async def test_a_kept_title_opened_before_the_vault_is_read_is_shown_once_it_is(vault: Path, held):
    held.set()
    await launch_once(vault)
    held.clear()
    app = WorkbenchApp(vault, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "enter")
        second = result_ids(app)[1]
        viewer = app.screen.query_one(DocumentViewer)
        await pilot.pause(0.2)
        assert viewer.view is None  # nothing to show yet: the vault is being read
        held.set()
        await wait_for(pilot, lambda: viewer.view is not None)
        assert viewer.view.document.id == second
        assert app.screen.query_one("#results", OptionList).highlighted_option.id == second


async def test_titles_kept_before_the_vault_changed_give_way_to_it_and_are_kept_anew(vault: Path, builder, held):
    held.set()
    await launch_once(vault)
    first = kept_first_page(vault, None)[0].id
    (vault / "notes" / f"{first}.md").unlink()  # changed by someone else between two launches
    builder.add("mem-note-kept-newest", updated="2026-12-31")
    held.clear()
    app = WorkbenchApp(vault, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert result_ids(app)[0] == first  # as it was: the vault is not read yet
        held.set()
        await wait_for(pilot, lambda: page_path(vault, None).exists() and kept_first_page(vault, None)[0].id != first)
        assert result_ids(app)[0] == "mem-note-kept-newest" and first not in result_ids(app)
        assert kept_first_page(vault, None)[0] == KeptTitle(
            "mem-note-kept-newest", "Title of mem-note-kept-newest", "note", "active"
        )


def test_kept_titles_are_those_of_the_same_folder_read_the_same_way(tmp_path: Path):
    titles = [KeptTitle("mem-a", "A", "note", "active"), KeptTitle("mem-b", "B [bold]x[/bold]", "decision", "draft")]
    keep_first_page(tmp_path, None, titles)
    assert kept_first_page(tmp_path, None) == titles
    assert kept_first_page(tmp_path, "dendron") == []  # read as another format: other titles
    assert kept_first_page(tmp_path / "elsewhere", None) == []
    page = page_path(tmp_path, None)
    page.write_text(json.dumps({"vault": "/somewhere/else", "flavour": "", "titles": [["x", "X", "note", "active"]]}))
    assert kept_first_page(tmp_path, None) == []  # a file naming another folder is not trusted
    for damaged in ("{", "[]", '{"vault": "%s", "flavour": "", "titles": [[1, 2]]}' % tmp_path.resolve()):
        page.write_text(damaged)
        assert kept_first_page(tmp_path, None) == []


def test_titles_that_cannot_be_kept_cost_nothing_but_the_head_start(tmp_path: Path, monkeypatch):
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    keep_first_page(tmp_path, None, [KeptTitle("mem-a", "A", "note", "active")])  # no error
    assert kept_first_page(tmp_path, None) == []


# What is loaded when the first titles are put in the list, in a fresh interpreter (not by polling
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
        loaded.append(" ".join(name for name in sorted(sys.modules) if name.startswith("workbench.core.")))
        self.app.exit(loaded[0])
    return set_options(self, options)

OptionList.set_options = listed

class FirstTitles(WorkbenchApp):
    CSS_PATH = str(Path(workbench.tui.app.__file__).with_name(WorkbenchApp.CSS_PATH))

print(FirstTitles(Path(sys.argv[1]), theme="workbench-dark").run(headless=True))
"""

# The words every pane speaks (a document's types and statuses, the errors a search can raise):
# imported with the panes. Reading, searching, the formats and the derived store are not.
VOCABULARY = {
    "workbench.core.vocabulary",
    "workbench.core.vocabulary.model",
    "workbench.core.vocabulary.parse",
    "workbench.core.vocabulary.presenting",
    "workbench.core.vocabulary.quickyaml",
}


def test_the_kept_titles_are_shown_by_a_fresh_interpreter_before_the_core_reads_anything(vault: Path):
    keep_first_page(vault, None, [KeptTitle("mem-note-kept-001", "Title of mem-note-kept-001", "note", "active")])
    loaded = subprocess.run(
        [sys.executable, "-c", FIRST_TITLES, str(vault)], capture_output=True, text=True, check=True, timeout=120
    )
    assert set(loaded.stdout.split()) <= VOCABULARY, loaded.stdout
