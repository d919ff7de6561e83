"""Rewriting one document's file: the bytes that give it new metadata and body, changing only what differs.

An edit is planned from the document as it was read: if its file no longer holds those bytes the
edit is a `ConflictError`, and if its frontmatter cannot be read it is refused, since nothing could
be kept as it was. Only the lines of the keys that change are rewritten (`yamledit.py`); a
meaningful change moves the flavour's `updated` stamp, in the type the file used. The index
(`VaultIndex.edit_change`) and the services apply what these return as a `FileChange`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..storage.changes import FileChange
from ..flavours import Flavour
from ..vocabulary.model import ConflictError, Document, RefusedError
from ..vocabulary.parse import ParsedFile, as_date, digest_of, parse_bytes
from .record import today
from .vaultconfig import CONFIG_FILE, config_problem
from ..storage.writer import read_bytes

__all__ = ["edit_change", "flavour_change", "read_back_problem", "status_change"]


def _comparable(meta: Any) -> Any:
    def norm(value: Any) -> Any:
        if isinstance(value, dict):
            return {str(k): norm(v) for k, v in value.items()}
        if isinstance(value, list):
            return [norm(v) for v in value]
        if isinstance(value, (dt.date, dt.datetime)):
            return value.isoformat()
        return value

    return norm(meta)


def _base(root: Path, doc: Document) -> tuple[bytes, ParsedFile, dict[str, Any]]:
    """The document's bytes, parsed, and its frontmatter: a conflict if the file moved on since it
    was read, refused if its frontmatter cannot be read."""
    raw = read_bytes(root / doc.path)
    if raw is None or digest_of(raw) != doc.digest:
        raise ConflictError(doc.path)
    parsed = parse_bytes(raw)
    if parsed.meta is None:
        raise RefusedError(
            f"{doc.path}: its frontmatter cannot be read, so it cannot be edited safely; run check --repair first"
        )
    return raw, parsed, parsed.meta


def edit_change(
    root: Path, flavour: Flavour, doc: Document, meta: dict[str, Any], body: str | None = None, bump: bool = True
) -> FileChange:
    """The bytes that turn `doc` (as read) into `meta` and `body`, changing only what differs."""
    raw, parsed, old = _base(root, doc)
    body = parsed.body if body is None else body
    meta = dict(meta)
    stamp_key = flavour.updated_key or "updated_at"
    old_core = _comparable({k: v for k, v in old.items() if k != stamp_key})
    new_core = _comparable({k: v for k, v in meta.items() if k != stamp_key})
    meaningful = old_core != new_core or body != parsed.body
    if not meaningful and _comparable(meta) == _comparable(old):
        return FileChange(doc.path, raw, raw)
    if meaningful and bump and stamp_key in old and _comparable(meta.get(stamp_key)) == _comparable(old.get(stamp_key)):
        meta[stamp_key] = _moved_on(old.get(stamp_key))
    from ..editing.yamledit import EditError, apply_meta  # a write's: an open imports none of it

    try:
        lines = apply_meta(parsed.fm_lines, old, meta, parsed.newline)
    except EditError as exc:
        raise RefusedError(f"{doc.path}: {exc}") from exc
    return FileChange(doc.path, raw, parsed.compose(lines, body))


def status_change(root: Path, flavour: Flavour, doc: Document, status: str) -> FileChange:
    """A status change written the flavour's way: a frontmatter key, a `## Status` line."""
    if not flavour.has_status:
        raise RefusedError(f"{flavour.a_vault} has no status to change; migrate it to Memory Core for a lifecycle")
    return flavour_change(root, flavour, doc, lambda parsed: flavour.status_change(parsed, status))


def flavour_change(
    root: Path, flavour: Flavour, doc: Document, edit: Callable[[ParsedFile], tuple[dict[str, Any], str] | None]
) -> FileChange:
    """The bytes that give `doc` the (meta, body) `edit` returns, written the flavour's way."""
    raw = read_bytes(root / doc.path)
    if raw is None or digest_of(raw) != doc.digest:
        raise ConflictError(doc.path)
    parsed = parse_bytes(raw)
    if parsed.has_frontmatter and parsed.meta is None:
        raise RefusedError(f"{doc.path}: its frontmatter cannot be read, so it cannot be edited safely")
    wanted = edit(parsed)
    if wanted is None:
        raise RefusedError(f"{doc.path} states no status the workbench can change; edit it by hand (e)")
    meta, body = wanted
    from ..editing.yamledit import EditError, apply_meta, render_frontmatter

    if parsed.has_frontmatter and parsed.meta is not None:  # (one that cannot be read was refused above)
        try:
            lines = apply_meta(parsed.fm_lines, parsed.meta, meta, parsed.newline)
        except EditError as exc:
            raise RefusedError(f"{doc.path}: {exc}") from exc
        return FileChange(doc.path, raw, parsed.compose(lines, body))
    newline = parsed.newline
    head = f"---{newline}{''.join(render_frontmatter(meta, newline))}---{newline}" if meta else ""
    return FileChange(doc.path, raw, (("\ufeff" if parsed.bom else "") + head + body).encode("utf-8"))


def _moved_on(previous: Any) -> Any:
    """The time of an edit made now, in the type the file used: a date stays a date (never moved
    back), a date and time stays one (in its time zone, to the second), text stays text."""
    if isinstance(previous, dt.datetime) or (
        isinstance(previous, str) and len(previous) > 10 and previous[10:11] in ("T", " ")
    ):
        now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
        if isinstance(previous, dt.datetime):
            return now.astimezone(previous.tzinfo) if previous.tzinfo else now.replace(tzinfo=None)
        return now.isoformat().replace("+00:00", "Z") if previous.endswith("Z") else now.isoformat()
    stamp = max(today(), as_date(previous) or today())
    return stamp.isoformat() if isinstance(previous, str) else stamp


def read_back_problem(native: bool, path: str, data: bytes) -> str | None:
    """The writer's read-back check of a file it wrote (`ChangeWriter.apply`'s verifier): a
    document parses and, in the native flavour, still carries its id and type; the vault's settings
    file reads back without a problem. What is wrong, in words, or None."""
    if path == CONFIG_FILE:
        return config_problem(data)
    if not path.endswith(".md") or path.startswith("."):
        return None
    parsed = parse_bytes(data)
    if not native:
        return (
            None
            if parsed.decoded and not (parsed.has_frontmatter and parsed.meta is None)
            else "the written file does not parse back"
        )
    if parsed.meta is None or "id" not in parsed.meta or "type" not in parsed.meta:
        return "the written file does not parse back with its id and type"
    return None
