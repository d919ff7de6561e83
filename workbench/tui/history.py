"""Where the person has been: back and forward through opened documents, like a browser."""

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

    def trail(self, most: int = 5) -> list[str]:
        """The path walked to the current document (at most `most` steps, the current one last)."""
        return self._stack[max(0, self._index + 1 - most) : self._index + 1]

    def __len__(self) -> int:
        return len(self._stack)
