"""What the guided flows may ask of the screen that hosts them: this, and nothing else.

The flows (`flows.py`: lifecycle, undo, edit, problems, conflicts, the write gate, consolidation,
the inbox) open dialogs and turn answers into `Proposal`s; the screen owns the vault, the panes and
the way a proposal is previewed and written. `FlowHost` is the whole of their contract, in public
names: a flow reads the vault and what is on show, proposes a change, opens a document, runs a
worker, says something, or asks for the conflicts queue. `WriteHost` is the same for the
`ProposalRunner` (`proposing.py`), which also re-reads the document on show after a file changed.
`tests/tui/test_tui_contracts.py` checks that `MainScreen` provides every name of both and that
the flows and the runner use no other.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message
    from textual.notifications import SeverityLevel
    from textual.worker import Worker

    from ...core import Conflict, Vault
    from ..proposal import Proposal
    from ..reading import DocumentView
    from ..summary import VaultSummary
    from textual.widget import Widget

    from ..history import History
    from .own_writes import OwnWrites

    W = TypeVar("W", bound=Widget)

__all__ = ["ConflictsHost", "DiskHost", "FlowHost", "WorkerHost", "WriteHost"]


class WorkerHost(Protocol):
    """What every helper of the screen may ask of it: run work in a worker, post what it found,
    and say that a vault call failed."""

    def post_message(self, message: Message) -> bool: ...

    def run_worker(
        self,
        work: Callable[[], Any],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[Any]: ...

    def report(self, exc: Exception, title: str = "Refused") -> None:
        """Say that a vault call failed (safe from a worker's thread)."""
        ...


class FlowHost(WorkerHost, Protocol):
    """The main screen as the guided flows see it."""

    vault: Vault | None
    """The open vault; None while it is read (or when it could not be)."""
    vault_path: Path
    summary: VaultSummary | None
    """The vault as last read: its documents, problems and graph."""
    conflicts: list[Conflict] | None
    """The conflicts as last found; None until a search for them has finished."""
    graph_depth: int
    graph_filter: str | None
    own_writes: OwnWrites
    """Where a flow that writes outside a proposal (the person's editor) says what it left."""

    @property
    def app(self) -> App[Any]: ...

    @property
    def current(self) -> DocumentView | None:
        """The document on show, None when none is."""
        ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def propose(self, proposal: Proposal) -> None:
        """Plan the change, show its diff, write it once the person confirms."""
        ...

    def open_document(self, doc_id: str, focus: str | None = None) -> None:
        """Open a document (remembered in the history); `focus` names the pane to focus after."""
        ...

    def ask_for_conflicts(self, fresh: bool = True) -> None:
        """Open the conflicts queue once they are found; `fresh`: those of the vault as it is now
        (a search already running started too early: another follows it)."""
        ...


class WriteHost(FlowHost, Protocol):
    """The main screen as the `ProposalRunner` sees it."""

    def read_document(
        self,
        doc_id: str,
        remember: bool = True,
        focus: str | None = None,
        from_disk: bool = False,
        words: tuple[str, ...] = (),
    ) -> object:
        """Read a document again (in a worker) and show it."""
        ...


class ConflictsHost(WorkerHost, Protocol):
    """The main screen as its `ConflictsSearch` sees it."""

    vault: Vault | None
    summary: VaultSummary | None
    conflicts: list[Conflict] | None

    def count_conflicts(self, count: int | None, asked: bool = False) -> None:
        """Show how many conflicts there are: None while looking (`asked`: for the person, who is
        shown how long it has taken so far), -1 when not looked for (`c` asks)."""
        ...

    def action_conflicts(self) -> None:
        """Open the conflicts queue."""
        ...

    @property
    def app(self) -> App[Any]:
        """The app, whose screens say whether the queue is open."""
        ...


class DiskHost(Protocol):
    """The main screen as its `DiskNews` sees it: the panes it updates, the history it edits."""

    vault: Vault | None
    own_writes: OwnWrites
    history: History

    @property
    def current(self) -> DocumentView | None: ...

    def query_one(self, selector: type[W]) -> W: ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def read_document(
        self,
        doc_id: str,
        remember: bool = True,
        focus: str | None = None,
        from_disk: bool = False,
        words: tuple[str, ...] = (),
    ) -> object: ...

    def resummarise(self) -> object:
        """Read the vault's summary again (problems, graph), in a worker."""
        ...

    def refresh_bindings(self) -> None: ...

    def action_back(self) -> None: ...

    def action_forward(self) -> None: ...
