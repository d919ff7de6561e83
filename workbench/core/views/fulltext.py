"""Full-text ranking: BM25 computed again from the rows FTS5 finds, one query term at a time.

SQLite FTS5 is asked one term at a time and its bm25() is undone to recover each document's term
frequencies, so that the ranking can use its own idf and a little less saturation and more length
normalisation than FTS5's fixed constants. Each term's rows are kept between searches
(`Postings`): a query being typed asks for the same whole words at every keystroke, and after a
watcher's write only the rows that changed are asked for again. A common word (thousands of rows,
and little weight) is scored only for the rows the other words find, and the common words' best
rows as FTS5 ranks them together (two such words: among the rows holding both), where what it
could add to any other row is shown too little to change the answer; where the derived store
keeps a word's rows for the index as it is (`word_lists`: words in hundreds of rows or more), they
are read there, the rows and scores FTS5 would give, and FTS5 is not asked. `search.py` blends
these scores with the lifecycle, the title as typed and meaning.
"""

from __future__ import annotations

import heapq
import math
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, cast

from ..index import VaultIndex
from ..vocabulary.model import Document
from .query import QUESTION_WORDS, SHORT, Query, content_words, fts_term
from .word_lists import WordLists

__all__ = [
    "CATCH_UP_MOST",
    "COMMON",
    "EXACT_BATCH",
    "BEST_ROWS",
    "FIELD_WEIGHTS",
    "LAZY_FROM",
    "PROMISING",
    "ALIKE",
    "PRUNE_FROM",
    "PRUNED_MOST",
    "NEAR_WEIGHT",
    "NEAR_WINDOW",
    "POSTINGS_KEPT",
    "SIZES_KEPT",
    "PREFIX_WEIGHT",
    "Postings",
    "Rows",
    "Term",
    "bm25",
    "kept_postings",
    "query_terms",
]

FIELD_WEIGHTS = (10.0, 6.0, 5.0, 4.0, 1.0)  # title, id, tags, summary, body
K1, B = 2.0, 0.9  # BM25: term frequency saturation and length normalisation
FTS_K1, FTS_B = 1.2, 0.75  # FTS5's bm25() constants, undone to recover each row's term frequency
EXACT_BATCH = 50  # candidates scored exactly at a time, in the order of a first estimate
PREFIX_WEIGHT = 0.5  # the half-typed last word, as a prefix of title, id and tag words
COMMON = 0.9  # share of documents a word is in beyond which it is not weighed
POSTINGS_KEPT = 100_000  # rows of per-term results kept between searches (a few MB)
SIZES_KEPT = 20_000  # rows' paths and sizes kept between searches (a few MB)
CATCH_UP_MOST = 2_000  # rows changed since a term's results were kept beyond which it is asked again
LAZY_FROM = 1_000  # rows of a term beyond which it is read only for the other terms' rows...
BEST_ROWS = 5 * EXACT_BATCH  # ...and, where that is not enough, for its own best rows by FTS5's score
PRUNE_FROM = 2 * EXACT_BATCH  # candidates beyond which only those that can be in the first batch are read...
PRUNED_MOST = 0.7  # ...unless they are more than this share of them
PROMISING = 0.5  # see `_promising` (measured: below a quarter of the bound the first try never held)
# Two common terms are ranked among the rows holding both where the heavier's most is below this
# share of both's (chosen on `generate_shapes` 100,000: below it 34 of 40 such rankings were
# enough, at or above it 9 of 30; on decision records copied to 10,000, 46 of 47 and 8 of 10)
ALIKE = 0.65
# A question's neighbouring content words found near each other in one field ("merge conflicts"),
# for a query longer than SHORT words: a little more than the same words apart.
NEAR_WEIGHT = 0.1  # a pair's weight against a word's own 1.0 (scored as one hit in a title)
NEAR_WINDOW = 5  # at most this many words between them, in either order


@dataclass
class Rows:
    """One query term's rows: {rowid: FTS5's bm25 score}, or {rowid: 1.0} when not scored, with
    what FTS5 scored them by (its idf for the term and average row size), to undo the scores."""

    rows: dict[int, float]
    idf: float
    average: float
    version: tuple[int, int]  # the store's, when these rows were last brought up to date


FTS_IDF_FLOOR = 1e-6  # FTS5's idf for a term in half the rows or more


def _fts_idf(rows_total: int, matching: int) -> float:
    """FTS5's idf for a term in `matching` of `rows_total` rows (never below its floor, as FTS5)."""
    return max(math.log(max(rows_total - matching + 0.5, 0.5) / (matching + 0.5)), FTS_IDF_FLOOR)


def _fts_norm(size: int, average: float) -> float:
    return 1 - FTS_B + FTS_B * size / average


class Postings:
    """Each query term's rows (and how many there are), kept between searches: a query being typed
    asks for the same whole words at every keystroke. After a write to the index (a watcher
    batch), a term's rows are brought up to date by asking FTS5 about the rows that changed only,
    and each new row's score is restated as FTS5 would have given it with the term's first
    statistics, so that undoing the scores stays exact; when what changed is not known (another
    process wrote) or is large, the term is asked for again."""

    def __init__(self, store):
        self.store = store
        self.kept: OrderedDict[tuple[str, bool | tuple[str, int] | None], Rows | None | tuple[int, tuple[int, int]]] = (
            OrderedDict()
        )
        self.size = 0
        self.now = store.version()
        self.sized: dict[int, tuple[str, int] | None] = {}  # `rows`: each row's path and size, read at `sized_at`
        self.sized_at = self.now
        self.lists = WordLists(store, FIELD_WEIGHTS, LAZY_FROM)  # each common word's rows, kept in the store

    def rows(self, rowids: list[int]) -> dict[int, tuple[str, int]]:
        """The store's `rows` (path and size of each row still there, in rowid order), kept between
        searches: a common word's best rows are scored exactly again and again. After this
        process's own write only the rows it removed or added are forgotten (a row's path and
        size never change under its rowid, which is never given twice); after another's, all."""
        sized = self.sized
        if self.sized_at != self.now:
            changed = self.store.changes_since(self.sized_at, CATCH_UP_MOST)
            if changed is None:
                sized.clear()
            else:
                for rowid in changed[0]:
                    sized.pop(rowid, None)
            self.sized_at = self.now
        if len(sized) > SIZES_KEPT:
            sized.clear()
        missing = [rowid for rowid in rowids if rowid not in sized]
        if missing:
            found = self.store.rows(missing)
            sized.update(found)
            sized.update((rowid, None) for rowid in missing if rowid not in found)  # gone: none to read again
        return {rowid: row for rowid in sorted(rowids) if (row := sized[rowid]) is not None}

    def get(self, expression: str, scored: bool = True) -> Rows | None:
        """The rows an FTS5 expression matches; None when FTS5 does not accept it."""
        key = (expression, scored)
        found = cast("Rows | None", self.kept.get(key))  # a scored or unscored key keeps rows, never a count
        if key in self.kept:
            self.kept.move_to_end(key)
            if found is None or found.version == self.now or self._catch_up(found, expression, scored):
                return found
            self._drop(key)
        rows = self.lists.rows(expression)  # a common word's: as FTS5 gives them
        if rows is not None and not scored:
            rows = dict.fromkeys(rows, 1.0)
        if rows is None:
            rows = self.store.postings(expression, FIELD_WEIGHTS if scored else None)
        found = None
        if rows is not None:
            totals = self.store.totals() if scored else None
            idf, average = (_fts_idf(totals[0], len(rows)), totals[1]) if totals else (0.0, 0.0)
            found = Rows(rows, idf, average, self.now)
        self._keep(key, found)
        return found

    def best(self, expression: str, limit: int) -> dict[int, float] | None:
        """{rowid: FTS5's bm25 score} of the `limit` rows an expression matches best (the store's
        `best_postings`), kept between searches while the index is unchanged: FTS5 scores every
        row of a common word to rank them (as long as a bare FTS5 query of it), and the words of
        a vault's queries are drawn from few. After any write they are asked again (the best rows
        of a term cannot be brought up to date from the rows that changed alone)."""
        key = (expression, ("best", limit))
        kept = self.kept.get(key)
        if isinstance(kept, Rows):
            if kept.version == self.now:
                self.kept.move_to_end(key)
                return kept.rows
            self._drop(key)
        rows = self.store.best_postings(expression, FIELD_WEIGHTS, limit)
        if rows is not None:
            self._keep(key, Rows(rows, 0.0, 0.0, self.now))
        return rows

    def holds(self, expression: str, scored: bool) -> bool:
        """Whether a term's rows are kept here (then `get` costs little, even a few writes later),
        or in the store's lists for the index as it is (two arrays read)."""
        if isinstance(self.kept.get((expression, scored)), Rows):
            return True
        return scored and self.lists.count(expression) is not None

    def count(self, expression: str) -> int:
        """How many rows an expression matches: from its kept rows (brought up to date), or asked
        for (cheaply: FTS5 computes no score)."""
        for scored in (True, False):
            kept = self.kept.get((expression, scored))
            if isinstance(kept, Rows):
                if kept.version == self.now or self._catch_up(kept, expression, scored):
                    return len(kept.rows)
                self._drop((expression, scored))  # not to be asked for whole just to be counted
        key = (expression, None)
        counted = self.kept.get(key)
        if not isinstance(counted, tuple) or counted[1] != self.now:
            if key in self.kept:
                self._drop(key)
            listed = self.lists.count(expression)
            counted = (listed if listed is not None else self.store.count(expression) or 0, self.now)
            self._keep(key, counted)
        self.kept.move_to_end(key)
        return counted[0]

    def _catch_up(self, found: Rows, expression: str, scored: bool) -> bool:
        """Bring kept rows up to date with the index's rows that changed since; False if it cannot,
        or need not: a common word's list (patched after a write) gives FTS5's scores now, where
        catching up restates the new rows' with older statistics (the same ranking, a last bit apart)."""
        if scored and self.lists.count(expression):
            return False
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
        self.size += len(value.rows) if isinstance(value, Rows) else 1
        while self.size > POSTINGS_KEPT and len(self.kept) > 1:
            self._drop(next(iter(self.kept)))

    def _drop(self, key) -> None:
        dropped = self.kept.pop(key)
        self.size -= len(dropped.rows) if isinstance(dropped, Rows) else 1


# Each open index's kept rows per term, kept here, not on the index: dropped with it.
KEPT: weakref.WeakKeyDictionary[VaultIndex, Postings] = weakref.WeakKeyDictionary()


def kept_postings(index: VaultIndex) -> Postings:
    """The index's kept rows per term, for its derived store as it is now."""
    store = index.store
    assert store is not None, "full-text ranking asks the derived store"
    store.settle()  # rows another process stored and has not indexed yet: indexed before a search
    postings = KEPT.get(index)
    if postings is None or postings.store is not store:
        postings = KEPT[index] = Postings(store)
    postings.now = store.version()
    postings.lists.refresh(postings.now)
    return postings


@dataclass
class Term:
    expression: str  # FTS5 MATCH text for one query term
    weight: float
    scored: bool = True  # False: whether a row matches is all that counts (as one hit in a title)
    words: tuple[str, ...] = ()  # a pair's two words: the pair is left out when either is common


def query_terms(query: Query, related: dict[str, float] | None = None) -> list[Term]:
    """The query's terms for BM25: each content word (weighted by how often the query says it), the
    last word as the beginning of a title, id or tag word, each phrase, the `related` words (near a
    question word in meaning) at their own weights, and, in a question, each two neighbouring
    content words near each other."""
    terms = [Term(fts_term(word, False), float(count)) for word, count in Counter(content_words(query.words)).items()]
    terms += [Term(fts_term(word, False), weight) for word, weight in (related or {}).items()]
    if len(query.words) > SHORT:
        # Proximity, as in a sequential dependence model: a note that says "conflicts when merging"
        # is more likely about "merge conflicts" than one with "merge" and "conflicts" pages apart.
        # Neighbours once the words that ask are left out: "why did the cache expire" pairs
        # "cache" with "expire".
        content = [word for word in query.words if word not in QUESTION_WORDS]
        pairs = dict.fromkeys((a, b) for a, b in zip(content, content[1:]) if a != b)
        near = "NEAR({} {}, " + str(NEAR_WINDOW) + ")"
        terms += [
            Term(near.format(fts_term(a, False), fts_term(b, False)), NEAR_WEIGHT, scored=False, words=(a, b))
            for a, b in pairs
        ]
    last = query.words[-1] if query.words else ""
    # The last word as a prefix while a query is being typed; at the end of a longer question it
    # is a whole word (and, if it says nothing, "it"* would only add noise).
    if len(last) >= 2 and (len(query.words) <= SHORT or last not in QUESTION_WORDS):
        terms.append(Term("{title ident tags} : " + fts_term(last, True), PREFIX_WEIGHT, scored=False))
    terms += [Term('"' + phrase.replace('"', '""') + '"', 1.0) for phrase in query.phrases]
    return terms


def _saturated(frequency: float, k1: float, norm: float) -> float:
    return frequency * (k1 + 1) / (frequency + k1 * norm)


def bm25(
    postings: Postings,
    query: Query,
    wanted: Callable[[str], Document | None],
    enough: int,
    related: dict[str, float] | None = None,
    among: set[int] | None = None,
) -> dict[str, float]:
    """{document id: BM25 score} for documents that `wanted` admits: at least `enough` of them, the
    best, when that many match; only of the rows `among`, when given (the few `wanted` can admit:
    otherwise every matching row is read, batch after batch, before it says no to the last).

    FTS5 is asked one term at a time. Its bm25() for a single term is idf * f * (k1 + 1) / (f + k1 *
    norm), so dividing by its idf and solving for f gives each row's weighted term frequency back,
    and BM25 is computed again with our idf, constants and term weights. Solving needs each row's
    size, so the rows are first ordered by an estimate (FTS5's saturated frequency times our
    weight), and scored exactly a batch at a time: the filters may turn many of them away. A term
    matching more than `LAZY_FROM` rows is read for the other terms' rows alone where a bound shows
    that gives the same answer (`_bounded`)."""
    store = postings.store
    sized = postings.rows
    totals = store.totals()
    terms = query_terms(query, related)
    postings.lists.know([term.expression for term in terms if term.scored])
    if totals:
        # A word in most documents says little (FTS5's own bm25() gives it no weight) and is the
        # costliest to score: it is left out, and so is a pair with it, unless every word is like that.
        common = totals[0] * COMMON
        rare = [
            term
            for term in terms
            if (not term.scored or postings.count(term.expression) <= common)
            and all(postings.count(fts_term(w, False)) <= common for w in term.words)
        ]
        terms = rare if any(term.scored for term in rare) else terms
    if totals and among is None and not query.phrases:
        bounded = _bounded(postings, query, terms, wanted, enough, totals)
        if bounded is not None:
            return bounded
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
        found = postings.get(fts_term(word, False), scored=False)
        for rowid in found.rows if found is not None else ():
            estimate.pop(rowid, None)
    if among is not None:
        estimate = {rowid: value for rowid, value in estimate.items() if rowid in among}

    exact = average > 0 and all(fts_average > 0 for _, fts_idf, fts_average, _ in weighed if fts_idf)
    return cast("dict[str, float]", _in_batches(sized, weighed, estimate, wanted, enough, average, exact))


def _bounded(
    postings: Postings,
    query: Query,
    terms: list[Term],
    wanted: Callable[[str], Document | None],
    enough: int,
    totals: tuple[int, float],
) -> dict[str, float] | None:
    """`bm25`'s answer without reading every row of its commonest terms, or None where that cannot
    be known to be the same (the caller then reads them all).

    A term matching thousands of rows costs most of a search to read and score (FTS5's bm25() for
    each row, and a Python object for each), and its weight is low: its part of a row's estimate
    is below weight * (k1 + 1) whatever the row. So the other terms' rows are the candidates, the
    common terms are scored by FTS5 for those rows alone, and each batch `bm25` would score exactly
    is taken from the candidates as long as its last estimate is above the most a row matching
    only the common terms can reach. Where that bound is too loose (a common word alone, or
    beside words that match too few rows), the common terms' best rows by the sum of their FTS5
    scores (one OR-ed query, ranked once as a bare search ranks it; two terms ranked among the
    rows holding both) join the candidates, and the bound is what a row below them can reach
    (`_reach`). The candidates keep the order the whole set of rows would have, so that ties fall
    as they do there, and the scores are computed by the same steps."""
    rows_total, average = totals
    if average <= 0:
        return None
    # Only a scored term is common here: an unscored one's rows cost little (no score), and what
    # it adds to a row's estimate (one hit in a title) is too much to leave to a bound.
    counts = [postings.count(term.expression) for term in terms]
    lazy = [term.scored and n > LAZY_FROM for term, n in zip(terms, counts, strict=True)]
    if not any(lazy):
        return None
    if all(postings.holds(term.expression, term.scored) for term, is_lazy in zip(terms, lazy, strict=True) if is_lazy):
        return None  # every common term's rows at hand (kept, or the store's lists): a whole reading asks FTS5 nothing
    title_hit = _saturated(FIELD_WEIGHTS[0], FTS_K1, 1.0)
    # Per listed term, as `bm25` weighs it: (the term, our weight times idf, FTS5's idf, FTS5's
    # average row size, its rows (None for a common term not kept: read for the candidates
    # alone), whether common).
    listed: list[tuple[Term, float, float, float, dict[int, float] | None, bool]] = []
    matching: list[int] = []  # each listed term's rows, how many
    for term, n, is_lazy in zip(terms, counts, lazy, strict=True):
        if is_lazy and not postings.holds(term.expression, term.scored):
            fts_idf = _fts_idf(rows_total, n) if term.scored else 0.0
            rows, fts_average = None, average if term.scored else 0.0
        else:  # a common term kept costs little: its rows are taken for the candidates alone too
            found = postings.get(term.expression, term.scored)
            if not found or not found.rows:
                continue
            n, rows = len(found.rows), found.rows
            fts_idf = (found.idf or _fts_idf(rows_total, n)) if term.scored else 0.0
            fts_average = found.average
        ratio = max(rows_total - n + 0.5, 0.5) / (n + 0.5)
        listed.append((term, term.weight * math.log(1 + ratio), fts_idf, fts_average, rows, is_lazy))
        matching.append(n)
    excluded: set[int] = set()
    for word in query.excluded_words:
        ruled_out = postings.get(fts_term(word, False), scored=False)
        excluded.update(ruled_out.rows if ruled_out is not None else ())
    essential = {rowid for _, _, _, _, rows, is_lazy in listed if not is_lazy and rows for rowid in rows}
    # Worth it while the candidates are few beside the common terms' rows (a word typed in
    # thousands of titles has as many candidates).
    most = sum(n for n, is_lazy in zip(counts, lazy, strict=True) if is_lazy) // 2
    within = _Within(postings)
    if essential and len(essential) <= most and _promising(listed, excluded, title_hit):
        scores = _bounded_by(listed, essential - excluded, None, within, wanted, enough, average, title_hit)
        if scores is not None:
            return scores
    # The common terms ranked together by FTS5, as a bare query of them would: their best rows by
    # the sum of their FTS5 scores join the candidates (one reading of each term's rows, where
    # ranking each apart read them once for its best and once more when the bound did not hold).
    # A kept term is among them only while its scores are on the index's scale now (a write since
    # may have restated them with older statistics); otherwise it is bounded on its own. So is a
    # term in half the rows or more beside others: FTS5 gives it no weight (its idf at the floor),
    # so it would change nothing in the ranking or the bound, and FTS5 would score its rows.
    union = [
        at
        for at, (_, _, fts_idf, fts_average, rows, is_lazy) in enumerate(listed)
        if is_lazy and (rows is None or (fts_idf == _fts_idf(rows_total, len(rows)) and fts_average == average))
    ]
    weighed = [at for at in union if listed[at][2] > FTS_IDF_FLOOR]
    union = weighed or union
    if not any(listed[at][4] is None for at in union) or len(essential - excluded) > most:
        return None  # every common term kept (the whole reading asks FTS5 nothing), or too many candidates
    # Two terms that weigh alike, with more rows than the best asked: first the rows holding both,
    # ranked by FTS5 (it scores only those, half the rows of the two or fewer), a row holding one
    # of them adding at most that one's most (`_Ranked.alone`); their sums are the OR-ed query's,
    # bit for bit (the same two phrases, each scored the same). Where that bound does not hold
    # (few or weak rows hold both), the OR-ed query ranks every row holding either, as for more
    # terms, and for two that weigh apart (the rarer one's rows alone rank high: `ALIKE`).
    alike = len(union) == 2 and _alone(listed, union) < ALIKE * sum(listed[at][1] * (FTS_K1 + 1) for at in union)
    for joined in (True, False) if alike and sum(matching[at] for at in union) > BEST_ROWS else (False,):
        expression = (" AND " if joined else " OR ").join(listed[at][0].expression for at in union)
        best_rows = postings.best(expression, BEST_ROWS)
        if best_rows is None:
            return None
        if len(union) == 1:  # one term: its best rows' scores are its own
            within.knows(union[0], best_rows)
        least = min(best_rows.values(), default=0.0) if len(best_rows) >= BEST_ROWS else 0.0
        among = (essential | best_rows.keys()) - excluded
        if len(among) > most:
            return None
        ranked = _Ranked(union, least, best_rows, _alone(listed, union) if joined else 0.0)
        scores = _bounded_by(listed, among, ranked, within, wanted, enough, average, title_hit)
        if scores is not None:
            return scores
    return None


def _alone(listed: list[tuple[Term, float, float, float, dict[int, float] | None, bool]], union: list[int]) -> float:
    """The most a row holding one of the `union`'s terms may add to its estimate: that term's
    FTS5 score is at most its idf times (k1 + 1), its weight over its idf times that."""
    return max(listed[at][1] * (FTS_K1 + 1) for at in union)


class _Ranked(NamedTuple):
    """The common terms ranked together by FTS5 (`_bounded`): their places in the listed terms,
    the least sum of their FTS5 scores among the best rows, which no row holding all of them
    outside those passes, the best rows with their sums, and the most a row that holds some of
    the terms but not all may add to its estimate, where only rows holding all were ranked (0.0
    where every row holding any was)."""

    grouped: list[int]
    least: float
    best: dict[int, float]
    alone: float


def _promising(
    listed: list[tuple[Term, float, float, float, dict[int, float] | None, bool]], excluded: set[int], title_hit: float
) -> bool:
    """Whether the terms that are not common alone give a batch's worth of rows a good part of
    the bound (`PROMISING`): below it, reading the common terms for those rows was wasted."""
    bound = 0.0
    part: dict[int, float] = {}
    for _, weight, fts_idf, _, rows, is_lazy in listed:
        if is_lazy:
            bound += weight * (FTS_K1 + 1) if fts_idf else weight * title_hit
        elif rows:
            factor = weight / fts_idf if fts_idf else weight * title_hit
            get = part.get
            for rowid, score in rows.items():
                part[rowid] = get(rowid, 0.0) + factor * score
    for rowid in excluded:
        part.pop(rowid, None)
    return len(part) >= EXACT_BATCH and heapq.nlargest(EXACT_BATCH, part.values())[-1] >= PROMISING * bound


class _Within:
    """Each common term's rows read so far for the candidates (by the term's place in the listed
    terms), and the rows asked: a second set of candidates asks only for the rows not asked yet."""

    def __init__(self, postings: Postings):
        self.store = postings.store
        self.sized = postings.rows
        self.read: dict[int, dict[int, float]] = {}
        self.asked: dict[int, set[int]] = {}

    def knows(self, at: int, rows: dict[int, float]) -> None:
        """Rows of the term at `at` read elsewhere (its best), with the scores FTS5 gave them."""
        self.read.setdefault(at, {}).update(rows)
        self.asked.setdefault(at, set()).update(rows)

    def rows(self, at: int, term: Term, among: set[int]) -> dict[int, float] | None:
        """{rowid: score} of the term's rows among `among`, in the rowids' order (as FTS5 gives
        them); None if FTS5 does not accept the term."""
        read = self.read.setdefault(at, {})
        asked = self.asked.setdefault(at, set())
        missing = among - asked
        if missing:
            found = self.store.postings_within(term.expression, FIELD_WEIGHTS if term.scored else None, sorted(missing))
            if found is None:
                return None
            read.update(found)
            asked |= missing
        return {rowid: read[rowid] for rowid in sorted(read) if rowid in among}


def _bounded_by(
    listed: list[tuple[Term, float, float, float, dict[int, float] | None, bool]],
    among: set[int],
    union: _Ranked | None,
    within: _Within,
    wanted: Callable[[str], Document | None],
    enough: int,
    average: float,
    title_hit: float,
) -> dict[str, float] | None:
    """`_bounded`'s answer from the candidate rows `among`, or None where some row not among them
    could be in a batch; `union`: the listed terms (by place) whose best rows by the sum of their
    FTS5 scores are candidates, the least such sum of them, which no other row passes, and those
    rows with their sums; `within` reads the common terms' rows of the candidates."""
    if not among:
        return None
    bound = _reach(listed, union)  # the most a row that is not a candidate can reach
    bound *= 1 + 1e-9  # above the float rounding of the sums
    if len(among) > PRUNE_FROM:
        first = _first_batch(listed, among, union, within, wanted, enough, average, title_hit, bound)
        if first is not None:
            return first or None  # {}: the first batch could hold a row not among them, as below
    estimated = _estimates(listed, among, within, title_hit)
    if estimated is None:
        return None
    weighed, estimate = estimated
    exact = all(fts_average > 0 for _, fts_idf, fts_average, _ in weighed if fts_idf)
    return _in_batches(within.sized, weighed, estimate, wanted, enough, average, exact, bound)


def _estimates(
    listed: list[tuple[Term, float, float, float, dict[int, float] | None, bool]],
    among: set[int],
    within: _Within,
    title_hit: float,
) -> tuple[list[tuple[float, float, float, dict[int, float]]], dict[int, float]] | None:
    """Each term's rows of the rows `among` (weight, FTS5 idf, FTS5 average, rows), and those
    rows' `bm25` estimates in the order a whole reading holds them (a term's rows in its order,
    then the next term's new ones), so that ties fall as they do there; None where the index
    could not be read."""
    weighed: list[tuple[float, float, float, dict[int, float]]] = []
    ordered: dict[int, None] = {}
    for at, (term, weight, fts_idf, fts_average, rows, _) in enumerate(listed):
        if rows is None:  # in the order a whole reading gives them, the rowids'
            rows = within.rows(at, term, among)
            if rows is None:
                return None
        else:
            rows = {rowid: score for rowid, score in rows.items() if rowid in among}
        ordered.update(dict.fromkeys(rows))
        weighed.append((weight, fts_idf, fts_average, rows))
    estimate: dict[int, float] = {}
    get = estimate.get
    for weight, fts_idf, _, rows in weighed:
        factor = weight / fts_idf if fts_idf else weight * title_hit
        for rowid, score in rows.items():
            value = get(rowid)
            estimate[rowid] = factor * score if value is None else value + factor * score
    return weighed, {rowid: estimate[rowid] for rowid in ordered}


def _shared_out(left: float, parts: list[tuple[float, float]]) -> float:
    """The sum of factor times share when `left` is shared out to `parts` (factor, most) in
    their order, each up to its most: in descending factors the most it can be, in ascending the
    least (a fractional knapsack)."""
    total = 0.0
    for factor, most in parts:
        if left <= 0:
            break
        total += factor * min(most, left)
        left -= most
    return total


def _first_batch(
    listed: list[tuple[Term, float, float, float, dict[int, float] | None, bool]],
    among: set[int],
    union: _Ranked | None,
    within: _Within,
    wanted: Callable[[str], Document | None],
    enough: int,
    average: float,
    title_hit: float,
    bound: float,
) -> dict[str, float] | None:
    """`_bounded_by`'s answer when its first batch is enough, reading the common terms' rows for
    the candidates that can be in that batch alone; None where it cannot tell (the caller reads
    them for every candidate), {} where the batch could hold a row that is not a candidate.

    FTS5 scores each candidate's common terms (walking every row of each) for the candidates'
    estimates, and most of them are far below the batch's. Each candidate's estimate lies
    between two bounds known before: the terms whose rows are read give their part, a common term
    not read at most its weight times (k1 + 1), and for a row among the common terms' best, its
    sum of their FTS5 scores times the least and the most of their factors. A candidate whose
    most is below the batch's least (the `EXACT_BATCH`th best least) is not in the first batch,
    so only the others are read, and the batch, its order and its scores are those of reading
    them all (rows equal in estimate are all among the others, in the order a whole reading gives)."""
    grouped, least, best, alone = union if union is not None else _Ranked([], 0.0, {}, 0.0)
    known: dict[int, float] = dict.fromkeys(among, 0.0)
    sums = {rowid: best[rowid] for rowid in among if rowid in best}
    reach = 0.0
    parts: list[tuple[float, float]] = []  # (factor, most) of each common term of the union not read
    for at, (_, weight, fts_idf, _, rows, is_lazy) in enumerate(listed):
        factor = weight / fts_idf if fts_idf else weight * title_hit
        if rows is None:
            if at in grouped:
                parts.append((factor, fts_idf * (FTS_K1 + 1)))
            else:
                reach += weight * (FTS_K1 + 1) if fts_idf else weight * title_hit
            continue
        for rowid in among:
            score = rows.get(rowid)
            if score is not None:
                known[rowid] += factor * score
                if at in grouped and rowid in sums:  # a kept term of the union: its part of the sum known
                    sums[rowid] -= score
    # A row among the best: its sum shared out all to the lowest factor, or all to the highest (a
    # little looser than sharing it out up to each term's most, and no loop for each row).
    low = min((factor for factor, _ in parts), default=0.0)
    high = max((factor for factor, _ in parts), default=0.0)
    beyond = reach + max(_shared_out(least, sorted(parts, reverse=True)), alone)  # a candidate outside them
    lows = {rowid: part + low * sums[rowid] if rowid in sums else part for rowid, part in known.items()}
    highs = {rowid: part + (reach + high * sums[rowid] if rowid in sums else beyond) for rowid, part in known.items()}
    threshold = heapq.nlargest(EXACT_BATCH, lows.values())[-1] * (1 - 1e-9)  # below the float rounding
    likely = {rowid for rowid, high in highs.items() if high * (1 + 1e-9) >= threshold}
    if len(likely) > PRUNED_MOST * len(among):
        return None  # reading them all costs little more
    estimated = _estimates(listed, likely, within, title_hit)
    if estimated is None:
        return None
    weighed, estimate = estimated
    if len(estimate) < EXACT_BATCH:
        return None
    batch = heapq.nlargest(EXACT_BATCH, estimate, key=estimate.__getitem__)
    if estimate[batch[-1]] < threshold:
        return None  # not as the bounds said: let the whole reading answer
    if estimate[batch[-1]] <= bound:
        return {}
    exact = all(fts_average > 0 for _, fts_idf, fts_average, _ in weighed if fts_idf)
    scores: dict[str, float] = {}
    _score_batch(within.sized, weighed, estimate, batch, wanted, average, exact, scores)
    return scores if len(scores) >= enough else None


def _reach(
    listed: list[tuple[Term, float, float, float, dict[int, float] | None, bool]],
    union: _Ranked | None,
) -> float:
    """The most a row that is not a candidate can add to its estimate: each common term outside
    the `union` at most its weight times (k1 + 1); the terms of the union, whose FTS5 scores add up
    to at most its least best score, at most that sum shared out to the terms whose score counts
    most in the estimate first, each up to the most FTS5 gives it (its idf times (k1 + 1)), or
    what a row holding only some of them may add (`_Ranked.alone`), if more."""
    grouped, least, _, alone = union if union is not None else _Ranked([], 0.0, {}, 0.0)
    reach = 0.0
    for at, (_, weight, _, _, _, is_lazy) in enumerate(listed):
        if is_lazy and at not in grouped:  # a common term is a scored one
            reach += weight * (FTS_K1 + 1)
    shared = _shared_out(
        least, sorted(((listed[at][1] / listed[at][2], listed[at][2] * (FTS_K1 + 1)) for at in grouped), reverse=True)
    )
    return reach + max(shared, alone)


def _in_batches(
    sized: Callable[[list[int]], dict[int, tuple[str, int]]],
    weighed: list[tuple[float, float, float, dict[int, float]]],
    estimate: dict[int, float],
    wanted: Callable[[str], Document | None],
    enough: int,
    average: float,
    exact: bool,
    bound: float | None = None,
) -> dict[str, float] | None:
    """The rows of `estimate` scored exactly, a batch at a time in the order of their estimates,
    until `enough` documents are `wanted` or none is left. With a `bound` (the most a row not in
    `estimate` can reach), None as soon as a batch could hold such a row."""
    scores: dict[str, float] = {}
    remaining = estimate
    if bound is not None and not remaining:
        return None
    while remaining:
        if bound is not None and len(remaining) < EXACT_BATCH:
            return None
        batch = heapq.nlargest(EXACT_BATCH, remaining, key=remaining.__getitem__)
        if bound is not None and remaining[batch[-1]] <= bound:
            return None
        _score_batch(sized, weighed, estimate, batch, wanted, average, exact, scores)
        if len(scores) >= enough:
            break
        if len(remaining) <= len(batch):
            if bound is not None:
                return None  # whether a whole reading would stop here depends on the rows not read
            break
        taken = set(batch)
        remaining = {rowid: value for rowid, value in remaining.items() if rowid not in taken}
    return scores


def _score_batch(
    sized: Callable[[list[int]], dict[int, tuple[str, int]]],
    weighed: list[tuple[float, float, float, dict[int, float]]],
    estimate: dict[int, float],
    batch: list[int],
    wanted: Callable[[str], Document | None],
    average: float,
    exact: bool,
    scores: dict[str, float],
) -> None:
    """Score the rows of `batch` exactly into `scores` (by document id, its best row's)."""
    for rowid, (path, size) in sized(batch).items():
        doc = wanted(path)
        if doc is None:
            continue
        if exact and size > 0:
            norm = 1 - B + B * size / average
            score = 0.0
            for weight, fts_idf, fts_average, rows in weighed:
                fts_score = rows.get(rowid)
                if fts_score is None:
                    continue
                if fts_idf:
                    share = min(fts_score / fts_idf, FTS_K1 + 1 - 1e-9)  # FTS5's f (k1 + 1) / (f + k1 norm)
                    frequency = FTS_K1 * _fts_norm(size, fts_average) * share / (FTS_K1 + 1 - share)
                else:
                    frequency = FIELD_WEIGHTS[0]
                score += weight * _saturated(frequency, K1, norm)
        else:  # FTS5's record of sizes is unreadable: its own saturation will do
            score = estimate[rowid]
        scores[doc.id] = max(score, scores.get(doc.id, 0.0))
