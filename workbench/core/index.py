"""The index of a vault's records: what every view and service of the vault stands on.

Files are the truth. The index keeps what it parsed of each file (a `Record`), keyed by its size
and modification time, and re-reads a file whenever those move, so a long-lived index sees what
agents write beside it. It owns: opening a vault (finishing a change a crash interrupted, reading
the files: `loading.py`), which file owns which id (`ownership.py`), reading (`get`, `documents`,
`problems`), planning the bytes of an edit (`edit_change`, in `rewrite.py`), and applying a `Plan`
all-or-nothing through the `ChangeWriter`, under the vault's lock and its own mutex. Services ask
it, never its writer, for the history, the redo stack and the few state files they curate. It
knows nothing of search, the graph or curation: those take the index.

Reading is not writing. The derived state (the store, the lock, the journal and history of
changes) lives in `.workbench/` inside a vault of the workbench's own formats (Memory Core, OKF);
a vault of any other format (Dendron, Obsidian, ADRs) is someone else's folder, so its state lives
in the user's cache folder instead (`state_dir_for`), and opening, searching, checking or
migrating it writes nothing there. Only a change a person makes writes into it.

Derived views keep what they computed between calls themselves, keyed by the index and dropped
with it (search's lookups and kept per-word results, the meaning index); each checks `generation`,
which moves whenever the records change. A view may register in `after_change` what it makes
ready as each batch ends (search does, once it has searched); the index imports none of them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
import operator
import os
import stat as stat_mode
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import flavours
from .records import rewrite
from .records.derived_store import DerivedStore, folder_identity
from .records.store_rows import keep_stored, read_fields, read_relations
from .storage.changes import Plan
from .flavours import Flavour
from .records.loading import Bodies, bring_in_line, collector_paused, settle_collector
from .vocabulary.model import ConflictError, Document, Problem, Problems, RefusedError, Severity
from .records.ownership import IdOwnership
from .vocabulary.parse import ParsedFile, digest_of
from .vocabulary.sorting import sorted_in_pieces
from .records.record import (
    IdLog,
    Record,
    build_record,
    invalidating,
    read_record,
    still_clean,
    today,
    unchanged,
)
from .storage.writer import ChangeWriter, FileChange, VaultLock, read_bytes
from .records.validate import check_relations, relations_at
from .records.vaultconfig import CONFIG_FILE, VaultConfig, read_config
from .storage.vaultfs import first_link
from .records.walk import (
    RECOVERY_DIR,
    STATE_DIR,
    Walk,
    find_root,
    is_document_path,
    require_folder,
    state_dir_for,
    walk_vault,
)

if TYPE_CHECKING:
    from .records.live import VaultWatcher

__all__ = ["VaultIndex", "require_folder", "serialized", "state_dir_for"]


def serialized(method: Callable) -> Callable:
    """Run an index method under the index's own reentrant mutex: the TUI's workers and the file
    watcher call one vault from several threads, and its records must change one call at a time.
    (The facade has its own, `vault.serialized`, taking the same mutex.)"""

    @functools.wraps(method)
    def run(self: VaultIndex, *args, **kwargs):
        with self.mutex:
            return method(self, *args, **kwargs)

    return run


_BY_ID = operator.attrgetter("id")  # a document's id, read without a Python call for each


def _reading(given: Path, flavour: str | None) -> tuple[Path, Flavour, VaultConfig]:
    """The folder an open of `given` reads, its flavour (named, or detected from the files) with
    the status words its settings and its index give, and its settings."""
    root, chosen = flavours.choose(given.resolve(), find_root(given.resolve()), flavour)
    config = read_config(root)
    if config.statuses:
        chosen = dataclasses.replace(chosen, statuses=config.statuses)
    return root, chosen.prepared(root), config


class VaultIndex:
    """The records of a vault on disk. Open it with `VaultIndex.open(path)` (or `Vault.open`).

    One index may be shared between threads: every public method runs under its mutex. Between
    processes, the vault lock and the check that a file is unchanged since it was read keep writes
    safe.
    """

    def __init__(self, root: Path, flavour: Flavour = flavours.MEMORY_CORE):
        self.root = root
        self.flavour = flavour
        self.state_dir = state_dir_for(root, flavour)
        self.recovery_dir = root / RECOVERY_DIR
        # The change log is a vault file where the format reserves one (Memory Core, OKF); in
        # anyone else's vault a new `log.md` would be a new note, so it stays with our state.
        self.log_path = (
            root / "log.md" if flavour.native or flavour.is_reserved("log.md") else self.state_dir / "log.md"
        )
        self.lock = VaultLock(self.state_dir)
        self.recovery_notes: list[str] = []
        self.writer = ChangeWriter(root, self.state_dir, self.lock, self.log_path, self.recovery_notes)
        self._records: dict[str, Record] = {}
        # The first day any record in memory was read on: a store built again from them keeps their
        # rows for that day, not today (a file's reading may follow the day: tiers by age).
        self._read_since: dt.date | None = None
        self._ownership = IdOwnership(flavour)  # which file owns which id
        self._relation_problems: list[Problem] | None = None
        self._symlinks: list[str] = []
        self._not_pages: list[tuple[str, str]] = []
        self._specials: list[str] = []
        self._unreadable: list[tuple[str, str]] = []  # folders (and files) the walk could not look into
        self.config = VaultConfig()  # what the vault's `.workbench.yaml` says, and what is wrong with it
        self.settings_file = CONFIG_FILE  # watched beside the documents (`live.py`)
        self.store: DerivedStore | None = None
        self.bodies = Bodies(root, flavour)  # where stored documents read their bodies when first asked
        self.mutex = threading.RLock()
        self.generation = 0  # moves whenever the records change, so derived views know to rebuild
        self.id_log = IdLog()  # which ids each generation touched, so the graph need not scan them all
        self._documents: tuple[int, list[Document]] = (-1, [])  # `documents` as sorted for a generation
        self._paths: tuple[int, list[str]] = (-1, [])  # the records' paths as sorted for a generation
        # The paths of the records whose document is invalid, followed through the watcher's batches
        # (`_index_paths`); None until asked after an open or a walk (`any_invalid`).
        self._invalid: set[str] | None = None
        # What the derived views make ready after a watcher's batch, in the writing thread (search's
        # kept lists patched, its lookups followed): the first search after a write then costs
        # what the others do, and the write a millisecond more.
        self.after_change: list[Callable[[VaultIndex], None]] = []

    # -- opening and reading ----------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        flavour: str | None = None,
        listed: dict[str, list[os.DirEntry]] | None = None,
        queue_fields: bool = False,
    ) -> VaultIndex:
        """Open the vault at `path` (or its `memory/` child), finishing any change a crash interrupted.

        The flavour (Memory Core, Dendron, ADRs...) is detected unless named. `listed`: the folders
        as a walk of this process listed them moments before (`walk_vault`), not listed again.
        `queue_fields`: the open is for the conflicts queue or the review list, which ask every
        document's type, status and relations: the store's rows are read with them."""
        given = require_folder(path)
        root, chosen, config = _reading(given, flavour)
        vault = cls(root, chosen)
        vault.config = config
        vault.store = DerivedStore(vault.store_path(), chosen.reading, folder_identity(vault.root))
        vault.bodies.store = vault.store
        with collector_paused():
            # The store's rows, then the walk, one after the other: read in a thread beside the
            # walk, each waited on the other for the interpreter at every row and every stat (the
            # two took 2.1 s at 100,000 documents, against 1.2 s in turn).
            on = today()  # one day for the whole open: the rows kept and the files parsed agree
            cached = vault.store.load(on, vault.bodies, chosen.reads_the_day, queue_fields)
            walk = walk_vault(vault.root, chosen, listed)
            if vault.writer.needs_recovery(walk.temporaries):
                vault.recovery_notes.extend(vault.writer.recover(walk.temporaries))
                walk = walk_vault(vault.root, chosen)
            vault._load(walk, cached, on)
            settle_collector(len(vault._records))
        return vault

    def reading_moved(self, given: str | os.PathLike[str], flavour: str | None = None) -> bool:
        """Whether an open of `given` now (the flavour named `flavour`, or detected) would read it
        otherwise than this vault does: another root or flavour, other status words (the settings'
        or an ADR index's). A process that holds the vault for long (a follower) opens it again then."""
        root, chosen, _ = _reading(require_folder(given), flavour)
        return root != self.root or chosen != self.flavour

    @serialized
    def _load(self, walk: Walk, cached: dict[str, Record] | None = None, on: dt.date | None = None) -> None:
        """Bring the records in line with the walk (`loading.bring_in_line`), then the ids; `on`:
        the day `cached` was read for."""
        day = on or today()
        self._read_since = day if self._read_since is None else min(self._read_since, day)
        moved = bring_in_line(self._records, walk, cached or {}, self.store, self.root, self.flavour, self.bodies, day)
        seen = (walk.symlinks, walk.not_pages, walk.specials, walk.unreadable)
        moved = moved or seen != (self._symlinks, self._not_pages, self._specials, self._unreadable)
        self._symlinks, self._not_pages, self._specials, self._unreadable = seen
        if moved or self.generation == 0:
            self.reindex()
        self.mend_store()

    @serialized
    def reindex(self) -> None:
        """Map ids to files (`ownership.py`) looking at every record: for an open or a walk (a batch
        of files goes through `_index_paths`)."""
        self.generation += 1
        self._paths = (self.generation, self._ownership.settle_all(self._records))
        self.id_log.restart(self.generation)
        self._invalid = None
        self._relation_problems = None
        self._keep_resolutions()

    @serialized
    def _index_paths(self, before: dict[str, str | None]) -> None:
        """`reindex` for a few changed files (the watcher's batches), with the same result; `before`
        maps each to the id it claimed (None for a new file)."""
        self.generation += 1
        touched = self._ownership.settle_paths(self._records, before)
        self.id_log.add(self.generation, touched)
        self._follow_invalid(before, touched)
        self._relation_problems = None
        self._keep_resolutions()
        for ready in self.after_change:
            ready(self)

    def _follow_invalid(self, paths: Iterable[str], ids: set[str]) -> None:
        """Bring the invalid records' paths in line after a batch: a document's validity moves only
        with its own file, or with the claims on the ids the batch touched (a duplicate's owner gone,
        a second file claiming an id), so those files alone are looked at."""
        invalid = self._invalid
        if invalid is None:
            return
        looked = set(paths)
        by_id, shared = self._ownership.by_id, self._ownership.shared
        for doc_id in ids:
            looked.update(shared.get(doc_id, ()))
            owner = by_id.get(doc_id)
            if owner is not None:
                looked.add(owner)
        for path in looked:
            record = self._records.get(path)
            if record is None or record.document.valid is True:
                invalid.discard(path)
            else:
                invalid.add(path)

    def _keep_resolutions(self) -> None:
        """Have the derived store keep the links resolved just now, so that the next open of the
        same files and ids takes them as they are (`ownership`)."""
        resolved = self._ownership.take_resolved()
        if resolved and self.store is not None:
            self.store.keep_resolutions(resolved)

    @serialized
    def refresh(self, listed: dict[str, list[os.DirEntry]] | None = None) -> None:
        """Re-read whatever changed on disk since the last look (cheap: a walk and a stat per file).
        `listed`: the folders as a walk of this process listed them moments before, as `open` takes them."""
        self._load(walk_vault(self.root, self.flavour, listed))

    @serialized
    def refresh_paths(self, paths: list[str]) -> None:
        """Re-read just these files (the watcher's batches): the rest of the vault is not touched,
        and the derived store takes the whole batch in one commit."""
        batch: tuple[list[Record], list[str]] = ([], [])
        before = {
            path: self._ownership.claim(record) for path in paths if (record := self._records.get(path)) is not None
        }
        changed: list[str] = []
        on = today()  # the day the batch is read on, and its rows are kept for
        try:
            for path in paths:
                if self.refresh_path(path, reindex=False, batch=batch, on=on) is not False:
                    changed.append(path)
        finally:  # a file that fails to read leaves those before it re-read: they are indexed all the same
            if self.store is not None and (batch[0] or batch[1]):
                self.store.save(batch[0], batch[1], on)
                self.mend_store()
            if changed:
                self._index_paths({path: before.get(path) for path in changed})

    @serialized
    def watch(self, on_change=None) -> VaultWatcher:
        """Start a watcher that keeps this vault in line with the disk; stop it when done."""
        from .records.live import VaultWatcher  # watchfiles: only a long-lived vault follows the disk

        return VaultWatcher(self, on_change).start()

    @serialized
    def refresh_path(
        self,
        path: str,
        reindex: bool = True,
        batch: tuple[list[Record], list[str]] | None = None,
        on: dt.date | None = None,
    ) -> Record | None | bool:
        """Bring one file's record in line with the disk; False when nothing changed. With a
        `batch`, the store's rows are collected there instead of written one commit at a time.
        `on`: the day the file is read on (today), the day its row is kept for."""
        on = on or today()
        full = self.root / path
        try:
            stat = full.stat(follow_symlinks=False) if is_document_path(self.root, self.flavour, path) else None
        except (FileNotFoundError, NotADirectoryError):
            stat = None
        except OSError:  # a folder on the way that cannot be searched: the next walk names it
            stat = None
        if stat is not None and stat_mode.S_ISDIR(stat.st_mode):
            stat = None  # a folder named like a document is walked into, never read
        if stat is None:
            if path not in self._records:
                return False
            gone = self._records.pop(path)
            keep_stored(gone)  # its row is dropped: whoever holds its document can still read it
            if batch is not None:
                batch[1].append(path)
            elif self.store is not None:
                self.store.save([], [path], on)
            if reindex:
                self._index_paths({path: self._ownership.claim(gone)})
            return None
        known = self._records.get(path)
        if known and unchanged(known, stat):
            return known if reindex else False
        record = read_record(
            self.root, path, stat.st_size, stat.st_mtime_ns, on, self.flavour, stat.st_ino, stat.st_ctime_ns
        )
        if record is None:
            return None
        keep_stored(known)  # its row is replaced: whoever holds its document can still read it
        self._records[path] = record
        if batch is not None:
            batch[0].append(record)
        elif self.store is not None:
            self.store.save([record], [], on)
        if reindex:
            self._index_paths({path: self._ownership.claim(known) if known else None})
        return self._records[path]

    @property
    @serialized
    def records(self) -> list[Record]:
        """Every record, in path order: the order sorted once for a generation (the paths change
        only with the generation), the records as they are now."""
        generation, paths = self._paths
        if generation != self.generation or len(paths) != len(self._records):
            paths = sorted_in_pieces(self._records)
            self._paths = (self.generation, paths)
        return [self._records[p] for p in paths]

    @property
    @serialized
    def documents(self) -> list[Document]:
        """Every valid document, ordered by id: a copy of the list sorted once for this generation
        (sorting 10,000 ids again was a fifth of a review page's time in a long-lived server)."""
        if self._documents[0] != self.generation:
            docs = [r.document for r in self._records.values() if r.document.valid]
            self._documents = (self.generation, sorted_in_pieces(docs, key=_BY_ID))  # 100,000 of them
        return list(self._documents[1])

    def iter_records(self) -> Iterable[Record]:
        """Every record, unsorted and uncopied, for a caller holding the mutex that looks at each
        once (the live graph's scan: sorting 50,000 ids for nothing is what `records` costs)."""
        return self._records.values()

    @serialized
    def any_invalid(self) -> bool:
        """Whether any record's document is invalid: a search asks before it looks for invalid
        documents among its matches, and most vaults have none. Every record is looked at once
        after an open or a walk; after a watcher's batch, only the files it may have changed
        (`_follow_invalid`: a look at all 10,000 took 1.2-1.4 ms of the first search after each write)."""
        if self._invalid is None:
            self._invalid = {path for path, record in self._records.items() if record.document.valid is not True}
        return bool(self._invalid)

    @serialized
    def current_at(self, path: str) -> Document | None:
        """The document at `path` as last read, read now if it was not known yet; None if none is there."""
        if path not in self._records:
            self.refresh_path(path)
        record = self._records.get(path)
        return record.document if record is not None else None

    @serialized
    def owners(self) -> dict[str, str]:
        """{id: the file that owns it}: the first in path order of the files that claim it."""
        return dict(self._ownership.by_id)

    def owner_document(self, doc_id: str) -> Document | None:
        """What was last read from the file that owns `doc_id`, without looking at the disk."""
        path = self._ownership.by_id.get(doc_id)
        return self._records[path].document if path is not None else None

    @serialized
    def paths_of(self, doc_id: str) -> list[str]:
        """Every file that claims `doc_id`, in path order: its owner first, then any duplicates."""
        shared = self._ownership.shared.get(doc_id)
        if shared:
            return sorted(shared)
        owner = self._ownership.by_id.get(doc_id)
        return [owner] if owner is not None else []

    @serialized
    def ids(self) -> list[str]:
        return sorted(self._ownership.by_id)

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._ownership.by_id

    def __repr__(self) -> str:
        return f"VaultIndex({str(self.root)!r}, {len(self)} files)"

    @serialized
    def get(self, doc_id: str) -> Document:
        """The document as it is on disk now; RefusedError if no file has that id.

        A file the index knows is looked at, not read: its stat unchanged keeps its record (`_current`).
        Only a file that changed is read again, and then, as when the watcher sees it, the ids it
        claims are settled again; an id that moved to another file takes a walk."""
        path = self._ownership.by_id.get(doc_id)
        record = self._current(path) if path else None
        if record is None or record.document.id != doc_id:
            self.refresh()
            path = self._ownership.by_id.get(doc_id)
            record = self._records.get(path) if path else None
        if record is None:
            raise RefusedError(f"no document has the id {doc_id!r}")
        return record.document

    def _current(self, path: str) -> Record | None:
        """The record of the known file at `path` as the disk has it now: kept while its stat is
        unchanged, or, where the stat cannot tell (a change in the same tick of the file clock as the
        read), while its bytes are the ones read (`still_clean`); read again otherwise, as a change
        seen (`refresh_path`). Called holding the mutex."""
        known = self._records.get(path)
        if known is not None:
            try:
                stat = os.stat(self.root / path, follow_symlinks=False)
            except OSError:
                stat = None
            if stat is not None:
                if unchanged(known, stat):
                    return known
                clean = still_clean(self.root, known, stat)
                if clean is not None:  # the same bytes: only the moment of this look is new
                    known.seen_ns = clean.seen_ns
                    return known
        found = self.refresh_path(path)
        return found if isinstance(found, Record) else None

    def document_at(self, path: str) -> Document | None:
        """What was last read from `path` (relative to the root), without looking at the disk."""
        record = self._records.get(path)
        return record.document if record is not None else None

    @serialized
    def source(self, doc_id: str) -> bytes:
        """The document's file as it is on disk now, byte for byte (and its record refreshed)."""
        doc = self.get(doc_id)
        raw = read_bytes(self.root / doc.path)
        if raw is None or digest_of(raw) != doc.digest:
            doc = self.get(doc_id)
            raw = read_bytes(self.root / doc.path) or b""
        return raw

    @serialized
    def problems_at(self, path: str) -> list[Problem]:
        """The problems of the file at `path` on its own; none for a path that is not a document's."""
        record = self._records.get(path)
        return list(record.problems) if record is not None else []

    @serialized
    def record(self, doc_id: str) -> Record:
        self.get(doc_id)
        return self._records[self._ownership.by_id[doc_id]]

    @property
    def problems(self) -> Problems:
        """Every problem in the vault: per file, across files, and symlinks that were skipped."""
        relations = self._relations()
        with self.mutex:
            found = [p for r in self._records.values() for p in r.problems] + relations
            found += [Problem(s, Severity.WARNING, "symlink-ignored", self._why_ignored(s)) for s in self._symlinks]
            found += [Problem(path, Severity.WARNING, "not-a-page", why) for path, why in self._not_pages]
            found += [
                Problem(
                    s,
                    Severity.WARNING,
                    "not-a-regular-file",
                    "a FIFO, socket or device is never read or written; this one is not part of the vault",
                )
                for s in self._specials
            ]
            found += [Problem(path, Severity.ERROR, "unreadable", why) for path, why in self._unreadable]
            found += self.config.problems
        blocked = self.writer.journal.blocked()
        if blocked:
            found.append(
                Problem(
                    blocked[0],
                    Severity.ERROR,
                    "writes-blocked",
                    f"{blocked[1]}: every change is refused until this is fixed",
                )
            )
        return Problems(sorted_in_pieces(found, key=lambda p: (p.path, p.line or 0, p.code, p.message)))

    def _why_ignored(self, link: str) -> str:
        if link.split("/")[0] in (STATE_DIR, RECOVERY_DIR) or self.root / link == self.log_path:
            return "symlinks are never followed; the workbench keeps its own files here and writes nothing through it: changes that need it are refused until this is a real file or folder"
        return "symlinks are never followed; this one is not part of the vault"

    def problems_for(self, doc_id: str) -> Problems:
        """The problems at the file that owns `doc_id`, as `problems` lists them: its own, and those
        across files that only the documents it names (or that name it back) can give, looked up
        one by one rather than the whole vault checked (`relations_at`)."""

        def valid_owner(owned: str) -> Document | None:  # as `_relations` checks the documents
            at = self._ownership.by_id.get(owned)
            document = self._records[at].document if at is not None else None
            return document if document is not None and document.valid and document.id == owned else None

        with self.mutex:
            path = self._ownership.by_id.get(doc_id)
            record = self._records.get(path) if path is not None else None
            found = list(record.problems) if record is not None else []
            kept = self._relation_problems
            if kept is not None:
                relations: list[Problem] | None = [p for p in kept if p.path == path]
            else:
                relations = relations_at(
                    doc_id,
                    valid_owner,
                    self._ownership.by_id,
                    lambda doc, key: self._records[doc.path].key_lines.get(key),
                    self.flavour,
                )
        if relations is None:  # on a supersession cycle: only the whole check says which it names
            relations = [p for p in self._relations() if p.path == path]
        return Problems(sorted(found + relations, key=lambda p: (p.line or 0, p.code, p.message)))

    def _relations(self) -> list[Problem]:
        """The problems across files (links, supersession), kept until the records change. They are
        checked on a snapshot outside the vault's lock: on a large vault that takes a second, and
        searching (a person typing) must not wait for it. Each document's status and relations
        are read from the store's `fields` (one query) rather than from its meta, which decoding
        for every document was most of the check."""
        with self.mutex:
            if self._relation_problems is not None:
                return self._relation_problems
            generation = self.generation
            owned = [
                r
                for r in self._records.values()
                if r.document.valid and self._ownership.by_id.get(r.document.id) == r.path
            ]
            valid = {r.document.id: r.document for r in owned}
            lines = {r.path: r.key_lines for r in owned}
            known = set(self._ownership.by_id)
            store = self.store
        if store is not None:
            read_fields(valid.values(), store.fields)
        read_relations(valid.values())
        found = check_relations(valid, known, lambda doc, key: lines.get(doc.path, {}).get(key), self.flavour)
        with self.mutex:
            if self.generation == generation:
                self._relation_problems = found
        return found

    # -- planning writes -----------------------------------------------------------------------

    @serialized
    def edit_change(
        self, doc: Document, meta: dict[str, Any], body: str | None = None, bump: bool = True
    ) -> FileChange:
        """The bytes that turn `doc` (as read) into `meta` and `body`, changing only what differs."""
        with self._learning():
            return rewrite.edit_change(self.root, self.flavour, doc, meta, body, bump)

    def flavour_status_change(self, doc: Document, status: str) -> FileChange:
        """A status change written the flavour's way: a frontmatter key, a `## Status` line."""
        with self._learning():
            return rewrite.status_change(self.root, self.flavour, doc, status)

    def flavour_change(
        self, doc: Document, edit: Callable[[ParsedFile], tuple[dict[str, Any], str] | None]
    ) -> FileChange:
        """The bytes that give `doc` the (meta, body) `edit` returns, written the flavour's way."""
        with self._learning():
            return rewrite.flavour_change(self.root, self.flavour, doc, edit)

    @contextlib.contextmanager
    def _learning(self) -> Iterator[None]:
        """A write that finds a file other than it was read (a `ConflictError`: an agent wrote it,
        maybe in the same tick as the read) reads it again at once, its ids settled, so that the
        records show what the disk holds without waiting for the watcher or the next read."""
        try:
            yield
        except ConflictError as conflict:
            with self.mutex:
                self.refresh_path(conflict.path)
            raise

    def require_native(self, what: str) -> None:
        """Refuse a change that writes Memory Core's own fields into another flavour's files."""
        if not self.flavour.native:
            raise RefusedError(
                f"{what} writes Memory Core fields, and this is {self.flavour.a_vault}; "
                "migrate it first (workbench migrate --to memory-core OUT)"
            )

    @serialized
    def apply(
        self, plan: Plan, dry_run: bool = False, keep_history: bool = True, step: tuple[str, str] | None = None
    ) -> Plan:
        """Carry out a plan (or only return it, with `dry_run`): all files or none, then re-read them."""
        if dry_run or plan.empty:
            return plan
        for change in plan.changes:
            if change.after is not None and change.path.endswith(".md") and not change.path.startswith("."):
                self._refuse_new_invalidity(change)
        read_back = functools.partial(rewrite.read_back_problem, self.flavour.native)  # checked as each is written
        with self._learning():
            plan.change_id = self.writer.apply(
                plan.changes, plan.summary, plan.log_lines, read_back, keep_history, step
            )
        plan.applied = True
        # The files written are read again as one batch, as the watcher's are: one commit to the
        # store and one settling of the ids they claimed and claim now (the settings file is no
        # document: nothing to read).
        self.refresh_paths(plan.paths)
        if CONFIG_FILE in plan.paths:
            self.reread_config()
        self._relation_problems = None
        return plan

    def reread_config(self) -> None:
        """Read the vault's settings again (a write, or a hand edit the watcher saw): its compatible
        pairs and problems count at once, its status words (they change every record) from the next open."""
        self.config = read_config(self.root)

    def _refuse_new_invalidity(self, change: FileChange) -> None:
        """A write may fix problems, never add a problem that makes the document invalid."""
        new = self.new_invalidity(change)
        if new:
            raise RefusedError(f"{change.path}: refused, the change would make it invalid: {new[0].message}")

    def new_invalidity(self, change: FileChange, before: bytes | None = None) -> list[Problem]:
        """The problems that would make the document invalid after `change` and that it did not
        have before (the bytes `before`, by default the change's own): what `apply` refuses."""
        on = today()

        def problems(path: str, data: bytes) -> list[Problem]:
            return build_record(path, data, len(data), 0, on, self.flavour).problems

        before = change.before if before is None else before
        after = problems(change.path, change.after or b"")
        had = {p.code for p in problems(change.path, before)} if before is not None else set()
        return [p for p in after if p.code in invalidating(self.flavour) and p.code not in had]

    @serialized
    def require_valid(self, doc: Document) -> None:
        if not doc.valid:
            codes = sorted({p.code for p in self.problems_for(doc.id) if p.code in invalidating(self.flavour)})
            raise RefusedError(f"{doc.id} is invalid ({', '.join(codes) or 'see check'}); repair it before changing it")

    def rebuild_store(self, between: Callable[[], Any], in_memory: bool = False) -> None:
        """Close the derived store, run `between` (which may delete it), and build it afresh from
        the records in memory: FTS5 here keeps deleted words in its vocabulary until rebuilt."""
        if self.store is not None:
            for record in self._records.values():  # the bodies still in the old store, before it goes
                keep_stored(record)
            self.store.close()
        between()
        self.store = DerivedStore(
            None if in_memory else self.store_path(), self.flavour.reading, folder_identity(self.root)
        )
        self.bodies.store = self.store
        with self.store.bulk():
            self.store.save(self.records, [], self._read_since or today())

    def store_path(self) -> Path | None:
        """Where the derived store lives: `.workbench/index.sqlite`, or nowhere (in memory) when a
        symlink on the way would take SQLite's writes out of the vault."""
        base = self.state_dir.parent  # the vault's root, or the cache folder holding another format's state
        name = f"{self.state_dir.name}/index.sqlite"
        if any(first_link(base, name + suffix) for suffix in ("", "-wal", "-shm", "-journal")):
            return None
        return base / name

    def renew_store(self) -> None:
        """Delete the derived store's files and build it afresh: after a forget, no page of the old
        one may keep the forgotten words."""
        store = self.store
        self.rebuild_store(store.discard if store is not None else lambda: None)

    def mend_store(self) -> bool:
        """Build the derived store again if a query found its file broken (damaged on disk, by
        hand or by a failing disk): it is only derived, and the records in memory are whole. One
        that found no room on the disk is deleted, every file of it, and built in memory."""
        store = self.store
        if store is None or not (store.damaged or store.full):
            return False
        self.rebuild_store(store.discard, in_memory=store.full)
        return True

    @serialized
    def history(self, limit: int = 20) -> list[dict[str, Any]]:
        """Recent changes made through the workbench, newest first."""
        return [{k: v for k, v in r.items() if k != "record_path"} for r in self.writer.journal.history()[:limit]]

    # -- the journal and the state folder, for the services that curate them ----------------------
    # Services ask the index for these and never reach into its writer: the one place the vault's
    # own files are reached, always without following a symlink.

    def history_records(self) -> list[dict[str, Any]]:
        """Committed changes, newest first, each with its files' bytes and its `record_path`: the
        steps undo takes. A record that cannot be trusted is set aside and named in the notes."""
        return self.writer.journal.history()

    def redo_records(self) -> list[dict[str, Any]]:
        """The steps undone since the last new change, the one undone last first: what redo takes."""
        return self.writer.journal.redo_stack()

    def move_step(self, kind: str, record_path: Path) -> None:
        """Move a record as an undo ("undo") or a redo ("redo") would, its files already as that
        step leaves them (an undo or a redo made by hand)."""
        self.writer.journal.move_step(kind, record_path)

    @property
    def made_here(self) -> set[str]:
        """The ids of the changes this index made: the rest of the history came from other processes."""
        return self.writer.made_here

    @property
    def opened(self) -> float:
        """When this index opened the vault: a step made before it is from an earlier session."""
        return self.writer.opened

    @property
    def log_name(self) -> str:
        """The change log's vault-relative path (`log.md`, or the state folder's for other formats)."""
        return self.writer.journal.log_name

    @property
    def state_name(self) -> str:
        """The state folder's name, as its files' vault-relative paths begin."""
        return self.writer.journal.state

    def check_state(self, *also: str) -> None:
        """Refuse (UnsafePathError) when the state folder, its journal or history, the log or a
        folder in `also` is a symlink: before anything is deleted."""
        self.writer.journal.check_state(*also)

    def read_file(self, path: str) -> bytes | None:
        """A vault file's bytes as they are now (None if there is none), never through a symlink."""
        return self.writer.read(path)

    def write_file(self, path: str, data: bytes) -> None:
        """Replace a file that is not a document (a backup, the log) atomically, outside the history."""
        self.writer.write(path, data)

    def remove_file(self, path: str) -> bool:
        return self.writer.remove(path)

    def remove_tree(self, path: str) -> None:
        self.writer.remove_tree(path)

    def files_under(self, folder: str) -> list[str]:
        """Every regular file under `folder` (vault-relative), symlinks neither followed nor listed."""
        return self.writer.files_under(folder)

    def names_in(self, folder: str) -> list[str]:
        return self.writer.names(folder)
