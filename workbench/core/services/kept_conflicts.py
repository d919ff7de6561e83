"""The conflicts queue kept in the derived store, so that a vault unchanged since its last queue
answers at the cost of opening it (at 10,000 documents the queue takes seconds to work out).

The queue is a function of the valid documents (each file's path, id and the digest of its exact
bytes), of how the vault is read (its flavour and the status words of its `.workbench.yaml`), of
the pairs its `.workbench.yaml` calls compatible, of
whether the format is the workbench's own, of the day, and of the code that works it out: the key
is a digest of all of them, the code being every source file of the core with the versions of
Python and rapidfuzz. Any change to any of them gives another key, and the queue is worked out
again; a kept queue is never trusted under a key it was not made for. The value depends on its key
alone, so any process may write it without the vault's lock: two that race write the same thing.
The queue is kept in five entries (the duplicates under a digest of what they list, the structural
faults before and after them each under a digest of its entries, the decision pairs' entries in
blocks a change follows (`kept_chosen`), and under the key a row naming them): where another
process kept other parts since, the queue is not kept, and is worked out again.

When the vault changed since, the queue is not worked out from nothing: what its pairs were worked
out from is kept too (`weighing.Kept`, under a key of everything but the documents), with the
digest of each document, so that only the pairs a change touches are weighed again. That record
says for which documents it holds, so whichever of two racing processes writes it last, the next
reads it right. Its duplicates' part that stands still while decisions change (`weighing.DRAWN`)
is kept apart under its own digest, which the record names: where another process kept another
since, the duplicates are compared again. `full=True` works everything out again, as
`workbench conflicts --full` asks.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import hashlib
import itertools
from array import array
import json
import marshal
import os
import re
import sys
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import TYPE_CHECKING, Any
from pathlib import Path

from json.encoder import encode_basestring

from ..vocabulary.collector import collector_paused

if TYPE_CHECKING:  # imported where a queue is worked out or decoded: a kept queue printed needs none
    # (`kept_answers` prints one without opening the vault: nothing of the records is imported)
    from ..records.derived_store import DerivedStore
    from ..vocabulary.model import Document
    from . import weighing
    from .conflicts import Conflict, Conflicts, Weighed

__all__ = [
    "weighed_pairs",
    "setting_key",
    "WEIGHED",
    "DRAWN",
    "OBJECTS",
    "DUPLICATES",
    "DUPLICATES_PRINTED",
    "PARTS",
    "CONTENT",
    "REVIEW_CONTENT",
    "content_key",
    "BODY_READ",
    "TIER_FILES",
    "REVIEW",
    "NAMES",
    "keep_queue",
    "kept_queue",
    "kept_printed",
    "PRINTED_PARTS",
    "CHOSEN",
    "Tail",
    "LastPart",
    "kept_parts",
    "code_fingerprint",
    "queue_key",
    "update_lines",
    "LINES_A_PIECE",
    "encode",
    "unranked",
    "decode",
    "decode_parts",
    "printed",
    "Asked",
]

# The queue is kept in the store's `kept` table as `encode` gives it (to rebuild its objects from)
# and as `workbench conflicts --json` prints it (printing 9.5 MB of indented JSON at 10,000
# documents took longer than opening the vault): the duplicates, most of a large vault's queue,
# under a digest of what they list, in two entries (a change to a decision lists the same ones:
# they are read, not encoded, printed and written again; and printing reads the 10 MB printed
# alone, not the encoded 7 MB beside it); the structural faults the same way (`PARTS`), the
# decision pairs apart (`CHOSEN`), and under the queue's key the digests of the four and the place
# of the first decision pair kept in the blocks (1 where it is kept among the rule contradictions).
OBJECTS = "conflicts"
DUPLICATES = "conflicts.duplicates"  # the duplicates' entries as `encode` gives them
DUPLICATES_PRINTED = "conflicts.duplicates.printed"  # and as `printed` prints them
# The structural faults before the duplicates and after them, each as `encode` gives its entries,
# under a digest of them (the queue's row names the digests), and apart as `printed` prints them.
PARTS = ("conflicts.before", "conflicts.after")
PRINTED_PARTS = ("conflicts.before.printed", "conflicts.after.printed")
# The decision pairs' entries, which end the part before the duplicates, kept apart in blocks that a
# change follows (`kept_chosen`): their record under a digest of it, their rows in `kept_rows`.
CHOSEN = "conflicts.chosen"
# Every printed text is kept as its UTF-8 bytes after a line naming what it was printed for (its
# digest, and the code that printed the structural faults): an unchanged vault's answer is written
# out as read (`kept_printed`), 24 MB at 10,000 decision records, with no text decoded, joined and
# encoded again.
# The key of the queue kept last, under a digest of what the queue reads of each document
# (`content_key`); and the same for the review list's ranking.
CONTENT = "conflicts.content"
REVIEW_CONTENT = "review.content"
WEIGHED = "conflicts.weighed"  # what the queue's pairs were worked out from (`weighing.Kept`)
DRAWN = "conflicts.drawn"  # its duplicates' fields that stand still while decisions change (`weighing.DRAWN`)
REVIEW = "review"  # the review list's ranking (`review`)
ANSWERED = ("answer.conflicts", "answer.review")  # the answers kept for an unchanged vault (`kept_answers`)
SUCCESSORS = "conflicts.successors"  # what the likeliest successors read of every decision (`kept_successors`)
STRUCTURAL = "conflicts.structural"  # the structural faults but the likeliest successors' (`kept_structural`)
# Every name this code keeps anything under: what is kept under another (older code's) is deleted
# when the queue is kept.
NAMES = (
    OBJECTS,
    DUPLICATES,
    DUPLICATES_PRINTED,
    *PARTS,
    *PRINTED_PARTS,
    CHOSEN,
    CONTENT,
    REVIEW_CONTENT,
    WEIGHED,
    DRAWN,
    REVIEW,
    *ANSWERED,
    SUCCESSORS,
    STRUCTURAL,
)


@functools.cache
def code_fingerprint() -> str:
    """A digest of every source file of the core, and of the versions of Python and rapidfuzz
    (the queue's only library): another version of the algorithm never reads this one's queue.

    Reading every source file took 0.05 s of each call; the digest is kept in the user's cache
    beside the files' stats (path, size, mtime_ns, inode and ctime_ns: a write to a file changes
    its ctime, which no one can set back), and read from there while every stat is the same. The
    stats name rapidfuzz by its module file's stats too, which an upgrade rewrites: asking its
    version (`importlib.metadata`, a third of the kept queue's own time to import) is left to a
    digest worked out again."""
    core = Path(__file__).parent.parent
    sources = sorted(core.rglob("*.py"))
    stats = _source_stats(core, sources, f"{sys.version}\0{_library_stats()}") if sources else None
    if stats is not None:
        kept = _kept_code_digest(stats)
        if kept is not None:
            return kept
    digest = hashlib.sha256(sys.version.encode())
    try:
        from importlib.metadata import version

        digest.update(version("rapidfuzz").encode())
    except Exception:  # not installed as a distribution: the code's digest still tells versions apart
        digest.update(b"rapidfuzz?")
    if not sources:  # installed without its sources: the code cannot be told apart, so never reuse
        digest.update(os.urandom(16))
        return digest.hexdigest()
    for source in sources:
        digest.update(str(source.relative_to(core)).encode() + b"\0")
        try:
            digest.update(source.read_bytes())
        except OSError:
            digest.update(os.urandom(16))  # unknown code: a key no other process makes
            stats = None
    found = digest.hexdigest()
    if stats is not None:
        _keep_code_digest(stats, found)
    return found


def _library_stats() -> str:
    """Where the rapidfuzz module is and its file's stats ("" where it cannot be found), without
    importing it."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("rapidfuzz")
        origin = spec.origin if spec is not None else None
        st = os.stat(origin) if origin else None
    except (ImportError, ValueError, OSError):
        return ""
    return f"{origin}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0{st.st_ctime_ns}" if st is not None else ""


def _code_digest_file() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(cache) if os.path.isabs(cache) else Path.home() / ".cache"
    return base / "workbench" / "code-digest.json"


def _source_stats(core: Path, sources: list[Path], versions: str) -> str | None:
    """A digest of every source file's path and stats, and of the versions; None when one cannot
    be read."""
    digest = hashlib.sha256(f"{core}\0{versions}\n".encode())
    try:
        for source in sources:
            st = source.stat()
            digest.update(
                f"{source.relative_to(core)}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0{st.st_ctime_ns}\n".encode()
            )
    except OSError:
        return None
    return digest.hexdigest()


def _kept_code_digest(stats: str) -> str | None:
    try:
        kept = json.loads(_code_digest_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(kept, dict) and kept.get("stats") == stats and isinstance(kept.get("digest"), str):
        return kept["digest"]
    return None


def _keep_code_digest(stats: str, found: str) -> None:
    """Written whole to a file of its own, then renamed over the kept one: a reader never sees half."""
    target = _code_digest_file()
    with contextlib.suppress(OSError):
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        partial.write_text(json.dumps({"stats": stats, "digest": found}), encoding="utf-8")
        os.replace(partial, target)


def queue_key(
    documents: Iterable[Document],
    reading: str,
    native: bool,
    on: dt.date,
    code: str,
    compatible: frozenset = frozenset(),
) -> str:
    """The digest of everything the queue is worked out from, the pairs the vault's settings call
    compatible included."""
    digest = hashlib.sha256(setting_key(reading, native, on, code, compatible).encode())
    update_lines(digest, [f"{d.path}\0{d.id}\0{d.digest}" for d in documents])
    return digest.hexdigest()


# The types whose bodies the queue reads (`conflicts.CLAIM_TYPES`: decisions are weighed against
# each other, the others compared as duplicates), and the files tiered memory reads rules from
# (`tiers`: `memory.md`, `projects/`, `domains/`): of any other document, the queue reads no more
# than its row's `fields` (type, status, title, relations as stated, pairs marked compatible) and
# its links as resolved.
BODY_READ = ("decision", "entity", "context", "concept")
TIER_FILES = ("memory.md", "projects/", "domains/")
CONTENT_FRESH_MOST = 64  # documents not read from the store (parsed, resolved again) a content key looks up


def content_key(documents: Iterable[Document], store: DerivedStore, setting: str) -> str | None:
    """A digest of what the queue reads of the documents, with `setting` (`setting_key`): each
    document's path and id, its row's `fields` text and its links as resolved (`resolution_text`),
    and the digest of its bytes where its type or its path makes the queue read its body
    (`BODY_READ`, `TIER_FILES`). Two sets of documents with the same key have the same queue, so a
    change that only moved the body of a note finds the queue kept for the vault as it was.

    Taken from the texts of the rows the open read (before anything splits or decodes them); a
    document not read from the store (the file changed, or its links were resolved again) gives
    its row's `fields` as the store now holds them for its digest, and its view's resolved links.
    None where it cannot be told cheaply: one such document whose body the queue reads, more than
    CONTENT_FRESH_MOST of them, or one whose row is not the reading in hand."""
    from ..records.store_rows import StoredDocument, resolution_text

    body_types = tuple(name + "\x1f" for name in BODY_READ)
    lines: list[str] = []
    append = lines.append
    fresh: dict[str, tuple[int, Document]] = {}
    stored = StoredDocument
    for doc in documents:
        found = doc.__dict__
        fields = found.get("_fields")
        if fields and type(doc) is stored:
            view = found.get("view")
            resolved = found.get("_resolved")
            if view is None or (type(view) is str and type(resolved) is str):
                path = found["path"]
                body = found["digest"] if fields.startswith(body_types) or path.startswith(TIER_FILES) else ""
                append(f"{path}\0{found['id']}\0{fields}\0{resolved or ''}\0{body}")
                continue
        if len(fresh) >= CONTENT_FRESH_MOST:
            return None
        path = doc.path
        if type(doc) is not stored and (doc.type in BODY_READ or path.startswith(TIER_FILES)):
            return None  # parsed just now (its type at hand): a decision changed, say
        fresh[path] = (len(lines), doc)
        append("")
    if any(doc.type in BODY_READ or path.startswith(TIER_FILES) for path, (_, doc) in fresh.items()):
        return None
    if fresh:
        rows = store.fields_of(list(fresh))
        for path, (at, doc) in fresh.items():
            digest, fields = rows.get(path, ("", None))
            if digest != doc.digest or not fields:
                return None
            resolved = resolution_text(doc.view) if doc.view is not None else ""
            lines[at] = f"{path}\0{doc.id}\0{fields}\0{resolved}\0"
    hashed = hashlib.sha256(f"content\n{setting}\n".encode())
    update_lines(hashed, lines, "surrogatepass")
    return hashed.hexdigest()


LINES_A_PIECE = 1_000


def update_lines(digest: Any, lines: list[str], errors: str = "strict") -> None:
    """`digest.update("\\n".join(lines).encode("utf-8", errors))`, a thousand lines at a time: the
    whole text of 10,000 documents' lines, and its bytes, were 2.5 MB made to be hashed and freed,
    pages a short process pays for (with the same digest)."""
    for start in range(0, len(lines), LINES_A_PIECE):
        if start:
            digest.update(b"\n")
        digest.update("\n".join(lines[start : start + LINES_A_PIECE]).encode("utf-8", errors))


def setting_key(reading: str, native: bool, on: dt.date, code: str, compatible: frozenset = frozenset()) -> str:
    """The digest of everything the queue is worked out from but the documents: what the queue's
    pairs were worked out from is kept under it (`weighing.Kept` says for which documents)."""
    digest = hashlib.sha256(f"{code}\0{reading}\0{int(native)}\0{on.isoformat()}\n".encode())
    digest.update(repr(sorted(sorted(pair) for pair in compatible)).encode())
    return digest.hexdigest()


def encode(found: Iterable[Conflict]) -> str:
    return json.dumps([_entry(c) for c in found], ensure_ascii=False)


def _entry(c: Conflict) -> list:
    """A conflict as `encode` lists it: its rank last."""
    return [c.kind, c.ids, c.reason, [[r.action, r.label, r.command] for r in c.resolutions], c.rank]


def unranked(c: Conflict) -> str:
    """A conflict as `encode` lists it but its rank, and the list's end (as `KeptConflict` holds it)."""
    return json.dumps(_entry(c)[:4], ensure_ascii=False)[:-1]


def decode(text: str) -> Conflicts | None:
    """The queue `encode` wrote; None when the text is not one (a damaged or foreign store)."""
    return _decoded(_entries(text))


def decode_parts(parts: Iterable[str | Iterable[str]]) -> Conflicts | None:
    """The queue `_encoded(parts)` gives, decoded from the parts as they are (each its entries
    without the list's brackets, a text or its pieces: `kept_pieces.Pieces`): joining them first
    copied 100 MB at 100,000 documents in calls that held the interpreter 0.4 s."""
    return _decoded(entry for part in parts for entry in _part_entries(part))


def _part_entries(part: str | Iterable[str]) -> Iterator[Any]:
    if isinstance(part, str):
        return _items(part, 0, None)
    from ..records.kept_pieces import json_values

    return json_values(part)


def _decoded(entries: Iterable[Any]) -> Conflicts | None:
    from .conflicts import Conflict, Conflicts, Resolution

    try:
        return Conflicts(
            Conflict(str(kind), [str(i) for i in ids], str(reason), [Resolution(*map(str, r)) for r in rs], int(rank))
            for kind, ids, reason, rs, rank in entries
        )
    except (ValueError, TypeError):
        return None


_SPACE = re.compile(r"[ \t\n\r]*")
"""JSON's whitespace, as `json.decoder` skips it."""


def _space(text: str, at: int) -> int:
    """Where the whitespace from `at` on ends."""
    found = _SPACE.match(text, at)
    return found.end() if found is not None else at


_DECODE = json.JSONDecoder().raw_decode


def _entries(text: str) -> Iterator[Any]:
    """The entries of the JSON list `text`, decoded one at a time. `json.loads` of a whole large
    queue is one call that never lets go of the interpreter (0.3 s for 75,000 conflicts): the
    screen of an app reading the queue in a thread stood still for as long. ValueError when
    `text` is not a JSON list."""
    at = _space(text, 0)
    if text[at : at + 1] != "[":
        raise ValueError("not a list")
    ending = yield from _items(text, at + 1, "]")
    if _space(text, ending) != len(text):
        raise ValueError("more after the list")


def _items(text: str, at: int, closing: str | None) -> Generator[Any, None, int]:
    """The JSON values of `text` from `at` on, separated by commas, up to `closing` (None: up to
    the end of the text), one at a time; returns where it ended. ValueError on anything else."""
    at = _space(text, at)
    if text[at : at + 1] == (closing or ""):
        return at + 1
    while True:
        entry, at = _DECODE(text, at)
        yield entry
        at = _space(text, at)
        found = text[at : at + 1]
        if found == ",":
            at = _space(text, at + 1)
        elif found == (closing or ""):
            return at + 1
        else:
            raise ValueError("not a list")


def printed(found: Conflicts) -> str:
    """The queue as JSON, as `workbench conflicts --json` prints it: what `json.dumps` gives with
    `indent=2`, written here for the conflicts' own shape (Python's indenting encoder took longer
    than working out a changed queue); any other shape goes through `json.dumps`."""
    if not found:
        return '{\n  "conflicts": []\n}'
    return '{\n  "conflicts": [\n' + ",\n".join(_printed(c.to_json()) for c in found) + "\n  ]\n}"


def _printed_entries(found: Iterable[Conflict]) -> str:
    return ",\n".join(_printed(c.to_json()) for c in found)


def _encoded(parts: Iterable[str]) -> str:
    """The queue as `encode` gives it, from its parts' entries (each a list without its brackets)."""
    return "[" + ", ".join(part for part in parts if part) + "]"


def _printed_whole(parts: Iterable[str]) -> str:
    """The queue as `printed` gives it, from its parts' printed entries (joined once: a part with
    its separator added first would copy the 10 MB of duplicates twice)."""
    found = [part for part in parts if part]
    if not found:
        return '{\n  "conflicts": []\n}'
    pieces = ['{\n  "conflicts": [\n']
    for part in found:
        pieces += (part, ",\n")
    pieces[-1] = "\n  ]\n}"
    return "".join(pieces)


def keep_queue(
    store: DerivedStore,
    key: str,
    before: list[Conflict],
    listed: list[tuple[str, str, str]],
    after: list[Conflict],
    encoded: bool = False,
    chosen: Tail | None = None,
    pieces: bool = False,
) -> Any:
    """Keep the queue (in `conflicts.queue_parts`' three parts) under `key`, and give it back as
    `printed` prints it. The duplicates' entries are encoded and printed only when no queue kept
    before listed the same ones; where one did, only their printed text is read, and their encoded
    entries too where the caller reads the queue `encoded` (two processes keeping other duplicates
    at once may leave one's printed text beside the other's encoded entries: the next to read the
    encoded ones writes them again). `chosen`: the decision pairs' entries kept apart
    (`kept_chosen`), which come after `before` (kept under CHOSEN already). `pieces`: given back
    as `kept_printed` gives it, pieces of UTF-8 (the decision pairs' blocks as kept) that no one
    joins."""
    from .conflicts import duplicate_listed

    digest = hashlib.sha256(repr(listed).encode()).hexdigest()
    duplicates = _kept_printed_text(store, DUPLICATES_PRINTED, digest, "")
    if duplicates is None or (encoded and _kept_text(store, DUPLICATES, digest) is None):
        entries = [duplicate_listed(*found) for found in listed]
        # The encoded entries first: a reader that finds the printed ones under a digest finds
        # these beside them, unless another process kept other duplicates since (then the queue
        # read as kept is None, and is worked out again).
        store.keep(DUPLICATES, digest, marshal.dumps((digest, encode(entries)[1:-1])))
        if duplicates is None:
            duplicates = _printed_entries(entries)
            _keep_printed(store, DUPLICATES_PRINTED, digest, "", duplicates)
    # The structural faults before and after the duplicates, each kept under a digest of its
    # entries with the code that printed it: after a body edit they are mostly the same entries,
    # read as kept (629 of them printed again took 7 ms at 10,000 decision records) and not written
    # again (the whole queue's row of 870 KB was, at every call).
    code = code_fingerprint()
    digests, printed_parts = [], []
    for name, printed_name, part in zip(PARTS, PRINTED_PARTS, (before, after)):
        # Each entry encoded once: `encode(part)` is these joined as `json.dumps` joins a list's
        # items (", "), and the entries are kept with their lengths.
        texts = [_entry_text(c) for c in part]
        text = ", ".join(texts)
        part_digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        kept = _load_part(store.kept(name, part_digest))
        found = _kept_printed_text(store, printed_name, part_digest, code)
        if kept is not None and kept[0] == part_digest and kept[1] == text and kept[2] == code and found is not None:
            printed_parts.append(found)
        else:
            shown = _reprinted(store, name, printed_name, code, texts, part)
            printed_parts.append(",\n".join(shown))
            lengths = (array("q", map(len, texts)).tobytes(), array("q", map(len, shown)).tobytes())
            store.keep(name, part_digest, marshal.dumps((part_digest, text, code, *lengths)))
            _keep_printed(store, printed_name, part_digest, code, printed_parts[-1])
        digests.append(part_digest)
    named = ("", 0) if chosen is None else (chosen.digest, chosen.start)
    store.keep(OBJECTS, key, marshal.dumps((digest, *digests, *named)))
    store.forget_kept(NAMES)
    blocks = chosen.printed() if chosen is not None else []
    if pieces:
        head, tail = (
            printed_parts[0].encode("utf-8", "surrogatepass"),
            printed_parts[1].encode("utf-8", "surrogatepass"),
        )
        return _pieces([head, *blocks, duplicates.encode("utf-8", "surrogatepass"), tail])
    shown = [str(block, "utf-8", "surrogatepass") for block in blocks]
    return _printed_whole((",\n".join(t for t in (printed_parts[0], *shown) if t), duplicates, printed_parts[1]))


class Tail:
    """The decision pairs' entries kept apart (`kept_chosen.Chosen`) as the part before the
    duplicates ends with them: from the `start`th on (the first is among the rule contradictions
    where there are any, and kept with them), the record under `digest`."""

    def __init__(self, chosen: Any, digest: str, start: int):
        self.chosen, self.digest, self.start = chosen, digest, start

    def printed(self) -> list[bytes]:
        return self.chosen.printed(self.start)

    def encoded(self) -> str:
        return self.chosen.encoded(self.start)

    def conflicts(self) -> list[Conflict]:
        """The entries as conflicts read as kept (`conflicts.KeptConflict`), with their ranks."""
        from .conflicts import KeptConflict

        return [
            KeptConflict(kind, [older, newer], rank, entry, str(shown, "utf-8", "surrogatepass"))
            for rank, (older, newer, _, kind, entry, shown) in self.chosen.entries(self.start)
        ]


def _last_chosen(store: DerivedStore) -> Any:
    """The decision pairs' record kept last (`kept_chosen.Record`), None where none is."""
    from . import kept_chosen

    return kept_chosen.load(store.kept_last(CHOSEN))


def _worder(docs: dict[str, Document]) -> Callable[[Weighed], tuple]:
    """A pair's entry as `kept_chosen` keeps it, worded as `conflicts.decision_conflict` words it."""
    from .conflicts import DEFAULT, decision_conflict

    named: dict[str, str] = {}

    def word(pair: Weighed) -> tuple:
        c = decision_conflict(docs, pair, 0, named)
        entry = unranked(c)
        shown = _printed(c.to_json()).encode("utf-8", "surrogatepass")
        return (pair.older, pair.newer, pair.score(DEFAULT), c.kind, entry, shown)

    return word


def _unmarshal(data: Any) -> Any:
    """What `marshal` kept in `data`, or None for anything it did not write."""
    if not isinstance(data, bytes):
        return None
    try:
        return marshal.loads(data)
    except (ValueError, TypeError, EOFError):
        return None


def _load_part(data: Any) -> tuple[str, str, str, bytes, bytes] | None:
    """A part of the structural faults as `keep_queue` keeps it: (its digest, its entries as
    `encode` gives them, the code that printed them, each entry's length there and printed)."""
    found = _unmarshal(data)
    if not (isinstance(found, tuple) and len(found) == 5 and all(isinstance(v, str) for v in found[:3])):
        return None
    if not all(isinstance(v, bytes) and len(v) % 8 == 0 for v in found[3:]):
        return None
    return found


def _entry_text(c: Conflict) -> str:
    """A conflict as `encode` lists it: a kept one's text with its rank now."""
    encoded = getattr(c, "encoded", None)  # a `KeptConflict`
    if encoded is not None:
        return f"{encoded}, {c.rank}]"
    return json.dumps(_entry(c), ensure_ascii=False)


def _reprinted(
    store: DerivedStore, name: str, printed_name: str, code: str, texts: list[str], part: list[Conflict]
) -> list[str]:
    """Each conflict of `part` as `printed` prints it (`texts`: each as `encode` gives it): a kept
    one's as kept; else taken from the part kept last where it holds the same entry, whatever its
    rank, printed by the same code; printed where it does not."""
    last = LastPart.read(store, name, printed_name, code)
    found = []
    known: dict[str, str] | None = None
    for text, conflict in zip(texts, part):
        shown = getattr(conflict, "shown", None)  # a `KeptConflict`
        if shown is None and last is not None:
            if known is None:
                known = last.by_entry()
            shown = known.get(text[: text.rindex(", ")])  # the entry but its rank, which `printed` leaves out
        found.append(shown if shown is not None else _printed(conflict.to_json()))
    return found


class LastPart:
    """The part before (or after) the duplicates as the last call kept it: each entry as `encode`
    gave it (but its rank) and as `printed` printed it, found by its place."""

    def __init__(self, digest: str, text: str, lengths: array, printed: str, printed_lengths: array):
        self.digest, self.text, self.printed = digest, text, printed
        self.starts = [0, *itertools.accumulate(size + 2 for size in lengths)]
        self.printed_starts = [0, *itertools.accumulate(size + 2 for size in printed_lengths)]

    @classmethod
    def read(cls, store: DerivedStore, name: str, printed_name: str, code: str) -> LastPart | None:
        """The part kept last as `name` by `code`, None where none is (or its lengths do not add up
        to its texts: then every entry is printed)."""
        last = _load_part(store.kept_last(name))
        if last is None or last[2] != code:
            return None
        printed = _kept_printed_text(store, printed_name, last[0], code)
        lengths, printed_lengths = array("q", last[3]), array("q", last[4])
        if printed is None or len(lengths) != len(printed_lengths) or not lengths:
            return None
        if sum(lengths) + 2 * (len(lengths) - 1) != len(last[1]) or sum(printed_lengths) + 2 * (
            len(lengths) - 1
        ) != len(printed):
            return None
        return cls(last[0], last[1], lengths, printed, printed_lengths)

    def entry(self, at: int) -> str:
        """The entry at `at` as `encode` gave it, but its rank."""
        found = self.text[self.starts[at] : self.starts[at + 1] - 2]
        return found[: found.rindex(", ")]

    def shown(self, at: int) -> str:
        return self.printed[self.printed_starts[at] : self.printed_starts[at + 1] - 2]

    def by_entry(self) -> dict[str, str]:
        """{an entry as `encode` gave it, but its rank: that entry printed}."""
        return {self.entry(at): self.shown(at) for at in range(len(self.starts) - 1)}


def kept_queue(store: DerivedStore, key: str, encoded: bool = True) -> str | None:
    """The queue kept under `key`, as `encode` gives it (`encoded`) or as `printed` prints it; None
    where none is (or what is kept is not one: a damaged or foreign store)."""
    parts = kept_parts(store, key, encoded)
    if parts is None:
        return None
    return _encoded(parts) if encoded else _printed_whole(parts)


def _named(store: DerivedStore, key: str) -> tuple[str, list[str], Tail | None] | None:
    """What the queue's row under `key` names: the duplicates' digest, the faults' digests, and the
    decision pairs' entries kept apart (None where none are); None where no queue is kept under
    `key`, or its decision pairs' record is another's."""
    from . import kept_chosen

    found = _unmarshal(store.kept(OBJECTS, key))
    if not (
        isinstance(found, tuple)
        and len(found) == 5
        and all(isinstance(v, str) for v in found[:4])
        and type(found[4]) is int
    ):
        return None
    digest, before, after, chosen, start = found
    if not chosen:
        return digest, [before, after], None
    record = kept_chosen.load(store.kept(CHOSEN, chosen))
    if record is None:
        return None
    return digest, [before, after], Tail(kept_chosen.Chosen(record, _rows(store)), chosen, start)


def _rows(store: DerivedStore) -> Callable[[list[str]], dict[str, bytes]]:
    return lambda keys: store.kept_rows(CHOSEN, keys)


def kept_parts(
    store: DerivedStore, key: str, encoded: bool = True, in_pieces: bool = False
) -> tuple[str, Any, str] | None:
    """The parts of the queue kept under `key` (before the duplicates, the duplicates, after them),
    as `_encoded` joins them (`encoded`) or as `_printed_whole` does; None where none is kept, or
    where another queue's parts were kept since under the same names. `in_pieces` (with
    `encoded`): the duplicates read a piece at a time, their text perhaps as its pieces, for
    `decode_parts` (`_load_in_pieces`)."""
    from .kept_chosen import Stale

    named = _named(store, key)
    if named is None:
        return None
    digest, digests, tail = named
    try:
        if not encoded:
            found = _printed_pieces(store, digest, digests, tail)
            if found is None:
                return None
            return (
                b",\n".join(found[0]).decode("utf-8", "surrogatepass"),
                str(found[1], "utf-8"),
                str(found[2], "utf-8"),
            )
        duplicates = _kept_text(store, DUPLICATES, digest, in_pieces)
        if duplicates is None:
            return None
        code = code_fingerprint()
        parts = []
        for name, part_digest in zip(PARTS, digests):
            kept = _load_part(store.kept(name, part_digest))
            if kept is None or kept[0] != part_digest or kept[2] != code:
                return None
            parts.append(kept[1])
        if tail is not None:
            parts[0] = ", ".join(part for part in (parts[0], tail.encoded()) if part)
        return parts[0], duplicates, parts[1]
    except Stale:
        return None


def kept_printed(store: DerivedStore, key: str) -> list[bytes | memoryview] | None:
    """The queue kept under `key` as `printed` prints it, as pieces of UTF-8 to write one after
    the other (none decoded or joined: most of a large vault's queue is a few pieces); None where
    none is kept, or another queue's parts were kept since under the same names."""
    from .kept_chosen import Stale

    named = _named(store, key)
    if named is None:
        return None
    try:
        parts = _printed_pieces(store, *named)
    except Stale:
        return None
    if parts is None:
        return None
    return _pieces([*parts[0], parts[1], parts[2]])


def _pieces(parts: list[bytes | memoryview]) -> list[bytes | memoryview]:
    """The queue as `printed` prints it, in pieces of UTF-8, from its parts' printed entries."""
    found = [part for part in parts if part]
    if not found:
        return [b'{\n  "conflicts": []\n}']
    pieces: list[bytes | memoryview] = [b'{\n  "conflicts": [\n']
    for part in found:
        pieces += (part, b",\n")
    pieces[-1] = b"\n  ]\n}"
    return pieces


def _printed_pieces(
    store: DerivedStore, digest: str, digests: list[str], tail: Tail | None
) -> tuple[list[bytes | memoryview], memoryview, memoryview] | None:
    """The printed part before the duplicates (in pieces: its faults, then the decision pairs'
    entries kept apart, a piece a block), the duplicates of `digest` and the part after them, as
    kept (UTF-8). `kept_chosen.Stale` where a row of the decision pairs is gone."""
    code = code_fingerprint()
    duplicates = _kept_printed(store, DUPLICATES_PRINTED, digest, "")
    if duplicates is None:
        return None
    parts = [_kept_printed(store, name, part_digest, code) for name, part_digest in zip(PRINTED_PARTS, digests)]
    if parts[0] is None or parts[1] is None:
        return None
    before: list[bytes | memoryview] = [parts[0]]
    if tail is not None:
        before += tail.printed()
    return [piece for piece in before if piece], duplicates, parts[1]


def _keep_printed(store: DerivedStore, name: str, digest: str, code: str, text: str) -> None:
    """Keep a printed text as `_kept_printed` reads it (nothing where it is not UTF-8: a lone
    surrogate, which printing it would refuse too; the queue is then worked out again)."""
    try:
        value = f"{digest}\n{code}\n".encode() + text.encode("utf-8")
    except UnicodeEncodeError:
        return
    store.keep(name, digest, value)


def _kept_printed(store: DerivedStore, name: str, digest: str, code: str) -> memoryview | None:
    """The printed text kept as `name` for `digest` by `code`, its UTF-8 bytes; None where another's
    (or none, or not one) is kept."""
    found = store.kept(name, digest)
    head = f"{digest}\n{code}\n".encode()
    if not isinstance(found, bytes) or not found.startswith(head):
        return None
    return memoryview(found)[len(head) :]


def _kept_printed_text(store: DerivedStore, name: str, digest: str, code: str) -> str | None:
    found = _kept_printed(store, name, digest, code)
    return None if found is None else str(found, "utf-8")


def _kept_text(store: DerivedStore, name: str, digest: str, in_pieces: bool = False) -> Any:
    """The duplicates' text kept as `name` for the duplicates of `digest`; None where another's
    (or none, or not one) is kept. The entry names its digest again inside: what older code kept
    under the same name and digest (both texts in one entry) is not read as this one's."""
    found = _load_in_pieces(store, name, digest) if in_pieces else _load(store.kept(name, digest))
    return found[1] if found is not None and found[0] == digest else None


def _load_in_pieces(store: DerivedStore, name: str, key: str) -> tuple | None:
    """`_load(store.kept(name, key))`, read a piece at a time and a long text given as its pieces
    (`kept_pieces`): read whole, the duplicates of a 100,000-document vault (72 MB) held the
    interpreter 0.1-0.5 s, a screen in another thread still meanwhile."""
    from ..records.kept_pieces import Pieces, unmarshal_in_pieces

    def read(source: Any) -> Any:
        try:
            return unmarshal_in_pieces(source)
        except (ValueError, TypeError, EOFError):
            return None

    found = store.kept_read(name, key, read)
    if not (isinstance(found, tuple) and len(found) == 2 and all(isinstance(v, (str, Pieces)) for v in found)):
        return None
    return found


def _load(data: Any, size: int = 2) -> tuple | None:
    found = _unmarshal(data)
    if not (isinstance(found, tuple) and len(found) == size and all(isinstance(v, str) for v in found)):
        return None
    return found


_SHAPE = ["kind", "ids", "reason", "resolutions"]
_RESOLUTION = ["action", "label", "command"]


def _printed(entry: dict) -> str:
    """One conflict as `printed` indents it, four spaces in."""
    q = encode_basestring
    if (
        list(entry) != _SHAPE
        or not all(isinstance(i, str) for i in entry["ids"])
        or not all(isinstance(v, str) for v in (entry["kind"], entry["reason"]))
        or not all(isinstance(r, dict) and list(r) == _RESOLUTION for r in entry["resolutions"])
        or not all(isinstance(v, str) for r in entry["resolutions"] for v in r.values())
    ):
        return "    " + json.dumps(entry, indent=2, ensure_ascii=False).replace("\n", "\n    ")
    ids = "[\n" + ",\n".join("        " + q(i) for i in entry["ids"]) + "\n      ]" if entry["ids"] else "[]"
    resolutions = (
        "[\n"
        + ",\n".join(
            '        {\n          "action": '
            + q(r["action"])
            + ',\n          "label": '
            + q(r["label"])
            + ',\n          "command": '
            + q(r["command"])
            + "\n        }"
            for r in entry["resolutions"]
        )
        + "\n      ]"
        if entry["resolutions"]
        else "[]"
    )
    return (
        '    {\n      "kind": '
        + q(entry["kind"])
        + ',\n      "ids": '
        + ids
        + ',\n      "reason": '
        + q(entry["reason"])
        + ',\n      "resolutions": '
        + resolutions
        + "\n    }"
    )


class Asked:
    """One question for the queue: its documents, how they are read, the pairs the vault's
    settings call compatible, and where the answer is kept. `full` works everything out again,
    reading nothing kept (and keeps what it worked out)."""

    def __init__(
        self,
        documents: list[Document],
        reading: str,
        native: bool,
        store: DerivedStore | None,
        on: dt.date,
        compatible: frozenset = frozenset(),
        full: bool = False,
        progress: Callable[[str, int, int], object] | None = None,
        owned: Callable[[], Iterable[str]] | None = None,
    ):
        """`progress(pass, done, total)`: told how far the weighing's long passes have gone;
        `owned()`: every id a file of the vault owns (`VaultIndex.owners`), which the kept likeliest
        successors need to tell that no link moved (without it they are worked out plainly)."""
        self.documents, self.native, self.store, self.compatible = documents, native, store, compatible
        self.full, self.progress, self.owned = full, progress, owned
        self.reading, self.on = reading, on
        code = code_fingerprint() if store is not None else ""
        self.setting = setting_key(reading, native, on, code, compatible) if store is not None else ""
        self._weighing: weighing.Weighing | None = None
        self.chosen: Any = None  # the decision pairs' entries of the queue worked out (`kept_chosen.Chosen`)

    @functools.cached_property
    def key(self) -> str:
        """Where the queue is kept (`queue_key`): worked out when first asked, as the review list's
        pairs (`weighed_pairs`) never ask it (5 ms at 10,000 documents)."""
        if self.store is None:
            return ""
        return queue_key(self.documents, self.reading, self.native, self.on, code_fingerprint(), self.compatible)

    @functools.cached_property
    def content(self) -> str | None:
        """`content_key` of the documents as the open read them (asked before anything decodes
        them); None where there is no store, or it cannot be told cheaply."""
        if self.store is None or self.full:
            return None
        return content_key(self.documents, self.store, self.setting)

    def _kept(self, encoded: bool = True) -> str | None:
        parts = self._kept_parts(encoded)
        if parts is None:
            return None
        return _encoded(parts) if encoded else _printed_whole(parts)

    def _kept_queue(self) -> Conflicts | None:
        """The queue kept under this question's key, decoded from its parts; None where none is."""
        parts = self._kept_parts(encoded=True, in_pieces=True)
        return decode_parts(parts) if parts is not None else None

    def _kept_parts(self, encoded: bool, in_pieces: bool = False) -> tuple[str, Any, str] | None:
        """The parts of the queue kept under this question's key, or else of the queue kept for
        documents the queue reads alike (`content`: a change to the body of a note), which is then
        kept under this key too; None where neither is."""
        store = self.store
        if store is None or self.full:
            return None
        found = kept_parts(store, self.key, encoded, in_pieces)
        if found is not None:
            return found
        content = self.content
        before = store.kept(CONTENT, content) if content is not None else None
        if content is None or not isinstance(before, str):
            return None
        found = kept_parts(store, before, encoded, in_pieces)
        value = store.kept(OBJECTS, before)
        if found is None or value is None:
            return None
        store.keep(OBJECTS, self.key, value)  # naming the same parts, which a reader checks
        store.keep(CONTENT, content, self.key)
        return found

    def weighing(self) -> weighing.Weighing:
        """The queue's pairs, worked out from what was kept for the vault as it was (the pairs a
        change touches weighed again), or from nothing where nothing was kept or `full`."""
        from . import weighing
        from ..records.store_rows import read_fields, read_relations
        from ..vocabulary.model import DocType

        if self._weighing is None:
            kept = None
            store = self.store
            if store is not None:  # every document's type, status and supersessions, in one query
                read_fields(self.documents, store.fields)
                # The decisions' relations decoded in one parse, as the pairs ask them (the queue's
                # structural checks ask the rest's: `_worked_out`; the review list never does).
                read_relations([d for d in self.documents if d.type == DocType.DECISION])
            rows = (lambda keys: store.kept_rows(WEIGHED, keys)) if store is not None else None
            if store is not None and rows is not None and not self.full:
                kept = weighing.load(store.kept(WEIGHED, self.setting), rows)
            self._weighing = weighing.Weighing(
                self.documents,
                self.compatible,
                kept,
                self.full,
                drawn=(lambda digest: store.kept(DRAWN, digest)) if store is not None else None,
                rows=rows,
                progress=self.progress,
            )
        return self._weighing

    def weighed(self) -> list[Weighed]:
        """The pairs of decisions weighed (`conflicts.weigh_decisions`, each decision against its
        REVIEW_NEIGHBOURS most alike), as the queue has them."""
        found = self.weighing().weighed()
        self.keep_weighing()
        return found

    def keep_weighing(self) -> None:
        """Keep the weighing made in this call (`weighing`), whatever of it was decoded."""
        from . import weighing

        if self.store is not None and self._weighing is not None:
            pairs = self._weighing
            unnamed = pairs.keep_pairs()
            rest, digest, drawn = weighing.dump_apart(pairs.kept, pairs.drawn_changed)
            if drawn is not None:  # first what the record names: a reader of the record finds it
                self.store.keep(DRAWN, digest, drawn)
            # The rows, the record naming them and the rows it names no more (the pairs' made
            # again in this call) in one transaction: none left unnamed, none named unwritten.
            self.store.keep_with_rows(
                WEIGHED,
                self.setting,
                rest,
                pairs.rows.to_write(pairs.kept),
                replace=pairs.rows.whole,
                forget=unnamed,
            )
            pairs.rows.written.clear()  # kept: a second call keeps only what it made since
            pairs.rows.whole = False

    def _worked_out(
        self, encoded: bool = False, pieces: bool = False
    ) -> tuple[tuple[list[Conflict], list[tuple[str, str, str]], list[Conflict]], Tail, Any]:
        """The queue worked out (what changed weighed again) and kept: its three parts
        (`conflicts.queue_parts`) but the decision pairs' entries at the end of the first, those
        (`Tail`), and its printed text ("" where there is no store to keep it in; in pieces of UTF-8
        where `pieces`); `encoded` where the caller reads the queue kept as `encode` gives it
        (`keep_queue`)."""
        from ..records.store_rows import read_relations
        from .conflicts import DECISIONS_ORDER, KeptConflict, order_of, queue_parts
        from .kept_chosen import follow_or_make

        content = self.content  # before the weighing splits and decodes the rows' texts
        store = self.store
        with collector_paused():
            pairs = self.weighing()
            if store is not None:  # every document's relations, as the structural checks ask them
                read_relations(self.documents)
            last = _last_chosen(store) if store is not None and not self.full else None
            read = _rows(store) if store is not None else None
            made = follow_or_make(pairs, self.setting, last, read, _worder(pairs.docs))
            self.chosen = made.chosen
            before, listed, after = queue_parts(
                self.documents,
                self.native,
                self.compatible,
                weighed=[],  # the decision pairs' entries are kept apart (`kept_chosen`)
                duplicates=pairs.duplicates,
                successors_of=self._successors if store is not None else None,
                faults_of=self._faults if store is not None else None,
            )
            self.keep_weighing()
            made.identify(self.setting, pairs)
            digest = made.keep(store, CHOSEN) if store is not None else ""
            # The rule contradictions stand among the decision pairs' first (all are ranked 0).
            rules = [c for c in before if order_of(c) == DECISIONS_ORDER]
            start = 0
            first = made.chosen.first() if rules else None
            if first is not None:
                older, newer, _, kind, entry, shown = first
                head = KeptConflict(kind, [older, newer], 0, entry, str(shown, "utf-8", "surrogatepass"))
                before = before[: len(before) - len(rules)] + sorted([head, *rules], key=lambda c: c.ids)
                start = 1
            tail = Tail(made.chosen, digest, start)
            text = (
                keep_queue(store, self.key, before, listed, after, encoded, tail, pieces) if store is not None else ""
            )
            if store is not None and content is not None:
                store.keep(CONTENT, content, self.key)
        return (before, listed, after), tail, text

    def _successors(self, docs: dict, lacking: list[str], compatible: frozenset, related: dict) -> dict:
        """`successors.likeliest_successors` for the structural checks, from what was kept of
        every decision (`kept_successors`), which is then kept as it is now."""
        from . import kept_successors
        from ..views.successors import likeliest_successors

        store = self.store
        assert store is not None
        if self.owned is None:
            return likeliest_successors(docs.values(), lacking, dismissed=compatible)
        key = f"{code_fingerprint()}\t{self.reading}"
        kept = kept_successors.KeptDecisions(lambda keys: store.kept_rows(SUCCESSORS, keys))
        if not self.full:
            kept.load(store.kept(SUCCESSORS, key))  # False: nothing kept (or not this), all counted
        found = kept_successors.likeliest_successors(docs, lacking, compatible, kept, related, self.owned())
        if found is None:
            return likeliest_successors(docs.values(), lacking, dismissed=compatible)
        if kept.moved:
            # The record, the rows it names and the rows it names no more gone, all in one.
            store.keep_with_rows(
                SUCCESSORS, key, kept.dump(), kept.to_write(), replace=kept.whole, forget=kept.unnamed()
            )
        return found

    def _faults(self, facts: bytes, work: Callable[[], list[Conflict]]) -> list[Conflict]:
        """The structural faults for `conflicts._structural`, as kept for the same facts
        (`kept_structural`; worked out again where `full`)."""
        from . import kept_structural

        store = self.store
        assert store is not None
        kept, keep = functools.partial(store.kept, STRUCTURAL), functools.partial(store.keep, STRUCTURAL)
        return kept_structural.faults(kept, keep, unranked, code_fingerprint(), facts, work, self.full)

    def conflicts(self) -> Conflicts:
        """The queue: as kept under the same key, else worked out (what changed weighed again)
        and kept."""
        from .conflicts import Conflicts, duplicate_listed

        from .kept_chosen import Stale

        found = self._kept_queue()
        if found is None:
            (before, listed, after), tail, _ = self._worked_out(encoded=True)
            found = self._kept_queue() if self.store is not None else None
            if found is None:  # no store, or it kept nothing
                try:
                    decisions = tail.conflicts()
                except Stale:  # a block's entries gone beside its printed text: all again
                    again = Asked(
                        self.documents,
                        self.reading,
                        self.native,
                        self.store,
                        self.on,
                        self.compatible,
                        True,
                        owned=self.owned,
                    )
                    return again.conflicts()
                found = Conflicts(_plain(before + decisions) + [duplicate_listed(*d) for d in listed] + after)
        return found

    def kept_conflicts(self) -> Conflicts | None:
        """The queue as kept under its key, or None: nothing is worked out (a large vault's screen
        asks this first, and works the queue out only when the person asks)."""
        return self._kept_queue()

    def printed(self) -> str:
        """`printed(self.conflicts())`: as kept under the same key (or for the same `content`),
        else worked out and kept."""
        kept = self._kept(encoded=False)
        if kept is not None:
            return kept
        from .conflicts import Conflicts, duplicate_listed

        (before, listed, after), tail, text = self._worked_out()
        return text or printed(Conflicts(before + tail.conflicts() + [duplicate_listed(*d) for d in listed] + after))

    def printed_pieces(self) -> list[bytes | memoryview]:
        """`printed()` in pieces of UTF-8 to write one after the other (`kept_printed`): the decision
        pairs' blocks as kept or followed, none decoded or joined (24 MB at 10,000 records)."""
        store = self.store
        if store is None:
            return [self.printed().encode("utf-8")]
        if not self.full:
            found = kept_printed(store, self.key)
            if found is None and self._kept_parts(encoded=False) is not None:  # kept for the same content
                found = kept_printed(store, self.key)
            if found is not None:
                return found
        _, _, found = self._worked_out(pieces=True)
        return found


def _plain(found: list[Conflict]) -> list[Conflict]:
    """The conflicts with each read as kept (`conflicts.KeptConflict`) a plain one, for a caller
    that reads them."""
    return [c.plain() if hasattr(c, "plain") else c for c in found]


def weighed_pairs(index: Any) -> tuple[list[Weighed], int]:
    """The pairs of decisions weighed for the index's documents (`conflicts.weigh_decisions`, each
    decision against its REVIEW_NEIGHBOURS most alike), as the queue weighs them: from what was
    kept for the vault as it was, only the pairs a change touches weighed again (the review list
    ranks these); with the number of decisions a pair may involve (`conflicts.PAIRED`)."""
    from ..records.record import today

    flavour = index.flavour
    asked = Asked(index.documents, flavour.reading, flavour.native, index.store, today(), index.config.compatible)
    with collector_paused():
        found = asked.weighed()
    return found, asked.weighing().decisions
