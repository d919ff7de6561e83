"""What Textual would keep alive of a closed dialog, let go, so that the cycle collector's heap
does not grow through a session.

Every object alive and not frozen is walked by each full collection of Python's cycle collector,
on the screen's thread, in whatever frame it falls. At 100,000 documents the vault is frozen once
read (`screens/main.py`), and what a session adds decides how long the screen stands still in a
full collection: each opening and closing of the conflicts queue left about 25,000 more objects
alive, through two holds of Textual's, and a full collection took 43 ms of CPU after one opening,
124 ms after five. Released here:

- A thread worker sets `active_worker` in its pool thread's own context, where it stays until the
  next worker runs on that thread: a finished worker, and through it the dialog that started it
  and every line that dialog drew, lived as long as the thread (up to six of them).
  `ReleasingExecutor` runs each job in a copy of the thread's context, dropped when it ends.
- `StylesCache.get_inner_outer` is an instance method under `functools.lru_cache`: its cache
  holds the last 1,024 `StylesCache`s it was called on, and each holds every line its widget
  drew (Textualize/textual#6665). `release_styles_caches` caches the same answer by the colours
  alone.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache, partial
from typing import Any

__all__ = ["ReleasingExecutor", "release_styles_caches"]


class ReleasingExecutor(ThreadPoolExecutor):
    """Textual's thread workers run here (the event loop's default executor, set by the app):
    each job in a context of its own, so nothing a job sets in it (the worker Textual marks
    active) outlives the job."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return super().submit(_in_own_context, fn, *args, **kwargs)


def _in_own_context(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    return contextvars.copy_context().run(fn, *args, **kwargs)


def release_styles_caches() -> None:
    """Textual's `StylesCache.get_inner_outer` answered by its own code, from a cache keyed by its
    two colours only, not by the `StylesCache` asked (which the answer never depended on). Once is
    enough; again changes nothing."""
    from textual._styles_cache import StylesCache

    asked = StylesCache.get_inner_outer
    if getattr(asked, "released", False):
        return
    answer = lru_cache(1024)(partial(asked.__wrapped__, None))

    def get_inner_outer(self: object, base_background: Any, background: Any) -> Any:
        return answer(base_background, background)

    get_inner_outer.released = True  # type: ignore[attr-defined]
    StylesCache.get_inner_outer = get_inner_outer  # type: ignore[method-assign,assignment]
