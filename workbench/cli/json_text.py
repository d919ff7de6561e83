"""JSON as every command prints it (`print_json`, and the conflicts queue's as pieces of UTF-8,
`print_pieces`), in a module of its own: an answer kept for an unchanged vault is printed through
it before the rest of the CLI and the core are imported (`output`'s imports took 6 ms of the
0.1 s of CPU a kept queue's answer takes at 10,000 documents)."""

from __future__ import annotations

import datetime as dt
import json
import sys
from typing import Any

__all__ = ["json_default", "print_json", "print_pieces"]


def json_default(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, default=json_default))


def print_pieces(pieces: list) -> None:
    """Pieces of UTF-8 written as they are where the output takes UTF-8 (none decoded or joined),
    as `print` would write their text; decoded and printed where it does not."""
    import codecs

    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is None or codecs.lookup(out.encoding or "ascii").name != "utf-8":
        print("".join(str(piece, "utf-8") for piece in pieces))
        return
    out.flush()
    for piece in pieces:
        buffer.write(piece)
    buffer.write(b"\n")
    buffer.flush()
