"""Each superseded record's likeliest successors by BM25, kept between calls and followed after a
change: the same ranking as scoring every decision again, to the last bit.

`views.successors` ranks, for each decision superseded without a named successor, every live
decision not older by its BM25 score for the record's query terms, and weighs the `SHORTLIST`
best. Scoring every decision again for each such record took a third of the structural checks after
one decision changed (18 records, 10,000 decision records: 0.37 s of 1.22 s under a profiler),
though a change moves only the scores of the decisions it touches, and the others' only through the
words' rarities and the average length. So each record keeps its query terms with their rarities,
the average length, every decision that may replace it scoring at or above its `DEPTH`th best
(equals included) with its counts of those terms and its length, those that may replace it that
it names or that name it, and a bound: the best score of those not kept.
After a change only the kept and the changed decisions are scored (each term's share worked out
and added as the full count does), and the bound is raised by the most a term's rarity rose and
the most the new average length adds to any score. Where `SHORTLIST` of those that may replace it
stand above the bound, no other can come among them; else, or where the record's own text changed,
or its query terms are others now, it is scored against every decision again. A decision kept
that did not change since may still replace the record (its date and status are as they were),
so only those that changed are read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..views.similarity import Bm25
from ..views.successors import SHORTLIST, Kinships, Ranking, later_than, may_have_replaced, ranking_of

__all__ = ["DEPTH", "KeptKinships", "KeptShortlists"]

DEPTH = 2 * SHORTLIST  # kept for each record: most changes leave `SHORTLIST` of them above the bound
SLACK = 1e-9  # the bound raised by so much more, for the last bits of sums added in another order


class KeptShortlists:
    """The `views.successors.ranking` of each record asked, from what was kept for it (`kept`:
    {record: its shortlist}, made up to date as each is asked): `touched`, the decisions profiled
    since (their term counts), None where everything was counted again; `removed`, those gone;
    `unsettled`, the records asked whose words' rarities may have moved (None: any)."""

    def __init__(
        self,
        kept: dict[str, tuple],
        reading: Any,
        touched: Mapping[str, Mapping[str, int]] | None,
        removed: set[str],
        dismissed: frozenset,
        unsettled: set[str] | None = None,
    ):
        self.kept, self.reading, self.dismissed = kept, reading, dismissed
        self.touched, self.removed, self.unsettled = touched, removed, unsettled
        self.at = dict(zip(reading.live, range(len(reading.live))))  # no call for each of 10,000
        self.scored = 0  # decisions scored by BM25 in this call, over every record asked
        self.moved = False  # a shortlist made or changed: to be kept again

    def forget_others(self, asked: list[str]) -> None:
        """The shortlists of records no longer asked dropped."""
        for old_id in set(self.kept) - set(asked):
            del self.kept[old_id]
            self.moved = True

    def ranked(self, old_id: str) -> Ranking:
        """`ranking(reading, old_id, dismissed)`, from the kept shortlist where it holds."""
        state = self.kept.get(old_id)
        touched = self.touched
        if state is None or touched is None or old_id in touched:
            return self._counted(old_id)
        found = self._followed(old_id, state, touched)
        return found if found is not None else self._counted(old_id)

    # -- scored against every decision ---------------------------------------------------

    def _counted(self, old_id: str) -> Ranking:
        reading = self.reading
        mine = reading.profile(old_id)
        eligible = later_than(reading, old_id)
        found = reading.scores(mine.terms)
        self.scored += len(found)
        ranked = sorted((found[doc_id] for doc_id in eligible if doc_id in found), reverse=True)
        bound = None
        if len(ranked) > DEPTH:
            least = ranked[DEPTH - 1]
            bound = next((score for score in ranked[DEPTH:] if score < least), None)
            kept = [doc_id for doc_id in eligible if doc_id in found and found[doc_id] >= least]
        else:
            kept = [doc_id for doc_id in eligible if doc_id in found]
        may = self._eligible(old_id)
        cites = {doc_id for doc_id in reading.citing(mine) if may(doc_id)}
        asked = reading.bm25.query_terms(mine.terms, Bm25.QUERY_TERMS)
        reading.prefetch(kept)
        members = {doc_id: [reading.profile(doc_id).terms.get(term, 0) for term in asked] for doc_id in kept}
        lengths = {doc_id: reading.length(doc_id) for doc_id in kept}
        self._keep(old_id, asked, bound, members, cites, lengths)
        later = [doc_id for doc_id in eligible if frozenset((old_id, doc_id)) not in self.dismissed]
        return ranking_of(found, later, [doc_id for doc_id in later if doc_id in cites])

    def _keep(
        self, old_id: str, asked: list[str], bound: float | None, members: dict, cites: set[str], lengths: dict
    ) -> None:
        reading = self.reading
        rarities = [reading.bm25.idf(term) for term in asked]
        self.kept[old_id] = (asked, rarities, reading.average, bound, members, sorted(cites), lengths)
        self.moved = True

    # -- followed ------------------------------------------------------------------------

    def _followed(self, old_id: str, state: tuple, touched: Mapping[str, Mapping[str, int]]) -> Ranking | None:
        """The ranking from the kept shortlist brought in line with the change; None where it
        cannot tell (every decision is scored then)."""
        asked, rarities, average, bound, members, cites, lengths = state
        reading, removed, unsettled = self.reading, self.removed, self.unsettled
        bm25 = reading.bm25
        # The query terms are the record's most distinctive: others only where its words or their
        # rarities moved (its profile is read then alone).
        if unsettled is None or old_id in unsettled:
            if bm25.query_terms(reading.profile(old_id).terms, Bm25.QUERY_TERMS) != asked:
                return None
        moved = bool(touched or removed)
        if moved:
            if bound is not None:
                rise = max((bm25.idf(term) / rarity for term, rarity in zip(asked, rarities)), default=1.0)
                bound *= max(rise, 1.0) * max(reading.average / average, 1.0) * (1 + SLACK)
            # The members (and their lengths) made anew only where they change: kept as they were
            # read, they are not written again.
            gone = touched.keys() | removed
            if not gone.isdisjoint(members):
                members = {doc_id: counts for doc_id, counts in members.items() if doc_id not in gone}
                lengths = {doc_id: length for doc_id, length in lengths.items() if doc_id not in gone}
            eligible = self._eligible(old_id)
            added = {}
            for doc_id, terms in touched.items():
                counts = [terms.get(term, 0) for term in asked]
                if any(counts) and eligible(doc_id):
                    added[doc_id] = counts
            if added:
                members = {**members, **added}
                lengths = {**lengths, **{doc_id: sum(touched[doc_id].values()) for doc_id in added}}
            cites = {doc_id for doc_id in cites if doc_id not in gone}
            cites.update(doc_id for doc_id in touched if eligible(doc_id) and reading.names(doc_id, old_id))
        self.scored += len(members)
        weights = [bm25.idf(term) for term in asked]
        score = bm25.score_of
        scores = {doc_id: score(weights, counts, lengths[doc_id]) for doc_id, counts in members.items()}
        later = self._later(old_id, scores)
        if bound is not None and sum(scores[doc_id] > bound for doc_id in later) < SHORTLIST:
            return None
        cited = self._later(old_id, cites)
        missing = [doc_id for doc_id in cited if doc_id not in scores]
        reading.prefetch(missing)
        found = dict(scores)
        for doc_id in missing:
            terms = reading.profile(doc_id).terms
            counts = [terms.get(term, 0) for term in asked]
            if any(counts):
                found[doc_id] = score(weights, counts, reading.length(doc_id))
        if moved:
            if bound is not None and any(scores[doc_id] <= bound for doc_id in members):
                members = {doc_id: counts for doc_id, counts in members.items() if scores[doc_id] > bound}
                lengths = {doc_id: lengths[doc_id] for doc_id in members}
            self._keep(old_id, asked, bound, members, cites, lengths)
        return ranking_of(found, later, cited)

    def _eligible(self, old_id: str):
        """Whether a decision may have replaced `old_id`: live, and as `later_than` says."""
        at, may = self.at, may_have_replaced(self.reading, old_id)
        return lambda doc_id: doc_id in at and may(doc_id)

    def _later(self, old_id: str, doc_ids: Any) -> list[str]:
        """Those of `doc_ids` (kept, or found eligible as they changed: each may have replaced
        `old_id`) still live and not dismissed, in `live`'s order."""
        at, dismissed = self.at, self.dismissed
        found = [d for d in doc_ids if d in at and frozenset((old_id, d)) not in dismissed]
        return sorted(found, key=at.__getitem__)


class KeptKinships(Kinships):
    """`views.successors.Kinships` from the pairs weighed in an earlier call (`kept`: {record:
    {decision: (kinship score, named, reasons or None)}}) where neither record's kinship may have
    moved since (`unsettled`: those whose may have; None, every one's), and its reasons too where
    `reasons_hold` (no link became more or less rare); the pairs weighed in this call, and those
    read, are what to keep (`now`).

    A pair's kinship reads the two profiles, the number of decisions, the opening their titles
    share and the rarity of each word either holds (their texts' lengths weighed by rarity): with
    none of those moved, weighing it again gives the same float. A title outside ASCII is
    compared by words its text may not hold (`title_words`): such a pair is weighed each time."""

    def __init__(self, kept: dict[str, dict[str, tuple]], reading: Any, unsettled: set[str] | None, reasons_hold: bool):
        super().__init__(reading)
        self.kept, self.unsettled, self.reasons_hold = kept, unsettled, reasons_hold
        self.now: dict[str, dict[str, tuple]] = {}
        self.weighed = 0  # pairs weighed in this call

    def _held(self, old_id: str, doc_id: str) -> tuple | None:
        unsettled, title = self.unsettled, self.decisions.title
        if unsettled is None or old_id in unsettled or doc_id in unsettled:
            return None
        held = self.kept.get(old_id, {}).get(doc_id)
        return held if held is not None and title(old_id).isascii() and title(doc_id).isascii() else None

    def prefetch(self, old_id: str, doc_ids: list[str]) -> None:
        super().prefetch(old_id, [doc_id for doc_id in doc_ids if self._held(old_id, doc_id) is None])

    def weigh(self, old_id: str, doc_id: str) -> tuple[float, bool]:
        held = self._held(old_id, doc_id)
        if held is None:
            held = (*super().weigh(old_id, doc_id), None)
            self.weighed += 1
        elif not self.reasons_hold:
            held = (held[0], held[1], None)
        self.now.setdefault(old_id, {})[doc_id] = held
        return held[0], held[1]

    def reasons(self, old_id: str, doc_id: str) -> list[str]:
        score, named, reasons = self.now[old_id][doc_id]  # weighed first (`likeliest_of`)
        if reasons is None:
            reasons = super().reasons(old_id, doc_id)
            self.now[old_id][doc_id] = (score, named, reasons)
        return list(reasons)
