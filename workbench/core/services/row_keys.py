"""The key a kept row is stored under, a digest of its bytes, and the check of a row read against it;
and which of a fixed number of rows holds what is kept of a name or a pair (`row_of`).

The kept records (`weighing`, `kept_successors`) name their rows by these keys, so a row never
changes under its key. A row whose bytes are not those its key digests was damaged in the store
(a byte flipped, a page written half): it is treated as gone, and what named it is worked out
again, never read as kept."""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterable

__all__ = ["KEY_SIZE", "key_of", "checked", "packed", "unpacked", "crc_of", "row_of", "rows_of"]

KEY_SIZE = 12  # bytes of a key's digest (twice as many hexadecimal digits)


def key_of(value: bytes, salt: str = "") -> str:
    """The key of `value`; `salt` (a decision's id) makes the rows of two decisions with the same
    bytes two rows, each named by one decision only."""
    if salt:
        value = salt.encode("utf-8", "surrogatepass") + b"\0" + value
    return hashlib.blake2b(value, digest_size=KEY_SIZE).hexdigest()


def checked(found: dict[str, bytes]) -> dict[str, bytes]:
    """The rows of `found` (unsalted keys) whose bytes are those their key digests."""
    return {key: value for key, value in found.items() if key_of(value) == key}


_NONE = bytes(KEY_SIZE)  # a place holding no row ("")


def packed(keys: list[str]) -> bytes:
    """Keys (each `key_of`'s, or "" for none) as KEY_SIZE bytes each: a record names thousands of
    rows, and their hexadecimal digits, a string each, took twice the bytes and a object each."""
    return b"".join(bytes.fromhex(key) if key else _NONE for key in keys)


def unpacked(data: bytes) -> list[str]:
    """The keys `packed` gave these bytes of (a `ValueError` for bytes that are not keys)."""
    if type(data) is not bytes or len(data) % KEY_SIZE:
        raise ValueError("not a list of keys")
    digits, size = data.hex(), 2 * KEY_SIZE
    none = "0" * size
    return ["" if key == none else key for key in (digits[at : at + size] for at in range(0, len(digits), size))]


def crc_of(text: str) -> int:
    """The CRC that chooses a kept row for a key (an id, a term, a pair's ids joined by a tab): the
    same in every process, and for an id holding a lone surrogate (which a strict encoding raised on)."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def row_of(name: str | tuple[str, str], rows: int) -> int:
    """Which of `rows` rows holds what is kept of `name` (a document's id, a term; a pair of ids,
    joined by a tab): a CRC of its UTF-8, the same in every process (`hash` is not); an id holding
    a lone surrogate (a YAML escape) is encoded as it is held, never refused."""
    return crc_of(f"{name[0]}\t{name[1]}" if isinstance(name, tuple) else name) % rows


def rows_of(names: Iterable[str], rows: int) -> list[int]:
    """`row_of` each of `names`, in one pass: a caller placing every decision at every call
    (10,000 of them) makes no call for each."""
    crc = zlib.crc32
    return [crc(name.encode("utf-8", "surrogatepass")) % rows for name in names]
