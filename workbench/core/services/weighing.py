"""The conflicts queue's and the review list's pairs kept between calls, so that a change weighs
again only the pairs it touches: at 10,000 documents weighing every pair takes seconds, and a
curator (or an agent judging pairs) changes one or two documents between two looks.

What is kept, with the digest of each document it was worked out from: each decision's term counts
(as postings, term by term) and length, its distinctive terms (the BM25 query it asks) and its
REVIEW_NEIGHBOURS most alike (the likeliest, which the queue pairs it with, and the next, which the
review list pairs it with too); what its profile takes from its text (`weighing_terms`: a pair
weighed again reads no text); each weighed pair of decisions; each pair of active documents
compared as possible duplicates and what came of it, with the word rarities that comparison used,
and the pairs to compare as drawn from the titles.

After a change, the changed decisions' counts replace theirs, so BM25 and the texts' likeness
weigh with the rarities of the decisions as they are now; the changed ones ask their terms and
find their most alike as a full count would; every other decision keeps its most alike unless a
changed one outscores one of them or was one of them; and only the pairs touching a changed
decision, or one whose likeliest match moved, are weighed again (a pair new to the list is weighed
too). The pairs are kept in rows (`kept_pairs`), with each decision's pairs indexed, and a change
reads only those of the decisions whose pairs may be drawn otherwise (changed or gone, their most
alike moved, or citing a handle a changed one held or holds): at 10,000 decision records a change
touches a few hundred of 137,021 pairs. Whether a pair is settled (marked compatible, or
replaced) is kept with it, and asked again of the pairs a change touches, and of those of every
decision from which a document whose supersessions changed is reachable (a pair is settled
through a third document that one of its two supersedes): the documents reachable by
supersession are kept with the opening of their digests (`Kept.reach`). `Weighing.everywhere`
draws and asks every pair instead, as a pass over all of them does: tests hold the two alike.

What is read as kept was weighed with the rarities of its day, and drifts from a full count's
with every change: everything is worked out again once more than `REFRESH_SHARE` of the documents
compared changed since the last full count (under one in a hundred, each term's document count
and the number of documents move by under one in a hundred). `tests/test_weighing.py` holds the
result at that bound to a full count: the queue lists the same pairs at the shipped thresholds,
each score within 0.02, but for near ties (a decision whose two likeliest matches, or whose 40th
and 41st distinctive terms, score nearly alike may be paired otherwise: 1.4% of the pairs at most)
and pairs within 0.02 of a threshold; the review list offers the same pairs at its default depth,
each score within 0.03, but for one in a hundred at its edge.
"""

from __future__ import annotations

import hashlib
import heapq
import marshal
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field, fields
from typing import Any, cast

from .conflicts import (
    CLAIM_TYPES,
    PAIRED,
    REVIEW_NEIGHBOURS,
    Weighed,
    duplicate,
    pair_to_list,
    paired_decisions,
    pairs_to_weigh,
    weigh_pair,
)
from .kept_pairs import NONE, KeptPairs
from .likeliest import Posting, likeliest
from .row_keys import checked, key_of
from .weighing_record import DICT, KEYS, LIST, Based, resolved, stored
from .weighing_rows import ASKS, CITES, FIELDS, HOLDS, NEAR, Buckets, Digests, Facts, FieldView, rows_for, since
from .weighing_terms import KeptTerms
from ..records.store_rows import relations_of
from ..vocabulary.model import DocType, Document, Status
from ..views.similarity import Bm25, Contents, Corpus, Likeness, Profile, profiles_of, rarity

__all__ = [
    "REFRESH_SHARE",
    "SAVES",
    "DRAWN",
    "PROGRESS_EVERY",
    "BASED",
    "Kept",
    "KeptBm25",
    "Rows",
    "Weighing",
    "load",
    "dump",
    "dump_apart",
    "told",
]

REFRESH_SHARE = 0.01
FORMAT = 16
SAVES = 8
"""Saves of the weighing kept in `Kept.saves`: a follower chosen from the weighing as it stood
before one of them follows the pairs touched since; one chosen from an older weighing is made whole."""
# The fields of the duplicates that stand still while decisions change (the pairs drawn from the
# titles, what each listed pair was listed for, the word rarities they were compared with): a
# third of what is kept, written apart (`dump_apart`) and again only when they change, and read
# only by a call that lists duplicates (the review list never does).
DRAWN = ("claims_frequency", "claims_linked", "listed", "candidates")


def _source(doc: Document) -> str:
    """What a decision is weighed from, as `Kept.digests` holds it: its bytes (the opening of their
    digest) and its path, whose file name gives it handles (and an ADR its date) that its bytes
    do not: a file moved under the same id is a decision changed."""
    return doc.digest[:32] + doc.path


def _when(profile: Profile) -> tuple:
    """`Profile.when` in a form `marshal` keeps, ordered alike (an ISO date sorts as the date)."""
    created, number, doc_id = profile.when
    return (created.isoformat(), number, doc_id)


@dataclass
class Kept:
    """What the queue's pairs were worked out from, and what came of them. Each decision's facts
    (`weighing_rows.FIELDS`: read through `words`, `asked`, `top`, `near`, `handles` and
    `mentions`) and the index beside them are kept in rows (`texts`, `documents`, `inverted`), the
    postings of the last full count too (`base`): `attach` gives them their rows."""

    # decisions: their digests (`_source`) in rows (`weighing_rows.Digests`: `digests` once attached)
    digest_rows: tuple = (0, [])
    linked: dict[str, int] = field(default_factory=dict)  # how many decisions link each target
    rows: list[str] = field(default_factory=list)  # a decision's row in the postings ("": none now)
    frequency: dict[str, int] = field(default_factory=dict)  # {term: how many decisions hold it}
    length_total: int = 0  # the decisions' lengths added up
    # The postings of the last full count, each term's (row, count) pairs as array "i", in the rows
    # `base` names (by a CRC of the term, `weighing_rows.rows_for`), never written again until the
    # next: a row's counts since (a decision changed, added or gone) are in `overlay` instead
    # ({row: {term: count}}, {} for one gone), a hundredth of the decisions at most
    # (`REFRESH_SHARE`). A change writes its counts, not the postings of its 300 terms.
    base: list[str] = field(default_factory=list)
    overlay: dict[int, dict[str, int]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)  # the rows of each decision's `weighing_rows.TEXTS`
    documents: list[str] = field(default_factory=list)  # the rows of each decision's `weighing_rows.LINKS`
    inverted: list[str] = field(default_factory=list)  # the rows of the index beside them
    # The rows of what each decision's profile takes from its text (`weighing_terms.KeptTerms`).
    term_rows: list[str] = field(default_factory=list)
    # Each row's least score among its most alike (its REVIEW_NEIGHBOURS-th), as array "d" (-inf
    # while it has fewer): a change outscoring none of them leaves them as they are.
    thresholds: bytes = b""
    # Each row's length, as array "i": every decision a query meets asks its own (BM25's norm).
    sizes: bytes = b""
    drift: int = 0  # decisions changed since the rarities were counted
    prefix: dict[str, tuple[str, ...]] = field(default_factory=dict)  # the decisions' titles' shared opening
    # duplicates: the digests of the documents compared, in rows as the decisions' (`claims` once attached)
    claim_rows: tuple = (0, [])
    claims_size: int = 0
    claims_frequency: dict[str, int] = field(default_factory=dict)
    claims_linked: dict[str, int] = field(default_factory=dict)
    claims_prefix: dict[str, tuple[str, ...]] = field(default_factory=dict)
    pending: set[str] = field(default_factory=set)  # pairs to compare not compared yet ("a\tb"): settled when met
    listed: dict[str, str] = field(default_factory=dict)  # {"a\tb": the reason} of those listed
    claims_drift: int = 0
    titles: str = ""  # a digest of the titles, types and ids the pairs to compare were drawn from
    candidates: str = ""  # those pairs, "type\ta\tb" a line
    drawn: str = ""  # the digest of the `DRAWN` fields kept apart, not read yet ("": they are in place)
    # Each pair weighed (as `pairs_to_weigh` orders it): its row as `_encode` gives it (None:
    # settled, or neither may replace the other), in the rows `pair_rows` names, and each
    # decision's pairs in those `pair_index` names (`kept_pairs`): a change reads and writes the
    # few rows holding the pairs it touched, not all 137,021 pairs of 10,000 decision records.
    pair_rows: list[str] = field(default_factory=list)
    pair_index: list[str] = field(default_factory=list)
    listed_pairs: int = 0  # how many pairs are listed (a row, and not in `unlisted`)
    # The pairs kept with a row that were settled when last asked (weighed once, and settled since
    # by documents they do not touch).
    unlisted: set[tuple[str, str]] = field(default_factory=set)
    # What whether a pair is settled reads beyond its own two documents (`conflicts.pair_to_list`):
    # each document reachable by supersession from a decision weighed, with the opening of its
    # digest ("": no document has the id), and what it supersedes (where anything).
    reach: dict[str, str] = field(default_factory=dict)
    supers: dict[str, list[str]] = field(default_factory=dict)
    # The last SAVES saves that changed the pairs, oldest first, each as ({place in `pair_rows`:
    # the key it held before}, the pairs it listed no more or again, the pairs it touched): the
    # queue's blocks and the review list's ranking, each kept by the call that saved last before
    # it, follow every save since, not only the last (`Weighing.stood`).
    saves: list[tuple[dict[int, str], list[tuple[str, str]], list[tuple[str, str]]]] = field(default_factory=list)

    # Given by `attach`, not kept in the record (a dictionary set in their place is put in rows when kept).
    _rows: Any = field(init=False, repr=False, compare=False, default=None)
    # The bases of the large fields (`BASED`) as last written: the record keeps the changes since.
    bases: dict[str, Based] = field(init=False, repr=False, compare=False, default_factory=dict)
    # The digests' rows as attached, by field: `keep_digests` follows what their `since` told.
    _read_digests: dict[str, Digests] = field(init=False, repr=False, compare=False, default_factory=dict)
    digests: MutableMapping[str, str] = field(init=False, repr=False, compare=False, default_factory=dict)
    claims: MutableMapping[str, str] = field(init=False, repr=False, compare=False, default_factory=dict)
    facts: Facts = field(init=False, repr=False, compare=False)
    terms: KeptTerms = field(init=False, repr=False, compare=False)
    terms_base: Buckets = field(init=False, repr=False, compare=False)
    limits: array = field(init=False, repr=False, compare=False)
    by_row: array = field(init=False, repr=False, compare=False)
    positions: dict[str, int] = field(init=False, repr=False, compare=False)
    lengths: Mapping[str, int] = field(init=False, repr=False, compare=False)
    words: FieldView = field(init=False, repr=False, compare=False)
    asked: FieldView = field(init=False, repr=False, compare=False)
    top: FieldView = field(init=False, repr=False, compare=False)
    near: FieldView = field(init=False, repr=False, compare=False)
    handles: FieldView = field(init=False, repr=False, compare=False)
    mentions: FieldView = field(init=False, repr=False, compare=False)
    # Each decision's `Profile.when` (`_when`, which orders every pair), among its facts; a
    # dictionary set by a full count is put among them when kept.
    when: MutableMapping[str, tuple] = field(init=False, repr=False, compare=False, default_factory=dict)

    def attach(self, rows: Rows) -> None:
        """Read what is kept in rows from `rows` (a `ValueError` where they do not hold together,
        a `TypeError` where a field is not what this code keeps)."""
        self._rows = rows
        if not (isinstance(self.digests, dict) and self.digests):  # else set by a full count: kept as it is
            self.digests = Digests(rows, self.digest_rows)
        # Attached again by a full count of the decisions (every row made anew): the duplicates' read whole first.
        self.claims = dict(self.claims) if isinstance(self.claims, Digests) else Digests(rows, self.claim_rows)
        self._read_digests = {
            name: found for name in ("digests", "claims") if isinstance(found := getattr(self, name), Digests)
        }
        self.facts = Facts(rows, self.texts, self.documents, self.inverted, len(self.digests))
        self.terms = KeptTerms(rows, self.term_rows, len(self.digests))
        self.terms_base = Buckets(rows, self.base, rows_for(len(self.digests)))
        self.limits = array("d")
        self.limits.frombytes(self.thresholds)
        self.by_row = array("i")
        self.by_row.frombytes(self.sizes)
        if len(self.limits) != len(self.rows) or len(self.by_row) != len(self.rows):
            raise ValueError("the weighing's rows do not hold together")
        self.positions = {doc_id: at for at, doc_id in enumerate(self.rows) if doc_id}
        self.lengths = _Lengths(self.positions, self.by_row)
        for name in FIELDS:
            setattr(self, name, FieldView(self.facts, name))

    def posting(self, term: str) -> array:
        """A term's (row, count) pairs as they are now, as array "i" (empty for a term no decision holds)."""
        found = array("i")
        base = self.terms_base.get(term)
        if base is not None:
            found.frombytes(base)
        overlay = self.overlay
        if overlay:
            if base is not None:
                kept = array("i")
                for n in range(0, len(found), 2):
                    if found[n] not in overlay:
                        kept.extend((found[n], found[n + 1]))
                found = kept
            for row, counts in overlay.items():
                count = counts.get(term)
                if count:
                    found.extend((row, count))
        return found

    def unpost(self, doc_id: str) -> None:
        """Take a decision's counts out of the postings and the frequencies."""
        row = self.positions.get(doc_id)
        if row is None:
            return
        frequency = self.frequency
        for term in self.words.get(doc_id, ()):
            left = frequency[term] - 1
            if left:
                frequency[term] = left
            else:
                del frequency[term]
        self.length_total -= self.by_row[row]
        self.by_row[row] = 0
        self.overlay[row] = {}

    def post(self, doc_id: str, counts: Counter) -> None:
        """Put a decision's counts in the postings (`overlay`), in a row of its own."""
        row = self.positions.get(doc_id)
        if row is None:
            row = self.positions[doc_id] = len(self.rows)
            self.rows.append(doc_id)
            self.limits.append(_NO_LIMIT)
            self.by_row.append(0)
        frequency = self.frequency
        for term in counts:
            frequency[term] = frequency.get(term, 0) + 1
        self.overlay[row] = dict(counts)
        length = sum(counts.values())
        self.length_total += length
        self.by_row[row] = length
        self.facts.put(doc_id, _WORDS, list(counts))

    def gone(self, doc_id: str) -> None:
        """A decision weighed no more: its counts out, its row emptied, nothing kept of it."""
        self.unpost(doc_id)
        row = self.positions.pop(doc_id, None)
        if row is not None:
            self.rows[row] = ""
            self.limits[row] = _NO_LIMIT
        if not isinstance(self.when, FieldView):
            del self.when[doc_id]  # else dropped with the rest of its facts
        self.facts.drop(doc_id)
        self.terms.drop(doc_id)
        del self.digests[doc_id]

    def set_few(self, doc_id: str, few: list[tuple[float, str]]) -> None:
        """A decision's most alike, best first: its likeliest match in `top`, the next in `near`."""
        if few:
            self.facts.set_few(doc_id, few[0], few[1:])
        else:
            self.facts.set_few(doc_id, None, None)
        row = self.positions[doc_id]
        self.limits[row] = few[-1][0] if len(few) >= REVIEW_NEIGHBOURS else _NO_LIMIT

    def referenced(self) -> set[str]:
        """The keys in `Rows` this record names."""
        named: tuple[list[str], ...] = (self.pair_rows, self.pair_index, self.texts, self.documents, self.inverted)
        named += (self.term_rows,)
        named += (self.base, self.digest_rows[1], self.claim_rows[1], [based.key for based in self.bases.values()])
        return {key for keys in named for key in keys if key}

    def keep_rows(self) -> None:
        """Name in the record the rows as they are now (those changed made again)."""
        if not isinstance(self.when, FieldView):  # set whole by a full count
            for doc_id, when in self.when.items():
                self.facts.put(doc_id, _WHEN, when)
            self.when = FieldView(self.facts, "when")
        self.texts, self.documents, self.inverted = self.facts.keep()
        self.term_rows = self.terms.keep()
        self.base = self.terms_base.keep()
        self.thresholds = self.limits.tobytes()
        self.sizes = self.by_row.tobytes()
        self.keep_digests()
        self.keep_bases()

    def keep_bases(self) -> None:
        """Write again the base of each large field (`BASED`) whose changes outgrew it, or that has
        none (every one after a full count, whose rows replace all those kept)."""
        rows = self._rows
        if rows is None:
            return
        for name, kind in BASED.items():
            based = self.bases.get(name)
            if based is None:
                based = self.bases[name] = Based(kind)
            stored(based, getattr(self, name), rows.whole, rows.add)

    def keep_digests(self) -> None:
        """Name in the record the rows of `digests` and `claims` as they are now: a dictionary set
        in their place (by a full count, or by the duplicates compared again) followed by the rows
        kept, those it changed alone made again."""
        rows = self._rows
        if rows is None:
            return  # never attached: no rows to name
        for name, kept_as in (("digests", "digest_rows"), ("claims", "claim_rows")):
            found = getattr(self, name)
            if rows.whole and isinstance(found, Digests):
                found = dict(found)
            if not isinstance(found, Digests):
                read = self._read_digests.get(name)
                held = read if read is not None and read.told is not None and read.told[0] is found else None
                try:
                    if rows.whole:  # every row the record names is made in this call
                        raise KeyError("made anew")
                    if held is None:
                        held = Digests(rows, getattr(self, kept_as))
                        changed, removed = held.since(found)
                    else:  # the same digests its rows were compared with: what changed is known
                        _, changed, removed = cast("tuple[Any, set[str], set[str]]", held.told)
                    for key in changed:
                        held[key] = found[key]
                    for key in removed:
                        del held[key]
                except _BROKEN:  # the rows kept are gone or damaged: every row made anew
                    held = Digests.of(rows, found)
                setattr(self, name, held)
                found = held
            setattr(self, kept_as, found.keep())


_NO_LIMIT = float("-inf")
_WORDS, _ASKED, _HANDLES, _MENTIONS, _WHEN = (
    FIELDS.index(name) for name in ("words", "asked", "handles", "mentions", "when")
)


class _Lengths(Mapping):
    """Each decision's length, from its row's (`Kept.sizes`)."""

    def __init__(self, positions: dict[str, int], by_row: array):
        self.positions, self.by_row = positions, by_row

    def __getitem__(self, doc_id: str) -> int:
        return self.by_row[self.positions[doc_id]]

    def __iter__(self) -> Iterator[str]:
        return iter(self.positions)

    def __len__(self) -> int:
        return len(self.positions)


class Rows:
    """What `Kept` holds most of (each decision's facts and the index beside them, the postings,
    the pairs: `weighing_rows`, `kept_pairs`) kept as rows of their own (`DerivedStore.kept_rows`),
    each under a digest of its bytes, and read when first asked (many to a query where a call
    knows which it will ask): a change reads and writes the rows it touches. A row never changes under its
    key, so whichever process wrote last, the record read names rows holding what it was kept
    with; a row gone (a full count replaced them all since) is a `KeyError`: what was kept does
    not hold together, and everything is worked out again."""

    def __init__(self, read: Callable[[list[str]], dict[str, bytes]] | None = None):
        self._read = read
        self.found: dict[str, bytes] = {}
        self.written: dict[str, bytes] = {}  # made in this call, kept with the record
        self.whole = False  # every row the record names was made in this call: the rest are dropped
        self.dropped: set[str] = set()  # rows the record named before this call and may name no more

    def fetch(self, keys: Iterable[str]) -> None:
        """Read these rows, those not read yet, in one query."""
        missing = [key for key in set(keys) if key not in self.found]
        if missing and self._read is not None:
            self.found.update(checked(self._read(missing)))  # a damaged row is a row gone

    def __getitem__(self, key: str) -> bytes:
        value = self.found.get(key)
        if value is None:
            self.fetch((key,))
            value = self.found[key]
        return value

    def add(self, value: bytes) -> str:
        """Keep `value` as a row, and give its key."""
        key = key_of(value)
        self.found[key] = value
        self.written[key] = value
        return key

    def to_write(self, kept: Kept) -> dict[str, bytes]:
        """The rows made in this call that `kept` names (a row made and replaced within the call is not)."""
        named = kept.referenced()
        return {key: value for key, value in self.written.items() if key in named}


_NAMES = tuple(f.name for f in fields(Kept) if f.init)
# The large fields, kept as a base in a row of its own and the changes since (`weighing_record`):
# each term's and each link target's decision count, the documents reachable by supersession and
# what they supersede, each row's id, least score and length, and the keys of the rows the rest is
# kept in.
_KEYS = ("base", "texts", "documents", "inverted", "term_rows", "pair_rows", "pair_index")
BASED: dict[str, str | int] = {"frequency": DICT, "linked": DICT, "reach": DICT, "supers": DICT, "rows": LIST}
BASED.update(thresholds=8, sizes=4)
BASED.update(dict.fromkeys(_KEYS, KEYS))


def _value(kept: Kept, name: str) -> Any:
    """A field as the record keeps it: a large one as its base's key and the changes since ("" and
    None where it has no base: a record that never weighed, which `load` refuses)."""
    value = getattr(kept, name)
    if name not in BASED:
        return value
    based = kept.bases.get(name)
    return (based.key, based.changes(value)) if based is not None and based.value is not None else ("", None)


def _values(kept: Kept, apart: bool = False) -> tuple:
    """The record's fields as kept (its `DRAWN` fields None where kept `apart`)."""
    return tuple(None if apart and name in DRAWN else _value(kept, name) for name in _NAMES)


def dump(kept: Kept) -> bytes:
    """The whole record, its `DRAWN` fields in place (they must be: read, or never kept apart)."""
    return marshal.dumps((FORMAT, _values(kept)))


def dump_apart(kept: Kept, drawn_changed: bool) -> tuple[bytes, str, bytes | None]:
    """(the record but its `DRAWN` fields, naming their digest; that digest; the fields, None
    where they are those read, unchanged, or were never read)."""
    part = None
    if drawn_changed or not kept.drawn:
        part = marshal.dumps(tuple(getattr(kept, name) for name in DRAWN))
        kept.drawn = hashlib.sha256(part).hexdigest()
    return marshal.dumps((FORMAT, _values(kept, apart=True))), kept.drawn, part


def _read_drawn(kept: Kept, data: Any) -> bool:
    """Put in place the `DRAWN` fields `dump_apart` kept apart; False where `data` is not them."""
    try:
        found = marshal.loads(data) if isinstance(data, bytes) else None
    except (ValueError, TypeError, EOFError):
        found = None
    if not (isinstance(found, tuple) and len(found) == len(DRAWN)):
        return False
    for name, value in zip(DRAWN, found):
        setattr(kept, name, value)
    return True


def load(data: Any, read: Callable[[list[str]], dict[str, bytes]]) -> Kept | None:
    """The `Kept` that `dump` wrote, its large fields made from their bases (read through `read`,
    in one query) and the changes since; None for anything else (a damaged or older store, a base
    missing or damaged)."""
    if not isinstance(data, bytes):
        return None
    try:
        version, values = marshal.loads(data)
        if version != FORMAT or len(values) != len(_NAMES):
            return None
        found = dict(zip(_NAMES, values))
        bases = resolved(BASED, found, read)
        kept = Kept(**found)
        kept.bases = bases
        return kept
    except (ValueError, TypeError, EOFError, IndexError):
        return None


class KeptBm25(Bm25):
    """BM25 as `Bm25` scores for the decisions as they are now, from the counts kept (each one's
    term counts and length, updated for every change): each share worked out when asked, from the
    term's document count, the number of decisions and their average length now (the same sums,
    in the same order, as `Bm25` adds them). `counts_of` gives a decision's term counts (its
    profile's); `rows` holds the postings `kept` names, which stand as they are while this lives.
    `everywhere`: the most alike found by scoring every decision (`Weighing.everywhere`)."""

    def __init__(self, kept: Kept, counts_of: Any, rows: Rows, everywhere: bool = False):
        self.size = len(kept.digests)
        self.average = kept.length_total / max(1, self.size)
        self.kept, self.counts_of, self.rows, self.everywhere = kept, counts_of, rows, everywhere
        self._weights: dict[str, float] = {}
        self._norms: dict[str, float] = {}
        self._least_norm: float | None = None
        self._postings: dict[str, Posting] = {}
        self._contents = Contents()
        self._scores: dict[tuple[tuple[str, ...], int, int], float] = {}
        # The queries asked, and the `most` + 1 best of those asked again, none left out.
        self._asked: set[tuple[tuple[str, ...], int]] = set()
        self._found: dict[tuple[tuple[str, ...], int], list[tuple[float, str]]] = {}

    def idf(self, term: str) -> float:
        weight = self._weights.get(term)
        if weight is None:
            weight = self._weights[term] = rarity(self.size, self.kept.frequency.get(term, 0))
        return weight

    def _norm_of(self, length: int) -> float:
        return self.K1 * (1 - self.B + self.B * length / (self.average or 1))

    def _norm(self, doc_id: str) -> float:
        norm = self._norms.get(doc_id)
        if norm is None:
            norm = self._norms[doc_id] = self._norm_of(self.kept.lengths[doc_id])
        return norm

    def _share(self, term: str, doc_id: str, count: int) -> float:
        return self.idf(term) * count * (self.K1 + 1) / (count + self._norm(doc_id))

    def score(self, asked: list[str], doc_id: str) -> float:
        """Added once for each query, terms and length (`similarity.Contents`): the pairs a change
        to a template copy weighs again ask the copies' same queries of the copies' same terms."""
        counts = self.counts_of(doc_id)
        key = (tuple(asked), self._contents.of(counts), self.kept.lengths[doc_id])
        total = self._scores.get(key)
        if total is None:
            total = 0.0
            for term in asked:
                count = counts.get(term)
                if count:
                    total += self._share(term, doc_id, count)
            self._scores[key] = total
        return total

    def term_shares(self, doc_id: str) -> dict[str, float]:
        """Each term's share of a decision's score (`score` of `asked` is the sum of those of its
        terms held, in its order): worked out once where every decision's query asks it."""
        return {term: self._share(term, doc_id, count) for term, count in self.counts_of(doc_id).items() if count}

    def likeliest_few(self, asked: list[str], most: int, other_than: str = "") -> list[tuple[float, str]]:
        """The `most` decisions with the highest scores for `asked`, best first, as
        `Bm25.likeliest_few` orders them (the greater id first among equals): found by
        `likeliest.likeliest`, which works out the shares of a few postings of each common term
        asked, not all of them. The decisions whose most alike a change finds again often ask the
        same terms (copies of one another: 19 at once in a vault of decision records): a query
        asked again is answered from its `most` + 1 best, found once with none left out."""
        if self.everywhere:
            scored = ((self.score(asked, doc_id), doc_id) for doc_id in self.kept.digests if doc_id != other_than)
            return heapq.nlargest(most, ((total, doc_id) for total, doc_id in scored if total))
        key = (tuple(asked), most)
        found = self._found.get(key)
        if found is None:
            postings = [self.posting(term) for term in asked]
            name = self.kept.rows.__getitem__
            if key not in self._asked:  # asked once yet: the one left out stays out (the bar is higher)
                self._asked.add(key)
                row = self.kept.positions.get(other_than, -1)
                return likeliest(postings, most, self._row_share, name, row)
            found = self._found[key] = likeliest(postings, most + 1, self._row_share, name)
        return [entry for entry in found if entry[1] != other_than][:most]

    def _row_share(self, row: int, posting: Posting, count: int) -> float:
        return self._share(posting.term, self.kept.rows[row], count)

    def posting(self, term: str) -> Posting:
        """A term's postings as they are now, with their bound: the share of its greatest count
        in a decision of the least length (a share grows with the count and falls with the length)."""
        found = self._postings.get(term)
        if found is None:
            kept = self.kept
            found = self._postings[term] = Posting(term, kept.terms_base.get(term), kept.overlay)
            if self._least_norm is None:
                self._least_norm = self._norm_of(min(kept.by_row, default=0))
            count = found.greatest()
            if count:
                found.bound = self.idf(term) * count * (self.K1 + 1) / (count + self._least_norm)
        return found


def _encode(pair: Weighed | None) -> Any:
    if pair is None:
        return None
    like = pair.like
    return (
        pair.older,
        pair.newer,
        pair.alike,
        pair.mutual,
        pair.best,
        pair.builds_on,
        (like.score, like.title, like.shared_tags, like.shared_links, like.shared_words, like.text, like.reasons),
    )


def _wanted(row: Any, wanted: Callable[[Any], Any]) -> Any:
    """`wanted(row)` of a row as `_encode` gives it, or of a pair weighed in this call."""
    return wanted(_encode(row)) if type(row) is Weighed else wanted(row)


# What says a kept row does not hold together: everything is worked out again.
_BROKEN = (KeyError, ValueError, IndexError, StopIteration, TypeError)
DIGEST = 16  # the opening of a document's digest kept in `Kept.reach`: enough to tell a change


def _older_first(when: Mapping[str, tuple], a: str, b: str) -> tuple[str, str]:
    """A pair's ids as `pairs_to_weigh` orders them: the older first by `Profile.when`."""
    return (a, b) if when[a] < when[b] else (b, a)


def _decode(row: Any) -> Weighed:
    older, newer, alike, mutual, best, builds_on, like = row
    return Weighed(older, newer, alike, mutual, best, Likeness(*like), builds_on)


class Weighing:
    """The decision pairs and the duplicates of one vault as it is, worked out from what was kept
    (`Kept`) for the vault as it was, or from nothing (`full`)."""

    # Every pair drawn, read and asked whether it is settled after a change, and every decision
    # asked whether a change moved its most alike or its pairs, as a pass over all of them does,
    # the index beside the decisions' facts unread: what the pairs and decisions touched alone
    # must give (tests compare the two).
    everywhere = False

    def __init__(
        self,
        documents: Iterable[Document],
        compatible: frozenset,
        kept: Kept | None,
        full: bool = False,
        drawn: Any = None,
        rows: Callable[[list[str]], dict[str, bytes]] | None = None,
        progress: Callable[[str, int, int], object] | None = None,
    ):
        """`drawn(digest)` reads the `DRAWN` fields `kept` names, where they were kept apart;
        `rows(keys)` the `Rows` it names; `progress(pass, done, total)` is told how far each long
        pass has gone (`told`)."""
        self.docs = {d.id: d for d in documents}
        self.compatible = compatible
        self.supersedes = _Supersedes(self.docs)
        self.rows = Rows(rows)
        self.full = full or kept is None
        try:
            if kept is not None:
                kept.attach(self.rows)
        except _BROKEN:  # not kept in rows as this code keeps them: everything worked out again
            kept, self.full = None, True
        self.kept = Kept() if kept is None else kept
        self.weighed_again = 0  # pairs of decisions weighed in this call (the rest were read as kept)
        self.compared_again = 0  # pairs compared as duplicates in this call
        self._weighed: list[Weighed] | None = None
        self._rows: list[Any] | None = None  # every pair listed: rows as kept, or as weighed (`_listed`)
        self.decisions = 0  # decisions a pair may involve (`conflicts.PAIRED`): the review list's depth counts them
        self._drawn = drawn
        self.drawn_changed = False  # the `DRAWN` fields changed in this call: written again
        self.progress = progress
        self._pairs: KeptPairs | None = None  # the pairs as kept, and changed in this call (`_weigh`)
        self._profiles = _Profiles(self.docs, lambda: self.kept)
        # How the most alike of the decisions whose most alike were set in this call stood before (`_keep_few`).
        self._few_before: dict[str, tuple[Any, Any]] = {}
        self._fresh: dict[tuple[str, str], Weighed] = {}  # the pairs weighed in this call, listed
        self.pairs_changed: set[tuple[str, str]] = set()  # pairs weighed in this call, or new
        self.pairs_gone: set[tuple[str, str]] = set()  # pairs kept that are weighed no more
        # How the pairs stood when read, and the saves before (`stood`); and before this call's save.
        self._loaded = (list(self.kept.pair_rows), set(self.kept.unlisted), list(self.kept.saves))
        self._saved_from = (list(self.kept.pair_rows), set(self.kept.unlisted))

    # -- decisions ------------------------------------------------------------------------

    def weighed(self) -> list[Weighed]:
        """What `weigh_decisions` gives for these documents, but for the drift of the rarities
        (none when everything was worked out again); ordered by the pair's ids."""
        if self._weighed is None:
            self._weighed = self._decoded(lambda row: True)
        return self._weighed

    def best(self) -> list[Weighed]:
        """The pairs of `weighed()` of which one is the other's likeliest or the newer cites the
        older (`Weighed.best`), in its order: all the queue chooses among (`conflicts.choose`),
        the rest not decoded (at 10,000 decision records 129,973 pairs are listed)."""
        if self._weighed is not None:
            return [pair for pair in self._weighed if pair.best]
        return self._decoded(lambda row: row[4], best=True)

    def listed_among(self, pairs: set[tuple[str, str]]) -> list[Weighed]:
        """The pairs of `weighed()` whose ids (`Weighed.older`, `Weighed.newer`) are among `pairs`,
        in its order, the rest neither read nor decoded: after a change a follower needs only the
        pairs it touched (reading all 129,973 listed at 10,000 decision records costs more than
        the rest of the pass). Where what was kept does not hold together, everything is worked
        out again (`full` then true): read `pairs_changed` after this call."""
        if self._weighed is not None:
            return [pair for pair in self._weighed if (pair.older, pair.newer) in pairs]
        return self._decoded(lambda row: (row[0], row[1]) in pairs, among=pairs)

    def listed_count(self) -> int:
        """How many pairs `weighed()` gives, none read (a count kept with the pairs)."""
        if self._weighed is not None:
            return len(self._weighed)
        for _ in range(2):
            try:
                self._weigh_once()
                return self.kept.listed_pairs if self._rows is None else len(self._rows)
            except _BROKEN:
                self._start_again()
        raise AssertionError("a full count counts what it made")  # pragma: no cover

    def kept_pairs(self) -> dict[tuple[str, str], Any]:
        """Every pair kept, with its row as `_encode` gives it (None: not listed when weighed), all
        read: what a full pass over the pairs would keep."""
        self.listed_count()
        assert self._pairs is not None
        return self._pairs.every()

    def _decoded(
        self, wanted: Callable[[Any], Any], among: set[tuple[str, str]] | None = None, best: bool = False
    ) -> list[Weighed]:
        """The pairs listed whose row (as `_encode` gives it) is `wanted`, decoded; of those whose
        ids, either way round, are `among` where given, or of the `best` where asked (the rest not
        read)."""
        for _ in range(2):
            try:
                self._weigh_once()
                if self._rows is not None or (among is None and not best):
                    found = self._listed()
                elif among is not None:
                    found = self._listed_among(among)
                else:
                    assert self._pairs is not None
                    found = self._listed_of(self._pairs.every(best=True))
                return [row if type(row) is Weighed else _decode(row) for row in found if _wanted(row, wanted)]
            except _BROKEN:
                self._start_again()
        raise AssertionError("a full count decodes what it made")  # pragma: no cover

    def _start_again(self) -> None:
        """What was kept does not hold together (a store written by other code, or damaged in a
        way `load` cannot see): only a cache, so everything is worked out again."""
        self.kept, self.full, self._rows, self._pairs, self._fresh = Kept(), True, None, None, {}
        self.pairs_changed, self.pairs_gone = set(), set()

    def _weigh_once(self) -> None:
        if self._pairs is None:
            self._weigh()

    def _listed(self) -> list[Any]:
        """The pairs listed, each as kept (a row as `_encode` gives it) or as weighed in this
        call, ordered by their ids."""
        self._weigh_once()
        if self._rows is None:
            assert self._pairs is not None
            self._rows = self._listed_of(self._pairs.every())
        return self._rows

    def _listed_of(self, pairs: dict[tuple[str, str], Any]) -> list[Any]:
        """Those of `pairs` (each with its row as kept) listed, as `_listed` gives them."""
        unlisted, fresh = self.kept.unlisted, self._fresh
        return [fresh.get(pair, row) for pair, row in sorted(pairs.items()) if row is not None and pair not in unlisted]

    def _listed_among(self, among: set[tuple[str, str]]) -> list[Any]:
        """`_listed` of the pairs whose ids, either way round, are `among`: only their rows read."""
        self._weigh_once()
        pairs = self._pairs
        assert pairs is not None
        keys = among | {(newer, older) for older, newer in among}
        pairs.read_pairs(keys)
        unlisted, fresh = self.kept.unlisted, self._fresh
        found = []
        for key in sorted(keys):
            row = pairs.row(key)
            if row is not False and row is not None and key not in unlisted:
                found.append(fresh.get(key, row))
        return found

    def _weigh(self) -> None:
        kept, docs = self.kept, self.docs
        deciding = [d for d in docs.values() if d.type == DocType.DECISION and d.status in PAIRED]
        self.decisions = len(deciding)  # one pass over every document for both
        decisions = paired_decisions(docs, deciding)
        current = {d.id: _source(d) for d in decisions}
        changed, removed = since(kept.digests, current)
        if self.full or kept.drift + len(changed) + len(removed) > REFRESH_SHARE * len(current) or len(current) < 2:
            return self._weigh_all(decisions)
        kept.drift += len(changed) + len(removed)
        facts = kept.facts
        gone = changed | removed
        facts.read(gone, texts=True)
        profiles = profiles_of(docs[doc_id] for doc_id in changed)
        held = {handle for doc_id in gone for handle in kept.handles.get(doc_id, ())}  # as they were
        for doc_id in removed:
            kept.gone(doc_id)
        for doc_id, profile in profiles.items():
            kept.unpost(doc_id)
            kept.post(doc_id, profile.terms)
            facts.put(doc_id, _HANDLES, sorted(profile.handles))
            facts.put(doc_id, _MENTIONS, sorted(profile.mentions))
            kept.when[doc_id] = _when(profile)
            kept.digests[doc_id] = current[doc_id]
            kept.terms.put(doc_id, current[doc_id], profile)
        every = self._profiles
        every.made.update(profiles)
        bm25 = KeptBm25(kept, lambda doc_id: every[doc_id].terms, self.rows, self.everywhere)
        for doc_id, profile in profiles.items():
            facts.put(doc_id, _ASKED, bm25.query_terms(profile.terms, Bm25.QUERY_TERMS))
        self._few_before = {}
        again = self._counting(gone) - removed
        facts.read(again)
        kept.terms_base.read(term for doc_id in again for term in kept.asked[doc_id])
        for doc_id in again:
            self._keep_few(doc_id, bm25.likeliest_few(kept.asked[doc_id], REVIEW_NEIGHBOURS, other_than=doc_id))
        met = self._met(bm25, changed, again)
        limits, positions = kept.limits, kept.positions
        outscored = {doc_id: scores for doc_id, scores in met.items() if max(scores)[0] >= limits[positions[doc_id]]}
        facts.read(outscored)
        for doc_id, scores in outscored.items():
            few = ([kept.top[doc_id]] if doc_id in kept.top else []) + kept.near.get(doc_id, [])
            if len(few) < REVIEW_NEIGHBOURS or max(scores) > few[-1]:  # else its most alike stay
                self._keep_few(doc_id, heapq.nlargest(REVIEW_NEIGHBOURS, few + scores))
        before = self._few_before
        moved = gone | {doc_id for doc_id, (top, _) in before.items() if kept.top.get(doc_id) != top}
        # The decisions whose pairs may be drawn otherwise (`pairs_to_weigh`): those moved, those
        # whose next most alike changed, and those citing a handle a changed one held or holds.
        redrawn = moved | {doc_id for doc_id, (_, near) in before.items() if kept.near.get(doc_id) != near}
        held.update(handle for doc_id in changed for handle in kept.handles[doc_id])
        redrawn |= self._citing(held)
        corpus = Corpus.counted(len(kept.digests), kept.frequency, kept.linked, kept.prefix)
        self._pairs_moved(bm25, corpus, moved, redrawn)

    # What the index kept beside the decisions' facts answers (`weighing_rows.Facts`), each asked
    # of every decision instead where `everywhere` (the reference tests hold the index to).

    def _counting(self, gone: set[str]) -> set[str]:
        """The decisions `gone` and those that count one of them among their most alike."""
        kept, facts = self.kept, self.kept.facts
        found = set(gone)
        if self.everywhere:
            for doc_id in kept.digests:
                few = ([kept.top[doc_id]] if doc_id in kept.top else []) + kept.near.get(doc_id, [])
                if any(other in gone for _, other in few):
                    found.add(doc_id)
            return found
        facts.index.read(NEAR + doc_id for doc_id in gone)
        for doc_id in gone:
            found.update(facts.keyed(NEAR, doc_id))
        return found

    def _met(self, bm25: KeptBm25, changed: set[str], again: set[str]) -> dict[str, list[tuple[float, str]]]:
        """Each decision but those `again` that asks a term a changed one holds, with its score
        for each such one ((score, id), as `KeptBm25.score` adds it: the shares of the terms it
        asks that the changed one holds, in the order it asks them; none for a score of 0)."""
        kept, facts = self.kept, self.kept.facts
        met: dict[str, list[tuple[float, str]]] = {}
        for other in changed:
            shares = bm25.term_shares(other)
            reached: dict[str, list[tuple[int, float]]] = {}
            if self.everywhere:
                for doc_id in kept.digests:
                    reached[doc_id] = [
                        (at, shares[term]) for at, term in enumerate(kept.asked[doc_id]) if term in shares
                    ]
            else:
                facts.read_keys(ASKS, shares)
                for term, share in shares.items():
                    for doc_id, at in facts.keyed(ASKS, term).items():
                        found = reached.get(doc_id)
                        if found is None:
                            reached[doc_id] = [(at, share)]
                        else:
                            found.append((at, share))
            for doc_id, found in reached.items():
                if doc_id in again:
                    continue
                found.sort()
                total = 0.0
                for _, share in found:
                    total += share
                if total:
                    met.setdefault(doc_id, []).append((total, other))
        return met

    def _citing(self, handles: set[str]) -> set[str]:
        """The decisions citing one of these handles."""
        kept, facts = self.kept, self.kept.facts
        if self.everywhere:
            return {doc_id for doc_id in kept.digests if not handles.isdisjoint(kept.mentions.get(doc_id, ()))}
        facts.read_keys(CITES, handles)
        return {doc_id for handle in handles for doc_id in facts.keyed(CITES, handle)}

    def _holding(self, handles: set[str]) -> dict[str, list[str]]:
        """The decisions holding each of these handles."""
        kept, facts = self.kept, self.kept.facts
        if self.everywhere:
            found: dict[str, list[str]] = {}
            for doc_id in kept.digests:
                for handle in kept.handles.get(doc_id, ()):
                    if handle in handles:
                        found.setdefault(handle, []).append(doc_id)
            return found
        facts.read_keys(HOLDS, handles)
        return {handle: list(facts.keyed(HOLDS, handle)) for handle in handles}

    def _weigh_all(self, decisions: list[Document]) -> None:
        """Everything counted and weighed again, as `weigh_decisions` does, and kept."""
        kept = self.kept
        self.full = True
        profiles = profiles_of(decisions)
        corpus = Corpus(profiles.values())
        kept.digests = {d.id: _source(d) for d in decisions}
        kept.linked, kept.prefix = dict(corpus.linked), dict(corpus.prefix)
        rows = self.rows = Rows()  # every row made again: those kept before are replaced
        rows.whole = True
        kept.rows, kept.overlay = list(profiles), {}
        kept.base, kept.texts, kept.documents, kept.inverted, kept.term_rows = [], [], [], [], []
        kept.thresholds = array("d", [_NO_LIMIT] * len(kept.rows)).tobytes()
        kept.sizes = array("i", [sum(p.terms.values()) for p in profiles.values()]).tobytes()
        kept.attach(rows)
        facts = kept.facts
        postings: dict[str, array] = {}
        for row, profile in enumerate(profiles.values()):
            for term, count in profile.terms.items():
                posted = postings.get(term)
                if posted is None:
                    posted = postings[term] = array("i")
                posted.extend((row, count))
        for term, posted in postings.items():
            kept.terms_base.set(term, posted.tobytes())
        kept.frequency = {term: len(posted) // 2 for term, posted in postings.items()}
        kept.length_total = 0
        for doc_id, p in profiles.items():
            kept.length_total += sum(p.terms.values())
            facts.put(doc_id, _WORDS, list(p.terms))
            facts.put(doc_id, _HANDLES, sorted(p.handles))
            facts.put(doc_id, _MENTIONS, sorted(p.mentions))
            kept.terms.put(doc_id, kept.digests[doc_id], p)
        kept.when = {doc_id: _when(p) for doc_id, p in profiles.items()}
        kept.drift = 0
        kept.unlisted, kept.listed_pairs, kept.reach, kept.supers = set(), 0, {}, {}
        self._reach(kept.digests)
        self._pairs = KeptPairs(rows, [], [])
        if len(profiles) < 2:
            self._rows = []
            return
        bm25 = Bm25(profiles.values())
        asked = {doc_id: bm25.query_terms(p.terms, Bm25.QUERY_TERMS) for doc_id, p in profiles.items()}
        for doc_id, terms in asked.items():
            facts.put(doc_id, _ASKED, terms)
        self._few_before = {}
        self._profiles.made.update(profiles)  # made from their texts: each pair asks them again
        for doc_id, terms in told(asked.items(), len(asked), self.progress, "weighing decisions"):
            self._keep_few(doc_id, bm25.likeliest_few(terms, REVIEW_NEIGHBOURS, other_than=doc_id))
        self._pairs_all(bm25, corpus, profiles)

    def _keep_few(self, doc_id: str, few: list[tuple[float, str]]) -> None:
        """A decision's most alike, best first (how they stood first kept in `_few_before`)."""
        kept = self.kept
        if doc_id not in self._few_before:
            self._few_before[doc_id] = (kept.top.get(doc_id), kept.near.get(doc_id))
        kept.set_few(doc_id, few)

    def _weigh_pair(self, bm25: Any, corpus: Corpus, profiles: Any, pair: tuple[str, str]) -> Weighed | None:
        """A pair weighed now (`conflicts.weigh_pair`), and kept."""
        kept = self.kept
        asked, top = cast("dict[str, list[str]]", kept.asked), cast("dict[str, tuple[float, str]]", kept.top)
        found = weigh_pair(self.docs, self.supersedes, self.compatible, profiles, corpus, bm25, asked, top, *pair)
        self.weighed_again += 1
        self.pairs_changed.add(pair)
        assert self._pairs is not None
        self._pairs.put(pair, _encode(found))
        if found is not None:
            self._fresh[pair] = found
        return found

    def _pairs_all(self, bm25: Any, corpus: Corpus, profiles: dict[str, Profile]) -> None:
        """Every pair drawn (`pairs_to_weigh`) weighed, and kept."""
        kept = self.kept
        handles = {doc_id: sorted(p.handles) for doc_id, p in profiles.items()}
        mentions = {doc_id: sorted(p.mentions) for doc_id, p in profiles.items()}
        when = {doc_id: _when(p) for doc_id, p in profiles.items()}
        top = {doc_id: kept.top[doc_id] for doc_id in profiles if doc_id in kept.top}
        near = {doc_id: [other for _, other in kept.near.get(doc_id, ())] for doc_id in profiles}
        ordered = sorted(pairs_to_weigh(handles, mentions, when, top, near))
        weighed = []
        for pair in told(ordered, len(ordered), self.progress, "weighing pairs"):
            found = self._weigh_pair(bm25, corpus, self._profiles, pair)
            if found is not None:
                weighed.append(found)
        kept.listed_pairs = len(weighed)
        self._rows = weighed

    def _pairs_moved(self, bm25: Any, corpus: Corpus, moved: set[str], redrawn: set[str]) -> None:
        """The pairs after a change, as a full pass over every pair drawn would keep them (`_pairs_all`
        where each pair kept is read as it was unless a document of it `moved`, and whether it is
        settled asked again where it may have changed), touching only those of the decisions
        `redrawn` (whose pairs may be drawn otherwise) and of those whose settledness may have
        changed (`_settled_again`): a pair of two others is drawn, weighed and settled as before."""
        kept, docs = self.kept, self.docs
        pairs = self._pairs = KeptPairs(self.rows, kept.pair_rows, kept.pair_index)
        settled_again = self._settled_again(moved)
        if self.everywhere:
            redrawn, settled_again = redrawn | kept.digests.keys(), set(kept.digests)
        asked = redrawn | settled_again
        pairs.read_index(asked)
        before: dict[tuple[str, str], int] = {}
        for doc_id in asked:
            before.update(pairs.of(doc_id))
        now = self._redrawn(redrawn, before)
        gone = {pair for pair in before if (pair[0] in redrawn or pair[1] in redrawn) and pair not in now}
        new = now - before.keys()
        # Read at once the rows a change of the pairs makes again, and the index of their others.
        pairs.read_pairs(gone | new | {pair for pair in now if pair[0] in moved or pair[1] in moved})
        pairs.read_index(doc_id for pair in gone | new for doc_id in pair)
        unlisted = set(kept.unlisted)  # a new set: a caller compares it with the one before
        count = kept.listed_pairs
        for pair in gone:
            if before[pair] != NONE and pair not in unlisted:
                count -= 1
            unlisted.discard(pair)
            pairs.drop(pair)
        profiles = self._profiles
        examined = now | {pair for pair in before if pair[0] not in redrawn and pair[1] not in redrawn}
        # The queries and the terms of the decisions of the pairs weighed again, read at once.
        weighed = {d for pair in examined if pair not in before or {*pair} & moved for d in pair}
        kept.facts.read(weighed)
        kept.terms.read(weighed)
        for pair in told(sorted(examined), len(examined), self.progress, "weighing pairs"):
            older, newer = pair
            had = before.get(pair)
            was = had is not None and had != NONE and pair not in unlisted
            if had is None or older in moved or newer in moved:
                listed = self._weigh_pair(bm25, corpus, profiles, pair) is not None
                unlisted.discard(pair)
            elif older not in settled_again and newer not in settled_again:
                continue  # settled, or not, as it was
            elif pair_to_list(docs, self.supersedes, self.compatible, older, newer) is None:
                listed = False
                if had != NONE:
                    unlisted.add(pair)  # settled since, by documents it does not touch: kept, not listed
            elif had == NONE:  # settled when weighed, and no longer: weighed now
                listed = self._weigh_pair(bm25, corpus, profiles, pair) is not None
            else:
                listed = True
                unlisted.discard(pair)
            count += listed - was
        self.pairs_gone = gone
        kept.unlisted, kept.listed_pairs = unlisted, count

    def _redrawn(self, redrawn: set[str], before: dict[tuple[str, str], int]) -> set[tuple[str, str]]:
        """The pairs touching a decision `redrawn` as `pairs_to_weigh` draws them now: each such
        decision's own, and each pair kept of one with another that still draws it."""
        kept = self.kept
        partners = {
            newer if older in redrawn else older for older, newer in before if (older in redrawn) != (newer in redrawn)
        }
        facts = kept.facts
        facts.read(redrawn | partners)
        cited = {mention for doc_id in redrawn | partners for mention in kept.mentions.get(doc_id, ())}
        by_handle = self._holding(cited)
        # Every decision a pair drawn here names, read at once (their dates order the pairs).
        others = {other for held in by_handle.values() for other in held}
        for doc_id in redrawn | partners:
            others.update(other for _, other in kept.near.get(doc_id, ()))
            if doc_id in kept.top:
                others.add(kept.top[doc_id][1])
        facts.read(others)
        drawn: dict[str, set[tuple[str, str]]] = {}
        when = _Held(kept.when)  # asked of both decisions of every pair drawn: 23,651 pairs after a change

        def drawn_by(doc_id: str) -> set[tuple[str, str]]:
            found = drawn.get(doc_id)
            if found is None:
                found = drawn[doc_id] = self._drawn_by(doc_id, by_handle, when)
            return found

        now: set[tuple[str, str]] = set()
        for doc_id in redrawn:
            now |= drawn_by(doc_id)
        for older, newer in before:
            if (older in redrawn) == (newer in redrawn) or older not in when or newer not in when:
                continue  # drawn by a decision redrawn (in `now` where it still is), or by none
            pair = _older_first(when, older, newer)
            other = newer if older in redrawn else older
            if pair in drawn_by(other):
                now.add(pair)
        return now

    def _drawn_by(
        self, doc_id: str, by_handle: dict[str, list[str]], when: Mapping[str, tuple]
    ) -> set[tuple[str, str]]:
        """The pairs `pairs_to_weigh` draws for one decision (none for one not weighed); `when`: `Kept.when`."""
        kept = self.kept
        if doc_id not in kept.digests:
            return set()
        found = set()
        if doc_id in kept.top:
            found.add(_older_first(when, doc_id, kept.top[doc_id][1]))
        found.update(_older_first(when, doc_id, other) for _, other in kept.near.get(doc_id, ()))
        for mention in kept.mentions[doc_id]:
            found.update(_older_first(when, doc_id, other) for other in by_handle.get(mention, ()) if other != doc_id)
        return found

    def _reach(self, starts: Iterable[str]) -> None:
        """Keep in `reach` and `supers` every document reachable by supersession from `starts`
        that they do not hold yet."""
        kept, docs, supersedes = self.kept, self.docs, self.supersedes
        stack = list(starts)
        while stack:
            doc_id = stack.pop()
            if doc_id in kept.reach:
                continue
            doc = docs.get(doc_id)
            kept.reach[doc_id] = doc.digest[:DIGEST] if doc is not None else ""
            named = supersedes[doc_id] if doc is not None else []
            if named:
                kept.supers[doc_id] = list(named)
                stack.extend(named)

    def _settled_again(self, moved: set[str]) -> set[str]:
        """The decisions whose pairs' settledness may have changed since it was asked: those from
        which a document whose supersessions changed is reachable, as it was or is now (a pair is
        settled through a third document that one of its two supersedes). `reach` and `supers`
        follow the change; a document reachable no more stays in them (only asked for nothing).
        `moved`: the decisions changed or gone, among others (the rest are as they were)."""
        kept, docs, supersedes = self.kept, self.docs, self.supersedes
        digests = kept.digests
        edited = []
        for doc_id, digest in kept.reach.items():
            if doc_id in digests and doc_id not in moved:
                continue  # a decision as it was
            doc = docs.get(doc_id)
            if (doc.digest[:DIGEST] if doc is not None else "") != digest:
                edited.append(doc_id)
        changed: dict[str, list[str]] = {}  # what each document whose supersessions changed superseded
        for doc_id in edited:
            doc = docs.get(doc_id)
            kept.reach[doc_id] = doc.digest[:DIGEST] if doc is not None else ""
            named = list(supersedes[doc_id]) if doc is not None else []
            was = kept.supers.get(doc_id, [])
            if named != was:
                changed[doc_id] = was
                if named:
                    kept.supers[doc_id] = named
                else:
                    del kept.supers[doc_id]
        self._reach([doc_id for doc_id in kept.digests if doc_id not in kept.reach])
        self._reach([named for doc_id in changed for named in kept.supers.get(doc_id, ())])
        if not changed:
            return set()
        into: dict[str, list[str]] = {}
        for supersessions in (kept.supers, changed):
            for doc_id, named in supersessions.items():
                for target in named:
                    into.setdefault(target, []).append(doc_id)
        found, stack = set(changed), list(changed)
        while stack:
            for doc_id in into.get(stack.pop(), ()):
                if doc_id not in found:
                    found.add(doc_id)
                    stack.append(doc_id)
        return found & kept.digests.keys()

    def stood(self) -> Iterator[tuple[list[str], set[tuple[str, str]], set[tuple[str, str]]]]:
        """How the pairs stood when read (before this call weighed), then before each of the last
        saves, newest first: (`Kept.pair_rows`, `Kept.unlisted`, the pairs touched since, this
        call's not among them). Asked by a follower to find the weighing its kept state was chosen
        from (`kept_ranking.touched_since`); none where no pairs were kept (a follower asks only
        where `full` is not set)."""
        rows, unlisted, saves = self._loaded
        if not rows:
            return
        since: set[tuple[str, str]] = set()
        yield rows, unlisted, since
        for places, flipped, touched in reversed(saves):
            rows = list(rows)
            for at, key in places.items():
                rows[at] = key
            unlisted = unlisted ^ set(flipped)
            since = since | set(touched) | set(flipped)  # settled or unsettled through a third
            yield rows, unlisted, since

    def keep_pairs(self) -> set[str]:
        """Put the pairs in their rows (`Kept.pair_rows`, `Kept.pair_index`) for the record to be
        kept: those rows alone made again that hold a pair weighed in this call, new or gone
        (every row after a full count), and the decisions' facts and their index the same way
        (`Kept.keep_rows`); the keys of the rows the record named and names no more. What the
        save touched is kept among `Kept.saves` (none kept after a full count: every follower is
        made whole)."""
        kept = self.kept
        if self._pairs is None:  # not weighed in this call: kept as they were
            return set()
        before = kept.referenced() | self.rows.dropped
        rows_before, unlisted_before = self._saved_from
        kept.pair_rows, kept.pair_index = self._pairs.keep()
        kept.keep_rows()
        touched = self.pairs_changed | self.pairs_gone
        flipped = unlisted_before ^ kept.unlisted
        if self.full or len(rows_before) != len(kept.pair_rows):
            kept.saves = []
        elif touched or flipped:
            places = {at: key for at, key in enumerate(rows_before) if key != kept.pair_rows[at]}
            kept.saves = [*kept.saves, (places, sorted(flipped), sorted(touched))][-SAVES:]
        self._saved_from = (list(kept.pair_rows), set(kept.unlisted))
        self.pairs_changed, self.pairs_gone, self.rows.dropped = set(), set(), set()
        # A row's key is a digest of its bytes: one a change replaced may still be named by another.
        return before - kept.referenced() - {""}

    # -- duplicates -----------------------------------------------------------------------

    def duplicates(self, docs: dict, pairs_by_type: Any, settled: Any) -> list[tuple[str, str, str]]:
        """As `conflicts` finds duplicates, (a, b, reason) each, each pair compared again only where
        one of the two changed since it was (or the rarities were counted again). The pairs to
        compare (`pairs_by_type()`, drawn from the titles) are drawn again only when a title, a
        type or a status among the documents compared changed."""
        kept = self.kept
        if kept.drawn and kept.candidates is None and not _read_drawn(kept, self._drawn and self._drawn(kept.drawn)):
            # Kept apart, and not found (another process kept other ones since): compared again.
            kept.claims, kept.drawn = {}, ""
        try:
            return self._duplicates(docs, pairs_by_type, settled)
        except (KeyError, ValueError, IndexError, TypeError, AttributeError):
            self.kept.claims = {}  # what was kept does not hold together: compared again, all of it
            return self._duplicates(docs, pairs_by_type, settled)

    def _duplicates(self, docs: dict, pairs_by_type: Any, settled: Any) -> list[tuple[str, str, str]]:
        kept = self.kept
        active = {d.id: d for d in docs.values() if d.status == Status.ACTIVE and d.type in CLAIM_TYPES}
        digests = {doc_id: doc.digest for doc_id, doc in active.items()}
        changed, gone = since(kept.claims, digests)
        changed = changed | gone  # a new set: `since` keeps the one it gave as what it told (`Digests.told`)
        titles = hashlib.sha256(
            "\n".join(f"{d.id}\t{d.type}\t{d.title}" for d in active.values() if d.type != DocType.DECISION).encode()
        ).hexdigest()
        if self.full or kept.claims_drift + len(changed) > REFRESH_SHARE * len(active) or not kept.claims:
            profiles = profiles_of(active.values())
            corpus = Corpus(profiles.values())
            kept.claims_size, kept.claims_frequency = corpus.size, dict(corpus.frequency)
            kept.claims_linked, kept.claims_drift = dict(corpus.linked), 0
            kept.claims_prefix = dict(corpus.prefix)
            kept.pending, kept.listed, kept.titles, kept.candidates = set(), {}, "", ""
            changed = set(active)
        else:
            corpus = None  # counted when a pair is compared again: most calls compare none
            kept.claims_drift += len(changed)
            if (
                kept.titles == titles
                and all(i in active and active[i].type == DocType.DECISION for i in changed)
                and all(settled(*line.split("\t")[1:]) for line in kept.pending)
            ):
                # No pair drawn from the titles touches a changed document (decisions are weighed
                # apart, and the titles, types and statuses of the rest are as they were): every
                # pair stands as it was compared, and only whether it is settled is asked again.
                # A pair not compared for being settled stays so while it still is (a vault with
                # one such pair went through every pair drawn at every change).
                kept.claims = digests
                standing = []
                for key, reason in kept.listed.items():
                    a_id, b_id = key.split("\t")
                    if not settled(a_id, b_id):
                        standing.append((a_id, b_id, reason))
                return standing
        self.drawn_changed = True
        kept.claims = digests
        lines = kept.candidates.split("\n") if kept.candidates else []
        if kept.titles != titles:
            drawn = [
                f"{doc_type}\t{a_id}\t{b_id}"
                for doc_type, pairs in sorted(pairs_by_type().items())
                for a_id, b_id in sorted(pairs)
            ]
            kept.pending |= set(drawn) - set(lines)  # pairs drawn now that were not before
            lines, kept.titles, kept.candidates = drawn, titles, "\n".join(drawn)
        pending, listed = kept.pending, kept.listed
        now_pending: set[str] = set()
        found: list[tuple[str, str, str]] = []
        keys = set()
        for line in told(lines, len(lines), self.progress, "comparing duplicates"):
            doc_type, a_id, b_id = line.split("\t")
            key = line[len(doc_type) + 1 :]
            keys.add(key)
            if a_id in changed or b_id in changed or line in pending:
                if settled(a_id, b_id):
                    now_pending.add(line)  # not compared: compared when next met unsettled
                    listed.pop(key, None)
                    continue
                if corpus is None:
                    corpus = Corpus.counted(
                        kept.claims_size, kept.claims_frequency, kept.claims_linked, kept.claims_prefix
                    )
                conflict = duplicate(doc_type, docs[a_id], docs[b_id], corpus)
                self.compared_again += 1
                if conflict is None:
                    listed.pop(key, None)
                else:
                    listed[key] = conflict.reason
                    found.append((a_id, b_id, conflict.reason))
            elif key in listed and not settled(a_id, b_id):
                found.append((a_id, b_id, listed[key]))
        kept.pending = now_pending
        kept.listed = {key: reason for key, reason in listed.items() if key in keys}
        return found


PROGRESS_EVERY = 1000  # items of a pass between two calls of a progress hook


def told(
    items: Iterable[Any], total: int, progress: Callable[[str, int, int], object] | None, name: str
) -> Iterable[Any]:
    """`items`, with `progress(name, done, total)` told every PROGRESS_EVERY of them and once at the
    end; `items` themselves where no hook is given (nothing added to the pass)."""
    return items if progress is None else _telling(items, total, progress, name)


def _telling(items: Iterable[Any], total: int, progress: Callable[[str, int, int], object], name: str) -> Iterator[Any]:
    done = 0
    for item in items:
        yield item
        done += 1
        if done % PROGRESS_EVERY == 0:
            progress(name, done, total)
    progress(name, done, total)


class _Supersedes(Mapping):
    """What each document supersedes, read when first asked (whether a pair is settled asks it of
    the pair's two documents alone, where a dictionary of every document's read every one)."""

    def __init__(self, docs: dict[str, Document]):
        self.docs = docs
        self.read: dict[str, list[str]] = {}

    def __getitem__(self, doc_id: str) -> list[str]:
        found = self.read.get(doc_id)
        if found is None:
            found = self.read[doc_id] = relations_of(self.docs[doc_id])[0]
        return found

    def get(self, doc_id: str, default: Any = None) -> Any:  # asked of both documents of every pair: no `Mapping.get`
        return self[doc_id] if doc_id in self.docs else default

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.docs

    def __iter__(self) -> Iterator[str]:
        return iter(self.docs)

    def __len__(self) -> int:
        return len(self.docs)


class _Held(dict):
    """A mapping's values, each read from it when first asked, once (a `FieldView` finds its row's
    dictionary at every ask)."""

    def __init__(self, source: Mapping[str, Any]):
        super().__init__()
        self.source = source

    def __missing__(self, key: str) -> Any:
        found = self[key] = self.source[key]
        return found

    def __contains__(self, key: object) -> bool:
        try:
            self[key]
        except KeyError:
            return False
        return True


class _Profiles:
    """Profiles of the decisions, each made when first asked (most pairs are read as kept), once:
    a pair weighed asks for both of its decisions' several times. A decision's is made from what
    was kept of its text (`weighing_terms.KeptTerms`) where its bytes are those kept, its text not
    read; else from its text, and what it took from it kept."""

    def __init__(self, docs: dict[str, Document], kept: Callable[[], Kept]):
        self.docs, self.kept = docs, kept
        self.made: dict[str, Profile] = {}

    def __getitem__(self, doc_id: str) -> Profile:
        found = self.made.get(doc_id)
        if found is None:
            doc = self.docs[doc_id]
            terms, source = self.kept().terms, _source(doc)
            held = terms.get(doc_id, source)
            if held is not None:
                found = Profile.of(doc, held)
            else:
                found = profiles_of((doc,))[doc_id]
                terms.put(doc_id, source, found)
            self.made[doc_id] = found
        return found
