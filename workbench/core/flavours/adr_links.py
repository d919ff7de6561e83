"""What a decision record says of other records: the ones it replaces and is replaced by (in its
front matter's keys, its status and metadata lines, and sentences of its prose), the ones it
depends on or extends, and every other record it links to or mentions. Each is a `RawLink` the
graph resolves; the record's id, status and dates are read in `adr.py`, which assembles its view.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from ..vocabulary.model import LinkType
from .base import (
    RawLink,
    as_list,
    lazy_pattern,
    markdown_links,
)
from .adr_names import (
    folder_name,
    folder_record,
    prefix_of,
    record_name,
    ref_id,
    refs,
)
from . import adr_text
from .adr_text import (
    cued,
    plain_start,
    preferences,
    sentences,
)
from .markdown import body_links

__all__ = [
    "NUMBERS",
    "PREDECESSOR_KEYS",
    "SUCCESSOR_KEYS",
    "by_number",
    "distinct",
    "folder_links",
    "keyed_supersession",
    "other_links",
    "records_listed",
    "records_named",
    "stated_supersession",
    "told_supersession",
    "typed_links",
]


_META_LINE = lazy_pattern(
    r"^\s*[-*]?\s*(?:\*\*|__)?(Supersedes|Superseded[ -]by|Replaces|Replaced[ -]by)(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*:?\s*(.+?)\s*$",
    re.I,
)
_SUPERSEDED_BY = lazy_pattern(r"\b(?:superseded|superceded|replaced)\s*(?:\([^)\n]*\)\s*)?by\b(.*)", re.I)
_SUPERSEDES = lazy_pattern(r"\b(?:supersedes|supercedes|replaces)\b(.*)", re.I)
# A value that names nothing: `replaces: N/A`, `superseded-by: none`, `-`, `TODO - add it when ready`.
_NO_VALUE = lazy_pattern(
    r"\s*(?:none|nothing|n/?a|no|tbd|tba|null|~|-+|(?:todo|tbd|tba|fixme)\b.*)?\s*\.?\s*", re.I | re.S
)
# Record numbers in a frontmatter value, each maybe with a prefix: `90`, `655, 777`, `SIMD-0387`.
NUMBERS = lazy_pattern(r"\s*#?(?:[A-Za-z]{2,6}[-_ ]?)?\d{1,5}(?:\s*[,;]\s*#?(?:[A-Za-z]{2,6}[-_ ]?)?\d{1,5})*\s*")
# A status that says superseded and names the record without "by": "⌛️ Superseded [0019](0019-x.md)".
_SUPERSEDED_BARE = lazy_pattern(
    r"^[^\w\[]*(?:superseded|superceded|replaced)\b(?!\s*(?:\([^)\n]*\)\s*)?by\b)(.*)", re.I
)
# A site's page for a record: `[ADR 32](/adr/32)`, `(../adr/0032)`.
_SLUG_LINK = lazy_pattern(r"\(\s*(?:\.{1,2}/)*/?([A-Za-z]{2,5})s?/0*(\d{1,5})(?:[-/#?][^)\s]*)?\s*\)")
# Frontmatter keys that name a successor or a predecessor, in the spellings collections use.
SUCCESSOR_KEYS = (
    "superseded-by",
    "superseded_by",
    "supersededby",
    "superceded-by",
    "superceded_by",
    "replaced-by",
    "replaced_by",
)
PREDECESSOR_KEYS = ("supersedes", "supercedes", "replaces")
_TYPED_KEYS = {
    "requires": LinkType.DEPENDS_ON.value,
    "depends-on": LinkType.DEPENDS_ON.value,
    "depends_on": LinkType.DEPENDS_ON.value,
    "extends": LinkType.DERIVED_FROM.value,
    "amends": LinkType.DERIVED_FROM.value,
}
_TYPED_LINE = lazy_pattern(r"\b(amends|extends|requires|depends on|builds on)\b(.*)", re.I)
# Any other key whose name says so (`deprecated-reason: … See ADR-291`) names a successor.
_SUCCESSOR_HINT = lazy_pattern(r"deprecat|supersed|superced|replac|obsolet|successor", re.I)
_HREF = lazy_pattern(r"\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^\"'\n]*[\"'])?\s*\)")


def folder_links(text: str, path: str) -> list[RawLink]:
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


def distinct(raws: list[RawLink], own: str) -> tuple[RawLink, ...]:
    """The records `raws` name, each once (as first written), the record itself left out."""
    kept: dict[str, RawLink] = {}
    for raw in raws:
        if raw.candidates and raw.candidates[0] != own:
            kept.setdefault(raw.candidates[0], raw)
    return tuple(kept.values())


def records_named(text: str, path: str) -> list[RawLink]:
    """The records a statement names: record numbers (`ADR-042`, `ADR 32`, `HIP412`), links to
    the records' files (`0032-x.md`, `../0032-x.md`) or their site pages (`/adr/32`)."""
    prefix = prefix_of(path)
    folders = [RawLink(LinkType.SUPERSEDES.value, r.candidates, r.written) for r in folder_links(text, path)]
    files = markdown_links(text, path)
    for _, written in files + [
        ((), r.written) for r in folders
    ]:  # a link's words name its file's record, which may not be their number
        text = text.replace(written, " ")
    found = [RawLink(LinkType.SUPERSEDES.value, (ref,), ref) for ref in refs(text, prefix)]
    found += [by_number(RawLink(LinkType.SUPERSEDES.value, c, w)) for c, w in files] + folders
    for slug in _SLUG_LINK.finditer(text):
        ref = ref_id(slug.group(2), prefix if slug.group(1).upper() == prefix else "ADR")
        found.append(RawLink(LinkType.SUPERSEDES.value, (ref,), slug.group(0)))
    return found


def records_listed(value: str, path: str) -> list[RawLink]:
    """The records a frontmatter value names: as a statement does, or as bare numbers
    (`superseded-by: 90`, `replaces: 655, 777`) in the collection's own numbering."""
    if _NO_VALUE.fullmatch(value):
        return []
    named = records_named(value, path)
    if named:
        return named
    prefix = prefix_of(path)
    if NUMBERS.fullmatch(value):
        # Another prefix than the files' is the collection's own name for its records only
        # where the file names carry none (`0387-x.md` cited as `SIMD-0387`); in a collection of
        # `hip-12.md`, `EIP-1559` is another standard.
        prefixes = {p.upper() for p in re.findall(r"[A-Za-z]{2,6}", value)}
        if prefix == "ADR" or prefixes <= {prefix}:
            numbers = re.findall(r"\d{1,5}", value)
            return [RawLink(LinkType.SUPERSEDES.value, (ref_id(n, prefix),), value) for n in numbers]
    return [by_number(RawLink(LinkType.SUPERSEDES.value, (value.removesuffix(".md"),), value))]


def typed_links(meta: dict[str, Any], statements: list[str], path: str) -> list[RawLink]:
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
            RawLink(kind, raw.candidates, raw.written) for item in as_list(value) for raw in records_listed(item, path)
        ]
    for text in statements:
        said = _TYPED_LINE.search(text)
        if said:
            kind = (
                LinkType.DEPENDS_ON.value
                if said.group(1).lower().startswith(("requir", "depend"))
                else LinkType.DERIVED_FROM.value
            )
            found += [RawLink(kind, raw.candidates, raw.written) for raw in records_named(said.group(2), path)]
    return found


def keyed_supersession(meta: dict[str, Any], path: str) -> tuple[list[RawLink], list[RawLink]]:
    """The records the front matter says this one replaces (`supersedes: 10`) and is replaced
    by (`superseded-by`, or a key that hints at it with a statement as its value)."""
    supersedes: list[RawLink] = []
    superseded_by: list[RawLink] = []
    for key, value in meta.items():
        spelled = str(key).lower()
        value = str(value) if isinstance(value, int) and not isinstance(value, bool) else value  # `replaces: 10`
        if spelled in PREDECESSOR_KEYS:
            supersedes.extend(raw for item in as_list(value) for raw in records_listed(item, path))
        elif spelled in SUCCESSOR_KEYS:
            superseded_by.extend(raw for item in as_list(value) for raw in records_listed(item, path))
        elif _SUCCESSOR_HINT.search(spelled) and isinstance(value, str):
            superseded_by.extend(records_named(value, path))
    return supersedes, superseded_by


def stated_supersession(statements: list[str], first: int, path: str) -> tuple[list[RawLink], list[RawLink]]:
    """What the status and the statement lines say (the statements before `first` are the
    status itself): a `Superseded-by:` line, "Superseded by ADR-12", "Supersedes ADR-3"."""
    supersedes: list[RawLink] = []
    superseded_by: list[RawLink] = []
    # Past the status, a line says something here only with a verb of supersession in it.
    verbs = bool(adr_text.VERB_CUES.search("\n".join(statements[first:])))
    for index, text in enumerate(statements):
        if index >= first and not (verbs and adr_text.VERB_CUES.search(text)):
            continue
        if adr_text.PARTIAL.search(text):
            continue  # in part: the named record is related, found below as a mention
        meta_line = _META_LINE.match(text)
        if meta_line:
            into = superseded_by if "by" in meta_line.group(1).lower() else supersedes
            into.extend(records_named(meta_line.group(2), path))
            continue
        # The status, and any sentence among the statements that says it ("This decision has
        # been superseded by decision: [0022 ...](0022-....md)"): only a named record counts.
        if (
            index < first
            or adr_text.STATUS_LINE.match(text)
            or adr_text.STATUS_HEADING.match("## " + text)
            or _SUPERSEDED_BY.search(text)
            or _SUPERSEDES.search(text)
        ):
            after: Any = _SUPERSEDED_BY.search(text)
            if after:
                superseded_by.extend(records_named(after.group(1), path))
            status_line = adr_text.STATUS_LINE.match(text)
            bare = _SUPERSEDED_BARE.match(status_line.group(1) if status_line else plain_start(text))
            if bare and (index < first or status_line):
                superseded_by.extend(records_named(bare.group(1), path))
            after = _SUPERSEDES.search(text)
            if after:
                supersedes.extend(records_named(after.group(1), path))
    return supersedes, superseded_by


def told_supersession(prose: str, statements: list[str], own: str, path: str) -> tuple[list[RawLink], list[RawLink]]:
    """What the prose (the body with its code blanked, `strip_code`) says: sentences that replace
    one record by another, and preferences ("rejected in favour of ADR 111", "instead of ADR-100")
    read against this record."""
    supersedes: list[RawLink] = []
    superseded_by: list[RawLink] = []
    verbs, favours = cued(prose)
    for before, after in sentences(verbs, lambda text: records_named(text, path)):
        others = [raw for raw in before if raw.candidates[0] != own]
        if after is None:
            supersedes.extend(before)  # "This ADR supersedes ADR-24"
        elif any(raw.candidates[0] == own for raw in after):
            supersedes.extend(others)  # "ADR-10 … got replaced by <this record>"
        elif not others:
            superseded_by.extend(after)  # "(this decision is) superseded by ADR-32"

    # Only a record's status or top lines say "Rejected in favour of ADR 111" of the record
    # itself; deeper, the same words set aside one option among its alternatives.
    said_at_top = cued("\n\n".join(statements))[1]
    for said, at_top in ((favours, False), (said_at_top, True)):
        for aside, preferred, subject in preferences(said, lambda text: records_named(text, path)):
            if any(raw.candidates[0] == own for raw in preferred):
                supersedes.extend(aside)  # "to implement <this record> instead of ADR-100"
            elif any(raw.candidates[0] == own for raw in aside) or (
                not aside and (subject == "self" or (subject == "bare" and at_top))
            ):
                superseded_by.extend(preferred)  # "(this record was) rejected in favour of ADR 111"
            elif subject == "self" and not preferred:
                supersedes.extend(aside)  # "this decision is taken instead of ADR-100"
    return supersedes, superseded_by


def other_links(
    meta: dict[str, Any],
    statements: list[str],
    body: str,
    prose: str,
    path: str,
    own: str,
    superseding: tuple[RawLink, ...],
) -> list[RawLink]:
    """Every link but the supersessions: the typed ones, then the body's links and the records
    it mentions (in `prose`, the body with its code blanked), each record once (`superseding` are
    the supersessions either way, already linked)."""
    typed = typed_links(meta, statements, path)
    # Each way of naming a record already linked (`xyz-029`, `XYZ-029`): no second link to it.
    named = {c for r in superseding + tuple(typed) for c in r.candidates} | {own}
    links = typed + [
        link
        for link in [*map(by_number, body_links(body, path, prose=prose)), *folder_links(prose, path)]
        if link.candidates[0] not in named
    ]
    for number in dict.fromkeys(refs(prose, prefix_of(path))):
        if number not in named:
            links.append(RawLink(LinkType.RELATED_TO.value, (number,), number))
    return links


def by_number(link: RawLink) -> RawLink:
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
