"""Show a planned change as a diff and ask before writing: nothing reaches the disk unseen."""

from __future__ import annotations

from typing import ClassVar

from pygments.token import Token
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.highlight import HighlightTheme, highlight
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from ..text import clean

__all__ = ["ConfirmPlanDialog", "diff_content", "DiffTheme"]


class DiffTheme(HighlightTheme):
    """Textual's highlight theme plus added and removed lines, which it leaves uncoloured."""

    STYLES: ClassVar[dict[tuple[str, ...], str]] = {
        **HighlightTheme.STYLES,
        Token.Generic.Inserted: "$text-success",
        Token.Generic.Deleted: "$text-error",
        Token.Generic.Subheading: "$text-accent",
        Token.Generic.Heading: "bold",
    }


def diff_content(diff: str) -> Content:
    return highlight(clean(diff), language="diff", theme=DiffTheme)


class ConfirmPlanDialog(ModalScreen[bool]):
    """`y` (or Apply) writes the change; `n`, `escape` or Cancel drops it."""

    DEFAULT_CLASSES = "wb-dialog"

    DEFAULT_CSS = """
    ConfirmPlanDialog {
        & > #dialog {
            width: 100;
            height: auto;
            max-height: 100%;
        }
        & #summary { text-style: bold; padding: 0 0 1 0; }
        & #diff-scroll { height: auto; max-height: 60vh; border: round $border-blurred; }
        & #buttons { height: auto; align-horizontal: right; padding: 1 0 0 0; }
        & Button { margin: 0 0 0 2; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "confirm", "Apply", id="confirm.apply", tooltip="Write this change to disk"),
        Binding("n,escape", "cancel", "Cancel", id="confirm.cancel", tooltip="Drop this change; nothing is written"),
    ]

    def __init__(self, summary: str, diff: str, title: str = "Apply this change?") -> None:
        super().__init__()
        self.summary = summary
        self.diff = diff
        self.dialog_title = title

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = self.dialog_title
            yield Static(Content(clean(self.summary)), id="summary")
            with VerticalScroll(id="diff-scroll"):
                yield Static(diff_content(self.diff), id="diff")
            with Horizontal(id="buttons"):
                yield Button("Apply  y", variant="primary", id="apply", compact=True)
                yield Button("Cancel  n", id="cancel", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#apply", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "apply")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
