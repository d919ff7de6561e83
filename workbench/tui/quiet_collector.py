"""The cycle collector's full collections, moved to moments when the person is not waiting.

A full collection walks every object alive and not frozen: at 100,000 documents, once the vault is
frozen (`screens/main.py`), about 35,000 of the screen's own (its widgets, the lines Textual keeps
drawn) and what a closed dialog left, 40-90 ms of CPU on a loaded machine. Python starts one
when enough objects have survived since the last, which a dialog's first frames do (the queue's
rows, its detail): the collection then fell in those frames, and the screen stood still for both.

From the first titles on (a collection before them would delay them), Python starts a full
collection ten times less often (`FULL_EVERY` younger collections, not 10), and the app runs one
itself once no key or click has come for `QUIET` seconds, when a screen has closed since the last
(a closed dialog is a heap of objects that refer to one another, which only a full collection
frees) or `DUE_EVERY` younger ones have come since. Each takes as long as before, but in a pause,
not in a frame the person waits for.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence

__all__ = ["DUE_EVERY", "FULL_EVERY", "QUIET", "QuietCollector"]

FULL_EVERY = 100
"""Younger collections between two full ones Python starts itself while the app runs (its
default: 10); the app's own, in pauses, come between."""

QUIET = 0.4
"""Seconds without a key or a click after which a full collection due is run."""

LOOK_EVERY = 0.2
"""Seconds between two looks at whether one is due (a timer of the app's)."""

DUE_EVERY = 30
"""Younger collections since the last full one past which one is due in a pause, a screen closed
or not (Python's own count between two is 10: at 10, while a long search ran with no key pressed,
a full collection came every few tenths of a second, 16 in a session of 40 s)."""


class QuietCollector:
    """Call `start` once the app runs, `touched` at each key or click, `look` every `LOOK_EVERY`
    seconds with the screens on the stack; `stop` when it ends (Python's thresholds again)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last_input = clock()
        self._screens: set[int] = set()
        self._closed = False
        """A screen has left the stack since the last full collection."""
        self._thresholds: tuple[int, int, int] | None = None
        self.collections = 0
        """Full collections run here (for tests and measurements)."""

    def start(self) -> None:
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            young, middle, _ = self._thresholds
            gc.set_threshold(young, middle, FULL_EVERY)

    def stop(self) -> None:
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def touched(self) -> None:
        """A key or a click came: the person may be waiting for what it does."""
        self._last_input = self._clock()

    def look(self, screens: Sequence[object]) -> bool:
        """Run a full collection if one is due and no input has come for `QUIET` seconds; whether
        it ran."""
        now = {id(screen) for screen in screens}
        if self._screens - now:
            self._closed = True
        self._screens = now
        if self._clock() - self._last_input < QUIET or not gc.isenabled():
            return False
        if not self._closed and gc.get_count()[2] < DUE_EVERY:
            return False
        gc.collect()
        self._closed = False
        self.collections += 1
        return True
