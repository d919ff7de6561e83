"""Tiered memory (its Memory Operations document): plain Markdown files in tiers that age with use.

`memory.md` is the HOT tier, `corrections.md` the log of corrections, `projects/{name}.md` and
`domains/{name}.md` the namespaces, `index.md` the map of them all, `archive/` the COLD tier.
There is no frontmatter. A file unused (unmodified) for more than 30 days is WARM, more than 90
days COLD; the tier is shown as the document's status. `Inherits: global, domains/code` in a
project is a `depends_on` link to each namespace it names.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..vocabulary.model import LinkType, Problem
from .base import WARNING, Flavour, RawLink, View, first_heading
from .markdown import body_links

__all__ = ["HOT_LIMIT", "Tiered", "tier"]

HOT_LIMIT = 100  # lines: past it, memory.md wants compacting
_INHERITS = re.compile(r"^Inherits:\s*(.+)$", re.M | re.I)


def tier(path: str, updated: dt.date | None, today: dt.date) -> str:
    if path == "memory.md":
        return "hot"
    if path.startswith("archive/"):
        return "cold"
    if updated is None:
        return "warm"
    age = (today - updated).days
    return "hot" if age <= 30 and path == "corrections.md" else "warm" if age <= 90 else "cold"


@dataclass
class Tiered(Flavour):
    name: str = "tiered"
    label: str = "tiered-memory"
    summary: str = "tiered memory: memory.md (HOT), corrections.md, projects/, domains/, index.md; plain Markdown"
    reads_the_day: bool = True  # a file's tier, and so its status, follows its age

    def detect(self, root: Path) -> int:
        if not (root / "memory.md").is_file():
            return 0
        signs = sum(1 for name in ("corrections.md", "index.md", "projects", "domains") if (root / name).exists())
        return 70 + 5 * signs if signs else 20

    def view(self, path: str, meta: dict[str, Any], body: str, mtime: dt.date | None = None) -> View:
        return self.view_on(path, meta, body, mtime, dt.date.today())

    def view_on(self, path: str, meta: dict[str, Any], body: str, mtime: dt.date | None, on: dt.date) -> View:
        """The tier as of `on`, the day the file is checked on (its row is kept for that day)."""
        level = tier(path, mtime, on)
        links = body_links(body, path)
        for match in _INHERITS.finditer(body):
            for name in (n.strip() for n in match.group(1).split(",")):
                if name and name != "global":
                    links.append(
                        RawLink(
                            LinkType.DEPENDS_ON.value, (name, f"domains/{name}", f"projects/{name}"), match.group(0)
                        )
                    )
                elif name == "global":
                    links.append(RawLink(LinkType.DEPENDS_ON.value, ("memory",), match.group(0)))
        kind = {"memory.md": "context", "corrections.md": "note", "index.md": "index"}.get(path)
        kind = kind or (
            "context" if path.startswith("projects/") else "concept" if path.startswith("domains/") else "note"
        )
        return View(
            title=first_heading(body) or path[:-3],
            type=kind,
            status="archived" if level == "cold" else "active",
            stated_status=level.upper(),
            updated=mtime,
            updated_is_file_time=mtime is not None,
            raw_links=tuple(links),
        )

    def check(self, path, parsed, view, today) -> list[Problem]:
        has_frontmatter = parsed.has_frontmatter
        problems: list[Problem] = []
        if has_frontmatter:
            problems.append(
                Problem(
                    path,
                    WARNING,
                    "frontmatter-unexpected",
                    "tiered memory is plain Markdown; this frontmatter is read but not maintained",
                    1,
                )
            )
        if path == "memory.md" and parsed.text.count("\n") > HOT_LIMIT:
            problems.append(
                Problem(
                    path,
                    WARNING,
                    "hot-tier-too-long",
                    f"memory.md has {parsed.text.count(chr(10))} lines; the HOT tier stays under {HOT_LIMIT}: move what is not used daily to a project or domain",
                    None,
                )
            )
        return problems

    def memory_type(self, doc_id: str, view: View) -> str:
        return view.type
