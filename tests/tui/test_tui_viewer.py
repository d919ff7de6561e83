"""The document viewer: links in the text followed by keyboard and mouse, the search's words marked,
a document deleted on disk, Dendron dates, the raw view; Pilot tests, then snapshots."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static
from tui_helpers import notes, open_by_search, screen_text, settle, wait_for

from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.lifecycle import LifecycleDialog
from workbench.tui.screens.main import MainScreen
from workbench.tui.widgets.body import Body, pieces
from workbench.tui.widgets.viewer import DocumentViewer

THEMES = ["workbench-dark", "workbench-light", "workbench-high-contrast"]
SIZES = [(80, 24), (160, 45)]
VISION = "mem-concept-tern-product-vision"


def viewer(app) -> DocumentViewer:
    return app.screen.query_one(DocumentViewer)


def shown_id(app) -> str | None:
    view = viewer(app).view
    return view.document.id if view is not None else None


async def open_id(pilot, doc_id: str) -> None:
    """Open a document as a link would, without a search (so no words are marked)."""
    pilot.app.screen.open_document(doc_id, focus="viewer")
    await settle(pilot)


@pytest.fixture
def notes_vault(builder) -> Path:
    """An Obsidian-like folder of notes, linked every way such notes link."""
    builder.raw(
        "Home.md",
        """
        # Home

        See [[Note name|the alias]] and [[Other#Details]], [the third](sub/Third.md),
        a [[Missing note]], and [the web](https://example.com).

        `[[not a link]]` stays code.
        """,
    )
    builder.raw("notes/Note name.md", "# Note name\n\nA note.\n")
    builder.raw("Other.md", "# Other\n\n## Details\n\nMore.\n")
    builder.raw("sub/Third.md", "# Third\n\nThe third note.\n")
    return builder.root


@pytest.fixture
def dendron_vault(builder) -> Path:
    builder.raw("dendron.yml", "version: 5\n")
    builder.raw(
        "root.md",
        "---\nid: root\ntitle: root\ndesc: ''\nupdated: 1636492098402\ncreated: 1636492098402\n---\n\n# Root\n",
    )
    builder.raw(
        "pro.topic.md",
        """
        ---
        id: a1
        title: Topic
        desc: 'a topic'
        updated: 1646158262629
        created: 1636492098402
        ---

        Read [[the guide|pro.topic.guide]] first.
        """,
    )
    builder.raw(
        "pro.topic.guide.md",
        """
        ---
        id: a2
        title: Guide
        desc: ''
        updated: 1646158262629
        created: 1636492098402
        ---

        The guide.
        """,
    )
    return builder.root


# -- 1. links in the text -------------------------------------------------------------------------


async def test_wiki_links_render_as_links_and_enter_follows_one(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_id(pilot, VISION)
        text = screen_text(app)
        assert "mem-entity-stripe" in text and "[[mem-entity-stripe]]" not in text
        await pilot.press("right_square_bracket")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert shown_id(app) == "mem-entity-stripe"
        await pilot.press("backspace")  # the same history as the links pane
        await settle(pilot)
        assert shown_id(app) == VISION


async def test_the_link_cursor_walks_both_ways_and_round_the_ends(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_id(pilot, VISION)
        body = app.screen.query_one(Body)
        labels = [link.label for link in body.links]
        assert labels == ["mem-entity-stripe", "mem-entity-sendgrid", "mem-concept-usage-based-billing"]
        await pilot.press("left_square_bracket")  # from nowhere, backwards: the last link
        await pilot.pause()
        assert body.cursor == 2
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert body.cursor == 0
        await pilot.press("enter")
        await settle(pilot)
        assert shown_id(app) == "mem-entity-stripe"


async def test_obsidian_links_by_alias_heading_and_markdown(notes_vault: Path):
    app = WorkbenchApp(notes_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_id(pilot, "Home")
        text = screen_text(app)
        assert "the alias" in text and "[[Note name" not in text
        assert "[[not a link]]" in text  # code is never a link
        body = app.screen.query_one(Body)
        targets = []
        for index in range(len(body.links)):
            await open_id(pilot, "Home")
            for _ in range(index + 1):
                await pilot.press("right_square_bracket")
            await pilot.press("enter")
            await settle(pilot)
            targets.append(shown_id(app))
        assert targets == ["notes/Note name", "Other", "sub/Third", "Home", "Home"]
        said = "\n".join(notes(app))
        assert "No document of the vault is called Missing note" in said
        assert "https://example.com" in said and "not opened" in said


async def test_a_click_on_a_wiki_link_follows_it(notes_vault: Path):
    app = WorkbenchApp(notes_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_id(pilot, "Home")
        body = app.screen.query_one(Body)
        x, y = body.link_offset(0)
        await pilot.click(body, offset=(x + 1, y))
        await settle(pilot)
        assert shown_id(app) == "notes/Note name"


async def test_dendron_links_name_the_note_by_its_dotted_name(dendron_vault: Path):
    app = WorkbenchApp(dendron_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_id(pilot, "pro.topic")
        assert "Read the guide first." in screen_text(app)
        await pilot.press("right_square_bracket", "enter")
        await settle(pilot)
        assert shown_id(app) == "pro.topic.guide"


# -- 2. the search's words, marked ------------------------------------------------------------------


def marked_text(app) -> list[str]:
    """The stretches of the body styled as marked words."""
    body = app.screen.query_one(Body)
    found = []
    for content in body.lines:
        found += [content.plain[s.start : s.end] for s in content.spans if "$warning" in str(s.style)]
    return found


async def test_a_document_opened_from_a_search_marks_the_query_words(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "postgres type:concept")
        assert viewer(app).marked == ("postgres",)
        marked = marked_text(app)
        assert marked and {word.lower() for word in marked} <= {"postgres", "postgresql"}
        await open_id(pilot, VISION)  # opened by a link: nothing to mark
        assert viewer(app).marked == ()
        assert marked_text(app) == []


async def test_the_title_marks_the_query_words_too(sample_copy: Path):
    """On a short terminal the properties fill the pane: the heading is where a mark shows first."""
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_by_search(pilot, "stripe webhooks")
        title = app.screen.query_one("#doc-title", Static).content
        marks = [title.plain[s.start : s.end] for s in title.spans if "$warning" in str(s.style)]
        assert marks == ["Stripe", "webhooks"]


# -- 3. a document deleted on disk ----------------------------------------------------------------


async def test_a_document_deleted_on_disk_says_so_and_refuses_changes(sample_copy: Path, monkeypatch):
    monkeypatch.setenv("EDITOR", "touch")  # an editor that would bring the file back
    path = sample_copy / "concepts" / f"{VISION}.md"
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.screen
        await wait_for(
            pilot, lambda: isinstance(main, MainScreen) and main.watcher is not None and main.watcher.ready.is_set()
        )
        await open_id(pilot, VISION)
        path.unlink()
        await wait_for(pilot, lambda: viewer(app).gone)
        # The banner is drawn with the next frame after `gone` is set: on a loaded machine, not
        # yet when the flag is read.
        await wait_for(pilot, lambda: "Deleted on disk" in screen_text(app))
        assert "Tern product vision" in screen_text(app)  # the last version read stays on show
        # Not offered: nothing is left to change. The footer is redrawn when the bindings are next
        # looked at, a frame or so after the banner.
        await wait_for(pilot, lambda: not {"Lifecycle", "Edit"} & set(screen_text(app).splitlines()[-1].split()))
        await pilot.press("l")
        await settle(pilot)
        assert not isinstance(app.screen, LifecycleDialog)
        await pilot.press("e")
        await settle(pilot)
        assert not path.exists()
        assert sum("deleted on disk: there is nothing left to change" in n for n in notes(app)) == 2


async def test_going_back_steps_over_a_document_deleted_on_disk(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.screen
        await wait_for(pilot, lambda: main.watcher is not None and main.watcher.ready.is_set())
        for doc_id in (VISION, "mem-entity-stripe", "mem-entity-sendgrid"):
            await open_id(pilot, doc_id)
        (sample_copy / "entities" / "mem-entity-stripe.md").unlink()
        await wait_for(pilot, lambda: "mem-entity-stripe" not in main.vault)
        app.screen.query_one(DocumentViewer).focus()
        await pilot.press("backspace")
        await settle(pilot)
        assert shown_id(app) == VISION
        assert any("mem-entity-stripe was deleted on disk; skipped" in n for n in notes(app))
        await pilot.press("alt+right")
        await settle(pilot)
        assert shown_id(app) == "mem-entity-sendgrid"


async def test_a_document_never_opened_is_not_said_to_be_deleted(sample_copy: Path):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_id(pilot, "mem-entity-nowhere")  # as a dangling link in the links pane would
        assert notes(app) == ["Cannot open it: No document of the vault is called mem-entity-nowhere"]


# -- 4. Dendron dates ------------------------------------------------------------------------------


async def test_dendron_epoch_milliseconds_read_as_dates(dendron_vault: Path):
    app = WorkbenchApp(dendron_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_id(pilot, "pro.topic")
        text = screen_text(app)
        assert "2021-11-09 21:08 UTC" in text and "2022-03-01 18:11 UTC" in text
        assert (dendron_vault / "pro.topic.md").read_text().count("1636492098402") == 1  # the file keeps its number


# -- 5. the raw view -------------------------------------------------------------------------------


async def test_the_raw_view_wraps_a_long_yaml_line_instead_of_hiding_its_end(builder):
    """A long frontmatter value is read whole, on the lines below, with nothing off to the right."""
    builder.raw("Long.md", "---\ntitle: Long\ndescription: " + "word " * 40 + "TAILWORD\ntags: [a]\n---\n\nBody.\n")
    app = WorkbenchApp(builder.root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_id(pilot, "Long")
        await pilot.press("r")
        await settle(pilot)
        lines = screen_text(app).splitlines()
        assert any("TAILWORD" in line for line in lines) and any("tags:" in line for line in lines)
        assert viewer(app).max_scroll_x == 0


# -- snapshots -------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x45"])
@pytest.mark.parametrize("theme", THEMES)
def test_snapshot_query_words_marked(snap_compare, sample_copy: Path, theme: str, size):
    async def search(pilot):
        await settle(pilot)
        await open_by_search(pilot, "stripe webhooks")
        await pilot.press("pagedown")  # to the body, as a person reads on
        await settle(pilot)

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), terminal_size=size, run_before=search)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x45"])
@pytest.mark.parametrize("theme", THEMES)
def test_snapshot_link_under_the_cursor(snap_compare, sample_copy: Path, theme: str, size):
    async def on_a_link(pilot):
        await settle(pilot)
        await open_id(pilot, VISION)
        await pilot.press("right_square_bracket", "right_square_bracket")
        await settle(pilot)

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), terminal_size=size, run_before=on_a_link)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x45"])
@pytest.mark.parametrize("theme", THEMES)
def test_snapshot_deleted_on_disk(snap_compare, sample_copy: Path, theme: str, size):
    async def deleted(pilot):
        main = pilot.app.screen
        await wait_for(pilot, lambda: main.watcher is not None and main.watcher.ready.is_set())
        await open_id(pilot, "mem-entity-stripe")
        (sample_copy / "entities" / "mem-entity-stripe.md").unlink()
        await wait_for(pilot, lambda: viewer(pilot.app).gone and main.summary.files == 66)
        await settle(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(WorkbenchApp(sample_copy, theme=theme), terminal_size=size, run_before=deleted)


# -- a long body, shown piece by piece ------------------------------------------------------------

LONG = (
    "".join(f"{n}. item {n} with [[Other]]\n" for n in range(1, 301))
    + "\n```\n"
    + "code\n\n" * 80
    + "```\n\n| a | b |\n|---|---|\n"
    + "| x | y |\n" * 90
    + "\nThe [last][ref] line.\n\n[ref]: Other.md\n"
)


def test_pieces_cut_only_where_a_block_may_start_and_keep_the_text():
    parts = pieces(LONG, first=50, later=40)
    assert len(parts) > 5
    body = [part.split("\n[ref]: Other.md\n")[0] if part is not parts[-1] else part for part in parts]
    assert "".join(body) == LONG, "the pieces are the text, cut, with nothing lost or doubled"
    for part in parts:
        assert part.count("```") % 2 == 0, "never inside a fenced code block"
        assert not part.startswith("| x"), "never inside a table"
        assert "[ref]: Other.md" in part, "every piece can resolve the reference links"


async def test_a_long_body_is_shown_whole_and_the_next_document_replaces_it(notes_vault):
    root = notes_vault
    (root / "Long.md").write_text("# Long\n\n" + LONG, "utf-8")
    app = WorkbenchApp(root, theme="workbench-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_id(pilot, "Long")
        body = app.screen.query_one(Body)
        await wait_for(pilot, lambda: "line." in body.text, 30)
        assert "item 1 " in body.text and "item 300 " in body.text and "The last line." in body.text
        await open_id(pilot, "Other")  # while nothing of the long one may be left behind
        await wait_for(pilot, lambda: "More." in body.text, 30)
        assert "item 1 " not in body.text
