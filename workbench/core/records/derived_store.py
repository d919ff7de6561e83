"""The derived store, `index.sqlite` in the vault's state folder: parsed records and the full-text index.

The state folder is `.workbench/` in a Memory Core or OKF vault, and the user's cache folder for a
vault of any other format (`index.state_dir_for`): opening someone else's folder writes nothing into it.
The store belongs to one vault folder: another folder (a copy of the vault, its store included, or
a backup restored at the same path) has another identity (`folder_identity`), and no row's stat is
trusted there: a row is taken only where its file has the size, modification time and bytes it was
read from (`_moved`), and every other file is parsed again; and only from a store this user's
workbench made (`seal`): any other is built again, its rows' meta and problems unread.

Disposable by design: deleting it loses nothing, a schema change or a damaged file rebuilds it
without a word, and a vault that cannot be written to gets an in-memory store instead. Rows are
keyed by each file's path and stat (size, modification time, inode and change time, as
`records.unchanged` compares them, with the time the file was read) and carry its content hash,
which is the document's digest, so opening a vault again re-reads only the files that changed. Meta is stored
as JSON, never pickled: a vault can come from anyone, and its cache must not be able to run code.

A row holds on any later day than the one its file was checked on (`checked_on`): no check of a file
depends on the day but a date "in the future", and a row that found one holds that day only
(`until`); in a flavour whose reading follows the day (`Flavour.reads_the_day`) every row does.
A document's links, in a flavour whose links name notes rather than ids, are kept resolved beside
its row (`resolved`), under a key of the set of ids they were resolved among (`resolved_under`,
`ownership.ids_key`): an open takes them as they are while that set is the same.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import math
import sqlite3
import sys
import threading
import weakref
from array import array
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO, TypeVar

from ..vocabulary.files import folder_identity
from .record import UNKNOWN_INO, Record
from .seal import new_origin, seal_of, verifies
from .store_rows import (
    FILES_COLUMNS,
    LOAD_COLUMNS,
    BodySource,
    StoredDocument,
    fts_fields,
    record_from_row,
    records_from_rows,
    row_for,
    with_texts,
)

__all__ = [
    "StoredDocument",
    "SCHEMA_VERSION",
    "DerivedStore",
    "FTS_TOKENIZE",
    "close_every_store",
    "fts5_idf",
    "fts5_norm",
    "keep_word_lists",
    "forget_typed",
    "type_rows",
    "typed_hits",
    "row_sizes",
    "word_lists_recipe",
    "word_tokens",
    "folder_identity",
    "row_for",
    "record_from_row",
    "fts_fields",
]

SCHEMA_VERSION = "12"

_OPEN: weakref.WeakSet[DerivedStore] = weakref.WeakSet()  # the stores of this process not closed yet


def close_every_store() -> None:
    """Close every store this process still has open: for a process about to end without the
    interpreter's teardown, which closed each as it freed it (the last connection to a store
    folds its write-ahead log back into the file and removes it, as it always did)."""
    for store in list(_OPEN):
        store.close()


def _reader_fingerprint() -> str:
    """A digest of the code that turns a file into a record: cached records made by other code
    (an upgrade, a change to a flavour's rules) are parsed again instead of trusted."""
    from .. import flavours
    from ..vocabulary import model, parse, quickyaml
    from . import ownership, record as records, store_rows, validate

    digest = hashlib.sha256()
    # `ownership` resolves the links the store keeps resolved (`keep_resolutions`).
    modules = [model, parse, quickyaml, records, validate, store_rows, ownership] + [
        m for name, m in sorted(sys.modules.items()) if name.startswith(flavours.__name__ + ".")
    ]
    for module in modules:
        try:
            digest.update(Path(module.__file__ or "").read_bytes())
        except (OSError, TypeError, AttributeError):
            digest.update(module.__name__.encode())
    return digest.hexdigest()[:16]


READER = _reader_fingerprint()
FTS_COLUMNS = ("title", "ident", "tags", "summary", "body")
FTS_AUTOMERGE = 4  # FTS5's own default
# The `files` row holds what a warm open reads of every file; the text the index is made of (the
# body above all: 290 MB at 100,000 documents of long notes) lives in `texts`, under the same
# rowid, read only when a body is asked for. In `files`, it made a warm open read every page of it.
_FILES_NAMES = FILES_COLUMNS.split(", ")
BODY_AT = _FILES_NAMES.index("body")
STORED_COLUMNS = ", ".join(name for name in _FILES_NAMES if name != "body")
# What SQLite answers when the file itself is broken (pages overwritten, truncated, not a database),
# as opposed to a busy database or a query FTS5 does not accept.
DAMAGED = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})
# What it answers when a write finds no room (a full disk, a quota) or the disk fails under it.
NO_ROOM = frozenset({sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR})
PENDING_STEP = 10_000  # rows of `pending` indexed in one transaction, at most
# What FTS5 gathers in memory before it writes a segment, set by a first open's build (and kept in
# the store for later builds). FTS5's own 1 MB made a step of 10,000 long notes write some thirty
# small segments, each merged again as they piled up: at 100,000 documents the index took 8.2-8.9 s
# of CPU, and 5.6-6.0 s with a step's postings written once. The same postings either way.
FTS_HASH_SIZE = 32 * 1024 * 1024
# Rows a first open's build holds while a step is indexed (`_IndexBuild.save`); past this many the
# caller waits for the step, so that what is held in memory stays bounded.
HELD_MOST = 10_000
ROWS_A_QUERY = 3_000  # rows of `kept_rows` read or written by one statement (three values each, within SQLite's limit)
WRITES_KEPT = 64  # this connection's last writes, remembered so that kept search results can catch up
Version = tuple[int, int]
T = TypeVar("T")
_VIEW_LEFT = "CASE WHEN view IS NULL THEN NULL ELSE '' END"  # a row's view, left in the store (`load`)
# Parts of a kept result kept as rows of their own, each under a digest of its value
# (`weighing.Rows`): a change writes the rows it makes, not the whole result. A rowid table, its
# (name, key) in an index of their own: WITHOUT ROWID, each value lived in the key's b-tree, and
# SQLite reads the whole of a cell that spills onto overflow pages to compare a key with it, so
# every seek past a 60 KB row read all of it (one `conflicts --json` after a change at 10,000
# decision records read 221 MB from the store; 71-74 MB with the index apart).
_KEPT_ROWS = "CREATE TABLE IF NOT EXISTS kept_rows (name TEXT, key TEXT, value BLOB, PRIMARY KEY (name, key))"
# Every table the store makes (the index's own go with `fts`): what a schema change drops.
SCHEMA_TABLES = ("fts", "pending", "texts", "files", "info", "vectors", "kept", "kept_rows", "word_lists")


def _connected(where: str) -> sqlite3.Connection:
    """A connection to the store as every writer of it opens one. `secure_delete` is FAST
    whatever the SQLite build's default: some builds (Debian's) zero every page a deletion frees,
    and a kept value replaced (the weighing's record, the blocks' rows: megabytes at 10,000
    documents) then wrote its old pages again as zeros, in the write-ahead log and in the file:
    154 MB written by one `conflicts --json` after a change, 48 MB with FAST. FAST still clears
    what is deleted from the pages the deletion writes anyway; the store is derived from the
    vault's files, which stay where they are, and a free page is reused by the next write
    (`forget`, for privacy, deletes the whole store and builds it again)."""
    db = sqlite3.connect(where, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA busy_timeout = 10000")
    db.execute("PRAGMA secure_delete = FAST")
    return db


def _kept_rows_as_now(db: sqlite3.Connection) -> None:
    """Make `kept_rows` (also in a store made before there were kept rows); one of the older form
    (WITHOUT ROWID) is dropped, with the kept results naming its rows: they are worked out again."""
    if _kept_rows_now(db):
        return
    try:
        # Looked at again under the write lock, the table dropped and made in one transaction: two
        # processes opening an older store together never see it gone (one drops, the other finds
        # it made).
        db.execute("BEGIN IMMEDIATE")
        try:
            if not _kept_rows_now(db):
                db.execute("DROP TABLE IF EXISTS kept_rows")
                db.execute("DELETE FROM kept")
                db.execute(_KEPT_ROWS)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    except sqlite3.OperationalError:  # busy: the older form still answers, and the next open makes it anew
        pass


def _kept_rows_now(db: sqlite3.Connection) -> bool:
    found = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'kept_rows'").fetchone()
    return found is not None and "WITHOUT ROWID" not in found[0].upper()


def _weights(weights: tuple[float, ...]) -> str:
    return ", ".join(str(float(w)) for w in weights)


def _varints(blob: bytes) -> list[int]:
    """The SQLite varints FTS5 keeps its row sizes and totals in (big-endian groups of seven bits,
    the ninth byte whole)."""
    numbers: list[int] = []
    at = 0
    while at < len(blob):
        value = 0
        for position in range(9):
            if at >= len(blob):
                break
            byte = blob[at]
            at += 1
            if position == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        numbers.append(value)
    return numbers


class DerivedStore:
    """SQLite: a `files` table of cached records, a `texts` table of what the full-text index is made
    of, and an FTS5 table over `texts`, all three under the same rowids."""

    def __init__(self, path: Path | None, flavour: str = "memory-core", vault: str = ""):
        self.path = path
        # Another flavour reads the same files otherwise: rebuild. Another vault folder (a copy,
        # a backup restored) may hold other files: its rows are kept, each taken only once its
        # file's bytes are found the same (`_moved`).
        self.schema = f"{SCHEMA_VERSION} {READER} {flavour}"
        self.folder = vault
        self.damaged = False  # set when a query finds the file broken: the vault then builds it again
        self.full = False  # set when a write finds no room: the vault then keeps it in memory, no file left behind
        # (version before, version after, rows removed or replaced, rows added) of each write
        self._writes: deque[tuple[Version, Version, tuple[int, ...], range]] = deque(maxlen=WRITES_KEPT)
        self._indexer: threading.Thread | None = None  # a first open's full-text build, while it runs
        self._build: _IndexBuild | None = None  # the last first open's build (`building`)
        self._db = self._connect()
        _OPEN.add(self)

    @property
    def db(self) -> sqlite3.Connection:
        """The connection, once a first open's full-text index is built (`building`): whatever
        asks the store waits for it, so that no search is answered from half an index."""
        indexer = self._indexer
        if indexer is not None and indexer is not threading.current_thread():
            indexer.join()
        return self._db

    @property
    def indexing(self) -> bool:
        """Whether a first open's full-text index is still being built (asking the store waits)."""
        indexer = self._indexer
        return indexer is not None and indexer.is_alive()

    def _connect(self) -> sqlite3.Connection:
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = self._open(str(self.path))
                if db is not None:
                    return db
                self._remove_files()
                db = self._open(str(self.path))
                if db is not None:
                    return db
            except OSError:
                pass
        self.path = None
        db = self._open(":memory:")
        assert db is not None
        return db

    def _remove_files(self) -> None:
        assert self.path is not None
        for leftover in (
            self.path,
            self.path.with_name(self.path.name + "-wal"),
            self.path.with_name(self.path.name + "-shm"),
        ):
            leftover.unlink(missing_ok=True)

    def discard(self) -> None:
        """Close the store and delete its file, to be built again from the records in memory."""
        self.close()
        if self.path is not None:
            with contextlib.suppress(OSError):
                self._remove_files()

    def _failed(self, error: sqlite3.DatabaseError) -> None:
        """Note a failed query: a broken file is marked `damaged`, to be rebuilt rather than go on
        answering searches with nothing; a write with no room marks it `full`, to be deleted (its
        write-ahead log too, which would keep the disk full) and kept in memory instead."""
        code = (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF
        if code in DAMAGED:
            self.damaged = True
        elif code in NO_ROOM and self.path is not None:
            self.full = True

    def _open(self, where: str) -> sqlite3.Connection | None:
        """A connection with the current schema, or None when the file is damaged or foreign."""
        try:
            db = _connected(where)
            db.execute("PRAGMA page_size = 8192")  # a new file only: fewer pages to write for the same rows
            if where != ":memory:":
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = NORMAL")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            stored = (
                db.execute("SELECT value FROM info WHERE key = 'schema'").fetchone()[0] if "info" in tables else None
            )
            fresh = stored != self.schema or version != 1
            if not fresh and not self._moved(db):  # carried here from a store this user did not make
                fresh = True
            if fresh:
                # The origin, sealed before the transaction: making the user's secret writes a file.
                origin = new_origin()
                sealed = seal_of(origin, self.schema) if where != ":memory:" else None
                with db:
                    db.execute("BEGIN")
                    # Every table, emptied in place: the file stays the one any other connection
                    # has open (deleting it under them would leave two files under one name).
                    for table in SCHEMA_TABLES:
                        db.execute(f"DROP TABLE IF EXISTS {table}")
                    db.execute("CREATE TABLE info (key TEXT PRIMARY KEY, value TEXT)")
                    db.execute("INSERT INTO info VALUES ('schema', ?)", (self.schema,))
                    db.execute("INSERT INTO info VALUES ('folder', ?)", (self.folder,))
                    db.execute("INSERT INTO info VALUES ('origin', ?)", (origin,))
                    if sealed is not None:
                        db.execute("INSERT INTO info VALUES ('seal', ?)", (sealed,))
                    db.execute(
                        "CREATE TABLE files (rowid INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, size INTEGER, mtime_ns INTEGER, ino INTEGER, ctime_ns INTEGER, seen_ns INTEGER,"
                        " checked_on TEXT, until TEXT, digest TEXT, id TEXT, valid INTEGER, meta TEXT, problems TEXT, key_lines TEXT, view TEXT, updated TEXT,"
                        " fields TEXT, resolved_under TEXT, resolved TEXT)"
                    )
                    db.execute(
                        f"CREATE TABLE texts (rowid INTEGER PRIMARY KEY, {', '.join(c + ' TEXT' for c in FTS_COLUMNS)})"
                    )
                    # The rows of `texts` a first open stored and has not told the index of yet
                    # (`building`): whoever finds some indexes them before answering (`settle`).
                    db.execute("CREATE TABLE pending (rowid INTEGER PRIMARY KEY)")
                    # The index reads its text from `texts` (external content): the bodies are not
                    # stored twice, which makes the first open's writing a third shorter.
                    db.execute(
                        f"CREATE VIRTUAL TABLE fts USING fts5({', '.join(FTS_COLUMNS)}, content = 'texts', content_rowid = 'rowid',"
                        " tokenize = 'porter unicode61 remove_diacritics 2')"
                    )
                    # Document vectors of the [meaning] extra, by content digest and model: a
                    # document unchanged since any earlier process is not encoded again.
                    db.execute(
                        "CREATE TABLE vectors (digest TEXT, model TEXT, vector BLOB, PRIMARY KEY (digest, model)) WITHOUT ROWID"
                    )
                    # Results worked out from the whole vault (the conflicts queue), each under the
                    # digest of everything it was worked out from (`kept_conflicts`).
                    db.execute("CREATE TABLE kept (name TEXT PRIMARY KEY, key TEXT, value TEXT)")
                    db.execute("PRAGMA user_version = 1")
            else:
                try:  # rows a first open left unindexed (killed meanwhile, or still building)
                    while _index_pending(db, PENDING_STEP):
                        pass
                except sqlite3.OperationalError:  # busy: whoever asks the index first settles them
                    pass
                if db.execute("SELECT v FROM fts_config WHERE k = 'automerge'").fetchone() == (0,):
                    # A first open that ended before it could turn merging back on.
                    db.execute("INSERT INTO fts (fts, rank) VALUES ('automerge', ?)", (FTS_AUTOMERGE,))
            _kept_rows_as_now(db)
            db.execute(_WORD_LISTS)  # also in a store made before common words' lists were kept
            return db
        except sqlite3.DatabaseError:
            return None

    # -- records --------------------------------------------------------------------------------

    def load(
        self, on: dt.date, bodies: BodySource | None = None, daily: bool = False, queue_fields: bool = False
    ) -> dict[str, Record]:
        """Every cached record that holds on the day `on`: checked that day or before, unless a
        problem found then depends on the day (`until`: a date "in the future" is judged on the
        day). With `daily` (a flavour whose reading of a file changes with the day), only the
        records checked that day. With `bodies`, the bodies are left in the store, read from
        `bodies` when first asked for, and so are the metas. The queue's fields are left there too
        (`fields`): an open asks none of them, unless it is for the queue or the review list
        (`queue_fields`), which ask every document's: read with the rows, they cost an open of
        10,000 decision records 2-3 ms, where the query of their own (`read_fields`) took 15 ms."""
        columns = ", ".join(LOAD_COLUMNS)
        if bodies is not None and queue_fields:
            # The queue's fields hold what it asks of a view: the views' text (4 MB at 10,000
            # decision records) is left in the store, "" saying that a row holds one.
            columns = ", ".join(_VIEW_LEFT if name == "view" else name for name in LOAD_COLUMNS)
        if bodies is None:  # the meta and the body read now, after the record's own columns
            columns += ", meta, (SELECT body FROM texts WHERE texts.rowid = files.rowid)"
        elif queue_fields:
            columns += ", fields"
        day = on.isoformat()
        holds = "checked_on = :day" if daily else "checked_on <= :day AND (until IS NULL OR until >= :day)"
        try:
            rows = self.db.execute(f"SELECT {columns} FROM files WHERE {holds}", {"day": day})
            if bodies is not None:
                # Row by row, not fetched whole: the list of 100,000 rows beside the records made
                # from them was a tenth of a large open's peak memory.
                return records_from_rows(rows, bodies, queue_fields)
            read = rows.fetchall()
            found = records_from_rows(row[:-2] for row in read)
            for row in read:
                with_texts(found[row[0]], row[-2], row[-1], None)
            return found
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return {}

    def bodies(self, wanted: list[tuple[str, str]]) -> dict[str, str]:
        """{path: body} of those (path, digest) readings the store holds, a few hundred a query."""
        found: dict[str, str] = {}
        digests = dict(wanted)
        paths = sorted(digests)

        def read(db: sqlite3.Connection) -> None:
            for start in range(0, len(paths), 500):
                chunk = paths[start : start + 500]
                sql = (
                    "SELECT path, digest, body FROM files JOIN texts ON texts.rowid = files.rowid"
                    f" WHERE path IN ({', '.join('?' * len(chunk))})"
                )
                found.update((path, body) for path, digest, body in db.execute(sql, chunk) if digests[path] == digest)

        self._reading(read, None)
        return found

    def fields(self) -> dict[str, tuple[str, str | None]]:
        """{path: (digest, the `fields` column)} of every row: what the conflicts queue asks of every
        document, read in one query when it first asks (`store_rows.read_fields`)."""
        return self._reading(
            lambda db: {
                path: (digest, fields) for path, digest, fields in db.execute("SELECT path, digest, fields FROM files")
            },
            {},
        )

    def fields_of(self, paths: list[str]) -> dict[str, tuple[str, str | None]]:
        """{path: (digest, the `fields` column)} of the rows of these paths (a few: one query)."""
        return self._reading(
            lambda db: {
                path: (digest, fields)
                for path, digest, fields in db.execute(
                    f"SELECT path, digest, fields FROM files WHERE path IN ({', '.join('?' * len(paths))})", paths
                )
            },
            {},
        )

    def _reading(self, read: Callable[[sqlite3.Connection], T], default: T) -> T:
        """`read` run on the store's connection, its rows taken inside it (a whole-vault read
        iterates its cursor, never holding every row at once); `default` when the store was
        closed meanwhile, or found damaged (`_failed`: the vault then builds it again)."""
        try:
            return read(self.db)
        except sqlite3.ProgrammingError:  # closed
            return default
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return default

    def meta(self, path: str, digest: str) -> str | None:
        """The meta (JSON text) stored for the file at `path` as read with `digest`; None when the
        store no longer holds that reading."""
        return self._text_of("meta", path, digest)

    def metas(self) -> dict[str, tuple[str, str]]:
        """{path: (digest, meta as JSON text)} of every row, in one query."""
        return self._texts("meta")

    def view(self, path: str, digest: str) -> str | None:
        """The view (JSON text) stored for the file at `path` as read with `digest`, as `meta`."""
        return self._text_of("view", path, digest)

    def views(self) -> dict[str, tuple[str, str]]:
        """{path: (digest, view as JSON text)} of every row that holds one, in one query."""
        return self._texts("view", "view IS NOT NULL")

    def _text_of(self, column: str, path: str, digest: str) -> str | None:
        row = self._reading(
            lambda db: db.execute(
                f"SELECT {column} FROM files WHERE path = ? AND digest = ?", (path, digest)
            ).fetchone(),
            None,
        )
        return row[0] if row else None

    def _texts(self, column: str, where: str = "1") -> dict[str, tuple[str, str]]:
        return self._reading(
            lambda db: {
                path: (digest, text)
                for path, digest, text in db.execute(f"SELECT path, digest, {column} FROM files WHERE {where}")
            },
            {},
        )

    def body(self, path: str, digest: str) -> str | None:
        """The body stored for the file at `path` as read with `digest`; None when the store no
        longer holds that reading (the file changed, or the store was closed or is damaged)."""
        row = self._reading(
            lambda db: db.execute(
                "SELECT body FROM files JOIN texts ON texts.rowid = files.rowid WHERE path = ? AND digest = ?",
                (path, digest),
            ).fetchone(),
            None,
        )
        return row[0] if row else None

    def save(self, records: Iterable[Record], removed: Iterable[str], on: dt.date) -> None:
        """Store changed records and drop removed files, in one transaction."""
        self.save_rows([row_for(record, on) for record in records], removed)

    def save_rows(self, rows: Iterable[tuple | None], removed: Iterable[str] = ()) -> None:
        """Store rows made by `row_for` (possibly in another process), in one transaction."""
        kept: list[tuple] = [row for row in rows if row is not None]
        before = self.version()
        try:
            with self.db:
                self.db.execute("BEGIN")
                gone, start = self._insert(kept, removed)
                # The index's text is read back from the rows just stored, in one statement: each
                # body crosses from Python to SQLite once, and FTS5 is fed without a call per row.
                self._index(start, start + len(kept) - 1)
            self._wrote(before, gone, range(start, start + len(kept)))
        except sqlite3.DatabaseError as error:
            self._failed(error)  # the cache is only a cache: a failure here costs speed next time, never data

    def _insert(self, kept: list[tuple], removed: Iterable[str] = (), pending: bool = False) -> tuple[list[int], int]:
        """Store rows in `files` and `texts`, in the caller's transaction, in place of the rows of
        their paths and of `removed`: (the rowids dropped, the first rowid stored). The full-text
        index is not told of the new rows (`_index`); with `pending`, they are listed to be."""
        db = self._db
        self._still_ours(db)
        gone = self._delete(list(removed) + [files_row[0] for files_row, _ in kept])
        start = _next_rowid(db)
        stored = len(_FILES_NAMES) - 1
        db.executemany(
            f"INSERT INTO files (rowid, {STORED_COLUMNS}) VALUES ({', '.join('?' * (stored + 1))})",
            [(start + n, *files_row[:BODY_AT], *files_row[BODY_AT + 1 :]) for n, (files_row, _) in enumerate(kept)],
        )
        db.executemany(
            f"INSERT INTO texts (rowid, {', '.join(FTS_COLUMNS)}) VALUES ({', '.join('?' * (len(FTS_COLUMNS) + 1))})",
            [(start + n, *fts_row) for n, (_, fts_row) in enumerate(kept)],
        )
        if pending:
            db.execute("INSERT INTO pending SELECT rowid FROM texts WHERE rowid >= ?", (start,))
        if kept:
            db.execute("INSERT OR REPLACE INTO info VALUES ('rowids_to', ?)", (str(start + len(kept) - 1),))
        return gone, start

    def _moved(self, db: sqlite3.Connection) -> bool:
        """In a store made in another vault folder (a copy of the vault, its store included, or a
        backup restored at the same path), no row's stat is its file's: each row's inode is made
        unknown (`record.UNKNOWN_INO`), in the transaction that makes the store this folder's, so
        that an open takes a row only where its file has the size, modification time and bytes
        the row was read from (`record.still_clean`), and parses every other file.

        A row's digest vouches for the file it was read from, not for what the row says of it
        (meta, problems, links): those are taken only from a store this user's workbench made,
        one whose seal verifies with their secret (`seal.verifies`). False for any other store
        (made elsewhere, crafted, made before stores were sealed): it is to be built again. The
        seal is looked at only here, when the folder differs: a warm open never asks it."""
        found = db.execute("SELECT value FROM info WHERE key = 'folder'").fetchone()
        if found is not None and found[0] == self.folder:
            return True
        info = dict(db.execute("SELECT key, value FROM info WHERE key IN ('origin', 'seal')").fetchall())
        if not verifies(info.get("origin"), self.schema, info.get("seal")):
            return False
        with db:
            db.execute("BEGIN IMMEDIATE")
            found = db.execute("SELECT value FROM info WHERE key = 'folder'").fetchone()
            if found is None or found[0] != self.folder:  # not made this folder's meanwhile
                db.execute("UPDATE files SET ino = ?", (UNKNOWN_INO,))
                db.execute("INSERT OR REPLACE INTO info VALUES ('folder', ?)", (self.folder,))
        return True

    def _still_ours(self, db: sqlite3.Connection) -> None:
        """Refuse a write, in the caller's transaction, to a store another process has since built
        again for another schema (another reading of the files, `_open`): rows of this reading
        would be read there as current."""
        found = db.execute("SELECT value FROM info WHERE key = 'schema'").fetchone()
        if found is None or found[0] != self.schema:
            raise sqlite3.DatabaseError("the derived store was built again for another schema")

    def _index(self, first: int, last: int) -> None:
        """Tell the full-text index of the `texts` rows `first` to `last`, in the caller's transaction."""
        columns = ", ".join(FTS_COLUMNS)
        self._db.execute(
            f"INSERT INTO fts (rowid, {columns}) SELECT rowid, {columns} FROM texts WHERE rowid BETWEEN ? AND ?",
            (first, last),
        )

    def settle(self) -> None:
        """Index the rows another process stored and has not indexed yet (a first open under way
        there, or killed): asked before a search, so that none is answered from part of the index."""
        db = self.db  # this process's own build, waited for
        try:
            while db.execute("SELECT 1 FROM pending LIMIT 1").fetchone() and _index_pending(db, PENDING_STEP):
                pass
        except sqlite3.DatabaseError as error:
            self._failed(error)

    @contextlib.contextmanager
    def building(self, expected: int = 0):
        """Around a first open's storing of thousands of rows (about `expected`): yields
        `save(rows)`, which stores them at once, while a thread of its own tells the full-text
        index of them behind it (FTS5 tokenizing the bodies: 6-8 s of 100,000 documents of long
        notes, with the records ready before). The open goes on when the last rows are stored; whatever asks the store
        meanwhile (a search, a body, a write) waits for the index (`db`). The rows not indexed yet
        are listed in `pending`, in the transaction that stores them, and each step indexes and
        unlists some in one transaction: a process killed meanwhile leaves a store the next open
        completes (`_open`), and another process asking the index meanwhile indexes them itself
        first (`settle`), never a row twice."""
        build = self._build = _IndexBuild(self, expected)
        try:
            yield build.save
        finally:
            build.stored_all()

    def keep_resolutions(self, resolved: Iterable[tuple[str, str, str, str]]) -> None:
        """Keep each (path, digest, key, resolution_text) on the row of that reading: its links as
        resolved among the ids `key` names (`ownership`), which the next open takes as they are
        while the ids are the same. Where a first open's full-text index is still being built,
        kept by its thread once the index is done, rather than waited for here."""
        rows = [(key, text, path, digest) for path, digest, key, text in resolved]
        if not rows:
            return
        build = self._build
        if build is not None and build.later(lambda db: self._write_resolutions(db, rows)):
            return
        before = self.version()
        if self._write_resolutions(self.db, rows):
            self._wrote(before)

    def _write_resolutions(self, db: sqlite3.Connection, rows: list[tuple[str, str, str, str]]) -> bool:
        try:
            with db:
                db.execute("BEGIN")
                db.executemany("UPDATE files SET resolved_under = ?, resolved = ? WHERE path = ? AND digest = ?", rows)
            return True
        except sqlite3.DatabaseError as error:
            self._failed(error)  # only a cache: resolved again next time
            return False

    def reseen(self, seen: Iterable[tuple[str, int, int, int, int]]) -> None:
        """A new reading for files whose bytes were found unchanged (path, seen_ns, inode, change
        time, modification time: a copy's file has its own): their rows and the full-text index
        stay as they are."""
        try:
            with self.db:
                self.db.executemany(
                    "UPDATE files SET seen_ns = ?, ino = ?, ctime_ns = ?, mtime_ns = ? WHERE path = ?",
                    [(seen_ns, ino, ctime_ns, mtime_ns, path) for path, seen_ns, ino, ctime_ns, mtime_ns in seen],
                )
        except sqlite3.DatabaseError as error:
            self._failed(error)

    def _wrote(self, before: Version, removed: Iterable[int] = (), added: range = range(0)) -> None:
        """Remember a write of this connection, unless another connection's came between."""
        after = self.version()
        if after[1] != before[1]:  # another process committed meanwhile: what changed is not known
            self._writes.clear()
        else:
            self._writes.append((before, after, tuple(removed), added))

    def changes_since(self, version: Version, most: int) -> tuple[set[int], list[int]] | None:
        """(rows removed, replaced or added, rows added) by this connection's writes since the
        store was at `version`; None when that is not known (another process wrote, or it was too
        long ago) or when more than `most` rows changed."""
        now = self.version()
        touched: set[int] = set()
        added: list[int] = []
        at, following = version, False
        for before, after, removed, new in self._writes:
            if at == now:
                break
            if before != at:
                if following:
                    return None
                continue
            following = True
            touched.update(removed)
            touched.update(new)
            added.extend(new)
            if len(touched) > most:
                return None
            at = after
        return (touched, added) if at == now else None

    @contextlib.contextmanager
    def bulk(self):
        """Around storing thousands of rows in a few transactions (a first open): FTS5 leaves the
        few large segments these make unmerged. Merging them was the longest step after the last
        file was parsed; it is done later, a little with each write, as FTS5 does by default."""
        self._fts_option("automerge", 0)
        try:
            yield
        finally:
            self._fts_option("automerge", FTS_AUTOMERGE)

    def _fts_option(self, name: str, value: int) -> None:
        before = self.version()
        try:
            self.db.execute(f"INSERT INTO fts (fts, rank) VALUES ('{name}', ?)", (value,))
            self._wrote(before)
        except sqlite3.DatabaseError as error:
            self._failed(error)

    def _delete(self, paths: list[str]) -> list[int]:
        """Drop the rows of these paths (those there are), a few hundred at a time; their rowids."""
        columns = ", ".join(FTS_COLUMNS)
        gone: list[int] = []
        db = self._db  # in the caller's transaction
        for start in range(0, len(paths), 500):
            chunk = paths[start : start + 500]
            where = f"path IN ({', '.join('?' * len(chunk))})"
            rowids = [rowid for (rowid,) in db.execute(f"SELECT rowid FROM files WHERE {where}", chunk)]
            gone += rowids
            if not rowids:
                continue
            of = f"rowid IN ({', '.join('?' * len(rowids))})"
            # An external-content index forgets a row by being told the text it indexed.
            # An index told of a row it does not hold breaks: a row still pending is only unlisted.
            db.execute(
                f"INSERT INTO fts (fts, rowid, {columns}) SELECT 'delete', rowid, {columns} FROM texts"
                f" WHERE {of} AND rowid NOT IN (SELECT rowid FROM pending)",
                rowids,
            )
            db.execute(f"DELETE FROM pending WHERE {of}", rowids)
            db.execute(f"DELETE FROM texts WHERE {of}", rowids)
            db.execute(f"DELETE FROM files WHERE {of}", rowids)
        return gone

    # -- vectors ----------------------------------------------------------------------------------

    def vectors(self, model: str, digests: Iterable[str]) -> dict[str, bytes]:
        """{digest: vector bytes} stored for `model`, of those digests that have one."""
        found: dict[str, bytes] = {}
        wanted = list(digests)
        try:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                sql = (
                    f"SELECT digest, vector FROM vectors WHERE model = ? AND digest IN ({', '.join('?' * len(chunk))})"
                )
                found.update(self.db.execute(sql, (model, *chunk)))
        except sqlite3.DatabaseError as error:
            self._failed(error)
        return found

    def save_vectors(self, model: str, vectors: Iterable[tuple[str, bytes]], gone: Iterable[str] | None = None) -> None:
        """Keep vectors for `model`, and forget those of contents no file has any more: of the
        digests `gone` (the contents that changed since the last save), or all of them."""
        before = self.version()
        try:
            with self.db:
                self.db.execute("BEGIN")
                self._still_ours(self.db)
                self.db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", [(d, model, v) for d, v in vectors]
                )
                if gone is None:
                    self.db.execute("DELETE FROM vectors WHERE digest NOT IN (SELECT digest FROM files)")
                else:
                    gone = list(gone)
                    for start in range(0, len(gone), 400):
                        chunk = gone[start : start + 400]
                        marks = ", ".join("?" * len(chunk))
                        self.db.execute(
                            f"DELETE FROM vectors WHERE digest IN ({marks}) AND digest NOT IN"
                            f" (SELECT digest FROM files WHERE digest IN ({marks}))",
                            chunk + chunk,
                        )
            self._wrote(before)
        except sqlite3.DatabaseError as error:
            self._failed(error)  # only a cache: the vectors are encoded again next time

    # -- results kept by the digest of their inputs --------------------------------------------

    def kept(self, name: str, key: str) -> str | bytes | None:
        """The value kept as `name` if it was kept under `key`, else None (bytes where bytes
        were kept)."""
        try:
            row = self.db.execute("SELECT value FROM kept WHERE name = ? AND key = ?", (name, key)).fetchone()
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return None
        return row[0] if row else None

    def kept_read(self, name: str, key: str, read: Callable[[BinaryIO], T]) -> T | None:
        """`read(value)` of the bytes kept as `name` if they were kept under `key`, else None: the
        value given as a file that SQLite reads a piece at a time as `read` asks (its incremental
        blob I/O), where `kept` hands it over whole in one call that holds the interpreter (0.1-0.4 s
        for the 72 MB of a 100,000-document vault's conflicts queue, `kept_pieces`). None too where
        the value changes while it is read."""
        try:
            row = self.db.execute(
                "SELECT rowid FROM kept WHERE name = ? AND key = ? AND typeof(value) = 'blob'", (name, key)
            ).fetchone()
            if row is None:
                return None
            with self.db.blobopen("kept", "value", row[0], readonly=True) as value:
                return read(value)  # type: ignore[arg-type]
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return None

    def kept_last(self, name: str) -> str | bytes | None:
        """The value kept as `name`, whatever key it was kept under (one is kept for each name):
        what the last call kept, for a caller that reuses the parts of it that still hold."""
        try:
            row = self.db.execute("SELECT value FROM kept WHERE name = ?", (name,)).fetchone()
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return None
        return row[0] if row else None

    def keep(self, name: str, key: str, value: str | bytes) -> None:
        """Keep `value` as `name` under `key`, in place of what was kept as `name` before. One
        statement, no transaction of its own: it may run beside another thread's."""
        before = self.version()
        try:
            self.db.execute("INSERT OR REPLACE INTO kept VALUES (?, ?, ?)", (name, key, value))
            self._wrote(before)
        except sqlite3.DatabaseError as error:
            self._failed(error)  # only a cache: worked out again next time

    def kept_rows(self, name: str, keys: Iterable[str]) -> dict[str, bytes]:
        """The rows kept as `name` under these keys (those there are), read many to a query."""
        wanted = list(keys)
        found: dict[str, bytes] = {}
        try:
            for start in range(0, len(wanted), ROWS_A_QUERY):
                chunk = wanted[start : start + ROWS_A_QUERY]
                found.update(
                    self.db.execute(
                        f"SELECT key, value FROM kept_rows WHERE name = ? AND key IN ({', '.join('?' * len(chunk))})",
                        (name, *chunk),
                    ).fetchall()
                )
        except sqlite3.DatabaseError as error:
            self._failed(error)
        return found

    def keep_rows(self, name: str, rows: dict[str, bytes], replace: bool = False) -> None:
        """Keep these rows as `name` (a key always holds the same value, so one kept already
        stays); `replace` deletes every other row kept as `name` first. One statement for each
        step, none in a transaction of its own: it may run beside another thread's."""
        before = self.version()
        try:
            self._put_rows(name, rows, replace)
            self._wrote(before)
        except sqlite3.DatabaseError as error:
            self._failed(error)  # only a cache: worked out again next time

    def _put_rows(self, name: str, rows: dict[str, bytes], replace: bool) -> None:
        """The statements of `keep_rows`."""
        items = [(name, key, value) for key, value in rows.items()]
        if replace:
            self.db.execute("DELETE FROM kept_rows WHERE name = ?", (name,))
        for start in range(0, len(items), ROWS_A_QUERY):
            chunk = items[start : start + ROWS_A_QUERY]
            self.db.execute(
                f"INSERT OR IGNORE INTO kept_rows VALUES {', '.join(['(?, ?, ?)'] * len(chunk))}",
                [value for item in chunk for value in item],
            )

    def _drop_rows(self, name: str, keys: list[str]) -> None:
        """The statements of `forget_rows`."""
        for start in range(0, len(keys), ROWS_A_QUERY):
            chunk = keys[start : start + ROWS_A_QUERY]
            self.db.execute(
                f"DELETE FROM kept_rows WHERE name = ? AND key IN ({', '.join('?' * len(chunk))})", (name, *chunk)
            )

    def keep_with_rows(
        self,
        name: str,
        key: str,
        value: bytes,
        rows: dict[str, bytes],
        replace: bool = False,
        forget: Iterable[str] = (),
    ) -> None:
        """`keep_rows(name, rows, replace)`, `keep(name, key, value)` and `forget_rows(name, forget)`
        in one transaction: a record and the rows it names arrive together, and the rows it names
        no more go with them; three statements apart, a process stopped (or a store busy) after
        the record left those rows behind, unnamed, until everything was counted again. Inside
        another thread's transaction the statements join it."""
        before = self.version()
        db = self.db
        try:
            with contextlib.ExitStack() as stack:
                if not db.in_transaction:
                    stack.enter_context(db)
                    db.execute("BEGIN")
                self._put_rows(name, rows, replace)
                db.execute("INSERT OR REPLACE INTO kept VALUES (?, ?, ?)", (name, key, value))
                self._drop_rows(name, list(forget))
            self._wrote(before)
        except sqlite3.DatabaseError as error:
            self._failed(error)  # only a cache: worked out again next time

    def forget_rows(self, name: str, keys: Iterable[str]) -> None:
        """Delete these rows kept as `name` (the record that named them names others now: a
        reader still holding that record finds one gone and works its answer out again)."""
        wanted = list(keys)
        if not wanted:
            return
        before = self.version()
        try:
            self._drop_rows(name, wanted)
            self._wrote(before)
        except sqlite3.DatabaseError as error:
            self._failed(error)  # only a cache: the rows stay, unnamed

    def forget_kept(self, written: Iterable[str]) -> None:
        """Delete what is kept under a name not `written`: what older code kept (a queue of 11.6 MB
        at 10,000 documents, once) would otherwise stay in the file for good."""
        names = sorted(set(written))
        try:
            if self.db.execute(
                f"SELECT 1 FROM kept WHERE name NOT IN ({', '.join('?' * len(names))}) LIMIT 1", names
            ).fetchone():
                self.db.execute(f"DELETE FROM kept WHERE name NOT IN ({', '.join('?' * len(names))})", names)
        except sqlite3.DatabaseError as error:
            self._failed(error)

    # -- full text ------------------------------------------------------------------------------

    def match(self, expression: str, weights: tuple[float, ...], limit: int) -> list[tuple[str, float]]:
        """(path, bm25 score, higher is better) for an FTS5 MATCH expression, best first."""
        # bm25() once per matching row (an ORDER BY on the call itself would run it again), and the
        # join only for the rows kept.
        sql = (
            f"SELECT files.path, -m.score FROM (SELECT rowid, bm25(fts, {_weights(weights)}) AS score FROM fts"
            " WHERE fts MATCH ? ORDER BY score LIMIT ?) AS m JOIN files ON files.rowid = m.rowid ORDER BY m.score"
        )
        self.settle()
        try:
            return self.db.execute(sql, (expression, limit)).fetchall()
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return []

    def postings(
        self, expression: str, weights: tuple[float, ...] | None, among: list[int] | None = None
    ) -> dict[int, float] | None:
        """{rowid: bm25 score, higher is better} of every row an FTS5 expression matches (of the
        rows `among`, if given); without weights, {rowid: 1.0} (no score is computed, which is
        several times quicker). None when the expression is not one FTS5 accepts. Searching one
        query term at a time lets the caller weigh the terms itself: each row's score for a single
        term is FTS5's `idf * f * (k1 + 1) / (f + k1 * (1 - b + b * size / average))`, f the
        weighted count of hits and idf counted over the whole index."""
        try:
            score = f"-bm25(fts, {_weights(weights)})" if weights is not None else "1.0"
            if among is None:
                return dict(self.db.execute(f"SELECT rowid, {score} FROM fts WHERE fts MATCH ?", (expression,)))
            found: dict[int, float] = {}
            for start in range(0, len(among), 500):
                chunk = among[start : start + 500]
                sql = f"SELECT rowid, {score} FROM fts WHERE fts MATCH ? AND rowid IN ({', '.join('?' * len(chunk))})"
                found.update(self.db.execute(sql, (expression, *chunk)))
            return found
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return None

    def best_postings(self, expression: str, weights: tuple[float, ...], limit: int) -> dict[int, float] | None:
        """{rowid: bm25 score, higher is better} of the `limit` rows an FTS5 expression matches
        best (FTS5 ranks them: no Python object for the others); None when FTS5 does not accept
        the expression."""
        sql = (
            f"SELECT rowid, -score FROM (SELECT rowid, bm25(fts, {_weights(weights)}) AS score FROM fts"
            " WHERE fts MATCH ? ORDER BY score LIMIT ?)"
        )
        try:
            return dict(self.db.execute(sql, (expression, limit)))
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return None

    def postings_within(
        self, expression: str, weights: tuple[float, ...] | None, rowids: list[int]
    ) -> dict[int, float] | None:
        """As `postings`, of the rows `rowids` alone, for many of them: FTS5 walks every row the
        expression matches and scores only those (the unary `+` keeps the rowids a filter, not a
        lookup; looked up one by one, a few hundred rows of a common word took 100 times longer
        than walking its 9,000). The rowids are one parameter (`_listed`), so that the statement
        is prepared once, not once for each number of rows."""
        score = f"-bm25(fts, {_weights(weights)})" if weights is not None else "1.0"
        return self._listed(
            f"SELECT rowid, {score} FROM fts WHERE fts MATCH ? AND +rowid IN {{}}", (expression,), rowids
        )

    def snippets(self, expression: str, paths: list[str], words: int = 12) -> dict[str, str]:
        """{path: a few words of the file's text around what the expression matched}, the
        matches between \x02 and \x03 (FTS5's snippet, from the body, else the summary; none when
        only the title, id or tags matched, which a hit shows already)."""
        found: dict[str, str] = {}
        try:
            marks = ", ".join("?" * len(paths))
            rowids = dict(self.db.execute(f"SELECT rowid, path FROM files WHERE path IN ({marks})", paths))
            if rowids:
                columns = [
                    f"snippet(fts, {FTS_COLUMNS.index(c)}, char(2), char(3), '…', {int(words)})"
                    for c in ("body", "summary")
                ]
                sql = f"SELECT rowid, {', '.join(columns)} FROM fts WHERE fts MATCH ? AND rowid IN ({', '.join('?' * len(rowids))})"
                for rowid, *texts in self.db.execute(sql, (expression, *rowids)):
                    text = next((str(t) for t in texts if t and "\x02" in str(t)), None)
                    if text is not None:
                        found[rowids[rowid]] = " ".join(text.split())
        except sqlite3.DatabaseError as error:
            self._failed(error)
        return found

    def count(self, expression: str) -> int | None:
        """How many rows an FTS5 expression matches (no score is computed: quick); None when the
        expression is not one FTS5 accepts."""
        try:
            return self.db.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (expression,)).fetchone()[0]
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return None

    def version(self) -> tuple[int, int]:
        """Changes whenever the index may have: a write through this connection or another."""
        try:
            return self.db.total_changes, self.db.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return -1, -1

    def totals(self) -> tuple[int, float] | None:
        """(rows, average tokens per row) of the full-text index, as FTS5's bm25() counts them;
        None when FTS5's own record of them cannot be read."""
        try:
            row = self.db.execute("SELECT block FROM fts_data WHERE id = 1").fetchone()
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return None
        if not row or not isinstance(row[0], bytes):
            return None
        numbers = _varints(row[0])
        if len(numbers) < 1 + len(FTS_COLUMNS) or numbers[0] <= 0:
            return None
        return numbers[0], sum(numbers[1 : 1 + len(FTS_COLUMNS)]) / numbers[0]

    def titles(self) -> dict[str, tuple[str, str]]:
        """{path: (digest, title)} of every stored reading, the title as full text has it ("" where
        it is the id): matching titles reads these rather than decoding every document's meta."""
        try:
            return {
                path: (digest, title)
                for path, digest, title in self.db.execute(
                    "SELECT path, digest, title FROM files JOIN texts ON texts.rowid = files.rowid"
                )
            }
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return {}

    def shown(self, paths: Iterable[str]) -> dict[str, tuple[str, str | None, str]]:
        """{path: (digest, the `fields` column, the tags as full text has them)} of these paths'
        rows: what a search's hits show and rank by, read for its few candidates rather than
        decoding each one's meta or view (`store_rows.read_fields` puts the fields in place)."""
        found = self._listed(
            "SELECT path, digest, fields, tags FROM files JOIN texts ON texts.rowid = files.rowid WHERE path IN {}",
            (),
            list(paths),
            lambda rows: {path: (digest, fields, tags or "") for path, digest, fields, tags in rows},
        )
        return found or {}

    def rowids(self, paths: Iterable[str]) -> set[int]:
        """The full-text index's rows of these paths (those it has)."""
        found: set[int] = set()
        wanted = list(paths)
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            try:
                sql = f"SELECT rowid FROM files WHERE path IN ({', '.join('?' * len(chunk))})"
                found.update(rowid for (rowid,) in self.db.execute(sql, chunk))
            except sqlite3.DatabaseError as error:
                self._failed(error)
        return found

    def rows(self, rowids: Iterable[int]) -> dict[int, tuple[str, int]]:
        """{rowid: (path, tokens in the row)} for rows of the full-text index (those still there);
        the size is 0 when FTS5's record of it cannot be read."""
        wanted = list(rowids)
        sized = self._listed(
            "SELECT files.rowid, files.path, fts_docsize.sz FROM files LEFT JOIN fts_docsize"
            " ON fts_docsize.id = files.rowid WHERE files.rowid IN {}",
            (),
            wanted,
            lambda rows: {
                rowid: (path, sum(_varints(size)) if isinstance(size, bytes) else 0) for rowid, path, size in rows
            },
        )
        if sized is not None:
            return sized
        paths = self._listed("SELECT rowid, path FROM files WHERE rowid IN {}", (), wanted)
        return {rowid: (path, 0) for rowid, path in (paths or {}).items()}

    # -- full text: a list of values as one parameter -------------------------------------------

    _json_lists = True  # whether this SQLite reads a JSON array as a table (`json_each`)

    def _listed(
        self,
        sql: str,
        given: tuple,
        values: list,
        collect: Callable[[Iterable[tuple]], dict] = dict,
    ) -> dict | None:
        """`collect` of the rows of `sql`, its `{}` the list `values` (after the parameters
        `given`); None where the store cannot be read. The list is one JSON parameter: a
        statement with a placeholder for each value is parsed and planned anew for each number
        of values (75 us for 300 of them, several times a search); with one, SQLite's statement
        cache keeps it. Where this SQLite has no `json_each`, a placeholder for each, in chunks."""

        def read(db: sqlite3.Connection) -> dict:
            if self._json_lists:
                try:
                    return collect(
                        db.execute(sql.format("(SELECT value FROM json_each(?))"), (*given, json.dumps(values)))
                    )
                except sqlite3.OperationalError as error:
                    if "json_each" not in str(error):
                        raise
                    self._json_lists = False
            found: dict = {}
            most = max(db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) - 1 - len(given), 1)
            for start in range(0, len(values), most):
                chunk = values[start : start + most]
                found.update(collect(db.execute(sql.format(f"({', '.join('?' * len(chunk))})"), (*given, *chunk))))
            return found

        return self._reading(read, None)

    # -- full text: each common word's rows, kept for the index as it is -------------------------

    def index_stamp(self, recipe: bytes = b"") -> bytes | None:
        """What the full-text index is now, as bytes that differ after any write to it: the
        store's origin (new when it is built again), FTS5's totals and its structure record (a
        new segment, and a higher count of them written, at every write), and `recipe` (what
        was kept from it, and how: `word_lists_recipe`); None where unreadable."""
        try:
            row = self.db.execute(_STAMP).fetchone()
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return None
        return _stamp_of(row, recipe)

    def word_lists(self, stamp: bytes, tokens: Iterable[str], rows: bool) -> dict[str, tuple[int, bytes, bytes]]:
        """{token: (rows, their rowids, their FTS5 scores)} of the tokens whose rows were kept
        for the index at `stamp` (`keep_word_lists`); the two arrays (`array` of 'q' and 'd',
        little-endian; the scores followed by each row's hits, where kept) are empty unless
        `rows`. Nothing where none was kept."""
        wanted = "rowids, scores" if rows else "x'', x''"
        return (
            self._listed(
                f"SELECT token, length(rowids) / 8, {wanted} FROM word_lists WHERE stamp = ? AND token IN {{}}",
                (stamp,),
                list(tokens),
                lambda found: {token: (n, a, b) for token, n, a, b in found},
            )
            or {}
        )

    def word_lists_stamp(self) -> tuple[bytes, bool] | None:
        """The index's stamp the kept lists were made at (`keep_word_lists`), and whether any
        word's list was kept then; None if none was kept for any."""
        try:
            row = self.db.execute(
                "SELECT stamp, EXISTS (SELECT 1 FROM word_lists WHERE token > ' ') FROM word_lists WHERE token = ''"
            ).fetchone()
        except sqlite3.DatabaseError:  # unreadable: none is read
            return None
        return (row[0], bool(row[1])) if row else None

    def word_lists_header(self, stamp: bytes, recipe: bytes) -> tuple[bytes, bytes] | None:
        """The rows of the index the lists at `stamp` were kept from and each one's size (two
        arrays of 'q', little-endian; both empty where they hold for that index alone), and
        None where no lists are kept at that stamp, or kept by another `recipe`."""
        try:
            rows = dict(
                (token, (rowids, sizes))
                for token, rowids, sizes in self.db.execute(
                    "SELECT token, rowids, scores FROM word_lists WHERE token IN ('', ' ') AND stamp = ?", (stamp,)
                )
            )
        except sqlite3.DatabaseError:
            return None
        header, how = rows.get(""), rows.get(" ")
        if header is None or how is None or how[0] != recipe or not all(isinstance(b, bytes) for b in header):
            return None
        return header

    def word_lists_tokens(self, stamp: bytes) -> set[str]:
        """The tokens whose rows were kept at `stamp`."""
        try:
            return {
                token
                for (token,) in self.db.execute(
                    "SELECT token FROM word_lists WHERE stamp = ? AND token > ' '", (stamp,)
                )
            }
        except sqlite3.DatabaseError:
            return set()

    def stored_rowids(self) -> list[int] | None:
        """Every stored row's rowid, in order (the full-text index holds the same, `settle`d);
        None where unreadable."""
        try:
            return [rowid for (rowid,) in self.db.execute("SELECT rowid FROM files ORDER BY rowid")]
        except sqlite3.DatabaseError as error:
            self._failed(error)
            return None

    def row_texts(self, rowids: list[int]) -> dict[int, tuple[str, ...]]:
        """{rowid: its columns' text as the full-text index was told them} (`FTS_COLUMNS`)."""
        return (
            self._listed(
                f"SELECT rowid, {', '.join(FTS_COLUMNS)} FROM texts WHERE rowid IN {{}}",
                (),
                rowids,
                lambda rows: {rowid: tuple(text or "" for text in texts) for rowid, *texts in rows},
            )
            or {}
        )

    def row_sizes(self, rowids: list[int]) -> dict[int, int]:
        """{rowid: tokens in the row} as FTS5's bm25() reads them, of these rows (those there are)."""
        return self._reading(lambda db: row_sizes(db, rowids), None) or {}

    def close(self) -> None:
        _OPEN.discard(self)
        try:
            self.db.close()
        except sqlite3.Error:
            pass


def _next_rowid(db: sqlite3.Connection) -> int:
    """The rowid a new row takes: past every row there is and every row there was (`rowids_to`),
    so that a rowid names one reading for the store's life and a row written since the common
    words' lists were kept is past their last (`views.word_lists`)."""
    row = db.execute("SELECT max(rowid), (SELECT value FROM info WHERE key = 'rowids_to') FROM files").fetchone()
    try:
        past = int(row[1] or 0)
    except ValueError:
        past = 0
    return max(row[0] or 0, past) + 1


def _index_pending(db: sqlite3.Connection, most: int) -> int:
    """Tell the full-text index of the first `most` rows of `pending` and unlist them, in one
    transaction that holds the write lock from its start: two processes never index a row twice.
    How many there were."""
    with db:
        db.execute("BEGIN IMMEDIATE")
        taken = db.execute(
            "SELECT count(*), max(rowid) FROM (SELECT rowid FROM pending ORDER BY rowid LIMIT ?)", (most,)
        )
        count, last = taken.fetchone()
        if count:
            columns = ", ".join(FTS_COLUMNS)
            db.execute(
                f"INSERT INTO fts (rowid, {columns}) SELECT rowid, {columns} FROM texts"
                " WHERE rowid IN (SELECT rowid FROM pending WHERE rowid <= ?)",
                (last,),
            )
            db.execute("DELETE FROM pending WHERE rowid <= ?", (last,))
    return count


def _gather_whole_steps(db: sqlite3.Connection) -> None:
    """Have FTS5 gather `FTS_HASH_SIZE` of postings in memory before writing a segment, in the
    caller's transaction; an SQLite whose FTS5 does not know the option builds as before."""
    try:
        db.execute("INSERT INTO fts (fts, rank) VALUES ('hashsize', ?)", (FTS_HASH_SIZE,))
    except sqlite3.OperationalError:
        pass


class _IndexBuild:
    """`DerivedStore.building`: rows stored by the caller's thread, indexed by a thread of its own
    a step behind. The two share the store's one connection, a transaction at a time (`lock`)."""

    def __init__(self, store: DerivedStore, expected: int = 0):
        self.store = store
        self.expected = expected  # rows the caller means to store, about
        self.stored = 0
        self.lock = threading.Lock()
        self.more = threading.Condition()
        self.waiting = 0  # rows stored and not yet indexed (at most: another process may have indexed some)
        self.held: list[tuple] = []  # rows given while a step was indexed, stored with the next
        self.done = False
        self.thread: threading.Thread | None = None
        self.after: list = []  # writes asked for meanwhile (`later`), made once the index is built
        self.ended = False  # the thread takes no more of them

    def save(self, rows: Iterable[tuple | None], wait: bool = False) -> None:
        """Store rows made by `row_for`, in one transaction; their index follows. While the
        thread indexes a step (up to a second at 100,000 long notes), the rows are held and stored
        with the next ones, unless `wait`: the caller goes on taking the workers' chunks, which
        would otherwise stand parsed while the workers ran out of files."""
        self.held += [row for row in rows if row is not None]
        blocking = wait or self.thread is None or len(self.held) >= HELD_MOST
        if not self.held or not self.lock.acquire(blocking=blocking):
            return
        kept, self.held = self.held, []
        store, db = self.store, self.store._db
        try:
            with db:
                db.execute("BEGIN")
                if self.thread is None:  # the first rows: merging off, as `bulk`, and a step's postings gathered whole
                    db.execute("INSERT INTO fts (fts, rank) VALUES ('automerge', 0)")
                    _gather_whole_steps(db)
                store._insert(kept, pending=True)
                self.waiting += len(kept)
                self.stored += len(kept)
            store._writes.clear()  # these writes are not remembered: kept search results are asked again
        except sqlite3.DatabaseError as error:
            store._failed(error)  # only a cache: what is not stored is parsed again next time
            return
        finally:
            self.lock.release()
        with self.more:
            if self.thread is None:
                # Started with the first rows stored, after the workers were forked: never beside a fork.
                # Not a daemon: a process that ends meanwhile waits for the index rather than lose it.
                self.thread = threading.Thread(target=self._run, name="workbench-index-build")
                store._indexer = self.thread
                self.thread.start()
            self.more.notify()

    def stored_all(self) -> None:
        """The caller has no more rows: those held are stored now, and the rest indexed."""
        self.save([], wait=True)
        with self.more:
            self.done = True
            self.more.notify()

    def later(self, write) -> bool:
        """Have the thread run `write(connection)` once the index is built; False when it runs
        no more (or never ran): the caller writes then, the index being built."""
        with self.more:
            if self.thread is None or self.ended:
                return False
            self.after.append(write)
            return True

    def _step(self) -> int:
        """Rows to wait for before indexing: a whole step, but within a step of the rows expected,
        whatever is stored (a few segments more, and none of a whole step left to index once the
        last rows are stored)."""
        return PENDING_STEP if self.stored + PENDING_STEP < self.expected else 1

    def _run(self) -> None:
        try:
            self._index()
        finally:
            with self.more:
                self.ended = True
                after, self.after = self.after, []
            for write in after:
                write(self.store._db)

    def _index(self) -> None:
        """Index the rows stored, a whole step (`PENDING_STEP`) at a time while more are coming:
        each step's transaction writes a segment of FTS5's at its end, and steps of the 2,000 rows
        stored at a time made fifty segments at 100,000 documents, merged again by FTS5 as they
        piled up (at sixteen); ten are written once, and a few more within a step of the end
        (`_step`)."""
        db = self.store._db
        try:
            while True:
                with self.more:
                    while self.waiting < self._step() and not self.done:
                        self.more.wait()
                    finished = self.done
                while True:
                    with self.lock:
                        indexed = _index_pending(db, PENDING_STEP)
                        # Fewer than a step: none left listed (whatever another process took).
                        self.waiting = self.waiting - indexed if indexed == PENDING_STEP else 0
                    if not indexed or not finished and self.waiting < self._step():
                        break
                if finished:
                    break
            with self.lock:
                db.execute("INSERT INTO fts (fts, rank) VALUES ('automerge', ?)", (FTS_AUTOMERGE,))
        except sqlite3.DatabaseError as error:  # the rows stay listed: the next open indexes them
            self.store._failed(error)


# -- full text: each common word's rows, kept for the index as it is ---------------------------------

FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"  # the full-text index's tokenizer, as `fts` is made
_STAMP = (
    "SELECT (SELECT value FROM info WHERE key = 'origin'), (SELECT block FROM fts_data WHERE id = 1),"
    " (SELECT block FROM fts_data WHERE id = 10)"
)
_WORD_LISTS = (
    "CREATE TABLE IF NOT EXISTS word_lists (token TEXT PRIMARY KEY, stamp BLOB, rowids BLOB, scores BLOB) WITHOUT ROWID"
)


def word_lists_recipe(weights: tuple[float, ...], least: int, common: int, most_rows: int) -> bytes:
    """What `keep_word_lists` keeps, as bytes: lists kept by other code (other weights, other
    words) hold for no index."""
    return f"word lists 3: {_weights(weights)}; {int(least)}; {int(common)}; {int(most_rows)}".encode()


def _stamp_of(row: tuple | None, recipe: bytes) -> bytes | None:
    if not row or not isinstance(row[0], str) or not all(isinstance(part, bytes) for part in row[1:]):
        return None
    digest = hashlib.sha256(recipe + b"\0" + row[0].encode())
    for part in row[1:]:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.digest()


FTS5_K1, FTS5_B = 1.2, 0.75  # the constants of FTS5's bm25() (`fts5_aux.c`)


def fts5_idf(rows: int, matching: int) -> float:
    """FTS5's idf of a phrase in `matching` of `rows` rows, by its steps: at most zero is 1e-6."""
    ratio = (rows - matching + 0.5) / (matching + 0.5)
    idf = math.log(ratio) if ratio > 0.0 else 0.0
    return idf if idf > 0.0 else 1e-6


def fts5_norm(size: int, average: float) -> float:
    """The part of FTS5's bm25() a row's size gives, by its steps: `k1 * (1 - b + b * D / avgdl)`;
    a row's score for one phrase is then `idf * ((f * (k1 + 1.0)) / (f + norm))`, f its weighted
    hits (`word_lists`), the same double operations in the same order as FTS5's C."""
    return FTS5_K1 * (1 - FTS5_B + FTS5_B * size / average)


def _solved(score: float, norm: float, most: float) -> float:
    """A row's weighted hits of a phrase from FTS5's score of it (`score = idf * f * (k1 + 1) /
    (f + norm)`, `most` = idf * (k1 + 1)), taken whole; NaN where it cannot be solved."""
    if not math.isfinite(norm) or not most > score > 0.0:
        return math.nan
    return float(round(score * norm / (most - score)))


def row_sizes(db: sqlite3.Connection, rowids: Iterable[int] | None = None) -> dict[int, int]:
    """{rowid: tokens in the row} as FTS5's bm25() reads them (`fts_docsize`), of every row or of `rowids`."""
    if rowids is None:
        found = db.execute("SELECT id, sz FROM fts_docsize ORDER BY id")
    else:
        found = db.execute(
            "SELECT id, sz FROM fts_docsize WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
            (json.dumps(list(rowids)),),
        )
    return {rowid: sum(_varints(size)) for rowid, size in found if isinstance(size, bytes)}


def type_rows(db: sqlite3.Connection, texts: dict[int, tuple[str, ...]]) -> None:
    """Tell a table of the connection's own (`temp`, never the file; the store's own connection
    is never given here) these rows' texts (`row_texts`), read by the index's tokenizer, for
    `typed_hits` to read each token's hits from; they stay until `forget_typed`. Tokenizing a
    long row is cheap beside summing every one of its tokens' hits, and a search asks for a few."""
    columns = ", ".join(FTS_COLUMNS)
    db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.rows_typed USING fts5({columns}, tokenize = '{FTS_TOKENIZE}')")
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.rows_read USING fts5vocab(temp, rows_typed, instance)")
    marks = ", ".join("?" * (len(FTS_COLUMNS) + 1))
    db.executemany(
        f"INSERT INTO temp.rows_typed (rowid, {columns}) VALUES ({marks})", [(r, *t) for r, t in texts.items()]
    )


def typed_hits(db: sqlite3.Connection, token: str, weights: tuple[float, ...]) -> dict[int, float]:
    """{rowid: the token's weighted hits in the row} of the rows told `type_rows` that hold it,
    each hit its column's weight (1.0 past the weights given), summed as FTS5's bm25() sums them
    (`_weighed`); fts5vocab finds the token's instances alone."""
    try:
        found = db.execute(f"SELECT doc, {_weighed(weights)} FROM temp.rows_read WHERE term = ? GROUP BY doc", (token,))
        return dict(found.fetchall())
    except sqlite3.OperationalError:  # no row told yet
        return {}


def forget_typed(db: sqlite3.Connection) -> None:
    """Drop the rows told `type_rows`."""
    try:
        db.execute("DELETE FROM temp.rows_typed")
    except sqlite3.OperationalError:  # none told yet
        pass


def _weighed(weights: tuple[float, ...]) -> str:
    """A row's weighted hits of a term, summed in SQL from fts5vocab's instances: each its
    column's weight, as FTS5's bm25() adds them (the same sum in any order where every weight is
    a whole number, as `keep_word_lists` requires of lists to be patched)."""
    cases = " ".join(f"WHEN '{c}' THEN {float(w)}" for c, w in zip(FTS_COLUMNS, weights, strict=False))
    return f"total(CASE col {cases} ELSE 1.0 END)"


def word_tokens(db: sqlite3.Connection, words: list[str]) -> dict[str, tuple[str, ...]]:
    """Each word's tokens, in its order, as the index's tokenizer makes them: the words are
    written to a table of the connection's own (`temp`, never the file) and read back. (A write,
    even there, counts in the connection's changes: the store's own is never given here.)"""
    db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.words_typed USING fts5(word, tokenize = '{FTS_TOKENIZE}')")
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.words_read USING fts5vocab(temp, words_typed, instance)")
    try:
        db.executemany("INSERT INTO temp.words_typed (rowid, word) VALUES (?, ?)", enumerate(words))
        found: dict[int, list[tuple[int, str]]] = {}
        for doc, offset, term in db.execute("SELECT doc, offset, term FROM temp.words_read"):
            found.setdefault(doc, []).append((offset, term))
    finally:
        db.execute("DELETE FROM temp.words_typed")
    return {word: tuple(term for _, term in sorted(found.get(at, []))) for at, word in enumerate(words)}


def keep_word_lists(
    path: Path,
    weights: tuple[float, ...],
    least: int,
    common: int,
    most_rows: int,
    expected: bytes | None = None,
) -> bool:
    """Keep in the store at `path`, for the index as it is, each token's rows in more than
    `least` of them (those in more than `common` all, or none when they hold more than
    `most_rows` between them; then the fewest first, `most_rows` in all) with FTS5's bm25() score of each, as
    `DerivedStore.postings` reads them: a search reads a common word's rows from here, two
    arrays, rather than have FTS5 score every row of it. Beside each score the row's weighted
    hits of the token (what bm25() sums from the columns' weights), and, on a row of its own
    (token ''), every row's size, so that a later process can score the rows of a later index
    itself (`word_lists.WordLists`); these are kept only where scoring the rows so gives FTS5's
    score, bit for bit, for every row kept (else the header holds no rows: the lists hold for this
    index alone). Read in one snapshot, on a connection of its own (a thread may run it beside
    searches), and written only if the index is still as it was read; nothing is read unless the
    index is still at the stamp `expected`, if given. False where nothing was kept (busy,
    unreadable, changed meanwhile)."""
    try:
        db = _connected(str(path))
    except sqlite3.Error:
        return False
    try:
        db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.words_held USING fts5vocab(main, fts, row)")
        score = f"-bm25(fts, {_weights(weights)})"
        recipe = word_lists_recipe(weights, least, common, most_rows)
        lists: list[tuple[str, bytes, bytes]] = []
        with db:
            db.execute("BEGIN")  # one snapshot: the stamp and the rows alike
            row = db.execute(_STAMP).fetchone()
            stamp = _stamp_of(row, recipe)
            if stamp is None or expected not in (None, stamp) or db.execute("SELECT 1 FROM pending LIMIT 1").fetchone():
                return False
            numbers = _varints(row[1])
            sizes = row_sizes(db)
            rows_total = numbers[0] if numbers else 0
            average = sum(numbers[1 : 1 + len(FTS_COLUMNS)]) / rows_total if rows_total > 0 else 0.0
            norms = {rowid: fts5_norm(size, average) for rowid, size in sizes.items()} if average > 0 else {}
            # Whether every row kept scores as FTS5 does, from its hits and size (the hits summed
            # exactly in any order: whole weights).
            exact = bool(norms) and len(weights) >= len(FTS_COLUMNS) and all(float(w).is_integer() for w in weights)
            held = db.execute("SELECT term, doc FROM temp.words_held WHERE doc > ? ORDER BY doc, term", (least,))
            counted = held.fetchall()
            # The commonest (what a search's bound reads) all, or none: a list of some of them
            # leaves the p95 where it was and costs the lists' keeping at every write.
            chosen: list[str] = []
            total = sum(rows for _, rows in counted if rows > common)
            if total <= most_rows:
                chosen = [term for term, rows in counted if rows > common]
                for term, rows in counted:  # then the others, the fewest-rowed first
                    if rows > common or total + rows > most_rows:
                        break
                    chosen.append(term)
                    total += rows
            typed = word_tokens(db, chosen)  # a token typed as a word is read as itself (else left out)
            for term in chosen:
                if typed.get(term) != (term,):
                    continue
                found = db.execute(f"SELECT rowid, {score} FROM fts WHERE fts MATCH ?", ('"' + term + '"',)).fetchall()
                rowids = array("q", [rowid for rowid, _ in found])
                scores = array("d", [value for _, value in found])
                freqs = array("d")
                if exact:
                    # Each row's hits from its score, solved for f and taken whole (whole weights),
                    # then checked: the score computed from them must be FTS5's, bit for bit.
                    idf = fts5_idf(rows_total, len(found))
                    k = FTS5_K1 + 1.0
                    freqs = array("d", [_solved(value, norms.get(rowid, math.nan), idf * k) for rowid, value in found])
                    exact = all(
                        idf * ((f * k) / (f + norms.get(rowid, math.nan))) == value
                        for (rowid, value), f in zip(found, freqs, strict=True)
                    )
                if sys.byteorder != "little":  # the file may be read on another machine
                    rowids.byteswap()
                    scores.byteswap()
                    freqs.byteswap()
                lists.append((term, rowids.tobytes(), scores.tobytes() + freqs.tobytes()))
        header = (b"", b"")
        if exact:
            kept_rows, kept_sizes = array("q", sizes.keys()), array("q", sizes.values())
            if sys.byteorder != "little":
                kept_rows.byteswap()
                kept_sizes.byteswap()
            header = (kept_rows.tobytes(), kept_sizes.tobytes())
        else:  # the lists hold for this index alone: no rows' hits kept beside the scores
            lists = [(term, rowids, scores[: len(rowids)]) for term, rowids, scores in lists]
        with db:
            db.execute("BEGIN IMMEDIATE")
            if _stamp_of(db.execute(_STAMP).fetchone(), recipe) != stamp:
                return False  # written meanwhile: these rows are not the index's now
            db.execute(_WORD_LISTS)  # a store opened by code that made none
            db.execute("DELETE FROM word_lists")
            db.executemany("INSERT INTO word_lists VALUES (?, ?, ?, ?)", [(t, stamp, r, s) for t, r, s in lists])
            db.execute("INSERT INTO word_lists VALUES ('', ?, ?, ?)", (stamp, *header))
            db.execute("INSERT INTO word_lists VALUES (' ', ?, ?, x'')", (stamp, recipe))  # how they were kept
            if header[0]:  # every later row past the lists' last, whoever of this code writes it (`_next_rowid`)
                db.execute("INSERT OR REPLACE INTO info VALUES ('rowids_to', ?)", (str(_next_rowid(db) - 1),))
        return True
    except sqlite3.DatabaseError:
        return False  # only a cache: searches read FTS5 as before
    finally:
        db.close()
