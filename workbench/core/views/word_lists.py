"""Each common word's rows, read from the derived store rather than scored by FTS5 (`fulltext`).

A word in thousands of documents costs a search most of its time: FTS5 scores every row of it to
rank or bound it (bm25() and a row size read for each), however few of them the answer needs. The
store keeps, for the index as it is, every such word's rows with the score FTS5 gives each
(`derived_store.keep_word_lists`), and a search reads them as two arrays: the same rows, in the
same order, with the same scores, bit for bit, as asking FTS5, so the answer is a full reading's.
They hold for one state of the index (its stamp): after any write to it, by this process or
another, none is read until they are kept again, which a thread of its own does once a search has
found the index unchanged for `SETTLE` seconds (FTS5 scoring every common word once, beside the
searches: not at every write of a burst). A process that ends sooner keeps none: the lists are
kept by the processes that search and stay (the TUI, the MCP server, a notebook).
"""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
from array import array

from ..records.derived_store import DerivedStore, keep_word_lists, word_lists_recipe, word_tokens

__all__ = ["LISTS_FROM", "LISTS_MOST", "WordLists"]

LISTS_FROM = 300  # rows of a word beyond which its rows are kept (FTS5 reads fewer in about 0.4 ms)
LISTS_MOST = 3_000_000  # rows kept in all (16 bytes each, 48 MB at most): every word the bound reads, or none
TOKENS_KEPT = 10_000  # words whose tokens are known, kept between searches
SETTLE = 2.0  # seconds the index stays unchanged before its lists are kept again


def _word(expression: str) -> str | None:
    """The word of an expression `query.fts_term` made of one (`"word"`), else None."""
    if len(expression) < 3 or expression[0] != '"' or expression[-1] != '"':
        return None
    inner = expression[1:-1]
    if '"' in inner.replace('""', ""):
        return None
    return inner.replace('""', '"')


class WordLists:
    """The kept lists of one derived store, as this process reads them: which hold for the index
    now (`refresh`, at each search), each word's token (the index's tokenizer, asked once a word),
    and the thread that keeps them again when they do not."""

    def __init__(self, store: DerivedStore, weights: tuple[float, ...], common: int):
        self.store = store
        self.weights = weights
        self.common = common  # rows of a word the bound reads (`fulltext.LAZY_FROM`): all such, or none
        self.version: tuple[int, int] | None = None
        self.stamp: bytes | None = None  # the index's, at `version`
        self.usable = False  # whether the kept lists are the index's now
        self.tokens: dict[str, str | None] = {}  # expression: its one token, None if not one
        self.counts: dict[str, int] = {}  # token: its rows, of the lists usable now (0: none kept)
        self.tried: set[bytes] = set()  # stamps a thread was started for
        self.thread: threading.Thread | None = None
        self._typing: sqlite3.Connection | None = None  # the tokenizer's, in memory

    def refresh(self, version: tuple[int, int]) -> None:
        """Whether the kept lists hold for the index at `version` (the store's); if not, and the
        index is large enough to have common words, start keeping them again."""
        if version == self.version:
            return
        self.version = version
        self.counts = {}
        self.stamp = self.store.index_stamp(word_lists_recipe(self.weights, LISTS_FROM, self.common, LISTS_MOST))
        kept = self.store.word_lists_stamp()
        self.usable = self.stamp is not None and kept is not None and kept[0] == self.stamp and kept[1]
        if self.stamp is not None and (kept is None or kept[0] != self.stamp):
            self._keep()  # (kept for this index with no word's list: a vault too large, none asked again)

    def _keep(self) -> None:
        store, stamp = self.store, self.stamp
        if stamp is None or store.path is None or stamp in self.tried or self.keeping:
            return
        totals = store.totals()
        if not totals or totals[0] <= LISTS_FROM:
            return
        self.tried.add(stamp)
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

        self.thread = threading.Thread(
            target=keep,
            name="workbench-word-lists",
            daemon=True,  # a cache: a process that ends meanwhile keeps nothing, and loses nothing
        )
        self.thread.start()

    @property
    def keeping(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def wait(self) -> None:
        """Until the lists being kept are (for a caller that wants every search to read them)."""
        if self.thread is not None:
            self.thread.join()

    def know(self, expressions: list[str]) -> None:
        """Read the tokens of these expressions and how many rows each token's kept list holds,
        in a statement or two for them all (a search's terms, before they are counted)."""
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
        if wanted and self.stamp is not None:
            found = self.store.word_lists(self.stamp, wanted, rows=False)
            for token in wanted:
                self.counts[token] = found[token][0] if token in found else 0

    def _tokenize(self, words: list[str]) -> dict[str, tuple[str, ...]]:
        try:
            if self._typing is None:
                self._typing = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            return word_tokens(self._typing, words)
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
        if not self.count(expression) or self.stamp is None:
            return None
        token = self.tokens[expression]
        assert token is not None
        found = self.store.word_lists(self.stamp, [token], rows=True).get(token)
        if found is None:
            return None
        rowids, scores = array("q"), array("d")
        rowids.frombytes(found[1])
        scores.frombytes(found[2])
        if sys.byteorder != "little":
            rowids.byteswap()
            scores.byteswap()
        return dict(zip(rowids, scores, strict=True))
