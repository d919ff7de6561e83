"""Does the conflicts queue find what a person would? And does the write gate offer it?

Run: python -m tests.benchmarks.bench_conflicts [COLLECTION ...] [--misses] [--shipped]
(default: every ADR collection under the public corpora: `adr-collection/*` and `adr-ai-agents`)

The truth is what a person read in each collection (`adr-truth/<name>.json`: pairs of file names,
older first), never what our reader finds: a pair the workbench cannot read still counts.

Each collection is copied and opened as a curator would open it, in its own format, after every
statement of supersession has been taken out of its files: the frontmatter keys that name a
predecessor or successor, the statuses that say superseded or replaced (made accepted, also in a
header block at the top of the body), tags that say superseded, and the body lines that say
supersedes, superseded, replaced by or replaces, or set a record aside in favour of (or instead of)
another. What is
left is two decisions on one subject, as two agents writing weeks apart would leave them.

Printed per collection, with every threshold chosen on the *other* collections (leave one out):
- the queue: recall (true pairs listed), precision (listed pairs that are true), and beside it
  plain BM25's recall with a list of the same length (each decision's most alike older one, by
  Okapi BM25 over the words of the files, most alike first);
- the gate: for each pair, the newer decision written again through the gate (its title, body and
  links, the document itself left out); the share of pairs whose older decision is among the top
  three offered, and plain BM25's top three beside it (the gate's weights, too, chosen on the
  other collections);
- for a reader (an agent or a person working past the queue): the review list's recall, every
  pair `weigh_for_review` weighs in its order with no threshold, down to its default depth of one pair
  per two decisions, beside BM25's list of the same length; and the gate's candidates within the
  read budget, the older decision among the top three and the top ten, beside BM25's.

The corpora are found under $WORKBENCH_CORPORA (default: `shared/corpora` next to the repository);
a missing one is skipped with a message. Nothing is keyed to a collection: the same figures are
measured on collections that are not here.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import re
import shutil
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from workbench import Vault
from workbench.core.services import conflicts as queue
from workbench.core.services import review
from workbench.core.services.gate import WEIGHTS, WEIGHTS_TRIED, Draft, Weights, candidates
from workbench.core.vocabulary.model import DocType, LinkType

CORPORA = Path(os.environ.get("WORKBENCH_CORPORA", Path(__file__).resolve().parents[3] / "shared" / "corpora"))
STATEMENT_LINE = re.compile(
    r"supersed|superced|replaced[- _](?:by|with)|\breplaces\b|(?:deprecated|rejected|dropped|withdrawn) in favou?r of"
    r"|instead of (?:ADR|[A-Z]{2,5})[-_ ]?\d",
    re.IGNORECASE,
)
STATEMENT_KEY = re.compile(r"supersed|superced|replac", re.IGNORECASE)
REPLACED_STATUS = re.compile(
    r"^(\s*status\s*:\s*)[\"']?(?:superseded|superceded|replaced)\b[^\n]*$", re.IGNORECASE | re.MULTILINE
)
WORD = re.compile(r"\w+")


@dataclass
class Collection:
    name: str
    truth: set[tuple[str, str]]  # (older file, newer file)
    scored: list[queue.Weighed] = field(default_factory=list)  # every pair the queue weighs, with its features
    review_scored: list[queue.Weighed] = field(default_factory=list)  # every pair the review list weighs
    paths: dict[str, str] = field(default_factory=dict)  # id -> file
    bm25_pairs: list[tuple[float, str, str]] = field(
        default_factory=list
    )  # (score, older file, newer file), best first
    bm25_gate_hits: int = 0
    # per pair, where the gate's candidates put the older (0: not among them), under each weighing tried
    gate_ranks: dict[Weights, list[int]] = field(default_factory=dict)
    bm25_gate_ranks: list[int] = field(default_factory=list)  # the same in plain BM25's ranking
    decisions: int = 0
    depth: int = 0  # the review list's default depth
    misses: list[str] = field(default_factory=list)


def collections(names: list[str]) -> list[Path]:
    found = sorted(p for p in (CORPORA / "adr-collection").glob("*") if p.is_dir()) + [CORPORA / "adr-ai-agents"]
    found = [p for p in found if (CORPORA / "adr-truth" / f"{p.name}.json").is_file()]
    if names:
        found = [p for p in found if p.name in names]
    return [p for p in found if p.is_dir()]


def strip(root: Path) -> None:
    """Take every statement of supersession out of the files, leaving the rest as it was."""
    for path in sorted(root.rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        meta, body = "", text
        if text.startswith("---\n") and "\n---" in text[4:]:
            end = text.index("\n---", 4) + 4
            meta, body = text[:end], text[end:]
            kept, dropping = [], False
            for line in meta.split("\n"):
                key = re.match(r"^([A-Za-z][\w-]*)\s*:", line)
                if key:
                    dropping = bool(STATEMENT_KEY.search(key.group(1)))
                elif line.strip() == "---" or (line and line[0] not in " \t-"):
                    dropping = False
                if dropping:
                    continue
                if re.match(r"^tags\s*:", line, re.IGNORECASE):
                    line = re.sub(r"\b[\"']?Supersede?d[\"']?\s*,?\s*", "", line, flags=re.IGNORECASE)
                kept.append(line)
            meta = REPLACED_STATUS.sub(r"\1Accepted", "\n".join(kept))
        body = REPLACED_STATUS.sub(r"\1Accepted", body)  # a header block's `Status: Replaced`
        body = "".join(line for line in body.splitlines(keepends=True) if not STATEMENT_LINE.search(line))
        path.write_text(meta + body, encoding="utf-8")


class Bm25:
    """Plain Okapi BM25 over the words of each document (k1 1.2, b 0.75): the baseline."""

    def __init__(self, texts: dict[str, str]):
        self.terms = {key: Counter(WORD.findall(text.lower())) for key, text in texts.items()}
        self.length = {key: sum(terms.values()) for key, terms in self.terms.items()}
        self.average = sum(self.length.values()) / max(1, len(self.length))
        frequency = Counter(term for terms in self.terms.values() for term in terms)
        n = len(self.terms)
        self.idf = {term: math.log(1 + (n - df + 0.5) / (df + 0.5)) for term, df in frequency.items()}

    def score(self, query: Counter, key: str) -> float:
        terms, norm = self.terms[key], 1.2 * (0.25 + 0.75 * self.length[key] / self.average)
        return sum(self.idf.get(t, 0.0) * terms[t] * 2.2 / (terms[t] + norm) for t in query if t in terms)

    def ranked(self, text: str, among) -> list[tuple[float, str]]:
        query = Counter(WORD.findall(text.lower()))
        return sorted(((self.score(query, key), key) for key in among), key=lambda item: (-item[0], item[1]))


def measure(source: Path, scratch: Path, tried: list[Weights]) -> Collection:
    truth = {tuple(pair) for pair in json.loads((CORPORA / "adr-truth" / f"{source.name}.json").read_text())}
    root = scratch / source.name
    shutil.copytree(source, root, ignore=shutil.ignore_patterns("SOURCE.md", "LICENSE*", ".workbench"))
    strip(root)
    vault = Vault.open(root)
    row = Collection(source.name, truth)
    documents = list(vault.documents)
    row.paths = {d.id: d.path for d in documents}
    row.scored = queue.weigh_decisions(documents)
    row.review_scored = queue.weigh_decisions(documents, neighbours=queue.REVIEW_NEIGHBOURS)  # as weigh_for_review
    row.decisions = sum(1 for d in documents if d.type == DocType.DECISION)
    # The list as the workbench serves it (`workbench review`, `memory_review`) with the shipped
    # settings, at its default depth, is the one measured here: the measure is of the list a reader gets.
    offered, row.depth = review.review_list(vault.index)[:2]
    served = [(row.paths[w.older], row.paths[w.newer]) for w in offered]
    if served != reviewed(row, queue.DEFAULT):
        row.misses.append("the review list served differs from the one measured")
    by_path = {d.path: d for d in documents}

    # Plain BM25: each document's most alike older one (older by the date it states, then its name).
    texts = {d.path: f"{d.title}\n{d.body}" for d in documents}
    bm25 = Bm25(texts)
    order = sorted(
        documents, key=lambda d: (d.view.created.isoformat() if d.view is not None and d.view.created else "", d.path)
    )
    for position, doc in enumerate(order[1:], start=1):
        older = [d.path for d in order[:position]]
        best = bm25.ranked(texts[doc.path], older)[:1]
        row.bm25_pairs += [(score, path, doc.path) for score, path in best if score > 0]
    row.bm25_pairs.sort(key=lambda item: -item[0])

    for older, newer in sorted(truth):
        if older not in by_path or newer not in by_path:
            row.misses.append(f"not opened as documents: {older} / {newer}")
            continue
        doc = by_path[newer]
        others = [d for d in documents if d.path != newer]
        links = [
            (l.type, l.target)
            for l in doc.links
            if l.type != LinkType.SUPERSEDES and l.target in row.paths and l.target != doc.id
        ]
        draft = Draft(DocType.DECISION.value, doc.title, list(doc.tags), links, doc.body)
        for weights in tried:
            offered = [c.id for c in candidates(others, draft, BUDGET, weights=weights)]
            rank = offered.index(by_path[older].id) + 1 if by_path[older].id in offered else 0
            row.gate_ranks.setdefault(weights, []).append(rank)
            if weights == WEIGHTS and not 0 < rank <= 3:
                row.misses.append(
                    f"gate: {doc.title!r} put {by_path[older].title!r} at {rank or 'none'}; offered {offered[:3]}"
                )
        baseline = [path for _, path in bm25.ranked(texts[newer], [d.path for d in others])[:BUDGET]]
        row.bm25_gate_ranks.append(baseline.index(older) + 1 if older in baseline else 0)
        if older in baseline[:3]:
            row.bm25_gate_hits += 1
    return row


def listed(row: Collection, settings: queue.Settings) -> list[tuple[str, str]]:
    return [(row.paths[c.older], row.paths[c.newer]) for c in queue.choose(row.scored, settings)]


def reviewed(row: Collection, settings: queue.Settings) -> list[tuple[str, str]]:
    """The review list: every pair the queue weighs, by its score with no threshold, best first,
    down to the default depth (one pair per two decisions)."""
    ranked = queue.review_order(row.review_scored, settings)
    return [(row.paths[w.older], row.paths[w.newer]) for w in ranked[: row.depth]]


REVIEW_WEIGHTS_TRIED = (0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1.0)


def review_chosen_on(rows: list[Collection], settings: queue.Settings) -> queue.Settings:
    """The review list's weight that finds the most pairs within its depth on these collections
    (the shipped one among equals)."""
    tried = [dataclasses.replace(settings, review_weight=w) for w in REVIEW_WEIGHTS_TRIED]
    return max(
        tried,
        key=lambda s: (sum(found(r, reviewed(r, s)) for r in rows), s.review_weight == queue.DEFAULT.review_weight),
    )


def gate_hits(row: Collection, weights: Weights, within: int = 3) -> int:
    return sum(0 < rank <= within for rank in row.gate_ranks[weights])


def gate_chosen_on(rows: list[Collection]) -> Weights:
    """The gate's weighing that puts the older decision in the top three for the most pairs on
    these collections, then in the top ten (the shipped one among equals)."""
    return max(
        rows[0].gate_ranks,
        key=lambda w: (
            sum(gate_hits(r, w) for r in rows),
            sum(gate_hits(r, w, BUDGET) for r in rows),
            w == WEIGHTS,
        ),
    )


def found(row: Collection, pairs: list[tuple[str, str]]) -> int:
    return len({frozenset(p) for p in pairs} & {frozenset(p) for p in row.truth})


def objective(rows: list[Collection], settings: queue.Settings) -> tuple[float, float]:
    """What the thresholds are chosen for: recall, with precision at least TARGET_PRECISION (F1 where
    none reaches it)."""
    truth = sum(len(r.truth) for r in rows)
    lists = [listed(r, settings) for r in rows]
    hits, length = sum(found(r, l) for r, l in zip(rows, lists)), sum(len(l) for l in lists)
    recall, precision = hits / truth if truth else 0.0, hits / length if length else 0.0
    if precision >= TARGET_PRECISION:
        return (1.0, recall + precision / 100)
    return (0.0, 2 * recall * precision / (recall + precision) if hits else 0.0)


# Aimed above the 0.30 that is asked, since a collection left out falls below what the others
# reached. 0.32 until status tags stopped counting as a shared subject; then the thresholds chosen
# without adr-ai-agents listed 38 of its pairs at precision 0.21 (pooled 0.58 at 0.28), and 0.34
# (pooled 0.58 at 0.33) was set, looking at these nine collections. The shipped thresholds are the
# same under either.
TARGET_PRECISION = 0.34


BUDGET = 10  # the gate's candidates a reader is given at most (the seeds' read budget: ten documents)


def chosen_on(rows: list[Collection]) -> queue.Settings:
    return max(queue.SETTINGS_TRIED, key=lambda settings: (objective(rows, settings), settings == queue.DEFAULT))


def _share(part: int, whole: int, width: int = 6) -> str:
    """A share printed to two places, or a dash where there is nothing to share (a collection
    with no pairs can still list some, and each one listed is a wrong one)."""
    return f"{part / whole:>{width}.2f}" if whole else f"{'-':>{width}}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="collections to measure (default: all)")
    parser.add_argument("--misses", action="store_true", help="list the pairs the queue or the gate missed")
    parser.add_argument(
        "--shipped",
        action="store_true",
        help="every collection with the shipped thresholds, as a collection nobody tuned on meets them",
    )
    args = parser.parse_args(argv)
    chosen = collections(args.names)
    if not chosen:
        print(f"no ADR collection with its truth under {CORPORA}; nothing measured")
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        tried = [WEIGHTS] if args.shipped else list(dict.fromkeys([WEIGHTS, *WEIGHTS_TRIED]))
        rows = [measure(source, Path(scratch), tried) for source in chosen]
    if args.shipped:
        print(f"Shipped thresholds on every collection: {queue.DEFAULT}")
    else:
        print("Leave one out: each collection's queue uses the thresholds chosen on the others.")
    print(
        f"{'collection':<40} {'pairs':>5} {'listed':>6} {'recall':>6} {'prec':>5} {'bm25':>5} {'gate@3':>6} {'bm25@3':>6}"
    )
    totals = Counter()
    for row in rows:
        others = [r for r in rows if r is not row]
        settings = chosen_on(others) if others and not args.shipped else queue.DEFAULT
        weights = gate_chosen_on(others) if others and not args.shipped else WEIGHTS
        mine = listed(row, settings)
        hits = found(row, mine)
        baseline = found(row, [(older, newer) for _, older, newer in row.bm25_pairs[: len(mine)]])
        truth = len(row.truth)
        print(
            f"{row.name:<40} {truth:>5} {len(mine):>6} {_share(hits, truth)} {_share(hits, len(mine), 5)} "
            f"{_share(baseline, truth, 5)} {_share(gate_hits(row, weights), truth)} {_share(row.bm25_gate_hits, truth)}"
        )
        totals.update(
            truth=truth,
            listed=len(mine),
            hits=hits,
            baseline=baseline,
            gate=gate_hits(row, weights),
            bm25_gate=row.bm25_gate_hits,
        )
        if args.misses:
            truth_pairs = {frozenset(p) for p in row.truth}
            for older, newer in sorted(row.truth):
                if frozenset((older, newer)) not in {frozenset(p) for p in mine}:
                    row.misses.append(f"queue: {older} then {newer}")
            row.misses += [f"queue, not a pair: {a} / {b}" for a, b in mine if frozenset((a, b)) not in truth_pairs]
    t = totals
    print(
        f"{'pooled, shipped' if args.shipped else 'pooled, left out':<40} {t['truth']:>5} {t['listed']:>6} {t['hits'] / t['truth']:>6.2f} "
        f"{t['hits'] / t['listed'] if t['listed'] else 0:>5.2f} {t['baseline'] / t['truth']:>5.2f} "
        f"{t['gate'] / t['truth']:>6.2f} {t['bm25_gate'] / t['truth']:>6.2f}"
    )
    if not args.shipped:
        lists = [listed(r, queue.DEFAULT) for r in rows]
        hits, length, truth = sum(found(r, l) for r, l in zip(rows, lists)), sum(len(l) for l in lists), t["truth"]
        print(
            f"{'pooled, shipped thresholds':<40} {truth:>5} {length:>6} {hits / truth:>6.2f} {hits / length if length else 0:>5.2f}"
        )
    print(f"shipped: {queue.DEFAULT}; chosen on all collections here: {chosen_on(rows)}")
    print()
    print(
        f"For a reader: the review list (every weighed pair by score, no threshold, one pair per {review.DEPTH_PER} "
        f"decisions) and the gate's candidates (top 3, top {BUDGET}), beside plain BM25's same-length lists."
    )
    print(
        f"{'collection':<40} {'pairs':>5} {'decis':>5} {'depth':>5} {'review':>6} {'bm25':>5} "
        f"{'gate@3':>6} {'bm25@3':>6} {'gate@10':>7} {'bm25@10':>7}"
    )
    reader = Counter()
    for row in rows:
        others = [r for r in rows if r is not row]
        settings = review_chosen_on(others, chosen_on(others)) if others and not args.shipped else queue.DEFAULT
        weights = gate_chosen_on(others) if others and not args.shipped else WEIGHTS
        depth = row.depth
        hits = found(row, reviewed(row, settings))
        baseline = found(row, [(older, newer) for _, older, newer in row.bm25_pairs[:depth]])
        truth = len(row.truth)
        top3, top10 = gate_hits(row, weights), gate_hits(row, weights, BUDGET)
        base3, base10 = sum(0 < r <= 3 for r in row.bm25_gate_ranks), sum(r > 0 for r in row.bm25_gate_ranks)
        print(
            f"{row.name:<40} {truth:>5} {row.decisions:>5} {depth:>5} {_share(hits, truth)} {_share(baseline, truth, 5)} "
            f"{_share(top3, truth)} {_share(base3, truth)} {_share(top10, truth, 7)} {_share(base10, truth, 7)}"
        )
        reader.update(truth=truth, hits=hits, baseline=baseline, top3=top3, base3=base3, top10=top10, base10=base10)
        if args.misses:
            row.misses.append(f"chosen on the others: review weight {settings.review_weight}, gate {weights}")
            listed_pairs = {frozenset(p) for p in reviewed(row, settings)}
            row.misses += [
                f"review list: {older} then {newer}"
                for older, newer in sorted(row.truth)
                if frozenset((older, newer)) not in listed_pairs
            ]
    r = reader
    print(
        f"{'pooled, shipped' if args.shipped else 'pooled, left out':<40} {r['truth']:>5} {'':>5} {'':>5} "
        f"{_share(r['hits'], r['truth'])} {_share(r['baseline'], r['truth'], 5)} {_share(r['top3'], r['truth'])} "
        f"{_share(r['base3'], r['truth'])} {_share(r['top10'], r['truth'], 7)} {_share(r['base10'], r['truth'], 7)}"
    )
    if not args.shipped:
        print(
            f"review list's weight chosen on all collections here: {review_chosen_on(rows, queue.DEFAULT).review_weight} "
            f"(shipped {queue.DEFAULT.review_weight}); the gate's: {gate_chosen_on(rows)} (shipped {WEIGHTS})"
        )
    if args.misses:
        for row in rows:
            for miss in row.misses:
                print(f"  {row.name}: {miss}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
