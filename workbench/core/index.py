"""The index of a vault's records: what every view and service of the vault stands on.

Files are the truth. The index keeps what it parsed of each file (a `Record`), keyed by its size
and modification time, and re-reads a file whenever those move, so a long-lived index sees what
agents write beside it. It owns: opening a vault (finishing a change a crash interrupted), which
file owns which id, reading (`get`, `documents`, `problems`), planning the bytes of an edit
(`edit_change`), and applying a `Plan` all-or-nothing through the `ChangeWriter`, under the vault's
lock and its own mutex. It knows nothing of search, the graph or curation: those take the index.

Reading is not writing. The derived state (the store, the lock, the journal and history of
changes) lives in `.workbench/` inside a vault of the workbench's own formats (Memory Core, OKF);
a vault of any other format (Dendron, Obsidian, ADRs) is someone else's folder, so its state lives
in the user's cache folder instead (`state_dir_for`), and opening, searching, checking or
migrating it writes nothing there. Only a change a person makes writes into it.

Derived views keep what they computed between calls in the slots declared in `__init__`
(`search_views`, `search_postings`, `meaning`), dropped with the index; each view checks
`generation`, which moves whenever the records change.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
import hashlib
import os
import stat as stat_mode
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import flavours
from .derived_store import DerivedStore, folder_identity
from .changes import Plan
from .flavours import Flavour, Ids
from .loading import Item, collector_paused, parse_files
from .model import ConflictError, Document, Problem, Problems, RefusedError, Severity, VaultError
from .parse import ParsedFile, as_date, digest_of, parse_bytes
from .records import IdLog, Record, build_record, invalidating, read_record, still_clean, today, unchanged
from .storage import ChangeWriter, FileChange, VaultLock, read_bytes
from .validate import check_relations
from .vaultconfig import read_config
from .vaultfs import first_link
from .walk import RECOVERY_DIR, STATE_DIR, Walk, find_root, is_debris, walk_vault
from .yamledit import EditError, apply_meta, render_frontmatter

if TYPE_CHECKING:
    from .live import VaultWatcher

__all__ = ["VaultIndex", "require_folder", "serialized", "state_dir_for"]


# Rows stored per transaction on a cold open, as the workers' chunks come in. Larger batches cost
# no less in all (FTS5 writes a segment per megabyte of terms whatever the transaction), and the
# last batch is what is still stored after the last file is parsed: a quarter of the files took
# 0.2 s there at 10,000 documents, 500 take 0.03 s.
STORE_BATCH_MIN = 500
ID_CODES = frozenset({"id-duplicate", "id-shared"})  # what settling ids reports, and settles again


def _comparable(meta: dict[str, Any]) -> dict[str, Any]:
    def norm(value: Any) -> Any:
        if isinstance(value, dict):
            return {str(k): norm(v) for k, v in value.items()}
        if isinstance(value, list):
            return [norm(v) for v in value]
        if isinstance(value, (dt.date, dt.datetime)):
            return value.isoformat()
        return value

    return norm(meta)


def require_folder(path: str | os.PathLike[str]) -> Path:
    """`path` (with `~` expanded) when it can be a vault's folder; `VaultError` naming the path and
    what is wrong otherwise. Asked by `open`, and by a face before it shows anything."""
    given = Path(path).expanduser()
    if any(ord(c) < 32 for c in str(given)):
        raise VaultError(f"vault path {str(given)!r} contains control characters")
    if not given.exists():
        raise VaultError(f"{given}: no such folder")
    if not given.is_dir():
        raise VaultError(f"{given}: not a folder")
    return given


def state_dir_for(root: Path, flavour: Flavour) -> Path:
    """Where the workbench keeps a vault's derived state: `.workbench/` inside the vault when its
    format keeps it there, else `$XDG_CACHE_HOME/workbench/vaults/NAME-HASH` (`~/.cache/...`), one
    folder per vault, keyed by a hash of its resolved path. Deleting it loses nothing but the undo
    history."""
    if flavour.state_in_vault:
        return root / STATE_DIR
    cache = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(cache) if os.path.isabs(cache) else Path.home() / ".cache"
    resolved = str(root.resolve())
    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in root.name)[:40].strip("-.") or "vault"
    return base / "workbench" / "vaults" / f"{name}-{hashlib.sha256(resolved.encode()).hexdigest()[:16]}"


def serialized(method: Callable) -> Callable:
    """Run a method under the index's own reentrant mutex (`self.mutex`, or `self.index.mutex`):
    the TUI's workers and the file watcher call one vault from several threads, and its records
    must change one call at a time."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self.mutex if hasattr(self, "mutex") else self.index.mutex:
            return method(self, *args, **kwargs)

    return run


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
        self._by_id: dict[str, str] = {}  # id -> the file that owns it: the first in path order
        self._shared: dict[str, set[str]] = {}  # id -> every file claiming it, for ids claimed twice or more
        self._ids: Ids | None = None  # the ids as links look them up (other flavours), while they stay the same
        self._relation_problems: list[Problem] | None = None
        self._symlinks: list[str] = []
        self._not_pages: list[tuple[str, str]] = []
        self._specials: list[str] = []
        self._unreadable: list[tuple[str, str]] = []  # folders (and files) the walk could not look into
        self.config_problems: list[Problem] = []  # what is wrong with the vault's `.workbench.yaml`
        self.store: DerivedStore | None = None
        self.mutex = threading.RLock()
        self.generation = 0  # moves whenever the records change, so derived views know to rebuild
        self.id_log = IdLog()  # which ids each generation touched, so the graph need not scan them all
        # What derived views keep between calls, declared here so that no view hangs its own
        # attributes on the index: search.py's lookups and kept per-word results, semantic.py's index.
        self.search_views: Any = None
        self.search_postings: Any = None
        self.meaning: Any = None

    # -- opening and reading ----------------------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike[str], flavour: str | None = None) -> VaultIndex:
        """Open the vault at `path` (or its `memory/` child), finishing any change a crash interrupted.

        The flavour (Memory Core, Dendron, ADRs...) is detected unless named."""
        given = require_folder(path)
        root, chosen = flavours.choose(given.resolve(), find_root(given.resolve()), flavour)
        config = read_config(root)
        if config.statuses:
            chosen = dataclasses.replace(chosen, statuses=config.statuses)
        vault = cls(root, chosen)
        vault.config_problems = list(config.problems)
        walk = walk_vault(vault.root, chosen)
        if vault.writer.needs_recovery(walk.temporaries):
            vault.recovery_notes.extend(vault.writer.recover(walk.temporaries))
            walk = walk_vault(vault.root, chosen)
        vault.store = DerivedStore(vault.store_path(), chosen.reading, folder_identity(vault.root))
        with collector_paused():
            vault._load(walk, vault.store.load(today()))
        return vault

    @serialized
    def _load(self, walk: Walk, cached: dict[str, Record] | None = None) -> None:
        """Bring the records in line with the walk: keep what is unchanged (in memory or in the
        derived store), parse what changed, forget what is gone."""
        on = today()
        cached = cached or {}
        seen: set[str] = set()
        to_parse: list[Item] = []
        recheck: list[Record] = []  # kept after a look at their bytes: stored again with that look's time
        moved = False  # whether any record came, went or changed: if none did, nothing derived is stale
        for path, stat in walk.files:
            seen.add(path)
            current = self._records.get(path)
            known = current or cached.get(path)
            if known and unchanged(known, stat):
                if known is not current:
                    self._records[path] = known
                    moved = True
                continue
            clean = still_clean(self.root, known, stat) if known else None
            if clean is not None:  # read in the tick it last changed, and its bytes are the same
                self._records[path] = clean
                moved = moved or known is not current
                recheck.append(clean)
                continue
            to_parse.append((path, stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns))
        if to_parse:
            with_rows = self.store is not None
            rows: list = []
            bulk = self.store.bulk() if with_rows and len(to_parse) >= STORE_BATCH_MIN else contextlib.nullcontext()
            with collector_paused(), bulk:
                for chunk in parse_files(self.root, to_parse, on, with_rows, self.flavour):
                    for record, row in chunk:
                        self._records[record.path] = record
                        rows.append(row)
                    if with_rows and len(rows) >= STORE_BATCH_MIN:
                        self.store.save_rows(rows)  # while the workers parse on
                        rows = []
                if with_rows and rows:
                    self.store.save_rows(rows)
        if self.store is not None and recheck:
            self.store.reseen((record.path, record.seen_ns) for record in recheck)
        gone = (set(self._records) | set(cached)) - seen
        for path in gone:
            moved = self._records.pop(path, None) is not None or moved
        if self.store is not None and gone:
            self.store.save([], gone, on)
        moved = (
            moved
            or bool(to_parse)
            or (walk.symlinks, walk.not_pages, walk.specials, walk.unreadable)
            != (self._symlinks, self._not_pages, self._specials, self._unreadable)
        )
        self._symlinks = walk.symlinks
        self._not_pages = walk.not_pages
        self._specials = walk.specials
        self._unreadable = walk.unreadable
        if moved or self.generation == 0:
            self.reindex()
        self.mend_store()

    @serialized
    def reindex(self) -> None:
        """Map ids to files; a second file claiming an id takes the flavour's fallback id, else it
        is a problem and is not a node. Looks at every record: for an open or a walk (a batch of
        files goes through `_index_paths`)."""
        self.generation += 1
        by_id: dict[str, str] = {}
        shared: dict[str, set[str]] = {}
        unreadable = invalidating(self.flavour)
        claims = {path: self._claim(record) for path, record in self._records.items()}
        for path in sorted(self._records):
            doc_id = claims[path]
            first = by_id.setdefault(doc_id, path)
            if first != path:
                shared.setdefault(doc_id, {first}).add(path)
        for path in sorted(self._records):
            self._settle(self._records[path], claims[path], by_id, unreadable)
        self._by_id, self._shared, self._ids = by_id, shared, None
        if not self.flavour.native:
            self._resolve_links(self._records.values())
        self.id_log.restart(self.generation)
        self._relation_problems = None

    @serialized
    def _index_paths(self, before: dict[str, str | None]) -> None:
        """`reindex` for a few changed files (the watcher's batches), giving the same result: only
        the ids those files claimed before (`before`: path -> id, None for a new file) or claim
        now are settled again, among the files that claim them."""
        self.generation += 1
        claiming: dict[str, set[str]] = {doc_id: set() for doc_id in before.values() if doc_id is not None}
        for path in before:
            record = self._records.get(path)
            if record is not None:
                claiming.setdefault(self._claim(record), set()).add(path)
        unreadable = invalidating(self.flavour)
        released: set[str] = set()
        for path in before:  # a fallback id these files held is settled again with their claims
            fallback = self.flavour.fallback_id(path)
            if fallback is not None and self._by_id.get(fallback) == path and fallback not in claiming:
                del self._by_id[fallback]
                released.add(fallback)
        ids_moved = bool(released)
        fallbacks: set[str] = set()  # fallback ids given or taken back in this batch
        for doc_id, arrived in claiming.items():
            owner = self._by_id.get(doc_id)
            claimants = self._shared.get(doc_id) or ({owner} if owner is not None else set())
            claimants = {path for path in claimants if path not in before and path in self._records} | arrived
            ids_moved |= self._own(doc_id, claimants, unreadable, fallbacks)
        ids_moved |= bool(fallbacks)
        touched = set(claiming) | released | fallbacks
        if not self.flavour.native:
            if ids_moved:
                self._ids = None
            changed = self._records.values() if ids_moved else [self._records[p] for p in before if p in self._records]
            touched |= self._resolve_links(changed)
        self.id_log.add(self.generation, touched)
        self._relation_problems = None

    def _own(self, doc_id: str, claimants: set[str], unreadable: frozenset[str], fallbacks: set[str]) -> bool:
        """Give `doc_id` to the first of the files claiming it and settle each of them; True when
        the id came or went. Fallback ids given or taken back are added to `fallbacks`."""
        if not claimants:
            self._shared.pop(doc_id, None)
            return self._by_id.pop(doc_id, None) is not None
        owner = min(claimants)  # as the first in sorted order
        came = self._by_id.get(doc_id) is None
        self._by_id[doc_id] = owner
        if len(claimants) > 1:
            self._shared[doc_id] = claimants
        else:
            self._shared.pop(doc_id, None)
        for path in sorted(claimants):
            fallback = self._settle(self._records[path], doc_id, self._by_id, unreadable)
            if fallback is not None:
                fallbacks.add(fallback)
        return came

    def _claim(self, record: Record) -> str:
        """The id a file claims: its document's id, unless the file was given its fallback id
        because an earlier file claims the same one (see `_settle`)."""
        doc = record.document
        if doc.id == self.flavour.fallback_id(record.path):
            return self.flavour.doc_id(record.path, doc.meta)
        return doc.id

    def _settle(self, record: Record, claimed: str, by_id: dict[str, str], unreadable: frozenset[str]) -> str | None:
        """A record's id, problems and validity given the file that owns the id it claims.

        A file whose flavour reads its id from its name alone (two ADRs numbered alike) takes its
        fallback id when an earlier file owns the claimed one: both stay documents, and a warning
        names both files. Any other second claimant is a duplicate, invalid; a file that was
        invalid only as a duplicate is valid again once it owns its id. Returns the fallback id when
        it came or went in `by_id`."""
        path, doc = record.path, record.document
        owner = by_id[claimed]
        fallback = self.flavour.fallback_id(path)
        problems = record.problems
        if problems and any(p.code in ID_CODES for p in problems):  # what the last settling said
            problems = [p for p in problems if p.code not in ID_CODES]
        moved = None
        if fallback is not None and fallback != claimed:
            if path != owner and by_id.get(fallback, path) == path:
                moved = fallback if by_id.get(fallback) is None else None
                by_id[fallback] = path
                problems = [dataclasses.replace(p, doc_id=fallback) for p in problems]
                problems.append(
                    Problem(
                        path,
                        Severity.WARNING,
                        "id-shared",
                        f"{path} and {owner} both read as {claimed}: {owner} keeps that id, and this one is {fallback}",
                        None,
                        fallback,
                    )
                )
                record.problems = problems
                valid = not any(p.code in unreadable for p in problems)
                if (doc.id, doc.valid) != (fallback, valid):
                    record.document = dataclasses.replace(doc, id=fallback, valid=valid)
                return moved
            if by_id.get(fallback) == path:
                del by_id[fallback]
                moved = fallback
            if doc.id != claimed:
                problems = [dataclasses.replace(p, doc_id=claimed) for p in problems]
                doc = record.document = dataclasses.replace(doc, id=claimed)
        if path != owner:
            record.problems = problems + [
                Problem(path, Severity.ERROR, "id-duplicate", f"id {claimed} is also used by {owner}", None, claimed)
            ]
            if doc.valid is not False:
                record.document = dataclasses.replace(doc, valid=False)
            return moved
        if problems is not record.problems:
            record.problems = problems
        if doc.valid is False and not any(p.code in unreadable for p in problems):
            record.document = dataclasses.replace(doc, valid=True)
        return moved

    def _resolve_links(self, records: Iterable[Record]) -> set[str]:
        """Point each link at the id it names now: a note added or removed changes what other
        notes' `[[name]]` resolves to, so all of them are resolved again whenever the set of ids
        changes, and only new ones otherwise. Returns the ids of the documents that changed."""
        if self._ids is None:
            self._ids = Ids(list(self._by_id))
        changed: set[str] = set()
        for record in records:
            doc = record.document
            if doc.view is not None:
                view = self.flavour.resolve(doc.view, self._ids)
                if view is not doc.view:
                    record.document = dataclasses.replace(doc, view=view)
                    changed.add(doc.id)
        return changed

    @serialized
    def refresh(self) -> None:
        """Re-read whatever changed on disk since the last look (cheap: a walk and a stat per file)."""
        self._load(walk_vault(self.root, self.flavour))

    @serialized
    def refresh_paths(self, paths: list[str]) -> None:
        """Re-read just these files (the watcher's batches): the rest of the vault is not touched,
        and the derived store takes the whole batch in one commit."""
        batch: tuple[list[Record], list[str]] = ([], [])
        before = {path: self._claim(record) for path in paths if (record := self._records.get(path)) is not None}
        changed: list[str] = []
        try:
            for path in paths:
                if self.refresh_path(path, reindex=False, batch=batch) is not False:
                    changed.append(path)
        finally:  # a file that fails to read leaves those before it re-read: they are indexed all the same
            if self.store is not None and (batch[0] or batch[1]):
                self.store.save(batch[0], batch[1], today())
                self.mend_store()
            if changed:
                self._index_paths({path: before.get(path) for path in changed})

    @serialized
    def watch(self, on_change=None) -> VaultWatcher:
        """Start a watcher that keeps this vault in line with the disk; stop it when done."""
        from .live import VaultWatcher  # watchfiles: only a long-lived vault follows the disk

        return VaultWatcher(self, on_change).start()

    def _is_document_path(self, path: str) -> bool:
        """What the walk would take as a document: no hidden part, no debris, no symlink on the way."""
        parts = path.split("/")
        if not path.endswith(".md") or any(p.startswith(".") or is_debris(p) for p in parts):
            return False
        if self.flavour.is_reserved(path) or self.flavour.not_a_page(path):
            return False
        if any(not self.flavour.walks_into("/".join(parts[: n + 1])) for n in range(len(parts) - 1)):
            return False
        current = self.root
        for part in parts:
            current = current / part
            if current.is_symlink():
                return False
        return True

    @serialized
    def refresh_path(
        self, path: str, reindex: bool = True, batch: tuple[list[Record], list[str]] | None = None
    ) -> Record | None | bool:
        """Bring one file's record in line with the disk; False when nothing changed. With a
        `batch`, the store's rows are collected there instead of written one commit at a time."""
        full = self.root / path
        try:
            stat = full.stat(follow_symlinks=False) if self._is_document_path(path) else None
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
            if batch is not None:
                batch[1].append(path)
            elif self.store is not None:
                self.store.save([], [path], today())
            if reindex:
                self._index_paths({path: self._claim(gone)})
            return None
        known = self._records.get(path)
        if known and unchanged(known, stat):
            return known if reindex else False
        record = read_record(
            self.root, path, stat.st_size, stat.st_mtime_ns, today(), self.flavour, stat.st_ino, stat.st_ctime_ns
        )
        if record is None:
            return None
        self._records[path] = record
        if batch is not None:
            batch[0].append(record)
        elif self.store is not None:
            self.store.save([record], [], today())
        if reindex:
            self._index_paths({path: self._claim(known) if known else None})
        return self._records[path]

    @property
    @serialized
    def records(self) -> list[Record]:
        return [self._records[p] for p in sorted(self._records)]

    @property
    @serialized
    def documents(self) -> list[Document]:
        """Every valid document, ordered by id."""
        docs = [r.document for r in self._records.values() if r.document.valid]
        return sorted(docs, key=lambda d: d.id)

    def iter_records(self) -> Iterable[Record]:
        """Every record, unsorted and uncopied, for a caller holding the mutex that looks at each
        once (the live graph's scan: sorting 50,000 ids for nothing is what `records` costs)."""
        return self._records.values()

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
        return dict(self._by_id)

    def owner_document(self, doc_id: str) -> Document | None:
        """What was last read from the file that owns `doc_id`, without looking at the disk."""
        path = self._by_id.get(doc_id)
        return self._records[path].document if path is not None else None

    @serialized
    def paths_of(self, doc_id: str) -> list[str]:
        """Every file that claims `doc_id`, in path order: its owner first, then any duplicates."""
        shared = self._shared.get(doc_id)
        if shared:
            return sorted(shared)
        owner = self._by_id.get(doc_id)
        return [owner] if owner is not None else []

    @serialized
    def ids(self) -> list[str]:
        return sorted(self._by_id)

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._by_id

    def __repr__(self) -> str:
        return f"VaultIndex({str(self.root)!r}, {len(self)} files)"

    @serialized
    def get(self, doc_id: str) -> Document:
        """The document as it is on disk now; RefusedError if no file has that id."""
        path = self._by_id.get(doc_id)
        record = self.refresh_path(path) if path else None
        if record is None or record.document.id != doc_id:
            self.refresh()
            path = self._by_id.get(doc_id)
            record = self._records.get(path) if path else None
        if record is None:
            raise RefusedError(f"no document has the id {doc_id!r}")
        return record.document

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
        return self._records[self._by_id[doc_id]]

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
            found += self.config_problems
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
        return Problems(sorted(found, key=lambda p: (p.path, p.line or 0, p.code, p.message)))

    def _why_ignored(self, link: str) -> str:
        if link.split("/")[0] in (STATE_DIR, RECOVERY_DIR) or self.root / link == self.log_path:
            return "symlinks are never followed; the workbench keeps its own files here and writes nothing through it: changes that need it are refused until this is a real file or folder"
        return "symlinks are never followed; this one is not part of the vault"

    def problems_for(self, doc_id: str) -> Problems:
        relations = self._relations()
        with self.mutex:
            path = self._by_id.get(doc_id)
            record = self._records.get(path) if path is not None else None
            found = (list(record.problems) if record is not None else []) + [p for p in relations if p.path == path]
        return Problems(sorted(found, key=lambda p: (p.line or 0, p.code, p.message)))

    def _relations(self) -> list[Problem]:
        """The problems across files (links, supersession), kept until the records change. They are
        checked on a snapshot outside the vault's lock: on a large vault that takes a second, and
        searching (a person typing) must not wait for it."""
        with self.mutex:
            if self._relation_problems is not None:
                return self._relation_problems
            generation = self.generation
            owned = [r for r in self._records.values() if r.document.valid and self._by_id.get(r.document.id) == r.path]
            valid = {r.document.id: r.document for r in owned}
            lines = {r.path: r.key_lines for r in owned}
            known = set(self._by_id)
        found = check_relations(valid, known, lambda doc, key: lines.get(doc.path, {}).get(key), self.flavour)
        with self.mutex:
            if self.generation == generation:
                self._relation_problems = found
        return found

    # -- planning writes -----------------------------------------------------------------------

    def _base(self, doc: Document) -> tuple[bytes, ParsedFile]:
        raw = read_bytes(self.root / doc.path)
        if raw is None or digest_of(raw) != doc.digest:
            raise ConflictError(doc.path)
        parsed = parse_bytes(raw)
        if parsed.meta is None:
            raise RefusedError(
                f"{doc.path}: its frontmatter cannot be read, so it cannot be edited safely; run check --repair first"
            )
        return raw, parsed

    @serialized
    def edit_change(
        self, doc: Document, meta: dict[str, Any], body: str | None = None, bump: bool = True
    ) -> FileChange:
        """The bytes that turn `doc` (as read) into `meta` and `body`, changing only what differs."""
        raw, parsed = self._base(doc)
        body = parsed.body if body is None else body
        meta = dict(meta)
        stamp_key = self.flavour.updated_key or "updated_at"
        old_core = _comparable({k: v for k, v in parsed.meta.items() if k != stamp_key})
        new_core = _comparable({k: v for k, v in meta.items() if k != stamp_key})
        meaningful = old_core != new_core or body != parsed.body
        if not meaningful and _comparable(meta) == _comparable(parsed.meta):
            return FileChange(doc.path, raw, raw)
        if (
            meaningful
            and bump
            and stamp_key in parsed.meta
            and _comparable(meta.get(stamp_key)) == _comparable(parsed.meta.get(stamp_key))
        ):
            meta[stamp_key] = _moved_on(parsed.meta.get(stamp_key))
        try:
            lines = apply_meta(parsed.fm_lines, parsed.meta, meta, parsed.newline)
        except EditError as exc:
            raise RefusedError(f"{doc.path}: {exc}") from exc
        return FileChange(doc.path, raw, parsed.compose(lines, body))

    def flavour_status_change(self, doc: Document, status: str) -> FileChange:
        """A status change written the flavour's way: a frontmatter key, a `## Status` line."""
        if not self.flavour.has_status:
            raise RefusedError(
                f"{self.flavour.a_vault} has no status to change; migrate it to Memory Core for a lifecycle"
            )
        return self.flavour_change(doc, lambda parsed: self.flavour.status_change(parsed, status))

    def flavour_change(
        self, doc: Document, edit: Callable[[ParsedFile], tuple[dict[str, Any], str] | None]
    ) -> FileChange:
        """The bytes that give `doc` the (meta, body) `edit` returns, written the flavour's way."""
        raw = read_bytes(self.root / doc.path)
        if raw is None or digest_of(raw) != doc.digest:
            raise ConflictError(doc.path)
        parsed = parse_bytes(raw)
        if parsed.has_frontmatter and parsed.meta is None:
            raise RefusedError(f"{doc.path}: its frontmatter cannot be read, so it cannot be edited safely")
        wanted = edit(parsed)
        if wanted is None:
            raise RefusedError(f"{doc.path} states no status the workbench can change; edit it by hand (e)")
        meta, body = wanted
        if parsed.has_frontmatter:
            try:
                lines = apply_meta(parsed.fm_lines, parsed.meta, meta, parsed.newline)
            except EditError as exc:
                raise RefusedError(f"{doc.path}: {exc}") from exc
            return FileChange(doc.path, raw, parsed.compose(lines, body))
        newline = parsed.newline
        head = f"---{newline}{''.join(render_frontmatter(meta, newline))}---{newline}" if meta else ""
        return FileChange(doc.path, raw, (("\ufeff" if parsed.bom else "") + head + body).encode("utf-8"))

    def require_native(self, what: str) -> None:
        """Refuse a change that writes Memory Core's own fields into another flavour's files."""
        if not self.flavour.native:
            raise RefusedError(
                f"{what} writes Memory Core fields, and this is {self.flavour.a_vault}; "
                "migrate it first (workbench migrate --to memory-core OUT)"
            )

    def _verify(self, path: str, data: bytes) -> str | None:
        """Read-back check: a document parses and still carries its required metadata."""
        if not path.endswith(".md") or path.startswith("."):
            return None
        parsed = parse_bytes(data)
        if not self.flavour.native:
            return (
                None
                if parsed.decoded and not (parsed.has_frontmatter and parsed.meta is None)
                else "the written file does not parse back"
            )
        if parsed.meta is None or "id" not in parsed.meta or "type" not in parsed.meta:
            return "the written file does not parse back with its id and type"
        return None

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
        plan.change_id = self.writer.apply(plan.changes, plan.summary, plan.log_lines, self._verify, keep_history, step)
        plan.applied = True
        for path in plan.paths:
            self.refresh_path(path)
        self._relation_problems = None
        return plan

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

    def log_line(self, text: str) -> str:
        return f"- {dt.datetime.now().strftime('%Y-%m-%d %H:%M')} {text}"

    @serialized
    def require_valid(self, doc: Document) -> None:
        if not doc.valid:
            codes = sorted({p.code for p in self.problems_for(doc.id) if p.code in invalidating(self.flavour)})
            raise RefusedError(f"{doc.id} is invalid ({', '.join(codes) or 'see check'}); repair it before changing it")

    def rebuild_store(self, between: Callable[[], Any], in_memory: bool = False) -> None:
        """Close the derived store, run `between` (which may delete it), and build it afresh from
        the records in memory: FTS5 here keeps deleted words in its vocabulary until rebuilt."""
        if self.store is not None:
            self.store.close()
        between()
        self.store = DerivedStore(
            None if in_memory else self.store_path(), self.flavour.name, folder_identity(self.root)
        )
        with self.store.bulk():
            self.store.save(self.records, [], today())

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


def _moved_on(previous: Any) -> Any:
    """The time of an edit made now, in the type the file used: a date stays a date (never moved
    back), a date and time stays one (in its time zone, to the second), text stays text."""
    if isinstance(previous, dt.datetime) or (
        isinstance(previous, str) and len(previous) > 10 and previous[10:11] in ("T", " ")
    ):
        now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
        if isinstance(previous, dt.datetime):
            return now.astimezone(previous.tzinfo) if previous.tzinfo else now.replace(tzinfo=None)
        return now.isoformat().replace("+00:00", "Z") if previous.endswith("Z") else now.isoformat()
    stamp = max(today(), as_date(previous) or today())
    return stamp.isoformat() if isinstance(previous, str) else stamp
