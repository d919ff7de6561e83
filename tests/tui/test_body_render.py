"""The body drawn as one widget: the renderer's blocks laid out at a width (plain unit tests, no
app), then the widget in the viewer (Pilot): clicks and keys follow links, anchors scroll, words
are marked, a long body's first screen is on show before the rest is laid out."""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from pathlib import Path

import pytest

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from tui_helpers import screen_text, settle, wait_for

from workbench.tui.app import WorkbenchApp
from workbench.tui.markdown_render import Block, lay_out, link_number, render, slug
from workbench.tui.widgets.body import PAINT_WAIT, Body
from workbench.tui.widgets.viewer import DocumentViewer

EVERY_CONSTRUCT = """\
# Title one

Some *em* and **strong** and ~~gone~~ and `code` with [a link](other.md) and [[Other]].

## Second

- item one
- item two that is long enough to wrap over the width of forty cells
  - nested a
- [ ] task open
- [x] task done

3. third
4. fourth

> quoted text that is long enough to wrap over forty cells

```python
def f(x):
    return x
```

    indented code

---

| Name | Value |
|:-----|------:|
| a | [[Other]] |

<div>html block</div>

Inline <b>html</b> and ![alt text](img.png).
"""


def lines(markdown: str, width: int = 40, labels=None, words=()) -> list[str]:
    rendered = render(markdown, labels or {})
    out: list[str] = []
    for index, block in enumerate(rendered.blocks):
        out += [line.plain.rstrip() for line in lay_out(block, width, words, gap=index > 0)]
    return out


def styles_of(content, text: str) -> list[str]:
    """The styles of the spans covering exactly `text` in `content`."""
    start = content.plain.index(text)
    return [str(span.style) for span in content.spans if span.start <= start and span.end >= start + len(text)]


# -- the renderer -------------------------------------------------------------------------------


def test_every_construct_reads_as_text_with_its_prefixes():
    shown = lines(EVERY_CONSTRUCT, labels={"wiki:Other": "The other"})
    assert shown[:2] == ["Title one", ""]
    assert "Some em and strong and gone and code" in shown[2]
    assert "• item one" in shown
    assert "• item two that is long enough to wrap" in shown
    assert shown[shown.index("• item two that is long enough to wrap") + 1] == "  over the width of forty cells", (
        "a hanging indent"
    )
    assert "  ◦ nested a" in shown
    assert "• ☐ task open" in shown and "• ☑ task done" in shown
    assert "3. third" in shown and "4. fourth" in shown
    assert "▌ quoted text that is long enough to" in shown
    assert shown[shown.index("▌ quoted text that is long enough to") + 1].startswith("▌ "), "the bar on every line"
    assert "│ def f(x):" in shown and "│     return x" in shown and "│ indented code" in shown
    assert "─" * 40 in shown
    assert any(line.startswith("Name") and line.endswith("Value") for line in shown)
    assert "a    │ The other" in shown, "the wiki-link's label, the column right-aligned"
    assert "│ <div>html block</div>" in shown
    assert "Inline <b>html</b> and [alt text]." in shown
    assert "[[Other]]" not in "\n".join(shown)


def test_inline_styles_use_theme_variables():
    block = render("Some *em* **strong** ~~gone~~ `code` [link](x.md)\n", {}).blocks[0]
    assert "italic" in styles_of(block.content, "em")
    assert "bold" in styles_of(block.content, "strong")
    assert "strike" in styles_of(block.content, "gone")
    assert any("$" in style for style in styles_of(block.content, "code"))
    assert any("$text-accent" in style for style in styles_of(block.content, "link"))


def test_headings_are_told_apart_by_level():
    blocks = render("# One\n\n## Two\n\n### Three\n\n#### Four\n", {}).blocks
    assert [block.heading for block in blocks] == [1, 2, 3, 4]
    looks = {str(span.style) for block in blocks for span in block.content.spans}
    assert len(looks) == 4


def test_links_are_numbered_in_reading_order_tables_included():
    text = "[a](a.md) and [[B]]\n\n| x | y |\n|---|---|\n| [[C]] | [d](d.md) |\n\nthen [[E]]\n"
    rendered = render(text, {"wiki:B": "Bee"})
    assert rendered.hrefs == ["a.md", "wiki:B", "wiki:C", "d.md", "wiki:E"]
    numbers = []
    for block in rendered.blocks:
        for content in (block.content, *(cell for row in block.rows for cell in row)):
            numbers += [
                (link_number(s.style), content.plain[s.start : s.end])
                for s in content.spans
                if link_number(s.style) is not None
            ]
    assert numbers == [(0, "a"), (1, "Bee"), (2, "C"), (3, "d"), (4, "E")]


def test_later_pieces_go_on_numbering_links():
    assert render("[[A]]\n", {}, first_link=7).blocks[0].content.spans[-1].style.meta["body-link"] == 7


def test_code_is_highlighted_by_its_language_and_broken_between_tokens():
    block = render("```python\ndef function_with_a_long_name(argument): return argument\n```\n", {}).blocks[0]
    assert block.code and block.content.spans, "pygments styled it"
    laid = [line.plain for line in lay_out(block, 30, gap=False)]
    assert laid == ["│ def function_with_a_long_", "│ name(argument): return", "│ argument"]


def test_a_wide_table_shares_the_width_and_wraps_its_cells():
    row = "| " + " | ".join(f"cell {n} " + "word " * 8 for n in range(3)) + " |\n"
    table = "| a | b | c |\n|---|---|---|\n" + row
    shown = lines(table, width=80)
    assert all(len(line) <= 80 for line in shown)
    assert len(shown) > 3, "the long cells wrapped onto more lines"
    assert all(line.count("│") == 2 for line in shown if "cell" in line or "word" in line)
    assert shown[1].count("┼") == 2


def test_a_narrow_column_keeps_its_width_beside_a_wide_one():
    shown = lines("| n | text |\n|---|---|\n| 1 | " + "long " * 30 + "|\n", width=40)
    assert all(line.startswith(("n │", "1 │", "  │", "──┼")) for line in shown)


def test_words_are_marked_but_never_inside_code():
    block = render("Postgres here\n", {}).blocks[0]
    marked = lay_out(block, 40, ("postgres",), gap=False)[0]
    assert any("$warning" in str(s.style) for s in marked.spans)
    code = render("```\nPostgres\n```\n", {}).blocks[0]
    assert not any("35%" in str(s.style) for s in lay_out(code, 40, ("postgres",), gap=False)[0].spans)


def test_tight_list_items_stand_together_and_a_list_apart_from_the_paragraph_before():
    assert lines("Intro:\n- a\n- b\n\nAfter.\n") == ["Intro:", "", "• a", "• b", "", "After."]
    assert lines("- a\n\n- b\n") == ["• a", "", "• b"], "a loose list keeps its blank lines"


def test_slugs_as_github_makes_them():
    assert slug("Hello, World!") == "hello-world"
    assert slug("Use `jq` for JSON") == "use-jq-for-json"


def test_the_blank_line_between_blocks_keeps_only_the_bars_they_share():
    assert lines("> one\n>\n> two\n\nafter\n", width=20) == ["▌ one", "▌", "▌ two", "", "after"]


def test_a_rule_spans_the_width_inside_a_quote():
    assert lines("> ---\n", width=20) == ["▌ " + "─" * 18]


def test_an_unclosed_construct_or_odd_input_never_fails():
    for text in ("", "```", "|", "- ", "> ", "[[", "[[a|", "<div>", "\x1b[31m", "|a|\n|-|\n", "1.\n2.\n", "* * *"):
        for block in render(text, {}).blocks:
            assert isinstance(lay_out(block, 5), list)


def test_empty_block_fields_default():
    assert lay_out(Block(), 10) == lay_out(Block(), 10)


# -- the widget ---------------------------------------------------------------------------------


class BodyApp(App):
    """A body in a scrolling container, as the viewer holds it."""

    def __init__(self, text: str, labels=None) -> None:
        super().__init__()
        self.text, self.labels, self.clicked = text, labels or {}, []

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Body()

    def on_mount(self) -> None:
        self.query_one(Body).show(self.text, self.labels)

    def on_body_link_clicked(self, event: Body.LinkClicked) -> None:
        self.clicked.append(event.href)


async def test_a_click_and_the_keyboard_follow_the_same_link_in_a_table():
    app = BodyApp("| a | b |\n|---|---|\n| x | [[Far]] |\n", {"wiki:Far": "label"})
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        body = app.query_one(Body)
        assert [link.label for link in body.links] == ["label"]
        x, y = body.link_offset(0)
        await pilot.click(body, offset=(x + 1, y))
        await pilot.pause()
        body.move_cursor(1)
        assert await body.follow()
        await pilot.pause()
        assert app.clicked == ["wiki:Far", "wiki:Far"]


async def test_the_cursor_is_drawn_and_scrolled_into_view():
    text = "".join(f"Line {n}.\n\n" for n in range(60)) + "The [end](end.md).\n"
    app = BodyApp(text)
    async with app.run_test(size=(60, 10)) as pilot:
        body = app.query_one(Body)
        await wait_for(pilot, lambda: "The end." in body.text and body.size.height == len(body.lines))
        scroll = app.query_one(VerticalScroll)
        assert scroll.scroll_y == 0
        body.move_cursor(1)
        await pilot.pause()
        assert scroll.scroll_y > 100
        x, y = body.link_offset(0)
        style = body.get_style_at(x, y)
        assert style.bgcolor is not None and "The end." in screen_text(app)


async def test_an_anchor_scrolls_to_its_heading():
    text = "# Top\n\n" + "".join(f"Line {n}.\n\n" for n in range(60)) + "## Far down\n\nHere.\n\n" + "More.\n\n" * 20
    app = BodyApp(text)
    async with app.run_test(size=(60, 10)) as pilot:
        body = app.query_one(Body)
        await wait_for(pilot, lambda: "Here." in body.text and body.size.height == len(body.lines))
        assert not body.goto_anchor("nowhere")
        assert body.goto_anchor("far-down")
        await wait_for(pilot, lambda: screen_text(app).splitlines()[0].strip() == "Far down")


async def test_marking_other_words_restyles_what_is_shown():
    app = BodyApp("Alpha beta.\n")
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        body = app.query_one(Body)
        assert not any("$warning" in str(s.style) for line in body.lines for s in line.spans)
        body.mark(("beta",))
        marked = [line.plain[s.start : s.end] for line in body.lines for s in line.spans if "$warning" in str(s.style)]
        assert marked == ["beta"]


async def test_a_resize_wraps_again_with_the_hanging_indent():
    app = BodyApp("- " + "word " * 30 + "\n")
    async with app.run_test(size=(100, 10)) as pilot:
        await pilot.pause()
        body = app.query_one(Body)
        wide = len(body.lines)
        await pilot.resize_terminal(40, 10)
        await pilot.pause()
        assert len(body.lines) > wide
        assert all(line.plain.startswith("  ") for line in body.lines[1:])


async def test_a_newer_text_supersedes_one_still_being_added(builder):
    long = "".join(f"Para {n} of the first.\n\n" for n in range(3000))
    app = BodyApp("")
    async with app.run_test(size=(60, 10)) as pilot:
        body = app.query_one(Body)
        body.show(long, {})
        body.show("Only this.\n", {})
        for _ in range(20):
            await pilot.pause()
        assert body.text == "Only this."


@pytest.mark.parametrize("leave", ["quit", "removed"])
async def test_the_rest_of_a_long_text_stops_quietly_when_the_body_goes(leave, caplog):
    """The rest of a long text is added by a task of its own: the body leaving while it waits for
    the first paint or adds pieces (the app quit, the pane removed) stops it, and no error of it is
    left unread (asyncio said "exception was never retrieved" on a quit)."""
    long = "".join(f"Para {n} of the first.\n\n" for n in range(3000))
    app = BodyApp("")

    def adding() -> list[asyncio.Task]:
        return [t for t in asyncio.all_tasks() if "add_the_rest" in repr(t.get_coro()) and not t.done()]

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        async with app.run_test(size=(60, 10)) as pilot:
            body = app.query_one(Body)
            body.show(long, {})
            assert adding()
            if leave == "removed":
                await body.remove()
                await pilot.pause()
                assert not adding()
                assert not [note for note in app._notifications]  # nothing to tell: the text is gone
        assert not adding()  # stopped with the app, not left running on in the loop
        await asyncio.sleep(PAINT_WAIT + 0.3)  # as long as the rest would have waited, and more
        assert not adding()
        gc.collect()
    assert "never retrieved" not in caplog.text


async def test_a_long_body_shows_its_first_screen_before_the_rest(builder):
    builder.raw(
        "Long.md", "# Long\n\n" + "".join(f"- item {n} with [[Other]] and **bold** words\n" for n in range(5000))
    )
    builder.raw("Other.md", "# Other\n\nMore.\n")
    app = WorkbenchApp(builder.root, theme="workbench-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        viewer = app.screen.query_one(DocumentViewer)
        body = app.screen.query_one(Body)
        started = time.perf_counter()
        app.screen.open_document("Long")
        while viewer.view is None or viewer.view.document.id != "Long" or not viewer.shown:
            await pilot.pause(0)
        first = time.perf_counter() - started
        assert 0 < len(body.links) < 5000, "the first screen before the rest"
        await pilot.pause(0)
        assert "item 0 " in screen_text(app)
        await wait_for(pilot, lambda: "item 4999 " in body.text, 30)
        assert len(body.links) == 5000
        assert first < 5, "generous for a busy machine: the figure that matters is the benchmark's"


async def test_a_re_read_document_keeps_its_place(builder):
    path: Path = builder.raw("Long.md", "# Long\n\n" + "".join(f"Paragraph {n}.\n\n" for n in range(400)))
    app = WorkbenchApp(builder.root, theme="workbench-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.screen.open_document("Long", focus="viewer")
        await settle(pilot)
        viewer = app.screen.query_one(DocumentViewer)
        viewer.scroll_to(y=500, animate=False)
        await pilot.pause()
        path.write_text(path.read_text() + "One more.\n", "utf-8")
        await wait_for(pilot, lambda: "One more." in app.screen.query_one(Body).text, 30)
        await settle(pilot)
        assert viewer.scroll_y == 500


async def test_text_is_selected_with_the_mouse_and_copied_as_shown():
    app = BodyApp("First paragraph here.\n\nSecond one, with a [link](far.md) in it.\n\nThird.\n")
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        body = app.query_one(Body)
        assert body.lines[2].plain.startswith("Second")
        await pilot.mouse_down(body, offset=(6, 0))  # the "paragraph" of the first line
        await pilot.hover(body, offset=(9, 2))  # to the end of "one" on the third row, included
        await pilot.mouse_up(body, offset=(9, 2))
        await pilot.pause()
        assert app.screen.get_selected_text() == "paragraph here.\n\nSecond one"
        selected = body.get_style_at(7, 2)
        assert selected.bgcolor is not None  # drawn as selected
        body.show("Another text.\n", {})
        await pilot.pause()
        assert app.screen.get_selected_text() is None  # the rows no longer hold what was selected


def test_only_what_github_autolinks_is_a_link_not_a_bare_domain():
    rendered = render("Built on GOV.UK (see README.md), www.example.com, https://x.org/a and ops@example.com.\n", {})
    assert rendered.hrefs == ["http://www.example.com", "https://x.org/a", "mailto:ops@example.com"]
    assert "GOV.UK" in rendered.blocks[0].content.plain


def test_a_long_line_of_code_breaks_between_tokens_and_keeps_its_indent():
    """A code line was cut at the width, mid-token (`re` | `ceived_at`)."""
    block = render("```sql\n    INSERT INTO stripe_events (id, type, received_at)\n```\n", {}).blocks[0]
    lines = [line.plain for line in lay_out(block, 42, gap=False)]
    assert lines == ["│     INSERT INTO stripe_events (id,", "│ type, received_at)"], lines


def test_an_id_or_a_url_in_the_properties_breaks_at_a_joint_never_mid_token():
    from workbench.tui.widgets.properties import Properties

    properties = Properties()
    properties.meta = {
        "links": [{"type": "related_to", "target": "mem-context-stripe-webhook-flow"}],
        "source_url": "https://docs.stripe.com/webhooks#handle-duplicate-events",
    }
    lines = [line.plain[16:].rstrip() for line in properties.lines(16 + 26)]
    assert lines[:2] == ["related_to → mem-context-", "stripe-webhook-flow"], lines
    assert lines[2:] == ["https://docs.stripe.com/", "webhooks#handle-duplicate-", "events"], lines
