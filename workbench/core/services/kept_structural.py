"""The conflicts queue's structural faults kept between calls, and given again while the facts they
are worked out from stand.

The structural faults (one-sided supersessions, an active record naming successors, double
supersessions, stale links, cycles) read of each document its id, its status, its supersessions
both ways and its links as resolved, nothing else (`conflicts.structural_facts`): not its body,
title, path or tags. At 10,000 decision records 1,177 faults were made again at every call, each
encoded again to be kept, though a change to a body (the curator's usual edit) moves none of those
facts. So the faults are kept, as `kept_conflicts.encode` gives each (but its rank), under a digest
of those facts with the code's: where the digest is the one kept, they are read back as
`conflicts.KeptConflict`s, which the queue keeps without encoding them again; where anything they
read moved (a status, a supersession, a link, a document added, removed or renamed to another id,
the documents' order), every one is worked out again, as the faults follow one another through
chains of supersession (a stale link's live end, a cycle) that a single document's change may
move anywhere. The faults of a record superseded without a named successor quote its likeliest
successors, which read the decisions' texts: those are never kept here (`kept_successors` keeps
what they are worked out from). A kept value that does not hold together (damaged, another
format) is worked out again.
"""

from __future__ import annotations

import hashlib
import marshal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .conflicts import Conflict

__all__ = ["FORMAT", "faults"]

FORMAT = 2  # of the value kept (`kept_conflicts.STRUCTURAL`: the faults kept last, under the digest of their facts)


def _key(facts: bytes, code: str) -> str:
    return hashlib.sha256(f"structural {FORMAT}\0{code}\0".encode() + facts).hexdigest()


def _check(kinds: list[str], ids: list[list[str]], texts: list[str]) -> bytes:
    """A digest of all the faults hold (their kinds and ids order the queue, their texts are
    printed): a value damaged anywhere in the store reads as not kept."""
    digest = hashlib.blake2b(digest_size=16)
    for kind, named, text in zip(kinds, ids, texts, strict=True):
        for part in (kind, *named, text):
            digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
        digest.update(b"\1")
    return digest.digest()


def _load(value: Any, key: str) -> list[Conflict] | None:
    """The faults a value kept under `key` holds; None where it holds none (another key or format,
    or damaged)."""
    from .conflicts import KeptConflict

    try:
        found = marshal.loads(value) if isinstance(value, bytes) else None
        if not (type(found) is tuple and len(found) == 6 and found[0] == FORMAT and found[1] == key):
            return None
        _, _, check, kinds, ids, texts = found
        if not (len(kinds) == len(ids) == len(texts)) or _check(kinds, ids, texts) != check:
            return None
        return [
            KeptConflict(kind, list(named), 0, text, None)  # type: ignore[arg-type]
            for kind, named, text in zip(kinds, ids, texts, strict=True)
        ]
    except (ValueError, TypeError, EOFError, AttributeError):
        return None


def faults(
    kept: Callable[[str], Any],
    keep: Callable[[str, bytes], None],
    unranked: Callable[[Conflict], str],
    code: str,
    facts: bytes,
    work: Callable[[], list[Conflict]],
    full: bool = False,
) -> list[Conflict]:
    """The structural faults `work()` gives for `facts` (`conflicts.structural_facts`), as kept
    for the same facts and `code` (the code's digest), else (or where `full`) worked out and kept.
    `kept(key)`: the value kept under `key`, or None; `keep(key, value)` keeps one in its place;
    `unranked(fault)`: its entry as `kept_conflicts.encode` lists it, but its rank."""
    key = _key(facts, code)
    found = None if full else _load(kept(key), key)
    if found is not None:
        return found
    made = work()
    kinds, ids, texts = [c.kind for c in made], [list(c.ids) for c in made], [unranked(c) for c in made]
    try:
        value = marshal.dumps((FORMAT, key, _check(kinds, ids, texts), kinds, ids, texts))
    except ValueError:  # an id of a kind marshal does not write: worked out again next time
        return made
    keep(key, value)
    return made
