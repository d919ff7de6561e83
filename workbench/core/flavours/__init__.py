"""Vault flavours: Memory Core and the other formats the workbench opens under their own rules.

Each module reads one format; `detect` picks the flavour a folder most looks like, and `get`
names one when detection is wrong. Flavours depend on the model only; the vault depends on them.
"""

from __future__ import annotations

from pathlib import Path

from ..model import VaultError
from .adr import Adr
from .base import Flavour, Ids, RawLink, View
from .dendron import Dendron
from .markdown import Markdown
from .memory_core import MemoryCore
from .memoryfield import Memoryfield
from .okf import Okf
from .tiered import Tiered

__all__ = ["FLAVOURS", "MEMORY_CORE", "Flavour", "Ids", "RawLink", "View", "detect", "get", "names"]

MEMORY_CORE = MemoryCore()
# In the order detection asks: the cheap and certain first (a certain answer ends it).
FLAVOURS: dict[str, Flavour] = {f.name: f for f in (MEMORY_CORE, Dendron(), Adr(), Tiered(), Okf(), Memoryfield(), Markdown())}


def names() -> list[str]:
    return list(FLAVOURS)


def get(name: str) -> Flavour:
    try:
        return FLAVOURS[name]
    except KeyError:
        raise VaultError(f"no vault flavour is called {name!r}; the flavours are {', '.join(FLAVOURS)}") from None


def detect(root: Path) -> Flavour:
    """The flavour `root` most looks like; Memory Core for an empty folder (a new vault)."""
    best, score = MEMORY_CORE, 0
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
