"""A document's typed neighbours for the link pane, grouped by link type, read off the core's graph.

The core (`workbench.core.graph`) knows the edges, placeholders for missing or invalid targets, and
how each link type reads backwards (`depended on by`); this module only groups what it answers into
what one pane shows: outgoing links by type, then backlinks by type, each group sorted by title.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from ..core.graph import backlinks, outgoing
from ..core.model import LinkType

__all__ = ["Neighbour", "Neighbourhood", "neighbourhood"]

_TYPE_ORDER = {str(t): i for i, t in enumerate(LinkType)}


@dataclass(frozen=True)
class Neighbour:
    """One end of a link. A `dangling` one names no file; an `invalid` one names a file that fails its checks."""

    link_type: str
    doc_id: str
    title: str = ""
    status: str = ""
    dangling: bool = False
    invalid: bool = False

    @property
    def openable(self) -> bool:
        return not self.dangling


@dataclass
class Neighbourhood:
    outgoing: dict[str, list[Neighbour]] = field(default_factory=dict)
    incoming: dict[str, list[Neighbour]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.outgoing and not self.incoming


def _group(graph: nx.MultiDiGraph, pairs: list[tuple[str, str]]) -> dict[str, list[Neighbour]]:
    groups: dict[str, list[Neighbour]] = {}
    for other, link_type in sorted(pairs, key=lambda pair: (_TYPE_ORDER.get(pair[1], len(_TYPE_ORDER)), pair[1])):
        node = graph.nodes[other]
        groups.setdefault(link_type, []).append(Neighbour(
            link_type, other, str(node.get("title", other)), str(node.get("status", "")),
            bool(node.get("dangling")), bool(node.get("invalid")),
        ))
    for members in groups.values():
        members.sort(key=lambda n: (n.title.casefold(), n.doc_id))
    return groups


def neighbourhood(graph: nx.MultiDiGraph, doc_id: str) -> Neighbourhood:
    """Links out of `doc_id` and into it; empty when the document is not a node (it is invalid)."""
    if doc_id not in graph:
        return Neighbourhood()
    return Neighbourhood(_group(graph, outgoing(graph, doc_id)), _group(graph, backlinks(graph, doc_id)))
