"""What agents write, held for the curator: agents' writes through the gate, and the inbox.

An agent (through `workbench mcp`, seed 000's memory tools) writes through the same store and the
same checks as a person, but never has the last word:

- a new document lands as `draft`, its `provenance` naming the agent;
- a merge joins the agent's text to a canonical document as a dated section, as the gate's does;
- a supersession is a *proposal*: a new draft decision naming the decision it would replace, which
  stays active until the curator accepts (seed 000: supersession with human confirmation; no claim
  is silently replaced);
- a request to forget deletes nothing.

Each leaves a request on the document it concerns, in that document's frontmatter under
`awaiting_review` (who, when, what), and a line in `log.md` naming the agent. The files are the
truth: the inbox is every such request in the vault, whoever made it and whatever `.workbench/`
holds; `.workbench/inbox.json` keeps only when the curator last looked, so the inbox can say what
is new since. Settling a request (accept, merge into, supersede, archive, forget, revert a merge,
keep) is one change: the action and the request's removal, written together, logged, and undoable
like any other (forget excepted).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from . import conflicts, gate, references, transitions
from .changes import Plan, unified_diff
from .index import VaultIndex
from .model import TYPE_FOLDERS, DocType, Document, LinkType, RefusedError, Source, Status, member
from .parse import parse_bytes
from .storage import FileChange, read_bytes, write_atomic
from .validate import find_credentials
from .yamledit import EditError, apply_meta

__all__ = [
    "REVIEW_KEY",
    "KINDS",
    "ACTIONS",
    "Agent",
    "AlreadyExists",
    "Request",
    "Inbox",
    "requests",
    "read_inbox",
    "mark_reviewed",
    "plan_agent_create",
    "plan_agent_merge",
    "plan_agent_supersede",
    "plan_forget_request",
    "plan_settle",
    "forget",
    "request_diff",
    "same_title",
]

REVIEW_KEY = "awaiting_review"
"""The frontmatter key holding the requests an agent left on a document for the curator."""

KINDS = ("create", "merge", "supersede", "forget")
"""What an agent did: wrote a new draft, merged text into a document, proposed a new decision
replacing one, asked for a document to be forgotten."""

ACTIONS: dict[str, tuple[str, ...]] = {
    "create": ("accept", "merge", "supersede", "archive", "forget"),
    "supersede": ("accept", "merge", "supersede", "archive", "forget"),
    "merge": ("accept", "revert"),
    "forget": ("forget", "archive", "keep"),
}
"""How the curator may settle each kind: `accept` a draft (it becomes active; a proposal supersedes
its decision) or a merge (it stays), `merge` the draft into another document, let it `supersede`
another, `archive` it, `forget` it for good, `revert` a merge, or `keep` what an agent asked to forget."""

STATE_FILE = "inbox.json"
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


@dataclass(frozen=True)
class Request:
    """One thing an agent asked the curator to look at, as its document's frontmatter states it."""

    doc_id: str
    path: str
    kind: str
    agent: str
    at: str
    title: str
    type: str
    status: str
    target: str | None = None
    """For a proposed supersession: the decision the draft would replace."""
    note: str = ""
    """For a merge: the title of the merged section; for a request to forget: the agent's reason."""
    entry: Any = None

    @property
    def actions(self) -> tuple[str, ...]:
        return ACTIONS[self.kind]

    def describe(self) -> str:
        """What the agent did, as the rest of a sentence that starts with its name."""
        if self.kind == "create":
            return f"wrote a new {self.type}, {self.doc_id} ({self.status})"
        if self.kind == "supersede":
            return f"proposed a new decision, {self.doc_id}, to supersede {self.target}"
        if self.kind == "merge":
            return f"merged “{self.note}” into {self.doc_id}"
        return f"asked to forget {self.doc_id}" + (f": {self.note}" if self.note else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.doc_id,
            "path": self.path,
            "kind": self.kind,
            "agent": self.agent,
            "at": self.at,
            "title": self.title,
            "type": self.type,
            "status": self.status,
            "target": self.target,
            "note": self.note,
            "what": self.describe(),
            "actions": list(self.actions),
        }


@dataclass(frozen=True)
class Inbox:
    """Every request in the vault, oldest first, and when the curator last reviewed (None: never)."""

    requests: tuple[Request, ...]
    reviewed_until: str | None

    def is_new(self, request: Request) -> bool:
        return self.reviewed_until is None or request.at > self.reviewed_until

    @property
    def new(self) -> list[Request]:
        return [r for r in self.requests if self.is_new(r)]

    @property
    def newest(self) -> str | None:
        return max((r.at for r in self.requests), default=None)

    def for_document(self, doc_id: str) -> list[Request]:
        return [r for r in self.requests if r.doc_id == doc_id]

    def to_json(self) -> dict[str, Any]:
        return {
            "reviewed_until": self.reviewed_until,
            "requests": [{**r.to_json(), "new": self.is_new(r)} for r in self.requests],
        }

    def __len__(self) -> int:
        return len(self.requests)


# -- reading -----------------------------------------------------------------------------------


def _time(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return value.isoformat(timespec="milliseconds" if value.microsecond else "seconds")
    if isinstance(value, dt.date):
        return dt.datetime.combine(value, dt.time()).isoformat(timespec="seconds")
    return str(value) if value is not None else ""


def _entries(doc: Document) -> list[dict[str, Any]]:
    value = doc.meta.get(REVIEW_KEY) if isinstance(doc.meta, dict) else None
    return [entry for entry in value if isinstance(entry, dict)] if isinstance(value, list) else []


def requests(documents: Iterable[Document]) -> list[Request]:
    """The requests the documents' frontmatter holds, oldest first. An entry that is not a request
    this version knows (edited by hand into something else) is left alone, not listed."""
    found = []
    for doc in documents:
        for entry in _entries(doc):
            kind = entry.get("action")
            if kind not in KINDS:
                continue
            target = entry.get("target")
            note = entry.get("title") if kind == "merge" else entry.get("reason")
            found.append(
                Request(
                    doc.id,
                    doc.path,
                    str(kind),
                    str(entry.get("agent") or "unknown-agent"),
                    _time(entry.get("at")),
                    doc.title,
                    doc.type,
                    doc.status,
                    str(target) if target else None,
                    str(note) if note else "",
                    entry,
                )
            )
    found.sort(key=lambda r: (r.at, r.doc_id))
    return found


def read_inbox(index: VaultIndex) -> Inbox:
    """The inbox of the vault as its files are now."""
    return Inbox(tuple(requests(record.document for record in index.records)), _reviewed_until(index))


def _reviewed_until(index: VaultIndex) -> str | None:
    try:
        value = json.loads((index.state_dir / STATE_FILE).read_text("utf-8")).get("reviewed_until")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def mark_reviewed(index: VaultIndex, until: str) -> None:
    """Remember that the curator has seen every request up to `until` (derived state: losing it only
    makes every request new again)."""
    before = _reviewed_until(index)
    if before is not None and before >= until:
        return
    write_atomic(index.state_dir / STATE_FILE, json.dumps({"reviewed_until": until}).encode("utf-8"))


# -- agents' writes ----------------------------------------------------------------------------


class AlreadyExists(RefusedError):
    """A new document refused because one of its type and title is in the vault: `doc_id`."""

    def __init__(self, message: str, doc_id: str) -> None:
        super().__init__(message)
        self.doc_id = doc_id


_TITLE_WORD = re.compile(r"[^\W_]+")


def same_title(title: str) -> tuple[str, ...]:
    """A title's words in order, case and accents folded: two titles that differ only in those, in
    spacing or in punctuation name the same thing."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", title.casefold()) if not unicodedata.combining(c))
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


def _edit_after(change: FileChange, edit: Callable[[dict[str, Any]], dict[str, Any]]) -> FileChange:
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
    changes = [_edit_after(c, _with_request(entry, agent)) if c.path == path else c for c in plan.changes]
    return Plan(summary, changes, [index.log_line(summary)], created_id=plan.created_id)


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
    if any(e.get("action") == "forget" and e.get("agent") == agent.name for e in _entries(doc)):
        return Plan(f"request to forget {doc_id}: already made by {agent.name}")
    entry = _entry("forget", agent, reason=_one_line(reason, MAX_NOTE))
    summary = f"request to forget {doc_id} (agent {agent.name})"
    change = index.edit_change(doc, _with_request(entry)(dict(doc.meta)), bump=False)
    return Plan(summary, [change], [index.log_line(summary)])


# -- settling ----------------------------------------------------------------------------------


def _pick(index: VaultIndex, doc_id: str, action: str, at: str | None) -> Request:
    """The request on `doc_id` that `action` settles: the one made `at`, else the oldest that fits
    (for `revert`, the newest: stacked merges are undone in the order they came, newest first)."""
    doc = index.get(doc_id)
    pending = requests([doc])
    if not pending:
        raise RefusedError(f"{doc_id} holds no request from an agent; nothing to settle")
    fitting = [r for r in pending if action in r.actions and (at is None or r.at == at)]
    if not fitting:
        kinds = ", ".join(f"{r.kind} ({', '.join(r.actions)})" for r in pending)
        raise RefusedError(f"{action!r} does not settle what an agent asked of {doc_id}; its requests: {kinds}")
    return fitting[-1] if action == "revert" and at is None else fitting[0]


def _without(entry: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def edit(meta: dict[str, Any]) -> dict[str, Any]:
        existing = meta.get(REVIEW_KEY)
        kept = list(existing) if isinstance(existing, list) else []
        if entry in kept:
            kept.remove(entry)
        if kept:
            meta[REVIEW_KEY] = kept
        else:
            meta.pop(REVIEW_KEY, None)
        return meta

    return edit


def _settled(index: VaultIndex, plan: Plan, request: Request, action: str) -> Plan:
    """`plan` with the request removed from its document in the same change."""
    changes = list(plan.changes)
    touched = [n for n, c in enumerate(changes) if c.path == request.path and c.before != c.after]
    if touched:
        changes[touched[0]] = _edit_after(changes[touched[0]], _without(request.entry))
    else:
        changes = [c for c in changes if c.path != request.path]
        doc = index.get(request.doc_id)
        changes.append(index.edit_change(doc, _without(request.entry)(dict(doc.meta)), bump=False))
    what = {
        "create": f"new {request.doc_id}",
        "supersede": f"proposal {request.doc_id}",
        "merge": f"merge into {request.doc_id}",
        "forget": f"request to forget {request.doc_id}",
    }[request.kind]
    summary = f"inbox: {action} {request.agent}'s {what}" + (f" ({plan.summary})" if not plan.empty else "")
    return Plan(summary, changes, [index.log_line(summary)])


def _needs(target: str | None, action: str) -> str:
    if not target:
        raise RefusedError(f"{action} needs the other document's id")
    return target


def _introduced(index: VaultIndex, request: Request) -> tuple[dict[str, Any], FileChange] | None:
    """The history record of the agent's own write of this request, and its change to the document."""
    for record in index.history_records():
        for change in record["files"]:
            if (
                change.path == request.path
                and _holds(change.after, request.entry)
                and not _holds(change.before, request.entry)
            ):
                return record, change
    return None


def _holds(data: bytes | None, entry: Any) -> bool:
    if data is None:
        return False
    meta = parse_bytes(data).meta
    value = meta.get(REVIEW_KEY) if meta else None
    return isinstance(value, list) and entry in value


def _revert(index: VaultIndex, request: Request) -> Plan:
    """The document as it was before the agent's merge, if nothing changed it since."""
    found = _introduced(index, request)
    now = read_bytes(index.root / request.path)
    if found is None or found[1].after != now:
        newer = [
            r
            for r in requests([index.get(request.doc_id)])
            if r.kind == "merge" and r.at >= request.at and r.entry != request.entry
        ]
        if found is not None and newer:
            raise RefusedError(
                f"revert the newer merge “{newer[-1].note}” into {request.doc_id} ({newer[-1].at}) first: "
                "stacked merges are undone newest first"
            )
        why = "it has changed since" if found is not None else "the record of that change is gone"
        raise RefusedError(
            f"the merge into {request.doc_id} cannot be reverted exactly: {why}; edit it by hand (e), then accept"
        )
    summary = f"inbox: revert {request.agent}'s merge “{request.note}” into {request.doc_id}"
    return Plan(summary, [FileChange(request.path, now, found[1].before)], [index.log_line(summary)])


def plan_settle(index: VaultIndex, doc_id: str, action: str, target: str | None = None, at: str | None = None) -> Plan:
    """Settle the request on `doc_id` that `action` answers; `target` names the other document of a
    merge or supersession; `at` picks one request when a document holds several. Forget is `forget`."""
    index.require_native("settling an agent's request")
    if action == "forget":
        raise RefusedError("forget deletes for good: settle it with forget(doc_id, confirm)")
    request = _pick(index, doc_id, action, at)
    if request.kind == "merge":
        if action == "revert":
            return _revert(index, request)
        return _settled(index, Plan(f"accept {doc_id}"), request, action)
    if action == "keep":
        return _settled(index, Plan(f"keep {doc_id}"), request, action)
    if action == "archive":
        plan = transitions.plan_status(index, doc_id, Status.ARCHIVED.value)
    elif action == "merge":
        plan = conflicts.plan_merge_documents(index, doc_id, _needs(target, action))
    elif action == "supersede":
        plan = transitions.plan_supersede(index, _needs(target, action), doc_id)
    elif request.kind == "supersede":  # accept a proposal: it supersedes the decision it named
        plan = transitions.plan_supersede(index, _needs(request.target, action), doc_id)
    else:
        plan = transitions.plan_status(index, doc_id, Status.ACTIVE.value)
    return _settled(index, plan, request, action)


def forget(index: VaultIndex, doc_id: str, confirm: str | None, dry_run: bool = False) -> Plan:
    """Forget what an agent wrote (or asked to forget), for good: the id typed again exactly."""
    request = _pick(index, doc_id, "forget", None)
    if confirm != doc_id:
        raise RefusedError(f"forgetting deletes {doc_id} for good: confirm it by typing the id again exactly")
    reviewed = _reviewed_until(index)
    plan = references.forget(index, doc_id, confirm, dry_run)  # drops every derived state, the inbox's cursor too...
    if reviewed is not None and not dry_run:
        mark_reviewed(index, reviewed)  # ...which holds no id, so it is put back
    why = f"as {request.agent} asked" if request.kind == "forget" else f"written by {request.agent}"
    plan.summary = f"inbox: forget {doc_id}, {why}"
    return plan


def request_diff(index: VaultIndex, request: Request) -> str:
    """What the agent wrote, as a diff: its own change where the history still holds it, else the
    document as it is now (a new draft, a proposal), its merged section, or what forgetting it removes."""
    now = read_bytes(index.root / request.path)
    if request.kind == "forget":
        return unified_diff([FileChange(request.path, now, None)])
    found = _introduced(index, request)
    if found is not None:
        record, _ = found
        return unified_diff([c for c in record["files"] if c.before != c.after])
    if request.kind in ("create", "supersede"):
        return unified_diff([FileChange(request.path, None, now)])
    return _section_diff(request, now)


def _section_diff(request: Request, now: bytes | None) -> str:
    """The merged section as added lines, found in the document as it is now."""
    text = (now or b"").decode("utf-8", "replace").replace("\r\n", "\n")
    heading = re.compile(rf"^## \d{{4}}-\d{{2}}-\d{{2}}: {re.escape(request.note)}\s*$", re.MULTILINE)
    found = heading.search(text)
    if found is None:
        return f"# the section “{request.note}” is no longer in {request.path}\n"
    rest = text[found.start() :]
    end = re.search(r"^## ", rest[3:], re.MULTILINE)
    section = rest if end is None else rest[: end.start() + 3]
    lines = section.rstrip("\n").split("\n")
    return f"--- a/{request.path}\n+++ b/{request.path}\n" + "".join(f"+{line}\n" for line in lines)
