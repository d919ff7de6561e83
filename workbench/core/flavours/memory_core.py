"""Memory Core v1, the native format (SPEC §1): its rules live in `validate`, its reading in `model`."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..vocabulary.model import TYPE_FOLDERS, Severity
from .base import Flavour

__all__ = ["MemoryCore"]

_TYPE_FOLDER_NAMES = frozenset(TYPE_FOLDERS.values())


@dataclass
class MemoryCore(Flavour):
    name: str = "memory-core"
    label: str = "Memory Core"
    summary: str = (
        "Memory Core v1: typed folders, mem-{type}-{slug} ids, typed links and supersession in the frontmatter"
    )
    native: bool = True
    has_status: bool = True
    dangling_severity: Severity = Severity.ERROR
    reserved: frozenset[str] = field(default_factory=lambda: frozenset({"log.md", "README.md"}))
    identity_keys: tuple[str, ...] = ("id",)
    updated_key: str | None = "updated_at"
    state_in_vault: bool = True

    def detect(self, root: Path) -> int:
        typed = 0
        for name in _TYPE_FOLDER_NAMES:
            folder = root / name
            if folder.is_dir() and not folder.is_symlink():
                if _holds_one_named(folder):
                    return 90
                typed += sum(1 for _ in folder.glob("*.md"))
        if not typed:
            return 0
        # Type folders of Markdown files, perhaps every one of them broken: Memory Core if they
        # hold most of the vault's files, else a notes vault that happens to have a `tasks/`.
        others = sum(1 for p in root.glob("*.md") if p.name not in self.reserved)
        others += sum(1 for p in root.glob("*/*.md") if p.parent.name not in _TYPE_FOLDER_NAMES)
        return 50 if typed > others else 5

    def doc_id(self, path: str, meta: dict) -> str:
        doc_id = meta.get("id")
        return doc_id if isinstance(doc_id, str) and doc_id else path.rsplit("/", 1)[-1][:-3]


def _holds_one_named(folder: Path) -> bool:
    """Whether `folder` holds an entry named `mem-*.md`, the folder read only as far as the first:
    a glob listed all 16,000 names of a type folder of a large vault before it looked, twice at
    each open."""
    try:
        with os.scandir(folder) as entries:
            return any(entry.name.startswith("mem-") and entry.name.endswith(".md") for entry in entries)
    except OSError:  # as the glob: a folder that cannot be listed holds nothing
        return False
