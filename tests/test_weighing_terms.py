"""After a change the pairs around it are weighed from what was kept of each decision's text
(`weighing_terms.KeptTerms`): no text read, no words counted but the changed decision's, and the
answers byte for byte those of profiling every decision from its text; a row gone is worked out
from the text again."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from helpers import append_to_copy, copied, shaped_vault, template_copy, weighing_record

from workbench import Vault
from workbench.cli import main
from workbench.core.services import kept_conflicts, weighing
from workbench.core.services.weighing_terms import KeptTerms
from workbench.core.views import similarity

SIZE = 1200  # about 300 decisions
COPIES = 12


@pytest.fixture(scope="module")
def shaped(tmp_path_factory) -> Path:
    root = shaped_vault(tmp_path_factory, SIZE, seed=11)
    for n in range(COPIES):
        template_copy(root, n)
    return root


def _printed(root: Path, capsys, *command: str) -> str:
    assert main(["--vault", str(root), *command]) in (0, 1)
    return capsys.readouterr().out


def test_the_pairs_around_a_change_are_weighed_without_reading_their_texts(shaped, tmp_path, monkeypatch):
    """A change to a decision copied from a template weighs its pairs with the other copies
    again: each copy's profile was made from its text (its body read, its words counted), most
    of such a call at 10,000 decision records. Now only the changed decision's words are counted."""
    root = copied(shaped, tmp_path)
    Vault.open(root)._queue(False).conflicts()
    append_to_copy(root, 5, "The retry budget was raised to 7 attempts after the outage review.")
    pairs = Vault.open(root)._queue(False).weighing()
    counted: list[str] = []
    counting = similarity.term_counts

    def term_counts(text: str):
        counted.append(text[:40])
        return counting(text)

    monkeypatch.setattr(similarity, "term_counts", term_counts)
    pairs.listed_count()
    assert not pairs.full and pairs.weighed_again >= 3, pairs.weighed_again
    assert len(counted) == 1, counted  # the changed decision's; every other copy's before


def _both(root: Path, tmp_path: Path, capsys, monkeypatch, steps, forget: bool = False) -> None:
    """`root` and a copy of it (its store too) followed through `steps`, the copy profiling every
    decision from its text (nothing kept read), each answering alike byte for byte; `forget`: the
    kept terms' rows forgotten in `root` before the first step."""
    _printed(root, capsys, "conflicts", "--json")
    texts = tmp_path / "texts"
    shutil.copytree(root, texts)
    if forget:
        vault = Vault.open(root)
        queue = vault._queue(False)
        record = weighing_record(vault, queue.setting)
        assert record is not None and len([key for key in record.term_rows if key]) > COPIES
        vault.store.forget_rows(kept_conflicts.WEIGHED, [key for key in record.term_rows if key])
    kept_get, weigh_all, full = KeptTerms.get, weighing.Weighing._weigh_all, []

    def counted(self, *args):
        full.append(1)
        return weigh_all(self, *args)

    for step in steps:
        step(root)
        step(texts)
        for command in (("conflicts", "--json"), ("review", "--json"), ("review", "--json", "--limit", "300")):
            monkeypatch.setattr(weighing.Weighing, "_weigh_all", counted)
            mine = _printed(root, capsys, *command)
            monkeypatch.setattr(weighing.Weighing, "_weigh_all", weigh_all)
            assert not full, command  # followed, never worked out again
            monkeypatch.setattr(KeptTerms, "get", lambda self, doc_id, source: None)
            theirs = _printed(texts, capsys, *command)
            monkeypatch.setattr(KeptTerms, "get", kept_get)
            assert mine == theirs, command


def _steps(seed: int) -> list:
    chosen = random.Random(seed).randrange(COPIES)  # the same decision in both copies
    return [
        lambda r: append_to_copy(r, 3, "Kafka Brokers were replaced; the Invoices stay."),
        lambda r: append_to_copy(r, chosen, "Archives of PDFs move to Cold Storage."),
        lambda r: (append_to_copy(r, 0, "Tenants' Ledgers."), append_to_copy(r, 9, "Jitter removed.")),
        lambda r: (r / "decisions" / "mem-decision-template-07.md").unlink(),
        lambda r: template_copy(r, 7),
    ]


def test_the_answers_after_changes_are_those_of_profiling_every_decision_from_its_text(
    shaped, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(weighing, "REFRESH_SHARE", 0.05)  # every change followed, none counted again
    _both(copied(shaped, tmp_path), tmp_path, capsys, monkeypatch, _steps(1))


@pytest.mark.parametrize("seed", [21, 22])
def test_the_answers_are_alike_on_other_shapes_of_vault(tmp_path, capsys, monkeypatch, seed):
    from tests.benchmarks.generate_shapes import generate_shaped_vault

    monkeypatch.setattr(weighing, "REFRESH_SHARE", 0.1)  # about 110 decisions: six changes followed
    root = tmp_path / "vault"
    generate_shaped_vault(root, 600, seed=seed)
    for n in range(COPIES):
        template_copy(root, n)
    _both(root, tmp_path, capsys, monkeypatch, _steps(seed))


def test_rows_of_the_kept_terms_gone_are_worked_out_from_the_texts_again(shaped, tmp_path, capsys, monkeypatch):
    """Every row of the kept terms gone from the store (a row damaged is one gone: its key no
    longer digests its bytes): the decisions are profiled from their texts, the answers are those
    of a store that kept them, and nothing else is worked out again."""
    monkeypatch.setattr(weighing, "REFRESH_SHARE", 0.05)
    _both(copied(shaped, tmp_path), tmp_path, capsys, monkeypatch, _steps(2)[:2], forget=True)


def test_an_entry_kept_of_other_bytes_is_not_read(shaped, tmp_path):
    root = copied(shaped, tmp_path)
    Vault.open(root)._queue(False).conflicts()
    pairs = Vault.open(root)._queue(False).weighing()
    kept = pairs.kept
    doc_id = "mem-decision-template-04"
    source = kept.digests[doc_id]
    terms, cited, forms = kept.terms.get(doc_id, source)
    doc = next(d for d in Vault.open(root).documents if d.id == doc_id)
    made = similarity.Profile.of(doc)
    assert list(terms.items()) == list(made.terms.items()) and cited == made.cited
    assert forms == similarity.written_forms(made) and forms["pdf"] == "PDFs" and forms["invoice"] == "Invoice"
    assert kept.terms.get(doc_id, "0" * 32 + doc.path) is None  # other bytes at the same path
    kept.terms.rows.set(doc_id, ("not", "what", "is", "kept"))
    assert kept.terms.get(doc_id, source) is None
