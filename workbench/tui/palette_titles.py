"""Which of a vault's palette texts (`Open: <title>`) the palette scores for a query: at most
`RANK_MOST`, the likeliest best first, found a block of texts at a time by regular expressions.

Textual's matcher (`textual.fuzzy.FuzzySearch`) works out every way a query's letters could fall
in a text: at 100,000 documents, where most titles hold a short word's letters in order, scoring
every such title took half a second of CPU a key (some nine seconds before the palette listed a
title's first word). Its scores order three kinds: a text holding the query whole where it first
holds it at a word's start, all alike; then one holding it whole first elsewhere, all alike; then
one holding only its letters in order, scored by how many fall at words' starts and in how few
runs (always below the other two kinds). So the texts are kept lowered and joined, and the kinds
are looked for in turn, each in the vault's order, until `RANK_MOST` are found; the matcher scores
those alone. The best `most` are then those the matcher ranks first over every text, ties in the
vault's order, whenever at least `most` texts hold the query whole or no more than `RANK_MOST`
hold its letters in order (a small vault: every one is scored, as before); but a text that is the
query itself (`open: …` typed to its end), which the matcher doubles, is missed past the first
`RANK_MOST` holding it. Otherwise (a few letters held whole nowhere), texts whose words start with
the query's letters come first, then the rest in order: the best score is found, the page may
differ from the full ranking's among its lower scores.
"""

from __future__ import annotations

import os
import re
import threading
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from functools import cached_property

__all__ = ["BLOCK", "RANK_MOST", "PaletteTitles"]

RANK_MOST = 400
"""The most texts the matcher scores for one query (some tens of milliseconds)."""

BLOCK = 2048
"""Texts joined into one block: one search of a block is a short call, and a search the next key
superseded stops between two."""

_WORD = re.compile(r"\w")
"""A letter of a word, as the matcher's `\\w+` finds words."""
_INITIAL = re.compile(r"(?<!\w)\w|\n")


class _Block:
    """Some texts, lowered, joined by newlines, with where each starts."""

    def __init__(self, first: int, lowered: list[str]) -> None:
        self.first = first
        self.joined = "\n".join(lowered)
        self.starts: list[int] = []
        at = 0
        for text in lowered:
            self.starts.append(at)
            at += len(text) + 1

    @cached_property
    def initials(self) -> _Block:
        """The first letter of each word of each text: holding a query's letters in order, a text
        has them each at a word's start (made the first time a query needs it)."""
        return _Block(self.first, "".join(_INITIAL.findall(self.joined)).split("\n"))

    def holding(self, pattern: re.Pattern[str]) -> Iterator[tuple[int, int]]:
        """(index in the block, where in the joined text) of the first place `pattern` is found
        in each text holding it, in order."""
        at = 0
        while (hit := pattern.search(self.joined, at)) is not None:
            line = bisect_right(self.starts, hit.start()) - 1
            yield line, hit.start()
            if line + 1 >= len(self.starts):
                return
            at = self.starts[line + 1]  # the next text: one hit a text is enough


class PaletteTitles:
    """The palette's texts, lowered and joined by blocks; made once a summary (off the screen)."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.count = len(texts)
        lowered = [text.lower().replace("\n", " ") for text in texts]
        self._shared = os.path.commonprefix(lowered) if lowered else ""
        """What every text starts with (`open: `)."""
        self._blocks = [_Block(first, lowered[first : first + BLOCK]) for first in range(0, len(lowered), BLOCK)]

    def candidates(self, query: str, stop: threading.Event | None = None, most: int = RANK_MOST) -> list[int] | None:
        """The indices of at most `most` texts holding `query`'s letters in order (case aside),
        the likeliest best first (see the module); None once `stop` is set."""
        if stop is not None and stop.is_set():
            return None
        lowered = query.lower()
        if not lowered or "\n" in lowered:
            return []
        if lowered in self._shared:  # first held in what every text starts with: all score alike
            return list(range(min(most, self.count)))
        found: dict[int, None] = {}
        elsewhere: list[int] = []
        whole = re.compile(re.escape(lowered))
        for index, block, at in self._holding(whole, stop):
            if index < 0:
                return None
            if at == block.starts[index - block.first] or not _WORD.match(block.joined, at - 1):
                found[index] = None
                if len(found) >= most:
                    return list(found)
            elif len(elsewhere) < most:
                elsewhere.append(index)
        for index in elsewhere[: most - len(found)]:
            found[index] = None
        if len(found) >= most:
            return list(found)
        letters = list(lowered)
        steps = "".join(f"{re.escape(a)}[^\n{re.escape(b)}]*" for a, b in zip(letters, letters[1:]))
        in_order = re.compile(steps + re.escape(letters[-1]))  # each letter, then up to the next
        kinds = [(in_order, True), (in_order, False)] if all(_WORD.match(c) for c in letters) else [(in_order, False)]
        for pattern, initials in kinds:
            for index, _, _ in self._holding(pattern, stop, initials):
                if index < 0:
                    return None
                found.setdefault(index)
                if len(found) >= most:
                    return list(found)
        return list(found)

    def _holding(
        self, pattern: re.Pattern[str], stop: threading.Event | None, initials: bool = False
    ) -> Iterator[tuple[int, _Block, int]]:
        """(index, its block, where) of each text `pattern` is found in (in its words' initials
        with `initials`), in order; (-1, ...) and no more once `stop` is set."""
        for block in self._blocks:
            if stop is not None and stop.is_set():
                yield -1, block, 0
                return
            searched = block.initials if initials else block
            for line, at in searched.holding(pattern):
                yield block.first + line, block, at
