"""The review list's ranking follows a change pair by pair (`kept_ranking`): after random changes by
plain file I/O between fresh opens it is, every time, the ranking made whole from the same weighing,
and a ranking kept for a weighing that moved on without it (the queue asked in between) follows
the pairs touched since, or is made whole past the weighing's last saves."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from helpers import copied, shaped_vault
from tests.test_weighing import _supersede, change_at_random, rewrite
from workbench import Vault
from workbench.core.services import kept_conflicts, kept_ranking, review, weighing
from workbench.core.vocabulary.model import DocType

SIZE = 2400  # about 600 decisions: six of them change before the weighing counts everything again
ALL = 10**9  # a depth past every pair


@pytest.fixture(scope="module")
def shaped(tmp_path_factory) -> Path:
    return shaped_vault(tmp_path_factory, SIZE, seed=5)


@pytest.fixture
def vault_root(shaped: Path, tmp_path: Path) -> Path:
    return copied(shaped, tmp_path)


@pytest.fixture
def followed(monkeypatch) -> list[int]:
    """How many pairs each call of `kept_ranking.follow` followed (the real one runs), -1 where it
    found the ranking kept did not hold together (made whole then)."""
    calls: list[int] = []
    real = kept_ranking.follow

    def counted(record, read, touched, *rest):
        try:
            found = real(record, read, touched, *rest)
        except kept_ranking.Stale:
            calls.append(-1)
            raise
        calls.append(len(touched))
        return found

    monkeypatch.setattr(kept_ranking, "follow", counted)
    return calls


def _fresh(root: Path) -> Vault:
    review._RANKED[:] = [None, None]  # as a new process: nothing held in memory
    return Vault.open(root)


def _listed_and_whole(root: Path) -> tuple[list[review.Ranked], list[review.Ranked]]:
    """(the whole list as a fresh open ranks it, the ranking made whole from the same weighing)."""
    vault = _fresh(root)
    listed = review.review_list(vault.index, ALL)[0]
    weighed, _ = kept_conflicts.weighed_pairs(vault.index)  # as kept just now: nothing weighed again
    whole = sorted((review.Ranked.of(w) for w in weighed), key=lambda r: (-r.score, r.older, r.newer))
    return listed, whole


def _change(root: Path, rng: random.Random, step: int) -> None:
    change_at_random(root, rng, (0, 1, 2, 0)[step % 4])  # a body rewritten every other step


def test_the_ranking_followed_after_random_changes_is_the_ranking_made_whole(vault_root, followed):
    listed, whole = _listed_and_whole(vault_root)
    assert listed == whole and len(whole) > 500
    rng = random.Random(11)
    for step in range(7):
        _change(vault_root, rng, step)
        before = len(followed)
        listed, whole = _listed_and_whole(vault_root)
        assert listed == whole, step
        if step < 5:  # the rarities counted again later: everything weighed, the ranking made whole
            assert len(followed) == before + 1 and followed[-1] >= 0, step
    assert any(n > 0 for n in followed)  # pairs were taken out and put back


def test_pages_and_a_pair_after_a_change_are_those_of_the_ranking_made_whole(vault_root, followed):
    """A page, the next one and a pair shown alone, from the ranking followed, are as they are from
    the ranking made whole from the same weighing (the ranking kept replaced by nothing)."""
    _listed_and_whole(vault_root)
    rewrite(sorted((vault_root / "decisions").glob("*.md"))[3], random.Random(1))
    vault = _fresh(vault_root)
    first = vault.review(limit=5)
    second = vault.review(limit=5, cursor=first.cursor)
    pair = first.pairs[2]
    shown = vault.review_pair(pair.newer.id, pair.older.id)
    assert followed[0] > 0 and second.pairs
    vault.store.keep(review.KEPT, "nothing", b"")  # no ranking kept: made whole
    vault = _fresh(vault_root)
    assert vault.review(limit=5).to_json() == first.to_json()
    assert vault.review(limit=5, cursor=first.cursor).to_json() == second.to_json()
    assert vault.review_pair(pair.newer.id, pair.older.id) == shown
    assert len(followed) == 1


@pytest.mark.parametrize("saves", [1, weighing.SAVES])
def test_a_ranking_kept_for_a_weighing_that_moved_on_follows_its_last_saves(vault_root, followed, monkeypatch, saves):
    """The queue asked after a change weighs its pairs again and keeps them, the review list's
    ranking left as it was; after the next change the ranking kept is the weighing's of a save
    back: it follows the pairs both saves touched (following this change's alone, it would keep
    the first change's pairs as they were weighed before it), and past `weighing.SAVES` saves back
    it is made whole."""
    monkeypatch.setattr(weighing, "SAVES", saves)
    _listed_and_whole(vault_root)
    paths = sorted((vault_root / "decisions").glob("*.md"))
    rng = random.Random(3)
    for path in paths[10:12]:
        rewrite(path, rng)
    _fresh(vault_root).conflicts()  # the weighing moves on; the ranking kept stays
    rewrite(paths[20], rng)
    _fresh(vault_root).conflicts()  # and on
    rewrite(paths[30], rng)
    before = len(followed)
    listed, whole = _listed_and_whole(vault_root)
    assert listed == whole
    assert len(followed) == (before if saves == 1 else before + 1)  # else not followed: made whole


def test_a_block_gone_or_a_score_misplaced_is_made_whole(vault_root):
    """A row the record names deleted by another process, or a record whose scores do not place a
    pair where its block holds it: the ranking is made whole again, never read wrong."""
    _listed_and_whole(vault_root)
    paths = sorted((vault_root / "decisions").glob("*.md"))
    rewrite(paths[7], random.Random(4))
    vault = _fresh(vault_root)
    record = kept_ranking.load(vault.store.kept_last(review.KEPT))
    assert record is not None and len(record.blocks) > 1
    vault.store.forget_rows(review.KEPT, [record.blocks[-1]])  # the deepest block gone
    listed, whole = _listed_and_whole(vault_root)
    assert listed == whole
    rewrite(paths[8], random.Random(5))
    vault = _fresh(vault_root)
    record = kept_ranking.load(vault.store.kept_last(review.KEPT))
    assert record is not None
    # Every block's rows shifted by one: each pair's kept score no longer finds it.
    record.firsts = [(k[0] - 1.0, k[1], k[2]) for k in record.firsts]
    vault.store.keep(review.KEPT, "moved", record.dump())
    listed, whole = _listed_and_whole(vault_root)
    assert listed == whole


def test_a_pair_settled_through_a_third_decision_is_taken_out(vault_root, followed):
    """A pair neither of whose files changed, settled by a third decision (it supersedes the
    pair's older, the newer now supersedes it): the weighing weighs no pair of it again but lists
    it no more, and the ranking followed takes it out."""
    _listed_and_whole(vault_root)
    vault = _fresh(vault_root)
    by_id = {d.id: d for d in vault.documents}
    texts = {doc_id: (vault_root / d.path).read_text("utf-8") for doc_id, d in by_id.items()}
    alone = {doc_id for doc_id, text in texts.items() if "supersedes: []" in text}
    ranked = review.review_list(vault.index, ALL)[0]
    touching: dict[str, int] = {}
    for r in ranked:
        touching[r.older] = touching.get(r.older, 0) + 1
        touching[r.newer] = touching.get(r.newer, 0) + 1
    older, newer = next((r.older, r.newer) for r in ranked if r.older in alone and r.newer in alone)
    paired = {(r.older, r.newer) for r in ranked}
    third = next(
        doc_id
        for doc_id in sorted(alone - {older, newer})
        if by_id[doc_id].type == DocType.DECISION
        and not {(doc_id, older), (older, doc_id), (doc_id, newer), (newer, doc_id)} & paired
    )
    _supersede(vault_root, by_id[newer].path, third)
    listed, whole = _listed_and_whole(vault_root)
    assert listed == whole and followed[-1] >= 0
    _supersede(vault_root, by_id[third].path, older)  # the newer now reaches the older through it
    listed, whole = _listed_and_whole(vault_root)
    assert listed == whole and followed[-1] > 0
    assert (older, newer) not in {(r.older, r.newer) for r in listed}


def test_the_ranking_followed_decodes_only_the_pairs_it_touches(vault_root, followed, monkeypatch):
    """After one change the ranking kept follows the pairs weighed again: the rest of the weighing's
    list is counted, not decoded (at 10,000 decision records decoding and freeing them all is most
    of the pass)."""
    listed, _ = _listed_and_whole(vault_root)
    rewrite(sorted((vault_root / "decisions").glob("*.md"))[4], random.Random(2))
    decoded: list[int] = []
    real = weighing._decode

    def counted(row):
        decoded.append(1)
        return real(row)

    monkeypatch.setattr(weighing, "_decode", counted)
    vault = _fresh(vault_root)
    followed_list = review.review_list(vault.index, ALL)[0]
    assert followed[-1] > 0
    assert len(decoded) <= followed[-1] < len(listed) // 4
    monkeypatch.setattr(weighing, "_decode", real)
    assert followed_list == _listed_and_whole(vault_root)[1]
