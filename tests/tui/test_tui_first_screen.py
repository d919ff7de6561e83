"""The first screen as a newcomer meets it on an 80x24 terminal: help and quit always on screen,
results that can be told apart, a header that says what it counts, link keys that answer from
anywhere, and a pane that can take the whole window. Snapshots of the first screen and of a search
with results, at 80x24 and 160x45, in every theme."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList
from tui_helpers import open_by_search, result_ids, screen_text, settle, type_text

from workbench.tui.app import KEY_GROUPS, WorkbenchApp
from workbench.tui.dialogs.keys import KeysDialog
from workbench.tui.neighbours import LinkGroups, Neighbour
from workbench.tui.widgets.link_pane import LinkPane, link_options
from workbench.tui.widgets.viewer import DocumentViewer

THEMES = ["workbench-dark", "workbench-light", "workbench-high-contrast"]
SIZES = [(80, 24), (160, 45)]


def footer(app) -> str:
    return screen_text(app).splitlines()[-1]


def lookalike(root: Path, doc_id: str, body: str) -> None:
    """A note titled `Lookup`, like the four of a Dendron vault."""
    (root / "notes" / f"{doc_id}.md").write_text(
        f"---\nschema_version: v1\nid: {doc_id}\ntype: note\ntitle: Lookup\nstatus: active\n"
        f"created_at: 2026-06-01\nupdated_at: 2026-06-01\nproject: tern\ntags: []\nlinks: []\n"
        f"supersedes: []\nsuperseded_by: []\nprovenance:\n  source: agent-claude\n  confidence: high\n"
        f"---\n\n{body}\n",
        encoding="utf-8",
    )


@pytest.fixture
def lookalikes(sample_copy: Path) -> Path:
    lookalike(sample_copy, "mem-note-lookup-cli", "The command line finds a note by its lookup name.")
    lookalike(sample_copy, "mem-note-lookup-editor", "In the editor a lookup opens a picker of schemas.")
    return sample_copy


# -- 1. help and quit are always on screen ---------------------------------------------------------


async def test_the_first_screen_starts_on_the_results_with_help_and_quit_first_in_the_footer(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.focused is app.screen.query_one("#results", OptionList)
        assert footer(app).startswith("? Keys q Quit / Search")
        assert "n New" in footer(app) and "c Conflicts" in footer(app)
        await pilot.press("question_mark")
        assert isinstance(app.screen, KeysDialog)
        await pilot.press("escape")
        await pilot.press("slash")
        assert isinstance(app.focused, Input)


async def test_while_typing_the_footer_shows_the_keys_that_still_help_and_quit(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await type_text(pilot, "q?")
        await settle(pilot)
        assert app.focused.value == "q?" and app.is_running  # letters, in the box
        assert footer(app).startswith("F1 Keys ^q Quit esc Results")
        await pilot.press("f1")
        assert isinstance(app.screen, KeysDialog)
        await pilot.press("escape")
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0


async def test_escape_leaves_the_box_and_the_footer_says_so_only_while_typing(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "esc" not in footer(app)
        await type_text(pilot, "stripe")
        await pilot.press("escape")
        assert app.focused is app.screen.query_one("#results", OptionList)
        assert footer(app).startswith("? Keys q Quit")


# -- 2. results can be told apart -------------------------------------------------------------------


async def test_hits_titled_alike_show_their_ids_and_the_words_around_the_match(lookalikes: Path):
    app = WorkbenchApp(lookalikes)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await type_text(pilot, "lookup")
        await settle(pilot)
        assert set(result_ids(app)[:2]) == {"mem-note-lookup-cli", "mem-note-lookup-editor"}
        text = screen_text(app)
        assert "mem-note-lookup-cli" in text and "mem-note-lookup-editor" in text
        prompts = " ".join(
            " ".join(str(option.prompt).split()) for option in app.screen.query_one("#results", OptionList).options
        )
        assert "by its lookup name" in prompts and "a lookup opens a picker" in prompts


async def test_a_blank_query_lists_ids_without_snippets(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        prompts = [str(option.prompt) for option in app.screen.query_one("#results", OptionList).options]
        assert all(option_id in prompt for option_id, prompt in zip(result_ids(app), prompts))
        assert all(prompt.count("\n") == 2 for prompt in prompts)


# -- 3. the header says what it counts ---------------------------------------------------------------


async def test_the_header_keeps_its_counts_whole_on_a_narrow_terminal(sample_copy: Path, tmp_path: Path):
    long_named = tmp_path / "a-vault-folder-with-a-rather-long-name-indeed"
    shutil.copytree(sample_copy, long_named)
    app = WorkbenchApp(long_named)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        header = screen_text(app).splitlines()[0]
        assert header.rstrip().endswith("3 conflicts")
        assert "67 docs" in header and "0 errors" in header and "1 warning" in header
        assert "a-vault-folder" in header and "…" in header
        app.screen.query_one("VaultHeader").conflicts = -1  # a large vault: looked for only when asked
        await pilot.pause()
        assert screen_text(app).splitlines()[0].rstrip().endswith("conflicts: press c")


async def test_the_header_keeps_its_first_word_while_the_conflicts_are_worked_out(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        header = app.screen.query_one("VaultHeader")
        done = screen_text(app).splitlines()[0]
        header.conflicts = None  # looking for them again (after a change on disk, say)
        await pilot.pause()
        looking = screen_text(app).splitlines()[0]
        assert done.lstrip().startswith("workbench │") and looking.lstrip().startswith("workbench │"), looking


# -- 4. the links pane: titles alike, keys from anywhere ------------------------------------------------


def test_links_to_documents_titled_alike_show_their_ids():
    groups = LinkGroups(
        outgoing={
            "related_to": [
                Neighbour("related_to", "tags.feature.lookup", "Lookup", "active"),
                Neighbour("related_to", "dendron.topic.lookup", "Lookup", "active"),
                Neighbour("related_to", "dendron.topic.schema", "Schemas", "active"),
            ]
        },
        root="here",
    )
    prompts = [str(option.prompt) for option in link_options(groups) if option is not None and option.id]
    assert prompts[0].endswith("tags.feature.lookup") and prompts[1].endswith("dendron.topic.lookup")
    assert "dendron.topic.schema" not in prompts[2]


def test_links_whose_titles_the_pane_would_cut_alike_show_their_ids():
    groups = LinkGroups(
        incoming={
            "depends_on": [
                Neighbour(
                    "depends_on",
                    "mem-decision-jobs-procrastinate",
                    "Use a Postgres-backed job queue (procrastinate)",
                    "active",
                ),
                Neighbour("depends_on", "mem-decision-mail-queue", "Use a Postgres-backed queue for mail", "active"),
            ]
        },
        root="here",
    )
    prompts = [str(option.prompt) for option in link_options(groups) if option is not None and option.id]
    assert prompts[0].endswith("mem-decision-jobs-procrastinate") and prompts[1].endswith("mem-decision-mail-queue")


async def test_link_keys_pressed_outside_the_links_pane_bring_it_and_act(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "fastapi")
        links = app.screen.query_one(LinkPane)
        assert app.focused is app.screen.query_one(DocumentViewer)
        await pilot.press("x")
        await settle(pilot)
        assert links.show_pack and app.focused is links and links.region.width > 0
        assert links.border_title == "Context pack"
        await pilot.press("slash", "escape")  # back to the search results
        await pilot.press("t")
        await settle(pilot)
        assert app.focused is links and links.neighbours.link_type is not None


async def test_keys_that_cannot_act_say_why(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    seen: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.notify = lambda message, **kwargs: seen.append(message)  # noqa: ARG005 - only the words matter
        await pilot.press("x")
        assert seen and "Open a document first" in seen[-1]
        await pilot.press("s")
        assert "Open a document first" in seen[-1]
        await open_by_search(pilot, "fastapi")
        await pilot.press("s")
        assert seen[-1] == "mem-decision-api-fastapi is active: nothing supersedes it"


# -- 5. maximise a pane ----------------------------------------------------------------------------------


async def test_m_gives_the_viewer_the_whole_window_and_m_or_escape_gives_it_back(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "m Maximise" in footer(app)
        await open_by_search(pilot, "fastapi")
        viewer = app.screen.query_one(DocumentViewer)
        await pilot.press("m")
        await pilot.pause()
        assert app.screen.maximized is viewer and viewer.region.width == 80
        assert "m Restore" in footer(app)
        await pilot.press("m")
        await pilot.pause()
        assert app.screen.maximized is None and "m Maximise" in footer(app)
        await pilot.press("slash", "escape", "m")  # the results list brings its search box along
        await pilot.pause()
        assert app.screen.maximized is app.screen.query_one("#search")
        assert app.screen.query_one("#search").region.width == 80, "the whole width, not its column's"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.maximized is None


# -- 6. the keys dialog lists what was added -------------------------------------------------------------


def test_the_keys_dialog_lists_every_new_key():
    listed = {
        (binding.key, binding.description) for _, bindings in KEY_GROUPS for binding in bindings if not binding.system
    }
    for key, description in [
        ("question_mark", "Keys"),
        ("q", "Quit"),
        ("f1", "Keys"),
        ("m", "Maximise"),
        ("m", "Restore"),
        ("escape", "Results"),
        ("ctrl+q", "Quit"),
    ]:
        assert (key, description) in listed, key


# -- snapshots ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("theme", THEMES)
def test_first_screen(snap_compare, sample_copy: Path, theme: str, size: tuple[int, int]):
    async def loaded(pilot) -> None:
        await settle(pilot)

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), run_before=loaded, terminal_size=size)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("theme", THEMES)
def test_search_with_results(snap_compare, sample_copy: Path, theme: str, size: tuple[int, int]):
    async def searched(pilot) -> None:
        await settle(pilot)
        await type_text(pilot, "stripe")
        await settle(pilot)
        for widget in pilot.app.screen.query(Input):
            widget.cursor_blink = False

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), run_before=searched, terminal_size=size)


def test_snippets_keep_the_words_of_emphasis_and_wiki_links_without_their_marks():
    from workbench.tui.widgets.search import shorten_snippet

    shown = shorten_snippet("Dendron uses **\x02lookups\x03** to find [[dendron.topic.lookup]] and `__init__`", 200)
    assert shown == "Dendron uses \x02lookups\x03 to find dendron.topic.lookup and `__init__`"


async def test_a_search_typed_in_one_burst_after_the_slash_goes_into_the_box(sample_copy: Path):
    """A terminal hands over a fast typist's keys (or a pasted word) all at once: the letters after
    `/` reach the app before the focus has moved to the box, and must neither act as commands (`i`
    opened the inbox) nor be lost."""
    from textual import events

    from workbench.tui.widgets.search import SearchInput

    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.focused, OptionList)
        for character in "/stripe":
            app.post_message(events.Key("slash" if character == "/" else character, character))
        await settle(pilot)
        assert app.screen.query_one(SearchInput).value == "stripe"
        assert isinstance(app.focused, SearchInput) and len(app.screen_stack) == 2  # no dialog opened
