"""The undo history (`H`): every step undo and redo take, newest first, the position marked.

A person pressing `u` twice must know what the second press reverts, and whether it reaches a
change made yesterday or by another process. So the list reads like an editor's history panel:
the steps undone since the last new change on top (`U` redoes the nearest, marked ↷), a line for
where the vault is now, then the steps done (`u` undoes the nearest, marked ▶), each with its
number, summary and when it was made, in the core's words (`undo.Stack.when`). The dialog only
returns "undo" or "redo"; the main screen previews either as a diff before writing.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ...core import Stack, Step
from ..text import clean

__all__ = ["UndoHistoryDialog", "step_prompt"]


def step_prompt(stack: Stack, step: Step) -> Content:
    """One step: its mark, number and summary, then when it was made and what `u`/`U` do to it."""
    if stack.undone and step.id == stack.undone[0].id:
        mark, role = "↷", "undone · U redoes it"
    elif step.undone:
        mark, role = " ", "undone"
    elif stack.done and step.id == stack.done[0].id:
        mark, role = "▶", "u undoes it next"
    else:
        mark, role = " ", ""
    style = "$text 60%" if step.undone else ""
    return Content.assemble(
        (f"{mark} {stack.number(step):>3}  ", "bold $text-accent" if mark.strip() else ""),
        (clean(step.summary), style or "bold"),
        "\n      ",
        (clean(stack.when(step)), "$text 60%"),
        (f"  · {role}" if role else "", "$text-accent"),
    )


class UndoHistoryDialog(ModalScreen[str | None]):
    """`u` returns "undo", `U` "redo"; `escape` closes with nothing."""

    DEFAULT_CLASSES = "wb-dialog"

    DEFAULT_CSS = """
    UndoHistoryDialog {
        & > #dialog {
            width: 110;
            height: 90%;
        }
        & #where { color: $text-muted; padding: 0 0 1 0; }
        & OptionList { height: 1fr; border: round $border-blurred; }
        & OptionList:focus { border: round $border; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "undo", "Undo", id="undo_history.undo", tooltip="Preview the undo of the step marked ▶ as a diff"),
        Binding(
            "U",
            "redo",
            "Redo",
            key_display="U",
            id="undo_history.redo",
            tooltip="Preview the redo of the step marked ↷ as a diff",
        ),
        Binding(
            "escape,H", "close", "Close", id="undo_history.close", tooltip="Back to the main screen; nothing changes"
        ),
    ]

    def __init__(self, stack: Stack) -> None:
        super().__init__()
        self.stack = stack

    def compose(self) -> ComposeResult:
        stack = self.stack
        with Vertical(id="dialog") as dialog:
            dialog.border_title = f"Undo history · {stack.total} step(s), {len(stack.undone)} undone"
            dialog.border_subtitle = "u undo · U redo · escape closes"
            yield Static(Content(self._where()), id="where")
            options: list[Option] = [Option(step_prompt(stack, step), id=step.id) for step in reversed(stack.undone)]
            options.append(
                Option(
                    Content.styled("── now: the files are as the steps below left them ──", "$text-success"),
                    id="now",
                    disabled=True,
                )
            )
            options += [Option(step_prompt(stack, step), id=step.id) for step in stack.done]
            if not stack.done:
                options.append(Option(Content.styled("nothing older to undo", "$text 60%"), disabled=True))
            yield OptionList(*options, id="steps")
        yield Footer()

    def _where(self) -> str:
        stack = self.stack
        redo = "U redoes the step marked ↷" if stack.undone else "nothing to redo (a new change clears what was undone)"
        undo = "u undoes the step marked ▶" if stack.done else "nothing to undo"
        return f"{undo}; {redo}. A step made before this session started says so."

    def on_mount(self) -> None:
        steps = self.query_one(OptionList)
        steps.focus()
        steps.highlighted = len(self.stack.undone) + 1 if self.stack.done else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo":
            return bool(self.stack.done) or None
        if action == "redo":
            return bool(self.stack.undone) or None
        return True

    def action_undo(self) -> None:
        self.dismiss("undo")

    def action_redo(self) -> None:
        self.dismiss("redo")

    def action_close(self) -> None:
        self.dismiss(None)
