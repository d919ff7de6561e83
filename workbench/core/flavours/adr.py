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
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..vocabulary.model import LinkType, Problem
from ..vocabulary.parse import as_date, value_text
from .base import (
    CONFIG_HINT,
    ERROR,
    LIFECYCLE_WORDS,
    WARNING,
    Flavour,
    RawLink,
    View,
    as_list,
    first_heading,
    markdown_links,
    mostly,
    strip_code,
)
from .adr_index import read_index_statuses
from .adr_names import (
    cited,
    folder_name,
    folder_record,
    prefix_of,
    record_name,
    record_number,
    ref_id,
    refs,
    unnumbered,
    written_date,
)
from .adr_text import (
    PARTIAL,
    STATUS_HEADING,
    STATUS_LINE,
    TOP_LINES,
    folded,
    header_block,
    key_named,
    named_title,
    plain,
    plain_start,
    preferences,
    reads_as_record,
    sentences,
    statement_lines,
    status_text,
)
from .markdown import body_links, date_of, tags_of

__all__ = ["Adr"]

_META_LINE = re.compile(
    r"^\s*[-*]?\s*(?:\*\*|__)?(Supersedes|Superseded[ -]by|Replaces|Replaced[ -]by)(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*:?\s*(.+?)\s*$",
    re.I,
)
_SUPERSEDED_BY = re.compile(r"\b(?:superseded|superceded|replaced)\s*(?:\([^)\n]*\)\s*)?by\b(.*)", re.I)
_SUPERSEDES = re.compile(r"\b(?:supersedes|supercedes|replaces)\b(.*)", re.I)
# A value that names nothing: `replaces: N/A`, `superseded-by: none`, `-`, `TODO - add it when ready`.
_NO_VALUE = re.compile(
    r"\s*(?:none|nothing|n/?a|no|tbd|tba|null|~|-+|(?:todo|tbd|tba|fixme)\b.*)?\s*\.?\s*", re.I | re.S
)
# Record numbers in a frontmatter value, each maybe with a prefix: `90`, `655, 777`, `SIMD-0387`.
_NUMBERS = re.compile(r"\s*#?(?:[A-Za-z]{2,6}[-_ ]?)?\d{1,5}(?:\s*[,;]\s*#?(?:[A-Za-z]{2,6}[-_ ]?)?\d{1,5})*\s*")
# A status that says superseded and names the record without "by": "⌛️ Superseded [0019](0019-x.md)".
_SUPERSEDED_BARE = re.compile(r"^[^\w\[]*(?:superseded|superceded|replaced)\b(?!\s*(?:\([^)\n]*\)\s*)?by\b)(.*)", re.I)
# A site's page for a record: `[ADR 32](/adr/32)`, `(../adr/0032)`.
_SLUG_LINK = re.compile(r"\(\s*(?:\.{1,2}/)*/?([A-Za-z]{2,5})s?/0*(\d{1,5})(?:[-/#?][^)\s]*)?\s*\)")
# Frontmatter keys that name a successor or a predecessor, in the spellings collections use.
_SUCCESSOR_KEYS = (
    "superseded-by",
    "superseded_by",
    "supersededby",
    "superceded-by",
    "superceded_by",
    "replaced-by",
    "replaced_by",
)
_PREDECESSOR_KEYS = ("supersedes", "supercedes", "replaces")
_TYPED_KEYS = {
    "requires": LinkType.DEPENDS_ON.value,
    "depends-on": LinkType.DEPENDS_ON.value,
    "depends_on": LinkType.DEPENDS_ON.value,
    "extends": LinkType.DERIVED_FROM.value,
    "amends": LinkType.DERIVED_FROM.value,
}
_TYPED_LINE = re.compile(r"\b(amends|extends|requires|depends on|builds on)\b(.*)", re.I)
# Any other key whose name says so (`deprecated-reason: … See ADR-291`) names a successor.
_SUCCESSOR_HINT = re.compile(r"deprecat|supersed|superced|replac|obsolet|successor", re.I)
_DATE = re.compile(
    r"(?im)^(?:\s*[-*]?\s*(?:\*\*|__)?(?:Date|Created)(?:\s*:\s*(?:\*\*|__)?|(?:\*\*|__)\s*:?|\s+(?=\d))"
    r"|#{2,3}\s+Date\s*\n+)\s*(\S[^\n]*)"
)
_TEMPLATE = re.compile(r"(?:^|[-_.])template\.md$", re.I)
_HREF = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^\"'\n]*[\"'])?\s*\)")


def _date_of(value: Any) -> dt.date | None:
    """A frontmatter date, in YAML's or ISO form or as people write one (`created: 12/17/2022`)."""
    found = date_of(value)
    return written_date(value) if found is None and isinstance(value, str) else found


def _folder_links(text: str, path: str) -> list[RawLink]:
    """Links to a record's folder (`../xyz-029/`, `../xyz-029`), where a collection keeps one
    folder per record: each names that record."""
    found = []
    for match in _HREF.finditer(text) if "](" in text else ():
        href = match.group(1).split("#", 1)[0].split("?", 1)[0]
        if not href or re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I) or "." in href.rsplit("/", 1)[-1]:
            continue  # a web page, a file (`.md` links are read as links to files), or this page
        target = posixpath.normpath(
            href.lstrip("/") if href.startswith("/") else posixpath.join(posixpath.dirname(path), href)
        )
        named = folder_name(target) if "/" not in target and not target.startswith(".") else None
        if named is not None:
            found.append(RawLink(LinkType.RELATED_TO.value, (ref_id(named.number or 0, named.prefix),), match.group(0)))
    return found


def _items(value: Any) -> list:
    """A key's values as a list, numbers kept as they are (`replaces: 2` is record 2)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    return as_list(value)


def _states_status(head: str) -> bool:
    """A record's first characters state a status: EIP-style front matter, a PEP-style header
    (plain, indented or in a `<pre>` block), or as a record does."""
    return bool(re.search(r"(?mi)^status\s*:", head)) or reads_as_record({}, head) or _headed(head)


def _distinct(raws: list[RawLink], own: str) -> tuple[RawLink, ...]:
    """The records `raws` name, each once (as first written), the record itself left out."""
    kept: dict[str, RawLink] = {}
    for raw in raws:
        if raw.candidates and raw.candidates[0] != own:
            kept.setdefault(raw.candidates[0], raw)
    return tuple(kept.values())


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
        return "/" not in path and (
            path in ("README.md", "index.md")
            or (bool(_TEMPLATE.search(path)) and (record_number(path) or 0) == 0)  # `ADR000-template.md` too
        )

    def doc_id(self, path: str, meta: dict[str, Any]) -> str:
        named = record_name(path) if "/" not in path else folder_record(path)
        return ref_id(named.number, named.prefix) if named is not None and named.number is not None else path[:-3]

    def fallback_id(self, path: str) -> str | None:
        """A record whose number an earlier file took keeps its file name as its id."""
        named = record_number(path) if "/" not in path else folder_record(path)
        return path[:-3] if named is not None else None

    def is_record(self, path: str, meta: dict[str, Any] | None = None, body: str | None = None) -> bool:
        """A file at the top named as a record, or (given its text) one that reads as a record;
        in a collection of one folder per record, the record's file there."""
        if "/" in path:
            return folder_record(path) is not None
        named = record_name(path)
        if named is not None and (
            named.prefix == "ADR" or body is None or isinstance(folded(meta or {}).get("status"), str)
        ):
            return True
        return body is not None and (reads_as_record(meta or {}, body) or (not meta and _headed(body)))

    def _named(self, text: str, path: str) -> list[RawLink]:
        """The records a statement names: record numbers (`ADR-042`, `ADR 32`, `HIP412`), links to
        the records' files (`0032-x.md`, `../0032-x.md`) or their site pages (`/adr/32`)."""
        prefix = prefix_of(path)
        folders = [RawLink(LinkType.SUPERSEDES.value, r.candidates, r.written) for r in _folder_links(text, path)]
        files = markdown_links(text, path)
        for _, written in files + [
            ((), r.written) for r in folders
        ]:  # a link's words name its file's record, which may not be their number
            text = text.replace(written, " ")
        found = [RawLink(LinkType.SUPERSEDES.value, (ref,), ref) for ref in refs(text, prefix)]
        found += [self._by_number(RawLink(LinkType.SUPERSEDES.value, c, w)) for c, w in files] + folders
        for slug in _SLUG_LINK.finditer(text):
            ref = ref_id(slug.group(2), prefix if slug.group(1).upper() == prefix else "ADR")
            found.append(RawLink(LinkType.SUPERSEDES.value, (ref,), slug.group(0)))
        return found

    def _listed(self, value: str, path: str) -> list[RawLink]:
        """The records a frontmatter value names: as a statement does, or as bare numbers
        (`superseded-by: 90`, `replaces: 655, 777`) in the collection's own numbering."""
        if _NO_VALUE.fullmatch(value):
            return []
        named = self._named(value, path)
        if named:
            return named
        prefix = prefix_of(path)
        if _NUMBERS.fullmatch(value):
            # Another prefix than the files' is the collection's own name for its records only
            # where the file names carry none (`0387-x.md` cited as `SIMD-0387`); in a collection of
            # `hip-12.md`, `EIP-1559` is another standard.
            prefixes = {p.upper() for p in re.findall(r"[A-Za-z]{2,6}", value)}
            if prefix == "ADR" or prefixes <= {prefix}:
                numbers = re.findall(r"\d{1,5}", value)
                return [RawLink(LinkType.SUPERSEDES.value, (ref_id(n, prefix),), value) for n in numbers]
        return [self._by_number(RawLink(LinkType.SUPERSEDES.value, (value.removesuffix(".md"),), value))]

    def _typed_links(self, meta: dict[str, Any], statements: list[str], path: str) -> list[RawLink]:
        """Records another depends on or extends, as collections state them: `requires: 17`,
        `extends: [26]` in the front matter, "Amends ADR-0028" or "Extends ADR-12" among the
        statements. Neither is a supersession: the record it names stands."""
        found: list[RawLink] = []
        for key, value in meta.items():
            kind = _TYPED_KEYS.get(str(key).lower())
            if kind is None:
                continue
            value = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
            found += [
                RawLink(kind, raw.candidates, raw.written)
                for item in as_list(value)
                for raw in self._listed(item, path)
            ]
        for text in statements:
            said = _TYPED_LINE.search(text)
            if said:
                kind = (
                    LinkType.DEPENDS_ON.value
                    if said.group(1).lower().startswith(("requir", "depend"))
                    else LinkType.DERIVED_FROM.value
                )
                found += [RawLink(kind, raw.candidates, raw.written) for raw in self._named(said.group(2), path)]
        return found

    def view(self, path: str, meta: dict[str, Any], body: str, mtime: dt.date | None = None) -> View:
        own = self.doc_id(path, meta)
        meta = _with_header(meta, body)
        said = folded(meta)
        stated, statements = self._status(path, own, said, body)
        first = len(statements)  # the status as stated; after it, the record's other statement lines
        statements += statement_lines(body)
        supersedes, superseded_by = self._keyed_supersession(meta, path)
        for found in (
            self._stated_supersession(statements, first, path),
            self._told_supersession(body, statements, own, path),
        ):
            supersedes += found[0]
            superseded_by += found[1]
        raw_supersedes, raw_superseded_by = _distinct(supersedes, own), _distinct(superseded_by, own)
        links = self._links(meta, statements, body, path, own, raw_supersedes + raw_superseded_by)
        links += raw_supersedes
        title = said.get("title") or named_title(body)
        name = record_name(path) if "/" not in path else folder_record(path)
        own_number = name.number if name is not None else None
        heading = unnumbered(first_heading(body) or "", prefix_of(path), own_number)
        lifecycle = self.lifecycle(stated) if stated else None
        if lifecycle == "superseded" and PARTIAL.search(stated):
            lifecycle = "active"  # "Partly superseded": the record stands for the rest
        top = "\n".join(body.split("\n", TOP_LINES * 2)[: TOP_LINES * 2])
        # `**Date**: 2025-12-18`, `Date: 20/06/2019`, a `## Date` section: the first that states one.
        stated_date = next(filter(None, (written_date(m.group(1)) for m in _DATE.finditer(top))), None)
        name_date = name.date if name is not None else None  # `2021-06-06_002-title.md`
        return View(
            title=unnumbered(title.strip(), prefix_of(path), own_number)
            if isinstance(title, str) and title.strip()
            else heading or path.rsplit("/", 1)[-1][:-3],
            type="decision" if self.is_record(path, meta, body) else "note",
            status=lifecycle or ("superseded" if raw_superseded_by else "active"),
            stated_status=stated,
            # `tags: [Accepted]` (Docusaurus sites tag each record with its status) says the
            # status again, not the subject: two records are not alike for sharing it.
            tags=tuple(tag for tag in tags_of(said) if self.lifecycle(tag) is None),
            summary=str(said.get("description") or said.get("summary") or ""),
            created=_date_of(said.get("date") or said.get("created")) or stated_date or name_date,
            updated=(updated := _date_of(said.get("updated") or said.get("date")) or stated_date or name_date) or mtime,
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

    def _keyed_supersession(self, meta: dict[str, Any], path: str) -> tuple[list[RawLink], list[RawLink]]:
        """The records the front matter says this one replaces (`supersedes: 10`) and is replaced
        by (`superseded-by`, or a key that hints at it with a statement as its value)."""
        supersedes: list[RawLink] = []
        superseded_by: list[RawLink] = []
        for key, value in meta.items():
            spelled = str(key).lower()
            value = str(value) if isinstance(value, int) and not isinstance(value, bool) else value  # `replaces: 10`
            if spelled in _PREDECESSOR_KEYS:
                supersedes.extend(raw for item in as_list(value) for raw in self._listed(item, path))
            elif spelled in _SUCCESSOR_KEYS:
                superseded_by.extend(raw for item in as_list(value) for raw in self._listed(item, path))
            elif _SUCCESSOR_HINT.search(spelled) and isinstance(value, str):
                superseded_by.extend(self._named(value, path))
        return supersedes, superseded_by

    def _stated_supersession(self, statements: list[str], first: int, path: str) -> tuple[list[RawLink], list[RawLink]]:
        """What the status and the statement lines say (the statements before `first` are the
        status itself): a `Superseded-by:` line, "Superseded by ADR-12", "Supersedes ADR-3"."""
        supersedes: list[RawLink] = []
        superseded_by: list[RawLink] = []
        for index, text in enumerate(statements):
            if PARTIAL.search(text):
                continue  # in part: the named record is related, found below as a mention
            meta_line = _META_LINE.match(text)
            if meta_line:
                into = superseded_by if "by" in meta_line.group(1).lower() else supersedes
                into.extend(self._named(meta_line.group(2), path))
                continue
            # The status, and any sentence among the statements that says it ("This decision has
            # been superseded by decision: [0022 ...](0022-....md)"): only a named record counts.
            if (
                index < first
                or STATUS_LINE.match(text)
                or STATUS_HEADING.match("## " + text)
                or _SUPERSEDED_BY.search(text)
                or _SUPERSEDES.search(text)
            ):
                after: Any = _SUPERSEDED_BY.search(text)
                if after:
                    superseded_by.extend(self._named(after.group(1), path))
                status_line = STATUS_LINE.match(text)
                bare = _SUPERSEDED_BARE.match(status_line.group(1) if status_line else plain_start(text))
                if bare and (index < first or status_line):
                    superseded_by.extend(self._named(bare.group(1), path))
                after = _SUPERSEDES.search(text)
                if after:
                    supersedes.extend(self._named(after.group(1), path))
        return supersedes, superseded_by

    def _told_supersession(
        self, body: str, statements: list[str], own: str, path: str
    ) -> tuple[list[RawLink], list[RawLink]]:
        """What the prose says: sentences that replace one record by another, and preferences
        ("rejected in favour of ADR 111", "instead of ADR-100") read against this record."""
        supersedes: list[RawLink] = []
        superseded_by: list[RawLink] = []
        for before, after in sentences(strip_code(body), lambda text: self._named(text, path)):
            others = [raw for raw in before if raw.candidates[0] != own]
            if after is None:
                supersedes.extend(before)  # "This ADR supersedes ADR-24"
            elif any(raw.candidates[0] == own for raw in after):
                supersedes.extend(others)  # "ADR-10 … got replaced by <this record>"
            elif not others:
                superseded_by.extend(after)  # "(this decision is) superseded by ADR-32"

        # Only a record's status or top lines say "Rejected in favour of ADR 111" of the record
        # itself; deeper, the same words set aside one option among its alternatives.
        said_at_top = "\n\n".join(statements)
        for text, at_top in ((strip_code(body), False), (said_at_top, True)):
            for aside, preferred, subject in preferences(text, lambda text: self._named(text, path)):
                if any(raw.candidates[0] == own for raw in preferred):
                    supersedes.extend(aside)  # "to implement <this record> instead of ADR-100"
                elif any(raw.candidates[0] == own for raw in aside) or (
                    not aside and (subject == "self" or (subject == "bare" and at_top))
                ):
                    superseded_by.extend(preferred)  # "(this record was) rejected in favour of ADR 111"
                elif subject == "self" and not preferred:
                    supersedes.extend(aside)  # "this decision is taken instead of ADR-100"
        return supersedes, superseded_by

    def _links(
        self,
        meta: dict[str, Any],
        statements: list[str],
        body: str,
        path: str,
        own: str,
        superseding: tuple[RawLink, ...],
    ) -> list[RawLink]:
        """Every link but the supersessions: the typed ones, then the body's links and the records
        it mentions, each record once (`superseding` are the supersessions either way, already linked)."""
        typed = self._typed_links(meta, statements, path)
        # Each way of naming a record already linked (`xyz-029`, `XYZ-029`): no second link to it.
        named = {c for r in superseding + tuple(typed) for c in r.candidates} | {own}
        links = typed + [
            link
            for link in [*map(self._by_number, body_links(body, path)), *_folder_links(strip_code(body), path)]
            if link.candidates[0] not in named
        ]
        for number in dict.fromkeys(refs(strip_code(body), prefix_of(path))):
            if number not in named:
                links.append(RawLink(LinkType.RELATED_TO.value, (number,), number))
        return links

    @staticmethod
    def _by_number(link: RawLink) -> RawLink:
        """A Markdown link to `ADR-042-python-migration.md` names the record ADR-042."""
        candidates = []
        for candidate in link.candidates:
            foldered = folder_record(candidate + ".md")
            named = foldered or record_name(candidate.rsplit("/", 1)[-1] + "-")
            if named is not None and named.number is not None:
                # The file's own id first: a record whose number another took has it as its id.
                own = candidate if foldered else candidate.rsplit("/", 1)[-1]
                candidates += [own, ref_id(named.number, named.prefix)]
            else:
                candidates.append(candidate)
        return RawLink(link.type, tuple(dict.fromkeys(candidates)), link.written)

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
            key = key_named(meta, *_SUCCESSOR_KEYS) or "superseded-by"
            current = [v for v in _items(meta.get(key)) if v != new_id]
            meta[status_key] = self._key_word(meta[status_key], "superseded")
            meta[key] = new_id if not current else current + [new_id]
            return meta, parsed.body
        headed = self._in_header(parsed, "superseded", _SUCCESSOR_KEYS, "Superseded-By", new_id)
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
            key = key_named(meta, *_PREDECESSOR_KEYS) or "supersedes"
            current = _items(meta.get(key))
            meta[key] = current + [old_id] if old_id not in current else current
            if accept:
                meta[status_key] = self._key_word(meta[status_key], "active")
            return meta, parsed.body
        headed = self._in_header(parsed, "active" if accept else None, _PREDECESSOR_KEYS, "Supersedes", old_id)
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
                if listed and _NUMBERS.fullmatch(listed) and re.fullmatch(r"[A-Z]{2,5}-\d+", named):
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
