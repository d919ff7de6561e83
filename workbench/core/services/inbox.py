"""The inbox: what agents wrote, held for the curator, and the curator's word on each.

An agent's write (`agentwrites.py`: a new draft, a merge, a proposed supersession, a request to
forget) leaves a request on the document it concerns, in that document's frontmatter under
`awaiting_review` (who, when, what). The files are the truth: the inbox is every such request in
the vault, whoever made it and whatever `.workbench/` holds; `.workbench/inbox.json` keeps only
when the curator last looked, so the inbox can say what is new since. Settling a request (accept,
merge into, supersede, archive, forget, revert a merge, keep) is one change: the action and the
request's removal, written together, logged, and undoable like any other (forget excepted).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from . import references, resolving, transitions
from .agentwrites import REVIEW_KEY, Agent, AlreadyExists, edit_after, review_entries
from ..storage.changes import Plan, log_line, unified_diff
from ..index import VaultIndex
from ..vocabulary.model import DocType, Document, RefusedError, Status
from ..vocabulary.parse import parse_bytes
from ..storage.writer import FileChange, read_bytes, write_atomic

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
    "plan_settle",
    "forget",
    "request_diff",
]

KINDS = ("create", "merge", "supersede", "forget")
"""What an agent did: wrote a new draft, merged text into a document, proposed a new decision
replacing one, asked for a document to be forgotten."""

STATE_FILE = "inbox.json"
ACTIONS: dict[str, tuple[str, ...]] = {
    "create": ("accept", "merge", "supersede", "archive", "forget"),
    "supersede": ("accept", "merge", "supersede", "archive", "forget"),
    "merge": ("accept", "revert"),
    "forget": ("forget", "archive", "keep"),
}
"""How the curator may settle each kind: `accept` a draft (it becomes active; a proposal supersedes
its decision) or a merge (it stays), `merge` the draft into another document, let it `supersede`
another, `archive` it, `forget` it for good, `revert` a merge, or `keep` what an agent asked to forget."""


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
        """What settles it; a decision is never merged (one supersedes the other), so a decision's
        draft or proposal is not offered `merge`."""
        return tuple(a for a in ACTIONS[self.kind] if not (a == "merge" and self.type == DocType.DECISION))

    def fits(self, action: str, doc_type: str, status: str) -> bool:
        """Whether a document of `doc_type` and `status` can be the other side of `action` (merge
        into it, supersede it), as the core's checks will judge it: a person picking one by search
        is offered only these, rather than refused after the pick."""
        if action == "merge":
            return doc_type != DocType.DECISION and status in (Status.ACTIVE, Status.DRAFT)
        if action == "supersede":
            decisions = self.type == DocType.DECISION or doc_type != DocType.DECISION
            return decisions and status not in (Status.SUPERSEDED, Status.ARCHIVED)
        return True

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


def requests(documents: Iterable[Document]) -> list[Request]:
    """The requests the documents' frontmatter holds, oldest first. An entry that is not a request
    this version knows (edited by hand into something else) is left alone, not listed."""
    found = []
    for doc in documents:
        for entry in review_entries(doc):
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
        changes[touched[0]] = edit_after(changes[touched[0]], _without(request.entry))
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
    if action == "keep":  # the document is kept; the request is what goes
        summary = f"inbox: keep {request.doc_id}, declining {request.agent}'s request to forget it"
    else:
        summary = f"inbox: {action} {request.agent}'s {what}" + (f" ({plan.summary})" if not plan.empty else "")
    return Plan(summary, changes, [log_line(summary)])


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
    return Plan(summary, [FileChange(request.path, now, found[1].before)], [log_line(summary)])


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
        plan = resolving.plan_merge_documents(index, doc_id, _needs(target, action))
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
