"""Named steps of a write where tests stop the process, to prove that the next open recovers.

`WORKBENCH_CRASH_AT=name[:n]` kills the process the n-th time it reaches the step `name`. A test
that acts as an agent would at that moment replaces `crash_point` here: every writer calls it
through this module (`crashpoint.crash_point(...)`), so one replacement reaches them all.
"""

from __future__ import annotations

import os

__all__ = ["crash_point"]


def crash_point(name: str) -> None:
    """Stop the process here if `WORKBENCH_CRASH_AT` names this step (and its count is reached)."""
    wanted = os.environ.get("WORKBENCH_CRASH_AT")
    if not wanted:
        return
    step, _, count = wanted.partition(":")
    if step != name:
        return
    remaining = int(count or 1) - 1
    if remaining <= 0:
        os._exit(137)
    os.environ["WORKBENCH_CRASH_AT"] = f"{step}:{remaining}"
