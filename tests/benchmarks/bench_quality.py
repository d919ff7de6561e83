"""Search quality: the default search against a plain FTS5 BM25 baseline on probe sets.

Run: python -m tests.benchmarks.bench_quality [PROBES.json ...] [--misses]
(default: every file in probes/, then every file in probes/heldout/)

`probes/heldout/` holds a second set for each public corpus, 40 questions each, written later by
someone who read only the corpus documents and never ran a search: the first sets were read while
the ranking was tuned, these were not, so they are the fairer measure.

Each probe is a question with one gold document. Both retrievers run over the same vault: the
baseline is SQLite FTS5 with the Porter stemmer over title and body, the query's words OR-ed,
ranked by plain BM25 (the "just grep it" bar of the memoryfield evaluation); the default is
`Vault.search`. Printed: R@1, R@3, R@5 and MRR for each, and the difference between them.

A probe set names its corpus: `sample_vault` (in this repository) or a folder of the public
corpora, found under $WORKBENCH_CORPORA (default: `shared/corpora` next to the repository). A
corpus that is not there is skipped with a message. The vault is opened on a temporary copy,
since opening writes `.workbench/`; a corpus's `SOURCE.md` (where it came from, its license) is
not part of it and is left out of the copy.

A gold is a document id, or, when it ends in `.md`, a file path relative to the corpus root,
mapped to its document through the opened vault's records. The baseline indexes the documents
the default search can return (the valid ones). A gold that is not among them is reported as
"gold not indexed" and counts as a miss for both retrievers, so scores stay comparable across
runs. `--misses` lists, for every probe the default search does not place in its top 5, the
question, the gold and the top 3 ids it returned.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from workbench import Vault, VaultError

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
CORPORA_ROOT = Path(os.environ.get("WORKBENCH_CORPORA", ROOT.parent / "shared" / "corpora"))
PUBLIC_CORPORA = ("dendron-site", "agent-memory-serena", "adr-ai-agents")
CORPORA = {"sample_vault": ROOT / "sample_vault", **{name: CORPORA_ROOT / name for name in PUBLIC_CORPORA}}
NOT_CORPUS = "SOURCE.md"  # at a corpus root: provenance and license, not a note
RANKED = 10  # how deep each retriever's list goes (MRR counts a gold found anywhere in it)
MISS_AT = 5
SHOWN = 5  # golds listed per reason they are not indexed (--misses lists every probe)


def copy_ignoring(root: Path):
    """For shutil.copytree: leave out derived state anywhere and the provenance file at the root."""
    root = root.resolve()

    def ignore(folder: str, names: list[str]) -> set[str]:
        left_out = {".workbench"} & set(names)
        if Path(folder).resolve() == root and NOT_CORPUS in names:
            left_out.add(NOT_CORPUS)
        return left_out

    return ignore


def baseline(documents):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, title, body, tokenize = 'porter unicode61')")
    db.executemany("INSERT INTO t VALUES (?, ?, ?)", [(d.id, d.title, d.body) for d in documents])

    def search(question: str, limit: int) -> list[str]:
        words = re.findall(r"\w+", question.lower())
        if not words:
            return []
        expression = " OR ".join(f'"{w}"' for w in words)
        return [
            row[0]
            for row in db.execute("SELECT id FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (expression, limit))
        ]

    return search


def scores(ranked_lists: list[tuple[list[str], str | None]]) -> dict[str, float]:
    """R@k and MRR; a gold of None (not indexed) is a miss."""
    if not ranked_lists:
        return {"R@1": 0.0, "R@3": 0.0, "R@5": 0.0, "MRR": 0.0}

    def recall(k):
        return sum(1 for ranked, gold in ranked_lists if gold is not None and gold in ranked[:k]) / len(ranked_lists)

    mrr = sum(
        1 / (ranked.index(gold) + 1) if gold is not None and gold in ranked else 0 for ranked, gold in ranked_lists
    ) / len(ranked_lists)
    return {"R@1": recall(1), "R@3": recall(3), "R@5": recall(5), "MRR": mrr}


@dataclass
class Gold:
    given: str
    id: str | None  # the document id when the gold is indexed
    why_not: str = ""  # when it is not: what became of it


def gold_resolver(vault: Vault, corpus_root: Path):
    """Turn a probe's gold (a document id, or a `.md` path relative to the corpus root) into the
    id of an indexed document, or say why there is none."""
    indexed = {d.id for d in vault.documents}
    # Record paths are relative to the vault root, which may be a `memory/` child of the corpus.
    prefix = PurePosixPath(vault.root.resolve().relative_to(corpus_root.resolve()).as_posix())
    by_path = {(prefix / r.path).as_posix(): r for r in vault.records}

    def resolve(gold: str) -> Gold:
        if not gold.endswith(".md"):
            if gold in indexed:
                return Gold(gold, gold)
            record = next((r for r in vault.records if r.document.id == gold), None)
            if record is None:
                return Gold(gold, None, "no document has this id")
            return Gold(gold, None, _invalid(record))
        path = PurePosixPath(gold.replace("\\", "/")).as_posix().removeprefix("./")
        record = by_path.get(path)
        if record is None:
            on_disk = (corpus_root / path).is_file()
            return Gold(gold, None, "the vault does not read this file" if on_disk else "no such file in the corpus")
        doc = record.document
        if doc.valid and doc.id in indexed:
            return Gold(gold, doc.id)
        return Gold(gold, None, _invalid(record))

    return resolve


def _invalid(record) -> str:
    codes = sorted({p.code for p in record.problems})
    return "invalid: " + ", ".join(codes) if codes else "invalid"


def evaluate(probe_file: Path, show_misses: bool = False) -> None:
    spec = json.loads(probe_file.read_text("utf-8"))
    name = spec.get("corpus")
    source = CORPORA.get(name)
    if source is None:
        print(f"{probe_file.name}: unknown corpus {name!r} (known: {', '.join(CORPORA)}); skipped\n")
        return
    if not source.is_dir():
        hint = " (set WORKBENCH_CORPORA to the folder that holds it)" if name in PUBLIC_CORPORA else ""
        print(f"{name}: corpus folder {source} not found{hint}; skipped\n")
        return
    probes = spec["probes"]
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "vault"
        shutil.copytree(source, copy, ignore=copy_ignoring(source), symlinks=True)
        try:
            vault = Vault.open(copy)
        except VaultError as error:
            print(f"{name}: the vault did not open ({error}); skipped\n")
            return
        files = len(vault.records)
        documents = vault.documents
        paths = {d.id: d.path for d in documents}
        base = baseline(documents)
        resolve = gold_resolver(vault, copy)
        golds = [resolve(p["gold"]) for p in probes]
        ours_ranked = [[h.id for h in vault.search(p["q"], RANKED)] for p in probes]
        theirs_ranked = [base(p["q"], RANKED) for p in probes]
    ours = scores([(ranked, g.id) for ranked, g in zip(ours_ranked, golds)])
    theirs = scores([(ranked, g.id) for ranked, g in zip(theirs_ranked, golds)])
    print(f"{name}: {len(probes)} probes, {len(documents)} documents indexed of {files} files")
    missing = [g for g in golds if g.id is None]
    if missing:
        print(f"gold not indexed: {len(missing)} of {len(probes)} probes (counted as misses)")
        reasons: dict[str, list[str]] = {}
        for g in missing:
            reasons.setdefault(g.why_not, []).append(g.given)
        for why, given in reasons.items():
            more = f" and {len(given) - SHOWN} more" if len(given) > SHOWN else ""
            print(f"  {why} ({len(given)}): {', '.join(given[:SHOWN])}{more}")
    print(f"{'retriever':<22} {'R@1':>5} {'R@3':>5} {'R@5':>5} {'MRR':>5}")
    for label, row in (("FTS5 BM25, OR-ed", theirs), ("workbench search", ours)):
        print(f"{label:<22} {row['R@1']:>5.2f} {row['R@3']:>5.2f} {row['R@5']:>5.2f} {row['MRR']:>5.2f}")
    delta = {k: ours[k] - theirs[k] for k in ours}
    print(f"{'delta':<22} {delta['R@1']:>+5.2f} {delta['R@3']:>+5.2f} {delta['R@5']:>+5.2f} {delta['MRR']:>+5.2f}")
    if show_misses:
        print_misses(probes, golds, ours_ranked, paths)
    print()


def print_misses(probes, golds, ranked_lists, paths: dict[str, str]) -> None:
    misses = [(p, g, r) for p, g, r in zip(probes, golds, ranked_lists) if g.id is None or g.id not in r[:MISS_AT]]
    print(f"missed by workbench search at rank {MISS_AT}: {len(misses)}")

    def shown(doc_id: str) -> str:
        path = paths.get(doc_id, "")
        return doc_id if PurePosixPath(path).stem == doc_id or not path else f"{doc_id} [{path}]"

    for probe, gold, ranked in misses:
        if gold.id is None:
            where = f"gold not indexed: {gold.why_not}"
        elif gold.id in ranked:
            where = f"gold at rank {ranked.index(gold.id) + 1}"
        else:
            where = f"gold not in the top {RANKED}"
        gold_text = gold.given if gold.id in (None, gold.given) else f"{gold.given} (id {gold.id})"
        print(f"  q:    {probe['q']}")
        print(f"  gold: {gold_text}; {where}")
        print(f"  top3: {', '.join(shown(i) for i in ranked[:3]) or '(nothing)'}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tests.benchmarks.bench_quality", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "probes", nargs="*", type=Path, help="probe sets (default: every file in probes/ and probes/heldout/)"
    )
    parser.add_argument(
        "--misses", action="store_true", help=f"list the probes the default search misses at rank {MISS_AT}"
    )
    args = parser.parse_args(argv)
    for probe_file in args.probes or sorted((HERE / "probes").glob("*.json")) + sorted(
        (HERE / "probes" / "heldout").glob("*.json")
    ):
        evaluate(probe_file, args.misses)


if __name__ == "__main__":
    main(sys.argv[1:])
