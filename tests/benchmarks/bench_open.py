"""Opening and searching a vault, against the floor of reading every file and parsing its YAML.

Run: python -m tests.benchmarks.bench_open [SIZE ...] [--runs N] [--process-only]
     (default: 1000 10000, best of 5)

For each generated vault it prints, measured in the same run, a row measured in this process:
- floor: read every file and parse its frontmatter with libyaml;
- cold open: no `.workbench/`, open the vault and answer a first search;
- warm open: the same with the derived store in place;
  each the best of N, the three taken in turn (floor, cold, warm, floor...);
- search p50/p95 over a set of two-word queries, and a bare FTS5 query p95 for comparison; the
  queries share words, and search keeps each word's results between searches, so "first p95" is
  the same queries with nothing kept (as if each word were asked for the first time);
- as-you-type p95: every prefix of a few titles, as typed;
- the process's peak resident memory;
and beneath it a row labelled "process": the same floor, cold and warm as a user meets them, each
a fresh Python timed whole from outside, interpreter start and imports included. The floor process
imports only pathlib and yaml; the cold and warm ones `from workbench import Vault`, open the vault
and answer one search. Every command-line call pays those imports again, and the in-process row
never sees them, so the process row also says how long the imports took inside the cold and warm
processes (and their share of each), and the wall time of a process that only imports workbench.
`--process-only` measures just these rows.
A benchmark, not a test: machines are noisy, so compare ratios measured in one run.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

import workbench
from tests.benchmarks.generate import WORDS, generate_vault
from workbench import Vault
from workbench.core.views import fulltext

RUNS = 5
QUERY = "invoice retry"  # two of the words every generated vault uses

# The scripts of the fresh processes. The floor does what `floor` does, importing nothing else.
FLOOR_SCRIPT = """
import sys
from pathlib import Path
import yaml
loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
for path in Path(sys.argv[1]).rglob("*.md"):
    text = path.read_text("utf-8", errors="replace")
    if text.startswith("---"):
        end = text.find("\\n---", 4)
        try:
            yaml.load(text[4:end], Loader=loader)
        except (yaml.YAMLError, ValueError):  # a collection may hold a broken frontmatter
            pass
"""
# Prints how long its own imports took; `time` is built in, so timing costs no import.
OPEN_SCRIPT = """
import sys, time
start = time.perf_counter()
from workbench import Vault
from workbench.core.views import fulltext
imported = time.perf_counter()
Vault.open(sys.argv[1]).search(sys.argv[2], 10)
print(imported - start)
"""
IMPORT_SCRIPT = "from workbench import Vault"


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


def run_python(script: str, *args: str) -> tuple[float, str]:
    """Wall time and output of a fresh interpreter running `script`, start-up to exit.

    PYTHONPATH leads with the folder this process imported workbench from, so the child measures
    the same code whatever its working directory or installed copy."""
    paths = [
        str(Path(workbench.__file__).resolve().parent.parent),
        *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep)),
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if result.returncode:
        raise RuntimeError(f"benchmark process failed:\n{result.stderr}")
    return elapsed, result.stdout


def process_row(root: Path, size: int, runs: int) -> str:
    """Floor, cold and warm as fresh processes, interleaved like the in-process row."""
    floors, colds, warms, import_only = [], [], [], []
    for _ in range(runs):
        floors.append(run_python(FLOOR_SCRIPT, str(root))[0])
        shutil.rmtree(root / ".workbench", ignore_errors=True)
        for times in (colds, warms):
            elapsed, out = run_python(OPEN_SCRIPT, str(root), QUERY)
            times.append((elapsed, float(out.split()[-1])))
        import_only.append(run_python(IMPORT_SCRIPT)[0])
    floor_s = min(floors)
    (cold_s, cold_imports), (warm_s, warm_imports) = min(colds), min(warms)
    return (
        f"{size:>6} {floor_s:>6.2f}s {cold_s:>6.2f}s {cold_s / floor_s:>5.2f} {warm_s:>6.2f}s {warm_s / floor_s:>5.2f}"
        f"  process: imports {cold_imports:.2f}s of cold ({cold_imports / cold_s:.0%}), {warm_imports:.2f}s of warm"
        f" ({warm_imports / warm_s:.0%}); importing alone {min(import_only):.2f}s"
    )


def main(sizes: list[int], runs: int = RUNS, process_only: bool = False) -> None:
    columns = f"{'docs':>6} {'floor':>7} {'cold':>7} {'x':>5} {'warm':>7} {'x':>5}"
    if process_only:
        print(columns)
    else:
        print(
            f"{columns} {'search p50':>10} {'p95':>7} {'first p95':>9} {'fts p95':>8} {'typing p95':>10} {'peak RSS':>9}"
        )
    rng = random.Random(3)
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            generate_vault(root, size)
            if process_only:
                print(process_row(root, size, runs), flush=True)
                continue

            def open_and_search():
                Vault.open(root).search(QUERY, 10)

            # Interleaved, so that a slow spell of a shared machine falls on all three alike.
            floors, colds, warms = [], [], []
            for _ in range(runs):
                floors.append(best_of(1, lambda: floor(root)))
                colds.append(
                    best_of(1, open_and_search, before=lambda: shutil.rmtree(root / ".workbench", ignore_errors=True))
                )
                warms.append(best_of(1, open_and_search))
            floor_s, cold_s, warm_s = min(floors), min(colds), min(warms)
            vault = Vault.open(root)
            queries = [" ".join(rng.sample(WORDS, 2)) for _ in range(200)]
            search_times = timed(lambda q: vault.search(q, 10), queries)
            fts_times = timed(
                lambda q: vault.store.match(" OR ".join(q.split()), (10.0, 6.0, 5.0, 4.0, 1.0), 10), queries
            )

            def first_time(query: str) -> None:
                fulltext.KEPT.pop(vault.index, None)  # what search keeps per word, dropped
                vault.search(query, 10)

            first_times = timed(first_time, queries)
            titles = [d.title for d in rng.sample(vault.documents, 5)]
            prefixes = [t[:n] for t in titles for n in range(2, len(t) + 1)]
            typing_times = timed(lambda q: vault.search(q, 10), prefixes)
            peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(
                f"{size:>6} {floor_s:>6.2f}s {cold_s:>6.2f}s {cold_s / floor_s:>5.2f} {warm_s:>6.2f}s {warm_s / floor_s:>5.2f}"
                f" {statistics.median(search_times) * 1000:>8.1f}ms {percentile(search_times, 0.95) * 1000:>5.1f}ms"
                f" {percentile(first_times, 0.95) * 1000:>7.1f}ms"
                f" {percentile(fts_times, 0.95) * 1000:>6.1f}ms {percentile(typing_times, 0.95) * 1000:>8.1f}ms {peak_mb:>7.0f}MB",
                flush=True,
            )
            print(process_row(root, size, runs), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1000, 10000], help="documents per generated vault")
    parser.add_argument("--runs", type=int, default=RUNS, help="best of this many runs (default: %(default)s)")
    parser.add_argument("--process-only", action="store_true", help="only the fresh-process rows")
    args = parser.parse_args()
    main(args.sizes, args.runs, args.process_only)
