"""A line-based three-way merge: a person's edits to a text carried onto a newer version of it.

The consolidation dialog lets a person edit the merged text before it is written. If a file it
was made from changes meanwhile (an agent wrote to the target), redoing the change on the new
version must neither drop the person's edits nor the agent's: the edits (base -> ours) are
replayed onto the text made afresh (base -> theirs) where the two touched different lines, and
refused where both changed the same lines, as `diff3` and version control do.
"""

from __future__ import annotations

from difflib import SequenceMatcher

__all__ = ["merge3"]


def _sync_regions(base: list[str], ours: list[str], theirs: list[str]) -> list[tuple[int, int, int, int]]:
    """(base start, ours start, theirs start, length) of the runs of lines all three share, in
    order, ending with an empty run at the three ends."""
    mine = SequenceMatcher(None, base, ours, autojunk=False).get_matching_blocks()
    other = SequenceMatcher(None, base, theirs, autojunk=False).get_matching_blocks()
    regions: list[tuple[int, int, int, int]] = []
    i = j = 0
    while i < len(mine) and j < len(other):
        base_a, ours_at, size_a = mine[i]
        base_b, theirs_at, size_b = other[j]
        start, end = max(base_a, base_b), min(base_a + size_a, base_b + size_b)
        if start < end:
            regions.append((start, ours_at + start - base_a, theirs_at + start - base_b, end - start))
        if base_a + size_a < base_b + size_b:
            i += 1
        else:
            j += 1
    regions.append((len(base), len(ours), len(theirs), 0))
    return regions


def merge3(base: str, ours: str, theirs: str) -> str | None:
    """`theirs` with the changes `ours` made to `base`; None when both changed the same lines
    (or both added different lines at one place) differently."""
    if ours == base or ours == theirs:
        return theirs
    if theirs == base:
        return ours
    old, mine, other = base.splitlines(keepends=True), ours.splitlines(keepends=True), theirs.splitlines(keepends=True)
    merged: list[str] = []
    at_base = at_ours = at_theirs = 0
    for base_start, ours_start, theirs_start, size in _sync_regions(old, mine, other):
        was, ours_now, theirs_now = old[at_base:base_start], mine[at_ours:ours_start], other[at_theirs:theirs_start]
        if ours_now == theirs_now or ours_now == was:
            merged += theirs_now
        elif theirs_now == was:
            merged += ours_now
        else:
            return None
        merged += old[base_start:base_start + size]
        at_base, at_ours, at_theirs = base_start + size, ours_start + size, theirs_start + size
    return "".join(merged)
