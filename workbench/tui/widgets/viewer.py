"""The document viewer: heading, banners, problems, properties, then the body.

The body is rendered Markdown (`Body`: one widget; code fences highlighted by pygments,
`[[wiki-links]]` shown as links); `raw` swaps all of it for the file's source, the frontmatter
highlighted as YAML and the body as Markdown, never wrapped (a wrapped YAML line would read as a
key of its own), scrolled sideways instead. The viewer is given a `DocumentView` and never reads the vault itself: a link
is followed by looking up what the worker resolved for it, and posting `Goto`.

`]` and `[` walk the body's links, `enter` follows the one the cursor is on, as a click does. The
words of the search that opened the document are marked (`marked`). A document whose file was
deleted on disk stays on show under a banner that says so (`gone`), so the person sees what was
there; the screen refuses to change it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from ...core import Severity
from ..text import clean, mark_words
from ..text_links import is_url, markdown_href
from .body import Body
from .properties import Properties

if TYPE_CHECKING:
    from ..reading import DocumentView

__all__ = ["DocumentViewer", "source_content", "split_source"]

PLACEHOLDER = "No document open.\n\nPress / to search, then enter to open the highlighted document."


def split_source(source: str) -> tuple[str, str]:
    """The frontmatter block (with its `---` fences) and the body, so each can be highlighted apart."""
    lines = source.splitlines(keepends=True)
    if lines and lines[0].rstrip("\r\n") == "---":
        for index, line in enumerate(lines[1:], start=1):
            if line.rstrip("\r\n") in ("---", "..."):
                return "".join(lines[: index + 1]), "".join(lines[index + 1 :])
    return "", source


def source_content(source: str) -> Content:
    """The file's text, highlighted (YAML then Markdown), control characters made visible."""
    from textual.highlight import highlight  # with pygments: when the source is first shown, not at start

    frontmatter, body = split_source(clean(source))
    parts = [highlight(frontmatter, language="yaml")] if frontmatter else []
    parts.append(highlight(body, language="markdown"))
    return Content("\n").join(parts)


class DocumentViewer(VerticalScroll, can_focus=True):
    """Shows one document; `view` is what to show, `raw` whether to show its source instead."""

    DEFAULT_CSS = """
    DocumentViewer {
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        & > #crumbs { color: $text-muted; height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
        & > #doc-title { text-style: bold; color: $text-primary; }
        & > #doc-path { color: $text-muted; padding: 0 0 1 0; }
        & > #banner {
            display: none;
            background: $status-superseded 20%;
            color: $text;
            border-left: thick $status-superseded;
            padding: 0 1;
            margin: 0 0 1 0;
        }
        & > #gone {
            display: none;
            background: $error 20%;
            color: $text;
            border-left: thick $error;
            padding: 0 1;
            margin: 0 0 1 0;
        }
        & > #credential {
            display: none;
            background: $error 20%;
            color: $text;
            border-left: thick $error;
            padding: 0 1;
            margin: 0 0 1 0;
        }
        & > #doc-problems {
            display: none;
            color: $text-warning;
            padding: 0 0 1 0;
        }
        /* The source wraps: prose read sideways, a screen at a time, was the raw view at 80 columns. */
        & > #source { display: none; width: 100%; }
        & > #placeholder { display: none; color: $text-muted; padding: 1 0; }
        & > Body { padding: 0; margin: 0; background: transparent; }
        &.-raw {
            & > #source { display: block; }
            & > Properties, & > Body { display: none; }
        }
        &.-empty > * { display: none; }
        &.-empty > #placeholder { display: block; }
        &:focus { background-tint: $foreground 3%; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "right_square_bracket",
            "next_link",
            "Next link",
            key_display="]",
            id="viewer.next_link",
            tooltip="Move to the next link in the text (then enter follows it)",
        ),
        Binding(
            "left_square_bracket",
            "previous_link",
            "Previous link",
            key_display="[",
            show=False,
            id="viewer.previous_link",
            tooltip="Move to the previous link in the text",
        ),
        Binding(
            "enter",
            "follow_link",
            "Follow",
            id="viewer.follow_link",
            tooltip="Open the document the highlighted link names",
        ),
    ]

    view: reactive[DocumentView | None] = reactive(None, always_update=True)
    """The document on show, with what was read alongside it."""
    crumbs: reactive[tuple[str, ...]] = reactive(tuple)
    """The titles of the path walked to this document (breadcrumbs), the current one last."""
    raw: reactive[bool] = reactive(False)
    """Show the file's source instead of the rendered document."""
    marked: reactive[tuple[str, ...]] = reactive(tuple)
    """Words to mark where they occur (those of the search that opened the document)."""
    gone: reactive[bool] = reactive(False)
    """The document's file was deleted on disk: what is shown is the last version read."""

    class Goto(Message):
        """A link in the body names a document to open."""

        def __init__(self, doc_id: str) -> None:
            super().__init__()
            self.doc_id = doc_id

    def compose(self) -> ComposeResult:
        yield Static(PLACEHOLDER, id="placeholder")
        yield Static(id="crumbs")
        yield Static(id="doc-title")
        yield Static(id="doc-path")
        yield Static(id="gone")
        yield Static(id="banner")
        yield Static(id="credential")
        yield Static(id="doc-problems")
        yield Properties()
        yield Body(id="body")
        yield Static(id="source")

    def __init__(self, *, id: str | None = None) -> None:
        # Empty from the start, not from its mount: a class added then styled the pane again.
        super().__init__(id=id, classes="-empty")

    @property
    def shown(self) -> bool:
        """The first screen of the document's text is on show (a long body's rest may still be laid out)."""
        return self.query_one(Body).shown

    def watch_view(self, old: DocumentView | None, view: DocumentView | None) -> None:
        self.set_class(view is None, "-empty")
        if view is None:
            return
        doc = view.document
        self.query_one("#doc-title", Static).update(mark_words(Content(clean(doc.title)), self.marked))
        self.query_one("#doc-path", Static).update(Content(clean(doc.path)))
        # Parts are shown and hidden one by one, never by a class on the viewer: a class there
        # restyles everything inside it, every block of a long body (a second on a changelog).
        self.query_one("#banner").display = bool(view.successors)
        self.query_one("#banner", Static).update(self._banner(view))
        problems = [
            Content.styled(
                f"{'✖' if p.severity == Severity.ERROR else '⚠'} {clean(p.message)}",
                "$text-error" if p.severity == Severity.ERROR else "$text-warning",
            )
            for p in view.problems
        ]
        self.query_one("#doc-problems").display = bool(problems) and not self.raw
        secrets = [p for p in view.problems if p.code == "credential"]
        self.query_one("#credential").display = bool(secrets)
        self.query_one("#credential", Static).update(self._credential_warning(secrets))
        self.query_one("#doc-problems", Static).update(Content("\n").join(problems))
        self.query_one(Properties).meta = {**_reading(doc), **doc.meta}
        fresh = old is None or old.document.id != doc.id  # the same document re-read keeps its place
        labels = {href: link.label for href, link in view.links.items()}
        self.query_one(Body).show(clean(doc.body), labels, self.marked)
        self._show_source()
        if fresh:
            self.scroll_home(animate=False)

    def watch_crumbs(self, crumbs: tuple[str, ...]) -> None:
        parts = [Content(clean(title)) for title in crumbs[:-1]]
        self.query_one("#crumbs", Static).update(Content(" › ").join(parts) if parts else Content(""))

    def _show_source(self) -> None:
        """Highlight the source only while it is on show: pygments over a long file takes a while,
        and most documents are read rendered."""
        source = self.query_one("#source", Static)
        if self.raw and self.view is not None:
            source.update(mark_words(source_content(self.view.source), self.marked))
        else:
            source.update("")

    def watch_raw(self, raw: bool) -> None:
        self._show_source()
        self.set_class(raw, "-raw")
        if self.view is not None:
            self.query_one("#doc-problems").display = bool(self.view.problems) and not raw
        self.scroll_home(animate=False)  # the source and the rendered text do not line up
        self.refresh_bindings()  # no links to walk in the source

    def watch_marked(self, words: tuple[str, ...]) -> None:
        if self.view is not None:
            self.query_one(Body).mark(words)
            self.query_one("#doc-title", Static).update(mark_words(Content(clean(self.view.document.title)), words))
            self._show_source()

    def watch_gone(self, gone: bool) -> None:
        self.query_one("#gone").display = gone
        if gone and self.view is not None:
            self.query_one("#gone", Static).update(
                Content.assemble(
                    ("Deleted on disk", "bold $text-error"),
                    f": {clean(self.view.document.path)} is no longer in the vault. This is the last version read;"
                    " it cannot be changed.",
                    ("   ⌫", "bold $accent"),
                    " back",
                )
            )
            self.scroll_home(animate=False)  # the banner is at the top: news the person must see

    # -- the links in the text ----------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("next_link", "previous_link", "follow_link"):
            return self.view is not None and not self.raw
        return True

    def action_next_link(self) -> None:
        self._move(1)

    def action_previous_link(self) -> None:
        self._move(-1)

    def _move(self, step: int) -> None:
        if not self.query_one(Body).move_cursor(step):
            self.notify("This document's text has no links to follow.", title="No links", markup=False)

    async def action_follow_link(self) -> None:
        if not await self.query_one(Body).follow():
            self.notify("Press ] to move to a link in the text first.", title="No link chosen", markup=False)

    @staticmethod
    def _credential_warning(problems: list) -> Content:
        lines = ", ".join(str(p.line) for p in problems if p.line) or "?"
        return Content.assemble(
            ("⚠ This document seems to hold a credential", "bold $text-error"),
            f" (line {lines}). Every agent that reads the vault reads it too: remove it (e edits the file).",
        )

    @staticmethod
    def _banner(view: DocumentView) -> Content:
        names = [Content.styled(clean(title or f"{succ} (missing)"), "bold") for succ, title in view.successors.items()]
        return Content.assemble(
            ("Superseded by ", "bold $status-superseded"),
            Content(", ").join(names),
            ("   s", "bold $accent"),
            " open it",
        )

    @on(Body.LinkClicked)
    def _link_clicked(self, event: Body.LinkClicked) -> None:
        """A link to a document of the vault opens it; any other link says why it does not."""
        event.stop()
        href = event.href
        view = self.view
        links = view.links if view is not None else {}
        link = links.get(href) or links.get(markdown_href(href))
        if link is not None and link.target is not None:
            self.post_message(self.Goto(link.target))
        elif link is not None:
            self.notify(
                f"No document of the vault is called {clean(link.named)}",
                title="No such document",
                severity="warning",
                markup=False,
            )
        elif is_url(href):
            self.notify(clean(href), title="A link out of the vault, not opened", markup=False)
        elif href.startswith("#") and self.query_one(Body).goto_anchor(href[1:]):
            return
        else:
            self.notify(f"{clean(href)} is not a document of the vault", title="Not followed", markup=False)


def _reading(doc) -> dict[str, str]:
    """How another flavour's file is read (its type, lifecycle in the file's words, date), shown
    above its own frontmatter: a Dendron note's `updated: 1646158262629` says little by itself."""
    if doc.view is None:
        return {}
    stated = f" ({doc.stated_status})" if doc.stated_status and doc.stated_status.lower() != doc.status else ""
    # The file's own date only: its modification time is the copy's or the clone's, not the record's.
    updated = f" · updated {doc.stated_updated.isoformat()}" if doc.stated_updated else " · no date read from the file"
    return {"read as": f"{doc.type} · {doc.status}{stated}{updated}"}
