"""Undo and redo: the changes made through the workbench as a stack of named steps.

The history (`.workbench/history/`) holds the steps done. Undo takes the newest, reverts it and
moves its record to the redo stack (`history/redo/`); the next undo takes the one before it. Redo
re-applies the step undone last and moves its record back. A new change clears the redo stack (its
records move to `history/undone/`, kept only so that forget finds them): the standard rule, since
a step undone before that change was never meant to be replayed on top of it. Each move is written
in the undo's or the redo's own journal (`journal.py`), so a crash finishes it with the files or
leaves both as they were, and each writes its line to the log ("undo …", "redo …").

Both are refused, naming the file, if any file the step touches is not exactly as the step left
it: a later write, by the workbench or by an agent's plain file I/O, is never overwritten. Forget
keeps no history, so it can never be undone.

Undo reaches changes made in earlier sessions, and a person must know when it does: each step is
named with its place in the stack, its summary and when it was made, said plainly when that was
before this vault was opened ("undo 2 of 5: … (from yesterday, 2026-11-30 16:10; made before this
session started)").
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from ..storage.changes import Plan, log_line
from ..vocabulary.files import UnreadableFile
from ..index import VaultIndex
from ..vocabulary.model import RefusedError
from ..storage.writer import FileChange

__all__ = ["Stack", "Step", "redo", "stack", "undo"]


@dataclass(frozen=True)
class Step:
    """One change in the stack, as a person reads it."""

    id: str
    summary: str
    time: float
    paths: tuple[str, ...]
    undone: bool
    """On the redo stack: undone since the last new change, so redo can re-apply it."""
    made_here: bool = False
    """Made by this open of the vault (not by an earlier session or another process)."""


@dataclass(frozen=True)
class Stack:
    """The steps done, newest first (what undo takes, in order), and the steps undone since the
    last new change, the one undone last first (what redo takes, in order)."""

    done: tuple[Step, ...]
    undone: tuple[Step, ...]
    opened: float
    """When this vault was opened: a step made before it is from an earlier session."""

    @property
    def total(self) -> int:
        return len(self.done) + len(self.undone)

    def steps(self) -> list[Step]:
        """Every step, newest first: the undone ones (newest first), then the done ones."""
        return [*reversed(self.undone), *self.done]

    def number(self, step: Step) -> int:
        """The step's place counted from the newest (1), which stays the same as it is undone and redone."""
        return next(n for n, each in enumerate(self.steps(), 1) if each.id == step.id)

    def when(self, step: Step, now: dt.datetime | None = None) -> str:
        """When the step was made, in words: `14:02 today`, `from yesterday, 2026-11-30 16:10`,
        with `made before this session started` when it was."""
        now = now or dt.datetime.now()
        made = dt.datetime.fromtimestamp(step.time)
        days = (now.date() - made.date()).days
        if days == 0:
            words = f"{made:%H:%M} today"
        elif days == 1:
            words = f"from yesterday, {made:%Y-%m-%d %H:%M}"
        else:
            words = f"from {made:%Y-%m-%d %H:%M}"
        if step.time < self.opened:
            words += "; made before this session started"
        elif not step.made_here:
            words += "; made by another process during this session"
        return words

    def name(self, verb: str, step: Step, now: dt.datetime | None = None) -> str:
        """`undo 2 of 5: status x: active → deprecated (14:02 today)`."""
        return f"{verb} {self.number(step)} of {self.total}: {step.summary} ({self.when(step, now)})"

    def next_undo(self) -> str:
        """What the next undo would take, in words, for the notice after an undo or a redo."""
        return self.name("undo", self.done[0]) if self.done else "nothing older to undo"


def _step(record: dict[str, Any], undone: bool, made_here: set[str]) -> Step:
    files: list[FileChange] = record["files"]
    when = record.get("time")
    return Step(
        str(record.get("id") or record["record_path"].stem),
        record.get("summary") or "(a change with no summary)",
        float(when) if isinstance(when, (int, float)) else 0.0,
        tuple(c.path for c in files),
        undone,
        str(record.get("id")) in made_here,
    )


def stack(index: VaultIndex) -> Stack:
    """The undo stack as it is on disk now (another process may have moved it since the last look)."""
    return _stack(index.history_records(), index.redo_records(), index)


def _stack(done: list[dict[str, Any]], undone: list[dict[str, Any]], index: VaultIndex) -> Stack:
    made = index.made_here
    return Stack(tuple(_step(r, False, made) for r in done), tuple(_step(r, True, made) for r in undone), index.opened)


def _current(index: VaultIndex, verb: str, summary: str, files: list[FileChange]) -> dict[str, bytes | None]:
    try:
        return {c.path: index.read_file(c.path) for c in files}
    except UnreadableFile as error:  # a pipe or a folder where the step left a file: never read, never replaced
        raise RefusedError(f"cannot {verb} “{summary}”: {error}") from None


def undo(index: VaultIndex, dry_run: bool = False) -> Plan:
    """Revert the newest step; refused, naming the file, if any of its files changed since."""
    noted = len(index.recovery_notes)
    done, undone = index.history_records(), index.redo_records()
    if not done:
        set_aside = len(index.recovery_notes) > noted  # records that could not be trusted
        raise RefusedError(
            "nothing to undo"
            + (" (a record that could not be trusted was set aside; see the notes)" if set_aside else "")
        )
    record, steps = done[0], _stack(done, undone, index)
    name = steps.name("undo", steps.done[0])
    files: list[FileChange] = record["files"]
    current = _current(index, "undo", record["summary"], files)
    if all(current[c.path] == c.before for c in files):
        if not dry_run:
            index.move_step("undo", record["record_path"])  # undone by hand: redo may re-apply it
        return Plan(f"{name}: already undone")
    for change in files:
        if current[change.path] != change.after:
            raise RefusedError(f"cannot undo “{record['summary']}”: {change.path} has changed since")
    plan = Plan(name, [FileChange(c.path, c.after, c.before) for c in files], [log_line(f"undo {record['summary']}")])
    if dry_run:
        return plan
    return index.apply(plan, keep_history=False, step=("undo", record["record_path"].name))


def redo(index: VaultIndex, dry_run: bool = False) -> Plan:
    """Re-apply the step undone last; refused, naming the file, if any of its files changed since
    the undo (an agent's plain write included), and when a new change has cleared the redo stack."""
    done, undone = index.history_records(), index.redo_records()
    if not undone:
        raise RefusedError("nothing to redo: only a step undone since the last new change can be redone")
    record, steps = undone[0], _stack(done, undone, index)
    name = steps.name("redo", steps.undone[0])
    files: list[FileChange] = record["files"]
    current = _current(index, "redo", record["summary"], files)
    if all(current[c.path] == c.after for c in files):
        if not dry_run:
            index.move_step("redo", record["record_path"])  # redone by hand
        return Plan(f"{name}: already redone")
    for change in files:
        if current[change.path] != change.before:
            raise RefusedError(
                f"cannot redo “{record['summary']}”: {change.path} has changed since it was undone; nothing was written"
            )
    plan = Plan(name, list(files), [log_line(f"redo {record['summary']}")])
    if dry_run:
        return plan
    return index.apply(plan, keep_history=False, step=("redo", record["record_path"].name))
