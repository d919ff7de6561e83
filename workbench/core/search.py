"""Search: a small query language over the derived full-text index, ranked for a curator.

    postgres vacuum type:entity -status:archived tag:database "row level" updated:>2026-06-01

Free words are ranked by BM25 over the title, id, tags, summary and body (the first four weighted
above the body; Porter stemming), with a document needing none of the words in particular: a
question asked weeks later rarely shares all its words with the answer, and a document about the
question beats a long one that merely has every word. Words that ask rather than say ("how do I",
"why did we", "the") are left out unless the query has nothing else, and so is a word found in
nearly every document. SQLite FTS5 is asked one word at a time and its bm25() is undone to recover
each document's term frequencies, so that the ranking can use its own idf and a little less
saturation and more length normalisation than FTS5's fixed constants. Quoted phrases must appear;
`-word` leaves out documents that have it; filters narrow the result in Python.

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
import math
import re
import shlex
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from . import presenting, semantic
from .derived_store import fts_fields
from .index import VaultIndex
from .model import DocType, Document, QueryError, Status
from .parse import as_date
from .records import invalidating
from .similarity import STOPWORDS

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

FIELD_WEIGHTS = (10.0, 6.0, 5.0, 4.0, 1.0)  # title, id, tags, summary, body
K1, B = 2.0, 0.9  # BM25: term frequency saturation and length normalisation
FTS_K1, FTS_B = 1.2, 0.75  # FTS5's bm25() constants, undone to recover each row's term frequency
EXACT_BATCH = 50  # candidates scored exactly at a time, in the order of a first estimate
PREFIX_WEIGHT = 0.5  # the half-typed last word, as a prefix of title, id and tag words
SHORT = 3  # words: a query this short is probably being typed, and the title as typed counts
COMMON = 0.9  # share of documents a word is in beyond which it is not weighed
POSTINGS_KEPT = 100_000  # rows of per-term results kept between searches (a few MB)
CATCH_UP_MOST = 2_000  # rows changed since a term's results were kept beyond which it is asked again
FILTERS = ("type", "status", "tag", "project", "links", "from", "is", "updated", "created", "id")
IS_VALUES = ("invalid", "valid", "dangling", "orphan", "stale")  # and any type or status
FORMAT_VALUES = {  # what each of these filters may name in any vault (a vault's own files may add more)
    "type": frozenset(str(t) for t in DocType),
    "status": frozenset(str(s) for s in Status),
    "is": frozenset(IS_VALUES) | {str(t) for t in DocType} | {str(s) for s in Status},
}
DATE_FILTER = re.compile(r"(>=|<=|>|<|=)?(\d{4}-\d{2}-\d{2})")
# The lifecycle weighs a score: what was put away (deprecated, archived) ranks below the live
# documents on its subject unless it matches far better (measured: the sample's probes stay ahead
# of plain BM25, and an archived note no longer ranks third among live ones).
STATUS_WEIGHT = {
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
TOKEN = re.compile(r"[\w]+", re.UNICODE)
# Words that ask rather than say: left out of the ranking unless the query has nothing else.
QUESTION_WORDS = STOPWORDS | frozenset(
    """i me my mine myself he him his she her hers am been being would could might shall let lets get gets
    got s t d m ll re ve don doesn didn isn aren wasn weren won wouldn couldn shouldn hasn haven hadn
    now still ever really even again already""".split()
)
STALE_DAYS = 90
# A question's neighbouring content words found near each other in one field ("merge conflicts"),
# for a query longer than SHORT words: a little more than the same words apart.
NEAR_WEIGHT = 0.1  # a pair's weight against a word's own 1.0 (scored as one hit in a title)
NEAR_WINDOW = 5  # at most this many words between them, in either order
# Meaning (semantic.py), for a query longer than SHORT words: a question rather than a title typed.
MEANING_WEIGHT = 0.4  # the share of the score that is the question's cosine with the document
MEANING_DEPTH = 50  # documents nearest in meaning that may join those full text found
NEIGHBOURS = 2  # the vault's words nearest each question word, asked for as well...
NEIGHBOUR_SIMILARITY = 0.6  # ...when at least this near
NEIGHBOUR_WEIGHT = 0.3  # ...at this weight (times their cosine) against the word's own 1.0


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


def parse_query(text: str) -> Query:
    """Split a query into words, phrases and filters; a malformed part is an error, not a crash."""
    query = Query()
    try:
        parts = shlex.split(text.replace("'", "\\'"), posix=True)
    except ValueError:
        parts = text.replace('"', " ").split()
    quoted = set(re.findall(r'"([^"]+)"', text))
    for part in parts:
        # `-word` leaves a word out; a command's flag pasted into a question (`git -C`, `wc -c`,
        # `--force`) is a word like any other, not a request to drop every note that says "c".
        negative = part.startswith("-") and len(part) > 2 and part[1] != "-"
        body = part[1:] if negative else part
        name, sep, value = body.partition(":")
        if sep and name in FILTERS and value:
            (query.excluded if negative else query.filters).append((name, value))
            if name in ("updated", "created") and _date_test(value) is None:
                query.errors.append(f"{body}: not a date; write {name}:2026-01-31, or with >, >=, < or <= before it")
        elif body in quoted and " " in body:
            if not negative:
                query.phrases.append(body)
        else:
            tokens = [t.lower() for t in TOKEN.findall(body)]
            (query.excluded_words if negative else query.words).extend(tokens)
    return query


def _fts_term(token: str, prefix: bool) -> str:
    return '"' + token.replace('"', '""') + '"' + ("*" if prefix else "")


def _content(words: list[str]) -> list[str]:
    return [w for w in words if w not in QUESTION_WORDS] or list(words)


def fts_expression(query: Query, prefix_last: bool = True) -> str:
    """One FTS5 MATCH text for the whole query: its content words OR-ed, the last word also as a
    prefix of title, id and tag words, phrases required, `-word`s left out. (The ranking asks FTS5
    one term at a time; this is the same search as one expression, for a plain BM25 list.)"""
    terms = [_fts_term(word, False) for word in dict.fromkeys(_content(query.words))]
    last = query.words[-1] if prefix_last and query.words else ""
    if len(last) >= 2:
        terms.append("{title ident tags} : " + _fts_term(last, True))
    expression = " OR ".join(dict.fromkeys(terms))
    for phrase in query.phrases:
        quoted = '"' + phrase.replace('"', '""') + '"'
        expression = f"({expression}) AND {quoted}" if expression else quoted
    for word in query.excluded_words:
        expression = f"({expression}) NOT {_fts_term(word, False)}" if expression else ""
    return expression


class _Context:
    """What filters need to know about the vault, computed once per search."""

    def __init__(self, index):
        self.index = index
        self._incoming: dict[str, set[str]] | None = None
        self.today = dt.date.today()

    @property
    def incoming(self) -> dict[str, set[str]]:
        if self._incoming is None:
            incoming: dict[str, set[str]] = {}
            for doc in self.index.documents:
                for link in doc.links:
                    incoming.setdefault(link.target, set()).add(doc.id)
            self._incoming = incoming
        return self._incoming


def _date_test(value: str):
    """A test of a date for `>2026-01-31` and the like; None when the value is not one."""
    match = DATE_FILTER.fullmatch(value)
    if not match:
        return None
    try:
        when = dt.date.fromisoformat(match.group(2))
    except ValueError:  # 2026-13-01
        return None
    op = match.group(1) or "="
    return {
        ">": lambda d: d > when,
        "<": lambda d: d < when,
        ">=": lambda d: d >= when,
        "<=": lambda d: d <= when,
        "=": lambda d: d == when,
    }[op]


def _matches(doc: Document, name: str, value: str, ctx: _Context) -> bool:
    value_l = value.lower()
    if name == "type":  # a flavour's own words keep their case (OKF's "Person"); a filter ignores it
        return doc.type.lower() == value_l
    if name == "status":
        return doc.status.lower() == value_l
    if name == "tag":
        return value_l in (t.lower() for t in doc.tags)
    if name == "project":
        return str(doc.meta.get("project", "")).lower() == value_l
    if name == "id":  # `id:adr-018` finds ADR-018: ids keep their case, a filter ignores it
        return value_l in doc.id.lower()
    if name == "links":
        return any(l.target == value for l in doc.links)
    if name == "from":
        try:
            source = ctx.index.get(value)
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
            return any(l.target not in ctx.index for l in doc.links)
        if value_l == "orphan":
            return not doc.links and not ctx.incoming.get(doc.id)
        if value_l == "stale":
            updated = as_date(doc.meta.get("updated_at"))
            return doc.status == Status.ACTIVE and bool(updated) and (ctx.today - updated).days > STALE_DAYS
        return doc.status.lower() == value_l or doc.type.lower() == value_l
    return False


class _Views:
    """Per-vault lookups that searches need, made when first needed and kept while the records stay
    the same: after a watcher batch, a search for words needs none of the whole-vault ones."""

    def __init__(self, index):
        self._index = weakref.ref(index)  # kept on the index: a strong reference would make a cycle
        self.generation = index.generation
        self._valid: dict[str, Document] | None = None
        self._everything: dict[str, Document] | None = None
        self._invalid: dict[str, Document] | None = None
        self._titles: dict[str, str] | None = None
        self._haystacks: dict[str, str] = {}
        self._kinds: tuple[set[str], set[str]] | None = None

    @property
    def valid(self) -> dict[str, Document]:
        if self._valid is None:
            self._valid = {doc.id: doc for doc in self.everything.values() if doc.valid}
        return self._valid

    @property
    def invalid(self) -> dict[str, Document]:
        if self._invalid is None:
            self._invalid = {doc_id: doc for doc_id, doc in self.everything.items() if not doc.valid}
        return self._invalid

    @property
    def everything(self) -> dict[str, Document]:
        if self._everything is None:
            index = self._index()
            self._everything = {r.document.id: r.document for r in index.records} if index is not None else {}
        return self._everything

    @property
    def titles(self) -> dict[str, str]:
        """Every valid document's title, lowercased, for matching titles despite typos."""
        if self._titles is None:
            self._titles = {doc_id: doc.title.lower() for doc_id, doc in self.valid.items()}
        return self._titles

    @property
    def kinds(self) -> tuple[set[str], set[str]]:
        """The types and statuses a filter may name: the format's and any the vault's files use."""
        if self._kinds is None:
            types = {str(t) for t in DocType} | {doc.type.lower() for doc in self.everything.values() if doc.type}
            statuses = {str(s) for s in Status} | {doc.status.lower() for doc in self.everything.values() if doc.status}
            self._kinds = (types, statuses)
        return self._kinds

    def haystack(self, doc: Document) -> str:
        """Title, id and tags, lowercased, where a word typed counts as found."""
        found = self._haystacks.get(doc.id)
        if found is None:
            found = self._haystacks[doc.id] = (doc.title + " " + doc.id + " " + " ".join(doc.tags)).lower()
        return found


@dataclass
class _Rows:
    """One query term's rows: {rowid: FTS5's bm25 score}, or {rowid: 1.0} when not scored, with
    what FTS5 scored them by (its idf for the term and average row size), to undo the scores."""

    rows: dict[int, float]
    idf: float
    average: float
    version: tuple[int, int]  # the store's, when these rows were last brought up to date


def _fts_idf(rows_total: int, matching: int) -> float:
    """FTS5's idf for a term in `matching` of `rows_total` rows (never below 1e-6, as FTS5)."""
    return max(math.log(max(rows_total - matching + 0.5, 0.5) / (matching + 0.5)), 1e-6)


def _fts_norm(size: int, average: float) -> float:
    return 1 - FTS_B + FTS_B * size / average


class _Postings:
    """Each query term's rows (and how many there are), kept between searches: a query being typed
    asks for the same whole words at every keystroke. After a write to the index (a watcher
    batch), a term's rows are brought up to date by asking FTS5 about the rows that changed only,
    and each new row's score is restated as FTS5 would have given it with the term's first
    statistics, so that undoing the scores stays exact; when what changed is not known (another
    process wrote) or is large, the term is asked for again."""

    def __init__(self, store):
        self.store = store
        self.kept: OrderedDict[tuple[str, bool | None], _Rows | None | tuple[int, tuple[int, int]]] = OrderedDict()
        self.size = 0
        self.now = store.version()

    def get(self, expression: str, scored: bool = True) -> _Rows | None:
        """The rows an FTS5 expression matches; None when FTS5 does not accept it."""
        key = (expression, scored)
        found = self.kept.get(key)
        if key in self.kept:
            self.kept.move_to_end(key)
            if found is None or found.version == self.now or self._catch_up(found, expression, scored):
                return found
            self._drop(key)
        rows = self.store.postings(expression, FIELD_WEIGHTS if scored else None)
        found = None
        if rows is not None:
            totals = self.store.totals() if scored else None
            idf, average = (_fts_idf(totals[0], len(rows)), totals[1]) if totals else (0.0, 0.0)
            found = _Rows(rows, idf, average, self.now)
        self._keep(key, found)
        return found

    def count(self, expression: str) -> int:
        """How many rows an expression matches: from its kept rows (brought up to date), or asked
        for (cheaply: FTS5 computes no score)."""
        for scored in (True, False):
            kept = self.kept.get((expression, scored))
            if isinstance(kept, _Rows):
                if kept.version == self.now or self._catch_up(kept, expression, scored):
                    return len(kept.rows)
                self._drop((expression, scored))  # not to be asked for whole just to be counted
        key = (expression, None)
        counted = self.kept.get(key)
        if not isinstance(counted, tuple) or counted[1] != self.now:
            if key in self.kept:
                self._drop(key)
            counted = (self.store.count(expression) or 0, self.now)
            self._keep(key, counted)
        self.kept.move_to_end(key)
        return counted[0]

    def _catch_up(self, found: _Rows, expression: str, scored: bool) -> bool:
        """Bring kept rows up to date with the index's rows that changed since; False if it cannot."""
        changed = self.store.changes_since(found.version, CATCH_UP_MOST)
        if changed is None:
            return False
        touched, added = changed
        rows = found.rows
        held = len(rows)
        for rowid in touched:
            rows.pop(rowid, None)
        if added:
            fresh = self.store.postings(expression, FIELD_WEIGHTS if scored else None, among=added)
            if fresh is None:
                return False
            if scored and fresh:
                totals = self.store.totals()
                sizes = self.store.rows(fresh)
                if not totals or found.average <= 0:
                    return False
                idf_now = _fts_idf(totals[0], len(rows) + len(fresh))
                for rowid, score in fresh.items():
                    size = sizes.get(rowid, ("", 0))[1]
                    if size <= 0:
                        return False
                    share = min(score / idf_now, FTS_K1 + 1 - 1e-9)
                    frequency = FTS_K1 * _fts_norm(size, totals[1]) * share / (FTS_K1 + 1 - share)
                    rows[rowid] = (
                        found.idf * frequency * (FTS_K1 + 1) / (frequency + FTS_K1 * _fts_norm(size, found.average))
                    )
            else:
                rows.update(fresh)
        found.version = self.now
        self.size += len(rows) - held
        return True

    def _keep(self, key, value) -> None:
        self.kept[key] = value
        self.size += len(value.rows) if isinstance(value, _Rows) else 1
        while self.size > POSTINGS_KEPT and len(self.kept) > 1:
            self._drop(next(iter(self.kept)))

    def _drop(self, key) -> None:
        dropped = self.kept.pop(key)
        self.size -= len(dropped.rows) if isinstance(dropped, _Rows) else 1


def _postings(index: VaultIndex) -> _Postings:
    postings = index.search_postings
    if postings is None or postings.store is not index.store:
        postings = _Postings(index.store)
        index.search_postings = postings
    postings.now = index.store.version()
    return postings


def _views(index: VaultIndex) -> _Views:
    views = index.search_views
    if views is None or views.generation != index.generation:
        views = _Views(index)
        index.search_views = views
    return views


@dataclass
class _Term:
    expression: str  # FTS5 MATCH text for one query term
    weight: float
    scored: bool = True  # False: whether a row matches is all that counts (as one hit in a title)
    words: tuple[str, ...] = ()  # a pair's two words: the pair is left out when either is common


def _terms(query: Query, related: dict[str, float] | None = None) -> list[_Term]:
    """The query's terms for BM25: each content word (weighted by how often the query says it), the
    last word as the beginning of a title, id or tag word, each phrase, the `related` words (near a
    question word in meaning) at their own weights, and, in a question, each two neighbouring
    content words near each other."""
    terms = [_Term(_fts_term(word, False), float(count)) for word, count in Counter(_content(query.words)).items()]
    terms += [_Term(_fts_term(word, False), weight) for word, weight in (related or {}).items()]
    if len(query.words) > SHORT:
        # Proximity, as in a sequential dependence model: a note that says "conflicts when merging"
        # is more likely about "merge conflicts" than one with "merge" and "conflicts" pages apart.
        # Neighbours once the words that ask are left out: "why did the cache expire" pairs
        # "cache" with "expire".
        content = [word for word in query.words if word not in QUESTION_WORDS]
        pairs = dict.fromkeys((a, b) for a, b in zip(content, content[1:]) if a != b)
        near = "NEAR({} {}, " + str(NEAR_WINDOW) + ")"
        terms += [
            _Term(near.format(_fts_term(a, False), _fts_term(b, False)), NEAR_WEIGHT, scored=False, words=(a, b))
            for a, b in pairs
        ]
    last = query.words[-1] if query.words else ""
    # The last word as a prefix while a query is being typed; at the end of a longer question it
    # is a whole word (and, if it says nothing, "it"* would only add noise).
    if len(last) >= 2 and (len(query.words) <= SHORT or last not in QUESTION_WORDS):
        terms.append(_Term("{title ident tags} : " + _fts_term(last, True), PREFIX_WEIGHT, scored=False))
    terms += [_Term('"' + phrase.replace('"', '""') + '"', 1.0) for phrase in query.phrases]
    return terms


def _saturated(frequency: float, k1: float, norm: float) -> float:
    return frequency * (k1 + 1) / (frequency + k1 * norm)


def _bm25(
    postings: _Postings,
    query: Query,
    wanted: Callable[[str], Document | None],
    enough: int,
    related: dict[str, float] | None = None,
) -> dict[str, float]:
    """{document id: BM25 score} for documents that `wanted` admits: at least `enough` of them, the
    best, when that many match.

    FTS5 is asked one term at a time. Its bm25() for a single term is idf * f * (k1 + 1) / (f + k1 *
    norm), so dividing by its idf and solving for f gives each row's weighted term frequency back,
    and BM25 is computed again with our idf, constants and term weights. Solving needs each row's
    size, so the rows are first ordered by an estimate (FTS5's saturated frequency times our
    weight), and scored exactly a batch at a time: the filters may turn many of them away."""
    store = postings.store
    totals = store.totals()
    terms = _terms(query, related)
    if totals:
        # A word in most documents says little (FTS5's own bm25() gives it no weight) and is the
        # costliest to score: it is left out, and so is a pair with it, unless every word is like that.
        common = totals[0] * COMMON
        rare = [
            term
            for term in terms
            if (not term.scored or postings.count(term.expression) <= common)
            and all(postings.count(_fts_term(w, False)) <= common for w in term.words)
        ]
        terms = rare if any(term.scored for term in rare) else terms
    listed = [(term, found) for term in terms if (found := postings.get(term.expression, term.scored)) and found.rows]
    if not listed:
        return {}
    rows_total = totals[0] if totals else max(len(found.rows) for _, found in listed)
    average = totals[1] if totals else 0.0
    title_hit = _saturated(FIELD_WEIGHTS[0], FTS_K1, 1.0)  # an unscored term's share: one hit in the title
    # (our weight times idf, and FTS5's idf and average row size the rows were scored with, or 0
    # for an unscored term, and the rows)
    weighed: list[tuple[float, float, float, dict[int, float]]] = []
    for term, found in listed:
        ratio = max(rows_total - len(found.rows) + 0.5, 0.5) / (len(found.rows) + 0.5)
        fts_idf = (found.idf or _fts_idf(rows_total, len(found.rows))) if term.scored else 0.0
        weighed.append((term.weight * math.log(1 + ratio), fts_idf, found.average, found.rows))

    estimate: dict[int, float] = {}
    for weight, fts_idf, _, rows in weighed:
        factor = weight / fts_idf if fts_idf else weight * title_hit
        if not estimate:
            estimate = {rowid: factor * score for rowid, score in rows.items()}
            continue
        get = estimate.get
        for rowid, score in rows.items():
            estimate[rowid] = get(rowid, 0.0) + factor * score
    for phrase in query.phrases:  # a phrase must appear
        found = postings.get('"' + phrase.replace('"', '""') + '"')
        estimate = {rowid: value for rowid, value in estimate.items() if found is not None and rowid in found.rows}
    for word in query.excluded_words:
        found = postings.get(_fts_term(word, False), scored=False)
        for rowid in found.rows if found is not None else ():
            estimate.pop(rowid, None)

    scores: dict[str, float] = {}
    remaining = estimate
    exact = average > 0 and all(fts_average > 0 for _, fts_idf, fts_average, _ in weighed if fts_idf)
    while remaining:
        batch = heapq.nlargest(EXACT_BATCH, remaining, key=remaining.__getitem__)
        for rowid, (path, size) in store.rows(batch).items():
            doc = wanted(path)
            if doc is None:
                continue
            if exact and size > 0:
                norm = 1 - B + B * size / average
                score = 0.0
                for weight, fts_idf, fts_average, rows in weighed:
                    found = rows.get(rowid)
                    if found is None:
                        continue
                    if fts_idf:
                        share = min(found / fts_idf, FTS_K1 + 1 - 1e-9)  # FTS5's f (k1 + 1) / (f + k1 norm)
                        frequency = FTS_K1 * _fts_norm(size, fts_average) * share / (FTS_K1 + 1 - share)
                    else:
                        frequency = FIELD_WEIGHTS[0]
                    score += weight * _saturated(frequency, K1, norm)
            else:  # FTS5's record of sizes is unreadable: its own saturation will do
                score = estimate[rowid]
            scores[doc.id] = max(score, scores.get(doc.id, 0.0))
        if len(scores) >= enough or len(remaining) <= len(batch):
            break
        taken = set(batch)
        remaining = {rowid: value for rowid, value in remaining.items() if rowid not in taken}
    return scores


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
    ctx = _Context(index)
    views = _views(index)
    filtered = bool(query.filters or query.excluded)
    if filtered:
        _refuse_meaningless(query, views, index)
    want_invalid = ("is", "invalid") in query.filters

    def admitted(doc: Document) -> bool:
        return not filtered or (
            all(_matches(doc, n, v, ctx) for n, v in query.filters)
            and not any(_matches(doc, n, v, ctx) for n, v in query.excluded)
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
        found = _bm25(_postings(index), query, wanted, max(limit, 30), related) if index.store is not None else {}
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
    for doc_id, score in scores.items():
        doc = lookup(doc_id)
        if query.words or query.phrases:
            weight = STATUS_WEIGHT.get(doc.status, 0.5)
            score *= max(weight, TITLED_WEIGHT) if short and _titled(doc.title, short) else weight
        hits.append(
            Hit(
                doc.id,
                doc.path,
                doc.title,
                doc.type,
                doc.status,
                score,
                doc.superseded_by,
                doc.valid,
                "" if doc.valid else _problem(index, doc),
            )
        )
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
    return SearchResults(_successors_first(hits)[:limit], text, also)


INVALID_SHOWN = 5


def _invalid_matches(index: VaultIndex, query: Query, admitted: Callable[[Document], bool]) -> list[Hit]:
    """The invalid documents the query's words match best, each with its problem."""

    def wanted(path: str) -> Document | None:
        doc = index.document_at(path)
        return doc if doc is not None and not doc.valid and admitted(doc) else None

    found = _bm25(_postings(index), query, wanted, INVALID_SHOWN)
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


def _titled(title: str, words: list[str]) -> bool:
    """Whether every word begins a word of `title` (`postgres upgrade`, `Upgrade Postgres 15 to 16`)."""
    held = TOKEN.findall(title.lower())
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
    words = _content(query.words)
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

    text = " ".join(_content(query.words) + query.phrases)
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
    from rapidfuzz import fuzz, process  # a short query's first: a long question never needs it

    if len(scores) < fuzzy_below:
        for _, ratio, doc_id in process.extract(
            typed, views.titles, scorer=fuzz.partial_ratio, limit=20, score_cutoff=80, processor=None
        ):
            if admitted(views.valid[doc_id]):
                scores[doc_id] = scores.get(doc_id, 0.0) + 0.25 * (ratio / 100)
    words = typed.split()
    for doc_id in scores:
        doc = lookup(doc_id)
        haystack = views.haystack(doc)
        title = doc.title.lower() if doc.valid else haystack
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
