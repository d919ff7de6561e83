"""Contradictions: structural faults in supersession, and documents that may claim opposite things.

Structural faults are certain (the files say so). Candidate contradictions are not: two active
documents of the same type about the same subject, neither replacing the other. A false alarm costs
the curator's trust, so a candidate needs a similar title *and* shared substance (words or tags),
and pairs a person has marked compatible (`compatible_with`, kept in the files so it travels with
the vault through git) are never listed again. Each conflict comes with the resolutions that fit,
as the commands that carry them out.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import presenting, supersession, tiers
from .changes import Plan
from .edits import join_section, unite_links, unite_tags
from .index import VaultIndex
from .model import DocType, Document, LinkType, RefusedError, Status, id_list
from .similarity import Corpus, Likeness, Profile, kinship, likeness, profiles_of, words

__all__ = ["Conflict", "Conflicts", "Resolution", "find_conflicts", "plan_compatible", "plan_retarget", "plan_merge_documents", "COMPATIBLE_KEY"]

COMPATIBLE_KEY = "compatible_with"
CLAIM_TYPES = (DocType.DECISION, DocType.ENTITY, DocType.CONTEXT, DocType.CONCEPT)
TITLE_ALIKE = 0.6
TEXT_ALIKE = 0.25
# A decision's likeliest predecessors are listed from LIKELY_KIN, those within KIN_MARGIN of the best.
LIKELY_KIN = 0.38
KIN_MARGIN = 0.1
CLEAR_KIN, CLEAR_GAP = 0.3, 0.2  # lower, a pair far likelier than any other either side could make
RARE_TERMS = 8  # a decision's most distinctive words, each a reason to weigh it against others that use it


@dataclass
class Resolution:
    action: str
    label: str
    command: str

    def to_json(self) -> dict[str, str]:
        return {"action": self.action, "label": self.label, "command": self.command}


@dataclass
class Conflict:
    kind: str
    ids: list[str]
    reason: str
    resolutions: list[Resolution] = field(default_factory=list)
    rank: int = 0  # within its kind, most likely first (contradictions are ranked; others by ids)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "ids": self.ids, "reason": self.reason, "resolutions": [r.to_json() for r in self.resolutions]}

    def _repr_html_(self) -> str | None:
        return presenting.render("conflicts_html", [self])


class Conflicts(list):
    """A list of conflicts that a notebook shows as a table, with the commands that resolve each."""

    def _repr_html_(self) -> str | None:
        return presenting.render("conflicts_html", self)

    def to_pandas(self):
        return presenting.frame(c.to_json() for c in self)


def _supersede(old: str, new: str) -> Resolution:
    return Resolution("supersede", f"{new} supersedes {old}", f"supersede {old} {new}")


def _compatible(a: str, b: str) -> Resolution:
    return Resolution("compatible", f"mark {a} and {b} compatible (both stay active)", f"compatible {a} {b}")


def _current(docs: dict, doc_id: str) -> str | None:
    seen = set()
    while doc_id in docs and docs[doc_id].status == Status.SUPERSEDED and docs[doc_id].superseded_by:
        if doc_id in seen:
            return None
        seen.add(doc_id)
        doc_id = sorted(docs[doc_id].superseded_by)[0]
    return doc_id if doc_id in docs else None


def _structural(docs: dict) -> list[Conflict]:
    found: list[Conflict] = []
    for doc in docs.values():
        for old in doc.supersedes:
            if old in docs and doc.id not in docs[old].superseded_by:
                found.append(Conflict("one-sided-supersession", [old, doc.id], f"{doc.id} says it supersedes {old}, but {old} does not name it as successor",
                                      [_supersede(old, doc.id), Resolution("repair", "complete both sides", "check --repair")]))
        for new in doc.superseded_by:
            if new in docs and doc.id not in docs[new].supersedes:
                found.append(Conflict("one-sided-supersession", [doc.id, new], f"{doc.id} names {new} as successor, but {new} does not say it supersedes it",
                                      [_supersede(doc.id, new), Resolution("repair", "complete both sides", "check --repair")]))
        if doc.status == Status.SUPERSEDED and not doc.superseded_by:
            found.append(Conflict("superseded-without-successor", [doc.id], f"{doc.id} is superseded but names no successor",
                                  [Resolution("supersede", "name its successor", f"supersede {doc.id} NEW_ID"),
                                   Resolution("repair", "call it deprecated (outdated, not replaced)", "check --repair")]))
        if doc.status == Status.ACTIVE and doc.superseded_by:
            named = [new for new in doc.superseded_by if new in docs]
            found.append(Conflict("active-with-successor", [doc.id] + doc.superseded_by, f"{doc.id} is active but names successors {', '.join(doc.superseded_by)}",
                                  [_supersede(doc.id, new) for new in named] or [Resolution("repair", "no named successor exists: call it deprecated", "check --repair")]))
        existing = sorted(new for new in doc.superseded_by if new in docs)
        if len(doc.superseded_by) > 1:
            a, b = (existing + [None, None])[:2]
            resolutions = [_supersede(a, b), _supersede(b, a), _compatible(a, b)] if a and b else [Resolution("edit", "a named successor does not exist: edit the list by hand", f"show {doc.id}")]
            found.append(Conflict("double-supersession", [doc.id] + sorted(doc.superseded_by), f"{doc.id} is superseded by {len(doc.superseded_by)} documents: {', '.join(sorted(doc.superseded_by))}",
                                  resolutions))
        if doc.status in (Status.ACTIVE, Status.DRAFT):
            for link in doc.links:
                target = docs.get(link.target)
                if link.type != LinkType.SUPERSEDES and target and target.status == Status.SUPERSEDED:
                    current = _current(docs, link.target)
                    if current and current != doc.id:
                        found.append(Conflict("stale-link", [doc.id, link.target], f"{doc.id} links ({link.type}) to {link.target}, which {current} has replaced",
                                              [Resolution("retarget", f"link {current} instead", f"retarget {doc.id} {link.target} {current}")]))
    for cycle in supersession.cycles({d.id: d.supersedes for d in docs.values()}):
        found.append(Conflict("supersession-cycle", cycle, "supersession goes round in a circle: " + " → ".join(cycle + [cycle[0]]),
                              [Resolution("edit", "edit one side of the cycle by hand", f"show {cycle[0]}")]))
    return found


def _related_by_supersession(supersedes: dict[str, list[str]], a: str, b: str) -> bool:
    return supersession.reaches(supersedes, a, b) or supersession.reaches(supersedes, b, a)


BLOCK_PREFIX = 5


def _candidate_pairs(group: list) -> set[tuple[str, str]]:
    """Pairs worth comparing: documents whose titles share a distinctive word start.

    Comparing every pair is quadratic (minutes at 10,000 documents). Documents on one subject
    share a title word or its first letters ("Postgres database", "PostgreSQL DB"), so pairs are
    drawn only from title-word prefixes that few documents carry; a prefix on most titles says
    nothing about the subject.
    """
    blocks: dict[str, list[str]] = {}
    for doc in group:
        for word in set(words(doc.title)):
            blocks.setdefault(word[:BLOCK_PREFIX], []).append(doc.id)
    limit = max(50, int(len(group) ** 0.5) * 2)
    pairs: set[tuple[str, str]] = set()
    for ids in blocks.values():
        if 1 < len(ids) <= limit:
            ordered = sorted(ids)
            pairs.update((a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :])
    return pairs


def _decision_pairs(group: list, profiles: dict[str, Profile], corpus: Corpus) -> set[tuple[str, str]]:
    """Pairs of decisions worth weighing: those whose titles share a word start (as for other
    types), one citing the other, or whose texts share a word that few documents use."""
    pairs = _candidate_pairs(group)
    by_handle: dict[str, list[str]] = {}
    for doc in group:
        for handle in profiles[doc.id].handles:
            by_handle.setdefault(handle, []).append(doc.id)
    rare: dict[str, list[str]] = {}
    for doc in group:
        profile = profiles[doc.id]
        for mention in profile.mentions:
            pairs.update(tuple(sorted((doc.id, other))) for other in by_handle.get(mention, []) if other != doc.id)
        distinctive = sorted(profile.terms, key=lambda t: (-profile.terms[t] * corpus.idf(t) ** 2, t))[:RARE_TERMS]
        for term in distinctive:
            rare.setdefault(term, []).append(doc.id)
    limit = max(8, int(len(group) ** 0.5))
    for ids in rare.values():
        if 1 < len(ids) <= limit:
            ordered = sorted(ids)
            pairs.update((a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:])
    return pairs


def _predecessors(pairs: set[tuple[str, str]], profiles: dict[str, Profile], corpus: Corpus,
                  skip: Callable[[str, str], bool]) -> list[tuple[float, str, str, Likeness]]:
    """For each decision, the earlier decisions it most likely replaces, ranked as the gate ranks
    candidates (`kinship`), and kept when the pair is likely from both sides: (score, older,
    newer, why), most likely first. Pairs a person settled (compatible, or already superseded)
    are skipped."""
    by_newer: dict[str, list[tuple[float, str, str, Likeness]]] = {}
    for a_id, b_id in pairs:
        if skip(a_id, b_id):
            continue
        older, newer = sorted((profiles[a_id], profiles[b_id]), key=lambda p: p.when)
        like = kinship(newer, older, corpus)
        by_newer.setdefault(newer.id, []).append((like.score, older.id, newer.id, like))
    successors: dict[str, list[float]] = {}
    for found in by_newer.values():
        for score, older, _, _ in found:
            successors.setdefault(older, []).append(score)
    chosen = []
    for found in by_newer.values():
        mine = sorted((score for score, *_ in found), reverse=True) + [0.0]
        for item in found:
            theirs = sorted(successors[item[1]], reverse=True) + [0.0]
            # The likeliest predecessors (a decision may replace several at once) when the newer
            # is also among the older's likeliest successors; or, lower, a pair that stands out
            # from every other either side could make.
            likely = item[0] >= LIKELY_KIN and item[0] >= mine[0] - KIN_MARGIN and item[0] >= theirs[0] - KIN_MARGIN
            alone = item[0] >= CLEAR_KIN and item[0] == mine[0] == theirs[0] and item[0] - max(mine[1], theirs[1]) >= CLEAR_GAP
            if likely or alone:
                chosen.append(item)
    return sorted(chosen, key=lambda item: (-item[0], item[1], item[2]))


def _candidates(docs: dict) -> list[Conflict]:
    active = [d for d in docs.values() if d.status == Status.ACTIVE and d.type in CLAIM_TYPES]
    found: list[Conflict] = []
    by_type: dict[str, list] = {}
    for doc in active:
        by_type.setdefault(doc.type, []).append(doc)
    profiles = profiles_of(active)
    corpus = Corpus(profiles.values())  # word rarity among the documents compared
    supersedes = {doc_id: doc.supersedes for doc_id, doc in docs.items()}

    def settled(a_id: str, b_id: str) -> bool:
        a, b = docs[a_id], docs[b_id]
        compatible = b.id in id_list(a.meta.get(COMPATIBLE_KEY)) or a.id in id_list(b.meta.get(COMPATIBLE_KEY))
        return compatible or _related_by_supersession(supersedes, a.id, b.id)

    decisions = by_type.pop(DocType.DECISION, [])
    for rank, (score, older, newer, like) in enumerate(_predecessors(_decision_pairs(decisions, profiles, corpus), profiles, corpus, settled)):
        reason = f"“{docs[newer].title}” may replace “{docs[older].title}” ({round(score * 100)}% likely): " + "; ".join(like.reasons)
        found.append(Conflict("contradiction", [older, newer], reason,
                              [_supersede(older, newer), _supersede(newer, older), _compatible(older, newer)], rank=rank))
    pairs_by_type = {doc_type: _candidate_pairs(group) for doc_type, group in by_type.items()}
    for doc_type, pairs in sorted(pairs_by_type.items()):
        for a_id, b_id in sorted(pairs):
            a, b = docs[a_id], docs[b_id]
            if b.id in id_list(a.meta.get(COMPATIBLE_KEY)) or a.id in id_list(b.meta.get(COMPATIBLE_KEY)):
                continue
            if settled(a_id, b_id):
                continue
            like = likeness(profiles[a.id], profiles[b.id], corpus)
            if like.title < TITLE_ALIKE or not (like.text >= TEXT_ALIKE or len(like.shared_tags) >= 2):
                continue
            what = f"{doc_type} documents that may describe the same thing"
            resolutions = [_supersede(a.id, b.id), _supersede(b.id, a.id),
                           Resolution("merge", f"merge {a.id} into {b.id}", f"merge {a.id} --into {b.id}"),
                           Resolution("merge", f"merge {b.id} into {a.id}", f"merge {b.id} --into {a.id}"),
                           _compatible(a.id, b.id)]
            reason = f"two active {what}: " + "; ".join(like.reasons)
            found.append(Conflict("duplicate", [a.id, b.id], reason, resolutions))
    return found


def find_conflicts(documents: Iterable[Document]) -> Conflicts:
    """Every structural fault and candidate contradiction among the vault's valid documents."""
    docs = {d.id: d for d in documents}
    conflicts = _structural(docs) + _candidates(docs) + _rule_contradictions(list(docs.values()))
    order = {"supersession-cycle": 0, "one-sided-supersession": 1, "active-with-successor": 2, "superseded-without-successor": 3,
             "double-supersession": 4, "contradiction": 5, "rule-contradiction": 5, "duplicate": 6, "stale-link": 7}
    return Conflicts(sorted(conflicts, key=lambda c: (order.get(c.kind, 9), c.rank, c.ids)))


def _rule_contradictions(documents: list[Document]) -> list[Conflict]:
    """Tiered memory: a project rule against the global or domain rule it inherits."""
    by_path = {d.path: d for d in documents}
    found = []
    for rule, other in tiers.rule_conflicts(documents):
        mine, theirs = by_path[rule.path], by_path[other.path]
        reason = (f"{rule.path}:{rule.line} says “{rule.key}: {rule.value}”, and {other.namespace} ({other.path}:{other.line}) "
                  f"says “{other.key}: {other.value}”; a project rule that overrides another says so")
        found.append(Conflict("rule-contradiction", [mine.id, theirs.id], reason, [
            Resolution("edit", f"say the project overrides it: “{rule.key}: {rule.value} (overrides {other.namespace})”", f"show {mine.id}"),
            Resolution("move", "make the project's rule everyone's", f"tier move \"{rule.key}: {rule.value}\" --to hot"),
        ]))
    return found


def plan_compatible(vault: VaultIndex, a_id: str, b_id: str) -> Plan:
    """Record, in both files, that two documents do not contradict each other."""
    if a_id == b_id:
        raise RefusedError("a document is always compatible with itself")
    changes = []
    for this, other in ((a_id, b_id), (b_id, a_id)):
        doc = vault.get(this)
        vault.require_valid(doc)
        current = id_list(doc.meta.get(COMPATIBLE_KEY))
        if other not in current:
            changes.append(vault.edit_change(doc, {**doc.meta, COMPATIBLE_KEY: current + [other]}))
    summary = f"mark {a_id} and {b_id} compatible"
    return Plan(summary, changes, [vault.log_line(summary)] if changes else [])


def plan_retarget(vault: VaultIndex, source_id: str, old_target: str, new_target: str | None = None) -> Plan:
    """Point `source_id`'s links at `old_target` to its successor (or `new_target`) instead."""
    doc = vault.get(source_id)
    vault.require_valid(doc)
    if new_target is None:
        new_target = _current({d.id: d for d in vault.documents}, old_target)
        if new_target is None or new_target == old_target:
            raise RefusedError(f"{old_target} has no successor to retarget to; name the new target")
    if new_target not in vault:
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
    return Plan(summary, [vault.edit_change(doc, {**doc.meta, "links": links})], [vault.log_line(summary)])


def plan_merge_documents(vault: VaultIndex, source_id: str, target_id: str) -> Plan:
    """A duplicate folded into its canonical twin: text and links joined, the source superseded by
    the target, and every link to the source pointed at the target."""
    if source_id == target_id:
        raise RefusedError("a document cannot be merged into itself")
    source, target = vault.get(source_id), vault.get(target_id)
    for doc in (source, target):
        vault.require_valid(doc)
    if DocType.DECISION in (source.type, target.type):
        raise RefusedError("decisions are never merged; one supersedes the other: use supersede OLD NEW")
    if target.status not in (Status.ACTIVE, Status.DRAFT):
        raise RefusedError(f"{target_id} is {target.status}; merge into an active document")
    heading = f"## {dt.date.today().isoformat()}: merged from {source.title} ([[{source_id}]])"
    body = join_section(target.body, heading, source.body)
    carried = [(l.type, l.target) for l in source.links if l.target not in (target_id, source_id) and l.type != LinkType.SUPERSEDES]
    links = unite_links(target.meta.get("links"), [*carried, (LinkType.SUPERSEDES.value, source_id)])
    target_meta = {**target.meta, "tags": unite_tags(target.tags, source.tags), "links": links,
                   "supersedes": target.supersedes + ([source_id] if source_id not in target.supersedes else [])}
    source_meta = {**source.meta, "status": Status.SUPERSEDED.value,
                   "superseded_by": source.superseded_by + ([target_id] if target_id not in source.superseded_by else [])}
    changes = [vault.edit_change(target, target_meta, body), vault.edit_change(source, source_meta)]
    for other in vault.documents:
        if other.id in (source_id, target_id) or not any(l.target == source_id and l.type != LinkType.SUPERSEDES for l in other.links):
            continue
        changes.append(plan_retarget(vault, other.id, source_id, target_id).changes[0])
    summary = f"merge {source_id} into {target_id}"
    return Plan(summary, changes, [vault.log_line(summary)])
