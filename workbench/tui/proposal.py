"""A change on its way to the disk: how to plan it (a dry run) and how to write it once seen.

Every writing flow of the workbench (lifecycle, undo, repair, conflicts, the write gate,
consolidation) hands the main screen a `Proposal`. The screen runs `plan` in a worker, shows the
plan's diff, and only on confirmation runs `apply` with exactly that plan, so nothing reaches the
disk unseen and every change goes through the core's journal (and so can be undone).

A person decides on what they read. A proposal carries the files as they were shown (`read`); a
plan that starts from anything else (someone changed the file meanwhile) is not shown as if nothing
happened: `changed_since_read` finds it, and the screen shows both versions first. The core does
the same at the last moment: `apply` raises `ConflictError` if a file moved after the preview.

Cancelling a preview goes one step back, never further: `back` reopens the step the person came
from (the consolidation with its edited text, the conflicts queue, the draft) as they left it, so
saying "not this" never costs them what they typed or chose.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ..core import FileChange, Plan, RefusedError, Vault

__all__ = ["Proposal", "apply_exactly", "changed_since_read", "created_id", "redo_exactly", "undo_exactly"]


def apply_exactly(vault: Vault, plan: Plan) -> Plan:
    """Write the plan that was shown; the core refuses (ConflictError) if a file moved since."""
    return vault.apply(plan)


def undo_exactly(vault: Vault, plan: Plan) -> Plan:
    """Undo, but only the step that was previewed: if another change became the newest meanwhile,
    refuse rather than revert something the person has not seen. The plan returned says what the
    next `u` would take, so that a second `u` is never a surprise."""
    now = vault.undo(dry_run=True)
    if now.summary != plan.summary or now.diff() != plan.diff():
        raise RefusedError("the newest step is no longer the one shown; look again (u), or list every step (H)")
    return _with_next(vault, vault.undo())


def redo_exactly(vault: Vault, plan: Plan) -> Plan:
    """Redo, but only the step that was previewed (the core refuses if a file changed since)."""
    now = vault.redo(dry_run=True)
    if now.summary != plan.summary or now.diff() != plan.diff():
        raise RefusedError("the step to redo is no longer the one shown; look again (U), or list every step (H)")
    return _with_next(vault, vault.redo())


def _with_next(vault: Vault, done: Plan) -> Plan:
    return dataclasses.replace(
        done, summary=f"{done.summary}\nNext u: {vault.undo_stack().next_undo()} · H lists every step"
    )


def created_id(plan: Plan) -> str | None:
    """The id of the document a plan creates (its file is named `{id}.md`), if it creates one."""
    for change in plan.changes:
        if change.before is None and change.after is not None and change.path.endswith(".md"):
            return PurePosixPath(change.path).stem
    return None


@dataclass(frozen=True)
class Proposal:
    """`plan(vault)` is a dry run; `apply(vault, plan)` writes it. After writing, `open_after(plan)`
    names a document to open and `then()` runs (a queue reopening itself, say)."""

    title: str
    plan: Callable[[Vault], Plan]
    apply: Callable[[Vault, Plan], Plan] = apply_exactly
    open_after: Callable[[Plan], str | None] | None = None
    then: Callable[[], object] | None = None
    read: Mapping[str, bytes] = field(default_factory=dict)
    """The files the person decided on, as they were shown (path → bytes)."""
    written: str = "Written (u undoes it)"
    """What the notice says once it is written (a change that cannot be undone says so)."""
    back: Callable[[], object] | None = None
    """Reopens the step before the preview, as the person left it, when they cancel the preview."""
    unsaved: str | None = None
    """What the person typed that only this proposal now holds ("the draft"): quitting asks first."""


def changed_since_read(plan: Plan, read: Mapping[str, bytes]) -> FileChange | None:
    """The first change of `plan` that starts from another version of its file than the one read."""
    for change in plan.changes:
        if change.path in read and change.before is not None and change.before != read[change.path]:
            return change
    return None
