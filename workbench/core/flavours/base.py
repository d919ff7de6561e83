"""What every vault flavour provides, and the reading helpers several of them share.

A flavour reads a file its own way into a `View`: the title, type, lifecycle status, tags, summary,
dates and links that the rest of the core works with. The core never asks which flavour it is
looking at; it asks the flavour. Links are written in many ways (`[[name]]`, `[text](path.md)`,
`ADR-042`), so a view holds each link's *candidate* targets, and `resolve` picks the one that
names a document once every id of the vault is known.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator, cast
from urllib.parse import unquote

from ..vocabulary.files import read_file
from ..vocabulary.localzone import local_zone
from ..vocabulary.model import Link, Problem, Severity, Status

__all__ = [
    "CONFIG_HINT",
    "LIFECYCLE_WORDS",
    "Flavour",
    "Ids",
    "RawLink",
    "View",
    "as_list",
    "first_heading",
    "lazy_pattern",
    "lifecycle_of",
    "markdown_links",
    "path_id",
    "strip_code",
    "wikilinks",
    "mostly",
]

ERROR, WARNING = Severity.ERROR, Severity.WARNING


@dataclass(frozen=True)
class RawLink:
    """A link as a file writes it: its type, the targets it may mean (best first), and the text."""

    type: str
    candidates: tuple[str, ...]
    written: str


@dataclass(frozen=True)
class View:
    """A document as its flavour reads it; `links`, `supersedes` and `superseded_by` hold ids once resolved."""

    title: str
    type: str
    status: str  # the Memory Core lifecycle word the flavour's own status maps to
    stated_status: str = ""  # the status as the file says it ("Accepted", "Superseded by ADR-042")
    tags: tuple[str, ...] = ()
    summary: str = ""
    created: dt.date | None = None
    updated: dt.date | None = None
    raw_links: tuple[RawLink, ...] = ()
    raw_supersedes: tuple[RawLink, ...] = ()
    raw_superseded_by: tuple[RawLink, ...] = ()
    links: tuple[Link, ...] = ()
    supersedes: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()
    updated_is_file_time: bool = False
    """`updated` is the file's modification time, the file stating no date: after a copy or a clone
    every file has the same one, so it is not shown as the document's date."""

    def to_json(self) -> dict[str, Any]:
        def raw(items):
            return [[r.type, list(r.candidates), r.written] for r in items]

        return {
            "title": self.title,
            "type": self.type,
            "status": self.status,
            "stated_status": self.stated_status,
            "tags": list(self.tags),
            "summary": self.summary,
            "created": self.created.isoformat() if self.created else None,
            "updated": self.updated.isoformat() if self.updated else None,
            "raw_links": raw(self.raw_links),
            "raw_supersedes": raw(self.raw_supersedes),
            "raw_superseded_by": raw(self.raw_superseded_by),
            "updated_is_file_time": self.updated_is_file_time,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> View:
        def raw(items):
            return tuple(RawLink(t, tuple(c), w) for t, c, w in items)

        def date(value):
            return dt.date.fromisoformat(value) if value else None

        return cls(
            data["title"],
            data["type"],
            data["status"],
            data["stated_status"],
            tuple(data["tags"]),
            data["summary"],
            date(data["created"]),
            date(data["updated"]),
            raw(data["raw_links"]),
            raw(data["raw_supersedes"]),
            raw(data["raw_superseded_by"]),
            updated_is_file_time=bool(data.get("updated_is_file_time")),
        )


class Ids:
    """Every id of the vault, looked up the ways links name documents: exactly, ignoring case, by
    the last part of a path (Obsidian's shortest form). What it is made from is all a link's
    resolution depends on beside its own file: the derived store keeps resolved links under a key
    of the same ids (`records.ownership.ids_key`), so anything else it came to read would have
    to be in that key too."""

    def __init__(self, ids: list[str]):
        self.exact = set(ids)
        self._ids = ids
        self._folded: dict[str, str] | None = None
        self._by_name: dict[str, list[str]] | None = None
        self._shallowest: dict[str, str] = {}

    def _fold(self) -> dict[str, str]:
        """The lookup ignoring case (the first id in sorted order for each folded one), made at the
        first link that names no id exactly: the few links of one changed document mostly do. Made
        in one pass of C loops, the last id written for a key winning: 10,000 ids fold in 1 ms."""
        if self._folded is None:
            order = sorted(self._ids, reverse=True)
            self._folded = dict(zip(map(str.casefold, order), order))
        return self._folded

    def _names(self) -> dict[str, list[str]]:
        """The lookup by the last part of a path, ignoring case: made at the first link that no
        id matches exactly or ignoring case (a link of one changed decision record rarely asks it)."""
        if self._by_name is None:
            self._by_name = {}
            for doc_id in sorted(self._ids):
                self._by_name.setdefault(doc_id.rsplit("/", 1)[-1].casefold(), []).append(doc_id)
        return self._by_name

    def find(self, candidate: str, by_name: bool = True) -> str | None:
        if candidate in self.exact:
            return candidate
        folded = self._fold().get(candidate.casefold())
        if folded is not None:
            return folded
        if by_name:
            name = candidate.rsplit("/", 1)[-1].casefold()
            shallowest = self._shallowest.get(name)
            if shallowest is None:
                named = self._names().get(name)
                if not named:
                    return None
                # the shallowest, as Obsidian picks; kept: a name many folders hold is asked for again and again
                shallowest = self._shallowest[name] = min(named, key=lambda i: (i.count("/"), len(i), i))
            return shallowest
        return None


LIFECYCLE_WORDS: dict[str, str] = {
    "active": Status.ACTIVE,
    "accepted": Status.ACTIVE,
    "approved": Status.ACTIVE,
    "adopted": Status.ACTIVE,
    "implemented": Status.ACTIVE,
    "done": Status.ACTIVE,
    "complete": Status.ACTIVE,
    "completed": Status.ACTIVE,
    "current": Status.ACTIVE,
    "final": Status.ACTIVE,
    "published": Status.ACTIVE,
    "stable": Status.ACTIVE,
    "living": Status.ACTIVE,
    "ratified": Status.ACTIVE,
    "activated": Status.ACTIVE,
    "activation": Status.ACTIVE,  # "Activation-In-Progress": accepted, being rolled out
    "recommended": Status.ACTIVE,
    "draft": Status.DRAFT,
    "idea": Status.DRAFT,
    "new": Status.DRAFT,
    "incomplete": Status.DRAFT,
    "proposed": Status.DRAFT,
    "pending": Status.DRAFT,
    "wip": Status.DRAFT,
    "review": Status.DRAFT,
    "provisional": Status.DRAFT,
    "open": Status.DRAFT,
    "planned": Status.DRAFT,
    "experimental": Status.DRAFT,
    "deprecated": Status.DEPRECATED,
    "obsolete": Status.DEPRECATED,
    "outdated": Status.DEPRECATED,
    "reverted": Status.DEPRECATED,
    "superseded": Status.SUPERSEDED,
    "superceded": Status.SUPERSEDED,
    "replaced": Status.SUPERSEDED,
    "archived": Status.ARCHIVED,
    "rejected": Status.ARCHIVED,
    "withdrawn": Status.ARCHIVED,
    "abandoned": Status.ARCHIVED,
    "declined": Status.ARCHIVED,
    "retired": Status.ARCHIVED,
    "cold": Status.ARCHIVED,
    "stagnant": Status.ARCHIVED,
    "idle": Status.ARCHIVED,
    "inactive": Status.ARCHIVED,
    "deferred": Status.ARCHIVED,
    "postponed": Status.ARCHIVED,
}
# Statuses of more than one word, read before single words: the EIP process's "Last Call" is a
# draft in its final review.
LIFECYCLE_PHRASES: dict[str, str] = {"last call": Status.DRAFT}


CONFIG_HINT = "the vault's .workbench.yaml (statuses: {WORD: deprecated})"
"""Where a person declares a status word of their own (`core.records.vaultconfig` reads it)."""


def lifecycle_of(stated: str) -> str | None:
    """The Memory Core status a free-form status means: its first known word ("Provisionally
    Superseded by ADR-039" is superseded), or None when no word is known."""
    words = re.findall(r"[a-z]+", stated.lower())
    joined = " ".join(words)
    for phrase, status in LIFECYCLE_PHRASES.items():
        if joined.startswith(phrase):
            return str(status)
    for word in words:
        if word in LIFECYCLE_WORDS:
            return str(LIFECYCLE_WORDS[word])
    return None


class _LazyPattern:
    """`lazy_pattern`'s stand-in: compiles its pattern when first asked for a method or attribute."""

    __slots__ = ("_source", "_flags", "_module", "_compiled")

    def __init__(self, source: str, flags: int, module: dict[str, Any]):
        self._source, self._flags, self._module = source, flags, module
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._source, self._flags)
            for key, value in list(self._module.items()):  # its module's later uses find the pattern itself
                if value is self:
                    self._module[key] = compiled
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_pattern({self._source!r}, {self._flags!r})"


def lazy_pattern(source: str, flags: int = 0) -> re.Pattern[str]:
    """A module's pattern compiled when first used, not when the module is imported: importing the
    `adr` flavour compiled 8 ms of patterns, most of them never used by a process that reads one
    record or none. On its first use the compiled pattern takes the place of the stand-in among
    its module's names, so each use after costs what a compiled pattern's does; another module
    that wants one asks for it through that module (`adr_text.STATUS_LINE`), which finds it there."""
    module = sys._getframe(1).f_globals  # the caller's names: a pattern is made at a module's top level
    return cast(re.Pattern[str], _LazyPattern(source, flags, module))


_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")  # matched at a line's start


def strip_code(text: str) -> str:
    """The text with fenced code blocks and code spans blanked: nothing in code is a link. Line
    numbers are kept, so what remains can still be pointed at.

    Fences are looked for only on lines where three backticks or tildes are, and spans by
    substring searches from each backtick, rather than by a pattern tried at every line and one
    with a backreference tried at every character of every span (a quarter of the `adr`
    flavour's reading of a record): what is blanked is what those patterns blanked, and
    `tests/test_strip_code.py` holds the two to each other."""
    if "`" not in text and "~~~" not in text:
        return text
    if "```" in text or "~~~" in text:
        text = _blank_fences(text)
    return _blank_spans(text) if "`" in text else text


def _blank_fences(text: str) -> str:
    """Each fenced block's lines (its fences among them) made empty, the line breaks kept."""
    pieces: list[str] = []
    kept = 0  # the text before this is in `pieces`
    fences = _fence_lines(text)
    for opening in fences:
        fence = opening.group(1)
        end = len(text)  # a block never closed runs to the end
        for line in fences:  # the fence lines after the opening one, up to the closing one
            marks = line.group(1)
            if marks[0] == fence[0] and len(marks) >= len(fence):
                stop = text.find("\n", line.start())
                stop = len(text) if stop < 0 else stop
                if not text[line.start() : stop].strip()[len(marks) :].strip():
                    end = stop
                    break
        start = opening.start()
        pieces.append(text[kept:start])
        pieces.append("\n" * text.count("\n", start, end))
        kept = end
    if not pieces:
        return text
    pieces.append(text[kept:])
    return "".join(pieces)


def _fence_lines(text: str) -> Iterator[re.Match[str]]:
    """The lines that could open or close a fence, in order: found where three backticks or
    tildes are, not by a pattern tried at every character (it can start with neither)."""
    starts: set[int] = set()
    for marks in ("```", "~~~"):
        at = text.find(marks)
        while at >= 0:
            line = text.rfind("\n", 0, at) + 1
            if at - line <= 3:
                starts.add(line)
            after = text.find("\n", at)  # a later one on this line starts it no sooner
            at = text.find(marks, after) if after >= 0 else -1
    for line in sorted(starts):
        if (match := _FENCE.match(text, line)) is not None:
            yield match


def _blank_spans(text: str) -> str:
    """Each code span made spaces, as `(`+)(?:(?!\\1).)+?\\1` (dot-all) found them left to right:
    from a backtick, the run of backticks there, then shorter ones, each closed by the first same
    run after at least one character that does not begin it."""
    pieces: list[str] = []
    kept = 0
    size = len(text)
    at = text.find("`")
    while at >= 0:
        run = at + 1
        while run < size and text[run] == "`":
            run += 1
        end = -1
        for length in range(run - at, 0, -1):
            marks = "`" * length
            content = at + length
            if content < size and not text.startswith(marks, content):
                closing = text.find(marks, content + 1)
                if closing >= 0:
                    end = closing + length
                    break
        if end < 0:
            at = text.find("`", at + 1)
            continue
        pieces.append(text[kept:at])
        pieces.append(" " * (end - at))
        kept = end
        at = text.find("`", end)
    if not pieces:
        return text
    pieces.append(text[kept:])
    return "".join(pieces)


_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_MDLINK = re.compile(r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^\"'\n]*[\"'])?\s*\)")


def wikilinks(text: str) -> list[tuple[str, str, bool]]:
    """(inner text, the whole link, is an embed) for each `[[...]]` outside code."""
    if "[[" not in text:
        return []
    return [(m.group(2), m.group(0), bool(m.group(1))) for m in _WIKILINK.finditer(text)]


def markdown_links(text: str, from_path: str) -> list[tuple[tuple[str, ...], str]]:
    """(candidate ids, the whole link) for each Markdown link to a `.md` file outside code: the
    path relative to the linking file first, then relative to the vault root."""
    found: list[tuple[tuple[str, ...], str]] = []
    if "](" not in text:
        return found
    folder = posixpath.dirname(from_path)
    for match in _MDLINK.finditer(text):
        href = unquote(match.group(2).split("#", 1)[0].split("?", 1)[0])
        if not href.lower().endswith(".md") or re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I):
            continue
        stem = href[:-3]
        candidates = []
        if stem.startswith("/"):
            candidates.append(posixpath.normpath(stem.lstrip("/")))
        else:
            candidates.append(posixpath.normpath(posixpath.join(folder, stem)))
            candidates.append(posixpath.normpath(stem))
        found.append((tuple(dict.fromkeys(candidates)), match.group(0)))
    return found


_HEADING = re.compile(r"#\s+(.+?)\s*#*\s*$")  # matched at a line's start


def first_heading(body: str) -> str | None:
    for line in body.split("\n", 200)[:200]:
        match = _HEADING.match(line) if line[:1] == "#" else None  # not the `re` module's cache asked at each line
        if match:
            return match.group(1).strip()
    return None


def mostly(paths: list[Path], test, chars: int = 800) -> bool:
    """Whether at least half of these files pass `test` on their first `chars` characters: how
    detection recognises a format by what its files start with. A pipe or a folder so named is
    never read, a file we may not read is skipped."""
    hits = 0
    for path in paths:
        try:
            head = (read_file(path, chars * 4) or b"").decode("utf-8", errors="replace")[:chars]
        except OSError:
            continue
        hits += bool(test(head))
    return bool(paths) and hits * 2 >= len(paths)


def path_id(path: str) -> str:
    """A path-shaped id: the vault-relative path without `.md`."""
    return path[:-3] if path.endswith(".md") else path


def as_list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, (str, int)) and str(v).strip()]
    if isinstance(value, str) and value.strip() and value.strip().lower() not in ("null", "none", "~"):
        return [v.strip() for v in value.split(",") if v.strip()]
    return []


@dataclass
class Flavour:
    """A vault format. Subclasses override what differs; the defaults suit a folder of Markdown files."""

    name: str = "markdown"
    label: str = "Markdown"
    """The format's name as a person writes it (`name` is what `--flavour` takes)."""
    summary: str = ""
    native: bool = False  # Memory Core itself: the only flavour every curation command writes
    has_status: bool = False  # whether `status` can be changed in this flavour's files
    writes_supersession: bool = False  # whether `supersede` can state both sides in this flavour's files
    dangling_severity: Severity = WARNING  # a link to a missing note: an error in Memory Core, a stub elsewhere
    reserved: frozenset[str] = field(default_factory=frozenset)  # files at the root that are not documents
    identity_keys: tuple[str, ...] = ()  # frontmatter keys that are the document's identity: a save never changes them
    updated_key: str | None = None  # the frontmatter key a meaningful edit moves to now, in its own type
    listing: str | None = None  # a reserved file whose generated sections list the documents (OKF's index.md)
    # Whether the workbench keeps its derived state (`.workbench/`) inside the vault: so in its own
    # formats; any other is someone else's folder, read without a byte written until a person
    # changes something there, and its state lives in the user's cache folder.
    state_in_vault: bool = False
    # Whether a file whose frontmatter is not valid YAML is still read, from its plain `key: value`
    # lines (`parse.loose_meta`): a collection written by hand (`author: @name`, a backtick in a
    # title) is read as a person reads it. Such a file is never written (its frontmatter cannot be
    # edited safely) and `check` still names the YAML error.
    reads_loosely: bool = False
    # The vault's own status words (`.workbench.yaml`), each with the status it means, read before
    # the words every flavour knows.
    statuses: tuple[tuple[str, str], ...] = ()
    # Whether what a file reads as depends on the day it is read (tiered memory's tiers, by age):
    # the derived store's records of an earlier day are then read again, not trusted.
    reads_the_day: bool = False
    # Where a repository conventionally keeps this flavour's files (`docs/adr`), relative to its
    # root: a flavour named for a folder that holds none of them at its top opens the first of
    # these that does (`flavours.choose`).
    home_folders: tuple[str, ...] = ()

    @property
    def reads_file_time(self) -> bool:
        """Whether what this flavour reads of a file may depend on the file's modification time
        (a note's date where it states none): all but Memory Core, which reads its bytes alone."""
        return not self.native

    @property
    def reading(self) -> str:
        """What the way this flavour reads files depends on: its name, the vault's own status
        words, and (where it reads a file's time) the local time zone a file's time is dated in
        (the derived store is built again when any changes)."""
        name = f"{self.name}@{local_zone()}" if self.reads_file_time else self.name
        if not self.statuses:
            return name
        import hashlib

        return f"{name}+{hashlib.sha256(repr(self.statuses).encode()).hexdigest()[:12]}"

    def prepared(self, root: Path) -> Flavour:
        """This flavour as it reads the vault at `root`, where what a file means depends on a file
        beside it (a decision collection's index listing statuses): read when the vault opens."""
        return self

    def lifecycle(self, stated: str) -> str | None:
        """The status a stated status means: the vault's own word first, then the words every
        collection uses (`lifecycle_of`)."""
        said = " ".join(stated.lower().split())
        for word, status in self.statuses:
            if said == word or said.startswith(word + " "):
                return status
        return lifecycle_of(stated)

    @property
    def a_vault(self) -> str:
        """ "an ADR vault", "a Dendron vault": for what is said to a person."""
        return f"{'an' if self.label[:1].lower() in 'aeiou' else 'a'} {self.label} vault"

    # -- finding documents -----------------------------------------------------------------------

    def detect(self, root: Path) -> int:
        """How sure (0-100) that `root` holds a vault of this flavour."""
        return 0

    def is_reserved(self, path: str) -> bool:
        return "/" not in path and path in self.reserved

    def walks_into(self, folder: str) -> bool:
        """Whether documents live in this sub-folder (relative path, no trailing slash)."""
        return True

    def not_a_page(self, path: str) -> str | None:
        """Why a Markdown file here is not loaded as a document (reported, not read), or None."""
        return None

    # -- reading ---------------------------------------------------------------------------------

    def doc_id(self, path: str, meta: dict[str, Any]) -> str:
        return path_id(path)

    def fallback_id(self, path: str) -> str | None:
        """The id this file takes when an earlier file (in path order) claims the same id, or None
        when a shared id is an error. Only for ids read from a file's name alone, where two names
        can say the same (`ADR025-a.md`, `ADR025-b.md`): then both stay documents, and a warning
        names both. Never the id the file claims. It is the file's path without `.md` (the ids'
        owners ask only a document holding that id whether it is its fallback)."""
        return None

    def view(self, path: str, meta: dict[str, Any], body: str, mtime: dt.date | None = None) -> View:
        raise NotImplementedError

    def view_on(self, path: str, meta: dict[str, Any], body: str, mtime: dt.date | None, on: dt.date) -> View:
        """The view as read on the day `on`, the day the file is checked on: `view` itself, but in
        a flavour that `reads_the_day`, whose view follows the day it is given rather than one it
        takes again (around midnight, another)."""
        return self.view(path, meta, body, mtime)

    def check(self, path: str, parsed, view: View | None, today: dt.date) -> list[Problem]:
        """This flavour's own rules for one file (parse problems are found before this)."""
        return []

    def resolve(self, view: View, ids: Ids) -> View:
        """The view with each link's target an id of the vault where one matches; a target that
        matches none keeps its first candidate, so it shows as dangling."""

        def target(raw: RawLink) -> str:
            for candidate in raw.candidates:
                found = ids.find(candidate, by_name=False)
                if found is not None:
                    return found
            for candidate in raw.candidates:
                found = ids.find(candidate)
                if found is not None:
                    return found
            return raw.candidates[0] if raw.candidates else raw.written

        links, seen = [], set()
        for raw in view.raw_links:
            link = Link(raw.type, target(raw))
            if link not in seen:
                seen.add(link)
                links.append(link)
        supersedes = tuple(dict.fromkeys(target(r) for r in view.raw_supersedes))
        superseded_by = tuple(dict.fromkeys(target(r) for r in view.raw_superseded_by))
        if (tuple(links), supersedes, superseded_by) == (view.links, view.supersedes, view.superseded_by):
            return view
        return replace(view, links=tuple(links), supersedes=supersedes, superseded_by=superseded_by)

    # -- writing ---------------------------------------------------------------------------------

    def status_change(self, parsed, status: str) -> tuple[dict[str, Any], str] | None:
        """(meta, body) that give a document `status`, or None when this flavour cannot say it."""
        return None

    def status_word(self, status: str) -> str | None:
        """The word this flavour's files write for the lifecycle `status`, when it is another
        (an ADR's "Rejected" for archived); None when the file says `status` itself."""
        return None

    def superseded_change(self, parsed, doc, new_id: str) -> tuple[dict[str, Any], str] | None:
        """(meta, body) that say `doc` is superseded by `new_id`, or None when the flavour cannot."""
        return None

    def supersedes_change(self, parsed, doc, old_id: str) -> tuple[dict[str, Any], str] | None:
        """(meta, body) that say `doc` supersedes `old_id`, or None when the flavour cannot."""
        return None

    def repair_fields(
        self, path: str, meta: dict[str, Any], body: str, mtime: dt.datetime
    ) -> tuple[dict[str, Any], list[str]]:
        """Deterministic fixes to one document's frontmatter: (the new meta, notes on what changed)."""
        return meta, []

    # -- migrating into Memory Core --------------------------------------------------------------

    def memory_type(self, doc_id: str, view: View) -> str:
        """The Memory Core type a document of this flavour becomes."""
        return "note"
