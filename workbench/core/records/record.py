"""What the vault knows of one file: its document, its own problems, and where its keys are.

A record is built from a file's bytes (`build_record`) or, on a warm open, from the derived cache;
both give the same record, so nothing downstream knows which.

A record is kept while its file's stat says it is the same file, unchanged (`unchanged`): size and
modification time, which any tool can put back (`touch -d`, `rsync -a`, a backup restore), and
the inode and the change time (ctime), which no user tool sets: a file replaced by another has a
new inode, and any write or `utime` moves the ctime to the kernel's clock. That clock ticks
coarsely (a few milliseconds on Linux, a second or two on some file systems), so a file changed
in the same tick as the read before it keeps every number: as git does for its racily clean
entries, a record whose ctime is that close to the moment its file was read (`seen_ns`) is not
trusted, and the file is read again.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from ..vocabulary.files import NOT_A_REGULAR_FILE, UNREADABLE as UNREADABLE_FILE, UnreadableFile, read_file
from ..flavours import MEMORY_CORE, Flavour
from ..vocabulary.model import Document, Problem, Severity
from ..vocabulary.parse import MAX_FILE_BYTES, digest_of, loose_meta, parse_bytes
from .validate import check_document, credential_problems, parse_problems, unsettled_sync_problems

__all__ = [
    "IdLog",
    "INVALIDATING",
    "LINE_KEYS",
    "LOOSELY_READ",
    "Record",
    "build_record",
    "read_document",
    "read_record",
    "still_clean",
    "UNKNOWN_INO",
    "unchanged",
    "unread_record",
    "today",
    "invalidating",
]

# What a document cannot be read past: the file, its encoding, its frontmatter's frame and YAML,
# and an id another file owns. Every one of these also makes it invalid (INVALIDATING).
UNREADABLE = frozenset(
    {
        NOT_A_REGULAR_FILE,
        UNREADABLE_FILE,
        "file-too-large",
        "encoding-invalid-utf8",
        "nul-bytes",
        "conflict-markers",
        "frontmatter-unterminated",
        "frontmatter-too-large",
        "frontmatter-not-mapping",
        "yaml-syntax",
        "yaml-duplicate-key",
        "yaml-too-deep",
        "yaml-too-complex",
        "id-duplicate",
    }
)
# Problems that make a document invalid (SPEC §1: a missing field or a value outside its set).
# Invalid documents stay visible to the curator but are not nodes of the graph. In other flavours
# only a file that cannot be read is invalid: their own rules report, they do not hide a note.
INVALIDATING = UNREADABLE | frozenset(
    {
        "frontmatter-missing",
        "field-missing",
        "schema-version",
        "type-invalid",
        "id-syntax",
        "id-type-mismatch",
        "title-invalid",
        "status-invalid",
        "project-invalid",
        "date-format",
        "tags-invalid",
        "links-invalid",
        "link-malformed",
        "link-type-invalid",
        "supersession-invalid",
        "provenance-invalid",
        "provenance-source-invalid",
        "provenance-confidence-invalid",
    }
)
# What a flavour that `reads_loosely` reads all the same, from the plain `key: value` lines.
LOOSELY_READ = frozenset({"yaml-syntax", "yaml-duplicate-key"})
LINE_KEYS = ("links", "supersedes", "superseded_by", "status")


def today() -> dt.date:
    """The local date: dates the workbench writes are the curator's, not UTC's."""
    return dt.date.today()


@dataclass(slots=True)
class Record:
    """What the vault knows of one document file. Slotted: a vault of 100,000 files keeps as many."""

    path: str
    size: int
    mtime_ns: int
    document: Document
    problems: list[Problem]
    key_lines: dict[str, int]
    ino: int = 0
    ctime_ns: int = 0
    seen_ns: int = 0  # the clock just before the file was read


# The inode of a stored row read in another folder (a copy of the vault, its store included): no
# stat is the one it was read with, and only the bytes can tell (`still_clean`).
UNKNOWN_INO = -1
# How close to the read a file's change time leaves the stat ambiguous: above the coarsest tick
# of Linux's file clock (10 ms at HZ=100), and two seconds where the file system keeps whole seconds.
RACY_NS = 100_000_000
RACY_COARSE_NS = 2_000_000_000


def unchanged(record: Record, stat: os.stat_result) -> bool:
    """Whether the file `stat` describes is the one `record` was read from, as it was then:
    `_same_stat` and not `_racy`, written out as one expression (a warm open asks it of every file)."""
    ctime = record.ctime_ns
    return (
        ctime == stat.st_ctime_ns
        and record.mtime_ns == stat.st_mtime_ns
        and record.size == stat.st_size
        and record.ino == stat.st_ino
        and ctime < record.seen_ns - (RACY_COARSE_NS if ctime % 1_000_000_000 == 0 else RACY_NS)
    )


def _same_stat(record: Record, stat: os.stat_result) -> bool:
    return (record.size, record.mtime_ns, record.ino, record.ctime_ns) == (
        stat.st_size,
        stat.st_mtime_ns,
        stat.st_ino,
        stat.st_ctime_ns,
    )


def _racy(record: Record) -> bool:
    """Whether the file may have changed in the same tick of the file clock as it was read: its
    stat then says nothing, and only its bytes can tell (`still_clean`)."""
    ctime = record.ctime_ns
    return ctime >= record.seen_ns - (RACY_COARSE_NS if ctime % 1_000_000_000 == 0 else RACY_NS)


def still_clean(root: Path, record: Record, stat: os.stat_result, any_time: bool = False) -> Record | None:
    """A racily clean record whose file still holds the bytes it was read from, with the moment of
    this look as its new reading: as git does, the content decides where the stat cannot, and a
    file copied just before two opens is not parsed twice. So does a record read in another folder
    (`UNKNOWN_INO`) whose file has its size and modification time: a copy kept them, and the bytes
    say whether it holds the same; with `any_time` (a flavour that reads no file's time, so the
    same bytes are read alike whenever they were written), whatever its time: a copy made without
    keeping times (`cp -r`) is not parsed whole. None when the bytes differ."""
    if record.ino == UNKNOWN_INO:
        same = record.size == stat.st_size and (any_time or record.mtime_ns == stat.st_mtime_ns)
    else:
        same = _same_stat(record, stat)
    if not same or record.document is None or not record.document.digest:
        return None
    seen_ns = time.time_ns()
    try:
        raw = read_file(root / record.path, record.size + 1)
    except OSError:
        return None
    if raw is None or len(raw) != record.size or digest_of(raw) != record.document.digest:
        return None
    return dataclasses.replace(
        record, seen_ns=seen_ns, ino=stat.st_ino, ctime_ns=stat.st_ctime_ns, mtime_ns=stat.st_mtime_ns
    )


def invalidating(flavour: Flavour) -> frozenset[str]:
    return INVALIDATING if flavour.native else UNREADABLE


def build_record(
    path: str,
    raw: bytes,
    size: int,
    mtime_ns: int,
    on: dt.date,
    flavour: Flavour = MEMORY_CORE,
    ino: int = 0,
    ctime_ns: int = 0,
    seen_ns: int = 0,
) -> Record:
    parsed = parse_bytes(raw)
    loose = flavour.reads_loosely and parsed.decoded and parsed.has_frontmatter and parsed.meta is None
    meta = parsed.meta or (loose_meta(parsed.fm_lines) if loose else {})
    doc_id = flavour.doc_id(path, meta)
    if flavour.native:
        view = None
        problems = check_document(path, parsed, on)
        body = parsed.body
    else:
        body = parsed.body if parsed.has_frontmatter else parsed.text
        mtime = dt.datetime.fromtimestamp(mtime_ns / 1e9).date() if mtime_ns else None
        view = flavour.view_on(path, meta, body, mtime, on) if parsed.decoded else None
        problems = parse_problems(path, parsed)
        if parsed.decoded:
            problems += (
                flavour.check(path, parsed, view, on)
                + credential_problems(path, parsed)
                + unsettled_sync_problems(path, parsed)
            )
    unreadable = invalidating(flavour) - (LOOSELY_READ if loose else frozenset())
    valid = not any(p.code in unreadable for p in problems)
    if view is None and not flavour.native:
        view = flavour.view_on(path, {}, "", None, on)
    document = Document(id=doc_id, path=path, meta=meta, body=body, digest=parsed.digest, valid=valid, view=view)
    problems = [dataclasses.replace(p, doc_id=doc_id) for p in problems]
    key_lines = {key: line for key in LINE_KEYS if (line := parsed.key_line(key)) is not None}
    return Record(path, size, mtime_ns, document, problems, key_lines, ino, ctime_ns, seen_ns)


def read_document(path) -> bytes | None:
    """A file's bytes for parsing, but never more than the limit plus one: a 100 MB file is
    refused from its first 16 MiB, not read whole. None when nothing is there; `UnreadableFile`
    for a named pipe, a device, a folder or a file that cannot be read."""
    return read_file(path, MAX_FILE_BYTES + 1)


def unread_record(
    path: str, error: UnreadableFile, mtime_ns: int, on: dt.date, flavour: Flavour = MEMORY_CORE
) -> Record:
    """The record of a document file that could not be read: invalid, with one problem naming what
    is there instead, and an id from its path alone. Its size is -1, which no file has, so it is
    read again at every look: a permission or a pipe may change without its size or time moving."""
    empty = build_record(path, b"", 0, mtime_ns, on, flavour)
    problem = Problem(path, Severity.ERROR, error.code, error.reason, None, empty.document.id)
    document = dataclasses.replace(empty.document, meta={}, body="", digest="", valid=False)
    return Record(path, -1, mtime_ns, document, [problem], {})


def read_record(
    root,
    path: str,
    size: int,
    mtime_ns: int,
    on: dt.date,
    flavour: Flavour = MEMORY_CORE,
    ino: int = 0,
    ctime_ns: int = 0,
) -> Record | None:
    """The record of the file at `root / path` (its stat's numbers given): parsed when it can be
    read, `unread_record` when it cannot, None when it is gone."""
    seen_ns = time.time_ns()
    try:
        raw = read_document(os.path.join(root, path))  # a string: no Path made for each of thousands of files
    except UnreadableFile as error:
        return unread_record(path, error, mtime_ns, on, flavour)
    if raw is None:
        return None
    return build_record(path, raw, size, mtime_ns, on, flavour, ino, ctime_ns, seen_ns)


# How far back the log of changed ids reaches. A reader that last looked longer ago (or a batch
# larger than this, such as a checkout) scans every record once instead, 44 ms at 50,000
# documents: the log stays small, and a reader that keeps up never needs the scan.
LOG_GENERATIONS = 64
LOG_IDS = 5000


class IdLog:
    """Which ids each generation of a vault's records touched, so that a view kept in step with
    the vault (the graph) can look at those alone instead of at every record."""

    def __init__(self) -> None:
        self._entries: deque[tuple[int, frozenset[str]]] = deque()
        self._size = 0
        self._start: int | None = None  # the log knows every change after this generation

    def restart(self, generation: int) -> None:
        """Forget the past: the records changed in ways nobody logged (an open, a walk)."""
        self._entries.clear()
        self._size = 0
        self._start = generation

    def add(self, generation: int, ids: set[str]) -> None:
        """Note the ids whose documents (or ownership) may differ in `generation` from the one before."""
        self._entries.append((generation, frozenset(ids)))
        self._size += len(ids)
        while self._entries and (len(self._entries) > LOG_GENERATIONS or self._size > LOG_IDS):
            dropped, gone = self._entries.popleft()
            self._size -= len(gone)
            self._start = dropped

    def since(self, generation: int | None) -> set[str] | None:
        """The ids touched after `generation`, or None when the log does not reach back that far."""
        if generation is None or self._start is None or generation < self._start:
            return None
        return set().union(*(ids for at, ids in self._entries if at > generation))
