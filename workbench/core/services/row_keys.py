"""The key a kept row is stored under, a digest of its bytes, and the check of a row read against it;
and which of a fixed number of rows holds what is kept of a name (`row_of`).

The kept records (`weighing`, `kept_successors`) name their rows by these keys, so a row never
changes under its key. A row whose bytes are not those its key digests was damaged in the store
(a byte flipped, a page written half): it is treated as gone, and what named it is worked out
again, never read as kept."""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterable

__all__ = ["key_of", "checked", "row_of", "rows_of"]


def key_of(value: bytes, salt: str = "") -> str:
    """The key of `value`; `salt` (a decision's id) makes the rows of two decisions with the same
    bytes two rows, each named by one decision only."""
    if salt:
        value = salt.encode("utf-8", "surrogatepass") + b"\0" + value
    return hashlib.blake2b(value, digest_size=12).hexdigest()


def checked(found: dict[str, bytes]) -> dict[str, bytes]:
    """The rows of `found` (unsalted keys) whose bytes are those their key digests."""
    return {key: value for key, value in found.items() if key_of(value) == key}


def row_of(name: str, rows: int) -> int:
    """Which of `rows` rows holds what is kept of `name` (a document's id, a term): a CRC of its
    UTF-8, the same in every process (`hash` is not); an id read from a file name that is not
    UTF-8 (a lone surrogate) is encoded as it is held, never refused."""
    return zlib.crc32(name.encode("utf-8", "surrogatepass")) % rows


def rows_of(names: Iterable[str], rows: int) -> list[int]:
    """`row_of` each of `names`, in one pass: a caller placing every decision at every call
    (10,000 of them) makes no call for each."""
    crc = zlib.crc32
    return [crc(name.encode("utf-8", "surrogatepass")) % rows for name in names]
