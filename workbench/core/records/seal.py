"""The seal of a derived store: proof that this user's workbench made it, so that a store carried
into another folder (a copy of the vault) is reused only when it is the user's own.

Each store gets a random origin when it is built, and its seal is an HMAC of that origin and the
store's schema under a secret kept in the user's own state folder
(`$XDG_STATE_HOME/workbench/store-secret`, else `~/.local/state/...`), made once, 0600, atomically.
A store that came in someone else's vault (a tarball, a zip, a shared folder) cannot carry a seal
that verifies here, so it is built again from the files rather than read. The seal binds the
origin, not the rows: a store of this user's that went away and came back altered still passes.

No secret that can be read or made (an unwritable state folder, a file someone else can read)
means no seal: every copied store is then built again, which costs time and loses nothing. Why,
and how to mend it, is kept for the faces to tell the person (`refusal`): without it the stores
were quietly never trusted.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import os
import stat
from pathlib import Path

__all__ = ["secret_path", "user_secret", "refusal", "secret_note", "seal_of", "verifies", "new_origin"]

SECRET_BYTES = 32
SECRET_NAME = "store-secret"

_known: dict[Path, bytes] = {}  # the secret by its path, once read: read once a process
_refused: dict[Path, str] = {}  # why the secret at a path was refused, the last time it was asked


def secret_path() -> Path:
    """Where the user's secret is kept: their state folder, not the cache (wiping a cache should
    not make every copied store untrusted) and never inside a vault."""
    state = os.environ.get("XDG_STATE_HOME", "")
    base = Path(state) if os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "workbench" / SECRET_NAME


def user_secret() -> bytes | None:
    """The user's secret, made on first use; None when it cannot be read or made."""
    path = secret_path()
    known = _known.get(path)
    if known is not None:
        return known
    try:
        found = _read(path)
        if found is None:
            _make(path)
            found = _read(path)
    except ValueError as error:
        _refused[path] = str(error)
        return None
    except OSError as error:
        _refused[path] = _unreadable(path, error)
        return None
    if found is not None:
        _known[path] = found
        _refused.pop(path, None)
    return found


def refusal(ask: bool = False) -> str | None:
    """Why the user's secret is not used (the file, the problem and how to mend it), where it was
    refused in this process, or, `ask`ed, is refused now; None where it is used or was not asked.
    A face tells the person: until it is mended, every copied vault's store is built again."""
    if ask:
        user_secret()
    return _refused.get(secret_path())


def secret_note(ask: bool = False) -> str | None:
    """`refusal` as a face says it to the person (`Vault.secret_note`); public in `workbench.core`
    as well, for a face that answers without opening a vault (this module loads cheaply)."""
    problem = refusal(ask)
    if problem is None:
        return None
    return f"the secret that seals derived stores is not used, so a copied vault's store is built again: {problem}"


def _unreadable(path: Path, error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return f"{path}: a symbolic link, not a regular file: remove it (rm {path}) and a new secret is made"
    where = error.filename if isinstance(error.filename, str) else str(path)
    return (
        f"{path}: cannot be read or made ({error.strerror or error} at {where}): make its folder"
        f" {path.parent} a folder you can write (mkdir -p {path.parent}; chmod 700 {path.parent})"
    )


def _read(path: Path) -> bytes | None:
    """The secret at `path`, None when there is none; raises ValueError for one not to trust (not a
    regular file of this user's, readable by others, or of the wrong length)."""
    try:
        # Not blocking: a named pipe put there would otherwise hold the open until a writer came.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    remade = f"remove it (rm -r {path}) and a new secret is made"
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise ValueError(f"{path}: not a regular file: {remade}")
        if hasattr(os, "getuid") and found.st_uid != os.getuid():
            raise ValueError(f"{path}: another user's file: {remade}")
        if found.st_mode & 0o077:
            mode = stat.S_IMODE(found.st_mode)
            raise ValueError(f"{path}: others may read it (mode {mode:o}): make it yours alone: chmod 600 {path}")
        raw = os.read(fd, SECRET_BYTES + 1)
    finally:
        os.close(fd)
    if len(raw) != SECRET_BYTES:
        raise ValueError(f"{path}: {len(raw)} bytes, not {SECRET_BYTES}: {remade}")
    return raw


def _make(path: Path) -> None:
    """Write a new secret to a file of its own, then link it into place: the link fails when
    another process got there first, and both then read the one that is there. No reader ever
    sees half a secret."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{SECRET_NAME}.{os.getpid()}.{os.urandom(8).hex()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        try:
            os.write(fd, os.urandom(SECRET_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def new_origin() -> str:
    """A store's origin: random, told apart from every other store (from `os.urandom`, as the
    `secrets` module draws, which would import `base64` into every call that reads a vault)."""
    return os.urandom(16).hex()


def seal_of(origin: str, schema: str) -> str | None:
    """The seal of a store of this origin and schema, None when there is no secret."""
    secret = user_secret()
    if secret is None:
        return None
    return hmac.new(secret, f"{origin}\n{schema}".encode(), hashlib.sha256).hexdigest()


def verifies(origin: object, schema: str, seal: object) -> bool:
    """Whether `seal` is this user's seal of the store's origin and schema. The values come from a
    file anyone may have written: anything but two strings (a number, bytes, none) is no seal."""
    if not isinstance(origin, str) or not isinstance(seal, str) or not origin or not seal:
        return False
    expected = seal_of(origin, schema)
    return expected is not None and hmac.compare_digest(expected.encode(), seal.encode("utf-8", "replace"))
