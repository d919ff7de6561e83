"""The key a kept row is stored under, a digest of its bytes, and the check of a row read against it.

The kept records (`weighing`, `kept_successors`) name their rows by these keys, so a row never
changes under its key. A row whose bytes are not those its key digests was damaged in the store
(a byte flipped, a page written half): it is treated as gone, and what named it is worked out
again, never read as kept."""

from __future__ import annotations

import hashlib

__all__ = ["key_of", "checked"]


def key_of(value: bytes, salt: str = "") -> str:
    """The key of `value`; `salt` (a decision's id) makes the rows of two decisions with the same
    bytes two rows, each named by one decision only."""
    if salt:
        value = salt.encode("utf-8", "surrogatepass") + b"\0" + value
    return hashlib.blake2b(value, digest_size=12).hexdigest()


def checked(found: dict[str, bytes]) -> dict[str, bytes]:
    """The rows of `found` (unsalted keys) whose bytes are those their key digests."""
    return {key: value for key, value in found.items() if key_of(value) == key}
