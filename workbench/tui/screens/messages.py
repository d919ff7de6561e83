"""What the main screen's workers post back to it, and what the vault's watcher posts.

Workers never touch a widget: they post one of these, and the screen (on the app's thread) puts the
result on show. Tests watch the same messages the screen reacts to, imported from here: the screen
does not re-bind them as its own attributes, so each has one name the type checker follows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from ...core import Plan, Problem
    from ..proposal import Proposal
    from ..reading import DocumentView
    from ..summary import VaultSummary
    from ...core import Conflict
    from ..dialogs.external_change import Versions

__all__ = [
    "ChangeApplied",
    "ConflictsFound",
    "ConflictsStep",
    "DiskChanged",
    "DocumentGone",
    "DocumentRead",
    "ExternalChange",
    "Failed",
    "PlanReady",
    "VaultOpened",
    "VaultRead",
]


class VaultOpened(Message):
    """The vault can be searched: its titles go on screen now, its summary (problems, the
    graph) follows in `VaultRead`."""

    def __init__(self, total: int, note: str | None = None, secret: str | None = None) -> None:
        super().__init__()
        self.total = total
        self.note = note
        """What a vault with no documents is (an empty folder: a new vault), said to the person."""
        self.secret = secret
        """Why the user's store secret is refused, and how to mend it (`Vault.secret_note`)."""


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
        graph: object = None,
    ) -> None:
        super().__init__()
        self.view = view
        self.remember = remember
        self.focus = focus
        self.from_disk = from_disk
        """Re-read because the watcher saw its file change (not because the person asked)."""
        self.words = words
        """The words of the search it was opened from, to mark in it."""
        self.graph = graph
        """The graph the view's links were read from: a newer one may be on show when it lands."""


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


class ConflictsStep(Message):
    """The step the conflicts queue's process has started (`reading the vault`, `weighing 100000
    documents`): said in the header beside the seconds, while the person waits minutes."""

    def __init__(self, step: str) -> None:
        super().__init__()
        self.step = step


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
    def __init__(self, plan: Plan, proposal: Proposal, new_problems: Sequence[Problem] = ()) -> None:
        super().__init__()
        self.plan = plan
        self.proposal = proposal
        self.new_problems = tuple(new_problems)
        """Problems the vault has after the change that it did not have before (new stale links)."""


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
