"""Migration: a new Memory Core vault written from a vault of any flavour, the source untouched.

The rules, in the order a person reading the result would ask about them:

- **Ids.** `mem-{type}-{slug}`, the slug made from the source file's path without `.md`
  (`adr/adr-014-findings` → `adr-adr-014-findings`, `dendron.topic.links` → `dendron-topic-links`);
  a slug already taken gets `-2`, `-3`.
- **Types.** Each flavour says: ADR records are decisions and other files notes; Dendron notes and
  OKF concepts are concepts (an OKF type that names a Memory Core type keeps it); tiered memory's
  `memory.md` and projects are contexts, domains concepts; Markdown notes are notes unless their
  frontmatter `type` is a Memory Core type.
- **Statuses.** The flavour's lifecycle (`Accepted` → active, `Proposed` → draft, `Rejected` →
  archived, a COLD tier → archived). A document with a successor becomes superseded; one that
  says it is superseded but names no successor that was migrated becomes deprecated.
- **Links.** Each link whose target was migrated, with its type (`related_to` when the source does
  not type it). Links to nothing are kept, as written, under `unresolved_links`.
- **Supersession.** Both sides, and the `supersedes` link, whichever side the source stated.
- **Bytes.** The body is copied exactly; the source frontmatter is kept verbatim under
  `provenance.source_frontmatter`, beside `source_file`, `source_flavour` and `source_id`.
- Files that cannot be read as text (invalid UTF-8, NUL bytes, conflict markers, too large) are
  not migrated and are listed, so a person can fix them and run it again.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .index import VaultIndex
from .model import TYPE_FOLDERS, DocType, LinkType, Status, VaultError, member
from .parse import parse_bytes
from .edits import slugify
from .storage import read_bytes, write_atomic
from .yamledit import render_frontmatter

__all__ = ["MigrationReport", "migrate"]

UNREADABLE = {"encoding-invalid-utf8", "file-too-large", "nul-bytes", "conflict-markers"}


@dataclass
class MigrationReport:
    out: Path
    written: dict[str, str] = field(default_factory=dict)  # source path -> new path
    ids: dict[str, str] = field(default_factory=dict)  # source id -> new id
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (source path, why)
    unresolved: int = 0  # links kept under unresolved_links

    def to_json(self) -> dict[str, Any]:
        return {"out": str(self.out), "written": len(self.written), "ids": self.ids, "unresolved_links": self.unresolved,
                "skipped": [{"path": p, "why": w} for p, w in self.skipped]}


def _date(value: Any, fallback: dt.date, today: dt.date) -> dt.date:
    if isinstance(value, dt.datetime):
        value = value.date()
    if not isinstance(value, dt.date):
        value = fallback
    return min(value, today)


def migrate(vault: VaultIndex, out: str | os.PathLike[str], project: str | None = None) -> MigrationReport:
    """Write `vault` as a Memory Core vault into `out` (a new or empty folder). It reads only the
    root, the flavour, the records and the problems, so a `Vault` serves as well as its index."""
    out = Path(out).expanduser().resolve()
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise VaultError(f"{out}: the migration writes a new vault; name a new or empty folder")
    if out == vault.root or vault.root in out.parents:
        raise VaultError(f"{out}: the new vault cannot be inside the vault it is migrated from")
    today = dt.date.today()
    project = project or slugify(vault.root.name)
    report = MigrationReport(out)
    unreadable = {p.path: p.message for p in vault.problems if p.code in UNREADABLE}

    chosen = []
    for record in vault.records:
        if record.path in unreadable:
            report.skipped.append((record.path, unreadable[record.path]))
            continue
        chosen.append(record)
    taken: set[str] = set()
    types: dict[str, str] = {}
    for record in chosen:
        doc = record.document
        doc_type = doc.type if vault.flavour.native and member(doc.type, DocType) else _memory_type(vault, doc)
        slug = slugify(record.path[:-3].replace("/", "-"))
        new_id, number = f"mem-{doc_type}-{slug}", 1
        while new_id in taken:
            number += 1
            new_id = f"mem-{doc_type}-{slug[:56]}-{number}"
        taken.add(new_id)
        report.ids[doc.id] = new_id
        types[doc.id] = doc_type

    ids = report.ids
    succeeded_by: dict[str, set[str]] = {doc_id: set() for doc_id in ids}
    for record in chosen:
        doc = record.document
        for new in doc.superseded_by:
            if new in ids and new != doc.id:
                succeeded_by[doc.id].add(new)
        for old in doc.supersedes:
            if old in ids and old != doc.id:
                succeeded_by[old].add(doc.id)

    for record in chosen:
        doc = record.document
        raw = read_bytes(vault.root / record.path) or b""
        parsed = parse_bytes(raw)
        new_id = ids[doc.id]
        mtime = dt.date.fromtimestamp(record.mtime_ns / 1e9) if record.mtime_ns else today
        view = doc.view
        created = _date(view.created if view else doc.meta.get("created_at"), mtime, today)
        updated = max(_date(view.updated if view else doc.meta.get("updated_at"), created, today), created)
        successors = sorted(ids[s] for s in succeeded_by[doc.id])
        predecessors = sorted(ids[d] for d, news in succeeded_by.items() if doc.id in news)
        status = doc.status if member(doc.status, Status) else Status.ACTIVE.value
        if successors and status in (Status.ACTIVE, Status.DRAFT, Status.DEPRECATED, Status.SUPERSEDED):
            status = Status.SUPERSEDED.value
        elif status == Status.SUPERSEDED:
            status = Status.DEPRECATED.value
        links: list[dict[str, str]] = []
        unresolved: list[str] = []
        for link in doc.links:
            if link.type == LinkType.SUPERSEDES:
                continue
            target = ids.get(link.target)
            if target is None:
                unresolved.append(link.target)
            elif target != new_id:
                entry = {"type": link.type if member(link.type, LinkType) else LinkType.RELATED_TO.value, "target": target}
                if entry not in links:
                    links.append(entry)
        links += [{"type": LinkType.SUPERSEDES.value, "target": old} for old in predecessors]
        report.unresolved += len(unresolved)
        provenance: dict[str, Any] = {"source": "manual", "confidence": "medium", "source_file": record.path,
                                      "source_flavour": vault.flavour.name, "source_id": doc.id}
        if parsed.has_frontmatter:
            provenance["source_frontmatter"] = parsed.fm_text
        meta: dict[str, Any] = {
            "schema_version": "v1", "id": new_id, "type": types[doc.id], "title": (doc.title or new_id).strip() or new_id,
            "status": status, "created_at": created, "updated_at": updated, "project": project,
            "tags": [str(t) for t in doc.tags], "links": links, "supersedes": predecessors, "superseded_by": successors,
            "provenance": provenance,
        }
        if types[doc.id] == DocType.TASK:
            meta["execution_state"] = "todo"
        if unresolved:
            meta["unresolved_links"] = list(dict.fromkeys(unresolved))
        newline = parsed.newline
        body = parsed.body if parsed.has_frontmatter else parsed.text
        text = f"---{newline}{''.join(render_frontmatter(meta, newline))}---{newline}{body}"
        path = f"{TYPE_FOLDERS[DocType(types[doc.id])]}/{new_id}.md"
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, (("\ufeff" if parsed.bom else "") + text).encode("utf-8"))
        report.written[record.path] = path
    stamp = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    log = f"# Log\n\n- {stamp} migrated {len(report.written)} document(s) from the {vault.flavour.name} vault {vault.root.name}\n"
    write_atomic(out / "log.md", log.encode("utf-8"))
    return report


def _memory_type(vault: VaultIndex, doc) -> str:
    wanted = vault.flavour.memory_type(doc.id, doc.view) if doc.view is not None else DocType.NOTE.value
    return wanted if member(wanted, DocType) else DocType.NOTE.value
