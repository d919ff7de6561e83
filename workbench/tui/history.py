"""Where the person has been: back and forward through opened documents, like a browser.

A document whose file is deleted on disk leaves the history (`drop`): going back past it steps over
it, rather than stopping at a page that can no longer be opened.
"""

from __future__ import annotations

__all__ = ["History"]


class History:
    """Opening a document drops the forward entries; going back and forward moves along the list."""

    def __init__(self) -> None:
        self._stack: list[str] = []
        self._index = -1

    @property
    def current(self) -> str | None:
        return self._stack[self._index] if self._stack else None

    @property
    def can_go_back(self) -> bool:
        return self._index > 0

    @property
    def can_go_forward(self) -> bool:
        return self._index < len(self._stack) - 1

    def visit(self, doc_id: str) -> None:
        if doc_id == self.current:
            return
        del self._stack[self._index + 1 :]
        self._stack.append(doc_id)
        self._index = len(self._stack) - 1

    def back(self) -> str | None:
        if not self.can_go_back:
            return None
        self._index -= 1
        return self.current

    def forward(self) -> str | None:
        if not self.can_go_forward:
            return None
        self._index += 1
        return self.current

    def drop(self, doc_id: str, shown: str | None) -> int:
        """Take every entry of `doc_id` out, `shown` (the document still on screen) current again.
        Returns the way the person was going when they met it, to keep going: -1 back, 1 forward,
        0 when they did not meet it by going back or forward."""
        if doc_id not in self._stack:
            return 0
        here = self._index
        step = 0
        if self.current == doc_id:
            if here + 1 < len(self._stack) and self._stack[here + 1] == shown:
                step, here = -1, here + 1
            elif here > 0 and self._stack[here - 1] == shown:
                step, here = 1, here - 1
        kept = [(i, entry) for i, entry in enumerate(self._stack) if entry != doc_id]
        self._stack = [entry for _, entry in kept]
        self._index = max((n for n, (i, _) in enumerate(kept) if i <= here), default=0 if kept else -1)
        return step

    def trail(self, most: int = 5) -> list[str]:
        """The path walked to the current document (at most `most` steps, the current one last)."""
        return self._stack[max(0, self._index + 1 - most) : self._index + 1]

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._stack

    def __len__(self) -> int:
        return len(self._stack)
