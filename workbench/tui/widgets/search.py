"""The search pane: a query box over the list of documents, filtered live as the person types.

The ranking and the query language (`type:decision tag:money`, quoted phrases, typos, half-typed
words) are the core's `Vault.search`; the pane is given it as `searcher` and only shows what it
answers. Each query runs in a worker thread (exclusive, so a newer query cancels an older one) and
only the first `SHOWN` hits are listed, which keeps typing instant on ten thousand documents:
as many as fill the pane first, the rest once those are on screen (laying out all of them delayed
the first titles). A blank query lists every valid document, the most recently updated first.

A title alone does not tell documents apart (a Dendron vault has four notes titled "Lookup"), so
each hit also shows its id, and, once words are typed, the words around what matched in its text
(the core's `Vault.snippets`, the same the CLI prints under each hit), for the first `EXPLAINED`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar, Protocol

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ...core import QueryError
from ..first_page import KEPT
from ..text import clean, status_style

if TYPE_CHECKING:
    from ...core import Hit

__all__ = [
    "SearchInput",
    "SearchPane",
    "Searcher",
    "Snippets",
    "fold_snippet",
    "invalid_prompt",
    "query_problem",
    "result_prompt",
    "shorten_snippet",
    "Titled",
]

SHOWN = 200
"""Hits listed: a person refines the query rather than scroll further, and each listed hit is laid
out before the list first paints (500 took a quarter of a second at start on 10,000 documents)."""
EXPLAINED = 50
"""Hits given the words around their match: more than a screenful, and cheap to find (one FTS query)."""

Searcher = Callable[[str, int], "list[Hit]"]
"""`Vault.search`: a query and a limit in, hits best first out."""
Snippets = Callable[[str, "list[Hit]"], dict[str, str]]
"""`Vault.snippets`: {hit id: the words around what the query matched}, matches between \x02 and \x03."""


def query_problem(message: str) -> Option:
    """A query that cannot match as written (`type:decsion`, a date half typed), said in the list
    where its results would be: a notification at every keystroke would shout at the typing."""
    return Option(Content.styled(clean(message), "$text-warning"), disabled=True)


class Titled(Protocol):
    """What a listed document shows: a hit, or a title kept from the last launch."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def status(self) -> str: ...


class SearchInput(Input):
    """The query box. A `/` typed into the empty box is the search key pressed twice out of habit, so
    it is swallowed rather than typed. While typing, `?` and `q` are letters: the footer shows the
    keys that still ask for help and quit (these bindings come first in the focus chain, so the
    footer lists them first)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "f1",
            "app.show_keys",
            "Keys",
            key_display="F1",
            id="search.keys",
            tooltip="List every key and what it does (? is a letter in the search box)",
        ),
        # A priority binding, like the app's own ctrl+q, which would otherwise replace it in the footer.
        Binding(
            "ctrl+q",
            "app.quit",
            "Quit",
            key_display="^q",
            priority=True,
            id="search.quit",
            tooltip="Leave the workbench (q is a letter in the search box)",
        ),
    ]

    async def _on_key(self, event: events.Key) -> None:
        # Textual calls each class's `_on_key` in turn; preventing the default skips Input's.
        if event.character == "/" and not self.value:
            event.stop()
            event.prevent_default()


_HEADING = re.compile(r"(^|\s)(#{1,6}|```\w*)(?=\s|$)")  # heading marks, code fences
_MARKS = re.compile(r"\*\*|\[\[|\]\]")  # strong emphasis and wiki-link brackets: the words stay
_LINK = re.compile(
    r"\[([^\]]*)\]\([^)\s\x02\x03]*(?:\)|(?=\s|$))"
)  # a Markdown link (its address perhaps cut short) whose address did not match


def shorten_snippet(snippet: str, most: int) -> str:
    """At most about `most` characters of `snippet`, keeping its first match and a few words before
    it: the narrow pane has room for two lines, and the match is what says why the hit is here.
    Heading marks, code fences, link addresses, `**` and the brackets of `[[wiki-links]]` go: they
    take the room and say nothing."""
    snippet = " ".join(_MARKS.sub("", _LINK.sub(r"\1", _HEADING.sub(r"\1", snippet))).split())
    if len(snippet) <= most:
        return snippet
    match = max(0, snippet.find("\x02"))
    start = snippet.rfind(" ", 0, max(0, match - most // 4)) + 1  # a few words before the match
    if start:
        snippet = "…" + snippet[start:].lstrip("…")
    if len(snippet) > most:
        cut = snippet.rfind(" ", 0, most)
        snippet = snippet[: cut if cut > most // 2 else most].rstrip("…") + "…"
    if snippet.count("\x02") > snippet.count("\x03"):
        snippet += "\x03"  # a match cut in half is closed
    return snippet


def fold_snippet(snippet: str, width: int) -> str:
    """`snippet` on two lines of `width`: broken at the last space that fits the first (the list
    cuts its lines rather than wrap them, so the break is made here, between words)."""
    seen = 0
    for n, char in enumerate(snippet):
        if char in "\x02\x03":
            continue  # the match's marks take no room on screen
        seen += 1
        if seen > width:
            cut = snippet.rfind(" ", 0, n + 1)
            return snippet if cut <= 0 else snippet[:cut] + "\n" + snippet[cut + 1 :]
    return snippet


def _snippet_content(snippet: str) -> Content:
    """The words around the match, muted, the matched words in bold (vault text: never markup)."""
    parts = snippet.replace("\x03", "\x02").split("\x02")
    return Content.assemble(
        *((clean(part), "bold $text-accent" if n % 2 else "italic $text 60%") for n, part in enumerate(parts) if part)
    )


def invalid_prompt(hit: Hit, width: int = 80) -> Content:
    """An invalid document the query also matches: its title, its id, and what makes it invalid
    in the core's words, on two lines of `width` (the list cuts what is longer)."""
    return Content.assemble(
        clean(hit.title or hit.id),
        "\n",
        (clean(hit.id), "$text 60%"),
        "\n",
        (clean(fold_snippet(f"invalid: {hit.problem or 'it fails its checks'}", width)), "$text-error"),
    )


INVALID_HEADING = "Invalid documents that match\n(is:invalid lists every one)"


def result_prompt(doc: Titled, around: str | None = None) -> Content:
    """The title; its id (what tells apart notes titled alike); its type and status (the status in
    its colour); then, when given, the words `around` what the query matched in its text. Each on
    a line of its own, which the list cuts rather than wraps: in the narrow pane of an 80-column
    terminal, wrapped runs of them blur."""
    parts: list[Content | str | tuple[str, str]] = [
        clean(doc.title),
        "\n",
        (clean(doc.id), "$text 60%"),
        "\n",
        (f"{doc.type} · ", "$text 60%"),
        (clean(doc.status), status_style(doc.status)),
    ]
    if around:
        parts += ["\n", _snippet_content(around)]
    return Content.assemble(*parts)


class SearchPane(Vertical):
    """Type to filter; `enter` or a click opens the highlighted document (posts `Goto`)."""

    DEFAULT_CSS = """
    SearchPane {
        height: 1fr;
        & > Input { margin: 0; }
        & > OptionList {
            height: 1fr;
            scrollbar-gutter: stable;  /* options are measured once: a late scrollbar would clip them */
            scrollbar-size-vertical: 1;  /* a column more for ids, in the narrow pane */
            border: round $border-blurred;
            border-title-color: $text-muted;
            border-subtitle-color: $text-muted;
            &:focus { border: round $border; }
            /* Each hit's line is cut with an ellipsis, never wrapped: an id broken in two reads as
               two words, and a wrapped title pushes the next hits off the pane. */
            text-wrap: nowrap;
            text-overflow: ellipsis;
            padding: 0 0 0 1;  /* a column more for ids */
            &.-message { text-wrap: wrap; }  /* why nothing is listed: every word of it */
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "focus_results",
            "Results",
            key_display="esc",
            id="search.leave",
            tooltip="Move the focus from the search box to the results, where single-key commands act",
        ),
        Binding(
            "down",
            "focus_results",
            "Results",
            show=False,
            id="search.results",
            tooltip="Move from the search box into the list of results",
        ),
    ]

    searcher: reactive[Searcher | None] = reactive(None, always_update=True)
    """How to search the vault (set again whenever the vault changed); None while it loads."""
    snippets: Snippets | None = None
    """How to find the words around each hit's match; None shows hits without them."""
    total: reactive[int] = reactive(0)
    """How many documents a blank query could list, for the `shown/total` count."""

    class Goto(Message):
        """The person asked to open a document."""

        def __init__(self, doc_id: str) -> None:
            super().__init__()
            self.doc_id = doc_id

    class Listed(Message):
        """Results are on show (the screen waits for the first before its slower work)."""

    class NothingOpened(Message):
        """`enter` found nothing to open (no match, or a query that cannot match as written)."""

    def __init__(self, *, id: str | None = None, kept: Sequence[Titled] = ()) -> None:
        super().__init__(id=id)
        self._shown_query: str | None = None
        """The query the listed results answer (None before the first results)."""
        self._open_when_shown = False
        """Enter was pressed before the results for the current query arrived."""
        self._listing = 0
        """Counts the lists put on show, so that the rest of one that was replaced is not added."""
        self._kept = kept
        """The titles kept from the last launch (`first_page.py`): on show until the vault's own."""
        self.first_page: Sequence[Titled] | None = None
        """The blank listing's first titles, as last put on show (None before one was): what the
        next launch shows first."""

    def compose(self) -> ComposeResult:
        yield SearchInput(placeholder="Search  (/)", id="search-input")
        results = OptionList(id="results")
        results.border_title = "Documents"
        yield results

    @property
    def query_text(self) -> str:
        return self.query_one(Input).value

    @property
    def typing(self) -> bool:
        """The query box has the focus (where letters are letters, not commands)."""
        return self.query_one(Input).has_focus

    def on_mount(self) -> None:
        if self.searcher is None and self._kept:
            self._show_kept()
        elif self.searcher is None:
            self._show_reading()

    def _show_kept(self) -> None:
        """The titles the vault's blank listing began with at its last launch, on show while it is
        read: in the first frame, marked as loading. The vault's own listing takes their place, the
        highlight kept on the title the person moved it to, if any."""
        results = self._replace([Option(result_prompt(doc), id=doc.id) for doc in self._kept])
        results.border_subtitle = "loading"
        results.highlighted = 0

    def _show_reading(self) -> None:
        """Said in the list rather than with a loading indicator, which would keep the focus off
        the list: the person's first keys (`?`, `q`, `/`) work while a large vault is read."""
        results = self._replace(
            [Option(Content.styled("Reading the vault…", "italic $text 60%"), disabled=True)], message=True
        )
        results.border_subtitle = "loading"

    def watch_searcher(self, searcher: Searcher | None) -> None:
        """The vault loaded or changed: search again; the box stays usable meanwhile."""
        if not self.is_mounted:
            return
        if searcher is None:
            self._show_reading()
        else:
            self._filter(searcher, self.query_text, self.total)

    @on(Input.Changed)
    def _query_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.searcher is not None:
            self._filter(self.searcher, event.value, self.total)

    @work(thread=True, exclusive=True, group="search")
    def _filter(self, searcher: Searcher, query: str, total: int) -> None:
        try:
            matches = searcher(query, SHOWN + 1)
        except QueryError as exc:
            if not get_current_worker().is_cancelled:
                self.app.call_from_thread(self._show_problem, query, str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - a query the core cannot answer is shown, not raised
            matches, total = [], -1
            self.app.call_from_thread(self.notify, str(exc), title="Search", severity="warning", markup=False)
        around = self._around(query, matches[:EXPLAINED])
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, query, matches, total, around)

    def _around(self, query: str, hits: list[Hit]) -> dict[str, str]:
        """The words around each hit's match; none for a blank query, or if they cannot be found
        (the hits are worth showing without them)."""
        if self.snippets is None or not query.strip() or not hits or get_current_worker().is_cancelled:
            return {}
        try:
            return self.snippets(query, hits)
        except Exception:  # noqa: BLE001 - an explanation missing is no reason to lose the results
            return {}

    def _show(self, query: str, matches: list[Hit], total: int, around: dict[str, str] | None = None) -> None:
        """List the matches; the best is highlighted unless the same query is merely refreshed."""
        if query != self.query_text:
            return  # a newer query is on its way
        try:
            results = self.query_one(OptionList)
        except NoMatches:
            return  # the app is closing: its answer came after the list was taken down
        keep = results.highlighted_option.id if results.highlighted_option and query == self._shown_query else None
        if self._kept:  # the titles kept from the last launch: the highlight stays where the person moved it
            self._kept = ()
            keep = results.highlighted_option.id if results.highlighted and results.highlighted_option else None
        self._shown_query = query
        around = around or {}
        line = max(20, results.scrollable_content_region.width - 1)
        most = 2 * line - 4  # about two lines of the pane

        def explained(doc_id: str) -> str | None:
            return fold_snippet(shorten_snippet(around[doc_id], most), line) if doc_id in around else None

        options = [Option(result_prompt(doc, explained(doc.id)), id=doc.id) for doc in matches[:SHOWN]]
        if not query:
            self.first_page = matches[:KEPT]
        # Invalid documents the words also match: apart, below the hits, each with its problem.
        invalid = [hit for hit in getattr(matches, "also_invalid", ()) if hit.id not in {o.id for o in options}]
        if invalid:
            if not options:
                options.append(self._said(f"No valid document matches {clean(query.strip())}"))
            options.append(self._said(INVALID_HEADING))
            options += [Option(invalid_prompt(hit, line), id=hit.id) for hit in invalid]
        # Every option is a line at least: these fill the pane. A refresh keeps its highlight, wherever it is.
        first = len(options) if keep is not None or invalid else results.scrollable_content_region.height + 1
        if not options:
            options = [
                self._said(f"No document matches {clean(query.strip())}")
                if query.strip()
                else self._said("The vault holds no document yet")
            ]
            first = 1
        self._replace(options[:first], message=not matches and not invalid)
        results.border_subtitle = f"first {SHOWN}" if len(matches) > SHOWN else f"{len(matches)}/{max(total, 0)}"
        if invalid:
            results.border_subtitle += f" · {len(invalid)} invalid"
        ids = [option.id for option in options if option.id is not None]
        if ids:
            results.highlighted = next(n for n, o in enumerate(options) if o.id == (keep if keep in ids else ids[0]))
        if self._open_when_shown:
            self._open_when_shown = False
            self._open_highlighted()
        if options[first:]:
            # After the paint, and after whatever else waits for it: the first titles come first.
            self.call_after_refresh(self.call_later, self._show_rest, self._listing, options[first:])
        else:
            self.post_message(self.Listed())

    @staticmethod
    def _said(text: str) -> Option:
        """A line of the list that is not a document: why nothing is listed, or a heading."""
        return Option(Content.styled(text, "italic $text 60%"), disabled=True)

    def _show_rest(self, listing: int, rest: list[Option]) -> None:
        if listing == self._listing:  # not replaced meanwhile
            self.query_one(OptionList).add_options(rest)
            self.post_message(self.Listed())

    def _replace(self, options: list[Option], message: bool = False) -> OptionList:
        """Put `options` on show in place of the list; a `message` (why nothing is listed) wraps."""
        self._listing += 1
        results = self.query_one(OptionList)
        results.set_class(message, "-message")
        results.set_options(options)
        return results

    def suggest(self, example: str) -> None:
        """Show `example` (a query that fits this vault) in the empty box."""
        self.query_one(SearchInput).placeholder = f"Search  (/)  {example}"

    def unavailable(self, reason: str) -> None:
        """The vault could not be read: say why where the titles would be, for as long as it lasts
        (a notification fades)."""
        self.searcher = None
        self._kept = ()
        results = self._replace([query_problem(reason)], message=True)
        results.border_subtitle = "not opened"

    def _show_problem(self, query: str, message: str) -> None:
        if query != self.query_text:
            return
        self._shown_query = query
        results = self._replace([query_problem(message)], message=True)
        results.border_subtitle = "0"
        if self._open_when_shown:
            self._open_when_shown = False
            self.post_message(self.NothingOpened())

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        """Open the best match, waiting for it if the list still shows an older query's results."""
        event.stop()
        if self._shown_query == event.value:
            self._open_highlighted()
        else:
            self._open_when_shown = True

    def _open_highlighted(self) -> None:
        option = self.query_one(OptionList).highlighted_option
        if option and option.id:
            self.post_message(self.Goto(option.id))
        else:
            self.post_message(self.NothingOpened())

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Goto(event.option.id))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`escape` and `down` leave the box: in the footer only while typing."""
        if action == "focus_results":
            return self.typing
        return True

    def focus_input(self) -> None:
        """Give the box the focus at once: `focus()` would move it only after the keys already
        queued, so the letters of a search typed in one burst after `/` acted as commands."""
        self.screen.set_focus(self.query_one(Input))

    def action_focus_results(self) -> None:
        self.query_one(OptionList).focus()
