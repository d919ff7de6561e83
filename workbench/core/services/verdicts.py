"""Verdicts: a reader's judgement of a pair of decisions, held for the curator, never written into a record.

The review list (`review.py`) offers pairs of decisions that may replace one another; an agent (over
MCP, `memory_judge`) or a script (`workbench review --verdicts FILE`) reads both excerpts and says
what it thinks: the newer `replaces` the older, they are `companion`s (both stand), it is
`reversed` (the other one is the newer and replaces this one), or it is `unsure`. A verdict is a
request in the curator's inbox: nothing is written to a record until the person accepts it.

Where verdicts live: `.workbench-verdicts.jsonl` at the vault's root, beside its settings file, one
JSON object a line, only ever added to. Not in the records (a verdict is not yet the person's word,
and writing it there would change the very bytes it was judged on); not in the state folder
(`.workbench/`, or a cache folder for another format), which is disposable and stays on one
machine, while a verdict is an agent's work the curator may review anywhere the vault goes. A file
that only grows merges line by line (git's `merge=union`, which `workbench sync` sets for it).

What became of a verdict is never stored: it is read from the vault as it is now. A pair written
as a supersession, or marked compatible, is settled; a verdict whose records' bytes are no longer
those judged (their digests, kept in the verdict) is stale, and the pair is offered again. So
accepting is one change to the records alone, undone like any other, and an undo brings the
verdict back as it was.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from ..storage.changes import FileChange, Plan, log_line
from .conflicts import COMPATIBLE_KEY
from ..index import VaultIndex
from ..vocabulary.model import Document, RefusedError, UnsafePathError, id_list
from ..records.vaultconfig import VERDICT_FILE

__all__ = [
    "VERDICTS",
    "VERDICT_FILE",
    "STATES",
    "Verdict",
    "LineProblem",
    "read_verdicts",
    "verdicts",
    "find",
    "judged_pairs",
    "record",
    "parse_lines",
    "record_lines",
    "plan_accept",
    "plan_reject",
    "plan_accept_many",
]

VERDICTS = ("replaces", "companion", "reversed", "unsure")
"""What a reader may say of a pair (older, newer): the newer replaces the older; they are companions
(both stand); reversed: the one given as older is the newer and replaces the other; unsure."""
STATES = ("open", "stale", "accepted", "rejected", "settled", "withdrawn")
"""What became of a verdict, read from the vault now: open (awaiting the curator), stale (a record
changed since it was judged), accepted or rejected (the pair settled as it said, or otherwise),
settled (an `unsure` verdict whose pair the curator settled), withdrawn (the same agent judged the
pair again since)."""
MAX_REASON = 2_000
MAX_AGENT = 64
MAX_FILE = 16 * 1024 * 1024
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Verdict:
    """One reader's judgement of the pair (older, newer), as given, and what became of it."""

    id: str
    older: str
    newer: str
    verdict: str
    reason: str
    agent: str
    at: str  # when it was given: ISO 8601 in UTC with its offset (a line from before: local, no offset)
    older_digest: str
    newer_digest: str
    state: str = "open"
    why: str = ""  # the state in words, for any state but open

    @property
    def when(self) -> dt.datetime | None:
        """The moment of `at` (see `_time_of`)."""
        return _time_of(self.at)

    @property
    def local_at(self) -> str:
        """`at` as a person here reads it: in this machine's time zone, without the offset
        (`2026-12-01T11:57:34.512`); `at` as written where it is no time."""
        moment = self.when
        return moment.astimezone().replace(tzinfo=None).isoformat(timespec="milliseconds") if moment else self.at

    @property
    def successor(self) -> str | None:
        """The record the verdict says replaces the other, if it says one does."""
        return {"replaces": self.newer, "reversed": self.older}.get(self.verdict)

    @property
    def replaced(self) -> str | None:
        return {"replaces": self.older, "reversed": self.newer}.get(self.verdict)

    @property
    def pair(self) -> frozenset[str]:
        return frozenset((self.older, self.newer))

    def describe(self) -> str:
        """The verdict as a sentence a curator reads."""
        if self.verdict == "replaces":
            return f"{self.newer} replaces {self.older}"
        if self.verdict == "reversed":
            return f"{self.older} replaces {self.newer} (the other way round)"
        if self.verdict == "companion":
            return f"{self.older} and {self.newer} are companions: both stand"
        return f"unsure whether {self.newer} replaces {self.older}"

    def line(self) -> dict[str, Any]:
        """What the file keeps: the verdict as given, never its state."""
        return {
            "id": self.id,
            "older": self.older,
            "newer": self.newer,
            "verdict": self.verdict,
            "reason": self.reason,
            "agent": self.agent,
            "at": self.at,
            "older_digest": self.older_digest,
            "newer_digest": self.newer_digest,
        }

    def to_json(self) -> dict[str, Any]:
        return {**self.line(), "state": self.state, "why": self.why, "what": self.describe()}


@dataclass(frozen=True)
class LineProblem:
    """A line of verdicts that was not taken, named by its number."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def _one_line(text: str, most: int) -> str:
    text = re.sub(r"\s+", " ", _CONTROL.sub(" ", text)).strip()
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


def _verdict_id(line: dict[str, Any]) -> str:
    key = "\0".join(str(line.get(k, "")) for k in ("agent", "older", "newer", "verdict", "at", "reason"))
    return "v-" + hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:10]


# -- reading ---------------------------------------------------------------------------------


_READ: dict[str, tuple[bytes, int, list[Verdict], list[LineProblem]]] = {}
"""The verdicts file as last read, by its path: its bytes up to the last line end, how many lines
they hold, and what was read of them. The file only grows (an agent's judgements are appended), so
reading it again parses the lines added since; a file changed in any other way is read whole."""
_READ_MOST = 8  # vaults' files kept: a process serves one vault, or a few


def read_verdicts(index: VaultIndex) -> tuple[list[Verdict], list[LineProblem]]:
    """Every verdict the file holds, in the order given, as given (state not yet read), and the
    lines it could not take (a hand edit gone wrong): those are named, never fatal."""
    try:
        raw = index.read_file(VERDICT_FILE)
    except (UnsafePathError, OSError) as exc:  # a symlink, a folder, a file that cannot be read
        return [], [LineProblem(0, f"{VERDICT_FILE} is not read: {exc}")]
    if raw is None:
        return [], []
    if len(raw) > MAX_FILE:
        return [], [LineProblem(0, f"{VERDICT_FILE} is over {MAX_FILE // (1024 * 1024)} MiB; it is not read")]
    where = str(index.root / VERDICT_FILE)
    held, lines, found, problems = _READ.get(where) or (b"", 0, [], [])
    if not raw.startswith(held):
        held, lines, found, problems = b"", 0, [], []
    complete = raw.rfind(b"\n") + 1  # a line is parsed once it ends: "\n" is never inside a UTF-8 character
    added = raw[len(held) : complete].decode("utf-8", "replace").splitlines()
    problems = list(problems)
    found = [*found, *_parsed(added, lines, problems)]
    if len(_READ) >= _READ_MOST and where not in _READ:
        _READ.clear()
    _READ[where] = (raw[:complete], lines + len(added), found, problems)
    problems = list(problems)
    tail = raw[complete:].decode("utf-8", "replace").splitlines()  # a last line without its end yet
    return [*found, *_parsed(tail, lines + len(added), problems)], problems


def _parsed(texts: list[str], before: int, problems: list[LineProblem]) -> list[Verdict]:
    """The verdicts of `texts`, lines `before` + 1 onwards of the file; those not taken go to `problems`."""
    found = []
    for number, text in enumerate(texts, start=before + 1):
        if not text.strip():
            continue
        try:
            data = json.loads(text)
            _check_line(data)
            found.append(
                Verdict(
                    str(data["id"]),
                    str(data["older"]),
                    str(data["newer"]),
                    str(data["verdict"]),
                    str(data.get("reason", "")),
                    str(data.get("agent", "unknown-agent")),
                    str(data.get("at", "")),
                    str(data.get("older_digest", "")),
                    str(data.get("newer_digest", "")),
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            problems.append(LineProblem(number, f"not a verdict ({exc})"))
    return found


def _check_line(data: Any) -> None:
    """ValueError, saying what is wrong, for a line of the file that is no verdict as `record` writes
    one: a hand edit that changed the verdict's word, or made both sides the same record, would
    otherwise be read as an open verdict the curator could not accept, or as one already settled."""
    if not isinstance(data, dict):
        raise ValueError("not an object")
    for key in ("id", "older", "newer", "verdict"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ValueError(f"{key} is missing or not text")
    if data["verdict"] not in VERDICTS:
        raise ValueError(f"verdict {data['verdict']!r} is not one of {', '.join(VERDICTS)}")
    if data["older"] == data["newer"]:
        raise ValueError(f"older and newer are the same record, {data['older']}")


def _superseding(documents: Iterable[Document]) -> dict[str, list[str]]:
    """Who supersedes whom, as either side states it (a collection may state one side only)."""
    supersedes: dict[str, list[str]] = {}
    for doc in documents:
        supersedes.setdefault(doc.id, []).extend(doc.supersedes)
        for newer in doc.superseded_by:
            supersedes.setdefault(newer, []).append(doc.id)
    return supersedes


def _replaces(docs: dict[str, Document], newer: str, older: str) -> bool:
    """Whether `newer` (directly or through others) replaces `older`, as the records state it: down
    the `supersedes` of `newer`, or up the `superseded_by` of `older` (a collection may state one
    side only). Only the records on the way are read: decoding every record's frontmatter to
    settle a few verdicts took a second at 10,000 documents."""
    for start, goal, step in ((newer, older, "supersedes"), (older, newer, "superseded_by")):
        seen, stack = set(), [start]
        while stack:
            current = stack.pop()
            if current == goal:
                return True
            doc = docs.get(current)
            if current in seen or doc is None:
                continue
            seen.add(current)
            stack.extend(getattr(doc, step))
    return False


def _compatible(docs: dict[str, Document], compatible: frozenset, a: str, b: str) -> bool:
    if frozenset((a, b)) in compatible:
        return True
    first, second = docs.get(a), docs.get(b)
    return bool(
        (first is not None and b in id_list(first.meta.get(COMPATIBLE_KEY)))
        or (second is not None and a in id_list(second.meta.get(COMPATIBLE_KEY)))
    )


def _state(verdict: Verdict, docs: dict[str, Document], compatible: frozenset) -> Verdict:
    a, b = verdict.older, verdict.newer
    forward = _replaces(docs, b, a)
    if forward or _replaces(docs, a, b):
        successor = b if forward else a
        settled = f"{successor} supersedes {a if successor == b else b}"
        if verdict.verdict == "unsure":
            return replace(verdict, state="settled", why=settled)
        agreed = verdict.successor == successor
        return replace(verdict, state="accepted" if agreed else "rejected", why=settled)
    if _compatible(docs, compatible, a, b):
        said = "marked compatible: both stand"
        if verdict.verdict == "unsure":
            return replace(verdict, state="settled", why=said)
        return replace(verdict, state="accepted" if verdict.verdict == "companion" else "rejected", why=said)
    for doc_id, digest in ((a, verdict.older_digest), (b, verdict.newer_digest)):
        doc = docs.get(doc_id)
        if doc is None:
            return replace(verdict, state="stale", why=f"{doc_id} is no longer in the vault")
        if doc.digest != digest:
            return replace(verdict, state="stale", why=f"{doc_id} changed since it was judged")
    return verdict


_STATED: list[tuple[Any, Any, dict[Verdict, Verdict]]] = [(None, None, {})]
"""The documents by id and the compatible pairs a verdict's state was last read against, and each
verdict's state then: a page of the review list reads every verdict's state, and an agent judging
the list adds one a pair, so only the new ones are read while the records are unchanged."""
_DOCUMENTS: list[tuple[Any, int, dict[str, Document]]] = [
    (None, -1, {})
]  # an index (weakly), its generation, its documents


def _documents(index: VaultIndex) -> dict[str, Document]:
    """The index's documents by id, one dict for as long as its records are unchanged."""
    ref, generation, docs = _DOCUMENTS[0]
    if ref is None or ref() is not index or generation != index.generation:
        generation = index.generation  # read first: a change meanwhile makes the next call look again
        docs = {d.id: d for d in index.documents}
        _DOCUMENTS[0] = (weakref.ref(index), generation, docs)
    return docs


def verdicts(index: VaultIndex, docs: dict[str, Document] | None = None) -> tuple[list[Verdict], list[LineProblem]]:
    """Every verdict, oldest first, each with what became of it as the vault is now (`docs`: the
    index's documents by id, where the caller has them)."""
    given, problems = read_verdicts(index)
    if not given:
        return [], problems
    docs = docs if docs is not None else _documents(index)
    compatible = index.config.compatible
    held = _STATED[0]
    if held[0] is not docs or held[1] != compatible:
        held = _STATED[0] = (docs, compatible, {})
    stated_as = held[2]
    latest: dict[tuple[str, frozenset[str]], int] = {}
    for n, verdict in enumerate(given):
        latest[(verdict.agent, verdict.pair)] = n
    found = []
    for n, verdict in enumerate(given):
        stated = stated_as.get(verdict)
        if stated is None:
            stated = stated_as[verdict] = _state(verdict, docs, compatible)
        if stated.state in ("open", "stale") and latest[(verdict.agent, verdict.pair)] != n:
            stated = replace(stated, state="withdrawn", why=f"{verdict.agent} judged this pair again since")
        found.append(stated)
    return found, problems


def find(index: VaultIndex, verdict_id: str) -> Verdict:
    for verdict in verdicts(index)[0]:
        if verdict.id == verdict_id:
            return verdict
    raise RefusedError(f"no verdict has the id {verdict_id!r}; `workbench inbox` lists them")


def judged_pairs(found: Iterable[Verdict]) -> set[frozenset[str]]:
    """The pairs a reader judged while both records are as they are now: never offered again."""
    return {v.pair for v in found if v.state in ("open", "accepted", "rejected", "settled")}


# -- recording -------------------------------------------------------------------------------


def _now() -> str:
    """Now in UTC, its offset written (`2026-12-01T10:57:34.512+00:00`): a verdict's time means the
    same on every machine the vault is synced to."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


def _time_of(at: str) -> dt.datetime | None:
    """The moment a verdict's `at` names, with its time zone: the offset written, or, for a line
    written before verdicts carried one (`2026-12-01T10:57:34.512`), this machine's zone, as such
    times were taken; None for text that is no time (a hand edit)."""
    try:
        moment = dt.datetime.fromisoformat(at)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.astimezone()


def _checked(index: VaultIndex, older: str, newer: str, verdict: str, reason: str, agent: str) -> dict[str, Any]:
    """One verdict as the file keeps it, refused in words a reader can act on."""
    if verdict not in VERDICTS:
        raise RefusedError(f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
    older, newer = older.strip(), newer.strip()
    if not older or not newer:
        raise RefusedError("name both records: older and newer, as the review list gives them")
    if older == newer:
        raise RefusedError(f"older and newer are the same record, {older}; a verdict is about two")
    docs = [index.get(doc_id) for doc_id in (older, newer)]  # refused for an id no document has
    if len(reason) > MAX_REASON:
        raise RefusedError(f"reason is {len(reason):,} characters; at most {MAX_REASON:,}")
    if verdict != "unsure" and not reason.strip():
        raise RefusedError("reason is empty: say, in the records' words, what decided it")
    agent = _one_line(agent, MAX_AGENT) or "unknown-agent"
    return {
        "older": older,
        "newer": newer,
        "verdict": verdict,
        "reason": _one_line(reason, MAX_REASON),
        "agent": agent,
        "at": _now(),
        "older_digest": docs[0].digest,
        "newer_digest": docs[1].digest,
    }


def record_lines(index: VaultIndex, lines: list[dict[str, Any]]) -> list[Verdict]:
    """Add verdicts (as `_checked` makes them) to the end of the file, under the vault's lock, in one
    appending write (a line an agent appends with plain file I/O meanwhile is kept). The same verdict again (agent, pair, verdict and both digests alike, still
    open) is not added twice: the one held is returned."""
    with index.lock:
        given, _ = read_verdicts(index)
        held = {(v.agent, v.older, v.newer, v.verdict, v.older_digest, v.newer_digest): v for v in given}
        latest = {(v.agent, v.pair): v for v in given}
        out, added = [], []
        for line in lines:
            key = tuple(line[k] for k in ("agent", "older", "newer", "verdict", "older_digest", "newer_digest"))
            same = held.get(key)
            if same is not None and latest.get((same.agent, same.pair)) is same:
                out.append(same)
                continue
            line = {"id": _verdict_id(line), **line}
            verdict = Verdict(**line)
            held[key] = latest[(verdict.agent, verdict.pair)] = verdict
            added.append(json.dumps(line, ensure_ascii=False))
            out.append(verdict)
        if added:
            try:
                index.writer.append(VERDICT_FILE, ("\n".join(added) + "\n").encode("utf-8"))
            except OSError as exc:
                raise RefusedError(
                    f"{VERDICT_FILE} cannot be written ({exc.strerror or exc}); the verdict was not recorded"
                ) from exc
    return out


def record(index: VaultIndex, older: str, newer: str, verdict: str, reason: str, agent: str) -> Verdict:
    """Record one reader's verdict on (older, newer), with both records' digests as they are now."""
    return record_lines(index, [_checked(index, older, newer, verdict, reason, agent)])[0]


def parse_lines(index: VaultIndex, text: str) -> tuple[list[dict[str, Any]], list[LineProblem]]:
    """Verdicts given as JSON Lines (`{"older", "newer", "verdict", "reason", "agent"}` a line), each
    checked; a bad line is named with its number and why, and the others are still taken."""
    taken, problems = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            problems.append(LineProblem(number, f"not JSON ({exc.args[0] if exc.args else exc})"))
            continue
        if not isinstance(data, dict):
            problems.append(LineProblem(number, "not a JSON object"))
            continue
        missing = [k for k in ("older", "newer", "verdict") if not isinstance(data.get(k), str)]
        if missing:
            problems.append(LineProblem(number, f"needs {', '.join(missing)} (text)"))
            continue
        reason, agent = data.get("reason", ""), data.get("agent", "")
        if not isinstance(reason, str) or not isinstance(agent, str):
            problems.append(LineProblem(number, "reason and agent are text"))
            continue
        if not agent.strip():
            problems.append(LineProblem(number, "needs agent: who judged (a name)"))
            continue
        try:
            taken.append(_checked(index, data["older"], data["newer"], data["verdict"], reason, agent))
        except RefusedError as exc:
            problems.append(LineProblem(number, str(exc)))
    return taken, problems


# -- settling --------------------------------------------------------------------------------


def _open(index: VaultIndex, verdict_id: str) -> Verdict:
    verdict = find(index, verdict_id)
    if verdict.state == "stale":
        raise RefusedError(
            f"verdict {verdict.id} is stale: {verdict.why}, so {verdict.agent} judged another version; "
            "the pair is offered again in the review list (workbench review)"
        )
    if verdict.state != "open":
        raise RefusedError(f"verdict {verdict.id} is {verdict.state} already: {verdict.why}")
    return verdict


def _unchanged(index: VaultIndex, verdict: Verdict) -> None:
    """Refuse when a record's bytes on disk are not those judged (a write the index has not seen yet)."""
    for doc_id, digest in ((verdict.older, verdict.older_digest), (verdict.newer, verdict.newer_digest)):
        if index.get(doc_id).digest != digest:
            raise RefusedError(
                f"verdict {verdict.id} is stale: {doc_id} changed since {verdict.agent} judged it; "
                "the pair is offered again in the review list (workbench review)"
            )


def plan_accept(index: VaultIndex, verdict_id: str) -> Plan:
    """What accepting the verdict writes: for `replaces` or `reversed`, the supersession on both
    sides in the format's own words (as `supersede` writes it); for `companion`, the pair marked
    compatible. Refused for `unsure`, and for a verdict no longer open."""
    from . import resolving, transitions  # the writes an acceptance plans: a review page imports neither

    verdict = _open(index, verdict_id)
    _unchanged(index, verdict)
    if verdict.verdict == "unsure":
        raise RefusedError(
            f"{verdict.agent} was unsure about {verdict.older} and {verdict.newer}: there is nothing to accept; "
            f"decide yourself (workbench supersede {verdict.older} {verdict.newer}) or reject it (inbox reject {verdict.id})"
        )
    if verdict.verdict == "companion":
        plan = resolving.plan_compatible(index, verdict.older, verdict.newer)
    else:
        plan = transitions.plan_supersede(index, verdict.replaced or "", verdict.successor or "")
    return _named(index, plan, f"accept {verdict.agent}'s verdict {verdict.id} ({verdict.describe()})")


def plan_reject(index: VaultIndex, verdict_id: str) -> Plan:
    """Rejecting a verdict keeps the pair as it is and says so where the queue and the review
    list read it: marked compatible (in both records for Memory Core, else in the vault's settings
    file), so no one is asked about it again."""
    from . import resolving

    verdict = _open(index, verdict_id)
    plan = resolving.plan_compatible(index, verdict.older, verdict.newer)
    return _named(
        index, plan, f"reject {verdict.agent}'s verdict {verdict.id}: {verdict.older} and {verdict.newer} both stand"
    )


def _named(index: VaultIndex, plan: Plan, summary: str) -> Plan:
    return Plan(summary, plan.changes, [log_line(summary)])


def plan_accept_many(index: VaultIndex, verdict_ids: list[str]) -> Plan:
    """Several `replaces` (or `reversed`) verdicts accepted as one change, one preview, one undo.
    Two that touch the same record are joined key by key (a record replacing two others names
    both); refused, naming the record, where they cannot be joined or would contradict each other."""
    from . import transitions

    if not verdict_ids:
        raise RefusedError("no verdicts to accept")
    chosen = [_open(index, verdict_id) for verdict_id in dict.fromkeys(verdict_ids)]
    pairs: dict[frozenset[str], Verdict] = {}
    for verdict in chosen:
        if verdict.successor is None:
            raise RefusedError(f"verdict {verdict.id} says {verdict.verdict}: only replacements are accepted together")
        other = pairs.get(verdict.pair)
        if other is not None and other.successor != verdict.successor:
            raise RefusedError(
                f"verdicts {other.id} and {verdict.id} disagree about {verdict.older} and {verdict.newer}"
            )
        pairs[verdict.pair] = verdict
    from ..vocabulary.supersession import reaches

    combined = _superseding(index.documents)
    for verdict in pairs.values():
        _unchanged(index, verdict)
        successor, replaced = verdict.successor or "", verdict.replaced or ""
        if reaches(combined, replaced, successor):
            raise RefusedError(
                f"verdict {verdict.id} would make a circle: {replaced} already (through these verdicts) replaces {successor}"
            )
        combined.setdefault(successor, []).append(replaced)
    merged: dict[str, FileChange] = {}
    for verdict in pairs.values():
        plan = transitions.plan_supersede(index, verdict.replaced or "", verdict.successor or "")
        for change in plan.changes:
            if change.before == change.after:
                continue
            held = merged.get(change.path)
            if held is None:
                merged[change.path] = change
                continue
            from ..editing.docmerge import merge_document  # two verdicts on one file: a write's, not a read's

            joined = merge_document(change.before, held.after or b"", change.after or b"")
            if not joined.clean:
                raise RefusedError(
                    f"{change.path} would be changed by two of these verdicts in ways that cannot be joined "
                    f"({joined.conflicts[0].describe()}); accept them one at a time"
                )
            merged[change.path] = FileChange(change.path, change.before, joined.data)
    agents = sorted({v.agent for v in pairs.values()})
    summary = f"accept {len(pairs)} verdict(s) of {', '.join(agents)}: " + "; ".join(
        v.describe() for v in pairs.values()
    )
    return Plan(summary, list(merged.values()), [log_line(summary)])
