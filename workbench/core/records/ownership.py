"""Which file owns which id: the first in path order of the files that claim it.

Two files may claim one id. The first in path order owns it; a file whose flavour reads its id
from its name alone (two ADRs numbered alike) takes its fallback id instead and stays a document,
with a warning naming both files; any other second claimant is a duplicate, invalid until it owns
its id again. `IdOwnership` keeps that map for the index (`index.py`), which keeps the records:
settled for every record on an open or a walk, and for the few files of a watcher's batch
otherwise, with the same result. In a flavour whose links name a note rather than an id, each
link is pointed again at the id it names whenever the set of ids changes.

What a link resolves to depends on its own file (the targets it may mean, in the view its row
keeps) and on the set of every id of the vault, nothing else (`Flavour.resolve`, `Ids`). So the
derived store keeps each document's resolved links under a key of that set (`ids_key`), and an
open takes them as kept where the key is the current one: a file added, removed or renamed, or an
id that moved, changes the key, and every document is resolved again, as a cold open does.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable

from ..flavours import Flavour, Ids
from ..vocabulary.model import Problem, Severity
from .record import Record, invalidating
from .store_rows import resolution_text, resolved_under, with_view

__all__ = ["ID_CODES", "IdOwnership", "ids_key"]

ID_CODES = frozenset({"id-duplicate", "id-shared"})  # what settling ids reports, and settles again


def ids_key(flavour: Flavour, ids: Iterable[str]) -> str:
    """A digest of the flavour's reading and of the set of ids: what a link's resolution depends on
    beside its own file. Any id added, removed or changed gives another key."""
    digest = hashlib.sha256(flavour.reading.encode() + b"\0")
    digest.update(json.dumps(sorted(ids)).encode())  # JSON: no two sets of ids give the same text
    return digest.hexdigest()[:32]


def _settled_before(problems: list[Problem]) -> bool:
    """Whether a settling of ids gave any of these problems (`ID_CODES`): a file holding one is
    settled again, the rest of its problems are its own reading's."""
    for problem in problems:
        if problem.code in ID_CODES:
            return True
    return False


class _Claims:
    """{path: the id its file claims} where each file claims its document's id, looked up as asked."""

    def __init__(self, records: dict[str, Record]):
        self.records = records

    def __getitem__(self, path: str) -> str:
        return self.records[path].document.id


class IdOwnership:
    """{id: the file that owns it} for one vault's records, and the files that claim an id twice or more."""

    def __init__(self, flavour: Flavour):
        self.flavour = flavour
        self.by_id: dict[str, str] = {}  # id -> the file that owns it: the first in path order
        self.shared: dict[str, set[str]] = {}  # id -> every file claiming it, for ids claimed twice or more
        self._ids: Ids | None = None  # the ids as links look them up (other flavours), while they stay the same
        self._key: str | None = None  # `ids_key` of those ids, while they stay the same
        # (path, digest, key, resolution) of the documents whose links were resolved since the last
        # `take_resolved`: for the derived store to keep (`DerivedStore.keep_resolutions`).
        self._resolved: list[tuple[str, str, str, str]] = []

    def claim(self, record: Record) -> str:
        """The id a file claims: its document's id, unless the file was given its fallback id
        because an earlier file claims the same one (see `_settle`)."""
        doc = record.document
        # A fallback id is the file's path without `.md`: only a document holding that id is asked
        # whether it is one (the flavour reads the name again, a tenth of a warm open of 10,000).
        if doc.id == record.path[:-3] and doc.id == self.flavour.fallback_id(record.path):
            return self.flavour.doc_id(record.path, doc.meta)
        return doc.id

    def settle_all(self, records: dict[str, Record]) -> list[str]:
        """Map ids to files looking at every record: for an open or a walk. The paths, sorted."""
        by_id: dict[str, str] = {}
        shared: dict[str, set[str]] = {}
        unreadable = invalidating(self.flavour)
        # A flavour that gives no file a fallback id: each file claims its document's id.
        fallbacks = type(self.flavour).fallback_id is not Flavour.fallback_id
        order = sorted(records)
        claims: dict[str, str] | _Claims
        unsettled: list[str] = []  # the files `_settle` may change where no id is shared (see below)
        if fallbacks:
            claims = {}
            for path in order:  # one pass: claims, owners, and (as below) the files `_settle` may change
                record = records[path]
                document = record.document
                claims[path] = claimed = self.claim(record)
                by_id[claimed] = path
                # A file holding another id than it claims (its fallback, given or to take back) too.
                if (
                    document.valid is not True
                    or document.id != claimed
                    or (record.problems and _settled_before(record.problems))
                ):
                    unsettled.append(path)
        else:
            claims = _Claims(records)
            # One pass over the records in path order, which is the order they were put in after a
            # walk (the dict's own, read as it lies): two passes, each looking every path up, took
            # twice as long at 100,000 documents.
            items: Iterable[tuple[str, Record]] = (
                records.items() if order == list(records) else [(path, records[path]) for path in order]
            )
            for path, record in items:
                document = record.document
                by_id[document.id] = path
                if document.valid is not True or (record.problems and _settled_before(record.problems)):
                    unsettled.append(path)
        if len(by_id) != len(records):  # an id claimed twice or more: the first file keeps it
            by_id = {}
            if type(claims) is _Claims:  # made in the first pass otherwise, in path order
                claims = {path: claims[path] for path in order}
            for path in order:
                doc_id = claims[path]
                first = by_id.setdefault(doc_id, path)
                if first != path:
                    shared.setdefault(doc_id, {first}).add(path)
        # `_settle` leaves a file as it is where it owns its id, is valid, holds the id it claims and
        # no problem a settling gave it: most files, 100,000 calls at a large open. A problem of any
        # other kind changes nothing there, nor does an id claimed twice elsewhere: only its
        # claimants give or take a fallback id. (One number shared among 10,000 decision records
        # settled every record again, each asking the flavour for its fallback id.) In path order,
        # as the first claimant of an id keeps it.
        if shared:
            unsettled = sorted(set(unsettled).union(*shared.values()))
        for path in unsettled:
            self._settle(records[path], claims[path], by_id, unreadable)
        self.by_id, self.shared, self._ids, self._key = by_id, shared, None, None
        if not self.flavour.native:
            self._resolve_links(records.values())
        return order

    def settle_paths(self, records: dict[str, Record], before: dict[str, str | None]) -> set[str]:
        """`settle_all` for a few changed files (the watcher's batches), giving the same result: only
        the ids those files claimed before (`before`: path -> id, None for a new file) or claim
        now are settled again, among the files that claim them. The ids whose documents changed."""
        claiming: dict[str, set[str]] = {doc_id: set() for doc_id in before.values() if doc_id is not None}
        for path in before:
            record = records.get(path)
            if record is not None:
                claiming.setdefault(self.claim(record), set()).add(path)
        unreadable = invalidating(self.flavour)
        released: set[str] = set()
        for path in before:  # a fallback id these files held is settled again with their claims
            fallback = self.flavour.fallback_id(path)
            if fallback is not None and self.by_id.get(fallback) == path and fallback not in claiming:
                del self.by_id[fallback]
                released.add(fallback)
        ids_moved = bool(released)
        fallbacks: set[str] = set()  # fallback ids given or taken back in this batch
        for doc_id, arrived in claiming.items():
            owner = self.by_id.get(doc_id)
            claimants = self.shared.get(doc_id) or ({owner} if owner is not None else set())
            claimants = {path for path in claimants if path not in before and path in records} | arrived
            ids_moved |= self._own(records, doc_id, claimants, unreadable, fallbacks)
        ids_moved |= bool(fallbacks)
        touched = set(claiming) | released | fallbacks
        if not self.flavour.native:
            if ids_moved:
                self._ids = self._key = None
            changed = records.values() if ids_moved else [records[p] for p in before if p in records]
            touched |= self._resolve_links(changed)
        return touched

    def _own(
        self,
        records: dict[str, Record],
        doc_id: str,
        claimants: set[str],
        unreadable: frozenset[str],
        fallbacks: set[str],
    ) -> bool:
        """Give `doc_id` to the first of the files claiming it and settle each of them; True when
        the id came or went. Fallback ids given or taken back are added to `fallbacks`."""
        if not claimants:
            self.shared.pop(doc_id, None)
            return self.by_id.pop(doc_id, None) is not None
        owner = min(claimants)  # as the first in sorted order
        came = self.by_id.get(doc_id) is None
        self.by_id[doc_id] = owner
        if len(claimants) > 1:
            self.shared[doc_id] = claimants
        else:
            self.shared.pop(doc_id, None)
        for path in sorted(claimants):
            fallback = self._settle(records[path], doc_id, self.by_id, unreadable)
            if fallback is not None:
                fallbacks.add(fallback)
        return came

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
        changes, and only new ones otherwise. A document read from the store whose links it keeps
        resolved among these very ids is taken as it is, its view left undecoded. Returns the
        ids of the documents that changed."""
        if self._key is None:
            self._key = ids_key(self.flavour, self.by_id)
        key = self._key
        changed: set[str] = set()
        for record in records:
            doc = record.document
            if doc.__dict__.get("view") is None or resolved_under(doc) == key:
                continue
            if self._ids is None:
                self._ids = Ids(list(self.by_id))
            view = self.flavour.resolve(doc.view, self._ids)
            if view is not doc.view:
                record.document = with_view(doc, view)
                changed.add(doc.id)
            if doc.digest:
                self._resolved.append((record.path, doc.digest, key, resolution_text(view)))
        return changed

    def take_resolved(self) -> list[tuple[str, str, str, str]]:
        """The resolutions made since the last call, for the derived store to keep."""
        found, self._resolved = self._resolved, []
        return found
