"""A document's body as rendered Markdown, with its links reachable from the keyboard.

Textual's `Markdown` shows `[label](other.md)` as a link a mouse can click; vaults link far more
often with `[[target]]`, which Markdown does not know. An inline rule of the parser turns each
`[[...]]` outside code into a link whose address is `wiki:<inner>`, shown by its label (so
`[[Note name|alias]]` reads "alias", Dendron's `[[label|a.b.c]]` reads "label"); the viewer looks
the address up among the links the worker resolved.

For the keyboard, a cursor walks the rendered links in reading order (`move_cursor`) and shows the
one it is on in the theme's cursor colours; `follow` acts on it exactly as a click would, by
running the link's own action. The words of the search that opened the document are marked too
(`show(..., words=...)`). Both are styles laid over the text the renderer made; the text itself is
never rewritten, so what is shown stays what the file says.

Textual's `Markdown` parses the whole text and mounts a widget for every block (every list item,
every paragraph in it) before it paints: seconds for a long decision record or a Dendron changelog.
`update` here cuts the text into pieces at lines where a block may start (`pieces`), shows the
first piece (a screen's worth) at once, and adds the others one by one while the person starts
reading, letting keys through between them; `shown` says the first is in. The old text is hidden
at once and taken down piece by piece too.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from textual.await_complete import AwaitComplete
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from ...core.flavours.base import wikilinks
from ..text import mark_words
from ..text_links import wiki_href

__all__ = ["Body", "Page", "RenderedLink", "pieces"]

FIRST_LINES = 50
"""Lines of the text in the first piece: more of any document than a tall terminal shows."""
LATER_LINES = 40
"""Lines in each later piece: a piece takes the interpreter for a few tens of milliseconds."""
TAKEN_DOWN = 200
"""Widgets of the old text taken down at a time."""
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"(?:[-*+]|\d{1,9}[.)])[ \t]")
_REFERENCE = re.compile(r" {0,3}\[[^\]]+\]:\s")


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

CURSOR_STYLE = "bold $block-cursor-foreground on $block-cursor-background"


@dataclass(frozen=True)
class RenderedLink:
    """One link as rendered: the block it is in, where in the block's text, and its click action."""

    block: MarkdownBlock
    start: int
    end: int
    action: str


def _wikilink_rule(labels: Callable[[], Mapping[str, str]]):
    """An inline rule: `[[inner]]` (or the embed `![[inner]]`) becomes a link to `wiki:<inner>`,
    shown by its label in `labels()` (the labels of the document being parsed)."""

    def rule(state: StateInline, silent: bool) -> bool:
        start = state.pos + (1 if state.src.startswith("!", state.pos) else 0)
        if not state.src.startswith("[[", start):
            return False
        close = state.src.find("]]", start)
        if close < 0:
            return False
        found = wikilinks(state.src[state.pos : close + 2])
        if not found or not state.src.startswith(found[0][1], state.pos):
            return False
        inner, whole, _embed = found[0]
        if not silent:
            state.push("link_open", "a", 1).attrs = {"href": wiki_href(inner)}
            state.push("text", "", 0).content = labels().get(wiki_href(inner), inner)
            state.push("link_close", "a", -1)
        state.pos += len(whole)
        return True

    return rule


class Page(Vertical):
    """One text's blocks: a new text goes on a new page, so the old one is hidden by one change."""

    DEFAULT_CSS = """
    Page { height: auto; }
    Page > MarkdownParagraph { margin: 0 0 1 0; }
    """


class Body(Markdown):
    """The rendered body; `cursor` is the link the keyboard is on (-1: none)."""

    cursor: reactive[int] = reactive(-1, init=False)
    """Index into `links` of the link the keyboard is on; -1 when none is."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, open_links=False, parser_factory=self._parser)
        self._markdown_it: MarkdownIt | None = None
        self._labels: Mapping[str, str] = {}
        self._words: tuple[str, ...] = ()
        self._rendered: dict[MarkdownBlock, Content] = {}
        """Each block's text as the renderer made it, before any style was laid over it."""
        self._shown: dict[MarkdownBlock, Content] = {}
        """Each block's text with the words marked: what a block goes back to when the cursor leaves."""
        self.links: list[RenderedLink] = []
        """The links as rendered, in reading order (those inside tables are left to the mouse)."""
        self.shown = True
        """The first blocks of the text last given are mounted (False while they are being made)."""
        self._text_given = 0
        self.page = Page()
        """The page of the text last given (not mounted until that text is shown)."""
        """How many texts were given: an update still adding the pieces of an older one stops."""

    def _parser(self) -> MarkdownIt:
        """One parser for every document: making one compiles its rules (tens of milliseconds)."""
        if self._markdown_it is None:
            self._markdown_it = MarkdownIt("gfm-like")
            self._markdown_it.inline.ruler.before("link", "wikilink", _wikilink_rule(lambda: self._labels))
        return self._markdown_it

    def update(self, markdown: str) -> AwaitComplete:
        """Show `markdown` on a new page: its first piece at once, the old page hidden meanwhile
        and taken down after the new is on show, the other pieces after."""
        self._theme = self.app.theme
        self._markdown, self._table_of_contents = markdown, None
        self.shown = False
        self._text_given += 1
        given = self._text_given

        async def update_in_pieces() -> None:
            async with self.lock:
                old_pages = list(self.query_children(Page))
                page = self.page = Page()
                for number, piece in enumerate(pieces(markdown)):
                    if given != self._text_given:
                        return  # another text was given meanwhile: the rest of this one is not wanted
                    blocks = list(self._parse_markdown(self._parser().parse(piece)))
                    if number:
                        await page.mount_all(blocks)
                        await asyncio.sleep(0)
                        continue
                    with self.app.batch_update():
                        for old in old_pages:
                            old.display = False  # one page, one change: not a restyle of its every block
                        await self.mount(page)
                        await page.mount_all(blocks)
                    self.shown = True
                    await asyncio.sleep(0)  # the first screen paints before anything else
                    for old in old_pages:
                        children = list(old.children)
                        for at in range(0, len(children), TAKEN_DOWN):
                            await old.remove_children(children[at : at + TAKEN_DOWN])
                            await asyncio.sleep(0)
                        await old.remove()
            self.post_message(Markdown.TableOfContentsUpdated(self, self.table_of_contents).set_sender(self))

        return AwaitComplete(update_in_pieces())

    def show(self, text: str, labels: Mapping[str, str], words: tuple[str, ...] = ()) -> AwaitComplete:
        """Render `text`, `[[...]]` shown by `labels` (by address), `words` marked; the cursor resets."""
        self._labels, self._words = labels, words
        self.cursor = -1
        update = self.update(text)

        async def then() -> None:
            await update
            if self.is_attached:
                self._rendered = {block: block.content for block in self.page.query(MarkdownBlock)
                                  if isinstance(block.content, Content) and block.content.plain}
                self._lay_over()

        return AwaitComplete(then())

    def mark(self, words: tuple[str, ...]) -> None:
        """Mark other words in what is shown (the same document, another search)."""
        if words != self._words:
            self._words = words
            self._lay_over()

    def _lay_over(self) -> None:
        """Collect the rendered links and mark the words, from each block's text as rendered."""
        self.links, self._shown = [], {}
        for block, content in self._rendered.items():
            for span in content.spans:
                action = getattr(span.style, "meta", {}).get("@click") if not isinstance(span.style, str) else None
                if action:
                    self.links.append(RenderedLink(block, span.start, span.end, action))
            marked = mark_words(content, self._words)
            self._shown[block] = marked
            block.update(marked)
        self.cursor = min(self.cursor, len(self.links) - 1)
        self._draw_cursor(-1, self.cursor)

    def watch_cursor(self, old: int, new: int) -> None:
        self._draw_cursor(old, new)

    def _draw_cursor(self, old: int, new: int) -> None:
        if 0 <= old < len(self.links):
            block = self.links[old].block
            if block in self._shown:
                block.update(self._shown[block])
        if 0 <= new < len(self.links):
            link = self.links[new]
            if link.block in self._shown:
                link.block.update(self._shown[link.block].stylize(CURSOR_STYLE, link.start, link.end))
            link.block.scroll_visible(animate=False)

    def move_cursor(self, step: int) -> bool:
        """Put the cursor on the next (`step` 1) or previous (-1) link, round the ends; False when
        the body has no link."""
        if not self.links:
            return False
        if self.cursor < 0:
            self.cursor = 0 if step > 0 else len(self.links) - 1
        else:
            self.cursor = (self.cursor + step) % len(self.links)
        return True

    async def follow(self) -> bool:
        """Act on the link under the cursor as a click would; False when the cursor is on none."""
        if not 0 <= self.cursor < len(self.links):
            return False
        link = self.links[self.cursor]
        await link.block.run_action(link.action)
        return True
