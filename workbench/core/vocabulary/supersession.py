"""The one walker of the `supersedes` relation, over plain data: `{id: [ids it supersedes]}`.

Checking a vault (cycles are forbidden, SPEC §1), finding conflicts and refusing a supersession
that would close a cycle all ask the same two questions of the same relation; they ask them here,
so the answers cannot drift apart. The graph (graph.py) asks them of its edges through the same
functions.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["cycles", "live_end", "reaches"]


def reaches(supersedes: Mapping[str, list[str]], start: str, target: str) -> bool:
    """Whether `start` supersedes `target`, directly or through others."""
    seen: set[str] = set()
    stack = [start]
    while stack:
        current = stack.pop()
        if current == target:
            return True
        if current in seen or current not in supersedes:
            continue
        seen.add(current)
        stack.extend(supersedes[current])
    return False


def live_end(superseded_by: Mapping[str, list[str]], status: Mapping[str, str], start: str) -> str | None:
    """The document that finally replaces `start`: the end of its chain of successors (documents
    only, each a key of `superseded_by`); of several ends an active one, then the smallest id,
    as the graph's `current_successor` chooses. None when nothing replaces it."""
    seen = {start}
    frontier = [start]
    ends: list[str] = []
    while frontier:
        node = frontier.pop()
        later = [n for n in superseded_by.get(node, []) if n in superseded_by]
        if not later and node != start:
            ends.append(node)
        for each in later:
            if each not in seen:
                seen.add(each)
                frontier.append(each)
    return min(ends, key=lambda n: (status.get(n) != "active", n)) if ends else None


def cycles(supersedes: Mapping[str, list[str]]) -> list[list[str]]:
    """Every cycle of the relation, each as the ids around it in `supersedes` order, starting from
    its smallest id; sorted. Only ids that are keys count (a named id with no document is a dead end)."""
    found: set[tuple[str, ...]] = set()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(supersedes):
        if state.get(start):
            continue
        stack: list[tuple[str, int]] = [(start, 0)]
        path: list[str] = []
        while stack:
            node, index = stack.pop()
            if index == 0:
                state[node] = 1
                path.append(node)
            targets = [t for t in supersedes.get(node, []) if t in supersedes]
            if index < len(targets):
                stack.append((node, index + 1))
                target = targets[index]
                if state.get(target) == 1:
                    cycle = path[path.index(target) :]
                    first = cycle.index(min(cycle))
                    found.add(tuple(cycle[first:] + cycle[:first]))
                elif not state.get(target):
                    stack.append((target, 0))
            else:
                state[node] = 2
                path.pop()
    return sorted(list(cycle) for cycle in found)
