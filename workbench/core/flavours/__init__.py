"""Vault flavours: Memory Core and the other formats the workbench opens under their own rules.

Each module reads one format; `detect` picks the flavour a folder most looks like, and `get`
names one when detection is wrong. Flavours depend on the model only; the vault depends on them.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

from ..vocabulary.model import VaultError
from .base import Flavour, Ids, RawLink, View
from .memory_core import MemoryCore

__all__ = ["FLAVOURS", "MEMORY_CORE", "Flavour", "Ids", "RawLink", "View", "choose", "detect", "get", "names"]

MEMORY_CORE = MemoryCore()


class _Flavours(Mapping[str, Flavour]):
    """Every flavour by name, each module imported (and its regular expressions compiled) when the
    flavour is first asked for: a process that reads one format, as most do, imports that one's
    alone (the others were a tenth of the CLI's imports). Each is made once, whichever thread asks."""

    def __init__(self, where: dict[str, tuple[str, str]]):
        self._where = where
        self._made: dict[str, Flavour] = {MEMORY_CORE.name: MEMORY_CORE}
        self._lock = threading.Lock()

    def __getitem__(self, name: str) -> Flavour:
        found = self._made.get(name)
        if found is None:
            module, made_by = self._where[name]  # KeyError: no flavour of that name
            with self._lock:
                found = self._made.get(name)
                if found is None:
                    found = self._made[name] = getattr(importlib.import_module(module, __name__), made_by)()
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


# In the order detection asks: the cheap and certain first (a certain answer ends it).
FLAVOURS: Mapping[str, Flavour] = _Flavours(
    {
        MEMORY_CORE.name: (".memory_core", "MemoryCore"),
        "dendron": (".dendron", "Dendron"),
        "adr": (".adr", "Adr"),
        "tiered": (".tiered", "Tiered"),
        "okf": (".okf", "Okf"),
        "memoryfield": (".memoryfield", "Memoryfield"),
        "markdown": (".markdown", "Markdown"),
    }
)


def names() -> list[str]:
    return list(FLAVOURS)


def get(name: str) -> Flavour:
    try:
        return FLAVOURS[name]
    except KeyError:
        raise VaultError(f"no vault flavour is called {name!r}; the flavours are {', '.join(FLAVOURS)}") from None


def choose(given: Path, native_root: Path, name: str | None = None) -> tuple[Path, Flavour]:
    """The folder to open and its flavour. Memory Core's root is `native_root` (the folder holding
    the type folders, maybe a `memory/` child); another flavour's is the folder given, unless that
    folder only holds the vault in a `memory/` child (a Pi agent keeps its OKF bundle there)."""
    chosen = get(name) if name else detect(native_root)
    if chosen.native and (name or native_root != given or _score(chosen, given) > 0):
        return native_root, chosen
    home = _home(chosen, given) if name else None
    if home is not None:
        return home, chosen
    memory = given / "memory"
    if memory.is_dir() and not memory.is_symlink():
        inside = get(name) if name else detect(memory)
        here, there = _score(chosen, given), _score(inside, memory)
        if there >= here and there > 1 and inside.name != "markdown":
            return memory, inside
    return given, chosen


HOLDS_ITS_FILES = 75  # a detection score that says a folder is a collection of the flavour's files


def _home(flavour: Flavour, given: Path) -> Path | None:
    """The folder under `given` where a repository keeps the flavour's files (`docs/adr`), when
    `given` holds none at its top: a repository's root opened as decision records would otherwise
    read its records, a level down, as plain notes. None where `given` is itself a collection,
    or no such folder is one; a symlink on the way is not followed. `given` is scored only when
    such a folder is there: detection reads a large collection's every name (a third of a warm
    open of 10,000 records), and a collection rarely keeps a `docs/adr` beside its records."""
    folders = [folder for name in flavour.home_folders if (folder := _folder(given, name)) is not None]
    if not folders or _score(flavour, given) >= HOLDS_ITS_FILES:
        return None
    for folder in folders:
        if _score(flavour, folder) >= HOLDS_ITS_FILES:
            return folder
    return None


def _folder(given: Path, name: str) -> Path | None:
    """`given`/`name` when it is a folder reached without following a symlink, else None."""
    folder = given
    for part in name.split("/"):
        folder = folder / part
        if folder.is_symlink() or not folder.is_dir():
            return None
    return folder


def _score(flavour: Flavour, root: Path) -> int:
    try:
        return flavour.detect(root)
    except OSError:
        return 0


def detect(root: Path) -> Flavour:
    """The flavour `root` most looks like; Memory Core for an empty folder (a new vault)."""
    best: Flavour = MEMORY_CORE
    score = 0
    for flavour in FLAVOURS.values():
        try:
            found = flavour.detect(root)
        except OSError:
            continue
        if found > score:
            best, score = flavour, found
        if score >= 85:
            break  # certain: the other flavours need not look
    if score <= 1 and not any(root.iterdir()):
        return MEMORY_CORE
    return best if score > 1 else MEMORY_CORE
