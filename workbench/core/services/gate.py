"""The write gate (SPEC §1): before new knowledge becomes a new document, look for its canonical home.

`candidates` ranks 1-3 existing canonical documents (entity, context, concept; and, for a new
decision, the active decisions it may replace), each with the reasons a person can judge. Then the
person chooses: `plan_merge` joins the text to a canonical document, `plan_create` writes a new
document linked into the graph, `plan_create_superseding` writes a new decision replacing an old one.
Nothing here decides for the person, and each choice is a `Plan` shown before it is written.
"""

from __future__ import annotations

import datetime as dt
import heapq
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..storage.changes import Plan, log_line
from ..index import VaultIndex
from ..vocabulary.model import TYPE_FOLDERS, DocType, Document, LinkType, RefusedError, Status, member
from ..editing.edits import join_section, slugify, unite_links, unite_tags
from ..views.similarity import Bm25, Corpus, Profile, bm25_of, corpus_of, kinship, likeness, profiles_of, term_counts
from ..storage.writer import FileChange
from ..editing.yamledit import render_frontmatter

__all__ = [
    "Draft",
    "Candidate",
    "Weights",
    "WEIGHTS",
    "WEIGHTS_TRIED",
    "candidates",
    "Shortlist",
    "fts_shortlist",
    "plan_merge",
    "plan_create",
    "plan_create_superseding",
    "new_id_for",
    "CANONICAL_TYPES",
]

CANONICAL_TYPES = frozenset({DocType.ENTITY, DocType.CONTEXT, DocType.CONCEPT})
MIN_SCORE = 0.12
CANONICAL_PREFERENCE = 0.05
LIKELY_PREDECESSOR = 0.2  # a decision at least this akin to a new one is offered before any merge
LINKED = 0.15  # what the draft linking to a document adds
SHORTLIST_FROM = 2000  # a vault with fewer documents to weigh has every one weighed
SHORTLIST_WORDS = 12  # the draft's most distinctive words asked of the full-text index
SHORTLIST_SIZE = 200  # documents the full-text index offers
SHORTLIST_DECISIONS = 40  # decisions most alike by BM25, weighed beside them
BUILDS_ON = (LinkType.DEPENDS_ON, LinkType.DERIVED_FROM)


@dataclass(frozen=True)
class Weights:
    """How a new decision's candidates are weighed, chosen on public collections and measured on
    others (`tests/benchmarks/bench_conflicts.py` leaves each collection out in turn)."""

    bm25: float = 0.15  # BM25 likeness (relative to the best match) beside `kinship`
    builds_on: float = 0.2  # taken off a decision the draft requires or extends (its citation is explained)


WEIGHTS = Weights()
WEIGHTS_TRIED = [Weights(bm25, builds_on) for bm25 in (0.1, 0.15, 0.25, 0.5, 1.0) for builds_on in (0.0, 0.2)]

Shortlist = Callable[[list[str], int], Iterable[str]]
"""(words, most) -> the ids of at most `most` documents holding any of the words, best first."""


@dataclass
class Draft:
    """New knowledge on its way in: not yet a document."""

    type: str
    title: str
    tags: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)  # (link type, target id)
    body: str = ""
    project: str | None = None
    source: str = "manual"
    confidence: str = "high"

    @classmethod
    def from_post(cls, post: Any) -> Draft:
        """A draft from a `frontmatter.Post` (python-frontmatter), for people who already hold
        notes that way: its `type`, `title`, `tags`, `links` ({type, target} entries), `project`
        and `provenance` are read; anything else in it is not part of a new document."""
        meta = dict(post.metadata)
        links = [
            (str(l["type"]), str(l["target"]))
            for l in meta.get("links") or []
            if isinstance(l, dict) and "type" in l and "target" in l
        ]
        provenance: Any = meta.get("provenance") if isinstance(meta.get("provenance"), dict) else {}
        tags = meta.get("tags")
        return cls(
            str(meta.get("type", "")),
            str(meta.get("title", "")),
            [str(t) for t in tags] if isinstance(tags, list) else [],
            links,
            post.content,
            meta.get("project"),
            str(provenance.get("source", "manual")),
            str(provenance.get("confidence", "high")),
        )

    def profile(self) -> Profile:
        from ..views.similarity import mentions_in, title_head

        targets = {t for _, t in self.links}
        return Profile(
            "",
            self.title,
            self.type,
            set(self.tags),
            targets,
            term_counts(self.title + " " + self.body),
            self.body,
            mentions=frozenset(mentions_in(targets, f"{self.title}\n{self.body}")),
            head=title_head(self.title),
            when=(dt.date.max,),
        )

    def check(self) -> None:
        if not member(self.type, DocType):
            raise RefusedError(f"{self.type!r} is not a type; types are {', '.join(DocType)}")
        if not self.title.strip():
            raise RefusedError("a new document needs a title")
        for kind, _ in self.links:
            if not member(kind, LinkType) or kind == LinkType.SUPERSEDES:
                allowed = ", ".join(t for t in LinkType if t != LinkType.SUPERSEDES)
                raise RefusedError(
                    f"link type {kind!r} is not allowed here; use one of {allowed} (supersession has its own option)"
                )


@dataclass
class Candidate:
    id: str
    title: str
    type: str
    status: str
    score: float
    reasons: list[str]
    action: str  # "merge" or "supersede"
    excerpt: Any = (
        None  # what a reader is given of it (`excerpts.Excerpt`), when asked for (`review.excerpted_candidates`)
    )

    def to_json(self) -> dict[str, Any]:
        found = {
            "id": self.id,
            "title": self.title,
            "type": self.type,
            "status": self.status,
            "score": round(self.score, 3),
            "reasons": self.reasons,
            "action": self.action,
        }
        if self.excerpt is not None:
            found["excerpt"] = self.excerpt.to_json()
        return found


def candidates(
    documents: Iterable[Document],
    draft: Draft,
    limit: int = 3,
    shortlist: Shortlist | None = None,
    weights: Weights = WEIGHTS,
) -> list[Candidate]:
    """The canonical documents the draft may belong in, best first, each with its reasons.

    A new decision is weighed against every decision it may replace, whatever its status (a
    deprecated or withdrawn one may be what it replaces; the status is shown), except one already
    replaced;
    how alike the texts are by BM25 counts beside the citations and the subject, so the gate
    never offers less than a plain full-text ranking would.

    With a `shortlist` and at least SHORTLIST_FROM documents to weigh, only a short list is
    weighed (see `_short_list`); word rarities and BM25 are still counted over every document,
    so each one weighed scores exactly as it would among all."""
    docs, profiles, corpus, bm25 = _weighable(list(documents), draft.type == DocType.DECISION)
    mine = draft.profile()
    alike: dict[str, float] = {}
    if draft.type == DocType.DECISION:
        found = bm25.scores(mine.terms, None) if bm25 is not None else {}  # one query: every word of it
        top = max(found.values(), default=0.0)
        alike = {doc_id: score / top for doc_id, score in found.items()} if top else {}

    # What the draft says it requires or extends it builds on, and cites for that reason: that
    # citation says little of a replacement (a proposal may extend the one it replaces, but mostly
    # stands beside what it builds on), so it earns no preference as a linked document does, and
    # loses some of what citing it gave (`Weights.builds_on`).
    builds_on = {target for kind, target in draft.links if kind in BUILDS_ON}

    def weigh(doc: Document, explain: bool) -> Candidate | None:
        if doc.type in CANONICAL_TYPES or (doc.type == DocType.NOTE and draft.type == DocType.NOTE):
            if doc.status not in (Status.ACTIVE, Status.DRAFT):
                return None
            action = "merge"  # a canonical home, or a note that already says what the draft says
        elif draft.type == DocType.DECISION and doc.type == DocType.DECISION:
            action = "supersede"
        else:
            return None
        # A decision that replaces another is weighed as the conflicts queue weighs a pair: by
        # what it cites and its subject as well as its words.
        like = (
            kinship(mine, profiles[doc.id], corpus, explain)
            if action == "supersede"
            else likeness(mine, profiles[doc.id], corpus, explain=explain)
        )
        if action == "supersede" and alike.get(doc.id):
            like.score += weights.bm25 * alike[doc.id]
            if not like.reasons:
                like.reasons.append(f"its text is among the most alike ({round(alike[doc.id] * 100)}% of the best)")
        if action == "supersede" and doc.id in builds_on:
            like.reasons.insert(0, "the draft builds on it (requires or extends it)")
            like.score -= weights.builds_on
        elif doc.id in mine.targets:
            like.reasons.insert(0, "the draft links to it")
            like.score += LINKED
        if doc.type in CANONICAL_TYPES:
            like.score += CANONICAL_PREFERENCE
        # Offered when alike enough with its words counted in full: how much they weigh in the
        # order is another question (`Weights.bm25`).
        enough = like.score + (1 - weights.bm25) * alike.get(doc.id, 0.0) if action == "supersede" else like.score
        if enough >= MIN_SCORE and like.reasons:
            return Candidate(doc.id, doc.title, doc.type, doc.status, like.score, like.reasons, action)
        return None

    # Every document is weighed, and only those offered are explained in the words they use
    # (finding those words in each text was most of a proposal's time).
    weighed = (
        _short_list(docs, profiles, corpus, mine, alike, shortlist)
        if shortlist is not None and len(docs) >= SHORTLIST_FROM
        else docs
    )
    ranked = [found for found in (weigh(doc, False) for doc in weighed) if found is not None]
    if draft.type == DocType.DECISION:
        # A new decision's first question is which decision it replaces: those likely enough come
        # first, then the homes it could merge into (scored on another scale).
        ranked.sort(key=lambda c: (not (c.action == "supersede" and c.score >= LIKELY_PREDECESSOR), -c.score, c.id))
    else:
        ranked.sort(key=lambda c: (-c.score, c.id))
    by_id = {doc.id: doc for doc in docs}
    return [weigh(by_id[c.id], True) or c for c in ranked[:limit]]


_WEIGHABLE: list = [
    None,
    None,
]  # (whether for a decision, the documents' identities), and what `_weighable` found for them


def _weighable(
    documents: list[Document], decision: bool
) -> tuple[list[Document], dict[str, Profile], Corpus, Bm25 | None]:
    """The documents a draft is weighed against, their profiles, word rarities and (for a new
    decision) the decisions' BM25 index, worked out again only when the documents changed: a
    document's object lives as long as its file is unchanged, and sorting 10,000 of them by type
    and status was a third of a short-listed proposal. The documents are held with the answer,
    so no identity is taken for another object's."""
    key = (decision, tuple(map(id, documents)))
    if _WEIGHABLE[0] == key:
        return _WEIGHABLE[1][1:]
    live = {d.id for d in documents}
    docs = [
        d
        for d in documents
        if d.status in (Status.ACTIVE, Status.DRAFT)
        or (
            decision
            and d.type == DocType.DECISION
            and not (d.status == Status.SUPERSEDED and any(new in live for new in d.superseded_by))
        )
    ]
    profiles = profiles_of(docs)
    corpus = corpus_of(profiles.values())
    decisions = [profiles[d.id] for d in docs if d.type == DocType.DECISION] if decision else []
    bm25 = bm25_of(decisions) if decisions else None
    _WEIGHABLE[:] = [key, (documents, docs, profiles, corpus, bm25)]
    return docs, profiles, corpus, bm25


def _short_list(
    docs: list[Document],
    profiles: dict[str, Profile],
    corpus: Corpus,
    mine: Profile,
    alike: dict[str, float],
    shortlist: Shortlist,
) -> list[Document]:
    """The documents worth weighing in a large vault (weighing all of 10,000 took 0.3 s): those
    the full-text index finds for the draft's most distinctive words, those the draft links to or
    cites, and the decisions most alike to it by BM25."""
    terms = mine.terms
    asked = sorted(terms, key=lambda t: (-(1 + math.log(terms[t])) * corpus.idf(t), t))[:SHORTLIST_WORDS]
    keep = set(shortlist(asked, SHORTLIST_SIZE)) if asked else set()
    keep |= mine.targets
    keep.update(heapq.nsmallest(SHORTLIST_DECISIONS, alike, key=lambda i: (-alike[i], i)))
    if mine.mentions:
        keep.update(p.id for p in profiles.values() if not p.handles.isdisjoint(mine.mentions))
    return [doc for doc in docs if doc.id in keep]


def fts_shortlist(store: Any, document_at: Callable[[str], Document | None]) -> Shortlist:
    """A `Shortlist` asking a derived store's FTS5 index (`DerivedStore.match`), its paths read as
    ids through `document_at`."""
    from ..views.search import FIELD_WEIGHTS

    def ask(asked: list[str], most: int) -> list[str]:
        expression = " OR ".join(f'"{word}"' for word in asked)  # words are [a-z0-9]+: nothing to escape
        found = (document_at(path) for path, _ in store.match(expression, FIELD_WEIGHTS, most))
        return [doc.id for doc in found if doc is not None]

    return ask


def plan_merge(index: VaultIndex, target_id: str, draft: Draft) -> Plan:
    """The draft's text joins a canonical document: a dated section, tags and links united."""
    draft.check()
    target = index.get(target_id)
    if target.type == DocType.DECISION:
        raise RefusedError(
            f"{target_id} is a decision, and a decision is never merged into; write a new decision with --supersede {target_id}"
        )
    if not target.valid:
        raise RefusedError(f"{target_id} is invalid; repair it before merging into it")
    _check_targets(index, draft, exclude=target_id)
    meta = dict(target.meta)
    meta["tags"] = unite_tags(target.tags, draft.tags)
    meta["links"] = unite_links(meta.get("links"), [(kind, dest) for kind, dest in draft.links if dest != target_id])
    heading = f"## {dt.date.today().isoformat()}: {draft.title.strip()}"
    body = join_section(target.body, heading, draft.body)
    change = index.edit_change(target, meta, body)
    summary = f"merge “{draft.title.strip()}” into {target_id}"
    return Plan(summary, [change], [log_line(summary)])


def new_id_for(index: VaultIndex, doc_type: str, title: str) -> str:
    """`mem-{type}-{slug}` from the title, made unique among the vault's ids and files."""
    base = f"mem-{doc_type}-{slugify(title)}"
    candidate, number = base, 1
    folder = index.root / TYPE_FOLDERS[DocType(doc_type)]
    while candidate in index or (folder / f"{candidate}.md").exists():
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def _check_targets(index: VaultIndex, draft: Draft, exclude: str | None = None) -> None:
    for _, target in draft.links:
        if target != exclude and target not in index:
            raise RefusedError(f"link target {target} is not a document of this vault")


def _new_document(
    index: VaultIndex, draft: Draft, extra_links: list[dict[str, str]], supersedes: list[str], status: str
) -> tuple[str, FileChange]:
    doc_id = new_id_for(index, draft.type, draft.title)
    today = dt.date.today()
    projects = [d.meta.get("project") for d in index.documents if isinstance(d.meta.get("project"), str)]
    project = draft.project or (max(set(projects), key=lambda p: (projects.count(p), p)) if projects else "default")
    meta: dict[str, Any] = {
        "schema_version": "v1",
        "id": doc_id,
        "type": draft.type,
        "title": draft.title.strip(),
        "status": status,
        "created_at": today,
        "updated_at": today,
        "project": project,
        "tags": list(dict.fromkeys(draft.tags)),
        "links": [{"type": k, "target": t} for k, t in dict.fromkeys(draft.links)] + extra_links,
        "supersedes": supersedes,
        "superseded_by": [],
        "provenance": {"source": draft.source, "confidence": draft.confidence},
    }
    if draft.type == DocType.TASK:
        meta["execution_state"] = "todo"
    body = draft.body.replace("\r\n", "\n")
    if not body.lstrip().startswith("#"):
        body = f"# {draft.title.strip()}\n\n{body.strip()}\n" if body.strip() else f"# {draft.title.strip()}\n"
    elif not body.endswith("\n"):
        body += "\n"
    text = "---\n" + "".join(render_frontmatter(meta)) + "---\n" + body
    return doc_id, FileChange(f"{TYPE_FOLDERS[DocType(draft.type)]}/{doc_id}.md", None, text.encode("utf-8"))


def plan_create(index: VaultIndex, draft: Draft, status: str = Status.ACTIVE.value) -> Plan:
    """A new document, linked into the graph at once; refused when it would be an island."""
    draft.check()
    if len(index.documents) and not draft.links:
        raise RefusedError(
            "a new document must link to at least one existing document (--link TYPE:TARGET), so it is part of the graph"
        )
    _check_targets(index, draft)
    doc_id, change = _new_document(index, draft, [], [], status)
    summary = f"create {doc_id}"
    return Plan(summary, [change], [log_line(summary)], created_id=doc_id)


def plan_create_superseding(index: VaultIndex, old_id: str, draft: Draft) -> Plan:
    """A new decision that replaces `old_id`, both sides written in one change."""
    draft.check()
    old = index.get(old_id)
    if draft.type != DocType.DECISION or old.type != DocType.DECISION:
        raise RefusedError("--supersede writes a new decision replacing a decision; both must be decisions")
    if not old.valid:
        raise RefusedError(f"{old_id} is invalid; repair it first")
    if old.status in (Status.ARCHIVED,):
        raise RefusedError(f"{old_id} is archived; reopen it before superseding it")
    _check_targets(index, draft)
    doc_id, change = _new_document(
        index, draft, [{"type": LinkType.SUPERSEDES.value, "target": old_id}], [old_id], Status.ACTIVE.value
    )
    old_meta = {**old.meta, "status": Status.SUPERSEDED.value, "superseded_by": old.superseded_by + [doc_id]}
    summary = f"create {doc_id} superseding {old_id}"
    return Plan(summary, [change, index.edit_change(old, old_meta)], [log_line(summary)], created_id=doc_id)
