"""The conflicts queue and the write gate at size, each beside its reference, measured in one run.

Run: python -m tests.benchmarks.bench_queue [SIZE ...] [--runs N] [--proposals N]
     (default: 10000, best of 3, 40 proposals)

For each generated vault it prints:
- floor: a fresh Python reading every file and parsing its frontmatter with libyaml (as
  bench_open's process row), the best of N;
- conflicts: `workbench conflicts --json` as a fresh process with a warm store (the vault opened
  once before), start-up to exit, output discarded, the best of N, taken in turn with the floor;
  and its ratio to the floor (the goal is at most 1.0);
- gate p50/p95: `Vault.gate` in this process for a decision draft (a decision of the vault written
  again: its title, half its body, two of its links), after a first proposal has profiled the
  vault; and beside it a bare FTS5 query's p95 (two of the generated vault's words OR-ed, as
  bench_open asks them) and the ratio of the two p95 (the goal is at most 10);
- agree: for N drafts made from decisions of the vault (title and body; the decision itself left
  out of the documents weighed), in how many the gate's short-listed top 3 (a short list from
  the full-text index, as `Vault.gate` weighs at this size) is the full weighing's top 3, in order
  (the goal is at least 38 of 40).
A benchmark, not a test: machines are noisy, so compare ratios measured in one run.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from tests.benchmarks.bench_open import FLOOR_SCRIPT, percentile, run_python
from tests.benchmarks.generate import WORDS, generate_vault
from workbench import Vault
from workbench.core.services import gate
from workbench.core.services.gate import Draft
from workbench.core.views.search import FIELD_WEIGHTS

RUNS = 3
PROPOSALS = 40
CONFLICTS_SCRIPT = "import sys; from workbench.cli import main; sys.argv = ['workbench', '--vault', sys.argv[1], 'conflicts', '--json']; main()"


def conflicts_process(root: Path) -> float:
    elapsed, out = run_python(CONFLICTS_SCRIPT, str(root))
    if '"conflicts"' not in out[:40]:
        raise RuntimeError(f"conflicts printed no queue: {out[:200]!r}")
    return elapsed


def gate_times(
    vault: Vault, proposals: int, rng: random.Random, limit: int = 3, queries: list[str] | None = None
) -> tuple[list[float], list[float]]:
    """Seconds of `Vault.gate` (its `limit` candidates) for each of `proposals` decision drafts,
    and of a bare FTS5 query for each of `queries` (words OR-ed; by default, two of the generated
    vault's words)."""
    decisions = [d for d in vault.documents if d.type == "decision"]
    drafts = [
        Draft(
            "decision",
            d.title + " revised",
            list(d.tags),
            [(l.type, l.target) for l in d.links if l.type != "supersedes"][:2],
            d.body[: len(d.body) // 2],
        )
        for d in rng.sample(decisions, min(proposals, len(decisions)))
    ]
    vault.gate(drafts[0])  # the first proposal profiles the vault; later ones reuse it
    gates = []
    for draft in drafts:
        start = time.perf_counter()
        vault.gate(draft, limit)
        gates.append(time.perf_counter() - start)
    expressions = [" OR ".join(q.split()) for q in queries] if queries else None
    expressions = expressions or [" OR ".join(rng.sample(WORDS, 2)) for _ in range(200)]
    bare = []
    for expression in expressions:
        start = time.perf_counter()
        vault.store.match(expression, FIELD_WEIGHTS, 10)
        bare.append(time.perf_counter() - start)
    return gates, bare


def agreement(vault: Vault, proposals: int, rng: random.Random) -> tuple[int, int]:
    """(agreeing, asked): drafts whose short-listed top 3 is the full weighing's top 3."""
    decisions = [d for d in vault.documents if d.type == "decision"]
    shortlist = gate.fts_shortlist(vault.store, vault.document_at)
    agreeing = 0
    chosen = rng.sample(decisions, min(proposals, len(decisions)))
    for decision in chosen:
        others = [d for d in vault.documents if d.id != decision.id]
        draft = Draft("decision", decision.title, body=decision.body)
        full = [c.id for c in gate.candidates(others, draft)]
        short = [c.id for c in gate.candidates(others, draft, shortlist=shortlist)]
        agreeing += full == short
    return agreeing, len(chosen)


def main(sizes: list[int], runs: int = RUNS, proposals: int = PROPOSALS) -> None:
    print(
        f"{'docs':>6} {'floor':>7} {'conflicts':>9} {'x':>5}   {'gate p50':>8} {'p95':>7} {'fts p95':>8} {'x':>5} {'agree':>7}"
    )
    rng = random.Random(5)
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            generate_vault(root, size)
            Vault.open(root)  # builds the derived store: the queue is timed with it warm
            floors, queues = [], []
            for _ in range(runs):
                floors.append(run_python(FLOOR_SCRIPT, str(root))[0])
                queues.append(conflicts_process(root))
            floor_s, queue_s = min(floors), min(queues)
            gates, bare = gate_times(Vault.open(root), proposals, rng)
            gate_p95, bare_p95 = percentile(gates, 0.95), percentile(bare, 0.95)
            agreeing, asked = agreement(Vault.open(root), proposals, rng)
            print(
                f"{size:>6} {floor_s:>6.2f}s {queue_s:>8.2f}s {queue_s / floor_s:>5.2f}   {percentile(gates, 0.5) * 1000:>6.0f}ms"
                f" {gate_p95 * 1000:>5.0f}ms {bare_p95 * 1000:>6.1f}ms {gate_p95 / bare_p95:>5.0f} {agreeing:>3}/{asked:<3}",
                flush=True,
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[10000], help="documents per generated vault")
    parser.add_argument(
        "--runs", type=int, default=RUNS, help="best of this many fresh processes (default: %(default)s)"
    )
    parser.add_argument("--proposals", type=int, default=PROPOSALS, help="gate proposals timed (default: %(default)s)")
    args = parser.parse_args()
    main(args.sizes, args.runs, args.proposals)
