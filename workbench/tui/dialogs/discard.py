"""Ask before throwing away what a person typed ("Discard the draft?").

A dialog that holds typed text says so with an `unsaved_work` attribute (a few words naming it, or
None); quitting (`ctrl+q`) or closing such a dialog asks here first. Only `y` discards: any other
way out of this question keeps the work.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Static

from ..text import clean

__all__ = ["DiscardDialog", "unsaved_work"]


def unsaved_work(screen: Screen) -> str | None:
    """What `screen` holds that the person typed and would lose, in a few words (or None)."""
    what = getattr(screen, "unsaved_work", None)
    return what if isinstance(what, str) and what else None


class DiscardDialog(ModalScreen[bool]):
    """`y` discards (True); `n`, `escape` or Keep goes back to the work (False)."""

    DEFAULT_CLASSES = "wb-dialog"

    DEFAULT_CSS = """
    DiscardDialog {
        & > #dialog { width: 60; height: auto; }
        & #question { text-style: bold; padding: 0 0 1 0; }
        & #buttons { height: auto; align-horizontal: right; }
        & Button { margin: 0 0 0 2; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "discard", "Discard", id="discard.yes", tooltip="Throw away what you typed"),
        Binding("n,escape", "keep", "Keep it", id="discard.no", tooltip="Back to what you typed; nothing is lost"),
    ]

    def __init__(self, what: str, then: str = "quit") -> None:
        super().__init__()
        self.what = what
        self.then = then

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = f"Discard {self.what}?"
            yield Static(
                Content(clean(f"Discard {self.what} and {self.then}? It is not written anywhere.")), id="question"
            )
            with Horizontal(id="buttons"):
                yield Button("Keep it  n", id="keep", variant="primary", compact=True)
                yield Button("Discard  y", id="discard", variant="error", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#keep", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "discard")

    def action_discard(self) -> None:
        self.dismiss(True)

    def action_keep(self) -> None:
        self.dismiss(False)
