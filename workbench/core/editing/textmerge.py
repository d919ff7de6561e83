"""A line-based three-way merge: a person's edits to a text carried onto a newer version of it.

The consolidation dialog lets a person edit the merged text before it is written. If a file it
was made from changes meanwhile (an agent wrote to the target), redoing the change on the new
version must neither drop the person's edits nor the agent's: the edits (base -> ours) are
replayed onto the text made afresh (base -> theirs) where the two touched different lines, and
refused where both changed the same lines, as `diff3` and version control do.

`hunks` is the same walk made public: the stretches the three texts agree on and the stretches
one or both sides changed, so a caller that must keep both sides (a sync between machines) can
decide what to do with each rather than be refused.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["merge3", "hunks", "Hunk"]


@dataclass(frozen=True)
class Hunk:
    """A stretch of the merge: the lines of base, ours and theirs there. Where nobody changed
    anything the three are equal; `conflict` when both sides changed the stretch differently."""

    base: tuple[str, ...]
    ours: tuple[str, ...]
    theirs: tuple[str, ...]

    @property
    def conflict(self) -> bool:
        return self.ours != self.base and self.theirs != self.base and self.ours != self.theirs

    @property
    def merged(self) -> tuple[str, ...]:
        """The lines a clean merge takes here (ours on a conflict: ask `conflict` first)."""
        return self.theirs if self.ours == self.base else self.ours


def _sync_regions(base: list[str], ours: list[str], theirs: list[str]) -> list[tuple[int, int, int, int]]:
    """(base start, ours start, theirs start, length) of the runs of lines all three share, in
    order, ending with an empty run at the three ends."""
    from difflib import SequenceMatcher  # here: a process that merges no text need not import it

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


def hunks(base: str, ours: str, theirs: str) -> list[Hunk]:
    """The three texts cut into stretches, in order: joined, the `merged` lines of every hunk
    rebuild the merge; the `ours` (or `theirs`, or `base`) lines rebuild that text exactly."""
    old, mine, other = base.splitlines(keepends=True), ours.splitlines(keepends=True), theirs.splitlines(keepends=True)
    found: list[Hunk] = []
    at_base = at_ours = at_theirs = 0
    for base_start, ours_start, theirs_start, size in _sync_regions(old, mine, other):
        was, ours_now, theirs_now = old[at_base:base_start], mine[at_ours:ours_start], other[at_theirs:theirs_start]
        if was or ours_now or theirs_now:
            found.append(Hunk(tuple(was), tuple(ours_now), tuple(theirs_now)))
        if size:
            same = tuple(old[base_start : base_start + size])
            found.append(Hunk(same, same, same))
        at_base, at_ours, at_theirs = base_start + size, ours_start + size, theirs_start + size
    return found


def merge3(base: str, ours: str, theirs: str) -> str | None:
    """`theirs` with the changes `ours` made to `base`; None when both changed the same lines
    (or both added different lines at one place) differently."""
    if ours == base or ours == theirs:
        return theirs
    if theirs == base:
        return ours
    merged: list[str] = []
    for hunk in hunks(base, ours, theirs):
        if hunk.conflict:
            return None
        merged += hunk.merged
    return "".join(merged)
