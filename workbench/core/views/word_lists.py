"""Each common word's rows, read from the derived store rather than scored by FTS5 (`fulltext`).

A word in thousands of documents costs a search most of its time: FTS5 scores every row of it to
rank or bound it (bm25() and a row size read for each), however few of them the answer needs. The
store keeps every such word's rows with the score FTS5 gives each, and each row's weighted hits of
the word beside it (`derived_store.keep_word_lists`), and a search reads them as arrays: the same
rows, in the same order, with the same scores, bit for bit, as asking FTS5, so the answer is a
full reading's.

The scores hold for one state of the index (its stamp). After a write, by this process or another,
the lists are read as patched (`_Patch`): the rows written since are those past the last row they
were kept from (a store never gives a rowid twice), the rows gone are those no longer stored; the
new rows' text is told the index's tokenizer, their hits of a word read when the word is asked,
and every row's score is computed again as FTS5's bm25() computes it, from the index's totals now
(its idf, its average row size), the same double operations in the same order: the scores FTS5
would give, bit for bit (kept only where that held for every row when they were kept). A process
that writes between its searches reads each word's kept rows once for the lists' stamp (`_Base`)
and, from a word's second scoring on, scores each (hits, size) pair of its rows once (`_Kept`).
Past `PATCH_MOST` rows changed, none is read. The lists are kept whole again by a thread of the
searching process once the index has stayed the same for `SETTLE` seconds (FTS5 scoring every
common word once, beside the searches); a process that ends sooner (a CLI search) keeps none, but
reads them, patched.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
from array import array
from bisect import bisect_left
from collections import OrderedDict
from itertools import repeat
from operator import add, mul
from pathlib import Path

from ..records.derived_store import (
    FTS5_K1,
    DerivedStore,
    fts5_idf,
    fts5_norm,
    forget_typed,
    keep_word_lists,
    type_rows,
    typed_hits,
    word_lists_recipe,
    word_tokens,
)

__all__ = ["LISTS_FROM", "LISTS_MOST", "WordLists"]

LISTS_FROM = 300  # rows of a word beyond which its rows are kept (FTS5 reads fewer in about 0.4 ms)
LISTS_MOST = 3_000_000  # rows kept in all (16 bytes each, 48 MB at most): every word the bound reads, or none
TOKENS_KEPT = 10_000  # words whose tokens are known, kept between searches
SETTLE = 2.0  # seconds the index stays unchanged before its lists are kept again
PATCH_MOST = 2_000  # rows written or gone since the lists were kept beyond which they are not read
KEPT_ROWS = 1_000_000  # rows of the lists read after a write, kept between searches (16-20 bytes each)
GROUPED_MOST = 4  # a list's rows grouped by (hits, size) where they make at most a quarter as many groups

# Stamps of the index a thread of this process was started to keep the lists for, and each
# store's last such thread: whichever reader of a store (`WordLists`) started it, and however
# many there were (one a search's kept state, thrown away and made again), one thread a stamp.
_TRIED: set[bytes] = set()
_KEEPERS: dict[Path, threading.Thread] = {}
_STARTING = threading.Lock()


def _word(expression: str) -> str | None:
    """The word of an expression `query.fts_term` made of one (`"word"`), else None."""
    if len(expression) < 3 or expression[0] != '"' or expression[-1] != '"':
        return None
    inner = expression[1:-1]
    if '"' in inner.replace('""', ""):
        return None
    return inner.replace('""', '"')


def _arrays(blob: bytes, code: str, start: int = 0, end: int | None = None) -> array:
    found = array(code)
    found.frombytes(blob[start:end] if start or end is not None else blob)
    if sys.byteorder != "little":
        found.byteswap()
    return found


class _Kept:
    """One token's rows as kept (in rowid order) and each one's hits; scored a second time (after
    another write), grouped by (hits, size) where that makes a few groups: a row's score is a
    function of those two alone, and a common word's thousands of rows of the decision records
    hold a few hundred such pairs (10,000 rows, 476), so each pair is scored once and the rows
    take their pair's score in C. (Rows of `generate_shapes` hold thousands: scored row by row.)"""

    __slots__ = ("rowids", "hits", "scored", "pair_hits", "pair_sizes", "places")

    def __init__(self, rowids: array, hits: array):
        self.rowids = rowids
        self.hits = hits
        self.scored = 0  # times scored
        self.pair_hits: list[float] = []  # each (hits, size) of a row, once: its hits...
        self.pair_sizes: list[int] = []  # ...and its size
        self.places: array | None = None  # each row's pair, by its place in the pairs

    def count(self, gone: list[int]) -> int:
        """Its rows not `gone` (a few rows: each found by bisection)."""
        rowids = self.rowids
        dropped = 0
        for rowid in gone:
            at = bisect_left(rowids, rowid)
            dropped += at < len(rowids) and rowids[at] == rowid
        return len(rowids) - dropped

    def scores(self, sizes: dict[int, int], idf: float, norms: _Norms) -> dict[int, float]:
        """{rowid: FTS5's bm25 score} of every kept row, the index's totals now giving `idf`
        and `norms`, by FTS5's steps (`fts5_norm`)."""
        k = FTS5_K1 + 1.0
        self.scored += 1
        if self.scored == 2:  # most are scored once (a word asked after one write): not grouped
            self._group(sizes)
        if self.places is None:
            return {r: idf * ((f * k) / (f + norms[sizes[r]])) for r, f in zip(self.rowids, self.hits, strict=True)}
        values = [idf * ((f * k) / (f + norms[size])) for f, size in zip(self.pair_hits, self.pair_sizes, strict=True)]
        return dict(zip(self.rowids, map(values.__getitem__, self.places), strict=True))

    def _group(self, sizes: dict[int, int]) -> None:
        """Each row's (hits, size) as one float, `hits * 2**32 + size`, exact (whole numbers both,
        as kept: `keep_word_lists`; the sum below 2**53): grouped in C, with no object the
        collector follows made for each row; kept where the groups are a quarter of the rows or
        fewer (more cost more to group than they save)."""
        hits = self.hits
        if not hits or max(hits) >= 2**20:  # (never seen: a word a million times in one row)
            return
        keys = list(map(add, map(mul, hits, repeat(_SHIFT)), map(sizes.__getitem__, self.rowids)))
        distinct = dict.fromkeys(keys)
        if len(distinct) * GROUPED_MOST > len(keys):
            return
        self.pair_hits = [key // _SHIFT for key in distinct]
        self.pair_sizes = [int(key % _SHIFT) for key in distinct]
        places = {key: at for at, key in enumerate(distinct)}
        self.places = array("I", map(places.__getitem__, keys))


_SHIFT = float(2**32)


class _Norms(dict[int, float]):
    """{size: a row's part of a score (`fts5_norm`)}, each computed when first asked for."""

    def __init__(self, average: float):
        super().__init__()
        self.average = average

    def __missing__(self, size: int) -> float:
        norm = self[size] = fts5_norm(size, self.average)
        return norm


class _Base:
    """The rows of the index the kept lists were made from, and each one's size (the header
    `keep_word_lists` writes), read once for the lists of one stamp; each token's kept rows
    read so far (`KEPT_ROWS` at most); and each row written since that this process read (a
    rowid names one reading: read once), its text told the tokenizer (`type_rows`), each
    token's hits in it read when the token is asked for (`hits`)."""

    def __init__(self, stamp: bytes, rowids: array, sizes: array, typing: sqlite3.Connection):
        self.stamp = stamp
        self.rowids = rowids
        self.last = rowids[-1] if rowids else 0
        self.sizes = dict(zip(rowids, sizes, strict=True))  # and, once read, each row's written since
        self.kept: OrderedDict[str, _Kept] = OrderedDict()
        self.held = 0  # rows in `kept`
        self.absent: set[str] = set()  # tokens asked for whose rows were not kept
        self.typing = typing
        forget_typed(typing)
        self.typed = 0  # rows told the tokenizer
        self.added_hits: dict[str, tuple[int, dict[int, float]]] = {}  # token: (`typed` then, {row: its hits})
        self.seen: tuple[tuple[int, int] | None, set[int], list[int]] | None = (
            None  # the last patch: (version, gone, added)
        )

    def keep(self, token: str, rowids: array, hits: array) -> _Kept:
        kept = self.kept[token] = _Kept(rowids, hits)
        self.held += len(rowids)
        while self.held > KEPT_ROWS and len(self.kept) > 1:
            self.held -= len(self.kept.popitem(last=False)[1].rowids)
        return kept

    def type(self, texts: dict[int, tuple[str, ...]]) -> None:
        type_rows(self.typing, texts)
        self.typed += len(texts)

    def hits(self, token: str, weights: tuple[float, ...]) -> dict[int, float]:
        """{row written since: the token's hits in it} of the rows told the tokenizer."""
        found = self.added_hits.get(token)
        if found is None or found[0] != self.typed:
            found = self.added_hits[token] = (self.typed, typed_hits(self.typing, token, weights) if self.typed else {})
        return found[1]


class _Patch:
    """How the index now differs from the lists' (`_Base`): the rows gone, the rows written since
    (their hits of each token, `_Base.hits`), and the totals FTS5 scores by now. Each token's
    rows as the index has them now are counted once (`count`), scored when asked (`scores`)."""

    def __init__(self, base: _Base, gone: set[int], added: list[int], rows_total: int, average: float):
        self.base = base
        self.gone = sorted(gone)
        self.added = set(added)
        self.rows_total = rows_total
        self.average = average
        self.norms = _Norms(average)
        self.counted: dict[str, tuple[_Kept, dict[int, float], int]] = {}  # token: (kept, new rows' hits, rows)

    def count(self, kept: _Kept, token: str, weights: tuple[float, ...]) -> int:
        """A token's rows now: its kept ones not gone, and the new ones holding it."""
        found = self.counted.get(token)
        if found is None:
            new = {rowid: f for rowid, f in self.base.hits(token, weights).items() if rowid in self.added}
            found = self.counted[token] = (kept, new, kept.count(self.gone) + len(new))
        return found[2]

    def scores(self, token: str) -> dict[int, float]:
        """{rowid: FTS5's bm25 score} of the token's rows now, in rowid order (the new ones
        past every kept one), by FTS5's steps (`fts5_norm`)."""
        kept, new, n = self.counted[token]
        idf, sizes, norms = fts5_idf(self.rows_total, n), self.base.sizes, self.norms
        scores = kept.scores(sizes, idf, norms)
        for rowid in self.gone:
            scores.pop(rowid, None)
        k = FTS5_K1 + 1.0
        for rowid in sorted(new):
            f = new[rowid]
            scores[rowid] = idf * ((f * k) / (f + norms[sizes[rowid]]))
        return scores


class WordLists:
    """The kept lists of one derived store, as this process reads them: whether and how they
    hold for the index now (`refresh`, at each search, and after each batch once the process
    searched: as kept, or patched), each word's token (the index's tokenizer, asked once a word),
    and the thread that keeps them again when they are not the index's."""

    def __init__(self, store: DerivedStore, weights: tuple[float, ...], common: int):
        self.store = store
        self.weights = weights
        self.common = common  # rows of a word the bound reads (`fulltext.LAZY_FROM`): all such, or none
        self.version: tuple[int, int] | None = None
        self.recipe = b""  # how the lists are kept (`word_lists_recipe`)
        self.stamp: bytes | None = None  # the index's, at `version`
        self.read_at: bytes | None = None  # the stamp the lists read now were kept at
        self.usable = False  # whether the kept lists are read now (as kept, or patched)
        self.patch: _Patch | None = None  # how they are patched, where they were kept for an earlier index
        self.base: _Base | None = None
        self.tokens: dict[str, str | None] = {}  # expression: its one token, None if not one
        self.counts: dict[str, int] = {}  # token: its rows, of the lists usable now (0: none kept)
        self._typing: sqlite3.Connection | None = None  # the tokenizer's, in memory

    def refresh(self, version: tuple[int, int]) -> None:
        """Whether the kept lists hold for the index at `version` (the store's), as kept or
        patched; if they are not its own, and the index is large enough to have common words,
        start keeping them again."""
        if version == self.version:
            if self.read_at != self.stamp:  # not the index's: kept once no keeper is busy (a write
                self._keep()  # made them ready while the last keeper waited for a quiet index)
            return
        self.version = version
        self.counts = {}
        self.patch = None
        self.usable = False
        self.recipe = word_lists_recipe(self.weights, LISTS_FROM, self.common, LISTS_MOST)
        self.stamp = self.store.index_stamp(self.recipe)
        kept = self.store.word_lists_stamp()
        if self.stamp is None or kept is None:
            self._keep()
            return
        self.read_at = kept[0]
        if kept[0] == self.stamp:
            self.usable = kept[1]  # (kept for this index with no word's list: a vault too large, none asked again)
            return
        if kept[1]:
            self.patch = self._patched(kept[0])
            self.usable = self.patch is not None
        self._keep()

    def _patched(self, stamp: bytes) -> _Patch | None:
        """How the lists kept at `stamp` are read for the index now; None where they cannot be
        (kept for that index alone, too much changed, the index written meanwhile)."""
        store = self.store
        if self.base is None or self.base.stamp != stamp:
            self.base = None
            header = store.word_lists_header(stamp, self.recipe)
            if not header or not header[0]:
                return None
            self.base = _Base(stamp, _arrays(header[0], "q"), _arrays(header[1], "q"), self._tokenizer())
        base = self.base
        totals = store.totals()
        changed = self._changed(base)
        if changed is None or not totals or totals[1] <= 0:
            return None
        gone, added = changed
        if len(gone) + len(added) > PATCH_MOST or totals[0] != len(base.rowids) - len(gone) + len(added):
            return None  # (rows in the lists' span they do not hold: a store another code wrote)
        new = [rowid for rowid in added if rowid not in base.sizes]
        if new:
            sizes, texts = store.row_sizes(new), store.row_texts(new)
            if len(sizes) != len(new) or len(texts) != len(new):
                return None
            base.type(texts)  # each token's hits read where it is asked for
            base.sizes.update(sizes)
        if store.index_stamp(self.recipe) != self.stamp:
            return None  # written while read: the next search reads it again
        base.seen = (self.version, gone, added)
        return _Patch(base, gone, added, totals[0], totals[1])

    def _changed(self, base: _Base) -> tuple[set[int], list[int]] | None:
        """(the lists' rows gone, the rows written since, in order): from the last patch and
        this connection's writes since it (`changes_since`), else from every stored rowid."""
        if base.seen is not None and base.seen[0] is not None:
            since = self.store.changes_since(base.seen[0], PATCH_MOST)
            if since is not None:
                touched, new = since
                removed = touched.difference(new)
                gone = base.seen[1] | {rowid for rowid in removed if rowid <= base.last}
                return gone, [rowid for rowid in base.seen[2] if rowid not in removed] + sorted(new)
        now = self.store.stored_rowids()
        if now is None:
            return None
        rows = set(now)
        return {rowid for rowid in base.rowids if rowid not in rows}, [rowid for rowid in now if rowid > base.last]

    def _tokenizer(self) -> sqlite3.Connection:
        if self._typing is None:
            self._typing = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        return self._typing

    def _keep(self) -> None:
        store, stamp = self.store, self.stamp
        if stamp is None or store.path is None or stamp in _TRIED or self.keeping:
            return
        totals = store.totals()
        if not totals or totals[0] <= LISTS_FROM:
            _TRIED.add(stamp)  # too few rows for this index: not asked again at each search
            return
        path, weights, least, common, most, settle = (
            store.path,
            self.weights,
            LISTS_FROM,
            self.common,
            LISTS_MOST,
            SETTLE,
        )

        def keep() -> None:
            time.sleep(settle)  # a write meanwhile: not kept (the next search starts another)
            keep_word_lists(path, weights, least, common, most, expected=stamp)

        with _STARTING:  # two searching threads, or two readers of one store: one keeper
            if stamp in _TRIED or self.keeping:
                return
            _TRIED.add(stamp)
            thread = _KEEPERS[path] = threading.Thread(
                target=keep,
                name="workbench-word-lists",
                daemon=True,  # a cache: a process that ends meanwhile keeps nothing, and loses nothing
            )
            thread.start()

    @property
    def thread(self) -> threading.Thread | None:
        """The last thread this process started to keep the store's lists, by any reader of it."""
        return _KEEPERS.get(self.store.path) if self.store.path is not None else None

    @property
    def keeping(self) -> bool:
        thread = self.thread
        return thread is not None and thread.is_alive()

    def wait(self) -> None:
        """Until the lists being kept are (for a caller that wants every search to read them)."""
        if self.thread is not None:
            self.thread.join()

    def know(self, expressions: list[str]) -> None:
        """Read the tokens of these expressions and how many rows each token's kept list holds
        (patched: the rows themselves), in a statement or two for them all (a search's terms,
        before they are counted)."""
        if not self.usable:
            return
        words = {e: w for e in expressions if e not in self.tokens and (w := _word(e)) is not None}
        if words:
            if len(self.tokens) > TOKENS_KEPT:
                self.tokens = {}
            typed = self._tokenize(sorted(set(words.values())))
            for expression, word in words.items():
                tokens = typed.get(word, ())
                self.tokens[expression] = tokens[0] if len(tokens) == 1 else None
        wanted = {t for e in expressions if (t := self.tokens.get(e)) is not None and t not in self.counts}
        if not wanted or self.read_at is None:
            return
        patch = self.patch
        if patch is None:
            found = self.store.word_lists(self.read_at, wanted, rows=False)
            for token in wanted:
                self.counts[token] = found[token][0] if token in found else 0
            return
        base = patch.base
        # Patched, a word's rows are read to be counted: only where it is asked alone (`count`).
        unread = [t for t in wanted if t not in base.kept and t not in base.absent] if len(expressions) == 1 else []
        if unread:
            found = self.store.word_lists(self.read_at, unread, rows=True)
            for token in unread:
                if token in found:
                    n, rowids, values = found[token]
                    base.keep(token, _arrays(rowids, "q"), _arrays(values, "d", 8 * n))
                else:
                    base.absent.add(token)
        for token in wanted:
            kept = base.kept.get(token)
            if kept is None:
                if token in base.absent:
                    self.counts[token] = 0
            else:
                base.kept.move_to_end(token)
                self.counts[token] = patch.count(kept, token, self.weights)

    def _tokenize(self, words: list[str]) -> dict[str, tuple[str, ...]]:
        try:
            return word_tokens(self._tokenizer(), words)
        except sqlite3.Error:
            return {}

    def count(self, expression: str) -> int | None:
        """How many rows the expression matches, where its word's list is kept; else None."""
        if not self.usable:
            return None
        self.know([expression])
        token = self.tokens.get(expression)
        found = self.counts.get(token, 0) if token is not None else 0
        return found or None

    def rows(self, expression: str) -> dict[int, float] | None:
        """{rowid: FTS5's bm25 score} of every row the expression matches, as
        `DerivedStore.postings` gives them (in rowid order), where its word's list is kept."""
        if not self.count(expression) or self.read_at is None:
            return None
        token = self.tokens[expression]
        assert token is not None
        if self.patch is not None:
            return self.patch.scores(token)
        found = self.store.word_lists(self.read_at, [token], rows=True).get(token)
        if found is None:
            return None
        n = found[0]
        return dict(zip(_arrays(found[1], "q"), _arrays(found[2], "d", 0, 8 * n), strict=True))
