"""Consolidation (SPEC §1): three or more notes on one subject folded into their canonical document.

A group is 3+ live notes (draft or active) that share a tag or link the same canonical document.
Never automatic: `consolidation_groups` only proposes; `plan_consolidate` is what a person chose.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..storage.changes import Plan, log_line
from ..editing.edits import join_section, unite_links
from .gate import CANONICAL_TYPES
from ..vocabulary.lifecycle import transition_refusal
from ..index import VaultIndex
from ..vocabulary.model import DocType, Document, LinkType, RefusedError, Status
from ..editing.textmerge import merge3

__all__ = ["Group", "consolidation_groups", "plan_consolidate", "merged_body", "folded_text"]

LIVE = (Status.DRAFT, Status.ACTIVE)


@dataclass
class Group:
    reason: str  # "tag" or "link"
    key: str  # the shared tag, or the canonical document's id
    notes: list[str]
    suggested_into: str | None  # a canonical document to merge into

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason, "key": self.key, "notes": self.notes, "into": self.suggested_into}


def consolidation_groups(documents: Iterable[Document], minimum: int = 3) -> list[Group]:
    """Proposals, largest first; a note may appear in a tag group and a link group.

    Each tag group's canonical document is found by counting its own notes' links, and a tag group
    holding the same notes as a link group is found by its set of notes: asking every link target
    of every tag group took minutes at 100,000 documents."""
    documents = list(documents)
    notes = [d for d in documents if d.type == DocType.NOTE and d.status in LIVE]
    canonical = {d.id: d for d in documents if d.type in CANONICAL_TYPES and d.status in LIVE}
    by_tag: dict[str, list[str]] = {}
    by_link: dict[str, list[str]] = {}
    targets_of: dict[str, set[str]] = {}  # a note's id -> the canonical documents it links to
    for note in notes:
        for tag in note.tags:
            by_tag.setdefault(tag, []).append(note.id)
        targets = {l.target for l in note.links if l.target in canonical}
        if targets:
            targets_of.setdefault(note.id, set()).update(targets)
        for target in targets:
            by_link.setdefault(target, []).append(note.id)
    groups: list[Group] = []
    linked: set[frozenset[str]] = set()  # the notes of each link group
    canonical_by_tag: dict[str, str] | None = None  # a tag -> the first canonical document carrying it
    for target, ids in by_link.items():
        if len(ids) >= minimum:
            groups.append(Group("link", target, sorted(ids), target))
            linked.add(frozenset(ids))
    for tag, ids in by_tag.items():
        if len(ids) >= minimum:
            members = frozenset(ids)
            # The canonical document most of the group links to, if any; else one carrying the tag.
            counts: dict[str, int] = {}
            for note_id in ids:  # as often as the note is listed under the tag (a note lists a tag once)
                for target in targets_of.get(note_id, ()):
                    counts[target] = counts.get(target, 0) + 1
            best = max(counts, key=lambda t: (counts[t], t)) if counts else None
            if best is None:
                if canonical_by_tag is None:  # a document's tags are read from its frontmatter: once
                    canonical_by_tag = {}
                    for doc in canonical.values():
                        for each in set(doc.tags):
                            known = canonical_by_tag.get(each)
                            canonical_by_tag[each] = doc.id if known is None else min(known, doc.id)
                best = canonical_by_tag.get(tag)
            if members not in linked:
                groups.append(Group("tag", tag, sorted(ids), best))
    groups.sort(key=lambda g: (-len(g.notes), g.reason, g.key))
    return groups


def merged_body(index: VaultIndex, into_id: str, note_ids: list[str]) -> str:
    """The text `plan_consolidate` would give `into_id`: a starting point a person may edit."""
    body = index.get(into_id).body
    for note_id in dict.fromkeys(note_ids):
        note = index.get(note_id)
        body = join_section(body, _section_heading(note), folded_text(note.body))
    return body


def folded_text(body: str) -> str:
    """A note's text as a section of another document: its leading `# H1` dropped (the section's
    heading names the note) and any other H1 made `###`, so the document keeps one title. Lines in
    code fences are left alone (`# ` there is a comment)."""
    lines, fenced, leading = [], False, True
    for line in body.splitlines(keepends=True):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and line.startswith("# "):
            if leading:
                leading = False
                continue
            line = "##" + line
        if line.strip():
            leading = False
        lines.append(line)
    return "".join(lines).lstrip("\n")


def _section_heading(note) -> str:
    created = note.meta.get("created_at")
    when = created.isoformat() if isinstance(created, dt.date) else str(created)
    return f"## From [[{note.id}]]: {note.title} ({when})"


def plan_consolidate(
    index: VaultIndex, into_id: str, note_ids: list[str], body: str | None = None, edited_from: str | None = None
) -> Plan:
    """Each note's text as a section of `into_id` citing its source (or `body`, the merged text as a
    person edited it), `derived_from` links added, and the notes archived, in one change.

    `edited_from` is the merged text `body` was edited from: if the files changed since (an agent
    wrote to the target), the person's edits are carried onto the text merged from them now, and
    the change is refused where both touched the same lines, rather than losing either."""
    if not note_ids:
        raise RefusedError("name the notes to consolidate")
    target = index.get(into_id)
    index.require_valid(target)
    if target.type not in CANONICAL_TYPES:
        raise RefusedError(
            f"{into_id} is a {target.type}; notes consolidate into a canonical entity, context or concept"
        )
    notes = []
    for note_id in dict.fromkeys(note_ids):
        note = index.get(note_id)
        index.require_valid(note)
        if note.type != DocType.NOTE:
            raise RefusedError(f"{note_id} is a {note.type}, not a note")
        refusal = (
            transition_refusal(note.status, Status.ARCHIVED)
            if note.status != Status.ARCHIVED
            else "it is already archived"
        )
        if refusal:
            raise RefusedError(f"{note_id} cannot be archived: {refusal}")
        notes.append(note)
    merged = target.body
    for note in notes:
        merged = join_section(merged, _section_heading(note), folded_text(note.body))
    links = unite_links(target.meta.get("links"), [(LinkType.DERIVED_FROM.value, note.id) for note in notes])
    if body is not None and edited_from is not None and edited_from != merged:
        carried = merge3(edited_from, body, merged)
        if carried is None:
            raise RefusedError(
                f"{into_id} or a note changed on disk in the lines you edited; consolidate again to edit the text merged from the new version"
            )
        body = carried
    if body is not None and merged.endswith(("\n", "\r")) and not body.endswith(("\n", "\r")):
        body += "\r\n" if "\r\n" in merged else "\n"  # a text box drops the final newline; the file keeps it
    changes = [
        index.edit_change(
            target, {**target.meta, "links": links, "tags": list(target.tags)}, merged if body is None else body
        )
    ]
    for note in notes:
        changes.append(index.edit_change(note, {**note.meta, "status": Status.ARCHIVED.value}))
    summary = f"consolidate {len(notes)} note(s) into {into_id}"
    return Plan(summary, changes, [log_line(summary)])
