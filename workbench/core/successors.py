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

from .model import DocType, Document, Status
from .similarity import bm25_of, corpus_of, kinship, profiles_of

__all__ = ["Successor", "likeliest_successors"]

BM25_WEIGHT = 0.5  # as the conflicts queue weighs BM25 beside kinship (`conflicts.DEFAULT`)
# A superseded record that names a later one ("this feature was removed in ADR-63") has most likely
# named its successor in words: that comes before any likeness of texts (kinship and BM25 add to at
# most 1.5, and a record alike in every way is more often a sibling than the replacement).
NAMED_WEIGHT = 1.0


@dataclass(frozen=True)
class Successor:
    id: str
    title: str
    score: float
    why: str  # the reasons, in the records' own words


def likeliest_successors(documents: Iterable[Document], old_id: str, most: int = 3) -> list[Successor]:
    """The `most` live decisions likeliest to have replaced `old_id`, best first; none when it is
    not a decision or no live decision shares a word with it."""
    docs = {d.id: d for d in documents}
    old = docs.get(old_id)
    if old is None or old.type != DocType.DECISION:
        return []
    decisions = [d for d in docs.values() if d.type == DocType.DECISION]
    profiles = profiles_of(decisions)
    mine = profiles[old_id]
    live = [
        d.id
        for d in decisions
        if d.id != old_id and d.status in (Status.ACTIVE, Status.DRAFT) and not profiles[d.id].when < mine.when
    ]
    bm25 = bm25_of(profiles.values())
    found = bm25.scores(mine.terms)
    top = max((found.get(doc_id, 0.0) for doc_id in live), default=0.0)
    corpus = corpus_of(profiles.values())
    weighed = []
    for doc_id in live:
        alike = found.get(doc_id, 0.0) / top if top else 0.0
        like = kinship(profiles[doc_id], mine, corpus, explain=False)
        named = bool(mine.mentions & profiles[doc_id].handles)
        if alike or like.reasons or named:
            weighed.append((like.score + BM25_WEIGHT * alike + NAMED_WEIGHT * named, doc_id, alike, named))
    weighed.sort(key=lambda item: (-item[0], item[1]))
    chosen = []
    for score, doc_id, alike, named in weighed[:most]:
        reasons = [f"“{old.title}” names it"] if named else []
        reasons += kinship(profiles[doc_id], mine, corpus).reasons or [
            f"its text is among the most alike ({round(alike * 100)}% of the best)"
        ]
        chosen.append(Successor(doc_id, docs[doc_id].title, score, "; ".join(reasons)))
    return chosen
