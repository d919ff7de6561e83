"""A change to the vault: each file's bytes before and after (`FileChange`), gathered in a `Plan`
with its summary and log lines, and shown as a diff before anything is written."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

__all__ = ["FileChange", "Plan", "log_line", "unified_diff"]


def log_line(text: str) -> str:
    """A line of the vault's change log for a change made now: `- YYYY-MM-DD HH:MM text`."""
    return f"- {dt.datetime.now().strftime('%Y-%m-%d %H:%M')} {text}"


@dataclass(frozen=True)
class FileChange:
    """One file's replacement: `before` None means it did not exist, `after` None deletes it."""

    path: str  # relative to the vault root, with forward slashes
    before: bytes | None
    after: bytes | None


def _text(data: bytes | None) -> list[str]:
    if data is None:
        return []
    return data.decode("utf-8", "replace").splitlines(keepends=True)


def unified_diff(changes: list[FileChange]) -> str:
    """The change as `diff -u` would print it, one file after another."""
    import difflib  # here, not at import: most processes that plan a change never show it

    out: list[str] = []
    for change in changes:
        if change.before is None and change.path.startswith(".recovery/"):
            out.append(f"# backup of the file as it was: {change.path}\n")
            continue
        before = "/dev/null" if change.before is None else f"a/{change.path}"
        after = "/dev/null" if change.after is None else f"b/{change.path}"
        lines = list(difflib.unified_diff(_text(change.before), _text(change.after), before, after))
        for line in lines:
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


@dataclass
class Plan:
    """The files a change writes, what it is called, and the lines it adds to the vault's log."""

    summary: str
    changes: list[FileChange] = field(default_factory=list)
    log_lines: list[str] = field(default_factory=list)
    applied: bool = False
    change_id: str = ""
    created_id: str | None = None  # the id of the document it creates, when it creates one (the gate sets it)

    @property
    def empty(self) -> bool:
        return not any(c.before != c.after for c in self.changes)

    @property
    def paths(self) -> list[str]:
        return [c.path for c in self.changes if c.before != c.after]

    def diff(self) -> str:
        return unified_diff([c for c in self.changes if c.before != c.after])
