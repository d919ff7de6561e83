"""The facade's part for sync with the vault's git remote (`gitsync.py`): commit, fetch, merge
document by document, push, and the questions a merge leaves for a person.
Mixed into `Vault`; see `vault_base.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .vault_base import VaultBase

if TYPE_CHECKING:
    from .services.gitsync import SyncReport
    from .services.syncquestions import SyncConflict

__all__ = ["SyncMethods"]


class SyncMethods(VaultBase):
    """Sync with the vault's git remote, as `Vault` asks it."""

    def sync(self, remote: str | None = None) -> SyncReport:
        """Commit the vault, fetch, merge (document by document), push; `SyncError` with git's words."""
        from .services import gitsync

        return gitsync.sync(self.root, remote=remote)

    def sync_setup(self) -> list[str]:
        """Register the document merge with the vault's git repository; what was set up, in words."""
        from .services import gitsync

        return gitsync.setup(self.root)

    def sync_pending(self) -> list[SyncConflict]:
        """The questions a merge waiting in git holds for a person, one key of one document each."""
        from .services import gitsync

        return gitsync.pending(self.root)

    def sync_merge_in_progress(self) -> bool:
        """Whether a merge waits in git (a sync stopped for a person, a `git pull` typed by hand)."""
        from .services import gitsync

        return gitsync.merge_in_progress(self.root)

    def sync_settle(self, path: str, key: str, choice: str) -> None:
        """Answer one question of a waiting merge (`ours`, `theirs`, `base`...), written to the
        document at once."""
        from .services import gitsync

        gitsync.settle(self.root, path, key, choice)

    def not_syncable(self) -> str | None:
        """Why this vault cannot be synced at all (not in a git work tree, no `git`), or None."""
        from .services import gitsync

        return gitsync.not_syncable(self.root)
