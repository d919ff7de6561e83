"""Pick one document by searching for it: a query box over a short list of hits.

Several dialogs need a document named by the person (consolidation's canonical target, the write
gate's link targets, the lifecycle editor's successor). They all use this widget: the person types,
the core's `Vault.search` answers in a thread worker (exclusive, so a newer query cancels an older
one), and `enter` or a click picks the highlighted hit. The picker only posts `Picked`; what a pick
means is the dialog's business.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ...core import Hit, QueryError
from ..text import clean, status_style
from .search import Searcher, query_problem

__all__ = ["DocumentPicker", "hit_prompt"]


def hit_prompt(hit: Hit) -> Content:
    """One line: the status dot in its colour, the title, then the type and id, muted."""
    return Content.assemble(
        ("● ", status_style(hit.status)),
        clean(hit.title),
        (f"  {hit.type} · {clean(hit.id)}", "$text 60%"),
    )


class DocumentPicker(Vertical):
    """Type to search; `enter` (or a click) picks the highlighted document and posts `Picked`."""

    DEFAULT_CSS = """
    DocumentPicker {
        height: auto;
        & > Input { background: $boost; }
        & > OptionList {
            height: auto;
            max-height: 8;
            border: round $border-blurred;
            &:focus { border: round $border; }
        }
        &.-empty > OptionList { display: none; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "down",
            "focus_hits",
            "Hits",
            show=False,
            id="picker.hits",
            tooltip="Move from the search box into the list of documents found",
        ),
    ]

    searcher: reactive[Searcher | None] = reactive(None)
    """How to search the vault (`Vault.search`); None offers nothing."""
    limit: reactive[int] = reactive(8)
    """How many hits are listed at most."""

    class Picked(Message):
        """The person picked a document."""

        def __init__(self, picker: DocumentPicker, doc_id: str) -> None:
            super().__init__()
            self.picker = picker
            self.doc_id = doc_id

        @property
        def control(self) -> DocumentPicker:
            return self.picker

    def __init__(
        self,
        searcher: Searcher | None = None,
        *,
        limit: int = 8,
        exclude: Iterable[str] = (),
        placeholder: str = "search for a document…",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.add_class("-empty")
        self.set_reactive(DocumentPicker.searcher, searcher)
        self.set_reactive(DocumentPicker.limit, limit)
        self.exclude = frozenset(exclude)
        """Ids never offered (the lifecycle's own document cannot be its successor)."""
        self.accept: Callable[[Hit], bool] | None = None
        """Which documents may be picked at all (a merge's target is no decision); None: any."""
        self.placeholder = placeholder
        self._shown_query: str | None = None
        """The query the listed hits answer (None before the first answer)."""
        self._pick_when_shown = False
        """Enter was pressed before the hits for the current query arrived."""

    def compose(self) -> ComposeResult:
        yield Input(placeholder=self.placeholder, compact=True)
        yield OptionList()

    @property
    def query_text(self) -> str:
        return self.query_one(Input).value

    @property
    def highlighted(self) -> str | None:
        """The id of the highlighted hit, if any."""
        option = self.query_one(OptionList).highlighted_option
        return option.id if option is not None else None

    def focus_input(self) -> None:
        self.query_one(Input).focus()

    def clear(self) -> None:
        """Empty the box and the list, ready for the next search."""
        self.query_one(Input).value = ""
        self._show("", [])

    def watch_searcher(self, searcher: Searcher | None) -> None:
        """The vault changed: whatever is typed is searched again."""
        if self.is_mounted and self.query_text.strip():
            self._search(self.query_text)

    def action_focus_hits(self) -> None:
        if not self.has_class("-empty"):
            self.query_one(OptionList).focus()

    @on(Input.Changed)
    def _query_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._search(event.value)

    @work(thread=True, exclusive=True, group="document-picker")
    def _search(self, query: str) -> None:
        searcher, limit = self.searcher, self.limit
        hits: list[Hit] = []
        problem: str | None = None
        if searcher is not None and query.strip():
            try:
                accept = self.accept or (lambda hit: True)
                found = searcher(query, 4 * limit + len(self.exclude) if self.accept else limit + len(self.exclude))
                hits = [h for h in found if h.id not in self.exclude and accept(h)][:limit]
            except QueryError as exc:
                problem = str(exc)
            except Exception as exc:  # noqa: BLE001 - a query the core cannot answer is said, not raised
                self.app.call_from_thread(self.notify, str(exc), title="Search", severity="warning", markup=False)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, query, hits, problem)

    def _show(self, query: str, hits: list[Hit], problem: str | None = None) -> None:
        if query != self.query_text:
            return  # a newer query is on its way
        self._shown_query = query
        listing = self.query_one(OptionList)
        self.set_class(not hits and problem is None, "-empty")
        listing.set_options([query_problem(problem)] if problem else (Option(hit_prompt(h), id=h.id) for h in hits))
        if hits:
            listing.highlighted = 0
            # In a dialog that scrolls (a short terminal), the hits just found come into sight.
            self.call_after_refresh(listing.scroll_visible, animate=False)
        if self._pick_when_shown:
            self._pick_when_shown = False
            self._pick_highlighted()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        """Pick the best hit, waiting for it if the list still answers an older query."""
        event.stop()
        if self._shown_query == event.value:
            self._pick_highlighted()
        elif event.value.strip():
            self._pick_when_shown = True

    @on(OptionList.OptionHighlighted)
    def _hit_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()

    @on(OptionList.OptionSelected)
    def _hit_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Picked(self, event.option.id))

    def _pick_highlighted(self) -> None:
        doc_id = self.highlighted
        if doc_id:
            self.post_message(self.Picked(self, doc_id))
