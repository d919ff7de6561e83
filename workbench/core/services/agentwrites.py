"""What an agent writes: through the gate, never with the last word, and a request left for the curator.

An agent (through `workbench mcp`, the Kimiko memory design's tools) writes through the same store and the
same checks as a person:

- a new document lands as `draft`, its `provenance` naming the agent, refused when a live one of
  its type and title exists (`AlreadyExists`);
- a merge joins the agent's text to a canonical document as a dated section, as the gate's does;
- a supersession is a *proposal*: a new draft decision naming the decision it would replace, which
  stays active until the curator accepts (the Kimiko memory design: supersession with human confirmation; no claim
  is silently replaced);
- a request to forget deletes nothing.

Each leaves a request on the document it concerns, in that document's frontmatter under
`awaiting_review` (who, when, what), and a line in `log.md` naming the agent. The inbox
(`inbox.py`) lists those requests and settles them.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import gate
from ..storage.changes import Plan, log_line
from ..index import VaultIndex
from ..vocabulary.model import TYPE_FOLDERS, DocType, Document, LinkType, RefusedError, Source, Status, member
from ..vocabulary.parse import parse_bytes
from ..storage.writer import FileChange
from ..vocabulary.titlefold import fold_title
from ..records.validate import find_credentials
from ..editing.yamledit import EditError, apply_meta

__all__ = [
    "AGENT_CONFIDENCE",
    "Agent",
    "AlreadyExists",
    "REVIEW_KEY",
    "edit_after",
    "plan_agent_create",
    "plan_agent_merge",
    "plan_agent_supersede",
    "plan_forget_request",
    "review_entries",
    "same_title",
]

REVIEW_KEY = "awaiting_review"
"""The frontmatter key holding the requests an agent left on a document for the curator."""

AGENT_CONFIDENCE = "medium"  # what an agent wrote is unreviewed
NAME_CHARS = re.compile(r"[^A-Za-z0-9 ._/@+()-]+")
MAX_NAME = 64
MAX_NOTE = 500
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _now() -> str:
    """When a request is made, to the millisecond: two merges into one document within a second
    are still two requests, each settled on its own by its time."""
    return dt.datetime.now().isoformat(timespec="milliseconds")


def _one_line(text: str, most: int) -> str:
    """Agent-given text as one plain line: control characters and runs of space made single spaces."""
    text = re.sub(r"\s+", " ", _CONTROL.sub(" ", text)).strip()
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


@dataclass(frozen=True)
class Agent:
    """Who wrote: the name the agent's client gave (`claude-code`), and the contract's word for its
    source (`agent-claude` or `agent-codex`)."""

    name: str
    source: str

    def __post_init__(self) -> None:
        name = _one_line(NAME_CHARS.sub("-", self.name), MAX_NAME) or "unknown-agent"
        object.__setattr__(self, "name", name)
        if not member(self.source, Source) or self.source == Source.MANUAL:
            agents = ", ".join(s for s in Source if s != Source.MANUAL)
            raise RefusedError(f"an agent's source is one of {agents}, not {self.source!r}")


def review_entries(doc: Document) -> list[dict[str, Any]]:
    """The requests left on `doc` (its `awaiting_review` entries), as they are written."""
    value = doc.meta.get(REVIEW_KEY) if isinstance(doc.meta, dict) else None
    return [entry for entry in value if isinstance(entry, dict)] if isinstance(value, list) else []


class AlreadyExists(RefusedError):
    """A new document refused because one of its type and title is in the vault: `doc_id`."""

    def __init__(self, message: str, doc_id: str) -> None:
        super().__init__(message)
        self.doc_id = doc_id


_TITLE_WORD = re.compile(r"[^\W_]+")


def same_title(title: str) -> tuple[str, ...]:
    """A title's words in order, folded as a person reads them (`titlefold`: case, compatibility
    forms, format characters, spaces in CJK runs, look-alike letters) and accents dropped: two titles
    that differ only in those, in spacing or in punctuation name the same thing."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", fold_title(title)) if not unicodedata.combining(c))
    return tuple(_TITLE_WORD.findall(folded))


def _refresh_folder(index: VaultIndex, doc_type: str) -> None:
    """Bring the records of one type's folder in line with the disk: a document another process
    wrote a moment ago counts, whether or not a watcher has told us yet."""
    folder = TYPE_FOLDERS[DocType(doc_type)]
    try:
        names = os.listdir(index.root / folder)
    except OSError:
        names = []
    paths = {f"{folder}/{name}" for name in names if name.endswith(".md")}
    paths |= {record.path for record in index.records if record.path.startswith(folder + "/")}
    index.refresh_paths(sorted(paths))


def _refuse_twin(index: VaultIndex, draft: gate.Draft, besides: str | None = None) -> None:
    """Refuse a new document when a live one of its type and title is in the vault (on disk now)."""
    _refresh_folder(index, draft.type)
    key = same_title(draft.title)
    for record in index.records:
        doc = record.document
        if (
            doc.id == besides
            or doc.type != draft.type
            or doc.status in (Status.SUPERSEDED, Status.ARCHIVED)
            or same_title(doc.title or "") != key
        ):
            continue
        raise AlreadyExists(
            f"a {doc.type} titled “{_one_line(doc.title, 120)}” already exists: {doc.id} ({doc.status}); "
            f"read it and merge into it (merge_into:{doc.id}), or give the new one a title of its own",
            doc.id,
        )


def _for_agent(draft: gate.Draft, agent: Agent) -> gate.Draft:
    """The draft as an agent's: its source, unreviewed confidence, and no credentials in it."""
    draft.check()
    for where, text in (("title", draft.title), ("body", draft.body)):
        found = find_credentials(text)
        if found:
            line, what = found[0]
            raise RefusedError(
                f"the {where} looks like it holds {what} (line {line}); memory never stores credentials or tokens"
            )
    return dataclasses.replace(draft, source=agent.source, confidence=AGENT_CONFIDENCE)


def _entry(kind: str, agent: Agent, **more: str) -> dict[str, str]:
    return {"action": kind, "agent": agent.name, "at": _now(), **{k: v for k, v in more.items() if v}}


def edit_after(change: FileChange, edit: Callable[[dict[str, Any]], dict[str, Any]]) -> FileChange:
    """`change` with `edit` applied to the frontmatter it writes, byte for byte elsewhere."""
    if change.after is None:
        return change
    parsed = parse_bytes(change.after)
    if parsed.meta is None:
        raise RefusedError(f"{change.path}: its frontmatter cannot be read, so it cannot be edited safely")
    try:
        lines = apply_meta(parsed.fm_lines, parsed.meta, edit(dict(parsed.meta)), parsed.newline)
    except EditError as exc:
        raise RefusedError(f"{change.path}: {exc}") from exc
    return FileChange(change.path, change.before, parsed.compose(lines, parsed.body))


def _with_request(entry: dict[str, str], agent: Agent | None = None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def edit(meta: dict[str, Any]) -> dict[str, Any]:
        existing = meta.get(REVIEW_KEY)
        meta[REVIEW_KEY] = [*(existing if isinstance(existing, list) else []), entry]
        if agent is not None and isinstance(meta.get("provenance"), dict):
            meta["provenance"] = {**meta["provenance"], "agent": agent.name}
        return meta

    return edit


def _agent_plan(
    plan: Plan, summary: str, index: VaultIndex, path: str, entry: dict[str, str], agent: Agent | None = None
) -> Plan:
    changes = [edit_after(c, _with_request(entry, agent)) if c.path == path else c for c in plan.changes]
    return Plan(summary, changes, [log_line(summary)], created_id=plan.created_id)


def plan_agent_create(index: VaultIndex, draft: gate.Draft, agent: Agent) -> Plan:
    """A new document written by an agent: a draft, linked into the graph, awaiting review. Refused
    when a document of its type and title exists: call it holding the vault's lock, so that of
    agents creating one title at once, exactly one does."""
    draft = _for_agent(draft, agent)
    _refuse_twin(index, draft)
    plan = gate.plan_create(index, draft, Status.DRAFT.value)
    doc_id = plan.created_id
    return _agent_plan(
        plan,
        f"create {doc_id} as a draft (agent {agent.name})",
        index,
        plan.changes[0].path,
        _entry("create", agent),
        agent,
    )


def plan_agent_merge(index: VaultIndex, target_id: str, draft: gate.Draft, agent: Agent) -> Plan:
    """An agent's text joins a canonical document (the gate's merge), awaiting review there."""
    target = index.get(target_id)
    if target.status == Status.SUPERSEDED:
        successors = ", ".join(target.superseded_by) or "its successor"
        raise RefusedError(f"{target_id} is superseded by {successors}; merge into the successor")
    if target.status == Status.ARCHIVED:
        raise RefusedError(f"{target_id} is archived; merge into a document in use, or create a new one")
    title = _one_line(draft.title, 200)
    if _already_merged(target.body, draft):
        return Plan(f"{target_id} already holds “{title}” as merged before: nothing merged again")
    draft = _for_agent(draft, agent)
    plan = gate.plan_merge(index, target_id, draft)
    return _agent_plan(
        plan,
        f"merge “{title}” into {target_id} (agent {agent.name})",
        index,
        target.path,
        _entry("merge", agent, title=title),
    )


def _already_merged(body: str, draft: gate.Draft) -> bool:
    """Whether `body` already holds the draft as a merge writes it: a section of its title holding
    its text. A retried or repeated merge would only say it twice."""
    heading = f": {draft.title.strip()}"
    if not any(line.startswith("## ") and line.rstrip().endswith(heading) for line in body.splitlines()):
        return False
    return draft.body.strip() in body


def plan_agent_supersede(index: VaultIndex, old_id: str, draft: gate.Draft, agent: Agent) -> Plan:
    """A new draft decision proposed to replace `old_id`, which stays as it is until the curator
    accepts: then the draft becomes active and `old_id` superseded, both in one change."""
    draft = _for_agent(draft, agent)
    gate.plan_create_superseding(index, old_id, draft)  # the rules of a supersession, checked now; its plan is not used
    old = index.get(old_id)
    if old.status == Status.SUPERSEDED:
        successors = ", ".join(old.superseded_by)
        raise RefusedError(f"{old_id} is already superseded by {successors}; propose superseding {successors} instead")
    _refuse_twin(index, draft, besides=old_id)
    if not any(target == old_id for _, target in draft.links):
        draft = dataclasses.replace(draft, links=[*draft.links, (LinkType.RELATED_TO.value, old_id)])
    plan = gate.plan_create(index, draft, Status.DRAFT.value)
    doc_id = plan.created_id
    return _agent_plan(
        plan,
        f"propose {doc_id} to supersede {old_id} (agent {agent.name})",
        index,
        plan.changes[0].path,
        _entry("supersede", agent, target=old_id),
        agent,
    )


def plan_forget_request(index: VaultIndex, doc_id: str, agent: Agent, reason: str = "") -> Plan:
    """An agent asks for `doc_id` to be forgotten: recorded on the document, nothing deleted. The
    document's text and `updated_at` stay as they are: a request is not a change of what it says."""
    index.require_native("a request to forget")
    doc = index.get(doc_id)
    if any(e.get("action") == "forget" and e.get("agent") == agent.name for e in review_entries(doc)):
        return Plan(f"request to forget {doc_id}: already made by {agent.name}")
    entry = _entry("forget", agent, reason=_one_line(reason, MAX_NOTE))
    summary = f"request to forget {doc_id} (agent {agent.name})"
    change = index.edit_change(doc, _with_request(entry)(dict(doc.meta)), bump=False)
    return Plan(summary, [change], [log_line(summary)])
