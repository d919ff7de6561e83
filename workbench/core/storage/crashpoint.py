"""Named steps of a write where tests stop the process, to prove that the next open recovers.

`WORKBENCH_CRASH_AT=name[:n]` kills the process the n-th time it reaches the step `name`.
`WORKBENCH_INTERRUPT_AT=name[:n]` interrupts it there instead, as Ctrl+C does (SIGINT, which Python
raises as KeyboardInterrupt in the main thread), and the step goes on a moment later: from one of
the writer's threads, the main thread gives up while that write is still under way. A test that
acts as an agent would at that moment replaces `crash_point` here: every writer calls it through
this module (`crashpoint.crash_point(...)`), so one replacement reaches them all.
"""

from __future__ import annotations

import os
import threading
import time

__all__ = ["crash_point"]

INTERRUPTED_STEP_GOES_ON_AFTER = 1.0  # seconds: the interrupt is handled long before
_counting = threading.Lock()  # the writer's threads reach a step at once: each reach counted once


def _reached(variable: str, name: str) -> bool:
    """Whether the step named in `variable` is `name` and this is its n-th reach."""
    wanted = os.environ.get(variable)
    if not wanted:
        return False
    with _counting:
        wanted = os.environ.get(variable, "")
        step, _, count = wanted.partition(":")
        if step != name:
            return False
        remaining = int(count or 1) - 1
        os.environ[variable] = f"{step}:{remaining}" if remaining > 0 else ""
        return remaining <= 0


def crash_point(name: str) -> None:
    """Stop the process here if `WORKBENCH_CRASH_AT` names this step (and its count is reached);
    interrupt it if `WORKBENCH_INTERRUPT_AT` does."""
    if _reached("WORKBENCH_CRASH_AT", name):
        os._exit(137)
    if _reached("WORKBENCH_INTERRUPT_AT", name):
        import signal  # asked in tests alone

        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(INTERRUPTED_STEP_GOES_ON_AFTER)
