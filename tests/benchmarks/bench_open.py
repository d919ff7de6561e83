"""Opening and searching a vault, against the floor of reading every file and parsing its YAML.

Run: python -m tests.benchmarks.bench_open [SIZE ...]   (default: 1000 10000)

For each generated vault it prints, measured in the same run:
- floor: read every file and parse its frontmatter with libyaml;
- cold open: no `.workbench/`, open the vault and answer a first search;
- warm open: the same with the derived store in place;
  each the best of 5, the three taken in turn (floor, cold, warm, floor...);
- search p50/p95 over a set of two-word queries, and a bare FTS5 query p95 for comparison; the
  queries share words, and search keeps each word's results between searches, so "first p95" is
  the same queries with nothing kept (as if each word were asked for the first time);
- as-you-type p95: every prefix of a few titles, as typed;
- the process's peak resident memory.
A benchmark, not a test: machines are noisy, so compare ratios measured in one run.
"""

from __future__ import annotations

import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

from tests.benchmarks.generate import WORDS, generate_vault
from workbench import Vault

RUNS = 5


def floor(root: Path) -> None:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for path in root.rglob("*.md"):
        text = path.read_text("utf-8")
        end = text.find("\n---", 4)
        yaml.load(text[4:end], Loader=loader)  # noqa: S506 - the safe loader


def best_of(runs: int, func, before=None) -> float:
    times = []
    for _ in range(runs):
        if before:
            before()
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def percentile(values: list[float], share: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(share * (len(values) - 1))))]


def timed(func, items) -> list[float]:
    out = []
    for item in items:
        start = time.perf_counter()
        func(item)
        out.append(time.perf_counter() - start)
    return out


def main(sizes: list[int]) -> None:
    print(f"{'docs':>6} {'floor':>7} {'cold':>7} {'x':>5} {'warm':>7} {'x':>5} {'search p50':>10} {'p95':>7} {'first p95':>9} {'fts p95':>8}"
          f" {'typing p95':>10} {'peak RSS':>9}")
    rng = random.Random(3)
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            generate_vault(root, size)

            def open_and_search():
                Vault.open(root).search("invoice retry", 10)

            # Interleaved, so that a slow spell of a shared machine falls on all three alike.
            floors, colds, warms = [], [], []
            for _ in range(RUNS):
                floors.append(best_of(1, lambda: floor(root)))
                colds.append(best_of(1, open_and_search, before=lambda: shutil.rmtree(root / ".workbench", ignore_errors=True)))
                warms.append(best_of(1, open_and_search))
            floor_s, cold_s, warm_s = min(floors), min(colds), min(warms)
            vault = Vault.open(root)
            queries = [" ".join(rng.sample(WORDS, 2)) for _ in range(200)]
            search_times = timed(lambda q: vault.search(q, 10), queries)
            fts_times = timed(lambda q: vault.store.match(" OR ".join(q.split()), (10.0, 6.0, 5.0, 4.0, 1.0), 10), queries)

            def first_time(query: str) -> None:
                vault._search_postings = None  # what search keeps per word, dropped
                vault.search(query, 10)

            first_times = timed(first_time, queries)
            titles = [d.title for d in rng.sample(vault.documents, 5)]
            prefixes = [t[:n] for t in titles for n in range(2, len(t) + 1)]
            typing_times = timed(lambda q: vault.search(q, 10), prefixes)
            peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(
                f"{size:>6} {floor_s:>6.2f}s {cold_s:>6.2f}s {cold_s / floor_s:>5.2f} {warm_s:>6.2f}s {warm_s / floor_s:>5.2f}"
                f" {statistics.median(search_times) * 1000:>8.1f}ms {percentile(search_times, .95) * 1000:>5.1f}ms"
                f" {percentile(first_times, .95) * 1000:>7.1f}ms"
                f" {percentile(fts_times, .95) * 1000:>6.1f}ms {percentile(typing_times, .95) * 1000:>8.1f}ms {peak_mb:>7.0f}MB"
            )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10000])
