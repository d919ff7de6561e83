"""Search: a small query language over the derived full-text index, ranked for a curator.

    postgres vacuum type:entity -status:archived tag:database "row level" updated:>2026-06-01

The language is parsed in `query.py`; free words are ranked by BM25 (`fulltext.py`) over the
title, id, tags, summary and body (the first four weighted above the body; Porter stemming), with
a document needing none of the words in particular: a question asked weeks later rarely shares all
its words with the answer, and a document about the question beats a long one that merely has
every word. Words that ask rather than say ("how do I", "why did we", "the") are left out unless
the query has nothing else, and so is a word found in nearly every document. Quoted phrases must
appear; `-word` leaves out documents that have it; filters narrow the result in Python. This
module puts the pieces together and weighs what BM25 cannot know:

A query of at most three words is probably being typed, so the title as typed also counts: the
last word as the beginning of a title, id or tag word, a title typed whole or begun, and, when the
index finds too little, rapidfuzz's forgiving match of typos and half-typed titles. Then the
lifecycle: active documents first, and a superseded one just below its successor, which it names.
Invalid documents appear only when asked for with `is:invalid`; a search for words also names, apart
(`SearchResults.also_invalid`), the few invalid documents that match, each with its problem: the
document a curator must repair is found by its words, and is never taken for a valid hit.

A longer query is a question. Its neighbouring content words count a little more where a note
says them near each other (within a few words, in one field), as a phrase said loosely: "merge
conflicts" is more likely the subject of a note that says "conflicts when merging" than of one
with the two words pages apart.

A question often says in other words what the note says ("huge" for "large"). When the embedding
package is installed (semantic.py), the vault's words nearest each question word are asked for
too, at a lower weight, and the score blends BM25 with the question's cosine with each document;
the documents nearest in meaning join the candidates. Without it, search is full text alone: the
vault's own statistics were tried for this (feedback from the first results, words that occur
with the question's words) and did not rank better: they bring the topic's words, not synonyms.
"""

from __future__ import annotations

import datetime as dt
import heapq
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from ..vocabulary import presenting
from . import fulltext, semantic
from ..records.derived_store import fts_fields
from ..index import VaultIndex
from ..vocabulary.model import DocType, Document, QueryError, Status
from ..records.record import invalidating
from ..records.store_rows import StoredDocument, read_fields
from .fulltext import COMMON, FIELD_WEIGHTS, bm25, kept_postings
from .query import (
    FORMAT_VALUES,
    IS_VALUES,
    QUESTION_WORDS,
    SHORT,
    TOKEN,
    FilterContext,
    Query,
    content_words,
    fts_expression,
    matches,
    parse_query,
)

__all__ = [
    "Query",
    "Hit",
    "SearchResults",
    "find",
    "parse_query",
    "prepare",
    "search",
    "snippets",
    "fts_expression",
    "FIELD_WEIGHTS",
]

# The lifecycle weighs a score: what was put away (deprecated, archived) ranks below the live
# documents on its subject unless it matches far better (measured: the sample's probes stay ahead
# of plain BM25, and an archived note no longer ranks third among live ones).
STATUS_WEIGHT: dict[str, float] = {
    Status.ACTIVE: 1.0,
    Status.DRAFT: 0.9,
    Status.DEPRECATED: 0.45,
    Status.ARCHIVED: 0.35,
    Status.SUPERSEDED: 0.75,
}
# ...but a title that holds every word of a short query is what was asked for, whatever its status:
# there the lifecycle only breaks ties (an archived "Upgrade Postgres 15 to 16" ranked fifth for
# `postgres upgrade`, under a Stripe upgrade that shares one word).
TITLED_WEIGHT = 0.8
# Meaning (semantic.py), for a query longer than SHORT words: a question rather than a title typed.
MEANING_WEIGHT = 0.4  # the share of the score that is the question's cosine with the document
MEANING_DEPTH = 50  # documents nearest in meaning that may join those full text found
NEIGHBOURS = 2  # the vault's words nearest each question word, asked for as well...
NEIGHBOUR_SIMILARITY = 0.6  # ...when at least this near
NEIGHBOUR_WEIGHT = 0.3  # ...at this weight (times their cosine) against the word's own 1.0


@dataclass
class Hit:
    id: str
    path: str
    title: str
    type: str
    status: str
    score: float
    superseded_by: list[str] = field(default_factory=list)
    valid: bool = True
    problem: str = ""  # for an invalid document: what makes it so

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "type": self.type,
            "status": self.status,
            "path": self.path,
            "score": round(self.score, 4),
        }

    def _repr_html_(self) -> str | None:
        return presenting.render("hits_html", [self])


class SearchResults(list):
    """The hits of one search, best first: a plain list that remembers its query, and that a
    notebook shows as a ranked table."""

    def __init__(self, hits: Iterable[Hit] = (), query: str | None = None, also_invalid: Iterable[Hit] = ()):
        super().__init__(hits)
        self.query = query
        self.also_invalid = list(also_invalid)
        """Invalid documents the query's words also match (not hits: they are found with is:invalid)."""

    def _repr_html_(self) -> str | None:
        return presenting.render("hits_html", self, self.query)

    def to_pandas(self):
        return presenting.frame(hit.to_json() for hit in self)


FACTS_KEPT = 20_000  # documents' facts kept across writes (a few MB), beyond which all are read again


class _Views:
    """Per-vault lookups that searches need, made when first needed and followed through each
    watcher batch (`follow`, by the write itself once the process has searched): the whole-vault
    ones made again when next needed, what was read of each document kept but for the documents
    the batch touched."""

    def __init__(self, index):
        self._index = weakref.ref(index)  # kept by the index as key: a strong reference would keep it alive
        self.generation = index.generation
        self._forget_whole()
        self._facts: dict[str, _Facts] = {}
        self._tags: dict[str, str] = {}  # documents' tags as the store keeps them (`read_facts`)
        self._successors: dict[str, list[str]] = {}

    def follow(self, index: VaultIndex) -> None:
        """Bring the lookups to the index's generation: the whole-vault ones made again when next
        asked, what was read of each document forgotten for the ids changed since (the index's
        `id_log`), or for all where the log does not reach back (an open, a walk). The hits'
        facts read again after every write were a fifth of the first search after it."""
        touched = index.id_log.since(self.generation)
        self.generation = index.generation
        self._forget_whole()
        if touched is None or len(self._facts) > FACTS_KEPT:
            self._facts, self._tags, self._successors = {}, {}, {}
            return
        for doc_id in touched:
            self._facts.pop(doc_id, None)
            self._tags.pop(doc_id, None)
            self._successors.pop(doc_id, None)

    def _forget_whole(self) -> None:
        self._valid: dict[str, Document] | None = None
        self._everything: dict[str, Document] | None = None
        self._invalid: dict[str, Document] | None = None
        self._titles: dict[str, str] | None = None
        self._kinds: tuple[set[str], set[str]] | None = None

    @property
    def valid(self) -> dict[str, Document]:
        if self._valid is None:
            self._valid = {doc.id: doc for doc in self.everything.values() if doc.valid}
        return self._valid

    @property
    def invalid(self) -> dict[str, Document]:
        if self._invalid is None:
            index = self._index()
            if self._everything is None and index is not None and not index.any_invalid():
                self._invalid = {}  # the documents by id, made only to find none, are not made
            else:
                self._invalid = {doc_id: doc for doc_id, doc in self.everything.items() if not doc.valid}
        return self._invalid

    @property
    def everything(self) -> dict[str, Document]:
        if self._everything is None:
            index = self._index()
            found: dict[str, Document] = {}
            for record in index.records if index is not None else ():
                doc = record.document
                kept = found.get(doc.id)
                if kept is None or not kept.valid:  # a second claim never hides a valid owner
                    found[doc.id] = doc
            self._everything = found
        return self._everything

    @property
    def titles(self) -> dict[str, str]:
        """Every valid document's title, lowercased, for matching titles despite typos. Read from
        the derived store's rows where a row holds the very reading (its digest) the document was
        made from: decoding every document's meta for its title took seconds at 100,000 documents,
        and the dicts it left alive made the cycle collector walk them again and again (passes of
        up to a second, each holding the interpreter while the TUI's first search ran)."""
        if self._titles is None:
            index = self._index()
            stored = index.store.titles() if index is not None and index.store is not None else {}
            titles = {}
            for doc_id, doc in self.valid.items():
                row = stored.get(doc.path)
                if row is not None and doc.digest and row[0] == doc.digest:
                    titles[doc_id] = (row[1] or doc_id).lower()
                else:  # not stored, or stored as another reading: the document's own
                    titles[doc_id] = doc.title.lower()
            self._titles = titles
        return self._titles

    @property
    def kinds(self) -> tuple[set[str], set[str]]:
        """The types and statuses a filter may name: the format's and any the vault's files use."""
        if self._kinds is None:
            types = {str(t) for t in DocType} | {doc.type.lower() for doc in self.everything.values() if doc.type}
            statuses = {str(s) for s in Status} | {doc.status.lower() for doc in self.everything.values() if doc.status}
            self._kinds = (types, statuses)
        return self._kinds

    def read_facts(self, docs: Iterable[Document]) -> None:
        """Read from the derived store, in one query, what `facts` needs of those of `docs` not
        read yet: their type, status and title (the rows' `fields`) and their tags (as full text
        has them), each where the row holds the very reading the document was made from. Decoding
        a decision record's view for them took 0.05-0.2 ms, made at each hit shown the first time."""
        waiting = [doc for doc in docs if doc.id not in self._facts and doc.digest]
        index = self._index()
        if len(waiting) < 2 or index is None or index.store is None:
            return
        rows = index.store.shown(doc.path for doc in waiting)
        read_fields(waiting, lambda: {path: (digest, fields) for path, (digest, fields, _) in rows.items()})
        for doc in waiting:
            row = rows.get(doc.path)
            if row is not None and row[0] == doc.digest and type(doc) is StoredDocument:
                self._tags[doc.id] = row[2]

    def facts(self, doc: Document) -> _Facts:
        """What ranking and a hit read of a document found, read once: each is a property that
        may decode the document's meta, and a search asked them of 50 documents several times."""
        found = self._facts.get(doc.id)
        if found is None:
            tags = self._tags.pop(doc.id, None)
            if tags is None:
                tags = " ".join(doc.tags)
            title = doc.title
            if title == doc.id:  # the store keeps "" for a title that is the id, and for one that is ""
                title = Document.title.fget(doc)  # type: ignore[attr-defined]
            lowered = title.lower()
            found = self._facts[doc.id] = _Facts(
                title,
                lowered,
                tuple(TOKEN.findall(lowered)),
                doc.type,
                doc.status,
                (title + " " + doc.id + " " + tags).lower(),
            )
        return found

    def superseded_by(self, doc: Document) -> list[str]:
        """What a document is superseded by, read once: asked only of the hits shown and of those
        placed under a successor (decoding a decision record's links took 0.03 ms a hit)."""
        found = self._successors.get(doc.id)
        if found is None:
            found = self._successors[doc.id] = list(doc.superseded_by)
        return found


class _Facts(NamedTuple):
    title: str
    lowered: str  # the title lowercased
    words: tuple[str, ...]  # its words
    type: str
    status: str
    haystack: str  # title, id and tags, lowercased, where a word typed counts as found


# Each open index's lookups, kept here, not on the index: dropped with it.
_KEPT: weakref.WeakKeyDictionary[VaultIndex, _Views] = weakref.WeakKeyDictionary()


def _views(index: VaultIndex) -> _Views:
    views = _KEPT.get(index)
    if views is None:
        views = _KEPT[index] = _Views(index)
        if _ready_after_change not in index.after_change:
            index.after_change.append(_ready_after_change)
    elif views.generation != index.generation:
        views.follow(index)
    return views


def _ready_after_change(index: VaultIndex) -> None:
    """What the next search would do first after a batch of an index that has searched, done by
    the write: the kept lists patched for the index now (`word_lists`, 1-2 ms at 10,000 records,
    the new rows told to the tokenizer) and the lookups followed. The write has landed: a fault
    here forgets what was kept, and the next search makes it again (and says any fault there)."""
    try:
        if index.store is not None and index in fulltext.KEPT:
            fulltext.kept_postings(index)
        _views(index)
    except Exception:  # noqa: BLE001 - never turn a landed write into an error
        _KEPT.pop(index, None)
        fulltext.KEPT.pop(index, None)


def _refuse_meaningless(query: Query, views: _Views, index) -> None:
    """A filter that can match nothing because of a slip (`type:decsion`, `is:stael`, a month 13)
    is said, with what it could be, rather than answered with no documents."""
    errors = list(query.errors)
    for name, value in query.filters + query.excluded:
        value_l = value.lower()
        if name == "from" and value not in index:
            errors.append(f"from:{value}: no document has this id")
        if name not in FORMAT_VALUES or value_l in FORMAT_VALUES[name]:
            continue  # a free value, or one of the format's own: no need to look through the vault's
        types, statuses = views.kinds
        if name == "type" and value_l not in types:
            errors.append(f"type:{value}: no such type (types: {', '.join(sorted(types))})")
        elif name == "status" and value_l not in statuses:
            errors.append(f"status:{value}: no such status (statuses: {', '.join(sorted(statuses))})")
        elif name == "is" and value_l not in IS_VALUES and value_l not in types and value_l not in statuses:
            errors.append(f"is:{value}: not something a document can be ({', '.join(IS_VALUES)}, a type or a status)")
    if errors:
        raise QueryError("; ".join(errors))


def find(index: VaultIndex, text: str, limit: int = 10) -> SearchResults:
    """`search`, as the vault answers it: the slow parts first without holding the index (encoding
    a question's meaning), and a derived store found broken meanwhile rebuilt and asked again."""
    prepare(index, text)
    with index.mutex:
        index.mend_store()
        results = search(index, text, limit)
        if index.mend_store():
            results = search(index, text, limit)
        return results


def search(index: VaultIndex, text: str, limit: int = 10, *, fuzzy: bool = True) -> SearchResults:
    """The best `limit` documents for a query, best first; `QueryError` for a filter that cannot
    match anything as written (a type that does not exist, a date that is not one)."""
    query = parse_query(text)
    ctx = FilterContext(index)
    views = _views(index)
    filtered = bool(query.filters or query.excluded)
    if filtered:
        _refuse_meaningless(query, views, index)
    want_invalid = ("is", "invalid") in query.filters

    def admitted(doc: Document) -> bool:
        return not filtered or (
            all(matches(doc, n, v, ctx) for n, v in query.filters)
            and not any(matches(doc, n, v, ctx) for n, v in query.excluded)
        )

    seen: dict[str, Document] = {}  # the documents full text found and the filters admitted

    def wanted(path: str) -> Document | None:
        doc = index.document_at(path)
        if doc is None or not (want_invalid or doc.valid) or not admitted(doc):
            return None
        seen[doc.id] = doc
        return doc

    def pool() -> dict[str, Document]:  # every document a search may return: made only if needed
        return views.everything if want_invalid else views.valid

    def lookup(doc_id: str) -> Document:
        return seen.get(doc_id) or pool()[doc_id]

    scores: dict[str, float] = {}
    if query.words or query.phrases:
        meaning = _meaning(index) if len(query.words) > SHORT else None
        related = _related(meaning, query) if meaning is not None else None
        # More than asked for: a superseded document found further down is placed below its successor.
        found = bm25(kept_postings(index), query, wanted, max(limit, 30), related) if index.store is not None else {}
        best = max(found.values(), default=0.0) or 1.0
        scores = {doc_id: score / best for doc_id, score in found.items()}
        if meaning is not None:
            _blend_meaning(scores, meaning, query, pool(), admitted)
        typed = " ".join(query.words).lower()
        if len(query.words) <= SHORT and not query.phrases and query.words:
            _title_as_typed(scores, typed, views, lookup, admitted, limit if fuzzy else 0)
    else:
        for doc in pool().values():
            if admitted(doc):
                updated = doc.updated or dt.date.min
                scores[doc.id] = updated.toordinal() / 1e6  # filters alone: the most recently updated first
        _keep_newest(scores, limit, text.strip().lower())

    hits: list[Hit] = []
    short = query.words if len(query.words) <= SHORT and not query.phrases else []
    views.read_facts(lookup(doc_id) for doc_id in scores)
    later: dict[str, Document] = {}  # hits whose successors are read only if shown
    for doc_id, score in scores.items():
        doc = lookup(doc_id)
        facts = views.facts(doc)
        placed = facts.status == Status.SUPERSEDED  # what `_successors_first` reads
        if query.words or query.phrases:
            weight = STATUS_WEIGHT.get(facts.status, 0.5)
            score *= max(weight, TITLED_WEIGHT) if short and _titled(facts.words, short) else weight
        hits.append(
            Hit(
                doc.id,
                doc.path,
                facts.title,
                facts.type,
                facts.status,
                score,
                list(views.superseded_by(doc)) if placed else [],
                doc.valid,
                "" if doc.valid else _problem(index, doc),
            )
        )
        if not placed:
            later[doc.id] = doc
    typed_whole = text.strip().lower()
    for hit in hits:
        if hit.id == typed_whole:  # an id typed whole is the document asked for
            hit.score = max(h.score for h in hits) + 1.0
    # The lifecycle, then the score: what is live first (active, draft, a flavour's own statuses),
    # then what was put away (deprecated, archived); a superseded document under its successor.
    hits.sort(key=lambda h: (-h.score, h.id))
    also: list[Hit] = []
    if (query.words or query.phrases) and not want_invalid and index.store is not None and views.invalid:
        also = _invalid_matches(index, query, admitted)
    shown = _successors_first(hits)[:limit]
    for hit in shown:
        if hit.id in later:
            hit.superseded_by = list(views.superseded_by(later[hit.id]))
    return SearchResults(shown, text, also)


INVALID_SHOWN = 5


def _invalid_matches(index: VaultIndex, query: Query, admitted: Callable[[Document], bool]) -> list[Hit]:
    """The invalid documents the query's words match best, each with its problem."""

    def wanted(path: str) -> Document | None:
        doc = index.document_at(path)
        return doc if doc is not None and not doc.valid and admitted(doc) else None

    postings = kept_postings(index)
    among = postings.store.rowids(doc.path for doc in _views(index).invalid.values())
    found = bm25(postings, query, wanted, INVALID_SHOWN, among=among)
    best = sorted(found, key=lambda doc_id: (-found[doc_id], doc_id))[:INVALID_SHOWN]
    hits = []
    for doc_id in best:
        doc = _views(index).invalid.get(doc_id)
        if doc is not None:
            hits.append(
                Hit(
                    doc.id,
                    doc.path,
                    doc.title,
                    doc.type,
                    doc.status,
                    found[doc_id],
                    doc.superseded_by,
                    False,
                    _problem(index, doc),
                )
            )
    return hits


def _problem(index: VaultIndex, doc: Document) -> str:
    """What makes a document invalid, in words (its first such problem)."""
    codes = invalidating(index.flavour)
    problems = index.problems_at(doc.path)
    first = next((p for p in problems if p.code in codes), problems[0] if problems else None)
    return f"{first.code}: {first.message}" if first else "invalid"


def _titled(held: tuple[str, ...], words: list[str]) -> bool:
    """Whether every word begins a word of a title, `held` its words lowercased (`postgres
    upgrade`, `Upgrade Postgres 15 to 16`)."""
    return all(any(w.startswith(word.lower()) for w in held) for word in words)


def _keep_newest(scores: dict[str, float], limit: int, typed_whole: str) -> None:
    """Filters alone (a blank query lists the whole vault) keep only their `limit` newest documents
    and one whose id was typed whole: making a hit reads the document's meta, and reading every
    meta of 10,000 documents to list 200 took a tenth of a second at each launch. As in a search
    for words, a superseded document is placed under its successor when both are kept."""
    if len(scores) <= limit:
        return
    kept = set(heapq.nsmallest(limit, scores, key=lambda doc_id: (-scores[doc_id], doc_id)))
    kept.add(typed_whole)
    for doc_id in [doc_id for doc_id in scores if doc_id not in kept]:
        del scores[doc_id]


def snippets(index: VaultIndex, text: str, hits: Iterable[Hit]) -> dict[str, str]:
    """{hit id: a few words of its text around the query's words}, the words found between \x02
    and \x03, so that a person sees why each document matched; empty for filters alone."""
    query = parse_query(text)
    expression = fts_expression(query, prefix_last=len(query.words) <= SHORT)
    hits = list(hits)
    if not expression or index.store is None or not hits:
        return {}
    by_path = index.store.snippets(expression, [hit.path for hit in hits])
    return {hit.id: by_path[hit.path] for hit in hits if by_path.get(hit.path)}


def _documents(index: VaultIndex) -> list[tuple[str, str, str, Document]]:
    return [(r.path, r.document.id, r.document.digest or r.path, r.document) for r in index.records]


def _meaning(index: VaultIndex) -> semantic.Index | None:
    return semantic.index(index, _documents, fts_fields)


def prepare(index: VaultIndex, text: str) -> None:
    """What a query will need that is slow to make, made before the search takes the vault's lock:
    for a question, the meaning index (seconds to encode a large vault the first time)."""
    if len(parse_query(text).words) > SHORT:
        _meaning(index)


def _related(meaning: semantic.Index, query: Query) -> dict[str, float]:
    """The vault's words near the question's in meaning, each at a weight below the words' own;
    words the question already has, and common ones, are left out."""
    words = content_words(query.words)
    if words == list(query.words) and all(w in QUESTION_WORDS for w in words):
        return {}
    asked = set(words)
    total = max(len(meaning.ids), 1)
    related: dict[str, float] = {}
    for word in dict.fromkeys(words):
        if len(word) < 3 or word.isdigit():
            continue
        for near, similarity in meaning.neighbours(word, NEIGHBOURS, NEIGHBOUR_SIMILARITY):
            if near in asked or near in QUESTION_WORDS or meaning.frequency.get(near, 0) > total * COMMON:
                continue
            related[near] = max(related.get(near, 0.0), NEIGHBOUR_WEIGHT * similarity)
    return related


def _blend_meaning(
    scores: dict[str, float],
    meaning: semantic.Index,
    query: Query,
    pool: dict[str, Document],
    admitted: Callable[[Document], bool],
) -> None:
    """Blend full text (already scaled to its best, 1.0) with the question's cosine with each
    document, scaled from the vault's median (0) to the best (1); the documents nearest in meaning
    join the candidates, unless the query requires or rules out words (what full text checks)."""
    import numpy as np

    text = " ".join(content_words(query.words) + query.phrases)
    similarity = meaning.similarities(text)
    if not len(similarity):
        return
    high, middle = float(similarity.max()), float(np.median(similarity))
    span = high - middle
    if span <= 1e-9:
        return

    def near(doc_id: str) -> float:
        row = meaning.row.get(doc_id)
        return max(0.0, (float(similarity[row]) - middle) / span) if row is not None else 0.0

    blended = {doc_id: (1 - MEANING_WEIGHT) * score + MEANING_WEIGHT * near(doc_id) for doc_id, score in scores.items()}
    if not query.phrases and not query.excluded_words:
        depth = min(MEANING_DEPTH, len(similarity))
        best = np.argpartition(-similarity, depth - 1)[:depth]
        for row in best:
            doc_id = meaning.ids[int(row)]
            if doc_id not in blended and doc_id in pool and admitted(pool[doc_id]):
                blended[doc_id] = MEANING_WEIGHT * near(doc_id)
    scores.clear()
    scores.update(blended)


TYPO_MATCHES = 20
TYPO_CHUNK = 2000
"""Titles matched despite typos per call of rapidfuzz: it holds the interpreter while it runs
(0.1-0.3 s over 100,000 titles, a screen frozen as long), and between calls a thread waiting for
the interpreter (the TUI's) gets it."""


def _typo_matches(typed: str, titles: dict[str, str]) -> list[tuple[str, float]]:
    """(id, ratio) of the `TYPO_MATCHES` titles `typed` matches best despite typos (rapidfuzz's
    partial ratio, at least 80), best first and in the titles' order among equals: what one call
    over every title gives, in calls of `TYPO_CHUNK` titles."""
    from rapidfuzz import fuzz, process

    ids, texts = list(titles), list(titles.values())
    found: list[tuple[float, int]] = []
    for start in range(0, len(texts), TYPO_CHUNK):
        chunk = texts[start : start + TYPO_CHUNK]
        found += [
            (ratio, start + at)
            for _, ratio, at in process.extract(
                typed, chunk, scorer=fuzz.partial_ratio, limit=TYPO_MATCHES, score_cutoff=80, processor=None
            )
        ]
    found.sort(key=lambda match: (-match[0], match[1]))
    return [(ids[at], ratio) for ratio, at in found[:TYPO_MATCHES]]


def _title_as_typed(
    scores: dict[str, float],
    typed: str,
    views: _Views,
    lookup: Callable[[str], Document],
    admitted: Callable[[Document], bool],
    fuzzy_below: int,
) -> None:
    """What a short query adds: titles typed whole or begun, the words in title, id and tags, and,
    when full text found fewer than `fuzzy_below` documents, titles matched despite typos."""
    from rapidfuzz import fuzz  # a short query's first: a long question never needs it

    if len(scores) < fuzzy_below:
        for doc_id, ratio in _typo_matches(typed, views.titles):
            if admitted(views.valid[doc_id]):
                scores[doc_id] = scores.get(doc_id, 0.0) + 0.25 * (ratio / 100)
    words = typed.split()
    views.read_facts(lookup(doc_id) for doc_id in scores)
    for doc_id in scores:
        doc = lookup(doc_id)
        facts = views.facts(doc)
        haystack = facts.haystack
        title = facts.lowered if doc.valid else haystack
        coverage = sum(1 for w in words if w in haystack) / len(words)
        scores[doc_id] += 0.15 * coverage + 0.1 * fuzz.partial_ratio(typed, title) / 100
        if title == typed:
            scores[doc_id] += 0.3  # the title typed whole
        elif title.startswith(typed):
            scores[doc_id] += 0.1


def _successors_first(hits: list[Hit]) -> list[Hit]:
    """A superseded document sits just below its successor when both are found: below it, because
    the successor is the current word on the subject, and just below, because a question about the
    subject may be about what was decided before."""
    found = {h.id for h in hits}
    below: dict[str, list[Hit]] = {}  # successor id: the superseded documents placed under it
    placed_under: dict[str, str] = {}
    for hit in hits:
        if hit.status == Status.SUPERSEDED:
            successor = next((s for s in hit.superseded_by if s in found and s != hit.id), None)
            if successor is not None:
                placed_under[hit.id] = successor
    for hit in hits:  # in a cycle of supersession, the best found stays where it is
        seen, at = {hit.id}, placed_under.get(hit.id)
        while at is not None and at not in seen:
            seen.add(at)
            at = placed_under.get(at)
        if at == hit.id:
            placed_under.pop(hit.id)
    for hit in hits:
        if hit.id in placed_under:
            below.setdefault(placed_under[hit.id], []).append(hit)
    ordered: list[Hit] = []
    for hit in hits:
        if hit.id not in placed_under:
            stack = [hit]
            while stack:  # each one, then the documents it superseded (and theirs), best first
                placed = stack.pop()
                ordered.append(placed)
                stack.extend(reversed(below.get(placed.id, ())))
    return ordered
