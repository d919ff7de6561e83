"""Architecture Decision Records (Nygard and MADR): one decision per file.

Collections name their records in a few ways, and each is read for what it says:

- `ADR-NNN-title.md`, `ADRNNN-title.md`, `NNNN-title.md` (adr-tools): the number is the id,
  `ADR-NNN`, which is also how records mention each other;
- `2021-06-06_002-title.md` (a date, then a number): the number is the id and the date the day
  it was written;
- `2020-08-10-title.md` (a date, then a title): the file name without `.md` is the id, since no
  number names the record, and the date is the day it was written;
- `title.md` (no number, no date): the file name is the id, and the file is a record when it
  reads as one (a `## Decision` among its first sections, and a status or a `## Context`).

Other files there (reviews, notes) are documents with path ids; templates, `README.md` and
`index.md` at the top are reserved. Two records that share a number are the collection's fault:
the first (in path order) keeps `ADR-NNN`, the other takes its file name as its id, and both are
reported. The status comes from the frontmatter `status`, else a `## Status` section, else a
`**Status**:` line near the top, else a heading that says it ("## Superseded by ..."). Supersession
comes from the `supersedes` / `superseded-by` keys and from statements in the status or in the
metadata lines at the top, both ways ("Superseded by ADR-042", "Supersedes ADR-024, ADR-025",
"Superseded by [a title](2022-01-20-title.md)"); an ADR number mentioned elsewhere in a body is a
`related_to` link, never a lifecycle statement. A record's date is its frontmatter `date`, else
a `Date:` line or a `## Date` section, else the date in its file name.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import LinkType, Problem
from ..parse import as_date, value_text
from .base import (
    ERROR,
    LIFECYCLE_WORDS,
    WARNING,
    Flavour,
    RawLink,
    View,
    as_list,
    first_heading,
    lifecycle_of,
    markdown_links,
    mostly,
    strip_code,
)
from .markdown import body_links, date_of, tags_of

__all__ = ["Adr", "RecordName", "reads_as_record", "record_name", "record_number", "ref_id", "status_text"]

_NUMBERED = re.compile(r"^(?:ADR[-_ ]?(\d{1,4})|(\d{4}))[-_ ]", re.I)
_DATED = re.compile(r"^(\d{4})-?(\d{2})-?(\d{2})[-_ ](?:(?:ADR[-_ ]?)?(\d{3,4})[-_ ])?", re.I)
_REF = re.compile(r"\bADR[-_ ]?(0\d{3}|\d{1,3})\b", re.I)  # ADR-2025 is a year, not a record
_STATUS_LINE = re.compile(r"^\s*[-*]?\s*(?:(?:\*\*|__)Status\s*:?\s*(?:\*\*|__)|Status\s*:)\s*:?\s*(.+?)\s*$", re.I)
_STATUS_HEADING = re.compile(r"^#{1,3}\s+((?:Superseded|Replaced|Deprecated|Rejected|Withdrawn|Obsolete)\b.*?)\s*#*\s*$", re.I)
_META_LINE = re.compile(r"^\s*[-*]?\s*(?:\*\*|__)?(Supersedes|Superseded[ -]by|Replaces|Replaced[ -]by)(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*:?\s*(.+?)\s*$", re.I)
_SUPERSEDED_BY = re.compile(r"\b(?:superseded|replaced)\s*(?:\([^)\n]*\)\s*)?by\b(.*)", re.I)
_SUPERSEDES = re.compile(r"\b(?:supersedes|replaces)\b(.*)", re.I)
_DATE = re.compile(r"(?im)^(?:\s*[-*]?\s*(?:\*\*|__)?Date(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*:?|#{2,3}\s+Date\s*\n+)\s*(\d{4}-\d{2}-\d{2})")
_SECTION = re.compile(r"(?m)^##[ \t]+(?:\d+\.[ \t]*)?([^\n#]+?)[ \t]*:?[ \t]*$")
_DECISION = re.compile(r"decision(?: outcome)?")
FIRST_SECTIONS = 5
_TEMPLATE = re.compile(r"(?:^|[-_.])template\.md$", re.I)
TOP_LINES = 40


@dataclass(frozen=True)
class RecordName:
    """What a record's file name says: its number (None where the scheme numbers nothing) and the
    date it was written (None where the name holds none)."""

    number: int | None
    date: dt.date | None


def record_name(name: str) -> RecordName | None:
    """The record a file name names, or None for a name that follows no record scheme (`title.md`).

    A date comes first when there is one (`2021-06-06_002-x`, `2020-08-10-x`), so a year is never
    read as a number; a date written day before month (`2022-25-11`) is read so when it can only
    be read so. A number alone is `ADR-NNN`, `ADRNNN`, or adr-tools' four digits (not a year)."""
    dated = _DATED.match(name)
    if dated:
        year, month, day, number = (int(g) if g else None for g in dated.groups())
        date = None
        for m, d in ((month, day), (day, month)):
            try:
                date = dt.date(year, m, d)
                break
            except ValueError:
                continue
        if date is None or 1900 <= date.year < 2200:
            return RecordName(number, date)
    numbered = _NUMBERED.match(name)
    if numbered and not (numbered.group(2) and 1900 <= int(numbered.group(2)) < 2200):
        return RecordName(int(numbered.group(1) or numbered.group(2)), None)
    return None


def record_number(name: str) -> int | None:
    named = record_name(name)
    return named.number if named is not None else None


def reads_as_record(meta: dict[str, Any], body: str) -> bool:
    """Whether a file without a record's name is one all the same: among its first sections is
    `## Decision` (or MADR's `## Decision Outcome`), and it states a status or has a `## Context`
    section. A review that ends with a decision forty sections down is not a record."""
    sections = [m.group(1).strip().lower() for m in _SECTION.finditer(strip_code(body))][:FIRST_SECTIONS]
    if not any(_DECISION.fullmatch(name) for name in sections):
        return False
    return any(name.startswith("context") for name in sections) or isinstance(meta.get("status"), str) or bool(status_text(body)[0])


def ref_id(number: str | int) -> str:
    return f"ADR-{int(number):03d}"


def _refs(text: str) -> list[str]:
    return [ref_id(m.group(1)) for m in _REF.finditer(text)]


def _plain(text: str) -> str:
    """Status words without their Markdown: `**Accepted**`, `[ADR-042](./ADR-042-x.md)`, and the
    quote marker or bullet a Status section may put before them (`> Accepted`, `- Accepted`)."""
    text = re.sub(r"^(?:>\s*)+|^[-+]\s+", "", text.strip())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"\*\*|__", "", text).strip("*_ ")


def status_text(body: str) -> tuple[str, int | None]:
    """The status as the record states it, and the body line it is on (0-based), or ("", None)."""
    lines = body.split("\n")
    for index, line in enumerate(lines):
        if re.match(r"^#{2,3}\s+(?:\d+\.\s*)?Status\s*:?\s*$", line.strip(), re.I):
            for offset in range(index + 1, min(index + 12, len(lines))):
                text = lines[offset].strip()
                if text.startswith("#"):
                    break
                if text and not text.startswith(("<!--", "---")):
                    return _plain(text), offset
            return "", None
    for index, line in enumerate(lines[:TOP_LINES]):
        match = _STATUS_LINE.match(line)
        if match and not line.lstrip().startswith("#"):
            return _plain(match.group(1)), index
    for index, line in enumerate(lines[:TOP_LINES]):
        if line.startswith("##"):  # the first section: "## Superseded by [...]" says it there
            match = _STATUS_HEADING.match(line)
            return (_plain(match.group(1)), index) if match else ("", None)
    return "", None


def _statement_lines(body: str) -> list[str]:
    """Where a record states its metadata: the lines at the top before its first section, and
    its Status section."""
    out = []
    section = None
    for line in body.split("\n")[: TOP_LINES * 2]:
        heading = re.match(r"^#{2,3}\s+(?:\d+\.\s*)?(.+?)\s*:?\s*$", line)
        if heading:
            if section is None and _STATUS_HEADING.match(line):
                out.append(heading.group(1))  # "## Superseded by [...]": a statement, not a section
            section = heading.group(1).strip().lower()
            continue
        if section is None or section == "status":
            out.append(line)
    return out


def _mostly_records(paths: list[Path]) -> bool:
    """Whether at least half of these files read as records (on their first 4,000 characters,
    where a frontmatter `status:` reads as a status line)."""
    return mostly(paths, lambda head: reads_as_record({}, head), chars=4000) or not paths


@dataclass
class Adr(Flavour):
    name: str = "adr"
    label: str = "ADR"
    summary: str = "Architecture Decision Records (Nygard, MADR): ADR-NNN ids, status and supersession stated in each record"
    has_status: bool = True
    writes_supersession: bool = True

    def detect(self, root: Path) -> int:
        paths = sorted(root.glob("*.md"))
        names = [p.name for p in paths if not self.is_reserved(p.name)]
        named = {n: record_name(n) for n in names}
        numbered = sum(1 for n in names if named[n] is not None and named[n].number is not None)
        if numbered >= 3 and numbered * 3 >= len(names):
            return 80
        # Dated or plain names: a folder of `2020-08-10-title.md` may be a journal, so these are
        # records only when most of them read as records.
        sample = [p for p in paths if p.name in named][:40]
        if len(sample) >= 3 and _mostly_records(sample):
            return 75
        return 40 if numbered >= 3 else 0

    def is_reserved(self, path: str) -> bool:
        return "/" not in path and (path in ("README.md", "index.md") or (record_name(path) is None and bool(_TEMPLATE.search(path))))

    def doc_id(self, path: str, meta: dict[str, Any]) -> str:
        number = record_number(path) if "/" not in path else None
        return ref_id(number) if number is not None else path[:-3]

    def fallback_id(self, path: str) -> str | None:
        """A record whose number an earlier file took keeps its file name as its id."""
        return path[:-3] if "/" not in path and record_number(path) is not None else None

    def is_record(self, path: str, meta: dict[str, Any] | None = None, body: str | None = None) -> bool:
        """A file at the top named as a record, or (given its text) one that reads as a record."""
        if "/" in path:
            return False
        return record_name(path) is not None or (body is not None and reads_as_record(meta or {}, body))

    def _named(self, text: str, path: str) -> list[RawLink]:
        """The records a statement names: ADR numbers, and links to the records' files."""
        found = [RawLink(LinkType.SUPERSEDES.value, (ref,), ref) for ref in _refs(text)]
        found += [self._by_number(RawLink(LinkType.SUPERSEDES.value, c, w)) for c, w in markdown_links(text, path)]
        return found

    def view(self, path: str, meta: dict[str, Any], body: str, mtime: dt.date | None = None) -> View:
        own = self.doc_id(path, meta)
        stated = str(meta.get("status") or "").strip() if meta.get("status") is not None else ""
        statements: list[str] = [stated] if stated else []
        if not stated:
            stated, at = status_text(body)
            if at is not None:
                statements.append(body.split("\n", at + 1)[at])  # as written, with its links
        supersedes: list[RawLink] = []
        superseded_by: list[RawLink] = []
        for key, into in (("supersedes", supersedes), ("superseded-by", superseded_by), ("superseded_by", superseded_by)):
            for value in as_list(meta.get(key)):
                named = self._named(value, path) or [self._by_number(RawLink(LinkType.SUPERSEDES.value, (value.removesuffix(".md"),), value))]
                into.extend(named)
        first = len(statements)
        statements += _statement_lines(body)
        for index, text in enumerate(statements):
            meta_line = _META_LINE.match(text)
            if meta_line:
                into = superseded_by if "by" in meta_line.group(1).lower() else supersedes
                into.extend(self._named(meta_line.group(2), path))
                continue
            # The status, and any sentence among the statements that says it ("This decision has
            # been superseded by decision: [0022 ...](0022-....md)"): only a named record counts.
            if index < first or _STATUS_LINE.match(text) or _STATUS_HEADING.match("## " + text) or _SUPERSEDED_BY.search(text) or _SUPERSEDES.search(text):
                after = _SUPERSEDED_BY.search(text)
                if after:
                    superseded_by.extend(self._named(after.group(1), path))
                after = _SUPERSEDES.search(text)
                if after:
                    supersedes.extend(self._named(after.group(1), path))

        def distinct(raws: list[RawLink]) -> tuple[RawLink, ...]:
            kept: dict[str, RawLink] = {}
            for raw in raws:
                if raw.candidates and raw.candidates[0] != own:
                    kept.setdefault(raw.candidates[0], raw)
            return tuple(kept.values())

        raw_supersedes, raw_superseded_by = distinct(supersedes), distinct(superseded_by)
        named = {r.candidates[0] for r in raw_supersedes + raw_superseded_by} | {own}
        links = [link for link in map(self._by_number, body_links(body, path)) if link.candidates[0] not in named]
        for number in dict.fromkeys(_refs(strip_code(body))):
            if number not in named:
                links.append(RawLink(LinkType.RELATED_TO.value, (number,), number))
        links += raw_supersedes
        title = meta.get("title")
        heading = first_heading(body) or ""
        heading = re.sub(r"^(?:ADR[-_ ]?\d+|\d{4})\s*[:.-]\s*", "", heading, flags=re.I)
        lifecycle = lifecycle_of(stated) if stated else None
        dated = _DATE.search("\n".join(body.split("\n", TOP_LINES * 2)[: TOP_LINES * 2]))
        stated_date = date_of(dated.group(1)) if dated else None  # `**Date**: 2025-12-18` or a `## Date` section
        name = record_name(path) if "/" not in path else None
        name_date = name.date if name is not None else None  # `2021-06-06_002-title.md`
        return View(
            title=str(title).strip() if isinstance(title, str) and title.strip() else heading or path.rsplit("/", 1)[-1][:-3],
            type="decision" if self.is_record(path, meta, body) else "note",
            status=lifecycle or ("superseded" if raw_superseded_by else "active"),
            stated_status=stated,
            tags=tags_of(meta),
            summary=str(meta.get("description") or meta.get("summary") or ""),
            created=date_of(meta.get("date") or meta.get("created")) or stated_date or name_date,
            updated=date_of(meta.get("updated") or meta.get("date")) or stated_date or name_date or mtime,
            raw_links=tuple(links),
            raw_supersedes=raw_supersedes,
            raw_superseded_by=raw_superseded_by,
        )

    @staticmethod
    def _by_number(link: RawLink) -> RawLink:
        """A Markdown link to `ADR-042-python-migration.md` names the record ADR-042."""
        candidates = []
        for candidate in link.candidates:
            number = record_number(candidate.rsplit("/", 1)[-1] + "-")
            candidates.append(ref_id(number) if number is not None else candidate)
        return RawLink(link.type, tuple(dict.fromkeys(candidates)), link.written)

    def check(self, path, parsed, view, today) -> list[Problem]:
        if view is None or view.type != "decision":
            return []
        problems: list[Problem] = []
        meta = parsed.meta or {}
        line = parsed.key_line if "status" in meta else lambda key: None
        if not view.stated_status:
            problems.append(Problem(path, WARNING, "status-missing", "no status: give the record a `status` key, a `## Status` section or a `**Status**:` line", 1))
        elif lifecycle_of(view.stated_status) is None:
            problems.append(Problem(path, WARNING, "status-unknown", f"status {view.stated_status!r} is none of proposed, accepted, deprecated, superseded, rejected", line("status")))
        if view.status == "superseded" and not view.superseded_by and not view.raw_superseded_by:
            problems.append(Problem(path, WARNING, "superseded-without-successor", "the record says it is superseded but names no successor", line("status")))
        if "date" in meta and as_date(meta["date"]) is None:
            problems.append(Problem(path, ERROR, "date-format", f"date is {value_text(meta['date'])}; expected YYYY-MM-DD", parsed.key_line("date")))
        return problems

    def status_word(self, status: str) -> str:
        return {"active": "Accepted", "draft": "Proposed", "deprecated": "Deprecated", "superseded": "Superseded",
                "archived": "Rejected"}.get(status, status.title())

    def status_change(self, parsed, status: str):
        word = self.status_word(status)
        if parsed.meta and "status" in parsed.meta:
            return {**parsed.meta, "status": word.lower()}, parsed.body
        return self._restate(parsed, lambda line, at, end: line[:at] + word + line[end:])

    def superseded_change(self, parsed, doc, new_id: str):
        """`status: superseded` and `superseded-by` in a frontmatter that has a status; else the
        status word where the record states it becomes "Superseded by ADR-NNN"."""
        meta = dict(parsed.meta or {})
        if new_id in doc.superseded_by and doc.status == "superseded":
            return meta, parsed.body if parsed.has_frontmatter else parsed.text  # already said
        if "status" in meta:
            key = "superseded_by" if "superseded_by" in meta else "superseded-by"
            current = [v for v in as_list(meta.get(key)) if v != new_id]
            meta["status"] = "superseded"
            meta[key] = new_id if not current else current + [new_id]
            return meta, parsed.body
        def say(line: str, at: int, end: int) -> str:
            listed = re.search(r"(?i)\b(?:superseded|replaced)\s+by\b[^)\n]*?\bADR[-_ ]?\d+(?:\]\([^)]*\))?", line)
            if listed:  # already superseded by another: name both
                return line[: listed.end()] + f", {new_id}" + line[listed.end():]
            return line[:at] + f"Superseded by {new_id}" + line[end:]

        return self._restate(parsed, say)

    def supersedes_change(self, parsed, doc, old_id: str):
        """`supersedes` in a frontmatter that has a status; else "(supersedes ADR-NNN)" after the
        status where the record states it, joining a list it already has."""
        meta = dict(parsed.meta or {})
        if old_id in doc.supersedes:
            return meta, parsed.body if parsed.has_frontmatter else parsed.text  # already said
        if "status" in meta:
            current = as_list(meta.get("supersedes"))
            meta["supersedes"] = current + [old_id] if old_id not in current else current
            return meta, parsed.body

        def add(line: str, at: int, end: int) -> str:
            listed = re.search(r"(?i)\bsupersedes\b[^)\n]*\bADR[-_ ]?\d+", line)
            if listed:
                return line[: listed.end()] + f", {old_id}" + line[listed.end():]
            return line.rstrip() + f" (supersedes {old_id})"

        return self._restate(parsed, add)

    @staticmethod
    def _restate(parsed, rewrite):
        """(meta, body) with `rewrite(line, start, end)` applied to the first lifecycle word of
        the line where the record states its status; None when it states none."""
        body = parsed.body if parsed.has_frontmatter else parsed.text
        _, index = status_text(body)
        if index is None:
            return None
        lines = body.split("\n")
        line = lines[index]
        for match in re.finditer(r"[A-Za-z]+", line):
            if match.group(0).lower() in LIFECYCLE_WORDS:
                lines[index] = rewrite(line, match.start(), match.end())
                return parsed.meta or {}, "\n".join(lines)
        return None

    def memory_type(self, doc_id: str, view: View) -> str:
        return view.type
