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
  front matter (`superseded-by: 412`, `replaces: 655, 777`).

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
is a `related_to` link, never a lifecycle statement. A record's date is its frontmatter `date`, else
a `Date:` line or a `## Date` section, else the date in its file name.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import LinkType, Problem
from ..parse import as_date, value_text
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
from .markdown import body_links, date_of, tags_of

__all__ = ["Adr", "RecordName", "prefix_of", "reads_as_record", "record_name", "record_number", "ref_id", "status_text"]

_NUMBERED = re.compile(r"^(?:ADR[-_ ]?(\d{1,4})|(\d{4})|(\d{3}))[-_ ]", re.I)
# An improvement-proposal collection names its records `hip-1008.md`, `arc-0003.md`, `eip-1559.md`:
# a short prefix, a dash and the number, maybe a title after it.
_PREFIXED = re.compile(r"^([A-Za-z]{2,5})[-_](\d{1,5})(?=[-_.]|$)")
_DATED = re.compile(r"^(\d{4})-?(\d{2})-?(\d{2})[-_ ](?:(?:ADR[-_ ]?)?(\d{3,4})[-_ ])?", re.I)
_REF = re.compile(r"\bADR[-_ ]?(0\d{3}|\d{1,3})\b", re.I)  # ADR-2025 is a year, not a record
_STATUS_LINE = re.compile(r"^\s*[-*]?\s*(?:(?:\*\*|__)Status\s*:?\s*(?:\*\*|__)|Status\s*:)\s*:?\s*(.+?)\s*$", re.I)
_STATUS_HEADING = re.compile(
    r"^#{1,3}\s+((?:Superseded|Superceded|Replaced|Deprecated|Rejected|Withdrawn|Obsolete)\b.*?)\s*#*\s*$", re.I
)
_META_LINE = re.compile(
    r"^\s*[-*]?\s*(?:\*\*|__)?(Supersedes|Superseded[ -]by|Replaces|Replaced[ -]by)(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*:?\s*(.+?)\s*$",
    re.I,
)
_SUPERSEDED_BY = re.compile(r"\b(?:superseded|superceded|replaced)\s*(?:\([^)\n]*\)\s*)?by\b(.*)", re.I)
_SUPERSEDES = re.compile(r"\b(?:supersedes|supercedes|replaces)\b(.*)", re.I)
# A sentence anywhere in a record that says it: "This ADR updates and supersedes [ADR0024 …]",
# "We supersede [ADR 17](/adr/17)", "[HIP10] … got replaced by HIP412", each only where it names a
# record and says no "not" or "might" before the verb ("does not directly supersede ADR 23", "we
# might one day be superseded by ADR-9" state nothing).
_VERB_ACTIVE = re.compile(r"\b(?:supersed|superced|replac)(?:e|es|ing)\b(?!\s+by\b)", re.I)
_VERB_PASSIVE = re.compile(r"\b(?:supersed|superced|replac)ed\s*(?:\([^)\n]*\)\s*)?by\b", re.I)
_HEDGE = re.compile(
    r"\b(?:not|never|no longer|without|nor|if|whether|might|may|could|would|will|should|shall|can|once|until|unless|intend(?:s|ed)?|proposes?|consider(?:s|ed|ing)?)\b|n't\b",
    re.I,
)
_SELF = re.compile(
    r"\b(?:this|the current|the present)\s+(?:[\w*`]+\s+){0,2}?(?:adr|decision|record|proposal|document|rfc|standard|specification|arc|hip|eip|pep)\b|\bwe\b",
    re.I,
)
# "This ADR in part supersedes …", "supersedes some aspects of ADR-15", "Partly superseded": the
# record named stands for the rest, so it is a related record, not a replaced one.
_PARTIAL = re.compile(
    r"\b(?:in part|partly|partially|parts? of|some aspects?|aspects of|portions? of|for post-\w+)\b", re.I
)
# A value that names nothing: `replaces: N/A`, `superseded-by: none`, `-`.
_NO_VALUE = re.compile(r"\s*(?:none|nothing|n/?a|no|tbd|tba|null|~|-+)?\s*\.?\s*", re.I)
# Record numbers in a frontmatter value, each maybe with a prefix: `90`, `655, 777`, `SIMD-0387`.
_NUMBERS = re.compile(r"\s*#?(?:[A-Za-z]{2,6}[-_ ]?)?\d{1,5}(?:\s*[,;]\s*#?(?:[A-Za-z]{2,6}[-_ ]?)?\d{1,5})*\s*")
# A status that says superseded and names the record without "by": "⌛️ Superseded [0019](0019-x.md)".
_SUPERSEDED_BARE = re.compile(r"^[^\w\[]*(?:superseded|superceded|replaced)\b(?!\s*(?:\([^)\n]*\)\s*)?by\b)(.*)", re.I)
_NOTHING = re.compile(r"[\s*_:`]*(?:none|nothing|n/a|no\b|-+\s*$)", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\[`*_(])|\n\s*\n|\n(?=\s*(?:[-*+]|\d+\.)\s)")
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
    r"(?im)^(?:\s*[-*]?\s*(?:\*\*|__)?Date(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*:?|#{2,3}\s+Date\s*\n+)\s*(\d{4}-\d{2}-\d{2})"
)
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
    prefix: str = "ADR"  # what the collection calls a record: `ADR`, `HIP`, `ARC`


def record_name(name: str) -> RecordName | None:
    """The record a file name names, or None for a name that follows no record scheme (`title.md`).

    A date comes first when there is one (`2021-06-06_002-x`, `2020-08-10-x`), so a year is never
    read as a number; a date written day before month (`2022-25-11`) is read so when it can only
    be read so. A number alone is `ADR-NNN`, `ADRNNN`, adr-tools' four digits (not a year) or three
    digits (which `Adr.detect` takes for records only where most of them read as records)."""
    dated = _DATED.match(name)
    if dated:
        year, month, day, number = (int(g) if g else None for g in dated.groups())
        date = None
        for m, d in ((month, day), (day, month)):
            try:
                date = dt.date(year, m, d)  # type: ignore[arg-type]  # the pattern requires all three
                break
            except ValueError:
                continue
        if date is None or 1900 <= date.year < 2200:
            return RecordName(number, date)
    numbered = _NUMBERED.match(name)
    if numbered and not (numbered.group(2) and 1900 <= int(numbered.group(2)) < 2200):
        return RecordName(int(numbered.group(1) or numbered.group(2) or numbered.group(3)), None)
    prefixed = _PREFIXED.match(name)
    if prefixed:
        return RecordName(int(prefixed.group(2)), None, prefixed.group(1).upper())
    return None


def record_number(name: str) -> int | None:
    named = record_name(name)
    return named.number if named is not None else None


def _folded(meta: dict[str, Any]) -> dict[str, Any]:
    """The frontmatter with its keys in lower case, the first spelling kept: EIP-style preambles
    write `Status: Final`, `Title: …`, and they mean what `status` and `title` mean."""
    out: dict[str, Any] = {}
    for key, value in meta.items():
        out.setdefault(str(key).lower(), value)
    return out


def _key_named(meta: dict[str, Any], *names: str) -> str | None:
    """The key as this frontmatter spells it (`Status`, `status`) of the first of `names` it has."""
    spelled = {str(key).lower(): key for key in reversed(list(meta))}
    return next((spelled[name] for name in names if name in spelled), None)


def reads_as_record(meta: dict[str, Any], body: str) -> bool:
    """Whether a file without a record's name is one all the same: among its first sections is
    `## Decision` (or MADR's `## Decision Outcome`), and it states a status or has a `## Context`
    section. A review that ends with a decision forty sections down is not a record."""
    sections = [m.group(1).strip().lower() for m in _SECTION.finditer(strip_code(body))][:FIRST_SECTIONS]
    if not any(_DECISION.fullmatch(name) for name in sections):
        return False
    return (
        any(name.startswith("context") for name in sections)
        or isinstance(_folded(meta).get("status"), str)
        or bool(status_text(body)[0])
    )


def ref_id(number: str | int, prefix: str = "ADR") -> str:
    return f"{prefix}-{int(number):03d}"


@functools.lru_cache(maxsize=64)
def _ref_pattern(prefix: str) -> re.Pattern:
    return re.compile(rf"\b{re.escape(prefix)}[-_ ]?(\d{{1,5}})\b", re.I)


def _refs(text: str, prefix: str = "ADR") -> list[str]:
    """The records a text names: `ADR-042`, `ADR 32`, `ADR0024`, and (in a collection whose records
    are `HIP-…`) `HIP-412`, `HIP412`."""
    found = [ref_id(m.group(1)) for m in _REF.finditer(text)]
    if prefix != "ADR":
        found += [ref_id(m.group(1), prefix) for m in _ref_pattern(prefix).finditer(text)]
    return found


def prefix_of(path: str) -> str:
    """What the collection calls its records, from one record's file name (`ADR` by default)."""
    named = record_name(path) if "/" not in path else None
    return named.prefix if named is not None else "ADR"


def _plain(text: str) -> str:
    """Status words without their Markdown: `**Accepted**`, `[ADR-042](./ADR-042-x.md)`, and the
    quote marker or bullet a Status section may put before them (`> Accepted`, `- Accepted`)."""
    text = re.sub(r"^(?:>\s*)+|^[-+]\s+", "", text.strip())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"\*\*|__", "", text).strip("*_ ")


def _items(value: Any) -> list:
    """A key's values as a list, numbers kept as they are (`replaces: 2` is record 2)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    return as_list(value)


def _plain_start(text: str) -> str:
    """A statement without the quote marker, bullet or bold it may start with."""
    return re.sub(r"^(?:\s*(?:>|[-+*]\s|\*\*|__))+", "", text).lstrip()


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


def _sentences(body: str, named) -> list[tuple[list[RawLink], list[RawLink] | None]]:
    """Each sentence of `body` that states a supersession, as (the records it names before the
    verb, those after it), or (records after an active verb, None): `named(text)` finds them.

    A sentence deep in a record often tells of other records ("149 lines replaced by a section
    quoting ADR-009"), so it counts only when the record speaks of itself ("This ADR updates and
    supersedes …", "We supersede …") or names itself after "replaced by"."""
    found: list[tuple[list[RawLink], list[RawLink] | None]] = []
    if not re.search(r"(?i)supersed|superced|replac", body):
        return found
    for sentence in _SENTENCE.split(body):
        passive = _VERB_PASSIVE.search(sentence)
        active = None if passive else _VERB_ACTIVE.search(sentence)
        verb = passive or active
        if verb is None or _HEDGE.search(sentence[: verb.start()]) or _PARTIAL.search(sentence):
            continue
        head, tail = sentence[: verb.start()], sentence[verb.end() :]
        if _NOTHING.match(tail):  # "**Supersedes**: None (extends ADR-041)"
            continue
        before, after = named(head), named(tail)
        if not after:
            continue
        itself = bool(_SELF.search(head))
        if passive:
            found.append((before, after) if itself or before else ([], []))
        elif itself or not re.search(r"\w", head):
            found.append((after, None))
    return [item for item in found if item != ([], [])]


_NAME_LINE = re.compile(r"^\s*[-*]?\s*(?:\*\*|__)?(?:Name|Title)(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.+?)\s*$", re.I)


def _named_title(body: str) -> str | None:
    """A title the record states in its metadata lines at the top (`- Name: …`, `**Title**: …`):
    some collections open every record with the same heading (`# Meta`) and name it there."""
    for line in body.split("\n", TOP_LINES)[:TOP_LINES]:
        if line.startswith("## "):
            return None
        match = _NAME_LINE.match(line)
        if match:
            return _plain(match.group(1)) or None
    return None


def _cited(doc_id: str) -> str:
    """How a record names another so that it reads back as that record: its number (`ADR-042`),
    or, for a record known by its file name (its number taken by another), a link to the file."""
    return doc_id if re.fullmatch(r"[A-Z]{2,5}-\d+", doc_id) else f"[{doc_id}]({doc_id}.md)"


def _states_status(head: str) -> bool:
    """A record's first characters state a status: EIP-style front matter, or as a record does."""
    return bool(re.search(r"(?mi)^status\s*:", head)) or reads_as_record({}, head)


def _mostly_records(paths: list[Path]) -> bool:
    """Whether at least half of these files read as records (on their first 4,000 characters,
    where a frontmatter `status:` reads as a status line)."""
    return mostly(paths, lambda head: reads_as_record({}, head), chars=4000) or not paths


@dataclass
class Adr(Flavour):
    name: str = "adr"
    label: str = "ADR"
    summary: str = (
        "Architecture Decision Records (Nygard, MADR): ADR-NNN ids, status and supersession stated in each record"
    )
    has_status: bool = True
    writes_supersession: bool = True

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
        named = record_name(path) if "/" not in path else None
        return ref_id(named.number, named.prefix) if named is not None and named.number is not None else path[:-3]

    def fallback_id(self, path: str) -> str | None:
        """A record whose number an earlier file took keeps its file name as its id."""
        return path[:-3] if "/" not in path and record_number(path) is not None else None

    def is_record(self, path: str, meta: dict[str, Any] | None = None, body: str | None = None) -> bool:
        """A file at the top named as a record, or (given its text) one that reads as a record."""
        if "/" in path:
            return False
        named = record_name(path)
        if named is not None and (
            named.prefix == "ADR" or body is None or isinstance(_folded(meta or {}).get("status"), str)
        ):
            return True
        return body is not None and reads_as_record(meta or {}, body)

    def _named(self, text: str, path: str) -> list[RawLink]:
        """The records a statement names: record numbers (`ADR-042`, `ADR 32`, `HIP412`), links to
        the records' files (`0032-x.md`, `../0032-x.md`) or their site pages (`/adr/32`)."""
        prefix = prefix_of(path)
        files = markdown_links(text, path)
        for _, written in files:  # a link's words name its file's record, which may not be their number
            text = text.replace(written, " ")
        found = [RawLink(LinkType.SUPERSEDES.value, (ref,), ref) for ref in _refs(text, prefix)]
        found += [self._by_number(RawLink(LinkType.SUPERSEDES.value, c, w)) for c, w in files]
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
        said = _folded(meta)
        stated = str(said.get("status") or "").strip() if said.get("status") is not None else ""
        statements: list[str] = [stated] if stated else []
        if not stated:
            stated, at = status_text(body)
            if at is not None:
                statements.append(body.split("\n", at + 1)[at])  # as written, with its links
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
        first = len(statements)
        statements += _statement_lines(body)
        for index, text in enumerate(statements):
            if _PARTIAL.search(text):
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
                or _STATUS_LINE.match(text)
                or _STATUS_HEADING.match("## " + text)
                or _SUPERSEDED_BY.search(text)
                or _SUPERSEDES.search(text)
            ):
                after: Any = _SUPERSEDED_BY.search(text)
                if after:
                    superseded_by.extend(self._named(after.group(1), path))
                status_line = _STATUS_LINE.match(text)
                bare = _SUPERSEDED_BARE.match(status_line.group(1) if status_line else _plain_start(text))
                if bare and (index < first or status_line):
                    superseded_by.extend(self._named(bare.group(1), path))
                after = _SUPERSEDES.search(text)
                if after:
                    supersedes.extend(self._named(after.group(1), path))

        for before, after in _sentences(strip_code(body), lambda text: self._named(text, path)):
            others = [raw for raw in before if raw.candidates[0] != own]
            if after is None:
                supersedes.extend(before)  # "This ADR supersedes ADR-24"
            elif any(raw.candidates[0] == own for raw in after):
                supersedes.extend(others)  # "ADR-10 … got replaced by <this record>"
            elif not others:
                superseded_by.extend(after)  # "(this decision is) superseded by ADR-32"

        def distinct(raws: list[RawLink]) -> tuple[RawLink, ...]:
            kept: dict[str, RawLink] = {}
            for raw in raws:
                if raw.candidates and raw.candidates[0] != own:
                    kept.setdefault(raw.candidates[0], raw)
            return tuple(kept.values())

        raw_supersedes, raw_superseded_by = distinct(supersedes), distinct(superseded_by)
        named = {r.candidates[0] for r in raw_supersedes + raw_superseded_by} | {own}
        typed = self._typed_links(meta, statements, path)
        named |= {r.candidates[0] for r in typed}
        links = typed + [
            link for link in map(self._by_number, body_links(body, path)) if link.candidates[0] not in named
        ]
        for number in dict.fromkeys(_refs(strip_code(body), prefix_of(path))):
            if number not in named:
                links.append(RawLink(LinkType.RELATED_TO.value, (number,), number))
        links += raw_supersedes
        title = said.get("title") or _named_title(body)
        heading = first_heading(body) or ""
        heading = re.sub(r"^(?:(?:ADR[-_ ]?\d+|\d{4})\s*[:.-]|\d{1,3}[.:](?=\s))\s*", "", heading, flags=re.I)
        lifecycle = self.lifecycle(stated) if stated else None
        if lifecycle == "superseded" and _PARTIAL.search(stated):
            lifecycle = "active"  # "Partly superseded": the record stands for the rest
        dated = _DATE.search("\n".join(body.split("\n", TOP_LINES * 2)[: TOP_LINES * 2]))
        stated_date = date_of(dated.group(1)) if dated else None  # `**Date**: 2025-12-18` or a `## Date` section
        name = record_name(path) if "/" not in path else None
        name_date = name.date if name is not None else None  # `2021-06-06_002-title.md`
        return View(
            title=str(title).strip()
            if isinstance(title, str) and title.strip()
            else heading or path.rsplit("/", 1)[-1][:-3],
            type="decision" if self.is_record(path, meta, body) else "note",
            status=lifecycle or ("superseded" if raw_superseded_by else "active"),
            stated_status=stated,
            tags=tags_of(said),
            summary=str(said.get("description") or said.get("summary") or ""),
            created=date_of(said.get("date") or said.get("created")) or stated_date or name_date,
            updated=date_of(said.get("updated") or said.get("date")) or stated_date or name_date or mtime,
            raw_links=tuple(links),
            raw_supersedes=raw_supersedes,
            raw_superseded_by=raw_superseded_by,
        )

    @staticmethod
    def _by_number(link: RawLink) -> RawLink:
        """A Markdown link to `ADR-042-python-migration.md` names the record ADR-042."""
        candidates = []
        for candidate in link.candidates:
            named = record_name(candidate.rsplit("/", 1)[-1] + "-")
            if named is not None and named.number is not None:
                # The file's own name first: a record whose number another took has it as its id.
                candidates += [candidate.rsplit("/", 1)[-1], ref_id(named.number, named.prefix)]
            else:
                candidates.append(candidate)
        return RawLink(link.type, tuple(dict.fromkeys(candidates)), link.written)

    def check(self, path, parsed, view, today) -> list[Problem]:
        if view is None or view.type != "decision":
            return []
        problems: list[Problem] = []
        meta = parsed.meta or {}
        status_key = _key_named(meta, "status")
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
        date_key = _key_named(meta, "date", "created")
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
        status_key = _key_named(parsed.meta or {}, "status")
        if status_key:
            return {**parsed.meta, status_key: word.lower()}, parsed.body
        return self._restate(parsed, lambda line, at, end: line[:at] + word + line[end:])

    def superseded_change(self, parsed, doc, new_id: str):
        """`status: superseded` and `superseded-by` in a frontmatter that has a status; else the
        status word where the record states it becomes "Superseded by ADR-NNN"."""
        meta = dict(parsed.meta or {})
        if new_id in doc.superseded_by and doc.status == "superseded":
            return meta, parsed.body if parsed.has_frontmatter else parsed.text  # already said
        status_key = _key_named(meta, "status")
        if status_key:
            key = _key_named(meta, *_SUCCESSOR_KEYS) or "superseded-by"
            current = [v for v in _items(meta.get(key)) if v != new_id]
            meta[status_key] = "superseded"
            meta[key] = new_id if not current else current + [new_id]
            return meta, parsed.body

        def say(line: str, at: int, end: int) -> str:
            listed = re.search(r"(?i)\b(?:superseded|replaced)\s+by\b[^)\n]*?\bADR[-_ ]?\d+(?:\]\([^)]*\))?", line)
            if listed:  # already superseded by another: name both
                return line[: listed.end()] + f", {_cited(new_id)}" + line[listed.end() :]
            return line[:at] + f"Superseded by {_cited(new_id)}" + line[end:]

        return self._restate(parsed, say)

    def supersedes_change(self, parsed, doc, old_id: str):
        """`supersedes` in a frontmatter that has a status; else "(supersedes ADR-NNN)" after the
        status where the record states it, joining a list it already has."""
        meta = dict(parsed.meta or {})
        if old_id in doc.supersedes:
            return meta, parsed.body if parsed.has_frontmatter else parsed.text  # already said
        if _key_named(meta, "status"):
            key = _key_named(meta, *_PREDECESSOR_KEYS) or "supersedes"
            current = _items(meta.get(key))
            meta[key] = current + [old_id] if old_id not in current else current
            return meta, parsed.body

        def add(line: str, at: int, end: int) -> str:
            listed = re.search(r"(?i)\bsupersedes\b[^)\n]*\bADR[-_ ]?\d+", line)
            if listed:
                return line[: listed.end()] + f", {_cited(old_id)}" + line[listed.end() :]
            return line.rstrip() + f" (supersedes {_cited(old_id)})"

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
