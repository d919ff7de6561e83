"""Upkeep: documents gone stale, and the generated sections of the vault's indexes.

Generated sections sit between `<!-- generated:start NAME -->` and `<!-- generated:end NAME -->`
(or unnamed markers: the whole listing) and are replaced whole; everything a person wrote outside
the markers is kept byte for byte. In Memory Core they are in index documents; a flavour may keep
its listing in a reserved file instead (OKF's `index.md`), which links documents its own way.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from collections.abc import Callable, Iterable

from ..storage.changes import Plan, log_line
from .gate import Draft, plan_create
from ..index import VaultIndex
from ..vocabulary.model import DocType, Document, RefusedError, Status
from ..vocabulary.parse import as_date
from ..storage.writer import FileChange, read_bytes

__all__ = [
    "stale_documents",
    "plan_index",
    "plan_listing",
    "render_sections",
    "replace_sections",
    "drop_from_sections",
    "VAULT_INDEX",
    "SECTIONS",
]

VAULT_INDEX = "mem-index-vault"
SECTIONS = ("by-type", "by-tag", "recent")
MARKERS = re.compile(
    r"(?P<start><!-- generated:start(?: (?P<name>[\w-]+))? -->)(?P<inner>.*?)(?P<end><!-- generated:end(?: (?P=name))? -->)",
    re.DOTALL,
)
TYPE_ORDER = [
    DocType.CONCEPT,
    DocType.DECISION,
    DocType.ENTITY,
    DocType.CONTEXT,
    DocType.TASK,
    DocType.NOTE,
    DocType.INDEX,
]


def stale_documents(
    documents: Iterable[Document], days: int = 90, on: dt.date | None = None
) -> list[tuple[Document, int]]:
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


def render_sections(
    index: VaultIndex,
    newline: str = "\n",
    recent: int = 15,
    touched: frozenset[str] = frozenset(),
    entry: Callable[[Document], str] = _entry,
    documents: list[Document] | None = None,
) -> dict[str, str]:
    """The text of each generated section, from the vault as it is now (or from `documents`, the
    vault as a change will leave it); `touched` are documents about to be updated today (the index
    documents themselves, which list themselves among the recent); `entry` writes one document's
    line (a wiki link in Memory Core). The unnamed section ("") is the whole listing, by type."""
    docs = index.documents if documents is None else sorted(documents, key=lambda d: d.id)
    by_type = ["## By type"]
    for doc_type in TYPE_ORDER:
        group = [d for d in docs if d.type == doc_type]
        if group:
            by_type += ["", f"### {doc_type} ({len(group)})", ""] + [f"- {entry(d)}" for d in group]
    for own_type in sorted({d.type for d in docs} - set(TYPE_ORDER)):  # a flavour's own types (OKF's "Person")
        group = [d for d in docs if d.type == own_type]
        by_type += ["", f"### {own_type} ({len(group)})", ""] + [f"- {entry(d)}" for d in group]
    tags: dict[str, list[str]] = {}
    for doc in docs:
        if doc.status not in (Status.ARCHIVED, Status.SUPERSEDED):
            for tag in doc.tags:
                tags.setdefault(tag, []).append(f"[[{doc.id}]]" if entry is _entry else entry(doc))
    by_tag = ["## By tag", ""] + [f"- **{tag}**: {', '.join(ids)}" for tag, ids in sorted(tags.items())]

    def updated(doc: Document) -> dt.date:
        return dt.date.today() if doc.id in touched else doc.updated or dt.date.min

    dated = sorted(((updated(d), d) for d in docs), key=lambda x: (x[0], x[1].id), reverse=True)
    latest = ["## Recent", ""] + [f"- {when.isoformat()} {entry(d)}" for when, d in dated[:recent]]
    sections = {"by-type": by_type, "by-tag": by_tag, "recent": latest, "": by_type}
    return {name: newline + newline.join(lines) + newline for name, lines in sections.items()}


def replace_sections(body: str, sections: dict[str, str]) -> str:
    """The body with each named generated section replaced; text outside the markers untouched."""

    def swap(match: re.Match[str]) -> str:
        name = match.group("name") or ""
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


def plan_index(index: VaultIndex) -> Plan:
    """Regenerate the vault index's generated sections; a missing index is created with them."""
    index.refresh()  # a listing of every document: those written since the last look too
    newline = "\n"
    if VAULT_INDEX not in index:
        sections = render_sections(index, newline)
        body = "# Vault index\n\nThe sections between the generated markers are rebuilt by the workbench; edit only the text around them.\n"
        for name in SECTIONS:
            body += f"\n<!-- generated:start {name} -->{sections[name]}<!-- generated:end {name} -->\n"
        hubs = sorted((d for d in index.documents if d.type == DocType.INDEX), key=lambda d: d.id)
        targets = [("related_to", d.id) for d in hubs] or (
            [("related_to", index.documents[0].id)] if index.documents else []
        )
        draft = Draft(DocType.INDEX.value, "Vault index", ["index", "navigation"], targets, body)
        plan = plan_create(index, draft) if index.documents else None
        if plan is None:
            raise RefusedError("the vault has no documents to index")
        return plan
    index.require_valid(index.get(VAULT_INDEX))
    # Every index document with generated markers is kept up to date, not only the vault index.
    indexes = [d for d in index.documents if d.type == DocType.INDEX and MARKERS.search(d.body)]
    # Each changed index lists itself, and the others changed with it, among the recent, dated by
    # this change; a change to one can make another's list stale, so grow the set until it holds.
    touched: frozenset[str] = frozenset()
    while True:
        stale = [
            d
            for d in indexes
            if replace_sections(d.body, render_sections(index, _newline(d), touched=touched | {d.id})) != d.body
        ]
        if not stale or touched == {d.id for d in stale}:
            break
        touched = touched | {d.id for d in stale}
    if not stale:
        return Plan("index: already up to date")
    changes = [
        index.edit_change(d, d.meta, replace_sections(d.body, render_sections(index, _newline(d), touched=touched)))
        for d in stale
    ]
    summary = f"regenerate the generated sections of {', '.join(d.id for d in stale)}"
    return Plan(summary, changes, [log_line(summary)])


def _newline(doc: Document) -> str:
    return "\r\n" if "\r\n" in doc.body else "\n"


def plan_listing(index: VaultIndex, documents: list[Document] | None = None) -> Plan:
    """Regenerate the generated sections of the flavour's listing file (OKF's `index.md`), each
    document a Markdown link relative to it, as the bundle's own links are; the hand text around
    the markers is kept. A listing with no markers is left as it is (nothing says where to write)."""
    name = index.flavour.listing
    if name is None:
        raise RefusedError(f"{index.flavour.a_vault} has no generated listing")
    if documents is None:
        index.refresh()  # a listing of every document: those written since the last look too
    raw = read_bytes(index.root / name)
    if raw is None:
        raise RefusedError(f"{name}: there is no listing to regenerate")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RefusedError(f"{name} is not UTF-8 text; it is left as it is") from None
    if not MARKERS.search(text):
        return Plan(f"{name}: no generated markers, nothing to regenerate")
    folder = posixpath.dirname(name) or "."

    def entry(doc: Document) -> str:
        summary = doc.view.summary if doc.view is not None else ""
        link = f"[{doc.title.replace('[', '(').replace(']', ')')}]({posixpath.relpath(doc.path, folder)})"
        return link + (f" — {summary}" if summary else "")

    newline = "\r\n" if "\r\n" in text else "\n"
    after = replace_sections(text, render_sections(index, newline, entry=entry, documents=documents))
    if after == text:
        return Plan(f"{name}: already up to date")
    summary = f"regenerate the generated sections of {name}"
    return Plan(summary, [FileChange(name, raw, after.encode("utf-8"))], [log_line(summary)])
