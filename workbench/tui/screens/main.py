"""The main screen: search, viewer and links side by side, and the routing between them.

The panes post what the person asks for (`Goto`); this screen does the vault's work in thread
workers and hands the results back down as attributes. Workers post result messages (`VaultRead`,
`DocumentRead`, `PlanReady`, `ChangeApplied`, `Failed`) rather than touching widgets, so tests can
watch the same messages the screen reacts to. One lock serialises access to the `Vault`, which is
not meant to be shared between threads.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import networkx as nx
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer
from textual.worker import get_current_worker

from ...core.changes import Plan
from ...core.graph import build_graph
from ...core.model import Document, Severity, WorkbenchError
from ...core.vault import Vault
from ..dialogs.confirm_plan import ConfirmPlanDialog
from ..dialogs.lifecycle import LifecycleChoice, LifecycleDialog
from ..history import History
from ..reading import DocumentView, read_view
from ..widgets.link_pane import LinkPane
from ..widgets.search import SearchPane
from ..widgets.vault_header import VaultHeader
from ..widgets.viewer import DocumentViewer

__all__ = ["MainScreen"]


@dataclass(frozen=True)
class VaultSummary:
    """What the panes need from the whole vault, computed off the UI thread after each load or write."""

    name: str
    documents: tuple[Document, ...]
    files: int
    errors: int
    warnings: int
    graph: nx.MultiDiGraph = field(default_factory=nx.MultiDiGraph, compare=False, repr=False)


def summarise(vault: Vault, given: Path) -> VaultSummary:
    """Counts for the header; the name says `notes/memory` when the vault is a `memory/` child."""
    problems = vault.problems
    errors = sum(1 for p in problems if p.severity == Severity.ERROR)
    given = given.expanduser().resolve()
    name = given.name if vault.root == given else f"{given.name}/{vault.root.relative_to(given)}"
    return VaultSummary(name, tuple(vault.documents), len(vault), errors, len(problems) - errors, build_graph(vault))


class MainScreen(Screen[None]):
    """Three panes; below 100 columns the link pane gives way (press `g` to swap it in)."""

    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (100, "-wide"), (140, "-very-wide")]

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_search", "Search", id="main.search", tooltip="Put the cursor in the search box"),
        Binding("backspace,alt+left", "back", "Back", key_display="⌫", id="main.back", tooltip="Back to the previously opened document"),
        Binding("shift+backspace,alt+right", "forward", "Forward", key_display="⇧⌫", show=False, id="main.forward", tooltip="Forward again after going back"),
        Binding("l", "lifecycle", "Lifecycle", id="main.lifecycle", tooltip="Change the document's status (or a task's execution state)"),
        Binding("r", "toggle_raw", "Raw", id="main.raw", tooltip="Toggle between the rendered document and its source file"),
        Binding("s", "successor", "Successor", id="main.successor", tooltip="Open the document that supersedes this one"),
        Binding("g", "focus_links", "Links", id="main.links", tooltip="Move to the links pane (on narrow terminals, show it)"),
    ]

    class VaultRead(Message):
        def __init__(self, summary: VaultSummary) -> None:
            super().__init__()
            self.summary = summary

    class DocumentRead(Message):
        def __init__(self, view: DocumentView, remember: bool, focus: str | None) -> None:
            super().__init__()
            self.view = view
            self.remember = remember
            self.focus = focus

    class PlanReady(Message):
        def __init__(self, plan: Plan, doc_id: str) -> None:
            super().__init__()
            self.plan = plan
            self.doc_id = doc_id

    class ChangeApplied(Message):
        def __init__(self, plan: Plan, doc_id: str) -> None:
            super().__init__()
            self.plan = plan
            self.doc_id = doc_id

    class Failed(Message):
        """A vault call was refused or failed; `reason` is one line for the person."""

        def __init__(self, reason: str, title: str = "Refused") -> None:
            super().__init__()
            self.reason = reason
            self.title = title

    def __init__(self, vault_path: Path) -> None:
        super().__init__()
        self.vault_path = vault_path
        self.vault: Vault | None = None
        self.summary: VaultSummary | None = None
        """The vault as last read: what the header, the search and the palette show."""
        self.history = History()
        self._vault_lock = threading.Lock()

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield VaultHeader()
        with Horizontal(id="panes"):
            yield SearchPane(id="search")
            yield DocumentViewer(id="viewer")
            yield LinkPane(id="links")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(VaultHeader).vault_name = self.vault_path.name
        self.query_one(SearchPane).focus_input()
        self.load_vault()

    @property
    def current(self) -> DocumentView | None:
        return self.query_one(DocumentViewer).view

    # -- workers: every vault call happens here, off the UI thread -----------------------------

    def _report(self, exc: Exception, title: str = "Refused") -> None:
        """A failed vault call becomes a notification: a refusal in its own words, a bug by its type."""
        if isinstance(exc, (WorkbenchError, OSError)):
            self.post_message(self.Failed(str(exc), title))
        else:
            self.post_message(self.Failed(f"{type(exc).__name__}: {exc}", f"Unexpected error ({title.lower()})"))

    @work(thread=True, exclusive=True, group="vault-load")
    def load_vault(self) -> None:
        try:
            with self._vault_lock:
                self.vault = Vault.open(self.vault_path)
                summary = summarise(self.vault, self.vault_path)
        except Exception as exc:  # noqa: BLE001 - reported, never a traceback
            self._report(exc, "The vault could not be opened")
            return
        self.post_message(self.VaultRead(summary))

    @work(thread=True, exclusive=True, group="vault-read")
    def read_document(self, doc_id: str, remember: bool = True, focus: str | None = None) -> None:
        if self.vault is None or self.summary is None:
            return
        try:
            with self._vault_lock:
                view = read_view(self.vault, self.summary.graph, doc_id)
        except Exception as exc:  # noqa: BLE001
            self._report(exc, "Cannot open it")
            return
        if not get_current_worker().is_cancelled:  # a newer request superseded this one
            self.post_message(self.DocumentRead(view, remember, focus))

    @work(thread=True, exclusive=True, group="vault-write")
    def plan_lifecycle(self, doc_id: str, choice: LifecycleChoice) -> None:
        """A dry run: the plan comes back to be shown as a diff, nothing is written yet."""
        assert self.vault is not None
        try:
            with self._vault_lock:
                if choice.field == "execution_state":
                    plan = self.vault.set_execution_state(doc_id, choice.value, dry_run=True)
                else:
                    plan = self.vault.set_status(doc_id, choice.value, dry_run=True)
        except Exception as exc:  # noqa: BLE001
            self._report(exc)
            return
        self.post_message(self.PlanReady(plan, doc_id))

    @work(thread=True, exclusive=True, group="vault-write")
    def apply_plan(self, plan: Plan, doc_id: str) -> None:
        """Write exactly the plan that was shown; the core refuses if a file changed meanwhile."""
        assert self.vault is not None
        try:
            with self._vault_lock:
                self.vault.apply(plan)
                summary = summarise(self.vault, self.vault_path)
        except Exception as exc:  # noqa: BLE001
            self._report(exc, "Nothing was written" if not plan.applied else "Written, but not re-read")
            return
        self.post_message(self.VaultRead(summary))
        self.post_message(self.ChangeApplied(plan, doc_id))

    # -- results coming back ----------------------------------------------------------------

    @on(VaultRead)
    def _vault_read(self, message: VaultRead) -> None:
        summary = self.summary = message.summary
        header = self.query_one(VaultHeader)
        header.vault_name, header.documents = summary.name, summary.files
        header.errors, header.warnings = summary.errors, summary.warnings
        self.query_one(SearchPane).documents = summary.documents

    @on(DocumentRead)
    def _document_read(self, message: DocumentRead) -> None:
        view = message.view
        self.query_one(DocumentViewer).view = view
        self.query_one(LinkPane).neighbours = view.neighbours
        if message.remember:
            self.history.visit(view.document.id)
        if message.focus:
            self.query_one(f"#{message.focus}").focus()
        self.refresh_bindings()

    @on(PlanReady)
    def _plan_ready(self, message: PlanReady) -> None:
        plan = message.plan
        if plan.empty:
            self.notify(plan.summary, title="Nothing to change", markup=False)
            return

        def confirmed(apply: bool | None) -> None:
            if apply:
                self.apply_plan(plan, message.doc_id)

        self.app.push_screen(ConfirmPlanDialog(plan.summary, plan.diff()), confirmed)

    @on(ChangeApplied)
    def _change_applied(self, message: ChangeApplied) -> None:
        self.notify(message.plan.summary, title="Written", markup=False)
        if self.current and self.current.document.id == message.doc_id:
            self.read_document(message.doc_id, remember=False)

    @on(Failed)
    def _failed(self, message: Failed) -> None:
        if self.vault is None:
            self.query_one(SearchPane).documents = ()
        self.notify(message.reason, title=message.title, severity="error", markup=False, timeout=8)

    # -- requests from the panes --------------------------------------------------------------

    @on(SearchPane.Goto)
    def _goto_from_search(self, message: SearchPane.Goto) -> None:
        self.open_document(message.doc_id, focus="viewer")

    @on(LinkPane.Goto)
    @on(DocumentViewer.Goto)
    def _goto_link(self, message: LinkPane.Goto | DocumentViewer.Goto) -> None:
        self.open_document(message.doc_id)

    def open_document(self, doc_id: str, focus: str | None = None) -> None:
        """Open `doc_id` and remember it in the history; `focus` names the pane to focus after."""
        self.read_document(doc_id, remember=True, focus=focus)

    # -- actions ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide what cannot apply (no document, not superseded); dim back and forward at the ends."""
        view = self.current
        if action in ("lifecycle", "toggle_raw"):
            return view is not None
        if action == "successor":
            return bool(view and view.successors)
        if action == "back":
            return self.history.can_go_back or None
        if action == "forward":
            return self.history.can_go_forward or None
        return True

    def action_focus_search(self) -> None:
        self.remove_class("-show-links")
        self.query_one(SearchPane).focus_input()

    def action_focus_links(self) -> None:
        self.add_class("-show-links")
        self.query_one(LinkPane).focus()

    def action_back(self) -> None:
        if (doc_id := self.history.back()) is not None:
            self.read_document(doc_id, remember=False)

    def action_forward(self) -> None:
        if (doc_id := self.history.forward()) is not None:
            self.read_document(doc_id, remember=False)

    def action_toggle_raw(self) -> None:
        viewer = self.query_one(DocumentViewer)
        viewer.raw = not viewer.raw

    def action_successor(self) -> None:
        if self.current and self.current.successors:
            self.open_document(next(iter(self.current.successors)), focus="viewer")

    def action_lifecycle(self) -> None:
        view = self.current
        if view is None or self.vault is None:
            return
        doc_id = view.document.id

        def chosen(choice: LifecycleChoice | None) -> None:
            if choice is not None:
                self.plan_lifecycle(doc_id, choice)

        self.app.push_screen(LifecycleDialog(view.document), chosen)
