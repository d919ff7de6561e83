"""Contradictions: structural faults in supersession, and documents that may claim opposite things.

Structural faults are certain (the files say so). Candidate contradictions are not. For decisions:
a newer decision that may replace an older one, whether the older is active, deprecated or
superseded without a named successor, and a draft that would replace an active decision; weighed by
what a person reads (citations, the subject, how alike the texts are both ways) with thresholds
chosen on public collections and measured on others left out. For other types: two active
documents with a similar title *and* shared substance. Pairs a person has marked compatible
(`compatible_with`, kept in the files so it travels with the vault through git) are never listed
again. Each conflict comes with the resolutions the vault's format can write, as commands.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..vocabulary import presenting, supersession
from . import tiers
from ..records.store_rows import COMPATIBLE_KEY, marked_compatible, relations_of
from ..vocabulary.model import DocType, Document, LinkType, Status
from ..views.successors import likeliest_successors
from ..views.similarity import Bm25, Corpus, Likeness, kinship, likeness, profiles_of, title_likeness, words

__all__ = [
    "Conflict",
    "Conflicts",
    "KeptConflict",
    "Resolution",
    "Settings",
    "Weighed",
    "DEFAULT",
    "SETTINGS_TRIED",
    "choose",
    "live_end",
    "review_order",
    "weigh_for_review",
    "weigh_decisions",
    "find_conflicts",
    "COMPATIBLE_KEY",
    "paired_decisions",
    "pairs_to_weigh",
    "pair_to_list",
    "weigh_pair",
    "duplicate",
    "duplicate_listed",
    "decision_conflict",
    "listed",
    "offered",
    "order_of",
    "claim_pairs",
    "queue_parts",
    "structural_facts",
]

CLAIM_TYPES = (DocType.DECISION, DocType.ENTITY, DocType.CONTEXT, DocType.CONCEPT)
TITLE_ALIKE = 0.6
TEXT_ALIKE = 0.25


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
        return {
            "kind": self.kind,
            "ids": self.ids,
            "reason": self.reason,
            "resolutions": [r.to_json() for r in self.resolutions],
        }

    def _repr_html_(self) -> str | None:
        return presenting.render("conflicts_html", [self])


class KeptConflict(Conflict):
    """A decision pair's entry as the queue kept it (`kept_conflicts`): its kind, ids and rank at
    hand, its text as `encode` gave it (but its rank) and as `printed` printed it; its reason and
    resolutions read from that text when first asked (printing the queue never asks them)."""

    def __init__(self, kind: str, ids: list[str], rank: int, encoded: str, shown: str):
        self.kind, self.ids, self.rank = kind, ids, rank
        self.encoded, self.shown = encoded, shown

    def __getattr__(self, name: str) -> Any:
        if name not in ("reason", "resolutions"):
            raise AttributeError(name)
        _, _, reason, resolutions = json.loads(self.encoded + "]")
        self.reason = str(reason)
        self.resolutions = [Resolution(*map(str, r)) for r in resolutions]
        return getattr(self, name)

    def plain(self) -> Conflict:
        """The same conflict as a `Conflict` (equal to the one worded again)."""
        return Conflict(self.kind, list(self.ids), self.reason, list(self.resolutions), self.rank)


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


def live_end(docs: dict) -> Callable[[str], str | None]:
    """The document that finally replaces one, as Problems and the graph name it
    (`supersession.live_end`): a stale link is pointed where every view says it should go."""
    superseded_by = {doc_id: doc.superseded_by for doc_id, doc in docs.items()}
    status = {doc_id: str(doc.status) for doc_id, doc in docs.items()}
    return lambda doc_id: supersession.live_end(superseded_by, status, doc_id)


def _structural(
    docs: dict,
    compatible: frozenset,
    supersedes: dict[str, list[str]],
    related: dict[str, tuple] | None = None,
    successors_of: Callable[..., dict] | None = None,
    native: bool = True,
    faults_of: Callable[[bytes, Callable[[], list[Conflict]]], list[Conflict]] | None = None,
) -> list[Conflict]:
    """The structural faults, in the order of `docs` (but those of a record superseded without a
    successor, which come last), with no resolution that repairs where the format is not `native`.
    `related`: each document's `store_rows.relations_of`, where the caller read them already;
    `successors_of(docs, lacking, compatible, related)`: `likeliest_successors` as a caller keeping
    it between calls answers it; `faults_of(facts, work)`: the faults but those, as a caller keeping
    them between calls answers them, `facts` being all they are worked out from (`structural_facts`)
    and `work()` working them out."""
    # Each document's fields read once, as its row keeps them: a stored document decodes them again
    # at every reading, and makes a list (or a `Link`) of each at every one.
    if related is None:
        related = {doc_id: relations_of(doc) for doc_id, doc in docs.items()}
    statuses = {doc_id: str(doc.status) for doc_id, doc in docs.items()}
    lacking = [doc_id for doc_id, status in statuses.items() if status == Status.SUPERSEDED and not related[doc_id][1]]
    # Only a decision is offered successors (`likeliest_successors`), which profiles every decision.
    offered = any(docs[doc_id].type == DocType.DECISION for doc_id in lacking)
    successors = {}
    if offered and successors_of is not None:
        successors = successors_of(docs, lacking, compatible, related)
    elif offered:
        successors = likeliest_successors(docs.values(), lacking, dismissed=compatible)

    def work() -> list[Conflict]:
        return _repairing(_settled_faults(docs, supersedes, related, statuses), native)

    found = work() if faults_of is None else faults_of(structural_facts(statuses, related, native), work)
    return found + _repairing([_without_successor(doc_id, successors.get(doc_id, [])) for doc_id in lacking], native)


_FACTS = json.JSONEncoder(ensure_ascii=False, check_circular=False, separators=(",", ":"))


def structural_facts(statuses: Mapping[str, str], related: Mapping[str, tuple], native: bool) -> bytes:
    """Everything the structural faults but the likeliest successors are worked out from, in one
    text: each document's id and status in the documents' order, the supersessions both ways and
    the links as (type, target) of those that name any, and whether the format is `native`. Two
    vaults giving the same text have the same faults (a body, a title, a path or a tag is read by
    none). Made with no call for each document: the ids and the statuses joined by line breaks
    (their repr where one holds a break), the relations as JSON (marshal's bytes hang on which
    strings are one object: two processes made two texts of the same facts)."""
    ids, states = "\n".join(statuses), "\n".join(statuses.values())
    if not statuses or ids.count("\n") != len(statuses) - 1 or states.count("\n") != len(statuses) - 1:
        ids, states = repr(list(statuses)), repr(list(statuses.values()))
    named = {doc_id: relations for doc_id, relations in related.items() if relations[0] or relations[1] or relations[2]}
    try:
        relations = _FACTS.encode([native, named])
    except (TypeError, ValueError):  # a value JSON does not write: its repr instead
        relations = repr([native, list(named.items())])
    text = f"{len(ids)}\n{ids}\n{len(states)}\n{states}\n{relations}"
    return text.encode("utf-8", "surrogatepass")


def _repairing(found: list[Conflict], native: bool) -> list[Conflict]:
    """The faults with no resolution that repairs where the format is not `native`: there a
    decision pair's resolutions never repair either (`decision_conflict`)."""
    if not native:
        for conflict in found:
            conflict.resolutions = [r for r in conflict.resolutions if r.action != "repair"]
    return found


def _without_successor(doc_id: str, likeliest: list) -> Conflict:
    """A record superseded that names no successor, with its likeliest (`likeliest_successors`)."""
    return Conflict(
        "superseded-without-successor",
        [doc_id],
        f"{doc_id} is superseded but names no successor"
        + "".join(f"; {s.id} “{s.title}” may be it: {s.why}" for s in likeliest[:1]),
        [_supersede(doc_id, s.id) for s in likeliest]
        + [
            Resolution("supersede", "name another successor", f"supersede {doc_id} NEW_ID"),
            Resolution("repair", "call it deprecated (outdated, not replaced)", "check --repair"),
        ],
    )


def _settled_faults(
    docs: dict, supersedes: dict[str, list[str]], related: dict[str, tuple], statuses: dict[str, str]
) -> list[Conflict]:
    """The structural faults that `structural_facts` settles (every one but a record's superseded
    without a successor), in the order of `docs`."""
    found: list[Conflict] = []
    superseded_by = {doc_id: relations[1] for doc_id, relations in related.items()}

    def current_of(doc_id: str) -> str | None:
        return supersession.live_end(superseded_by, statuses, doc_id)

    replaced = any(status == Status.SUPERSEDED for status in statuses.values())  # a link may go stale
    for doc_id, (olds, successors_named, links) in related.items():
        status = statuses[doc_id]
        # Most documents name no relation: nothing below finds a fault in them.
        if not (olds or successors_named or links):
            continue
        for old in olds:
            if old in docs and doc_id not in superseded_by[old]:
                found.append(
                    Conflict(
                        "one-sided-supersession",
                        [old, doc_id],
                        f"{doc_id} says it supersedes {old}, but {old} does not name it as successor",
                        [_supersede(old, doc_id), Resolution("repair", "complete both sides", "check --repair")],
                    )
                )
        for new in successors_named:
            if new in docs and doc_id not in supersedes[new]:
                found.append(
                    Conflict(
                        "one-sided-supersession",
                        [doc_id, new],
                        f"{doc_id} names {new} as successor, but {new} does not say it supersedes it",
                        [_supersede(doc_id, new), Resolution("repair", "complete both sides", "check --repair")],
                    )
                )
        if status == Status.ACTIVE and successors_named:
            named = [new for new in successors_named if new in docs]
            found.append(
                Conflict(
                    "active-with-successor",
                    [doc_id, *successors_named],
                    f"{doc_id} is active but names successors {', '.join(successors_named)}",
                    [_supersede(doc_id, new) for new in named]
                    or [Resolution("repair", "no named successor exists: call it deprecated", "check --repair")],
                )
            )
        if len(successors_named) > 1:
            existing = sorted(new for new in successors_named if new in docs)
            chained = len(existing) == len(successors_named) and all(
                _related_by_supersession(supersedes, a, b) for i, a in enumerate(existing) for b in existing[i + 1 :]
            )  # replaced by one, which another replaced since: the record names the whole chain
            if not chained:
                a, b = (existing + [None, None])[:2]
                resolutions = (
                    [_supersede(a, b), _supersede(b, a), _compatible(a, b)]
                    if a and b
                    else [
                        Resolution("edit", "a named successor does not exist: edit the list by hand", f"show {doc_id}")
                    ]
                )
                found.append(
                    Conflict(
                        "double-supersession",
                        [doc_id, *sorted(successors_named)],
                        f"{doc_id} is superseded by {len(successors_named)} documents: {', '.join(sorted(successors_named))}",
                        resolutions,
                    )
                )
        if replaced and status in (Status.ACTIVE, Status.DRAFT):
            for link_type, target in links:
                if link_type != LinkType.SUPERSEDES and statuses.get(target) == Status.SUPERSEDED:
                    current = current_of(target)
                    if current and current != doc_id:
                        found.append(
                            Conflict(
                                "stale-link",
                                [doc_id, target],
                                f"{doc_id} links ({link_type}) to {target}, which {current} has replaced",
                                [
                                    Resolution(
                                        "retarget", f"link {current} instead", f"retarget {doc_id} {target} {current}"
                                    )
                                ],
                            )
                        )
    # Only a document that supersedes another can be on a cycle: the walk is given those alone.
    for cycle in supersession.cycles({doc_id: old for doc_id, old in supersedes.items() if old}):
        found.append(
            Conflict(
                "supersession-cycle",
                cycle,
                "supersession goes round in a circle: " + " → ".join(cycle + [cycle[0]]),
                [Resolution("edit", "edit one side of the cycle by hand", f"show {cycle[0]}")],
            )
        )
    return found


def _related_by_supersession(supersedes: Mapping[str, list[str]], a: str, b: str) -> bool:
    if not (supersedes.get(a) or supersedes.get(b)):  # most pairs: neither supersedes anything
        return a == b
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


@dataclass(frozen=True)
class Settings:
    """The queue's thresholds for pairs of decisions, chosen on some collections and measured on
    others (`tests/benchmarks/bench_conflicts.py` leaves each collection out in turn)."""

    least: float  # the score a pair needs when one of the two is the other's likeliest
    mutual_least: float  # the score a pair needs when each is the other's likeliest
    bm25_weight: float  # how much how alike the two texts are by BM25 counts beside `kinship`
    builds_on_penalty: float = 0.0  # taken off a pair where one says it requires, extends or amends the other
    review_weight: float = 0.25  # BM25 likeness beside `kinship` in the review list's order (`review_order`)


# Chosen on the nine public collections (bench_conflicts prints it); the review list's weight too,
# for the most true pairs within one pair per two decisions (0.2-0.3 found as many).
DEFAULT = Settings(0.85, 0.8, 0.5)


SETTINGS_TRIED: list[Settings]  # the settings `bench_conflicts` tries, made when first asked (`__getattr__`)


def _settings_tried() -> list[Settings]:
    return [
        Settings(least / 100, mutual / 100, weight, penalty)
        for least in range(60, 160, 5)
        for mutual in range(40, 125, 5)
        if mutual <= least
        for weight in (0.5, 0.75, 1.0)
        for penalty in (0.0, 0.3, 1.0)
    ]


def __getattr__(name: str) -> Any:
    """`SETTINGS_TRIED`, the settings `bench_conflicts` tries: its 2,358 made when first asked,
    not in every process that imports the queue (a few milliseconds of each)."""
    if name == "SETTINGS_TRIED":
        found = globals()["SETTINGS_TRIED"] = _settings_tried()
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


PAIRED = (Status.ACTIVE, Status.DRAFT, Status.DEPRECATED, Status.SUPERSEDED, Status.ARCHIVED)
LIVE = (Status.ACTIVE, Status.DRAFT)
BUILDS_ON = (LinkType.DEPENDS_ON, LinkType.DERIVED_FROM)
NEIGHBOURS = 1  # the queue weighs each decision against its likeliest match (see weigh_decisions)
REVIEW_NEIGHBOURS = 3  # the review list, against its three most alike (`weigh_for_review`)


@dataclass
class Weighed:
    """A pair of decisions, the older first, with what says the newer may replace the older."""

    older: str
    newer: str
    alike: float  # how alike by BM25, each one's score relative to its best match, averaged both ways (0..1)
    mutual: bool  # each is the other's likeliest
    best: bool  # one of them is the other's likeliest, or the newer cites the older
    like: Likeness  # kinship: citations, subject, title, tags, texts
    builds_on: bool = False  # one says it requires, extends or amends the other: it stands beside it

    def score(self, settings: Settings) -> float:
        return self.like.score + settings.bm25_weight * self.alike - settings.builds_on_penalty * self.builds_on

    def review_score(self, settings: Settings) -> float:
        """Where the pair stands in the review list: the same signals, words weighing less beside
        what a person reads (citations, the subject, the texts), since the list reaches far past
        the pairs whose words make them each other's likeliest."""
        return self.like.score + settings.review_weight * self.alike


def weigh_decisions(
    documents: Iterable[Document], compatible: frozenset = frozenset(), neighbours: int = NEIGHBOURS
) -> list[Weighed]:
    """Every pair of decisions worth a curator's look, weighed but not yet chosen.

    Not only two active decisions: a deprecated or withdrawn decision, or a superseded one that
    names no successor, is weighed against the live decisions that may have replaced it, and a
    draft against the active decisions it would replace. How alike two records are is asked both ways
    (BM25 on each one's distinctive words, relative to its best match), so a pair stands out
    where each is the other's likeliest even when neither cites the other.

    Each decision is weighed against its `neighbours` most alike by BM25: the likeliest alone for
    the queue, which lists only pairs where one is the other's likeliest (or cites it); more for a
    reader working further down the scored pairs (`weigh_for_review`), who finds there the successor
    that is second or third most alike."""
    docs = {d.id: d for d in documents}
    decisions = paired_decisions(docs)
    if len(decisions) < 2:
        return []
    profiles = profiles_of(decisions)
    corpus = Corpus(profiles.values())
    bm25 = Bm25(profiles.values())
    asked = {doc_id: bm25.query_terms(profile.terms, Bm25.QUERY_TERMS) for doc_id, profile in profiles.items()}
    # Each decision's likeliest match, by BM25, whatever the dates say (a record may carry an
    # older one's date forward): only a pair where one is the other's likeliest, or the newer
    # cites the older, can be listed.
    top: dict[str, tuple[float, str]] = {}
    near: dict[str, list[str]] = {}
    for doc_id, terms in asked.items():
        if neighbours > 1:
            few = bm25.likeliest_few(terms, neighbours, other_than=doc_id)
            if few:
                top[doc_id] = few[0]
                near[doc_id] = [other for _, other in few[1:]]
            continue
        found = bm25.likeliest(terms, other_than=doc_id)
        if found is not None:
            top[doc_id] = found
    supersedes = {doc_id: doc.supersedes for doc_id, doc in docs.items()}
    weighed = []
    handles = {doc_id: profile.handles for doc_id, profile in profiles.items()}
    mentions = {doc_id: profile.mentions for doc_id, profile in profiles.items()}
    when = {doc_id: profile.when for doc_id, profile in profiles.items()}
    for older, newer in pairs_to_weigh(handles, mentions, when, top, near):
        pair = weigh_pair(docs, supersedes, compatible, profiles, corpus, bm25, asked, top, older, newer)
        if pair is not None:
            weighed.append(pair)
    return weighed


def paired_decisions(docs: dict[str, Document], deciding: list[Document] | None = None) -> list[Document]:
    """The decisions `weigh_decisions` pairs: any but one superseded by a decision that exists.
    `deciding`: the decisions of `docs` whose status is in PAIRED, where the caller has them."""
    if deciding is None:
        deciding = [d for d in docs.values() if d.type == DocType.DECISION and d.status in PAIRED]
    return [d for d in deciding if not (d.status == Status.SUPERSEDED and any(new in docs for new in d.superseded_by))]


def pairs_to_weigh(
    handles: Mapping[str, Iterable[str]],
    mentions: Mapping[str, Iterable[str]],
    when: dict[str, tuple],
    top: dict[str, tuple[float, str]],
    near: Mapping[str, Iterable[str]] | None = None,
) -> set[tuple[str, str]]:
    """Each decision with its likeliest match, with the next most alike where `near` names them
    (the review list's neighbours), and with each decision it cites, the older first by
    `Profile.when` (each decision's `handles`, `mentions` and `when`, as its profile has them)."""
    by_handle: dict[str, list[str]] = {}
    for doc_id, held in handles.items():
        for handle in held:
            by_handle.setdefault(handle, []).append(doc_id)
    pairs: set[tuple[str, str]] = set()
    for doc_id in handles:
        if doc_id in top:
            pairs.add(_older_first(when, doc_id, top[doc_id][1]))
        if near:
            pairs.update(_older_first(when, doc_id, other) for other in near.get(doc_id, ()))
        for mention in mentions[doc_id]:
            pairs.update(_older_first(when, doc_id, other) for other in by_handle.get(mention, ()) if other != doc_id)
    return pairs


def _older_first(when: dict, a: str, b: str) -> tuple[str, str]:
    return (a, b) if when[a] < when[b] else (b, a)


def weigh_pair(
    docs: dict[str, Document],
    supersedes: Mapping[str, list[str]],
    compatible: frozenset,
    profiles: Any,
    corpus: Corpus,
    bm25: Any,
    asked: dict[str, list[str]],
    top: dict[str, tuple[float, str]],
    older: str,
    newer: str,
) -> Weighed | None:
    """One pair weighed, or None where it is settled or the newer cannot replace the older.
    `profiles` maps an id to its profile; `bm25` scores as `Bm25` does (`score`)."""
    oriented = pair_to_list(docs, supersedes, compatible, older, newer)
    if oriented is None:
        return None
    older, newer = oriented
    forward, backward = bm25.score(asked[newer], older), bm25.score(asked[older], newer)
    top_forward, best_forward = top.get(newer, (0.0, ""))
    top_backward, best_backward = top.get(older, (0.0, ""))
    alike = ((forward / top_forward if top_forward else 0.0) + (backward / top_backward if top_backward else 0.0)) / 2
    first_forward, first_backward = best_forward == older, best_backward == newer
    like = kinship(profiles[newer], profiles[older], corpus)
    cites = bool(profiles[newer].mentions & profiles[older].handles)
    builds_on = any(l.target == older and l.type in BUILDS_ON for l in docs[newer].links) or any(
        l.target == newer and l.type in BUILDS_ON for l in docs[older].links
    )
    return Weighed(
        older,
        newer,
        alike,
        first_forward and first_backward,
        first_forward or first_backward or cites,
        like,
        builds_on,
    )


def pair_to_list(
    docs: dict[str, Document], supersedes: Mapping[str, list[str]], compatible: frozenset, older: str, newer: str
) -> tuple[str, str] | None:
    """(older, newer) as the statuses say which may replace which, or None where the pair is
    settled or neither can replace the other."""
    if docs[newer].status not in LIVE and docs[older].status in LIVE:
        older, newer = newer, older  # the status says which replaced which, whatever the dates
    if _settled(docs, supersedes, older, newer, compatible) or not _may_replace(docs[newer]):
        return None
    return older, newer


def _settled(docs: dict, supersedes: Mapping[str, list[str]], a_id: str, b_id: str, compatible: frozenset) -> bool:
    """A pair a person has settled: marked compatible (in the files, or in the vault's settings
    where its format has no field for it), or one already replacing the other."""
    # Asked of every pair kept or listed at every call after a change: the cheapest test first,
    # and no set made for an empty `compatible`.
    if compatible and frozenset((a_id, b_id)) in compatible:
        return True
    if b_id in marked_compatible(docs[a_id]) or a_id in marked_compatible(docs[b_id]):
        return True
    return _related_by_supersession(supersedes, a_id, b_id)


def _may_replace(newer: Document) -> bool:
    """Whether the newer decision's status lets it replace the older: a live decision (active, or
    a draft on its way) replacing one that is live, deprecated or superseded without successor. Two
    drafts on one subject count too: a curator settles which one goes ahead before either does."""
    return newer.status in (Status.ACTIVE, Status.DRAFT)


def decision_conflict(docs: dict, pair: Weighed, rank: int, named: dict[str, str] | None = None) -> Conflict:
    """The queue's entry for a pair: its kind and reason in the words of the two records (their
    titles and statuses as they state them), and the resolutions the vault can write. `named`:
    each record's words as worked out for the call's other pairs (a record is in several: at
    10,000 decision records 24,230 pairs named 48,460 times)."""
    older, newer = docs[pair.older], docs[pair.newer]
    why = "; ".join(pair.like.reasons) or f"their texts are alike ({round(pair.alike * 100)}%)"
    if pair.like.reasons and pair.alike >= 0.5:
        why += f"; each is among the other's most alike ({round(pair.alike * 100)}%)"
    words = {} if named is None else named

    def said(doc: Document) -> str:
        found = words.get(doc.id)
        if found is None:
            stated = doc.view.stated_status if doc.view is not None and doc.view.stated_status else doc.status
            found = words[doc.id] = f"“{doc.title}” ({stated})"
        return found

    if older.status in (Status.DEPRECATED, Status.SUPERSEDED):
        kind = "successor-missing"
        reason = f"{said(older)} names no successor; {said(newer)} may be it: {why}"
    elif newer.status == Status.DRAFT:
        kind = "draft-replaces"
        reason = f"the draft {said(newer)} may replace {said(older)}: {why}"
    else:
        kind = "contradiction"
        reason = f"{said(newer)} may replace {said(older)}: {why}"
    resolutions = [_supersede(older.id, newer.id)]
    if kind == "contradiction":
        resolutions.append(_supersede(newer.id, older.id))
    if kind == "successor-missing":  # the older one stays as it is either way: "both stay active" would not be so
        resolutions.append(
            Resolution("compatible", f"{newer.id} did not replace {older.id}", f"compatible {older.id} {newer.id}")
        )
    else:
        resolutions.append(_compatible(older.id, newer.id))
    return Conflict(kind, [older.id, newer.id], reason, resolutions, rank=rank)


def choose(weighed: list[Weighed], settings: Settings = DEFAULT) -> list[Weighed]:
    """The pairs the queue lists, likeliest first."""
    kept = [w for w in weighed if listed(w, settings)]
    return sorted(kept, key=lambda w: (-w.score(settings), w.older, w.newer))


def listed(w: Weighed, settings: Settings = DEFAULT) -> bool:
    """Whether `choose` lists the pair: one is the other's likeliest (or the newer cites the older)
    and it scores past its threshold."""
    return w.best and w.score(settings) >= (settings.mutual_least if w.mutual else settings.least)


def offered(docs: Mapping[str, Document], w: Weighed) -> bool:
    """Whether a pair `choose` lists gets an entry of its own: not where the older is superseded
    (its likeliest successors are offered with its structural fault)."""
    return docs[w.older].status != Status.SUPERSEDED


def review_order(weighed: list[Weighed], settings: Settings = DEFAULT) -> list[Weighed]:
    """Every weighed pair, likeliest first, with no threshold: the order in which a reader (an
    agent, or a person past the queue) is offered the pairs the queue does not list."""
    return sorted(weighed, key=lambda w: (-w.review_score(settings), w.older, w.newer))


def weigh_for_review(
    documents: Iterable[Document], compatible: frozenset = frozenset(), settings: Settings = DEFAULT
) -> list[Weighed]:
    """The review list's pairs, best first, before any depth: each decision weighed against its
    REVIEW_NEIGHBOURS most alike (the queue weighs only the likeliest: half as much time again at 10,000
    documents, for pairs it would never list), in `review_order`."""
    return review_order(weigh_decisions(documents, compatible, neighbours=REVIEW_NEIGHBOURS), settings)


def _candidates(
    docs: dict,
    compatible: frozenset,
    supersedes: dict[str, list[str]],
    weighed: list[Weighed] | None = None,
    duplicates: Any = None,
) -> tuple[list[Conflict], list[tuple[str, str, str]]]:
    """The decision pairs chosen among `weighed` (worked out here when None), and the duplicates
    `duplicates(docs, pairs_by_type, settled)` lists as (a, b, reason) (those of `_duplicates_among`
    when None); `pairs_by_type` is a function giving the pairs to compare, asked only when needed."""

    def settled(a_id: str, b_id: str) -> bool:
        return _settled(docs, supersedes, a_id, b_id, compatible)

    chosen = choose(weigh_decisions(docs.values(), compatible) if weighed is None else weighed)
    named: dict[str, str] = {}
    pairs = [p for p in chosen if offered(docs, p)]
    found = [decision_conflict(docs, pair, rank, named) for rank, pair in enumerate(pairs)]
    return found, (duplicates or _duplicates_among)(docs, lambda: claim_pairs(docs), settled)


def claim_pairs(docs: dict) -> dict[str, set[tuple[str, str]]]:
    """The pairs of active documents compared as possible duplicates, by type."""
    return {doc_type: _candidate_pairs(group) for doc_type, group in _claims_by_type(docs).items()}


def _claims_by_type(docs: dict) -> dict[str, list[Document]]:
    """The active documents a duplicate is looked for among, by type (decisions are weighed apart)."""
    by_type: dict[str, list] = {}
    for doc in docs.values():
        if doc.status == Status.ACTIVE and doc.type in CLAIM_TYPES and doc.type != DocType.DECISION:
            by_type.setdefault(doc.type, []).append(doc)
    return by_type


def _claims_corpus(docs: dict) -> Corpus:
    """Word rarity among the documents compared for duplicates: every active claim, decisions too."""
    active = [d for d in docs.values() if d.status == Status.ACTIVE and d.type in CLAIM_TYPES]
    return Corpus(profiles_of(active).values())


def _duplicates_among(
    docs: dict, pairs_by_type: Callable[[], dict], settled: Callable[[str, str], bool]
) -> list[tuple[str, str, str]]:
    corpus = _claims_corpus(docs)
    found: list[tuple[str, str, str]] = []
    for doc_type, pairs in sorted(pairs_by_type().items()):
        for a_id, b_id in sorted(pairs):
            if settled(a_id, b_id):
                continue
            conflict = duplicate(doc_type, docs[a_id], docs[b_id], corpus)
            if conflict is not None:
                found.append((a_id, b_id, conflict.reason))
    return found


def duplicate(doc_type: str, a: Document, b: Document, corpus: Corpus) -> Conflict | None:
    """Two active documents of a type listed as duplicates, or None where they differ."""
    profiles = profiles_of((a, b))
    title = title_likeness(profiles[a.id], profiles[b.id])  # most pairs part here, before their texts are weighed
    if title < TITLE_ALIKE:
        return None
    like = likeness(profiles[a.id], profiles[b.id], corpus, title)
    if not (like.text >= TEXT_ALIKE or len(like.shared_tags) >= 2):
        return None
    what = f"{doc_type} documents that may describe the same thing"
    reason = f"two active {what}: " + "; ".join(like.reasons)
    return duplicate_listed(a.id, b.id, reason)


def duplicate_listed(a: str, b: str, reason: str) -> Conflict:
    """The queue's entry for two documents that may be duplicates, with the resolutions."""
    resolutions = [
        _supersede(a, b),
        _supersede(b, a),
        Resolution("merge", f"merge {a} into {b}", f"merge {a} --into {b}"),
        Resolution("merge", f"merge {b} into {a}", f"merge {b} --into {a}"),
        _compatible(a, b),
    ]
    return Conflict("duplicate", [a, b], reason, resolutions)


def find_conflicts(
    documents: Iterable[Document],
    native: bool = True,
    compatible: frozenset = frozenset(),
    weighed: list[Weighed] | None = None,
    duplicates: Any = None,
) -> Conflicts:
    """Every structural fault and candidate contradiction among the vault's valid documents,
    but the pairs the vault's settings call `compatible`.

    `native` is False for a vault kept in another format (ADR records, Dendron notes): there the
    workbench writes supersession into the records themselves, and "compatible" into the vault's
    settings (`vaultconfig`), but not `check --repair`'s completion of both sides. `weighed` and
    `duplicates` stand in for the decision pairs' weighing and the duplicates' search, when a
    caller keeps them between calls (`weighing`)."""
    before, listed, after = queue_parts(documents, native, compatible, weighed, duplicates)
    return Conflicts(before + [duplicate_listed(*found) for found in listed] + after)


_ORDER = {
    "supersession-cycle": 0,
    "one-sided-supersession": 1,
    "active-with-successor": 2,
    "superseded-without-successor": 3,
    "double-supersession": 4,
    "contradiction": 5,
    "successor-missing": 5,
    "draft-replaces": 5,
    "rule-contradiction": 5,
    "duplicate": 6,
    "stale-link": 7,
}
DUPLICATES_ORDER = _ORDER["duplicate"]
DECISIONS_ORDER = _ORDER["contradiction"]  # the decision pairs', and the rule contradictions'


def order_of(conflict: Conflict) -> int:
    """Where a conflict's kind stands in the queue (the queue is ordered by it, then rank and ids)."""
    return _ORDER.get(conflict.kind, 9)


def queue_parts(
    documents: Iterable[Document],
    native: bool = True,
    compatible: frozenset = frozenset(),
    weighed: list[Weighed] | None = None,
    duplicates: Any = None,
    successors_of: Callable[..., dict] | None = None,
    faults_of: Callable[[bytes, Callable[[], list[Conflict]]], list[Conflict]] | None = None,
) -> tuple[list[Conflict], list[tuple[str, str, str]], list[Conflict]]:
    """The queue `find_conflicts` lists, in three parts in its order: what comes before the
    duplicates, the duplicates as (a, b, reason) ordered by their ids, and what comes after them.
    A caller that keeps the queue between calls keeps the duplicates (most of a large vault's
    queue) apart, as they stand still while decisions change, and may answer the likeliest
    successors from what it kept (`successors_of`, as `_structural` asks it), and the structural
    faults that stand while the facts they read do (`faults_of`, as `_structural` asks it); one that keeps the
    decision pairs' entries apart (`kept_chosen`) gives `weighed=[]` and puts them in itself, after
    the faults of their order (`DECISIONS_ORDER`), the first among the rule contradictions."""
    docs = {d.id: d for d in documents}
    related = {doc_id: relations_of(doc) for doc_id, doc in docs.items()}
    supersedes = {doc_id: relations[0] for doc_id, relations in related.items()}
    chosen, listed = _candidates(docs, compatible, supersedes, weighed, duplicates)
    structural = _structural(docs, compatible, supersedes, related, successors_of, native, faults_of)
    rules = _repairing(_rule_contradictions(list(docs.values())), native)
    conflicts = structural + chosen + rules
    ordered = sorted(conflicts, key=lambda c: (order_of(c), c.rank, c.ids))
    before = [c for c in ordered if order_of(c) < DUPLICATES_ORDER]
    after = [c for c in ordered if order_of(c) > DUPLICATES_ORDER]
    return before, sorted(listed, key=lambda found: (found[0], found[1])), after


def _rule_contradictions(documents: list[Document]) -> list[Conflict]:
    """Tiered memory: a project rule against the global or domain rule it inherits."""
    contradicting = tiers.rule_conflicts(documents)
    if not contradicting:  # most vaults hold no tiers: no map of every document's path made
        return []
    by_path = {d.path: d for d in documents}
    found = []
    for rule, other in contradicting:
        mine, theirs = by_path[rule.path], by_path[other.path]
        reason = (
            f"{rule.path}:{rule.line} says “{rule.key}: {rule.value}”, and {other.namespace} ({other.path}:{other.line}) "
            f"says “{other.key}: {other.value}”; a project rule that overrides another says so"
        )
        found.append(
            Conflict(
                "rule-contradiction",
                [mine.id, theirs.id],
                reason,
                [
                    Resolution(
                        "edit",
                        f"say the project overrides it: “{rule.key}: {rule.value} (overrides {other.namespace})”",
                        f"show {mine.id}",
                    ),
                    Resolution(
                        "move", "make the project's rule everyone's", f'tier move "{rule.key}: {rule.value}" --to hot'
                    ),
                ],
            )
        )
    return found
