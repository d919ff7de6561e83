"""Finding a vault's root, its document files (SPEC §1), and where its state lives (`state_dir_for`).

Hidden files and folders, editor debris and symlinks are never documents, and a symlink is never
followed, whether it points at a file or a folder, inside the vault or out of it. Symlinks are
reported so a person knows why a file they see is not in the vault, and so are the links and
special files (a FIFO) where the store keeps its own files (`.workbench`, `.recovery`, `log.md`):
the store refuses to write through them, and `check` says why.

Anything else named like a document is offered as one, whatever it is: a named pipe or a socket
at `notes/x.md` becomes a record with a problem naming it (it is never opened for reading), so
it is seen rather than silently skipped. A folder the walk cannot list is reported too, since
the documents in it are missing from the vault until it can be.
"""

from __future__ import annotations

import hashlib
import operator
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..flavours import FLAVOURS, MEMORY_CORE, Flavour
from ..vocabulary.model import TYPE_FOLDERS, VaultError
from ..storage.vaultfs import RECOVERY_DIR, STATE_DIR, is_temporary

__all__ = [
    "RECOVERY_DIR",
    "STATE_DIR",
    "Walk",
    "find_root",
    "is_debris",
    "is_document_path",
    "is_utf8",
    "looks_like_vault",
    "no_documents_note",
    "require_folder",
    "state_dir_for",
    "walk_vault",
]

# What the store keeps under `.workbench/`: folders, then files. A symlink at any of them, or a
# FIFO where a file belongs, would take a write elsewhere or hang it; the walk reports them.
STATE_FOLDERS = ("journal", "history", "history/redo", "history/undone", "refused")
STATE_FILES = ("lock", "log.md", "index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "index.sqlite-journal")
TYPE_FOLDER_NAMES = frozenset(TYPE_FOLDERS.values())


def _has_type_folders(path: Path) -> bool:
    return any((path / name).is_dir() and not (path / name).is_symlink() for name in TYPE_FOLDER_NAMES)


def find_root(path: Path) -> Path:
    """The folder that holds the type folders: `path` itself, or its `memory/` child if that holds them."""
    memory = path / "memory"
    if not _has_type_folders(path) and memory.is_dir() and not memory.is_symlink() and _has_type_folders(memory):
        return memory
    return path


def _holds_memory_documents(path: Path) -> bool:
    """A type folder holding a `mem-*.md` file: a `notes/` folder alone is not evidence enough."""
    for name in TYPE_FOLDER_NAMES:
        folder = path / name
        if folder.is_dir() and not folder.is_symlink() and next(folder.glob("mem-*.md"), None) is not None:
            return True
    return False


def looks_like_vault(path: Path) -> bool:
    """Whether the current folder should be opened when no vault is named: it (or its `memory/`
    child) must hold Memory Core documents, so that a home folder with a `notes/` folder is not
    mistaken for a vault."""
    if not path.is_dir():
        return False
    if _holds_memory_documents(path) or _holds_memory_documents(path / "memory"):
        return True
    # Other tools' vaults say so themselves: an Obsidian or Dendron config, numbered ADRs, a HOT tier.
    if (path / ".obsidian").is_dir() or (path / "dendron.yml").is_file():
        return True
    return any(FLAVOURS[name].detect(path) >= 70 for name in ("adr", "tiered"))  # both look at the top level only


def is_debris(name: str) -> bool:
    return name.startswith((".", "#", "~$")) or name.endswith(("~", ".swp", ".swo", ".tmp", ".bak", ".orig"))


_name = operator.attrgetter("name")
# Where a folder can be listed through a descriptor, its entries' stats asked relative to it.
BY_DESCRIPTOR = os.scandir in os.supports_fd and hasattr(os, "O_DIRECTORY")


@dataclass
class Walk:
    files: list[tuple[str, os.stat_result]] = field(default_factory=list)  # (relative path, stat)
    symlinks: list[str] = field(default_factory=list)
    temporaries: list[Path] = field(default_factory=list)
    not_pages: list[tuple[str, str]] = field(default_factory=list)  # (relative path, why it is not loaded)
    specials: list[str] = field(default_factory=list)  # FIFOs, sockets, devices where a file belongs
    unreadable: list[tuple[str, str]] = field(
        default_factory=list
    )  # (a folder or file the walk could not look into, why)


def walk_vault(root: Path, flavour: Flavour = MEMORY_CORE, listed: dict[str, list[os.DirEntry]] | None = None) -> Walk:
    """Every Markdown file that may be a document, in a stable order, without following symlinks.

    `listed`: folders' entries a walk of this process listed moments before (by folder path), each
    taken from it once instead of listing the folder again; their stats are cached in them."""
    result = Walk()
    # Asked of every file only where the flavour says something (its own `not_a_page`).
    not_a_page = flavour.not_a_page if type(flavour).not_a_page is not Flavour.not_a_page else None
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        opened = None  # the folder's descriptor, while its entries are looked at
        try:
            taken = listed.pop(os.fspath(folder), None) if listed else None
            if taken is None and BY_DESCRIPTOR:
                # Listed through a descriptor of the folder, each entry's stat is asked relative to
                # it (`fstatat`) rather than by its whole path: the kernel walks one name, not every
                # folder down to it (a tenth of the walk's system time at 100,000 files).
                opened = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
                taken = list(os.scandir(opened))
            entries = sorted(taken if taken is not None else os.scandir(folder), key=_name)
        except OSError as error:
            if opened is not None:
                os.close(opened)
            result.unreadable.append(
                (
                    prefix.rstrip("/") or ".",
                    f"this folder cannot be listed ({error.strerror or error}): the documents in it are missing from the vault",
                )
            )
            continue
        try:
            subfolders = _look_at(entries, folder, prefix, flavour, not_a_page, result)
        finally:
            if opened is not None:
                os.close(opened)
        stack.extend(reversed(subfolders))
    _look_at_state(root, result)
    return result


def _look_at(
    entries: list[os.DirEntry], folder: Path, prefix: str, flavour: Flavour, not_a_page, result: Walk
) -> list[tuple[Path, str]]:
    """The walk's look at one folder's entries (into `result`); its subfolders to walk, in order.
    An entry's own `path` is only its name where the folder was listed by its descriptor."""
    files = result.files
    subfolders = []
    odd = not _names_are_text(entries)  # then each entry taken is asked (`_taken_as_text`)
    for entry in entries:
        name = entry.name
        relative = prefix + name
        try:
            # Most entries are plain documents: a name ending in `.md` that starts with none of
            # `.`, `#`, `~` is neither a temporary file nor debris, so it goes straight to the
            # checks that matter (a symlink, a folder so named, the flavour's own files).
            if name.endswith(".md") and name[0] not in ".#~" and entry.is_file(follow_symlinks=False):
                if prefix or not flavour.is_reserved(relative):
                    why = not_a_page(relative) if not_a_page is not None else None
                    if why:
                        result.not_pages.append((relative, why))
                    elif not odd or _taken_as_text(name, prefix, result):
                        files.append((relative, entry.stat(follow_symlinks=False)))
                    continue
            if is_temporary(name):
                if entry.is_file(follow_symlinks=False):  # a folder so named is nobody's temporary file
                    result.temporaries.append(folder / name)
                continue
            if is_debris(name):
                if not prefix and name in (STATE_DIR, RECOVERY_DIR) and entry.is_symlink():
                    result.symlinks.append(relative)
                continue
            if entry.is_symlink():
                result.symlinks.append(relative)
                continue
            if entry.is_dir(follow_symlinks=False):
                if flavour.walks_into(relative) and (not odd or _taken_as_text(name, prefix, result)):
                    subfolders.append((folder / name, relative + "/"))
            elif name.endswith(".md"):
                if flavour.is_reserved(relative):
                    if not entry.is_file(follow_symlinks=False):
                        result.specials.append(relative)  # the store's own file, as a FIFO: never opened
                    continue
                why = flavour.not_a_page(relative)
                if why:
                    result.not_pages.append((relative, why))
                    continue
                if not odd or _taken_as_text(name, prefix, result):
                    files.append((relative, entry.stat(follow_symlinks=False)))
        except FileNotFoundError:
            continue  # gone since the folder was listed
        except OSError as error:
            result.unreadable.append((relative, f"cannot be looked at ({error.strerror or error})"))
    return subfolders


def _names_are_text(entries: list[os.DirEntry]) -> bool:
    """Whether every name in a folder is UTF-8 (one encoding of them all: the walk's usual case, at
    no cost per file). A name that is not comes back from the system with its bytes escaped as lone
    surrogates, which no path in the store, a document's link or a printed line can hold."""
    try:
        "/".join(entry.name for entry in entries).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_utf8(name: str) -> bool:
    """Whether `name` (as the OS gave it) is UTF-8: one that is not holds surrogate escapes."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _taken_as_text(name: str, prefix: str, result: Walk) -> bool:
    """Whether a document or a folder the walk takes has a UTF-8 name; one that has not is
    reported (a folder's documents missing until it is renamed), its bytes shown escaped."""
    if not is_utf8(name):
        shown = prefix + os.fsencode(name).decode("utf-8", "backslashreplace")
        result.unreadable.append(
            (shown, "its name is not UTF-8: rename it to bring it (or the documents in it) into the vault")
        )
        return False
    return True


def _look_at_state(root: Path, result: Walk) -> None:
    """Symlinks and special files where the store keeps its own files, into `result`."""
    try:
        if not stat.S_ISDIR(os.lstat(root / STATE_DIR).st_mode):
            return
    except OSError:
        return
    for names, wanted in ((STATE_FOLDERS, stat.S_ISDIR), (STATE_FILES, stat.S_ISREG)):
        for name in names:
            try:
                mode = os.lstat(root / STATE_DIR / name).st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode):
                result.symlinks.append(f"{STATE_DIR}/{name}")
            elif not wanted(mode):
                result.specials.append(f"{STATE_DIR}/{name}")


def require_folder(path: str | os.PathLike[str]) -> Path:
    """`path` (with `~` expanded) when it can be a vault's folder; `VaultError` naming the path and
    what is wrong otherwise. Asked by `open`, and by a face before it shows anything."""
    given = Path(path).expanduser()
    if any(ord(c) < 32 for c in str(given)):
        raise VaultError(f"vault path {str(given)!r} contains control characters")
    if not given.exists():
        raise VaultError(f"{given}: no such folder")
    if not given.is_dir():
        raise VaultError(f"{given}: not a folder")
    return given


def no_documents_note(root: Path) -> str:
    """What a vault opened with no document is, said to the person rather than "0 documents": an
    empty folder is a new vault; a folder of other files is likely not the vault meant."""
    try:
        entries = [entry.name for entry in os.scandir(root) if entry.name != STATE_DIR]
    except OSError:
        entries = []
    if not entries:
        return f"{root}: an empty folder, opened as a new vault with no documents yet"
    return (
        f"{root}: no documents here ({len(entries)} other file(s) or folder(s), no Markdown document):"
        " is this the vault's folder?"
    )


def state_dir_for(root: Path, flavour: Flavour) -> Path:
    """Where the workbench keeps a vault's derived state: `.workbench/` inside the vault when its
    format keeps it there, else `$XDG_CACHE_HOME/workbench/vaults/NAME-HASH` (`~/.cache/...`), one
    folder per vault, keyed by a hash of its resolved path. Deleting it loses nothing but the undo
    history."""
    if flavour.state_in_vault:
        return root / STATE_DIR
    cache = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(cache) if os.path.isabs(cache) else Path.home() / ".cache"
    resolved = os.fsencode(root.resolve())  # the path's own bytes: a name need not be UTF-8
    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in root.name)[:40].strip("-.") or "vault"
    return base / "workbench" / "vaults" / f"{name}-{hashlib.sha256(resolved).hexdigest()[:16]}"


def is_document_path(root: Path, flavour: Flavour, path: str) -> bool:
    """What the walk would take as a document: no hidden part, no debris, no symlink on the way."""
    parts = path.split("/")
    if not path.endswith(".md") or any(p.startswith(".") or is_debris(p) for p in parts):
        return False
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # a name not UTF-8: the walk reports it, never takes it
        return False
    if flavour.is_reserved(path) or flavour.not_a_page(path):
        return False
    if any(not flavour.walks_into("/".join(parts[: n + 1])) for n in range(len(parts) - 1)):
        return False
    current = root
    for part in parts:
        current = current / part
        if current.is_symlink():
            return False
    return True
