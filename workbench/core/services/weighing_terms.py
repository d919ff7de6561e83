"""What a decision's profile takes from its text, kept for the weighing (`weighing.Kept`), so that
a pair weighed again after a change reads no text and counts no words.

A change to a decision copied from a common template weighs a few hundred pairs again, each with
both decisions' profiles (`similarity.kinship`: their term counts for the texts' likeness, what
their texts cite, their shared words as written): profiling each from its text was most of the
call (0.44 s of 1.1 s at 10,000 decision records, its text read from the store and its words
counted). Here each decision's term counts, what its text cites and its terms as written where
they differ from the term (`similarity.written_forms`) are kept in rows chosen by a CRC of its
id, about one decision to a row (`TERMS_A_ROW`), with the digest of the bytes and the path they
were worked out from (`source`): a pair's two decisions read their rows, and only a changed
decision's are written. A row gone or damaged, or an entry of other bytes, is worked out from
the text again (and kept), never read as kept.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable
from typing import Any

from .weighing_rows import Buckets, rows_for
from ..views.similarity import Profile, written_forms

__all__ = ["TERMS_A_ROW", "KeptTerms"]

TERMS_A_ROW = 1  # decisions to a row, about: a pair weighed reads its two decisions' alone


class _Rows(Buckets):
    """`Buckets` where a row gone or damaged holds nothing (made again when next kept): its
    decisions are profiled from their texts, not the whole weighing worked out again."""

    def _read(self, ats: Iterable[int]) -> None:
        wanted = [at for at in ats if at not in self.parts]
        self.rows.fetch(self.keys[at] for at in wanted if self.keys[at])  # in one query
        for at in wanted:
            try:
                super()._read((at,))
            except (KeyError, ValueError):
                self.parts[at] = {}
                self.changed.add(at)


class KeptTerms:
    """Each decision's `Profile.terms`, `Profile.cited` and `Profile.forms`, by id, with the
    `source` (`weighing._source`) they were worked out from."""

    def __init__(self, rows: Any, keys: list[str], decisions: int):
        """`keys`: the rows as `keep` named them ([] where made anew for this many `decisions`)."""
        self.rows = _Rows(rows, keys, rows_for(decisions, TERMS_A_ROW))

    def read(self, doc_ids: Iterable[str]) -> None:
        """Read these decisions' rows, those not read yet, in one query."""
        self.rows.read(doc_ids)

    def get(self, doc_id: str, source: str) -> tuple[Counter, frozenset[str], dict[str, str]] | None:
        """What `Profile.of` takes from the text of the decision `doc_id` with this `source`, as
        kept; None where nothing is kept of those bytes."""
        found = self.rows.get(doc_id)
        try:
            kept_source, joined, counted, cited, forms = found
            if kept_source != source or type(joined) is not str or type(cited) is not list or type(forms) is not dict:
                return None
            counts = array("i")
            counts.frombytes(counted)
            names = joined.split(" ") if joined else []
            if len(names) != len(counts):
                return None
        except (TypeError, ValueError):
            return None
        terms: Counter = Counter()
        dict.update(terms, zip(names, counts))  # in the order counted: sums over them add alike
        return terms, frozenset(cited), forms

    def put(self, doc_id: str, source: str, profile: Profile) -> None:
        """Keep what `profile` (made from the text of `doc_id` with this `source`) took from it."""
        terms = profile.terms
        counted = array("i", terms.values()).tobytes()
        self.rows.set(doc_id, (source, " ".join(terms), counted, sorted(profile.cited), written_forms(profile)))

    def drop(self, doc_id: str) -> None:
        self.rows.pop(doc_id)

    def keep(self) -> list[str]:
        """The keys naming the rows as they are now, those changed made again."""
        return self.rows.keep()
