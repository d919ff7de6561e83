"""The main screen: search, viewer and links side by side, and the routing between them.

The panes post what the person asks for (`Goto`); this screen does the vault's work in thread
workers and hands the results back down as attributes. Workers post result messages
(`messages.py`) rather than touching widgets, so tests can watch the same messages the screen
reacts to. The vault's file watcher runs on its own thread and only ever posts `DiskChanged`.

Around it, each in a module of its own: its keys (`main_bindings.py`); the guided flows behind
`l`, `u`, `e`, `p`, `c`, `n`, `o`, `i` (`flows.py`), which ask the screen only what `FlowHost`
(`host.py`) names; the way every change reaches the disk, planned, previewed and written once
confirmed (`proposing.py`); and the memory of its own writes, so the watcher's echo of them is
not news (`own_writes.py`).
"""

from __future__ import annotations

import gc
import threading
from pathlib import Path
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.worker import get_current_worker

from ...core import WorkbenchError
from ..history import History
from ..opening import Opening
from ..summary import VaultSummary, empty_note, hand_on, summarise
from ..text import query_words
from ..widgets.footer import KeysFooter
from ..widgets.link_pane import LinkPane
from ..widgets.search import SearchPane
from ..widgets.vault_header import VaultHeader
from ..widgets.viewer import DocumentViewer
from .conflicts_search import ConflictsSearch
from .disk_news import DiskNews
from .layout_kept import LayoutKeptScreen
from .main_bindings import MAIN_BINDINGS
from .messages import ChangeApplied, ConflictsFound, DiskChanged, DocumentGone, DocumentRead
from .messages import ExternalChange, Failed, PlanReady, VaultOpened, VaultRead
from .own_writes import OwnWrites
from .start import Start

if TYPE_CHECKING:
    from ...core import Conflict, Vault, VaultWatcher
    from ..proposal import Proposal
    from ..reading import DocumentView
    from .flows import GuidedFlows
    from .proposing import ProposalRunner

__all__ = ["MainScreen", "VaultSummary"]


class MainScreen(LayoutKeptScreen):
    """Three panes; below 100 columns the link pane gives way (press `g` to swap it in)."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide"), (140, "-very-wide")]
    AUTO_FOCUS = "#results"
    """The focus starts on the results, not in the box: single keys (`?`, `q`, `n`, `c`) work at
    once and the footer lists them; `/` goes to the box. (Focusing the box first and then the
    results laid the footer out once more before the first titles.)"""

    BINDINGS: ClassVar[list[BindingType]] = MAIN_BINDINGS

    def __init__(self, vault_path: Path, flavour: str | None = None, opening: Opening | None = None, kept=()) -> None:
        super().__init__()
        self.vault_path = vault_path
        self.flavour = flavour  # the vault flavour named on the command line; None to detect it
        self.opening = opening
        """The vault being opened already (by the app, from its start); None: the screen opens it."""
        self.start = Start(vault_path, flavour, opening, kept)
        """`kept`: the titles kept from the last launch, on show until the vault is read (`start.py`)."""
        self.vault: Vault | None = None
        self.summary: VaultSummary | None = None
        """The vault as last read: what the header, the search and the palette show."""
        self.conflicts: list[Conflict] | None = None
        """The conflicts as last found; None until the first search for them has finished."""
        self.conflicts_search = ConflictsSearch(self)
        self._searched_since_open = False
        """The search pane already lists the vault just opened (so its first summary need not search again)."""
        self._titles_listed = threading.Event()
        """The search pane has listed the vault's first titles (set once)."""
        self._watching = threading.Lock()
        self._stopped = False
        """The screen has stopped watching for good (the person quit): no watcher may start after."""
        self.history = History()
        self.watcher: VaultWatcher | None = None
        self.graph_depth = 1
        self.graph_filter: str | None = None
        """The graph navigator's depth and link-type filter (`+`/`-`, `t` in the links pane)."""
        self.own_writes = OwnWrites()
        """What our own writes left on disk (and removed), so the watcher's echo of them is not news."""
        self.disk_news = DiskNews(self)

    @cached_property
    def flows(self) -> GuidedFlows:
        from .flows import GuidedFlows  # not at start, as `read_view`: the first titles need no flow

        return GuidedFlows(self)

    @cached_property
    def proposals(self) -> ProposalRunner:
        from .proposing import ProposalRunner  # not at start: the first titles need no change written

        return ProposalRunner(self)

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield VaultHeader()
        with Horizontal(id="panes"):
            yield SearchPane(id="search", kept=self.start.kept)
            yield DocumentViewer(id="viewer")
            yield LinkPane(id="links")
        yield KeysFooter(compact=True)  # two columns more per key: at 80 columns every one counts

    def on_mount(self) -> None:
        self.query_one(VaultHeader).vault_name = self.vault_path.name
        search = self.query_one(SearchPane)
        search.snippets = lambda query, hits: self.vault.snippets(query, hits) if self.vault is not None else {}
        self.start.begin(self, self.load_vault)

    def on_unmount(self) -> None:
        self.stop_watching()

    def stop_watching(self) -> None:
        """For good: a load still running then stops the watcher it starts; a queue's process ends."""
        self.conflicts_search.stop()
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

    def report(self, exc: Exception, title: str = "Refused") -> None:
        """A failed vault call becomes a notification: a refusal in its own words, a bug by its type."""
        if isinstance(exc, (WorkbenchError, OSError)):
            self.post_message(Failed(str(exc), title))
        else:
            self.post_message(Failed(f"{type(exc).__name__}: {exc}", f"Unexpected error ({title.lower()})"))

    @work(thread=True, exclusive=True, group="vault-load")
    def load_vault(self) -> None:
        try:
            self.vault = self.start.opened(self.opening or Opening(self.vault_path, self.flavour))
            self.post_message(VaultOpened(len(self.vault), empty_note(self.vault), self.vault.secret_note(ask=True)))
            # The summary (every problem, the graph) takes the interpreter for a while on a large
            # vault: the first titles go on screen before it starts.
            self._titles_listed.wait(timeout=2.0)
            self.start.keep()
            summary = summarise(self.vault, self.vault_path)
        except Exception as exc:  # noqa: BLE001 - reported, never a traceback
            self.report(exc, "The vault could not be opened")
            return
        self.post_message(VaultRead(summary))
        # What was just read lives as long as the app: no full collection need walk it again (a few
        # hundred milliseconds at 10,000 documents, at random moments as the watcher brought in changes).
        gc.freeze()
        watcher = self.vault.watch(self._on_disk_change)
        with self._watching:
            if self._stopped:  # the person quit while the vault was being read
                watcher.stop()
            else:
                self.watcher = watcher

    def _on_disk_change(self, paths: list[str], seconds: float) -> None:
        """Called on the watcher's thread: never touch a widget here, only post."""
        self.post_message(DiskChanged(paths))

    @work(thread=True, exclusive=True, group="vault-summary")
    def resummarise(self) -> None:
        if self.vault is None:
            return
        try:
            summary = summarise(self.vault, self.vault_path)
        except Exception as exc:  # noqa: BLE001
            self.report(exc, "The vault could not be re-read")
            return
        if not get_current_worker().is_cancelled:
            self.post_message(VaultRead(summary))

    @work(thread=True, exclusive=True, group="vault-read")
    def read_document(
        self,
        doc_id: str,
        remember: bool = True,
        focus: str | None = None,
        from_disk: bool = False,
        words: tuple[str, ...] = (),
    ) -> None:
        if not self.start.wait_for_vault() or self.vault is None:  # a kept title opened early waits for it
            return
        from ..reading import read_view  # not at start: the first titles need no document read

        try:
            graph = self.summary.graph if self.summary is not None else None  # None: links follow the summary
            view = read_view(self.vault, graph, doc_id, self.graph_depth, self.graph_filter)
        except Exception as exc:  # noqa: BLE001
            if isinstance(exc, FileNotFoundError) or doc_id not in self.vault:
                self.post_message(DocumentGone(doc_id, remember, from_disk))
            else:
                self.report(exc, "Cannot open it")
            return
        if not get_current_worker().is_cancelled:  # a newer request superseded this one
            self.post_message(DocumentRead(view, remember, focus, from_disk, words, graph))

    # -- results coming back ----------------------------------------------------------------

    @on(VaultOpened)
    def _vault_opened(self, message: VaultOpened) -> None:
        search = self.query_one(SearchPane)
        search.total = message.total
        search.searcher = self.vault.search if self.vault is not None else None
        self._searched_since_open = True
        if message.note:
            self.notify(message.note, title="No documents", markup=False, timeout=15)
        if message.secret:  # copied vaults' stores are built again until it is mended
            self.notify(message.secret, title="Store secret", severity="warning", markup=False, timeout=20)

    @on(VaultRead)
    def _vault_read(self, message: VaultRead) -> None:
        summary = self.summary = message.summary
        header = self.query_one(VaultHeader)
        header.vault_name, header.documents = summary.name, summary.files
        header.errors, header.warnings = summary.errors, summary.warnings
        self.conflicts_search.look()
        search = self.query_one(SearchPane)
        search.total = len(summary.documents)
        search.suggest(summary.example_query)
        if self._searched_since_open:  # the titles on show already answer this very vault
            self._searched_since_open = False
        else:
            search.searcher = self.vault.search if self.vault is not None else None
        view = self.current
        if view is not None and view.neighbours.pending:
            self.read_document(view.document.id, remember=False)  # opened before the vault was read
        elif view is not None and view.document.id in summary.graph:
            from ..neighbours import link_groups  # not at start: the first titles need no links

            # Another file may link here now, or no longer: the open document's links follow.
            links = self.query_one(LinkPane)
            now = link_groups(summary.graph, view.document.id, self.graph_depth, self.graph_filter)
            if now != links.neighbours:
                links.neighbours = now
        hand_on(summary, self.app.screen_stack)
        self.refresh_bindings()

    @on(ConflictsFound)
    def _conflicts_found(self, message: ConflictsFound) -> None:
        self.conflicts_search.found(message.conflicts)

    @on(DiskChanged)
    def _disk_changed(self, message: DiskChanged) -> None:
        self.disk_news.changed(message.paths)

    @on(DocumentGone)
    def _document_gone(self, message: DocumentGone) -> None:
        self.disk_news.gone(message.doc_id, message.from_disk)
        self.release_keys()

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
            if not self.own_writes.is_ours(view.document.path, view.source):
                self.notify(
                    f"{view.document.path} changed on disk; showing the new version",
                    title="Changed outside the workbench",
                    severity="warning",
                    markup=False,
                )
        if view.neighbours.pending and self.summary is not None:  # read before the summary came
            self.read_document(view.document.id, remember=False)
        # The text is what the person waits for: the links pane, the focus and with it the footer's
        # keys (whose every key is a widget made again) follow in the next frame.
        self.call_after_refresh(self._after_document_shown, view, message.focus, message.graph)

    def _after_document_shown(self, view: DocumentView, focus: str | None, graph: object = None) -> None:
        if self.current is not view:
            return  # another document came meanwhile, with its own
        neighbours = view.neighbours
        if graph is not None and self.summary is not None and self.summary.graph is not graph:
            # Read from an older graph than the one on show now: a file written elsewhere while this
            # one was read (another session, an agent) may link here now, or no longer.
            from ..neighbours import link_groups

            neighbours = link_groups(self.summary.graph, view.document.id, self.graph_depth, self.graph_filter)
        self.query_one(LinkPane).neighbours = neighbours
        if focus:
            self.query_one(f"#{focus}").focus()
        self.refresh_bindings()
        self.release_keys()

    def release_keys(self) -> None:
        """The document asked for is on show (or will not be): keys typed after asking act now,
        once the focus has moved (`typeahead.py`)."""
        typeahead = getattr(self.app, "typeahead", None)
        if typeahead is not None:
            self.app.call_later(typeahead.release)

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

    # -- the guided flows (flows.py) ----------------------------------------------------------

    def action_lifecycle(self) -> None:
        if not self._refused_as_gone():
            self.flows.lifecycle()

    def action_edit(self) -> None:
        if not self._refused_as_gone():
            self.flows.edit()

    def action_undo(self) -> None:
        self.flows.undo()

    def action_redo(self) -> None:
        self.flows.redo()

    def action_undo_history(self) -> None:
        self.flows.undo_history()

    def action_problems(self) -> None:
        self.flows.problems()

    def action_conflicts(self) -> None:
        self.flows.conflicts()

    def action_new_document(self) -> None:
        self.flows.new_document()

    def action_consolidate(self) -> None:
        self.flows.consolidate()

    def action_inbox(self) -> None:
        self.flows.inbox()

    def ask_for_conflicts(self, fresh: bool = True) -> None:
        """Open the conflicts queue once they are found; `fresh`: see `ConflictsSearch.ask`."""
        self.conflicts_search.ask(fresh)

    def count_conflicts(self, count: int | None, asked: bool = False) -> None:
        """The header's count (`VaultHeader.count_conflicts`)."""
        self.query_one(VaultHeader).count_conflicts(count, asked)
        if count is not None and count >= 0:  # the footer offers `c` once there is a count
            self.refresh_bindings()

    def on_key(self, event: events.Key) -> None:
        """A key whose flow the vault's format cannot finish is dimmed in the footer, so Textual
        does not run it: say why, and the way out, instead of nothing."""
        active = self.active_bindings.get(event.key)
        if active is None or active.node is not self or active.enabled:
            return
        reason = self.flows.refusal(active.binding.action)
        if reason:
            event.stop()
            self.notify(
                reason,
                title=f"{active.binding.description}: not in this vault's format",
                severity="warning",
                markup=False,
                timeout=10,
            )

    @on(PlanReady)
    def _plan_ready(self, message: PlanReady) -> None:
        self.proposals.preview(message.plan, message.proposal)

    @on(ExternalChange)
    def _external_change(self, message: ExternalChange) -> None:
        self.proposals.changed_outside(message.versions, message.proposal)

    @on(ChangeApplied)
    def _change_applied(self, message: ChangeApplied) -> None:
        plan, proposal = message.plan, message.proposal
        self.notify(plan.summary, title=proposal.written, markup=False)
        self.proposals.say_new_problems(message.new_problems)
        target = proposal.open_after(plan) if proposal.open_after else None
        if target is not None:
            self.open_document(target, focus="viewer")
        elif self.current is not None and self.vault is not None:
            if self.current.document.id in self.vault:
                self.read_document(self.current.document.id, remember=False)
            elif any(c.path == self.current.document.path and c.after is None for c in plan.changes):
                self.disk_news.left_behind(self.current.document.id)  # this change removed it
        if proposal.then is not None:
            proposal.then()

    @on(Failed)
    def _failed(self, message: Failed) -> None:
        if self.vault is None:
            self.query_one(SearchPane).unavailable(f"{message.title}: {message.reason}")
            self.query_one(VaultHeader).unopened = True
        self.notify(message.reason, title=message.title, severity="error", markup=False, timeout=8)
        self.release_keys()

    # -- requests from the panes --------------------------------------------------------------

    @on(SearchPane.NothingOpened)
    def _nothing_opened(self) -> None:
        self.release_keys()

    @on(SearchPane.Listed)
    def _listed(self) -> None:
        self.start.listed(self.query_one(SearchPane).first_page)
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
        self.proposals.propose(proposal)

    # -- actions ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide what cannot apply (no document, not superseded; a key then says why, see
        `action_explain`); dim back and forward at the ends, hide back until there is a way back, and
        dim the flows the vault's format cannot carry out (pressed, they say why)."""
        view = self.current
        if (
            action in ("lifecycle", "new_document", "consolidate")
            and self.summary is not None
            and self.flows.refusal(action)
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
        self.flows.sync()
