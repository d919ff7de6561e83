"""Both versions, when a file changed on disk under a change the person was making.

An agent, an editor or `git pull` may rewrite a document while the person is deciding what to do
with it. Nothing is written then (the core refuses with `ConflictError`, or the screen notices the
plan no longer starts from what was read); this dialog shows the two versions, as a diff or as two
texts side by side (`v`), and asks: reload and redo the change on the version now on disk, or cancel.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from ..text import clean
from .confirm_plan import diff_content

__all__ = ["ExternalChangeDialog", "Versions", "first_difference", "versions_diff"]


@dataclass(frozen=True)
class Versions:
    """One file in two versions: `on_disk` now, and `ours`, which is what the person was about to
    write (`planned`) or, when the change was not planned yet, the version they had read."""

    path: str
    on_disk: bytes | None
    ours: bytes | None
    planned: bool

    @property
    def ours_label(self) -> str:
        return "what you were about to write" if self.planned else "the version you read"


def _text(data: bytes | None) -> str:
    return "" if data is None else data.decode("utf-8", "replace")


def first_difference(versions: Versions) -> int:
    """The first line (from 0) at which the two versions differ, to show both texts from there."""
    disk, ours = _text(versions.on_disk).splitlines(), _text(versions.ours).splitlines()
    return next((i for i, (a, b) in enumerate(zip(disk, ours, strict=False)) if a != b), min(len(disk), len(ours)))


def versions_diff(versions: Versions) -> str:
    """Your change against the disk (what writing it would do now), or the outside change against
    what was read (what someone else did): either way, the diff reads from old to new."""
    disk, ours = _text(versions.on_disk).splitlines(keepends=True), _text(versions.ours).splitlines(keepends=True)
    if versions.planned:
        before, after, labels = disk, ours, ("on disk now", versions.ours_label)
    else:
        before, after, labels = ours, disk, (versions.ours_label, "on disk now")
    lines = difflib.unified_diff(before, after, f"{versions.path} ({labels[0]})", f"{versions.path} ({labels[1]})")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


class ExternalChangeDialog(ModalScreen[bool]):
    """`r` reloads and redoes the change on the new version (previewed again); `escape` cancels."""

    DEFAULT_CLASSES = "wb-dialog"

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]

    DEFAULT_CSS = """
    ExternalChangeDialog {
        & > #dialog {
            width: 120;
            height: 90%;
            border-title-color: $text-warning;
        }
        & #explain { padding: 0 0 1 0; }
        & .view { height: 1fr; border: round $border-blurred; border-title-color: $text-muted; padding: 0 1; }
        & .view:focus { border: round $border; }
        & #sides { display: none; height: 1fr; }
        & #sides > .view { width: 1fr; }
        & #sides Static { width: auto; }  /* unwrapped, so both texts line up row for row */
        &.-both-texts {
            & #diff-view { display: none; }
            & #sides { display: block; }
        }
        &.-narrow #sides { layout: vertical; }
        & #buttons { height: auto; align-horizontal: right; padding: 1 0 0 0; }
        &.-narrow #buttons { padding: 0; }
        & Button { margin: 0 0 0 2; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "r",
            "redo",
            "Reload and redo",
            id="external.redo",
            tooltip="Take the version on disk now and plan the change again on it (shown as a diff before writing)",
        ),
        Binding(
            "v",
            "toggle_view",
            "Diff / both texts",
            id="external.view",
            tooltip="Switch between the diff of the two versions and the two texts side by side",
        ),
        Binding(
            "escape",
            "cancel",
            "Cancel",
            id="external.cancel",
            tooltip="Drop the change; the file keeps what is on disk now",
        ),
    ]

    def __init__(self, versions: Versions, title: str = "") -> None:
        super().__init__()
        self.versions = versions
        self.change_title = title
        """What the person was doing (the proposal's title), to say which change is held back."""
        self.diff = versions_diff(versions)

    def compose(self) -> ComposeResult:
        versions = self.versions
        with Vertical(id="dialog") as dialog:
            dialog.border_title = Content.assemble("Changed on disk · ", clean(versions.path))
            if versions.planned:
                why = (
                    "It changed after the preview; nothing was written. Lines marked − are on disk now "
                    "and your change would remove them; lines marked + are yours."
                )
            else:
                why = (
                    "It changed after you read it; nothing was written. Lines marked − were in the version "
                    "you read; lines marked + are on disk now."
                )
            doing = (
                Content.assemble(("Your change, not written: ", "$text 60%"), (clean(self.change_title), "bold"), "\n")
                if self.change_title
                else Content("")
            )
            yield Static(Content.assemble(doing, (why, "$text-warning")), id="explain")
            with VerticalScroll(id="diff-view", classes="view") as diff_view:
                diff_view.border_title = "Difference"
                if versions.on_disk is None:
                    yield Static(Content.styled("The file is gone from disk.", "$text-error"))
                elif versions.ours is None and not versions.planned:
                    yield Static(
                        Content.styled(
                            "The version read before is not known: the one on disk now is under both texts (v).",
                            "$text 60%",
                        )
                    )
                elif not self.diff:
                    yield Static(Content.styled("The two versions are the same text.", "$text 60%"))
                else:
                    yield Static(diff_content(self.diff), id="diff")
            with Horizontal(id="sides"):
                with ScrollableContainer(id="disk-side", classes="view") as disk_side:
                    disk_side.border_title = "On disk now"
                    yield Static(
                        Content(clean(_text(versions.on_disk)))
                        if versions.on_disk is not None
                        else Content.styled("(no file)", "$text-error"),
                        id="disk-text",
                    )
                with ScrollableContainer(id="ours-side", classes="view") as ours_side:
                    ours_side.border_title = versions.ours_label.capitalize()
                    missing = "(your change removes the file)" if versions.planned else "(not known)"
                    yield Static(
                        Content(clean(_text(versions.ours)))
                        if versions.ours is not None
                        else Content.styled(missing, "$text 60%"),
                        id="ours-text",
                    )
            with Horizontal(id="buttons"):
                yield Button("Reload and redo  r", id="redo", variant="primary", compact=True)
                yield Button("Both texts  v", id="view", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#diff-view").focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {"redo": self.action_redo, "view": self.action_toggle_view}.get(event.button.id or "", self.action_cancel)()

    def action_toggle_view(self) -> None:
        both = not self.has_class("-both-texts")
        self.set_class(both, "-both-texts")
        self.query_one("#view", Button).label = "Diff  v" if both else "Both texts  v"
        self.query_one("#disk-side" if both else "#diff-view").focus()
        if both:  # open both texts a little above where they part
            line = max(0, first_difference(self.versions) - 2)
            for side in ("#disk-side", "#ours-side"):
                self.call_after_refresh(self.query_one(side).scroll_to, y=line, animate=False)

    def action_redo(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
