"""The facade's part for the curator's inbox (`inbox.py`): what agents wrote that awaits the
curator, each request's diff, and settling it. (An agent's own writes stay in `vault.py`, beside
the curator's writes they mirror.) Mixed into `Vault`; see `vault_base.py`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from .storage.changes import Plan
from .vault_base import VaultBase, serialized

if TYPE_CHECKING:
    from .services.inbox import Inbox, Request

__all__ = ["InboxMethods"]


class InboxMethods(VaultBase):
    """The curator's inbox, as `Vault` answers it."""

    @serialized
    def inbox(self) -> Inbox:
        """What agents wrote that awaits the curator, oldest first, and what is new since the last review."""
        from .services import inbox

        return inbox.read_inbox(self.index)

    @serialized
    def inbox_diff(self, request: Request) -> str:
        """What the agent wrote for `request`, as a diff."""
        from .services import inbox

        return inbox.request_diff(self.index, request)

    def mark_inbox_reviewed(self, until: str) -> None:
        """The curator has seen every request up to `until` (a request's `at`)."""
        from .services import inbox

        inbox.mark_reviewed(self.index, until)

    @serialized
    def settle(
        self,
        doc_id: str,
        action: str,
        target: str | None = None,
        confirm: str | None = None,
        at: str | None = None,
        dry_run: bool = False,
    ) -> Plan:
        """Settle what an agent asked of `doc_id`: accept, merge (into `target`), supersede
        (`target`), archive, revert a merge, keep, or forget (with `confirm`, the id again)."""
        from .services import inbox

        if action == "forget":
            return inbox.forget(self.index, doc_id, confirm, dry_run)
        return self.apply(inbox.plan_settle(self.index, doc_id, action, target, at), dry_run)

    @serialized
    def requests_in(self, paths: Iterable[str] | None = None) -> list[Request]:
        """The requests agents left in the documents at `paths` (relative to the root; every
        document when None), oldest first, as last read: the disk is not looked at."""
        from .services.inbox import requests

        if paths is None:
            return requests(self.index.documents)
        return requests(doc for path in paths if (doc := self.index.document_at(path)) is not None)
