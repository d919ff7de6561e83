"""Architecture Decision Records (Nygard and MADR): one decision per file.

Collections name their records in a few ways, and each is read for what it says:

- `ADR-NNN-title.md`, `ADRNNN-title.md`, `NNNN-title.md` (adr-tools), `NNN-title.md` (where most
  of those read as records): the number is the id, `ADR-NNN`, which is also how records mention
  each other;
- `2021-06-06_002-title.md` (a date, then a number): the number is the id and the date the day
  it was written;
- `2020-08-10-title.md` (a date, then a title): the file name without `.md` is the id, since no
  number names the record, and the date is the day it was written;
- `title.md` (no number, no date): the file name is the id, and the file is a record when it
  reads as one (a `## Decision` among its first sections, and a status or a `## Context`);
- `hip-412.md`, `arc-0003.md` (improvement proposals, EIP-style): `HIP-412`, `ARC-003`, when most
  of them state a status, and other records are cited as `HIP-412` or by bare number in the
  front matter (`superseded-by: 412`, `replaces: 655, 777`);
- `xyz-012/xyz-012-title.md`, `0012-title/README.md` (one folder per record, its attachments
  beside it): the folder's number is the id, and a link to the folder (`../xyz-029/`) names it.

Other files there (reviews, notes) are documents with path ids; templates, `README.md` and
`index.md` at the top are reserved. Two records that share a number are the collection's fault:
the first (in path order) keeps `ADR-NNN`, the other takes its file name as its id, and both are
reported. The status comes from the frontmatter `status`, else a `## Status` section, else a
`**Status**:` line near the top, else a heading that says it ("## Superseded by ..."). Supersession
comes from the `supersedes` / `superseded-by` / `replaces` keys (and any key that says deprecated
or replaced, such as `deprecated-reason: … See ADR-291`), from statements in the status or in the
metadata lines at the top, both ways ("Superseded by ADR-042", "Supersedes ADR-024, ADR-025",
"Superseded by [a title](2022-01-20-title.md)", "[ADR 32](/adr/32)", "Superceded"), and from a
sentence anywhere in which the record speaks of itself ("This ADR updates and supersedes …", "We
supersede …"; never one that says "not" or "might"). Any other record number mentioned in a body
is a `related_to` link, never a lifecycle statement. A record's date is its frontmatter `date` (or
`created`), else a `Date:` or `Created:` line or a `## Date` section, written in any of the common
forms (`adr_names.written_date`), else the date in its file name.

The supersessions and links a record states are read in `adr_links`; its status lines and
sentences in `adr_text`; its name and number in `adr_names`; the collection's index in
`adr_index`. This module detects a collection, gives each record its id and view, checks it, and
writes a status or a supersession into it in the record's own words.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..vocabulary.model import Problem
from ..vocabulary.parse import as_date, value_text
from .base import (
    CONFIG_HINT,
    ERROR,
    LIFECYCLE_WORDS,
    WARNING,
    Flavour,
    View,
    as_list,
    first_heading,
    lazy_pattern,
    mostly,
    strip_code,
)
from .adr_index import read_index_statuses
from .adr_names import (
    case_blind,
    cited,
    folder_name,
    folder_record,
    prefix_of,
    record_name,
    record_number,
    ref_id,
    unnumbered,
    written_date,
)
from . import adr_links, adr_text
from .adr_text import (
    TOP_LINES,
    folded,
    header_block,
    key_named,
    named_title,
    plain,
    reads_as_record,
    statement_lines,
    status_text,
)
from .adr_links import (
    PREDECESSOR_KEYS,
    SUCCESSOR_KEYS,
    distinct,
    keyed_supersession,
    other_links,
    stated_supersession,
    told_supersession,
)
from .markdown import date_of, tags_of

__all__ = ["Adr"]
_DATE = lazy_pattern(
    r"(?im)^(?:\s*[-*]?\s*(?:\*\*|__)?(?:Date|Created)(?:\s*:\s*(?:\*\*|__)?|(?:\*\*|__)\s*:?|\s+(?=\d))"
    r"|#{2,3}\s+Date\s*\n+)\s*(\S[^\n]*)"
)
_TEMPLATE = lazy_pattern(r"(?:^|[-_.])template\.md$", re.I)


def _date_of(value: Any) -> dt.date | None:
    """A frontmatter date, in YAML's or ISO form or as people write one (`created: 12/17/2022`)."""
    found = date_of(value)
    return written_date(value) if found is None and isinstance(value, str) else found


def _stated_date(body: str) -> dt.date | None:
    """The date a record states in its top lines: `**Date**: 2025-12-18`, `Date: 20/06/2019`, a
    `## Date` section; the first that states one. Every such statement has `Date` or `Created` in
    it after nothing but white space and marks, so the scan starts there."""
    top = "\n".join(body.split("\n", TOP_LINES * 2)[: TOP_LINES * 2])
    start = 0
    lowered = case_blind(top)
    if lowered is not None:
        found = [at for at in (lowered.find("date"), lowered.find("created")) if at >= 0]
        if not found:
            return None
        start = min(found)
        while start and (top[start - 1].isspace() or top[start - 1] in "-*_#"):
            start -= 1
    return next(filter(None, (written_date(m.group(1)) for m in _DATE.finditer(top, start))), None)


def _items(value: Any) -> list:
    """A key's values as a list, numbers kept as they are (`replaces: 2` is record 2)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    return as_list(value)


def _states_status(head: str) -> bool:
    """A record's first characters state a status: EIP-style front matter, a PEP-style header
    (plain, indented or in a `<pre>` block), or as a record does."""
    return bool(re.search(r"(?mi)^status\s*:", head)) or reads_as_record({}, head) or _headed(head)


def _with_header(meta: dict[str, Any], body: str) -> dict[str, Any]:
    """The frontmatter, or where the record states none, the header block it opens with
    (`Status: Replaced`, `Replaced-By: 33`): read as frontmatter keys are."""
    return meta if meta else header_block(body) or meta


def _folder_records(root: Path) -> tuple[list[Path], int]:
    """The records of a collection kept one folder per record (`xyz-012/xyz-012-title.md`), the
    first of each folder, and how many folders the root holds."""
    found, folders = [], 0
    for folder in sorted(root.iterdir()):
        if folder.name.startswith(".") or not folder.is_dir():
            continue
        folders += 1
        if folder_name(folder.name) is not None:
            files = sorted(folder.glob("*.md"))
            found += [p for p in files if folder_record(f"{folder.name}/{p.name}") is not None][:1]
    return found, folders


def _mostly_records(paths: list[Path]) -> bool:
    """Whether at least half of these files read as records (on their first 4,000 characters,
    where a frontmatter `status:` reads as a status line)."""
    return mostly(paths, lambda head: reads_as_record({}, head) or _headed(head), chars=4000) or not paths


def _headed(body: str) -> bool:
    """A proposal's header block states its status (`Status: Final` among `Key: value` lines)."""
    return "status" in folded(header_block(body))


@dataclass
class Adr(Flavour):
    name: str = "adr"
    label: str = "ADR"
    summary: str = (
        "Architecture Decision Records (Nygard, MADR): ADR-NNN ids, status and supersession stated in each record"
    )
    has_status: bool = True
    writes_supersession: bool = True
    reads_loosely: bool = True
    # adr-tools' `doc/adr`, log4brains' `docs/adr`, MADR's `docs/decisions`, and their kin.
    home_folders: tuple[str, ...] = (
        "doc/adr",
        "docs/adr",
        "docs/decisions",
        "docs/architecture/decisions",
        "doc/architecture/decisions",
        "architecture/decisions",
        "adr",
        "decisions",
    )
    # The statuses the collection's index (`README.md`, `index.md`) lists in a table, by file or
    # id: a record that states none has the one listed (`adr_index`).
    listed: tuple[tuple[str, str], ...] = ()

    def prepared(self, root: Path) -> Adr:
        listed = read_index_statuses(root)
        return dataclasses.replace(self, listed=listed) if listed != self.listed else self

    @property
    def reading(self) -> str:
        """As every flavour's, and the statuses the index lists: the derived store is built again
        when they change."""
        base = Flavour.reading.fget(self)  # type: ignore[attr-defined]
        if not self.listed:
            return base
        return f"{base}+listed-{hashlib.sha256(repr(self.listed).encode()).hexdigest()[:12]}"

    def detect(self, root: Path) -> int:
        paths = sorted(root.glob("*.md"))
        names = [p.name for p in paths if not self.is_reserved(p.name)]
        named: dict[str, Any] = {n: record_name(n) for n in names}
        numbered = [n for n in names if named[n] is not None and named[n].number is not None]
        # `hip-12.md`, `arc-0003.md`: records when most of them state a status (EIP-style front
        # matter) or read as records; a folder of `day-01.md` notes is not a decision collection.
        prefixed = [n for n in numbered if named[n].prefix != "ADR"]
        if prefixed and len(prefixed) * 2 >= len(numbered):
            sample = [root / n for n in prefixed[:40]]
            if not mostly(sample, _states_status, chars=4000):
                numbered = [n for n in numbered if named[n].prefix == "ADR"]
        # Three digits alone (`036-multi-cluster.md`) also number a tutorial's chapters: records
        # only when most of them read as records.
        short = [n for n in numbered if re.match(r"\d{3}[-_ ]", n)]
        if short and len(short) * 2 >= len(numbered) and not _mostly_records([root / n for n in short[:40]]):
            numbered = [n for n in numbered if n not in short]
        if len(numbered) >= 3 and len(numbered) * 3 >= len(names):
            return 80
        # One folder per record: most folders hold one, and most of those state a status (a folder
        # of `week-01/week-01.md` notes is no decision collection).
        foldered, folders = _folder_records(root)
        if len(foldered) >= 3 and len(foldered) * 2 >= folders and len(foldered) * 3 >= len(names):
            if mostly(foldered[:40], lambda head: _states_status(head) or bool(status_text(head)[0]), chars=4000):
                return 80
        # Dated or plain names: a folder of `2020-08-10-title.md` may be a journal, so these are
        # records only when most of them read as records.
        sample = [p for p in paths if p.name in named][:40]
        if len(sample) >= 3 and _mostly_records(sample):
            return 75
        return 40 if len(numbered) >= 3 else 0

    def is_reserved(self, path: str) -> bool:
        return (
            "/" not in path
            and (
                path in ("README.md", "index.md")
                # `ADR000-template.md` too; the pattern tried only on a name ending so (asked of every file)
                or (
                    "template.md" in path[-12:].lower()
                    and bool(_TEMPLATE.search(path))
                    and (record_number(path) or 0) == 0
                )
            )
        )

    def doc_id(self, path: str, meta: dict[str, Any]) -> str:
        named = record_name(path) if "/" not in path else folder_record(path)
        return ref_id(named.number, named.prefix) if named is not None and named.number is not None else path[:-3]

    def fallback_id(self, path: str) -> str | None:
        """A record whose number an earlier file took keeps its file name as its id."""
        named = record_number(path) if "/" not in path else folder_record(path)
        return path[:-3] if named is not None else None

    def is_record(
        self, path: str, meta: dict[str, Any] | None = None, body: str | None = None, prose: str | None = None
    ) -> bool:
        """A file at the top named as a record, or (given its text) one that reads as a record;
        in a collection of one folder per record, the record's file there. `prose` is the body
        with its code blanked, where the caller has it."""
        if "/" in path:
            return folder_record(path) is not None
        named = record_name(path)
        if named is not None and (
            named.prefix == "ADR" or body is None or isinstance(folded(meta or {}).get("status"), str)
        ):
            return True
        return body is not None and (reads_as_record(meta or {}, body, prose) or (not meta and _headed(body)))

    def view(self, path: str, meta: dict[str, Any], body: str, mtime: dt.date | None = None) -> View:
        own = self.doc_id(path, meta)
        prose = strip_code(body)  # blanked once, read by each reader of the prose below
        meta = _with_header(meta, body)
        said = folded(meta)
        stated, statements = self._status(path, own, said, body)
        first = len(statements)  # the status as stated; after it, the record's other statement lines
        statements += statement_lines(body)
        supersedes, superseded_by = keyed_supersession(meta, path)
        for found in (
            stated_supersession(statements, first, path),
            told_supersession(prose, statements, own, path),
        ):
            supersedes += found[0]
            superseded_by += found[1]
        raw_supersedes, raw_superseded_by = distinct(supersedes, own), distinct(superseded_by, own)
        links = other_links(meta, statements, body, prose, path, own, raw_supersedes + raw_superseded_by)
        links += raw_supersedes
        title = said.get("title") or named_title(body)
        name = record_name(path) if "/" not in path else folder_record(path)
        own_number = name.number if name is not None else None
        if isinstance(title, str) and title.strip():
            title = unnumbered(title.strip(), prefix_of(path), own_number)
        else:  # the first heading, else the file's name
            title = unnumbered(first_heading(body) or "", prefix_of(path), own_number) or path.rsplit("/", 1)[-1][:-3]
        lifecycle = self.lifecycle(stated) if stated else None
        if lifecycle == "superseded" and adr_text.PARTIAL.search(stated):
            lifecycle = "active"  # "Partly superseded": the record stands for the rest
        created = _date_of(said.get("date") or said.get("created"))
        updated = _date_of(said.get("updated") or said.get("date"))
        # The dates the record states in its text, where its frontmatter gives them not.
        stated_date = _stated_date(body) if created is None or updated is None else None
        name_date = name.date if name is not None else None  # `2021-06-06_002-title.md`
        return View(
            title=title,
            type="decision" if self.is_record(path, meta, body, prose) else "note",
            status=lifecycle or ("superseded" if raw_superseded_by else "active"),
            stated_status=stated,
            # `tags: [Accepted]` (Docusaurus sites tag each record with its status) says the
            # status again, not the subject: two records are not alike for sharing it.
            tags=tuple(tag for tag in tags_of(said) if self.lifecycle(tag) is None),
            summary=str(said.get("description") or said.get("summary") or ""),
            created=created or stated_date or name_date,
            updated=(updated := updated or stated_date or name_date) or mtime,
            updated_is_file_time=updated is None and mtime is not None,
            raw_links=tuple(links),
            raw_supersedes=raw_supersedes,
            raw_superseded_by=raw_superseded_by,
        )

    def _status(self, path: str, own: str, said: dict[str, Any], body: str) -> tuple[str, list[str]]:
        """The status a record states, and the lines that state it as written (with their links):
        the `status` key, else a status line or section of the body, else the collection's index."""
        stated = str(said.get("status") or "").strip() if said.get("status") is not None else ""
        statements: list[str] = [stated] if stated else []
        if not stated:
            stated, at = status_text(body)
            if at is not None:
                statements.append(body.split("\n", at + 1)[at])  # as written, with its links
        if not stated and self.listed:
            listed = dict(self.listed)
            written = listed.get(path) or listed.get(own) or ""
            stated = plain(written)
            statements += [written] if stated else []
        return stated, statements

    def check(self, path, parsed, view, today) -> list[Problem]:
        if view is None or view.type != "decision":
            return []
        problems: list[Problem] = []
        meta = parsed.meta or {}
        status_key = key_named(meta, "status")
        line = (lambda key: parsed.key_line(status_key)) if status_key else (lambda key: None)
        if not view.stated_status:
            problems.append(
                Problem(
                    path,
                    WARNING,
                    "status-missing",
                    "no status: give the record a `status` key, a `## Status` section or a `**Status**:` line",
                    1,
                )
            )
        elif self.lifecycle(view.stated_status) is None:
            problems.append(
                Problem(
                    path,
                    WARNING,
                    "status-unknown",
                    f"status {view.stated_status!r} is none of proposed, accepted, deprecated, superseded, rejected; say what it means in {CONFIG_HINT}",
                    line("status"),
                )
            )
        if view.status == "superseded" and not view.superseded_by and not view.raw_superseded_by:
            problems.append(
                Problem(
                    path,
                    WARNING,
                    "superseded-without-successor",
                    "the record says it is superseded but names no successor",
                    line("status"),
                )
            )
        date_key = key_named(meta, "date")  # a `created` written another way (`12/7/2022`) is the collection's own
        if date_key and as_date(meta[date_key]) is None:
            problems.append(
                Problem(
                    path,
                    ERROR,
                    "date-format",
                    f"{date_key} is {value_text(meta[date_key])}; expected YYYY-MM-DD",
                    parsed.key_line(date_key),
                )
            )
        return problems

    def status_word(self, status: str) -> str:
        return {
            "active": "Accepted",
            "draft": "Proposed",
            "deprecated": "Deprecated",
            "superseded": "Superseded",
            "archived": "Rejected",
        }.get(status, status.title())

    def status_change(self, parsed, status: str):
        word = self.status_word(status)
        status_key = key_named(parsed.meta or {}, "status")
        if status_key:
            return {**parsed.meta, status_key: self._key_word(parsed.meta[status_key], status)}, parsed.body
        return self._restate(parsed, lambda line, at, end: line[:at] + word + line[end:])

    def _key_word(self, stated, status: str) -> str:
        """The status word to write under a frontmatter key: what the record says already when it
        means the same (`Final` stays `Final`), else the flavour's word in the case the record
        writes its status (`Superseded` where it wrote `Accepted`, `superseded` where `accepted`)."""
        stated = str(stated or "")
        if stated and self.lifecycle(stated) == status:
            return stated
        word = self.status_word(status)
        if stated[:1].isupper():
            return word.upper() if stated.isupper() and len(stated) > 1 else word
        return word.lower()

    def superseded_change(self, parsed, doc, new_id: str):
        """`status: superseded` and `superseded-by` in a frontmatter that has a status; else the
        status word where the record states it becomes "Superseded by ADR-NNN"."""
        meta = dict(parsed.meta or {})
        if new_id in doc.superseded_by and doc.status == "superseded":
            return meta, parsed.body if parsed.has_frontmatter else parsed.text  # already said
        status_key = key_named(meta, "status")
        if status_key:
            key = key_named(meta, *SUCCESSOR_KEYS) or "superseded-by"
            current = [v for v in _items(meta.get(key)) if v != new_id]
            meta[status_key] = self._key_word(meta[status_key], "superseded")
            meta[key] = new_id if not current else current + [new_id]
            return meta, parsed.body
        headed = self._in_header(parsed, "superseded", SUCCESSOR_KEYS, "Superseded-By", new_id)
        if headed is not None:
            return headed

        def say(line: str, at: int, end: int) -> str:
            listed = re.search(r"(?i)\b(?:superseded|replaced)\s+by\b[^)\n]*?\bADR[-_ ]?\d+(?:\]\([^)]*\))?", line)
            if listed:  # already superseded by another: name both
                return line[: listed.end()] + f", {cited(new_id)}" + line[listed.end() :]
            return line[:at] + f"Superseded by {cited(new_id)}" + line[end:]

        return self._restate(parsed, say)

    def supersedes_change(self, parsed, doc, old_id: str):
        """`supersedes` in a frontmatter that has a status; else "(supersedes ADR-NNN)" after the
        status where the record states it, joining a list it already has. A proposed record that
        replaces another is accepted by it, as in Memory Core: a draft cannot replace a decision."""
        meta = dict(parsed.meta or {})
        if old_id in doc.supersedes:
            return meta, parsed.body if parsed.has_frontmatter else parsed.text  # already said
        accept = doc.status == "draft"
        status_key = key_named(meta, "status")
        if status_key:
            key = key_named(meta, *PREDECESSOR_KEYS) or "supersedes"
            current = _items(meta.get(key))
            meta[key] = current + [old_id] if old_id not in current else current
            if accept:
                meta[status_key] = self._key_word(meta[status_key], "active")
            return meta, parsed.body
        headed = self._in_header(parsed, "active" if accept else None, PREDECESSOR_KEYS, "Supersedes", old_id)
        if headed is not None:
            return headed

        def add(line: str, at: int, end: int) -> str:
            if accept:
                line = line[:at] + self.status_word("active") + line[end:]
            listed = re.search(r"(?i)\bsupersedes\b[^)\n]*\bADR[-_ ]?\d+", line)
            if listed:
                return line[: listed.end()] + f", {cited(old_id)}" + line[listed.end() :]
            return line.rstrip() + f" (supersedes {cited(old_id)})"

        return self._restate(parsed, add)

    def _in_header(self, parsed, status: str | None, keys: tuple[str, ...], key: str, named: str):
        """({}, text) with the header block a proposal opens with saying it in its own lines: its
        `Status:` word made `status` (None: left as it is), and `named` added to the first of `keys`
        it has (`Superseded-By: BIP-033`), else to a new `key` line under the status, indented as
        the header is. None where the record has frontmatter or no header block with a status."""
        if parsed.has_frontmatter or "status" not in folded(header_block(parsed.text)):
            return None
        lines = parsed.text.split("\n")
        at = next(i for i, line in enumerate(lines) if re.match(r"^\s*status\s*:", line, re.I))
        indent, value = re.match(r"^(\s*)status\s*:\s*(.*?)\s*$", lines[at], re.I).groups()  # type: ignore[union-attr]
        if status is not None:
            lines[at] = lines[at][: len(lines[at]) - len(lines[at].lstrip())] + re.sub(
                r"(?i)^(status\s*:\s*).*$", lambda m: m.group(1) + self._key_word(value, status), lines[at].lstrip()
            )
        spelled = "|".join(re.escape(k).replace("\\-", "[-_ ]?").replace("_", "[-_ ]?") for k in keys)
        for index, line in enumerate(lines[: at + 40]):
            found = re.match(rf"^(\s*(?:{spelled})\s*:)\s*(.*?)\s*$", line, re.I)
            if found:
                listed, said = found.group(2), cited(named)
                if listed and adr_links.NUMBERS.fullmatch(listed) and re.fullmatch(r"[A-Z]{2,5}-\d+", named):
                    said = str(int(named.rsplit("-", 1)[1]))  # `Replaces: 1, 2`, as the list is written
                lines[index] = f"{found.group(1)} {listed + ', ' if listed else ''}{said}"
                return {}, "\n".join(lines)
        lines.insert(at + 1, f"{indent}{key}: {cited(named)}")
        return {}, "\n".join(lines)

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
