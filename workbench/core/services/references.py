"""Rename and forget: the two changes that reach into every document that mentions an id.

A rename moves the file and rewrites every reference (links, supersession lists, `compatible_with`,
`[[id]]` and bare mentions in bodies) in one change. Forget is the one real deletion: every file
that claims the id, every reference to it (generated index sections lose its entry, title and
all), and everything the workbench kept of it under any name it ever had (traced back through the
undo history across renames): its recovery backups, the undo records that hold its bytes, the
derived store (deleted and built again, so no free page or write-ahead log keeps a word of it) and
the log's mentions. The log records only that a document was deleted, and the change keeps no
undo record, not even when a crash interrupts it and the next open finishes it.
"""

from __future__ import annotations

import base64
import json
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..storage.changes import Plan, log_line
from ..vocabulary.files import NOT_A_REGULAR_FILE, UnreadableFile
from ..index import VaultIndex
from .maintenance import VAULT_INDEX, drop_from_sections, plan_listing, render_sections, replace_sections
from ..vocabulary.model import ID_PATTERN, TYPE_FOLDERS, DocType, Document, RefusedError, Status, id_list
from ..vocabulary.parse import parse_bytes
from ..records.record import build_record, today
from ..storage.writer import FileChange, read_bytes
from ..records.walk import RECOVERY_DIR

__all__ = ["forget", "plan_rename", "plan_forget", "scrub_traces", "trace_document", "Traces", "FORGOTTEN"]

LIST_KEYS = ("supersedes", "superseded_by", "compatible_with")
FORGOTTEN = "(forgotten)"
KEPT_STATE = {"lock", "journal", "history"}


def _mention(doc_id: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(doc_id)}(?![A-Za-z0-9_-])")


def _rewrite_meta(meta: dict, old: str, new: str | None) -> dict:
    """`meta` with every reference to `old` pointing at `new`, or removed when `new` is None."""
    meta = dict(meta)
    if isinstance(meta.get("links"), list):
        links, seen = [], set()
        for item in meta["links"]:
            if isinstance(item, dict) and item.get("target") == old:
                if new is None:
                    continue
                item = {**item, "target": new}
            key = (item.get("type"), item.get("target")) if isinstance(item, dict) else repr(item)
            if key not in seen:
                seen.add(key)
                links.append(item)
        meta["links"] = links
    for key in LIST_KEYS:
        if key in meta and old in id_list(meta[key]):
            values = [v for v in id_list(meta[key]) if v != old] + ([new] if new else [])
            meta[key] = list(dict.fromkeys(values))
    return meta


def _references(doc, old: str) -> bool:
    return (
        any(l.target == old for l in doc.links)
        or any(old in id_list(doc.meta.get(k)) for k in LIST_KEYS)
        or bool(_mention(old).search(doc.body))
    )


def plan_rename(index: VaultIndex, old_id: str, new_id: str) -> Plan:
    doc = index.get(old_id)
    index.require_valid(doc)
    match = ID_PATTERN.fullmatch(new_id)
    if not match:
        raise RefusedError(f"{new_id!r} is not an id of the form mem-{{type}}-{{slug}} (lowercase kebab-case)")
    if match.group(1) != doc.type:
        raise RefusedError(
            f"{new_id} names type {match.group(1)}, but {old_id} is a {doc.type}; the type is part of the id"
        )
    if new_id in index or new_id == old_id:
        raise RefusedError(f"the id {new_id} is already taken")
    new_path = f"{TYPE_FOLDERS[DocType(doc.type)]}/{new_id}.md"
    if (index.root / new_path).exists():
        raise RefusedError(f"{new_path} already exists")
    pattern = _mention(old_id)
    moved = index.edit_change(
        doc, {**_rewrite_meta(doc.meta, old_id, new_id), "id": new_id}, pattern.sub(new_id, doc.body)
    )
    changes = [FileChange(doc.path, moved.before, None), FileChange(new_path, None, moved.after)]
    for other in index.documents:
        if other.id != old_id and _references(other, old_id):
            changes.append(
                index.edit_change(other, _rewrite_meta(other.meta, old_id, new_id), pattern.sub(new_id, other.body))
            )
    summary = f"rename {old_id} → {new_id}"
    return Plan(summary, changes, [log_line(summary)])


def plan_forget(index: VaultIndex, doc_id: str, confirm: str) -> Plan:
    """Delete every file that claims `doc_id` and every reference to it; the caller then scrubs
    its traces. A named pipe claiming the id holds no byte of it and is left; a file that claims
    it but cannot be read refuses the change, since it may hold a copy."""
    if confirm != doc_id:
        raise RefusedError(f"forget needs the id typed again exactly: --confirm {doc_id}")
    index.get(doc_id)
    changes: list[FileChange] = []
    for path in index.paths_of(doc_id):
        try:
            raw = read_bytes(index.root / path)
        except UnreadableFile as error:
            if error.code == NOT_A_REGULAR_FILE:
                continue
            raise RefusedError(
                f"{path} claims {doc_id} but {error.reason}; make it readable (or remove it), then forget again"
            ) from None
        if raw is not None:
            changes.append(FileChange(path, raw, None))
    gone = {change.path for change in changes}
    pattern = _mention(doc_id)
    index_doc: Document | None = None
    edited: dict[str, Document] = {}
    for other in index.documents:
        if other.id == doc_id or other.path in gone or not _references(other, doc_id):
            continue
        if other.id == VAULT_INDEX:
            index_doc = other  # last: its generated sections list the others as this change leaves them
            continue
        changes.append(_forget_in(index, other, doc_id, pattern, other.body))
        edited[other.path] = _document_after(index, changes[-1])
    if index_doc is not None:
        remaining = [edited.get(d.path, d) for d in index.documents if d.id != doc_id and d.path not in gone]
        newline = "\r\n" if "\r\n" in index_doc.body else "\n"
        body = replace_sections(
            index_doc.body, render_sections(index, newline, touched=frozenset({VAULT_INDEX}), documents=remaining)
        )
        changes.append(_forget_in(index, index_doc, doc_id, pattern, body))
    count = len(changes) - len(gone)
    line = log_line(f"forget: a document was deleted ({count} other document(s) updated)")
    return Plan(f"forget {doc_id}", changes, [line])


def _forget_in(index: VaultIndex, other: Document, doc_id: str, pattern: re.Pattern[str], body: str) -> FileChange:
    """`other` without its links to `doc_id`, its entries in generated sections, and its mentions."""
    meta = _rewrite_meta(other.meta, doc_id, None)
    if meta.get("status") == Status.SUPERSEDED and not id_list(meta.get("superseded_by")):
        meta["status"] = Status.DEPRECATED.value  # its only successor is gone: outdated, not replaced
    return index.edit_change(other, meta, pattern.sub(FORGOTTEN, drop_from_sections(body, doc_id)))


def _document_after(index: VaultIndex, change: FileChange) -> Document:
    return build_record(change.path, change.after or b"", 0, 0, today(), index.flavour).document


@dataclass
class Traces:
    """What a document was, under every name it had: what forget looks for outside the files."""

    ids: set[str] = field(default_factory=set)
    paths: set[str] = field(default_factory=set)
    titles: set[str] = field(default_factory=set)
    bodies: set[str] = field(default_factory=set)

    def needles(self) -> list[bytes]:
        """The byte strings whose presence in a backup or an undo record means it holds the
        document. Short titles and bodies are left out: a common word must never cost other
        documents their backups (the ids find those records)."""
        texts = set(self.ids) | {t for t in self.titles if len(t) >= 16} | {b for b in self.bodies if len(b) >= 16}
        return sorted(text.encode("utf-8") for text in texts)


def _history_records(index: VaultIndex) -> list[tuple[Path, bytes, list[FileChange]]]:
    """Every undo record (kept or undone): its file, its text (summary and log lines, as words,
    not JSON escapes) and its files' bytes. A record that cannot be decoded has no files; one that
    is not a file at all (a folder, a pipe) is skipped."""
    found = []
    history = index.state_dir / "history"
    for path in sorted(history.rglob("*.json")) if history.is_dir() else []:
        try:
            raw = read_bytes(path) or b""
        except OSError:
            continue
        try:
            record = json.loads(raw)
            files = [FileChange(f["path"], _b64(f.get("before")), _b64(f.get("after"))) for f in record["files"]]
            words = json.dumps([record.get("summary"), record.get("log")], ensure_ascii=False).encode(
                "utf-8", "surrogateescape"
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            files, words = [], b""
        found.append((path, raw + words, files))
    return found


def _b64(data: str | None) -> bytes | None:
    return None if data is None else base64.b64decode(data)


def _version_id(index: VaultIndex, path: str, data: bytes | None) -> str | None:
    if data is None or not path.endswith(".md") or path.startswith("."):
        return None
    return index.flavour.doc_id(path, parse_bytes(data).meta or {})


def trace_document(index: VaultIndex, doc_id: str) -> Traces:
    """Every id, path, title and body the document had, as far as the workbench kept its past:
    its files now, and the undo history followed back through renames (a change that removed one
    document file and created one, where one of the two is this document). An id another
    document holds now is never taken for this one's."""
    traces = Traces(ids={doc_id})
    for path in index.paths_of(doc_id):
        traces.paths.add(path)
        doc = index.document_at(path)
        if doc is not None:
            traces.titles.add(doc.title.strip())
            traces.bodies.add(doc.body.strip())
    records = _history_records(index)
    versions = [
        [
            (change, side, data, _version_id(index, change.path, data))
            for change in files
            for side, data in (("before", change.before), ("after", change.after))
        ]
        for _, _, files in records
    ]
    grown = True
    while grown:
        grown = False
        for record in versions:
            moved_out = [v for v in record if v[1] == "before" and v[0].after is None and v[3]]
            moved_in = [v for v in record if v[1] == "after" and v[0].before is None and v[3]]
            pairs = [(moved_out[0][3], moved_in[0][3])] if len(moved_out) == 1 and len(moved_in) == 1 else []
            for a, b in pairs + [(b, a) for a, b in pairs]:
                if a in traces.ids and b is not None and b not in traces.ids and (b == doc_id or not index.paths_of(b)):
                    traces.ids.add(b)
                    grown = True
    for record in versions:
        for change, _, data, version in record:
            if version in traces.ids and data is not None:
                traces.paths.add(change.path)
                parsed = parse_bytes(data)
                title = (parsed.meta or {}).get("title")
                if isinstance(title, str) and title.strip():
                    traces.titles.add(title.strip())
                if parsed.decoded and parsed.body.strip():
                    traces.bodies.add(parsed.body.strip())
    return traces


def scrub_traces(index: VaultIndex, traces: Traces) -> list[str]:
    """Remove what a forgotten document leaves behind outside the vault's documents.

    Backups and undo records are removed when they are of the document (under any of its ids) or
    hold its id, title or body; the log loses its ids and quoted titles; the derived state is
    dropped, to be built again. Only these: a short common word must never cost other documents
    their backups. Nothing is deleted through a symlink: with `.workbench`, its history, `.recovery`
    or the log linked elsewhere, the whole forget is refused before anything goes.
    """
    if not any(ID_PATTERN.fullmatch(doc_id) for doc_id in traces.ids):
        raise RefusedError(f"{sorted(traces.ids)!r} is not a document id")
    index.check_state(RECOVERY_DIR)
    done: list[str] = []
    needles = traces.needles()
    for backup in index.files_under(RECOVERY_DIR):
        relative = backup[len(RECOVERY_DIR) + 1 :]
        try:
            data = index.read_file(backup) or b""
        except OSError:
            continue
        meta = parse_bytes(data).meta or {}
        if (
            any(relative.startswith(path + ".") for path in traces.paths)
            or meta.get("id") in traces.ids
            or any(n in data for n in needles)
        ):
            index.remove_file(backup)
            done.append(f"removed backup {relative}")
    for record, text, files in _history_records(index):
        versions = [(c.path, data) for c in files for data in (c.before, c.after) if data is not None]
        if any(n in text for n in needles) or any(
            _version_id(index, path, data) in traces.ids or any(n in data for n in needles) for path, data in versions
        ):
            record.unlink()  # the history folder was checked above: no symlink on the way
            done.append(f"removed undo record {record.name}")
    try:
        raw = index.read_file(index.log_name)
    except OSError:
        raw = None  # a log that is not a file is never read; it cannot hold the document's words either
    if raw is not None:
        log = raw.decode("utf-8", errors="surrogateescape")
        scrubbed = log
        for doc_id in sorted(traces.ids, key=len, reverse=True):
            scrubbed = _mention(doc_id).sub("[redacted]", scrubbed)
        for title in traces.titles:
            scrubbed = scrubbed.replace(f"“{title}”", "“[redacted]”")
        if scrubbed != log:
            index.write_file(index.log_name, scrubbed.encode("utf-8", errors="surrogateescape"))
            done.append("redacted the log")
    for name in index.names_in(index.state_name):
        if name not in KEPT_STATE:
            index.remove_tree(f"{index.state_name}/{name}")
            done.append(f"dropped derived state {name}")
    return done


def forget(index: VaultIndex, doc_id: str, confirm: str, dry_run: bool = False) -> Plan:
    """Delete a document and every trace of it. The one change that cannot be undone."""
    if not index.flavour.native and index.flavour.listing is not None:
        return _forget_in_bundle(index, doc_id, confirm, dry_run)
    index.require_native("forgetting")
    if confirm != doc_id:
        raise RefusedError(f"forget needs the id typed again exactly: --confirm {doc_id}")
    if not dry_run:
        index.check_state(RECOVERY_DIR)  # before anything goes: nothing is deleted through a symlink
    if doc_id not in index:
        if not ID_PATTERN.fullmatch(doc_id):
            raise RefusedError(f"no document has the id {doc_id!r}")
        if dry_run:
            return Plan(f"forget {doc_id}: no such document; its traces would be scrubbed")
        # Already gone (a forget interrupted before its scrub finished): scrub what is left.
        with index.lock:
            traces = trace_document(index, doc_id)
            index.rebuild_store(lambda: scrub_traces(index, traces))
        return Plan(f"forget {doc_id}: no such document; traces scrubbed")
    plan = plan_forget(index, doc_id, confirm)
    if dry_run:
        return plan
    with index.lock:
        traces = trace_document(index, doc_id)
        scrub_traces(index, traces)  # first the undo records that hold it
        index.apply(plan, keep_history=False)
        index.rebuild_store(lambda: scrub_traces(index, traces))
    return plan


_MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\(<?([^)\s>]+?)>?(?:\s+\"[^\"]*\")?\)")


def _forget_in_bundle(index: VaultIndex, doc_id: str, confirm: str, dry_run: bool) -> Plan:
    """Forget in a bundle that keeps a generated listing (OKF): the concept's file goes, every
    Markdown link to it in another concept becomes its plain text, the listing is regenerated
    without it, all in one change kept out of the undo history; then the log's lines and the undo
    records that name it go, and the derived store is built again."""
    if confirm != doc_id:
        raise RefusedError(f"forget needs the id typed again exactly: --confirm {doc_id}")
    doc = index.get(doc_id)
    if not dry_run:
        index.check_state(RECOVERY_DIR)
    changes = [FileChange(doc.path, index.read_file(doc.path), None)]
    for other in index.documents:
        if other.id == doc_id or doc_id not in {link.target for link in other.links}:
            continue
        before = index.read_file(other.path) or b""
        folder = posixpath.dirname(other.path)

        def plain(match: re.Match[str], folder: str = folder) -> str:
            target = posixpath.normpath(posixpath.join(folder, match.group(2).split("#")[0]))
            return match.group(1) if target == doc.path else match.group(0)

        after = _MARKDOWN_LINK.sub(plain, before.decode("utf-8", "surrogateescape"))
        if after.encode("utf-8", "surrogateescape") != before:
            changes.append(FileChange(other.path, before, after.encode("utf-8", "surrogateescape")))
    remaining = [d for d in index.documents if d.id != doc_id]
    listing = plan_listing(index, remaining)
    changes += listing.changes
    count = len(changes) - 1
    plan = Plan(
        f"forget {doc_id}", changes, [log_line(f"forget: a document was deleted ({count} other file(s) updated)")]
    )
    if dry_run:
        return plan
    needles = [text.encode("utf-8") for text in {doc_id, doc.path, doc.title, doc.body.strip()} if len(text) >= 3]
    with index.lock:
        index.apply(plan, keep_history=False)
        for record, text, files in _history_records(index):
            versions = [data for change in files for data in (change.before, change.after) if data is not None]
            if any(n in text or any(n in data for data in versions) for n in needles):
                record.unlink()  # the history folder was checked above: no symlink on the way
        log = index.read_file(index.log_name)
        if log is not None:
            lines = log.decode("utf-8", "surrogateescape").splitlines(keepends=True)
            kept = [line for line in lines if not any(n.decode("utf-8") in line for n in needles)]
            if len(kept) != len(lines):
                index.write_file(index.log_name, "".join(kept).encode("utf-8", "surrogateescape"))
        index.renew_store()
    return plan
