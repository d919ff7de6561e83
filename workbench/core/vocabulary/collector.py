"""Python's cycle collector paused around a block that makes many objects that stay alive.

The collector runs each time enough objects have been made, and then walks every object still
alive. Reading thousands of files makes hundreds of thousands that all stay alive (records, their
meta), and working out the conflicts queue as many small ones beside them, so it would walk an
ever larger heap again and again: measured, that cost more than the YAML. Paused while they are
made, it runs as usual afterwards; reference counting frees what is done with meanwhile.

The collector is one for the whole process, and blocks on several threads pause it at once (a
screen's summary while a vault opens, the watcher's batches, a queue worked out): the pause is
counted. The first block in turns it off, and only the last one out turns it back on, and only if
it was on before the first came in; a block that leaves first never turns it on under another
still inside. Here, below every layer, so that the quick path pauses it without importing them.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
from collections.abc import Iterator

__all__ = ["collector_paused"]

_lock = threading.Lock()
_inside = 0  # blocks inside the pause, on any thread
_resume = False  # whether the collector was on when the first of them came in


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off for the block, and back on after the last block that paused it, if it
    was on before the first."""
    global _inside, _resume
    with _lock:
        if _inside == 0:
            _resume = gc.isenabled()
            gc.disable()
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0 and _resume:
                gc.enable()


def _after_fork() -> None:
    """A child forked while another thread held the lock would wait on it for ever: it gets a
    new one. The count stays: a block another thread of the parent was in never ends in the
    child, whose collector stays paused, as the child found it."""
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
