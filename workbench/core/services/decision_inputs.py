"""Which decisions' profiles may have moved since the likeliest successors were kept, told without
a line for each decision.

A decision's profile is made from what `kept_successors.read_from` puts in its line: its id, its
file (digest and path), its status and its links as resolved. Its status is its file's reading, and
what a link resolves to depends on its own file and on the set of every id of the vault, nothing
else (`records.ownership`). So while every id stands where it stood (the `frame`: every id a file of
the vault owns, an invalid file's too, and the decisions' ids in the documents' order), a decision's
line can move only with its file's digest or path. Those are kept in `CHUNK`-decision slices of the
decisions in order, each a row of its own (the slice's digests, then its paths) named by the record
with a digest of its text: a call joins each slice and hashes it (C's work, no call for each
decision), reads the rows of the few slices whose digest moved, and makes the lines of the decisions
whose file moved in them alone. Making every decision's line and hashing it by rows of decisions
took a third of the likeliest successors' time after one change (0.03 of 0.08 s under a profiler,
10,000 decision records). A frame that moved (a file added, removed or renamed to another id, a type
changed) leaves the telling to the lines.
"""

from __future__ import annotations

import hashlib
import marshal
from collections.abc import Callable, Iterable, Mapping
from operator import attrgetter
from typing import Any

from ..vocabulary.model import Document

__all__ = ["CHUNK", "DecisionInputs", "KeptFiles", "joined"]

CHUNK = 64  # decisions to a slice: 157 slices at 10,000, a change reads and rewrites one of 5 KB

_DIGEST, _PATH, _ID = attrgetter("digest"), attrgetter("path"), attrgetter("id")


def joined(parts: list[str]) -> str:
    """The parts joined by line breaks; where one holds a break itself (a path may), a nul and the
    list's `repr`, so no two lists give one text."""
    text = "\n".join(parts)
    if text.count("\n") != max(0, len(parts) - 1):
        text = "\0" + repr(parts)  # no plain join starts with a nul
    return text


def _hash(*texts: str) -> bytes:
    digest = hashlib.blake2b(digest_size=16)
    for text in texts:
        digest.update(text.encode("utf-8", "surrogatepass") + b"\0")
    return digest.digest()


class DecisionInputs:
    """The decisions as they are now, for `kept_successors`: their frame, the slices of their files
    (`slices`), and their lines (`kept_successors.read_from`) made only for those asked."""

    def __init__(
        self,
        owned: Iterable[str],
        decisions: list[Document],
        related: Mapping[str, tuple],
        read: Callable[[Iterable[Document], Mapping[str, tuple]], dict[str, str]],
    ):
        self.decisions, self.related, self._read = decisions, related, read
        self.ids = list(map(_ID, decisions))
        self._at: dict[str, int] | None = None
        self.frame = _hash(joined(list(owned)), joined(self.ids))
        self._files = list(map(_DIGEST, decisions)), list(map(_PATH, decisions))
        self._lines: dict[str, str] | None = None
        self._digests: list[bytes] | None = None

    def has(self, doc_id: str) -> bool:
        return doc_id in self.at()

    def at(self) -> dict[str, int]:
        """{decision: its place among the decisions}."""
        if self._at is None:
            self._at = dict(zip(self.ids, range(len(self.ids))))
        return self._at

    def __len__(self) -> int:
        return len(self.ids)

    def lines(self) -> dict[str, str]:
        """Every decision's line, in the decisions' order."""
        if self._lines is None:
            self._lines = self._read(self.decisions, self.related)
        return self._lines

    def lines_of(self, doc_ids: Iterable[str]) -> dict[str, str]:
        """The lines of these decisions alone."""
        if self._lines is not None:
            return {doc_id: self._lines[doc_id] for doc_id in doc_ids}
        at = self.at()
        return self._read((self.decisions[at[doc_id]] for doc_id in doc_ids), self.related)

    def slices(self) -> list[list[str]]:
        """The decisions' files, `CHUNK` at a time: each slice's digests, then its paths."""
        digests, paths = self._files
        return [digests[at : at + CHUNK] + paths[at : at + CHUNK] for at in range(0, len(digests), CHUNK)]

    def digests(self) -> list[bytes]:
        """Each slice's digest (made once)."""
        if self._digests is None:
            self._digests = [_hash(joined(part)) for part in self.slices()]
        return self._digests


class KeptFiles:
    """The frame and the slices of the decisions' files as kept with the likeliest successors: the
    record holds `frame`, and for each slice its digest and its row's key (the row: the slice's
    texts, marshalled)."""

    def __init__(self, frame: bytes = b"", digests: list[bytes] | None = None, keys: list[str] | None = None):
        self.frame, self.digests, self.keys = frame, digests or [], keys or []

    def dumped(self) -> tuple:
        return (self.frame, self.digests, self.keys)

    @classmethod
    def loaded(cls, value: Any) -> KeptFiles:
        frame, digests, keys = value
        if not (type(frame) is bytes and type(digests) is list and type(keys) is list and len(digests) == len(keys)):
            raise TypeError("not the decisions' files as kept")
        return cls(frame, digests, keys)

    def moved(self, now: DecisionInputs, row: Callable[[str], bytes]) -> set[str] | None:
        """The decisions whose file moved since these were kept (`row(key)`: a slice's row, read as
        asked); None where that cannot be told so (the frame moved, nothing kept): every line tells.
        Raises ValueError where a slice's row is not the text its digest names."""
        if not self.frame or self.frame != now.frame:
            return None
        digests = now.digests()
        if len(digests) != len(self.digests):
            return None
        slices = now.slices()
        found: set[str] = set()
        for n, digest in enumerate(digests):
            if digest == self.digests[n]:
                continue
            part, before = slices[n], marshal.loads(row(self.keys[n]))
            if type(before) is not list or len(before) != len(part) or _hash(joined(before)) != self.digests[n]:
                raise ValueError(f"the decisions' files kept in {self.keys[n]} are not those named")
            start, size = n * CHUNK, len(part) // 2
            found.update(
                now.ids[start + k]
                for k in range(size)
                if before[k] != part[k] or before[size + k] != part[size + k]  # its digest or its path
            )
        return found

    @classmethod
    def made(cls, now: DecisionInputs, before: KeptFiles, add: Callable[[bytes], str]) -> tuple[KeptFiles, set[str]]:
        """The files kept as they are now, a slice's row made again (`add(value)`: its key) only
        where its digest moved; with the keys of the rows no longer named."""
        digests, keys = [], []
        for n, (part, digest) in enumerate(zip(now.slices(), now.digests())):
            if n < len(before.digests) and before.digests[n] == digest:
                key = before.keys[n]
            else:
                key = add(marshal.dumps(part))
            digests.append(digest)
            keys.append(key)
        return cls(now.frame, digests, keys), set(before.keys) - set(keys)
