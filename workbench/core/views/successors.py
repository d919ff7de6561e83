"""The likeliest successors of a decision that says it was superseded but names no successor.

Such a record is certain to have been replaced (its status says so), so the question is not
whether a pair stands out among all the vault's pairs, as the conflicts queue asks, but which live
decision replaced it. Every active or draft decision not older than it is weighed as the queue
weighs a pair (citations, subject, texts, and how alike by BM25 relative to its best match), and
above all a later record the superseded one names in its own text; the few best are offered, each with its reasons in the records' own words.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..vocabulary.model import DocType, Document, Status
from .similarity import bm25_of, corpus_of, kinship, profiles_of

__all__ = ["Successor", "likeliest_successors"]

BM25_WEIGHT = 0.5  # as the conflicts queue weighs BM25 beside kinship (`conflicts.DEFAULT`)
# A superseded record that names a later one ("this feature was removed in ADR-63") has most likely
# named its successor in words: that comes before any likeness of texts (kinship and BM25 add to at
# most 1.5, and a record alike in every way is more often a sibling than the replacement).
NAMED_WEIGHT = 1.0
SHORTLIST = 30


@dataclass(frozen=True)
class Successor:
    id: str
    title: str
    score: float
    why: str  # the reasons, in the records' own words


def likeliest_successors(
    documents: Iterable[Document], old_ids: Iterable[str], most: int = 3, dismissed: frozenset = frozenset()
) -> dict[str, list[Successor]]:
    """For each of `old_ids`, the `most` live decisions likeliest to have replaced it, best first
    (none for one that is not a decision, or that no live decision shares a word with); a pair in
    `dismissed` (a person said the one did not replace the other) is never offered."""
    docs = {d.id: d for d in documents}
    decisions = [d for d in docs.values() if d.type == DocType.DECISION]
    profiles = profiles_of(decisions)
    live = [d.id for d in decisions if d.status in (Status.ACTIVE, Status.DRAFT)]
    bm25, corpus = bm25_of(profiles.values()), corpus_of(profiles.values())
    found: dict[str, list[Successor]] = {}
    for old_id in old_ids:
        if old_id in profiles:
            found[old_id] = _likeliest(docs, profiles, live, bm25, corpus, old_id, most, dismissed)
    return found


def _likeliest(docs, profiles, live, bm25, corpus, old_id: str, most: int, dismissed: frozenset) -> list[Successor]:
    mine = profiles[old_id]
    later = [
        doc_id
        for doc_id in live
        if doc_id != old_id and not profiles[doc_id].when < mine.when and frozenset((old_id, doc_id)) not in dismissed
    ]
    found = bm25.scores(mine.terms)
    top = max((found.get(doc_id, 0.0) for doc_id in later), default=0.0)
    # Kinship is weighed for the most alike by BM25 and those either record names: a few dozen,
    # whatever the vault's size.
    alike_first = sorted((doc_id for doc_id in later if doc_id in found), key=lambda d: -found[d])[:SHORTLIST]
    cited = [d for d in later if mine.mentions & profiles[d].handles or profiles[d].mentions & mine.handles]
    weighed = []
    for doc_id in dict.fromkeys(alike_first + cited):
        alike = found.get(doc_id, 0.0) / top if top else 0.0
        like = kinship(profiles[doc_id], mine, corpus, explain=False)
        named = bool(mine.mentions & profiles[doc_id].handles)
        weighed.append((like.score + BM25_WEIGHT * alike + NAMED_WEIGHT * named, doc_id, alike, named))
    weighed.sort(key=lambda item: (-item[0], item[1]))
    chosen = []
    for score, doc_id, alike, named in weighed[:most]:
        reasons = [f"“{docs[old_id].title}” names it"] if named else []
        reasons += kinship(profiles[doc_id], mine, corpus).reasons or [
            f"its text is among the most alike ({round(alike * 100)}% of the best)"
        ]
        chosen.append(Successor(doc_id, docs[doc_id].title, score, "; ".join(reasons)))
    return chosen
