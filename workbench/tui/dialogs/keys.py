"""Every key the workbench answers to, grouped by where it applies (`?`).

Textual's own help panel lists only the bindings of the focused widget; a newcomer needs them all
at once, with the binding ids that `App.set_keymap` uses to remap them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Label

__all__ = ["KeyGroup", "KeysDialog"]

KeyGroup = tuple[str, Sequence[Binding]]


class KeysDialog(ModalScreen[None]):
    """A scrollable table of keys; `escape`, `?` or `q` closes it."""

    DEFAULT_CLASSES = "wb-dialog"

    DEFAULT_CSS = """
    KeysDialog {
        & > #dialog {
            width: 96;
            height: auto;
            max-height: 100%;
        }
        & VerticalScroll { height: auto; max-height: 100%; }
        & .group { text-style: bold; color: $text-accent; padding: 1 0 0 0; }
        & Grid { grid-size: 3; grid-columns: 16 16 1fr; grid-gutter: 0 1; height: auto; }
        & .key { text-style: bold; color: $text-primary; }
        & .tooltip { color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close", id="keys.close", tooltip="Close the list of keys"),
    ]

    def __init__(self, groups: Sequence[KeyGroup], title: str = "Keys") -> None:
        super().__init__()
        self.groups = groups
        self.title_shown = title
        """"Keys", or "Keys: Conflicts (c)" for the keys of one dialog."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = self.title_shown
            dialog.border_subtitle = "escape closes"
            with VerticalScroll():
                for title, bindings in self.groups:
                    yield Label(Content(title), classes="group")
                    with Grid():
                        for binding in (b for b in bindings if not b.system):
                            yield Label(Content(self._keys(binding)), classes="key")
                            yield Label(Content(binding.description or binding.action))
                            # The id is what keymap.toml names to remap the key.
                            yield Label(
                                Content(f"{binding.tooltip} ({binding.id})" if binding.id else binding.tooltip),
                                classes="tooltip",
                            )
        yield Footer()

    def _keys(self, binding: Binding) -> str:
        return " ".join(self.app.get_key_display(Binding(key.strip(), "")) for key in binding.key.split(","))

    def action_close(self) -> None:
        self.dismiss(None)
