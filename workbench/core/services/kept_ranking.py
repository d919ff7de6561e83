"""The review list's ranking kept in blocks, so that a change is followed pair by pair.

Every pair the list ranks, as a tuple (older, newer, score, alike, reasons, shared), best first by
(-score, older, newer), is kept in blocks of about BLOCK pairs, each a row of the derived store's
`kept_rows` under a digest of its bytes; each pair's score is kept too, in SCORE_ROWS rows by a CRC
of its ids, to find where a pair stood once it is weighed again. A small record names the rows, with
each block's first key and size, the number of decisions and `identity`: what the ranking was made
from (the weighing's rows of pairs and the pairs it left unlisted).

After a change the weighing names the pairs it weighed again, new or gone, and the settled pairs it
lists no more or again: where the record kept was made from the weighing as it stood before the
change (its identity), those pairs alone are taken out of their blocks and put back with what they
weigh now, and only the blocks and score rows they touch are written again (`follow`). At 10,000
decision records a change touches a few hundred of 130,000 pairs; ranking them all again and keeping
them took 0.5-1 s. A page reads only the blocks down to its depth (`KeptRanking.top`).
"""

from __future__ import annotations

import hashlib
import marshal
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from typing import Any

from .row_keys import key_of, row_of

__all__ = [
    "Entry",
    "Record",
    "KeptRanking",
    "Stale",
    "identity",
    "touched_since",
    "touched_now",
    "rank_key",
    "whole",
    "follow",
    "load",
    "VERSION",
]

Entry = tuple  # (older, newer, score, alike, reasons, shared): a pair as the list ranks it
Key = tuple[float, str, str]  # (-score, older, newer): an entry's place, best first

VERSION = 4  # the form of the record; 3: rows named by 16-byte digests, 2: the whole ranking in one value
BLOCK = 256
"""Pairs a block holds when made whole; a block followed past twice this is split in two."""
SCORE_ROWS = 256
"""Rows the pairs' scores are kept in (a change reads and writes again only those its pairs fall in)."""


class Stale(Exception):
    """A row the record names is gone (another process kept a newer ranking) or does not decode."""


def rank_key(entry: Entry) -> Key:
    """Where an entry stands in the list: (-score, older, newer), best first."""
    return (-entry[2], entry[0], entry[1])


def identity(setting: str, pair_rows: list[str], unlisted: Iterable[tuple[str, str]]) -> str:
    """What a ranking is made from: the weighing's setting (how the vault is read, the day, the
    code), the rows its pairs are kept in (each named by a digest of its bytes) and the pairs it
    leaves unlisted (settled since they were weighed)."""
    text = "\n".join([setting, *pair_rows, "", *sorted(f"{a}\t{b}" for a, b in unlisted)])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def touched_since(setting: str, pairs: Any, kept: str) -> set[tuple[str, str]] | None:
    """The pairs the weighing `pairs` (`weighing.Weighing`) touched in the saves since it stood as
    `kept` (a follower's `identity`) says, this call's not among them (empty where it stands so
    still), each either way round; None where it stood so none of its last saves back
    (`weighing.SAVES`): the follower is made whole. A `review` between two `conflicts` calls
    saves the weighing once: the queue's blocks follow both changes, not made whole again."""
    for rows, unlisted, since in pairs.stood():
        if identity(setting, rows, unlisted) == kept:
            return since | {(newer, older) for older, newer in since}
    return None


def touched_now(setting: str, pairs: Any, kept: str | None) -> tuple[set[tuple[str, str]], bool]:
    """What a follower chosen from the weighing `pairs` as it stood at identity `kept` takes out and
    puts back: the pairs this call weighs again, new or gone, or lists no more or again, and those
    touched in the saves since `kept` (`touched_since`), each either way round; and whether it can
    follow at all (not where the weighing stood so none of its last saves back). Asked before the
    weighing is kept (`keep_pairs` starts what it names again)."""
    since = touched_since(setting, pairs, kept) if kept else None
    unlisted = pairs.kept.unlisted
    pairs.listed_count()  # the pairs listed, weighed again where changed (none decoded)
    touched = pairs.pairs_changed | pairs.pairs_gone | (unlisted ^ pairs.kept.unlisted)
    # A pair is kept by its ids the older first by date, and listed the older first as the
    # statuses say: either way round.
    touched |= {(newer, older) for older, newer in touched} | (since or set())
    return touched, since is not None


class Record:
    """What names a kept ranking: each block's first key, size and row, and the score rows. A plain
    class, not a dataclass: an unchanged vault's kept queue imports this module (`kept_chosen`),
    and `dataclasses` (with `inspect`, `ast` and `dis`) took 7 ms of that answer's 0.1 s of CPU."""

    __slots__ = ("identity", "decisions", "firsts", "counts", "blocks", "scores")

    def __init__(
        self,
        identity: str,
        decisions: int,  # decisions a pair may involve: the list's default depth counts them
        firsts: list[Key] | None = None,
        counts: list[int] | None = None,
        blocks: list[str] | None = None,  # row keys, best first
        scores: list[str] | None = None,  # SCORE_ROWS row keys ("": no pair falls there)
    ):
        self.identity, self.decisions = identity, decisions
        self.firsts: list[Key] = [] if firsts is None else firsts
        self.counts: list[int] = [] if counts is None else counts
        self.blocks: list[str] = [] if blocks is None else blocks
        self.scores: list[str] = [] if scores is None else scores

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and self.dump() == other.dump()

    def dump(self) -> bytes:
        return marshal.dumps(
            (VERSION, self.identity, self.decisions, self.firsts, self.counts, self.blocks, self.scores), 2
        )

    def rows(self) -> set[str]:
        return (set(self.blocks) | set(self.scores)) - {""}


def load(data: Any) -> Record | None:
    """The record kept in `data`, or None for anything this code did not keep (older code's whole
    ranking, a damaged value)."""
    if not isinstance(data, bytes):
        return None
    try:
        version, ident, decisions, firsts, counts, blocks, scores = marshal.loads(data)
    except (ValueError, TypeError, EOFError):
        return None
    if (
        version != VERSION
        or type(ident) is not str
        or type(decisions) is not int
        or not all(type(x) is list for x in (firsts, counts, blocks, scores))
        or not len(firsts) == len(counts) == len(blocks)
        or len(scores) != SCORE_ROWS
        or not all(type(k) is tuple and len(k) == 3 for k in firsts)
        or not all(type(n) is int and n > 0 for n in counts)
        or not all(type(b) is str for b in blocks + scores)
    ):
        return None
    return Record(ident, decisions, firsts, counts, blocks, scores)


def _decoded(data: bytes | None, what: str, kind: type) -> Any:
    """A row of the ranking (`what`: its blocks' or its scores'), read as `kind`; `Stale` where it
    is gone or not one."""
    if data is None:
        raise Stale(f"a row of the ranking's {what} is gone")
    try:
        found = marshal.loads(data)
    except (ValueError, TypeError, EOFError):
        raise Stale(f"a row of the ranking's {what} does not decode") from None
    if type(found) is not kind:
        raise Stale(f"a row of the ranking's {what} is not one")
    return found


def _decode_block(data: bytes | None) -> list[Entry]:
    entries = _decoded(data, "blocks", list)
    if not all(type(e) is tuple and len(e) == 6 for e in entries):
        raise Stale("a block of the ranking is not one")
    return entries


def _decode_scores(data: bytes | None) -> dict[tuple[str, str], float]:
    return _decoded(data, "scores", dict)


class KeptRanking:
    """A kept ranking, its blocks read when first asked (`read(keys)` gives the rows there are)."""

    def __init__(self, record: Record, read: Callable[[list[str]], dict[str, bytes]]):
        self.record = record
        self._read = read
        self._blocks: dict[int, list[Entry]] = {}

    def __len__(self) -> int:
        return sum(self.record.counts)

    def top(self, n: int) -> list[Entry]:
        """The `n` best entries (all there are, if fewer); `Stale` where a block is gone."""
        record = self.record
        wanted, held = [], 0
        for at, count in enumerate(record.counts):
            if held >= n:
                break
            if at not in self._blocks:
                wanted.append(at)
            held += count
        if wanted:
            found = self._read([record.blocks[at] for at in wanted])
            for at in wanted:
                block = _decode_block(found.get(record.blocks[at]))
                if len(block) != record.counts[at]:
                    raise Stale("a block of the ranking holds other pairs than its record says")
                self._blocks[at] = block
        out: list[Entry] = []
        for at in range(len(record.counts)):
            if len(out) >= n:
                break
            out.extend(self._blocks[at])
        return out[:n]

    def find(self, older: str, newer: str) -> Entry | None:
        """The entry of the pair (in this order), or None where the list does not rank it."""
        pair = (older, newer)
        record = self.record
        row = record.scores[row_of(pair, SCORE_ROWS)]
        if not row:
            return None
        score = _decode_scores(self._read([row]).get(row)).get(pair)
        if score is None:
            return None
        key = (-score, older, newer)
        at = max(0, bisect_right(record.firsts, key) - 1)
        if at not in self._blocks:
            self._blocks[at] = _decode_block(self._read([record.blocks[at]]).get(record.blocks[at]))
        block = self._blocks[at]
        found = bisect_left([rank_key(e) for e in block], key)
        return block[found] if found < len(block) and block[found][:2] == pair else None


def whole(entries: list[Entry], decisions: int, ident: str) -> tuple[Record, dict[str, bytes]]:
    """A record for `entries` (best first) and the rows it names, every one made."""
    record = Record(ident, decisions)
    rows: dict[str, bytes] = {}
    for start in range(0, len(entries), BLOCK):
        block = entries[start : start + BLOCK]
        data = marshal.dumps(block, 2)
        record.firsts.append(rank_key(block[0]))
        record.counts.append(len(block))
        record.blocks.append(key_of(data))
        rows[record.blocks[-1]] = data
    scores: list[dict[tuple[str, str], float]] = [{} for _ in range(SCORE_ROWS)]
    for e in entries:
        scores[row_of((e[0], e[1]), SCORE_ROWS)][(e[0], e[1])] = e[2]
    for part in scores:
        if part:
            data = marshal.dumps(part, 2)
            record.scores.append(key_of(data))
            rows[record.scores[-1]] = data
        else:
            record.scores.append("")
    return record, rows


def follow(
    record: Record,
    read: Callable[[list[str]], dict[str, bytes]],
    touched: set[tuple[str, str]],
    now: dict[tuple[str, str], Entry],
    listed: int,
    decisions: int,
    ident: str,
) -> tuple[Record, dict[str, bytes]]:
    """The ranking `record` names with the `touched` pairs taken out and those of them listed now
    (`now`, by pair) put back: the new record and the rows made for it (those it shares with
    `record` are not among them). `listed`: how many pairs the list ranks now, which the blocks
    must add up to. `Stale` where a row is gone or the ranking kept does not hold the pairs it
    should (a ranking that is not the one the weighing followed)."""
    score_at = sorted({row_of(pair, SCORE_ROWS) for pair in touched | now.keys()})
    blocks_of: dict[int, list[Entry]] = {}
    found = read([record.scores[at] for at in score_at if record.scores[at]])
    scores = {at: _decode_scores(found.get(record.scores[at])) if record.scores[at] else {} for at in score_at}
    # Where each pair stood, by its score kept; its block read once.
    olds: list[tuple[int, Key]] = []
    for pair in touched:
        score = scores[row_of(pair, SCORE_ROWS)].pop(pair, None)
        if score is not None:
            key = (-score, pair[0], pair[1])
            olds.append((max(0, bisect_right(record.firsts, key) - 1), key))
    news: list[tuple[int, Key, Entry]] = []
    for pair, entry in now.items():
        scores[row_of(pair, SCORE_ROWS)][pair] = entry[2]
        key = rank_key(entry)
        news.append((max(0, bisect_right(record.firsts, key) - 1), key, entry))
    need = sorted({at for at, _ in olds} | {at for at, _, _ in news})
    keys_of: dict[int, list[Key]] = {}
    if record.blocks:
        rows = read([record.blocks[at] for at in need])
        for at in need:
            block = _decode_block(rows.get(record.blocks[at]))
            if len(block) != record.counts[at]:
                raise Stale("a block of the ranking holds other pairs than its record says")
            blocks_of[at], keys_of[at] = block, [rank_key(e) for e in block]
    elif news or olds:
        blocks_of[0], keys_of[0] = [], []
    for at, key in olds:
        keys = keys_of[at]
        place = bisect_left(keys, key)
        if place >= len(keys) or keys[place] != key:
            raise Stale("a pair weighed again is not where its kept score places it")
        del blocks_of[at][place], keys[place]
    for at, key, entry in news:
        place = bisect_left(keys_of[at], key)
        keys_of[at].insert(place, key)
        blocks_of[at].insert(place, entry)
    return _made(record, blocks_of, scores, listed, decisions, ident)


def _made(
    record: Record,
    blocks_of: dict[int, list[Entry]],
    scores: dict[int, dict[tuple[str, str], float]],
    listed: int,
    decisions: int,
    ident: str,
) -> tuple[Record, dict[str, bytes]]:
    """The record with the blocks and score rows changed in `follow` made again (a block emptied
    dropped, one grown past twice BLOCK split)."""
    rows: dict[str, bytes] = {}
    made = Record(ident, decisions, scores=list(record.scores))
    for at in range(max(len(record.blocks), 1 if blocks_of else 0)):
        if at not in blocks_of:
            made.firsts.append(record.firsts[at])
            made.counts.append(record.counts[at])
            made.blocks.append(record.blocks[at])
            continue
        block = blocks_of[at]
        parts = [block[i : i + BLOCK] for i in range(0, len(block), BLOCK)] if len(block) > 2 * BLOCK else [block]
        for part in parts:
            if not part:
                continue
            data = marshal.dumps(part, 2)
            made.firsts.append(rank_key(part[0]))
            made.counts.append(len(part))
            made.blocks.append(key_of(data))
            rows[made.blocks[-1]] = data
    for at, row in scores.items():
        if row:
            data = marshal.dumps(row, 2)
            made.scores[at] = key_of(data)
            rows[made.scores[at]] = data
        else:
            made.scores[at] = ""
    if sum(made.counts) != listed:
        raise Stale("the ranking followed does not hold every pair listed")
    return made, rows
