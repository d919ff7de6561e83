"""The likeliest successors of the decisions superseded without a named one, answered from what
was kept of every decision between calls, the same answer as profiling every decision again.

`views.successors` weighs each such decision against every live one: BM25 and word rarities over
every decision, and each one's citations. Profiling 10,000 decision records from their texts took
most of a queue after a change (24 of 35 s under a profiler). What the pass reads of each decision is kept here in
the derived store: the term counts, title, tags, links and title head of each (a row of its own,
under a digest of its bytes), and, in one record, every decision's length, handles, mentions and
date, the number of decisions holding each term, linking each target and opening their titles
alike, and each term's postings as they were at the last full count. A decision whose file (digest
and path, under the same id) or links as resolved are not those profiled is profiled again and its counts replace its
old ones; a decision gone takes its counts out. The postings are not rewritten for a change: the
changed decisions' rows in them are passed over and their own counts read instead, until more than
`REFRESH_SHARE` of the decisions changed (then everything is counted again). Every sum is the one
`views.successors` makes, in the same order, so the answer is equal to the last bit; anything
kept that does not hold together (a row gone, another format) is counted again from nothing. The
record keeps each asked record's shortlist too (`kept_shortlists`), so that after a change only the
decisions it touched and those a record kept are scored for it, not every decision.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import marshal
from array import array
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from ..records.store_rows import read_bodies
from ..vocabulary.model import DocType, Document
from ..views.similarity import Bm25, Corpus, Profile, profiles_of, rarity, shared_opening, title_openings
from ..views.successors import LIVE, Successor, likeliest_among
from .kept_shortlists import KeptKinships, KeptShortlists

__all__ = ["REFRESH_SHARE", "KeptDecisions", "likeliest_successors", "read_from"]


FORMAT = 3  # kept as `kept_conflicts.SUCCESSORS` (the record, and its rows)
REFRESH_SHARE = 0.05  # the share of decisions changed since the postings were counted: then all again
REFRESH_LEAST = 64


def _when(profile: Profile) -> tuple | None:
    """`Profile.when` with its date as a day number (ordered alike, and kept by `marshal`); None
    for a time of day, which is left to the plain pass."""
    created, number, doc_id = profile.when
    if type(created) is not dt.date:
        return None
    return (created.toordinal(), number, doc_id)


def _fields(profile: Profile) -> bytes:
    return marshal.dumps(
        (
            dict(profile.terms),
            profile.title,
            str(profile.type),
            sorted(profile.tags),
            sorted(profile.targets),
            profile.head,
        )
    )


class _Stale(Exception):
    """What was kept does not hold together: everything is counted again."""


class KeptDecisions:
    """What the successors' pass reads of every decision, kept: answers as `successors.Decisions`."""

    def __init__(self, read: Callable[[list[str]], dict[str, bytes]] | None = None):
        self._read = read
        self.found: dict[str, bytes] = {}  # rows read or made in this call
        self.written: dict[str, bytes] = {}
        self.gone: set[str] = set()  # rows the record named before and names no more
        self.whole = False  # every row counted again in this call: the rest are dropped
        self.moved = False  # brought in line with a change in this call: to be kept again
        self.keys: dict[str, str] = {}  # {decision: the digest and path it was profiled from}
        self.fields: dict[str, str] = {}  # {decision: its row of fields}
        self.lengths: dict[str, int] = {}
        self.handles: dict[str, list[str]] = {}
        self.mentions: dict[str, list[str]] = {}
        self.when: dict[str, tuple] = {}
        self.frequency: dict[str, int] = {}
        self.linked: dict[str, int] = {}
        self.openings: dict[tuple[str, ...], int] = {}
        self.rows: list[str] = []  # the postings' rows: the decision each was counted for
        self.postings: dict[str, str] = {}  # {term: its row of (row, count) pairs, array "i"}
        self.passed: set[int] = set()  # rows of the postings whose decision changed or went since
        self.changed: list[str] = []  # decisions counted since the postings: their own counts read
        self.shortlists: dict[str, tuple] = {}  # {record asked: its shortlist} (`kept_shortlists`)
        self.kinships: dict[str, dict[str, tuple]] = {}  # {record asked: its pairs weighed} (`kept_shortlists`)
        self.touched: dict[str, Counter] | None = {}  # profiled in this call: their term counts; None: all
        self.removed: set[str] = set()  # gone in this call
        self.scored = 0  # decisions scored by BM25 in this call (`KeptShortlists.scored`)
        self.weighed = 0  # pairs weighed in this call (`KeptKinships.weighed`)
        # What this call's changes moved: each term's and link target's number of decisions before
        # (of those counted in or out), and the number of decisions and their titles' shared opening.
        self._frequency_before: dict[str, int] = {}
        self._linked_before: dict[str, int] = {}
        self._shape: tuple | None = None

    # -- kept ----------------------------------------------------------------------------

    _KEPT = (
        "keys",
        "fields",
        "lengths",
        "handles",
        "mentions",
        "when",
        "frequency",
        "linked",
        "openings",
        "rows",
        "postings",
        "passed",
        "changed",
        "shortlists",
        "kinships",
    )  # the record's parts after FORMAT, in order (`passed` kept sorted)

    def dump(self) -> bytes:
        parts = [sorted(self.passed) if name == "passed" else getattr(self, name) for name in self._KEPT]
        return marshal.dumps((FORMAT, *parts))

    def load(self, data: Any) -> bool:
        """Take the record `dump` wrote; False for anything else."""
        try:
            found = marshal.loads(data) if isinstance(data, bytes) else None
        except (ValueError, TypeError, EOFError):
            return False
        if not (isinstance(found, tuple) and len(found) == len(self._KEPT) + 1 and found[0] == FORMAT):
            return False
        for name, value in zip(self._KEPT, found[1:]):
            setattr(self, name, set(value) if name == "passed" else value)
        return True

    def _row(self, key: str) -> bytes:
        value = self.found.get(key)
        if value is None:
            self._fetch((key,))
            value = self.found.get(key)
            if value is None:
                raise _Stale(key)
        return value

    def _fetch(self, keys: Iterable[str]) -> None:
        missing = [key for key in set(keys) if key not in self.found]
        if missing and self._read is not None:
            self.found.update(self._read(missing))

    def _add(self, value: bytes) -> str:
        key = hashlib.blake2b(value, digest_size=12).hexdigest()
        self.found[key] = value
        self.written[key] = value
        return key

    def _named(self) -> set[str]:
        return set(self.fields.values()) | set(self.postings.values())

    def to_write(self) -> dict[str, bytes]:
        """The rows made in this call that the record names."""
        named = self._named()
        return {key: value for key, value in self.written.items() if key in named}

    def unnamed(self) -> set[str]:
        """The rows the record read named and names no more (a decision's fields changed)."""
        return self.gone - self._named() if self.gone else set()

    # -- brought in line -----------------------------------------------------------------

    def count_all(self, decisions: list[Document], current: dict[str, str]) -> bool:
        """Everything counted from the decisions' texts; False where the pass is to be read plainly."""
        profiles = profiles_of(decisions)
        self.__init__(self._read)  # type: ignore[misc]
        self.whole = self.moved = True
        self.touched = None
        postings: dict[str, array] = {}
        for row, (doc_id, profile) in enumerate(profiles.items()):
            if not self._take(doc_id, profile, current[doc_id]):
                return False
            for term, count in profile.terms.items():
                posted = postings.get(term)
                if posted is None:
                    posted = postings[term] = array("i")
                posted.extend((row, count))
        self.rows = list(profiles)
        self.postings = {term: self._add(posted.tobytes()) for term, posted in postings.items()}
        return True

    def _take(self, doc_id: str, profile: Profile, key: str) -> bool:
        """A decision's profile counted in (its old counts taken out first by `_drop`)."""
        when = _when(profile)
        if when is None:
            return False
        self.keys[doc_id] = key
        self.fields[doc_id] = self._add(_fields(profile))
        self.lengths[doc_id] = sum(profile.terms.values())
        self.handles[doc_id] = sorted(profile.handles)
        self.mentions[doc_id] = sorted(profile.mentions)
        self.when[doc_id] = when
        frequency, linked, openings = self.frequency, self.linked, self.openings
        if self.touched is not None:  # following a change: what it moves noted (`unsettled`)
            self._note(profile.terms, targets=profile.targets)
        for term in profile.terms:
            frequency[term] = frequency.get(term, 0) + 1
        for target in profile.targets:
            linked[target] = linked.get(target, 0) + 1
        for opening in title_openings(profile.title):
            openings[opening] = openings.get(opening, 0) + 1
        return True

    def _drop(self, doc_id: str) -> None:
        """A decision's kept counts taken out."""
        terms, title, _, _, targets, _ = marshal.loads(self._row(self.fields[doc_id]))
        self._note(terms, targets)
        counts: tuple[tuple[dict[Any, int], Iterable[Any]], ...] = (
            (self.frequency, terms),
            (self.linked, targets),
            (self.openings, title_openings(title)),
        )
        for table, counted in counts:
            for item in counted:
                left = table[item] - 1
                if left:
                    table[item] = left
                else:
                    del table[item]
        self.gone.add(self.fields.pop(doc_id))
        kept: tuple[dict[str, Any], ...] = (self.keys, self.lengths, self.handles, self.mentions, self.when)
        for fields in kept:
            del fields[doc_id]
        if doc_id in self.changed:
            self.changed.remove(doc_id)

    def _note(self, terms: Iterable[str], targets: Iterable[str]) -> None:
        """The numbers of decisions holding these terms and linking these targets, as before this call."""
        before, frequency = self._frequency_before, self.frequency
        for term in terms:
            if term not in before:
                before[term] = frequency.get(term, 0)
        before, linked = self._linked_before, self.linked
        for target in targets:
            if target not in before:
                before[target] = linked.get(target, 0)

    def _shape_now(self) -> tuple:
        """What every pair's kinship reads of all decisions besides their words' counts: how many
        there are, and the opening their titles share."""
        return len(self.keys), shared_opening(Counter(self.openings))

    def unsettled(self, among: Iterable[str]) -> set[str] | None:
        """Those of `among` whose kinship with another decision may have moved in this call:
        changed or gone, or holding a word that more or fewer decisions hold now (its rarity
        moved); None for every one (all counted again, or the number of decisions or the opening
        their titles share moved)."""
        if self.touched is None or (self._shape is not None and self._shape != self._shape_now()):
            return None
        found = set(self.touched) | self.removed
        moved = [term for term, count in self._frequency_before.items() if self.frequency.get(term, 0) != count]
        among = set(among) - found
        if not (moved and among):
            return found
        at = {doc_id: row for row, doc_id in enumerate(self.rows)}
        passed = self.passed
        rows = {at[doc_id]: doc_id for doc_id in among if doc_id in at and at[doc_id] not in passed}
        self._fetch(self.postings[term] for term in moved if term in self.postings)
        for term in moved:
            key = self.postings.get(term)
            if key is not None:
                posted = array("i")
                posted.frombytes(self._row(key))
                found.update(rows[row] for row in set(posted[0::2]).intersection(rows))
        since = [doc_id for doc_id in among if doc_id in self.fields and at.get(doc_id, -1) not in rows]
        self._fetch(self.fields[doc_id] for doc_id in since)  # counted since the postings: their own words
        for doc_id in since:
            terms = marshal.loads(self._row(self.fields[doc_id]))[0]
            if any(term in terms for term in moved):
                found.add(doc_id)
        return found

    def links_moved(self) -> bool:
        """Whether more or fewer decisions link a target than before this call (a reason names the
        rare links two records share)."""
        return self.touched is None or any(self.linked.get(t, 0) != n for t, n in self._linked_before.items())

    def follow(self, decisions: list[Document], current: dict[str, str]) -> bool:
        """Brought in line with `decisions` as they are now, `current` naming what each is read
        from (`read_from`): counted again from nothing where enough changed, or nothing was kept;
        False where the pass is to be read plainly."""
        changed = [d for d in decisions if self.keys.get(d.id) != current[d.id]]
        gone = [doc_id for doc_id in self.keys if doc_id not in current]
        if not self.keys or len(set(self.changed) | {d.id for d in changed} | set(gone)) > max(
            REFRESH_LEAST, REFRESH_SHARE * len(current)
        ):
            return self.count_all(decisions, current)
        if not (changed or gone):
            return True
        self.moved = True
        self.removed = set(gone)
        self._shape = self._shape_now()
        self._fetch(self.fields[doc_id] for doc_id in [d.id for d in changed] + gone if doc_id in self.fields)
        at = {doc_id: row for row, doc_id in enumerate(self.rows)}
        for doc_id in [d.id for d in changed if d.id in self.keys] + gone:
            self._drop(doc_id)
            if doc_id in at:
                self.passed.add(at[doc_id])
        profiles = profiles_of(changed)
        for doc in changed:
            if not self._take(doc.id, profiles[doc.id], current[doc.id]):
                return False
            self.changed.append(doc.id)
            self.touched[doc.id] = profiles[doc.id].terms  # type: ignore[index]
        self.passed.update(row for row, doc_id in enumerate(self.rows) if doc_id in profiles and row not in self.passed)
        return True


class _Reading:
    """`successors.Decisions` answered from a `KeptDecisions` in line with the documents, for the
    weighing and the shortlists (which rank in its place, from the decisions' citations here)."""

    def __init__(self, kept: KeptDecisions, docs: dict[str, Document], live: list[str]):
        self.kept, self.docs, self.live = kept, docs, live
        self.size = len(kept.lengths)
        self.average = sum(kept.lengths.values()) / max(1, self.size)
        frequency = kept.frequency
        self.corpus = Corpus.counted(
            self.size, frequency, kept.linked, {DocType.DECISION: shared_opening(Counter(kept.openings))}
        )
        self.bm25 = _KeptBm25(self)
        self._profiles: dict[str, Profile] = {}
        self._asked: list[str] = []  # the records asked about, their bodies not read yet
        self._named: dict[str, set[str]] | None = None
        self._naming: dict[str, set[str]] | None = None

    def has(self, doc_id: str) -> bool:
        return doc_id in self.kept.keys

    def when(self, doc_id: str) -> tuple:
        return self.kept.when[doc_id]

    def title(self, doc_id: str) -> str:
        return self.docs[doc_id].title

    def profile(self, doc_id: str) -> Profile:
        found = self._profiles.get(doc_id)
        if found is None:
            if doc_id in self._asked:
                self._mine()
                return self._profiles[doc_id]
            found = self._profiles[doc_id] = self._profile(doc_id)
        return found

    def _profile(self, doc_id: str) -> Profile:
        kept = self.kept
        terms, title, doc_type, tags, targets, head = marshal.loads(kept._row(kept.fields[doc_id]))
        return Profile(
            doc_id,
            title,
            doc_type,
            set(tags),
            set(targets),
            Counter(terms),
            "",
            frozenset(kept.handles[doc_id]),
            frozenset(kept.mentions[doc_id]),
            head,
            kept.when[doc_id],
        )

    def mine(self, doc_ids: list[str]) -> None:
        """The decisions asked about, whose profiles carry their texts (their reasons quote them),
        read together when the first is asked: after a change most are asked of none."""
        self._asked = list(doc_ids)

    def _mine(self) -> None:
        """What was kept of each decision asked about and its body, as profiling it from its text gives."""
        docs = [self.docs[doc_id] for doc_id in self._asked]
        self._asked = []
        read_bodies(docs)
        self.prefetch(doc.id for doc in docs)
        for doc in docs:
            self._profiles[doc.id] = dataclasses.replace(self._profile(doc.id), text=doc.body)

    def prefetch(self, doc_ids: Iterable[str]) -> None:
        kept = self.kept
        kept._fetch(kept.fields[doc_id] for doc_id in doc_ids if doc_id not in self._profiles)

    def citing(self, mine: Profile) -> set[str]:
        """The decisions `mine` names or that name it (their handles), from every decision's."""
        if self._named is None:
            named: dict[str, set[str]] = {}
            naming: dict[str, set[str]] = {}
            for doc_id, handles in self.kept.handles.items():
                for handle in handles:
                    named.setdefault(handle, set()).add(doc_id)
            for doc_id, mentions in self.kept.mentions.items():
                for mention in mentions:
                    naming.setdefault(mention, set()).add(doc_id)
            self._named, self._naming = named, naming
        either: set[str] = set()
        for mention in mine.mentions:
            either |= self._named.get(mention, set())
        for handle in mine.handles:
            either |= self._naming.get(handle, set())  # type: ignore[union-attr]
        return either

    def names(self, doc_id: str, old_id: str) -> bool:
        """Whether the record `old_id` names the decision or the decision names it (one of `citing`)."""
        handles, mentions = self.kept.handles, self.kept.mentions
        return not (
            set(mentions[old_id]).isdisjoint(handles[doc_id]) and set(handles[old_id]).isdisjoint(mentions[doc_id])
        )

    def scores(self, terms: Counter) -> dict[str, float]:
        return self.bm25.scores(terms)


class _KeptBm25(Bm25):
    """`Bm25.scores` from the kept counts: each share as `Bm25` works it out, from the term's
    document count, the number of decisions and their average length now, added in the query's
    order; the postings' rows of changed decisions passed over, their own counts read instead."""

    def __init__(self, reading: _Reading):
        self.reading, self.kept = reading, reading.kept
        self.size = reading.size
        self._weights: dict[str, float] = {}
        self._shares: dict[str, list[tuple[str, float]]] = {}
        self._changed: list[tuple[str, dict[str, int]]] | None = None

    def idf(self, term: str) -> float:
        weight = self._weights.get(term)
        if weight is None:
            weight = self._weights[term] = rarity(self.size, self.kept.frequency.get(term, 0))
        return weight

    def share(self, term: str, doc_id: str, count: int) -> float:
        norm = self.K1 * (1 - self.B + self.B * self.kept.lengths[doc_id] / (self.reading.average or 1))
        return self.idf(term) * count * (self.K1 + 1) / (count + norm)

    def _term_shares(self, term: str) -> list[tuple[str, float]]:
        found = self._shares.get(term)
        if found is not None:
            return found
        kept = self.kept
        if self._changed is None:
            kept._fetch(kept.fields[doc_id] for doc_id in kept.changed)
            self._changed = [(doc_id, marshal.loads(kept._row(kept.fields[doc_id]))[0]) for doc_id in kept.changed]
        found = []
        key = kept.postings.get(term)
        if key is not None:
            posted = array("i")
            posted.frombytes(kept._row(key))
            rows, passed = kept.rows, kept.passed
            for n in range(0, len(posted), 2):
                row = posted[n]
                if row not in passed:
                    doc_id = rows[row]
                    found.append((doc_id, self.share(term, doc_id, posted[n + 1])))
        for doc_id, counts in self._changed:
            count = counts.get(term)
            if count:
                found.append((doc_id, self.share(term, doc_id, count)))
        self._shares[term] = found
        return found

    def scores(self, terms: Counter, most: int | None = Bm25.QUERY_TERMS) -> dict[str, float]:
        asked = self.query_terms(terms, most)
        kept = self.kept
        kept._fetch(kept.postings[term] for term in asked if term in kept.postings and term not in self._shares)
        totals: dict[str, float] = {}
        for term in asked:
            for doc_id, share in self._term_shares(term):
                totals[doc_id] = totals.get(doc_id, 0.0) + share
        return totals


def read_from(doc: Document, status: str, targets: Iterable[str]) -> str:
    """What a decision's profile is made from, besides its id: its file's bytes (digest) and path,
    and its links' targets as resolved among the other documents (`targets`), which may change
    while its file does not; and its `status`, which says whether it may replace another (a
    decision whose status moved is ranked again by the shortlists it may enter, `kept_shortlists`)."""
    return f"{doc.digest}\t{doc.path}\t{status}\t" + "\x1f".join(sorted(set(targets)))


def likeliest_successors(
    docs: dict[str, Document],
    old_ids: Iterable[str],
    dismissed: frozenset,
    kept: KeptDecisions,
    targets: Callable[[str], Iterable[str]],
) -> dict[str, list[Successor]] | None:
    """`successors.likeliest_successors(docs.values(), old_ids, dismissed=dismissed)` from
    `kept`, brought in line with the documents first (`targets(id)`: a document's links' targets
    as resolved); None where the pass is to be read plainly (a date with a time of day). A row of
    `kept` gone (another process counted everything since) counts everything again."""
    decisions: list[Document] = []
    live: list[str] = []  # those that may replace another, in the documents' order
    current: dict[str, str] = {}
    for doc in docs.values():  # each document's type and status read once (10,000 of them)
        if doc.type == DocType.DECISION:
            status = doc.status
            decisions.append(doc)
            if status in LIVE:
                live.append(doc.id)
            current[doc.id] = read_from(doc, status, targets(doc.id))
    old_ids = list(old_ids)
    for attempt in range(2):
        try:
            if not (kept.follow(decisions, current) if attempt == 0 else kept.count_all(decisions, current)):
                return None
            reading = _Reading(kept, docs, live)
            asked = [doc_id for doc_id in old_ids if reading.has(doc_id)]
            reading.mine(asked)
            weighed = kept.kinships
            unsettled = kept.unsettled({*asked, *weighed, *(d for few in weighed.values() for d in few)})
            shortlists = KeptShortlists(kept.shortlists, reading, kept.touched, kept.removed, dismissed, unsettled)
            shortlists.forget_others(asked)
            kinships = KeptKinships(weighed, reading, unsettled, not kept.links_moved())
            found = likeliest_among(reading, asked, ranked=shortlists.ranked, kinships=kinships)
            kept.scored, kept.weighed = shortlists.scored, kinships.weighed
            kept.moved |= shortlists.moved or kinships.now != weighed
            kept.kinships = kinships.now
            return found
        except (_Stale, KeyError, ValueError, TypeError, EOFError):
            if attempt:
                raise
    return None
