"""The facade's part for the review list and readers' verdicts (`review.py`, `verdicts.py`): pairs
of decisions that may replace one another, offered a page at a time, and what readers judged of
them, for the curator to accept or reject. Mixed into `Vault`; see `vault_base.py`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .storage.changes import Plan
from .vault_base import VaultBase, serialized

if TYPE_CHECKING:
    from .services.kept_answers import Fingerprint
    from .services.review import ReviewPage, ReviewPair
    from .services.verdicts import LineProblem, Verdict

__all__ = ["ReviewMethods"]


class ReviewMethods(VaultBase):
    """The review list and readers' verdicts, as `Vault` answers them."""

    def review(
        self,
        limit: int = 5,
        cursor: str | None = None,
        depth: int | None = None,
        room: int | None = None,
        unchanged: Fingerprint | None = None,
    ) -> ReviewPage:
        """A page of the review list: pairs of decisions that may replace one another, best first,
        each with both records' excerpts and the evidence in their words, never a settled or judged
        pair; at most `limit` pairs and `room` characters (45,000). Give the page's `cursor` back for
        the next; it holds across writes. `depth`: how far down the ranking (default: one pair per
        two decisions). Worked out on a snapshot of the documents, without holding the vault's
        mutex (weighing every pair takes seconds at 10,000 documents), as `conflicts()` is.
        `unchanged`: the fingerprint taken before this vault was opened, under which the page is
        kept for the next process that takes the same (`kept_answers`)."""
        from .services import review
        from .views.excerpts import READ_CHARACTERS

        page = review.review_page(self.index, limit, cursor, depth, room or READ_CHARACTERS)
        if unchanged is not None:
            from .services import kept_answers

            kept_answers.keep(self.index, unchanged, ("review", limit, cursor, depth, room), page=page.to_json())
        return page

    def review_ahead(self, limit: int, cursor: str, between: Callable[[], None] = lambda: None) -> None:
        """Excerpt the pairs of the page after `cursor` before it is asked for (a server does it
        while the agent judges this page), calling `between()` before each pair; nothing is
        returned, and the page, when asked, finds them done."""
        from .services import review

        review.excerpt_ahead(self.index, limit, cursor, between)

    def review_pairs(self, depth: int | None = None) -> list[ReviewPair]:
        """The whole review list as it is now, best first, each pair with its excerpts (a screen
        pages through it itself)."""
        from .services import review

        offered, _, _, docs = review.review_list(self.index, depth)
        return [review.ReviewPair.of(pair, docs) for pair in offered]

    def review_pair(self, older: str, newer: str) -> ReviewPair:
        """Two records as the review list shows a pair (excerpts, evidence, which is newer): for a
        verdict's pair, which the list no longer offers once judged."""
        from .services import review

        return review.pair_of(self.index, older, newer)

    @serialized
    def judge(self, older: str, newer: str, verdict: str, reason: str, agent: str) -> Verdict:
        """Record a reader's verdict on a pair (replaces, companion, reversed or unsure) with both
        records' digests, for the curator; nothing is written to a record."""
        from .services import verdicts

        return verdicts.record(self.index, older, newer, verdict, reason, agent)

    @serialized
    def judge_lines(self, text: str) -> tuple[list[Verdict], list[LineProblem]]:
        """Verdicts given as JSON Lines (older, newer, verdict, reason, agent a line): the good
        lines recorded, the bad ones named by number and not taken."""
        from .services import verdicts

        taken, problems = verdicts.parse_lines(self.index, text)
        return (verdicts.record_lines(self.index, taken) if taken else []), problems

    def verdicts(self, states: Iterable[str] | None = None) -> list[Verdict]:
        """Every verdict, oldest first, each with what became of it (`Verdict.state`: open, stale,
        accepted, rejected, settled, withdrawn), or only those in `states`."""
        from .services import verdicts

        found = verdicts.verdicts(self.index)[0]
        wanted = set(states) if states is not None else None
        return [v for v in found if wanted is None or v.state in wanted]

    def verdict_problems(self) -> list[LineProblem]:
        """The lines of the verdicts file that could not be read (edited by hand)."""
        from .services import verdicts

        return verdicts.read_verdicts(self.index)[1]

    @serialized
    def accept_verdict(self, verdict_id: str, dry_run: bool = False) -> Plan:
        """Do what an open verdict says: `replaces`/`reversed` write the supersession both sides in
        the format's own words, `companion` marks the pair compatible; one undoable change. Refused
        when either record changed since it was judged (the verdict is stale) or for `unsure`."""
        from .services import verdicts

        return self.apply(verdicts.plan_accept(self.index, verdict_id), dry_run)

    @serialized
    def reject_verdict(self, verdict_id: str, dry_run: bool = False) -> Plan:
        """Say no to a verdict: the pair is marked compatible, so no one is asked about it again."""
        from .services import verdicts

        return self.apply(verdicts.plan_reject(self.index, verdict_id), dry_run)

    @serialized
    def accept_verdicts(self, verdict_ids: list[str], dry_run: bool = False) -> Plan:
        """Several `replaces` verdicts (one agent's, say) accepted as one change: one preview, one undo."""
        from .services import verdicts

        return self.apply(verdicts.plan_accept_many(self.index, verdict_ids), dry_run)

    @property
    def verdicts_path(self) -> Path:
        """The file readers' verdicts are kept in (a list that follows them looks at its size and time)."""
        from .records.vaultconfig import VERDICT_FILE

        return self.root / VERDICT_FILE
