"""The lifecycle editor: which statuses the document may move to, and why the others are refused.

Refused transitions stay in the list, disabled, each with a short reason at its line's end, and the
statuses the document may go to are said above the list, so a person learns the lifecycle from the
dialog itself; every status is one line, so the whole list shows even at 80x24. Tasks also get
their execution state. A document becomes superseded only by naming its successor, picked here by
search (`Vault.search`, typos forgiven). The dialog only returns the choice; planning and writing
it is the screen's job.

A vault in another format than Memory Core may lack some of this (a Dendron note has no status):
the screen says which parts its flavour can write, and the dialog offers only those.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option, OptionDoesNotExist

from ...core import DocType, Document, ExecutionState, Status, allowed_transitions, transition_refusal
from ..text import clean, status_badge
from ..widgets.document_picker import DocumentPicker
from ..widgets.search import Searcher

FIELDS = {"statuses": "status", "states": "execution_state"}
"""Each list of the dialog and the field its choice sets."""

__all__ = ["LifecycleChoice", "LifecycleDialog", "state_options", "status_heading", "status_options"]


@dataclass(frozen=True)
class LifecycleChoice:
    """`field` is `status`, `execution_state` or `successor`; `value` the new value (or the successor's id)."""

    field: str
    value: str


def status_heading(current: str) -> Content:
    """`Status (now ● active; may go to deprecated, archived)`: the rule once, above the list."""
    allowed = allowed_transitions(current)
    may = ", ".join(allowed) if allowed else "nowhere by a plain change"
    return Content.assemble("Status (now ", status_badge(current), ("; may go to " + may, "$text 60%"), ")")


def status_options(current: str, words: Mapping[str, str] | None = None) -> list[Option]:
    """Every status on one line: allowed ones selectable, refused ones disabled with why in a few
    words (`transition_refusal` has the long form). The current one is selectable too, so the
    cursor can start on it; choosing it changes nothing. `words`: what the vault's format writes
    for a status, when it is another word (an ADR's "Rejected")."""
    options = []
    for status in Status:
        written = (words or {}).get(status)
        badge = Content.assemble(status_badge(status), (f" · written “{written}”", "$text 60%") if written else "")
        refused = status != current and transition_refusal(current, status) is not None
        if status == current:
            prompt = Content.assemble(badge, ("  (current)", "$text 60%"))
        elif refused:
            why = "only by naming its successor" if status == Status.SUPERSEDED else f"not from {current}"
            prompt = Content.assemble(badge, (f"  {why}", "$text 60% italic"))
        else:
            prompt = badge
        options.append(Option(prompt, id=f"status:{status}", disabled=refused))
    return options


def state_options(current: str) -> list[Option]:
    options = []
    for state in ExecutionState:
        label = Content.assemble(f"◆ {state}", ("  (current)", "$text 60%") if state == current else "")
        options.append(Option(label, id=f"execution_state:{state}"))
    return options


class LifecycleDialog(ModalScreen[LifecycleChoice | None]):
    """Pick a new status (or execution state); `escape` cancels."""

    DEFAULT_CLASSES = "wb-dialog"

    DEFAULT_CSS = """
    LifecycleDialog {
        & > #dialog {
            width: 76;
            height: auto;
            max-height: 100%;
        }
        & #dialog-title { text-style: bold; dock: top; }  /* stays while a short terminal scrolls the rest */
        & Label.section { color: $text-muted; padding: 1 0 0 0; }
        & OptionList { height: auto; max-height: 14; border: round $border-blurred; }
        & OptionList:focus { border: round $border; }
        & #successor > OptionList { max-height: 8; }
        /* The search box is framed as a box, so that its placeholder does not read as help text. */
        & #successor > Input { border: round $border-blurred; }
        & #successor > Input:focus { border: round $border; }
        & #hint { color: $text-muted; }
        /* On a short terminal every part keeps a fixed share, so typing a search (more hits)
           scrolls inside its list and never pushes the dialog's top out of sight. */
        &.-short {
            & Label.section { padding: 0; }
            & OptionList { max-height: 8; }
            & #successor > OptionList { max-height: 6; }
            & #hint { display: none; }
        }
    }
    """

    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "cancel",
            "Cancel",
            id="lifecycle.cancel",
            tooltip="Close the lifecycle editor without changing anything",
        ),
    ]

    def __init__(
        self,
        document: Document,
        searcher: Searcher | None = None,
        statuses: bool = True,
        states: bool = True,
        words: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.document = document
        self.words = words
        """What the vault's format writes for each status, where it writes another word."""
        self.searcher = searcher
        """`Vault.search`, to pick a successor by fuzzy search; None hides that part."""
        self.statuses = statuses
        self.states = states
        """Whether the vault's format can write a status / a task's execution state."""

    def compose(self) -> ComposeResult:
        doc = self.document
        with VerticalScroll(id="dialog", can_focus=False):
            yield Static(Content.assemble("Lifecycle · ", clean(doc.title)), id="dialog-title")
            if self.statuses:
                yield Label(status_heading(doc.status), classes="section")
                yield OptionList(*status_options(doc.status, self.words), id="statuses")
            if doc.type == DocType.TASK and self.states:
                state = str(doc.meta.get("execution_state", ""))
                yield Label(
                    Content.assemble("Execution state (now ", (clean(state) or "unset", "bold"), ")"), classes="section"
                )
                yield OptionList(*state_options(state), id="states")
            if self.searcher is not None and doc.status in (Status.ACTIVE, Status.DRAFT, Status.DEPRECATED):
                yield Label("Supersede: search for the document that replaces it", classes="section")
                yield DocumentPicker(
                    self.searcher,
                    exclude=[doc.id],
                    id="successor",
                    placeholder="type words of its title; down moves to the documents found",
                )
            yield Static("enter choose · tab next list · escape cancel", id="hint")
        yield Footer()

    def on_mount(self) -> None:
        for box in self.query("#successor > Input").results(Input):
            box.compact = False  # framed (app-wide the picker's box is one bare line)
        lists = self.query(OptionList).filter("#statuses, #states")
        if lists:
            lists.first().focus()
            for options in lists:  # the cursor starts where the document is; one step moves it
                field = FIELDS[options.id or ""]
                try:
                    options.highlighted = options.get_option_index(f"{field}:{self._now(field)}")
                except OptionDoesNotExist:  # a status that is none of the statuses
                    options.action_first()
        elif self.query("#successor"):
            self.query_one("#successor", DocumentPicker).focus_input()
        # Focusing scrolls the list into view; on a short terminal keep the title in sight instead.
        self.call_after_refresh(self.query_one("#dialog").scroll_home, animate=False)

    @on(DocumentPicker.Picked, "#successor")
    def _successor_picked(self, event: DocumentPicker.Picked) -> None:
        event.stop()
        self.dismiss(LifecycleChoice("successor", event.doc_id))

    def _now(self, field: str) -> str:
        """The document's present value of `field` (`status` or `execution_state`)."""
        return self.document.status if field == "status" else str(self.document.meta.get(field, ""))

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        field, _, value = (event.option.id or "").partition(":")
        if value == self._now(field):  # said above the dialog, which stays open for another choice
            self.notify(
                f"{field.replace('_', ' ').capitalize()} is {value} already: nothing to change. Pick another, or escape.",
                timeout=6,
                markup=False,
            )
            return
        self.dismiss(LifecycleChoice(field, value))

    def action_cancel(self) -> None:
        self.dismiss(None)
