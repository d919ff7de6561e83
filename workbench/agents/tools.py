"""The memory tools, as plain functions over the vault: what the MCP server calls.

Each tool checks its arguments in words an agent can act on, asks the `Vault` facade (the same
store and checks as a person's writes), records what the agent saw in its `GateSession` (kept in the vault for the next process), and
returns plain JSON-ready data. A refusal is a `RefusedError` (or `QueryError`) naming the problem,
raised before anything is written. Nothing here imports the MCP SDK.

Limits are the Kimiko memory design's: a read returns at most ten documents and 45,000 characters; beyond that it
says exactly what to ask for next. Search returns metadata, never bodies.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

from ..core import (
    READ_CHARACTERS,
    READ_DOCUMENTS,
    REQUIRED_FIELDS,
    Agent,
    AlreadyExists,
    DocType,
    Draft,
    LinkType,
    RefusedError,
    Status,
    Vault,
    find_credentials,
)
from .session import GateSession, title_words
from .text import answer_text, text_length

__all__ = [
    "MemoryTools",
    "CANDIDATES",
    "REVIEW_LIMIT",
    "VERDICTS",
    "READ_DOCUMENTS",
    "READ_CHARACTERS",
    "RECENT_DAYS",
    "SEARCH_LIMIT",
    "WRITE_DECISIONS",
    "plain",
]

SEARCH_LIMIT = 50
CANDIDATES = 10  # the gate's candidates an agent is given unless it asks for fewer: it reads, a person skims
REVIEW_LIMIT = 20  # pairs a review page may be asked for (as many as fit the read budget are given)
VERDICTS = ("replaces", "companion", "reversed", "unsure")
AHEAD_WAIT = 0.25  # seconds the next review page waits, at most, for this one's answer to be sent
MAX_QUERY = 1_000
MAX_IDS = 100
MAX_ID = 200
MAX_BODY = 100_000
MAX_TITLE = 200
MAX_TAGS, MAX_TAG = 20, 64
MAX_LINKS = 50
RECENT_DAYS = 366
MAX_SAID = 300  # characters of a log line or a name shown by memory_recent
MAX_META = 10_000  # characters of frontmatter, as JSON, shown whole; beyond it only the contract's fields
WRITE_DECISIONS = ("propose", "create", "merge_into:ID", "supersede:ID")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TAG = re.compile(r"[^\s,\x00-\x1f\x7f]+")
CORE_FIELDS = (*REQUIRED_FIELDS, "execution_state", "awaiting_review")  # the contract's, a task's state, requests


def plain(value: Any) -> Any:
    """Frontmatter as JSON can carry it: dates as ISO strings, anything unusual as its text."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _id(text: str) -> str:
    """An id as given, refused when it is too long to be one (and too long to repeat in an error)."""
    if len(text) > MAX_ID:
        raise RefusedError(f"an id of {len(text):,} characters is not an id")
    return text


def _clip(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def _json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


class _Stopped(Exception):
    """Work done ahead of time was called off: the page it was for is being worked out now."""


class MemoryTools:
    """The tools of one connection: `agent()` names who writes (read from the client when first needed)."""

    def __init__(
        self,
        vault: Vault,
        agent: Callable[[], Agent],
        session: GateSession | None = None,
        name: Callable[[], str] | None = None,
    ) -> None:
        self.vault = vault
        self.agent = agent
        self.session = session or GateSession()
        self.name = name or (lambda: agent().name)  # who judges: a verdict writes nothing, so no source is needed
        self._ahead: threading.Thread | None = None  # the review list's next page, excerpted meanwhile
        self._stop_ahead = threading.Event()  # set: that thread stops before its next pair
        self._turn = threading.Condition()  # guards the two below; told when either changes
        self._calls = 0  # calls under way (`serving`)
        self._sent = False  # the answer that started the thread went out (`answered`)

    # -- search ----------------------------------------------------------------------------------

    def search(self, query: str, limit: int = 10) -> dict[str, Any]:
        query = query.strip()
        if not query:
            raise RefusedError('query is empty; give words, "phrases" or filters such as type:decision')
        if len(query) > MAX_QUERY:
            raise RefusedError(f"query is {len(query)} characters; at most {MAX_QUERY}")
        if not 1 <= limit <= SEARCH_LIMIT:
            raise RefusedError(f"limit must be between 1 and {SEARCH_LIMIT}, not {limit}")
        hits = self.vault.search(query, limit=limit)
        found = []
        for hit in hits:
            doc = self.vault.document_at(hit.path)
            item = {**hit.to_json()}
            if doc is not None:
                item["tags"] = doc.tags
                item["updated_at"] = doc.updated.isoformat() if doc.updated else None
            if hit.superseded_by:
                item["superseded_by"] = hit.superseded_by
            found.append(item)
        self.session.searched(query, [hit.id for hit in hits])
        # A broken document is found by its words too, as the CLI lists it: an agent told only "no
        # document matches" would write a duplicate of one it cannot see.
        invalid = [{"id": hit.id, "path": hit.path, "problem": hit.problem} for hit in hits.also_invalid]
        answer: dict[str, Any] = {
            "query": query,
            "count": len(found),
            "hits": found,
            "next": "memory_read(ids=[...]) for the bodies you need"
            if found
            else "no document matches; try other words",
        }
        if invalid:
            answer["invalid"] = invalid
            answer["next"] = (
                f"{answer['next'] if found else 'no valid document matches'}; these words are also in "
                f"{len(invalid)} invalid document{'s' if len(invalid) != 1 else ''} "
                f"({', '.join(i['id'] for i in invalid[:5])}) that a person must repair: "
                "do not create a duplicate of one, ask for the repair"
            )
        return answer

    # -- read ------------------------------------------------------------------------------------

    def read(self, ids: str | list[str], offset: int = 0) -> dict[str, Any]:
        wanted = [ids] if isinstance(ids, str) else list(ids)
        wanted = list(dict.fromkeys(i.strip() for i in wanted if isinstance(i, str) and i.strip()))
        if not wanted:
            raise RefusedError("ids is empty; give one id or a list of ids from memory_search")
        if len(wanted) > MAX_IDS:
            raise RefusedError(f"{len(wanted)} ids; ask for at most {MAX_IDS} at a time (ten are read per call)")
        if offset < 0:
            raise RefusedError(f"offset must be 0 or more, not {offset}")
        if offset and len(wanted) > 1:
            raise RefusedError("offset continues one document: give a single id with it")
        picked: list[tuple[Any, dict[str, Any]]] = []  # each document with its answer, body cut to the room left
        missing: list[dict[str, str]] = []
        unread: list[str] = []
        budget = READ_CHARACTERS
        for doc_id in wanted:
            if len(picked) == READ_DOCUMENTS or (picked and budget <= 0):
                unread.append(doc_id)
                continue
            try:
                doc = self.vault.get(_id(doc_id))
            except RefusedError as exc:
                missing.append({"id": doc_id, "reason": str(exc)})
                continue
            item = self._document(doc, self._meta(doc), offset)
            room = budget - len(answer_text({**item, "body": ""}))
            if picked and room <= 0:
                unread.append(doc_id)
                continue
            self._cut(item, offset, max(room, 1_000))  # the first always shows some of its body
            budget = room - text_length(item["body"])
            picked.append((doc, item))
        result = self._fitted(picked, missing, unread)
        for doc, item in picked:  # only what the answer holds counts as read
            item["read_whole"] = self.session.read(doc.id, doc.digest, offset, len(item["body"]), len(doc.body))
        return result

    @staticmethod
    def _fitted(
        picked: list[tuple[Any, dict[str, Any]]], missing: list[dict[str, str]], unread: list[str]
    ) -> dict[str, Any]:
        """The answer, its text (`answer_text`) at most READ_CHARACTERS: the last body is cut, and a
        document whose metadata no longer fits is left for the next call."""
        while True:
            result = MemoryTools._answer([item for _, item in picked], missing, unread)
            over = len(answer_text(result)) - READ_CHARACTERS
            if over <= 0:
                return result
            item = picked[-1][1]
            if text_length(item["body"]) >= over:
                MemoryTools._cut(item, item.get("offset", 0), text_length(item["body"]) - over)
            elif len(picked) > 1:
                unread.insert(0, picked.pop()[1]["id"])
            else:  # one document's metadata alone: bounded by MAX_META, far below the limit
                MemoryTools._cut(item, item.get("offset", 0), 0)
                return MemoryTools._answer([item], missing, unread)

    @staticmethod
    def _answer(documents: list[dict[str, Any]], missing: list[dict[str, str]], unread: list[str]) -> dict[str, Any]:
        result: dict[str, Any] = {"documents": documents}
        if missing:
            result["missing"] = missing
        if unread:
            result["unread"] = unread
        nexts = [
            f"memory_read(ids={d['id']!r}, offset={d['next_offset']})"
            for d in documents
            if d.get("next_offset") is not None
        ]
        if unread:
            nexts.append(f"memory_read(ids={unread[:READ_DOCUMENTS]!r})")
        if nexts:
            result["next"] = (
                f"this read stopped at {READ_DOCUMENTS} documents and {READ_CHARACTERS:,} characters; "
                "read the rest with " + " and ".join(nexts)
            )
        return result

    @staticmethod
    def _meta(doc) -> dict[str, Any]:
        meta = plain(doc.meta)
        if _json_size(meta) > MAX_META:
            meta = {k: v for k, v in meta.items() if k in CORE_FIELDS}
            meta["meta_truncated"] = f"frontmatter over {MAX_META:,} characters; only the contract's fields are shown"
        return meta

    def _document(self, doc, meta: dict[str, Any], offset: int) -> dict[str, Any]:
        """One document's metadata and its body from `offset`, whole until `_cut`; `read_whole` is
        false until the answer is final (the longer word: the text only shrinks when it is set)."""
        body = doc.body
        if offset > len(body):
            raise RefusedError(f"offset {offset} is past the end of {doc.id} ({len(body)} characters)")
        item: dict[str, Any] = {
            "id": doc.id,
            "title": doc.title,
            "type": doc.type,
            "status": doc.status,
            "path": doc.path,
            "valid": doc.valid,
            "meta": meta,
            "body": body[offset:],
            "characters": len(body),
        }
        if offset:
            item["offset"] = offset
        if not doc.valid:
            item["problems"] = [p.message for p in self.vault.problems_for(doc.id)][:10]
        if doc.status == Status.SUPERSEDED and doc.superseded_by:
            item["superseded_by"] = doc.superseded_by
        item["read_whole"] = False
        return item

    @staticmethod
    def _cut(item: dict[str, Any], offset: int, room: int) -> None:
        """Keep the longest start of the item's body that takes at most `room` characters of the
        answer's text, saying where the rest begins when anything is left off."""
        part = item["body"]
        if text_length(part) > room:
            low, high = 0, min(len(part), room)  # the longest prefix that fits lies in [low, high]
            while low < high:
                middle = (low + high + 1) // 2
                if text_length(part[:middle]) <= room:
                    low = middle
                else:
                    high = middle - 1
            part = part[:low]
        item["body"] = part
        end = offset + len(part)
        if end < item["characters"]:
            item["truncated"] = True
            item["next_offset"] = end
        item["read_whole"] = item.pop("read_whole")  # last, as the schema lists it

    # -- recent ----------------------------------------------------------------------------------

    def recent(self, days: int = 7, limit: int = 20) -> dict[str, Any]:
        """What changed lately, newest first: metadata and the change log's line, no bodies. Listing
        a document does not count as finding it for the gate: search for what you will change."""
        if not 1 <= days <= RECENT_DAYS:
            raise RefusedError(f"days must be between 1 and {RECENT_DAYS}, not {days}")
        if not 1 <= limit <= SEARCH_LIMIT:
            raise RefusedError(f"limit must be between 1 and {SEARCH_LIMIT}, not {limit}")
        changes = self.vault.recent(days)
        listed = []
        for change in changes[:limit]:
            item = change.to_json()
            item["title"] = _clip(item["title"], MAX_TITLE)
            item["what"] = _clip(item["what"], MAX_SAID)
            item["by"] = _clip(item["by"], MAX_SAID) if item["by"] else None
            listed.append(item)
        answer = self._recent_answer(days, limit, listed, len(changes), cut=False)
        while len(answer_text(answer)) > READ_CHARACTERS:  # the whole message within the read's limit
            listed.pop()
            answer = self._recent_answer(days, limit, listed, len(changes), cut=True)
        return answer

    @staticmethod
    def _recent_answer(days: int, limit: int, listed: list[dict[str, Any]], total: int, cut: bool) -> dict[str, Any]:
        more = total - len(listed)
        if cut:
            hint = f"{more} more changed in these {days} days; an answer holds {READ_CHARACTERS:,} characters: ask for fewer days"
        elif more and limit < SEARCH_LIMIT:
            hint = f"{more} more changed in these {days} days: memory_recent(days={days}, limit={min(SEARCH_LIMIT, total)})"
        elif more:
            hint = f"{more} more changed in these {days} days: ask for fewer days"
        elif listed:
            hint = "memory_read(ids=[...]) for the bodies you need"
        else:
            hint = f"nothing changed in the last {days} days"
        return {"days": days, "count": len(listed), "more": more, "changes": listed, "next": hint}

    # -- context ---------------------------------------------------------------------------------

    def context(self, question: str) -> dict[str, Any]:
        question = question.strip()
        if not question:
            raise RefusedError("question is empty; ask what you are about to work on")
        if len(question) > MAX_QUERY:
            raise RefusedError(f"question is {len(question)} characters; at most {MAX_QUERY}")
        pack = self.vault.context_for(question)
        self.session.shown(pack.ids)  # the hints are pointers only: they authorise nothing
        result = pack.to_json()
        result["next"] = (
            f"memory_read(ids={pack.ids!r}) reads them, in this order"
            if pack.ids
            else "the vault holds nothing to start from; memory_search with other words"
        )
        return result

    # -- write -----------------------------------------------------------------------------------

    def write(
        self,
        type: str,
        title: str,
        body: str = "",
        tags: list[str] | str | None = None,
        links: list[Any] | None = None,
        decision: str = "propose",
        candidates: int = CANDIDATES,
    ) -> dict[str, Any]:
        if not 1 <= candidates <= READ_DOCUMENTS:
            raise RefusedError(f"candidates must be between 1 and {READ_DOCUMENTS}, not {candidates}")
        draft = self._draft(type, title, body, tags, links)
        verb, _, target = decision.strip().partition(":")
        target = target.strip()
        if verb not in ("propose", "create", "merge_into", "supersede") or (verb in ("propose", "create")) == bool(
            target
        ):
            raise RefusedError(f"decision {decision!r} is not one of {', '.join(WRITE_DECISIONS)}")
        for where, text in (("title", draft.title), ("body", draft.body)):
            found = find_credentials(text)
            if found:  # refused at propose as create would refuse it: the agent learns before it plans a write
                raise RefusedError(
                    f"the {where} looks like it holds {found[0][1]} (line {found[0][0]}); memory never stores "
                    "credentials or tokens: leave the secret out and describe where it is kept"
                )
        if verb == "propose":
            return self._propose(draft, candidates)
        self.session.require_duplicate_search(draft.type, draft.title)
        agent = self.agent()
        if verb == "create":
            if not draft.links:
                raise RefusedError(
                    "links: a new document must link to at least one existing document "
                    '(e.g. ["related_to:mem-entity-x"]), so it is part of the graph'
                )
            try:
                plan = self.vault.agent_create(draft, agent)
            except AlreadyExists as exc:
                self.session.shown([exc.doc_id])  # named in the answer: found, as a search would find it
                raise
            doc_id = plan.created_id
        else:
            what = "merge into it" if verb == "merge_into" else "supersede it"
            self.session.require_read(target, self.vault.get(_id(target)).digest, what)
            if verb == "merge_into":
                plan = self.vault.agent_merge_into(target, draft, agent)
                doc_id = target
                if plan.empty:  # the same text merged before: said, not written twice
                    return {
                        "written": False,
                        "decision": verb,
                        "id": target,
                        "summary": plan.summary,
                        "next": f"nothing to do: {target} holds this text; merge only what it does not say yet",
                    }
            else:
                plan = self.vault.agent_supersede(target, draft, agent)
                doc_id = plan.created_id
        doc = self.vault.get(doc_id)
        self.session.wrote(doc.id, doc.digest, len(doc.body))
        return {
            "written": True,
            "decision": verb,
            "id": doc.id,
            "path": doc.path,
            "status": doc.status,
            "summary": plan.summary,
            "review": self._review_note(verb, target),
        }

    @staticmethod
    def _review_note(verb: str, target: str) -> str:
        if verb == "create":
            return "written as a draft; a person reviews it in the workbench's inbox before it becomes active"
        if verb == "merge_into":
            return f"merged into {target} as a dated section; a person reviews it (and may revert it) in the inbox"
        return (
            f"written as a draft decision proposed to supersede {target}; {target} stays active until a person accepts"
        )

    def _propose(self, draft: Draft, limit: int = CANDIDATES) -> dict[str, Any]:
        found = self.vault.candidates(draft, limit)
        self.session.proposed(draft.type, draft.title, [c.id for c in found])
        self.session.excerpted({c.id: c.excerpt.digest for c in found if c.excerpt is not None})
        proposed = self.vault.new_id(draft.type, draft.title)
        candidates = []
        for c in found:
            decision = f"merge_into:{c.id}" if c.action == "merge" else f"supersede:{c.id}"
            candidates.append({**c.to_json(), "decision": decision})
        if candidates:
            advice = (
                "if the new information belongs in a candidate, read it (memory_read) and write with its decision; "
                f'otherwise write with decision="create" (it becomes {proposed}, a draft)'
            )
        else:
            advice = f'no canonical document fits: write with decision="create" and at least one link (it becomes {proposed}, a draft)'
        answer = {
            "written": False,
            "decision": "propose",
            "candidates": candidates,
            "proposed_id": proposed,
            "next": advice,
        }
        while len(answer_text(answer)) > READ_CHARACTERS and len(candidates) > 1:  # the core leaves room; never over
            candidates.pop()
        return answer

    # -- review and judge ------------------------------------------------------------------------

    def review(self, limit: int = 5, cursor: str | None = None) -> dict[str, Any]:
        """A page of the review list, within the read budget; the excerpts shown count as seen."""
        if not 1 <= limit <= REVIEW_LIMIT:
            raise RefusedError(f"limit must be between 1 and {REVIEW_LIMIT}, not {limit}")
        ahead = self._ahead
        if ahead is not None:  # what it has done stays done; this page works out the rest
            self._stop_ahead.set()
            with self._turn:
                self._turn.notify_all()
            ahead.join()
        page = self.vault.review(limit, cursor or None)
        if page.cursor:
            self._excerpt_ahead(limit, page.cursor)
        self.session.excerpted({e.id: e.digest for pair in page.pairs for e in (pair.older, pair.newer)})
        answer = page.to_json()
        if page.pairs and page.cursor:
            hint = (
                f"judge each pair with memory_judge(older, newer, verdict, reason); then memory_review(cursor={page.cursor!r}) "
                f"for the next page ({page.remaining} pair(s) after this one)"
            )
        elif page.pairs:
            hint = "judge each pair with memory_judge(older, newer, verdict, reason); this page ends the list"
            if page.before > 0:
                hint += (
                    f"; {page.before} pair(s) before the cursor are not judged yet (passed over, or moved up by a write "
                    "since): memory_review() without a cursor starts again with them"
                )
        elif page.listed:
            hint = (
                f"no pair after this cursor; {page.listed} pair(s) before it are not judged yet: "
                "memory_review() without a cursor starts again with them"
            )
        else:
            hint = "the review list is done: every pair at its depth is settled or judged"
        answer["next"] = hint  # the core kept room for it: the page within the read budget, whole
        return answer

    def answered(self) -> None:
        """The server's word that the last answer reached the client: work done ahead of time
        waits for it, so that it does not hold the interpreter while the answer is encoded and
        sent (a server without the word, over HTTP, waits AHEAD_WAIT seconds instead)."""
        with self._turn:
            self._sent = True
            self._turn.notify_all()

    @contextlib.contextmanager
    def serving(self) -> Iterator[None]:
        """Around each call the server makes: work done ahead of time pauses while one is under
        way (a judgement sent right after a page would otherwise wait for the interpreter)."""
        with self._turn:
            self._calls += 1
        try:
            yield
        finally:
            with self._turn:
                self._calls -= 1
                self._turn.notify_all()

    def _excerpt_ahead(self, limit: int, cursor: str) -> None:
        """The page after `cursor` excerpted in a thread while the agent judges this one, pair by
        pair, each once this page's answer is out and no call is under way (AHEAD_WAIT at most),
        so that asking for it finds its pairs done (the core keeps them by both records' digests:
        a record changed meanwhile is excerpted again). Nothing is shown or recorded as seen."""
        stop = self._stop_ahead = threading.Event()
        with self._turn:
            self._sent = False

        def between() -> None:
            with self._turn:
                self._turn.wait_for(lambda: stop.is_set() or (self._sent and not self._calls), AHEAD_WAIT)
            if stop.is_set():
                raise _Stopped

        def run() -> None:
            try:
                self.vault.review_ahead(limit, cursor, between)
            except _Stopped:
                pass
            except Exception:  # noqa: BLE001 - ahead of time only: the page itself works out, and says, anything that went wrong
                pass

        self._ahead = threading.Thread(target=run, name="workbench-review-ahead", daemon=True)
        self._ahead.start()

    def judge(self, older: str, newer: str, verdict: str, reason: str = "") -> dict[str, Any]:
        """Record a verdict on a pair the agent was shown, as those records are now; writes no record."""
        older, newer = _id(older.strip()), _id(newer.strip())
        if verdict not in VERDICTS:  # before the records are looked at: the rest the core checks
            raise RefusedError(f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
        for doc_id in (older, newer):
            self.session.require_seen(doc_id, self.vault.get(doc_id).digest)
        recorded = self.vault.judge(older, newer, verdict, reason, self.name())
        return {
            "recorded": True,
            "id": recorded.id,
            "older": recorded.older,
            "newer": recorded.newer,
            "verdict": recorded.verdict,
            "agent": recorded.agent,
            "written": False,
            "review": "nothing was written to either record; a person accepts or rejects this verdict in the workbench's inbox",
        }

    def _draft(
        self, doc_type: str, title: str, body: str, tags: list[str] | str | None, links: list[Any] | None
    ) -> Draft:
        if doc_type not in DocType._value2member_map_:
            raise RefusedError(f"type {doc_type!r} is not a type; types are {', '.join(DocType)}")
        title = title.strip()
        if not title:
            raise RefusedError("title is empty")
        if "\n" in title or "\r" in title or _CONTROL.search(title):
            raise RefusedError("title must be one line of text, without control characters")
        if len(title) > MAX_TITLE:
            raise RefusedError(f"title is {len(title)} characters; at most {MAX_TITLE}")
        if not title_words(title):
            raise RefusedError(f"title {title!r} holds no letter or digit; give it words that say what it is about")
        if len(body) > MAX_BODY:
            raise RefusedError(f"body is {len(body):,} characters; at most {MAX_BODY:,}: split it into documents")
        if _CONTROL.search(body):
            raise RefusedError("body holds control characters (such as NUL or escape); send plain text")
        draft = Draft(doc_type, title, self._tags(tags), self._links(links), body)
        draft.check()
        for _, target in draft.links:
            if target not in self.vault:
                raise RefusedError(f"link target {target[:120]!r} is not a document of this vault")
        return draft

    @staticmethod
    def _tags(tags: list[str] | str | None) -> list[str]:
        if tags is None:
            return []
        given = tags.split(",") if isinstance(tags, str) else list(tags)
        cleaned = [t.strip() for t in given if isinstance(t, str) and t.strip()]
        if len(cleaned) > MAX_TAGS:
            raise RefusedError(f"{len(cleaned)} tags; at most {MAX_TAGS}")
        for tag in cleaned:
            if len(tag) > MAX_TAG or not _TAG.fullmatch(tag):
                raise RefusedError(
                    f"tag {tag[:80]!r} is not a tag: one word (letters, digits, - . _ /), at most {MAX_TAG} characters"
                )
        return list(dict.fromkeys(cleaned))

    @staticmethod
    def _links(links: list[Any] | None) -> list[tuple[str, str]]:
        if not links:
            return []
        if len(links) > MAX_LINKS:
            raise RefusedError(f"{len(links)} links; at most {MAX_LINKS}")
        kinds = ", ".join(t for t in LinkType if t != LinkType.SUPERSEDES)
        parsed = []
        for link in links:
            if isinstance(link, dict):
                kind, target = link.get("type"), link.get("target")
            elif isinstance(link, str):
                kind, _, target = link.partition(":")
            else:
                kind = target = None
            if not isinstance(kind, str) or not isinstance(target, str) or not kind.strip() or not target.strip():
                raise RefusedError(
                    f'link {str(link)[:120]!r} is not TYPE:TARGET (or {{"type": ..., "target": ...}}); types are {kinds}'
                )
            parsed.append((kind.strip(), target.strip()))
        return list(dict.fromkeys(parsed))

    # -- forget ----------------------------------------------------------------------------------

    def forget(self, doc_id: str, reason: str = "") -> dict[str, Any]:
        doc_id = doc_id.strip()
        if not doc_id:
            raise RefusedError("id is empty")
        if len(reason) > 2_000:
            raise RefusedError(f"reason is {len(reason)} characters; at most 2,000")
        doc = self.vault.get(_id(doc_id))
        self.session.require_read(doc_id, doc.digest, "ask to forget it")
        plan = self.vault.request_forget(doc_id, self.agent(), reason)
        if not plan.empty:
            now = self.vault.get(doc_id)
            self.session.wrote(now.id, now.digest, len(now.body))
        return {
            "requested": True,
            "id": doc_id,
            "deleted": False,
            "summary": plan.summary,
            "review": "nothing was deleted; a person decides in the workbench's inbox whether to forget it",
        }
