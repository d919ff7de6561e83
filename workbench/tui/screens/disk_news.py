"""What the vault's watcher brings, said to the person as news only when it is news.

Files change on disk under the screen: an agent's write, an editor, `git pull`, or our own change
coming back. `DiskNews` turns the watcher's report into what the person should see: the results
searched again and the vault recounted, the open document re-read (announced as changed outside
the workbench unless `OwnWrites` says we wrote it), a toast for each request an agent has just
left, and a document whose file is gone kept on show under a banner, or stepped over in the
history. A document our own change removed (an undone creation) is not "deleted on disk": it
leaves the history, and the one before it comes back (`left_behind`).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from ..widgets.link_pane import LinkPane
from ..widgets.search import SearchPane
from ..widgets.viewer import DocumentViewer

if TYPE_CHECKING:
    from .host import DiskHost

__all__ = ["DiskNews"]


class DiskNews:
    """The watcher's reports, for the screen `host`."""

    def __init__(self, host: DiskHost) -> None:
        self.host = host
        self.agents_seen = dt.datetime.now().isoformat(timespec="seconds")
        """The newest agent's request already announced: those the watcher brings after it are news."""

    def changed(self, paths: list[str]) -> None:
        """Someone changed files: search again at once (cheap), then recount; re-read the open
        document if it was one of them."""
        search = self.host.query_one(SearchPane)
        if self.host.vault is not None:
            search.searcher = self.host.vault.search
        self.host.resummarise()
        self.announce_agents(paths)
        view = self.host.current
        if view is None:
            return
        path = view.document.path
        ours = self.host.own_writes.removed_by_us(path)  # `ChangeApplied` moves on from it
        self.host.own_writes.seen(paths)
        # A folder that vanished is reported as `folder/`, a sweep that caught up as no path at all.
        if not ours and (not paths or any(p == path or (p.endswith("/") and path.startswith(p)) for p in paths)):
            self.host.read_document(view.document.id, remember=False, from_disk=True)

    def announce_agents(self, paths: list[str]) -> None:
        """A toast for each request an agent has just left in a changed file (the watcher re-read them)."""
        if self.host.vault is None:
            return
        # A sweep that caught up says no paths: a write whose event the OS lost is among all the
        # documents, and is news all the same.
        fresh = [r for r in self.host.vault.requests_in(paths or None) if r.at > self.agents_seen]
        if fresh:
            self.agents_seen = max(r.at for r in fresh)
            more = f" (and {len(fresh) - 1} more)" if len(fresh) > 1 else ""
            self.host.notify(
                f"{fresh[0].agent}: {fresh[0].describe()}{more}",
                title="An agent wrote · i opens the inbox",
                markup=False,
            )

    def gone(self, doc_id: str, from_disk: bool) -> None:
        """The open document's file is gone: keep it on show under a banner. A document met going
        back or forward is taken out of the history and stepped over; one asked for by name is
        said to be gone."""
        viewer = self.host.query_one(DocumentViewer)
        view = viewer.view
        shown = view.document.id if view is not None else None
        if view is not None and doc_id == shown and self.host.own_writes.removed_by_us(view.document.path):
            self.left_behind(shown)  # our own change removed it, and says so
            return
        if view is not None and doc_id == shown:
            viewer.gone = True
            self.host.refresh_bindings()
            if from_disk:
                self.host.notify(
                    f"{view.document.path} was deleted on disk",
                    title="Deleted outside the workbench",
                    severity="warning",
                    markup=False,
                )
            return
        if doc_id not in self.host.history:  # never opened here: a dangling link, not a deletion
            self.host.notify(
                f"No document of the vault is called {doc_id}",
                title="Cannot open it",
                severity="error",
                markup=False,
            )
            return
        step = self.host.history.drop(doc_id, shown)
        self.host.notify(
            f"{doc_id} was deleted on disk" + ("; skipped" if step else ""),
            title="No longer in the vault",
            severity="warning",
            markup=False,
        )
        if step < 0:
            self.host.action_back()
        elif step > 0:
            self.host.action_forward()

    def left_behind(self, doc_id: str) -> None:
        """The change just written removed the document on show (an undone creation): it leaves the
        history, and the document before it comes back, or none. It is not shown as deleted on
        disk: nobody else deleted it, and the notice of the change says what it did."""
        self.host.history.drop(doc_id, None)
        before = self.host.history.current
        viewer = self.host.query_one(DocumentViewer)
        viewer.gone = False
        if before is not None and self.host.vault is not None and before in self.host.vault:
            self.host.read_document(before, remember=False)
        else:
            viewer.view = None
            self.host.query_one(LinkPane).neighbours = None
        self.host.refresh_bindings()
