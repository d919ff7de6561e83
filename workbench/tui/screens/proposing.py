"""Every change's way to the disk: planned in a worker, shown as a diff, written once confirmed.

A flow hands the screen a `Proposal`; `ProposalRunner` runs its dry run off the UI thread, posts
`PlanReady` (the screen shows the preview through `preview`), and on confirmation writes exactly
that plan and posts `ChangeApplied`. If a file it touches changed on disk since the person read it
(or since the preview), nothing is written: `ExternalChange` brings both versions to the person,
who reloads and redoes the change on the new version, or cancels (`changed_outside`). What the
write left on disk is recorded in the screen's `OwnWrites`, so the watcher's echo is not news.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from ...core import ConflictError, Problem
from ..proposal import changed_since_read
from ..summary import summarise
from .messages import ChangeApplied, ExternalChange, PlanReady, VaultRead

if TYPE_CHECKING:
    from ...core import Plan
    from ..proposal import Proposal
    from .host import WriteHost

__all__ = ["ProposalRunner", "notice_order"]

NEW_PROBLEMS_NAMED = 3
"""The new problems a change's notice names; the problems list (`p`) has them all."""


def notice_order(problems: Sequence[Problem]) -> list[Problem]:
    """Problems in the order a notice names them: a credential first (the person must learn of a
    secret just written, even when the notice cannot name everything), then errors, then
    warnings, each kind in the order given."""
    return sorted(problems, key=lambda p: (p.code != "credential", p.severity != "error"))


class ProposalRunner:
    """Plans, previews and writes the proposals of the screen `host`, one at a time."""

    def __init__(self, host: WriteHost) -> None:
        self.host = host

    def propose(self, proposal: Proposal) -> None:
        """Plan the change in a worker; its preview follows (`preview`). Nothing happens without a vault."""
        if self.host.vault is not None:
            self.host.run_worker(
                partial(self._plan, proposal),
                thread=True,
                exclusive=True,
                group="vault-write",
                description="plan a change",  # not the repr of its arguments: a plan's bytes took a second
            )

    def _on_disk(self, path: str) -> bytes | None:
        """The file's bytes now (None if it is gone)."""
        assert self.host.vault is not None
        try:
            return self.host.vault.read_file(path)  # a pipe put there is never opened to block
        except OSError:
            return None

    def _plan(self, proposal: Proposal) -> None:
        """A dry run: the plan comes back to be shown as a diff, nothing is written yet. A plan
        that starts from another version of a file than the person read is not shown as if
        nothing happened: both versions come first."""
        from ..dialogs.external_change import Versions  # the dialogs: imported when first shown, not at start

        vault = self.host.vault
        assert vault is not None
        try:
            plan = proposal.plan(vault)
        except ConflictError as exc:
            versions = Versions(exc.path, self._on_disk(exc.path), proposal.read.get(exc.path), planned=False)
            self.host.post_message(ExternalChange(versions, proposal))
            return
        except Exception as exc:  # noqa: BLE001
            self.host.report(exc)
            if proposal.back is not None:
                self.host.app.call_from_thread(proposal.back)  # refused: back to where it was asked for
            return
        moved = changed_since_read(plan, proposal.read)
        if moved is not None:
            versions = Versions(moved.path, moved.before, proposal.read[moved.path], planned=False)
            self.host.post_message(ExternalChange(versions, proposal))
            return
        self.host.post_message(PlanReady(plan, proposal))

    def _write(self, plan: Plan, proposal: Proposal) -> None:
        """Write exactly the plan that was shown; the core refuses if a file changed meanwhile."""
        from ..dialogs.external_change import Versions

        vault = self.host.vault
        assert vault is not None
        before = set(self.host.summary.problems) if self.host.summary is not None else None
        try:
            written = proposal.apply(vault, plan)
            self.host.own_writes.wrote(written.changes)
            summary = summarise(vault, self.host.vault_path)
        except ConflictError as exc:
            ours = next((c.after for c in plan.changes if c.path == exc.path), None)
            versions = Versions(exc.path, self._on_disk(exc.path), ours, planned=True)
            self.host.post_message(ExternalChange(versions, proposal))
            return
        except Exception as exc:  # noqa: BLE001
            self.host.report(exc, "Nothing was written" if not plan.applied else "Written, but not re-read")
            return
        self.host.post_message(VaultRead(summary))
        # What the change left wrong that was not wrong before (a superseded decision's backlinks
        # are stale links now): said with the write, not found later in the header's count.
        new = [p for p in summary.problems if p not in before] if before is not None else []
        self.host.post_message(ChangeApplied(written, proposal, new))

    def say_new_problems(self, new: Sequence[Problem]) -> None:
        """Say what a change just written left wrong that was not wrong before: the first few, a
        credential first (`notice_order`)."""
        if not new:
            return
        named = notice_order(new)[:NEW_PROBLEMS_NAMED]
        lines = "\n".join(f"{p.path}: {p.message}" for p in named) + ("\n…" if len(new) > len(named) else "")
        self.host.notify(
            f"{lines}\np lists them, with the repairs",
            title=f"{len(new)} new problem(s) since this change",
            severity="warning",
            markup=False,
            timeout=12,
        )

    def preview(self, plan: Plan, proposal: Proposal) -> None:
        """Show the plan's diff; write it if the person confirms, else go one step back."""
        if plan.empty:
            self.host.notify(plan.summary, title="Nothing to change", markup=False)
            if proposal.back is not None:
                proposal.back()  # back where the person asked for it: the list they were in
            return

        def confirmed(apply: bool | None) -> None:
            if apply:
                self.host.run_worker(
                    partial(self._write, plan, proposal),
                    thread=True,
                    exclusive=True,
                    group="vault-write",
                    description="write a change",
                )
            elif proposal.back is not None:
                proposal.back()  # one step back, to what the person typed or chose

        from ..dialogs.confirm_plan import ConfirmPlanDialog

        dialog = ConfirmPlanDialog(
            plan.summary, plan.diff(), title=proposal.title, files=plan.paths, unsaved=proposal.unsaved
        )
        self.host.app.push_screen(dialog, confirmed)

    def changed_outside(self, versions, proposal: Proposal) -> None:
        """Someone changed a file the proposal touches: both versions, then reload and redo, or cancel."""
        from ..dialogs.external_change import ExternalChangeDialog

        def chosen(redo: bool | None) -> None:
            current = self.host.current
            if current is not None and current.document.path == versions.path:
                self.host.read_document(current.document.id, remember=False)  # what is on disk now
            if not redo:
                self.host.notify(
                    f"Nothing was written; {versions.path} keeps what is on disk", title="Cancelled", markup=False
                )
                if proposal.back is not None and proposal.unsaved:
                    proposal.back()  # what the person typed is not dropped with the change
                return
            read = dict(proposal.read)
            if versions.on_disk is not None:
                read[versions.path] = versions.on_disk  # the person has now seen this version
            self.propose(dataclasses.replace(proposal, read=read))

        self.host.app.push_screen(ExternalChangeDialog(versions, proposal.title), chosen)
