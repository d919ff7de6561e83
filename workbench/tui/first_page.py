"""The first titles a vault listed, kept for its next launch: on screen before the vault is read.

Reading a vault takes a while even with its derived store in place: every row is read and every
file's stat compared (a few tenths of a second at 10,000 documents, seconds at 100,000), after the
core's modules are imported. The first page of the blank listing is a small file. So the TUI keeps
the titles its blank listing began with, and at the next launch puts them in the first frame, the
list marked "loading", before the core is imported; the vault's own listing takes their place once
it is read (the same titles, unless the vault changed meanwhile). A title opened before then is
shown once the vault is read.

Kept in the user's cache folder (`$XDG_CACHE_HOME/workbench/first-titles/`, else `~/.cache/...`),
one file per vault folder and format. Tolerant both ways, as the settings are: a missing, damaged or
foreign file means the titles wait for the vault, as at the first launch, and a file that cannot be
written costs the head start, never the session.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KEPT", "KeptTitle", "keep_first_page", "kept_first_page", "page_path"]

KEPT = 30
"""Titles kept: as many as a pane 90 lines tall shows (each takes three lines)."""


@dataclass(frozen=True)
class KeptTitle:
    """What the list shows of a document (`search.result_prompt`)."""

    id: str
    title: str
    type: str
    status: str


def page_path(vault_path: Path, flavour: str | None) -> Path:
    """The file keeping `vault_path`'s first page: named by the folder's resolved path and the
    format it is read as (a CRC is enough to tell a user's few vaults apart; the file also holds the
    path, which is compared)."""
    from zlib import crc32  # built in: hashlib would load OpenSSL on the way to the first frame

    resolved = str(vault_path.resolve())
    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in vault_path.name)[:40].strip("-.") or "vault"
    cache = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(cache) if os.path.isabs(cache) else Path.home() / ".cache"
    key = crc32(f"{resolved}\0{flavour or ''}".encode("utf-8", "surrogateescape"))
    return base / "workbench" / "first-titles" / f"{name}-{key:08x}.json"


def _what(vault_path: Path, flavour: str | None) -> dict:
    return {"vault": str(vault_path.resolve()), "flavour": flavour or ""}


def kept_first_page(vault_path: Path, flavour: str | None) -> list[KeptTitle]:
    """The titles kept for this vault, or none."""
    try:
        data = json.loads(page_path(vault_path, flavour).read_text("utf-8"))
        if not isinstance(data, dict) or {k: data.get(k) for k in ("vault", "flavour")} != _what(vault_path, flavour):
            return []
        titles = data.get("titles")
        if not isinstance(titles, list):
            return []
        return [KeptTitle(*row) for row in titles[:KEPT] if len(row) == 4 and all(type(v) is str for v in row)]
    except (OSError, ValueError, TypeError, AttributeError):
        return []


def keep_first_page(vault_path: Path, flavour: str | None, titles: list[KeptTitle]) -> None:
    """Keep `titles` (the blank listing's first) for the next launch, unless they are kept already."""
    titles = titles[:KEPT]
    if titles == kept_first_page(vault_path, flavour):
        return
    path = page_path(vault_path, flavour)
    data = {**_what(vault_path, flavour), "titles": [[t.id, t.title, t.type, t.status] for t in titles]}
    temp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # two sessions on one vault write apart
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_text(json.dumps(data), "ascii")
        os.replace(temp, path)
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink(missing_ok=True)
