"""A vault followed: a long-lived process keeps the vault open, follows its changes and, once each
change settles, works out the answers a fresh process would and keeps them under the fingerprint
that process takes (`kept_answers.Fingerprint`), so that it finds them as it finds an unchanged
vault's.

A fresh process cannot answer `conflicts --json` after a change in less than what it spends before
the command (the interpreter, a stat walk, imports, the open: about 0.2 s at 10,000 documents).
A process that already holds the vault's records spends only the command's own part, and spends it
as soon as the change is made, before anyone asks.

Each round is the order a fresh process keeps: the fingerprints taken first (one stat walk for
every question asked), then the vault brought in line with that walk (the files the watcher named
re-read, `refresh_paths`, then the walk's own entries compared, `refresh`: the warm path of a live
vault, nothing read twice), then each answer worked out through the facade with the fingerprint, as
a command line does (`keep` applies its own rules: a doubt, a racy file whose bytes were not read,
a note from the store keeps nothing). A file changed after the walk can only give another
fingerprint, so an answer kept for bytes it did not read is never found. The follower writes nothing
in the vault's files: its store writes are the ones any process opening the vault makes.

The watcher (watchfiles, in a thread of its own) gathers changes until none came for `SETTLE_MS`
(at most `BURST_MOST_MS`, for a stream that never stops), so files written together are one round;
changes heard during a round are the next round's, never lost. Files in hidden folders (the state
folder, `.git`) are not the vault's: a fingerprint does not read them, and a round's own store
writes never wake it. A round is also made when the day turns (every answer names the day).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from ..records.live import watched_folders
from ..records.record import RACY_COARSE_NS, RACY_NS
from .follower_mark import Mark
from .kept_answers import Fingerprint

__all__ = ["Followed", "Follower", "SETTLE_MS"]

SETTLE_MS = 50
"""A change is followed once no other came for this long: an agent's write of several files, or a
`git pull`, is one round, and a single write waits no more than this."""
BURST_MOST_MS = 1600  # a stream of changes that never settles is followed in slices this long
MEMORY_MOST = 768 << 20
"""Past this much resident memory after a round (or three times what the follower held once open,
the more), it starts again in place: the round that weighs every decision again (once a hundredth
of them changed) leaves 0.7-1.1 GB held at 10,000 decision records, which the allocator does not
hand back, against 0.3 GB between such rounds."""
LOOK_S = 1.0  # how often the follower looks, with nothing heard, whether the day turned or it was stopped


class Followed(Protocol):
    """What the follower asks of the vault it holds (the facade, `Vault`)."""

    index: Any
    store: Any
    recovery_notes: list[str]

    def reading_moved(self, given: str, flavour: str | None = None) -> bool: ...

    def refresh(self, listed: dict[str, list[os.DirEntry]] | None = None) -> None: ...

    def refresh_paths(self, paths: list[str]) -> None: ...

    def conflicts_printed(self, *asked: Any, unchanged: Fingerprint | None = None) -> Any: ...

    def review(self, *asked: Any, unchanged: Fingerprint | None = None) -> Any: ...


class Follower:
    """Follows the vault at `given` (`flavour` as named, or None) for the `questions` a face answers
    from what is kept (each the command and its arguments as the face's `keep` names them), whose
    fingerprints take the face's source files `face`; `say` hears a line for each round."""

    def __init__(
        self,
        given: str,
        flavour: str | None,
        questions: Sequence[tuple],
        face: Iterable[Path],
        say: Callable[[str], None],
        memory_most: int | None = None,
    ):
        """`memory_most`: the resident bytes past which a round ends the following for a start
        again (`restart`); None: `MEMORY_MOST` or three times what was held once open."""
        self.given = given
        self.memory_most = memory_most
        self.restart = False  # the following ended to start again in place (`memory_most` passed)
        self.failed: str | None = None  # why the following ended for good (its folders cannot be watched)
        self._opener: Callable[[dict[str, list[os.DirEntry]]], Followed] | None = None
        self.flavour = flavour
        self.questions = list(questions)
        self.face = sorted(face)
        self.say = say
        self.vault: Followed | None = None
        self.mark: Mark | None = None
        self.rounds = 0
        self._heard: set[str] = set()
        self._hearing = threading.Lock()
        self._woken = threading.Event()
        self._day = dt.date.today()
        self.stopped = threading.Event()
        self.ready = threading.Event()  # set once the watcher's watches are in place
        self._kept: dict[str, str] = {}  # the digests of the last round, where every answer was kept
        self._again = 0.0  # when to walk again with nothing heard (files too fresh for a stat to tell), or 0
        self.gone = False  # the vault's folder vanished: nothing left to follow

    def open(self, opener: Callable[[dict[str, list[os.DirEntry]]], Followed]) -> bool:
        """Open the vault (`opener`, handed the first walk's listing: a face's open), take the
        follower's lock and keep the first answers; False where another follower holds the lock.
        Raises what the open raises for a vault that cannot be opened, and `ValueError` for one
        whose store is kept nowhere a fresh process looks."""
        started, cpu = time.perf_counter(), time.process_time()
        prints = self._fingerprints()
        vault = opener(prints[0].listing)
        vault.recovery_notes.clear()  # the opener's to say, as a face's open says them
        store = vault.store
        place = str(Path(store.path).parent) if store is not None and store.path is not None else None
        if place is None or place not in prints[0].places:
            raise ValueError("this vault's derived store is kept where no other process looks: nothing to follow for")
        mark = Mark(place, prints[0].root, self.flavour, prints[0].code)
        if not mark.take():
            return False
        self.vault, self.mark, self._opener = vault, mark, opener
        # Walked again, not answered for the open's walk: a first open makes the state folder, a
        # name the walk sees, so its fingerprint is one no later walk takes.
        self.round([], started, cpu, "opened")
        if self.memory_most is None:
            self.memory_most = max(MEMORY_MOST, 3 * (_resident() or 0))
        return True

    def follow(self) -> None:
        """Follow the vault until `stop()`: a round for each change heard, once it settles. A round
        that fails (a store another process holds too long, a file that cannot be read) is said, and
        the next change is followed as ever; nothing is kept for it."""
        assert self.mark is not None
        watcher = threading.Thread(target=self._hear, name="workbench-follower", daemon=True)
        watcher.start()
        while not self.ready.wait(LOOK_S) and not self.stopped.is_set() and watcher.is_alive():
            pass
        self.say("watching the vault's folders: changes are followed from now on")
        while not self.stopped.is_set():
            again = self._again - time.monotonic() if self._again else LOOK_S
            self._woken.wait(max(0.0, min(LOOK_S, again)))
            with self._hearing:
                heard, self._heard = sorted(self._heard), set()
                self._woken.clear()
            due = self._again and time.monotonic() >= self._again
            if self.stopped.is_set() or not (heard or due or dt.date.today() != self._day):
                continue
            try:
                self.round(heard)
            except Exception as error:  # noqa: BLE001 - said, and the next change followed
                with contextlib.suppress(OSError):  # a full disk: no one waits on a mark not written
                    self.mark.write("idle")
                self.say(f"a round failed, nothing kept for it: {type(error).__name__}: {error}")
        watcher.join(timeout=2 * LOOK_S)

    def stop(self) -> None:
        """End `follow` (after the round under way, if any); safe from a signal handler."""
        self.stopped.set()
        self._woken.set()

    def close(self) -> None:
        """Let the lock go (the mark with it); the vault is the opener's to close."""
        if self.mark is not None:
            self.mark.release()

    def round(self, heard: list[str], started: float = 0.0, cpu: float = 0.0, what: str = "") -> None:
        """Take the fingerprints, bring the vault in line with their walk and keep the answers;
        `heard`: the paths the watcher named (absolute), re-read first. `started`, `cpu`: the clocks
        when the round began (now where 0), and `what` it is said to follow."""
        assert self.vault is not None and self.mark is not None
        if not started:
            started, cpu = time.perf_counter(), time.process_time()
        self.mark.write("walking")
        prints = self._fingerprints()
        digests = {p.command: p.digest for p in prints}
        if digests == self._kept and all(p.kept() for p in prints):
            self.mark.write("idle", prints[0].taken_ns, digests)  # nothing new since the last round
            self._again = 0.0
            return
        self.mark.write("working", prints[0].taken_ns, digests)
        if self.vault.reading_moved(self.given, self.flavour):
            self._open_again(prints[0])
            self._answer(prints, started, cpu, "read otherwise now (a flavour or status words): opened again")
            return
        index = self.vault.index
        root = Path(index.root)
        if any(Path(path) == root / index.settings_file for path in heard):
            index.reread_config()
        documents = [
            os.path.relpath(path, root)
            for path in heard
            if path.endswith(".md") and os.path.isfile(path) and Path(path).is_relative_to(root)
        ]
        if documents and len(documents) == len(heard):  # a folder moved or a file gone: the walk finds it
            self.vault.refresh_paths(documents)
        self.vault.refresh(prints[0].listing)
        files = [path for path in heard if path != prints[0].root]
        what = what or (f"{len(files)} file(s) changed" if files else "walked again")
        self._answer(prints, started, cpu, what)

    def _open_again(self, walked: Fingerprint) -> None:
        """The vault opened anew, as a fresh process would open it now (its flavour detected
        again, its status words read again), with the walk of this round; the store it keeps must
        be the one the lock is beside."""
        assert self._opener is not None and self.mark is not None and self.vault is not None
        before = self.vault
        vault = self._opener(walked.listing)
        vault.recovery_notes.clear()
        store = vault.store
        place = str(Path(store.path).parent) if store is not None and store.path is not None else None
        if place != self.mark.place:
            self.failed = "the vault is kept elsewhere now that it is read otherwise: start the follower again"
            self.stop()
            raise ValueError(self.failed)
        self.vault = vault
        if before.store is not None and before.store is not store:
            before.store.close()

    def _fingerprints(self) -> list[Fingerprint]:
        first = Fingerprint(self.given, self.flavour, self.questions[0], self.face)
        rest = [Fingerprint(self.given, self.flavour, asked, self.face, walked=first) for asked in self.questions[1:]]
        self._day = first.day
        return [first, *rest]

    def _answer(self, prints: list[Fingerprint], started: float, cpu: float, what: str) -> None:
        """Work out and keep each question's answer, mark the round done and say it."""
        assert self.vault is not None and self.mark is not None
        vault = self.vault
        digests = {p.command: p.digest for p in prints}
        done: list[str] = []
        left = list(prints)
        while left:
            # A question a waiting process asked for first (`follower_mark`), else in the given order.
            wanted = self.mark.asked()
            fingerprint = next((p for p in left if p.command in wanted), left[0])
            left.remove(fingerprint)
            asked = fingerprint.asked
            if asked[0] == "conflicts":
                vault.conflicts_printed(*asked[1:], unchanged=fingerprint)
            elif asked[0] == "review":
                vault.review(*asked[1:], unchanged=fingerprint)
            done.append(fingerprint.command)
            if left:  # a process waiting for this one need not wait for the rest
                self.mark.write("working", prints[0].taken_ns, digests, done)
            self.mark.answered(fingerprint.command)
        kept = all(p.kept() for p in prints)
        self._again = _settled(prints) if not kept else 0.0
        self._kept = {p.command: p.digest for p in prints} if kept else {}
        notes = list(vault.recovery_notes)
        vault.recovery_notes.clear()  # said once: a fresh process after this round has none to say
        phase = "settling" if self._again else "idle"
        self.mark.write(phase, prints[0].taken_ns, digests, done)
        _give_back()
        self.rounds += 1
        held = _resident() if self.rounds > 1 else None  # the open's round never starts it again
        if held is not None and self.memory_most is not None and held > self.memory_most:
            self.say(f"holding {held >> 20} MB after this round, past {self.memory_most >> 20} MB: starting again")
            self.restart = True
            self.stop()
        for note in notes:
            self.say(note)
        doubt = f"; nothing kept: {prints[0].doubt}" if prints[0].doubt else ""
        if self._again:
            doubt = "; not all kept: files changed too near the walk for their stat to tell, walked again when settled"
        self.say(
            f"{what}: answers kept in {time.perf_counter() - started:.3f} s"
            f" ({time.process_time() - cpu:.3f} s CPU; {', '.join(done)}){doubt}"
        )

    def _hear(self) -> None:
        """Gather the paths changed in the vault's folders (hidden ones but their names aside) until
        `stop`, waking the follower; watched again when a folder appears."""
        from watchfiles import watch

        root = Path(os.path.realpath(os.path.expanduser(self.given)))
        stop = self.stopped
        while not stop.is_set():
            try:
                folders = watched_folders(root)
                caught_up = False
                for batch in watch(
                    *folders,
                    stop_event=stop,
                    debounce=BURST_MOST_MS,
                    step=SETTLE_MS,
                    rust_timeout=int(LOOK_S * 1000),
                    yield_on_timeout=True,
                    raise_interrupt=False,
                    recursive=False,
                ):
                    paths = {raw for _, raw in batch if not _hidden(root, raw)}
                    appeared = any(os.path.isdir(path) and not os.path.islink(path) for path in paths)
                    if not caught_up:
                        # The watches are in place: a change made before them was not heard, so the
                        # vault is walked (a round whose walk finds the state kept does nothing).
                        paths.add(str(root))
                        caught_up = True
                        self.ready.set()
                    if paths:
                        with self._hearing:
                            self._heard |= paths
                            self._woken.set()
                    if appeared:
                        break  # a folder appeared: watched too from now on (the round's walk reads it)
            except FileNotFoundError:
                if not root.is_dir():
                    self.gone = True
                    self.stop()
                    return
            except OSError as error:  # the system's watches run out, a folder that cannot be read
                self.failed = f"the vault's folders cannot be watched: {error.strerror or error}"
                self.stop()
                return


def _resident() -> int | None:
    """This process's resident memory in bytes (Linux's `/proc`), None where it cannot be read."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _give_back() -> None:
    """Hand back to the system the memory a round freed (glibc's `malloc_trim`; elsewhere nothing):
    a round that weighs every decision again (once a hundredth of them changed) peaks near 1 GB at
    10,000 decision records, and the allocator would keep that for the process's whole life."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # another C library, or none to ask
        pass


def _settled(prints: list[Fingerprint]) -> float:
    """When (`time.monotonic`) the files the walk of `prints` found changed too near it for their
    stat to tell (`kept_answers`' racy rules) will have settled, or 0 where none was: an answer
    left unkept for them is kept by a walk then."""
    walk = prints[0]
    if walk.doubt or not walk.racy:
        return 0.0
    ends = max(ctime + (RACY_COARSE_NS if ctime % 1_000_000_000 == 0 else RACY_NS) for _, ctime in walk.racy)
    return time.monotonic() + max(0, ends - time.time_ns()) / 1e9 + 0.01


def _hidden(root: Path, path: str) -> bool:
    """Whether `path` lies in a hidden folder of the vault (or outside it): not walked by a fingerprint."""
    try:
        parts = Path(path).relative_to(root).parts
    except ValueError:
        return True
    return any(part.startswith(".") for part in parts[:-1])
