"""The conflicts queue (`c`): each conflict beside the resolutions that fit it.

The core finds the conflicts (`Vault.conflicts`) and names their resolutions with the command that
would carry each out (`supersede OLD NEW`, `compatible A B`, `retarget S OLD NEW`, `merge A --into
B`, `check --repair`); `resolution_proposal` turns one into a `Proposal` for the main screen, which
previews the diff before anything is written. A resolution that needs more than a click (naming a
successor, editing a cycle by hand) is shown with its command instead.
"""

from __future__ import annotations

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

__all__ = ["ConflictsDialog", "resolution_proposal", "conflict_prompt"]


def resolution_proposal(resolution: Resolution, then: Callable[[], object] | None = None) -> Proposal | None:
    """The dry run and write behind a resolution's command; None when it needs a person's input."""
    try:
        words = shlex.split(resolution.command)
    except ValueError:
        return None
    verb, args = (words[0], words[1:]) if words else ("", [])
    title = f"Resolve: {resolution.label}?"
    if verb == "supersede" and len(args) == 2 and args[1] != "NEW_ID":
        old, new = args
        return Proposal(title, lambda vault: vault.supersede(old, new, dry_run=True), then=then)
    if verb == "compatible" and len(args) == 2:
        a, b = args
        return Proposal(title, lambda vault: vault.mark_compatible(a, b, dry_run=True), then=then)
    if verb == "retarget" and len(args) in (2, 3):
        source, old, *new = args
        return Proposal(title, lambda vault: vault.retarget(source, old, new[0] if new else None, dry_run=True), then=then)
    if verb == "merge" and len(args) == 3 and args[1] == "--into":
        source, target = args[0], args[2]
        return Proposal(title, lambda vault: vault.merge(source, target, dry_run=True), then=then)
    if verb == "check" and args == ["--repair"]:
        return Proposal(title, lambda vault: vault.repair(dry_run=True).plan, then=then)
    return None


def conflict_prompt(conflict: Conflict) -> Content:
    return Content.assemble(
        (clean(conflict.kind), "bold $text-warning"), "\n",
        *[(f"  {clean(doc_id)}\n", "$text-muted") for doc_id in conflict.ids],
    )


class ConflictsDialog(ModalScreen[Resolution | str | None]):
    """Returns the chosen `Resolution`, a document id to open, or None."""

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
        & #hint { color: $text-muted; height: auto; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open_first", "Open", id="conflicts.open", tooltip="Open the conflict's first document in the viewer"),
        Binding("escape", "close", "Close", id="conflicts.close", tooltip="Back to the main screen; nothing is changed"),
    ]

    def __init__(self, conflicts: Sequence[Conflict], documents: Mapping[str, Document] | None = None) -> None:
        super().__init__()
        self.conflicts = list(conflicts)
        self.documents = documents or {}
        """The vault's valid documents by id, to show each side of a conflict."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = f"Conflicts · {len(self.conflicts)}"
            with Horizontal():
                if self.conflicts:
                    options = [Option(conflict_prompt(c), id=str(i)) for i, c in enumerate(self.conflicts)]
                else:
                    options = [Option(Content.styled("No open conflicts.", "$text-success"), disabled=True)]
                yield OptionList(*options, id="conflict-list")
                with VerticalScroll(id="detail", can_focus=False):
                    yield Static(id="reason")
                    yield Static(Content.styled("Resolutions (each shows its diff first)", "bold $text-muted"), id="resolutions-title")
                    yield Vertical(id="resolutions")
                    yield Horizontal(id="sides")
            yield Static("enter/tab to the resolutions · each shows its diff first · o open · escape close", id="hint")
        yield Footer()

    async def on_mount(self) -> None:
        conflicts = self.query_one("#conflict-list", OptionList)
        conflicts.focus()
        if self.conflicts:
            conflicts.highlighted = 0
            await self._show(0)

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
        self.query_one("#reason", Static).update(Content(clean(conflict.reason)))
        sides = self.query_one("#sides", Horizontal)
        await sides.remove_children()
        await sides.mount_all([Static(self._side(doc_id), classes="side") for doc_id in conflict.ids[:2]])
        box = self.query_one("#resolutions", Vertical)
        await box.remove_children()
        buttons = []
        for number, resolution in enumerate(conflict.resolutions):
            can = resolution_proposal(resolution) is not None
            button = Button(Content(clean(resolution.label)), name=str(number), compact=True,
                            variant="primary" if can else "default")
            button.tooltip = Content(clean(("Preview, then apply: " if can else "Needs you: run ") + resolution.command))
            buttons.append(button)
        await box.mount_all(buttons)

    def _side(self, doc_id: str) -> Content:
        """One side of the conflict: title, status and the start of its text."""
        doc = self.documents.get(doc_id)
        if doc is None:
            return Content.assemble((clean(doc_id), "bold"), ("\nnot a valid document", "$text-muted"))
        lines = [line for line in doc.body.splitlines() if line.strip() and not line.startswith(("#", "```"))][:EXCERPT_LINES]
        return Content.assemble(
            (clean(doc.title), "bold"), "\n", status_badge(doc.status), (f"  {doc.type} · updated {doc.updated or '?'}", "$text-muted"),
            "\n", (clean("\n".join(lines)), "$text-muted"),
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
            self.dismiss(conflict.resolutions[int(event.button.name)])

    def action_open_first(self) -> None:
        if self.selected is not None:
            self.dismiss(self.selected.ids[0])

    def action_close(self) -> None:
        self.dismiss(None)
