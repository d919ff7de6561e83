"""What changed in the vault lately: its documents, newest first, each with the latest thing said
about it, by whom when that is known.

Two sources, both in the files: the change log (`log.md`, one dated line per change, written by
the workbench, by agents through it, and by people) and each document's own `created_at` and
`updated_at`. A document's time is the newest of them; its `what` is the newest log line naming
its id (else `updated` or `created`, from the dates), and `by` is what that line says in its last
parentheses (`agent claude-code`, `manual, Priya`), or for a creation only dated, the document's
`provenance.agent`.
File times are not used: a fresh clone or a copy gives every file the same one.

Only documents that still exist are listed (a forgotten one has no page to show); the log keeps
their lines. The log is read from its end, at most `LOG_TAIL` bytes, so a long history costs the
same as a short one.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..vocabulary import presenting
from ..vocabulary.model import Document

__all__ = ["LOG_TAIL", "Change", "Changes", "LogLine", "log_lines", "recent_changes"]

LOG_TAIL = 2_000_000  # bytes of log.md read, from its end
_LINE = re.compile(r"^- (\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}))?\s+(.+?)\s*$")
_BY = re.compile(r"\(([^()]{1,120})\)\s*$")
_WORD = re.compile(r"[^\s,;:()“”\"'`]+")


@dataclass(frozen=True)
class LogLine:
    when: dt.datetime
    text: str
    by: str | None


@dataclass(frozen=True)
class Change:
    """One document as it changed last."""

    doc: Document
    when: dt.datetime
    what: str
    by: str | None

    def to_json(self) -> dict[str, Any]:
        meta = self.doc.meta
        return {
            "id": self.doc.id,
            "title": self.doc.title,
            "type": self.doc.type,
            "status": self.doc.status,
            "path": self.doc.path,
            "when": self.when.isoformat(timespec="minutes"),
            "what": self.what,
            "by": self.by,
            "awaiting_review": bool(meta.get("awaiting_review")),
        }


class Changes(list):
    """The documents changed lately, newest first: a list that a notebook shows as a table."""

    def _repr_html_(self) -> str | None:
        return presenting.render("changes_html", self)

    def to_pandas(self):
        return presenting.frame(c.to_json() for c in self)


def log_lines(path: Path) -> list[LogLine]:
    """The dated lines of the change log, as written (oldest first); nothing when there is none."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, 2)
            file.seek(max(0, size - LOG_TAIL))
            raw = file.read()
    except OSError:
        return []
    lines = []
    for line in raw.decode("utf-8", "replace").splitlines():
        found = _LINE.match(line)
        if not found:
            continue
        day, clock, text = found.groups()
        try:
            when = dt.datetime.fromisoformat(f"{day}T{clock or '00:00'}")
        except ValueError:
            continue
        by = _BY.search(text)
        lines.append(LogLine(when, text, by.group(1).strip() if by else None))
    return lines


def _as_time(value: Any) -> dt.datetime | None:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None)
    if isinstance(value, dt.date):
        return dt.datetime.combine(value, dt.time())
    if isinstance(value, str):
        try:
            return _as_time(dt.datetime.fromisoformat(value.strip()))
        except ValueError:
            return None
    return None


def recent_changes(documents: list[Document], log: list[LogLine], days: int, now: dt.datetime | None = None) -> Changes:
    """The documents changed in the last `days` days, newest first."""
    now = now or dt.datetime.now()
    since = now - dt.timedelta(days=days)
    by_id = {doc.id: doc for doc in documents}
    said: dict[str, LogLine] = {}
    for line in log:  # oldest first: a later line about the same document replaces an earlier one
        if line.when < since:
            continue
        for word in _WORD.findall(line.text):
            if word in by_id:
                said[word] = line
    changes = []
    for doc in documents:
        agent = (doc.meta.get("provenance") or {}) if isinstance(doc.meta.get("provenance"), dict) else {}
        dated = [
            (when, what)
            for when, what in (
                (_as_time(doc.meta.get("updated_at")), "updated"),
                (_as_time(doc.meta.get("created_at")), "created"),
            )
            if when is not None
        ]
        latest = said.get(doc.id)
        if latest is not None:
            dated.append((latest.when, latest.text))
        if not dated:
            continue
        when, what = max(dated, key=lambda pair: (pair[0], pair[1] not in ("updated", "created")))
        if when < since:
            continue
        by = latest.by if latest is not None and what == latest.text else None
        if what == "created" and agent.get("agent"):  # who wrote it first, as it says itself
            by = str(agent["agent"])
        changes.append(Change(doc, when, what, by))
    changes.sort(key=lambda change: (change.when, change.doc.id), reverse=True)
    return Changes(changes)
