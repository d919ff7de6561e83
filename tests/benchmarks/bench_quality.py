"""Search quality: the default search against a plain FTS5 BM25 baseline on probe sets.

Run: python -m tests.benchmarks.bench_quality [PROBES.json ...]  (default: every file in probes/)

Each probe is a question with one gold document. Both retrievers run over the same vault: the
baseline is SQLite FTS5 with the Porter stemmer over title and body, the query's words OR-ed,
ranked by plain BM25 (the "just grep it" bar of the memoryfield evaluation); the default is
`Vault.search`. Printed: R@1, R@3, R@5 and MRR for each.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

from workbench import Vault

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
CORPORA = {"sample_vault": ROOT / "sample_vault"}


def baseline(vault: Vault):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, title, body, tokenize = 'porter unicode61')")
    db.executemany("INSERT INTO t VALUES (?, ?, ?)", [(d.id, d.title, d.body) for d in vault.documents])

    def search(question: str, limit: int) -> list[str]:
        words = re.findall(r"\w+", question.lower())
        expression = " OR ".join(f'"{w}"' for w in words)
        return [row[0] for row in db.execute("SELECT id FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (expression, limit))]

    return search


def scores(ranked_lists: list[tuple[list[str], str]]) -> dict[str, float]:
    def recall(k):
        return sum(1 for ranked, gold in ranked_lists if gold in ranked[:k]) / len(ranked_lists)

    mrr = sum(1 / (ranked.index(gold) + 1) if gold in ranked else 0 for ranked, gold in ranked_lists) / len(ranked_lists)
    return {"R@1": recall(1), "R@3": recall(3), "R@5": recall(5), "MRR": mrr}


def evaluate(probe_file: Path) -> None:
    spec = json.loads(probe_file.read_text("utf-8"))
    source = CORPORA[spec["corpus"]]
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "vault"
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".workbench"))
        vault = Vault.open(copy)
        base = baseline(vault)
        probes = spec["probes"]
        ours = scores([([h.id for h in vault.search(p["q"], 10)], p["gold"]) for p in probes])
        theirs = scores([(base(p["q"], 10), p["gold"]) for p in probes])
    print(f"{spec['corpus']}: {len(probes)} probes")
    print(f"{'retriever':<22} {'R@1':>5} {'R@3':>5} {'R@5':>5} {'MRR':>5}")
    for name, row in (("FTS5 BM25, OR-ed", theirs), ("workbench search", ours)):
        print(f"{name:<22} {row['R@1']:>5.2f} {row['R@3']:>5.2f} {row['R@5']:>5.2f} {row['MRR']:>5.2f}")


if __name__ == "__main__":
    files = [Path(a) for a in sys.argv[1:]] or sorted((HERE / "probes").glob("*.json"))
    for probe_file in files:
        evaluate(probe_file)
