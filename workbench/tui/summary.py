"""What the panes need from the whole vault, computed off the UI thread after each load or change."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import Document, Problem, Severity

if TYPE_CHECKING:
    import networkx as nx

    from ..core import Vault
    from .palette_titles import PaletteTitles

__all__ = ["VaultSummary", "empty_note", "hand_on", "summarise"]


@dataclass(frozen=True)
class VaultSummary:
    """What the panes need from the whole vault, computed off the UI thread after each load or change."""

    name: str
    documents: tuple[Document, ...]
    files: int
    problems: tuple[Problem, ...]
    graph: nx.MultiDiGraph = field(compare=False, repr=False)

    @property
    def errors(self) -> int:
        return sum(1 for p in self.problems if p.severity == Severity.ERROR)

    @property
    def warnings(self) -> int:
        return len(self.problems) - self.errors

    @cached_property
    def titles(self) -> dict[str, str]:
        """Each document's title by id, made once: the breadcrumbs of every document opened need a few."""
        return {doc.id: doc.title for doc in self.documents}

    @cached_property
    def by_id(self) -> dict[str, Document]:
        """Each document by id, made once (in the summary's thread): the conflicts queue and a
        verdict's preview look documents up by id, and a dict of 100,000 made on the screen's
        thread at each was a frame missed."""
        return {doc.id: doc for doc in self.documents}

    @cached_property
    def path_ids(self) -> dict[str, str]:
        """Each document's id by its path, made once (in the summary's thread), for the problems list."""
        return {doc.path: doc.id for doc in self.documents}

    @cached_property
    def open_texts(self) -> tuple[str, ...]:
        """`Open: <title>` of each document, in order: what the palette matches, made once (in the
        palette's thread, when it first searches), not at every key."""
        from .text import clean

        return tuple(f"Open: {clean(doc.title)}" for doc in self.documents)

    @cached_property
    def palette_titles(self) -> PaletteTitles:
        """`open_texts` lowered and joined by blocks, which the palette searches (made with them)."""
        from .palette_titles import PaletteTitles

        return PaletteTitles(self.open_texts)

    @cached_property
    def example_query(self) -> str:
        """Filters the search box suggests, taken from this vault: its commonest type (when it has
        more than one, so the filter narrows something) and its commonest tag; plain words when
        neither applies. A suggestion of `type:decision` in a vault of notes matched nothing."""
        types = Counter(doc.type for doc in self.documents)
        tags = Counter(tag for doc in self.documents for tag in doc.tags if isinstance(tag, str) and tag.strip())
        example = [f"type:{types.most_common(1)[0][0]}"] if len(types) > 1 else []
        example += [f"tag:{tags.most_common(1)[0][0]}"] if tags else []
        return " ".join(example) or 'words, "a phrase"'


def summarise(vault: Vault, given: Path) -> VaultSummary:
    """Counts for the header; the name says `notes/memory` when the vault is a `memory/` child."""
    from ..core import Vault  # the facade (and the core under it): imported by the first summary, not at start

    given = given.expanduser().resolve()
    name = given.name if vault.root == given else f"{given.name}/{vault.root.relative_to(given)}"
    if not vault.flavour.native:
        name = f"{name} ({vault.flavour.name})"  # the rules it is read by, when not Memory Core's
    # Checking every link and building the graph decode each document's meta and make a few
    # objects per link, all of which stay alive: with the collector running, it walked the growing
    # heap again and again (full collections of 0.3 to 0.9 s at 100,000 documents, each holding
    # the interpreter, so the screen froze and a search typed meanwhile waited seconds). Paused,
    # and what a large vault's summary made frozen before it resumes: its first pass would walk
    # all of it at once (0.8 s).
    with Vault.collector_paused():
        summary = VaultSummary(name, tuple(vault.documents), len(vault), tuple(vault.problems), vault.graph())
        # Worked out here, off the screen's thread, which reads them: the example query reads every
        # document's tags (a second at 100,000 documents, when the screen asked for it).
        _ = (summary.example_query, summary.titles, summary.by_id, summary.path_ids)  # cached properties, made now
        Vault.settle_collector(len(summary.documents))
    return summary


def empty_note(vault: Vault) -> str | None:
    """What a vault with no documents is, in words (an empty folder is a new vault), else None."""
    return vault.empty_note()


def hand_on(summary: VaultSummary, screens: Iterable[object]) -> None:
    """Give the summary just read to each open dialog that lists what it holds (`follow_summary`:
    the problems list follows the vault while open, as the inbox does)."""
    for screen in screens:
        follow = getattr(screen, "follow_summary", None)
        if follow is not None:
            follow(summary)
