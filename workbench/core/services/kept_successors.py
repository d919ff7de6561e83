"""The likeliest successors of the decisions superseded without a named one, answered from what
was kept of every decision between calls, the same answer as profiling every decision again.

`views.successors` weighs each such decision against every live one: BM25 and word rarities over
every decision, and each one's citations. Profiling 10,000 decision records from their texts took
most of a queue after a change (24 of 35 s under a profiler). What the pass reads of each decision
is kept here in the derived store: the term counts, title, tags, links and title head of each (a
row of its own), and its length, handles, mentions, date and what it was profiled from
(`read_from`), in one of `DOCUMENT_ROWS` rows chosen by a CRC of its id; each term's postings as
they were at the last full count (a row each, named in one of `TERM_ROWS` rows by a CRC of the
term); the number of decisions holding each term in `FREQUENCY_ROWS` rows, read whole and
written where a count moved. The record itself holds the number of decisions linking each target
and opening their titles alike, the rows' names and, for each row of decisions, a digest of what
its decisions were profiled from (their lines, `read_from`, sorted and joined). Which decisions
moved is told by the decisions' files as kept (`decision_inputs`): while every id stands, only the
decisions whose file's digest or path moved have their lines made and their rows read; where an id
moved, every decision's line is made and the rows whose digest is not the one it works out now are
read. A call reads those rows and the rows the records asked about need, not every decision's
(4.3 MB written whole at each change before, 10,000 decision records). A decision whose file (digest and path, under the same id), status or
links as resolved are not those profiled is profiled again and its counts replace its old ones; a
decision gone takes its counts out. The record keeps the last answer too, with the records it
answered and the pairs dismissed: while no row's digest moved, it is the answer, and no row is
read. The postings are not rewritten for a change: the
changed decisions' rows in them are passed over and their own counts read instead, until more than
`REFRESH_SHARE` of the decisions changed (then everything is counted again). Every sum is the one
`views.successors` makes, in the same order, so the answer is equal to the last bit; anything
kept that does not hold together (a row gone or damaged, another format) is counted again from
nothing. The record keeps each asked record's shortlist and its pairs weighed too
(`kept_shortlists`), so that after a change only the decisions it touched and those a record kept
are scored for it, and only the pairs it may have moved weighed again.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import hashlib
import marshal
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from operator import itemgetter
from typing import Any

from ..records.store_rows import read_bodies
from ..vocabulary.model import DocType, Document
from ..views.similarity import Bm25, Corpus, Profile, profiles_of, rarity, shared_opening, title_openings
from ..views.successors import LIVE, Successor, likeliest_among
from .decision_inputs import DecisionInputs, KeptFiles, joined
from .kept_shortlists import KeptKinships, KeptShortlists
from .row_keys import key_of, row_of, rows_of

__all__ = [
    "DOCUMENT_ROWS",
    "FREQUENCY_ROWS",
    "MEMBERS",
    "REFRESH_SHARE",
    "TERM_ROWS",
    "KeptDecisions",
    "likeliest_successors",
    "read_from",
    "row_of",
]


FORMAT = 6  # kept as `kept_conflicts.SUCCESSORS` (the record, and its rows)
REFRESH_SHARE = 0.05  # the share of decisions changed since the postings were counted: then all again
REFRESH_LEAST = 64
DOCUMENT_ROWS = 1024  # about ten decision records to a row at 10,000: a change rewrites one of 3 KB
TERM_ROWS = 1024
# The number of decisions holding each term, read whole (every rarity may be asked) but written a
# row at a time: a change that adds or takes out a word from a decision rewrites its rows alone.
FREQUENCY_ROWS = 64
# What is kept of each decision in its row, in this order: what it was profiled from (`read_from`),
# its row of fields, its length, handles, mentions, date, and its row in the postings (-1: none).
KEY, FIELDS, LENGTH, HANDLES, MENTIONS, WHEN, POSTED = range(7)
MEMBERS = 4  # where a shortlist as the record keeps it names the row of its members and their lengths


def _digest(lines: list[str]) -> bytes:
    """What a row's decisions were profiled from, in one digest: their lines (`read_from`), sorted,
    joined (`decision_inputs.joined`)."""
    lines.sort()
    return hashlib.blake2b(joined(lines).encode("utf-8", "surrogatepass"), digest_size=8).digest()


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
    """What the successors' pass reads of every decision, kept: answers as `successors.Decisions`.
    Each row of decisions is read when one of them is first asked (`fact`)."""

    def __init__(self, read: Callable[[list[str]], dict[str, bytes]] | None = None):
        self._read = read
        self.found: dict[str, bytes] = {}  # rows read or made in this call
        self._checked: set[str] = set()  # those whose bytes were found to be their key's
        self.written: dict[str, bytes] = {}
        self.gone: dict[str, str] = {}  # rows replaced in this call: {key: the decision it was of, "" a row of them}
        self.whole = False  # every row counted again in this call: the rest are dropped
        self.moved = False  # brought in line with a change in this call: to be kept again
        self.size = 0  # decisions
        self.total = 0  # their lengths, added
        self.frequency: dict[str, int] = {}  # read from its rows (`frequency_rows`) when followed
        self.frequency_rows: list[str] = []  # FREQUENCY_ROWS rows: {term: the decisions holding it}
        self._frequency_parts: list[set[str]] | None = None  # the terms of each of those rows as read
        self.linked: dict[str, int] = {}
        self.openings: dict[tuple[str, ...], int] = {}
        self.passed: set[int] = set()  # rows of the postings whose decision changed or went since
        self.changed: list[str] = []  # decisions counted since the postings: their own counts read
        # The row naming the decision each row of the postings was counted for, and the TERM_ROWS
        # rows of {term: its postings' row} ("": none): written by a full count alone.
        self.postings_key = ""
        self.document_rows: list[str] = []  # DOCUMENT_ROWS rows: {decision: what is kept of it}
        self.digests: list[bytes] = []  # of each row of decisions: what they were profiled from
        self.shortlists: dict[str, tuple] = {}  # {record asked: its shortlist} (`kept_shortlists`), once read
        # As the record keeps them: each one's members and their lengths in a row of its own
        # (`MEMBERS`), written again only where they changed; and those rows as read.
        self.listed: dict[str, tuple] = {}
        self._members: dict[str, tuple[dict, dict, str]] = {}
        self.kinships: dict[str, dict[str, tuple]] = {}  # {record asked: its pairs weighed} (`kept_shortlists`)
        # The last answer, and what it answered: the records asked and the pairs dismissed
        # (`likeliest_successors`), given again while no decision changed.
        self.asked: tuple = ()
        self.answer: list[tuple[str, list[tuple]]] = []
        self.same = False  # no row of decisions moved since the record was kept (`follow`)
        self.inputs: DecisionInputs | None = None  # the decisions as they are now, once followed
        self.files = KeptFiles()  # the decisions' files as kept: what moved told without their lines
        self.touched: dict[str, Counter] | None = {}  # profiled in this call: their term counts; None: all
        self.removed: set[str] = set()  # gone in this call
        self.scored = 0  # decisions scored by BM25 in this call (`KeptShortlists.scored`)
        self.weighed = 0  # pairs weighed in this call (`KeptKinships.weighed`)
        self._facts: dict[int, dict[str, tuple]] = {}  # the rows of decisions read, by their place
        self._moved_rows: set[int] = set()  # those changed in this call
        self._terms: dict[int, dict[str, str]] = {}  # the rows of terms read
        self._rows: list[str] | None = None
        self._term_rows: list[str] | None = None
        self._lengths: dict[str, int] | None = None
        # What this call's changes moved: each term's and link target's number of decisions before
        # (of those counted in or out), and the number of decisions and their titles' shared opening.
        self._frequency_before: dict[str, int] = {}
        self._linked_before: dict[str, int] = {}
        self._shape: tuple | None = None

    # -- kept ----------------------------------------------------------------------------

    _KEPT = (
        "size",
        "total",
        "frequency_rows",
        "linked",
        "openings",
        "passed",
        "changed",
        "postings_key",
        "document_rows",
        "digests",
        "listed",
        "kinships",
        "asked",
        "answer",
        "files",
    )  # the record's parts after FORMAT, in order (`passed` kept sorted, `files` as `KeptFiles.dumped`)

    def dump(self) -> bytes:
        """The record, the rows of decisions and of shortlists changed in this call made first
        (`to_write`)."""
        self._put_rows()
        self._put_shortlists()
        self._put_frequency()
        self._put_files()
        parts = [sorted(self.passed) if name == "passed" else getattr(self, name) for name in self._KEPT]
        parts[-1] = self.files.dumped()
        return marshal.dumps((FORMAT, *parts))

    def load(self, data: Any) -> bool:
        """Take the record `dump` wrote; False for anything else."""
        try:
            found = marshal.loads(data) if isinstance(data, bytes) else None
        except (ValueError, TypeError, EOFError):
            return False
        if not (isinstance(found, tuple) and len(found) == len(self._KEPT) + 1 and found[0] == FORMAT):
            return False
        try:
            for name, value in zip(self._KEPT, found[1:]):
                setattr(self, name, set(value) if name == "passed" else value)
            self.files = KeptFiles.loaded(self.files)
            if (
                len(self.document_rows) == len(self.digests) == DOCUMENT_ROWS
                and len(self.frequency_rows) == FREQUENCY_ROWS
            ):
                return True
        except TypeError:  # a field not of the kind kept: not this record
            pass
        self.__init__(self._read)  # type: ignore[misc]
        return False

    def _row(self, key: str, salt: str = "") -> bytes:
        """The row kept under `key` (made with `salt`: `row_keys.key_of`), `_Stale` where it is
        gone or its bytes are not those its key digests (damaged in the store)."""
        value = self.found.get(key)
        if value is None:
            self._fetch((key,))
            value = self.found.get(key)
            if value is None:
                raise _Stale(key)
        if key not in self._checked:
            if key_of(value, salt) != key:
                raise _Stale(key)
            self._checked.add(key)
        return value

    def fields(self, doc_id: str) -> tuple:
        """A decision's kept fields (`_fields`: terms, title, type, tags, targets, title head)."""
        return marshal.loads(self._row(self.fact(doc_id)[FIELDS], doc_id))

    def _fetch(self, keys: Iterable[str]) -> None:
        missing = [key for key in set(keys) if key not in self.found]
        if missing and self._read is not None:
            self.found.update(self._read(missing))

    def _add(self, value: bytes, salt: str = "") -> str:
        key = key_of(value, salt)
        self.found[key] = value
        self._checked.add(key)
        self.written[key] = value
        return key

    def to_write(self) -> dict[str, bytes]:
        """The rows made in this call (each named by the record: `dump` first)."""
        return dict(self.written)

    def unnamed(self) -> set[str]:
        """The rows the record named and names no more (a decision's fields, a row of decisions or
        a shortlist's members changed): `dump` first."""
        found = set()
        rows = set(self.document_rows) | set(self.frequency_rows) | set(self.files.keys)
        rows.update(state[MEMBERS] for state in self.listed.values())
        for key, doc_id in self.gone.items():
            if doc_id:
                facts = self._facts.get(row_of(doc_id, DOCUMENT_ROWS), {})
                if doc_id not in facts or facts[doc_id][FIELDS] != key:
                    found.add(key)
            elif key not in rows:
                found.add(key)
        return found

    def named(self) -> set[str]:
        """Every row the record names (each row of decisions read)."""
        found = {self.postings_key, *self._index()[1], *self.document_rows, *self.frequency_rows, *self.files.keys}
        found.discard("")
        found.update(state[MEMBERS] for state in self.listed.values())
        for n in range(TERM_ROWS):
            found.update(self._term_row(n).values())
        found.update(fact[FIELDS] for _, fact in self.everything())
        return found

    # -- read a row at a time --------------------------------------------------------------

    def _load_rows(self, places: Iterable[int]) -> None:
        wanted = [n for n in set(places) if n not in self._facts]
        keys = self.document_rows
        self._fetch(keys[n] for n in wanted if keys[n])
        for n in wanted:
            facts = marshal.loads(self._row(keys[n])) if keys[n] else {}
            if type(facts) is not dict:
                raise _Stale(keys[n])
            self._facts[n] = facts

    def facts_of(self, doc_ids: Iterable[str]) -> None:
        """The rows of these decisions read, many to a query."""
        self._load_rows(row_of(doc_id, DOCUMENT_ROWS) for doc_id in doc_ids)

    def fact(self, doc_id: str) -> tuple:
        """What is kept of a decision (`KEY` ... `POSTED`)."""
        n = row_of(doc_id, DOCUMENT_ROWS)
        if n not in self._facts:
            self._load_rows((n,))
        return self._facts[n][doc_id]

    def everything(self) -> Iterator[tuple[str, tuple]]:
        """Every decision and what is kept of it (every row read)."""
        self._load_rows(range(DOCUMENT_ROWS))
        for facts in self._facts.values():
            yield from facts.items()

    def lengths(self) -> dict[str, int]:
        """Every decision's length."""
        if self._lengths is None:
            self._lengths = {doc_id: fact[LENGTH] for doc_id, fact in self.everything()}
        return self._lengths

    def _term_row(self, n: int) -> dict[str, str]:
        found = self._terms.get(n)
        if found is None:
            key = self._index()[1][n]
            found = self._terms[n] = marshal.loads(self._row(key)) if key else {}
            if type(found) is not dict:
                raise _Stale(key)
        return found

    def postings_of(self, terms: Iterable[str]) -> dict[str, str]:
        """{term: its postings' row} of those of `terms` the postings hold (their rows fetched)."""
        terms = list(terms)
        places = {row_of(term, TERM_ROWS) for term in terms}
        keys = self._index()[1]
        self._fetch(keys[n] for n in places - self._terms.keys() if keys[n])
        found = {}
        for term in terms:
            key = self._term_row(row_of(term, TERM_ROWS)).get(term)
            if key is not None:
                found[term] = key
        self._fetch(found.values())
        return found

    def rows(self) -> list[str]:
        """The decision each row of the postings was counted for."""
        return self._index()[0]

    def _index(self) -> tuple[list[str], list[str]]:
        """The postings' rows (`rows`) and the rows naming each term's postings."""
        if self._rows is None or self._term_rows is None:
            found = marshal.loads(self._row(self.postings_key))
            if not (type(found) is tuple and len(found) == 2 and type(found[0]) is list and len(found[1]) == TERM_ROWS):
                raise _Stale(self.postings_key)
            self._rows, self._term_rows = found
        return self._rows, self._term_rows

    def read_shortlists(self) -> None:
        """Each record's shortlist as `kept_shortlists` reads it, its members read from their rows."""
        listed = self.listed
        self._fetch(state[MEMBERS] for state in listed.values())
        for old_id, state in listed.items():
            held, lengths = marshal.loads(self._row(state[MEMBERS], old_id))
            if type(held) is not dict or type(lengths) is not dict:
                raise _Stale(state[MEMBERS])
            width = len(state[0])  # a count for each query term
            members = {}
            for doc_id, (places, counts) in held.items():
                found = [0] * width
                for place, count in zip(places, counts):
                    found[place] = count
                members[doc_id] = found
            self._members[old_id] = (members, lengths, state[MEMBERS])
            self.shortlists[old_id] = (*state[:MEMBERS], members, state[MEMBERS + 1], lengths)

    def _put_shortlists(self) -> None:
        """Each shortlist as the record keeps it, its members' row made again where they changed."""
        listed = {}
        for old_id, (asked, rarities, average, bound, members, cites, lengths) in self.shortlists.items():
            read = self._members.get(old_id)
            if read is not None and read[0] is members and read[1] is lengths:
                key = read[2]
            else:
                # Each member's counts of the query terms, most of them nought, as (places, counts).
                held = {}
                for doc_id, counts in members.items():
                    places = [n for n, count in enumerate(counts) if count]
                    held[doc_id] = (places, [counts[n] for n in places])
                value = marshal.dumps((held, lengths))
                key = self._add(value, old_id)
                if read is not None and read[2] != key:
                    self.gone[read[2]] = ""
                self._members[old_id] = (members, lengths, key)
            listed[old_id] = (asked, rarities, average, bound, key, cites)
        for old_id, state in self.listed.items():
            if old_id not in listed:
                self.gone[state[MEMBERS]] = ""
        self.listed = listed

    def read_frequency(self) -> None:
        """The number of decisions holding each term, from its rows (once, and not after a full
        count, which counted it): a call that finds nothing changed and its answer kept reads none."""
        if self.whole or self._frequency_parts is not None:
            return
        self._fetch(key for key in self.frequency_rows if key)
        frequency: dict[str, int] = {}
        parts = []
        for key in self.frequency_rows:
            part = marshal.loads(self._row(key)) if key else {}
            if type(part) is not dict:
                raise _Stale(key)
            frequency.update(part)
            parts.append(set(part))
        self.frequency, self._frequency_parts = frequency, parts

    def _put_frequency(self) -> None:
        """The rows of the terms whose number of decisions moved in this call made again (every
        row after a full count)."""
        frequency, parts = self.frequency, self._frequency_parts
        if parts is None and not self.whole:  # not read: no count moved
            return
        if parts is None:  # counted from nothing
            parts = [set() for _ in range(FREQUENCY_ROWS)]
            for term in frequency:
                parts[row_of(term, FREQUENCY_ROWS)].add(term)
            moved: Iterable[int] = range(FREQUENCY_ROWS)
            self.frequency_rows = [""] * FREQUENCY_ROWS
        else:
            moved = set()
            for term, count in self._frequency_before.items():
                if frequency.get(term, 0) != count:
                    n = row_of(term, FREQUENCY_ROWS)
                    parts[n].add(term)
                    moved.add(n)
        keys = self.frequency_rows
        for n in moved:
            part = {term: frequency[term] for term in sorted(parts[n]) if term in frequency}
            parts[n] = set(part)
            key = self._add(marshal.dumps(part)) if part else ""
            if keys[n] and keys[n] != key:
                self.gone[keys[n]] = ""
            keys[n] = key
        self._frequency_parts = parts

    def _put_files(self) -> None:
        """The decisions' files kept as they are now (`KeptFiles`), a slice's row made again only
        where it moved."""
        if self.inputs is None:
            return
        self.files, gone = KeptFiles.made(self.inputs, self.files, self._add)
        for key in gone:
            self.gone[key] = ""

    def _put_rows(self) -> None:
        """The rows of decisions changed in this call made again, and their digests."""
        if not self._moved_rows:
            return
        keys = self.document_rows
        for n in sorted(self._moved_rows):
            facts = self._facts[n]
            key = self._add(marshal.dumps(dict(sorted(facts.items())))) if facts else ""
            if keys[n] and keys[n] != key:
                self.gone[keys[n]] = ""
            keys[n] = key
            self.digests[n] = _digest([fact[KEY] for fact in facts.values()])
        self._moved_rows = set()

    # -- brought in line -----------------------------------------------------------------

    def count_all(self, decisions: list[Document], inputs: DecisionInputs) -> bool:
        """Everything counted from the decisions' texts; False where the pass is to be read plainly."""
        profiles = profiles_of(decisions)
        self.__init__(self._read)  # type: ignore[misc]
        self.whole = self.moved = True
        self.touched = None
        self.inputs = inputs
        current = inputs.lines()
        self._facts = {n: {} for n in range(DOCUMENT_ROWS)}
        self.document_rows, self.digests = [""] * DOCUMENT_ROWS, [_digest([])] * DOCUMENT_ROWS
        postings: dict[str, array] = {}
        for row, (doc_id, profile) in enumerate(profiles.items()):
            if not self._take(doc_id, profile, current[doc_id], row):
                return False
            for term, count in profile.terms.items():
                posted = postings.get(term)
                if posted is None:
                    posted = postings[term] = array("i")
                posted.extend((row, count))
        self._rows = list(profiles)
        by_term: list[dict[str, str]] = [{} for _ in range(TERM_ROWS)]
        for term, posted in postings.items():
            by_term[row_of(term, TERM_ROWS)][term] = self._add(posted.tobytes())
        self._terms = dict(enumerate(by_term))
        self._term_rows = [self._add(marshal.dumps(found)) if found else "" for found in by_term]
        self.postings_key = self._add(marshal.dumps((self._rows, self._term_rows)))
        return True

    def _take(self, doc_id: str, profile: Profile, key: str, posted: int) -> bool:
        """A decision's profile counted in (its old counts taken out first by `_drop`)."""
        when = _when(profile)
        if when is None:
            return False
        value = _fields(profile)
        # Under a digest of the decision's id and its fields: a row is named by one decision only,
        # so a row it names no more may go (two copies of a record have the same fields).
        fields = self._add(value, doc_id)
        length = sum(profile.terms.values())
        n = row_of(doc_id, DOCUMENT_ROWS)
        self._load_rows((n,))
        self._facts[n][doc_id] = (
            key,
            fields,
            length,
            sorted(profile.handles),
            sorted(profile.mentions),
            when,
            posted,
        )
        self._moved_rows.add(n)
        self.size += 1
        self.total += length
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

    def _drop(self, doc_id: str) -> int:
        """A decision's kept counts taken out; its row in the postings (-1: none)."""
        n = row_of(doc_id, DOCUMENT_ROWS)
        fact = self.fact(doc_id)
        terms, title, _, _, targets, _ = self.fields(doc_id)
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
        self.gone[fact[FIELDS]] = doc_id
        del self._facts[n][doc_id]
        self._moved_rows.add(n)
        self.size -= 1
        self.total -= fact[LENGTH]
        if doc_id in self.changed:
            self.changed.remove(doc_id)
        return fact[POSTED]

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
        return self.size, shared_opening(Counter(self.openings))

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
        rows, passed = self.rows(), self.passed
        for term, key in self.postings_of(moved).items():
            posted = array("i")
            posted.frombytes(self._row(key))
            found.update(rows[row] for row in set(posted[0::2]) - passed if rows[row] in among)
        since = [doc_id for doc_id in self.changed if doc_id in among]  # their own words, not the postings'
        self.facts_of(since)
        self._fetch(self.fact(doc_id)[FIELDS] for doc_id in since)
        for doc_id in since:
            terms = self.fields(doc_id)[0]
            if any(term in terms for term in moved):
                found.add(doc_id)
        return found

    def keep_answer(self, asked: tuple, found: dict[str, list[Successor]]) -> None:
        """The answer worked out in this call for `asked` (`likeliest_successors`), to be kept
        where it is not the one kept."""
        answer = [(old_id, [(s.id, s.title, s.score, s.why) for s in few]) for old_id, few in found.items()]
        if (asked, answer) != (self.asked, self.answer):
            self.asked, self.answer = asked, answer
            self.moved = True

    def links_moved(self) -> bool:
        """Whether more or fewer decisions link a target than before this call (a reason names the
        rare links two records share)."""
        return self.touched is None or any(self.linked.get(t, 0) != n for t, n in self._linked_before.items())

    def follow(self, decisions: list[Document], inputs: DecisionInputs) -> bool:
        """Brought in line with `decisions` as they are now (`inputs`): counted again from nothing
        where enough changed, or nothing was kept; False where the pass is to be read plainly. While
        the ids stand (`KeptFiles.moved`), only the lines of the decisions whose file moved are made
        and their rows read; else the lines of all, and the rows of decisions whose digest moved."""
        if not self.document_rows:
            return self.count_all(decisions, inputs)
        self.inputs = inputs
        files = self.files.moved(inputs, self._row)
        if files is None:  # the frame moved: every line made, the rows told by their digests
            self.moved = True  # the files kept anew
            current = inputs.lines()
            places = rows_of(current, DOCUMENT_ROWS)
            groups: list[list[str]] = [[] for _ in range(DOCUMENT_ROWS)]
            for place, line in zip(places, current.values()):
                groups[place].append(line)
            digests = self.digests
            moved = [n for n, lines in enumerate(groups) if _digest(lines) != digests[n]]
            asked = [(doc_id, n) for doc_id, n in zip(current, places)]
        else:
            current = inputs.lines_of(files)
            asked = [(doc_id, row_of(doc_id, DOCUMENT_ROWS)) for doc_id in current]
            moved = sorted({n for _, n in asked})
        if not moved:  # no decision's line moved: the kept answer holds (the files kept anew where the frame moved)
            self.same = True
            return True
        self.read_frequency()
        self._load_rows(moved)
        facts, at = self._facts, set(moved)
        changed = {doc_id for doc_id, n in asked if n in at and facts[n].get(doc_id, (None,))[KEY] != current[doc_id]}
        gone = [doc_id for n in moved for doc_id in facts[n] if not inputs.has(doc_id)]
        if len(set(self.changed) | changed | set(gone)) > max(REFRESH_LEAST, REFRESH_SHARE * len(inputs)):
            return self.count_all(decisions, inputs)
        self.moved = True
        self._moved_rows.update(moved)  # their digests made again, whatever moved in them
        if not (changed or gone):
            return True
        self.removed = set(gone)
        self._shape = self._shape_now()
        older = [doc_id for doc_id in changed if doc_id in facts[row_of(doc_id, DOCUMENT_ROWS)]]
        self._fetch(self.fact(doc_id)[FIELDS] for doc_id in older + gone)
        posted: dict[str, int] = {}
        for doc_id in older + gone:
            row = self._drop(doc_id)
            if row >= 0:
                self.passed.add(row)
                posted[doc_id] = row
        at_now = inputs.at()
        profiled = [decisions[n] for n in sorted(at_now[doc_id] for doc_id in changed)]  # in the documents' order
        profiles = profiles_of(profiled)
        for doc in profiled:
            if not self._take(doc.id, profiles[doc.id], current[doc.id], posted.get(doc.id, -1)):
                return False
            self.changed.append(doc.id)
            self.touched[doc.id] = profiles[doc.id].terms  # type: ignore[index]
        return True


class _Reading:
    """`successors.Decisions` answered from a `KeptDecisions` in line with the documents, for the
    weighing and the shortlists (which rank in its place, from the decisions' citations here)."""

    def __init__(self, kept: KeptDecisions, docs: dict[str, Document], live: list[str]):
        self.kept, self.docs, self.live = kept, docs, live
        self.size = kept.size
        self.average = kept.total / max(1, self.size)
        self.bm25 = _KeptBm25(self)
        self._profiles: dict[str, Profile] = {}
        self._asked: list[str] = []  # the records asked about, their bodies not read yet
        self._named: dict[str, set[str]] | None = None
        self._naming: dict[str, set[str]] | None = None

    @functools.cached_property
    def corpus(self) -> Corpus:
        """The word rarities of the decisions as kept: made when a pair is first weighed (copying
        every term's count, a few ms at 10,000 decisions), which after most changes none is."""
        kept = self.kept
        return Corpus.counted(
            self.size, kept.frequency, kept.linked, {DocType.DECISION: shared_opening(Counter(kept.openings))}
        )

    def has(self, doc_id: str) -> bool:
        return self.kept.inputs is not None and self.kept.inputs.has(doc_id)

    def when(self, doc_id: str) -> tuple:
        return self.kept.fact(doc_id)[WHEN]

    def length(self, doc_id: str) -> int:
        return self.kept.fact(doc_id)[LENGTH]

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
        fact = kept.fact(doc_id)
        terms, title, doc_type, tags, targets, head = kept.fields(doc_id)
        return Profile(
            doc_id,
            title,
            doc_type,
            set(tags),
            set(targets),
            Counter(terms),
            "",
            frozenset(fact[HANDLES]),
            frozenset(fact[MENTIONS]),
            head,
            fact[WHEN],
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
        wanted = [doc_id for doc_id in doc_ids if doc_id not in self._profiles]
        kept.facts_of(wanted)
        kept._fetch(kept.fact(doc_id)[FIELDS] for doc_id in wanted)

    def citing(self, mine: Profile) -> set[str]:
        """The decisions `mine` names or that name it (their handles), from every decision's."""
        if self._named is None:
            named: dict[str, set[str]] = {}
            naming: dict[str, set[str]] = {}
            for doc_id, fact in self.kept.everything():
                for handle in fact[HANDLES]:
                    named.setdefault(handle, set()).add(doc_id)
                for mention in fact[MENTIONS]:
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
        mine, other = self.kept.fact(old_id), self.kept.fact(doc_id)
        return not (set(mine[MENTIONS]).isdisjoint(other[HANDLES]) and set(mine[HANDLES]).isdisjoint(other[MENTIONS]))

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
        return self.share_of(term, self.kept.fact(doc_id)[LENGTH], count)

    def share_of(self, term: str, length: int, count: int) -> float:
        """A term's share of the score of a decision of `length` holding it `count` times."""
        return self.share_at(term, self.norm(length), count)

    def norm(self, length: int) -> float:
        """What a decision's length makes of each term's share of its score (`share_at`)."""
        return self.K1 * (1 - self.B + self.B * length / (self.reading.average or 1))

    def share_at(self, term: str, norm: float, count: int) -> float:
        return self.idf(term) * count * (self.K1 + 1) / (count + norm)

    def score_of(self, weights: list[float], counts: list[int], length: int) -> float:
        """A decision's score for query terms of rarities `weights` (`idf`, asked once for every
        decision scored) that it holds `counts` times: each term's share as `share_at` works it
        out, with no call for each, added in the query's order as `Bm25.scores` adds them."""
        norm, k = self.norm(length), self.K1 + 1
        total = 0.0
        for weight, count in zip(weights, counts):
            if count:
                total += weight * count * k / (count + norm)
        return total

    def _term_shares(self, term: str) -> list[tuple[str, float]]:
        found = self._shares.get(term)
        if found is not None:
            return found
        kept = self.kept
        lengths = kept.lengths()
        if self._changed is None:
            kept._fetch(kept.fact(doc_id)[FIELDS] for doc_id in kept.changed)
            self._changed = [(doc_id, kept.fields(doc_id)[0]) for doc_id in kept.changed]
        found = []
        key = kept.postings_of((term,)).get(term)
        if key is not None:
            posted = array("i")
            posted.frombytes(kept._row(key))
            rows, passed = kept.rows(), kept.passed
            for n in range(0, len(posted), 2):
                row = posted[n]
                if row not in passed:
                    doc_id = rows[row]
                    found.append((doc_id, self.share_of(term, lengths[doc_id], posted[n + 1])))
        for doc_id, counts in self._changed:
            count = counts.get(term)
            if count:
                found.append((doc_id, self.share_of(term, lengths[doc_id], count)))
        self._shares[term] = found
        return found

    def scores(self, terms: Counter, most: int | None = Bm25.QUERY_TERMS) -> dict[str, float]:
        asked = self.query_terms(terms, most)
        self.kept.postings_of(term for term in asked if term not in self._shares)
        totals: dict[str, float] = {}
        for term in asked:
            for doc_id, share in self._term_shares(term):
                totals[doc_id] = totals.get(doc_id, 0.0) + share
        return totals


_TARGET = itemgetter(1)  # a link's target, of (type, target)


def read_from(decisions: Iterable[Document], related: Mapping[str, tuple]) -> dict[str, str]:
    """What each decision's profile is made from, in one line: its id, its file's bytes (digest)
    and path, its status, which says whether it may replace another (a decision whose status moved
    is ranked again by the shortlists it may enter, `kept_shortlists`), and its links' targets as
    resolved among the other documents (`related[id]`: its relations as `store_rows.relations_of`
    gives them), which may change while its file does not. The targets in the file's order: the
    same bytes resolved alike give the same line (a profile holds them as a set). One expression
    for all 10,000 decisions of a vault, no call for each."""
    join, target = "\x1f".join, _TARGET
    return {
        doc.id: f"{doc.id}\t{doc.digest}\t{doc.path}\t{doc.status}\t"
        f"{join(map(target, links)) if (links := related[doc.id][2]) else ''}"
        for doc in decisions
    }


def _dismissed_key(dismissed: frozenset) -> bytes:
    """The pairs a person dismissed, in one digest (an answer kept is for the same)."""
    pairs = sorted(sorted(pair) for pair in dismissed)
    return hashlib.blake2b(repr(pairs).encode("utf-8", "surrogatepass"), digest_size=8).digest()


def likeliest_successors(
    docs: dict[str, Document],
    old_ids: Iterable[str],
    dismissed: frozenset,
    kept: KeptDecisions,
    related: Mapping[str, tuple],
    owned: Iterable[str],
) -> dict[str, list[Successor]] | None:
    """`successors.likeliest_successors(docs.values(), old_ids, dismissed=dismissed)` from
    `kept`, brought in line with the documents first (`related[id]`: a document's relations as
    `store_rows.relations_of` gives them, its links as resolved among them; `owned`: every id a file
    of the vault owns, an invalid file's too, as links resolve among them); None where the pass
    is to be read plainly (a date with a time of day). A row of `kept` gone (another process
    counted everything since) counts everything again. Where no decision changed since the
    answer was kept, for the same records asked and pairs dismissed, that answer is given."""
    decision = DocType.DECISION
    decisions = [doc for doc in docs.values() if doc.type == decision]
    live = [doc.id for doc in decisions if doc.status in LIVE]  # in the documents' order
    inputs = DecisionInputs(owned, decisions, related, read_from)
    old_ids = [doc_id for doc_id in old_ids if inputs.has(doc_id)]
    question = (old_ids, _dismissed_key(dismissed))
    for attempt in range(2):
        try:
            if not (kept.follow(decisions, inputs) if attempt == 0 else kept.count_all(decisions, inputs)):
                return None
            if kept.same and kept.asked == question:
                return {old_id: [Successor(*found) for found in few] for old_id, few in kept.answer}
            kept.read_frequency()
            kept.read_shortlists()
            reading = _Reading(kept, docs, live)
            reading.mine(old_ids)
            weighed = kept.kinships
            unsettled = kept.unsettled({*old_ids, *weighed, *(d for few in weighed.values() for d in few)})
            shortlists = KeptShortlists(kept.shortlists, reading, kept.touched, kept.removed, dismissed, unsettled)
            shortlists.forget_others(old_ids)
            kinships = KeptKinships(weighed, reading, unsettled, not kept.links_moved())
            found = likeliest_among(reading, old_ids, ranked=shortlists.ranked, kinships=kinships)
            kept.scored, kept.weighed = shortlists.scored, kinships.weighed
            kept.moved |= shortlists.moved or kinships.now != weighed
            kept.kinships = kinships.now
            kept.keep_answer(question, found)
            return found
        except (_Stale, KeyError, ValueError, TypeError, EOFError, IndexError):
            if attempt:
                raise
    return None
