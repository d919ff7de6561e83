"""The screen's memory of its own writes, so that the watcher's echo of them is not news.

The vault's watcher reports every file that changed on disk, whoever changed it. A change the
person made here (through a preview, an undo, or an edit in `$EDITOR`, written as a preview is)
comes back from the watcher a moment later; it must not be announced as "changed outside the workbench", and a document our own change
removed (an undone creation) must not be shown as "deleted on disk". Anything else the watcher
brings is news: another program's write, even to a file we wrote before, once its bytes differ.
"""

from __future__ import annotations

from collections.abc import Iterable

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core import FileChange

__all__ = ["OwnWrites"]


class OwnWrites:
    """What our last write left in each file, and which files our writes removed.

    `wrote` records a change as written. The watcher's report is then asked about: `is_ours(path,
    text)` says whether the file holds exactly what we left there, `removed_by_us(path)` whether our
    change removed it, until `seen` is told the watcher has reported the file (its going is then no
    longer pending)."""

    def __init__(self) -> None:
        self._written: dict[str, bytes] = {}
        self._removed: set[str] = set()

    def wrote(self, changes: Iterable[FileChange]) -> None:
        """A plan was written: each file holds its `after` now, or is gone when that is None."""
        for change in changes:
            if change.after is None:
                self._removed.add(change.path)
                self._written.pop(change.path, None)
            else:
                self._written[change.path] = change.after
                self._removed.discard(change.path)

    def is_ours(self, path: str, text: str) -> bool:
        """Whether `text` (the file's content as read, decoded) is what our last write left in `path`."""
        ours = self._written.get(path)
        return ours is not None and ours.decode("utf-8", "replace") == text

    def removed_by_us(self, path: str) -> bool:
        """Whether our own change removed `path` and the watcher has not yet reported it gone."""
        return path in self._removed

    def seen(self, paths: Iterable[str]) -> None:
        """The watcher reported `paths`: a removal of ours among them is no longer pending."""
        self._removed.difference_update(paths)
