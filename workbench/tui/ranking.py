"""Live search over titles and ids: fuzzy, best match first, active documents before the rest.

Active documents come first because the contract's retrieval policy prefers them, but only among
matches of about the same strength, so a weak active match never buries an exact archived one. Pure functions over `Document`s, so a worker thread can run them while the
person keeps typing.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import fuzz, process, utils

from ..core.model import Document, Status

__all__ = ["SCORE_CUTOFF", "rank"]

SCORE_CUTOFF = 75
"""Weaker matches than this (out of 100) are noise; one typo in a short word still scores about 80."""


def _order(doc: Document) -> tuple[bool, str, str]:
    return (doc.status != Status.ACTIVE, doc.title.casefold(), doc.id)


def _scores(query: str, choices: list[str]) -> dict[int, float]:
    """Best of a substring match (typos tolerated) and a word-set match (any word order), per choice."""
    best: dict[int, float] = {}
    for scorer in (fuzz.partial_ratio, fuzz.token_set_ratio):
        for _, score, index in process.extract(
            query, choices, scorer=scorer, processor=utils.default_process, score_cutoff=SCORE_CUTOFF, limit=None
        ):
            best[index] = max(score, best.get(index, 0.0))
    return best


def rank(documents: Sequence[Document], query: str, limit: int | None = None) -> list[Document]:
    """The documents matching `query`, best first; every document (active first) when it is blank.

    Matches are compared in bands of ten points: within a band an active document beats a better
    scoring archived one, but an exact match is never buried under active near-misses.
    """
    query = query.strip()
    if not query:
        return sorted(documents, key=_order)[:limit]
    scores = _scores(query, [f"{doc.title} {doc.id}" for doc in documents])
    folded = query.casefold()

    def key(index: int) -> tuple:
        doc = documents[index]
        inactive, title, doc_id = _order(doc)
        return (-(scores[index] // 10), inactive, -scores[index], not title.startswith(folded), title, doc_id)

    return [documents[index] for index in sorted(scores, key=key)][:limit]
