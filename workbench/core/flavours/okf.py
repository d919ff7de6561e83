"""OKF bundles (seeds 000 and 002): concepts whose ids are lowercase bundle-relative paths.

`index.md` (a generated listing of the concepts) and `log.md` are reserved. Each concept requires
`type` and `timestamp` and should carry `description` and `tags`; links are Markdown links to
relative `.md` paths. Repair, as the bundle's own tooling does it: a missing type becomes
`Recovered Concept`, a missing or invalid timestamp the file's modification time.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..vocabulary.model import Problem
from ..vocabulary.parse import value_text
from .base import ERROR, WARNING, Flavour, View, first_heading, mostly
from .markdown import body_links, date_of, frontmatter_links, tags_of

__all__ = ["Okf"]

SAFE_ID = re.compile(r"[a-z0-9][a-z0-9._-]*(?:/[a-z0-9][a-z0-9._-]*)*")
RECOVERED = "Recovered Concept"


def _timestamp(value: Any) -> bool:
    if isinstance(value, (dt.date, dt.datetime)):
        return True
    if isinstance(value, str):
        try:
            dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            return True
        except ValueError:
            return False
    return False


@dataclass
class Okf(Flavour):
    name: str = "okf"
    label: str = "OKF"
    summary: str = "OKF bundle: lowercase path ids, type and timestamp required, index.md and log.md reserved"
    reserved: frozenset[str] = field(default_factory=lambda: frozenset({"index.md", "log.md"}))
    updated_key: str | None = "timestamp"
    listing: str | None = "index.md"
    state_in_vault: bool = True

    def detect(self, root: Path) -> int:
        found = (p for p in root.rglob("*.md") if not any(part.startswith(".") for part in p.relative_to(root).parts))
        files = [p for p in itertools.islice(found, 60) if p.name not in self.reserved or p.parent != root][:30]
        starts = re.compile(r"^(?:type|timestamp):", re.M)
        return 80 if mostly(files, lambda head: head.startswith("---") and len(set(starts.findall(head))) == 2) else 0

    def view(self, path: str, meta: dict[str, Any], body: str, mtime: dt.date | None = None) -> View:
        title = meta.get("title")
        stamp = date_of(meta.get("timestamp"))
        return View(
            title=str(title)
            if isinstance(title, str) and title.strip()
            else first_heading(body) or path.rsplit("/", 1)[-1][:-3],
            type=str(meta.get("type") or RECOVERED),
            status="active",
            tags=tags_of(meta),
            summary=str(meta.get("description") or "")
            if isinstance(meta.get("description"), (str, int, float))
            else "",
            created=stamp,
            updated=stamp or mtime,
            updated_is_file_time=stamp is None and mtime is not None,
            raw_links=tuple(frontmatter_links(meta) + body_links(body, path)),
        )

    def check(self, path, parsed, view, today) -> list[Problem]:
        meta, has_frontmatter, line = parsed.meta, parsed.has_frontmatter, parsed.key_line
        problems: list[Problem] = []
        if not SAFE_ID.fullmatch(path[:-3]):
            problems.append(
                Problem(
                    path,
                    ERROR,
                    "id-unsafe",
                    f"the concept id {path[:-3]!r} must be a lowercase path of letters, digits, '.', '_' and '-'",
                    None,
                )
            )
        if not has_frontmatter:
            problems.append(
                Problem(
                    path,
                    ERROR,
                    "frontmatter-missing",
                    "no frontmatter: a concept starts with a '---' line (repair rebuilds it)",
                    1,
                )
            )
            return problems
        if meta is None:
            return problems
        for key in ("type", "timestamp"):
            if key not in meta:
                problems.append(Problem(path, ERROR, "field-missing", f"required field '{key}' is missing", 1))
        if "timestamp" in meta and not _timestamp(meta["timestamp"]):
            problems.append(
                Problem(
                    path,
                    ERROR,
                    "date-format",
                    f"timestamp is {value_text(meta['timestamp'])}; expected an ISO 8601 date and time",
                    line("timestamp"),
                )
            )
        for key in ("description", "tags"):
            if key not in meta:
                problems.append(
                    Problem(path, WARNING, "field-recommended", f"'{key}' is missing; search and the index read it", 1)
                )
        if "type" in meta and not str(meta.get("type") or "").strip():
            problems.append(Problem(path, ERROR, "type-invalid", "type must be non-empty text", line("type")))
        return problems

    def repair_fields(self, path, meta, body, mtime):
        meta, notes = dict(meta), []
        if not str(meta.get("type") or "").strip():
            meta["type"] = RECOVERED
            notes.append(f"type set to {RECOVERED}")
        if not _timestamp(meta.get("timestamp")):
            meta["timestamp"] = mtime.replace(microsecond=0).astimezone().isoformat()
            notes.append("timestamp set from the file's modification time")
        return meta, notes

    def memory_type(self, doc_id: str, view: View) -> str:
        word = view.type.lower().replace("recovered ", "").strip()
        return word if word in ("concept", "decision", "entity", "context", "task", "note", "index") else "concept"
