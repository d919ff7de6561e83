"""A document's typed neighbours for the link pane, grouped by link type, read off the core's graph.

The core (`workbench.core.views.graph`) knows the edges, placeholders for missing or invalid targets, and
how each link type reads backwards (`depended on by`); this module only groups what it answers into
what one pane shows: outgoing links by type, then backlinks by type, each group sorted by title.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..core import LinkType, RefusedError

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["LinkGroups", "Neighbour", "link_groups"]

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
    depth: int = 1


@dataclass
class LinkGroups:
    """What the link pane shows of one document: the core's answers (`neighbourhood`,
    `supersession_chain`, `context_pack`) grouped for reading."""

    outgoing: dict[str, list[Neighbour]] = field(default_factory=dict)
    incoming: dict[str, list[Neighbour]] = field(default_factory=dict)
    further: dict[int, list[Neighbour]] = field(default_factory=dict)
    """Documents 2..depth links away (either direction), by distance; `link_type` is how they were reached."""
    chain: list[Neighbour] = field(default_factory=list)
    """The supersession line through the document, oldest first (empty when it has none)."""
    pack: list[Neighbour] = field(default_factory=list)
    """The context pack: what an agent would read about the document, in reading order."""
    depth: int = 1
    link_type: str | None = None
    """The edge-type filter in force (None: every type)."""
    root: str = ""
    types: tuple[str, ...] = ()
    """The link types of the document's own links, in or out, whatever the filter: what `t` offers."""
    pending: bool = False
    """Not known yet: the vault's graph is still being worked out (its first summary)."""

    @property
    def empty(self) -> bool:
        return not self.outgoing and not self.incoming and not self.further and not self.chain


def _group(graph: nx.MultiDiGraph, pairs: list[tuple[str, str]]) -> dict[str, list[Neighbour]]:
    groups: dict[str, list[Neighbour]] = {}
    for other, link_type in sorted(pairs, key=lambda pair: (_TYPE_ORDER.get(pair[1], len(_TYPE_ORDER)), pair[1])):
        node = graph.nodes[other]
        groups.setdefault(link_type, []).append(
            Neighbour(
                link_type,
                other,
                str(node.get("title", other)),
                str(node.get("status", "")),
                bool(node.get("dangling")),
                bool(node.get("invalid")),
            )
        )
    for members in groups.values():
        members.sort(key=lambda n: (n.title.casefold(), n.doc_id))
    return groups


def _node(graph: nx.MultiDiGraph, node: str, link_type: str = "", depth: int = 1) -> Neighbour:
    attrs = graph.nodes[node]
    return Neighbour(
        link_type,
        node,
        str(attrs.get("title", node)),
        str(attrs.get("status", "")),
        bool(attrs.get("dangling")),
        bool(attrs.get("invalid")),
        depth,
    )


def link_groups(graph: nx.MultiDiGraph, doc_id: str, depth: int = 1, link_type: str | None = None) -> LinkGroups:
    """Links out of `doc_id` and into it (only `link_type` ones when given), what lies further out to
    `depth`, its supersession chain and its context pack; empty when it is not a node (invalid)."""
    if doc_id not in graph:
        return LinkGroups(depth=depth, link_type=link_type, root=doc_id)
    from ..core import (  # with networkx: once a document opens, not at start
        backlinks,
        context_pack,
        neighbourhood,
        outgoing,
        supersession_chain,
    )

    def kept(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        return [pair for pair in pairs if link_type is None or pair[1] == link_type]

    further: dict[int, list[Neighbour]] = {}
    if depth > 1:
        reached = neighbourhood(graph, doc_id, depth, link_type)
        for node in reached.nodes:
            if node["depth"] >= 2:
                further.setdefault(node["depth"], []).append(_node(graph, node["id"], depth=node["depth"]))
        for members in further.values():
            members.sort(key=lambda n: (n.title.casefold(), n.doc_id))
    chain = supersession_chain(graph, doc_id)
    try:
        pack = [_node(graph, item["id"], item["via"], item["depth"]) for item in context_pack(graph, doc_id)]
    except RefusedError:
        pack = []
    links_out, links_in = outgoing(graph, doc_id), backlinks(graph, doc_id)
    types = tuple(
        sorted(
            {kind for _, kind in (*links_out, *links_in)},
            key=lambda kind: (_TYPE_ORDER.get(kind, len(_TYPE_ORDER)), kind),
        )
    )
    return LinkGroups(
        _group(graph, kept(links_out)),
        _group(graph, kept(links_in)),
        further,
        [_node(graph, node) for node in chain] if len(chain) > 1 else [],
        pack,
        depth,
        link_type,
        doc_id,
        types,
    )
