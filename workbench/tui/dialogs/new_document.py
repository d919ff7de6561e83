"""The write gate wizard (`n`): describe new knowledge, see where it may already belong, choose.

Step one is the draft: type, title, tags, links (each target picked by search) and the body in a
TextArea. Step two asks the core's gate (`Vault.gate`) for the 1-3 canonical candidates and shows
them with their reasons; the person merges into one, supersedes one (a decision is never
duplicated), or creates a new document. The dialog returns that choice; the main screen previews
the diff and writes nothing unless confirmed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import (
    Button,
    Footer,
    Input,
    Label,
    OptionList,
    Select,
    Static,
    TextArea,
)
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ...core.gate import Candidate, Draft
from ...core.model import DocType, LinkType
from ..text import clean, status_style
from ..widgets.search import Searcher

__all__ = ["GateChoice", "NewDocumentDialog", "candidate_prompt"]

LINK_TYPES = [str(t) for t in LinkType if t != LinkType.SUPERSEDES]


@dataclass(frozen=True)
class GateChoice:
    """`action` is `merge` (into `target`), `supersede` (`target`) or `create`."""

    action: str
    draft: Draft
    target: str | None = None


def candidate_prompt(candidate: Candidate) -> Content:
    reasons = [Content.styled(f"    · {clean(reason)}", "$text-muted") for reason in candidate.reasons]
    head = Content.assemble(
        (clean(candidate.title), "bold"), "  ",
        (f"{candidate.type} · ", "$text-muted"), (clean(candidate.status), status_style(candidate.status)),
        (f"  score {candidate.score:.2f}", "$text-muted"), "\n",
        (f"  {clean(candidate.id)}  →  {candidate.action}", "$text-accent"),
    )
    return Content("\n").join([head, *reasons])


class NewDocumentDialog(ModalScreen[GateChoice | None]):
    """Two steps in one dialog: the draft, then the candidates (`ctrl+s` moves on)."""

    DEFAULT_CSS = """
    NewDocumentDialog {
        align: center middle;
        & > #dialog {
            width: 110;
            max-width: 100%;
            height: 95%;
            border: thick $primary 60%;
            background: $surface;
            padding: 0 1;
        }
        & Label { color: $text-muted; padding: 1 0 0 0; }
        & Input, & Select { background: $boost; }
        & #link-row { height: auto; }
        & #link-type { width: 24; }
        & #link-search { width: 1fr; }
        & #link-hits { height: auto; max-height: 6; border: round $border-blurred; }
        & #link-hits.-empty { display: none; }
        & #links-chosen { color: $text; }
        & TextArea { height: 10; }
        & .buttons { height: auto; align-horizontal: right; padding: 1 0 0 0; }
        & Button { margin: 0 0 0 2; }
        & #candidates { display: none; }
        & #candidate-list { height: 1fr; border: round $border-blurred; }
        & #candidate-list:focus { border: round $border; }
        &.-candidates {
            & #form { display: none; }
            & #candidates { display: block; }
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "candidates", "Candidates", id="gate.candidates", tooltip="Ask the write gate where this knowledge may already belong"),
        Binding("m", "choose('merge')", "Merge", id="gate.merge", tooltip="Merge the draft into the highlighted candidate"),
        Binding("s", "choose('supersede')", "Supersede", id="gate.supersede", tooltip="Create the draft as the successor of the highlighted decision"),
        Binding("c", "choose('create')", "Create", id="gate.create", tooltip="Create a new document, linked into the graph"),
        Binding("escape", "back", "Back / cancel", id="gate.cancel", tooltip="From the candidates, back to the draft; from the draft, cancel"),
    ]

    def __init__(self, searcher: Searcher, gate: Callable[[Draft], list[Candidate]]) -> None:
        super().__init__()
        self.searcher = searcher
        self.gate = gate
        self.links: list[tuple[str, str]] = []
        self.draft: Draft | None = None
        self.candidates: list[Candidate] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "New knowledge · the write gate"
            with VerticalScroll(id="form"):
                yield Label("Type")
                yield Select([(str(t), str(t)) for t in DocType], value="note", allow_blank=False, id="type", compact=True)
                yield Label("Title")
                yield Input(id="title", placeholder="What is it?", compact=True)
                yield Label("Tags (comma-separated)")
                yield Input(id="tags", placeholder="billing, money", compact=True)
                yield Label("Links (a new document must link into the graph): pick a type, search a target, enter adds it")
                yield Static(Content.styled("none yet", "$text-muted"), id="links-chosen")
                with Horizontal(id="link-row"):
                    yield Select([(t, t) for t in LINK_TYPES], value="related_to", allow_blank=False, id="link-type", compact=True)
                    yield Input(id="link-search", placeholder="search for the target…", compact=True)
                yield OptionList(id="link-hits", classes="-empty")
                yield Label("Body")
                yield TextArea(id="body", language="markdown", soft_wrap=True)
                with Horizontal(classes="buttons"):
                    yield Button("Remove last link", id="unlink", compact=True)
                    yield Button("Find candidates  ctrl+s", id="find", variant="primary", compact=True)
                    yield Button("Cancel", id="cancel", compact=True)
            with Vertical(id="candidates"):
                yield Static(id="draft-summary")
                yield OptionList(id="candidate-list")
                with Horizontal(classes="buttons"):
                    yield Button("Merge into it  m", id="merge", variant="primary", compact=True)
                    yield Button("Supersede it  s", id="supersede", variant="warning", compact=True)
                    yield Button("Create new  c", id="create", variant="success", compact=True)
                    yield Button("Back", id="back", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#title", Input).focus()

    # -- links: pick targets by search -------------------------------------------------------

    @on(Input.Changed, "#link-search")
    def _link_query(self, event: Input.Changed) -> None:
        event.stop()
        self._search_targets(event.value)

    @work(thread=True, exclusive=True, group="gate-search")
    def _search_targets(self, query: str) -> None:
        hits = self.searcher(query, 8) if query.strip() else []
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_targets, hits)

    def _show_targets(self, hits: list) -> None:
        listing = self.query_one("#link-hits", OptionList)
        listing.set_class(not hits, "-empty")
        listing.set_options(Option(Content.assemble(clean(h.title), (f"  {h.type} · {clean(h.id)}", "$text-muted")), id=h.id) for h in hits)
        if hits:
            listing.highlighted = 0

    @on(Input.Submitted, "#link-search")
    def _link_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        option = self.query_one("#link-hits", OptionList).highlighted_option
        if option is not None and option.id:
            self._add_link(option.id)

    @on(OptionList.OptionSelected, "#link-hits")
    def _link_picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self._add_link(event.option.id)

    def _add_link(self, target: str) -> None:
        link = (str(self.query_one("#link-type", Select).value), target)
        if link not in self.links:
            self.links.append(link)
        self._show_links()
        search = self.query_one("#link-search", Input)
        search.value = ""
        search.focus()

    def _show_links(self) -> None:
        lines = [Content.assemble((kind, f"bold $link-{kind}"), " → ", clean(target)) for kind, target in self.links]
        self.query_one("#links-chosen", Static).update(Content("\n").join(lines) if lines else Content.styled("none yet", "$text-muted"))

    # -- step two: the candidates --------------------------------------------------------------

    def _make_draft(self) -> Draft:
        tags = [t.strip() for t in self.query_one("#tags", Input).value.split(",") if t.strip()]
        return Draft(
            type=str(self.query_one("#type", Select).value),
            title=self.query_one("#title", Input).value.strip(),
            tags=tags,
            links=list(self.links),
            body=self.query_one("#body", TextArea).text,
        )

    def action_candidates(self) -> None:
        draft = self._make_draft()
        if not draft.title:
            self.notify("A new document needs a title", severity="warning")
            self.query_one("#title", Input).focus()
            return
        self.draft = draft
        self._ask_gate(draft)

    @work(thread=True, exclusive=True, group="gate")
    def _ask_gate(self, draft: Draft) -> None:
        try:
            candidates = self.gate(draft)
        except Exception as exc:  # noqa: BLE001 - a refusal is said, not raised
            self.app.call_from_thread(self.notify, str(exc), title="The gate refused the draft", severity="error", markup=False)
            return
        self.app.call_from_thread(self._show_candidates, draft, candidates)

    def _show_candidates(self, draft: Draft, candidates: list[Candidate]) -> None:
        self.candidates = candidates
        self.add_class("-candidates")
        self.refresh_bindings()
        self.query_one("#draft-summary", Static).update(Content.assemble(
            ("New ", "$text-muted"), (draft.type, "bold"), ": ", (clean(draft.title), "bold"),
            ("\nWhere it may already belong, best first. A decision is never duplicated: supersede it instead.", "$text-muted"),
        ))
        listing = self.query_one("#candidate-list", OptionList)
        if candidates:
            listing.set_options(Option(candidate_prompt(c), id=c.id) for c in candidates)
            listing.highlighted = 0
        else:
            listing.set_options([Option(Content.styled("No canonical candidate: create it.", "$text-success"), disabled=True)])
        listing.focus()
        self._update_buttons()

    @property
    def selected(self) -> Candidate | None:
        index = self.query_one("#candidate-list", OptionList).highlighted
        return self.candidates[index] if self.candidates and index is not None else None

    @on(OptionList.OptionHighlighted, "#candidate-list")
    def _candidate_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._update_buttons()

    def _update_buttons(self) -> None:
        selected = self.selected
        self.query_one("#merge", Button).disabled = selected is None or selected.action != "merge"
        self.query_one("#supersede", Button).disabled = selected is None or selected.action != "supersede"

    @on(OptionList.OptionSelected, "#candidate-list")
    def _candidate_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        selected = self.selected
        if selected is not None and self.draft is not None:
            self.dismiss(GateChoice(selected.action, self.draft, selected.id))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button = event.button.id
        if button == "find":
            self.action_candidates()
        elif button == "unlink":
            if self.links:
                self.links.pop()
                self._show_links()
        elif button == "cancel":
            self.dismiss(None)
        elif button == "back":
            self.action_back()
        elif button == "create" and self.draft is not None:
            self.dismiss(GateChoice("create", self.draft))
        elif button in ("merge", "supersede") and self.draft is not None and self.selected is not None:
            self.dismiss(GateChoice(button, self.draft, self.selected.id))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The choice keys act only on the candidates step (in the draft they are letters)."""
        if action == "choose":
            return self.has_class("-candidates")
        return True

    def action_choose(self, action: str) -> None:
        selected = self.selected
        if self.draft is None:
            return
        if action == "create":
            self.dismiss(GateChoice("create", self.draft))
        elif selected is not None and selected.action == action:
            self.dismiss(GateChoice(action, self.draft, selected.id))
        else:
            self.notify(f"The highlighted candidate cannot be {'merged into' if action == 'merge' else 'superseded'}", severity="warning")

    def action_back(self) -> None:
        if self.has_class("-candidates"):
            self.remove_class("-candidates")
            self.refresh_bindings()
            self.query_one("#title", Input).focus()
        else:
            self.dismiss(None)
