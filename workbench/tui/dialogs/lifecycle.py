"""The lifecycle editor: which statuses the document may move to, and why the others are refused.

Refused transitions stay in the list, disabled, with `transition_refusal`'s reason under them, so a
person learns the lifecycle from the dialog itself. Tasks also get their execution state. A
document becomes superseded only by naming its successor, picked here by search (`Vault.search`,
typos forgiven). The dialog only returns the choice; planning and writing it is the screen's job.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ...core.lifecycle import transition_refusal
from ...core.model import DocType, Document, ExecutionState, Status
from ..text import clean, status_badge, status_style
from ..widgets.search import Searcher

__all__ = ["LifecycleChoice", "LifecycleDialog", "state_options", "status_options"]


REASON_WIDTH = 66


@dataclass(frozen=True)
class LifecycleChoice:
    """`field` is `status`, `execution_state` or `successor`; `value` the new value (or the successor's id)."""

    field: str
    value: str


def status_options(current: str) -> list[Option]:
    """Every status: allowed ones selectable, the current and refused ones disabled with the reason."""
    options = []
    for status in Status:
        if status == current:
            prompt = Content.assemble(status_badge(status), ("  (current)", "$text-muted"))
            options.append(Option(prompt, id=f"status:{status}", disabled=True))
            continue
        reason = transition_refusal(current, status)
        prompt = status_badge(status)
        if reason:
            # Wrapped here, not by the list, so the reason keeps its indent under the status.
            wrapped = textwrap.fill(clean(reason), REASON_WIDTH, initial_indent="  ", subsequent_indent="  ")
            prompt = Content.assemble(prompt, "\n", (wrapped, "$text-muted italic"))
        options.append(Option(prompt, id=f"status:{status}", disabled=bool(reason)))
    return options


def state_options(current: str) -> list[Option]:
    options = []
    for state in ExecutionState:
        label = Content.assemble(f"◆ {state}", ("  (current)", "$text-muted") if state == current else "")
        options.append(Option(label, id=f"execution_state:{state}", disabled=state == current))
    return options


class LifecycleDialog(ModalScreen[LifecycleChoice | None]):
    """Pick a new status (or execution state); `escape` cancels."""

    DEFAULT_CSS = """
    LifecycleDialog {
        align: center middle;
        & > #dialog {
            width: 76;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            border: thick $primary 60%;
            background: $surface;
            padding: 0 1;
        }
        & #dialog-title { text-style: bold; }
        & Label.section { color: $text-muted; padding: 1 0 0 0; }
        & OptionList { height: auto; max-height: 14; border: round $border-blurred; }
        & OptionList:focus { border: round $border; }
        & #hint { color: $text-muted; }
        & #successor-search { background: $boost; }
        & #successors.-empty { display: none; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="lifecycle.cancel", tooltip="Close the lifecycle editor without changing anything"),
    ]

    def __init__(self, document: Document, searcher: Searcher | None = None) -> None:
        super().__init__()
        self.document = document
        self.searcher = searcher
        """`Vault.search`, to pick a successor by fuzzy search; None hides that part."""

    def compose(self) -> ComposeResult:
        doc = self.document
        with VerticalScroll(id="dialog", can_focus=False):
            yield Static(Content.assemble("Lifecycle · ", clean(doc.title)), id="dialog-title")
            yield Label(Content.assemble("Status (now ", status_badge(doc.status), ")"), classes="section")
            yield OptionList(*status_options(doc.status), id="statuses")
            if doc.type == DocType.TASK:
                state = str(doc.meta.get("execution_state", ""))
                yield Label(Content.assemble("Execution state (now ", (clean(state) or "unset", "bold"), ")"), classes="section")
                yield OptionList(*state_options(state), id="states")
            if self.searcher is not None and doc.status in (Status.ACTIVE, Status.DRAFT, Status.DEPRECATED):
                yield Label("Supersede: search for the document that replaces it", classes="section")
                yield Input(placeholder="type to search; enter picks the highlighted, tab moves to the list", id="successor-search", compact=True)
                yield OptionList(id="successors", classes="-empty")
            yield Static("enter choose · tab next list · escape cancel", id="hint")
        yield Footer()

    def on_mount(self) -> None:
        statuses = self.query_one("#statuses", OptionList)
        statuses.focus()
        statuses.action_first()
        # Focusing scrolls the list into view; on a short terminal keep the title in sight instead.
        self.call_after_refresh(self.query_one("#dialog").scroll_home, animate=False)

    @on(Input.Changed, "#successor-search")
    def _successor_query(self, event: Input.Changed) -> None:
        event.stop()
        self._search(event.value)

    @work(thread=True, exclusive=True, group="successor-search")
    def _search(self, query: str) -> None:
        assert self.searcher is not None
        hits = [h for h in self.searcher(query, 9) if h.id != self.document.id][:8] if query.strip() else []
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_successors, hits)

    def _show_successors(self, hits: list) -> None:
        listing = self.query_one("#successors", OptionList)
        listing.set_class(not hits, "-empty")
        listing.set_options(
            Option(Content.assemble(("● ", status_style(h.status)), clean(h.title), (f"  {h.type} · {clean(h.id)}", "$text-muted")),
                   id=f"successor:{h.id}")
            for h in hits
        )
        if hits:
            listing.highlighted = 0

    @on(Input.Submitted, "#successor-search")
    def _successor_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        option = self.query_one("#successors", OptionList).highlighted_option
        if option is not None and option.id:
            self.dismiss(LifecycleChoice("successor", option.id.partition(":")[2]))

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        field, _, value = (event.option.id or "").partition(":")
        self.dismiss(LifecycleChoice(field, value))

    def action_cancel(self) -> None:
        self.dismiss(None)
