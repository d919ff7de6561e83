"""Forgetting is the one change that cannot be undone: the id is typed again, exactly, first.

The Kimiko memory design asks this of forget; the command line asks it with `--confirm ID`. The dialog returns the
id once typed right (the main screen then shows what forgetting removes, as a diff), or None:
`escape` or `Keep it` goes one step back, to whatever opened it (the inbox), and writes nothing.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Static

from ..text import clean

__all__ = ["ConfirmForgetDialog"]


class ConfirmForgetDialog(ModalScreen[str | None]):
    """Type the id again to forget the document; `escape` keeps it."""

    DEFAULT_CLASSES = "wb-dialog"

    DEFAULT_CSS = """
    ConfirmForgetDialog {
        & > #dialog { width: 76; height: auto; }
        & #warning { padding: 0 0 1 0; }
        & Input { margin: 0 0 1 0; }
        & #wrong { color: $text-error; height: auto; }
        & #buttons { height: auto; align-horizontal: right; }
        & Button { margin: 0 0 0 2; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Keep it", id="forget.cancel", tooltip="Do not forget it; nothing is written"),
    ]

    def __init__(self, doc_id: str, title: str = "") -> None:
        super().__init__()
        self.doc_id = doc_id
        self.doc_title = title

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Forget for good?"
            yield Static(
                Content.assemble(
                    "This deletes ",
                    (clean(self.doc_id), "bold"),
                    (f" “{clean(self.doc_title)}”" if self.doc_title else ""),
                    ", its recovery backups and its undo history, and takes its id out of the log and out of every link. "
                    "It cannot be undone. Type the id to go on:",
                ),
                id="warning",
            )
            yield Input(placeholder=self.doc_id, compact=True, id="typed")
            yield Static("", id="wrong")
            with Horizontal(id="buttons"):
                yield Button("Forget for good  enter", variant="error", id="forget", compact=True)
                yield Button("Keep it  esc", id="keep", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._forget(event.value)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "forget":
            self._forget(self.query_one(Input).value)
        else:
            self.dismiss(None)

    def _forget(self, typed: str) -> None:
        if typed.strip() == self.doc_id:
            self.dismiss(self.doc_id)
        else:
            self.query_one("#wrong", Static).update(
                Content(f"That is not {clean(self.doc_id)}; type it exactly, or escape to keep it.")
            )
            self.query_one(Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)
