"""Rename and forget: the two changes that reach into every document that mentions an id.

A rename moves the file and rewrites every reference (links, supersession lists, `compatible_with`,
`[[id]]` and bare mentions in bodies) in one change. Forget is the one real deletion: the document,
every reference to it, its recovery backups, the undo history that holds its bytes, derived caches
and the log's mentions all go, and the log records only that a document was deleted.
"""

from __future__ import annotations

import re

from .changes import Plan
from .index import VaultIndex
from .model import ID_PATTERN, TYPE_FOLDERS, DocType, RefusedError, Status, id_list
from .storage import FileChange
from .walk import RECOVERY_DIR, STATE_DIR

__all__ = ["forget", "plan_rename", "plan_forget", "scrub_traces", "FORGOTTEN"]

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
    return any(l.target == old for l in doc.links) or any(old in id_list(doc.meta.get(k)) for k in LIST_KEYS) or bool(_mention(old).search(doc.body))


def plan_rename(vault: VaultIndex, old_id: str, new_id: str) -> Plan:
    doc = vault.get(old_id)
    vault.require_valid(doc)
    match = ID_PATTERN.fullmatch(new_id)
    if not match:
        raise RefusedError(f"{new_id!r} is not an id of the form mem-{{type}}-{{slug}} (lowercase kebab-case)")
    if match.group(1) != doc.type:
        raise RefusedError(f"{new_id} names type {match.group(1)}, but {old_id} is a {doc.type}; the type is part of the id")
    if new_id in vault or new_id == old_id:
        raise RefusedError(f"the id {new_id} is already taken")
    new_path = f"{TYPE_FOLDERS[DocType(doc.type)]}/{new_id}.md"
    if (vault.root / new_path).exists():
        raise RefusedError(f"{new_path} already exists")
    pattern = _mention(old_id)
    moved = vault.edit_change(doc, {**_rewrite_meta(doc.meta, old_id, new_id), "id": new_id}, pattern.sub(new_id, doc.body))
    changes = [FileChange(doc.path, moved.before, None), FileChange(new_path, None, moved.after)]
    for other in vault.documents:
        if other.id != old_id and _references(other, old_id):
            changes.append(vault.edit_change(other, _rewrite_meta(other.meta, old_id, new_id), pattern.sub(new_id, other.body)))
    summary = f"rename {old_id} → {new_id}"
    return Plan(summary, changes, [vault.log_line(summary)])


def plan_forget(vault: VaultIndex, doc_id: str, confirm: str) -> Plan:
    """Delete a document and every reference to it; the caller then scrubs its traces."""
    if confirm != doc_id:
        raise RefusedError(f"forget needs the id typed again exactly: --confirm {doc_id}")
    doc = vault.get(doc_id)
    changes = [FileChange(doc.path, vault.writer.read(doc.path), None)]
    pattern = _mention(doc_id)
    for other in vault.documents:
        if other.id == doc_id or not _references(other, doc_id):
            continue
        meta = _rewrite_meta(other.meta, doc_id, None)
        if meta.get("status") == Status.SUPERSEDED and not id_list(meta.get("superseded_by")):
            meta["status"] = Status.DEPRECATED.value  # its only successor is gone: outdated, not replaced
        changes.append(vault.edit_change(other, meta, pattern.sub(FORGOTTEN, other.body)))
    count = len(changes) - 1
    line = vault.log_line(f"forget: a document was deleted ({count} other document(s) updated)")
    return Plan(f"forget {doc_id}", changes, [line])


def scrub_traces(vault: VaultIndex, doc_id: str, path: str, body: str = "", title: str = "") -> list[str]:
    """Remove what a forgotten document leaves behind outside the vault's documents.

    Backups and undo records are removed when they hold the id or the body; the log loses the id
    and the quoted title. Only these: a short common word must never cost other documents their
    backups. Nothing is deleted through a symlink: with `.workbench`, its history, `.recovery` or
    the log linked elsewhere, the whole forget is refused before anything goes.
    """
    if not ID_PATTERN.fullmatch(doc_id):
        raise RefusedError(f"{doc_id!r} is not a document id")
    writer = vault.writer
    writer.check_state(RECOVERY_DIR)
    done: list[str] = []
    needles = [doc_id.encode("utf-8")] + ([body.strip().encode("utf-8")] if len(body.strip()) >= 16 else [])
    for backup in writer.files_under(RECOVERY_DIR):
        relative = backup[len(RECOVERY_DIR) + 1:]
        data = writer.read(backup) or b""
        if (path and relative.startswith(path + ".")) or any(n in data for n in needles):
            writer.remove(backup)
            done.append(f"removed backup {relative}")
    history = f"{STATE_DIR}/history"
    for record in writer.files_under(history):
        if not record.endswith(".json"):
            continue
        data = writer.read(record) or b""
        if any(n in data for n in needles) or any(_b64_contains(data, n) for n in needles):
            writer.remove(record)
            done.append(f"removed undo record {record.rsplit('/', 1)[1]}")
    log = writer.read(writer.log_name)
    if log is not None:
        text = log.decode("utf-8", errors="replace")
        scrubbed = _mention(doc_id).sub("[redacted]", text)
        if title.strip():
            scrubbed = scrubbed.replace(f"“{title.strip()}”", "“[redacted]”")
        if scrubbed != text:
            writer.write(writer.log_name, scrubbed.encode("utf-8"))
            done.append("redacted the log")
    for name in writer.names(STATE_DIR):
        if name not in KEPT_STATE:
            writer.remove_tree(f"{STATE_DIR}/{name}")
            done.append(f"dropped derived state {name}")
    return done


def forget(vault: VaultIndex, doc_id: str, confirm: str, dry_run: bool = False) -> Plan:
    """Delete a document and every trace of it. The one change that cannot be undone."""
    vault.require_native("forgetting")
    if confirm != doc_id:
        raise RefusedError(f"forget needs the id typed again exactly: --confirm {doc_id}")
    if not dry_run:
        vault.writer.check_state(RECOVERY_DIR)  # before anything goes: nothing is deleted through a symlink
    if doc_id not in vault:
        if not ID_PATTERN.fullmatch(doc_id):
            raise RefusedError(f"no document has the id {doc_id!r}")
        if dry_run:
            return Plan(f"forget {doc_id}: no such document; its traces would be scrubbed")
        # Already gone (a forget interrupted before its scrub finished): scrub what is left.
        with vault.lock:
            vault.rebuild_store(lambda: scrub_traces(vault, doc_id, ""))
        return Plan(f"forget {doc_id}: no such document; traces scrubbed")
    doc = vault.get(doc_id)
    plan = plan_forget(vault, doc_id, confirm)
    if dry_run:
        return plan
    with vault.lock:
        scrub_traces(vault, doc_id, doc.path, doc.body, doc.title)  # first the undo records that hold it
        vault.apply(plan, keep_history=False)
        vault.rebuild_store(lambda: scrub_traces(vault, doc_id, doc.path, doc.body, doc.title))
    return plan


def _b64_contains(data: bytes, needle: bytes) -> bool:
    """History records hold file bytes in base64; look inside them too."""
    import base64
    import json

    try:
        record = json.loads(data)
    except ValueError:
        return False
    for entry in record.get("files", []):
        for side in ("before", "after"):
            if entry.get(side) and needle in base64.b64decode(entry[side]):
                return True
    return False
