"""A large value of the derived store read and decoded a piece at a time, so that the thread reading
it lets the others run.

At 100,000 documents the conflicts queue's duplicates are kept as one value of 72 MB
(`kept_conflicts.DUPLICATES`): read with one query and `marshal.loads`, it held the interpreter in
two calls of 0.1-0.5 s (SQLite hands a row's value over whole, and a text of 72 million
characters is decoded and allocated at once), and a TUI reading the queue in a thread stood still
for as long. Here the value is read through SQLite's incremental blob I/O (`DerivedStore.kept_read`)
a megabyte at a time, its texts are decoded from UTF-8 a megabyte at a time, and a long one is
handed on as its pieces (`Pieces`), never joined: `json_values` reads JSON values from the pieces,
one at a time, as they are.

Only what `marshal.dumps` writes for a tuple of texts and bytes is read this way (its format,
version 4: a type code, a length, the bytes); anything else is read whole by `marshal.loads`.
"""

from __future__ import annotations

import codecs
import json
import marshal
import re
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

__all__ = ["PIECE", "Pieces", "json_values", "unmarshal_in_pieces"]

PIECE = 1 << 20
"""Bytes read, and decoded, at a time: about a millisecond of either."""

_FLAG_REF = 0x80
_TEXTS = {ord("a"): 4, ord("A"): 4, ord("z"): 1, ord("Z"): 1, ord("u"): 4, ord("t"): 4}
"""marshal's type codes of a text, with the bytes of its length: ASCII (`a`, `z`, interned `A`,
`Z`) or UTF-8 (`u`, interned `t`)."""
_UTF8 = frozenset((ord("u"), ord("t")))
_BYTES = ord("s")
_REF = ord("r")
_TUPLES = {ord("("): 4, ord(")"): 1}


class Pieces(tuple):
    """A text given as its pieces, in order: what `"".join(pieces)` would give, never made."""

    __slots__ = ()


def unmarshal_in_pieces(source: BinaryIO) -> Any:
    """What `marshal.loads(source.read())` gives, read from `source` a piece at a time where it
    is a tuple of texts and bytes, each text longer than `PIECE` bytes (and than 255: a short one
    is always whole) given as its `Pieces`; anything else read whole. ValueError, EOFError or
    TypeError where `marshal.loads` would raise."""
    head = source.read(1 + 4)
    kind = head[0] & ~_FLAG_REF if head else None
    if kind not in _TUPLES:
        source.seek(0)
        return marshal.loads(source.read())
    size = _TUPLES[kind]
    if len(head) < 1 + size:
        raise EOFError("marshal data too short")
    count = _length(head[1 : 1 + size])
    source.seek(1 + size)
    # The tuple's own place among the references, where it has one: nothing read here refers to it.
    refs: list[Any] = [None] if head[0] & _FLAG_REF else []
    try:
        return tuple(_value(source, refs) for _ in range(count))
    except _Other:
        source.seek(0)
        return marshal.loads(source.read())


class _Other(Exception):
    """A value of a type this reader leaves to `marshal.loads`."""


def _value(source: BinaryIO, refs: list[Any]) -> Any:
    """One text, bytes or reference to an earlier one, from where `source` stands."""
    code = source.read(1)
    if not code:
        raise EOFError("marshal data too short")
    kind, flagged = code[0] & ~_FLAG_REF, code[0] & _FLAG_REF
    if kind == _REF:
        index = _length(_exactly(source, 4))
        if index >= len(refs):
            raise ValueError("bad marshal data (invalid reference)")
        return refs[index]
    if kind == _BYTES:
        value: Any = _exactly(source, _length(_exactly(source, 4)))
    elif kind in _TEXTS:
        length = _length(_exactly(source, _TEXTS[kind]))
        encoding = "utf-8" if kind in _UTF8 else "latin-1"
        # A short text (a digest: marshal gives its length one byte) is always whole.
        value = _text(source, length, encoding) if _TEXTS[kind] == 4 else _exactly(source, length).decode(encoding)
    else:
        raise _Other
    if flagged:
        refs.append(value)
    return value


def _length(data: bytes) -> int:
    """A length or an index as marshal writes it: one byte, or four signed, little-endian."""
    found = int.from_bytes(data, "little", signed=len(data) == 4)
    if found < 0:
        raise ValueError("bad marshal data (a negative length)")
    return found


def _exactly(source: BinaryIO, length: int) -> bytes:
    found = source.read(length)
    if len(found) != length:
        raise EOFError("marshal data too short")
    return found


def _text(source: BinaryIO, length: int, encoding: str) -> str | Pieces:
    """`length` bytes of `source` decoded; a `Pieces` where they are more than one piece."""
    if length <= PIECE:
        return _exactly(source, length).decode(encoding, "surrogatepass")
    decoder = codecs.getincrementaldecoder(encoding)("surrogatepass")
    pieces = []
    left = length
    while left:
        piece = _exactly(source, min(PIECE, left))
        left -= len(piece)
        pieces.append(decoder.decode(piece, final=not left))
    return Pieces(pieces)


_SPACE = re.compile(r"[ \t\n\r]*")
"""JSON's whitespace, as `json.decoder` skips it."""
_DECODE = json.JSONDecoder().raw_decode
LONGEST_VALUE = 4 * PIECE
"""Characters of a value not yet decoded past which the rest of the pieces are joined at once: a
value longer than a few pieces (or a damaged text, which no piece more mends) is decoded in one
call rather than tried again at every piece."""


def json_values(pieces: Iterable[str]) -> Iterator[Any]:
    """The JSON values of the text `"".join(pieces)`, separated by commas (as a JSON list holds
    them, without its brackets; none in a text of whitespace), one at a time, decoded from the
    pieces as they are. ValueError on anything else."""
    ahead = iter(pieces)
    text, at, more = "", 0, True
    expected = False  # a value must come (after a comma)
    while True:
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if at == len(text):
            if more:
                text, at, more = _extended(text, at, ahead)
                continue
            if expected:
                raise ValueError("a comma with no value after it")
            return
        try:
            value, end = _DECODE(text, at)
        except ValueError:
            if not more:
                raise
            text, at, more = _extended(text, at, ahead)
            continue
        if end == len(text) and more:  # a number may go on in the next piece: decode it again
            text, at, more = _extended(text, at, ahead)
            continue
        yield value
        at = _SPACE.match(text, end).end()  # type: ignore[union-attr]
        while at == len(text) and more:
            text, at, more = _extended(text, at, ahead)
            at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if at == len(text):
            return
        if text[at] != ",":
            raise ValueError("not a list")
        at, expected = at + 1, True


def _extended(text: str, at: int, ahead: Iterator[str]) -> tuple[str, int, bool]:
    """What is left of `text` from `at`, and the next piece after it (every piece left where what
    is left is longer than `LONGEST_VALUE`); whether more pieces may follow."""
    rest = text[at:]
    if len(rest) > LONGEST_VALUE:
        return rest + "".join(ahead), 0, False
    piece = next(ahead, None)
    if piece is None:
        return rest, 0, False
    return rest + piece, 0, True
