"""Dendron vaults: hierarchy in dotted file names, `[[label|target]]` links, epoch-millisecond dates.

Every note carries `id`, `title`, `desc`, `updated` and `created` (milliseconds since 1970). The
workbench's id of a note is its file name (`dendron.topic.links`), which is what links name; the
frontmatter `id` is Dendron's own and is kept. Cross-vault links `dendron://VAULT/target` resolve
to the local note when it exists, since a copied vault rarely knows its own name. `root.md` and
`*.schema.yml` are Dendron's own; `root.md` is still a note.
"""

from __future__ import annotations

import datetime as dt
import heapq
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..vocabulary.model import Problem
from ..vocabulary.parse import value_text
from .base import ERROR, WARNING, Flavour, View, mostly
from .markdown import body_links, date_of, tags_of

__all__ = ["Dendron"]

REQUIRED = ("id", "title", "desc", "updated", "created")


def _local(target: str) -> str:
    if target.startswith("dendron://"):
        rest = target[len("dendron://") :]
        target = rest.split("/", 1)[1] if "/" in rest else rest
    return target.strip()


@dataclass
class Dendron(Flavour):
    name: str = "dendron"
    label: str = "Dendron"
    summary: str = "Dendron: dotted hierarchical names, id/title/desc/updated/created, [[label|target]] links"

    def detect(self, root: Path) -> int:
        if (root / "dendron.yml").is_file() or (root / "dendron.code-workspace").is_file():
            return 95
        notes = list(root.glob("*.md"))
        names = [p.name for p in notes[:400]]
        dotted = sum(1 for n in names if n.count(".") >= 2)
        if not names or dotted * 3 < len(names):
            return 0
        sample = heapq.nsmallest(20, notes, key=lambda p: p.name)  # one folder: as sorted paths, and sooner
        return (
            85 if mostly(sample, lambda head: all(f"\n{key}: " in head for key in ("id", "updated", "created"))) else 30
        )

    def walks_into(self, folder: str) -> bool:
        return folder not in ("assets", "node_modules")

    def doc_id(self, path: str, meta: dict[str, Any]) -> str:
        return path[:-3]

    def view(self, path: str, meta: dict[str, Any], body: str, mtime: dt.date | None = None) -> View:
        title = meta.get("title")
        name = path.rsplit("/", 1)[-1][:-3]
        return View(
            title=str(title).strip()
            if isinstance(title, (str, int, float)) and str(title).strip()
            else name.rsplit(".", 1)[-1],
            type=str(meta.get("type") or "note"),
            status="active",
            tags=tags_of(meta),
            summary=str(meta.get("desc") or "") if isinstance(meta.get("desc"), (str, int, float)) else "",
            created=date_of(meta.get("created")),
            updated=(updated := date_of(meta.get("updated"))) or mtime,
            updated_is_file_time=updated is None and mtime is not None,
            raw_links=tuple(body_links(body, path, label_first=True, normalise=_local)),
        )

    def check(self, path, parsed, view, today) -> list[Problem]:
        meta, has_frontmatter, line = parsed.meta, parsed.has_frontmatter, parsed.key_line
        problems: list[Problem] = []
        if not has_frontmatter or meta is None:
            if not has_frontmatter:
                problems.append(
                    Problem(
                        path,
                        ERROR,
                        "frontmatter-missing",
                        "a Dendron note starts with a '---' frontmatter holding id, title, desc, updated and created",
                        1,
                    )
                )
            return problems
        for key in REQUIRED:
            if key not in meta:
                problems.append(Problem(path, ERROR, "field-missing", f"required field '{key}' is missing", 1))
        stamps = {}
        for key in ("created", "updated"):
            value = meta.get(key)
            if key in meta and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                problems.append(
                    Problem(
                        path,
                        ERROR,
                        "date-format",
                        f"{key} is {value_text(value)}; Dendron dates are milliseconds since 1970",
                        line(key),
                    )
                )
            elif key in meta:
                stamps[key] = value
        if len(stamps) == 2 and stamps["updated"] < stamps["created"]:
            problems.append(Problem(path, WARNING, "date-order", "updated is before created", line("updated")))
        if "title" in meta and not str(meta.get("title") or "").strip():
            problems.append(Problem(path, ERROR, "title-invalid", "title must be non-empty text", line("title")))
        return problems

    def repair_fields(self, path, meta, body, mtime):
        notes = []
        meta = dict(meta)
        stamp = int(mtime.timestamp() * 1000)
        name = path[:-3]
        for key, value in (
            ("id", name),
            ("title", name.rsplit(".", 1)[-1].replace("-", " ").title()),
            ("desc", ""),
            ("created", stamp),
            ("updated", stamp),
        ):
            if key not in meta:
                meta[key] = value
                notes.append(f"{key} added")
        return meta, notes

    def memory_type(self, doc_id: str, view: View) -> str:
        return "concept"
