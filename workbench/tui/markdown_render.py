"""Markdown made into styled blocks of text, to be laid out at any width by one widget.

Textual's `Markdown` widget mounts a widget for every block (every paragraph, every list item) and
lays each out on its own: a long decision record or a Dendron changelog took seconds to open. Here
the text is parsed once by markdown-it (the `gfm-like` preset, plus an inline rule that reads
`[[wiki-links]]`) and every block becomes a `Block`: its text as `Content`, styled with the
theme's variables, and the prefix of its first line and of the lines after (a bullet, a number,
the bar of a quote, the indent of a nested list). `lay_out` wraps a block at a width with that
hanging indent, so a widget can keep the lines it drew per width and paint only those on screen.

A link carries two spans: the look of a link, and a style whose meta holds its click action and
its number in reading order (`LINK_KEY`), so the widget can find, draw and follow the link the
keyboard is on wherever the wrap put it, inside a table cell too.

`[[inner]]` becomes a link to `wiki:<inner>` shown by its label (`[[Note name|alias]]` reads
"alias", Dendron's `[[label|a.b.c]]` reads "label"); the viewer looks the address up among the
links a worker resolved. Nothing here is console markup: the text stays what the file says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.content import Content, Span
from textual.style import Style

from ..core import wikilinks
from .text import mark_words, wrap_at_joints
from .text_links import wiki_href

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = ["LINK_KEY", "Block", "Rendered", "lay_out", "link_number", "render", "slug", "warm_up"]

LINK_KEY = "body-link"
"""The key, in a link's style meta, of the link's number in reading order."""

HEADING_STYLES = {
    1: "bold underline $text-primary",
    2: "bold $text-primary",
    3: "bold $text-secondary",
    4: "bold italic $text-secondary",
    5: "italic $text 60%",
    6: "italic $text 60%",
}
LINK_STYLE = "underline $text-accent"
INLINE_STYLES = {"em": "italic", "strong": "bold", "s": "strike"}
CODE_INLINE_STYLE = "$text-secondary on $secondary 12%"
HTML_STYLE = "$text 60%"
IMAGE_STYLE = "italic $text 60%"
BULLETS = ("• ", "◦ ", "▪ ")
QUOTE = Content.styled("▌ ", "$text 60%")
CODE_BAR = Content.styled("│ ", "$text 60%")
RULE_STYLE = "$text 60%"
BORDER_STYLE = "$text 60%"
TABLE_HEADER_STYLE = "bold"
_TASK = re.compile(r"\[([ xX])\] ")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Block:
    """One block of the text: a paragraph, a heading, a list item's paragraph, a code block, a
    rule, or a table (`rows`, the header first); laid out by `lay_out`."""

    content: Content = field(default_factory=Content)
    first: Content = field(default_factory=Content)
    """Drawn before the block's first line: a bullet, a number, the bar of a quote."""
    rest: Content = field(default_factory=Content)
    """Drawn before each line after the first: as wide as `first`, so the text hangs."""
    gap: bool = True
    """A blank line before it (not between the items of a tight list)."""
    between: Content = field(default_factory=Content)
    """What that blank line shows: the bars of the quotes this block shares with the one before."""
    code: bool = False
    """Broken after a space or a joint of a token (`-`, `/`, `.`) rather than at words alone, and
    never marked."""
    rule: bool = False
    """A horizontal rule, drawn across the width."""
    heading: int = 0
    """The heading's level, 0 for any other block."""
    rows: tuple[tuple[Content, ...], ...] = ()
    """A table's cells, row by row, the header row first."""
    aligns: tuple[str, ...] = ()
    """A table's columns' alignment: "left", "center" or "right"."""


@dataclass
class Rendered:
    """What `render` made of a text: its blocks in order, and the address of each link."""

    blocks: list[Block]
    hrefs: list[str]
    """The address of each link, in reading order: the link's number indexes it."""


def slug(title: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def link_number(style: object) -> int | None:
    """The number of the link a span's style belongs to, or None for any other span."""
    return style.meta.get(LINK_KEY) if isinstance(style, Style) else None


# -- parsing -------------------------------------------------------------------------------------

_parser: MarkdownIt | None = None
_WARM_UP_TEXT = "# a\n\nhttps://example.com www.example.com a@example.com\n\n*b* **c** ~~d~~ `e` [f](g.md) [[h]] <i>\n\n- j\n1. k\n> l\n\n```\nm\n```\n\n| n |\n|---|\n| o |\n"


def _markdown_it() -> MarkdownIt:
    """One parser for every text: making one compiles its rules (tens of milliseconds), and
    importing markdown-it is left until a document is first opened."""
    global _parser
    if _parser is None:
        from markdown_it import MarkdownIt

        _parser = MarkdownIt("gfm-like")
        _parser.inline.ruler.before("link", "wikilink", _wikilink_rule)
    return _parser


_warmed = False


def warm_up() -> None:
    """Make the parser (its rules are compiled on first use) and load the highlighter for the
    languages most fences name, ahead of the first document; safe to run in a thread, and done
    once (two threads may both do it: the same modules, the same parser)."""
    global _warmed
    if _warmed:
        return
    render(_WARM_UP_TEXT, {})
    from pygments.lexers import get_lexer_by_name
    from textual.highlight import highlight  # noqa: F401

    for language in ("text", "python", "yaml", "json", "bash", "markdown"):
        get_lexer_by_name(language)
    _warmed = True


def _wikilink_rule(state: Any, silent: bool) -> bool:
    """An inline rule: `[[inner]]` (or the embed `![[inner]]`) becomes a link to `wiki:<inner>`,
    shown by its label among the labels of the text being rendered (in the parse's `env`)."""
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
        state.push("text", "", 0).content = state.env.get("labels", {}).get(wiki_href(inner), inner)
        state.push("link_close", "a", -1)
    state.pos += len(whole)
    return True


def render(markdown: str, labels: Mapping[str, str], first_link: int = 0) -> Rendered:
    """`markdown` as blocks; `[[...]]` shown by `labels` (by address); links numbered from
    `first_link` (a later piece of a text goes on numbering where the one before stopped)."""
    tokens = _markdown_it().parse(markdown, {"labels": labels})
    return _Builder(first_link).build(tokens)


@dataclass
class _Frame:
    """A container a block sits in: a list item or a quote, with what it draws before lines."""

    first: Content
    rest: Content
    used: bool = False


class _Builder:
    """Walks markdown-it's tokens, keeping the stack of containers the current block is in."""

    def __init__(self, first_link: int) -> None:
        self.blocks: list[Block] = []
        self.hrefs: list[str] = []
        self.first_link = first_link
        self.frames: list[_Frame] = []
        self.lists: list[list[Any]] = []
        """The lists the current block is in, innermost last: [ordered, the next item's number]."""
        self.list_opens = False
        """A list opens at the margin: its first item stands a blank line apart from what is before."""

    def build(self, tokens: Sequence[Token]) -> Rendered:
        index = 0
        while index < len(tokens):
            index = self.token(tokens, index)
        return Rendered(self.blocks, self.hrefs)

    def prefixes(self) -> tuple[Content, Content]:
        first = Content("").join(frame.rest if frame.used else frame.first for frame in self.frames)
        rest = Content("").join(frame.rest for frame in self.frames)
        for frame in self.frames:
            frame.used = True
        return first, rest

    def add(self, content: Content, gap: bool = True, **kind: Any) -> None:
        first, rest = self.prefixes()
        before = self.blocks[-1].rest.plain if self.blocks else ""
        shared = next(
            (n for n, (a, b) in enumerate(zip(before, rest.plain)) if a != b), min(len(before), len(rest.plain))
        )
        between = rest[:shared].rstrip()
        self.blocks.append(Block(content, first, rest, gap or self.list_opens, between, **kind))
        self.list_opens = False

    def token(self, tokens: Sequence[Token], index: int) -> int:
        """Handle the token at `index`; the index of the next token to handle."""
        token = tokens[index]
        kind = token.type
        if kind == "heading_open":
            level = int(token.tag[1:]) if token.tag[1:].isdigit() else 1
            content = self.inline(tokens[index + 1]).stylize_before(HEADING_STYLES.get(level, "bold"))
            self.add(content, heading=level)
            return index + 3
        if kind == "paragraph_open":
            content = self.inline(tokens[index + 1])
            self.add(self.task(content), gap=not token.hidden or not self.frames_fresh())
            return index + 3
        if kind in ("bullet_list_open", "ordered_list_open"):
            start = int(token.attrs.get("start", 1) or 1) if kind == "ordered_list_open" else 0
            self.list_opens = self.list_opens or not self.lists
            self.lists.append([kind == "ordered_list_open", start])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self.lists.pop()
        elif kind == "list_item_open":
            ordered, number = self.lists[-1]
            if ordered:
                marker = f"{token.info or number}{token.markup or '.'} "
                self.lists[-1][1] = int(token.info) + 1 if token.info.isdigit() else number + 1
                bullet = Content.styled(marker, "$text 60%")
            else:
                bullet = Content.styled(BULLETS[(len(self.lists) - 1) % len(BULLETS)], "$text 60%")
            self.frames.append(_Frame(bullet, Content(" " * bullet.cell_length)))
        elif kind == "list_item_close":
            frame = self.frames.pop()
            if not frame.used:  # an empty item still shows its bullet
                self.frames.append(frame)
                self.add(Content(""), gap=False)
                self.frames.pop()
        elif kind == "blockquote_open":
            self.frames.append(_Frame(QUOTE, QUOTE))
        elif kind == "blockquote_close":
            self.frames.pop()
        elif kind in ("fence", "code_block"):
            language = token.info.split()[0] if token.info.strip() else "text"
            self.add(_code(token.content.rstrip("\n"), language), code=True)
        elif kind == "html_block":
            self.add(Content.styled(token.content.rstrip("\n"), HTML_STYLE), code=True)
        elif kind == "hr":
            self.add(Content(""), rule=True)
        elif kind == "table_open":
            return self.table(tokens, index)
        elif kind == "inline":  # loose inline text outside a paragraph: show it all the same
            self.add(self.inline(token))
        return index + 1

    def frames_fresh(self) -> bool:
        """The innermost list item has drawn nothing yet: a tight item's first paragraph."""
        return bool(self.frames) and not self.frames[-1].used

    def task(self, content: Content) -> Content:
        """A task list item's `[ ]` / `[x]` drawn as a box, when the paragraph opens a list item."""
        if not self.frames_fresh() or not self.lists:
            return content
        match = _TASK.match(content.plain)
        if match is None:
            return content
        box = Content.styled("☑ " if match.group(1) != " " else "☐ ", "$text-accent")
        return box + content[match.end() :]

    def table(self, tokens: Sequence[Token], index: int) -> int:
        rows: list[tuple[Content, ...]] = []
        aligns: list[str] = []
        row: list[Content] = []
        while index < len(tokens) and tokens[index].type != "table_close":
            token = tokens[index]
            if token.type == "tr_open":
                row = []
            elif token.type == "tr_close":
                rows.append(tuple(row))
            elif token.type in ("th_open", "td_open"):
                if not rows:
                    style = str(token.attrs.get("style", ""))
                    aligns.append(style.split(":", 1)[1] if ":" in style else "left")
                cell = self.inline(tokens[index + 1])
                row.append(cell.stylize_before(TABLE_HEADER_STYLE) if token.type == "th_open" else cell)
                index += 1
            index += 1
        self.add(Content(""), rows=tuple(rows), aligns=tuple(aligns))
        return index + 1

    def inline(self, token: Token) -> Content:
        """An inline token's children as one `Content`: emphasis, code, links, images' alt text."""
        parts: list[str] = []
        spans: list[Span] = []
        opened: list[tuple[list[Any], int]] = []
        position = 0

        def add(text: str) -> None:
            nonlocal position
            parts.append(text)
            position += len(text)

        children = token.children or []
        for index, child in enumerate(children):
            kind = child.type
            if kind == "link_open" and child.markup == "linkify" and not _autolinked(children[index + 1 : index + 2]):
                opened.append(([], position))  # plain text, as GitHub shows it: its close pops nothing
                continue
            if kind == "text":
                add(_SPACES.sub(" ", child.content))
            elif kind == "softbreak":
                add(" ")
            elif kind == "hardbreak":
                add("\n")
            elif kind == "code_inline":
                spans.append(Span(position, position + len(child.content), CODE_INLINE_STYLE))
                add(child.content)
            elif kind in ("html_inline", "html_block"):
                spans.append(Span(position, position + len(child.content), HTML_STYLE))
                add(child.content)
            elif kind == "image":
                alt = child.content or "".join(grandchild.content for grandchild in child.children or ())
                shown = f"[{alt or 'image'}]"
                spans.append(Span(position, position + len(shown), IMAGE_STYLE))
                add(shown)
            elif kind == "link_open":
                number = self.first_link + len(self.hrefs)
                href = str(child.attrs.get("href", ""))
                self.hrefs.append(href)
                meta = Style.from_meta({"@click": f"link({href!r})", LINK_KEY: number})
                opened.append(([LINK_STYLE, meta], position))
            elif kind.endswith("_open") and kind[:-5] in INLINE_STYLES:
                opened.append(([INLINE_STYLES[kind[:-5]]], position))
            elif kind.endswith("_close") and opened:
                styles, start = opened.pop()
                spans.extend(Span(start, position, style) for style in styles)
        return Content("".join(parts), spans=spans)


def _autolinked(following: list[Token]) -> bool:
    """Whether the text linkify found is one GitHub links too: a URL with its scheme, one
    starting `www.`, or an email address. A bare domain (`GOV.UK`, `README.md`) is prose."""
    text = following[0].content if following and following[0].type == "text" else ""
    return "://" in text or text.lower().startswith("www.") or ("@" in text and "/" not in text)


def _code(code: str, language: str) -> Content:
    from textual.highlight import highlight

    return highlight(code, language=language).rstrip("\n") if code else Content("")


# -- laying out ----------------------------------------------------------------------------------


def lay_out(block: Block, width: int, words: Iterable[str] = (), gap: bool = True) -> list[Content]:
    """`block` as lines at most `width` cells wide, its prefixes drawn, `words` marked, after a
    blank line when the block asks for one and `gap` allows it (not before the text's first)."""
    lines = _lay_out(block, width, tuple(words))
    if gap and block.gap:
        return [block.between, *lines]
    return lines


def _lay_out(block: Block, width: int, words: tuple[str, ...]) -> list[Content]:
    room = max(width - block.first.cell_length - (CODE_BAR.cell_length if block.code else 0), 1)
    if block.rule:
        return [block.first + Content.styled("─" * room, RULE_STYLE)]
    if block.rows:
        lines = _table(block, room, words)
    else:
        content = block.content if block.code else mark_words(block.content, words)
        lines = []
        for line in content.split("\n", allow_blank=True):
            if block.code:
                line = line.expand_tabs(4)
                lines += wrap_at_joints(line, room) if line.cell_length > room else [line]
            else:
                lines += line.wrap(room) or [Content("")]
    if block.code:
        return [block.first + CODE_BAR + line for line in (lines[:1] or [Content("")])] + [
            block.rest + CODE_BAR + line for line in lines[1:]
        ]
    return [(block.rest if n else block.first) + line for n, line in enumerate(lines or [Content("")])]


def _table(block: Block, room: int, words: tuple[str, ...]) -> list[Content]:
    """A table as an aligned grid: columns as wide as their widest cell when they fit, else the
    widest share what is left and their cells wrap."""
    columns = max(len(row) for row in block.rows)
    rows = [
        tuple(mark_words(cell, words) for cell in row) + (Content(""),) * (columns - len(row)) for row in block.rows
    ]
    natural = [max(max((row[c].cell_length for row in rows), default=0), 1) for c in range(columns)]
    widths = _share(natural, max(room - 3 * (columns - 1), columns))
    separator = Content.styled(" │ ", BORDER_STYLE)
    lines: list[Content] = []
    for number, row in enumerate(rows):
        cells = [cell.wrap(width) or [Content("")] for cell, width in zip(row, widths)]
        for y in range(max(len(cell) for cell in cells)):
            parts = []
            for c, cell in enumerate(cells):
                line = cell[y] if y < len(cell) else Content("")
                parts.append(_align(line, widths[c], block.aligns[c] if c < len(block.aligns) else "left"))
            lines.append(separator.join(parts).rstrip())
        if number == 0:
            lines.append(Content.styled("─┼─".join("─" * width for width in widths), BORDER_STYLE))
    return lines


def _share(natural: list[int], room: int) -> list[int]:
    """Column widths that fit `room`: a column narrower than its fair share keeps its width."""
    widths = list(natural)
    if sum(widths) <= room:
        return widths
    left, open_columns = room, list(range(len(natural)))
    while open_columns:
        fair = max(left // len(open_columns), 1)
        narrow = [c for c in open_columns if natural[c] <= fair]
        if not narrow:
            for n, c in enumerate(open_columns):
                widths[c] = fair + (1 if n < left - fair * len(open_columns) else 0)
            break
        for c in narrow:
            widths[c] = natural[c]
            left -= natural[c]
            open_columns.remove(c)
    return widths


def _align(line: Content, width: int, align: str) -> Content:
    line = line.rstrip()
    if align == "right":
        return line.right(width)
    if align == "center":
        return line.center(width)
    return line.pad_right(width - line.cell_length) if line.cell_length < width else line
