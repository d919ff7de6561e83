"""The plans that carry out the conflicts queue's resolutions other than a supersession: two
documents marked compatible, a stale link pointed at the live end of its chain, a duplicate merged
into its canonical twin."""

from __future__ import annotations

import datetime as dt

from ..storage.changes import FileChange, Plan, log_line
from .conflicts import COMPATIBLE_KEY, live_end
from ..editing.edits import join_section, unite_links, unite_tags
from ..vocabulary.files import read_file
from ..index import VaultIndex
from ..vocabulary.model import DocType, LinkType, RefusedError, Status, id_list
from ..records.vaultconfig import CONFIG_FILE, MOST, config_problem, with_compatible

__all__ = ["plan_compatible", "plan_retarget", "plan_merge_documents"]


def plan_compatible(index: VaultIndex, a_id: str, b_id: str) -> Plan:
    """Record, in both files, that two documents do not contradict each other; in a vault kept in
    another format, whose records have no field for it, in the vault's settings file."""
    if a_id == b_id:
        raise RefusedError("a document is always compatible with itself")
    summary = f"mark {a_id} and {b_id} compatible"
    if not index.flavour.native:
        return _compatible_in_settings(index, a_id, b_id, summary)
    changes = []
    for this, other in ((a_id, b_id), (b_id, a_id)):
        doc = index.get(this)
        index.require_valid(doc)
        current = id_list(doc.meta.get(COMPATIBLE_KEY))
        if other not in current:
            changes.append(index.edit_change(doc, {**doc.meta, COMPATIBLE_KEY: current + [other]}))
    return Plan(summary, changes, [log_line(summary)] if changes else [])


def plan_retarget(index: VaultIndex, source_id: str, old_target: str, new_target: str | None = None) -> Plan:
    """Point `source_id`'s links at `old_target` to its successor (or `new_target`) instead."""
    doc = index.get(source_id)
    index.require_valid(doc)
    if new_target is None:
        new_target = live_end({d.id: d for d in index.documents})(old_target)
        if new_target is None or new_target == old_target:
            raise RefusedError(f"{old_target} has no successor to retarget to; name the new target")
    if new_target not in index:
        raise RefusedError(f"no document has the id {new_target!r}")
    links, seen, changed = [], set(), False
    for item in doc.meta.get("links") or []:
        if isinstance(item, dict) and item.get("target") == old_target and item.get("type") != LinkType.SUPERSEDES:
            item = {**item, "target": new_target}
            changed = True
        key = (item.get("type"), item.get("target")) if isinstance(item, dict) else None
        if key in seen:
            continue
        seen.add(key)
        links.append(item)
    if not changed:
        raise RefusedError(f"{source_id} has no link to {old_target} to retarget")
    summary = f"retarget {source_id}: {old_target} → {new_target}"
    return Plan(summary, [index.edit_change(doc, {**doc.meta, "links": links})], [log_line(summary)])


def plan_merge_documents(index: VaultIndex, source_id: str, target_id: str) -> Plan:
    """A duplicate folded into its canonical twin: text and links joined, the source superseded by
    the target, and every link to the source pointed at the target."""
    if source_id == target_id:
        raise RefusedError("a document cannot be merged into itself")
    source, target = index.get(source_id), index.get(target_id)
    for doc in (source, target):
        index.require_valid(doc)
    if DocType.DECISION in (source.type, target.type):
        raise RefusedError("decisions are never merged; one supersedes the other: use supersede OLD NEW")
    if target.status not in (Status.ACTIVE, Status.DRAFT):
        raise RefusedError(f"{target_id} is {target.status}; merge into an active document")
    heading = f"## {dt.date.today().isoformat()}: merged from {source.title} ([[{source_id}]])"
    body = join_section(target.body, heading, source.body)
    carried = [
        (l.type, l.target)
        for l in source.links
        if l.target not in (target_id, source_id) and l.type != LinkType.SUPERSEDES
    ]
    links = unite_links(target.meta.get("links"), [*carried, (LinkType.SUPERSEDES.value, source_id)])
    target_meta = {
        **target.meta,
        "tags": unite_tags(target.tags, source.tags),
        "links": links,
        "supersedes": target.supersedes + ([source_id] if source_id not in target.supersedes else []),
    }
    source_meta = {
        **source.meta,
        "status": Status.SUPERSEDED.value,
        "superseded_by": source.superseded_by + ([target_id] if target_id not in source.superseded_by else []),
    }
    changes = [index.edit_change(target, target_meta, body), index.edit_change(source, source_meta)]
    for other in index.documents:
        if other.id in (source_id, target_id) or not any(
            l.target == source_id and l.type != LinkType.SUPERSEDES for l in other.links
        ):
            continue
        changes.append(plan_retarget(index, other.id, source_id, target_id).changes[0])
    summary = f"merge {source_id} into {target_id}"
    return Plan(summary, changes, [log_line(summary)])


def _compatible_in_settings(index: VaultIndex, a_id: str, b_id: str, summary: str) -> Plan:
    """The pair added to `compatible:` in the vault's `.workbench.yaml`, every other line kept."""
    for doc_id in (a_id, b_id):
        index.get(doc_id)  # refused for an id no document has
    if frozenset((a_id, b_id)) in index.config.compatible:
        return Plan(summary)
    path = index.root / CONFIG_FILE
    before = read_file(path, MOST + 1) if path.is_file() and not path.is_symlink() else None
    problem = config_problem(before) if before is not None else None
    if problem:
        raise RefusedError(f"{CONFIG_FILE}: {problem}; mend it before marking documents compatible")
    after = with_compatible((before or b"").decode("utf-8"), a_id, b_id).encode("utf-8")
    return Plan(summary, [FileChange(CONFIG_FILE, before, after)], [log_line(summary)])
