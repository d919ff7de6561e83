"""After a change the weighing finds the most alike of the decisions around it (`KeptBm25.likeliest_few`)
without working out the share of every posting their terms hold (`likeliest`): what it finds must
be what scoring every decision finds, bit for bit and ties alike (`KeptBm25(everywhere=True)`, and
`Bm25.likeliest_few` of a full count), and the shares it works out must follow the decisions met,
not the postings of the common terms they ask."""

from __future__ import annotations

import random
from array import array
from collections import Counter
from pathlib import Path

import pytest
from helpers import copied, shaped_vault
from tests.benchmarks.generate_shapes import COMMON

from workbench import Vault
from workbench.core.services import likeliest, weighing
from workbench.core.services.conflicts import REVIEW_NEIGHBOURS
from workbench.core.services.weighing_rows import NEAR
from workbench.core.views.similarity import Bm25, profiles_of

SIZE = 2400  # about 600 decisions


def _decision(root: Path, n: int, body: str) -> None:
    (root / "decisions").mkdir(parents=True, exist_ok=True)
    (root / "decisions" / f"mem-decision-d{n:04}.md").write_text(
        f"---\nschema_version: v1\nid: mem-decision-d{n:04}\ntype: decision\ntitle: Decision {n}\n"
        f"status: active\ncreated_at: 2026-01-{1 + n % 28:02}\nupdated_at: 2026-02-01\nproject: near\n"
        "tags: []\nlinks: []\nsupersedes: []\nsuperseded_by: []\nprovenance:\n  source: agent-claude\n"
        f"  confidence: medium\n---\n{body}\n",
        "utf-8",
    )


def _words(rng: random.Random, shape: str) -> list[str]:
    """The words of one shape of vault, the commonest first (`_body` draws them by rank)."""
    size = {"flat": 12, "zipf": 400, "tail": 4000, "copies": 300, "short": 60}[shape]
    return [f"w{rng.randrange(10**6):06}x{n}" for n in range(size)]


def _body(rng: random.Random, shape: str, words: list[str]) -> str:
    exponent = {"flat": 0.0, "zipf": 1.1, "tail": 0.8, "copies": 1.3, "short": 1.0}[shape]
    weights = [1 / (rank + 1) ** exponent for rank in range(len(words))]
    length = {"short": rng.randint(1, 4), "flat": rng.randint(3, 40)}.get(shape, rng.choice((30, 80, 200, 1500)))
    return " ".join(rng.choices(words, weights=weights, k=length))


def _vault(root: Path, shape: str, seed: int) -> None:
    """Decisions of one shape: few common words (ties everywhere), Zipf laws, a long tail, near and
    exact copies of one another, bodies of a word or two."""
    rng = random.Random(seed)
    words = _words(rng, shape)
    n = 0
    while n < 90:
        body = _body(rng, shape, words)
        for _ in range(rng.choice((1, 1, 2, 4)) if shape in ("copies", "flat") else 1):
            _decision(root, n, body)  # exact copies: equal scores, ranked by their ids
            n += 1


def _weighed(root: Path) -> weighing.Weighing:
    pairs = weighing.Weighing(Vault.open(root).documents, frozenset(), None)
    pairs.listed_count()  # a full count: every decision's counts in the postings
    return pairs


def _both(pairs: weighing.Weighing, counts: dict[str, Counter]) -> tuple[weighing.KeptBm25, weighing.KeptBm25]:
    """The search over the postings, and the one scoring every decision from its counts."""
    kept = pairs.kept
    return (
        weighing.KeptBm25(kept, counts.__getitem__, pairs.rows),
        weighing.KeptBm25(kept, counts.__getitem__, pairs.rows, everywhere=True),
    )


def _queries(rng: random.Random, pairs: weighing.Weighing, counts: dict[str, Counter]) -> list[tuple]:
    """Each decision's own query, and queries of terms drawn at random (some held by none)."""
    kept = pairs.kept
    terms = sorted(kept.frequency) + ["held-by-none"]
    ids = sorted(counts)
    found = [(kept.asked[doc_id], REVIEW_NEIGHBOURS, doc_id) for doc_id in ids]
    for _ in range(60):
        asked = rng.sample(terms, min(len(terms), rng.randint(1, 40)))
        found.append((asked, rng.choice((1, 2, 3, 5, 9)), rng.choice(["", rng.choice(ids)])))
    return found


@pytest.mark.parametrize("shape", ["flat", "zipf", "tail", "copies", "short"])
def test_the_most_alike_found_from_a_few_postings_are_those_of_scoring_every_decision(tmp_path, shape):
    rng = random.Random(shape)
    _vault(tmp_path, shape, seed=len(shape))
    pairs = _weighed(tmp_path)
    decisions = [d for d in Vault.open(tmp_path).documents if d.type == "decision"]
    counts = {doc_id: Counter(p.terms) for doc_id, p in profiles_of(decisions).items()}
    full = Bm25(profiles_of(decisions).values())
    for round_ in range(3):
        pruned, every = _both(pairs, counts)
        for asked, most, other in _queries(rng, pairs, counts):
            found = pruned.likeliest_few(asked, most, other)
            assert found == every.likeliest_few(asked, most, other), (shape, round_, asked, most, other)
            if round_ == 0:  # as the full count ranks them, before any change
                assert found == full.likeliest_few(asked, most, other)
        # Some decisions changed (their counts in the postings' overlay), some gone.
        kept = pairs.kept
        for doc_id in rng.sample(sorted(counts), 6):
            changed = counts[doc_id] + Counter(rng.choices(sorted(kept.frequency), k=rng.randint(1, 30)))
            kept.unpost(doc_id)
            kept.post(doc_id, changed)
            counts[doc_id] = changed
        for doc_id in rng.sample(sorted(counts), 2):
            kept.gone(doc_id)
            del counts[doc_id]


def test_no_share_of_a_term_is_above_its_bound(tmp_path):
    _vault(tmp_path, "zipf", seed=7)
    pairs = _weighed(tmp_path)
    kept = pairs.kept
    decisions = [d for d in Vault.open(tmp_path).documents if d.type == "decision"]
    counts = {doc_id: Counter(p.terms) for doc_id, p in profiles_of(decisions).items()}
    bm25 = weighing.KeptBm25(kept, counts.__getitem__, pairs.rows)
    for doc_id, held in counts.items():
        for term, share in bm25.term_shares(doc_id).items():
            assert share <= bm25.posting(term).bound, (doc_id, term)


@pytest.fixture(scope="module")
def shaped(tmp_path_factory) -> Path:
    return shaped_vault(tmp_path_factory, SIZE, seed=5)


def test_a_change_to_a_decision_of_common_terms_works_out_the_shares_of_the_decisions_met(
    shaped, tmp_path, monkeypatch
):
    """Copies of one decision written in common words (a template filled in alike, as a real
    vault of decision records holds): a change to one has every other find its most alike again,
    each asking terms held by hundreds of decisions. Scored term at a time, that worked out a
    share for each of those postings (43,000 here); the bounds leave 5,000."""
    root = copied(shaped, tmp_path)
    rng = random.Random(3)
    body = " ".join(rng.choices([w for w in COMMON if len(w) > 3], k=300))
    for n in range(12):
        _decision(root, 5000 + n, body)
    Vault.open(root)._queue(False).conflicts()
    kept = Vault.open(root)._queue(False).weighing().kept
    changed = "mem-decision-d5011"  # the greatest id: among the most alike of every other copy
    kept.facts.index.read([NEAR + changed])
    asking = set(kept.facts.keyed(NEAR, changed))
    postings = sum(len(kept.terms_base.get(term, b"")) // 8 for other in asking for term in kept.asked[other])
    assert len(asking) >= 8 and postings > 20_000  # what a term-at-a-time search walks
    with (root / "decisions" / f"{changed}.md").open("a", encoding="utf-8") as file:
        file.write("\nThe retry budget was raised to 7 attempts after the outage review.\n")
    shares, worked = [0], [0]
    share, search = weighing.KeptBm25._share, weighing.KeptBm25.likeliest_few

    def counted(self, *args):
        shares[0] += 1
        return share(self, *args)

    def searching(self, *args, **kwargs):
        before = shares[0]
        found = search(self, *args, **kwargs)
        worked[0] += shares[0] - before
        return found

    monkeypatch.setattr(weighing.KeptBm25, "_share", counted)
    monkeypatch.setattr(weighing.KeptBm25, "likeliest_few", searching)
    pairs = Vault.open(root)._queue(False).weighing()
    pairs.listed_count()
    assert not pairs.full and worked[0] < postings / 5, (worked[0], postings)  # a ninth here


def test_likeliest_leaves_out_no_decision_tying_the_last_of_the_best():
    """Equal scores rank the greater name first: a bound equal to the last best score must not
    leave a decision out (rows 0-5 hold the same counts, so score alike)."""
    overlay: dict[int, dict[str, int]] = {}
    postings = []
    for term, rows in (("a", range(6)), ("b", range(10))):
        posting = likeliest.Posting(term, array("i", [n for row in rows for n in (row, 1)]).tobytes(), overlay)
        posting.bound = 1.0
        postings.append(posting)
    names = [f"n{n}" for n in range(10)]
    found = likeliest.likeliest(postings, 3, lambda row, posting, count: 1.0, names.__getitem__)
    assert found == [(2.0, "n5"), (2.0, "n4"), (2.0, "n3")]
