"""Show a planned change as a diff and ask before writing: nothing reaches the disk unseen.

The diff has the focus, so the arrows and Page Up/Down read it while `y` (or Enter) still applies:
reading is what the person came here to do. A change to several files says so first ("3 files:
a, b, …") and `]`/`[` move from one file to the next, so the last of twelve files is not hidden
below the first one's hunks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from pygments.token import Token
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.content import Content
from textual.highlight import HighlightTheme, highlight
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from ..text import clean

__all__ = ["ConfirmPlanDialog", "diff_content", "diff_parts", "DiffTheme", "file_starts", "files_line"]

FILES_SHOWN = 3
"""How many file names the summary spells out before "…"."""


class DiffTheme(HighlightTheme):
    """Textual's highlight theme plus added and removed lines, which it leaves uncoloured."""

    STYLES: dict[Any, str] = {  # keyed by pygments token types
        **HighlightTheme.STYLES,
        Token.Generic.Inserted: "$text-success",
        Token.Generic.Deleted: "$text-error",
        Token.Generic.Subheading: "$text-accent",
        Token.Generic.Heading: "bold",
    }


def diff_content(diff: str) -> Content:
    return highlight(clean(diff), language="diff", theme=DiffTheme)


BACKUP_NOTE = "# backup of the file as it was: "
"""How a diff names the backup a change keeps of a file before rewriting it (`unified_diff`)."""
_STAMP = re.compile(r"\.\d{8}T\d{6}$")


def diff_parts(diff: str) -> list[tuple[int, str]]:
    """Each file's part of a unified diff: the line it begins on and what it is called. A backup
    note joins the part of the file it backs up (`notes/x.md · its backup: .recovery/…`), begun at
    the note when the note sits just above it: the box's title then names the file whose diff
    shows, not the backup. A backup of a file the diff does not show is a part of its own."""
    lines = diff.splitlines()
    backups: dict[str, tuple[int, str]] = {}
    headers: list[tuple[int, str]] = []
    for number, line in enumerate(lines):
        if line.startswith(BACKUP_NOTE):
            backup = line[len(BACKUP_NOTE) :]
            backups[_STAMP.sub("", backup.removeprefix(".recovery/"))] = (number, backup)
        elif line.startswith("--- ") and number + 1 < len(lines) and lines[number + 1].startswith("+++ "):
            after, before = lines[number + 1][4:], line[4:]
            name = after if after != "/dev/null" else before
            headers.append((number, name.removeprefix("b/").removeprefix("a/")))
    parts = []
    for number, path in headers:
        if path in backups:
            at, backup = backups.pop(path)
            parts.append((at if at == number - 1 else number, f"{path} · its backup: {backup}"))
        else:
            parts.append((number, path))
    parts += [(at, f"backup: {backup}") for at, backup in backups.values()]
    return sorted(parts)


def file_starts(diff: str) -> list[int]:
    """The line where each file's part of a unified diff begins (`diff_parts`)."""
    return [number for number, _ in diff_parts(diff)]


def files_line(files: Sequence[str]) -> str:
    """ "3 files: a, b, c" or "12 files: a, b, c, …"; empty for a change to one file."""
    if len(files) < 2:
        return ""
    shown = ", ".join(files[:FILES_SHOWN]) + (", …" if len(files) > FILES_SHOWN else "")
    return f"{len(files)} files: {shown}"


class ConfirmPlanDialog(ModalScreen[bool]):
    """`y` or Enter (or Apply) writes the change; `n`, `escape` or Cancel goes back a step."""

    DEFAULT_CLASSES = "wb-dialog"

    DEFAULT_CSS = """
    ConfirmPlanDialog {
        & > #dialog {
            width: 100;
            height: auto;
            max-height: 100%;
        }
        & #summary { text-style: bold; padding: 0 0 1 0; }
        & #files { color: $text-muted; height: auto; }
        & #diff-scroll {
            height: auto;
            max-height: 60vh;
            border: round $border-blurred;
            border-title-color: $text-muted;
            scrollbar-size-vertical: 1;
            scrollbar-background: $panel;
            scrollbar-background-hover: $panel;
            scrollbar-background-active: $panel;
            scrollbar-color: $text-muted;
            scrollbar-color-hover: $text;
            scrollbar-color-active: $text;
        }
        & #diff-scroll:focus { border: round $border; }
        /* Long lines wrap in their colour: at 80 columns a frontmatter line scrolled out of sight. */
        & #diff { width: 100%; }
        /* The buttons keep the dialog's last line at any height; when the summary, the files and
           the diff need more than the window, the diff gives up rows (`-tight`), not the buttons. */
        & #buttons { dock: bottom; height: auto; align-horizontal: right; padding: 1 0 0 0; }
        &.-tight #diff-scroll { height: 1fr; }
        & Button { margin: 0 0 0 2; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "confirm", "Apply", id="confirm.apply", tooltip="Write this change to disk"),
        Binding(
            "n,escape",
            "cancel",
            "Cancel",
            id="confirm.cancel",
            tooltip="Nothing is written; back to the step before, with what you typed or chose",
        ),
        Binding(
            "right_square_bracket",
            "file(1)",
            "Next file",
            key_display="]",
            id="confirm.next-file",
            tooltip="Scroll the diff to the next file it changes",
        ),
        Binding(
            "left_square_bracket",
            "file(-1)",
            "Previous file",
            key_display="[",
            id="confirm.previous-file",
            tooltip="Scroll the diff to the previous file it changes",
        ),
    ]

    def __init__(
        self,
        summary: str,
        diff: str,
        title: str = "Apply this change?",
        files: Sequence[str] = (),
        unsaved: str | None = None,
    ) -> None:
        super().__init__()
        self.summary = summary
        self.diff = diff
        self.dialog_title = title
        self.files = list(files)
        """The files the change writes, in the diff's order."""
        self.parts = diff_parts(diff)
        """Each file's part of the diff: where it begins and what it is called."""
        self.starts = [number for number, _ in self.parts]
        self.content = diff_content(diff)
        """The diff coloured, as the box shows it."""
        self.file_index = 0
        """The file the diff was last moved to with `]`/`[`."""
        self.unsaved_work = unsaved
        """What the person typed that only this change holds now (quitting asks before losing it)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = self.dialog_title
            yield Static(Content(clean(self.summary)), id="summary")
            if len(self.files) > 1:
                keys = " · ] next file · [ previous" if len(self.parts) > 1 else ""
                yield Static(Content(clean(files_line(self.files) + keys)), id="files")
            with ScrollableContainer(id="diff-scroll") as scroll:
                yield Static(self.content, id="diff")
            if len(self.files) > 1:
                scroll.border_title = self._file_title()
            with Horizontal(id="buttons"):
                yield Button("Apply  y", variant="primary", id="apply", compact=True)
                yield Button("Cancel  n", id="cancel", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#diff-scroll").focus()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.remove_class("-tight")
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """A diff that would run under the buttons takes only the rows left above them. (A notice
        said above the dialog later takes rows from the diff's end; the buttons stay.)"""
        scroll, buttons = self.query_one("#diff-scroll", ScrollableContainer), self.query_one("#buttons")
        if scroll.region.bottom > buttons.region.y:
            self.add_class("-tight")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "file":
            return len(self.starts) > 1
        return True

    def _file_title(self) -> str:
        """The part of the diff on show, by the diff's own parts (a backup is not a part of its own)."""
        if not self.parts:
            return ""
        name = self.parts[min(self.file_index, len(self.parts) - 1)][1]
        if len(self.parts) == 1:
            return clean(name)
        return clean(f"file {self.file_index + 1} of {len(self.parts)}: {name}")

    def _row(self, line: int) -> int:
        """The row the diff's `line` starts on, long lines above it wrapped as the box shows them."""
        width = self.query_one("#diff", Static).content_region.width
        if width <= 0:
            return line
        return sum(max(1, len(text.wrap(width))) for text in self.content.split("\n")[:line])

    def action_file(self, step: int) -> None:
        if not self.starts:
            return
        self.file_index = max(0, min(len(self.starts) - 1, self.file_index + step))
        scroll = self.query_one("#diff-scroll", ScrollableContainer)
        scroll.scroll_to(y=self._row(self.starts[self.file_index]), animate=False)
        if len(self.files) > 1:
            scroll.border_title = self._file_title()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "apply")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
