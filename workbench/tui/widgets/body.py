"""A document's body as rendered Markdown, drawn by one widget, with its links reachable from the keyboard.

Textual's `Markdown` mounted a widget for every block (every list item, every paragraph in it)
before it painted: seconds for a long decision record or a Dendron changelog. Here the text is made
into blocks of styled text (`markdown_render`), each block is wrapped at the widget's width with its
hanging indent, and the widget paints only the lines on screen (Textual's line API: `render_line`).
The lines are kept per width and made again on a resize.

A long text is cut into pieces at lines where a block may start (`pieces`): `show` renders the
first (a screen's worth) at once and says so (`shown`), then adds the others one by one while the
person starts reading, letting keys through between them, in a task the body owns. A newer `show`
stops an older one still adding pieces, and the body going (the app quits) stops it too. While the
pieces of a text come in, the body stays at least as tall as the text it replaced, so a document
re-read after a change on disk keeps its place in the viewer.

Text can be selected with the mouse, as in Textual's own widgets: each drawn line carries the
offsets of its characters (`Strip.apply_offsets`), and a selection is taken from the lines as laid
out, one per row, so a wrapped paragraph is copied with the breaks it is shown with. A new text or
a new layout clears it, since its rows no longer hold what was selected.

For the keyboard, a cursor walks the links in reading order (`move_cursor`), those in tables too,
and shows the one it is on in the theme's cursor colours, scrolled into view; `follow` acts on it
exactly as a click does, by posting `LinkClicked` with the link's address. The words of the search
that opened the document are marked (`show(..., words=...)`, `mark`). Both are styles laid over the
text the renderer made; the text itself is never rewritten, so what is shown stays what the file says.
"""

from __future__ import annotations

import asyncio
import re
from contextlib import suppress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote

from rich.segment import Segment
from textual.content import Content
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

# The Markdown renderer (`markdown_render.py`) is imported by the methods below that use it, not
# here: the first titles show no text (it is made ready once they are listed, `app.warm_up`).
if TYPE_CHECKING:
    from ..markdown_render import Block

__all__ = ["Body", "RenderedLink", "pieces"]

FIRST_LINES = 50
"""Lines of the text in the first piece: more of any document than a tall terminal shows."""
LATER_LINES = 400
"""Lines in each later piece: a piece takes the interpreter for a few tens of milliseconds."""
PAINT_WAIT = 0.2
"""Seconds the rest of a long text waits for its first screen to be painted: the paint comes first."""
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"(?:[-*+]|\d{1,9}[.)])[ \t]")
_REFERENCE = re.compile(r" {0,3}\[[^\]]+\]:\s")

CURSOR_STYLE = "bold $block-cursor-foreground on $block-cursor-background"


def pieces(markdown: str, first: int = FIRST_LINES, later: int = LATER_LINES) -> list[str]:
    """`markdown` cut into pieces of about `first`, then `later` lines, each cut where a block may
    start afresh: after a blank line before an unindented line, or before an item of a list at the
    margin; never inside a fenced code block or a table. The reference definitions (`[x]: url`)
    go with every piece, so that a link in any piece finds its address."""
    lines = markdown.splitlines(keepends=True)
    references = "".join(line for line in lines if _REFERENCE.match(line))
    out: list[str] = []
    start, fence, size = 0, "", first
    for n, line in enumerate(lines):
        if fence:
            if line.lstrip().startswith(fence):
                fence = ""
            continue
        if (match := _FENCE.match(line)) is not None:
            fence = match.group(1)[0] * 3
        if n - start < size or n == start:
            continue
        previous = lines[n - 1]
        after_blank = not previous.strip() and line.strip() and not line[0].isspace()
        if (after_blank or _ITEM.match(line)) and not fence and not line.startswith("|"):
            out.append("".join(lines[start:n]))
            start, size = n, later
    out.append("".join(lines[start:]))
    return [piece + ("\n" + references if references and piece is not out[-1] else "") for piece in out]


@dataclass(frozen=True)
class RenderedLink:
    """One link as rendered, in reading order: what it shows and the address it carries."""

    label: str
    href: str


class Body(Widget):
    """The rendered body; `cursor` is the link the keyboard is on (-1: none)."""

    DEFAULT_CSS = """
    Body { height: auto; }
    """

    cursor: reactive[int] = reactive(-1, init=False)
    """Index into `links` of the link the keyboard is on; -1 when none is."""

    class LinkClicked(Message):
        """A link in the body was clicked, or followed from the keyboard."""

        def __init__(self, body: Body, href: str) -> None:
            super().__init__()
            self.body = body
            self.href = unquote(href)
            """The link's address, as the text wrote it (percent-encoding undone)."""

        @property
        def control(self) -> Body:
            return self.body

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._labels: Mapping[str, str] = {}
        self._words: tuple[str, ...] = ()
        self._blocks: list[Block] = []
        self._hrefs: list[str] = []
        self._link_labels: list[str] = []
        self._link_blocks: list[int] = []
        """The block each link is in, by the link's number."""
        self._width = 0
        """The width the lines were laid out at (0: none yet)."""
        self._lines: list[Content] = []
        self._starts: list[int] = []
        """The row of each block's first line (its blank line before, if any)."""
        self._strips: dict[int, Strip] = {}
        self._cursor_rows: frozenset[int] = frozenset()
        self._painted = asyncio.Event()
        """Set when a line of the text last given is painted."""
        self._floor = 0
        """Rows kept while a text replacing a longer one is still coming in."""
        self._given = 0
        """How many texts were given: the adding of an older text's pieces stops when it changes."""
        self.shown = True
        """The first screen of the text last given is laid out (False while it is being made)."""
        self._rest: asyncio.Task[None] | None = None
        """Adding the rest of the text last given, while it does."""

    # -- what is shown ----------------------------------------------------------------------------

    @property
    def links(self) -> list[RenderedLink]:
        """The links as rendered, in reading order (tables' too)."""
        return [RenderedLink(label, href) for label, href in zip(self._link_labels, self._hrefs)]

    @property
    def lines(self) -> list[Content]:
        """The text as laid out at the current width, words marked, one `Content` per row."""
        return list(self._lines)

    @property
    def text(self) -> str:
        """The text as laid out at the current width, one line per row (for reading, not for parsing)."""
        return "\n".join(line.plain.rstrip() for line in self._lines)

    def show(self, text: str, labels: Mapping[str, str], words: tuple[str, ...] = ()) -> asyncio.Task[None]:
        """Render `text`, `[[...]]` shown by `labels` (by address), `words` marked; the cursor resets.
        The first piece is laid out before this returns; the rest is added by the task it returns
        (the body's own: stopped by a newer text or when the body goes)."""
        self._given += 1
        given = self._given
        self._labels, self._words = labels, words
        self.shown = False
        self.cursor = -1
        parts = pieces(text)
        self._floor = len(self._lines)
        self._blocks, self._hrefs, self._link_labels, self._link_blocks = [], [], [], []
        self._lines, self._starts, self._width = [], [], self._width
        self._clear_selection()
        self._add(parts[0])
        self.shown = True

        painted = self._painted = asyncio.Event()

        async def add_the_rest() -> None:
            if len(parts) > 1:
                with suppress(asyncio.TimeoutError):  # a body out of sight is never painted
                    await asyncio.wait_for(painted.wait(), PAINT_WAIT)
            for part in parts[1:]:
                await asyncio.sleep(0)  # keys get through between pieces
                if given != self._given:
                    return  # another text was given meanwhile: the rest of this one is not wanted
                self._add(part)
            if given == self._given:
                self._floor = 0
                self._grown()

        if self._rest is not None:
            self._rest.cancel()
        rest = self._rest = asyncio.create_task(add_the_rest())
        rest.add_done_callback(self._rest_done)
        return rest

    def _rest_done(self, rest: asyncio.Task[None]) -> None:
        """The rest of a text added, or stopped: an error in it is told while the body is on show
        (none is left unread for asyncio to print at exit)."""
        if rest is self._rest:
            self._rest = None
        if rest.cancelled() or (error := rest.exception()) is None or not self.is_attached:
            return
        self.notify(
            f"The rest of the text could not be shown: {type(error).__name__}: {error}",
            title="Unexpected error",
            severity="error",
            markup=False,
        )

    def on_unmount(self) -> None:
        if self._rest is not None:  # the app quit or the pane went: the rest is not wanted
            self._rest.cancel()

    def mark(self, words: tuple[str, ...]) -> None:
        """Mark other words in what is shown (the same document, another search)."""
        if words != self._words:
            self._words = words
            self._lay_out_all(self._width)
            self.refresh()

    def _add(self, piece: str) -> None:
        """Render one piece of the text and lay its blocks out after the others."""
        from ..markdown_render import link_number, render

        rendered = render(piece, self._labels, first_link=len(self._hrefs))
        self._hrefs += rendered.hrefs
        self._link_labels += [""] * len(rendered.hrefs)
        self._link_blocks += [0] * len(rendered.hrefs)
        for block in rendered.blocks:
            index = len(self._blocks)
            self._blocks.append(block)
            for content in (block.content, *(cell for row in block.rows for cell in row)):
                for span in content.spans:
                    if (number := link_number(span.style)) is not None and number < len(self._hrefs):
                        self._link_labels[number] = content.plain[span.start : span.end]
                        self._link_blocks[number] = index
            if self._width:
                self._lay_out_block(index)
        self._strips.clear()
        self._grown()

    def _grown(self) -> None:
        """Ask for a layout now, and again after the next paint: a request made while an earlier
        one is still pending can be lost (the body would keep the height of its first piece)."""
        self.refresh(layout=True)
        self.call_after_refresh(self.refresh, layout=True)

    # -- laying out and drawing -------------------------------------------------------------------

    def _lay_out_block(self, index: int) -> None:
        from ..markdown_render import lay_out

        self._starts.append(len(self._lines))
        self._lines += lay_out(self._blocks[index], self._width, self._words, gap=index > 0)

    def _lay_out_all(self, width: int) -> None:
        self._width = width
        self._lines, self._starts = [], []
        for index in range(len(self._blocks)):
            self._lay_out_block(index)
        self._strips.clear()
        self._cursor_rows = self._rows_of(self.cursor)
        self._clear_selection()

    def _ensure_width(self, width: int) -> None:
        if width > 0 and width != self._width:
            self._lay_out_all(width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure_width(width)
        return max(len(self._lines), self._floor)

    def render_line(self, y: int) -> Strip:
        self._painted.set()
        width = self.size.width
        self._ensure_width(width)
        if (strip := self._strips.get(y)) is not None:
            return strip
        if y >= len(self._lines):
            return Strip.blank(width, self.visual_style.rich_style)
        line = self._lines[y]
        if y in self._cursor_rows:
            line = _with_cursor(line, self.cursor)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            start, end = span
            selected = Style.from_rich_style(self.screen.get_component_rich_style("screen--selection"))
            line = line.stylize(selected, start, len(line) if end == -1 else end)
        base = self.visual_style
        segments = [Segment(text, style.rich_style) for text, style in line.render(base, end="")]
        strip = self._strips[y] = Strip(segments).crop_extend(0, width, base.rich_style).apply_offsets(0, y)
        return strip

    # -- selecting with the mouse -----------------------------------------------------------------

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text, from the lines as laid out (Textual asks when it copies)."""
        return selection.extract("\n".join(line.plain for line in self._lines)), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._strips.clear()
        self.refresh()

    def _clear_selection(self) -> None:
        if self.is_mounted and self.text_selection is not None:
            self.screen.selections = {w: s for w, s in self.screen.selections.items() if w is not self}

    def _rows_of(self, number: int) -> frozenset[int]:
        """The rows link `number` is drawn on (more than one when the wrap splits it)."""
        from ..markdown_render import link_number

        if not 0 <= number < len(self._link_blocks) or not self._lines:
            return frozenset()
        block = self._link_blocks[number]
        if block >= len(self._starts):
            return frozenset()
        end = self._starts[block + 1] if block + 1 < len(self._starts) else len(self._lines)
        return frozenset(
            row
            for row in range(self._starts[block], end)
            if any(link_number(span.style) == number for span in self._lines[row].spans)
        )

    def _scroll_to_row(self, row: int, top: bool = False) -> None:
        """Bring a row of the body into the view of the container that scrolls it, once a layout
        still pending has made the body as tall as its text."""

        def scroll() -> None:
            container = self.parent
            if isinstance(container, Widget):
                region = Region(0, self.virtual_region.y + row, max(self.size.width, 1), 1)
                container.scroll_to_region(region, animate=False, top=top, immediate=True)

        self.call_after_refresh(scroll)

    # -- the links --------------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        self._cursor_rows = self._rows_of(new)
        self._strips.clear()
        self.refresh()
        if self._cursor_rows:
            self._scroll_to_row(min(self._cursor_rows))

    def move_cursor(self, step: int) -> bool:
        """Put the cursor on the next (`step` 1) or previous (-1) link, round the ends; False when
        the body has no link."""
        if not self._hrefs:
            return False
        if self.cursor < 0:
            self.cursor = 0 if step > 0 else len(self._hrefs) - 1
        else:
            self.cursor = (self.cursor + step) % len(self._hrefs)
        return True

    async def follow(self) -> bool:
        """Act on the link under the cursor as a click would; False when the cursor is on none."""
        if not 0 <= self.cursor < len(self._hrefs):
            return False
        self.post_message(self.LinkClicked(self, self._hrefs[self.cursor]))
        return True

    def action_link(self, href: str) -> None:
        """A click on a link (the action its style carries)."""
        self.post_message(self.LinkClicked(self, href))

    def link_offset(self, number: int) -> tuple[int, int] | None:
        """Where link `number` starts, in cells from the body's top left (None: not laid out)."""
        from ..markdown_render import link_number

        for row in sorted(self._rows_of(number)):
            line = self._lines[row]
            for span in line.spans:
                if link_number(span.style) == number:
                    return Content(line.plain[: span.start]).cell_length, row
        return None

    def goto_anchor(self, anchor: str) -> bool:
        """Scroll to the heading whose anchor (GitHub's slug) is `anchor`; False when none has it."""
        from ..markdown_render import slug

        seen: dict[str, int] = {}
        for index, block in enumerate(self._blocks):
            if not block.heading:
                continue
            base = slug(block.content.plain)
            count = seen.get(base, 0)
            seen[base] = count + 1
            if (f"{base}-{count}" if count else base) == anchor.lower() and index < len(self._starts):
                self._scroll_to_row(self._starts[index] + (1 if block.gap and index else 0), top=True)
                return True
        return False


def _with_cursor(line: Content, number: int) -> Content:
    from ..markdown_render import link_number

    for span in line.spans:
        if link_number(span.style) == number:
            line = line.stylize(CURSOR_STYLE, span.start, span.end)
    return line
