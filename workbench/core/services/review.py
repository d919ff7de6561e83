"""The review list: every pair of decisions worth a reader's judgement, best first, page by page.

The person's queue (`conflicts.py`) lists a pair only above thresholds chosen for precision; a reader
who judges each pair (an agent over MCP, a script, the person) can afford to look further. The
review list is the queue's own weighing of pairs (`weigh_decisions`, each decision against its
three most alike, ordered as `conflicts.review_order` orders them) without the thresholds, down to
a depth that grows with the vault: by default one pair per two decisions. Each pair comes with both records' excerpts (`excerpts.py`) and the evidence in the
records' own words: the subject words they share, who cites whom, their dates or numbers, which
one is taken as the newer and why. The reasons are evidence, never a verdict.

A pair already settled is never offered: one replacing the other (either way), marked compatible,
or judged by a reader while both records are unchanged (`verdicts.py`). A page fits the read budget
(45,000 characters); its cursor names the last pair's score and ids, not a position, so it holds
across writes: the next page starts after that pair in the list as it is then.

The gate's candidates for a draft are given to a reader the same way (`excerpted_candidates`).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .conflicts import DEFAULT, LIVE, Weighed
from ..views.excerpts import READ_CHARACTERS, READ_DOCUMENTS, Excerpt, answer_size, excerpt, fit_openings, linked_keys
from ..index import VaultIndex
from . import kept_ranking
from .kept_conflicts import REVIEW, REVIEW_CONTENT, Asked, code_fingerprint, content_key, queue_key, setting_key
from .kept_ranking import Entry, KeptRanking, Stale
from ..vocabulary.collector import collector_paused
from ..vocabulary.model import Document, RefusedError
from ..records.record import today
from ..views.similarity import profiles_of, words
from .verdicts import judged_pairs, verdicts

if TYPE_CHECKING:  # the gate's: a review page imports none of it
    from .gate import Candidate, Draft

__all__ = [
    "Ranked",
    "Ranking",
    "ReviewPair",
    "ReviewPage",
    "PAGE",
    "DEPTH_PER",
    "default_depth",
    "review_list",
    "review_page",
    "excerpt_ahead",
    "pair_of",
    "excerpted_candidates",
]

PAGE = 5
"""Pairs a page holds unless asked otherwise: two excerpts each, well within the read budget."""
DEPTH_PER = 2
"""The list's default depth: one pair per this many decisions."""
ENVELOPE = 3_000
"""Characters of an answer kept for what a face puts around the pairs or candidates (its hints)."""


@dataclass(frozen=True)
class ReviewPair:
    """Two decisions that may replace one another, the older first, with the evidence to judge by."""

    older: Excerpt
    newer: Excerpt
    score: float  # the queue's score for the pair (higher: likelier), rounded as the cursor keeps it
    reasons: tuple[str, ...]  # the evidence, in the records' own words
    newer_because: str  # why `newer` is taken as the newer of the two

    @classmethod
    def of(cls, pair: Ranked, docs: dict[str, Document]) -> ReviewPair:
        """The pair as the list ranks it, with both records' excerpts and the evidence."""
        return _pair(pair, docs)

    @property
    def ids(self) -> tuple[str, str]:
        return self.older.id, self.newer.id

    @property
    def cursor(self) -> str:
        """The cursor that continues the list after this pair."""
        return _cursor(self.score, self.older.id, self.newer.id)

    def to_json(self) -> dict[str, Any]:
        return {
            "older": self.older.to_json(),
            "newer": self.newer.to_json(),
            "score": self.score,
            "reasons": list(self.reasons),
            "newer_because": self.newer_because,
        }


@dataclass(frozen=True)
class ReviewPage:
    """One page of the review list, and where the next one starts."""

    pairs: tuple[ReviewPair, ...]
    cursor: str | None  # give it back for the next page; None: this page ends the list
    remaining: int  # pairs after this page
    listed: int  # pairs the list holds now, at its depth, beyond those settled or judged
    depth: int  # the depth asked (pairs of the whole ranking looked at)
    left_out: int  # pairs within the depth left out: settled or judged already

    @property
    def before(self) -> int:
        """Pairs the list holds before this page (before its cursor): passed over, not judged."""
        return self.listed - len(self.pairs) - self.remaining

    def to_json(self) -> dict[str, Any]:
        return {
            "pairs": [p.to_json() for p in self.pairs],
            "cursor": self.cursor,
            "remaining": self.remaining,
            "listed": self.listed,
            "depth": self.depth,
            "left_out": self.left_out,
        }


def _cursor(score: float, older: str, newer: str) -> str:
    raw = json.dumps([score, older, newer], ensure_ascii=False).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _read_cursor(cursor: str) -> tuple[float, str, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor.strip() + "=" * (-len(cursor.strip()) % 4))
        score, older, newer = json.loads(raw.decode("utf-8"))
        if not isinstance(score, (int, float)) or not isinstance(older, str) or not isinstance(newer, str):
            raise ValueError
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise RefusedError(
            f"cursor {cursor[:60]!r} is not one the review list gave; start again without a cursor"
        ) from None
    return float(score), older, newer


def _key(score: float, older: str, newer: str) -> tuple[float, str, str]:
    return (-score, older, newer)


def default_depth(decisions: int) -> int:
    """One pair per two decisions a pair may involve (at least one)."""
    return max(1, decisions // DEPTH_PER)


@dataclass(frozen=True)
class Ranked:
    """A pair as the list ranks it: what the queue weighed of it, kept so it can be read back."""

    older: str
    newer: str
    score: float  # its review score with the shipped settings (`Weighed.review_score`), rounded as the cursor keeps it
    alike: float  # how alike in words, both ways (`Weighed.alike`)
    reasons: tuple[str, ...]  # kinship's reasons, in the records' words
    shared: tuple[str, ...]  # the words (stems) the texts share most

    @classmethod
    def of(cls, weighed: Weighed) -> Ranked:
        return cls(
            weighed.older,
            weighed.newer,
            round(weighed.review_score(DEFAULT), 6),
            weighed.alike,
            tuple(weighed.like.reasons),
            tuple(weighed.like.shared_words),
        )


KEPT = REVIEW  # the ranking's entry in the derived store's `kept` table (and its rows' name in `kept_rows`)
_RANKED: list = [None, None]  # (the documents' identities and the settings' pairs), the ranking for them
_SHOWN: dict[tuple[Ranked, str, str], ReviewPair] = {}  # pairs with their excerpts, by both records' digests
_SHOWN_MOST = 1_000


class Ranking:
    """Every weighed pair the list ranks, best first, read as far down as asked: from a ranking
    kept in the derived store (`kept_ranking`), or held whole in memory where there is no store.
    A kept block gone since (another process kept a newer ranking and deleted it) makes the
    ranking again whole (`again`)."""

    def __init__(self, kept: KeptRanking | None, entries: list[Entry] | None, again: Callable[[], list[Entry]]):
        self._kept, self._entries, self._again = kept, entries, again
        self._top: list[Ranked] = []

    def __len__(self) -> int:
        return len(self._entries) if self._entries is not None else len(self._kept or ())

    def top(self, depth: int) -> list[Ranked]:
        """The `depth` best pairs (all there are, if fewer)."""
        if len(self._top) < min(depth, len(self)):
            self._top = [
                Ranked(*e) for e in self._read(lambda kept: kept.top(depth), lambda: (self._entries or [])[:depth])
            ]
        return self._top[:depth]

    def find(self, older: str, newer: str) -> Ranked | None:
        """The pair as ranked (in this order), or None where the list does not rank it."""

        def whole() -> Entry | None:
            return next((e for e in self._entries or [] if e[0] == older and e[1] == newer), None)

        found = self._read(lambda kept: kept.find(older, newer), whole)
        return Ranked(*found) if found is not None else None

    def _read(self, kept: Callable[[KeptRanking], Any], held: Callable[[], Any]) -> Any:
        if self._entries is None and self._kept is not None:
            try:
                return kept(self._kept)
            except Stale:
                self._entries, self._kept, self._top = self._again(), None, []
        return held()


def _entry(ranked: Ranked) -> Entry:
    return (ranked.older, ranked.newer, ranked.score, ranked.alike, ranked.reasons, ranked.shared)


def _ranked(index: VaultIndex) -> tuple[list[Document], Ranking, int]:
    """Every weighed pair, best first by its review score, worked out again only when the
    documents or the pairs the vault's settings call compatible changed: a long-lived server
    answers page after page from one ranking, and a new process reads it from the derived store,
    kept under the conflicts queue's key (every document's digest, how the vault is read, the
    day, the code), so a client that starts a server for every call does not weigh every pair
    each time (5 s at 10,000 documents), nor after a change to nothing the pairs read (the ranking
    kept for the same `kept_conflicts.content_key`). After a change, the ranking kept last follows
    the pairs the weighing weighed again (`_followed`). With it, the number of decisions a pair
    may involve (which sets the default depth): counting them decodes every document's
    frontmatter (1 s at 10,000)."""
    documents = index.documents
    compatible = index.config.compatible
    key = (tuple(map(id, documents)), compatible)
    if _RANKED[0] == key:
        return _RANKED[1][:3]
    store, flavour = index.store, index.flavour
    kept_key = (
        queue_key(documents, flavour.reading, flavour.native, today(), code_fingerprint(), compatible)
        if store is not None
        else ""
    )
    kept = store.kept(KEPT, kept_key) if store is not None else None
    record = kept_ranking.load(kept)
    content = None
    if record is None and store is not None:
        # The ranking kept for documents the pairs read alike (a change to the body of a note), asked
        # before the weighing splits and decodes the rows' texts (`kept_conflicts.content_key`).
        setting = setting_key(flavour.reading, flavour.native, today(), code_fingerprint(), compatible)
        content = content_key(documents, store, setting)
        before = store.kept(REVIEW_CONTENT, content) if content is not None else None
        kept = store.kept(KEPT, before) if isinstance(before, str) else None
        record = kept_ranking.load(kept)
        if record is not None and isinstance(kept, bytes):
            store.keep(KEPT, kept_key, kept)
    if record is not None and store is not None:
        ranking = Ranking(KeptRanking(record, _reader(store)), None, lambda: _weighed_whole(index, kept_key))
        decisions = record.decisions
    else:
        ranking, decisions = _followed(index, kept_key)
    if content is not None and store is not None:
        store.keep(REVIEW_CONTENT, content, kept_key)
    _RANKED[:] = [key, (documents, ranking, decisions, {d.id: d for d in documents})]
    _SHOWN.clear()  # excerpts of documents that may have changed since
    return documents, ranking, decisions


def _reader(store: Any) -> Callable[[list[str]], dict[str, bytes]]:
    return lambda keys: store.kept_rows(KEPT, keys)


@dataclass
class _Weighed:
    """What `_weigh` gives: the pairs decoded (every pair listed, or where the ranking followed
    only those touched), how many are listed, and what the ranking follows."""

    pairs: list[Weighed]
    listed: int
    decisions: int
    touched: set[tuple[str, str]]  # pairs weighed again, new or gone, or listed no more or again
    follows: bool  # the weighing stood as the ranking kept says before this call or a save since
    after: str  # the weighing's identity (`kept_ranking.identity`) after this call
    whole: Callable[[], list[Weighed]]  # every pair listed, decoded


def _weigh(index: VaultIndex, kept: str = "") -> _Weighed:
    """The pairs weighed as the queue weighs them (`kept_conflicts.weighed_pairs`), with what the
    ranking follows (`touched` empty where everything was weighed again). Where the weighing stood
    as `kept` (the identity of the ranking kept) says before this call or one of its last saves,
    only the pairs touched since are decoded (the ranking follows them: `_followed`); else every
    pair listed."""
    flavour = index.flavour
    asked = Asked(index.documents, flavour.reading, flavour.native, index.store, today(), index.config.compatible)
    with collector_paused():
        pairs = asked.weighing()
        touched, follows = kept_ranking.touched_now(asked.setting, pairs, kept)
        weighed = pairs.listed_among(touched) if not pairs.full and follows else None
        if pairs.full or weighed is None:  # also where what was kept did not hold together
            weighed = pairs.weighed()
        full = pairs.full
        asked.keep_weighing()
        after = kept_ranking.identity(asked.setting, pairs.kept.pair_rows, pairs.kept.unlisted)
    return _Weighed(
        weighed,
        pairs.listed_count(),
        pairs.decisions,
        set() if full else touched,
        not full and follows,
        after,
        pairs.weighed,
    )


def _followed(index: VaultIndex, kept_key: str) -> tuple[Ranking, int]:
    """The ranking after a change: the one kept last with the pairs the weighing weighed again
    taken out and put back, where it was made from the weighing as it stood before (else, or
    where it does not hold together, made whole); kept, its rows made in this call written."""
    store = index.store
    last = kept_ranking.load(store.kept_last(KEPT)) if store is not None else None
    found = _weigh(index, last.identity if last is not None else "")
    decisions = found.decisions
    if store is None:
        held = sorted((_entry(Ranked.of(w)) for w in found.pairs), key=kept_ranking.rank_key)
        return Ranking(None, held, lambda: held), decisions
    if not found.follows:
        last = None
    made = None
    if last is not None:
        touched = found.touched
        now = {(w.older, w.newer): _entry(Ranked.of(w)) for w in found.pairs if (w.older, w.newer) in touched}
        try:
            made = kept_ranking.follow(last, _reader(store), touched, now, found.listed, decisions, found.after)
        except Stale:
            made = None
    entries: list[Entry] | None = None
    if made is None:
        entries = sorted((_entry(Ranked.of(w)) for w in found.whole()), key=kept_ranking.rank_key)
        made = kept_ranking.whole(entries, decisions, found.after)
    record, rows = made
    store.keep_rows(KEPT, rows, replace=entries is not None)
    store.keep(KEPT, kept_key, record.dump())
    if last is not None and entries is None:
        store.forget_rows(KEPT, last.rows() - record.rows())
    kept = KeptRanking(record, _reader(store))
    return Ranking(kept, entries, lambda: _weighed_whole(index, kept_key)), decisions


def _weighed_whole(index: VaultIndex, kept_key: str) -> list[Entry]:
    """Every pair ranked again from the weighing, and kept whole (a kept block was gone)."""
    found = _weigh(index)
    entries = sorted((_entry(Ranked.of(w)) for w in found.pairs), key=kept_ranking.rank_key)
    store = index.store
    if store is not None:
        record, rows = kept_ranking.whole(entries, found.decisions, found.after)
        store.keep_rows(KEPT, rows, replace=True)
        store.keep(KEPT, kept_key, record.dump())
    return entries


def _docs(index: VaultIndex) -> dict[str, Document]:
    """The documents by id, as the ranking `_ranked` just gave holds them."""
    return _RANKED[1][3]


def _newer_because(older: Document, newer: Document, first: Excerpt, second: Excerpt) -> str:
    if older.status not in LIVE and newer.status in LIVE:
        earlier = (first.date and second.date and second.date < first.date) or (
            not (first.date and second.date)
            and first.number is not None
            and second.number is not None
            and second.number < first.number
        )
        return (
            f"{newer.id}'s status ({second.status}) is live and {older.id}'s ({first.status}) is not, "
            "whatever their dates say"
            + (
                f"; by its {'date' if first.date and second.date else 'number'} {newer.id} is the earlier "
                f"({second.date or second.number}, {older.id} {first.date or first.number}): a status that "
                "is not live does not say which record, if any, replaced it"
                if earlier
                else ""
            )
        )
    if first.date and second.date and first.date != second.date:
        numbers = first.number is not None and second.number is not None and first.number > second.number
        return f"{newer.id} is dated {second.date}, after {older.id} ({first.date})" + (
            f", though numbered {second.number}, before {older.id}'s {first.number}" if numbers else ""
        )
    if first.number is not None and second.number is not None and first.number != second.number:
        return f"{newer.id} is numbered {second.number}, after {older.id} ({first.number})"
    if second.date and not first.date:
        return f"{newer.id} is dated {second.date}; {older.id} states no date"
    return "neither date nor number tells them apart: taken in the order of their ids"


def _reasons(pair: Ranked, older: Document, newer: Document, first: Excerpt, second: Excerpt) -> tuple[str, ...]:
    reasons = [r for r in pair.reasons if not r.startswith("it cites ")]
    if pair.alike >= 0.5:
        reasons.append(f"each is among the other's most alike in words ({round(pair.alike * 100)}%)")
    elif not reasons:
        reasons.append(f"their texts are alike in words ({round(pair.alike * 100)}% of each one's best match)")
    profiles = profiles_of([older, newer])
    if (profiles[newer.id].mentions | linked_keys(newer.body)) & profiles[older.id].handles:
        reasons.insert(0, f"{newer.id} cites {older.id}")
    if (profiles[older.id].mentions | linked_keys(older.body)) & profiles[newer.id].handles:
        reasons.insert(0, f"{older.id} cites {newer.id}")
    dated = [f"{e.id} {e.date}" for e in (first, second) if e.date]
    numbered = [f"{e.id} is number {e.number}" for e in (first, second) if e.number is not None]
    if len(dated) == 2:
        reasons.append("dated " + " and ".join(dated))
    if len(numbered) == 2 and not len(dated) == 2:
        reasons.append(" and ".join(numbered))
    return tuple(reasons)


def _pair(pair: Ranked, docs: dict[str, Document]) -> ReviewPair:
    older, newer = docs[pair.older], docs[pair.newer]
    profiles = profiles_of([older, newer])
    shared = set(pair.shared) | (set(words(older.title)) & set(words(newer.title)))
    first = excerpt(older, shared, profiles[newer.id].handles)
    second = excerpt(newer, shared, profiles[older.id].handles)
    return ReviewPair(
        first,
        second,
        pair.score,
        _reasons(pair, older, newer, first, second),
        _newer_because(older, newer, first, second),
    )


def _shown(pair: Ranked, docs: dict[str, Document]) -> ReviewPair:
    """`_pair`, kept with the ranking (which is worked out again whenever a document changes): a
    page asked again, a pair a screen shows again, or one excerpted ahead of its page (the MCP
    server's next page) is not excerpted again. Kept by both records' digests too, so that an
    excerpt worked out in another thread while a record changed is never shown for the new one."""
    key = (pair, docs[pair.older].digest, docs[pair.newer].digest)
    found = _SHOWN.get(key)
    if found is None:
        if len(_SHOWN) >= _SHOWN_MOST:
            _SHOWN.clear()
        found = _SHOWN[key] = _pair(pair, docs)
    return found


def review_list(index: VaultIndex, depth: int | None = None) -> tuple[list[Ranked], int, int, dict[str, Document]]:
    """The ranked pairs the list offers now, best first: (pairs, depth, left out, documents by id)."""
    if depth is not None and depth < 1:
        raise RefusedError(f"depth must be 1 or more, not {depth}")
    _, ranking, decisions = _ranked(index)
    docs = _docs(index)
    depth = default_depth(decisions) if depth is None else depth
    judged = judged_pairs(verdicts(index, docs)[0])
    within = ranking.top(depth)
    offered = [w for w in within if frozenset((w.older, w.newer)) not in judged]
    return offered, depth, len(within) - len(offered), docs


def pair_of(index: VaultIndex, older: str, newer: str) -> ReviewPair:
    """Any two records as the list would show them (a judged pair a curator reviews, say): with
    the ranking's score and evidence where it weighed them (either way round), else with their
    excerpts, dates and which is newer alone."""
    documents, ranking, _ = _ranked(index)
    docs = {d.id: d for d in documents}
    for doc_id in (older, newer):
        if doc_id not in docs:
            docs[doc_id] = index.get(doc_id)  # refused for an id no document has
    both = [r for r in (ranking.find(older, newer), ranking.find(newer, older)) if r is not None]
    if both:  # the better ranked, were both ways weighed
        return _pair(min(both, key=lambda r: _key(r.score, r.older, r.newer)), docs)
    profiles = profiles_of([docs[older], docs[newer]])
    older, newer = sorted(
        (older, newer), key=lambda doc_id: profiles[doc_id].when
    )  # the older first, as the queue orders a pair
    if docs[newer].status not in LIVE and docs[older].status in LIVE:
        older, newer = newer, older  # the status says which replaced which, whatever the dates
    return _pair(Ranked(older, newer, 0.0, 0.0, (), ()), docs)


def review_page(
    index: VaultIndex,
    limit: int = PAGE,
    cursor: str | None = None,
    depth: int | None = None,
    room: int = READ_CHARACTERS,
) -> ReviewPage:
    """One page of the list: up to `limit` pairs after `cursor`, as many as fit `room` characters
    of an answer (`answer_size`, less what a face puts around them); at least one."""
    if limit < 1:
        raise RefusedError(f"limit must be 1 or more, not {limit}")
    offered, depth, left_out, docs = review_list(index, depth)
    after = _key(*_read_cursor(cursor)) if cursor else None
    ahead = [r for r in offered if after is None or _key(r.score, r.older, r.newer) > after]
    fits = room - ENVELOPE
    page: list[ReviewPair] = []
    for ranked in ahead[:limit]:
        pair = _shown(ranked, docs)
        if page and answer_size([p.to_json() for p in [*page, pair]]) > fits:
            break
        page.append(pair)
    if len(page) == 1 and answer_size([page[0].to_json()]) > fits:  # one pair alone too long: openings cut
        only = page[0]
        cut = fit_openings(
            [only.older, only.newer],
            [docs[only.older.id], docs[only.newer.id]],
            fits,
            lambda e: answer_size([replace(only, older=e[0], newer=e[1]).to_json()]),
        )
        page = [replace(only, older=cut[0], newer=cut[1])]
    remaining = len(ahead) - len(page)
    return ReviewPage(
        tuple(page),
        page[-1].cursor if page and remaining else None,
        remaining,
        len(offered),
        depth,
        left_out,
    )


def excerpt_ahead(index: VaultIndex, limit: int, cursor: str, between: Callable[[], None]) -> None:
    """Excerpt the `limit` pairs after `cursor` ahead of the page that shows them (kept as `_shown`
    keeps them), calling `between()` before each: a server lets its calls go first there."""
    offered, _, _, docs = review_list(index, None)
    after = _key(*_read_cursor(cursor))
    for ranked in [r for r in offered if _key(r.score, r.older, r.newer) > after][:limit]:
        between()
        _shown(ranked, docs)


def excerpted_candidates(
    index: VaultIndex,
    draft: Draft,
    found: list[Candidate],
    room: int = READ_CHARACTERS,
    size: Callable[[list[dict[str, Any]]], int] = answer_size,
) -> list[Candidate]:
    """The gate's candidates, in their order, each with its excerpt (the passage that matched is
    the one holding most of the draft's words, or citing what the draft cites), all within the
    read budget: at most READ_DOCUMENTS, and openings cut evenly until `room` less the envelope holds them."""
    found = found[:READ_DOCUMENTS]
    mine = draft.profile()
    stems = set(mine.terms)
    cited = set(mine.mentions)
    docs = [index.get(candidate.id) for candidate in found]
    excerpts = [excerpt(doc, stems, cited) for doc in docs]

    def sized(items: list[Excerpt]) -> int:
        return size([replace(c, excerpt=e).to_json() for c, e in zip(found, items)])

    fitted = fit_openings(excerpts, docs, room - ENVELOPE, sized)
    return [replace(c, excerpt=e) for c, e in zip(found, fitted)]
