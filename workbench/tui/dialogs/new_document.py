"""The write gate wizard (`n`): describe new knowledge, see where it may already belong, choose.

Step one is the draft: type, title, tags, links (each target picked by search) and the body in a
TextArea. Step two asks the core's gate (`Vault.candidates`) for up to ten canonical candidates,
ranked, each with its excerpt, lists three at a time (`]` pages on, `[` back: three is what a
person weighs at once) and shows the highlighted one side by side with the draft: its reasons, then
its excerpt (the status as the file states it, its date or number, the passage that matched the
draft, how it opens), so the person compares before choosing: merge into it, supersede it (a
decision is never duplicated), create a new document, or go back. Each candidate's file is read
too (`read_document`), so a change made to it meanwhile is caught before anything is written. Below 100 columns the two panes stack.
The dialog returns that choice; the main screen previews the diff and writes nothing unless
confirmed.

For a new decision the gate ranks the decisions it likely replaces before everything else, whatever
the others' scores (`gate.LIKELY_PREDECESSOR`): the list says so under a heading of its own, so the
scores shown read in order within each group.

A choice the core refuses (a new document that links nowhere) is refused here, by its dry run
(`check`), while the draft is still open: the person reads why, in the dialog's own terms, and
adds what is missing without typing anything twice. Cancelling the preview reopens the dialog on
the same draft (`draft`), at its candidates.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.highlight import highlight
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

from ...core import Candidate, DocType, Document, Draft, LIKELY_PREDECESSOR, LinkType
from ..text import clean, status_badge, status_style, value_text
from ..widgets.document_picker import DocumentPicker
from ..widgets.search import Searcher
from .discard import DiscardDialog

__all__ = [
    "CANDIDATES",
    "PAGE",
    "GateChoice",
    "NewDocumentDialog",
    "candidate_group",
    "candidate_prompt",
    "candidate_text",
    "draft_text",
    "in_dialog_terms",
]

CANDIDATES = 10
"""The most candidates the gate is asked for: the seeds' read budget (at most ten documents)."""

PAGE = 3
"""Candidates listed at once: what a person weighs beside the draft before paging on."""

GROUPS = {True: "Decisions it likely replaces", False: "Others alike"}
"""The list's headings when a new decision's candidates fall in both of the gate's groups."""


def candidate_group(candidate: Candidate) -> bool:
    """Whether the gate ranks the candidate among the decisions a new one likely replaces (listed
    before every other candidate, whatever their scores)."""
    return candidate.action == "supersede" and candidate.score >= LIKELY_PREDECESSOR


LINK_TYPES = [str(t) for t in LinkType if t != LinkType.SUPERSEDES]

DIALOG_TERMS = {
    "(--link TYPE:TARGET)": "(under Links in the draft: pick a type, search a target, enter adds it)",
    "--supersede writes": "Superseding writes",
}
"""The core's refusals name the command line's flags; in the dialog the same thing is done otherwise."""


def in_dialog_terms(reason: str) -> str:
    """A refusal of the core, said the way the dialog does it (no command-line flags)."""
    for flag, words in DIALOG_TERMS.items():
        reason = reason.replace(flag, words)
    return reason


@dataclass(frozen=True)
class GateChoice:
    """`action` is `merge` (into `target`), `supersede` (`target`) or `create`."""

    action: str
    draft: Draft
    target: str | None = None
    read: Mapping[str, bytes] = field(default_factory=dict)
    """The target's file as it was shown beside the draft (path → bytes)."""


ReadDocument = Callable[[str], tuple[Document, bytes]]
"""A document by id, parsed and as the bytes of its file (`Vault.get` and `Vault.source`)."""


def candidate_prompt(rank: int, candidate: Candidate, width: int | None = None) -> Content:
    """One line of the ranked list: rank, score, title, type and status; the title shortened so
    the line fits `width` (a wrapped line pushed the third candidate out of sight at 80 columns).
    What the gate suggests (merge or supersede) heads the candidate's pane beside the draft."""
    head = Content.assemble((f"{rank:>2}  ", "$text 60%"), (f"{candidate.score:.2f}  ", "$text-accent"))
    tail = Content.assemble(
        "  ", (f"{candidate.type} · ", "$text 60%"), (clean(candidate.status), status_style(candidate.status))
    )
    title = Content.styled(clean(candidate.title), "bold")
    if width is not None:
        title = title.truncate(max(8, width - head.cell_length - tail.cell_length), ellipsis=True)
    return Content.assemble(head, title, tail)


def _document_text(title: str, kind: Content, tags: list[str], links: list[tuple[str, str]], body: str) -> Content:
    lines = [Content.styled(clean(title) or "(no title)", "bold"), kind]
    if tags:
        lines.append(Content.assemble(("tags ", "$text 60%"), clean(", ".join(tags))))
    lines.extend(
        Content.assemble(
            (clean(kind_), f"$link-{kind_}" if kind_ in set(LinkType) else "$text-warning"), " → ", clean(target)
        )
        for kind_, target in links
    )
    text = Content("\n").join(lines)
    if body.strip():
        text = Content.assemble(text, "\n\n", highlight(clean(body.strip("\n")), language="markdown"))
    return text


def draft_text(draft: Draft) -> Content:
    """The draft as the person wrote it, laid out like a candidate so the two read side by side."""
    return _document_text(
        draft.title,
        Content.assemble((f"{draft.type} · ", "$text 60%"), ("new", "$text-success")),
        draft.tags,
        draft.links,
        draft.body,
    )


def candidate_text(candidate: Candidate, document: Document | None) -> Content:
    """Why the gate offers the candidate, then its excerpt when the gate gave one (the status as
    the file states it, its date or number, the passage that matched the draft, the opening of its
    body), else its whole text (or just the reasons if it cannot be read)."""
    verb = "Merge the draft into it" if candidate.action == "merge" else "Supersede it: a decision is never duplicated"
    why = [Content.styled(f"· {clean(reason)}", "$text 60%") for reason in candidate.reasons]
    head = Content("\n").join([Content.styled(f"{verb} (score {candidate.score:.2f})", "$text-accent"), *why])
    excerpt = candidate.excerpt
    if document is None and excerpt is None:
        return Content.assemble(head, "\n\n", Content.styled(f"{clean(candidate.id)} could not be read", "$text-error"))
    links = [
        (str(l.get("type")), value_text(l.get("target")))
        for l in (document.meta.get("links") if document is not None else None) or []
        if isinstance(l, dict)
    ]
    tags = list(document.tags) if document is not None else []
    if excerpt is None:
        assert document is not None
        kind = Content.assemble(
            (f"{document.type} · ", "$text 60%"),
            status_badge(document.status),
            (f"  {clean(document.id)}", "$text 60%"),
        )
        return Content.assemble(head, "\n\n", _document_text(document.title, kind, tags, links, document.body))
    stated = excerpt.status if excerpt.status and excerpt.status.lower() != candidate.status else ""
    kind = Content.assemble(
        (f"{candidate.type} · ", "$text 60%"),
        status_badge(candidate.status),
        (f" “{clean(stated)}”" if stated else "", "$text 60%"),
        (f" · {excerpt.date}" if excerpt.date else "", "$text 60%"),
        (f" · No. {excerpt.number}" if excerpt.number is not None else "", "$text 60%"),
        (f"  {clean(candidate.id)}", "$text 60%"),
    )
    text = _document_text(excerpt.title, kind, tags, links, "")
    if excerpt.passage:
        text = Content.assemble(
            text,
            "\n\n",
            Content.styled("Where it matches the draft", "bold $text 60%"),
            "\n",
            Content.styled(clean(excerpt.passage), "italic"),
        )
    opening = excerpt.opening.strip("\n")
    if opening:
        rest = excerpt.characters - len(excerpt.opening)
        more = f"\n… {rest:,} more characters" if excerpt.opening_cut and rest > 0 else ""
        text = Content.assemble(
            text,
            "\n\n",
            Content.styled("How it opens", "bold $text 60%"),
            "\n",
            highlight(clean(opening), language="markdown"),
            Content.styled(more, "$text 60%"),
        )
    return Content.assemble(head, "\n\n", text)


class NewDocumentDialog(ModalScreen[GateChoice | None]):
    """Two steps in one dialog: the draft, then the candidates beside it (`ctrl+s` moves on)."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]

    DEFAULT_CLASSES = "wb-dialog"

    DEFAULT_CSS = """
    NewDocumentDialog {
        & > #dialog {
            width: 110;
            height: 95%;
        }
        & Label { color: $text-muted; padding: 1 0 0 0; }
        & Input, & Select { background: $boost; }
        /* The field being typed in stands out in every theme, not only by a cursor. */
        & Input:focus, & Select:focus > SelectCurrent, & TextArea:focus { background: $accent 30%; }
        & Input:focus { text-style: bold; }
        & #link-row { height: auto; }
        & #link-type { width: 24; }
        & #link-picker { width: 1fr; }
        & #link-picker > OptionList { max-height: 6; }
        & #links-chosen { color: $text; }
        & TextArea { height: 10; }
        & .buttons { height: auto; align-horizontal: right; padding: 1 0 0 0; }
        & Button { margin: 0 0 0 2; }
        & #candidates { display: none; }
        & #candidate-list {
            height: auto;
            max-height: 8;
            border: round $border-blurred;
            border-title-color: $text-muted;
            border-subtitle-color: $text-muted;
        }
        & #links-label { width: 1fr; }  /* wrapped, never cut at the dialog's edge */
        & #compare { height: 1fr; }
        & .side {
            width: 1fr;
            height: 1fr;
            border: round $border-blurred;
            border-title-color: $text-muted;
            padding: 0 1;
        }
        & #candidate-list:focus, & .side:focus { border: round $border; }
        &.-candidates {
            & #form { display: none; }
            & #candidates { display: block; }
        }
        &.-narrow {
            & #compare { layout: vertical; }
            & #candidates .buttons { padding: 0; }
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+s",
            "candidates",
            "Candidates",
            id="gate.candidates",
            tooltip="Ask the write gate where this knowledge may already belong",
        ),
        Binding(
            "m", "choose('merge')", "Merge", id="gate.merge", tooltip="Merge the draft into the highlighted candidate"
        ),
        Binding(
            "s",
            "choose('supersede')",
            "Supersede",
            id="gate.supersede",
            tooltip="Create the draft as the successor of the highlighted decision",
        ),
        Binding(
            "c", "choose('create')", "Create", id="gate.create", tooltip="Create a new document, linked into the graph"
        ),
        Binding(
            "right_square_bracket",
            "page(1)",
            "More",
            id="gate.more",
            tooltip=f"The next {PAGE} candidates, in the gate's order",
        ),
        Binding(
            "left_square_bracket",
            "page(-1)",
            "Earlier",
            show=False,  # the list's subtitle says it; the footer keeps room for `escape` at 80 columns
            id="gate.earlier",
            tooltip=f"The {PAGE} candidates before these",
        ),
        Binding(
            "escape",
            "back",
            "Back / cancel",
            id="gate.cancel",
            tooltip="From the candidates, back to the draft; from the draft, cancel",
        ),
    ]

    def __init__(
        self,
        searcher: Searcher,
        gate: Callable[[Draft], list[Candidate]],
        read_document: ReadDocument | None = None,
        check: Callable[[GateChoice], object] | None = None,
        draft: Draft | None = None,
    ) -> None:
        super().__init__()
        self.check = check
        """The choice's dry run (raises the core's refusal); None dismisses unchecked."""
        self.start = draft
        """A draft to open on, at its candidates (a cancelled preview came back here)."""
        self.searcher = searcher
        self.gate = gate
        self.read_document = read_document
        """Reads each candidate to show it beside the draft; None shows only the reasons."""
        self.links: list[tuple[str, str]] = []
        self.draft: Draft | None = None
        self.candidates: list[Candidate] = []
        """Every candidate the gate offered, best first (`PAGE` of them are listed at once)."""
        self.page = 0
        """Which `PAGE` of the candidates is listed."""
        self.texts: dict[str, tuple[Document, bytes]] = {}
        """Each candidate as it was read for showing, by id."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "New knowledge · the write gate"
            with VerticalScroll(id="form"):
                yield Label("Type")
                yield Select(
                    [(str(t), str(t)) for t in DocType], value="note", allow_blank=False, id="type", compact=True
                )
                yield Label("Title")
                yield Input(id="title", placeholder="What is it?", compact=True)
                yield Label("Tags (comma-separated)")
                yield Input(id="tags", placeholder="none yet (e.g. billing, money)", compact=True)
                yield Label(
                    "Links (a new document must link into the graph): pick a type, search a target, enter adds it",
                    id="links-label",
                )
                yield Static(Content.styled("none yet", "$text 60%"), id="links-chosen")
                with Horizontal(id="link-row"):
                    yield Select(
                        [(t, t) for t in LINK_TYPES],
                        value="related_to",
                        allow_blank=False,
                        id="link-type",
                        compact=True,
                    )
                    yield DocumentPicker(self.searcher, placeholder="search for the target…", id="link-picker")
                yield Label("Body")
                yield TextArea(id="body", language="markdown", soft_wrap=True)
                with Horizontal(classes="buttons"):
                    yield Button("Remove last link", id="unlink", compact=True)
                    yield Button("Find candidates  ctrl+s", id="find", variant="primary", compact=True)
                    yield Button("Cancel", id="cancel", compact=True)
            with Vertical(id="candidates"):
                yield Static(id="draft-summary")
                yield OptionList(id="candidate-list")
                with Horizontal(id="compare"):
                    with VerticalScroll(id="draft-side", classes="side") as draft_side:
                        draft_side.border_title = "Your draft"
                        yield Static(id="draft-text")
                    with VerticalScroll(id="candidate-side", classes="side"):
                        yield Static(id="candidate-text")
                with Horizontal(classes="buttons"):
                    yield Button("Merge into it  m", id="merge", variant="primary", compact=True)
                    yield Button("Supersede it  s", id="supersede", variant="warning", compact=True)
                    yield Button("Create new  c", id="create", variant="success", compact=True)
                    yield Button("Back", id="back", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#title", Input).focus()
        if self.start is not None:
            self._fill(self.start)
            self.action_candidates()

    def _fill(self, draft: Draft) -> None:
        self.query_one("#type", Select).value = draft.type
        self.query_one("#title", Input).value = draft.title
        self.query_one("#tags", Input).value = ", ".join(draft.tags)
        self.query_one("#body", TextArea).load_text(draft.body)
        self.links = list(draft.links)
        self._show_links()

    @property
    def unsaved_work(self) -> str | None:
        """The draft, once anything is typed in it: quitting asks before losing it."""
        draft = self._make_draft()
        if draft.title or draft.tags or draft.links or draft.body.strip():
            return "the draft"
        return None

    # -- links: pick targets by search -------------------------------------------------------

    @on(DocumentPicker.Picked, "#link-picker")
    def _link_picked(self, event: DocumentPicker.Picked) -> None:
        event.stop()
        self._add_link(event.doc_id)
        event.picker.clear()
        event.picker.focus_input()

    def _add_link(self, target: str) -> None:
        link = (str(self.query_one("#link-type", Select).value), target)
        if link not in self.links:
            self.links.append(link)
        self._show_links()

    def _show_links(self) -> None:
        lines = [Content.assemble((kind, f"bold $link-{kind}"), " → ", clean(target)) for kind, target in self.links]
        self.query_one("#links-chosen", Static).update(
            Content("\n").join(lines) if lines else Content.styled("none yet", "$text 60%")
        )

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
            self.app.call_from_thread(
                self.notify, str(exc), title="The gate refused the draft", severity="error", markup=False
            )
            return
        texts: dict[str, tuple[Document, bytes]] = {}
        read = self.read_document
        for candidate in candidates:
            if read is not None:
                with contextlib.suppress(Exception):  # gone meanwhile: its reasons are still shown
                    texts[candidate.id] = read(candidate.id)
        self.app.call_from_thread(self._show_candidates, draft, candidates, texts)

    def _show_candidates(
        self, draft: Draft, candidates: list[Candidate], texts: dict[str, tuple[Document, bytes]]
    ) -> None:
        self.candidates, self.texts = candidates, texts
        self.add_class("-candidates")
        self.refresh_bindings()
        self.query_one("#draft-summary", Static).update(
            Content.assemble(
                ("New ", "$text 60%"),
                (draft.type, "bold"),
                ": ",
                (clean(draft.title), "bold"),
            )
        )
        self.query_one("#draft-text", Static).update(draft_text(draft))
        self.page = 0
        self._list_page()
        self.query_one("#candidate-list", OptionList).focus()
        self.call_after_refresh(self._refit)  # laid out now: each line fitted to the list's width

    def _list_page(self, keep: Candidate | None = None) -> None:
        """The page's candidates, ranked as in the whole list, a heading where a group starts;
        `keep` highlighted when it is on the page, else the page's first."""
        candidates = self.candidates
        listing = self.query_one("#candidate-list", OptionList)
        listing.border_title = f"Where it may already belong, best first · {len(candidates)}"
        first = self.page * PAGE
        shown = candidates[first : first + PAGE]
        hints = ["↑↓ each, beside the draft"] if len(shown) > 1 else []
        if first + PAGE < len(candidates):
            after, last = first + PAGE + 1, min(first + 2 * PAGE, len(candidates))
            hints.append(f"] {after}-{last} of {len(candidates)}" if last > after else f"] {last} of {len(candidates)}")
        if first:
            hints.append("[ earlier")
        listing.border_subtitle = " · ".join(hints)
        if not candidates:
            listing.set_options(
                [Option(Content.styled("No canonical candidate: create it.", "$text-success"), disabled=True)]
            )
            self._show_selected()
            return
        grouped = len({candidate_group(c) for c in candidates}) > 1
        options: list[Option] = []
        for rank, candidate in enumerate(shown, first + 1):
            group = candidate_group(candidate)
            if grouped and (rank == first + 1 or group != candidate_group(candidates[rank - 2])):
                options.append(Option(Content.styled(GROUPS[group], "bold $text 60%"), disabled=True))
            options.append(Option(candidate_prompt(rank, candidate, self._prompt_width()), id=str(rank - 1)))
        keep_id = str(candidates.index(keep)) if keep in shown else None
        with listing.prevent(OptionList.OptionHighlighted):
            listing.set_options(options)
            listing.highlighted = next(
                i for i, option in enumerate(options) if option.id is not None and keep_id in (None, option.id)
            )
        self._show_selected()

    def _prompt_width(self) -> int | None:
        """The list's width for one candidate's line (None before it is laid out)."""
        width = self.query_one("#candidate-list", OptionList).scrollable_content_region.width
        return width - 2 if width > 10 else None

    def on_resize(self) -> None:
        if self.candidates:
            self.call_after_refresh(self._refit)

    def _refit(self) -> None:
        """Each line shortened again to the list's width, the highlighted candidate kept."""
        if self.has_class("-candidates"):
            self._list_page(keep=self.selected)

    def _show_selected(self) -> None:
        """The highlighted candidate beside the draft, and the buttons that fit it."""
        selected = self.selected
        side = self.query_one("#candidate-side", VerticalScroll)
        text = self.query_one("#candidate-text", Static)
        if selected is None:
            side.border_title = "Candidate"
            text.update(Content.styled("Nothing in the vault looks like this draft: create it (c).", "$text-success"))
        else:
            rank = self.candidates.index(selected) + 1
            side.border_title = f"Candidate {rank} of {len(self.candidates)}"
            shown = self.texts.get(selected.id)
            text.update(candidate_text(selected, shown[0] if shown else None))
            side.scroll_home(animate=False)
        self._update_buttons()

    @property
    def selected(self) -> Candidate | None:
        listing = self.query_one("#candidate-list", OptionList)
        index = listing.highlighted
        if not self.candidates or index is None or listing.get_option_at_index(index).id is None:
            return None
        return self.candidates[int(listing.get_option_at_index(index).id or 0)]

    @on(OptionList.OptionHighlighted, "#candidate-list")
    def _candidate_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_selected()

    def _update_buttons(self) -> None:
        selected = self.selected
        self.query_one("#merge", Button).disabled = selected is None or selected.action != "merge"
        self.query_one("#supersede", Button).disabled = selected is None or selected.action != "supersede"

    @on(OptionList.OptionSelected, "#candidate-list")
    def _candidate_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        selected = self.selected
        if selected is not None and self.draft is not None:
            self._choose(self._choice(selected.action, selected))

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
            self.action_cancel()
        elif button == "back":
            self.action_back()
        elif button == "create" and self.draft is not None:
            self._choose(GateChoice("create", self.draft))
        elif button in ("merge", "supersede") and self.draft is not None and self.selected is not None:
            self._choose(self._choice(button, self.selected))

    def _choice(self, action: str, candidate: Candidate) -> GateChoice:
        assert self.draft is not None
        shown = self.texts.get(candidate.id)
        read = {shown[0].path: shown[1]} if shown else {}
        return GateChoice(action, self.draft, candidate.id, read)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The choice and paging keys act only on the candidates step (in the draft they are
        letters); paging is dimmed where there is no page that way."""
        if action in ("choose", "page") and not self.has_class("-candidates"):
            return False
        if action == "page":  # only where there is a page that way (the list's subtitle says which)
            step = parameters[0] if parameters and isinstance(parameters[0], int) else 0
            return 0 <= (self.page + step) * PAGE < len(self.candidates)
        return True

    def action_page(self, step: int) -> None:
        """The next (or earlier) `PAGE` candidates, the first of them highlighted beside the draft."""
        if 0 <= (self.page + step) * PAGE < len(self.candidates):
            self.page += step
            self._list_page()
            self.refresh_bindings()

    def action_choose(self, action: str) -> None:
        selected = self.selected
        if self.draft is None:
            return
        if action == "create":
            self._choose(GateChoice("create", self.draft))
        elif selected is not None and selected.action == action:
            self._choose(self._choice(action, selected))
        else:
            self.notify(
                f"The highlighted candidate cannot be {'merged into' if action == 'merge' else 'superseded'}",
                severity="warning",
            )

    def _choose(self, choice: GateChoice) -> None:
        """Leave with the choice once its dry run passes; a refusal keeps the draft open."""
        if self.check is None:
            self.dismiss(choice)
        else:
            self._check_choice(choice)

    @work(thread=True, exclusive=True, group="gate-check")
    def _check_choice(self, choice: GateChoice) -> None:
        try:
            assert self.check is not None
            self.check(choice)
        except Exception as exc:  # noqa: BLE001 - a refusal is said, the draft kept
            self.app.call_from_thread(self._refused, choice, str(exc))
            return
        self.app.call_from_thread(self.dismiss, choice)

    def _refused(self, choice: GateChoice, reason: str) -> None:
        self.notify(
            in_dialog_terms(reason),
            title="Not written; the draft stays open",
            severity="warning",
            markup=False,
            timeout=12,
        )
        if choice.action == "create" and not choice.draft.links:  # what is missing is in the draft: go there
            self.action_back()
            self.query_one("#link-picker", DocumentPicker).focus_input()

    def action_back(self) -> None:
        if self.has_class("-candidates"):
            self.remove_class("-candidates")
            self.refresh_bindings()
            self.query_one("#title", Input).focus()
        else:
            self.action_cancel()

    def action_cancel(self) -> None:
        """Close; a draft with anything typed in it is discarded only once the person says so."""
        what = self.unsaved_work
        if what is None:
            self.dismiss(None)
        else:
            self.app.push_screen(DiscardDialog(what, then="close the write gate"), self._discarded)

    def _discarded(self, discard: bool | None) -> None:
        if discard:
            self.dismiss(None)
