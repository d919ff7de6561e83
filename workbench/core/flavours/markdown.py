"""Plain Markdown and Obsidian vaults: any frontmatter or none, `[[wikilinks]]` and Markdown links.

Ids are vault-relative paths without `.md`. `[[target]]`, `[[target|alias]]`, `[[target#heading]]`
and `![[embed]]` link by path or, as Obsidian does, by file name alone; Markdown links to `.md`
files link relative to the linking file. Typed links come from frontmatter `links: [{type,
target}]` entries and from Dataview-style inline fields (`depends_on:: [[target]]`). Nothing in a
code span or a fenced block is a link.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..vocabulary.model import LinkType, Problem
from ..vocabulary.parse import as_date, value_text
from .base import (
    CONFIG_HINT,
    ERROR,
    WARNING,
    Flavour,
    RawLink,
    View,
    as_list,
    first_heading,
    markdown_links,
    strip_code,
    wikilinks,
)

__all__ = ["Markdown", "body_links", "frontmatter_links", "supersession", "tags_of", "date_of"]

_INLINE_FIELD = re.compile(r"^[ \t]*[-*]?[ \t]*\**([a-z_]+)\**::[ \t]*(.*)$", re.M)
LINK_TYPES = frozenset(LinkType)
_URL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # [[label|https://...]] points out of the vault


def _wikilink_target(inner: str, label_first: bool) -> tuple[str, str]:
    """(target, label) of a `[[...]]`: Obsidian writes `target|alias`, Dendron `label|target`."""
    if "|" in inner:
        first, second = inner.split("|", 1)
        target, label = (second, first) if label_first else (first, second)
    else:
        target, label = inner, ""
    target = target.split("#", 1)[0].split("^", 1)[0].strip()
    return target, label.strip()


def body_links(
    body: str, path: str, label_first: bool = False, normalise=None, prose: str | None = None
) -> list[RawLink]:
    """Every link in a body outside code, typed where an inline field names a link type. `prose`:
    the body with its code blanked (`strip_code(body)`), where the caller has it already."""
    text = strip_code(body) if prose is None else prose
    typed: dict[str, str] = {}
    for match in _INLINE_FIELD.finditer(text) if "::" in text else ():
        if match.group(1) in LINK_TYPES:
            for inner, whole, _ in wikilinks(match.group(2)):
                typed[whole] = match.group(1)
            for _, whole in markdown_links(match.group(2), path):
                typed[whole] = match.group(1)
    found: list[RawLink] = []
    for inner, whole, _embed in wikilinks(text):
        target, _ = _wikilink_target(inner, label_first)
        if normalise is not None:
            target = normalise(target)
        if target and not _URL.match(target):
            found.append(RawLink(typed.get(whole, LinkType.RELATED_TO.value), (target,), whole))
    for candidates, whole in markdown_links(text, path):
        found.append(RawLink(typed.get(whole, LinkType.RELATED_TO.value), candidates, whole))
    return found


def frontmatter_links(meta: dict[str, Any]) -> list[RawLink]:
    found = []
    links = meta.get("links")
    if isinstance(links, list):
        for item in links:
            if isinstance(item, dict) and isinstance(item.get("target"), str):
                kind = (
                    item["type"]
                    if isinstance(item.get("type"), str) and item["type"] in LINK_TYPES
                    else LinkType.RELATED_TO.value
                )
                target = _wikilink_target(item["target"].strip("[]"), False)[0]
                found.append(RawLink(kind, (target,), item["target"]))
            elif isinstance(item, str):
                target = _wikilink_target(item.strip().strip("[]"), False)[0]
                found.append(RawLink(LinkType.RELATED_TO.value, (target,), item))
    return found


def supersession(meta: dict[str, Any], *keys: str) -> tuple[RawLink, ...]:
    out = []
    for key in keys:
        for value in as_list(meta.get(key)):
            target = _wikilink_target(value.strip().strip("[]"), False)[0]
            out.append(RawLink(LinkType.SUPERSEDES.value, (target,), value))
    return tuple(out)


def tags_of(meta: dict[str, Any], body: str = "") -> tuple[str, ...]:
    tags = meta.get("tags")
    if isinstance(tags, str):
        tags = re.split(r"[,\s]+", tags)
    return tuple(dict.fromkeys(str(t).lstrip("#") for t in tags or [] if isinstance(t, (str, int)) and str(t).strip()))


def date_of(value: Any) -> dt.date | None:
    """The date a frontmatter value states: a date, a date and time (YAML's or an ISO 8601 string,
    as memoryfield and OKF write them, on the day it states), or epoch seconds or milliseconds
    (Dendron): a moment, dated in the local zone as a file's time is and as Dendron shows it."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, str) and len(value) > 10 and re.fullmatch(r"\d{4}-\d{2}-\d{2}[T ].+", value):
        try:
            return dt.datetime.fromisoformat(value.replace("Z", "+00:00")).date()
        except ValueError:
            return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000 if value > 10_000_000_000 else value  # epoch milliseconds or seconds
        try:
            return dt.datetime.fromtimestamp(seconds).date()
        except (OverflowError, OSError, ValueError):
            return None
    return as_date(value)


@dataclass
class Markdown(Flavour):
    name: str = "markdown"
    label: str = "Markdown"
    summary: str = "plain Markdown or Obsidian: any frontmatter or none, [[wikilinks]] and links to .md files"
    has_status: bool = True

    def detect(self, root: Path) -> int:
        return 10 if next(root.glob("*.md"), None) is not None or next(root.glob("*/*.md"), None) is not None else 1

    def view(self, path: str, meta: dict[str, Any], body: str, mtime: dt.date | None = None) -> View:
        title = meta.get("title")
        title = str(title).strip() if isinstance(title, (str, int, float)) and str(title).strip() else None
        stated = str(meta.get("status") or "").strip()
        summary = meta.get("description") or meta.get("summary") or meta.get("desc") or ""
        doc_type = str(meta.get("type") or "note")
        return View(
            title=title or first_heading(body) or path.rsplit("/", 1)[-1][:-3],
            type=doc_type,
            status=self.lifecycle(stated) or "active",
            stated_status=stated,
            tags=tags_of(meta, body),
            summary=str(summary) if isinstance(summary, (str, int, float)) else "",
            created=date_of(meta.get("created") or meta.get("created_at") or meta.get("date")),
            updated=(updated := date_of(meta.get("updated") or meta.get("updated_at") or meta.get("modified")))
            or mtime,
            updated_is_file_time=updated is None and mtime is not None,
            raw_links=tuple(frontmatter_links(meta) + body_links(body, path)),
            raw_supersedes=supersession(meta, "supersedes"),
            raw_superseded_by=supersession(meta, "superseded_by", "superseded-by"),
        )

    def check(self, path, parsed, view, today) -> list[Problem]:
        meta, line = parsed.meta, parsed.key_line
        problems = []
        if (
            meta
            and "status" in meta
            and str(meta.get("status") or "").strip()
            and self.lifecycle(str(meta["status"])) is None
        ):
            problems.append(
                Problem(
                    path,
                    WARNING,
                    "status-unknown",
                    f"status {value_text(meta['status'])} means nothing the workbench knows; it is read as active (say what it means in {CONFIG_HINT})",
                    line("status"),
                )
            )
        if meta and "tags" in meta and not isinstance(meta["tags"], (list, str)) and meta["tags"] is not None:
            problems.append(
                Problem(path, ERROR, "tags-invalid", "tags must be a list or a comma-separated string", line("tags"))
            )
        return problems

    def status_change(self, parsed, status: str):
        meta = dict(parsed.meta or {})
        meta["status"] = status
        return meta, parsed.body if parsed.has_frontmatter else parsed.text

    def memory_type(self, doc_id: str, view: View) -> str:
        return (
            view.type if view.type in ("concept", "decision", "entity", "context", "task", "note", "index") else "note"
        )
