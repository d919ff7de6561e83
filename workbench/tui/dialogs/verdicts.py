"""Readers' verdicts as the curator meets them: in the conflicts queue (`c`), first, and in the inbox.

An agent (over MCP, `memory_judge`) or a script (`workbench review --verdicts FILE`) judges a pair
of decisions: the newer `replaces` the older, they are `companion`s, it is `reversed`, or it is
`unsure` (`core/services/verdicts.py`). Nothing is written to a record until the person says so. Here each
open verdict is shown by the titles of its records, with the agent's name and reason, and the
person answers: accept (the supersession written both sides in the format's own words, or the pair
kept as compatible for a companion), reject (the pair kept as compatible, so no one is asked about
it again), or accept all of one agent's replacements together. Each answer is a `Proposal`, so it is
previewed as a diff, written only on `y`, and undone with `u` (an undo brings the verdict back).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from textual.content import Content

from ...core import Document, Resolution, Verdict
from ..proposal import Proposal
from ..text import clean

if TYPE_CHECKING:
    from ...core import Vault

__all__ = [
    "TitlesOf",
    "VERDICT_WORDS",
    "answers_to",
    "either_way",
    "Judged",
    "VerdictChoice",
    "judged_in",
    "moved_on",
    "choice_label",
    "replacements_of",
    "said",
    "verdict_proposal",
    "verdict_prompt",
    "verdict_text",
]


class TitlesOf(Mapping[str, str]):
    """The titles of `documents` (by id), each read when asked: a dict of every title made on the
    screen's thread (100,000 at once for a queue or a verdict's preview) was a frame missed, for
    the few a dialog shows."""

    def __init__(self, documents: Mapping[str, Document]) -> None:
        self.documents = documents

    def __getitem__(self, doc_id: str) -> str:
        return self.documents[doc_id].title

    def __iter__(self):
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)


VERDICT_WORDS = {
    "replaces": "Replaces",
    "reversed": "Replaces, the other way",
    "companion": "Companions: both stand",
    "unsure": "Unsure",
}
"""Each verdict in a few words, for the list at 80 columns."""

ACCEPTED_TOGETHER = ("replaces", "reversed")
"""The verdicts that can be accepted together (each writes a supersession)."""


@dataclass(frozen=True)
class VerdictChoice:
    """The curator's answer to a verdict: `accept`, `reject`, `accept-all` (every open
    replacement `verdict.agent` gave, `ids`, as one change), or `open` (the newer record)."""

    action: str
    verdict: Verdict
    ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Judged:
    """The open verdicts as the inbox lists them: the records' titles, what answering one would
    write (`diff`, read in a worker), and how to read them all again as the vault moves (`reload`)."""

    verdicts: tuple[Verdict, ...] = ()
    titles: Mapping[str, str] = field(default_factory=dict)
    diff: Callable[[Verdict], str] | None = None
    reload: Callable[[], Judged] | None = None


def judged_in(vault: Vault) -> Judged:
    """The vault's open verdicts, read now (call it in a worker: the vault may be busy)."""
    return Judged(
        tuple(vault.verdicts(("open",))),
        {doc.id: doc.title for doc in vault.documents},
        partial(_answer_diff, vault),
        partial(judged_in, vault),
    )


def moved_on(vault: Vault) -> Callable[[], int]:
    """A number that changes when the vault's records do (its generation) or when its verdicts
    file does: the watcher reports an agent's verdict without re-reading any record, so a list
    that follows the vault looks at the file's size and time as well (a stat, every poll)."""
    path = vault.verdicts_path

    def now() -> int:
        try:
            stat = path.stat()
            stamp: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            stamp = None
        return hash((vault.generation, stamp))

    return now


def _answer_diff(vault: Vault, verdict: Verdict) -> str:
    """What accepting `verdict` writes; for an unsure one, what rejecting it writes."""
    if verdict.verdict == "unsure":
        return vault.reject_verdict(verdict.id, dry_run=True).diff()
    return vault.accept_verdict(verdict.id, dry_run=True).diff()


def answers_to(verdict: Verdict) -> tuple[str, ...]:
    """The answers that differ from one another for this verdict: a replacement is accepted or
    rejected (both stand); a companion is accepted (both stand: rejecting it would write the same),
    and an unsure one rejected (nothing to accept); `either_way` settles those two otherwise."""
    if verdict.verdict in ACCEPTED_TOGETHER:
        return ("accept", "reject")
    return ("accept",) if verdict.verdict == "companion" else ("reject",)


def either_way(verdict: Verdict) -> list[Resolution]:
    """For a companion or an unsure verdict, the supersession either way, newer over older first:
    the person's own answer where the agent's is not one (the queue's resolutions for the pair)."""
    if verdict.verdict in ACCEPTED_TOGETHER:
        return []
    older, newer = verdict.older, verdict.newer
    return [
        Resolution("supersede", f"{newer} supersedes {older}", f"supersede {older} {newer}"),
        Resolution("supersede", f"{older} supersedes {newer}", f"supersede {newer} {older}"),
    ]


def replacements_of(verdicts: Sequence[Verdict], agent: str) -> list[Verdict]:
    """The open verdicts of `agent` that say one record replaces the other, in the order given."""
    return [v for v in verdicts if v.agent == agent and v.state == "open" and v.verdict in ACCEPTED_TOGETHER]


def _title(doc_id: str, titles: Mapping[str, str]) -> str:
    title = titles.get(doc_id)
    return f"“{title}”" if title and title != doc_id else doc_id


def said(verdict: Verdict, titles: Mapping[str, str]) -> str:
    """What the verdict says, the records named by title."""
    older, newer = _title(verdict.older, titles), _title(verdict.newer, titles)
    if verdict.verdict == "replaces":
        return f"{newer} replaces {older}"
    if verdict.verdict == "reversed":
        return f"{older} replaces {newer} (given the other way round)"
    if verdict.verdict == "companion":
        return f"{older} and {newer} are companions: both stand"
    return f"unsure whether {newer} replaces {older}"


def choice_label(action: str, verdict: Verdict, together: int = 0) -> str:
    """A button's words for answering `verdict` with `action` (the verdict above names the records)."""
    if action == "accept":
        if verdict.successor is not None:
            return "Accept: supersede, both sides"
        return "Accept: both stand"
    if action == "reject":
        return "Reject: both stand, not asked again"
    return f"Accept all {together} of {verdict.agent}'s, together"


def verdict_prompt(
    verdict: Verdict, titles: Mapping[str, str], id_width: int, short: Callable[[str, int], str]
) -> Content:
    """The list's entry: the verdict in words with its agent, then both records by title and id
    (the newer first: the one said to replace)."""
    lines = [
        Content.assemble(
            (clean(VERDICT_WORDS.get(verdict.verdict, verdict.verdict)), "bold $text-accent"),
            (f" · {clean(verdict.agent)}", "$text 60%"),
        )
    ]
    for doc_id in (verdict.newer, verdict.older):
        title = titles.get(doc_id)
        if title:
            lines.append(Content.assemble("  ", clean(title)))
        lines.append(Content.styled(f"    {clean(short(doc_id, id_width))}", "$text 60%"))
    return Content("\n").join(lines)


def verdict_text(verdict: Verdict, titles: Mapping[str, str]) -> Content:
    """Above the records: who judged what, and why, in the agent's words."""
    when = verdict.local_at.replace("T", " ")[:16]
    return Content.assemble(
        (clean(verdict.agent), "bold $text-accent"),
        (f" judged · {clean(verdict.verdict)} · {when}", "$text 60%"),
        "\n",
        (clean(said(verdict, titles)), "bold"),
        "\n",
        (clean(verdict.reason) if verdict.reason else "(no reason given)", "" if verdict.reason else "$text 60%"),
    )


def verdict_proposal(
    choice: VerdictChoice,
    documents: Mapping[str, Document],
    then: Callable[[], object] | None = None,
    back: Callable[[], object] | None = None,
) -> Proposal:
    """The dry run and write behind an answer to a verdict (the core refuses a stale one)."""
    verdict = choice.verdict
    titles = TitlesOf(documents)
    if choice.action == "accept-all":
        ids = list(choice.ids)
        return Proposal(
            f"Accept {len(ids)} of {verdict.agent}'s verdicts: each supersession written both sides?",
            lambda vault: vault.accept_verdicts(ids, dry_run=True),
            then=then,
            back=back,
        )
    if choice.action == "reject":
        return Proposal(
            f"Reject {verdict.agent}'s verdict: both stand, kept as compatible?",
            lambda vault: vault.reject_verdict(verdict.id, dry_run=True),
            then=then,
            back=back,
        )
    return Proposal(
        f"Accept {verdict.agent}'s verdict: {said(verdict, titles)}?",
        lambda vault: vault.accept_verdict(verdict.id, dry_run=True),
        then=then,
        back=back,
    )
