"""Looking for the vault's conflicts in the background, without ever holding up the person.

Comparing every decision and every document of a type with the others takes seconds on a large
vault, so `ConflictsSearch` runs it in a worker of the screen, on the documents as last summarised
(the live vault would be locked for the whole run), at most one at a time: a change meanwhile asks
for one more after it, since the answer on its way is already old. The vault keeps its last queue
in its derived store, so an unchanged vault answers at once, even one worked out by the command
line. Above `AUTO_CONFLICTS_LIMIT` documents only a kept queue is shown unasked; working it out
waits for the person to ask (`c`), and is done in a process of its own (`queue_process`: minutes
of Python at 100,000 documents, some of it in calls that would hold the screen for seconds), the
queue read back from the store. The queue reopens itself when asked to
(`reopen`): after a resolution was written, or when `c` was pressed before the first answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..queue_process import QueueProcess
from .messages import ConflictsFound, ConflictsStep

if TYPE_CHECKING:
    from ...core import Conflict, Conflicts, Document, Vault
    from ..dialogs.conflicts import ConflictsDialog
    from .host import ConflictsHost

__all__ = ["AUTO_CONFLICTS_LIMIT", "ConflictsSearch"]

AUTO_CONFLICTS_LIMIT = 1500
"""Above this many documents conflicts are looked for only when asked (`c`): the search compares
the documents of each type with one another, about 5 s at 10,000, holding the interpreter meanwhile."""


class ConflictsSearch:
    """When to look for conflicts, and what to do with the answer (see the module)."""

    def __init__(self, host: ConflictsHost, limit: int | None = None) -> None:
        self.host = host
        self.limit = limit
        """Above this many documents, only when asked; None: `AUTO_CONFLICTS_LIMIT`."""
        self.busy = False
        """A search is running."""
        self.stale = False
        """The vault changed while it ran: run it again after."""
        self.reopen = False
        """Open the queue when the next answer comes."""
        self.asked = False
        """The running search was asked for (`c`), so one after it may work the queue out too."""
        self.kept_only = False
        """The running search only reads a kept queue (a large vault, not asked)."""
        self.process = QueueProcess()
        """Where a large vault's queue is worked out when none is kept."""

    def look(self, asked: bool = False) -> None:
        """Look for conflicts again, unless the vault is large and the person did not ask; when a
        search is running, once more after it."""
        summary = self.host.summary
        if summary is None:
            return
        limit = AUTO_CONFLICTS_LIMIT if self.limit is None else self.limit
        asked = asked or self._open_queue() is not None  # the person is working the queue: it follows
        kept_only = not asked and len(summary.documents) > limit
        if kept_only and not self.busy:
            self.host.conflicts = None
            self.host.count_conflicts(-1)
            if self.host.vault is None:
                return
        if self.busy:
            self.stale = True
            return
        self.busy, self.stale, self.asked, self.kept_only = True, False, asked, kept_only
        if not kept_only:
            self.host.count_conflicts(None, asked)
        documents = summary.documents
        vault = self.host.vault
        native = vault is None or vault.flavour.native
        # Described in words: by default Textual describes a worker by the repr of its arguments,
        # and the repr of ten thousand documents took a second.
        elsewhere = not kept_only and len(documents) > limit
        self.host.run_worker(
            lambda: self._find(documents, native, vault, kept_only, elsewhere),
            thread=True,
            group="vault-conflicts",
            description="find conflicts",
        )

    def ask(self, fresh: bool = True) -> None:
        """The person wants the queue: open it once the conflicts are found; `fresh`: those of the
        vault as it is now (a search already running started too early: another follows it)."""
        self.reopen = True
        if fresh or not self.busy:
            self.look(asked=True)

    def stop(self) -> None:
        """The app is closing: a queue being worked out in its process is dropped."""
        self.process.stop()

    def _find(
        self, documents: tuple[Document, ...], native: bool, vault: Vault | None, kept_only: bool, elsewhere: bool
    ) -> None:
        """In the worker's thread: post what was found (None when the search failed, it is said,
        or when only a kept queue was asked for and none is kept). `elsewhere`: a queue not kept
        is worked out in its own process (`queue_process`), then read back; where the vault changed
        meanwhile, what changed is weighed here, the rest read from what the process kept."""
        from ...core import find_conflicts  # not needed for the first screen

        try:
            if vault is None:
                conflicts = None if kept_only else _made(lambda: find_conflicts(documents, native))
            elif kept_only or elsewhere:
                conflicts = _made(vault.kept_conflicts)
                if conflicts is None and elsewhere:
                    if not self.process.work_out(vault.root, vault.flavour.name, self._said):
                        return  # the app is closing
                    conflicts = _made(lambda: _kept_else_worked_out(vault))
            else:
                conflicts = _made(vault.conflicts)
        except Exception as exc:  # noqa: BLE001
            self.host.report(exc, "Conflicts could not be listed")
            conflicts = None
        self.host.post_message(ConflictsFound(conflicts))

    def _open_queue(self) -> ConflictsDialog | None:
        """The conflicts queue's dialog, if it is open (anywhere in the stack: its keys' list may be over it)."""
        from ..dialogs.conflicts import ConflictsDialog

        return next((s for s in self.host.app.screen_stack if isinstance(s, ConflictsDialog)), None)

    def _said(self, step: str) -> None:
        """In the worker's thread: the step the queue's process has started, for the header."""
        self.host.post_message(ConflictsStep(step))

    def found(self, conflicts: list[Conflict] | None) -> None:
        """The answer came back: keep it, unless the vault moved meanwhile (then look again)."""
        self.busy = False
        if self.stale:
            self.look(asked=self.asked)
            return
        if conflicts is None:
            if self.reopen and self.kept_only:
                # `c` came while a large vault's kept queue was looked for, and none is kept.
                self.look(asked=True)
            return
        self.host.conflicts = conflicts
        self.host.count_conflicts(len(conflicts))
        dialog = self._open_queue()
        if dialog is not None:  # open while the vault changed: it lists what was found, in place
            self.reopen = False
            dialog.follow(conflicts, self.host.summary.by_id if self.host.summary else dialog.documents)
            return
        if self.reopen:
            self.reopen = False
            self.host.action_conflicts()


def _made(find: Callable[[], Conflicts | None]) -> Conflicts | None:
    """`find()` with the collector paused, a large answer frozen after. The queue's entries stay
    alive as long as it is shown (75,000 conflicts, a million objects, at 100,000 documents): with
    the collector running, its full collections walked them again and again (250-450 ms each, on
    the screen's thread too)."""
    from ...core import Vault

    with Vault.collector_paused():
        found = find()
        Vault.settle_collector(len(found or ()))
    return found


def _kept_else_worked_out(vault: Vault) -> Conflicts:
    """The queue the process kept; where the vault changed since it read it, worked out here from
    what it kept (only the pairs the change touches are weighed again)."""
    kept = vault.kept_conflicts()
    return kept if kept is not None else vault.conflicts()
