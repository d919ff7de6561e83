"""Consolidation (`o`): fold a group of related notes into their canonical document.

The core finds the groups (3+ notes sharing a tag or linking the same canonical node) and suggests
where they belong. The person picks a group, keeps or changes the canonical target (by search),
ticks the notes to fold in, and gets the diff from the main screen before anything is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import (
    Button,
    Footer,
    Input,
    Label,
    OptionList,
    SelectionList,
    Static,
)
from textual.widgets.option_list import Option
from textual.widgets.selection_list import Selection
from textual.worker import get_current_worker

from ...core.consolidate import Group
from ..text import clean
from ..widgets.search import Searcher

__all__ = ["ConsolidateChoice", "ConsolidateDialog"]


@dataclass(frozen=True)
class ConsolidateChoice:
    into: str
    notes: tuple[str, ...]


def group_prompt(group: Group) -> Content:
    why = f"share the tag {group.key}" if group.reason == "tag" else f"all link {group.key}"
    return Content.assemble((f"{len(group.notes)} notes", "bold"), " ", (clean(why), "$text-muted"))


class ConsolidateDialog(ModalScreen[ConsolidateChoice | None]):
    """Returns the target and the notes to fold into it, or None."""

    DEFAULT_CSS = """
    ConsolidateDialog {
        align: center middle;
        & > #dialog {
            width: 110;
            max-width: 100%;
            height: 95%;
            border: thick $primary 60%;
            background: $surface;
            padding: 0 1;
        }
        & Label { color: $text-muted; padding: 1 0 0 0; }
        & #groups { height: auto; max-height: 6; border: round $border-blurred; }
        & #target { text-style: bold; }
        & #target-hits { height: auto; max-height: 5; border: round $border-blurred; }
        & #target-hits.-empty { display: none; }
        & #notes { height: 1fr; border: round $border-blurred; }
        & OptionList:focus, & SelectionList:focus { border: round $border; }
        & #buttons { height: auto; align-horizontal: right; }
        & Button { margin: 0 0 0 2; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "preview", "Preview", id="consolidate.preview", tooltip="Show the consolidation as a diff before writing it"),
        Binding("escape", "cancel", "Cancel", id="consolidate.cancel", tooltip="Close without changing anything"),
    ]

    def __init__(self, groups: Sequence[Group], titles: Mapping[str, str], searcher: Searcher) -> None:
        super().__init__()
        self.groups = list(groups)
        self.titles = titles
        self.searcher = searcher
        self.target: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = f"Consolidation · {len(self.groups)} group(s)"
            if not self.groups:
                yield Static(Content.styled("No group of 3 or more related notes: nothing to consolidate.", "$text-success"))
            yield OptionList(*[Option(group_prompt(g), id=str(i)) for i, g in enumerate(self.groups)], id="groups")
            yield Label("Canonical target (search to change it)")
            yield Static(id="target")
            yield Input(id="target-search", placeholder="search another target…", compact=True)
            yield OptionList(id="target-hits", classes="-empty")
            yield Label("Notes to fold in (space toggles); they are archived after")
            yield SelectionList[str](id="notes")
            with Horizontal(id="buttons"):
                yield Button("Preview  ctrl+s", id="preview", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        groups = self.query_one("#groups", OptionList)
        groups.focus()
        if self.groups:
            groups.highlighted = 0
            self._show_group(0)

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
        notes.add_options([Selection(Content.assemble(clean(self.titles.get(n, n)), (f"  {clean(n)}", "$text-muted")), n, True)
                           for n in group.notes])

    def _set_target(self, target: str | None) -> None:
        self.target = target
        shown = Content.assemble(clean(self.titles.get(target, target)), (f"  {clean(target)}", "$text-muted")) if target else Content.styled("none: search for one", "$text-warning")
        self.query_one("#target", Static).update(shown)

    @on(Input.Changed, "#target-search")
    def _target_query(self, event: Input.Changed) -> None:
        event.stop()
        self._search(event.value)

    @work(thread=True, exclusive=True, group="consolidate-search")
    def _search(self, query: str) -> None:
        hits = self.searcher(query, 6) if query.strip() else []
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_hits, hits)

    def _show_hits(self, hits: list) -> None:
        listing = self.query_one("#target-hits", OptionList)
        listing.set_class(not hits, "-empty")
        listing.set_options(Option(Content.assemble(clean(h.title), (f"  {h.type} · {clean(h.id)}", "$text-muted")), id=h.id) for h in hits)
        if hits:
            listing.highlighted = 0

    @on(Input.Submitted, "#target-search")
    def _target_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        option = self.query_one("#target-hits", OptionList).highlighted_option
        if option is not None and option.id:
            self._pick(option.id)

    @on(OptionList.OptionSelected, "#target-hits")
    def _target_picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self._pick(event.option.id)

    def _pick(self, target: str) -> None:
        self._set_target(target)
        self.query_one("#target-search", Input).value = ""
        hits = self.query_one("#target-hits", OptionList)
        hits.clear_options()
        hits.add_class("-empty")
        self.query_one("#notes").focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "preview":
            self.action_preview()
        else:
            self.action_cancel()

    def action_preview(self) -> None:
        notes = tuple(self.query_one("#notes", SelectionList).selected)
        if self.target is None or not notes:
            self.notify("Pick a target and at least one note", severity="warning")
            return
        self.dismiss(ConsolidateChoice(self.target, notes))

    def action_cancel(self) -> None:
        self.dismiss(None)
