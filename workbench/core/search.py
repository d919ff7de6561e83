"""Search: a small query language over the derived full-text index, ranked for a curator.

    postgres vacuum type:entity -status:archived tag:database "row level" updated:>2026-06-01

Free words and quoted phrases go to SQLite FTS5 (BM25 with the title, id, tags and summary weighted
above the body, Porter stemming); filters narrow the result in Python. The ranking then blends in
what BM25 cannot see: how well the title matches as typed (rapidfuzz, which also forgives typos and
finds a document while its title is half typed), how many of the query's words the title, id and
tags cover, and the lifecycle: active documents first, a superseded one just below its successor,
which it names. Invalid documents appear only when asked for with `is:invalid`.
"""

from __future__ import annotations

import datetime as dt
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from . import display
from .model import Document, Status
from .parse import as_date
from .similarity import STOPWORDS

__all__ = ["Query", "Hit", "SearchResults", "parse_query", "search", "fts_expression", "FIELD_WEIGHTS"]

FIELD_WEIGHTS = (10.0, 6.0, 5.0, 4.0, 1.0)  # title, id, tags, summary, body
FILTERS = ("type", "status", "tag", "project", "links", "from", "is", "updated", "created", "id")
STATUS_WEIGHT = {Status.ACTIVE: 1.0, Status.DRAFT: 0.9, Status.DEPRECATED: 0.8, Status.ARCHIVED: 0.7, Status.SUPERSEDED: 0.75}
TOKEN = re.compile(r"[\w]+", re.UNICODE)
STALE_DAYS = 90


@dataclass
class Query:
    words: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    excluded_words: list[str] = field(default_factory=list)
    filters: list[tuple[str, str]] = field(default_factory=list)  # (name, value)
    excluded: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(self.words + self.phrases)


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

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "type": self.type, "status": self.status, "path": self.path, "score": round(self.score, 4)}

    def _repr_html_(self) -> str:
        return display.hits_html([self])


class SearchResults(list):
    """The hits of one search, best first: a plain list that remembers its query, and that a
    notebook shows as a ranked table."""

    def __init__(self, hits: Iterable[Hit] = (), query: str | None = None):
        super().__init__(hits)
        self.query = query

    def _repr_html_(self) -> str:
        return display.hits_html(self, self.query)

    def to_pandas(self):
        return display.frame(hit.to_json() for hit in self)


def parse_query(text: str) -> Query:
    """Split a query into words, phrases and filters; a malformed part is an error, not a crash."""
    query = Query()
    try:
        parts = shlex.split(text.replace("'", "\\'"), posix=True)
    except ValueError:
        parts = text.replace('"', " ").split()
    quoted = set(re.findall(r'"([^"]+)"', text))
    for part in parts:
        negative = part.startswith("-") and len(part) > 1
        body = part[1:] if negative else part
        name, sep, value = body.partition(":")
        if sep and name in FILTERS and value:
            (query.excluded if negative else query.filters).append((name, value))
        elif body in quoted and " " in body:
            if not negative:
                query.phrases.append(body)
        else:
            tokens = [t.lower() for t in TOKEN.findall(body)]
            (query.excluded_words if negative else query.words).extend(tokens)
    return query


def _fts_term(token: str, prefix: bool) -> str:
    return '"' + token.replace('"', '""') + '"' + ("*" if prefix else "")


def fts_expression(query: Query, prefix_last: bool = True, mode: str = "OR") -> str:
    """FTS5 MATCH text: the words joined with AND (every word) or OR (any, ranked by BM25), phrases
    as phrases, the last word also as a prefix so that results follow the typing."""
    terms: list[str] = []
    content = [w for w in query.words if w not in STOPWORDS] or query.words
    for index, word in enumerate(content):
        last = prefix_last and index == len(content) - 1 and len(word) >= 2
        if mode == "AND":
            # A half-typed last word is matched as a prefix of title, id and tag words only: in
            # bodies a short prefix matches thousands of words, and typing must stay quick.
            terms.append(f"({_fts_term(word, False)} OR {{title ident tags}} : {_fts_term(word, True)})" if last else _fts_term(word, False))
        else:
            terms.append(_fts_term(word, False))
            if last:
                terms.append("{title ident tags} : " + _fts_term(word, True))
    for phrase in query.phrases:
        terms.append('"' + phrase.replace('"', '""') + '"')
    expression = f" {mode} ".join(dict.fromkeys(terms))
    for word in query.excluded_words:
        expression = f"({expression}) NOT {_fts_term(word, False)}" if expression else ""
    return expression


class _Context:
    """What filters need to know about the vault, computed once per search."""

    def __init__(self, vault):
        self.vault = vault
        self._incoming: dict[str, set[str]] | None = None
        self.today = dt.date.today()

    @property
    def incoming(self) -> dict[str, set[str]]:
        if self._incoming is None:
            incoming: dict[str, set[str]] = {}
            for doc in self.vault.documents:
                for link in doc.links:
                    incoming.setdefault(link.target, set()).add(doc.id)
            self._incoming = incoming
        return self._incoming


def _date_test(value: str):
    match = re.fullmatch(r"(>=|<=|>|<|=)?(\d{4}-\d{2}-\d{2})", value)
    if not match:
        return None
    op, when = match.group(1) or "=", dt.date.fromisoformat(match.group(2))
    return {
        ">": lambda d: d > when, "<": lambda d: d < when, ">=": lambda d: d >= when, "<=": lambda d: d <= when, "=": lambda d: d == when,
    }[op]


def _matches(doc: Document, name: str, value: str, ctx: _Context) -> bool:
    value_l = value.lower()
    if name == "type":
        return doc.type == value_l
    if name == "status":
        return doc.status == value_l
    if name == "tag":
        return value_l in (t.lower() for t in doc.tags)
    if name == "project":
        return str(doc.meta.get("project", "")).lower() == value_l
    if name == "id":
        return value_l in doc.id
    if name == "links":
        return any(l.target == value for l in doc.links)
    if name == "from":
        try:
            source = ctx.vault.get(value)
        except Exception:  # noqa: BLE001 - an unknown id simply matches nothing
            return False
        return doc.id in {l.target for l in source.links}
    if name in ("updated", "created"):
        test = _date_test(value)
        date = as_date(doc.meta.get(f"{name}_at"))
        return bool(test and date and test(date))
    if name == "is":
        if value_l == "invalid":
            return not doc.valid
        if value_l == "valid":
            return doc.valid
        if value_l == "dangling":
            return any(l.target not in ctx.vault for l in doc.links)
        if value_l == "orphan":
            return not doc.links and not ctx.incoming.get(doc.id)
        if value_l == "stale":
            updated = as_date(doc.meta.get("updated_at"))
            return doc.status == Status.ACTIVE and bool(updated) and (ctx.today - updated).days > STALE_DAYS
        return doc.status == value_l or doc.type == value_l
    return False


class _Views:
    """Per-vault lookups that every search needs, rebuilt only when the records change."""

    def __init__(self, vault):
        self.generation = vault.generation
        records = vault.records
        self.by_path = {r.path: r.document for r in records}
        self.valid = {r.document.id: r.document for r in records if r.document.valid}
        self.everything = {r.document.id: r.document for r in records}
        self.titles = {doc_id: doc.title.lower() for doc_id, doc in self.valid.items()}
        self.haystacks = {doc_id: (doc.title + " " + doc.id + " " + " ".join(doc.tags)).lower() for doc_id, doc in self.everything.items()}


def _views(vault) -> _Views:
    views = getattr(vault, "_search_views", None)
    if views is None or views.generation != vault.generation:
        views = _Views(vault)
        vault._search_views = views
    return views


def search(vault, text: str, limit: int = 10, *, fuzzy: bool = True) -> SearchResults:
    """The best `limit` documents for a query, best first."""
    query = parse_query(text)
    ctx = _Context(vault)
    views = _views(vault)
    want_invalid = ("is", "invalid") in query.filters
    pool = views.everything if want_invalid else views.valid
    scores: dict[str, float] = {}
    words = [w for w in query.words if w not in STOPWORDS] or query.words
    if query.words or query.phrases:
        # Documents with every word first (cheap: an intersection), then any word to fill up.
        matches: list[tuple[str, float, float]] = []
        if vault.store is not None:
            every = fts_expression(query, mode="AND")
            matches = [(path, score, 1.0) for path, score in vault.store.match(every, FIELD_WEIGHTS, 200)] if every else []
            if len(matches) < max(limit, 20) and len(words) > 1:
                seen = {path for path, _, _ in matches}
                any_word = fts_expression(query, mode="OR")
                matches += [(path, score, 0.7) for path, score in vault.store.match(any_word, FIELD_WEIGHTS, 200) if path not in seen]
        best = max((score for _, score, _ in matches), default=0.0) or 1.0
        for path, score, share in matches:
            doc = views.by_path.get(path)
            if doc is not None and doc.id in pool:
                scores[doc.id] = 0.6 * share * (score / best)
        typed = " ".join(query.words)
        if fuzzy and query.words and not query.phrases and (len(scores) < limit or len(query.words) == 1):
            # Typos and half-typed titles that full text cannot match.
            for _, ratio, doc_id in process.extract(typed, views.titles, scorer=fuzz.partial_ratio, limit=20, score_cutoff=80, processor=None):
                if doc_id in pool:
                    scores[doc_id] = scores.get(doc_id, 0.0) + 0.25 * (ratio / 100)
        joined = " ".join(words)
        for doc_id in scores:
            haystack = views.haystacks[doc_id]
            title = views.titles.get(doc_id, haystack)
            coverage = sum(1 for w in words if w in haystack) / len(words) if words else 0.0
            scores[doc_id] += 0.15 * coverage + 0.1 * fuzz.partial_ratio(joined, title) / 100
            if title == typed.lower():
                scores[doc_id] += 0.3  # the title typed whole
            elif title.startswith(typed.lower()):
                scores[doc_id] += 0.1
    else:
        for doc in pool.values():
            updated = as_date(doc.meta.get("updated_at")) or dt.date.min
            scores[doc.id] = updated.toordinal() / 1e6  # filters alone: the most recently updated first

    hits: list[Hit] = []
    for doc_id, score in scores.items():
        doc = pool[doc_id]
        if any(not _matches(doc, n, v, ctx) for n, v in query.filters):
            continue
        if any(_matches(doc, n, v, ctx) for n, v in query.excluded):
            continue
        if query.words or query.phrases:
            score *= STATUS_WEIGHT.get(doc.status, 0.5)
        hits.append(Hit(doc.id, doc.path, doc.title, doc.type, doc.status, score, doc.superseded_by, doc.valid))
    typed = text.strip().lower()
    for hit in hits:
        if hit.id == typed:  # an id typed whole is the document asked for
            hit.score = max(h.score for h in hits) + 1.0
    hits.sort(key=lambda h: (-h.score, h.id))
    return SearchResults(_successors_first(hits)[:limit], text)


def _successors_first(hits: list[Hit]) -> list[Hit]:
    """A superseded document sits just below its successor when both are found."""
    position = {h.id: i for i, h in enumerate(hits)}
    ordered = list(hits)
    for hit in hits:
        if hit.status == Status.SUPERSEDED and hit.superseded_by:
            successor = next((s for s in hit.superseded_by if s in position), None)
            if successor is not None and position[successor] > position[hit.id]:
                ordered.remove(hit)
                ordered.insert(ordered.index(next(h for h in ordered if h.id == successor)) + 1, hit)
                position = {h.id: i for i, h in enumerate(ordered)}
    return ordered
