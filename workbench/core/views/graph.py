"""The vault as a graph: documents are nodes, typed links are edges, read both ways.

A Memory Core vault is already a graph written down in frontmatter: every `links` entry is an edge
`source → target` typed by its link type, and supersession (`supersedes` / `superseded_by`) is one
more edge type. `build_graph` turns a vault's documents into a `networkx.MultiDiGraph` once, so that every
question after that (what links here, what replaces this decision, what should an agent read) is a
walk over memory instead of a re-read of files.

Conventions the rest of this module relies on:

- Node ids are document ids. A node carries `title`, `type`, `status`, `dangling` and `invalid`.
- An edge's key *is* its link type (also kept as the attribute `type`), so a document links
  another at most once per type, exactly as SPEC §1 allows, and `graph.has_edge(a, b, "depends_on")`
  answers a typed question directly.
- A link to an id no valid document has still becomes an edge, to a *placeholder* node: `dangling`
  when no file has that id, `invalid` when a file has it but is invalid (SPEC §1: invalid documents
  are not nodes, yet the curator must see what points at them).
- Supersession is stated on both sides (A.supersedes ∋ B ⇔ B.superseded_by ∋ A); the graph holds
  their union as `A → B` edges of type `supersedes`, so a one-sided statement is still followed.

The graph is derived and disposable: rebuild it after the vault changes.

>>> import networkx as nx
>>> g = nx.MultiDiGraph()
>>> g.add_node("mem-entity-a", title="A", type="entity", status="active", dangling=False)
>>> g.add_node("mem-task-b", title="B", type="task", status="active", dangling=False)
>>> _ = g.add_edge("mem-task-b", "mem-entity-a", key="depends_on", type="depends_on")
>>> backlinks(g, "mem-entity-a")
[('mem-task-b', 'depends_on')]
>>> [node["id"] for node in neighbourhood(g, "mem-entity-a").nodes]
['mem-entity-a', 'mem-task-b']
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

import networkx as nx

from ..vocabulary import presenting, supersession
from ..vocabulary.model import INVERSE_LABELS, DocType, Document, LinkType, RefusedError, Status, inverse_label

__all__ = [
    "EXPORT_FORMATS",
    "INVERSE_LABELS",
    "READING_PRIORITY",
    "build_graph",
    "document_node",
    "placeholder_node",
    "stated_edges",
    "neighbourhood",
    "Neighbourhood",
    "backlinks",
    "outgoing",
    "inverse_label",
    "supersession_chain",
    "current_successor",
    "supersession_cycles",
    "context_pack",
    "export",
    "mermaid_id",
]

EXPORT_FORMATS: tuple[str, ...] = ("json", "dot", "mermaid", "graphml")

# SPEC §1 retrieval policy: entity → task → decision → context → index → note, with concept
# (decided) after context.
READING_PRIORITY: tuple[DocType, ...] = (
    DocType.ENTITY,
    DocType.TASK,
    DocType.DECISION,
    DocType.CONTEXT,
    DocType.CONCEPT,
    DocType.INDEX,
    DocType.NOTE,
)

# A backlink read from its target's side: `depends_on` seen from the target is "depended on by".

_SUPERSEDES = LinkType.SUPERSEDES.value


# -- building ----------------------------------------------------------------------------------


def build_graph(documents: Iterable[Document]) -> nx.MultiDiGraph:
    """One node per valid document, one edge per link and per supersession, placeholders for the
    rest; `documents` is every file's document, valid or not (`vault.all_documents`).

    Self links carry no information a walk could use, so they are left out.
    """
    every = list(documents)
    documents = sorted((doc for doc in every if doc.valid), key=lambda doc: doc.id)
    valid = {doc.id for doc in documents}
    invalid = {doc.id for doc in every if not doc.valid} - valid
    # A dict keeps the order and drops repeats: a `supersedes` link restates its field.
    edges: dict[tuple[str, str, str], None] = {}
    for doc in documents:
        edges.update(dict.fromkeys(stated_edges(doc)))
    named = {end for source, target, _ in edges for end in (source, target)} - valid

    graph = nx.MultiDiGraph()  # filled in bulk: networkx's per-call overhead dominates at 10,000 nodes
    graph.add_nodes_from((doc.id, document_node(doc)) for doc in documents)
    graph.add_nodes_from((end, placeholder_node(end, invalid)) for end in sorted(named))
    graph.add_edges_from((source, target, kind, {"type": kind}) for source, target, kind in edges)
    return graph


def stated_edges(doc) -> list[tuple[str, str, str]]:
    """The edges (source, target, type) a document's own file states: its links, what it
    supersedes and what supersedes it (a `supersedes` link restates its field: once)."""
    edges: dict[tuple[str, str, str], None] = {}
    for link in doc.links:
        edges[doc.id, link.target, link.type] = None
    for older in doc.supersedes:
        edges[doc.id, older, _SUPERSEDES] = None
    for newer in doc.superseded_by:
        edges[newer, doc.id, _SUPERSEDES] = None
    return [edge for edge in edges if edge[0] != edge[1]]


def document_node(doc) -> dict[str, Any]:
    return {"title": doc.title, "type": doc.type, "status": doc.status, "dangling": False, "invalid": False}


def placeholder_node(end: str, invalid: set[str]) -> dict[str, Any]:
    """A node named by the vault with no valid document to show: a file that is invalid, or none."""
    return {"title": end, "type": "", "status": "", "dangling": end not in invalid, "invalid": end in invalid}


def _require(graph: nx.MultiDiGraph, doc_id: str) -> None:
    if doc_id not in graph:
        raise RefusedError(f"no document has the id {doc_id!r}")


def _is_document(graph: nx.MultiDiGraph, node: str) -> bool:
    """A node an agent could open: not a placeholder for a missing or invalid file."""
    data = graph.nodes[node]
    return not data.get("dangling") and not data.get("invalid")


def _wanted(link_types: Iterable[str] | str | None) -> frozenset[str] | None:
    if link_types is None:
        return None
    if isinstance(link_types, str):  # one type given bare, not a string to split into letters
        return frozenset({link_types})
    return frozenset(str(t) for t in link_types)


def _types(keyed: dict[Any, dict[str, Any]]) -> list[str]:
    return sorted(str(data.get("type", key)) for key, data in keyed.items())


# -- neighbours --------------------------------------------------------------------------------


def outgoing(graph: nx.MultiDiGraph, doc_id: str) -> list[tuple[str, str]]:
    """The `(target, type)` links `doc_id` makes, sorted."""
    _require(graph, doc_id)
    return sorted((target, kind) for target, keyed in graph.succ[doc_id].items() for kind in _types(keyed))


def backlinks(graph: nx.MultiDiGraph, doc_id: str) -> list[tuple[str, str]]:
    """The `(source, type)` links made to `doc_id`, sorted: what would break if it changed."""
    _require(graph, doc_id)
    return sorted((source, kind) for source, keyed in graph.pred[doc_id].items() for kind in _types(keyed))


def _reach(
    graph: nx.MultiDiGraph,
    root: str,
    depth: int,
    wanted: frozenset[str] | None,
    admit: Callable[[str], bool] | None = None,
) -> dict[str, tuple[int, str]]:
    """Breadth-first both ways: each reached node with its depth and the link type that reached it.

    Nodes are visited in id order and edges in (neighbour, type) order, so the link type recorded
    for a node reached several ways is the same on every run.
    """
    reached: dict[str, tuple[int, str]] = {root: (0, "")}
    frontier = [root]
    for level in range(1, depth + 1):
        found: list[str] = []
        for node in sorted(frontier):
            steps = [(other, kind) for other, keyed in graph.succ[node].items() for kind in _types(keyed)]
            steps += [(other, kind) for other, keyed in graph.pred[node].items() for kind in _types(keyed)]
            for other, kind in sorted(steps):
                if other in reached or (wanted is not None and kind not in wanted):
                    continue
                if admit is not None and not admit(other):
                    continue
                reached[other] = (level, kind)
                found.append(other)
        if not found:
            break
        frontier = found
    return reached


def _check_depth(depth: int) -> None:
    if depth < 0:
        raise RefusedError(f"depth must be 0 or more, not {depth}")


def neighbourhood(
    graph: nx.MultiDiGraph, root: str, depth: int = 1, link_types: Iterable[str] | str | None = None
) -> Neighbourhood:
    """The documents within `depth` links of `root`, following links and backlinks alike.

    Backlinks count because "what depends on this" matters as much as "what this depends on".
    `link_types` limits both the links followed and the edges listed. Edges between two nodes at
    the outer depth are listed too: they are part of the picture even though no walk used them.
    """
    _require(graph, root)
    _check_depth(depth)
    wanted = _wanted(link_types)
    reached = _reach(graph, root, depth, wanted)
    nodes = [
        {
            "id": node,
            "title": _attr(graph, node, "title", node),
            "type": _attr(graph, node, "type"),
            "status": _attr(graph, node, "status"),
            "depth": level,
        }
        for node, (level, _) in reached.items()
    ]
    nodes.sort(key=lambda item: (item["depth"], item["id"]))
    edges = [edge for edge in _edges(graph, reached) if wanted is None or edge["type"] in wanted]
    return Neighbourhood(graph, root, depth, nodes, edges)


def _attr(graph: nx.MultiDiGraph, node: str, name: str, default: str = "") -> str:
    value = graph.nodes[node].get(name)
    return default if value is None else str(value)


def _edges(graph: nx.MultiDiGraph, among: Iterable[str] | None = None) -> list[dict[str, str]]:
    if among is None:
        edges = graph.edges(keys=True, data=True)
    else:
        edges = graph.subgraph(among).edges(keys=True, data=True)
    found = [{"source": s, "target": t, "type": str(d.get("type", k))} for s, t, k, d in edges]
    return sorted(found, key=lambda e: (e["source"], e["target"], e["type"]))


class Neighbourhood:
    """What `neighbourhood()` found: the root, the nodes (each with its `depth`) and the edges among
    them; `to_json()` is what the CLI prints, and it draws itself (Mermaid in a notebook, DOT for
    Graphviz). It keeps the graph it came from, so that `export` draws exactly what it lists.
    """

    def __init__(
        self, graph: nx.MultiDiGraph, root: str, depth: int, nodes: list[dict[str, Any]], edges: list[dict[str, str]]
    ):
        self.graph = graph
        self.root = root
        self.depth = depth
        self.nodes = nodes
        self.edges = edges

    def to_json(self) -> dict[str, Any]:
        return {"root": self.root, "nodes": self.nodes, "edges": self.edges}

    def export(self, fmt: str = "mermaid") -> str:
        """This neighbourhood in one of `EXPORT_FORMATS`, with only the edges it lists."""
        ids = {node["id"] for node in self.nodes}
        listed = {(edge["source"], edge["target"], edge["type"]) for edge in self.edges}
        view = nx.subgraph_view(
            self.graph,
            filter_node=lambda n: n in ids,
            filter_edge=lambda s, t, k: (s, t, _attr_type(self.graph, s, t, k)) in listed,
        )
        return export(view, fmt)

    @property
    def mermaid(self) -> str:
        return self.export("mermaid")

    @property
    def dot(self) -> str:
        return self.export("dot")

    def __repr__(self) -> str:
        return f"Neighbourhood({self.root!r}, depth={self.depth}: {len(self.nodes)} documents, {len(self.edges)} links)"

    def _repr_markdown_(self) -> str | None:
        return presenting.render("neighbourhood_markdown", self)


def _attr_type(graph: nx.MultiDiGraph, source: str, target: str, key: str) -> str:
    return str(graph.edges[source, target, key].get("type", key))


# -- supersession ------------------------------------------------------------------------------


def _older(graph: nx.MultiDiGraph, node: str) -> list[str]:
    return sorted(t for t, keyed in graph.succ[node].items() if _SUPERSEDES in _types(keyed))


def _newer(graph: nx.MultiDiGraph, node: str) -> list[str]:
    return sorted(s for s, keyed in graph.pred[node].items() if _SUPERSEDES in _types(keyed))


def _distances(
    graph: nx.MultiDiGraph, start: str, step: Callable[[nx.MultiDiGraph, str], list[str]], documents_only: bool = False
) -> dict[str, int]:
    """How many supersessions away each node is, one direction only; a cycle cannot loop it."""
    seen = {start: 0}
    frontier = [start]
    while frontier:
        found = []
        for node in frontier:
            for other in step(graph, node):
                if other in seen or (documents_only and not _is_document(graph, other)):
                    continue
                seen[other] = seen[node] + 1
                found.append(other)
        frontier = found
    del seen[start]
    return seen


def supersession_chain(graph: nx.MultiDiGraph, doc_id: str) -> list[str]:
    """The line of replacements through `doc_id`, oldest first, newest last.

    Only the ancestors and descendants of `doc_id` are in it, not its siblings: it answers "where
    does this decision come from and where did it go". Where the line branches, each document
    still comes after every document it replaces, ties broken by id. Placeholders stay in the
    chain, because a replaced id that no longer exists is part of the story.
    """
    _require(graph, doc_id)
    older = _distances(graph, doc_id, _older)
    newer = {n: d for n, d in _distances(graph, doc_id, _newer).items() if n not in older}  # a cycle puts some in both
    members = {doc_id, *older, *newer}
    order = nx.DiGraph()
    order.add_nodes_from(members)
    order.add_edges_from(
        (older_id, node) for node in members for older_id in _older(graph, node) if older_id in members
    )
    try:
        return list(nx.lexicographical_topological_sort(order, key=str))
    except nx.NetworkXUnfeasible:  # a cycle: fall back to distance from doc_id, which still terminates
        before = sorted(older, key=lambda n: (-older[n], n))
        after = sorted(newer, key=lambda n: (newer[n], n))
        return [*before, doc_id, *after]


def current_successor(graph: nx.MultiDiGraph, doc_id: str) -> str | None:
    """The document that finally replaces `doc_id`, or None when nothing (readable) replaces it.

    Successors are followed through documents only; where several newest documents remain, an
    active one wins, then the smallest id. A cycle without a way out has no answer: None.
    """
    _require(graph, doc_id)
    later = _distances(graph, doc_id, _newer, documents_only=True)
    ends = [node for node in later if not any(_is_document(graph, n) for n in _newer(graph, node))]
    if not ends:
        return None
    return min(ends, key=lambda n: (_attr(graph, n, "status") != Status.ACTIVE, n))


def supersession_cycles(graph: nx.MultiDiGraph) -> list[list[str]]:
    """Every supersession cycle (SPEC §1 forbids them), each in `supersedes` order from its smallest id."""
    replaced: dict[str, list[str]] = {}
    for source, target, data in graph.edges(data=True):
        if data.get("type") == _SUPERSEDES:
            replaced.setdefault(source, []).append(target)
            replaced.setdefault(target, [])
    return supersession.cycles({node: sorted(older) for node, older in replaced.items()})


# -- retrieval ---------------------------------------------------------------------------------


def context_pack(graph: nx.MultiDiGraph, doc_id: str, depth: int = 2, limit: int = 10) -> list[dict[str, Any]]:
    """What an agent should read about `doc_id` (SPEC §1 "Retrieval policy"), best first.

    At most `limit` documents are gathered nearest first, then ordered for reading: the root, then
    active documents, by the reading priority (entity, task, decision, context, concept, index,
    note), then by depth.

    The walk goes through every document, archived ones included, because an old task may still be
    the only path to a live decision; what is *read* is then cleaned: a superseded document gives
    way to its current successor (at the depth it was found, reached by the same link), archived
    documents are dropped, placeholders never enter. The root stays first whatever its status:
    it was asked for by name.
    """
    _require(graph, doc_id)
    _check_depth(depth)
    if limit < 0:
        raise RefusedError(f"limit must be 0 or more, not {limit}")
    if not _is_document(graph, doc_id):
        raise RefusedError(f"{doc_id} is not a valid document of the vault; nothing to read")
    reached = _reach(graph, doc_id, depth, None, admit=lambda node: _is_document(graph, node))
    picked: dict[str, tuple[int, str]] = {}
    for node, (level, via) in sorted(reached.items(), key=lambda item: (item[1], item[0])):
        if node != doc_id and _attr(graph, node, "status") == Status.SUPERSEDED:
            node = current_successor(graph, node) or node
        if node != doc_id and _attr(graph, node, "status") == Status.ARCHIVED:
            continue
        picked.setdefault(node, (level, via))  # reached in (depth, via) order: the first is the closest

    rank = {str(kind): place for place, kind in enumerate(READING_PRIORITY)}

    def active(node: str) -> bool:
        return _attr(graph, node, "status") == Status.ACTIVE

    def priority(node: str) -> int:
        return rank.get(_attr(graph, node, "type"), len(rank))

    # Gather the nearest first (active before others at each depth), then read in priority order:
    # a far entity must not push a near decision out of the pack.
    gathered = sorted(picked, key=lambda n: (n != doc_id, picked[n][0], not active(n), priority(n), n))[:limit]
    chosen = sorted(gathered, key=lambda n: (n != doc_id, not active(n), priority(n), picked[n][0], n))
    return [
        {
            "id": node,
            "title": _attr(graph, node, "title", node),
            "type": _attr(graph, node, "type"),
            "status": _attr(graph, node, "status"),
            "depth": picked[node][0],
            "via": picked[node][1],
        }
        for node in chosen
    ]


# -- export ------------------------------------------------------------------------------------


def export(graph: nx.MultiDiGraph, fmt: str, root: str | None = None, depth: int | None = None) -> str:
    """The graph (or the neighbourhood of `root`, `depth` 1 by default) as json, dot, mermaid or graphml.

    Titles are written by agents and may hold quotes, brackets, newlines or markup; every format
    escapes them so the output stays well-formed for the tool that reads it.
    """
    if fmt not in EXPORT_FORMATS:
        raise RefusedError(f"{fmt!r} is not an export format; use one of {', '.join(EXPORT_FORMATS)}")
    if root is not None:
        found = neighbourhood(graph, root, 1 if depth is None else depth)
        graph = graph.subgraph(node["id"] for node in found.nodes)
    elif depth is not None:
        raise RefusedError("depth limits a neighbourhood: give the root it is counted from")
    nodes = [
        {
            "id": node,
            "title": _attr(graph, node, "title", node),
            "type": _attr(graph, node, "type"),
            "status": _attr(graph, node, "status"),
            "dangling": bool(graph.nodes[node].get("dangling")),
            "invalid": bool(graph.nodes[node].get("invalid")),
        }
        for node in sorted(graph.nodes)
    ]
    edges = _edges(graph)
    writer = {"json": _to_json, "dot": _to_dot, "mermaid": _to_mermaid, "graphml": _to_graphml}[fmt]
    return writer(nodes, edges)


def _to_json(nodes: list[dict[str, Any]], edges: list[dict[str, str]]) -> str:
    keys = ("id", "title", "type", "status", "dangling")
    shown = [{key: node[key] for key in keys} for node in nodes]
    return json.dumps({"nodes": shown, "edges": edges}, ensure_ascii=False, indent=2) + "\n"


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _dot_string(text: str) -> str:
    """A DOT quoted string on one line: backslashes and quotes escaped, line breaks as DOT's `\\n`."""
    text = _CONTROL.sub("", text).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + re.sub(r"\r\n|\r|\n", r"\\n", text) + '"'


def _to_dot(nodes: list[dict[str, Any]], edges: list[dict[str, str]]) -> str:
    lines = ["digraph vault {", "  rankdir=LR;", "  node [shape=box];"]
    for node in nodes:
        style = ", style=dashed" if node["dangling"] else ", style=dotted" if node["invalid"] else ""
        lines.append(f"  {_dot_string(node['id'])} [label={_dot_string(node['title'])}{style}];")
    for edge in edges:
        lines.append(
            f"  {_dot_string(edge['source'])} -> {_dot_string(edge['target'])} [label={_dot_string(edge['type'])}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


_MERMAID_ID = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*")
_MERMAID_RESERVED = frozenset(
    {"end", "graph", "subgraph", "flowchart", "style", "class", "classdef", "click", "linkstyle", "default"}
)
# Mermaid reads `#name;` and `#123;` as entities inside labels, so these are written as entities.
_MERMAID_ESCAPES = {c: f"#{ord(c)};" for c in '#"[](){}<>|`'}


def mermaid_id(doc_id: str) -> str:
    """The id itself when Mermaid reads it unchanged (document ids do), else a stable stand-in."""
    if _MERMAID_ID.fullmatch(doc_id) and doc_id.lower() not in _MERMAID_RESERVED:
        return doc_id
    return "n_" + hashlib.sha1(doc_id.encode("utf-8")).hexdigest()[:12]


def _mermaid_text(text: str) -> str:
    text = re.sub(r"\s+", " ", _CONTROL.sub("", text)).strip()
    return "".join(_MERMAID_ESCAPES.get(c, c) for c in text)


def _to_mermaid(nodes: list[dict[str, Any]], edges: list[dict[str, str]]) -> str:
    lines = ["graph LR"]
    for node in nodes:
        lines.append(f'  {mermaid_id(node["id"])}["{_mermaid_text(node["title"])}"]')
    for edge in edges:
        lines.append(f"  {mermaid_id(edge['source'])} -->|{_mermaid_text(edge['type'])}| {mermaid_id(edge['target'])}")
    dangling = [mermaid_id(node["id"]) for node in nodes if node["dangling"]]
    invalid = [mermaid_id(node["id"]) for node in nodes if node["invalid"]]
    if dangling:
        lines += ["  classDef dangling stroke-dasharray: 5 5", f"  class {','.join(dangling)} dangling"]
    if invalid:
        lines += ["  classDef invalid stroke-dasharray: 2 2", f"  class {','.join(invalid)} invalid"]
    return "\n".join(lines) + "\n"


def _xml_text(text: str) -> str:
    """XML 1.0 cannot carry most control characters, even escaped; they are dropped."""
    return _CONTROL.sub("", text)


def _to_graphml(nodes: list[dict[str, Any]], edges: list[dict[str, str]]) -> str:
    flat = nx.MultiDiGraph()
    for node in nodes:
        flat.add_node(
            _xml_text(node["id"]),
            title=_xml_text(node["title"]),
            type=node["type"],
            status=node["status"],
            dangling=node["dangling"],
            invalid=node["invalid"],
        )
    for edge in edges:
        flat.add_edge(
            _xml_text(edge["source"]),
            _xml_text(edge["target"]),
            key=_xml_text(edge["type"]),
            type=_xml_text(edge["type"]),
        )
    return "\n".join(nx.generate_graphml(flat)) + "\n"
