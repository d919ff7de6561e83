"""The conflicts queue's decision pairs read as kept (`kept_conflicts.KeptWords`): after random
changes by plain file I/O between fresh opens, the queue printed is, byte for byte, the one worded
again from the same weighed pairs, and a pair's entry whose file changed in a way its weighing
does not see (a title's case) is worded again, not read as kept."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from helpers import copied, shaped_vault
from workbench import Vault
from workbench.core.services import kept_conflicts
from workbench.core.services.conflicts import Conflicts, KeptConflict, duplicate_listed, queue_parts
from workbench.core.vocabulary.model import DocType

SIZE = 1200


@pytest.fixture(scope="module")
def shaped(tmp_path_factory) -> Path:
    return shaped_vault(tmp_path_factory, SIZE, seed=11)


@pytest.fixture
def root(shaped, tmp_path) -> Path:
    return copied(shaped, tmp_path)


def worded_anew(vault: Vault, queue: kept_conflicts.Asked) -> Conflicts:
    """The queue from the pairs `queue` weighed, every decision pair worded again."""
    pairs = queue.weighing()
    before, listed, after = queue_parts(
        vault.documents,
        vault.index.flavour.native,
        vault.index.config.compatible,
        weighed=pairs.weighed(),
        duplicates=pairs.duplicates,
        successors_of=queue._successors,
    )
    assert not any(isinstance(c, KeptConflict) for c in before + after)
    return Conflicts(before + [duplicate_listed(*d) for d in listed] + after)


def pairs_listed(vault: Vault) -> list[list[str]]:
    return [c.ids for c in vault.conflicts() if c.kind in ("contradiction", "successor-missing", "draft-replaces")]


def case_changed(path: Path) -> None:
    """The title's case turned: the words its weighing reads are the same, the entry's are not."""
    text = path.read_text("utf-8")
    text, count = re.subn(r"(?m)^title: (.*)$", lambda m: "title: " + m.group(1).swapcase(), text, count=1)
    assert count == 1
    path.write_text(text, "utf-8")


def test_after_random_changes_the_queue_is_the_one_worded_again(root):
    rng = random.Random(7)
    Vault.open(root).conflicts_json()
    reused = 0
    for step in range(8):
        vault = Vault.open(root)
        by_id = {d.id: d for d in vault.documents}
        listed = pairs_listed(vault)
        kind = step % 4
        if kind == 0:  # a decision in the queue: its entries' words change, its weighing does not
            case_changed(root / by_id[rng.choice(rng.choice(listed))].path)
        elif kind == 1:  # a sentence appended to a decision in the queue
            with (root / by_id[rng.choice(rng.choice(listed))].path).open("a", encoding="utf-8") as file:
                file.write("\nThe retry budget was raised after the outage review.\n")
        elif kind == 2:  # a decision in the queue deprecated: its pairs change kind
            active = [i for ids in listed for i in ids if "status: active" in (root / by_id[i].path).read_text("utf-8")]
            path = root / by_id[rng.choice(active)].path
            path.write_text(path.read_text("utf-8").replace("status: active", "status: deprecated", 1), "utf-8")
        else:  # a decision gone
            ids = sorted(d.id for d in vault.documents if d.type == DocType.DECISION)
            (root / by_id[rng.choice(ids)].path).unlink()
        vault = Vault.open(root)
        queue = vault._queue()
        text = queue.printed()
        assert queue.words is not None, step
        reused += queue.words.reused
        again = worded_anew(vault, queue)
        assert text == kept_conflicts.printed(again), step
        assert Vault.open(root).conflicts() == again, step  # as kept: encoded with their ranks
    assert reused > 0  # the entries were read as kept, not all worded again


def test_an_entry_kept_under_another_setting_is_worded_again(root):
    """The same files read on another day (the setting names the day): nothing is read as kept."""
    import datetime as dt

    vault = Vault.open(root)
    vault.conflicts_json()
    index = vault.index
    flavour = index.flavour
    for on, reused in ((dt.date(2031, 1, 2), False), (dt.date(2031, 1, 2), True)):
        queue = kept_conflicts.Asked(
            vault.documents, flavour.reading, flavour.native, vault.store, on, index.config.compatible
        )
        case_changed(root / next(d for d in vault.documents if d.type == DocType.DECISION).path)
        vault = Vault.open(root)
        queue = kept_conflicts.Asked(
            vault.documents, flavour.reading, flavour.native, vault.store, on, index.config.compatible
        )
        text = queue.printed()
        assert queue.words is not None and (queue.words.reused > 0) == reused
        assert text == kept_conflicts.printed(worded_anew(vault, queue))
