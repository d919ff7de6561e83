"""What a decision record's text states, read line by line: its status and the line it is on,
the lines where it states its metadata, the sentences in which it says it replaces another or is
replaced, a title named among its metadata, and whether a file reads as a record at all."""

from __future__ import annotations

import itertools
import re
from typing import Any

from .adr_names import case_blind
from .base import RawLink, lazy_pattern, strip_code

__all__ = [
    "PARTIAL",
    "STATUS_HEADING",
    "STATUS_LINE",
    "TOP_LINES",
    "VERB_CUES",
    "cued",
    "folded",
    "header_block",
    "key_named",
    "named_title",
    "plain",
    "plain_start",
    "preferences",
    "reads_as_record",
    "sentences",
    "statement_lines",
    "status_text",
]

STATUS_LINE = lazy_pattern(r"^\s*[-*]?\s*(?:(?:\*\*|__)Status\s*:?\s*(?:\*\*|__)|Status\s*:)\s*:?\s*(.+?)\s*$", re.I)
STATUS_HEADING = lazy_pattern(
    r"^#{1,3}\s+((?:Superseded|Superceded|Replaced|Deprecated|Rejected|Withdrawn|Obsolete)\b.*?)\s*#*\s*$", re.I
)
# A sentence anywhere in a record that says it: "This ADR updates and supersedes [ADR0024 …]",
# "We supersede [ADR 17](/adr/17)", "[HIP10] … got replaced by HIP412", each only where it names a
# record and says no "not" or "might" before the verb ("does not directly supersede ADR 23", "we
# might one day be superseded by ADR-9" state nothing).
_VERB_ACTIVE = lazy_pattern(r"\b(?:supersed|superced|replac)(?:e|es|ing)\b(?!\s+by\b)", re.I)
_VERB_PASSIVE = lazy_pattern(r"\b(?:supersed|superced|replac)ed\s*(?:\([^)\n]*\)\s*)?by\b", re.I)
_HEDGE = lazy_pattern(
    r"\b(?:not|never|no longer|without|nor|if|whether|might|may|could|would|will|should|shall|can|once|until|unless|intend(?:s|ed)?|proposes?|consider(?:s|ed|ing)?)\b|n't\b",
    re.I,
)
_SELF = lazy_pattern(
    r"\b(?:this|the current|the present)\s+(?:[\w*`]+\s+){0,2}?(?:adr|decision|record|proposal|document|rfc|standard|specification|arc|hip|eip|pep)\b|\bwe\b",
    re.I,
)
# "This ADR in part supersedes …", "supersedes some aspects of ADR-15", "Partly superseded": the
# record named stands for the rest, so it is a related record, not a replaced one.
PARTIAL = lazy_pattern(
    r"\b(?:in part|partly|partially|parts? of|some aspects?|aspects of|portions? of|for post-\w+)\b", re.I
)
_NOTHING = lazy_pattern(r"[\s*_:`]*(?:none|nothing|n/a|no\b|-+\s*$)", re.I)
_SENTENCE = lazy_pattern(r"(?<=[.!?])\s+(?=[A-Z\[`*_(])|\n\s*\n|\n(?=\s*(?:[-*+]|\d+\.)\s)")
# The words no statement of supersession (a verb), or of preference ("in favour of", "instead of",
# "rather than", "in place of"), is made without: a sentence with none of them is not read further.
_VERB_WORDS = ("supersed", "superced", "replac")
_FAVOUR_WORDS = ("favo", "instead", "rather", "place")
VERB_CUES = lazy_pattern("|".join(_VERB_WORDS), re.I)
_FAVOUR_CUES = lazy_pattern("|".join(_FAVOUR_WORDS), re.I)
_WORD = lazy_pattern(r"\w")
_SECTION = lazy_pattern(r"(?m)^##[ \t]+(?:\d+\.[ \t]*)?([^\n#]+?)[ \t]*:?[ \t]*$")
_DECISION = lazy_pattern(r"decision(?: outcome)?")
FIRST_SECTIONS = 5
TOP_LINES = 40


def folded(meta: dict[str, Any]) -> dict[str, Any]:
    """The frontmatter with its keys in lower case, the first spelling kept: EIP-style preambles
    write `Status: Final`, `Title: …`, and they mean what `status` and `title` mean."""
    out: dict[str, Any] = {}
    for key, value in meta.items():
        out.setdefault(str(key).lower(), value)
    return out


# A header line of an RFC 822-style block (`Status: Replaced`, `Replaced-By: 33`, `Post-History:`).
_HEADER_LINE = lazy_pattern(r"^([ \t]*)([A-Za-z][A-Za-z0-9]*(?:[-_ ][A-Za-z0-9]+){0,2})[ \t]*:(?:[ \t]+(.*?))?[ \t]*$")
_HEADER_OPEN = lazy_pattern(r"^[ \t]{0,3}(?:<pre>|`{3,}[\w-]*|~{3,}[\w-]*)[ \t]*$", re.I)
_HEADER_CLOSE = lazy_pattern(r"^[ \t]*(?:</pre>|`{3,}|~{3,})[ \t]*$", re.I)
_HEADER_KEYS = {"status", "title"}


def header_block(body: str) -> dict[str, str]:
    """The header a proposal opens with when it has no YAML frontmatter: `Key: value` lines, as
    PEP-like processes write them (RFC 822: a value may go on over indented lines), plain, indented
    as a code block, or in a `<pre>` or a fenced block; a title heading may come first. Read only
    when it states a status or a title, so a record that opens with ordinary text states nothing
    here. Keys as the file spells them; of a key written twice, the first."""
    lines = body.split("\n", 80)[:80]
    at = 0
    while at < len(lines) and not lines[at].strip():
        at += 1
    if at < len(lines) and lines[at].startswith("#"):  # `# BIP 12: Title`, then the header
        at += 1
        while at < len(lines) and not lines[at].strip():
            at += 1
    fenced = at < len(lines) and bool(_HEADER_OPEN.match(lines[at]))
    at += fenced
    found: dict[str, str] = {}
    key, indent = None, ""
    for line in lines[at:]:
        if fenced and _HEADER_CLOSE.match(line) or not line.strip():
            break
        match = _HEADER_LINE.match(line)
        if match and (key is None or len(match.group(1)) <= len(indent)):
            key, indent = match.group(2), match.group(1)
            found.setdefault(key, (match.group(3) or "").strip())
        elif key is not None and len(line) - len(line.lstrip()) > len(indent):
            found[key] = f"{found[key]} {line.strip()}".strip()  # an RFC 822 continuation line
        else:
            break
    if len(found) < 2 or not _HEADER_KEYS & {k.lower() for k in found}:
        return {}
    return found


def key_named(meta: dict[str, Any], *names: str) -> str | None:
    """The key as this frontmatter spells it (`Status`, `status`) of the first of `names` it has."""
    spelled = {str(key).lower(): key for key in reversed(list(meta))}
    return next((spelled[name] for name in names if name in spelled), None)


def reads_as_record(meta: dict[str, Any], body: str, prose: str | None = None) -> bool:
    """Whether a file without a record's name is one all the same: among its first sections is
    `## Decision` (or MADR's `## Decision Outcome`), and it states a status or has a `## Context`
    section. A review that ends with a decision forty sections down is not a record. `prose` is
    the body with its code blanked (`strip_code`), where the caller has it already."""
    found = _SECTION.finditer(strip_code(body) if prose is None else prose)
    sections = [m.group(1).strip().lower() for m in itertools.islice(found, FIRST_SECTIONS)]
    if not any(_DECISION.fullmatch(name) for name in sections):
        return False
    return (
        any(name.startswith("context") for name in sections)
        or isinstance(folded(meta).get("status"), str)
        or bool(status_text(body)[0])
    )


_QUOTED = lazy_pattern(r"^(?:>\s*)+|^[-+]\s+")
_LINKED = lazy_pattern(r"\[([^\]]*)\]\([^)]*\)")
_BOLD = lazy_pattern(r"\*\*|__")
_MARKED = lazy_pattern(r"^(?:\s*(?:>|[-+*]\s|\*\*|__))+")
_STATUS_SECTION = lazy_pattern(r"^#{2,3}\s+(?:\d+\.\s*)?Status\s*:?\s*$", re.I)
_SECTION_HEADING = lazy_pattern(r"^#{2,3}\s+(?:\d+\.\s*)?(.+?)\s*:?\s*$")
_TITLE_HEADING = lazy_pattern(r"^#\s+(.+?)\s*:?\s*$")


def plain(text: str) -> str:
    """Status words without their Markdown: `**Accepted**`, `[ADR-042](./ADR-042-x.md)`, and the
    quote marker or bullet a Status section may put before them (`> Accepted`, `- Accepted`)."""
    text = _QUOTED.sub("", text.strip())
    text = _LINKED.sub(r"\1", text)
    return _BOLD.sub("", text).strip("*_ ")


def plain_start(text: str) -> str:
    """A statement without the quote marker, bullet or bold it may start with."""
    return _MARKED.sub("", text).lstrip()


def status_text(body: str) -> tuple[str, int | None]:
    """The status as the record states it, and the body line it is on (0-based), or ("", None)."""
    section = _status_section(body)
    if section is not None:
        index, after = section
        for offset, line in enumerate(after, index + 1):
            text = line.strip()
            if text.startswith("#"):
                break
            if text and not text.startswith(("<!--", "---")):
                return plain(text), offset
        return "", None
    lines = body.split("\n", TOP_LINES)
    for index, line in enumerate(lines[:TOP_LINES]):
        match = STATUS_LINE.match(line)
        if match and not line.lstrip().startswith("#"):
            return plain(match.group(1)), index
    for index, line in enumerate(lines[:TOP_LINES]):
        if line.startswith("##"):  # the first section: "## Superseded by [...]" says it there
            match = STATUS_HEADING.match(line)
            return (plain(match.group(1)), index) if match else ("", None)
    return "", None


def _status_section(body: str) -> tuple[int, list[str]] | None:
    """The first `## Status` heading's line (0-based) and the eleven lines after it, or None.
    Only the lines where the lower-cased body has `status` are tried (`case_blind`), not every line."""
    lowered = case_blind(body)
    if lowered is None:  # a letter the lower-casing does not read as the pattern does: every line
        lines = body.split("\n")
        for index, line in enumerate(lines):
            if "#" in line and _STATUS_SECTION.match(line.strip()):
                return index, lines[index + 1 : index + 12]
        return None
    at = lowered.find("status")
    while at >= 0:
        start = body.rfind("\n", 0, at) + 1
        end = body.find("\n", at)
        line = body[start:] if end < 0 else body[start:end]
        if "#" in line and _STATUS_SECTION.match(line.strip()):
            after = [] if end < 0 else body[end + 1 :].split("\n", 11)[:11]
            return body.count("\n", 0, start), after
        if end < 0:
            return None
        at = lowered.find("status", end + 1)  # past the line break: the next line
    return None


def statement_lines(body: str) -> list[str]:
    """Where a record states its metadata: the lines at the top before its first section, and
    its Status section. A record whose sections are titles of their own (`# Preamble`, then
    `# Abstract`) ends its top at the second."""
    out = []
    section = None
    titles = 0
    for line in body.split("\n", TOP_LINES * 2)[: TOP_LINES * 2]:
        if line[:1] == "#":  # a heading, maybe
            titles += line.startswith("# ")
            heading = _SECTION_HEADING.match(line) or (_TITLE_HEADING.match(line) if titles > 1 else None)
            if heading:
                if section is None and STATUS_HEADING.match(line):
                    out.append(heading.group(1))  # "## Superseded by [...]": a statement, not a section
                section = heading.group(1).strip().lower()
                continue
        if section is None or section == "status":
            out.append(line)
    return out


def cued(text: str) -> tuple[list[str], list[str]]:
    """The sentences of `text` that use a verb of supersession, and those that use a word of
    preference, each in order: of a long record, the few that `sentences` and `preferences` read.
    They are the sentences splitting the whole text gives (`_SENTENCE`), found around each cue."""
    verbs: list[str] = []
    favours: list[str] = []
    end = -1
    for at, verb in _cue_places(text):
        if at >= end:  # a cue in a sentence not yet found
            start, end = _sentence_at(text, at, max(end, 0))
            sentence = text[start:end]
            marked = [False, False]
        if not marked[verb]:
            marked[verb] = True
            (verbs if verb else favours).append(sentence)
    return verbs, favours


def _cue_places(text: str) -> list[tuple[int, bool]]:
    """Where `text` uses a cue word, in order, and whether it is a verb of supersession. Found
    as plain words in the lower-cased text where that finds what the case-blind patterns find,
    at the same places; else by those patterns."""
    lowered = case_blind(text)
    if lowered is None:
        places = [(m.start(), True) for m in VERB_CUES.finditer(text)]
        places += [(m.start(), False) for m in _FAVOUR_CUES.finditer(text)]
    else:  # "super" and "plac" found once for the four words they begin or end
        places = []
        for stem in ("super", "plac", "favo", "instead", "rather"):
            at = lowered.find(stem)
            while at >= 0:
                if stem == "super":
                    if lowered.startswith(("sed", "ced"), at + 5):
                        places.append((at, True))
                elif stem == "plac":
                    if at >= 2 and lowered.startswith("re", at - 2):
                        places.append((at - 2, True))  # "replac"
                    if lowered.startswith("e", at + 4):
                        places.append((at, False))  # "place"
                else:
                    places.append((at, False))
                at = lowered.find(stem, at + len(stem))
    places.sort()
    return places


def _sentence_at(text: str, at: int, floor: int) -> tuple[int, int]:
    """The start and end of the sentence (as `_SENTENCE.split(text)` cuts it) that holds the
    letter at `at`, given a place before it where that split finds a separator (or 0). A
    separator is white space only, so the scan for separators may also start at any character
    that is not (and look behind it); it starts near `at` and reaches further back until it finds
    one before `at` or the floor."""
    after = _SENTENCE.search(text, at)
    end = after.start() if after is not None else len(text)
    reach = 256
    while True:
        low = max(floor, at - reach)
        while low > floor and text[low].isspace():  # `at` holds a letter: this stops there at the latest
            low += 1
        start = None
        for separator in _SENTENCE.finditer(text, low):
            if separator.start() >= at:
                break
            start = separator.end()
        if start is not None:
            return start, end
        if low == floor:
            return floor, end
        reach *= 4


def sentences(cued_verbs: list[str], named) -> list[tuple[list[RawLink], list[RawLink] | None]]:
    """Each of the sentences that use a verb of supersession (`cued(text)[0]`) that states one, as
    (the records it names before the verb, those after it), or (records after an active verb,
    None): `named(text)` finds them.

    A sentence deep in a record often tells of other records ("149 lines replaced by a section
    quoting ADR-009"), so it counts only when the record speaks of itself ("This ADR updates and
    supersedes …", "We supersede …") or names itself after "replaced by"."""
    found: list[tuple[list[RawLink], list[RawLink] | None]] = []
    for sentence in cued_verbs:
        passive = _VERB_PASSIVE.search(sentence)
        active = None if passive else _VERB_ACTIVE.search(sentence)
        verb = passive or active
        if verb is None or _HEDGE.search(sentence[: verb.start()]) or PARTIAL.search(sentence):
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
        elif itself or not _WORD.search(head):
            found.append((after, None))
    return [item for item in found if item != ([], [])]


# "Rejected in favour of ADR 111", "deprecated in favor of HIP-30": the one named after replaced
# the one before (or the record itself). "We are in favour of ADR-5" says no such thing: a verb of
# setting aside comes first.
_FAVOUR = lazy_pattern(
    r"\b(?:rejected|deprecated|dropped|abandoned|withdrawn|retired|declined|discarded|closed|obsoleted|"
    r"superseded|superceded|replaced|set aside|put aside)\b[^.;]{0,40}?\bin\s+favou?r\s+of\b",
    re.I,
)
# "to implement ADR-101 instead of ADR-100": the record named before replaced the one after.
_INSTEAD = lazy_pattern(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\b", re.I)
_CLAUSE_END = lazy_pattern(r"[;,:(]|\s(?:which|that|because|since|as|and|but|so)\s", re.I)
_CLAUSE_MARK = lazy_pattern(r"[;,:(]")
_STATUS_WORD = lazy_pattern(r"(?i)^\W*status\W*")


def preferences(cued_favours: list[str], named) -> list[tuple[list[RawLink], list[RawLink], str]]:
    """Each of the sentences that use a word of preference (`cued(text)[1]`) that says one record
    was set aside for another: (the records set
    aside, the records preferred, "self" where the sentence speaks of the record itself, "bare"
    where it names no subject at all, as a status does). "Rejected in favour of ADR 111" (bare:
    the record itself, where it is its status; an option in a list of alternatives says so too),
    "ADR-100 was dropped in favour of ADR-101",
    "to implement ADR-101 instead of ADR-100". A sentence that hedges before its verb ("we might
    … instead of …", "not deprecated in favour of …") states nothing."""
    found: list[tuple[list[RawLink], list[RawLink], str]] = []
    for sentence in cued_favours:
        verb = _FAVOUR.search(sentence) if "favo" in sentence.lower() else None  # "in favour of" needs it
        if verb is not None:
            head, tail = sentence[: verb.start()], sentence[verb.end() :]
            preferred = named(_CLAUSE_END.split(tail, 1)[0])
            if preferred and not _HEDGE.search(sentence[: verb.end()]):
                bare = not _WORD.search(_STATUS_WORD.sub("", head))  # "Status: Rejected in …"
                found.append((named(head), preferred, "bare" if bare else "self" if _SELF.search(head) else ""))
            continue
        verb = _INSTEAD.search(sentence)
        if verb is not None:
            head, tail = sentence[: verb.start()], sentence[verb.end() :]
            aside = named(_CLAUSE_END.split(tail, 1)[0])
            clause = _CLAUSE_MARK.split(head)[-1]  # the preferred one is named in the clause before
            preferred = named(clause)
            if aside and not _HEDGE.search(head):
                found.append((aside, preferred, "self" if _SELF.search(clause) else ""))
    return found


# `Name:`, `Title:`, or the name of what a decision template is about (`Proposal Name:`, `Feature
# Name:`), never a person's (`Author Name:`).
_NAME_LINE = lazy_pattern(
    r"^\s*[-*]?\s*(?:\*\*|__)?(?:(?:proposal|feature|decision|record|document|rfc|adr) )?(?:Name|Title)(?:\*\*|__)?"
    r"\s*:\s*(?:\*\*|__)?\s*(.+?)\s*$",
    re.I,
)


def named_title(body: str) -> str | None:
    """A title the record states in its metadata lines at the top (`- Name: …`, `**Title**: …`):
    some collections open every record with the same heading (`# Meta`, `## Preamble`) and name
    it there. The first section after some text ends the top."""
    text = False
    for line in body.split("\n", TOP_LINES)[:TOP_LINES]:
        if line.startswith("## ") and text:
            return None
        text = text or bool(line.strip()) and not line.startswith("#")
        match = _NAME_LINE.match(line)
        if match:
            named = plain(match.group(1)).strip()
            # `my_feature`: an identifier, as code; "Removal of `at-block`" keeps its quotes.
            return (named[1:-1] if re.fullmatch(r"`[^`]+`", named) else named).strip() or None
    return None
