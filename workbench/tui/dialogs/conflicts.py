"""The conflicts queue (`c`): each conflict beside the resolutions that fit it.

The core finds the conflicts (`Vault.conflicts`) and names their resolutions with the command that
would carry each out (`supersede OLD NEW`, `compatible A B`, `retarget S OLD NEW`, `merge A --into
B`, `check --repair`); `resolution_proposal` turns one into a `Proposal` for the main screen, which
previews the diff before anything is written. A resolution that needs more than a click (naming a
successor, editing a cycle by hand) is shown with its command instead, and one the vault's format
cannot write (`refusal`) says so, with the way out, before the person picks it.

Each conflict is listed by the titles of its documents, their ids shortened on the line below: a
person recognises a title, and an id wrapped mid-word on a narrow terminal helps nobody. For the
same reason a resolution's button names the documents by title (`titled`), unless two of them
share one; its tooltip keeps the command, with the ids.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, OptionList, Static
from textual.widgets.option_list import Option

from ...core.conflicts import Conflict, Resolution
from ...core.model import Document
from ..proposal import Proposal
from ..text import clean, status_badge

EXCERPT_LINES = 4

__all__ = [
    "KIND_WORDS",
    "ConflictsDialog",
    "conflict_prompt",
    "kind_words",
    "resolution_proposal",
    "short_id",
    "titled",
]

KIND_WORDS = {
    "supersession-cycle": "Supersession in a circle",
    "one-sided-supersession": "Supersession one-sided",
    "active-with-successor": "Active, yet superseded",
    "superseded-without-successor": "Superseded, no successor",
    "double-supersession": "Superseded twice",
    "contradiction": "May replace an older one",
    "successor-missing": "No successor named",
    "draft-replaces": "A draft may replace",
    "rule-contradiction": "Rules that contradict",
    "duplicate": "May be duplicates",
    "stale-link": "Links to a replaced one",
}
"""Each kind of conflict in a few words, short enough for the list at 80 columns (the kind's code,
which the command line prints, follows them above the reason)."""


def kind_words(kind: str) -> str:
    """The conflict kind in words; a kind not known here is shown as the core names it."""
    return KIND_WORDS.get(kind, kind)


def titled(label: str, ids: Sequence[str], documents: Mapping[str, Document]) -> str:
    """`label` with each of `ids` given as its document's title in quotes. Left as it is when a
    document is missing, has no title of its own, or shares its title with another: then only the
    ids tell them apart."""
    titles = {doc_id: documents[doc_id].title for doc_id in ids if doc_id in documents}
    if len(titles) < len(set(ids)) or len(set(titles.values())) < len(titles) or any(t == i for i, t in titles.items()):
        return label
    named = "|".join(re.escape(doc_id) for doc_id in sorted(titles, key=len, reverse=True))
    return re.sub(rf"(?<![\w.-])(?:{named})(?![\w.-])", lambda match: f"“{titles[match.group()]}”", label)


def resolution_proposal(
    resolution: Resolution, then: Callable[[], object] | None = None, back: Callable[[], object] | None = None
) -> Proposal | None:
    """The dry run and write behind a resolution's command; None when it needs a person's input.
    `then` runs once it is written, `back` when its preview is cancelled (the queue again)."""
    try:
        words = shlex.split(resolution.command)
    except ValueError:
        return None
    verb, args = (words[0], words[1:]) if words else ("", [])
    title = f"Resolve: {resolution.label}?"
    if verb == "supersede" and len(args) == 2 and args[1] != "NEW_ID":
        old, new = args
        return Proposal(title, lambda vault: vault.supersede(old, new, dry_run=True), then=then, back=back)
    if verb == "compatible" and len(args) == 2:
        a, b = args
        return Proposal(title, lambda vault: vault.mark_compatible(a, b, dry_run=True), then=then, back=back)
    if verb == "retarget" and len(args) in (2, 3):
        source, old, *new = args
        return Proposal(
            title,
            lambda vault: vault.retarget(source, old, new[0] if new else None, dry_run=True),
            then=then,
            back=back,
        )
    if verb == "merge" and len(args) == 3 and args[1] == "--into":
        source, target = args[0], args[2]
        return Proposal(title, lambda vault: vault.merge(source, target, dry_run=True), then=then, back=back)
    if verb == "check" and args == ["--repair"]:
        return Proposal(title, lambda vault: vault.repair(dry_run=True).plan, then=then, back=back)
    return None


ID_WIDTH = 40
"""An id longer than this is shortened in the list, in its middle (its start and end tell ids apart)."""


def short_id(doc_id: str, width: int = ID_WIDTH) -> str:
    """`doc_id`, or its start and end around "…" when it is longer than `width`."""
    if len(doc_id) <= width:
        return doc_id
    head = (width - 1) // 2
    return doc_id[:head] + "…" + doc_id[len(doc_id) - (width - 1 - head) :]


def conflict_prompt(conflict: Conflict, titles: Mapping[str, str] | None = None, id_width: int = ID_WIDTH) -> Content:
    """The kind in words, then each document by its title with its id (shortened to `id_width`) below it."""
    titles = titles or {}
    lines: list[Content] = [Content.styled(clean(kind_words(conflict.kind)), "bold $text-warning")]
    for doc_id in conflict.ids:
        title = titles.get(doc_id)
        if title:
            lines.append(Content.assemble("  ", clean(title)))
        lines.append(Content.styled(f"    {clean(short_id(doc_id, id_width))}", "$text 60%"))
    return Content("\n").join(lines)


class ConflictsDialog(ModalScreen[Resolution | str | None]):
    """Returns the chosen `Resolution`, a document id to open, or None. ↑↓ move through the
    resolutions as through the list; `tab` or `enter` goes from the list to them, `shift+tab` back."""

    DEFAULT_CLASSES = "wb-dialog"

    DEFAULT_CSS = """
    ConflictsDialog {
        & > #dialog {
            width: 130;
            height: 90%;
        }
        & #conflict-list { width: 2fr; max-width: 48; height: 1fr; border: round $border-blurred; }
        & #conflict-list:focus { border: round $border; }
        & #detail { width: 3fr; height: 1fr; padding: 0 0 0 1; }
        & #reason { padding: 0 0 1 0; }
        & #sides { height: auto; }
        & .side { width: 1fr; height: auto; border: round $border-blurred; padding: 0 1; margin: 0 0 1 0; }
        & #resolutions { height: auto; }
        & #resolutions Button { width: 100%; margin: 0 0 1 0; }
        /* The focused resolution is a full-width bar in the text's colour, the others a muted fill:
           Textual's reversed label on a primary fill showed as a short bar among buttons of the same
           fill, hard to find. */
        & #resolutions Button.-primary { background: $primary-muted; color: $text-primary; }
        & #resolutions Button:focus { background: $foreground; color: $background; text-style: bold; background-tint: 0%; }
        & #hint { color: $text-muted; height: auto; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "o", "open_first", "Open", id="conflicts.open", tooltip="Open the conflict's first document in the viewer"
        ),
        Binding(
            "escape", "close", "Close", id="conflicts.close", tooltip="Back to the main screen; nothing is changed"
        ),
        # Priority: the scrolling detail pane around the buttons would take the arrows first.
        Binding(
            "up",
            "resolution(-1)",
            "Previous",
            show=False,
            priority=True,
            id="conflicts.previous-resolution",
            tooltip="Among the resolutions: the one above (from the first, back to the list)",
        ),
        Binding(
            "down",
            "resolution(1)",
            "Next",
            show=False,
            priority=True,
            id="conflicts.next-resolution",
            tooltip="Among the resolutions: the one below",
        ),
    ]

    def __init__(
        self,
        conflicts: Sequence[Conflict],
        documents: Mapping[str, Document] | None = None,
        start: int = 0,
        refusal: Callable[[Resolution], str | None] | None = None,
    ) -> None:
        super().__init__()
        self.conflicts = list(conflicts)
        self.documents = documents or {}
        """The vault's valid documents by id, to show each side of a conflict."""
        self.start = start
        """The conflict highlighted first (where a cancelled preview came from)."""
        self.refusal = refusal
        """Why the vault's format cannot carry a resolution out (None when it can)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = f"Conflicts · {len(self.conflicts)}"
            with Horizontal():
                if self.conflicts:
                    options = self._options(ID_WIDTH)
                else:
                    options = [Option(Content.styled("No open conflicts.", "$text-success"), disabled=True)]
                yield OptionList(*options, id="conflict-list")
                with VerticalScroll(id="detail", can_focus=False):
                    yield Static(id="reason")
                    yield Static(
                        Content.styled("Resolutions (each shows its diff first)", "bold $text 60%"),
                        id="resolutions-title",
                    )
                    yield Vertical(id="resolutions")
                    yield Horizontal(id="sides")
            yield Static(
                "enter/tab to the resolutions, ↑↓ among them · each shows its diff first · o open · escape close",
                id="hint",
            )
        yield Footer()

    def _options(self, id_width: int) -> list[Option]:
        titles = {doc_id: doc.title for doc_id, doc in self.documents.items()}
        return [Option(conflict_prompt(c, titles, id_width), id=str(i)) for i, c in enumerate(self.conflicts)]

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_ids)

    def _fit_ids(self) -> None:
        """Ids shortened to the list's width, so none wraps in the middle of a word."""
        listing = self.query_one("#conflict-list", OptionList)
        width = max(12, listing.scrollable_content_region.width - 5)
        if not self.conflicts or width == getattr(self, "_id_width", None):
            return
        self._id_width = width
        highlighted = listing.highlighted
        with listing.prevent(OptionList.OptionHighlighted):
            listing.set_options(self._options(width))
            listing.highlighted = highlighted

    async def on_mount(self) -> None:
        conflicts = self.query_one("#conflict-list", OptionList)
        conflicts.focus()
        if self.conflicts:
            start = min(max(self.start, 0), len(self.conflicts) - 1)
            conflicts.highlighted = start
            await self._show(start)

    @property
    def selected(self) -> Conflict | None:
        index = self.query_one("#conflict-list", OptionList).highlighted
        return self.conflicts[index] if self.conflicts and index is not None else None

    @on(OptionList.OptionHighlighted)
    async def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id is not None:
            await self._show(int(event.option.id))

    async def _show(self, index: int) -> None:
        conflict = self.conflicts[index]
        self.query_one("#reason", Static).update(
            Content.assemble(
                (clean(kind_words(conflict.kind)), "bold $text-warning"),
                (f" · {clean(conflict.kind)}", "$text 60%"),
                "\n",
                clean(conflict.reason),
            )
        )
        sides = self.query_one("#sides", Horizontal)
        await sides.remove_children()
        await sides.mount_all([Static(self._side(doc_id), classes="side") for doc_id in conflict.ids[:2]])
        box = self.query_one("#resolutions", Vertical)
        await box.remove_children()
        buttons = []
        for number, resolution in enumerate(conflict.resolutions):
            refused = self.refusal(resolution) if self.refusal is not None else None
            can = resolution_proposal(resolution) is not None and refused is None
            label = titled(resolution.label, conflict.ids, self.documents)
            label = Content(clean(label + (" (not in this vault's format)" if refused else "")))
            button = Button(label, name=str(number), compact=True, variant="primary" if can else "default")
            if refused:
                button.tooltip = Content(clean(refused))
            else:
                button.tooltip = Content(
                    clean(("Preview, then apply: " if can else "Needs you: run ") + resolution.command)
                )
            buttons.append(button)
        await box.mount_all(buttons)

    def _side(self, doc_id: str) -> Content:
        """One side of the conflict: title, status and the start of its text."""
        doc = self.documents.get(doc_id)
        if doc is None:
            return Content.assemble((clean(doc_id), "bold"), ("\nnot a valid document", "$text 60%"))
        lines = [line for line in doc.body.splitlines() if line.strip() and not line.startswith(("#", "```"))][
            :EXCERPT_LINES
        ]
        stated = doc.stated_status
        return Content.assemble(
            (clean(doc.title), "bold"),
            "\n",
            status_badge(doc.status),
            # The status in the record's own word, when it has one of its own ("Proposed", "Accepted").
            (f" “{clean(stated)}”" if stated and stated.lower() != doc.status else "", "$text 60%"),
            (f"  {doc.type} · updated {doc.stated_updated or 'no date read from the file'}", "$text 60%"),
            "\n",
            (clean("\n".join(lines)), "$text 60%"),
        )

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        buttons = self.query("#resolutions Button")
        if buttons:
            buttons.first().focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        conflict = self.selected
        if conflict is not None and event.button.name is not None:
            resolution = conflict.resolutions[int(event.button.name)]
            refused = self.refusal(resolution) if self.refusal is not None else None
            if refused:
                self.notify(refused, title="Not in this vault's format", severity="warning", markup=False, timeout=10)
                return
            self.dismiss(resolution)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """↑↓ are the resolutions' own only while one of them has the focus (the list moves itself)."""
        if action == "resolution":
            return isinstance(self.focused, Button)
        return True

    def action_resolution(self, step: int) -> None:
        buttons = list(self.query("#resolutions Button"))
        focused = self.focused
        if focused not in buttons:
            return
        index = buttons.index(focused) + step
        if index < 0:
            self.query_one("#conflict-list").focus()
        elif index < len(buttons):
            buttons[index].focus()

    def action_open_first(self) -> None:
        if self.selected is not None:
            self.dismiss(self.selected.ids[0])

    def action_close(self) -> None:
        self.dismiss(None)
