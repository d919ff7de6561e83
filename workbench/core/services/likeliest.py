"""The few decisions scoring highest for a query over the kept postings, found without working out
the share of every posting the query's terms hold, and ranked exactly as a full count ranks them.

A decision's query is its 40 most distinctive terms, and a decision of common words asks terms
held by thousands of others: scored term at a time, one query worked out 25,000 shares (0.05 s),
and a change to such a decision has its neighbours' most alike found again (19 queries, 0.9 s at
10,000 decision records). Few of those postings matter (MaxScore, Turtle and Flood 1995): a
score is the sum of its terms' shares, and no share of a term is above its bound
(`Posting.bound`: the share of the term's greatest count in a decision of the least length). The
terms are read whole the greatest bound first (the rare terms, of short postings), and after each
the `most` decisions of the best partial scores are scored in full: the `most`-th best full
score is the bar. Once the bounds of the terms left add up to less than the bar, a decision none
of the terms read holds cannot reach it, and no more are read whole. Each decision met then has
its bound (its partial score and the bounds of the terms left); they are taken the greatest bound
first, each asking the terms left for its count (a dictionary of each posting, made once), until
its bound falls under the bar or it is scored in full; none is asked once the next bound is under
the bar. What is left to pay: the postings of the terms read whole (the rare ones, until the
bounds of the rest fall under the bar), and the decisions near the bar scored in full (all the
copies of a decision tying the bar among them): 1,400-1,900 shares a query at 10,000 decision
records, against 3,000-25,000.

What this gives is what scoring every posting gives, bit for bit: each decision's score adds its
shares in the query's order, as `similarity.Bm25` adds them, and the ranking puts the greater id
first among equals. A decision is left out only where its bound, raised by `SLACK` (a part in a
billion), is still under the bar: a share and a sum of shares are each within a few units in the
last place of their exact value, far less, so a decision tying the `most`-th best is never left
out.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Callable, Mapping

__all__ = ["SLACK", "Posting", "likeliest"]

SLACK = 1 + 1e-9
"""How far above a bound a score must be for the bound to leave a decision out."""


class Posting:
    """One term's postings as they are now: the kept rows and counts (`rows`, `counts`: those of
    a row in `overlay` are as they were, and read there instead), and the `overlay`'s rows
    holding the term (`fresh`). `bound`: no share of the term in any decision is above it."""

    __slots__ = ("term", "rows", "counts", "overlay", "fresh", "bound", "_counts")

    def __init__(self, term: str, kept: bytes | None, overlay: Mapping[int, Mapping[str, int]]):
        found = array("i")
        if kept is not None:
            found.frombytes(kept)
        self.term, self.rows, self.counts, self.overlay = term, found[0::2], found[1::2], overlay
        self.fresh = [(row, count) for row, counts in overlay.items() if (count := counts.get(term))]
        self.bound = 0.0
        self._counts: dict[int, int] | None = None

    def greatest(self) -> int:
        """The greatest count of the term in a decision (0 for none)."""
        return max(max(self.counts, default=0), max((count for _, count in self.fresh), default=0))

    def count(self, row: int) -> int:
        """The term's count in a row (0 where it holds none): its postings read once whole."""
        held = self.overlay.get(row)
        if held is not None:
            return held.get(self.term, 0)
        if self._counts is None:
            self._counts = dict(zip(self.rows, self.counts))
        return self._counts.get(row, 0)


def likeliest(
    postings: list[Posting],
    most: int,
    share: Callable[[int, Posting, int], float],
    name: Callable[[int], str],
    other_than: int = -1,
) -> list[tuple[float, str]]:
    """The `most` rows of highest score for a query asking the terms of `postings` in their
    order, as (score, `name(row)`), best first (the greater name first among equals), none of
    score 0, the row `other_than` left out. `share(row, posting, count)`: the share of a row
    holding `count` of the term."""
    if most <= 0:
        return []
    order = sorted(range(len(postings)), key=lambda at: -postings[at].bound)
    rest = [0.0] * (len(order) + 1)  # rest[n]: the bounds of the terms from order[n] on, added up
    for n in range(len(order) - 1, -1, -1):
        rest[n] = rest[n + 1] + postings[order[n]].bound
    partial: dict[int, float] = {}  # each row's shares of the terms read, added up
    best = _Best(postings, most, share, name)
    read = 0
    for at in order:
        if rest[read] * SLACK < best.least():
            break  # a row held by none of the terms read cannot outscore the `most` best scored
        posting = postings[at]
        skipped = posting.overlay.keys() | {other_than}  # as they were, and the one left out
        for row, count in zip(posting.rows, posting.counts):
            if row not in skipped:
                partial[row] = partial.get(row, 0.0) + share(row, posting, count)
        for row, count in posting.fresh:
            if row != other_than:
                partial[row] = partial.get(row, 0.0) + share(row, posting, count)
        read += 1
        for row in heapq.nlargest(most, partial, key=partial.__getitem__):
            best.score(row)  # the likeliest so far scored in full: the bar rises early
    unread = order[read:]
    left = rest[read]
    for upper, row in sorted(((score + left, row) for row, score in partial.items()), reverse=True):
        if upper * SLACK < best.least():
            break  # nor can any after it
        score = partial[row]
        for n, at in enumerate(unread, read + 1):
            posting = postings[at]
            count = posting.count(row)
            if count:
                score += share(row, posting, count)
            if (score + rest[n]) * SLACK < best.least():
                break  # the terms left cannot lift it among the best
        else:
            best.score(row)
    return sorted(best.found, reverse=True)


class _Best:
    """The `most` best rows scored in full, the least first (a heap)."""

    def __init__(
        self,
        postings: list[Posting],
        most: int,
        share: Callable[[int, Posting, int], float],
        name: Callable[[int], str],
    ):
        self.postings, self.most, self.share, self.name = postings, most, share, name
        self.found: list[tuple[float, str]] = []
        self.scored: set[int] = set()

    def least(self) -> float:
        """The least score a row must reach to be among them (0 while fewer are met)."""
        return self.found[0][0] if len(self.found) >= self.most else 0.0

    def score(self, row: int) -> None:
        """Score a row in full, its shares added in the query's order, and keep it if among the best."""
        if row in self.scored:
            return
        self.scored.add(row)
        total = 0.0
        share = self.share
        for posting in self.postings:
            count = posting.count(row)
            if count:
                total += share(row, posting, count)
        if total:
            entry = (total, self.name(row))
            if len(self.found) < self.most:
                heapq.heappush(self.found, entry)
            elif entry > self.found[0]:
                heapq.heapreplace(self.found, entry)
