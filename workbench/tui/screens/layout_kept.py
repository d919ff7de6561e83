"""A screen laid out again under a dialog only for a size it was not laid out at.

Textual lays out every screen under a dialog again when the dialog gets its first size
(`Screen._on_resize`), the terminal's, which the screen under it was laid out at already: at
100,000 documents every widget of the main screen arranged again in the dialog's first frame
(25 ms of the screen's CPU). A change of its own meanwhile is laid out as always, by its
widgets' own refresh; a new terminal size lays it out again.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.screen import Screen

__all__ = ["LayoutKeptScreen"]


class LayoutKeptScreen(Screen[None]):
    """A screen that is laid out again for a new size only (see the module's docstring)."""

    def _screen_resized(self, size: Size) -> None:
        if size != self._compositor.size:
            super()._screen_resized(size)
