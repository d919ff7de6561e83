"""memoryfield (Cal Paterson's memoryfield specification): one flat folder of pages with `title`, `uuid`, `summary`, `created`, `updated`.

Only `[a-z0-9-]+.md` at the top level is a page; any other Markdown name there is reported and not
loaded. Sub-folders, symlinks and editor debris are ignored.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid as uuidlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..vocabulary.model import Problem
from ..vocabulary.parse import value_text
from .base import ERROR, Flavour, View, first_heading, mostly
from .markdown import body_links, date_of, tags_of

__all__ = ["Memoryfield"]

PAGE_NAME = re.compile(r"[a-z0-9-]+\.md")
REQUIRED = ("title", "uuid", "summary", "created", "updated")


@dataclass
class Memoryfield(Flavour):
    name: str = "memoryfield"
    label: str = "memoryfield"
    summary: str = "memoryfield: one flat folder of [a-z0-9-].md pages with title, uuid, summary, created, updated"
    identity_keys: tuple[str, ...] = ("uuid",)  # the page's identity: kept across renames and edits
    updated_key: str | None = "updated"

    def detect(self, root: Path) -> int:
        pages = sorted(root.glob("*.md"))[:20]
        return (
            85
            if mostly(pages, lambda head: re.search(r"^uuid:", head, re.M) and re.search(r"^summary:", head, re.M))
            else 0
        )

    def walks_into(self, folder: str) -> bool:
        return False

    def not_a_page(self, path: str) -> str | None:
        if not PAGE_NAME.fullmatch(path):
            return "page names are lowercase letters, digits and '-' only; this file is not loaded"
        return None

    def doc_id(self, path: str, meta: dict[str, Any]) -> str:
        return path[:-3]

    def view(self, path: str, meta: dict[str, Any], body: str, mtime: dt.date | None = None) -> View:
        title = meta.get("title")
        return View(
            title=str(title) if isinstance(title, str) and title.strip() else first_heading(body) or path[:-3],
            type="note",
            status="active",
            tags=tags_of(meta),
            summary=str(meta.get("summary") or "") if isinstance(meta.get("summary"), (str, int, float)) else "",
            created=date_of(meta.get("created")),
            updated=(updated := date_of(meta.get("updated"))) or mtime,
            updated_is_file_time=updated is None and mtime is not None,
            raw_links=tuple(body_links(body, path)),
        )

    def check(self, path, parsed, view, today) -> list[Problem]:
        meta, has_frontmatter, line = parsed.meta, parsed.has_frontmatter, parsed.key_line
        problems: list[Problem] = []
        if not has_frontmatter:
            return [
                Problem(
                    path,
                    ERROR,
                    "frontmatter-missing",
                    "a page starts with a '---' frontmatter (title, uuid, summary, created, updated)",
                    1,
                )
            ]
        if meta is None:
            return problems
        for key in REQUIRED:
            if key not in meta:
                problems.append(Problem(path, ERROR, "field-missing", f"required field '{key}' is missing", 1))
        if "uuid" in meta:
            try:
                uuidlib.UUID(str(meta["uuid"]))
            except ValueError:
                problems.append(
                    Problem(path, ERROR, "uuid-invalid", f"uuid {value_text(meta['uuid'])} is not a UUID", line("uuid"))
                )
        for key in ("created", "updated"):
            if key in meta and date_of(meta[key]) is None:
                problems.append(
                    Problem(
                        path,
                        ERROR,
                        "date-format",
                        f"{key} is {value_text(meta[key])}; expected an ISO 8601 date or date and time",
                        line(key),
                    )
                )
        return problems

    def repair_fields(self, path, meta, body, mtime):
        meta, notes = dict(meta), []
        stamp = mtime.replace(microsecond=0).astimezone()  # written plain, as the seed writes it: a YAML timestamp
        defaults = {
            "title": first_heading(body) or path[:-3].replace("-", " "),
            "uuid": str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, path)),
            "summary": "",
            "created": stamp,
            "updated": stamp,
        }
        for key, value in defaults.items():
            if key not in meta:
                meta[key] = value
                notes.append(f"{key} added")
        return meta, notes
