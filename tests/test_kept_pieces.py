"""A large kept value read and decoded a piece at a time (`records/kept_pieces.py`): what is read is
what `marshal.loads` and `json` give for the whole, the conflicts queue's duplicates are never read
or decoded whole, and damaged data is refused as before."""

from __future__ import annotations

import io
import json
import marshal

import pytest

from workbench import Vault
from workbench.core.records import kept_pieces
from workbench.core.records.derived_store import DerivedStore
from workbench.core.records.kept_pieces import Pieces, json_values, unmarshal_in_pieces
from workbench.core.services import kept_conflicts


def joined(value):
    """`value` with every `Pieces` in it joined: what `marshal.loads` gives."""
    if isinstance(value, tuple) and not isinstance(value, Pieces):
        return tuple(joined(v) for v in value)
    return "".join(value) if isinstance(value, Pieces) else value


def test_a_tuple_of_texts_and_bytes_is_read_as_marshal_reads_it(monkeypatch):
    monkeypatch.setattr(kept_pieces, "PIECE", 7)  # every text of more than 7 bytes in pieces
    shared = "the same text, twice"
    values = [
        (),
        ("a" * 64, "x" * 300, "é, 重试 and 🙂 " * 40, "\udc80 a lone surrogate " * 3, b"\x00\x01" * 50, ""),
        (shared, shared, "short"),
        tuple(f"entry {i}" for i in range(300)),  # more than 255: a tuple with a length of four bytes
        ("z" * 7, "z" * 8, "ü" * 3, "ü" * 4),
    ]
    for value in values:
        data = marshal.dumps(value)
        found = unmarshal_in_pieces(io.BytesIO(data))
        assert joined(found) == marshal.loads(data)
        assert all(isinstance(v, (str, bytes, Pieces)) for v in found)
    assert isinstance(unmarshal_in_pieces(io.BytesIO(marshal.dumps(("x" * 300,))))[0], Pieces)
    # Anything else is read whole, as marshal reads it.
    for other in ({"a": 1}, [1, 2], "text", (1, 2.5), (("nested",),)):
        assert unmarshal_in_pieces(io.BytesIO(marshal.dumps(other))) == other


def test_damaged_marshal_data_is_refused_as_marshal_refuses_it(monkeypatch):
    monkeypatch.setattr(kept_pieces, "PIECE", 7)
    data = marshal.dumps(("digest", "é" * 100, b"bytes"))
    for cut in range(1, len(data)):
        with pytest.raises((EOFError, ValueError)):
            marshal.loads(data[:cut])
        with pytest.raises((EOFError, ValueError)):
            unmarshal_in_pieces(io.BytesIO(data[:cut]))


def test_json_values_from_pieces_cut_anywhere_are_those_of_the_whole():
    text = ' ["dup", ["a", "b"], "a \\"quoted\\" ], [ reason", [["x", "y", "z"]], 12], [1, 2.5e3] , 12345, "é 重试" '
    whole = json.loads(f"[{text}]")
    for size in range(1, 12):
        pieces = [text[at : at + size] for at in range(0, len(text), size)]
        assert list(json_values(pieces)) == whole, size
    assert list(json_values([text])) == whole
    assert list(json_values(["  ", "\n"])) == list(json_values([])) == []
    for damaged in ("[1], oops", "[1],", "[1] [2]", "[1", "1 2", ",", "[1],,[2]"):
        for size in (1, 2, 100):
            pieces = [damaged[at : at + size] for at in range(0, len(damaged), size)]
            with pytest.raises(ValueError):
                list(json_values(pieces))


def test_a_value_longer_than_a_few_pieces_is_decoded_whole_once(monkeypatch):
    monkeypatch.setattr(kept_pieces, "LONGEST_VALUE", 10)
    text = '"' + "x" * 100 + '", [1]'
    assert list(json_values([text[at : at + 3] for at in range(0, len(text), 3)])) == ["x" * 100, [1]]


def test_the_kept_queues_duplicates_are_never_read_or_decoded_whole(sample_copy, monkeypatch):
    """A screen reads the queue in a thread: at 100,000 documents its duplicates (72 MB) read with
    one query and decoded by one `marshal.loads` held the interpreter 0.1-0.5 s, the screen still
    meanwhile. They are read a piece at a time, and their text handed on as its pieces."""
    found = Vault.open(sample_copy).conflicts()
    assert any(c.kind == "duplicate" for c in found)
    monkeypatch.setattr(kept_pieces, "PIECE", 16)
    read_whole, reads = [], []
    kept, kept_read = DerivedStore.kept, DerivedStore.kept_read

    def whole(store, name, key):
        read_whole.append(name)
        return kept(store, name, key)

    def in_pieces(store, name, key, read):
        return kept_read(store, name, key, lambda blob: read(_Counted(blob, reads)))

    monkeypatch.setattr(DerivedStore, "kept", whole)
    monkeypatch.setattr(DerivedStore, "kept_read", in_pieces)
    assert Vault.open(sample_copy).kept_conflicts() == found
    assert kept_conflicts.DUPLICATES not in read_whole
    # Read in pieces of 16 bytes (the digest, 64 bytes, whole): nothing near the value's length.
    assert sum(reads) > 1000 and max(reads) <= 64


class _Counted:
    """A blob whose reads are counted (SQLite's `Blob` takes no new attributes)."""

    def __init__(self, blob, reads: list[int]) -> None:
        self.blob, self.reads = blob, reads

    def read(self, size: int = -1) -> bytes:
        data = self.blob.read(size)
        self.reads.append(len(data))
        return data

    def seek(self, offset: int, origin: int = 0) -> None:
        self.blob.seek(offset, origin)
