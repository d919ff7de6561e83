"""The workflow gate of the Kimiko memory design, kept per agent in the vault's derived state: visibility is not authorization.

An agent may read anything, but it changes (merges into, supersedes, asks to forget) only a document
it was shown by a search (or a context pack, or the gate's candidates) and then read through to its
end, in the version on disk now: if the file changed since, it must read it again. A new document
needs a duplicate search first: a search whose query holds at least half of the title's distinctive
words, or a `propose` of the same title.

The seed scopes this to a user's turn. A protocol connection has no turns, and many clients start a
new server for every call (langchain-mcp-adapters' default tools, the MCP Inspector's command line),
so what an agent searched and read cannot live in the server's memory: it is kept under the vault's
`.workbench/agents/`, one small JSON file per agent name, and each piece of evidence lasts
`GATE_WINDOW` seconds, a turn's length, the latest few hundred of each kind kept. The next process of the same agent finds it there; another
agent does not. Like the rest of `.workbench/` it is disposable: deleting it only means searching
again. Where it cannot be written (a read-only vault, a symlink on the way), it is kept in memory,
for the life of the process.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..core import RefusedError, STOPWORDS, first_link, plural_stem

try:
    import fcntl
except ImportError:  # pragma: no cover - the workbench targets POSIX systems
    fcntl = None  # type: ignore[assignment]

__all__ = ["GATE_WINDOW", "GateSession", "title_words"]

GATE_WINDOW = 30 * 60
"""Seconds a search or a read counts for the gate: the length of a turn, for a client with none."""
SEARCHES_MOST = 100
SHOWN_MOST = 400
READ_MOST = 100
"""The most searches (and proposals), documents shown (and seen in excerpts) and documents read
an agent's evidence keeps, the latest first: what each call reads and writes back stays the same
size however long the agent works (800 writes in a window had made it 242 KB, rewritten on every
call)."""

_WORD = re.compile(r"[^\W_]+")  # letters and digits of every script, as the search splits them
FOLDER = "agents"


def title_words(text: str) -> set[str]:
    """The words that say what a title is about, in any script: case and accents folded and plurals
    folded (`invoices` is `invoice`, as the search's stemming finds one for the other), no stop words
    (all words, if only those). Empty when it holds no letter or digit."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(c))
    words = set(_WORD.findall(folded))
    return {plural_stem(w) for w in words if w not in STOPWORDS} or {plural_stem(w) for w in words}


def _replace(path: Path, data: bytes) -> None:
    """Swap in the evidence whole, without waiting for the disk: a reader sees the old file or the
    new one, and a crash that loses the last calls' evidence only means searching again (it is
    derived state, as `.workbench/` is), so it does not pay an fsync on every call."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise


def _key(words: set[str]) -> str:
    return " ".join(sorted(words))


def _empty(agent: str) -> dict[str, Any]:
    return {"agent": agent, "searches": [], "proposed": [], "shown": {}, "read": {}, "seen": {}}


class GateSession:
    """What an agent has searched, been shown and read lately. Safe to share between threads and
    between processes: each change is read, made and written back under a lock on its file.

    `folder` is the vault's state folder (None: memory only); `agent` names whose evidence this is,
    asked at each call, since a client names itself only once connected."""

    def __init__(
        self,
        folder: Path | None = None,
        agent: Callable[[], str] = lambda: "agent",
        window: float = GATE_WINDOW,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._folder = folder
        self._agent = agent
        self._window = window
        self._clock = clock
        self._lock = threading.Lock()
        self._memory: dict[str, dict[str, Any]] = {}

    # -- where the evidence lives ------------------------------------------------------------------

    def _path(self, agent: str) -> Path | None:
        if self._folder is None:
            return None
        base, name = self._folder.parent, f"{self._folder.name}/{FOLDER}"
        if first_link(base, name) is not None:
            return None  # a symlink would take the writes out of the vault
        return self._folder / FOLDER / (hashlib.sha256(agent.encode("utf-8", "replace")).hexdigest()[:24] + ".json")

    @contextlib.contextmanager
    def _state(self, change: bool = True) -> Iterator[dict[str, Any]]:
        """The agent's evidence, fresh from its file, pruned of what is older than the window;
        written back after the block when `change`."""
        with self._lock:
            agent = self._agent()
            path = self._path(agent)
            held = contextlib.ExitStack()
            state: dict[str, Any] | None = None
            if path is not None:
                try:
                    held.enter_context(self._file_lock(path))
                    state = self._load(path, agent)
                except OSError:
                    held.close()
                    path = self._folder = None  # cannot be kept here: in memory from now on
            if state is None:
                state = self._memory.setdefault(agent, _empty(agent))
                self._prune(state)
            with held:
                yield state
                if change and path is not None:
                    self._prune(state)
                    try:
                        _replace(path, json.dumps(state, ensure_ascii=False).encode("utf-8"))
                    except OSError:
                        self._folder = None
                        self._memory[agent] = state

    @contextlib.contextmanager
    def _file_lock(self, path: Path) -> Iterator[None]:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path.parent / ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the flock

    def _load(self, path: Path, agent: str) -> dict[str, Any]:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            return _empty(agent)
        try:
            with os.fdopen(fd, "rb") as handle:
                state = json.loads(handle.read().decode("utf-8"))
        except (OSError, ValueError):
            return _empty(agent)  # torn or edited by hand: derived state, so start afresh
        if not isinstance(state, dict) or state.get("agent") != agent:
            return _empty(agent)
        for key, kind in (("searches", list), ("proposed", list), ("shown", dict), ("read", dict), ("seen", dict)):
            if not isinstance(state.get(key), kind):
                state[key] = kind()
        self._prune(state)
        return state

    def _prune(self, state: dict[str, Any]) -> None:
        oldest = self._clock() - self._window

        def fresh(at: Any) -> bool:
            return isinstance(at, (int, float)) and at >= oldest

        state["searches"] = [s for s in state["searches"] if isinstance(s, dict) and fresh(s.get("at"))][
            -SEARCHES_MOST:
        ]
        state["proposed"] = [p for p in state["proposed"] if isinstance(p, dict) and fresh(p.get("at"))][
            -SEARCHES_MOST:
        ]
        shown = [(at, i) for i, at in state["shown"].items() if fresh(at)]
        state["shown"] = {i: at for at, i in sorted(shown)[-SHOWN_MOST:]}
        for key, most in (("read", READ_MOST), ("seen", SHOWN_MOST)):
            kept = [(r["at"], i, r) for i, r in state[key].items() if isinstance(r, dict) and fresh(r.get("at"))]
            state[key] = {i: r for _, i, r in sorted(kept, key=lambda item: item[:2])[-most:]}

    # -- what happened -------------------------------------------------------------------------

    def searched(self, query: str, shown: list[str]) -> None:
        with self._state() as state:
            now = self._clock()
            state["searches"].append({"words": sorted(title_words(query)), "at": now})
            state["shown"].update(dict.fromkeys(shown, now))

    def proposed(self, doc_type: str, title: str, shown: list[str]) -> None:
        """The gate's candidates for a draft: a duplicate search for its title."""
        with self._state() as state:
            now = self._clock()
            words = title_words(title)
            state["proposed"].append({"type": doc_type, "words": _key(words), "at": now})
            state["searches"].append({"words": sorted(words), "at": now})
            state["shown"].update(dict.fromkeys(shown, now))

    def shown(self, ids: list[str]) -> None:
        with self._state() as state:
            state["shown"].update(dict.fromkeys(ids, self._clock()))

    def read(self, doc_id: str, digest: str, offset: int, count: int, length: int) -> bool:
        """Record `count` characters of the body read from `offset`; True once it is read to its end."""
        with self._state() as state:
            known = state["read"].get(doc_id)
            if known is None or known.get("digest") != digest or not isinstance(known.get("covered"), int):
                known = {"digest": digest, "covered": 0, "length": length}
            if offset <= known["covered"]:
                known["covered"] = max(known["covered"], offset + count)
            known["at"] = self._clock()
            state["read"][doc_id] = known
            return known["covered"] >= known["length"]

    def wrote(self, doc_id: str, digest: str, length: int) -> None:
        """The agent's own write: it knows what it wrote, so it may change it as if it had read it; a
        read of it still says `read_whole` only once the reads reach its end (a cut answer never does)."""
        with self._state() as state:
            now = self._clock()
            state["shown"][doc_id] = now
            state["read"][doc_id] = {"digest": digest, "covered": 0, "length": length, "at": now, "written": True}

    def excerpted(self, digests: dict[str, str]) -> None:
        """Records shown as excerpts (the review list, the gate's candidates): {id: digest}. Seeing
        an excerpt lets an agent judge a pair, never change a record."""
        with self._state() as state:
            now = self._clock()
            for doc_id, digest in digests.items():
                state["seen"][doc_id] = {"digest": digest, "at": now}

    # -- what the gate asks --------------------------------------------------------------------

    def require_seen(self, doc_id: str, digest: str) -> None:
        """Refuse a verdict on `doc_id` unless the agent was shown it (an excerpt, or a read) in
        this version lately."""
        with self._state(change=False) as state:
            known = [state["seen"].get(doc_id), state["read"].get(doc_id)]
        digests = {k.get("digest") for k in known if isinstance(k, dict)}
        if digest in digests:
            return
        if digests:
            raise RefusedError(
                f"{doc_id} changed since you were shown it; see it again (memory_review, or memory_read) before you judge it"
            )
        raise RefusedError(
            f"{doc_id} has not been shown to you lately; judge a pair memory_review gave you (or read both records with memory_read first)"
        )

    def require_duplicate_search(self, doc_type: str, title: str) -> None:
        words = title_words(title)
        if not words:
            raise RefusedError(f"title “{title}” holds no letter or digit: give it words that say what it is about")
        with self._state(change=False) as state:
            if any(p.get("type") == doc_type and p.get("words") == _key(words) for p in state["proposed"]):
                return
            for search in state["searches"]:
                query = set(search.get("words") or ())
                if len(words & query) * 2 >= len(words):
                    return
        minutes = round(self._window / 60)
        raise RefusedError(
            f"search for duplicates of “{title}” first: memory_search with the title's words, or memory_write with "
            f'decision="propose" (it ranks the documents this may belong in); then write (a search counts for {minutes} minutes)'
        )

    def require_read(self, doc_id: str, digest: str, what: str) -> None:
        """Refuse to `what` `doc_id` unless it was shown and read to its end, as it is now (`digest`)."""
        with self._state(change=False) as state:
            shown = doc_id in state["shown"]
            known = state["read"].get(doc_id)
        if not shown:
            raise RefusedError(
                f"{doc_id} has not been returned by a search lately; find it with memory_search "
                f"(or memory_context), read it with memory_read, then {what}"
            )
        if known is not None and known.get("written") and known["digest"] == digest:
            return  # its own write, unchanged since
        if known is None or known["covered"] < known["length"]:
            more = (
                ""
                if known is None
                else f" (read up to character {known['covered']} of {known['length']}; continue with offset)"
            )
            raise RefusedError(f"{doc_id} has not been read lately{more}; read it with memory_read before you {what}")
        if known["digest"] != digest:
            raise RefusedError(f"{doc_id} changed since you read it; read it again with memory_read before you {what}")
