"""Reading many files at once: on a cold open, parsing and checking run in worker processes.

Parsing YAML and checking the rules is pure CPU, and a vault of thousands of files is opened
cold whenever `.workbench/` is new or deleted. Worker processes (started by a fork server, so a
threaded TUI is never forked) parse chunks of files and hand back the rows for the derived store;
the parent makes each record from its row, as a warm open does, and stores the rows while the
workers parse on. Small batches, one-core machines and any trouble with the pool fall back to
parsing in this process. `bring_in_line` is what an open or a walk does with them: the records
kept as they were, parsed, or forgotten.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import os
import sys
import threading
import types
from collections import deque
from collections.abc import Iterator
from typing import cast
from pathlib import Path

from .. import flavours
from ..vocabulary.collector import collector_paused
from ..vocabulary.model import ConflictError, Document
from .derived_store import DerivedStore, record_from_row, row_for
from .record import Record, read_record, still_clean, today, unchanged
from .store_rows import keep_stored
from .walk import Walk

__all__ = [
    "Bodies",
    "Item",
    "PARALLEL_MIN",
    "STORE_BATCH_MIN",
    "bring_in_line",
    "collector_paused",
    "parse_files",
    "settle_collector",
]

PARALLEL_MIN = 2500  # with a fork server: below this, starting workers costs more than it saves on two cores
FORK_MIN = 300  # with fork
CHUNK = 250
# Chunks handed to the workers and not yet taken back. The workers parse faster than the parent
# stores, so chunks handed over all at once waited parsed, every body of a large vault among them
# (100,000 documents: 700 MB); this many keeps the workers busy while the parent stores a batch.
IN_FLIGHT = 16
Item = tuple[str, int, int, int, int]  # path, size, mtime_ns, inode, ctime_ns


# From this many records an open ends by freezing what it made (`gc.freeze`): below, the
# collector's three passes over them cost little.
FREEZE_FROM = 20_000


def settle_collector(records: int) -> None:
    """After an open made `records` records with the collector paused: every object made then is in
    the youngest generation, so the next three collections would each walk all of them, holding the
    interpreter (0.3 s, 0.2 s and 0.2 s at 100,000 documents, which a TUI shows as a frozen screen
    while a thread opens the vault). A large open freezes them instead: they stay alive and are
    freed by their counts as ever, and only the collector no longer walks them. The records hold
    no reference cycles, so freezing leaves no garbage behind; what else was alive then (the
    app's own objects) is rarely freed."""
    if records >= FREEZE_FROM:
        gc.freeze()


# Metas a vault reads one query each before it reads every one it has not yet in one query: a
# search's hits and a screen of titles ask a few, a filter or a whole-vault view asks every one.
METAS_ONE_BY_ONE = 200


class Bodies:
    """Where the documents of a vault's records read their bodies and metas when first asked for:
    the derived store's row for the file as it was read, or, when the store no longer has it
    (closed, built again, damaged), the file itself if it still holds the same bytes. `store`
    follows the vault's store when that is built again."""

    def __init__(self, root: Path, flavour: flavours.Flavour, store: DerivedStore | None = None):
        self.root = root
        self.flavour = flavour
        self.store = store
        self._asked: dict[str, int] = {}  # the texts of each column (meta, view) read one by one
        self._every: dict[str, dict[str, tuple[str, str]]] = {}  # {column: {path: (digest, text)}}

    def body(self, path: str, digest: str) -> str:
        found = self.store.body(path, digest) if self.store is not None else None
        if found is not None:
            return found
        return self._as_read(path, digest).body

    def meta(self, path: str, digest: str) -> str | dict:
        """The meta of the file at `path` as read with `digest`: JSON text from the store, or the
        dict of the file read again where the store no longer has it."""
        found = self._text("meta", path, digest)
        return found if found is not None else self._as_read(path, digest).meta

    def view(self, path: str, digest: str) -> str | flavours.View | None:
        """The view of the file at `path` as read with `digest`, as `meta` gives the meta: an open
        for the conflicts queue leaves the views in the store, where the queue's fields say all
        it asks of them."""
        found = self._text("view", path, digest)
        return found if found is not None else self._as_read(path, digest).view

    def _text(self, column: str, path: str, digest: str) -> str | None:
        """The store's text of `column` for the reading (path, digest): one query each, until
        more than METAS_ONE_BY_ONE were asked, then every row's in one query, each taken out when
        its document reads it (a reading's texts never change, only its row can go)."""
        if self.store is None:
            return None
        every = self._every.get(column)
        if every is None:
            asked = self._asked[column] = self._asked.get(column, 0) + 1
            if asked > METAS_ONE_BY_ONE:
                every = self._every[column] = self.store.metas() if column == "meta" else self.store.views()
        if every:
            kept = every.pop(path, None)
            if kept is not None and kept[0] == digest:
                return kept[1]
        return self.store.meta(path, digest) if column == "meta" else self.store.view(path, digest)

    def _as_read(self, path: str, digest: str) -> Document:
        """The document in the file at `path`, refused unless it still holds the reading `digest`."""
        record = read_record(str(self.root), path, 0, 0, today(), self.flavour)
        if record is None or record.document.digest != digest:
            raise ConflictError(
                path, f"{path} changed on disk since it was read, and its text as read then is gone: read it again"
            )
        return record.document

    def bodies(self, wanted: list[tuple[str, str]]) -> dict[str, str]:
        """{path: body} of the (path, digest) readings the store still holds."""
        return self.store.bodies(wanted) if self.store is not None else {}


def _parse_chunk(
    root: str, items: list[Item], on: dt.date, with_rows: bool, flavour: str | flavours.Flavour, rows_only: bool = False
) -> list[tuple[Record | None, tuple | None]]:
    """(record, store row) for each file still there. `rows_only` (in a worker) leaves out each
    record its row keeps: the parent makes it from the row, as a warm open does, which halves what
    crosses between the processes and leaves the meta encoded until it is asked for."""
    out: list[tuple[Record | None, tuple | None]] = []
    reader = flavours.get(flavour) if isinstance(flavour, str) else flavour  # a vault's own, with its status words
    with collector_paused():
        for path, size, mtime_ns, ino, ctime_ns in items:
            record = read_record(root, path, size, mtime_ns, on, reader, ino, ctime_ns)
            if record is None:
                continue
            row = row_for(record, on) if with_rows else None
            out.append((None if rows_only and row is not None else record, row))
    return out


def _records_of(
    chunk: list[tuple[Record | None, tuple | None]], bodies: Bodies | None = None
) -> list[tuple[Record, tuple | None]]:
    """A worker's chunk with every record in place, made from its row where it was left out (its
    body then read from `bodies` when first asked for: the row is stored before anyone can)."""
    return [
        (record if record is not None else record_from_row(cast(tuple, row)[0], bodies), row) for record, row in chunk
    ]


def _start_worker() -> None:
    """A worker inherits its parent's objects; the collector need never walk them (nor copy the
    pages they are on by touching them)."""
    gc.freeze()


def _workers() -> int:
    try:
        return min(len(os.sched_getaffinity(0)), 4)
    except AttributeError:  # pragma: no cover - not Linux
        return min(os.cpu_count() or 1, 4)


@contextlib.contextmanager
def _without_main():
    """Hide the caller's `__main__` while the workers start. A started process imports the main
    module of its parent again, so a user's script without an `if __name__ == "__main__"` guard
    would run once more in each worker; the workers need nothing from it."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main
        else:
            del sys.modules["__main__"]


@contextlib.contextmanager
def _stderr_with_a_descriptor():
    """Starting worker processes hands them the descriptor of `sys.stderr`; a TUI replaces it with a
    stand-in that has none (Textual captures prints: `fileno()` is -1), and the start then fails
    with "bad value(s) in fds_to_keep". The process's own stderr is put back while they start."""
    current = sys.stderr
    try:
        usable = current is not None and current.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        usable = False
    if not usable and sys.__stderr__ is not None:
        sys.stderr = sys.__stderr__
    try:
        yield
    finally:
        sys.stderr = current


def _context(count: int):
    """How to start workers for `count` files, or None to parse here. A process with one thread
    (the CLI, a script) forks: nearly free, so it pays from a few hundred files. A threaded one
    (the TUI) must not fork, and a fork server's start is worth it only for thousands."""
    if count < min(FORK_MIN, PARALLEL_MIN):  # a few changed files: not worth importing multiprocessing
        return None
    import multiprocessing  # only a cold open of many files needs worker processes

    if _workers() < 2 or os.environ.get("WORKBENCH_SERIAL") or "fork" not in multiprocessing.get_all_start_methods():
        return None
    if threading.active_count() == 1 and count >= FORK_MIN:
        return multiprocessing.get_context("fork")
    if count >= PARALLEL_MIN and "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["workbench.core.records.loading"])
        return context
    return None


def parse_files(
    root: Path,
    items: list[Item],
    on: dt.date,
    with_rows: bool,
    flavour: str | flavours.Flavour = "memory-core",
    bodies: Bodies | None = None,
) -> Iterator[list[tuple[Record, tuple | None]]]:
    """Chunks of (record, store row) for the files in `items`, as they are ready; with `bodies`,
    the records that workers parsed read their bodies from there (the caller stores the rows)."""
    context = _context(len(items))
    if context is None:
        yield _records_of(_parse_chunk(str(root), items, on, with_rows, flavour))
        return
    from concurrent.futures import ProcessPoolExecutor

    size = max(50, min(CHUNK, len(items) // (_workers() * 4) + 1))  # several chunks a worker: none left idle at the end
    chunks = [items[i : i + size] for i in range(0, len(items), size)]
    done = 0
    try:
        with _stderr_with_a_descriptor():
            pool = ProcessPoolExecutor(_workers(), mp_context=context, initializer=_start_worker)
        with pool:
            pending: deque = deque()

            def submit(chunk: list[Item]) -> None:
                pending.append(pool.submit(_parse_chunk, str(root), chunk, on, with_rows, flavour, True))

            with _without_main(), _stderr_with_a_descriptor():  # the workers start here
                for chunk in chunks[:IN_FLIGHT]:
                    submit(chunk)
            for chunk in chunks[IN_FLIGHT:]:
                yield _records_of(pending.popleft().result(), bodies)
                done += 1
                submit(chunk)
            while pending:
                yield _records_of(pending.popleft().result(), bodies)
                done += 1
    except (OSError, RuntimeError, ImportError, EOFError) as exc:  # no process pool here: do it ourselves
        if isinstance(exc, GeneratorExit):
            raise
        for chunk in chunks[done:]:
            yield _records_of(_parse_chunk(str(root), chunk, on, with_rows, flavour))


# Rows stored per transaction on a cold open, as the workers' chunks come in. FTS5 flushes what it
# gathered at each commit, and fewer, larger flushes cost less: 2,000 rows a transaction stored
# 10,000 documents' full text in about two thirds of the time 500 took. The last batch is what is
# still stored after the last file is parsed: 2,000 rows take under 0.1 s.
STORE_BATCH_MIN = 2000


def bring_in_line(
    records: dict[str, Record],
    walk: Walk,
    cached: dict[str, Record],
    store: DerivedStore | None,
    root: Path,
    flavour: flavours.Flavour,
    bodies: Bodies | None = None,
    on: dt.date | None = None,
) -> bool:
    """Bring `records` (path -> record) in line with the walk: keep what is unchanged (in memory or
    in the derived store, `cached`), parse what changed (storing its rows), forget what is gone.
    Whether any record came, went or changed: if none did, nothing derived is stale. With
    `bodies`, records parsed in worker processes leave their bodies in the store. `on`: the day
    `cached` was read for, which the files parsed are checked on too (today by default)."""
    on = on or today()
    to_parse: list[Item] = []
    recheck: list[Record] = []  # kept after a look at their bytes: stored again with that look's time
    moved = False  # whether any record came, went or changed: if none did, nothing derived is stale
    first = not records  # an open: every record kept comes from the store, none is dropped
    in_memory, in_store = records.get, cached.get
    any_time = not flavour.reads_file_time  # a copied row holds for the same bytes, whatever their time
    taken = 0  # walked files `cached` holds a record of
    for path, stat in walk.files:
        current = None if first else in_memory(path)
        known = current or in_store(path)
        if known is not None:
            taken += known is not current
            if unchanged(known, stat):
                if known is not current:
                    records[path] = known
                    moved = True
                continue
        clean = still_clean(root, known, stat, any_time) if known else None
        if clean is not None:  # read in the tick it last changed, and its bytes are the same
            records[path] = clean
            moved = moved or known is not current
            recheck.append(clean)
            continue
        keep_stored(current)  # its row is about to be replaced: whoever holds it can still read it
        to_parse.append((path, stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns))
    if to_parse:
        with_rows = store is not None
        rows: list = []
        # Thousands of files: their rows are stored as they come, and the full-text index is
        # built behind them (`DerivedStore.building`), so that the records are ready before it.
        building = store.building(len(to_parse)) if store is not None and len(to_parse) >= STORE_BATCH_MIN else None
        with collector_paused(), building or contextlib.nullcontext() as save:
            save = save or (store.save_rows if store is not None else None)
            for chunk in parse_files(root, to_parse, on, with_rows, flavour, bodies if with_rows else None):
                for record, row in chunk:
                    records[record.path] = record
                    rows.append(row)
                if save is not None and len(rows) >= STORE_BATCH_MIN:
                    save(rows)  # while the workers parse on
                    rows = []
            if save is not None and rows:
                save(rows)
    if store is not None and recheck:
        store.reseen((r.path, r.seen_ns, r.ino, r.ctime_ns, r.mtime_ns) for r in recheck)
    # What was known and was not walked: at an open that every cached record was walked to (the
    # walk lists each path once), none; building the sets of 100,000 paths to say so took 0.03 s.
    if first and taken == len(cached):
        gone: set[str] = set()
    else:
        seen = {path for path, _ in walk.files}
        gone = (records.keys() - seen) | (cached.keys() - seen)
    for path in gone:
        dropped = records.pop(path, None)
        keep_stored(dropped)
        moved = dropped is not None or moved
    if store is not None and gone:
        store.save([], gone, on)
    return moved or bool(to_parse)
