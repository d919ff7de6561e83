"""What the weighing keeps of each decision and of each term, in rows a change reads and writes a
few of (`weighing.Kept`).

At 10,000 decision records what a weighing keeps was a 7 MB record read and written whole at each
change, and a change's likely matches were found by scoring every decision's query against the
changed one. Here each decision's facts (its terms as counted, query, most alike, handles,
mentions) are kept in rows chosen by a CRC of its id (`rows_for`), and what a change must find
without visiting every decision in an index kept beside them, in rows chosen by a CRC of the
key: which decisions ask a term (with its place in their query: a score adds its shares in that
order), which count a decision among their most alike, and which cite or hold a handle. A change reads the rows of the decisions it touches and
of the keys it asks, and writes those it changed; the record names the rows.
"""

from __future__ import annotations

import marshal
import math
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from typing import Any, Protocol

from .row_keys import key_of, row_of, rows_of

__all__ = [
    "DIGESTS_A_ROW",
    "Digests",
    "since",
    "TEXTS_A_ROW",
    "SPREAD",
    "rows_for",
    "TEXTS",
    "LINKS",
    "FIELDS",
    "Buckets",
    "Facts",
    "FieldView",
]

# How many rows hold what is kept, chosen at each full count (a power of two, at least LEAST_ROWS):
# each decision's terms, read for the decisions changed alone, about TEXTS_A_ROW to a row; the
# rest (each decision's `LINKS`, the index's keys, the postings' terms) in about the square root
# of SPREAD times the number of decisions: a change reads and writes a few hundred rows of those,
# each holding what is kept of a handful of decisions or keys, and the record names every row
# (1,024 rows each at 505 decisions, 4,096 at 9,582).
TEXTS_A_ROW = 16
SPREAD = 2000
LEAST_ROWS = 16


def rows_for(decisions: int, a_row: int = 0) -> int:
    """How many rows hold what is kept of this many decisions: `a_row` to a row (about), or the
    square root of SPREAD times as many (none given)."""
    wanted = decisions // a_row if a_row else round(math.sqrt(SPREAD * decisions))
    return max(LEAST_ROWS, 1 << round(math.log2(max(1, wanted))))


# What is kept of each decision: its terms as last counted, in one row (`TEXTS`: three quarters
# of the bytes, read for the decisions changed alone); the query it asks (`Bm25.query_terms`), its
# likeliest match, the next most alike, the handles it holds and cites in another, and its
# `Profile.when` (`weighing._when`: it orders every pair it is in) (read for those whose most
# alike or pairs are found again, and those of the pairs weighed again and drawn).
TEXTS = ("words",)
LINKS = ("asked", "top", "near", "handles", "mentions", "when")
FIELDS = TEXTS + LINKS
_ASKED, _TOP, _NEAR, _HANDLES, _MENTIONS = (
    FIELDS.index(name) for name in ("asked", "top", "near", "handles", "mentions")
)
# The index's keys: a term asked, a decision counted among others' most alike, a handle cited or held.
ASKS, NEAR, CITES, HOLDS = "a\x1f", "n\x1f", "m\x1f", "h\x1f"


class _Rows(Protocol):  # `weighing.Rows`
    dropped: set[str]

    def fetch(self, keys: Iterable[str]) -> None: ...
    def __getitem__(self, key: str) -> bytes: ...
    def add(self, value: bytes) -> str: ...


def _loads(value: bytes) -> dict:
    try:
        found = marshal.loads(value)
    except (EOFError, ValueError, TypeError):
        raise ValueError("a row of the weighing is damaged") from None
    if type(found) is not dict:
        raise ValueError("a row of the weighing is damaged")
    return found


class Buckets:
    """Values by key in rows chosen by a CRC of the key (the rows `keys` names, "" for one holding
    nothing; none named: `count` rows made anew), each read when first asked, many to a query
    where the caller says which it will ask (`read`); `keep` makes again those changed."""

    def __init__(self, rows: _Rows, keys: list[str], count: int):
        if type(keys) is not list or not all(type(key) is str for key in keys):
            raise ValueError("the weighing is not kept in rows")
        self.whole = not keys
        self.rows, self.count = rows, count if self.whole else len(keys)
        self.keys = list(keys) if keys else [""] * count
        self.parts: dict[int, dict] = {at: {} for at in range(count)} if self.whole else {}
        self.changed: set[int] = set()

    def at(self, key: str) -> int:
        return row_of(key, self.count)

    def read(self, keys: Iterable[str]) -> None:
        """Read the rows holding these keys, those not read yet, in one query."""
        wanted = {self.at(key) for key in keys} - self.parts.keys()
        self._read(wanted)

    def _read(self, ats: Iterable[int]) -> None:
        wanted = [at for at in ats if at not in self.parts]
        self.rows.fetch(self.keys[at] for at in wanted if self.keys[at])
        for at in wanted:
            self.parts[at] = _loads(self.rows[self.keys[at]]) if self.keys[at] else {}

    def part(self, key: str) -> dict:
        at = self.at(key)
        found = self.parts.get(at)
        if found is None:
            self._read((at,))
            found = self.parts[at]
        return found

    def get(self, key: str, default: Any = None) -> Any:
        return self.part(key).get(key, default)

    def set(self, key: str, value: Any) -> None:
        self.part(key)[key] = value
        self.changed.add(self.at(key))

    def pop(self, key: str) -> None:
        part = self.part(key)
        if key in part:
            del part[key]
            self.changed.add(self.at(key))

    def every(self) -> Iterator[tuple[str, Any]]:
        """Every key with its value, all rows read."""
        self._read(range(self.count))
        for at in range(self.count):
            yield from self.parts[at].items()

    def keep(self) -> list[str]:
        """The keys naming the rows as they are now, those changed made again (the keys they
        replace told to `rows.dropped`)."""
        changed = range(self.count) if self.whole else sorted(self.changed)
        for at in changed:
            if self.keys[at]:
                self.rows.dropped.add(self.keys[at])
            part = self.parts[at]
            self.keys[at] = self.rows.add(marshal.dumps(part)) if part else ""
        self.whole, self.changed = False, set()
        return list(self.keys)


class Facts:
    """Each decision's `FIELDS` (`facts`, by id, as a list) and the index kept beside them
    (`index`, by key: {decision: its value}), changed together: every change to a decision's
    query, most alike, handles or mentions goes through `put`, `set_few` or `drop`, which keep
    the index as a pass over every decision would make it."""

    def __init__(self, rows: _Rows, texts: list[str], links: list[str], inverted: list[str], decisions: int):
        """`decisions`: how many there are, where the rows are made anew (none named)."""
        self.texts = Buckets(rows, texts, rows_for(decisions, TEXTS_A_ROW))
        self.links = Buckets(rows, links, rows_for(decisions))
        self.index = Buckets(rows, inverted, rows_for(decisions))

    def read(self, doc_ids: Iterable[str], texts: bool = False) -> None:
        """Read these decisions' `LINKS` rows (and `TEXTS` where asked: the terms they were counted with), in one query each."""
        doc_ids = list(doc_ids)
        self.links.read(doc_ids)
        if texts:
            self.texts.read(doc_ids)

    def value(self, doc_id: str, n: int) -> Any:
        """One of a decision's `FIELDS` (None for none)."""
        group, at = (self.texts, n) if n < len(TEXTS) else (self.links, n - len(TEXTS))
        found = group.get(doc_id)
        return None if found is None else found[at]

    def keyed(self, prefix: str, key: str) -> dict[str, Any]:
        """The decisions under one key of the index ({} for none), as `index` holds them: not to be changed."""
        return self.index.get(prefix + key, _EMPTY)

    def read_keys(self, prefix: str, keys: Iterable[str]) -> None:
        self.index.read(prefix + key for key in keys)

    def _index(self, prefix: str, doc_id: str, before: dict[str, Any], after: dict[str, Any]) -> None:
        index = self.index
        for key in before.keys() - after.keys():
            held = index.get(prefix + key)
            if held is not None and doc_id in held:
                del held[doc_id]
                if held:
                    index.changed.add(index.at(prefix + key))
                else:
                    index.pop(prefix + key)
        for key, value in after.items():
            if before.get(key, _EMPTY) != value:
                held = index.get(prefix + key)
                if held is None:
                    index.set(prefix + key, {doc_id: value})
                else:
                    held[doc_id] = value
                    index.changed.add(index.at(prefix + key))

    def _keys(self, n: int, value: Any) -> dict[str, Any]:
        """What one field's value puts in the index."""
        if value is None:
            return {}
        if n == _ASKED:
            return {term: at for at, term in enumerate(value)}
        return dict.fromkeys(value, 1)

    def put(self, doc_id: str, n: int, value: Any) -> None:
        """Set one field of a decision's (its index kept alike)."""
        group, at, size = (self.texts, n, len(TEXTS)) if n < len(TEXTS) else (self.links, n - len(TEXTS), len(LINKS))
        found = group.get(doc_id)
        if found is None:
            found = [None] * size
            group.set(doc_id, found)
        before = found[at]
        found[at] = value
        group.changed.add(group.at(doc_id))
        prefix = {_ASKED: ASKS, _HANDLES: HOLDS, _MENTIONS: CITES}.get(n)
        if prefix is not None:
            self._index(prefix, doc_id, self._keys(n, before), self._keys(n, value))

    def set_few(self, doc_id: str, top: Any, near: Any) -> None:
        """Set a decision's most alike (`top`, `near`: None for none)."""
        was = self._few(self.value(doc_id, _TOP), self.value(doc_id, _NEAR))
        self.put(doc_id, _TOP, top)
        self.put(doc_id, _NEAR, near)
        self._index(NEAR, doc_id, was, self._few(top, near))

    @staticmethod
    def _few(top: Any, near: Any) -> dict[str, int]:
        found = {} if top is None else {top[1]: 1}
        found.update((other, 1) for _, other in near or ())
        return found

    def drop(self, doc_id: str) -> None:
        """Keep nothing of a decision (gone)."""
        self.set_few(doc_id, None, None)
        for n in (_ASKED, _HANDLES, _MENTIONS):
            self.put(doc_id, n, None)
        self.texts.pop(doc_id)
        self.links.pop(doc_id)

    def keep(self) -> tuple[list[str], list[str], list[str]]:
        return self.texts.keep(), self.links.keep(), self.index.keep()


_EMPTY: dict = {}


class FieldView(MutableMapping):
    """One of `FIELDS` of every decision, as a dictionary (None values not held): asking for one
    decision's reads its row; going through all reads every row. Set only where nothing in the
    index follows the field (`top` and `near` go through `Facts.set_few`)."""

    def __init__(self, facts: Facts, name: str):
        self._facts, self._n = facts, FIELDS.index(name)

    def __getitem__(self, doc_id: str) -> Any:
        found = self._facts.value(doc_id, self._n)
        if found is None:
            raise KeyError(doc_id)
        return found

    def get(self, doc_id: str, default: Any = None) -> Any:  # asked of every pair weighed: no `Mapping.get`
        found = self._facts.value(doc_id, self._n)
        return default if found is None else found

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, str) and self._facts.value(doc_id, self._n) is not None

    def __iter__(self) -> Iterator[str]:
        n = self._n
        group, at = (self._facts.texts, n) if n < len(TEXTS) else (self._facts.links, n - len(TEXTS))
        return iter([doc_id for doc_id, found in group.every() if found[at] is not None])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __setitem__(self, doc_id: str, value: Any) -> None:
        if self._n in (_TOP, _NEAR):
            raise TypeError("a decision's most alike are set through `Facts.set_few`")
        self._facts.put(doc_id, self._n, value)

    def __delitem__(self, doc_id: str) -> None:
        if doc_id not in self:
            raise KeyError(doc_id)
        self[doc_id] = None


DIGESTS_A_ROW = 48


def since(held: Mapping[str, str], now: Mapping[str, str]) -> tuple[set[str], set[str]]:
    """(the ids of `now` whose digest is not the one `held`, the ids `held` that `now` lacks):
    through `Digests.since` where `held` is kept in rows (the rows that differ alone read)."""
    if isinstance(held, Digests):
        return held.since(now)
    return {key for key, digest in now.items() if held.get(key) != digest}, held.keys() - now.keys()


class Digests(MutableMapping):
    """Each id's digest (what tells a change), kept in rows by a CRC of the id, each row its ids
    and their digests (`_row`: the same bytes for the same digests in every process), named by
    the key of its bytes, the record holding the keys and the count alone: at
    10,000 decision records the decisions' digests were 0.8 MB of the weighing's record, read and
    written at every change. A call tells which ids changed (`since`) by making each row from the
    digests as they are now and comparing its key with the one kept: only the rows whose keys
    differ are read, and only those changed are written (`keep`). Asked before `since`, every row
    is read (what a full pass needs)."""

    def __init__(self, rows: _Rows, kept: Any = None):
        """`kept`: (count, row keys) as `keep` gave them (None: nothing kept, none held)."""
        self.rows = rows
        names: list[str]
        if kept is None:
            count, names = 0, []
        elif type(kept) is tuple and len(kept) == 2 and type(kept[0]) is int and type(kept[1]) is list:
            count, names = kept
        else:
            raise ValueError("the digests are not kept in rows")
        self.count, self.names = count, list(names)
        self.held: dict[str, str] | None = None if names else {}
        # Each row's ids (where `held`), in the order the digests were given: the order the next
        # call gives them in (the documents'), which makes a row unchanged the same bytes.
        self.ids: list[dict[str, None]] = [{} for _ in self.names]
        self.changed: set[int] = set()
        # The digests the last `since` was asked of, and what it told: a caller keeping those same
        # digests (`weighing.Kept.keep_digests`) sets what changed, not every row made again.
        self.told: tuple[Mapping[str, str], set[str], set[str]] | None = None

    @classmethod
    def of(cls, rows: _Rows, digests: Mapping[str, str]) -> Digests:
        """These digests, every row made anew (at the next `keep`)."""
        made = cls(rows)
        made.held = dict(digests)
        made.count = len(digests)
        return made

    def _at(self, key: str) -> int:
        return row_of(key, len(self.names))

    @staticmethod
    def _row(ids: Iterable[str], held: Mapping[str, str]) -> bytes:
        """A row's bytes: its ids and their digests, in marshal's version 2, which writes each
        string as it is, never a reference to one met before: the same ids and digests make the
        same bytes in every process (its key tells a row unchanged), and an id holding any
        character (a line break in a file's name) is read back whole."""
        return marshal.dumps((list(ids), [held[key] for key in ids]), 2)

    @staticmethod
    def _loads(data: bytes) -> dict[str, str]:
        try:
            ids, digests = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            raise ValueError("a row of the digests is damaged") from None
        if type(ids) is not list or type(digests) is not list or len(ids) != len(digests):
            raise ValueError("a row of the digests is damaged")
        found = dict(zip(ids, digests))
        if len(found) != len(ids):
            raise ValueError("a row of the digests is damaged")
        return found

    def since(self, now: Mapping[str, str]) -> tuple[set[str], set[str]]:
        """As `since` (the module's function) tells them; afterwards this holds every digest kept."""
        if self.held is not None:
            changed, removed = since(self.held, now)
        else:
            changed, removed = self._since(now)
        self.told = (now, changed, removed)
        return changed, removed

    def _since(self, now: Mapping[str, str]) -> tuple[set[str], set[str]]:
        count = len(self.names)
        parts: list[list[str]] = [[] for _ in range(count)]
        for key, at in zip(now, rows_of(now, count)):
            parts[at].append(key)
        differ = []
        names = self.names
        for at, ids in enumerate(parts):
            if (key_of(self._row(ids, now)) if ids else "") != names[at]:
                differ.append(at)
        self.rows.fetch(names[at] for at in differ if names[at])
        held = dict(now)
        self.ids = [dict.fromkeys(ids) for ids in parts]
        changed: set[str] = set()
        removed: set[str] = set()
        for at in differ:
            kept = self._loads(self.rows[self.names[at]]) if self.names[at] else {}
            for key in parts[at]:
                if kept.get(key) != now[key]:
                    changed.add(key)
                    if key in kept:
                        held[key] = kept[key]
                    else:
                        del held[key]  # its place among the row's ids kept: set again there
            for key in kept.keys() - now.keys():
                removed.add(key)
                held[key] = kept[key]
                self.ids[at][key] = None
        if len(held) != self.count:
            raise ValueError("the digests kept are not as many as their record says")
        self.held = held
        return changed, removed

    def _every(self) -> dict[str, str]:
        """Every digest kept, all rows read (asked before `since`)."""
        if self.held is None:
            self.rows.fetch(key for key in self.names if key)
            held: dict[str, str] = {}
            for at, key in enumerate(self.names):
                part = self._loads(self.rows[key]) if key else {}
                held.update(part)
                self.ids[at] = dict.fromkeys(part)
            if len(held) != self.count:
                raise ValueError("the digests kept are not as many as their record says")
            self.held = held
        return self.held

    def __getitem__(self, key: str) -> str:
        return self._every()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._every().get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._every()

    def __iter__(self) -> Iterator[str]:
        return iter(self._every())

    def __len__(self) -> int:
        return len(self.held) if self.held is not None else self.count

    def __setitem__(self, key: str, digest: str) -> None:
        held = self._every()
        if held.get(key) != digest:
            held[key] = digest
            if self.names:
                at = self._at(key)
                self.ids[at].setdefault(key)
                self.changed.add(at)

    def __delitem__(self, key: str) -> None:
        del self._every()[key]
        if self.names:
            at = self._at(key)
            self.ids[at].pop(key, None)
            self.changed.add(at)

    def keep(self) -> tuple[int, list[str]]:
        """(the count, the row keys) naming the rows as they are now, those changed made again (the
        keys they replace told to `rows.dropped`); every row where none were kept."""
        if self.held is None:  # never asked: as kept
            return self.count, list(self.names)
        held = self.held
        if not self.names:
            self.names = [""] * rows_for(len(held), DIGESTS_A_ROW)
            self.ids = [{} for _ in self.names]
            for key in held:
                self.ids[self._at(key)][key] = None
            self.changed = set(range(len(self.names)))
        for at in sorted(self.changed):
            ids = [key for key in self.ids[at] if key in held]
            key = self.rows.add(self._row(ids, held)) if ids else ""
            if key != self.names[at]:
                if self.names[at]:
                    self.rows.dropped.add(self.names[at])
                self.names[at] = key
        self.changed, self.count = set(), len(held)
        return self.count, list(self.names)
