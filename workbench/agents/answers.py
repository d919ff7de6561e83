"""What each memory tool answers, as types the SDK turns into the tools' output schemas.

A client (and the LLM behind it) sees these schemas in `tools/list`; the SDK's client checks every
structured answer against them. Each type allows fields beyond those it names (a document's
frontmatter is the vault's own), so a field added to an answer is never dropped on the way out;
the named ones are those an agent acts on.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field
from typing_extensions import Annotated, NotRequired, TypedDict

__all__ = [
    "Candidate",
    "ContextAnswer",
    "Excerpt",
    "JudgeAnswer",
    "ReviewAnswer",
    "ReviewPair",
    "ForgetAnswer",
    "Hit",
    "Invalid",
    "Missing",
    "ReadAnswer",
    "ReadDocument",
    "RecentAnswer",
    "RecentChange",
    "SearchAnswer",
    "Statement",
    "WriteAnswer",
]

_OPEN = ConfigDict(extra="allow")


def _said(text: str) -> Any:
    return Field(description=text)


class Hit(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    id: str
    title: str
    type: str
    status: str
    path: str
    score: float
    tags: NotRequired[list[str]]
    updated_at: NotRequired[str | None]
    superseded_by: NotRequired[Annotated[list[str], _said("the decisions that replace this one")]]


class Invalid(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    id: str
    path: str
    problem: str


class SearchAnswer(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    query: str
    count: int
    hits: Annotated[list[Hit], _said("best first; metadata only, no bodies")]
    invalid: NotRequired[
        Annotated[
            list[Invalid], _said("documents holding the words that the vault cannot read whole, each with its problem")
        ]
    ]
    next: str


class ReadDocument(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    id: str
    title: str
    type: str
    status: str
    path: str
    valid: bool
    meta: Annotated[dict[str, Any], _said("the frontmatter, dates as ISO text")]
    body: Annotated[str, _said("the body from `offset`, whole unless `truncated`")]
    characters: Annotated[int, _said("the whole body's length")]
    offset: NotRequired[int]
    truncated: NotRequired[Annotated[bool, _said("the body goes on past this answer: read on from next_offset")]]
    next_offset: NotRequired[int]
    problems: NotRequired[list[str]]
    superseded_by: NotRequired[list[str]]
    read_whole: Annotated[
        bool, _said("you have read this version to its end: you may merge into, supersede or forget it")
    ]


class Missing(TypedDict):
    id: str
    reason: str


class ReadAnswer(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    documents: list[ReadDocument]
    missing: NotRequired[Annotated[list[Missing], _said("ids that name no readable document, each with why")]]
    unread: NotRequired[Annotated[list[str], _said("ids left for another call: this one was full")]]
    next: NotRequired[Annotated[str, _said("the calls that read what did not fit")]]


class Statement(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    id: Annotated[str, _said("the document that states it")]
    text: str


class ContextAnswer(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    question: str
    start: Annotated[list[dict[str, Any]], _said("the hits the pack starts from, each with why")]
    documents: Annotated[
        list[dict[str, Any]], _said("what to read, in this order: id, title, type, status, depth, via")
    ]
    constraints: list[Statement]
    latest_decisions: list[dict[str, Any]]
    open_questions: list[Statement]
    hints: Annotated[
        list[dict[str, Any]], _said("at most two documents beyond the pack whose metadata shares the question's words")
    ]
    next: str


class Excerpt(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    id: str
    title: str
    type: str
    status: Annotated[str, _said("the status as the record states it, in its own words")]
    date: Annotated[str | None, _said("the date the record carries (created, else updated), if any")]
    number: Annotated[int | None, _said("the record's number (ADR-007 is 7), if it has one")]
    path: str
    opening: Annotated[
        str,
        _said(
            "the body's opening, as written (about 2,500 characters; a long web address shortened to host/…/last part)"
        ),
    ]
    opening_cut: Annotated[bool, _said("the body goes on: memory_read(id) reads it whole")]
    characters: Annotated[int, _said("the whole body's length")]
    decision: Annotated[
        str,
        _said(
            "what the record decides (its Decision section, or its 'we will' paragraph), when the opening does not hold it whole; '' otherwise"
        ),
    ]
    passage: Annotated[
        str, _said("the passage that matched the other record (or your draft); may repeat part of the opening")
    ]


class Candidate(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    id: str
    title: str
    type: str
    status: str
    score: float
    reasons: list[str]
    action: str
    decision: Annotated[str, _said("the memory_write decision that writes into this candidate")]
    excerpt: NotRequired[Annotated[Excerpt, _said("what the candidate says: read it before you choose")]]


class WriteAnswer(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    written: Annotated[bool, _said("false for propose: nothing was written")]
    decision: str
    candidates: NotRequired[
        Annotated[
            list[Candidate],
            _said("propose: where the knowledge may belong, in the gate's order, each with its excerpt"),
        ]
    ]
    proposed_id: NotRequired[Annotated[str, _said("propose: the id a create would give")]]
    next: NotRequired[str]
    id: NotRequired[Annotated[str, _said("the document written")]]
    path: NotRequired[str]
    status: NotRequired[str]
    summary: NotRequired[str]
    review: NotRequired[Annotated[str, _said("what a person reviews, and where")]]


class ForgetAnswer(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    requested: bool
    id: str
    deleted: Annotated[bool, _said("always false: a person decides")]
    summary: str
    review: str


class RecentChange(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    id: str
    title: str
    type: str
    status: str
    path: str
    when: Annotated[str, _said("when it changed last: YYYY-MM-DDTHH:MM (00:00 when only the day is known)")]
    what: Annotated[str, _said("the change log's latest line about it, else `updated` or `created`")]
    by: Annotated[str | None, _said("who, as the log line says it in parentheses, when known")]
    awaiting_review: Annotated[bool, _said("an agent's change a person has not reviewed yet")]


class RecentAnswer(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    days: int
    count: int
    more: Annotated[int, _said("changed in these days but beyond limit")]
    changes: Annotated[list[RecentChange], _said("newest first; metadata only, no bodies")]
    next: str


class ReviewPair(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    older: Annotated[Excerpt, _said("the record taken as the older")]
    newer: Annotated[Excerpt, _said("the record taken as the newer")]
    score: Annotated[float, _said("how likely the ranking finds a replacement: an order, not a verdict")]
    reasons: Annotated[
        list[str], _said("evidence in the records' own words: shared subject, citations, dates; not a verdict")
    ]
    newer_because: Annotated[str, _said("why `newer` is taken as the newer of the two")]


class ReviewAnswer(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    pairs: Annotated[list[ReviewPair], _said("best first")]
    cursor: Annotated[
        str | None, _said("give it back as memory_review(cursor=...) for the next page; null: the list ends here")
    ]
    remaining: Annotated[int, _said("pairs after this page")]
    listed: Annotated[int, _said("pairs the list holds now, beyond those settled or judged")]
    depth: int
    left_out: Annotated[int, _said("pairs within the depth already settled or judged")]
    next: str


class JudgeAnswer(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    recorded: bool
    id: Annotated[str, _said("the verdict's id in the curator's inbox")]
    older: str
    newer: str
    verdict: str
    agent: str
    written: Annotated[bool, _said("always false: no record changes until a person accepts")]
    review: str
