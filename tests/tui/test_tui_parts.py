"""The TUI's pure parts: history, neighbours, safe text and theme files."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
from tui_helpers import wait_for

from workbench.core.views.graph import inverse_label
from workbench.core.vocabulary.model import Document
from workbench.tui.history import History
from workbench.tui.neighbours import link_groups
from workbench.tui.text import clean, plain
from workbench.tui.themes import (
    BUILTIN_THEMES,
    VARIABLE_DEFAULTS,
    load_theme_files,
    theme_folders,
)
from workbench.tui.widgets.viewer import split_source


def doc(doc_id: str, title: str, status: str = "active", links: list | None = None) -> Document:
    return Document(
        doc_id,
        f"x/{doc_id}.md",
        {"title": title, "status": status, "type": doc_id.split("-")[1], "links": links or []},
        "",
    )


def test_history_is_like_a_browser():
    history = History()
    for doc_id in ("a", "b", "c"):
        history.visit(doc_id)
    assert history.back() == "b" and history.back() == "a" and history.back() is None
    assert history.forward() == "b"
    history.visit("d")  # a new visit drops the forward entries
    assert not history.can_go_forward and history.back() == "b"
    history.visit("b")  # revisiting the current document adds nothing
    assert len(history) == 3


def test_neighbourhood_groups_both_ways_and_marks_dangling():
    graph = nx.MultiDiGraph()
    graph.add_node("mem-decision-a", title="A", status="active")
    graph.add_node("mem-entity-b", title="B", status="archived")
    graph.add_node("mem-note-gone", title="mem-note-gone", status="", dangling=True)
    graph.add_edge("mem-decision-a", "mem-entity-b", key="depends_on", type="depends_on")
    graph.add_edge("mem-decision-a", "mem-note-gone", key="explains", type="explains")
    graph.add_edge("mem-entity-b", "mem-decision-a", key="related_to", type="related_to")
    hood = link_groups(graph, "mem-decision-a")
    assert list(hood.outgoing) == ["depends_on", "explains"]  # in the contract's link-type order
    assert [n.title for n in hood.outgoing["depends_on"]] == ["B"]
    assert hood.outgoing["explains"][0].dangling
    assert [n.doc_id for n in hood.incoming["related_to"]] == ["mem-entity-b"]
    assert [n.doc_id for n in link_groups(graph, "mem-entity-b").incoming["depends_on"]] == ["mem-decision-a"]
    assert inverse_label("depends_on") == "depended on by"
    assert link_groups(graph, "mem-note-not-a-node").empty


def test_clean_shows_control_characters_instead_of_obeying_them():
    assert clean("a\x1b[31mb\x07\tc\n") == "a\\x1b[31mb\\x07\tc\n"
    assert plain("[bold]x[/bold]").plain == "[bold]x[/bold]"
    assert not plain("[bold]x[/bold]").spans


def test_split_source_separates_frontmatter():
    assert split_source("---\na: 1\n---\n# Body\n") == ("---\na: 1\n---\n", "# Body\n")
    assert split_source("# No frontmatter\n") == ("", "# No frontmatter\n")


def test_themes_define_every_variable_and_bad_files_are_reported(tmp_path: Path):
    for theme in BUILTIN_THEMES:
        assert set(VARIABLE_DEFAULTS) <= set(theme.variables), theme.name
    (tmp_path / "good.yaml").write_text("name: mine\nprimary: '#123456'\nvariables: {status-active: '#00ff00'}\n")
    (tmp_path / "bad.yaml").write_text("name: broken\nprimary: not-a-colour\n")
    (tmp_path / "worse.yaml").write_text(": : :\n")
    loaded = load_theme_files([tmp_path])
    assert [t.name for t in loaded.themes] == ["mine"]
    assert len(loaded.errors) == 2 and all("not loaded" in e for e in loaded.errors)


def test_shipped_theme_files_load():
    loaded = load_theme_files(theme_folders())
    assert not loaded.errors
    assert "workbench-high-contrast" in {t.name for t in loaded.themes}


def test_in_high_contrast_a_text_box_without_the_focus_is_still_seen():
    from textual.color import Color

    theme = {t.name: t for t in load_theme_files(theme_folders()).themes}["workbench-high-contrast"]
    colours = theme.to_color_system().generate()
    ground = Color.parse(colours["surface"])  # what dialogs and panes are drawn on
    assert ground == Color.parse(colours["background"])
    assert abs(Color.parse(colours["border-blurred"]).brightness - ground.brightness) > 0.4  # a bordered box's outline
    fill = ground + Color.parse(colours["boost"])  # a borderless (compact) box's fill
    assert abs(fill.brightness - ground.brightness) > 0.1


async def test_app_starts_in_every_theme(sample_copy: Path):
    from workbench.tui.app import WorkbenchApp

    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(100, 30)) as pilot:
        # The theme files are read once the first titles are on screen, as a person could first
        # reach the palette's theme list; on a loaded machine that can come after the first frame.
        await wait_for(pilot, lambda: "workbench-high-contrast" in app.available_themes)
        for name in ("workbench-light", "workbench-high-contrast", "textual-dark", "workbench-dark"):
            app.theme = name
            await pilot.pause()
            assert app.theme_variables["status-active"]
