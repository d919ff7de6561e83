"""Large sorts in pieces: the same order as `sorted`, never more than `PIECE` items in one call
(a call to `sorted` holds the interpreter throughout, and the TUI's screen waits for it)."""

from __future__ import annotations

import random

from helpers import sorts_noted
from vault_builders import doc_text

from workbench.core.vault import Vault
from workbench.core.vocabulary import sorting
from workbench.core.vocabulary.sorting import sorted_in_pieces


def test_pieces_merged_give_sorted_order_ties_included(monkeypatch):
    monkeypatch.setattr(sorting, "PIECE", 7)
    rng = random.Random(3)
    for size in (0, 1, 7, 8, 50, 301):
        pairs = [(rng.randrange(5), n) for n in range(size)]  # many ties on the key: stability shows
        assert sorted_in_pieces(pairs, key=lambda p: p[0]) == sorted(pairs, key=lambda p: p[0])
        words = [rng.choice("abcde") * rng.randrange(1, 4) for _ in range(size)]
        assert sorted_in_pieces(set(words)) == sorted(set(words))


def test_pieces_already_in_order_are_joined_without_a_merge(monkeypatch):
    """Items whose pieces come in order (ids that follow the paths the records are kept in) are
    joined as they are, ties across two pieces included; any piece out of order is merged."""
    monkeypatch.setattr(sorting, "PIECE", 4)
    merged: list[int] = []
    real = sorting.heapq.merge
    monkeypatch.setattr(sorting.heapq, "merge", lambda *pieces, key=None: merged.append(1) or real(*pieces, key=key))
    in_order = [(n // 3, n) for n in range(23)]  # equal keys across the pieces' edges
    assert sorted_in_pieces(in_order, key=lambda p: p[0]) == sorted(in_order, key=lambda p: p[0])
    assert merged == []
    shuffled = in_order[4:8] + in_order[:4] + in_order[8:]
    assert sorted_in_pieces(shuffled, key=lambda p: p[0]) == sorted(shuffled, key=lambda p: p[0])
    assert merged == [1]


def test_the_documents_and_the_problems_are_sorted_in_pieces(builder, monkeypatch):
    for n in range(40):
        builder.raw(
            f"notes/mem-note-{n:03d}.md",
            doc_text(f"mem-note-{n:03d}", links="[{type: explains, target: mem-note-gone}]"),
        )
    vault = Vault.open(builder.root)
    whole = (vault.documents, list(vault.problems))
    with sorts_noted(monkeypatch) as sizes:
        pieces = (vault.documents, list(vault.problems))
    assert len(pieces[0]) == 40 and len(pieces[1]) >= 40
    assert sizes and max(sizes) <= 16
    assert pieces == whole
