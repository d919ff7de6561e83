"""Everything the viewer and the link pane show for one document, read together off the UI thread.

A `DocumentView` is an immutable bundle made in a worker (file IO, a backlink scan, the body's
links resolved), then handed to the widgets as an attribute: they never call the vault themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..core import Document, Problem, Vault, WorkbenchError
from .neighbours import LinkGroups, link_groups
from .text_links import TextLink, text_links

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["DocumentView", "read_view"]


@dataclass(frozen=True)
class DocumentView:
    document: Document
    source: str
    problems: list[Problem] = field(default_factory=list)
    neighbours: LinkGroups = field(default_factory=LinkGroups)
    successors: dict[str, str] = field(default_factory=dict)
    """Each id in `superseded_by` with its title ("" when the successor is missing)."""
    raw: bytes = b""
    """The file's bytes as read: a change decided on this view expects to find them on disk."""
    links: dict[str, TextLink] = field(default_factory=dict)
    """The links written in the body, by the address their rendered text carries."""


def read_view(
    vault: Vault, graph: nx.MultiDiGraph | None, doc_id: str, depth: int = 1, link_type: str | None = None
) -> DocumentView:
    """The document as it is on disk now, with its problems, its neighbours in `graph` (to `depth`,
    only `link_type` links when given), its successors. Without a graph (the vault's first summary
    not read yet), its text and its file's own problems alone, `pending` links: the graph and the
    problems across files are worked out for the whole vault (seconds at 100,000 documents), and a
    second thread doing that work beside the summary's made the document wait as long and the
    screen stutter meanwhile."""
    from .markdown_render import warm_up

    # The renderer the screen will draw the text with, made here if the warm-up thread has not made
    # it yet: else the screen's thread made it, or waited for that thread's import of it, while the
    # person waited (a quarter of a second while a large vault was being summarised).
    warm_up()
    doc = vault.get(doc_id)
    raw = vault.source(doc_id)

    def title(other: str) -> str:
        if graph is None:  # as the graph names it: no file, "", an invalid one by its id
            try:
                found = vault.get(other)
            except WorkbenchError:
                return ""
            return found.title if found.valid else other
        node = graph.nodes.get(other) if other in graph else None
        return "" if node is None or node.get("dangling") else str(node.get("title", other))

    return DocumentView(
        document=doc,
        source=raw.decode("utf-8", "replace"),
        raw=raw,
        problems=vault.problems_for(doc.id) if graph is not None else list(vault.record(doc.id).problems),
        neighbours=link_groups(graph, doc.id, depth, link_type)
        if graph is not None
        else LinkGroups(depth=depth, link_type=link_type, root=doc.id, pending=True),
        successors={succ: title(succ) for succ in doc.superseded_by},
        links=text_links(vault, doc),
    )
