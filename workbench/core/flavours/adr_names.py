"""How decision records are named and cited: the number, date and prefix a file name carries
(`ADR-042-x.md`, `0001-x.md`, `2021-06-06_002-x.md`, `hip-412.md`), the id it gives (`ADR-042`,
`HIP-412`), and how a text names a record so that it reads back as that record."""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass

from .base import lazy_pattern

__all__ = [
    "RecordName",
    "case_blind",
    "cited",
    "folder_name",
    "folder_record",
    "prefix_of",
    "record_name",
    "record_number",
    "ref_id",
    "refs",
    "unnumbered",
    "written_date",
]

# An improvement-proposal collection names its records `hip-1008.md`, `arc-0003.md`, `eip-1559.md`:
# a short prefix, a dash and the number, maybe a title after it.
_NUMBERED = lazy_pattern(r"^(?:ADR[-_ ]?(\d{1,4})|(\d{4})|(\d{3}))[-_ ]", re.I)
_PREFIXED = lazy_pattern(r"^([A-Za-z]{2,5})[-_](\d{1,5})(?=[-_.]|$)")
_DATED = lazy_pattern(r"^(\d{4})-?(\d{2})-?(\d{2})[-_ ](?:(?:ADR[-_ ]?)?(\d{3,4})[-_ ])?", re.I)
_REF = lazy_pattern(r"\bADR[-_ ]?(0\d{3}|\d{1,3})\b", re.I)  # ADR-2025 is a year, not a record


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


def ref_id(number: str | int, prefix: str = "ADR") -> str:
    return f"{prefix}-{int(number):03d}"


@functools.lru_cache(maxsize=64)
def _ref_pattern(prefix: str) -> re.Pattern:
    return re.compile(rf"\b{re.escape(prefix)}[-_ ]?(\d{{1,5}})\b", re.I)


def refs(text: str, prefix: str = "ADR") -> list[str]:
    """The records a text names: `ADR-042`, `ADR 32`, `ADR0024`, and (in a collection whose records
    are `HIP-…`) `HIP-412`, `HIP412`."""
    lowered = case_blind(text)
    found = [ref_id(m.group(1)) for m in _starting(_REF, "adr", text, lowered)]
    if prefix != "ADR":
        found += [ref_id(m.group(1), prefix) for m in _starting(_ref_pattern(prefix), prefix.lower(), text, lowered)]
    return found


def _starting(pattern: re.Pattern, word: str, text: str, lowered: str | None) -> list[re.Match]:
    """`pattern.finditer(text)` for a case-blind pattern whose every match starts with `word`
    (after `\\b`, which looks behind the place it is tried at): tried only where the lower-cased
    text has the word (`case_blind`), which in a long text are a few places."""
    if lowered is None:
        return list(pattern.finditer(text))
    found = []
    end = 0
    at = lowered.find(word)
    while at >= 0:
        if at >= end:
            match = pattern.match(text, at)
            if match is not None:
                found.append(match)
                end = match.end()
        at = lowered.find(word, at + 1)
    return found


def case_blind(text: str) -> str | None:
    """`text` lower-cased, where a lower-case ASCII word is found in it at the places a case-blind
    (`re.I`) pattern finds it in `text`; None where a letter breaks that: `İ` (lower-cased to two
    characters), and `ı` and `ſ`, which such a pattern reads as `i` and `s`. Beyond ASCII, the
    text's ASCII image lower-cased (each other character a `?`, at its place): the same words at
    the same places, made five times quicker, but where the Kelvin sign (read and lower-cased as
    `k`) is."""
    global _last_blind
    last = _last_blind
    if last[0] is text:  # the same text again: a record's prose is read by several readers
        return last[1]
    lowered: str | None = None
    if text.isascii():
        lowered = text.lower()
    elif not ("\u0130" in text or "\u0131" in text or "\u017f" in text):
        kelvin = "\u212a" in text
        lowered = text.lower() if kelvin else text.encode("ascii", "replace").decode("ascii").lower()
    if len(text) >= 1024:  # kept for the next reader; a short text is lower-cased again at no cost
        _last_blind = (text, lowered)
    return lowered


# The last long text `case_blind` was given, and its answer (one pair, replaced whole).
_last_blind: tuple[str, str | None] = ("", "")


def unnumbered(title: str, prefix: str = "ADR", number: int | None = None) -> str:
    """A title without the record's number before it: `ADR-042: X`, `XYZ-031: X` (where the
    collection calls its records so), `0014. X`, `4. X`, and `23 X` in record 23; a year is no
    record number (`2024: Roadmap` keeps it), nor is another record's (`29 X` in record 30)."""
    named = rf"(?:ADR|{re.escape(prefix)})[-_ ]?\d+"
    title = re.sub(rf"^(?:(?:{named}|0\d{{3}})\s*[:.-]|\d{{1,3}}[.:](?=\s))\s*", "", title, flags=re.I)
    bare = re.match(r"(\d{1,4})\s+(?=\S)", title)
    return title[bare.end() :] if bare and number is not None and int(bare.group(1)) == number else title


_MONTHS = {
    name: number
    for number, names in enumerate(
        "jan january|feb february|mar march|apr april|may|jun june|jul july|aug august|sep sept september"
        "|oct october|nov november|dec december".split("|"),
        start=1,
    )
    for name in names.split()
}
_YEAR_FIRST = lazy_pattern(r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b")
_YEAR_LAST = lazy_pattern(r"\b(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})\b")
_DAY_NAMED = lazy_pattern(r"\b(\d{1,2})(?:st|nd|rd|th)?(?:\s+|-)([A-Za-z]{3,9})\.?,?(?:\s+|-)(\d{4})\b")
_NAMED_DAY = lazy_pattern(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")


def _date(year: int, month: int | None, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day) if month else None
    except ValueError:
        return None


def written_date(text: str) -> dt.date | None:
    """The date a line states as people write it: `2022-03-03`, `2022/03/03`, `3 March 2022`,
    `03-Mar-2022`, `March 3rd, 2022`, `20/06/2019`, `12/17/2022`. A date of numbers alone whose day
    and month could be either way round (`05/02/2018`) states none: it is read only where one of
    the two can only be a day."""
    found = _YEAR_FIRST.search(text)
    if found:
        year, month, day = map(int, found.groups())
        return _date(year, month, day) or _date(year, day, month)  # `2022-25-11`: only so
    found = _YEAR_LAST.search(text)
    if found:
        first, second, year = map(int, found.groups())
        if first != second and first <= 12 and second <= 12:
            return None  # 05/02/2018: the fifth of February or the second of May
        return _date(year, second, first) if first > 12 else _date(year, first, second)
    found = _DAY_NAMED.search(text)
    if found:
        return _date(int(found.group(3)), _MONTHS.get(found.group(2).lower()), int(found.group(1)))
    found = _NAMED_DAY.search(text)
    if found:
        return _date(int(found.group(3)), _MONTHS.get(found.group(1).lower()), int(found.group(2)))
    return None


def folder_name(folder: str) -> RecordName | None:
    """The record a folder is named for (`xyz-012`, `0012-title`), or None."""
    named = record_name(folder + "-")
    return named if named is not None and named.number is not None else None


def folder_record(path: str) -> RecordName | None:
    """The record a file is when the collection keeps one folder per record: a Markdown file at the
    top of a folder named for a record, itself named for the same record (`xyz-012/xyz-012.md`,
    `xyz-012/xyz-012-title.md`), or by the folder's prefix alone (`xyz-038/xyz-private-layer.md`);
    in a folder named by a number and a title (`0012-title/`), its `README.md` or `index.md`. The
    other files there (an analysis, the scripts' README) are the record's attachments."""
    folder, _, name = path.partition("/")
    owner = folder_name(folder) if name and "/" not in name else None
    if owner is None:
        return None
    named = record_name(name)
    if named is not None and named.number is not None:
        return owner if (named.number, named.prefix) == (owner.number, owner.prefix) else None
    if owner.prefix != "ADR":
        return owner if re.match(rf"{re.escape(owner.prefix)}[-_][A-Za-z]", name, re.I) else None
    return owner if name in ("README.md", "index.md") else None


def prefix_of(path: str) -> str:
    """What the collection calls its records, from one record's file name or its folder's name
    (`ADR` by default)."""
    named = record_name(path) if "/" not in path else folder_name(path.split("/", 1)[0])
    return named.prefix if named is not None else "ADR"


def cited(doc_id: str) -> str:
    """How a record names another so that it reads back as that record: its number (`ADR-042`),
    or, for a record known by its file name (its number taken by another), a link to the file."""
    return doc_id if re.fullmatch(r"[A-Z]{2,5}-\d+", doc_id) else f"[{doc_id}]({doc_id}.md)"
