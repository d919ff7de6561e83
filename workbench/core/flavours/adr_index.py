"""The statuses a decision collection keeps in its index: a Markdown table in its `README.md` or
`index.md` listing the records, one a row, with a Status column. Some collections state a record's
status there and nowhere in the record itself."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from .adr_names import record_name, ref_id
from .base import lazy_pattern
from .adr_text import plain

__all__ = ["INDEX_FILES", "index_statuses", "read_index_statuses"]

INDEX_FILES = ("README.md", "index.md")
_LINK = lazy_pattern(r"\]\(\s*<?([^)\s>]+?\.md)>?(?:#[^)]*)?\s*\)", re.I)
_NUMBER = lazy_pattern(r"^(?:([A-Za-z]{2,6})[-_ ]?)?0*(\d{1,5})$")
_RULE = lazy_pattern(r"^\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def index_statuses(text: str, prefix: str = "ADR") -> dict[str, str]:
    """Each record a table lists with its status, as written (links kept, so "Superseded by
    [0005](0005-x.md)" still names the record): by the file its row links to, and by its id where
    the row names only a number (`12`, `ADR-012`). Rows whose status cell is empty say nothing."""
    found: dict[str, str] = {}
    lines = text.split("\n")
    for at, line in enumerate(lines[:-1]):
        if not line.lstrip().startswith("|") or not _RULE.match(lines[at + 1].strip()):
            continue
        header = [plain(cell).lower() for cell in _cells(line)]
        if "status" not in header:
            continue
        status_at = header.index("status")
        for row in lines[at + 2 :]:
            if not row.lstrip().startswith("|"):
                break
            cells = _cells(row)
            if len(cells) <= status_at or not plain(cells[status_at]):
                continue
            stated = cells[status_at]
            others = cells[:status_at] + cells[status_at + 1 :]
            linked = next((m.group(1) for cell in others for m in [_LINK.search(cell)] if m), None)
            if linked is not None:
                found.setdefault(posixpath.normpath(linked.lstrip("/")), stated)
                continue
            number = next((m for cell in others for m in [_NUMBER.match(plain(cell))] if m), None)
            if number is not None and (number.group(1) or prefix).upper() in (prefix, "ADR"):
                found.setdefault(ref_id(number.group(2), prefix), stated)
    return found


def read_index_statuses(root: Path) -> tuple[tuple[str, str], ...]:
    """The statuses the collection's index at `root` lists (the first index file that lists any),
    in the collection's numbering as its records' names show it. The numbering is read from the
    names only when an index has text: a collection without one is not listed to learn it."""
    prefix: str | None = None
    for name in INDEX_FILES:
        path = root / name
        try:
            text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        except OSError:
            continue
        if not text:
            continue
        if prefix is None:
            prefix = _numbering(root)
        found = index_statuses(text, prefix)
        if found:
            return tuple(sorted(found.items()))
    return ()


def _numbering(root: Path) -> str:
    """The prefix most of the records' names at `root` carry (`ADR`, `HIP`), `ADR` where none."""
    names = sorted(p.name for p in root.glob("*.md"))
    prefixes = [named.prefix for named in map(record_name, names) if named is not None and named.number is not None]
    return max(set(prefixes), key=prefixes.count) if prefixes else "ADR"
