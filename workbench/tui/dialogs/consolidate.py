"""Consolidation (`o`): fold a group of related notes into their canonical document.

The core finds the groups (3+ notes sharing a tag or linking the same canonical node) and suggests
where they belong. The person picks a group, keeps or changes the canonical target (by search) and
ticks the notes to fold in. Then the dialog shows the text the target would have (`merged_text`,
the core's `Vault.merged_body`) in an editor: the person trims and rewrites it, and the main screen
previews the consolidation with that text as a diff before anything is written. Cancelling that
preview comes back here (`resume`), to the merged text exactly as the person left it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from rich.segment import Segment
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import (
    Button,
    Footer,
    Label,
    OptionList,
    SelectionList,
    Static,
    TextArea,
)
from textual.widgets.option_list import Option
from textual.strip import Strip
from textual.widgets.selection_list import Selection

from ...core import Group
from ..text import clean
from ..widgets.document_picker import DocumentPicker
from ..widgets.search import Searcher

__all__ = ["ConsolidateChoice", "ConsolidateDialog", "MergedText", "TickList", "group_prompt"]


@dataclass(frozen=True)
class MergedText:
    """The text consolidation would give the target, and each file's bytes as it was read for it."""

    text: str
    read: Mapping[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class ConsolidateChoice:
    """Fold `notes` into `into`; `body` is the merged text as the person edited it (None when they
    left it as it was, so a redo on newer files merges afresh)."""

    into: str
    notes: tuple[str, ...]
    body: str | None = None
    read: Mapping[str, bytes] = field(default_factory=dict)
    """The files as they were when the merged text was made (path → bytes)."""
    edited_from: str | None = None
    """The merged text as it was made, before the person's edits (None when not edited)."""
    group: int | None = None
    """The group the notes came from, to come back to it."""


def group_prompt(group: Group) -> Content:
    why = f"share the tag {group.key}" if group.reason == "tag" else f"all link {group.key}"
    return Content.assemble((f"{len(group.notes)} notes", "bold"), " ", (clean(why), "$text 60%"))


class TickList(SelectionList[str]):
    """A selection list whose ticks read `[x]` and `[ ]`: chosen and not differ in shape, not
    only in colour (a colour-blind person, a monochrome terminal)."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        index = self.scroll_offset.y + y
        if len(segments) < 4 or index >= self.option_count:
            return strip
        chosen = self.get_option_at_index(index).value in self._selected
        left, inner, right = segments[:3]
        marks = [Segment("[", left.style), Segment("x" if chosen else " ", inner.style), Segment("]", right.style)]
        return Strip([*marks, *segments[3:]], strip.cell_length)

    def on_focus(self) -> None:
        """Focused with no note highlighted (a new group's list), the first is: `space` then
        toggles a note at once instead of doing nothing until an arrow key is pressed."""
        if self.highlighted is None and self.option_count:
            self.highlighted = 0


class ConsolidateDialog(ModalScreen[ConsolidateChoice | None]):
    """Two steps: the group, target and notes; then the merged text (`ctrl+s` moves on). Returns
    the target, the notes and the edited text, or None."""

    DEFAULT_CLASSES = "wb-dialog"

    DEFAULT_CSS = """
    ConsolidateDialog {
        & > #dialog {
            width: 110;
            height: 95%;
        }
        & Label { color: $text-muted; padding: 1 0 0 0; }
        & #groups { height: auto; max-height: 6; border: round $border-blurred; }
        & #target { text-style: bold; }
        & #target-picker > OptionList { max-height: 5; }
        & #notes { height: 1fr; border: round $border-blurred; }
        & OptionList:focus, & SelectionList:focus { border: round $border; }
        & .buttons { height: auto; align-horizontal: right; }
        & Button { margin: 0 0 0 2; }
        & #merged { display: none; }
        & #merged-summary { padding: 1 0 0 0; }
        & #merged-body { height: 1fr; }
        &.-merged {
            & #choose { display: none; }
            & #merged { display: block; }
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+s",
            "merged",
            "Merged text",
            id="consolidate.merged",
            tooltip="Show the text the target would have, to edit it",
        ),
        Binding(
            "ctrl+s",
            "preview",
            "Preview",
            id="consolidate.preview",
            tooltip="Show the consolidation, with the text as edited, as a diff before writing it",
        ),
        Binding(
            "escape",
            "back",
            "Back / cancel",
            id="consolidate.cancel",
            tooltip="From the merged text, back to the notes; from the notes, close without changing anything",
        ),
    ]

    def __init__(
        self,
        groups: Sequence[Group],
        titles: Mapping[str, str],
        searcher: Searcher,
        merged_text: Callable[[str, Sequence[str]], MergedText] | None = None,
        resume: ConsolidateChoice | None = None,
    ) -> None:
        super().__init__()
        self.groups = list(groups)
        self.titles = titles
        self.searcher = searcher
        self.merged_text = merged_text
        """The target's text after folding the notes in (refuses what cannot be consolidated)."""
        self.target: str | None = None
        self.merged: MergedText | None = None
        """The merged text as it was offered (what the editor started from)."""
        self._merged_for: tuple[str, tuple[str, ...]] | None = None
        self.resume = resume
        """A choice whose preview was cancelled: open on its merged text, as the person left it."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = f"Consolidation · {len(self.groups)} group(s)"
            with Vertical(id="choose"):
                if not self.groups:
                    yield Static(
                        Content.styled("No group of 3 or more related notes: nothing to consolidate.", "$text-success")
                    )
                yield OptionList(*[Option(group_prompt(g), id=str(i)) for i, g in enumerate(self.groups)], id="groups")
                yield Label("Canonical target (search to change it)")
                yield Static(id="target")
                yield DocumentPicker(self.searcher, limit=6, placeholder="search another target…", id="target-picker")
                yield Label("Notes to fold in (space toggles); they are archived after")
                yield TickList(id="notes")
                with Horizontal(classes="buttons"):
                    yield Button("Merged text  ctrl+s", id="next", variant="primary", compact=True)
                    yield Button("Cancel", id="cancel", compact=True)
            with Vertical(id="merged"):
                yield Static(id="merged-summary")
                yield TextArea(id="merged-body", language="markdown", soft_wrap=True)
                with Horizontal(classes="buttons"):
                    yield Button("Preview  ctrl+s", id="preview", variant="primary", compact=True)
                    yield Button("Back", id="back", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        groups = self.query_one("#groups", OptionList)
        groups.focus()
        if self.groups:
            start = self.resume.group if self.resume is not None and self.resume.group is not None else 0
            groups.highlighted = min(start, len(self.groups) - 1)
            self._show_group(groups.highlighted)
        if self.resume is not None:
            self._resume(self.resume)

    def _resume(self, choice: ConsolidateChoice) -> None:
        """Back from the preview: the same target, notes and text; an unedited text is merged
        afresh (the files may have moved on), an edited one is kept as typed."""
        self._set_target(choice.into)
        notes = self.query_one("#notes", SelectionList)
        notes.deselect_all()
        for note in choice.notes:
            notes.select(note)
        if choice.body is None or choice.edited_from is None:
            self.action_merged()
            return
        self.merged, self._merged_for = MergedText(choice.edited_from, choice.read), (choice.into, tuple(choice.notes))
        self.query_one("#merged-body", TextArea).load_text(choice.body)
        self._show_merged()

    @property
    def unsaved_work(self) -> str | None:
        """The merged text once the person has edited it: quitting asks before losing it."""
        if (
            self.merged is not None
            and self.has_class("-merged")
            and self.query_one("#merged-body", TextArea).text != self.merged.text
        ):
            return "the merged text as you edited it"
        return None

    @on(OptionList.OptionHighlighted, "#groups")
    def _group_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id is not None:
            self._show_group(int(event.option.id))

    @on(OptionList.OptionSelected, "#groups")
    def _group_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.query_one("#notes").focus()

    def _show_group(self, index: int) -> None:
        group = self.groups[index]
        self._set_target(group.suggested_into)
        notes = self.query_one("#notes", SelectionList)
        notes.clear_options()
        notes.add_options(
            [
                Selection(Content.assemble(clean(self.titles.get(n, n)), (f"  {clean(n)}", "$text 60%")), n, True)
                for n in group.notes
            ]
        )

    def _set_target(self, target: str | None) -> None:
        self.target = target
        shown = (
            Content.assemble(clean(self.titles.get(target, target)), (f"  {clean(target)}", "$text 60%"))
            if target
            else Content.styled("none: search for one", "$text-warning")
        )
        self.query_one("#target", Static).update(shown)

    @on(DocumentPicker.Picked, "#target-picker")
    def _target_picked(self, event: DocumentPicker.Picked) -> None:
        event.stop()
        self._set_target(event.doc_id)
        event.picker.clear()
        self.query_one("#notes").focus()

    # -- step two: the merged text -------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`ctrl+s` moves on: from the notes to the merged text, from the text to the preview."""
        if action == "merged":
            return not self.has_class("-merged")
        if action == "preview":
            return self.has_class("-merged")
        return True

    def action_merged(self) -> None:
        notes = tuple(self.query_one("#notes", SelectionList).selected)
        if self.target is None or not notes:
            self.notify("Pick a target and at least one note", severity="warning")
            return
        if self.merged_text is None:  # nothing to edit with: straight to the preview
            self.dismiss(ConsolidateChoice(self.target, notes))
            return
        if self._merged_for == (self.target, notes) and self.merged is not None:
            self._show_merged()  # back and forth keeps the person's edits
            return
        self._merge(self.target, notes)

    @work(thread=True, exclusive=True, group="consolidate-merge")
    def _merge(self, target: str, notes: tuple[str, ...]) -> None:
        assert self.merged_text is not None
        try:
            merged = self.merged_text(target, notes)
        except Exception as exc:  # noqa: BLE001 - a refusal is said before any editing, not raised
            self.app.call_from_thread(self.notify, str(exc), title="Cannot consolidate", severity="error", markup=False)
            return
        self.app.call_from_thread(self._merged_ready, target, notes, merged)

    def _merged_ready(self, target: str, notes: tuple[str, ...], merged: MergedText) -> None:
        self.merged, self._merged_for = merged, (target, notes)
        self.query_one("#merged-body", TextArea).load_text(merged.text)
        self._show_merged()

    def _show_merged(self) -> None:
        assert self._merged_for is not None
        target, notes = self._merged_for
        self.query_one("#merged-summary", Static).update(
            Content.assemble(
                ("Into ", "$text 60%"),
                (clean(self.titles.get(target, target)), "bold"),
                (f"  {clean(target)}", "$text 60%"),
                (f" · {len(notes)} note(s) folded in, then archived", "$text 60%"),
                ("\nThe text it will have: edit it freely. ctrl+s previews the diff; escape goes back.", "$text 60%"),
            )
        )
        self.add_class("-merged")
        self.refresh_bindings()
        self.query_one("#merged-body", TextArea).focus()

    def action_preview(self) -> None:
        if self.merged is None or self._merged_for is None:
            return
        target, notes = self._merged_for
        text = self.query_one("#merged-body", TextArea).text
        body = None if text == self.merged.text else text
        group = self.query_one("#groups", OptionList).highlighted
        self.dismiss(
            ConsolidateChoice(
                target, notes, body, self.merged.read, self.merged.text if body is not None else None, group
            )
        )

    def action_back(self) -> None:
        if self.has_class("-merged"):
            self.remove_class("-merged")
            self.refresh_bindings()
            self.query_one("#notes").focus()
        else:
            self.dismiss(None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {"next": self.action_merged, "preview": self.action_preview, "back": self.action_back}
        actions.get(event.button.id or "", self.action_cancel)()

    def action_cancel(self) -> None:
        self.dismiss(None)
