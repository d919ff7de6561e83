"""The workflow gate of seed 000, kept per connection: visibility is not authorization.

An agent may read anything, but it changes (merges into, supersedes, asks to forget) only a document
this connection was shown by a search (or a context pack, or the gate's candidates) and then read
through to its end, in the version on disk now: if the file changed since, it must read it again.
A new document needs a duplicate search first: a search whose query holds at least half of the
title's distinctive words, or a `propose` of the same title, in this connection. The seed scopes
this to a user's turn; a protocol connection has no turns, so it lasts as long as the connection.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from ..core.model import RefusedError
from ..core.similarity import STOPWORDS

__all__ = ["GateSession", "title_words"]

_WORD = re.compile(r"[a-z0-9]+")


def title_words(text: str) -> set[str]:
    """The words that say what a title is about: lowercase, no stop words (all words, if only those)."""
    words = set(_WORD.findall(text.lower()))
    return {w for w in words if w not in STOPWORDS} or words


@dataclass
class _Read:
    digest: str
    covered: int  # characters of the body read from its start, without a gap
    length: int


class GateSession:
    """What one connection has searched, been shown and read. Safe to share between threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queries: list[set[str]] = []
        self._proposed: set[tuple[str, str]] = set()
        self._shown: set[str] = set()
        self._read: dict[str, _Read] = {}

    # -- what happened -------------------------------------------------------------------------

    def searched(self, query: str, shown: list[str]) -> None:
        with self._lock:
            self._queries.append(title_words(query))
            self._shown.update(shown)

    def proposed(self, doc_type: str, title: str, shown: list[str]) -> None:
        """The gate's candidates for a draft: a duplicate search for its title."""
        with self._lock:
            self._proposed.add((doc_type, " ".join(sorted(title_words(title)))))
            self._queries.append(title_words(title))
            self._shown.update(shown)

    def shown(self, ids: list[str]) -> None:
        with self._lock:
            self._shown.update(ids)

    def read(self, doc_id: str, digest: str, offset: int, count: int, length: int) -> bool:
        """Record `count` characters of the body read from `offset`; True once it is read to its end."""
        with self._lock:
            known = self._read.get(doc_id)
            if known is None or known.digest != digest:
                known = self._read[doc_id] = _Read(digest, 0, length)
            if offset <= known.covered:
                known.covered = max(known.covered, offset + count)
            return known.covered >= known.length

    def wrote(self, doc_id: str, digest: str, length: int) -> None:
        """The agent's own write: it knows what it wrote, as if shown and read."""
        with self._lock:
            self._shown.add(doc_id)
            self._read[doc_id] = _Read(digest, length, length)

    # -- what the gate asks --------------------------------------------------------------------

    def require_duplicate_search(self, doc_type: str, title: str) -> None:
        words = title_words(title)
        with self._lock:
            if (doc_type, " ".join(sorted(words))) in self._proposed:
                return
            if any(len(words & query) * 2 >= len(words) for query in self._queries):
                return
        raise RefusedError(
            f"search for duplicates of “{title}” first: memory_search with the title's words, or memory_write with "
            "decision=\"propose\" (it ranks the documents this may belong in); then write")

    def require_read(self, doc_id: str, digest: str, what: str) -> None:
        """Refuse to `what` `doc_id` unless it was shown and read to its end, as it is now (`digest`)."""
        with self._lock:
            shown = doc_id in self._shown
            known = self._read.get(doc_id)
        if not shown:
            raise RefusedError(f"{doc_id} has not been returned by a search in this session; find it with memory_search "
                               f"(or memory_context), read it with memory_read, then {what}")
        if known is None or known.covered < known.length:
            more = "" if known is None else f" (read up to character {known.covered} of {known.length}; continue with offset)"
            raise RefusedError(f"{doc_id} has not been read in this session{more}; read it with memory_read before you {what}")
        if known.digest != digest:
            raise RefusedError(f"{doc_id} changed since you read it; read it again with memory_read before you {what}")
