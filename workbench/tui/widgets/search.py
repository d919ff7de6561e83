"""The search pane: a query box over the list of documents, filtered live as the person types.

The ranking and the query language (`type:decision tag:money`, quoted phrases, typos, half-typed
words) are the core's `Vault.search`; the pane is given it as `searcher` and only shows what it
answers. Each query runs in a worker thread (exclusive, so a newer query cancels an older one) and
only the first `SHOWN` hits are listed, which keeps typing instant on ten thousand documents.
A blank query lists every valid document, the most recently updated first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Protocol

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ...core.model import QueryError
from ...core.search import Hit
from ..text import clean, status_style

__all__ = ["SearchInput", "SearchPane", "Searcher", "query_problem", "result_prompt", "Titled"]

SHOWN = 500

Searcher = Callable[[str, int], list[Hit]]
"""`Vault.search`: a query and a limit in, hits best first out."""


def query_problem(message: str) -> Option:
    """A query that cannot match as written (`type:decsion`, a date half typed), said in the list
    where its results would be: a notification at every keystroke would shout at the typing."""
    return Option(Content.styled(clean(message), "$text-warning"), disabled=True)


class Titled(Protocol):
    title: str
    type: str
    status: str


class SearchInput(Input):
    """The query box. A `/` typed into the empty box is the search key pressed out of habit (the box
    already has the focus at start), so it is swallowed rather than typed."""

    async def _on_key(self, event: events.Key) -> None:
        # Textual calls each class's `_on_key` in turn; preventing the default skips Input's.
        if event.character == "/" and not self.value:
            event.stop()
            event.prevent_default()


def result_prompt(doc: Titled) -> Content:
    """Two lines: the title, then its type and status (the status in its colour)."""
    return Content.assemble(
        clean(doc.title),
        "\n",
        (f"{doc.type} · ", "$text-muted"),
        (clean(doc.status), status_style(doc.status)),
    )


class SearchPane(Vertical):
    """Type to filter; `enter` or a click opens the highlighted document (posts `Goto`)."""

    DEFAULT_CSS = """
    SearchPane {
        height: 1fr;
        & > Input { margin: 0; }
        & > OptionList {
            height: 1fr;
            scrollbar-gutter: stable;  /* options are measured once: a late scrollbar would clip them */
            border: round $border-blurred;
            border-title-color: $text-muted;
            border-subtitle-color: $text-muted;
            &:focus { border: round $border; }
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "focus_results", "Leave search", show=False, id="search.leave",
                tooltip="Move the focus from the search box to the results, where single-key commands act"),
        Binding("down", "focus_results", "Results", show=False, id="search.results",
                tooltip="Move from the search box into the list of results"),
    ]

    searcher: reactive[Searcher | None] = reactive(None, always_update=True)
    """How to search the vault (set again whenever the vault changed); None while it loads."""
    total: reactive[int] = reactive(0)
    """How many documents a blank query could list, for the `shown/total` count."""

    class Goto(Message):
        """The person asked to open a document."""

        def __init__(self, doc_id: str) -> None:
            super().__init__()
            self.doc_id = doc_id

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown_query: str | None = None
        """The query the listed results answer (None before the first results)."""
        self._open_when_shown = False
        """Enter was pressed before the results for the current query arrived."""

    def compose(self) -> ComposeResult:
        yield SearchInput(placeholder="Search  (/)  type:decision tag:money", id="search-input")
        results = OptionList(id="results")
        results.border_title = "Documents"
        yield results

    @property
    def query_text(self) -> str:
        return self.query_one(Input).value

    def on_mount(self) -> None:
        self.query_one(OptionList).loading = self.searcher is None

    def watch_searcher(self, searcher: Searcher | None) -> None:
        """The vault loaded or changed: search again; the box stays usable meanwhile."""
        if not self.is_mounted:
            return
        self.query_one(OptionList).loading = searcher is None
        if searcher is not None:
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
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, query, matches, total)

    def _show(self, query: str, matches: list[Hit], total: int) -> None:
        """List the matches; the best is highlighted unless the same query is merely refreshed."""
        if query != self.query_text:
            return  # a newer query is on its way
        results = self.query_one(OptionList)
        keep = results.highlighted_option.id if results.highlighted_option and query == self._shown_query else None
        self._shown_query = query
        results.set_options(Option(result_prompt(doc), id=doc.id) for doc in matches[:SHOWN])
        results.border_subtitle = f"first {SHOWN}" if len(matches) > SHOWN else f"{len(matches)}/{max(total, 0)}"
        if matches:
            ids = [doc.id for doc in matches[:SHOWN]]
            results.highlighted = ids.index(keep) if keep in ids else 0
        if self._open_when_shown:
            self._open_when_shown = False
            self._open_highlighted()

    def _show_problem(self, query: str, message: str) -> None:
        if query != self.query_text:
            return
        self._shown_query = query
        results = self.query_one(OptionList)
        results.set_options([query_problem(message)])
        results.border_subtitle = "0"
        self._open_when_shown = False

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

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Goto(event.option.id))

    def focus_input(self) -> None:
        self.query_one(Input).focus()

    def action_focus_results(self) -> None:
        self.query_one(OptionList).focus()
