"""The vault's graph kept in step with its documents, for a vault that stays open.

Building the graph whole takes a quarter of a second at 10,000 documents, and a long-lived vault
(the TUI's, an agent's) changes a few files at a time. So the graph is built once and then changed
only where documents changed: each document's file states some edges (its links, its supersession
fields), an edge stays while any file states it, and a node is a document, a placeholder for an id
that edges name but no valid document has, or nothing. Which documents changed it learns from the
vault's `IdLog` (the ids each batch touched); only when the log cannot say (after an open or a
walk, or a long while unasked) does it look at every record.

Readers get frozen snapshots that share the unchanged parts. networkx keeps a graph as three
dictionaries (node attributes, successors, predecessors) of per-node dictionaries; here a per-node
dictionary is never changed once a snapshot may hold it, only replaced, so a snapshot is three
shallow copies (a millisecond at 10,000 documents) and never changes under its reader.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import networkx as nx

from ..records.store_rows import read_fields, read_relations
from ..vocabulary.sorting import sorted_in_pieces
from .graph import document_node, placeholder_node, stated_edges

if TYPE_CHECKING:
    from ..index import VaultIndex
    from ..vocabulary.model import Document

__all__ = ["LiveGraph"]

Edge = tuple[str, str, str]
Keyed = dict[str, dict[str, Any]]  # an edge type -> its attributes, for one (source, target) pair


class LiveGraph:
    """A graph of the vault that `sync` brings up to date, changing only what changed."""

    def __init__(self) -> None:
        self._node: dict[str, dict[str, Any]] = {}
        self._succ: dict[str, dict[str, Keyed]] = {}
        self._pred: dict[str, dict[str, Keyed]] = {}
        self._shown: dict[str, Document] = {}  # the valid documents the graph holds, as last seen
        self._invalid: set[str] = set()
        self._stating: dict[Edge, str | set[str]] = {}  # edge -> the id, or ids, of the documents whose files state it
        self._stated: dict[str, list[Edge]] = {}  # document id -> the edges its file states
        self._snapshot: nx.MultiDiGraph | None = None
        self._generation: int | None = None
        self._lock = threading.Lock()  # one sync at a time

    def sync(self, index: VaultIndex) -> nx.MultiDiGraph:
        """The graph as the vault is now: a frozen snapshot, the same object while nothing changes.

        Only what changed is looked up under the vault's mutex (the documents are never changed in
        place, only replaced); the edges are worked out after it is released: on a large vault
        that takes seconds the first time, and a search must not wait for them. The graph's own
        lock is never held together with the vault's mutex, so neither can wait for the other."""
        while True:
            with index.mutex:
                generation, base = index.generation, self._generation
                if self._snapshot is not None and generation == base:
                    return self._snapshot  # the records have not moved since
                ids = index.id_log.since(base) if self._snapshot is not None else None
                if ids is None:
                    seen: list[Document] | dict[str, Document | None] = [r.document for r in index.iter_records()]
                else:
                    seen = {doc_id: index.owner_document(doc_id) for doc_id in ids}
                store = index.store
            if isinstance(seen, list) and store is not None:
                # Every document's links and supersessions, from the store's fields in one query
                # and one parse, rather than from each meta decoded (most of a first sync).
                read_fields(seen, store.fields)
                read_relations(seen)
            with self._lock:
                if self._generation != base:
                    continue  # another thread brought the graph up to date meanwhile: look again
                return self._apply(seen, generation)

    def _apply(self, seen: list[Document] | dict[str, Document | None], generation: int) -> nx.MultiDiGraph:
        changed, touched = self._scan(seen) if isinstance(seen, list) else self._follow(seen)
        self._generation = generation
        for doc_id in sorted_in_pieces(changed):
            self._restate(doc_id, touched)
        for node in sorted_in_pieces(touched):
            self._place(node)
        if touched or self._snapshot is None:
            snapshot = nx.MultiDiGraph()
            snapshot._node.update(self._node)
            snapshot._succ.update(self._succ)
            snapshot._pred.update(self._pred)
            self._snapshot = nx.freeze(snapshot)
        return self._snapshot

    def _scan(self, every: list[Document]) -> tuple[set[str], set[str]]:
        """Find what changed by looking at every document: for when the vault cannot say (after an
        open or a walk, or when its log no longer reaches back to the last sync)."""
        documents: dict[str, Document] = {}
        invalid: set[str] = set()
        changed: set[str] = set()
        shown = self._shown
        # Records are replaced, never changed in place: a document that is not the same object changed.
        for doc in every:
            if doc.valid:
                documents[doc.id] = doc
                if shown.get(doc.id) is not doc:
                    changed.add(doc.id)
            else:
                invalid.add(doc.id)
        invalid -= documents.keys()
        changed.update(shown.keys() - documents.keys())
        touched = changed | (invalid ^ self._invalid)
        self._shown, self._invalid = documents, invalid
        return changed, touched

    def _follow(self, owners: dict[str, Document | None]) -> tuple[set[str], set[str]]:
        """Look only at the ids the vault says changed, each with what its owning file holds now.
        Only the file that owns an id can hold a valid document of it (every other claimant is an
        invalid duplicate), so the owner alone says whether the id is shown, invalid, or neither."""
        changed: set[str] = set()
        touched: set[str] = set()
        for doc_id, doc in owners.items():
            if doc is not None and doc.valid:
                if self._shown.get(doc_id) is not doc:
                    self._shown[doc_id] = doc
                    changed.add(doc_id)
            elif self._shown.pop(doc_id, None) is not None:
                changed.add(doc_id)
            invalid = doc is not None and not doc.valid
            if invalid != (doc_id in self._invalid):
                (self._invalid.add if invalid else self._invalid.discard)(doc_id)
                touched.add(doc_id)
        return changed, touched | changed

    def _restate(self, doc_id: str, touched: set[str]) -> None:
        """Replace the edges a document's file states with those it states now. An edge one file
        states (nearly all) keeps that file's id, not a set of one: a first sync at 100,000
        documents made 150,000 sets, and the collections of the heap they set off were a third
        of its time."""
        for edge in self._stated.pop(doc_id, ()):
            stating = self._stating[edge]
            if isinstance(stating, set):
                stating.discard(doc_id)
                if len(stating) > 1:
                    continue
                if stating:
                    self._stating[edge] = next(iter(stating))
                    continue
            del self._stating[edge]
            self._remove_edge(*edge)
            touched.update(edge[:2])
        doc = self._shown.get(doc_id)
        if doc is None:
            return
        edges = self._stated[doc_id] = stated_edges(doc)
        for edge in edges:
            stated = self._stating.get(edge)
            if stated is None:
                self._stating[edge] = doc_id
                self._add_edge(*edge)
                touched.update(edge[:2])
            elif isinstance(stated, set):
                stated.add(doc_id)
            elif stated != doc_id:
                self._stating[edge] = {stated, doc_id}

    # Every change below replaces the per-node dictionaries it touches: snapshots share them.

    def _ensure(self, node: str) -> None:
        if node not in self._node:
            self._node[node] = {}
            self._succ[node] = {}
            self._pred[node] = {}

    def _add_edge(self, source: str, target: str, kind: str) -> None:
        self._ensure(source)
        self._ensure(target)
        if self._snapshot is None:  # the first sync: no snapshot holds a dictionary yet, change them in place
            keyed = self._succ[source].get(target)
            if keyed is None:
                keyed = self._succ[source][target] = self._pred[target][source] = {}
            keyed[kind] = {"type": kind}
            return
        keyed = {**self._succ[source].get(target, {}), kind: {"type": kind}}
        self._succ[source] = {**self._succ[source], target: keyed}
        self._pred[target] = {**self._pred[target], source: keyed}

    def _remove_edge(self, source: str, target: str, kind: str) -> None:
        keyed = {key: data for key, data in self._succ[source][target].items() if key != kind}
        if keyed:
            self._succ[source] = {**self._succ[source], target: keyed}
            self._pred[target] = {**self._pred[target], source: keyed}
        else:
            self._succ[source] = {t: k for t, k in self._succ[source].items() if t != target}
            self._pred[target] = {s: k for s, k in self._pred[target].items() if s != source}

    def _place(self, node: str) -> None:
        """Give a node the attributes it has now, or remove it when nothing holds it."""
        doc = self._shown.get(node)
        if doc is not None:
            self._ensure(node)
            self._node[node] = document_node(doc)
        elif node in self._node and (self._succ[node] or self._pred[node]):
            self._node[node] = placeholder_node(node, self._invalid)
        elif node in self._node:
            del self._node[node], self._succ[node], self._pred[node]
