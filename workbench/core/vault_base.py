"""The facade's base: what every part of `Vault` stands on. The vault opened over its index,
what it is (its root, flavour, mutex...), the methods a face asks before a vault is open, and
`apply`, which carries out the plans each part's methods make.

`Vault` (`vault.py`) is this base and its parts, each a module of its own so that the facade
stays small: the review list and verdicts (`vault_review.py`), the curator's inbox
(`vault_inbox.py`), sync with a git remote (`vault_sync.py`). A part imports this base, never
`vault.py`, so the facade's modules import one way.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Self

from .vocabulary import presenting
from .storage.changes import Plan
from .index import VaultIndex

if TYPE_CHECKING:
    from .records.derived_store import DerivedStore
    from .flavours import Flavour
    from .views.live_graph import LiveGraph

__all__ = ["VaultBase", "serialized"]


def serialized(method: Callable) -> Callable:
    """Run a facade method under its index's mutex, as the index runs its own: one call at a time
    from the TUI's workers, the watcher and the person. Defined here, not borrowed from the index,
    so that a call through the facade enters the index once, when it asks it something."""

    @functools.wraps(method)
    def run(self: VaultBase, *args, **kwargs):
        with self.index.mutex:
            return method(self, *args, **kwargs)

    return run


class VaultBase:
    """A vault over its index: opened, described, and the one place its plans are applied."""

    def __init__(self, index: VaultIndex):
        self.index = index
        self._graph: LiveGraph | None = None

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        flavour: str | None = None,
        listed: dict[str, list[os.DirEntry]] | None = None,
        queue_fields: bool = False,
    ) -> Self:
        """Open the vault at `path` (or its `memory/` child), finishing any change a crash interrupted.

        The flavour (Memory Core, Dendron, ADRs...) is detected unless named. `listed`: the folders'
        entries as a stat walk of this process just listed them (`Fingerprint.listing`), so that
        the open does not list them again. `queue_fields`: opened to ask the conflicts queue or the
        review list, whose fields of every document are then read with the store's rows."""
        return cls(VaultIndex.open(path, flavour, listed, queue_fields))

    # -- before a vault is open: what a face asks first --------------------------------------------

    @staticmethod
    def require_folder(path: str | os.PathLike[str]) -> Path:
        """`path` (with `~` expanded) when it can be a vault's folder, else `VaultError` naming what
        is wrong: asked by `open`, and by a face before it takes the screen."""
        from .records.walk import require_folder

        return require_folder(path)

    @staticmethod
    def looks_like_vault(path: Path) -> bool:
        """Whether a folder (or its `memory/` child) holds a vault, so that it may be opened unnamed."""
        from .records.walk import looks_like_vault

        return looks_like_vault(path)

    @staticmethod
    def flavour_names() -> list[str]:
        """The flavours a vault can be read as (`open(path, flavour=...)`)."""
        from . import flavours

        return flavours.names()

    @staticmethod
    def collector_paused() -> AbstractContextManager[None]:
        """Python's cycle collector paused for a block that makes many objects that stay alive (an
        open, a summary of every document): it would walk the growing heap again and again."""
        from .records.loading import collector_paused

        return collector_paused()

    @staticmethod
    def settle_collector(records: int) -> None:
        """After such a block made `records` records: a large one's objects are frozen, so the
        collector's next passes do not walk them all at once."""
        from .records.loading import settle_collector

        settle_collector(records)

    @staticmethod
    def close_every_store() -> None:
        """Close every derived store this process has open, for a process about to end without the
        interpreter's teardown (which closed each as it freed its vault)."""
        from .records.derived_store import close_every_store

        close_every_store()

    @staticmethod
    def secret_note(ask: bool = False) -> str | None:
        """Why the user's secret that seals derived stores is not used, and how to mend it, where
        an open of this process found it refused (or, `ask`ed, it is refused now); else None. Until
        it is mended a copied vault's store is built again from its files: a face says so once."""
        from .records.seal import secret_note

        return secret_note(ask)

    # -- what the vault is -------------------------------------------------------------------

    @property
    def root(self) -> Path:
        return self.index.root

    @property
    def flavour(self) -> Flavour:
        return self.index.flavour

    @property
    def mutex(self):
        return self.index.mutex

    @property
    def generation(self) -> int:
        """Moves whenever the records change, so a view of them knows to look again."""
        return self.index.generation

    @property
    def store(self) -> DerivedStore | None:
        return self.index.store

    @property
    def recovery_notes(self) -> list[str]:
        """What opening the vault finished of a change a crash interrupted, in words."""
        return self.index.recovery_notes

    def __len__(self) -> int:
        return len(self.index)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.index

    def __repr__(self) -> str:
        return f"Vault({str(self.root)!r}, {len(self)} files)"

    def _repr_html_(self) -> str | None:
        return presenting.render("vault_html", self)

    @serialized
    def apply(self, plan: Plan, dry_run: bool = False) -> Plan:
        """Carry out a plan (or only return it, with `dry_run`): all files or none."""
        return self.index.apply(plan, dry_run)
