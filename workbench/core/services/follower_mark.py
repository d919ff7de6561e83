"""What a follower of a vault (`following.py`) leaves in the vault's state folder, and how a fresh
process asked `conflicts --json` or `review --json` reads it to wait for an answer being worked out.

Two files beside the derived store:

- `follower.lock`, locked (`flock`, exclusive) by the follower for its whole life. The kernel lets
  go of it when the process ends, however it ends (SIGKILL, a crash): a lock no one holds means no
  follower, whatever else the folder holds. One follower a vault: a second cannot take it.
- `follower.json`, what the follower is doing, replaced whole at each step (a temporary file
  renamed over it; a reader sees the old one or the new one, never half of one). Not synced: it
  describes a live process and means nothing once the lock is let go. It holds the vault's folder,
  the flavour named, the code's digest and the day (a fingerprint of another question never waits),
  the phase (`walking`: a walk of the vault begun; `working`: the answers being worked out for the
  walk it names; `settling`: worked out, not all kept, as files changed too near the walk for their
  stat to tell: walked again once they settle; `idle`: done), the walk's start and the fingerprints
  it took (`digests`, one a question), the questions whose answers for it are kept already (`done`:
  a waiting process looks for its answer only once the mark says it is there), and when it was
  written.

A process whose fingerprint finds no answer kept (`awaited`) waits only while a follower holds the
lock, for the same folder, flavour, code and day, and is at work on the state it walked or one it
has yet to walk: working on a walk with the same fingerprint, or settling it; walking; working on
a walk older than its own (the change since then is heard, a walk follows); idle with a walk older than its own for
at most `QUIET_MOST_S` (the watcher's settle delay before it hears the change). It stops waiting the
moment the follower lets go of the lock, walks past it (a later walk of another state: its own
fingerprint will never be kept), or is done without keeping it, and in any case after `WAIT_MOST_S`.
A process that waits says which question it waits for (`follower.ask.conflicts`, an empty file):
the follower works that question out first in the round it begins next, or in the one under way
if it has not begun it yet, and removes the file once it is answered. Without it, a process asked
the second of the follower's two questions at once waited for both (at 10,000 decision records
twice what it takes alone). A process that only looks writes nothing and never waits on the lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import time
from collections.abc import Callable, Iterable
import datetime as dt
from typing import Any, Protocol

__all__ = ["ASK", "LOCK", "MARK", "Asking", "Mark", "awaited", "held"]

LOCK = "follower.lock"
MARK = "follower.json"
ASK = "follower.ask."  # and the command: a process waits for that question's answer
HANDED = "WORKBENCH_FOLLOWER_LOCK"  # the lock's descriptor, held through a follower's start again in place
WAIT_MOST_S = 5.0
"""The longest a fresh process waits for a follower. A follower's round after one decision changed
takes 0.4-1 s of CPU at 10,000 decision records (a decision copied from a common template the most):
5 s lets it finish on a loaded machine, while a hung follower costs a process at most 5 s more than
working the answer out itself. The round that weighs every decision again (once a hundredth of them
changed, 30 s there) is not waited for to its end."""
QUIET_MOST_S = 1.0
"""How long after its own walk (or the follower's last word, the later) a process waits for an idle
follower to hear a change: the watcher settles a change in `following.SETTLE_MS` (50 ms), so a
follower that has not begun walking within a second is taken not to be about to."""
POLL_S = 0.01  # between two looks at the mark and the kept answer


class Asking(Protocol):
    """What is read of a process's fingerprint (`kept_answers.Fingerprint`, which asks `awaited`)."""

    root: str
    flavour: str | None
    code: str
    day: dt.date
    command: str
    digest: str
    taken_ns: int
    places: list[str]


class Mark:
    """The follower's side: the lock taken for its life, and its doings written for others."""

    def __init__(self, place: str, root: str, flavour: str | None, code: str):
        self.place = place
        self.head = {"pid": os.getpid(), "root": root, "flavour": flavour, "code": code}
        self._locked: int | None = None

    def take(self, tries: int = 20) -> bool:
        """Lock `follower.lock` for this process's life; False where another holds it. Tried a few
        times 10 ms apart: a process looking whether the lock is held holds it shared for a moment.
        A follower started again in place (`hand_on`) takes the lock it held before."""
        path = os.path.join(self.place, LOCK)
        handed = _handed(path)
        if handed is not None:
            self._locked = handed
            return True
        fd = _opened(path, os.O_RDWR | os.O_CREAT)
        if fd is None:
            raise ValueError(f"{path}: the follower's lock cannot be taken (not a regular file we may write)")
        for attempt in range(tries):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if attempt + 1 < tries:
                    time.sleep(0.01)
                continue
            self._locked = fd
            return True
        os.close(fd)
        return False

    def write(
        self, phase: str, taken_ns: int = 0, digests: dict[str, str] | None = None, done: Iterable[str] = ()
    ) -> None:
        """Say what the follower is doing now (see the module's account of each phase); `done`: the
        questions whose answers for the walk are kept already."""
        mark = {
            **self.head,
            "day": time.strftime("%Y-%m-%d"),
            "phase": phase,
            "taken_ns": taken_ns,
            "digests": digests or {},
            "done": list(done),
            "updated_ns": time.time_ns(),
        }
        path = os.path.join(self.place, MARK)
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "w", encoding="utf-8") as file:
            json.dump(mark, file)
        os.replace(temporary, path)

    def asked(self) -> set[str]:
        """The questions a waiting process has asked for and no round has answered since."""
        try:
            names = os.listdir(self.place)
        except OSError:
            return set()
        return {name[len(ASK) :] for name in names if name.startswith(ASK)}

    def answered(self, command: str) -> None:
        """`command`'s answer is kept: no process waits for it any longer."""
        with contextlib.suppress(OSError):
            os.remove(os.path.join(self.place, ASK + command))

    def hand_on(self) -> dict[str, str]:
        """The lock kept open through an `exec` of this process (a follower starting again in
        place): the environment's variable that names it to the next `take`. No other process can
        take the lock meanwhile."""
        assert self._locked is not None
        os.set_inheritable(self._locked, True)
        return {HANDED: str(self._locked)}

    def release(self) -> None:
        """Let the lock go, the mark removed first (it never outlives the lock it describes)."""
        if self._locked is None:
            return
        with contextlib.suppress(OSError):
            os.remove(os.path.join(self.place, MARK))
        os.close(self._locked)
        self._locked = None


def _handed(path: str) -> int | None:
    """The descriptor of the lock at `path` this process holds already, handed on by `hand_on`
    through an `exec` (taken out of the environment, not inherited again); None where none is."""
    named = os.environ.pop(HANDED, None)
    if named is None or not named.isdigit():
        return None
    fd = int(named)
    try:
        same = os.path.samestat(os.fstat(fd), os.stat(path))
        if same:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held already by this open file: at once
            os.set_inheritable(fd, False)
            return fd
    except OSError:
        pass
    return None


def _opened(path: str, flags: int = os.O_RDONLY) -> int | None:
    """A descriptor of the regular file at `path`, None for anything else: a state folder may hold
    what an archive or a checkout left there (a named pipe would block the reader, a link to an
    endless file feed it for ever)."""
    try:
        fd = os.open(path, flags | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def held(place: str) -> bool:
    """Whether a process holds the follower's lock in the state folder `place` (a look: the lock
    held shared for a moment where no one holds it, never waited for)."""
    fd = _opened(os.path.join(place, LOCK))
    if fd is None:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def awaited(fingerprint: Asking, answer: Callable[[], Any]) -> Any:
    """`answer()` once a follower has kept it for `fingerprint`, looked for every `POLL_S` while
    the module's rules say one is at work on it, for at most `WAIT_MOST_S`; None otherwise."""
    # The place whose lock is held: a lock file left in another (a follower that read the vault
    # with another flavour, ended) would hide a live follower.
    place = next((p for p in fingerprint.places if held(p)), None)
    if place is None:
        return None
    ends = time.monotonic() + WAIT_MOST_S
    looked = None  # the mark after which the answer was last looked for
    said = False  # the question said to the follower, once
    while time.monotonic() < ends:
        mark = _read(place)  # read before the answer is looked for: a mark saying "done" means it is kept
        if mark is None or not _for(mark, fingerprint) or not held(place):
            return None
        mine = mark["digests"].get(fingerprint.command) == fingerprint.digest
        done = fingerprint.command in mark.get("done", ()) or mark.get("phase") in ("idle", "settling")
        if mine and done and mark["updated_ns"] != looked:  # looked for once a mark says it is there
            looked = mark["updated_ns"]
            found = answer()
            if found is not None:
                return found
        if not _worth_waiting(mark, fingerprint):
            return None
        if not said:
            said = True
            fd = _opened(os.path.join(place, ASK + fingerprint.command), os.O_WRONLY | os.O_CREAT)
            if fd is not None:  # else a state folder that cannot be written: waited for as it comes
                os.close(fd)
        time.sleep(POLL_S)
    return None


MARK_MOST = 64 << 10  # a mark is a few hundred bytes: more is not a follower's


def _read(place: str) -> dict[str, Any] | None:
    fd = _opened(os.path.join(place, MARK))
    if fd is None:
        return None
    try:
        data = os.read(fd, MARK_MOST + 1)
        mark = json.loads(data) if len(data) <= MARK_MOST else None
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    return mark if isinstance(mark, dict) else None


def _for(mark: dict[str, Any], fingerprint: Asking) -> bool:
    """Whether the follower of `mark` answers the question of `fingerprint`: the same folder,
    flavour named, code and day."""
    return (
        mark.get("root") == fingerprint.root
        and mark.get("flavour") == fingerprint.flavour
        and mark.get("code") == fingerprint.code
        and mark.get("day") == str(fingerprint.day)
        and isinstance(mark.get("digests"), dict)
        and isinstance(mark.get("taken_ns"), int)
        and isinstance(mark.get("updated_ns"), int)
    )


def _worth_waiting(mark: dict[str, Any], fingerprint: Asking) -> bool:
    phase = mark.get("phase")
    if mark["digests"].get(fingerprint.command) == fingerprint.digest:
        return phase in ("working", "settling")  # idle: done, and nothing kept for it (a doubt)
    if phase == "walking":
        return True
    if mark["taken_ns"] > fingerprint.taken_ns:
        return False  # it walked after this process and found another state
    if phase == "working":
        return True  # on an older state: the change since is heard, and walked when it is done
    return time.time_ns() - max(mark["updated_ns"], fingerprint.taken_ns) < QUIET_MOST_S * 1e9
