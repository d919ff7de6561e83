"""The likeliest successors of a decision that says it was superseded but names no successor.

Such a record is certain to have been replaced (its status says so), so the question is not
whether a pair stands out among all the vault's pairs, as the conflicts queue asks, but which live
decision replaced it. Every active or draft decision not older than it is weighed as the queue
weighs a pair (citations, subject, texts, and how alike by BM25 relative to its best match), and
above all a later record the superseded one names in its own text; the few best are offered, each with its reasons in the records' own words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..vocabulary.model import DocType, Document, Status
from .similarity import Profile, bm25_of, corpus_of, kinship, profiles_of

__all__ = [
    "LIVE",
    "SHORTLIST",
    "Decisions",
    "Kinships",
    "Ranking",
    "Successor",
    "later_than",
    "may_have_replaced",
    "likeliest_among",
    "likeliest_of",
    "likeliest_successors",
    "ranking",
    "ranking_of",
]

BM25_WEIGHT = 0.5  # as the conflicts queue weighs BM25 beside kinship (`conflicts.DEFAULT`)
# A superseded record that names a later one ("this feature was removed in ADR-63") has most likely
# named its successor in words: that comes before any likeness of texts (kinship and BM25 add to at
# most 1.5, and a record alike in every way is more often a sibling than the replacement).
NAMED_WEIGHT = 1.0
SHORTLIST = 30
LIVE = (Status.ACTIVE, Status.DRAFT)  # the statuses of a decision that may replace another


@dataclass(frozen=True)
class Successor:
    id: str
    title: str
    score: float
    why: str  # the reasons, in the records' own words


class Decisions:
    """What the pass reads of every decision, asked through one face so that a caller keeping it
    between calls (`services.kept_successors`) answers with the same code as one profiling every
    decision here: each live decision's `when`, `handles` and `mentions`, a decision's profile
    (`profile`, asked of the few weighed), BM25 `scores` and the word rarities (`corpus`)."""

    def __init__(self, documents: Iterable[Document]):
        self.docs = {d.id: d for d in documents}
        decisions = [d for d in self.docs.values() if d.type == DocType.DECISION]
        self.profiles = profiles_of(decisions)
        self.live = [d.id for d in decisions if d.status in LIVE]
        self.bm25, self.corpus = bm25_of(self.profiles.values()), corpus_of(self.profiles.values())

    def has(self, doc_id: str) -> bool:
        return doc_id in self.profiles

    def profile(self, doc_id: str) -> Profile:
        return self.profiles[doc_id]

    def prefetch(self, doc_ids: Iterable[str]) -> None:
        """The profiles about to be asked (`profile`): here, every one is at hand."""

    def when(self, doc_id: str) -> tuple:
        return self.profiles[doc_id].when

    def cited(self, doc_ids: list[str], mine: Profile) -> list[str]:
        """Those of `doc_ids` that `mine` names or that name it (its handles)."""
        profiles = self.profiles
        return [d for d in doc_ids if mine.mentions & profiles[d].handles or profiles[d].mentions & mine.handles]

    def scores(self, terms: Counter) -> dict[str, float]:
        return self.bm25.scores(terms)

    def title(self, doc_id: str) -> str:
        return self.docs[doc_id].title


def likeliest_successors(
    documents: Iterable[Document], old_ids: Iterable[str], most: int = 3, dismissed: frozenset = frozenset()
) -> dict[str, list[Successor]]:
    """For each of `old_ids`, the `most` live decisions likeliest to have replaced it, best first
    (none for one that is not a decision, or that no live decision shares a word with); a pair in
    `dismissed` (a person said the one did not replace the other) is never offered."""
    return likeliest_among(Decisions(documents), old_ids, most, dismissed)


def likeliest_among(
    decisions: Any,
    old_ids: Iterable[str],
    most: int = 3,
    dismissed: frozenset = frozenset(),
    ranked: Any = None,
    kinships: Any = None,
) -> dict[str, list[Successor]]:
    """`likeliest_successors`, read through `decisions` (a `Decisions`, or one that answers as it
    does); `ranked(old_id)`, where given, answers as `ranking(decisions, old_id, dismissed)`, and
    `kinships` as `Kinships(decisions)` (ones that kept each record's best and their weighing
    between calls: `services.kept_shortlists`)."""
    found: dict[str, list[Successor]] = {}
    kin = kinships if kinships is not None else Kinships(decisions)
    for old_id in old_ids:
        if decisions.has(old_id):
            ranks = ranked(old_id) if ranked is not None else ranking(decisions, old_id, dismissed)
            found[old_id] = likeliest_of(decisions, old_id, ranks, most, kin)
    return found


@dataclass(frozen=True)
class Ranking:
    """What BM25 and the citations make of the decisions that may have replaced one: the
    `SHORTLIST` most alike, best first (equals in `decisions.live`'s order), the cited, the best
    score, and the scores of those (at least) that are weighed."""

    alike: list[str]
    cited: list[str]
    top: float
    scores: dict[str, float]


def may_have_replaced(decisions: Any, old_id: str) -> Callable[[str], bool]:
    """Whether a decision may have replaced `old_id`: not it, and not older."""
    mine_when, when = decisions.when(old_id), decisions.when
    return lambda doc_id: doc_id != old_id and not when(doc_id) < mine_when


def later_than(decisions: Any, old_id: str) -> list[str]:
    """The live decisions that may have replaced `old_id`, in `decisions.live`'s order (a pair
    dismissed left in)."""
    may = may_have_replaced(decisions, old_id)
    return [doc_id for doc_id in decisions.live if may(doc_id)]


def ranking(decisions: Any, old_id: str, dismissed: frozenset = frozenset()) -> Ranking:
    """The ranking of every decision that may have replaced `old_id` by BM25 and citations."""
    mine = decisions.profile(old_id)
    later = [d for d in later_than(decisions, old_id) if frozenset((old_id, d)) not in dismissed]
    return ranking_of(decisions.scores(mine.terms), later, decisions.cited(later, mine))


def ranking_of(found: dict[str, float], later: list[str], cited: list[str]) -> Ranking:
    """The `Ranking` of `later` (in `decisions.live`'s order) by their BM25 scores `found`: given
    every decision scoring above the rest, the same as given all."""
    top = max((found.get(doc_id, 0.0) for doc_id in later), default=0.0)
    # Kinship is weighed for the most alike by BM25 and those either record names: a few dozen,
    # whatever the vault's size.
    alike = sorted((doc_id for doc_id in later if doc_id in found), key=lambda d: -found[d])[:SHORTLIST]
    return Ranking(alike, cited, top, found)


class Kinships:
    """How `likeliest_of` weighs a record asked with each decision on its shortlist, asked through one
    face so that a caller keeping the weighing between calls (`services.kept_shortlists`) answers
    with the same code as one weighing every pair here."""

    def __init__(self, decisions: Any):
        self.decisions = decisions

    def prefetch(self, old_id: str, doc_ids: list[str]) -> None:
        """The pairs about to be weighed (`weigh`): their profiles read together."""
        self.decisions.prefetch(doc_ids)

    def weigh(self, old_id: str, doc_id: str) -> tuple[float, bool]:
        """(The pair's kinship score, whether the record names the decision)."""
        decisions = self.decisions
        mine, other = decisions.profile(old_id), decisions.profile(doc_id)
        return kinship(other, mine, decisions.corpus, explain=False).score, bool(mine.mentions & other.handles)

    def reasons(self, old_id: str, doc_id: str) -> list[str]:
        """The pair's kinship reasons, in the records' own words (the record's text quoted)."""
        decisions = self.decisions
        return kinship(decisions.profile(doc_id), decisions.profile(old_id), decisions.corpus).reasons


def likeliest_of(decisions: Any, old_id: str, ranks: Ranking, most: int, kinships: Any = None) -> list[Successor]:
    """The `most` likeliest of `ranks`' shortlist, weighed as the queue weighs a pair (each pair
    as `kinships` weighs it: `Kinships(decisions)` where not given). Not `Weighing.weighed`, the
    decision pairs the queue weighs: these are one record's successors, best first."""
    kin = kinships if kinships is not None else Kinships(decisions)
    found, top = ranks.scores, ranks.top
    rows = []
    shortlist = list(dict.fromkeys(ranks.alike + ranks.cited))
    kin.prefetch(old_id, shortlist)
    for doc_id in shortlist:
        alike = found.get(doc_id, 0.0) / top if top else 0.0
        like, named = kin.weigh(old_id, doc_id)
        rows.append((like + BM25_WEIGHT * alike + NAMED_WEIGHT * named, doc_id, alike, named))
    rows.sort(key=lambda item: (-item[0], item[1]))
    chosen = []
    for score, doc_id, alike, named in rows[:most]:
        reasons = [f"“{decisions.title(old_id)}” names it"] if named else []
        reasons += kin.reasons(old_id, doc_id) or [
            f"its text is among the most alike ({round(alike * 100)}% of the best)"
        ]
        chosen.append(Successor(doc_id, decisions.title(doc_id), score, "; ".join(reasons)))
    return chosen
