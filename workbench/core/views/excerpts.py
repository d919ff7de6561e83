"""What a reader is given of a record to judge it by: an excerpt, within a reader's budget.

A person or an agent deciding whether one decision replaces another, or where new knowledge
belongs, reads the title, the status as the file states it ("Superseded by ADR-042", "Accepted"),
its date or number, the opening of its body, what it decides (its "Decision" section, or the
paragraph saying "we will", when the opening stops short of it) and the passage that matched: not
the whole record, and never more than the Kimiko memory design's read budget (ten documents and 45,000 characters
an answer). The excerpt quotes the record as it is written; it leaves nothing out of the opening,
statements of supersession included, because a reader needs them. Only a long web address is
shortened to its host and last part (`https://github.com/…/Node.hs`): whole, they can fill half
an opening with nothing a reader judges by.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from ..vocabulary.model import Document
from .similarity import profiles_of, record_keys, words

__all__ = [
    "READ_DOCUMENTS",
    "READ_CHARACTERS",
    "OPENING",
    "PASSAGE",
    "DECISION",
    "Excerpt",
    "excerpt",
    "passage",
    "decision",
    "linked_keys",
    "shorten_addresses",
    "answer_size",
    "fit_openings",
]

READ_DOCUMENTS = 10
READ_CHARACTERS = 45_000
"""The Kimiko memory design's read budget: at most ten documents and 45,000 characters an answer."""
OPENING = 2_500
"""Characters of a body's opening an excerpt quotes: enough for a record's context and decision."""
PASSAGE = 600
"""At most this many characters of the passage that matched."""
DECISION = 1_200
"""At most this many characters of what a record decides, given when the opening stops short of it."""
LONG_ADDRESS = 50
"""A web address longer than this is shown as its host and last part."""

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\[“\"(])|\n")
_ADDRESS = re.compile(r"https?://[^\s<>()\[\]\"'`]+")
_LINK_TARGET = re.compile(r"\]\(\s*<?([^)\s>]+)")
_HEADING = re.compile(r"(?m)^[ \t]*(#{1,6})[ \t]+(.*?)[ \t#]*$")
_DECIDES = re.compile(
    r"(?i)^(?:the\s+|our\s+)?(?:decisions?(?:\s+outcome)?|outcome|resolution|proposed\s+(?:solution|change)s?|"
    r"proposal|what\s+we\s+(?:decided|will\s+do))\b"
)
_WE_DECIDE = re.compile(
    r"(?i)^[ \t]*(?:[-*+][ \t]+)?(?:_?therefore_?,?[ \t]+|so,?[ \t]+|thus,?[ \t]+)?we(?:'ll|[ \t]+will|[ \t]+shall|"
    r"[ \t]+have[ \t]+decided|[ \t]+decided|[ \t]+decide|[ \t]+are[ \t]+going[ \t]+to|[ \t]+agreed|[ \t]+chose)\b"
)
_FENCE = re.compile(r"(?ms)^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$")


@dataclass(frozen=True)
class Excerpt:
    """One record as a reader meets it: what it is called, says of itself and opens with."""

    id: str
    title: str
    type: str
    status: str  # as the file states it ("Superseded by ADR-042"); Memory Core's own word otherwise
    date: str | None  # ISO date the record carries (created, else updated), if any
    number: int | None  # the record's number ("ADR-007" is 7), if it has one
    path: str
    opening: str  # the body's first OPENING characters, cut at a line or a word
    passage: str  # the passage that matched the other record (or the draft), "" when none stood out
    characters: int  # the whole body's length
    digest: str  # the bytes read: a judgement holds for this version only
    opening_cut: bool = False  # the body goes on past the opening
    decision: str = ""  # what the record decides, when the opening does not hold it whole

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "type": self.type,
            "status": self.status,
            "date": self.date,
            "number": self.number,
            "path": self.path,
            "opening": self.opening,
            "opening_cut": self.opening_cut,
            "characters": self.characters,
            "decision": self.decision,
            "passage": self.passage,
        }

    def decides(self) -> str:
        """What the record decides, for a reader shown no opening (a one-line list): `decision`
        when it stands alone, else what the opening holds of it, "" when the record says none."""
        if self.decision and not self.decision.startswith("…"):
            return self.decision
        return decision(self.opening) or self.decision.removeprefix("…")


def _date(doc: Document) -> dt.date | None:
    if doc.view is not None:
        return doc.view.created or doc.view.updated
    for key in ("created_at", "updated_at"):
        value = doc.meta.get(key)
        if isinstance(value, dt.datetime):
            return value.date()
        if isinstance(value, dt.date):
            return value
    return None


def _stated(doc: Document) -> str:
    """The status in the record's own words; a record of another format that states none says so,
    rather than the lifecycle word it is read as."""
    if doc.view is None:
        return doc.status
    return doc.view.stated_status or f"none stated (read as {doc.status})"


def _cut(text: str, most: int) -> str:
    """The start of `text`, at most `most` characters, ending at a line or a word when one is near."""
    if len(text) <= most:
        return text
    head = text[:most]
    for mark in ("\n\n", "\n", " "):
        at = head.rfind(mark)
        if at >= most * 0.8:
            return head[:at].rstrip()
    return head


def excerpt(
    doc: Document,
    matched: Iterable[str] = (),
    cited: Iterable[str] = (),
    opening: int = OPENING,
) -> Excerpt:
    """`doc` as a reader meets it: its opening, and the passage that cites one of `cited` (another
    record's handles: its id, file name, record number as `adr:7`) or else holds most of the
    `matched` words (stems, as `similarity.words` gives them)."""
    profile = profiles_of([doc])[doc.id]
    number = profile.when[1] if len(profile.when) > 1 and profile.when[1] else None
    when = _date(doc)
    body = _body(doc)
    whole = body.strip("\n")
    shown = _cut(whole, opening)
    return Excerpt(
        doc.id,
        doc.title,
        doc.type,
        _stated(doc),
        when.isoformat() if when else None,
        number,
        doc.path,
        shown,
        passage(body, matched, cited, len(shown)),
        len(doc.body),
        doc.digest,
        len(shown) < len(whole),
        decision(whole, shown),
    )


def _body(doc: Document) -> str:
    """The body as an excerpt quotes it: Unix line ends, long web addresses shortened."""
    return shorten_addresses(doc.body.replace("\r\n", "\n"))


def _reopened(shown: Excerpt, doc: Document, most: int) -> Excerpt:
    """`shown` with an opening of at most `most` characters, and what it decides worked out again
    against that shorter opening (more of it now lies past the opening)."""
    if most >= len(shown.opening):
        return shown
    whole = _body(doc).strip("\n")
    opening = _cut(whole, most)
    return replace(shown, opening=opening, opening_cut=len(opening) < len(whole), decision=decision(whole, opening))


def shorten_addresses(text: str) -> str:
    """`text` with every web address longer than LONG_ADDRESS written as its host and the last
    part of its path (`https://github.com/…/Node.hs`): the file or page it names stays, the rest
    (commit hashes, line anchors, query strings) goes."""

    def short(found: re.Match[str]) -> str:
        address = found.group(0)
        if len(address) <= LONG_ADDRESS:
            return address
        parts = urlsplit(address)
        last = parts.path.rstrip("/").rsplit("/", 1)[-1]
        return f"{parts.scheme}://{parts.netloc}/…/{last}" if last else f"{parts.scheme}://{parts.netloc}/…"

    return _ADDRESS.sub(short, text)


def linked_keys(text: str) -> set[str]:
    """What the links of `text` point at, as record handles: the last part of each link's path
    without its extension (`0017-use-udp`), and `adr:10` for a path ending `/adr/10`. A link's
    words may name nothing (`[Direct](/adr/10)`); its target still cites a record."""
    keys: set[str] = set()
    for target in _LINK_TARGET.findall(text):
        parts = [p for p in re.split(r"[/\\]", target.split("#")[0].split("?")[0]) if p]
        if not parts:
            continue
        last = parts[-1].rsplit(".", 1)[0] if "." in parts[-1][1:] else parts[-1]
        if not last.isdigit():
            keys.add(last.lower())
        elif len(parts) >= 2 and parts[-2].isalpha():
            keys.add(f"{parts[-2].lower()}:{int(last)}")
    return keys


def decision(text: str, shown: str = "") -> str:
    """What the record decides, in its words: the section under a heading that says so
    ("Decision", "Decision Outcome", "Resolution", "Proposal"), else the first paragraph saying
    "we will", "we decided" or the like; at most DECISION characters. `shown` is the opening a
    reader has (a prefix of `text`): what it holds is not repeated; a section it stops inside of
    goes on from there, after "…". "" when there is none or the opening holds it whole."""
    seen = len(shown) if text.startswith(shown) else 0
    span: tuple[int, int] | None = None
    for heading in _HEADING.finditer(text):
        if _DECIDES.match(heading.group(2).strip("*_ ")):
            level, start = len(heading.group(1)), heading.end()
            end = next((h.start() for h in _HEADING.finditer(text, start) if len(h.group(1)) <= level), len(text))
            if text[start:end].strip():
                span = (start, end)
                break
    if span is None:  # a paragraph that opens by saying what "we" decide, outside code
        fenced = [(f.start(), f.end()) for f in _FENCE.finditer(text)]
        for found in re.finditer(r"(?s).+?(?:\n[ \t]*\n|\Z)", text):
            inside = any(start <= found.start() < end for start, end in fenced)
            if not inside and _WE_DECIDE.match(found.group(0).lstrip("\n")):
                span = (found.start(), found.end())
                break
    if span is None or span[1] <= seen or not text[max(span[0], seen) : span[1]].strip():
        return ""
    said = _cut(text[max(span[0], seen) : span[1]].strip(), DECISION)
    return f"…{said}" if span[0] < seen else said


def passage(text: str, matched: Iterable[str] = (), cited: Iterable[str] = (), shown: int = 0) -> str:
    """The passage of `text` a reader should see beside the opening: the sentence citing one of
    `cited`, else the paragraph holding most of the `matched` stems (one past the first `shown`
    characters, which the reader has in the opening, when it holds nearly as many); at most
    PASSAGE characters, "" when nothing matched. A heading alone is no passage."""
    handles = {h.lower() for h in cited if h}
    whole = text.lower() if handles else ""
    # A sentence cites one only if the whole text does: most texts cite none, and asking each
    # sentence was most of a page of the review list on long bodies.
    if handles and (
        any(h in whole for h in handles if len(h) >= 4)
        or (any(":" in h for h in handles) and record_keys(text) & handles)
        or ("](" in text and linked_keys(text) & handles)
    ):
        for sentence in _sentences(text):
            lowered = sentence.lower()
            if (record_keys(sentence) | linked_keys(sentence)) & handles or any(
                h in lowered for h in handles if len(h) >= 4
            ):
                return _cut(sentence.strip(), PASSAGE)
    stems = set(matched)
    if not stems:
        return ""
    paragraphs = _paragraphs(text)
    prose = [p for p in paragraphs if not p[2]]
    for among in (prose, paragraphs):  # prose first: a fragment of code between blank lines says little
        best, best_count, beyond, beyond_count = "", 0, "", 0
        for paragraph, start, _, terms in among:
            count = len(stems & terms)
            if count > best_count:
                best, best_count = paragraph, count
            if start >= shown and count > beyond_count:
                beyond, beyond_count = paragraph, count
        if beyond_count and beyond_count * 2 >= best_count:
            best = beyond
        if best_count:
            return _cut(best, PASSAGE)
    return ""


_PARAGRAPHS: dict[str, list[tuple[str, int, bool, frozenset[str]]]] = {}
_PARAGRAPHS_MOST = 256


def _paragraphs(text: str) -> list[tuple[str, int, bool, frozenset[str]]]:
    """The paragraphs of `text` a passage may be (a heading alone is none): each with where it
    starts, whether it is inside a code fence, and its words. Kept for the last texts asked: a
    record stands in several of the review list's pairs, and its words are most of a page's time."""
    found = _PARAGRAPHS.get(text)
    if found is None:
        fenced = [(f.start(), f.end()) for f in _FENCE.finditer(text)]
        paragraphs = [
            (match.group(0).strip(), match.start(), any(a <= match.start() < b for a, b in fenced))
            for match in re.finditer(r"(?s).+?(?:\n[ \t]*\n|\Z)", text)
        ]
        found = [
            (p, start, inside, frozenset(words(p)))
            for p, start, inside in paragraphs
            if p and not (p.startswith("#") and "\n" not in p)
        ]
        if len(_PARAGRAPHS) >= _PARAGRAPHS_MOST:
            _PARAGRAPHS.clear()
        _PARAGRAPHS[text] = found
    return found


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


def answer_size(value: Any) -> int:
    """The characters `value` takes as an agent reads it: JSON indented by two spaces, non-ASCII
    as it is (the MCP server's text), nested one level deeper than the answer's top."""
    return len(json.dumps({"answer": value}, ensure_ascii=False, indent=2))


def fit_openings(
    excerpts: list[Excerpt], docs: list[Document], room: int, size: Callable[[list[Excerpt]], int]
) -> list[Excerpt]:
    """The excerpts (of `docs`, in the same order) with their openings cut evenly (the longest
    first) until `size` of them is at most `room`; each keeps at least a few hundred characters,
    and says again what it decides past its shorter opening. Unchanged when they fit already."""
    if size(excerpts) <= room:
        return excerpts

    def cut_to(most: int) -> list[Excerpt]:
        return [_reopened(e, doc, most) for e, doc in zip(excerpts, docs, strict=True)]

    low, high = 200, max((len(e.opening) for e in excerpts), default=200)
    best = cut_to(low)
    while low < high:
        middle = (low + high + 1) // 2
        trial = cut_to(middle)
        if size(trial) <= room:
            low, best = middle, trial
        else:
            high = middle - 1
    return best
