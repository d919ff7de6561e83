"""Upkeep: documents gone stale, and the generated sections of the vault index.

Generated sections sit between `<!-- generated:start NAME -->` and `<!-- generated:end NAME -->`
and are replaced whole; everything a person wrote outside the markers is kept byte for byte.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable

from .changes import Plan
from .gate import Draft, plan_create
from .index import VaultIndex
from .model import DocType, Document, RefusedError, Status
from .parse import as_date

__all__ = ["stale_documents", "plan_index", "render_sections", "replace_sections", "drop_from_sections", "VAULT_INDEX", "SECTIONS"]

VAULT_INDEX = "mem-index-vault"
SECTIONS = ("by-type", "by-tag", "recent")
MARKERS = re.compile(
    r"(?P<start><!-- generated:start(?: (?P<name>[\w-]+))? -->)(?P<inner>.*?)(?P<end><!-- generated:end(?: (?P=name))? -->)",
    re.DOTALL,
)
TYPE_ORDER = [DocType.CONCEPT, DocType.DECISION, DocType.ENTITY, DocType.CONTEXT, DocType.TASK, DocType.NOTE, DocType.INDEX]


def stale_documents(documents: Iterable[Document], days: int = 90, on: dt.date | None = None) -> list[tuple[Document, int]]:
    """Active documents not updated for `days` days, oldest first, with their age in days."""
    on = on or dt.date.today()
    found = []
    for doc in documents:
        updated = as_date(doc.meta.get("updated_at"))
        if doc.status == Status.ACTIVE and updated and (on - updated).days > days:
            found.append((doc, (on - updated).days))
    return sorted(found, key=lambda item: (-item[1], item[0].id))


def _entry(doc: Document) -> str:
    suffix = "" if doc.status == Status.ACTIVE else f" ({doc.status})"
    return f"[[{doc.id}]] {doc.title}{suffix}"


def render_sections(vault: VaultIndex, newline: str = "\n", recent: int = 15, touched: str | None = None,
                    documents: list[Document] | None = None) -> dict[str, str]:
    """The text of each generated section, from the vault as it is now (or from `documents`, the
    vault as a change will leave it); `touched` is a document about to be updated today (the index
    itself, which lists itself among the recent)."""
    docs = vault.documents if documents is None else sorted(documents, key=lambda d: d.id)
    by_type = ["## By type"]
    for doc_type in TYPE_ORDER:
        group = [d for d in docs if d.type == doc_type]
        if group:
            by_type += ["", f"### {doc_type} ({len(group)})", ""] + [f"- {_entry(d)}" for d in group]
    tags: dict[str, list[str]] = {}
    for doc in docs:
        if doc.status not in (Status.ARCHIVED, Status.SUPERSEDED):
            for tag in doc.tags:
                tags.setdefault(tag, []).append(f"[[{doc.id}]]")
    by_tag = ["## By tag", ""] + [f"- **{tag}**: {', '.join(ids)}" for tag, ids in sorted(tags.items())]
    def updated(doc: Document) -> dt.date:
        return dt.date.today() if doc.id == touched else as_date(doc.meta.get("updated_at")) or dt.date.min

    dated = sorted(((updated(d), d) for d in docs), key=lambda x: (x[0], x[1].id), reverse=True)
    latest = ["## Recent", ""] + [f"- {when.isoformat()} {_entry(d)}" for when, d in dated[:recent]]
    sections = {"by-type": by_type, "by-tag": by_tag, "recent": latest}
    return {name: newline + newline.join(lines) + newline for name, lines in sections.items()}


def replace_sections(body: str, sections: dict[str, str]) -> str:
    """The body with each named generated section replaced; text outside the markers untouched."""

    def swap(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in sections:
            return match.group(0)
        return match.group("start") + sections[name] + match.group("end")

    return MARKERS.sub(swap, body)


def drop_from_sections(body: str, doc_id: str) -> str:
    """The body with every mention of `doc_id` taken out of its generated sections, whatever their
    name: an item of a list of links goes alone, a line that names nothing else goes whole (an
    entry names the document and its title, and both must go with it). Text outside the markers
    is untouched."""
    link = rf"\[\[{re.escape(doc_id)}(?:\|[^\]]*)?\]\]"
    mention = re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(doc_id)}(?![A-Za-z0-9_-])")

    def without(line: str) -> str | None:
        """The line without the document's item, or None when nothing else is left of it."""
        reduced = re.sub(rf"\s*,\s*{link}", "", re.sub(rf"{link}\s*,\s*", "", line))
        reduced = re.sub(link, "", reduced)
        return reduced if "[[" in reduced and not mention.search(reduced) else None

    def clean(match: re.Match[str]) -> str:
        inner = match.group("inner")
        if not mention.search(inner):
            return match.group(0)
        kept = [line if not mention.search(line) else without(line) for line in inner.splitlines(keepends=True)]
        return match.group("start") + "".join(line for line in kept if line is not None) + match.group("end")

    return MARKERS.sub(clean, body)


def plan_index(vault: VaultIndex) -> Plan:
    """Regenerate the vault index's generated sections; a missing index is created with them."""
    newline = "\n"
    if VAULT_INDEX not in vault:
        sections = render_sections(vault, newline)
        body = "# Vault index\n\nThe sections between the generated markers are rebuilt by the workbench; edit only the text around them.\n"
        for name in SECTIONS:
            body += f"\n<!-- generated:start {name} -->{sections[name]}<!-- generated:end {name} -->\n"
        hubs = sorted((d for d in vault.documents if d.type == DocType.INDEX), key=lambda d: d.id)
        targets = [("related_to", d.id) for d in hubs] or ([("related_to", vault.documents[0].id)] if vault.documents else [])
        draft = Draft(DocType.INDEX.value, "Vault index", ["index", "navigation"], targets, body)
        plan = plan_create(vault, draft) if vault.documents else None
        if plan is None:
            raise RefusedError("the vault has no documents to index")
        return plan
    doc = vault.get(VAULT_INDEX)
    vault.require_valid(doc)
    newline = "\r\n" if "\r\n" in doc.body else "\n"
    if replace_sections(doc.body, render_sections(vault, newline)) == doc.body:
        return Plan("index: already up to date")
    # The index lists itself among the recent, with the date this very change gives it.
    body = replace_sections(doc.body, render_sections(vault, newline, touched=VAULT_INDEX))
    change = vault.edit_change(doc, doc.meta, body)
    summary = f"regenerate the generated sections of {VAULT_INDEX}"
    return Plan(summary, [change], [vault.log_line(summary)])
