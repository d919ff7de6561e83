"""The queue's blocks (`kept_chosen`) and the review list's ranking (`kept_ranking`) each follow the
weighing across the other's saves (`weighing.Kept.saves`): a change, then `review`, then
`conflicts`, then `review` ... each answer, byte for byte, the one made whole from the same
weighing (a second copy of the vault followed through the same changes, whose followers never
follow), and the blocks and the ranking followed, not made whole."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from helpers import copied, shaped_vault
from tests.test_kept_chosen import change
from workbench import Vault
from workbench.cli import main
from workbench.core.services import kept_chosen, kept_ranking, review, weighing

SIZE = 1200


@pytest.fixture(scope="module")
def shaped(tmp_path_factory) -> Path:
    return shaped_vault(tmp_path_factory, SIZE, seed=11)


@pytest.fixture
def root(shaped, tmp_path) -> Path:
    return copied(shaped, tmp_path)


def _printed(root: Path, capsys, *command: str) -> str:
    review._RANKED[:] = [None, None]  # as a new process: nothing held in memory
    assert main(["--vault", str(root), *command]) in (0, 1)
    return capsys.readouterr().out


@pytest.fixture
def follows(monkeypatch) -> dict[str, int]:
    """How many times the queue's blocks and the review list's ranking were followed (the real
    `follow`s run)."""
    calls = {"queue": 0, "review": 0}
    chosen, ranking = kept_chosen.Chosen.follow, kept_ranking.follow

    def chosen_counted(self, *args, **kwargs):
        found = chosen(self, *args, **kwargs)
        calls["queue"] += 1
        return found

    def ranking_counted(*args, **kwargs):
        found = ranking(*args, **kwargs)
        calls["review"] += 1
        return found

    monkeypatch.setattr(kept_chosen.Chosen, "follow", chosen_counted)
    monkeypatch.setattr(kept_ranking, "follow", ranking_counted)
    return calls


def _made_whole(monkeypatch) -> None:
    """The followers find no weighing they were chosen from: made whole every time."""
    never = lambda setting, pairs, kept: None  # noqa: E731
    monkeypatch.setattr(kept_ranking, "touched_since", never)


def test_review_and_conflicts_in_turn_follow_each_others_saves(root, tmp_path, capsys, monkeypatch, follows):
    monkeypatch.setattr(weighing, "REFRESH_SHARE", 0.05)  # every change followed, none counted again
    _printed(root, capsys, "conflicts", "--json")
    _printed(root, capsys, "review", "--json")
    whole = tmp_path / "whole"
    shutil.copytree(root, whole)  # its store too: both weigh from the same kept pairs
    rng, again = random.Random(7), random.Random(7)
    commands = [("review", "--json"), ("conflicts", "--json")]
    for step in range(8):
        change(root, Vault.open(root), step, rng)
        change(whole, Vault.open(whole), step, again)
        for command in commands if step % 2 else commands[::-1]:
            before = dict(follows)
            followed = _printed(root, capsys, *command)
            assert (
                follows[command[0].replace("conflicts", "queue")]
                == before[command[0].replace("conflicts", "queue")] + 1
            ), (step, command)
            with monkeypatch.context() as whole_only:
                _made_whole(whole_only)
                made = _printed(whole, capsys, *command)
            assert followed == made, (step, command)
    pairs = Vault.open(root)._queue(False).weighing()
    assert not pairs.full and len(pairs.kept.saves) == weighing.SAVES


def test_a_follower_more_than_saves_back_is_made_whole(root, capsys, monkeypatch, follows):
    """Past `weighing.SAVES` saves, what was touched since is not kept: the ranking is made whole,
    and as a fresh open ranks it."""
    monkeypatch.setattr(weighing, "SAVES", 2)
    monkeypatch.setattr(weighing, "REFRESH_SHARE", 0.05)
    _printed(root, capsys, "review", "--json")
    rng = random.Random(3)
    for step in range(3):
        change(root, Vault.open(root), step + 1, rng)
        _printed(root, capsys, "conflicts", "--json")
    ranked = follows["review"]
    followed = _printed(root, capsys, "review", "--json")
    assert follows["review"] == ranked
    assert Vault.open(root)._queue(False).weighing().kept.saves  # the weighing was followed
    review._RANKED[:] = [None, None]
    Vault.open(root).store.keep(review.KEPT, "nothing", b"")
    assert _printed(root, capsys, "review", "--json") == followed


def test_the_saves_kept_name_how_the_pairs_stood_before_each(root, capsys, monkeypatch):
    """`Weighing.stood` rolls the kept pairs back save by save: each state it gives is the one
    the record kept before that save held."""
    monkeypatch.setattr(weighing, "REFRESH_SHARE", 0.05)
    _printed(root, capsys, "conflicts", "--json")
    rng = random.Random(5)
    states = []
    for step in range(4):
        kept = Vault.open(root)._queue(False).weighing().kept
        states.append((list(kept.pair_rows), set(kept.unlisted)))
        change(root, Vault.open(root), step, rng)
        _printed(root, capsys, ("review", "conflicts")[step % 2], "--json")
    pairs = Vault.open(root)._queue(False).weighing()
    stood = [(rows, unlisted) for rows, unlisted, _ in pairs.stood()]
    kept = pairs.kept
    assert stood == [(kept.pair_rows, kept.unlisted), *reversed(states)]
