"""A document's typed neighbours: the links it makes, and the links made to it, grouped by type.

Backlinks are read the other way round, so each link type has an inverse label (`depends_on` is
`depended on by` seen from the target). The core has no graph yet, so backlinks are found here by
scanning the valid documents once per opened document: linear, and cheap next to reading a file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..core.model import Document, LinkType

__all__ = ["INVERSE_LABELS", "Neighbour", "Neighbourhood", "neighbourhood", "inverse_label"]

INVERSE_LABELS: dict[str, str] = {
    LinkType.RELATED_TO: "related to",
    LinkType.DEPENDS_ON: "depended on by",
    LinkType.IMPLEMENTS: "implemented by",
    LinkType.SUPERSEDES: "superseded by",
    LinkType.DERIVED_FROM: "source of",
    LinkType.EXPLAINS: "explained by",
    LinkType.BLOCKED_BY: "blocks",
}


def inverse_label(link_type: str) -> str:
    return INVERSE_LABELS.get(link_type, f"{link_type} (from)")


@dataclass(frozen=True)
class Neighbour:
    """One end of a link: `title` and `status` are empty when the target is not in the vault."""

    link_type: str
    doc_id: str
    title: str = ""
    status: str = ""

    @property
    def dangling(self) -> bool:
        return not self.title


@dataclass
class Neighbourhood:
    outgoing: dict[str, list[Neighbour]] = field(default_factory=dict)
    incoming: dict[str, list[Neighbour]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.outgoing and not self.incoming


def _neighbour(link_type: str, doc_id: str, known: Mapping[str, Document]) -> Neighbour:
    target = known.get(doc_id)
    return Neighbour(link_type, doc_id, target.title if target else "", target.status if target else "")


def neighbourhood(doc: Document, documents: Iterable[Document]) -> Neighbourhood:
    """Links out of `doc` (in file order, dangling ones kept) and into it, grouped by link type."""
    known = {d.id: d for d in documents}
    found = Neighbourhood()
    for link in doc.links:
        found.outgoing.setdefault(link.type, []).append(_neighbour(link.type, link.target, known))
    for other in known.values():
        if other.id == doc.id:
            continue
        for link in other.links:
            if link.target == doc.id:
                found.incoming.setdefault(link.type, []).append(_neighbour(link.type, other.id, known))
    for group in found.incoming.values():
        group.sort(key=lambda n: (n.title.casefold(), n.doc_id))
    return found
