"""The lifecycle of a document: which status may follow which (SPEC §1, decided transitions).

`superseded` is never reached by a plain status change: it needs a successor named in the same
change, so it is only reachable through `Vault.supersede`.
"""

from __future__ import annotations

from .model import RefusedError, Status

__all__ = ["TRANSITIONS", "allowed_transitions", "check_transition", "transition_refusal"]

TRANSITIONS: dict[Status, tuple[Status, ...]] = {
    Status.DRAFT: (Status.ACTIVE, Status.ARCHIVED),
    Status.ACTIVE: (Status.DEPRECATED, Status.ARCHIVED),
    Status.DEPRECATED: (Status.ACTIVE, Status.ARCHIVED),
    Status.SUPERSEDED: (Status.ARCHIVED,),
    Status.ARCHIVED: (Status.DRAFT,),
}


def allowed_transitions(current: str) -> tuple[Status, ...]:
    """The statuses a plain status change may move `current` to."""
    try:
        return TRANSITIONS[Status(current)]
    except ValueError:
        return ()


def transition_refusal(current: str, new: str) -> str | None:
    """Why `current` → `new` is refused, or None when it is allowed."""
    try:
        target = Status(new)
    except ValueError:
        return f"{new!r} is not a status; statuses are {', '.join(Status)}"
    if target == Status.SUPERSEDED:
        return "a document becomes superseded only when its successor is named (supersede it with its successor)"
    allowed = allowed_transitions(current)
    if target not in allowed:
        names = ", ".join(allowed) if allowed else "none (the current status is not valid)"
        return f"{current} → {new} is not allowed; from {current} a document may go to: {names}"
    return None


def check_transition(current: str, new: str) -> None:
    reason = transition_refusal(current, new)
    if reason:
        raise RefusedError(reason)
