"""Migration: a new Memory Core vault written from a vault of any flavour, the source untouched.

The rules, in the order a person reading the result would ask about them:

- **Every document.** Each file the source vault reads as a document is written, one file each,
  keyed by its path (two source files that claim one id are still two documents). A document
  the source could not read in full (broken YAML, a duplicate id, an unresolved merge) is
  written as a `draft` whose `provenance.source_problems` says what was wrong, so a person
  reviews it in the new vault. Only a file too large to be a document is not written, and then
  nothing is: the migration refuses, naming each such file. The count reported is the count of
  files written.
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
- **Dates.** `created_at` and `updated_at` are the dates the source states, as its flavour reads
  them (frontmatter, a `Date:` line, the date in a file name), else the file's modification
  time: never the day of the migration, unless that is what the source says.
- **Links.** Each link whose target was migrated, with its type (`related_to` when the source does
  not type it). Links to nothing are kept, as written, under `unresolved_links`.
- **Supersession.** Both sides, and the `supersedes` link, whichever side the source stated.
- **Bytes.** The body is copied exactly; the source frontmatter is kept verbatim under
  `provenance.source_frontmatter`, beside `source_file`, `source_flavour` and `source_id`. A
  file that is not clean text (invalid UTF-8, NUL bytes, git conflict markers) cannot be a valid
  Memory Core body as it is: its bytes are copied whole under `.recovery/` in the new vault and
  named by `repair_backup`, and the body is its readable text (undecodable bytes and NULs as
  U+FFFD, each conflict marker line escaped with a backslash, as Markdown shows it unchanged).
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..editing.edits import slugify
from ..index import VaultIndex
from ..vocabulary.model import TYPE_FOLDERS, DocType, LinkType, RefusedError, Severity, Status, VaultError, member
from ..vocabulary.parse import CONFLICT_MARKER, parse_bytes
from ..records.record import LOOSELY_READ, Record
from ..storage.writer import read_bytes, write_atomic
from ..records.walk import RECOVERY_DIR
from ..editing.yamledit import render_frontmatter

__all__ = ["MigrationReport", "migrate"]

TOO_LARGE = "file-too-large"
NOT_CLEAN_TEXT = frozenset({"encoding-invalid-utf8", "nul-bytes", "conflict-markers"})


@dataclass
class MigrationReport:
    out: Path
    written: dict[str, str] = field(default_factory=dict)  # source path -> new path, one per file written
    ids: dict[str, str] = field(default_factory=dict)  # source id -> new id (of the file that owns the id)
    drafts: dict[str, list[str]] = field(default_factory=dict)  # source path -> what was wrong with it
    unresolved: int = 0  # links kept under unresolved_links

    def to_json(self) -> dict[str, Any]:
        return {
            "out": str(self.out),
            "written": len(self.written),
            "ids": self.ids,
            "unresolved_links": self.unresolved,
            "drafts": [{"path": p, "problems": why} for p, why in self.drafts.items()],
        }


def _date(value: Any, fallback: dt.date, today: dt.date) -> dt.date:
    if isinstance(value, dt.datetime):
        value = value.date()
    if not isinstance(value, dt.date):
        value = fallback
    return min(value, today)


def _readable(text: str) -> str:
    """Text that reads as the file does but is a valid body: NULs as U+FFFD, and each git
    conflict marker line escaped with a backslash (Markdown shows `\\<<<<<<<` as `<<<<<<<`)."""
    return CONFLICT_MARKER.sub(lambda m: "\\" + m.group(0), text.replace("\x00", "\ufffd"))


def migrate(index: VaultIndex, out: str | os.PathLike[str], project: str | None = None) -> MigrationReport:
    """Write `index` as a Memory Core vault into `out` (a new or empty folder). It reads only the
    root, the flavour, the records and the problems, so a `Vault` serves as well as its index.

    Refuses, writing nothing, when a file cannot be migrated at all (too large to be a document)."""
    out = Path(out).expanduser().resolve()
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise VaultError(f"{out}: the migration writes a new vault; name a new or empty folder")
    if out == index.root or index.root in out.parents:
        raise VaultError(f"{out}: the new vault cannot be inside the vault it is migrated from")
    today = dt.date.today()
    project = project or slugify(index.root.name)
    report = MigrationReport(out)
    records = index.records
    too_large = [(r.path, p.message) for r in records for p in r.problems if p.code == TOO_LARGE]
    if too_large:
        listed = "; ".join(f"{path}: {why}" for path, why in too_large)
        raise RefusedError(
            f"nothing was migrated: {len(too_large)} file(s) cannot be documents ({listed}); move them out of the vault first"
        )
    names = _Names.of(index, records, report)
    for record in records:
        _migrate_record(index, names, record, out, project, today, report)
    stamp = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    drafts = f", {len(report.drafts)} of them as drafts to review" if report.drafts else ""
    log = f"# Log\n\n- {stamp} migrated {len(report.written)} document(s){drafts} from the {index.flavour.label} vault {index.root.name}\n"
    write_atomic(out / "log.md", log.encode("utf-8"))
    return report


@dataclass
class _Names:
    """Each source file's new id and type, which file a link to an id means, and who succeeds whom."""

    owners: dict[str, str]  # id -> the file that owns it (the first in path order): what a link to it means
    new_ids: dict[str, str]  # source path -> new id
    types: dict[str, str]  # source path -> new type
    succeeded_by: dict[str, set[str]]  # path -> successor paths
    preceded_by: dict[str, set[str]]  # path -> predecessor paths

    @classmethod
    def of(cls, index: VaultIndex, records: list[Record], report: MigrationReport) -> _Names:
        owners: dict[str, str] = {}
        for record in records:
            owners.setdefault(record.document.id, record.path)
        names = cls(owners, {}, {}, {record.path: set() for record in records}, {})
        taken: set[str] = set()
        for record in records:
            doc = record.document
            doc_type = doc.type if index.flavour.native and member(doc.type, DocType) else _memory_type(index, doc)
            slug = slugify(record.path[:-3].replace("/", "-"))
            new_id, number = f"mem-{doc_type}-{slug}", 1
            while new_id in taken:
                number += 1
                new_id = f"mem-{doc_type}-{slug[:56]}-{number}"
            taken.add(new_id)
            names.new_ids[record.path] = new_id
            names.types[record.path] = doc_type
            if owners.get(doc.id) == record.path:
                report.ids[doc.id] = new_id
        names.link_successions(records)
        return names

    def target_path(self, doc_id: str) -> str | None:
        path = self.owners.get(doc_id)
        return path if path in self.new_ids else None

    def link_successions(self, records: list[Record]) -> None:
        """Supersession stated on either side, as paths both ways."""
        for record in records:
            doc = record.document
            for new in doc.superseded_by:
                successor = self.target_path(new)
                if successor is not None and successor != record.path:
                    self.succeeded_by[record.path].add(successor)
            for old in doc.supersedes:
                predecessor = self.target_path(old)
                if predecessor is not None and predecessor != record.path:
                    self.succeeded_by[predecessor].add(record.path)
        self.preceded_by = {record.path: set() for record in records}
        for old, news in self.succeeded_by.items():
            for new in news:
                self.preceded_by[new].add(old)


def _migrate_record(
    index: VaultIndex,
    names: _Names,
    record: Record,
    out: Path,
    project: str,
    today: dt.date,
    report: MigrationReport,
) -> None:
    """Write one source file as a Memory Core document (and a backup of bytes that were not clean text)."""
    doc = record.document
    raw = read_bytes(index.root / record.path) or b""
    parsed = parse_bytes(raw)
    new_id = names.new_ids[record.path]
    mtime = dt.date.fromtimestamp(record.mtime_ns / 1e9) if record.mtime_ns else today
    view = doc.view
    created = _date(view.created if view else doc.meta.get("created_at"), mtime, today)
    updated = max(_date(view.updated if view else doc.meta.get("updated_at"), created, today), created)
    successors = sorted(names.new_ids[p] for p in names.succeeded_by[record.path])
    predecessors = sorted(names.new_ids[p] for p in names.preceded_by[record.path])
    # Invalid, or read only from its plain lines: its frontmatter goes along for a person to review.
    review = not doc.valid or any(p.code in LOOSELY_READ for p in record.problems)
    links, unresolved = _links(names, record, predecessors)
    report.unresolved += len(unresolved)
    provenance: dict[str, Any] = {
        "source": "manual",
        "confidence": "medium",
        "source_file": record.path,
        "source_flavour": index.flavour.name,
        "source_id": doc.id,
    }
    if parsed.has_frontmatter:
        provenance["source_frontmatter"] = parsed.fm_text
    if review:
        problems = [
            f"{p.code}: {p.message}" + (f" (line {p.line})" if p.line else "")
            for p in record.problems
            if p.severity == Severity.ERROR
        ]
        provenance["source_problems"] = problems or ["the source vault could not read it as a document"]
        report.drafts[record.path] = provenance["source_problems"]
    meta: dict[str, Any] = {
        "schema_version": "v1",
        "id": new_id,
        "type": names.types[record.path],
        "title": _title(doc.title, new_id),
        "status": _status(doc.status, review, bool(successors)),
        "created_at": created,
        "updated_at": updated,
        "project": project,
        "tags": [str(t) for t in doc.tags],
        "links": links,
        "supersedes": predecessors,
        "superseded_by": successors,
        "provenance": provenance,
    }
    if names.types[record.path] == DocType.TASK:
        meta["execution_state"] = "todo"
    if unresolved:
        meta["unresolved_links"] = list(dict.fromkeys(unresolved))
    newline = parsed.newline
    body = parsed.body if parsed.has_frontmatter else parsed.text
    if not parsed.decoded or any(p.code in NOT_CLEAN_TEXT for p in record.problems):
        backup = f"{RECOVERY_DIR}/{record.path}"
        write_atomic(out / backup, raw)
        meta["repair_backup"] = backup
        body = _readable(body)
    text = f"---{newline}{''.join(render_frontmatter(meta, newline))}---{newline}{body}"
    path = f"{TYPE_FOLDERS[DocType(names.types[record.path])]}/{new_id}.md"
    target = out / path
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, (("\ufeff" if parsed.bom else "") + text).encode("utf-8"))
    report.written[record.path] = path


def _status(stated: str, review: bool, succeeded: bool) -> str:
    """A draft for a person to review when it was not read whole (what was wrong is in its
    provenance); superseded when something succeeds it; never superseded without a successor."""
    status = stated if member(stated, Status) else Status.ACTIVE.value
    if review:
        status = Status.DRAFT.value
    if succeeded and status in (Status.ACTIVE, Status.DRAFT, Status.DEPRECATED, Status.SUPERSEDED):
        return Status.SUPERSEDED.value
    if status == Status.SUPERSEDED:
        return Status.DEPRECATED.value
    return status


def _links(names: _Names, record: Record, predecessors: list[str]) -> tuple[list[dict[str, str]], list[str]]:
    """The document's typed links to the new ids (an unknown type as related_to), its supersedes
    links from the succession, and the targets no file owns."""
    links: list[dict[str, str]] = []
    unresolved: list[str] = []
    for link in record.document.links:
        if link.type == LinkType.SUPERSEDES:
            continue
        path = names.target_path(link.target)
        if path is None:
            unresolved.append(link.target)
        elif path != record.path:
            entry = {
                "type": link.type if member(link.type, LinkType) else LinkType.RELATED_TO.value,
                "target": names.new_ids[path],
            }
            if entry not in links:
                links.append(entry)
    links += [{"type": LinkType.SUPERSEDES.value, "target": old} for old in predecessors]
    return links, unresolved


def _title(title: str, new_id: str) -> str:
    """A one-line title: a YAML block scalar (`title: |`) reads with its line breaks."""
    return " ".join((title or "").split()) or new_id


def _memory_type(index: VaultIndex, doc) -> str:
    wanted = index.flavour.memory_type(doc.id, doc.view) if doc.view is not None else DocType.NOTE.value
    return wanted if member(wanted, DocType) else DocType.NOTE.value
