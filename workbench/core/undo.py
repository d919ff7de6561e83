"""Undo: revert the last change made through the workbench, if every file it touched is still as
that change left it (an agent's later write is never overwritten). Forget keeps no history, so it
can never be undone."""

from __future__ import annotations

from .changes import Plan
from .files import UnreadableFile
from .index import VaultIndex
from .model import RefusedError
from .storage import FileChange

__all__ = ["undo"]


def undo(index: VaultIndex, dry_run: bool = False) -> Plan:
    """Revert the newest change in the history; refused if any of its files changed since."""
    noted = len(index.recovery_notes)
    records = index.writer.history()
    if not records:
        set_aside = len(index.recovery_notes) > noted  # records that could not be trusted
        raise RefusedError("nothing to undo" + (" (a record that could not be trusted was set aside; see the notes)" if set_aside else ""))
    record = records[0]
    files: list[FileChange] = record["files"]
    try:
        current = {c.path: index.writer.read(c.path) for c in files}
    except UnreadableFile as error:  # a pipe or a folder where the change left a file: never read, never replaced
        raise RefusedError(f"cannot undo “{record['summary']}”: {error}") from None
    if all(current[c.path] == c.before for c in files):
        if not dry_run:
            index.writer.retire(record["record_path"])  # an undo interrupted after its writes
        return Plan(f"undo {record['summary']}: already undone")
    for change in files:
        if current[change.path] != change.after:
            raise RefusedError(f"cannot undo “{record['summary']}”: {change.path} has changed since")
    summary = f"undo {record['summary']}"
    plan = Plan(summary, [FileChange(c.path, c.after, c.before) for c in files], [index.log_line(summary)])
    if dry_run:
        return plan
    with index.lock:
        index.apply(plan, keep_history=False)
        index.writer.retire(record["record_path"])
    return plan
