"""The weighed pairs of decisions kept between calls, a few rows read and written at a time.

At 10,000 decision records 137,021 pairs are weighed; reading every one of them after a change
(0.76 s) cost more than the rest of following it. So each pair's row (as `weighing` encodes it)
is kept in one of PAIR_ROWS rows, chosen by the pair's older decision (the queue's `best` pairs
in the second half, apart: the queue reads those alone, a fifth of them), and each decision's
pairs (each with what its row says: `state`) in one of INDEX_ROWS rows, chosen by the decision: a
change reads the index of the decisions it moved, and the rows of the pairs it weighed again, not
the rest. A change to a decision copied from a common template weighs again every pair of the
copies it moved, 1,653 pairs of 133 decisions: placed by the pair, they were in 1,192 rows (of
2,048) read and written again; placed by the older decision, they are in two rows at most for
each older decision among them (its `best` pairs' and the rest). The most pairs a decision is
the older of (436 at 10,000 decision records) make a row of 144 KB, a row 16 KB on average.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterable
from typing import Any, Protocol

from .row_keys import row_of

__all__ = ["PAIR_ROWS", "HALF", "INDEX_ROWS", "NONE", "LISTED", "BEST", "KeptPairs", "state"]

PAIR_ROWS = 2048
HALF = PAIR_ROWS // 2  # a pair's row is `row_of(older, HALF)`, or HALF past it for one of the `best` pairs
INDEX_ROWS = 2048
assert INDEX_ROWS % HALF == 0  # a decision's index row tells its pairs' row too (`KeptPairs.place`)
# What a pair's row says, kept in the index beside the pair: no row (settled when weighed, or
# neither may replace the other), a row, a row of one of the queue's `best` pairs.
NONE = 0
LISTED = 1
BEST = 2


class _Rows(Protocol):  # `weighing.Rows`
    def fetch(self, keys: Iterable[str]) -> None: ...
    def __getitem__(self, key: str) -> bytes: ...
    def add(self, value: bytes) -> str: ...


def state(row: Any) -> int:
    """What a row (as `weighing` encodes it, or None) says: NONE, LISTED or BEST."""
    return NONE if row is None else BEST if row[4] else LISTED


def _loads(value: bytes) -> dict:
    try:
        found = marshal.loads(value)
    except (EOFError, ValueError, TypeError):
        raise ValueError("a row of the pairs is damaged") from None
    if not isinstance(found, dict):
        raise ValueError("a row of the pairs is damaged")
    return found


_EMPTY: dict = {}


class KeptPairs:
    """The pairs as kept in the rows `pair_keys` and `index_keys` name (empty: none kept, every
    row made anew), read when first asked and changed in place; `keep` writes those changed."""

    def __init__(self, rows: _Rows, pair_keys: list[str], index_keys: list[str]):
        self.rows = rows
        self.whole = not pair_keys and not index_keys
        if not self.whole and (len(pair_keys) != PAIR_ROWS or len(index_keys) != INDEX_ROWS):
            raise ValueError("the pairs are not kept in rows")
        self.pair_keys, self.index_keys = list(pair_keys), list(index_keys)
        self.parts: dict[int, dict[tuple[str, str], Any]] = {}
        self.index: dict[int, dict[str, dict[tuple[str, str], int]]] = {}
        self.changed_parts: set[int] = set()
        self.changed_index: set[int] = set()
        self._ats: dict[str, int] = {}  # each decision's index row, as asked (`_at`)
        if self.whole:
            self.parts = {at: {} for at in range(PAIR_ROWS)}
            self.index = {at: {} for at in range(INDEX_ROWS)}

    def _read(self, ats: Iterable[int], keys: list[str], into: dict[int, Any]) -> None:
        wanted = [at for at in set(ats) if at not in into]
        if not wanted:
            return
        self.rows.fetch(keys[at] for at in wanted)
        for at in wanted:
            into[at] = _loads(self.rows[keys[at]])

    def read_pairs(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Read the rows holding these pairs, in one query: the one each pair's state in the index
        says (the index rows of their first decisions read first), none for a pair not kept. Where
        both halves were read for every pair, a change read most of the 2,048 rows (27 MB at 10,000
        decision records): each pair named both ways round, and half of the rows never held it."""
        pairs = list(pairs)
        self.read_index(pair[0] for pair in pairs)
        self._read({at for pair in pairs for at in self._places(pair)}, self.pair_keys, self.parts)

    def _places(self, pair: tuple[str, str]) -> tuple[int, ...]:
        """The row holding a pair, as the index of its first decision says (read): none for one not kept."""
        found = self.index[self._at(pair[0])].get(pair[0], _EMPTY).get(pair)
        return () if found is None else (self.place(pair, found),)

    def place(self, pair: tuple[str, str], found: int) -> int:
        """The row holding a pair whose row says `found` (`state`): chosen by its older decision."""
        return self._at(pair[0]) % HALF + (HALF if found == BEST else 0)

    def _at(self, doc_id: str) -> int:
        """`row_of(doc_id, INDEX_ROWS)`, once for each decision: a pair weighed asks it of its two
        decisions several times."""
        at = self._ats.get(doc_id)
        if at is None:
            at = self._ats[doc_id] = row_of(doc_id, INDEX_ROWS)
        return at

    def read_index(self, doc_ids: Iterable[str]) -> None:
        """Read the index rows of these decisions, in one query."""
        self._read((self._at(doc_id) for doc_id in doc_ids), self.index_keys, self.index)

    def of(self, doc_id: str) -> dict[tuple[str, str], int]:
        """A decision's pairs, each with its `state` (its index row read: `read_index`)."""
        return self.index[self._at(doc_id)].get(doc_id, {})

    def row(self, pair: tuple[str, str]) -> Any:
        """A pair's row, False for a pair not kept (its rows read: `read_pairs`)."""
        for at in self._places(pair):
            return self.parts[at].get(pair, False)
        return False

    def _take(self, pair: tuple[str, str], into: int = -1) -> None:
        """Take a pair out of the row holding it (the index read), that row and `into` read first."""
        places = self._places(pair)
        self._read({*places, into} - {-1}, self.pair_keys, self.parts)
        for place in places:
            if pair in self.parts[place]:
                del self.parts[place][pair]
                self.changed_parts.add(place)

    def put(self, pair: tuple[str, str], row: Any) -> None:
        """Keep a pair's row, and its state in the index of both its decisions."""
        self.read_index(pair)
        found = state(row)
        at = self.place(pair, found)
        self._take(pair, at)
        self.parts[at][pair] = row
        self.changed_parts.add(at)
        for doc_id in pair:
            at = self._at(doc_id)
            self.index[at].setdefault(doc_id, {})[pair] = found
            self.changed_index.add(at)

    def drop(self, pair: tuple[str, str]) -> None:
        """Keep a pair no more."""
        self.read_index(pair)
        self._take(pair)
        for doc_id in pair:
            at = self._at(doc_id)
            held = self.index[at].get(doc_id)
            if held is not None:
                held.pop(pair, None)
                if not held:
                    del self.index[at][doc_id]
            self.changed_index.add(at)

    def every(self, best: bool = False) -> dict[tuple[str, str], Any]:
        """Every pair kept with its row, all rows read; the `best` alone where asked (their rows
        alone read)."""
        places = range(HALF, PAIR_ROWS) if best else range(PAIR_ROWS)
        self._read(places, self.pair_keys, self.parts)
        found: dict[tuple[str, str], Any] = {}
        for at in places:
            found.update(self.parts[at])
        return found

    def keep(self) -> tuple[list[str], list[str]]:
        """The keys naming the rows as they are now (those changed made again), and the rows
        written; what they named before and no more is for the caller to forget."""
        pair_keys = self.pair_keys if not self.whole else [""] * PAIR_ROWS
        index_keys = self.index_keys if not self.whole else [""] * INDEX_ROWS
        changed_parts = range(PAIR_ROWS) if self.whole else self.changed_parts
        changed_index = range(INDEX_ROWS) if self.whole else self.changed_index
        for at in changed_parts:
            pair_keys[at] = self.rows.add(marshal.dumps(self.parts[at]))
        for at in changed_index:
            index_keys[at] = self.rows.add(marshal.dumps(self.index[at]))
        self.pair_keys, self.index_keys, self.whole = pair_keys, index_keys, False
        self.changed_parts, self.changed_index = set(), set()
        return list(pair_keys), list(index_keys)
