"""A change to one of many decisions copied from a template weighs again every pair of the copies
it moved (their most alike found again: their likeliest's score moves with the average length).
Each pair of texts' likeness is summed once per pair of contents (`similarity.Corpus.content`: the
copies hold the same terms), and the rows of the pairs read and written are those of the older
decisions among them (`KeptPairs.place`), not one for each pair. The answers are byte for byte
those of summing every pair's texts and asking every pair (`Weighing.everywhere`), and of a full
count (`--full`); rows of the pairs damaged or gone are worked out again."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from helpers import append_to_copy, copied, harm_rows, rows_asked, shaped_vault, template_copy, weighing_record

from workbench import Vault
from workbench.cli import main
from workbench.core.services import weighing
from workbench.core.views import similarity

SIZE = 1200  # about 300 decisions
COPIES = 24
CHANGE = "The retry budget was raised to 7 attempts after the outage review."


def _with_copies(root: Path) -> Path:
    for n in range(COPIES):
        template_copy(root, n)
    return root


@pytest.fixture(scope="module")
def shaped(tmp_path_factory) -> Path:
    return _with_copies(shaped_vault(tmp_path_factory, SIZE, seed=13))


def _printed(root: Path, capsys, *command: str) -> str:
    assert main(["--vault", str(root), *command]) in (0, 1)
    return capsys.readouterr().out


def _sums(monkeypatch) -> list[int]:
    """Each sum over two texts' shared terms from now on (`Corpus.squares` is asked once a sum)."""
    summed: list[int] = []
    squares = similarity.Corpus.squares

    def counted(self, terms):
        summed.append(len(terms))
        return squares(self, terms)

    monkeypatch.setattr(similarity.Corpus, "squares", counted)
    return summed


def test_a_change_to_one_copy_sums_each_pair_of_texts_once(shaped, tmp_path, monkeypatch):
    root = copied(shaped, tmp_path)
    Vault.open(root)._queue(False).conflicts()
    append_to_copy(root, COPIES - 1, CHANGE)
    pairs = Vault.open(root)._queue(False).weighing()
    summed = _sums(monkeypatch)
    pairs.listed_count()
    assert not pairs.full and pairs.weighed_again >= 40, pairs.weighed_again
    # Summed for every pair weighed before (a pair sharing no term sums nothing).
    assert len(summed) * 3 < pairs.weighed_again, (len(summed), pairs.weighed_again)


def test_a_change_to_one_copy_reads_the_rows_of_the_older_decisions_of_its_pairs(shaped, tmp_path):
    root = copied(shaped, tmp_path)
    vault = Vault.open(root)
    vault._queue(False).conflicts()
    record = weighing_record(vault, vault._queue(False).setting)
    assert record is not None
    append_to_copy(root, COPIES - 1, CHANGE)
    vault = Vault.open(root)
    asked = rows_asked(vault, set(record.pair_rows))
    pairs = vault._queue(False).weighing()
    pairs.listed_count()
    touched = pairs.pairs_changed | pairs.pairs_gone
    olders = {older for older, _ in touched}
    assert not pairs.full and len(touched) >= 40, len(touched)
    # Each older decision's pairs in a row (a row of its `best` pairs beside): one read for each.
    assert len(asked) == len(set(asked)) <= 2 * len(olders), (len(asked), len(olders))
    assert len(asked) * 3 < len(touched) * 2, (len(asked), len(touched))  # a row for each pair before


def _steps() -> list:
    return [
        lambda r: append_to_copy(r, COPIES - 1, CHANGE),
        lambda r: append_to_copy(r, 11, "Kafka Brokers were replaced; the Invoices stay."),
        lambda r: (append_to_copy(r, 0, "Tenants' Ledgers."), append_to_copy(r, 17, "Jitter removed.")),
        lambda r: (r / "decisions" / "mem-decision-template-07.md").unlink(),
        lambda r: template_copy(r, 7),
    ]


def _alike(root: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    """`root` and a copy of it (its store too) followed through `_steps`, the copy summing every
    pair's texts and asking every pair, each answering alike byte for byte; the last answers those
    of a full count too."""
    monkeypatch.setattr(weighing, "REFRESH_SHARE", 0.05)  # every change followed, none counted again
    _printed(root, capsys, "conflicts", "--json")
    every = tmp_path / "every"
    shutil.copytree(root, every)
    cosine, summing = similarity._cosine, similarity._cosine_of
    commands = (("conflicts", "--json"), ("review", "--json"), ("review", "--json", "--limit", "300"))
    for n, step in enumerate(_steps()):
        step(root)
        step(every)
        for command in commands:
            mine = _printed(root, capsys, *command)
            monkeypatch.setattr(similarity, "_cosine", summing)
            monkeypatch.setattr(weighing.Weighing, "everywhere", True)
            theirs = _printed(every, capsys, *command)
            monkeypatch.setattr(weighing.Weighing, "everywhere", False)
            monkeypatch.setattr(similarity, "_cosine", cosine)
            assert mine == theirs, (n, command)
    pairs = Vault.open(root)._queue(False).weighing()
    pairs.listed_count()
    assert not pairs.full and pairs.kept.drift >= 5  # followed all along
    full = _printed(every, capsys, "conflicts", "--json", "--full")  # kept: the review list follows it
    assert _printed(root, capsys, "conflicts", "--json") == full
    assert _printed(root, capsys, "review", "--json") == _printed(every, capsys, "review", "--json")


def test_the_answers_after_changes_to_copies_are_those_of_summing_every_pair(shaped, tmp_path, capsys, monkeypatch):
    _alike(copied(shaped, tmp_path), tmp_path, capsys, monkeypatch)


@pytest.mark.parametrize("seed", [21, 22])
def test_the_answers_are_alike_on_other_shapes_of_vault(tmp_path, capsys, monkeypatch, seed):
    from tests.benchmarks.generate_shapes import generate_shaped_vault

    root = tmp_path / "vault"
    generate_shaped_vault(root, 600, seed=seed)
    _alike(_with_copies(root), tmp_path, capsys, monkeypatch)


@pytest.mark.parametrize("harm", ["damaged", "readable", "missing"])
def test_the_rows_of_the_pairs_damaged_or_gone_are_worked_out_again(shaped, tmp_path, capsys, harm):
    """Every row of the pairs the record names damaged (bytes that are not a row, or a row that
    reads well but is not the one kept) or deleted: the change weighs everything again, and answers
    as a full count does."""
    root = copied(shaped, tmp_path)
    vault = Vault.open(root)
    vault._queue(False).conflicts()
    record = weighing_record(vault, vault._queue(False).setting)
    assert record is not None
    harm_rows(vault, {key for key in record.pair_rows if key}, harm)
    append_to_copy(root, COPIES - 1, CHANGE)
    pairs = Vault.open(root)._queue(False).weighing()
    pairs.listed_count()
    assert pairs.full
    assert _printed(root, capsys, "conflicts", "--json") == _printed(root, capsys, "conflicts", "--json", "--full")


def test_texts_of_the_same_terms_in_the_same_order_are_one_content():
    corpus = similarity.Corpus(())
    a, b = Counter({"invoice": 2, "pdf": 1}), Counter({"invoice": 2, "pdf": 1})
    turned = Counter({"pdf": 1, "invoice": 2})  # summed in another order: another content
    assert corpus.content(a) == corpus.content(b) != corpus.content(turned)
    assert corpus.content(Counter({"invoice": 3, "pdf": 1})) not in (corpus.content(a), corpus.content(turned))
    assert similarity._cosine(a, turned, corpus) == similarity._cosine_of(a, turned, corpus)
