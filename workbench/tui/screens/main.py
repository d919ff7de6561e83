"""The main screen: search, viewer and links side by side, and the routing between them.

The panes post what the person asks for (`Goto`); this screen does the vault's work in thread
workers and hands the results back down as attributes. Workers post result messages (`VaultRead`,
`DocumentRead`, `PlanReady`, `ChangeApplied`, `Failed`) rather than touching widgets, so tests can
watch the same messages the screen reacts to. The vault's file watcher runs on its own thread and
only ever posts `DiskChanged`.

Every writing flow arrives here as a `Proposal`: planned in a worker, shown as a diff, written
only once confirmed. If a file it touches changed on disk since the person read it (or since the
preview), nothing is written: `ExternalChange` brings both versions to the person, who reloads and
redoes the change on the new version, or cancels.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import gc
import threading
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.worker import get_current_worker

from ...core.changes import Plan
from ...core.files import read_file
from ...core.loading import collector_paused
from ...core.model import ConflictError, Document, WorkbenchError
from ...core.vault import Vault
from ..history import History
from ..neighbours import link_groups
from ..proposal import Proposal, changed_since_read
from ..reading import DocumentView, read_view
from ..summary import VaultSummary, summarise
from ..text import query_words
from ..widgets.footer import KeysFooter
from ..widgets.link_pane import LinkPane
from ..widgets.search import SearchPane
from ..widgets.vault_header import VaultHeader
from ..widgets.viewer import DocumentViewer
from .flows import GuidedFlows

if TYPE_CHECKING:
    from ...core.conflicts import Conflict
    from ...core.live import VaultWatcher
    from ..dialogs.external_change import Versions

__all__ = ["AUTO_CONFLICTS_LIMIT", "MainScreen", "VaultSummary"]

AUTO_CONFLICTS_LIMIT = 1500
"""Above this many documents conflicts are looked for only when asked (`c`): the search compares
the documents of each type with one another, about 5 s at 10,000, holding the interpreter meanwhile."""


class MainScreen(GuidedFlows, Screen[None]):
    """Three panes; below 100 columns the link pane gives way (press `g` to swap it in)."""

    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (100, "-wide"), (140, "-very-wide")]
    AUTO_FOCUS = "#results"
    """The focus starts on the results, not in the box: single keys (`?`, `q`, `n`, `c`) work at
    once and the footer lists them; `/` goes to the box. (Focusing the box first and then the
    results laid the footer out once more before the first titles.)"""

    BINDINGS: ClassVar[list[BindingType]] = [
        # First, so that the footer always starts with them (in the search box: F1 and ^q instead).
        Binding("question_mark", "app.show_keys", "Keys", id="main.keys", tooltip="List every key and what it does"),
        Binding(
            "q", "app.quit", "Quit", id="main.quit", tooltip="Leave the workbench (nothing unsaved is ever pending)"
        ),
        Binding("slash", "focus_search", "Search", id="main.search", tooltip="Put the cursor in the search box"),
        # A small terminal's first need: the pane being read, on the whole window.
        Binding(
            "m",
            "maximise",
            "Maximise",
            id="main.maximise",
            tooltip="Give the focused pane the whole window; m or escape gives the others back",
        ),
        Binding("m", "restore", "Restore", id="main.restore", tooltip="Show every pane again"),
        Binding(
            "l",
            "lifecycle",
            "Lifecycle",
            id="main.lifecycle",
            tooltip="Change the document's status (or a task's execution state)",
        ),
        Binding(
            "e",
            "edit",
            "Edit",
            id="main.edit",
            tooltip="Edit the file in $EDITOR (vi if unset), then re-read and check it",
        ),
        Binding(
            "s", "successor", "Successor", id="main.successor", tooltip="Open the document that supersedes this one"
        ),
        Binding(
            "n",
            "new_document",
            "New",
            id="main.new",
            tooltip="New knowledge through the write gate: merge, supersede or create",
        ),
        Binding(
            "c",
            "conflicts",
            "Conflicts",
            id="main.conflicts",
            tooltip="The conflicts queue: contradictions, duplicates, stale links",
        ),
        Binding(
            "o",
            "consolidate",
            "Consolidate",
            id="main.consolidate",
            tooltip="Fold groups of related notes into their canonical document",
        ),
        Binding(
            "p",
            "problems",
            "Problems",
            id="main.problems",
            tooltip="Every problem in the vault; open one, or repair them all",
        ),
        Binding(
            "i",
            "inbox",
            "Inbox",
            id="main.inbox",
            tooltip="What agents wrote, awaiting your review: accept, merge, supersede, archive or forget each",
        ),
        Binding("u", "undo", "Undo", id="main.undo", tooltip="Revert the newest step, named, after showing its diff"),
        Binding(
            "U",
            "redo",
            "Redo",
            key_display="U",
            show=False,
            id="main.redo",
            tooltip="Re-apply the step undone last, after showing its diff",
        ),
        Binding(
            "H",
            "undo_history",
            "History",
            key_display="H",
            show=False,
            id="main.undo_history",
            tooltip="List every step, newest first, the position marked",
        ),
        Binding(
            "S",
            "sync",
            "Sync",
            key_display="S",
            show=False,
            id="main.sync",
            tooltip="Sync with the vault's git remote; settle a merge that waits, key by key",
        ),
        Binding(
            "g",
            "focus_links",
            "Links",
            id="main.links",
            tooltip="Move to the links pane (below 100 columns, in place of the results); from it, back to the results",
        ),
        Binding(
            "backspace,alt+left",
            "back",
            "Back",
            key_display="⌫",
            id="main.back",
            tooltip="Back to the previously opened document",
        ),
        Binding(
            "shift+backspace,alt+right",
            "forward",
            "Forward",
            key_display="⇧⌫",
            show=False,
            id="main.forward",
            tooltip="Forward again after going back",
        ),
        Binding(
            "r",
            "toggle_raw",
            "Raw",
            show=False,
            id="main.raw",
            tooltip="Toggle between the rendered document and its source file",
        ),
        # The links pane's keys work from anywhere on this screen: they bring the pane into view.
        # (`system`: the keys dialog lists them once, with the pane.)
        Binding(
            "plus,equals_sign",
            "links('deeper')",
            "Deeper",
            show=False,
            system=True,
            id="main.links-deeper",
            tooltip="In the links pane: one more link away",
        ),
        Binding(
            "minus",
            "links('shallower')",
            "Shallower",
            show=False,
            system=True,
            id="main.links-shallower",
            tooltip="In the links pane: one link less far",
        ),
        Binding(
            "t",
            "links('filter')",
            "Link type",
            show=False,
            system=True,
            id="main.links-filter",
            tooltip="In the links pane: one link type only",
        ),
        Binding(
            "x",
            "links('pack')",
            "Context pack",
            show=False,
            system=True,
            id="main.links-pack",
            tooltip="In the links pane: the context pack",
        ),
        *(
            Binding(
                key,
                f"explain('{key}')",
                show=False,
                system=True,
                id=f"main.why-{key}",
                tooltip=f"Say why {key} cannot act now",
            )
            for key in ("l", "e", "r", "s")
        ),
    ]

    class VaultOpened(Message):
        """The vault can be searched: its titles go on screen now, its summary (problems, the
        graph) follows in `VaultRead`."""

        def __init__(self, total: int) -> None:
            super().__init__()
            self.total = total

    class VaultRead(Message):
        def __init__(self, summary: VaultSummary) -> None:
            super().__init__()
            self.summary = summary

    class DocumentRead(Message):
        def __init__(
            self,
            view: DocumentView,
            remember: bool,
            focus: str | None,
            from_disk: bool = False,
            words: tuple[str, ...] = (),
        ) -> None:
            super().__init__()
            self.view = view
            self.remember = remember
            self.focus = focus
            self.from_disk = from_disk
            """Re-read because the watcher saw its file change (not because the person asked)."""
            self.words = words
            """The words of the search it was opened from, to mark in it."""

    class DocumentGone(Message):
        """A document could not be read because its file is no longer in the vault."""

        def __init__(self, doc_id: str, remember: bool, from_disk: bool) -> None:
            super().__init__()
            self.doc_id = doc_id
            self.remember = remember
            self.from_disk = from_disk

    class ConflictsFound(Message):
        """The conflicts of the vault as it was a moment ago (finding them can take a while on a
        large vault, so they come after the summary, never holding up the titles)."""

        def __init__(self, conflicts: list[Conflict] | None) -> None:
            super().__init__()
            self.conflicts = conflicts
            """None when the search failed (it was reported)."""

    class DiskChanged(Message):
        """Files changed on disk (an agent, an editor, `git pull`, or our own write); posted by the
        watcher's thread, handled on the app's."""

        def __init__(self, paths: list[str]) -> None:
            super().__init__()
            self.paths = paths

    class PlanReady(Message):
        def __init__(self, plan: Plan, proposal: Proposal) -> None:
            super().__init__()
            self.plan = plan
            self.proposal = proposal

    class ChangeApplied(Message):
        def __init__(self, plan: Plan, proposal: Proposal) -> None:
            super().__init__()
            self.plan = plan
            self.proposal = proposal

    class ExternalChange(Message):
        """A file the proposal would change is not as the person read it (or as the preview
        showed it): someone changed it on disk. Nothing was written."""

        def __init__(self, versions: Versions, proposal: Proposal) -> None:
            super().__init__()
            self.versions = versions
            self.proposal = proposal

    class Failed(Message):
        """A vault call was refused or failed; `reason` is one line for the person."""

        def __init__(self, reason: str, title: str = "Refused") -> None:
            super().__init__()
            self.reason = reason
            self.title = title

    def __init__(self, vault_path: Path, flavour: str | None = None) -> None:
        super().__init__()
        self.vault_path = vault_path
        self.flavour = flavour
        """The vault flavour named on the command line; None to detect it."""
        self.vault: Vault | None = None
        self.summary: VaultSummary | None = None
        """The vault as last read: what the header, the search and the palette show."""
        self.conflicts: list[Conflict] | None = None
        """The conflicts as last found; None until the first search for them has finished."""
        self._conflicts_busy = False
        self._conflicts_stale = False
        """A search for conflicts is running / the vault changed while it ran (so run it again after)."""
        self._reopen_conflicts = False
        """Reopen the queue when the conflicts after a resolution have been found."""
        self._searched_since_open = False
        self._titles_listed = threading.Event()
        self._watching = threading.Lock()
        self._stopped = False
        """The screen has stopped watching for good (the person quit): no watcher may start after."""
        """The search pane has listed the vault's first titles (set once)."""
        """The search pane already lists the vault just opened (so its first summary need not search again)."""
        self.history = History()
        self.watcher: VaultWatcher | None = None
        self.graph_depth = 1
        self.graph_filter: str | None = None
        """The graph navigator's depth and link-type filter (`+`/`-`, `t` in the links pane)."""
        self._written: dict[str, bytes] = {}
        """What our own last writes left in each file, so the watcher's echo of them is not news."""
        self._removed: set[str] = set()
        """Files our own last writes removed (an undone creation), until the watcher has seen them go:
        their going is not news from outside either."""
        self._agents_seen = dt.datetime.now().isoformat(timespec="seconds")
        """The newest agent's request already announced: those the watcher brings after it are news."""

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield VaultHeader()
        with Horizontal(id="panes"):
            yield SearchPane(id="search")
            yield DocumentViewer(id="viewer")
            yield LinkPane(id="links")
        yield KeysFooter(compact=True)  # two columns more per key: at 80 columns every one counts

    def on_mount(self) -> None:
        self.query_one(VaultHeader).vault_name = self.vault_path.name
        search = self.query_one(SearchPane)
        search.snippets = lambda query, hits: self.vault.snippets(query, hits) if self.vault is not None else {}
        self.load_vault()

    def on_unmount(self) -> None:
        self.stop_watching()

    def stop_watching(self) -> None:
        """For good: a load still running then stops the watcher it starts."""
        self._titles_listed.set()  # a load waiting on them goes on (and ends) rather than wait out its timeout
        with self._watching:
            self._stopped = True
            watcher, self.watcher = self.watcher, None
        if watcher is not None:
            watcher.stop()

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
            with collector_paused():
                self.vault = Vault.open(self.vault_path, flavour=self.flavour)
                # What was just read lives as long as the app: frozen before the collector wakes,
                # which walked all of it (15 ms at 10,000 documents) on the way to the first titles.
                gc.freeze()
            self.post_message(self.VaultOpened(len(self.vault)))
            # The summary (every problem, the graph) takes the interpreter for a while on a large
            # vault: the first titles go on screen before it starts.
            self._titles_listed.wait(timeout=2.0)
            summary = summarise(self.vault, self.vault_path)
        except Exception as exc:  # noqa: BLE001 - reported, never a traceback
            self._report(exc, "The vault could not be opened")
            return
        self.post_message(self.VaultRead(summary))
        # What was just read lives as long as the app: the cycle collector need never walk it again.
        # A full collection walked the whole vault (a few hundred milliseconds at 10,000
        # documents) at random moments, as the watcher brought in changes.
        gc.freeze()
        watcher = self.vault.watch(self._on_disk_change)
        with self._watching:
            if self._stopped:  # the person quit while the vault was being read
                watcher.stop()
            else:
                self.watcher = watcher

    def _on_disk_change(self, paths: list[str], seconds: float) -> None:
        """Called on the watcher's thread: never touch a widget here, only post."""
        self.post_message(self.DiskChanged(paths))

    @work(thread=True, exclusive=True, group="vault-summary")
    def resummarise(self) -> None:
        if self.vault is None:
            return
        try:
            summary = summarise(self.vault, self.vault_path)
        except Exception as exc:  # noqa: BLE001
            self._report(exc, "The vault could not be re-read")
            return
        if not get_current_worker().is_cancelled:
            self.post_message(self.VaultRead(summary))

    def find_conflicts(self, asked: bool = False) -> None:
        """Look for conflicts again; this is slow on a large vault, so at most one search runs (a
        change meanwhile asks for one more after it), and above `AUTO_CONFLICTS_LIMIT` documents
        only when the person `asked`."""
        if self.summary is None:
            return
        if not asked and len(self.summary.documents) > AUTO_CONFLICTS_LIMIT and not self._conflicts_busy:
            self.conflicts = None
            self.query_one(VaultHeader).conflicts = -1
            return
        if self._conflicts_busy:
            self._conflicts_stale = True
            return
        self._conflicts_busy, self._conflicts_stale = True, False
        self.query_one(VaultHeader).conflicts = None
        self._find_conflicts(self.summary.documents)

    # Each worker is described in words: by default Textual describes it by the repr of its
    # arguments, and the repr of ten thousand documents (or of a plan's bytes) took a second.
    @work(thread=True, group="vault-conflicts", description="find conflicts")
    def _find_conflicts(self, documents: tuple[Document, ...]) -> None:
        """Run on the documents as summarised, not on the live vault: `Vault.conflicts` would hold
        the vault's mutex for the whole (long) run and stall every search meanwhile."""
        from ...core.conflicts import find_conflicts  # not needed for the first screen

        try:
            conflicts = find_conflicts(documents, self.vault is None or self.vault.flavour.native)
        except Exception as exc:  # noqa: BLE001
            self._report(exc, "Conflicts could not be listed")
            conflicts = None
        self.post_message(self.ConflictsFound(conflicts))

    @work(thread=True, exclusive=True, group="vault-read")
    def read_document(
        self,
        doc_id: str,
        remember: bool = True,
        focus: str | None = None,
        from_disk: bool = False,
        words: tuple[str, ...] = (),
    ) -> None:
        if self.vault is None or self.summary is None:
            return
        try:
            view = read_view(self.vault, self.summary.graph, doc_id, self.graph_depth, self.graph_filter)
        except Exception as exc:  # noqa: BLE001
            if isinstance(exc, FileNotFoundError) or doc_id not in self.vault:
                self.post_message(self.DocumentGone(doc_id, remember, from_disk))
            else:
                self._report(exc, "Cannot open it")
            return
        if not get_current_worker().is_cancelled:  # a newer request superseded this one
            self.post_message(self.DocumentRead(view, remember, focus, from_disk, words))

    def _on_disk(self, path: str) -> bytes | None:
        """The file's bytes now (None if it is gone)."""
        assert self.vault is not None
        try:
            return read_file(self.vault.root / path)  # a pipe put there is never opened to block
        except OSError:
            return None

    @work(thread=True, exclusive=True, group="vault-write", description="plan a change")
    def plan_change(self, proposal: Proposal) -> None:
        """A dry run: the plan comes back to be shown as a diff, nothing is written yet. A plan
        that starts from another version of a file than the person read is not shown as if
        nothing happened: both versions come first."""
        from ..dialogs.external_change import Versions  # the dialogs: imported when first shown, not at start

        assert self.vault is not None
        try:
            plan = proposal.plan(self.vault)
        except ConflictError as exc:
            versions = Versions(exc.path, self._on_disk(exc.path), proposal.read.get(exc.path), planned=False)
            self.post_message(self.ExternalChange(versions, proposal))
            return
        except Exception as exc:  # noqa: BLE001
            self._report(exc)
            if proposal.back is not None:
                self.app.call_from_thread(proposal.back)  # refused: back to where it was asked for
            return
        moved = changed_since_read(plan, proposal.read)
        if moved is not None:
            versions = Versions(moved.path, moved.before, proposal.read[moved.path], planned=False)
            self.post_message(self.ExternalChange(versions, proposal))
            return
        self.post_message(self.PlanReady(plan, proposal))

    @work(thread=True, exclusive=True, group="vault-write", description="write a change")
    def apply_plan(self, plan: Plan, proposal: Proposal) -> None:
        """Write exactly the plan that was shown; the core refuses if a file changed meanwhile."""
        from ..dialogs.external_change import Versions

        assert self.vault is not None
        try:
            written = proposal.apply(self.vault, plan)
            self._written.update({c.path: c.after for c in written.changes if c.after is not None})
            self._removed.update(c.path for c in written.changes if c.after is None)
            summary = summarise(self.vault, self.vault_path)
        except ConflictError as exc:
            ours = next((c.after for c in plan.changes if c.path == exc.path), None)
            self.post_message(
                self.ExternalChange(Versions(exc.path, self._on_disk(exc.path), ours, planned=True), proposal)
            )
            return
        except Exception as exc:  # noqa: BLE001
            self._report(exc, "Nothing was written" if not plan.applied else "Written, but not re-read")
            return
        self.post_message(self.VaultRead(summary))
        self.post_message(self.ChangeApplied(written, proposal))

    # -- results coming back ----------------------------------------------------------------

    @on(VaultOpened)
    def _vault_opened(self, message: VaultOpened) -> None:
        search = self.query_one(SearchPane)
        search.total = message.total
        search.searcher = self.vault.search if self.vault is not None else None
        self._searched_since_open = True

    @on(VaultRead)
    def _vault_read(self, message: VaultRead) -> None:
        summary = self.summary = message.summary
        header = self.query_one(VaultHeader)
        header.vault_name, header.documents = summary.name, summary.files
        header.errors, header.warnings = summary.errors, summary.warnings
        self.find_conflicts()
        search = self.query_one(SearchPane)
        search.total = len(summary.documents)
        search.suggest(summary.example_query)
        if self._searched_since_open:  # the titles on show already answer this very vault
            self._searched_since_open = False
        else:
            search.searcher = self.vault.search if self.vault is not None else None
        view = self.current
        if view is not None and view.document.id in summary.graph:
            # Another file may link here now, or no longer: the open document's links follow.
            links = self.query_one(LinkPane)
            now = link_groups(summary.graph, view.document.id, self.graph_depth, self.graph_filter)
            if now != links.neighbours:
                links.neighbours = now
        self.refresh_bindings()

    @on(ConflictsFound)
    def _conflicts_found(self, message: ConflictsFound) -> None:
        self._conflicts_busy = False
        if self._conflicts_stale:
            self.find_conflicts(asked=True)  # the vault moved meanwhile: this answer is already old
            return
        if message.conflicts is None:
            return
        self.conflicts = message.conflicts
        self.query_one(VaultHeader).conflicts = len(message.conflicts)
        self.refresh_bindings()
        if self._reopen_conflicts:
            self._reopen_conflicts = False
            self.action_conflicts()

    @on(DiskChanged)
    def _disk_changed(self, message: DiskChanged) -> None:
        """Someone changed files: search again at once (cheap), then recount; re-read the open
        document if it was one of them."""
        search = self.query_one(SearchPane)
        if self.vault is not None:
            search.searcher = self.vault.search
        self.resummarise()
        self._announce_agents(message.paths)
        view = self.current
        if view is None:
            return
        path = view.document.path
        ours = path in self._removed  # our own change removed it: `ChangeApplied` moves on from it
        self._removed.difference_update(message.paths)
        # A folder that vanished is reported as `folder/`, a sweep that caught up as no path at all.
        if not ours and (
            not message.paths or any(p == path or (p.endswith("/") and path.startswith(p)) for p in message.paths)
        ):
            self.read_document(view.document.id, remember=False, from_disk=True)

    def _announce_agents(self, paths: list[str]) -> None:
        """A toast for each request an agent has just left in a changed file (the watcher re-read them)."""
        if self.vault is None:
            return
        from ...core.inbox import requests as agent_requests

        # A sweep that caught up says no paths: a write whose event the OS lost is among all the
        # documents, and is news all the same.
        documents = (
            [doc for path in paths if (doc := self.vault.document_at(path)) is not None]
            if paths
            else self.vault.documents
        )
        fresh = [r for r in agent_requests(documents) if r.at > self._agents_seen]
        if fresh:
            self._agents_seen = max(r.at for r in fresh)
            more = f" (and {len(fresh) - 1} more)" if len(fresh) > 1 else ""
            self.notify(
                f"{fresh[0].agent}: {fresh[0].describe()}{more}",
                title="An agent wrote · i opens the inbox",
                markup=False,
            )

    @on(DocumentRead)
    def _document_read(self, message: DocumentRead) -> None:
        view = message.view
        viewer = self.query_one(DocumentViewer)
        before = viewer.view
        if message.remember or before is None or before.document.id != view.document.id:
            viewer.marked = message.words  # a re-read of the same document keeps its marks
        viewer.gone = False
        viewer.view = view
        if message.remember:
            self.history.visit(view.document.id)
        titles = self.summary.titles if self.summary else {}
        viewer.crumbs = tuple(titles.get(doc_id, doc_id) for doc_id in self.history.trail())
        if message.from_disk and before is not None and before.source != view.source:
            ours = self._written.get(view.document.path)
            if ours is None or ours.decode("utf-8", "replace") != view.source:
                self.notify(
                    f"{view.document.path} changed on disk; showing the new version",
                    title="Changed outside the workbench",
                    severity="warning",
                    markup=False,
                )
        # The text is what the person waits for: the links pane, the focus and with it the footer's
        # keys (whose every key is a widget made again) follow in the next frame.
        self.call_after_refresh(self._after_document_shown, view, message.focus)

    def _after_document_shown(self, view: DocumentView, focus: str | None) -> None:
        if self.current is not view:
            return  # another document came meanwhile, with its own
        self.query_one(LinkPane).neighbours = view.neighbours
        if focus:
            self.query_one(f"#{focus}").focus()
        self.refresh_bindings()

    @on(DocumentGone)
    def _document_gone(self, message: DocumentGone) -> None:
        """The open document's file is gone: keep it on show under a banner. A document met going
        back or forward is taken out of the history and stepped over; one asked for by name is
        said to be gone."""
        viewer = self.query_one(DocumentViewer)
        shown = viewer.view.document.id if viewer.view is not None else None
        if message.doc_id == shown and viewer.view.document.path in self._removed:
            self._left_behind(shown)  # our own change removed it, and says so
            return
        if message.doc_id == shown:
            viewer.gone = True
            self.refresh_bindings()
            if message.from_disk:
                self.notify(
                    f"{viewer.view.document.path} was deleted on disk",
                    title="Deleted outside the workbench",
                    severity="warning",
                    markup=False,
                )
            return
        if message.doc_id not in self.history:  # never opened here: a dangling link, not a deletion
            self.notify(
                f"No document of the vault is called {message.doc_id}",
                title="Cannot open it",
                severity="error",
                markup=False,
            )
            return
        step = self.history.drop(message.doc_id, shown)
        self.notify(
            f"{message.doc_id} was deleted on disk" + ("; skipped" if step else ""),
            title="No longer in the vault",
            severity="warning",
            markup=False,
        )
        if step < 0:
            self.action_back()
        elif step > 0:
            self.action_forward()

    def _left_behind(self, doc_id: str) -> None:
        """The change just written removed the document on show (an undone creation): it leaves the
        history, and the document before it comes back, or none. It is not shown as deleted on
        disk: nobody else deleted it, and the notice of the change says what it did."""
        self.history.drop(doc_id, None)
        before = self.history.current
        viewer = self.query_one(DocumentViewer)
        viewer.gone = False
        if before is not None and self.vault is not None and before in self.vault:
            self.read_document(before, remember=False)
        else:
            viewer.view = None
            self.query_one(LinkPane).neighbours = None
        self.refresh_bindings()

    def _refused_as_gone(self) -> bool:
        """Whether the open document's file is gone, said to the person: nothing can be written to it."""
        viewer = self.query_one(DocumentViewer)
        if viewer.gone and viewer.view is not None:
            self.notify(
                f"{viewer.view.document.path} was deleted on disk: there is nothing left to change",
                title="Refused",
                severity="error",
                markup=False,
            )
        return viewer.gone

    def action_lifecycle(self) -> None:
        if not self._refused_as_gone():
            super().action_lifecycle()

    def action_edit(self) -> None:
        if not self._refused_as_gone():
            super().action_edit()

    @on(PlanReady)
    def _plan_ready(self, message: PlanReady) -> None:
        plan, proposal = message.plan, message.proposal
        if plan.empty:
            self.notify(plan.summary, title="Nothing to change", markup=False)
            if proposal.back is not None:
                proposal.back()  # back where the person asked for it: the list they were in
            return

        def confirmed(apply: bool | None) -> None:
            if apply:
                self.apply_plan(plan, proposal)
            elif proposal.back is not None:
                proposal.back()  # one step back, to what the person typed or chose

        from ..dialogs.confirm_plan import ConfirmPlanDialog

        dialog = ConfirmPlanDialog(
            plan.summary, plan.diff(), title=proposal.title, files=plan.paths, unsaved=proposal.unsaved
        )
        self.app.push_screen(dialog, confirmed)

    @on(ExternalChange)
    def _external_change(self, message: ExternalChange) -> None:
        versions, proposal = message.versions, message.proposal

        def chosen(redo: bool | None) -> None:
            if self.current is not None and self.current.document.path == versions.path:
                self.read_document(self.current.document.id, remember=False)  # what is on disk now
            if not redo:
                self.notify(
                    f"Nothing was written; {versions.path} keeps what is on disk", title="Cancelled", markup=False
                )
                if proposal.back is not None and proposal.unsaved:
                    proposal.back()  # what the person typed is not dropped with the change
                return
            read = dict(proposal.read)
            if versions.on_disk is not None:
                read[versions.path] = versions.on_disk  # the person has now seen this version
            self.propose(dataclasses.replace(proposal, read=read))

        from ..dialogs.external_change import ExternalChangeDialog

        self.app.push_screen(ExternalChangeDialog(versions, proposal.title), chosen)

    @on(ChangeApplied)
    def _change_applied(self, message: ChangeApplied) -> None:
        plan, proposal = message.plan, message.proposal
        self.notify(plan.summary, title=proposal.written, markup=False)
        target = proposal.open_after(plan) if proposal.open_after else None
        if target is not None:
            self.open_document(target, focus="viewer")
        elif self.current is not None and self.vault is not None:
            if self.current.document.id in self.vault:
                self.read_document(self.current.document.id, remember=False)
            elif any(c.path == self.current.document.path and c.after is None for c in plan.changes):
                self._left_behind(self.current.document.id)  # this change removed it
        if proposal.then is not None:
            proposal.then()

    @on(Failed)
    def _failed(self, message: Failed) -> None:
        if self.vault is None:
            self.query_one(SearchPane).unavailable(f"{message.title}: {message.reason}")
            self.query_one(VaultHeader).unopened = True
        self.notify(message.reason, title=message.title, severity="error", markup=False, timeout=8)

    # -- requests from the panes --------------------------------------------------------------

    @on(SearchPane.Listed)
    def _listed(self) -> None:
        self._titles_listed.set()

    @on(SearchPane.Goto)
    def _goto_from_search(self, message: SearchPane.Goto) -> None:
        """Open the hit with the query's words marked in it, so the person sees why it matched."""
        words = query_words(self.query_one(SearchPane).query_text)
        self._filter_for(message.doc_id)
        self.read_document(message.doc_id, remember=True, focus="viewer", words=words)

    @on(LinkPane.Goto)
    @on(DocumentViewer.Goto)
    def _goto_link(self, message: LinkPane.Goto | DocumentViewer.Goto) -> None:
        self.open_document(message.doc_id)

    @on(LinkPane.Settings)
    def _graph_settings(self, message: LinkPane.Settings) -> None:
        self.graph_depth, self.graph_filter = message.depth, message.link_type
        if self.current is not None:
            self.read_document(self.current.document.id, remember=False)

    def open_document(self, doc_id: str, focus: str | None = None) -> None:
        """Open `doc_id` and remember it in the history; `focus` names the pane to focus after."""
        self._filter_for(doc_id)
        self.read_document(doc_id, remember=True, focus=focus)

    def _filter_for(self, doc_id: str) -> None:
        """A link-type filter (`t`) is for the document it was chosen on: another document shows
        every type of its own links (a filter kept unseen hid links in a pane often off screen)."""
        if self.current is None or self.current.document.id != doc_id:
            self.graph_filter = None

    def propose(self, proposal: Proposal) -> None:
        """Plan a change, show it, write it if confirmed (see `Proposal`)."""
        if self.vault is not None:
            self.plan_change(proposal)

    # -- actions ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide what cannot apply (no document, not superseded; a key then says why, see
        `action_explain`); dim back and forward at the ends, hide back until there is a way back, and
        dim the flows the vault's format cannot carry out (pressed, they say why)."""
        view = self.current
        if (
            action in ("lifecycle", "new_document", "consolidate")
            and self.summary is not None
            and self.flow_refusal(action)
        ):
            return None
        if action in ("lifecycle", "edit") and view is not None and self.query_one(DocumentViewer).gone:
            return False  # nothing left on disk to change: hidden, and the key says so (`action_explain`)
        if action in ("lifecycle", "toggle_raw", "edit"):
            return view is not None
        if action in ("undo", "redo", "undo_history", "problems", "conflicts", "new_document", "consolidate", "inbox"):
            return self.summary is not None
        if action == "successor":
            return bool(view and view.successors)
        if action == "back" and self.query_one(SearchPane).typing:
            return False  # backspace deletes a letter in the box: not offered there
        if action == "back":
            return (self.history.can_go_back or None) if len(self.history) > 1 else False
        if action == "forward":
            return self.history.can_go_forward or None
        if action == "leave_links":
            return self.has_class("-narrow") and self.has_class("-show-links") and self.maximized is None
        if action == "focus_search":
            return not self.query_one(SearchPane).typing
        if action == "maximise":
            return self.maximized is None
        if action == "restore":
            return self.maximized is not None
        return True

    def action_focus_search(self) -> None:
        self.remove_class("-show-links")
        self.query_one(SearchPane).focus_input()

    def action_focus_links(self) -> None:
        """To the links; from the links, back to the results (a toggle, so that `g` undoes itself
        where the links take the results' place)."""
        links = self.query_one(LinkPane)
        if links.has_focus:
            self.action_leave_links()
            return
        self.add_class("-show-links")
        links.focus()

    def action_leave_links(self) -> None:
        self.remove_class("-show-links")
        self.query_one("#results").focus()

    def action_back(self) -> None:
        if (doc_id := self.history.back()) is not None:
            self._filter_for(doc_id)
            self.read_document(doc_id, remember=False)

    def action_forward(self) -> None:
        if (doc_id := self.history.forward()) is not None:
            self._filter_for(doc_id)
            self.read_document(doc_id, remember=False)

    def action_toggle_raw(self) -> None:
        viewer = self.query_one(DocumentViewer)
        viewer.raw = not viewer.raw

    def action_explain(self, key: str) -> None:
        """A key whose action cannot apply now (the footer hides it) says why, instead of nothing."""
        view = self.current
        if view is None:
            what = {"l": "change its status", "e": "edit it", "r": "see its source", "s": "open its successor"}[key]
            self.notify(
                f"Open a document first to {what}: / to search, enter to open", title="No document open", markup=False
            )
        elif key in ("l", "e"):
            self._refused_as_gone()
        elif key == "s":
            self.notify(
                f"{view.document.id} is {view.document.status}: nothing supersedes it",
                title="No successor",
                markup=False,
            )

    def action_links(self, what: str) -> None:
        """A links-pane key pressed elsewhere: bring the pane into view (and the focus to it), then do it."""
        links = self.query_one(LinkPane)
        if links.neighbours is None:
            self.notify(
                "Open a document first: its links are listed in the links pane (g)",
                title="No document open",
                markup=False,
            )
            return
        self.action_focus_links()
        {
            "deeper": lambda: links.action_depth(1),
            "shallower": lambda: links.action_depth(-1),
            "filter": links.action_cycle_filter,
            "pack": links.action_toggle_pack,
        }[what]()

    def action_maximise(self) -> None:
        """The pane that has the focus takes the whole window (the footer stays)."""
        focused = self.focused
        pane = next(
            (
                p
                for p in (self.query_one(SearchPane), self.query_one(DocumentViewer), self.query_one(LinkPane))
                if focused is not None and (focused is p or p in focused.ancestors)
            ),
            None,
        )
        self.maximized = pane or self.query_one(DocumentViewer)

    def action_restore(self) -> None:
        self.minimize()

    def watch_maximized(self) -> None:
        """`m` or `escape` changed what is maximised: the footer offers the other of the two."""
        self.refresh_bindings()

    def action_successor(self) -> None:
        if self.current and self.current.successors:
            self.open_document(next(iter(self.current.successors)), focus="viewer")

    def action_sync(self) -> None:
        """The sync dialog; what a pull writes reaches the panes through the vault's watcher."""
        from ..dialogs.sync_merge import SyncDialog

        if self.vault is not None:
            self.app.push_screen(SyncDialog(self.vault.root))
