"""The conflicts queue's flow (`c`), and answers to agents' verdicts wherever they are given.

The queue opens on the conflicts as last found (`FlowHost.conflicts`), with the verdicts agents
gave read when it opens; the person's choice becomes a `Proposal`: a resolution's dry run
(`resolution_proposal`) or an answer to a verdict (`verdict_proposal`). Once written, the queue
opens again on the vault as it is then; cancelling the preview reopens it where the person left it,
the same conflict highlighted and the same resolution or answer focused. An answer given in the
inbox goes back to the inbox instead (`answer_verdict`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core import Resolution
    from ..dialogs.verdicts import VerdictChoice
    from .host import FlowHost

__all__ = ["answer_verdict", "open_queue"]


def open_queue(
    host: FlowHost,
    refusal: Callable[[Resolution], str | None] | None,
    at: int = 0,
    chosen: Resolution | VerdictChoice | None = None,
) -> None:
    """The queue, its `at`-th conflict highlighted and `chosen` focused (where a cancelled preview
    left it); `refusal` says why the vault's format cannot carry a resolution out."""
    from ..dialogs.conflicts import ConflictsDialog, resolution_proposal
    from ..dialogs.verdicts import VerdictChoice

    if host.summary is None:
        return
    if host.conflicts is None:
        host.ask_for_conflicts(fresh=False)  # the first search may be under way: wait for it
        host.notify(
            f"Comparing {len(host.summary.documents)} documents; the queue opens when done",
            title="Looking for conflicts",
            markup=False,
        )
        return

    def answered(result) -> None:
        if result is None:
            return
        if isinstance(result, str):
            host.open_document(result, focus="viewer")
            return
        if isinstance(result, VerdictChoice):
            back = partial(open_queue, host, refusal, at, result)
            answer_verdict(host, result, then=host.ask_for_conflicts, back=back)
            return
        index = next((i for i, c in enumerate(conflicts) if result in c.resolutions), 0)
        back = partial(open_queue, host, refusal, index, result)
        proposal = resolution_proposal(result, then=host.ask_for_conflicts, back=back)
        if proposal is None:
            host.notify(result.command, title="Not done from here; run", markup=False)
        else:
            host.propose(proposal)

    conflicts = host.conflicts
    documents = host.summary.by_id
    vault = host.vault
    verdicts = partial(vault.verdicts, ("open",)) if vault is not None else None
    host.app.push_screen(ConflictsDialog(conflicts, documents, at, refusal, chosen=chosen, verdicts=verdicts), answered)


def answer_verdict(
    host: FlowHost, choice: VerdictChoice, then: Callable[[], object], back: Callable[[], object]
) -> None:
    """An answer to a verdict, previewed as a diff (`then` once written, `back` if cancelled);
    `open` opens the record the verdict says is the newer."""
    from ..dialogs.verdicts import verdict_proposal

    if choice.action == "open":
        host.open_document(choice.verdict.newer, focus="viewer")
    elif host.summary is not None:
        documents = host.summary.by_id
        host.propose(verdict_proposal(choice, documents, then=then, back=back))
