"""Memory Core's retrieval for a question: what an agent should read before it works, in one answer.

The seed's agent parses the question's intent, finds starting documents in the vault index by type
and tag, follows typed links to depth 2, gathers at most 10 documents by reading priority (entity,
task, decision, context, concept, index, note; active first) and compresses them into the
constraints, the latest decisions and the open questions. Here the starting documents are the best
hits of a search for the question (the search reads the same titles, tags and types the index
lists, and ranks them); when the question matches nothing, the vault index itself is the start, as
it is the seed's way in. From each start the walk is `graph.context_pack`'s: superseded documents
give way to their successors, archived ones are dropped, placeholders never enter.

The compression only quotes: a constraint is a sentence or list item the documents state as one
(under a heading such as "Rules" or "Constraints", or with must, never, always, do not), an open
question one they ask (under "Open questions", or ending in a question mark; a blocked task), and a
latest decision an active decision's opening paragraph, newest first. Every item names the document
it comes from, so an agent can read it whole and cite it. Beside the pack, at most two conservative
hints: documents outside it whose own title, tags or id share two or more of the question's words.
They carry no text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from . import graph as graphs
from ..index import VaultIndex
from ..vocabulary.model import DocType, Document, ExecutionState, RefusedError, Status
from .search import find
from .similarity import STOPWORDS

__all__ = ["QuestionPack", "question_pack", "VAULT_INDEX_ID", "START_HITS"]

VAULT_INDEX_ID = "mem-index-vault"
START_HITS = 3  # the best hits a walk starts from...
START_SHARE = 0.3  # ...when they score at least this share of the best
SEARCH_DEPTH = 20  # hits looked at, for the starts and the hints
MOST_HINTS = 2
MOST_CONSTRAINTS, MOST_QUESTIONS, PER_DOCUMENT = 12, 8, 4
ITEM_CHARS = 280

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
_CONSTRAINT_HEADING = re.compile(
    r"constraint|rule|invariant|requirement|guardrail|limit|policy|must|never|do not|don.t|caveat|gotcha", re.I
)
_QUESTION_HEADING = re.compile(r"question|unknown|unresolved|undecided|to decide|open issue|todo|to do", re.I)
_STRONG = re.compile(
    r"\b(must|never|always|do not|don't|shall|is required|are required|cannot|is forbidden|not allowed)\b", re.I
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[*])")
_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class QuestionPack:
    """What `question_pack` found: the starts, the documents to read in order, and what they say."""

    question: str
    start: list[dict[str, Any]] = field(default_factory=list)
    documents: list[dict[str, Any]] = field(default_factory=list)
    constraints: list[dict[str, str]] = field(default_factory=list)
    latest_decisions: list[dict[str, Any]] = field(default_factory=list)
    open_questions: list[dict[str, str]] = field(default_factory=list)
    hints: list[dict[str, str]] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        return [item["id"] for item in self.documents]

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "start": self.start,
            "documents": self.documents,
            "constraints": self.constraints,
            "latest_decisions": self.latest_decisions,
            "open_questions": self.open_questions,
            "hints": self.hints,
        }


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 2}


def _attr(graph: nx.MultiDiGraph, node: str, name: str) -> str:
    return str(graph.nodes[node].get(name) or "")


def _live(graph: nx.MultiDiGraph, doc_id: str) -> str | None:
    """The document to start from for a hit: its current successor when superseded; None when it
    is archived or not a document of the graph."""
    if doc_id not in graph or graph.nodes[doc_id].get("dangling") or graph.nodes[doc_id].get("invalid"):
        return None
    if _attr(graph, doc_id, "status") == Status.SUPERSEDED:
        doc_id = graphs.current_successor(graph, doc_id) or doc_id
    return None if _attr(graph, doc_id, "status") == Status.ARCHIVED else doc_id


def question_pack(
    index: VaultIndex, graph: nx.MultiDiGraph, question: str, limit: int = 10, depth: int = 2
) -> QuestionPack:
    """Memory Core's pack for `question`: at most `limit` documents within `depth` links of its best
    hits, in reading order, and what they say. `QueryError` if the question is a query that cannot
    match as written."""
    if limit < 1:
        raise RefusedError(f"limit must be 1 or more, not {limit}")
    pack = QuestionPack(question)
    hits = find(index, question, SEARCH_DEPTH) if question.strip() else []
    starts: list[tuple[str, str]] = []
    best = hits[0].score if hits else 0.0
    for rank, hit in enumerate(hits, start=1):
        node = _live(graph, hit.id)
        if node is None or node in dict(starts) or hit.score < START_SHARE * best:
            continue
        why = f"search rank {rank}" + (f" (superseded by {node})" if node != hit.id else "")
        starts.append((node, why))
        if len(starts) == START_HITS:
            break
    if not starts and _live(graph, VAULT_INDEX_ID):
        starts.append((VAULT_INDEX_ID, "the vault index: the question matched no document"))
    order = {str(kind): place for place, kind in enumerate(graphs.READING_PRIORITY)}
    picked: dict[str, tuple[int, int, str, str]] = {}  # id -> (depth, start rank, via, from)
    for place, (start, _) in enumerate(starts):
        for item in graphs.context_pack(graph, start, depth, limit=graph.number_of_nodes()):
            found = (item["depth"], place, item["via"], start)
            if item["id"] not in picked or found[:2] < picked[item["id"]][:2]:
                picked[item["id"]] = found

    def active(node: str) -> bool:
        return _attr(graph, node, "status") == Status.ACTIVE

    def priority(node: str) -> int:
        return order.get(_attr(graph, node, "type"), len(order))

    # As in context_pack: gather the nearest first, then read in priority order, active first.
    gathered = sorted(picked, key=lambda n: (picked[n][0], not active(n), priority(n), picked[n][1], n))[:limit]
    chosen = sorted(gathered, key=lambda n: (not active(n), priority(n), picked[n][0], picked[n][1], n))
    titles = {node: _attr(graph, node, "title") for node in chosen}
    pack.start = [{"id": node, "title": _attr(graph, node, "title"), "why": why} for node, why in starts]
    pack.documents = [
        {
            "id": n,
            "title": titles[n],
            "type": _attr(graph, n, "type"),
            "status": _attr(graph, n, "status"),
            "depth": picked[n][0],
            "via": picked[n][2],
            "from": picked[n][3],
        }
        for n in chosen
    ]
    documents = [doc for n in chosen if (doc := index.owner_document(n)) is not None]
    _compress(pack, documents)
    pack.hints = _hints(index, question, hits, graph, set(chosen))
    return pack


def _compress(pack: QuestionPack, documents: list[Document]) -> None:
    seen: set[str] = set()
    for doc in documents:
        constraints, questions = _statements(doc.body)
        if doc.type == DocType.TASK and doc.meta.get("execution_state") == ExecutionState.BLOCKED:
            next_action = doc.meta.get("next_action")
            questions.insert(0, f"blocked: {doc.title}" + (f"; next: {next_action}" if next_action else ""))
        for kept, found, most in (
            (pack.constraints, constraints, MOST_CONSTRAINTS),
            (pack.open_questions, questions, MOST_QUESTIONS),
        ):
            for text in found[:PER_DOCUMENT]:
                if len(kept) < most and text.lower() not in seen:
                    seen.add(text.lower())
                    kept.append({"id": doc.id, "text": text})
        if doc.type == DocType.DECISION and doc.status in (Status.ACTIVE, Status.DRAFT):
            pack.latest_decisions.append(
                {
                    "id": doc.id,
                    "title": doc.title,
                    "status": doc.status,
                    "updated_at": doc.updated.isoformat() if doc.updated else None,
                    "text": _opening(doc.body),
                }
            )
    pack.latest_decisions.sort(key=lambda d: (d["status"] != Status.ACTIVE, -_ordinal(d["updated_at"]), d["id"]))


def _ordinal(iso: str | None) -> int:
    return int(iso.replace("-", "")) if iso else 0


def _clip(text: str) -> str:
    text = re.sub(r"\s+", " ", text.replace("**", "")).strip()
    return text if len(text) <= ITEM_CHARS else text[: ITEM_CHARS - 1].rstrip() + "…"


def _blocks(body: str) -> list[tuple[str, str, bool]]:
    """(the heading it sits under, its text, whether it is a list item) for each paragraph and list
    item of the body, fenced code left out."""
    blocks: list[tuple[str, str, bool]] = []
    current: list[str] = []
    heading, bullet, fenced = "", False, False

    def flush() -> None:
        if current:
            blocks.append((heading, " ".join(current), bullet))
            current.clear()

    for line in body.replace("\r\n", "\n").split("\n"):
        if _FENCE.match(line):
            flush()
            fenced = not fenced
            continue
        if fenced:
            continue
        if match := _HEADING.match(line):
            flush()
            heading = match.group(2)
        elif not line.strip():
            flush()
        elif match := _BULLET.match(line):
            flush()
            current.append(match.group(1).strip())
            bullet = True
        elif current and bullet and line.startswith((" ", "\t")):
            current.append(line.strip())
        else:
            if bullet:
                flush()
                bullet = False
            current.append(line.strip())
    flush()
    return blocks


def _statements(body: str) -> tuple[list[str], list[str]]:
    """The constraints and the open questions a body states, in its order."""
    constraints: list[str] = []
    questions: list[str] = []
    for heading, text, bullet in _blocks(body):
        if _QUESTION_HEADING.search(heading):
            questions.append(_clip(text))
            continue
        if _CONSTRAINT_HEADING.search(heading) and bullet:
            constraints.append(_clip(text))
            continue
        for sentence in _SENTENCE_END.split(text):
            if sentence.rstrip().endswith("?"):
                questions.append(_clip(sentence))
            elif _STRONG.search(sentence):
                constraints.append(_clip(sentence))
    return constraints, questions


def _opening(body: str) -> str:
    """A decision's first paragraph after its title: what it decides, in its own words."""
    for _, text, _ in _blocks(body):
        if text.strip():
            return _clip(text)
    return ""


def _hints(
    index: VaultIndex, question: str, hits: list, graph: nx.MultiDiGraph, packed: set[str]
) -> list[dict[str, str]]:
    """At most two documents outside the pack whose own metadata shares two or more of the
    question's words: a pointer, never a body, and not a reason to change them."""
    asked = _words(question)
    hints: list[dict[str, str]] = []
    for hit in hits:
        if len(hints) == MOST_HINTS:
            break
        if (
            hit.id in packed
            or hit.id not in graph
            or _attr(graph, hit.id, "status") in (Status.ARCHIVED, Status.SUPERSEDED)
        ):
            continue
        doc = index.owner_document(hit.id)
        tags = " ".join(doc.tags) if doc is not None else ""
        shared = sorted(asked & (_words(hit.title) | _words(hit.id) | _words(tags)))
        if len(shared) >= 2:
            hints.append(
                {
                    "id": hit.id,
                    "title": hit.title,
                    "type": hit.type,
                    "status": hit.status,
                    "why": f"its title, tags or id share: {', '.join(shared)}",
                }
            )
    return hints
