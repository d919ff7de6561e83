"""Answers kept for a vault none of whose files changed: `workbench conflicts --json` and
`workbench review --json` asked of an unchanged vault answer without opening it.

Opening a vault of 10,000 documents (importing the core, reading every record back from the
derived store and settling their ids) costs several times what the kept queue does once it is
open. A `Fingerprint` is a digest of what a stat walk sees of the vault's folder, taken before
anything is read: every file's path, size, modification time, inode and change time, as a warm
open compares them (`records.unchanged`), in every folder but hidden ones, whose names it holds;
with the folder's identity, the question asked, the day and the local zone, the core's code (`code_fingerprint`) and
the face's. The walk takes more than the vault's own (every file, not the documents alone), so a
change the vault would see always changes it.

When the answer has been worked out the usual way, the facade keeps under that fingerprint where
the answer is (`keep`): the kept queue's key, or the review page itself, in the derived store's
`kept` table. The next process that takes the same fingerprint reads it back (`Fingerprint.answer`)
and prints it. Because the fingerprint was taken before the vault's files were read, a file
written since can only give another fingerprint, never an answer kept for other bytes. Where the
stat cannot tell (a file changed in the same tick of the file clock as the walk, as a warm open
decides with `records.record.RACY_NS`), the digest of the bytes the answer was worked out from is
kept beside it, and the file is read again and compared before the answer is given; a file whose
bytes the answer did not read (a settings file, a file that is not a document) leaves no answer
kept. A symlink, a special file, a name with a line break or a folder that cannot be listed
leaves the fingerprint in doubt: nothing is kept or read for it. So do a change in flight in the
journal (the next open would finish it) and an open that had anything to say.

Nothing here imports the records or the flavours: the question is answered with the cost of a stat
walk and one query. Any miss, doubt or error (no store, a damaged or older one, a locked one)
gives None, and the vault is opened as ever.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..vocabulary.files import folder_identity
from ..vocabulary.localzone import local_zone
from .kept_conflicts import ANSWERED, code_fingerprint, kept_printed, update_lines

if TYPE_CHECKING:
    from ..index import VaultIndex
    from ..records.derived_store import DerivedStore

__all__ = ["ANSWERS", "Fingerprint", "keep", "state_places"]

ANSWERS = dict(zip(("conflicts", "review"), ANSWERED))
"""The `kept` table's names of the two answers, each kept for one fingerprint (the latest)."""
FORMAT = "1"  # what a kept answer holds: another format is never read
STATE = ".workbench"  # the state folder of a vault that keeps it inside (`storage.vaultfs.STATE_DIR`)
STORE = "index.sqlite"  # the derived store in the state folder
RACY_MOST_NS = 2_000_000_000  # no margin of `records.record` is wider: the files within it are noted
RACY_MOST = 64  # files changed in the walk's tick whose bytes are compared; past this, nothing is kept


class Fingerprint:
    """The vault at `given` as a stat walk sees it now, for the question `asked` (the command
    and its arguments as the face resolved them, the flavour named or None). `face`: the source
    files of the face that asks (its code changes the question)."""

    def __init__(
        self,
        given: str,
        flavour: str | None,
        asked: tuple,
        face: Iterable[Path] = (),
        walked: Fingerprint | None = None,
    ):
        """`walked`: a fingerprint of the same vault just taken for another question, whose walk
        this one takes as it is (a follower keeps two answers for one state of the files)."""
        self.command = str(asked[0])
        self.asked = asked
        self.flavour = flavour
        if walked is None:
            self.taken_ns = time.time_ns()  # before the walk: a change after it has a later change time
            self.day = dt.date.today()
            self.root = os.path.realpath(os.path.expanduser(given))
            self.doubt = ""  # why nothing may be kept or answered for this walk ("" when nothing)
            self.racy: list[tuple[str, int]] = []  # (path, change time) of files changed near the walk
            # Each folder's entries as the walk listed them (their stats cached in them): handed to the
            # vault's open when nothing is kept, so that a call after a change walks the folder once.
            self.listing: dict[str, list[os.DirEntry]] = {}
            self.places = state_places(self.root)
            if any(_in_flight(place) for place in self.places):
                self.doubt = "a change in flight"
            self.lines: list[str] = self._walk() if not self.doubt else []
            self.lines.sort()
        else:
            self.taken_ns, self.day, self.root = walked.taken_ns, walked.day, walked.root
            self.doubt, self.racy, self.listing, self.places = walked.doubt, walked.racy, walked.listing, walked.places
            self.lines = walked.lines
        code = code_fingerprint()
        # The zone with the day: an answer may show dates and times worked out in it.
        head = json.dumps(
            [
                FORMAT,
                self.root,
                folder_identity(self.root),
                list(map(repr, asked)),
                flavour,
                str(self.day),
                local_zone(),
            ]
        )
        digest = hashlib.sha256(f"{head}\n{code}\n{_stats(face)}\n".encode())
        update_lines(digest, self.lines, "surrogateescape")
        self.code = code
        self.digest = digest.hexdigest()

    def _walk(self) -> list[str]:
        """One line per entry: a file's path and stat, a folder's name (hidden: its name alone).

        Each folder is listed through a descriptor of it, and its entries' stats asked relative to
        it (`fstatat`: the kernel walks one name, not every folder down to it), all of them while
        it is open: a folder's entries are handed to the open (`listing`) only once each has its
        stat, or its kind, cached in it, so that nothing the open asks of them needs the folder."""
        lines: list[str] = []
        append = lines.append
        racy = self.racy
        near = self.taken_ns - RACY_MOST_NS
        stack = [(self.root, "")]
        while stack:
            folder, prefix = stack.pop()
            try:
                opened = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            except OSError:
                self.doubt = f"{prefix or '.'} cannot be listed"
                return []
            try:
                found = list(os.scandir(opened))
                for entry in found:
                    name = entry.name
                    if "\n" in name:  # a name that could pass for two lines of the walk
                        self.doubt = f"{prefix + name!r} has a line break in its name"
                        return []
                    if entry.is_dir(follow_symlinks=False):
                        append(f"{prefix}{name}/")
                        if name[0] != ".":
                            stack.append((os.path.join(folder, name), f"{prefix}{name}/"))
                        continue
                    if not entry.is_file(follow_symlinks=False):
                        self.doubt = f"{prefix}{name} is a symlink or a special file"
                        return []
                    st = entry.stat(follow_symlinks=False)
                    ctime = st.st_ctime_ns
                    append(f"{prefix}{name}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0{ctime}")
                    if ctime >= near:
                        racy.append((prefix + name, ctime))
            except OSError:
                self.doubt = f"{prefix or '.'} cannot be looked at"
                return []
            finally:
                os.close(opened)
            self.listing[folder] = found
        return lines

    def answer(self) -> str | list[bytes | memoryview] | None:
        """The answer kept for this fingerprint: the queue as `printed` prints it, in pieces of
        UTF-8 to write one after the other (`kept_conflicts.kept_printed`), or the review page as
        JSON text; None on any miss, doubt or error."""
        if self.doubt or self.command not in ANSWERS:
            return None
        for place in self.places:
            path = os.path.join(place, STORE)
            if not os.path.isfile(path):
                continue
            try:
                found = self._read(path)
            except (sqlite3.Error, OSError, ValueError, TypeError, KeyError):
                found = None
            if found is not None:
                return found
        return None

    def kept(self) -> bool:
        """Whether an answer is kept under this fingerprint (its row alone looked at, not read)."""
        for place in self.places:
            path = os.path.join(place, STORE)
            if not os.path.isfile(path):
                continue
            try:
                db = sqlite3.connect(f"file:{_quoted(path)}?mode=ro", uri=True, timeout=0.2)
                try:
                    query = "SELECT 1 FROM kept WHERE name = ? AND key = ?"
                    if db.execute(query, (ANSWERS[self.command], self.digest)).fetchone():
                        return True
                finally:
                    db.close()
            except sqlite3.Error:
                continue
        return False

    def awaited(self) -> str | list[bytes | memoryview] | None:
        """The answer a follower of the vault keeps for this fingerprint, waited for a bounded
        time while one is at work on it (`follower_mark.awaited`); None where none is or will be."""
        if self.doubt or self.command not in ANSWERS:
            return None
        from .follower_mark import awaited

        return awaited(self, self.answer)

    def _read(self, path: str) -> str | list[bytes | memoryview] | None:
        db = sqlite3.connect(f"file:{_quoted(path)}?mode=rw", uri=True, timeout=0.2, isolation_level=None)
        try:
            db.execute("BEGIN")  # one snapshot: what another process keeps meanwhile is not half seen
            if db.execute("PRAGMA user_version").fetchone()[0] != 1:
                return None
            row = db.execute("SELECT value FROM kept WHERE name = ? AND key = ?", (ANSWERS[self.command], self.digest))
            found = row.fetchone()
            if found is None or not isinstance(found[0], str):
                return None
            kept = json.loads(found[0])
            schema = db.execute("SELECT value FROM info WHERE key = 'schema'").fetchone()
            if (
                not isinstance(kept, dict)
                or kept.get("format") != FORMAT
                or kept.get("day") != str(self.day)
                or kept.get("code") != self.code
                or schema is None
                or kept.get("schema") != schema[0]
                or not _same_bytes(self.root, kept.get("racy"))
            ):
                return None
            if self.command == "review":
                page = kept.get("page")
                return page if isinstance(page, str) else None
            key = kept.get("key")
            return kept_printed(cast("DerivedStore", _Kept(db)), key) if isinstance(key, str) else None
        finally:
            if db.in_transaction:
                db.execute("COMMIT")
            db.close()


class _Kept:
    """The derived store's `kept` and `kept_rows` tables, read through one connection (`kept_printed`
    asks them)."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def kept(self, name: str, key: str) -> Any:
        found = self.db.execute("SELECT value FROM kept WHERE name = ? AND key = ?", (name, key)).fetchone()
        return found[0] if found else None

    def kept_rows(self, name: str, keys: list[str]) -> dict[str, bytes]:
        """The rows kept as `name` under these keys (the queue's decision pairs, `kept_chosen`)."""
        marks = ", ".join("?" * len(keys))
        query = f"SELECT key, value FROM kept_rows WHERE name = ? AND key IN ({marks})"
        return dict(self.db.execute(query, (name, *keys)).fetchall()) if keys else {}


def keep(index: VaultIndex, fingerprint: Fingerprint, asked: tuple, key: str = "", page: Any = None) -> None:
    """Keep under `fingerprint`, taken before `index` was opened, where the answer to `asked` is:
    the kept queue's `key` (conflicts) or the review `page` (its JSON value). Nothing is kept where
    the fingerprint is in doubt or asked another question, the day or the code moved since, the
    open had anything to say, the store is not the one the fingerprint looks in, or a file changed
    in the walk's tick is not a document whose bytes the answer read."""
    from ..records.record import RACY_COARSE_NS, RACY_NS

    store = index.store
    if (
        fingerprint.doubt
        or fingerprint.asked != asked
        or fingerprint.command not in ANSWERS
        or fingerprint.day != dt.date.today()
        or fingerprint.code != code_fingerprint()
        or index.recovery_notes
        or not index.documents
        or store is None
        or store.path is None
        or store.damaged
        or str(Path(store.path).parent) not in fingerprint.places
        or max(RACY_NS, RACY_COARSE_NS) > RACY_MOST_NS
    ):
        return
    racy: dict[str, str] = {}
    within = os.path.relpath(index.root, fingerprint.root)
    near = [
        (path, ctime)
        for path, ctime in fingerprint.racy
        if ctime >= fingerprint.taken_ns - (RACY_COARSE_NS if ctime % 1_000_000_000 == 0 else RACY_NS)
    ]  # the others' stat says it all, as it does to a warm open
    digests = {d.path: d.digest for d in index.documents} if near else {}
    for path, ctime in near:
        relative = os.path.relpath(path, within) if within != "." else path
        digest = digests.get(relative)
        if not digest or relative.startswith("../") or len(racy) >= RACY_MOST:
            return  # bytes the answer did not read, or too many to compare: not kept
        racy[path] = digest
    kept: dict[str, Any] = {
        "format": FORMAT,
        "day": str(fingerprint.day),
        "code": fingerprint.code,
        "schema": store.schema,  # as its `info` table says: a store built again since holds another
        "racy": racy,
    }
    try:
        if fingerprint.command == "review":  # a value JSON does not hold as it is is not kept
            kept["page"] = json.dumps(page, ensure_ascii=False)
        else:
            kept["key"] = key
        text = json.dumps(kept, ensure_ascii=False)
    except (TypeError, ValueError):
        return
    store.keep(ANSWERS[fingerprint.command], fingerprint.digest, text)


def state_places(root: str) -> list[str]:
    """Where the state folder of the vault at `root` may be (`records.walk.state_dir_for`): inside
    it or its `memory/` child, or the user's cache. `keep` keeps nothing where the store is
    elsewhere, so the places here can only miss, never mislead."""
    cache = os.environ.get("XDG_CACHE_HOME", "")
    base = cache if os.path.isabs(cache) else os.path.join(os.path.expanduser("~"), ".cache")
    places = []
    for folder in (root, os.path.join(root, "memory")):
        name = "".join(c if c.isalnum() or c in "-_." else "-" for c in os.path.basename(folder))[:40].strip("-.")
        hashed = hashlib.sha256(os.path.realpath(folder).encode("utf-8", "surrogateescape")).hexdigest()[:16]
        places += [
            os.path.join(folder, STATE),
            os.path.join(base, "workbench", "vaults", f"{name or 'vault'}-{hashed}"),
        ]
    return places


def _in_flight(place: str) -> bool:
    """Whether the journal in the state folder `place` holds anything (a change in flight, or left
    by a crash: the next open finishes it)."""
    try:
        with os.scandir(os.path.join(place, "journal")) as entries:
            return next(entries, None) is not None
    except FileNotFoundError:
        return False
    except OSError:
        return True


def _stats(files: Iterable[Path]) -> str:
    lines = []
    for path in sorted(files):
        try:
            st = path.stat()
        except OSError:
            return os.urandom(16).hex()  # unknown code: a fingerprint no one kept anything under
        lines.append(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0{st.st_ctime_ns}")
    return "\n".join(lines)


def _same_bytes(root: str, racy: Any) -> bool:
    """Whether each file changed in the walk's tick still holds the bytes the answer read."""
    if not isinstance(racy, dict):
        return False
    for path, digest in racy.items():
        try:
            with open(os.path.join(root, path), "rb") as file:
                if hashlib.sha256(file.read()).hexdigest() != digest:
                    return False
        except OSError:
            return False
    return True


def _quoted(path: str) -> str:
    return path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
