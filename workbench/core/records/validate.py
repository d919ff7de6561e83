"""The rules of SPEC §1 as problems: each with a stable code, a severity and words a person can act on.

Rules about one file live in `check_document`; rules that need the whole vault (unique ids,
dangling targets, both sides of a supersession, cycles) live in `check_relations`.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..vocabulary.model import (
    CONFLICTS_KEY,
    ID_PATTERN,
    REQUIRED_FIELDS,
    TYPE_FOLDERS,
    Confidence,
    DocType,
    Document,
    ExecutionState,
    Link,
    LinkType,
    Problem,
    Severity,
    Source,
    Status,
    id_list,
    member,
)
from ..vocabulary import supersession
from ..vocabulary.parse import ParsedFile, as_date, value_text

__all__ = [
    "DAY_CODES",
    "check_document",
    "check_relations",
    "relations_at",
    "credential_problems",
    "unsettled_sync_problems",
    "find_credentials",
    "parse_problems",
    "target_outside_vault",
]

ERROR, WARNING = Severity.ERROR, Severity.WARNING
# The problems whose finding depends on the day a file is checked (a date "in the future" is in
# the past some day after): every other check of a file gives the same answer on any later day.
DAY_CODES = frozenset({"date-future"})


# The ASCII text every match of a pattern holds (keyed by the pattern), looked for before it.
_LITERALS: dict[str, str] = {}


def _word_start(literal: str, rest: str) -> re.Pattern[str]:
    """`\\b` + `literal` + `rest`, written to start with the literal: Python's regular expressions
    find a leading literal with a fast substring search (a microsecond over a page), while a
    pattern starting with `\\b` or a choice is tried at every position (twenty times slower). The
    word boundary is checked behind the literal once it is found."""
    pattern = re.compile(re.escape(literal) + rf"(?<!\w{re.escape(literal)})" + rest)
    _LITERALS[pattern.pattern] = literal
    return pattern


# (what it is, whether it is the case-blind assignment, the patterns). Every pattern but the
# assignment starts with a literal, so scanning for it costs no more than a substring test; the
# assignment is tried only where it can start (`_assignment_starts`).
CREDENTIAL_PATTERNS: list[tuple[str, bool, tuple[re.Pattern[str], ...]]] = [
    ("a private key", False, (re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),)),
    ("an AWS access key", False, tuple(_word_start(prefix, r"[0-9A-Z]{16}\b") for prefix in ("AKIA", "ASIA"))),
    (
        "a GitHub token",
        False,
        (_word_start("gh", r"[pousr]_[A-Za-z0-9]{30,}\b"), _word_start("github_pat_", r"[A-Za-z0-9_]{40,}\b")),
    ),
    ("a Slack token", False, (_word_start("xox", r"[abprs]-[A-Za-z0-9-]{10,}\b"),)),
    ("an API secret key", False, (_word_start("sk-", r"(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{20,}\b"),)),
    (
        "a Stripe key",
        False,
        tuple(_word_start(prefix, r"(?:live|test)_[A-Za-z0-9]{16,}\b") for prefix in ("rk_", "sk_")),
    ),
    ("a Google API key", False, (_word_start("AIza", r"[0-9A-Za-z_-]{35}\b"),)),
    ("a JSON web token", False, (_word_start("eyJ", r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),)),
    (
        "a password or secret assignment",
        True,
        (
            re.compile(
                r"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)"
                r"\s*[:=]\s*['\"]?(?=[^\s'\"]*[0-9])(?=[^\s'\"]*[A-Za-z])[^\s'\"<>{}$]{8,}"
            ),
        ),
    ),
    ("credentials in a URL", False, (re.compile(r"://[^\s/:@]+:[^\s/@]{3,}@[^\s/]+"),)),
]
_LITERALS[CREDENTIAL_PATTERNS[0][2][0].pattern] = "-----BEGIN "
_LITERALS[CREDENTIAL_PATTERNS[9][2][0].pattern] = "://"
assert all(literal in pattern or re.escape(literal) in pattern for pattern, literal in _LITERALS.items())
# A character every match of a pattern holds (keyed by the pattern): a text without it is not
# scanned for that pattern. One character is found by `memchr`, five times quicker than a scan
# for a longer literal, and these are absent from many texts ("@" from 85% of the corpora's).
_NEEDS = {
    pattern.pattern: char
    for char, patterns in (
        ("K", CREDENTIAL_PATTERNS[1][2][:1]),
        ("_", CREDENTIAL_PATTERNS[2][2] + CREDENTIAL_PATTERNS[5][2]),
        ("J", CREDENTIAL_PATTERNS[7][2]),
        ("@", CREDENTIAL_PATTERNS[9][2]),
    )
    for pattern in patterns
}
assert all(char in pattern for pattern, char in _NEEDS.items())  # a literal of each pattern

# The assignment's words, every spelling its pattern allows, lowercase.
_ASSIGNED = tuple(
    sorted(
        {"password", "passwd", "pwd", "secret"}
        | {
            f"{a}{sep}{b}"
            for a, b in (("api", "key"), ("access", "token"), ("auth", "token"), ("client", "secret"))
            for sep in ("", "_", "-")
        }
    )
)
# An assignment's separator with one of those words before it (spaces between), in the text
# reversed: a pattern that starts with a literal, found by a quick substring search, where the
# assignment's own pattern, case-blind and starting with a choice of words, is tried at every position.
# A `?` may stand for white space beyond ASCII (`find_credentials` looks at a text's ASCII image).
_SEPARATED = tuple(
    re.compile(re.escape(sep) + r"[\s?]*(?:" + "|".join(re.escape(word[::-1]) for word in _ASSIGNED) + ")")
    for sep in (":", "=")
)


def _assignment_starts(lowered: str) -> list[int]:
    """Every place of a text's ASCII image, lowercased, where one of the assignment's words stands
    before spaces (or `?`, which may be white space beyond ASCII) and a `:` or `=`: every place a
    match of its pattern can start (and a few where none does: the pattern is tried at each)."""
    starts: set[int] = set()
    last = len(lowered) - 1
    reversed_text = None
    for sep, separated in zip(":=", _SEPARATED):
        if sep not in lowered:
            continue
        if reversed_text is None:
            reversed_text = lowered[::-1]
        for found in separated.finditer(reversed_text):
            end = last - found.start()  # the separator, in the text
            while end and (lowered[end - 1].isspace() or lowered[end - 1] == "?"):  # `\s` is `str.isspace`
                end -= 1
            for word in _ASSIGNED:
                if lowered.endswith(word, 0, end):
                    starts.add(end - len(word))
    return sorted(starts)


# The characters beyond ASCII a case-blind pattern matches to an ASCII letter (`tests/test_credentials.py`
# asks Python): a text's ASCII image shows `?` where a case-blind word may be spelt with one.
_MATCHED_AS_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")


def _assignments(pattern: re.Pattern[str], text: str, image: str):
    """`pattern.finditer(text)`, the same matches, for the case-blind assignment. Scanned over a long
    text it tried its words at every position (three quarters of the credential check on a vault of
    long notes, 240 us a text beyond ASCII); it is tried only where one of its words stands before
    its separator in the text's ASCII image (`_assignment_starts`), left to right and never inside
    the last match, as `finditer` goes. `image`: the text, each character beyond ASCII a `?`, where
    none of `_MATCHED_AS_ASCII` is (the words are then where the image shows them)."""
    end = 0
    for at in _assignment_starts(image.lower()):
        if at >= end and (match := pattern.match(text, at)) is not None:
            yield match
            end = match.end()


def _in_image(pattern: re.Pattern[str], image: str) -> bool:
    """Whether a pattern can match a text whose ASCII image this is: where it does not match the
    image it does not match the text. Each pattern but the case-blind assignment matches ASCII
    text alone but for `[^...]` classes (which a `?` matches too), and looks at a character beyond
    ASCII next to it only to ask whether it is a word's (`\\b`, `(?<!\\w...)`): in the image it is not,
    which can only let a match through that the text's would not."""
    return pattern.flags & re.IGNORECASE != 0 or pattern.search(image) is not None


def find_credentials(text: str) -> list[tuple[int, str]]:
    """(line, what) for each line that looks like it holds a secret; the secret itself is not repeated.

    A text beyond ASCII is looked at through its ASCII image (each other character a `?`, so every
    ASCII literal is at its place and no other appears), which is searched and lower-cased several
    times quicker (14,000 characters: 83 us to lower-case, against 4): a pattern is scanned for there
    only where its literal (`_LITERALS`) is, and the assignment's words found in it."""
    ascii_text = text.isascii()
    image = text if ascii_text else text.encode("ascii", "replace").decode("ascii")
    found: dict[int, str] = {}
    for what, case_blind, patterns in CREDENTIAL_PATTERNS:
        for pattern in patterns:
            needs = _NEEDS.get(pattern.pattern)
            if needs is not None and needs not in image:
                continue
            if not ascii_text and (_LITERALS.get(pattern.pattern, "") not in image or not _in_image(pattern, image)):
                continue
            if case_blind and (ascii_text or not any(char in text for char in _MATCHED_AS_ASCII)):
                matches = _assignments(pattern, text, image)
            else:
                matches = pattern.finditer(text)
            for match in matches:
                found.setdefault(text.count("\n", 0, match.start()) + 1, what)
    return sorted(found.items())


def _enum_message(field: str, value: Any, allowed: Iterable[str]) -> str:
    return f"{field} is {value_text(value)}; allowed: {', '.join(allowed)}"


def parse_problems(path: str, parsed: ParsedFile) -> list[Problem]:
    """What reading the file found wrong, whatever the flavour: encoding, size, YAML."""
    return [Problem(path, ERROR, issue.code, issue.message, issue.line) for issue in parsed.issues]


def unsettled_sync_problems(path: str, parsed: ParsedFile) -> list[Problem]:
    """A `sync_conflicts` key still in the file: a sync kept both values of these keys and nobody
    chose one. Found by `check` whatever happened next (a commit by hand ends the merge `sync`
    would have asked about), so the question is never lost."""
    record = parsed.meta.get(CONFLICTS_KEY) if parsed.meta else None
    if record is None:
        return []
    keys = ", ".join(str(key) for key in record) if isinstance(record, dict) and record else "(none named)"
    return [
        Problem(
            path,
            WARNING,
            "sync-unsettled",
            f"a sync kept both values of {keys} under {CONFLICTS_KEY}: press S in the workbench while the merge is open, "
            f"or set the value you want and delete the {CONFLICTS_KEY} key",
            parsed.key_line(CONFLICTS_KEY),
        )
    ]


def credential_problems(path: str, parsed: ParsedFile) -> list[Problem]:
    body_start = len(parsed.fm_lines) + 2 if parsed.has_frontmatter else 1
    return [
        Problem(
            path,
            WARNING,
            "credential",
            f"line looks like it holds {what}; never store credentials in memory",
            body_start + number,
        )
        for number, what in find_credentials(parsed.body if parsed.has_frontmatter else parsed.text)
    ]


def check_document(path: str, parsed: ParsedFile, today: dt.date) -> list[Problem]:
    """Every rule of Memory Core that one file can break on its own."""
    problems: list[Problem] = parse_problems(path, parsed)

    def add(severity: Severity, code: str, message: str, line: int | None = None) -> None:
        problems.append(Problem(path, severity, code, message, line))

    if not parsed.decoded:
        return problems
    if not parsed.has_frontmatter:
        if not any(p.code == "frontmatter-unterminated" for p in problems):
            add(ERROR, "frontmatter-missing", "no frontmatter: the file must start with a '---' line", 1)
        return problems
    meta = parsed.meta
    if meta is None:
        return problems
    line = parsed.key_line
    _check_required(meta, line, add)
    doc_type = _check_identity(path, meta, line, add)
    _check_text_fields(meta, line, add)
    _check_dates(meta, line, today, add)
    tags = meta.get("tags")
    if "tags" in meta and (not isinstance(tags, list) or not all(isinstance(t, str) for t in tags)):
        add(ERROR, "tags-invalid", "tags must be a list of strings", line("tags"))
    problems.extend(_check_links(path, meta, line, meta.get("id")))
    for key in ("supersedes", "superseded_by"):
        if key in meta and (not isinstance(meta[key], list) or not all(isinstance(v, str) for v in meta[key])):
            add(ERROR, "supersession-invalid", f"{key} must be a list of ids", line(key))
    _check_provenance(meta, line, add)
    if doc_type == DocType.TASK:
        _check_task(meta, line, add)
    _check_status_and_successor(meta, line, add)
    problems.extend(credential_problems(path, parsed))
    problems.extend(unsettled_sync_problems(path, parsed))
    return problems


_Add = Callable[..., None]
"""`add(severity, code, message, line)`: one problem found on the file being checked."""
_KeyLine = Callable[[str], "int | None"]
"""The line a frontmatter key is on."""


def _check_required(meta: Mapping[str, Any], line: _KeyLine, add: _Add) -> None:
    for key in REQUIRED_FIELDS:
        if key not in meta:
            add(ERROR, "field-missing", f"required field '{key}' is missing", 1)
    if "schema_version" in meta and meta["schema_version"] != "v1":
        add(
            ERROR,
            "schema-version",
            f"schema_version is {value_text(meta['schema_version'])}; this vault format is 'v1'",
            line("schema_version"),
        )


def _check_identity(path: str, meta: Mapping[str, Any], line: _KeyLine, add: _Add) -> str | None:
    """The type, the id and where the file lies; the type when it is a valid one."""
    doc_type = meta.get("type")
    if "type" in meta and not member(doc_type, DocType):
        add(ERROR, "type-invalid", _enum_message("type", doc_type, DocType), line("type"))
        doc_type = None
    doc_id = meta.get("id")
    if "id" in meta:
        id_match = ID_PATTERN.fullmatch(doc_id) if isinstance(doc_id, str) else None
        if id_match is None:
            add(
                ERROR,
                "id-syntax",
                f"id {value_text(doc_id)} is not of the form mem-{{type}}-{{slug}} (lowercase kebab-case)",
                line("id"),
            )
        else:
            _check_id_agrees(path, id_match.group(0), id_match.group(1), doc_type, line, add)
    if doc_type:
        expected = TYPE_FOLDERS[DocType(doc_type)]
        parent = posixpath.dirname(path) or "."
        if parent != expected:
            where = "the vault root" if parent == "." else f"{parent}/"
            add(ERROR, "folder-mismatch", f"a {doc_type} belongs in {expected}/, not in {where}", line("type"))
    return doc_type


def _check_id_agrees(path: str, doc_id: str, id_type: str, doc_type: Any, line: _KeyLine, add: _Add) -> None:
    """A well-formed id names the document's type and its file's name."""
    if doc_type and id_type != doc_type:
        add(
            ERROR,
            "id-type-mismatch",
            f"id {doc_id} names type '{id_type}' but type is '{doc_type}'",
            line("id"),
        )
    name = posixpath.basename(path)
    if name != f"{doc_id}.md":
        add(
            ERROR,
            "filename-mismatch",
            f"file is named {name} but its id is {doc_id}; expected {doc_id}.md",
            line("id"),
        )


def _check_text_fields(meta: Mapping[str, Any], line: _KeyLine, add: _Add) -> None:
    title = meta.get("title")
    if "title" in meta and (not isinstance(title, str) or not title.strip()):
        add(ERROR, "title-invalid", "title must be non-empty text", line("title"))
    status = meta.get("status")
    if "status" in meta and not member(status, Status):
        add(ERROR, "status-invalid", _enum_message("status", status, Status), line("status"))
    project = meta.get("project")
    if "project" in meta and (not isinstance(project, str) or not project.strip()):
        add(ERROR, "project-invalid", "project must be non-empty text", line("project"))


def _check_dates(meta: Mapping[str, Any], line: _KeyLine, today: dt.date, add: _Add) -> None:
    dates: dict[str, dt.date] = {}
    for key in ("created_at", "updated_at"):
        if key not in meta:
            continue
        value = as_date(meta[key])
        if value is None:
            add(ERROR, "date-format", f"{key} is {value_text(meta[key])}; expected a date YYYY-MM-DD", line(key))
        else:
            dates[key] = value
            if value > today:
                add(ERROR, "date-future", f"{key} {value.isoformat()} is in the future", line(key))
    if len(dates) == 2 and dates["updated_at"] < dates["created_at"]:
        add(
            ERROR,
            "date-order",
            f"updated_at {dates['updated_at']} is before created_at {dates['created_at']}",
            line("updated_at"),
        )


def _check_provenance(meta: Mapping[str, Any], line: _KeyLine, add: _Add) -> None:
    if "provenance" not in meta:
        return
    provenance = meta["provenance"]
    if not isinstance(provenance, dict):
        add(
            ERROR,
            "provenance-invalid",
            "provenance must be a mapping with source and confidence",
            line("provenance"),
        )
        return
    source, confidence = provenance.get("source"), provenance.get("confidence")
    if not member(source, Source):
        add(
            ERROR,
            "provenance-source-invalid",
            _enum_message("provenance.source", source, Source),
            line("provenance"),
        )
    if not member(confidence, Confidence):
        add(
            ERROR,
            "provenance-confidence-invalid",
            _enum_message("provenance.confidence", confidence, Confidence),
            line("provenance"),
        )


def _check_task(meta: Mapping[str, Any], line: _KeyLine, add: _Add) -> None:
    state = meta.get("execution_state")
    if state is None:
        add(
            WARNING,
            "execution-state-missing",
            "a task should carry execution_state (todo, in-progress, blocked, done)",
            1,
        )
    elif not member(state, ExecutionState):
        add(
            ERROR,
            "execution-state-invalid",
            _enum_message("execution_state", state, ExecutionState),
            line("execution_state"),
        )


def _check_status_and_successor(meta: Mapping[str, Any], line: _KeyLine, add: _Add) -> None:
    """A superseded document names its successor; an active one names none."""
    status = meta.get("status")
    if isinstance(status, str) and status == Status.SUPERSEDED and not id_list(meta.get("superseded_by")):
        add(
            ERROR,
            "superseded-without-successor",
            "status is superseded but superseded_by names no successor",
            line("superseded_by"),
        )
    if status == Status.ACTIVE and id_list(meta.get("superseded_by")):
        add(
            ERROR,
            "active-with-successor",
            f"status is active but superseded_by names {', '.join(id_list(meta['superseded_by']))}",
            line("status"),
        )


def _check_links(path: str, meta: Mapping[str, Any], line, doc_id: Any) -> list[Problem]:
    problems: list[Problem] = []
    links = meta.get("links")
    if "links" not in meta:
        return problems
    at = line("links")
    if not isinstance(links, list):
        return [Problem(path, ERROR, "links-invalid", "links must be a list of {type, target} entries", at)]
    seen: set[tuple[str, str]] = set()
    for index, item in enumerate(links, start=1):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("type"), str)
            or not isinstance(item.get("target"), str)
        ):
            problems.append(
                Problem(
                    path,
                    ERROR,
                    "link-malformed",
                    f"link {index} is not a {{type, target}} entry: {value_text(item)}",
                    at,
                )
            )
            continue
        kind, target = item["type"], item["target"]
        if not member(kind, LinkType):
            problems.append(
                Problem(path, ERROR, "link-type-invalid", _enum_message(f"link {index} type", kind, LinkType), at)
            )
        if target_outside_vault(target):
            problems.append(
                Problem(
                    path,
                    ERROR,
                    "link-outside-vault",
                    f"link {index} targets {value_text(target)}, a path outside the vault",
                    at,
                )
            )
        if target == doc_id:
            problems.append(
                Problem(path, ERROR, "link-self", f"link {index} ({kind}) points at the document itself", at)
            )
        if (kind, target) in seen:
            problems.append(
                Problem(path, ERROR, "link-duplicate", f"link {kind} → {target} appears more than once", at)
            )
        seen.add((kind, target))
    return problems


def target_outside_vault(target: str) -> bool:
    """A target that is a path leaving the vault (absolute, `..`, a drive, a URL) rather than an id."""
    if _PLAIN_TARGET.fullmatch(target):  # an id, as nearly every target is
        return False
    return (
        target.startswith(("/", "\\", "~"))
        or bool(_DRIVE.match(target))
        or ".." in _SEPARATORS.split(target)
        or "://" in target
        or any(ord(c) < 32 for c in target)
    )


_PLAIN_TARGET = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_DRIVE = re.compile(r"[A-Za-z]:[\\/]")
_SEPARATORS = re.compile(r"[\\/]")


def check_relations(docs: Mapping[str, Document], known_ids: Container[str], line_of, flavour=None) -> list[Problem]:
    """Rules across documents: dangling targets, both sides of each supersession, cycles, stale links.

    `docs` are the documents with a usable id; `known_ids` every id in the vault, valid or not, so a
    link to an invalid document is not called dangling. `line_of(doc, key)` points at a key's line.
    Other flavours than Memory Core (`flavour.native`) state supersession without a link and
    link to notes not written yet, so there those are warnings, not errors.
    """
    problems: list[Problem] = []
    # Each document's fields, read once: they are parsed from its frontmatter at every reading,
    # and a large vault has tens of thousands of documents to check on every change.
    supersedes = {doc_id: doc.supersedes for doc_id, doc in docs.items()}
    rules = _rules(
        docs,
        known_ids,
        line_of,
        flavour,
        status={doc_id: doc.status for doc_id, doc in docs.items()},
        supersedes=supersedes,
        superseded_by={doc_id: doc.superseded_by for doc_id, doc in docs.items()},
    )
    for doc in docs.values():
        rules.check(doc, problems)
    for cycle in supersession.cycles(supersedes):
        first = docs[cycle[0]]
        chain = " → ".join(cycle + [cycle[0]])
        problems.append(
            Problem(
                first.path,
                ERROR,
                "supersession-cycle",
                f"supersession cycle: {chain}",
                line_of(first, "supersedes"),
                first.id,
            )
        )
    return problems


def relations_at(
    doc_id: str, lookup: Callable[[str], Document | None], known_ids: Container[str], line_of, flavour=None
) -> list[Problem] | None:
    """The problems `check_relations` finds at the file of the document `doc_id`, looking only at
    the documents they can depend on: its links' targets, both sides of its supersessions, the
    chains of successors its stale links are told to follow. `lookup(id)` is the valid document
    that owns an id (None where none does), as `check_relations`'s `docs` holds it. Showing one
    document of a large vault checked every document's (seconds at 100,000).

    None when the document lies on a supersession cycle: which cycles the whole check names, and
    so which it reports at this file, depends on where its walk enters them, so only the whole
    check says; a cycle is an error a vault rarely holds for long."""
    doc = lookup(doc_id)
    if doc is None:
        return []
    supersedes = _Looked(lookup, lambda d: d.supersedes)
    if _on_cycle(doc_id, supersedes):
        return None
    rules = _rules(
        _Looked(lookup, lambda d: d),
        known_ids,
        line_of,
        flavour,
        status=_Looked(lookup, lambda d: d.status),
        supersedes=supersedes,
        superseded_by=_Looked(lookup, lambda d: d.superseded_by),
    )
    problems: list[Problem] = []
    rules.check(doc, problems)
    return problems


def _on_cycle(start: str, supersedes: Mapping[str, list[str]]) -> bool:
    """Whether following `supersedes` from `start` (through ids that are keys, as
    `supersession.cycles` does) comes back to it."""
    seen: set[str] = set()
    frontier = [start]
    while frontier:
        for target in supersedes[frontier.pop()]:
            if target == start:
                return True
            if target not in seen and target in supersedes:
                seen.add(target)
                frontier.append(target)
    return False


class _Looked(Mapping[str, Any]):
    """A mapping of id -> what `read` gives of the document `lookup` finds for it, each read when
    first asked: the view of the vault `relations_at` needs, without reading every document."""

    def __init__(self, lookup: Callable[[str], Document | None], read: Callable[[Document], Any]) -> None:
        self._lookup, self._read = lookup, read
        self._found: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        found = self._found
        if key not in found:
            doc = self._lookup(key)
            if doc is None:
                raise KeyError(key)
            found[key] = self._read(doc)
        return found[key]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (key in self._found or self._lookup(key) is not None)

    def __iter__(self) -> Iterator[str]:
        raise TypeError("a looked-up view of the vault is asked id by id, never listed")

    def __len__(self) -> int:
        raise TypeError("a looked-up view of the vault is asked id by id, never counted")


def _rules(docs, known_ids, line_of, flavour, **fields) -> _Relations:
    native = flavour is None or flavour.native
    return _Relations(
        docs,
        known_ids,
        line_of,
        native,
        dangling=ERROR if native else flavour.dangling_severity,
        one_sided=ERROR if native else WARNING,
        what="id" if native else "name",
        **fields,
    )


@dataclass
class _Relations:
    """The cross-document rules of `check_relations`, over the fields it read once."""

    docs: Mapping[str, Document]
    known_ids: Container[str]
    line_of: Any
    native: bool
    dangling: Severity
    one_sided: Severity
    what: str
    status: Mapping[str, str]
    supersedes: Mapping[str, list[str]]
    superseded_by: Mapping[str, list[str]]

    def check(self, doc: Document, problems: list[Problem]) -> None:
        """Every rule but cycles, at one document."""
        links = doc.links
        self.check_links(doc, links, problems)
        if self.native:
            self.check_supersedes_links(doc, links, problems)
        self.check_both_sides(doc, problems)

    def check_links(self, doc: Document, links: Sequence[Link], problems: list[Problem]) -> None:
        """A link to no document, and a live document's link to a superseded one."""
        for link in links:
            if link.target == doc.id:
                continue
            if link.target not in self.known_ids:
                if target_outside_vault(link.target):  # asked only of targets no id matches
                    continue
                problems.append(
                    Problem(
                        doc.path,
                        self.dangling,
                        "link-dangling",
                        f"link {link.type} → {link.target}: no document has that {self.what}",
                        self.line_of(doc, "links"),
                        doc.id,
                    )
                )
            elif link.type != LinkType.SUPERSEDES and self._stale(doc, link.target):
                successor = supersession.live_end(self.superseded_by, self.status, link.target)  # as conflicts name it
                if successor == doc.id:
                    continue  # the end of the chain speaking of where it came from
                hint = f"; link its successor {successor} instead" if successor else ""
                problems.append(
                    Problem(
                        doc.path,
                        WARNING,
                        "link-to-superseded",
                        f"link {link.type} → {link.target} points at a superseded document{hint}",
                        self.line_of(doc, "links"),
                        doc.id,
                    )
                )

    def _stale(self, doc: Document, target: str) -> bool:
        """A live document linking a superseded one that it neither replaced nor was replaced by."""
        return (
            self.status[doc.id] in (Status.ACTIVE, Status.DRAFT)
            and target in self.docs
            and self.status[target] == Status.SUPERSEDED
            and doc.id not in self.superseded_by[target]  # a successor may speak of what it replaced
            and target not in self.supersedes[doc.id]
        )

    def check_supersedes_links(self, doc: Document, links: Sequence[Link], problems: list[Problem]) -> None:
        """Memory Core states a supersession twice: the field and a `supersedes` link, the same ids."""
        link_supersedes = {l.target for l in links if l.type == LinkType.SUPERSEDES}
        field_supersedes = set(self.supersedes[doc.id])
        if link_supersedes == field_supersedes:
            return
        missing = sorted(field_supersedes - link_supersedes)
        extra = sorted(link_supersedes - field_supersedes)
        parts = []
        if missing:
            parts.append(f"supersedes names {', '.join(missing)} without a supersedes link")
        if extra:
            parts.append(f"a supersedes link names {', '.join(extra)} that the supersedes field does not")
        problems.append(
            Problem(
                doc.path, ERROR, "supersedes-link-mismatch", "; ".join(parts), self.line_of(doc, "supersedes"), doc.id
            )
        )

    def check_both_sides(self, doc: Document, problems: list[Problem]) -> None:
        """Each id in `supersedes` and `superseded_by` names a document, which names this one back."""
        for key, ids, back, other_key in (
            ("supersedes", self.supersedes[doc.id], self.superseded_by, "superseded_by"),
            ("superseded_by", self.superseded_by[doc.id], self.supersedes, "supersedes"),
        ):
            for other in ids:
                if other not in self.known_ids:
                    problems.append(
                        Problem(
                            doc.path,
                            self.dangling,
                            "supersession-dangling",
                            f"{key} {other}: no document has that {self.what}",
                            self.line_of(doc, key),
                            doc.id,
                        )
                    )
                elif other in self.docs and doc.id not in back[other]:
                    problems.append(
                        Problem(
                            doc.path,
                            self.one_sided,
                            "supersession-one-sided",
                            f"{key} {other}, but {other} does not list {doc.id} in {other_key}",
                            self.line_of(doc, key),
                            doc.id,
                        )
                    )
