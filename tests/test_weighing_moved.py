"""After a change the weighing touches only the pairs around what moved (`Weighing._pairs_moved`):
the decisions whose pairs may be drawn otherwise, and those whose pairs' settledness may have
changed. What it gives must be what a pass over every pair kept gives (`Weighing.everywhere`):
here the two answer `conflicts --json` and `review --json` on two copies of one vault, each
followed through the same changes by plain file I/O, byte for byte."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest
from helpers import copied, rows_asked, shaped_vault, weighing_record

from workbench import Vault
from workbench.cli import main
from workbench.core.services import kept_conflicts, weighing
from workbench.core.services.conflicts import REVIEW_NEIGHBOURS, pair_to_list, pairs_to_weigh
from workbench.core.services.kept_pairs import HALF, INDEX_ROWS, PAIR_ROWS

SIZE = 2400  # about 600 decisions
CITED = "mem-decision-cited-later-9999"  # an id a decision cites before a decision has it


@pytest.fixture(scope="module")
def shaped(tmp_path_factory) -> Path:
    return shaped_vault(tmp_path_factory, SIZE, seed=5)


@pytest.fixture
def vault_root(shaped, tmp_path) -> Path:
    return copied(shaped, tmp_path)


def _printed(root: Path, capsys, *command: str) -> str:
    assert main(["--vault", str(root), *command]) in (0, 1)
    return capsys.readouterr().out


def _path(root: Path, doc_id: str) -> Path:
    return next(p for p in (root / "decisions").glob("*.md") if f"\nid: {doc_id}\n" in p.read_text("utf-8"))


def _set(root: Path, doc_id: str, key: str, value: str) -> None:
    """A frontmatter list set by plain file I/O, as an agent writes it."""
    path = _path(root, doc_id)
    text = path.read_text("utf-8")
    changed = re.sub(rf"^{key}: .*$", f"{key}: [{value}]", text, count=1, flags=re.M)
    if changed == text:
        changed = text.replace("\n---\n", f"\n{key}: [{value}]\n---\n", 1)
    path.write_text(changed, "utf-8")


def _append(root: Path, doc_id: str, words: str) -> None:
    with _path(root, doc_id).open("a", encoding="utf-8") as file:
        file.write(f"\n{words}\n")


def _steps(root: Path) -> list[tuple[str, object]]:
    """Changes of every kind, each a function of a vault's root, chosen from the pairs listed."""
    vault = Vault.open(root)
    pairs = vault._queue(False).weighing()
    listed = [(w.older, w.newer) for w in pairs.weighed()]
    alone = sorted(
        d.id for d in vault.documents if d.type == "decision" and "supersedes: []" in (root / d.path).read_text("utf-8")
    )
    rng = random.Random(5)
    older, newer = next(pair for pair in listed if pair[0] in alone and pair[1] in alone)
    third = next(doc_id for doc_id in alone if doc_id not in (older, newer))
    a, b = rng.sample([pair for pair in listed if older not in pair and newer not in pair], 2)
    body, other, gone, renamed = rng.sample([i for i in alone if i not in (older, newer, third, *a, *b)], 4)
    added = _path(root, other).read_text("utf-8").replace(f"id: {other}", f"id: {other}-again", 1)
    cited = _path(root, gone).read_text("utf-8").replace(f"id: {gone}", f"id: {CITED}", 1)
    return [
        ("a body changed", lambda r: _append(r, body, "The retry budget was raised to 7 attempts.")),
        ("nothing", lambda r: None),
        ("two changed", lambda r: (_append(r, a[0], "Latency budget."), _append(r, b[1], "Cache eviction."))),
        ("the older supersedes a third", lambda r: _set(r, older, "supersedes", third)),
        ("the third supersedes the newer", lambda r: _set(r, third, "supersedes", newer)),
        ("the third supersedes none", lambda r: _set(r, third, "supersedes", "")),
        ("a pair marked compatible", lambda r: _set(r, a[0], "compatible_with", a[1])),
        ("a decision removed", lambda r: _path(r, gone).unlink()),
        ("a decision added", lambda r: (r / "decisions" / "added-again.md").write_text(added, "utf-8")),
        ("one cites an id none has", lambda r: _append(r, body, f"As {CITED} will say.")),
        ("a decision of that id added", lambda r: (r / "decisions" / "cited.md").write_text(cited, "utf-8")),
        (
            "an id changed",
            lambda r: _path(r, renamed).write_text(
                _path(r, renamed).read_text("utf-8").replace(f"id: {renamed}", f"id: {renamed}-renamed", 1), "utf-8"
            ),
        ),
        ("a status changed", lambda r: _set(r, b[0], "status", "deprecated")),
        ("a supersession removed", lambda r: _set(r, older, "supersedes", "")),
    ]


def test_the_pairs_touched_alone_answer_as_a_pass_over_every_pair(vault_root, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(weighing, "REFRESH_SHARE", 0.05)  # every change followed, none counted again
    _printed(vault_root, capsys, "conflicts", "--json")
    every = tmp_path / "every"
    shutil.copytree(vault_root, every)  # its store too: both follow from the same kept pairs
    steps = _steps(vault_root)
    for label, step in steps:
        step(vault_root)
        step(every)
        for command in (("conflicts", "--json"), ("review", "--json"), ("review", "--json", "--limit", "300")):
            touched = _printed(vault_root, capsys, *command)
            monkeypatch.setattr(weighing.Weighing, "everywhere", True)
            whole = _printed(every, capsys, *command)
            monkeypatch.setattr(weighing.Weighing, "everywhere", False)
            assert touched == whole, (label, command)
    vault = Vault.open(vault_root)
    pairs = vault._queue(False).weighing()
    assert not pairs.full and pairs.kept.drift > 5  # followed all along


def _kept_as_drawn(vault: Vault) -> None:
    """The pairs kept are those `pairs_to_weigh` draws from what is kept, each listed where it has
    a row and `pair_to_list` lists it, and the count kept is theirs."""
    pairs = vault._queue(False).weighing()
    kept = pairs.kept
    near = {doc_id: [other for _, other in few] for doc_id, few in kept.near.items()}
    every = pairs.kept_pairs()
    assert set(every) == pairs_to_weigh(kept.handles, kept.mentions, kept.when, kept.top, near)
    docs = {d.id: d for d in vault.documents}
    listed = {pair for pair, row in every.items() if row is not None}
    assert kept.unlisted == {
        pair for pair in listed if pair_to_list(docs, pairs.supersedes, pairs.compatible, *pair) is None
    }
    assert all(pair_to_list(docs, pairs.supersedes, pairs.compatible, *pair) is None for pair in every.keys() - listed)
    assert pairs.listed_count() == len(listed - kept.unlisted) == len(pairs.weighed())


def test_the_pairs_kept_after_each_change_are_those_drawn_from_what_is_kept(vault_root, monkeypatch):
    monkeypatch.setattr(weighing, "REFRESH_SHARE", 0.05)
    vault = Vault.open(vault_root)
    vault._queue(False).conflicts()
    for label, step in _steps(vault_root):
        step(vault_root)
        vault = Vault.open(vault_root)
        queue = vault._queue(False)
        queue.conflicts()
        assert not queue.weighing().full, label
        _kept_as_drawn(Vault.open(vault_root))


def _changed_counting_reads(vault_root: Path, doc_id: str, attempts: int, among: set[str]) -> tuple[Vault, list[str]]:
    """The vault opened after a sentence was appended to `doc_id`, its store counting each kept
    row read whose key is `among` (in the list given back)."""
    _append(vault_root, doc_id, f"The retry budget was raised to {attempts} attempts after the outage review.")
    vault = Vault.open(vault_root)
    return vault, rows_asked(vault, among)


def test_one_change_reads_a_few_rows_of_the_pairs(vault_root):
    """One decision's body changed: the rows holding the pairs and their index are read where a
    pair touched is, not all of them (all 512 were read before: 0.76 s of 10,000 decision
    records' review list)."""
    vault = Vault.open(vault_root)
    vault._queue(False).conflicts()
    record = weighing_record(vault, vault._queue(False).setting)
    assert record is not None and len(record.pair_rows) == PAIR_ROWS and len(record.pair_index) == INDEX_ROWS
    named = set(record.pair_rows) | set(record.pair_index)
    vault, asked = _changed_counting_reads(
        vault_root, sorted(vault._queue(False).weighing().kept.digests)[10], 9, named
    )
    queue = vault._queue(False)
    pairs = queue.weighing()
    count = pairs.listed_count()
    assert not pairs.full and pairs.weighed_again >= REVIEW_NEIGHBOURS
    assert 0 < len(asked) < (PAIR_ROWS + INDEX_ROWS) // 20, len(asked)
    assert count == len(pairs.weighed())  # the whole list, read when asked


def test_the_rows_kept_after_changes_are_those_the_record_names(vault_root):
    """A change replaces the rows of the terms it touched (their postings, the changed decision's
    terms) and of the pairs it weighed again: those replaced are deleted, not left until the next
    full count (they added up to a thousand rows a change, and the count of rows kept went up at
    each change and down at each full count)."""
    Vault.open(vault_root)._queue(False).conflicts()
    for n, doc_id in enumerate(sorted(Vault.open(vault_root)._queue(False).weighing().kept.digests)[20:23]):
        _append(vault_root, doc_id, f"The retry budget was raised to {n + 3} attempts after the outage review.")
        vault = Vault.open(vault_root)
        queue = vault._queue(False)
        queue.conflicts()
        assert not queue.weighing().full
        record = weighing_record(vault, queue.setting)
        assert record is not None
        stored = {
            key
            for (key,) in vault.store.db.execute("SELECT key FROM kept_rows WHERE name = ?", (kept_conflicts.WEIGHED,))
        }
        assert stored == record.referenced(), n


def test_the_queues_pairs_after_a_change_are_read_from_their_own_rows(vault_root):
    """The queue chooses among the `best` pairs alone (a fifth of those listed): their rows are
    kept apart, and after a change it reads those and the few rows of the pairs touched, not
    the rest; the pairs are those of the whole list that are `best`, in its order."""
    vault = Vault.open(vault_root)
    vault._queue(False).conflicts()
    record = weighing_record(vault, vault._queue(False).setting)
    assert record is not None
    rest = set(record.pair_rows[:HALF]) - set(record.pair_rows[HALF:])
    vault, asked = _changed_counting_reads(
        vault_root, sorted(vault._queue(False).weighing().kept.digests)[30], 11, rest
    )
    pairs = vault._queue(False).weighing()
    best = pairs.best()
    assert not pairs.full and len(set(asked)) < HALF // 20, len(set(asked))
    whole = pairs.weighed()
    assert len(best) > 50 and best == [w for w in whole if w.best] and len(whole) > 2 * len(best)


def test_each_command_follows_the_others_save_through_every_kind_of_change(vault_root, tmp_path, capsys, monkeypatch):
    """`review` and `conflicts` in turn, the first after each change saving the weighing: the
    second follows that save (`kept_ranking.touched_since`), the pairs it settled or unsettled
    through a third document among what it takes out and puts back."""
    monkeypatch.setattr(weighing, "REFRESH_SHARE", 0.05)
    for command in ("conflicts", "review"):
        _printed(vault_root, capsys, command, "--json")
    every = tmp_path / "every"
    shutil.copytree(vault_root, every)
    commands = [("review", "--json"), ("conflicts", "--json")]
    for n, (label, step) in enumerate(_steps(vault_root)):
        step(vault_root)
        step(every)
        for command in commands if n % 2 else commands[::-1]:
            followed = _printed(vault_root, capsys, *command)
            monkeypatch.setattr(weighing.Weighing, "everywhere", True)
            whole = _printed(every, capsys, *command)
            monkeypatch.setattr(weighing.Weighing, "everywhere", False)
            assert followed == whole, (label, command)
