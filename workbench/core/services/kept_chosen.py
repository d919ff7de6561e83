"""The conflicts queue's decision pairs kept in blocks, so that a change is followed pair by pair.

The pairs the queue lists (`conflicts.choose`, but those whose older is superseded, whose fault
comes with its structural one) are kept best first by (-score, older, newer), in blocks of about
BLOCK entries, each block as two rows of the derived store's `kept_rows`: the entries (ids, score,
kind, the entry as `kept_conflicts.encode` lists it but its rank, and the size of its printed text)
and their printed texts (UTF-8, as `kept_conflicts.printed` indents them, joined by ",\\n"), each
under a digest of its bytes. An entry's rank is its place in the list: it is joined in as the list
is read (`encoded`), so taking a pair out or putting one in rewrites only its block. Each pair's
score is kept too, in PLACE_ROWS rows by a CRC of its ids (either way round), to find where a
pair stood once it is weighed again. A small record names the rows, with each block's first key
and size, and `identity`: the weighing the list was chosen from (`kept_ranking.identity`).

After a change the weighing names the pairs it weighed again, new or gone, and the settled pairs it
lists no more or again: where the record kept was chosen from the weighing as it stood before the
change, those pairs alone are taken out of their blocks and, where chosen now, worded and put back
(`Chosen.follow`): at 10,000 decision records a change touches a few hundred of 24,000 entries,
where choosing, wording, encoding and printing them all again, and writing 25 MB of them, took a
second. A pair is worded from its two files alone (their titles and statuses), and a file changed
changes its digest, which has the weighing weigh each of its pairs again: an entry whose pair was
not weighed again still reads as it did.
"""

from __future__ import annotations

import marshal
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .kept_ranking import identity, rank_key, touched_now
from .row_keys import key_of, row_of

__all__ = [
    "Entry",
    "Record",
    "Chosen",
    "Made",
    "Stale",
    "follow_or_make",
    "rank_key",
    "place_of",
    "load",
    "VERSION",
    "BLOCK",
    "PLACE_ROWS",
]

# (older, newer, score, kind, encoded, shown): `encoded` as `encode` lists the entry but its rank
# (no closing bracket), `shown` as `printed` indents it, in UTF-8.
Entry = tuple
Key = tuple[float, str, str]  # (-score, older, newer): an entry's place, best first

VERSION = 3  # 2: rows named by 16-byte digests; 1: the scores in 128 rows by the pair's ids as listed
BLOCK = 256
"""Entries a block holds when made whole; a block followed past twice this is split in two."""
PLACE_ROWS = 512
"""Rows the pairs' scores are kept in (a change reads and writes again only those its pairs fall
in): at 10,000 decision records a change touches 40-300 pairs, of 24,000 in 128 rows of 190 (10 KB)
each, which put nearly every row in the change; in 512 rows of 47, a tenth to a half of them."""
Read = Callable[[list[str]], dict[str, bytes]]


class Stale(Exception):
    """A row the record names is gone (another process kept other entries) or does not decode."""


class Record:
    """What names the kept entries: each block's first key, size and two rows, and the score rows.
    A plain class, not a dataclass: an unchanged vault's kept answer reads it, and importing
    `dataclasses` (with `inspect`, `ast` and `dis`) took 7 ms of that answer's 0.1 s of CPU."""

    __slots__ = ("identity", "firsts", "counts", "blocks", "shown", "places")

    def __init__(
        self,
        identity: str,
        firsts: list[Key] | None = None,
        counts: list[int] | None = None,
        blocks: list[str] | None = None,
        shown: list[str] | None = None,
        places: list[str] | None = None,
    ):
        self.identity = identity
        self.firsts: list[Key] = [] if firsts is None else firsts
        self.counts: list[int] = [] if counts is None else counts
        self.blocks: list[str] = [] if blocks is None else blocks  # the entries' rows, best first
        self.shown: list[str] = [] if shown is None else shown  # their printed texts' rows
        self.places: list[str] = [] if places is None else places  # PLACE_ROWS row keys ("": no pair there)

    def _fields(self) -> tuple:
        return (self.identity, self.firsts, self.counts, self.blocks, self.shown, self.places)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and self._fields() == other._fields()

    def __repr__(self) -> str:
        return f"Record({self.identity!r}, {len(self.blocks)} blocks of {sum(self.counts)} entries)"

    def dump(self) -> bytes:
        return marshal.dumps((VERSION, *self._fields()), 2)

    def rows(self) -> set[str]:
        return (set(self.blocks) | set(self.shown) | set(self.places)) - {""}


def load(data: Any) -> Record | None:
    """The record kept in `data`, or None for anything this code did not keep."""
    if not isinstance(data, bytes):
        return None
    try:
        version, ident, firsts, counts, blocks, shown, places = marshal.loads(data)
    except (ValueError, TypeError, EOFError):
        return None
    if (
        version != VERSION
        or type(ident) is not str
        or not all(type(x) is list for x in (firsts, counts, blocks, shown, places))
        or not len(firsts) == len(counts) == len(blocks) == len(shown)
        or len(places) != PLACE_ROWS
        or not all(type(k) is tuple and len(k) == 3 for k in firsts)
        or not all(type(n) is int and n > 0 for n in counts)
        or not all(type(b) is str for b in blocks + shown + places)
    ):
        return None
    return Record(ident, firsts, counts, blocks, shown, places)


def place_of(pair: tuple[str, str]) -> int:
    """The score row a pair falls in, whichever way round its ids are given: a change names each
    pair it touches both ways round (`follow_or_make`), which by the ids as given fell in two rows."""
    older, newer = pair
    return row_of((older, newer) if older <= newer else (newer, older), PLACE_ROWS)


def _decoded(data: bytes | None, what: str, kind: type) -> Any:
    if data is None:
        raise Stale(f"a row of the queue's {what} is gone")
    try:
        found = marshal.loads(data)
    except (ValueError, TypeError, EOFError):
        raise Stale(f"a row of the queue's {what} does not decode") from None
    if type(found) is not kind:
        raise Stale(f"a row of the queue's {what} is not one")
    return found


def _block(data: bytes | None, shown: bytes | None, count: int) -> list[Entry]:
    """A block's entries, each with its printed text cut from `shown`."""
    rows = _decoded(data, "entries", list)
    if shown is None:
        raise Stale("a row of the queue's printed entries is gone")
    if len(rows) != count or not all(type(e) is tuple and len(e) == 6 and type(e[5]) is int for e in rows):
        raise Stale("a block of the queue holds other entries than its record says")
    found, at = [], 0
    for older, newer, score, kind, encoded, size in rows:
        found.append((older, newer, score, kind, encoded, shown[at : at + size]))
        at += size + 2
    if at - 2 != len(shown):
        raise Stale("a block's printed entries are not the sizes it says")
    return found


def _made_block(block: list[Entry], rows: dict[str, bytes]) -> tuple[str, str]:
    """The two rows of a block, put in `rows`: (the entries' key, the printed texts' key)."""
    data = marshal.dumps([(*e[:5], len(e[5])) for e in block], 2)
    shown = b",\n".join(e[5] for e in block)
    keys = key_of(data), key_of(shown)
    rows[keys[0]], rows[keys[1]] = data, shown
    return keys


class Chosen:
    """The entries a record names, read from `read(keys)` (the rows there are) when asked."""

    def __init__(self, record: Record, read: Read):
        self.record, self._read = record, read
        self.followed = 0  # entries taken out or put in by `follow` (0: made whole, or nothing touched)
        self._pieces: list[bytes | None] | None = None  # the printed rows, as read
        self._held: dict[int, list[Entry]] = {}  # the blocks decoded, by place

    def __len__(self) -> int:
        return sum(self.record.counts)

    @classmethod
    def whole(cls, entries: list[Entry], ident: str) -> tuple[Chosen, dict[str, bytes]]:
        """The entries (best first) in a record and the rows it names, every one made."""
        record = Record(ident)
        rows: dict[str, bytes] = {}
        for start in range(0, len(entries), BLOCK):
            block = entries[start : start + BLOCK]
            data, shown = _made_block(block, rows)
            record.firsts.append(rank_key(block[0]))
            record.counts.append(len(block))
            record.blocks.append(data)
            record.shown.append(shown)
        places: list[dict[tuple[str, str], float]] = [{} for _ in range(PLACE_ROWS)]
        for e in entries:
            places[place_of((e[0], e[1]))][(e[0], e[1])] = e[2]
        record.places = [_place(part, rows) for part in places]
        return cls(record, lambda keys: _among(rows, keys)), rows

    def follow(
        self, touched: set[tuple[str, str]], now: dict[tuple[str, str], Entry], ident: str = ""
    ) -> tuple[Chosen, dict[str, bytes]]:
        """These entries with the `touched` pairs taken out and those of them chosen now (`now`, by
        pair) put back: the new entries and the rows made for them (those shared with these are not
        among them). `Stale` where a row is gone or does not hold what the record says."""
        record = self.record
        place_at = sorted({place_of(pair) for pair in touched | now.keys()})
        found = self._read([record.places[at] for at in place_at if record.places[at]])
        places = {
            at: _decoded(found.get(record.places[at]), "places", dict) if record.places[at] else {} for at in place_at
        }
        olds: list[tuple[int, Key]] = []
        for pair in touched:
            score = places[place_of(pair)].pop(pair, None)
            if score is not None:
                key = (-score, pair[0], pair[1])
                olds.append((max(0, bisect_right(record.firsts, key) - 1), key))
        news: list[tuple[int, Key, Entry]] = []
        for pair, entry in now.items():
            places[place_of(pair)][pair] = entry[2]
            key = rank_key(entry)
            news.append((max(0, bisect_right(record.firsts, key) - 1), key, entry))
        need = sorted({at for at, _ in olds} | {at for at, _, _ in news})
        blocks_of: dict[int, list[Entry]] = {}
        keys_of: dict[int, list[Key]] = {}
        if record.blocks:
            # Copies: the blocks as this record holds them stay as they are.
            blocks_of = {at: list(block) for at, block in self._blocks(need, hold=False).items()}
            keys_of = {at: [rank_key(e) for e in block] for at, block in blocks_of.items()}
        elif news or olds:
            blocks_of[0], keys_of[0] = [], []
        for at, key in olds:
            keys = keys_of[at]
            spot = bisect_left(keys, key)
            if spot >= len(keys) or keys[spot] != key:
                raise Stale("a pair weighed again is not where its kept score places it")
            del blocks_of[at][spot], keys[spot]
        for at, key, entry in news:
            spot = bisect_left(keys_of[at], key)
            keys_of[at].insert(spot, key)
            blocks_of[at].insert(spot, entry)
        rows: dict[str, bytes] = {}
        made = Record(ident, places=list(record.places))
        for at in range(max(len(record.blocks), 1 if blocks_of else 0)):
            if at not in blocks_of:
                made.firsts.append(record.firsts[at])
                made.counts.append(record.counts[at])
                made.blocks.append(record.blocks[at])
                made.shown.append(record.shown[at])
                continue
            block = blocks_of[at]
            parts = [block[i : i + BLOCK] for i in range(0, len(block), BLOCK)] if len(block) > 2 * BLOCK else [block]
            for part in parts:
                if part:
                    data, shown = _made_block(part, rows)
                    made.firsts.append(rank_key(part[0]))
                    made.counts.append(len(part))
                    made.blocks.append(data)
                    made.shown.append(shown)
        for at, row in places.items():
            made.places[at] = _place(row, rows)
        followed = Chosen(made, lambda keys: {**self._read([k for k in keys if k not in rows]), **_among(rows, keys)})
        followed.followed = len(olds) + len(news)
        return followed, rows

    def _blocks(self, wanted: Iterable[int], hold: bool = True) -> dict[int, list[Entry]]:
        """The blocks at these places, those not decoded yet read in one query (their printed rows
        only where `printed` has not read them); kept decoded where `hold` (not every block: the
        whole list is read once, and 24 MB at 10,000 decision records)."""
        record, pieces = self.record, self._pieces
        held = self._held if hold else dict(self._held)
        wanted = list(wanted)
        missing = [at for at in wanted if at not in held]
        if missing:
            keys = [record.blocks[at] for at in missing]
            if pieces is None:
                keys += [record.shown[at] for at in missing]
            found = self._read(keys)
            for at in missing:
                shown = found.get(record.shown[at]) if pieces is None else pieces[at]
                held[at] = _block(found.get(record.blocks[at]), shown, record.counts[at])
        return {at: held[at] for at in wanted}

    def first(self) -> Entry | None:
        """The best entry (None where there is none)."""
        return self._blocks([0])[0][0] if self.record.blocks else None

    def printed(self, start: int = 0) -> list[bytes]:
        """The entries from the `start`th on as `printed` indents them, UTF-8 joined by ",\\n" within
        each piece (pieces to join by ",\\n" in turn): the rows as kept, no entry decoded."""
        record = self.record
        if self._pieces is None:
            found = self._read(list(record.shown))
            self._pieces = [found.get(key) for key in record.shown]
        if any(piece is None for piece in self._pieces):
            raise Stale("a row of the queue's printed entries is gone")
        pieces: list[bytes] = list(self._pieces)  # type: ignore[arg-type]
        if start and pieces:
            first = self._blocks([0])[0]
            cut = sum(len(e[5]) + 2 for e in first[:start])
            pieces[0] = pieces[0][cut:]
            if not pieces[0]:
                pieces.pop(0)
        return pieces

    def entries(self, start: int = 0) -> Iterator[tuple[int, Entry]]:
        """(rank, entry) from the `start`th on, best first."""
        rank = 0
        blocks = self._blocks(range(len(self.record.blocks)), hold=False)
        for at in range(len(self.record.blocks)):
            for entry in blocks[at]:
                if rank >= start:
                    yield rank, entry
                rank += 1

    def encoded(self, start: int = 0) -> str:
        """The entries from the `start`th on as `encode` lists them, their ranks joined in, as the
        items of a JSON list (no brackets)."""
        return ", ".join(f"{entry[4]}, {rank}]" for rank, entry in self.entries(start))


def _place(row: dict[tuple[str, str], float], rows: dict[str, bytes]) -> str:
    if not row:
        return ""
    data = marshal.dumps(row, 2)
    key = key_of(data)
    rows[key] = data
    return key


def _among(rows: dict[str, bytes], keys: list[str]) -> dict[str, bytes]:
    return {key: rows[key] for key in keys if key in rows}


class Made:
    """The entries of one call: followed from the record kept last, or made whole; with the rows to
    keep for them and those of the record followed that they name no more."""

    def __init__(self, chosen: Chosen, rows: dict[str, bytes], last: Record | None):
        self.chosen, self.rows, self.last = chosen, rows, last

    def identify(self, setting: str, pairs: Any) -> None:
        """Name the weighing as kept now (after `keep_weighing`) as what the entries were chosen from."""

        self.chosen.record.identity = identity(setting, pairs.kept.pair_rows, pairs.kept.unlisted)

    def keep(self, store: Any, name: str) -> str:
        """Keep the record (under a digest of it, which is given back) with its rows made in this
        call, and forget the rows of the record followed that it names no more, in one transaction."""
        record = self.chosen.record
        data = record.dump()
        key = key_of(data)
        forget = self.last.rows() - record.rows() if self.last is not None else set()
        store.keep_with_rows(name, key, data, self.rows, replace=self.last is None, forget=forget)
        return key


def follow_or_make(
    pairs: Any, setting: str, last: Record | None, read: Read | None, word: Callable[[Any], Entry]
) -> Made:
    """The decision pairs the queue lists, from the weighing `pairs` (`weighing.Weighing`, before it
    weighed): the entries of `last` followed where it was chosen from the weighing as it stood
    before this call or one of its last saves (the pairs weighed again since, new or gone, or
    listed no more or again, taken out, and put back worded by `word` where chosen now), else all
    of them chosen and worded (`conflicts.choose`). Asks the weighing only what it needs: after a
    change, the pairs touched (`listed_among`), not the 24,000 best of 10,000 decision records
    (`best`)."""
    from .conflicts import choose, listed, offered

    touched, follows = touched_now(setting, pairs, last.identity if last is not None else None)
    docs = pairs.docs
    if last is not None and read is not None and not pairs.full and follows:
        weighed = pairs.listed_among(touched)
        if not pairs.full:  # else what was kept did not hold together: all weighed again
            now = {(w.older, w.newer): word(w) for w in weighed if listed(w) and offered(docs, w)}
            try:
                chosen, rows = Chosen(last, read).follow(touched, now)
                chosen.printed()  # every block's printed row there (read once: printing asks them)
                return Made(chosen, rows, last)
            except Stale:
                pass
    entries = [word(w) for w in choose(pairs.best()) if offered(docs, w)]
    chosen, rows = Chosen.whole(entries, "")
    return Made(chosen, rows, None)
