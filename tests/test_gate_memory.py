"""A vault kept open (the TUI, the agents' server) gating one draft after another: the corpus the
gate keeps for the process (`similarity.corpus_of`) keeps each pair of texts' likeness it summed,
a draft's with each document weighed, and must forget them past a bound, not grow with every draft."""

from __future__ import annotations

import random

import pytest
from helpers import copied, shaped_vault

from workbench import Vault
from workbench.core.services.gate import Draft
from workbench.core.views import similarity


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    return shaped_vault(tmp_path_factory, 240, seed=11)


def test_gating_draft_after_draft_keeps_the_likenesses_bounded(source, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(similarity, "COSINES_MOST", 500)
    vault = Vault.open(copied(source, tmp_path))
    rng = random.Random(3)
    words = "queue invoice retry tenant budget outage billing worker lease cache shard replica".split()
    kept = []
    for n in range(30):
        body = " ".join(rng.choices(words, k=40)) + f" draft{n}"
        vault.gate(Draft(type="decision", title=f"Retry budget {n}", body=body))
        kept.append(len(similarity._CORPUS[1]._cosines))  # the gate's corpus, kept for the process
    assert max(kept) > 100  # each draft leaves its pairs
    assert max(kept) <= 500 + len(vault.documents)  # at most one draft's pairs past the bound
