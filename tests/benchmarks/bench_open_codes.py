"""The warm (or cold) open of two or more checkouts of the code, alternated in one run, against the floor.

Run: python -m tests.benchmarks.bench_open_codes SOURCE [--flavour NAME] [--runs N] [--keep DIR] [--cold | --changed]
     [--bytecode] CODE [CODE ...]
     (SOURCE: a vault, copied once for each CODE; CODE: a folder holding a checkout's `workbench`
     package, put first on the path of every process it runs; best of 5 by default)

Each code opens its own copy of SOURCE (its derived store built by its own first open, so no code
reads another's store), with its own user's cache. Then, for each of N rounds: the floor (a fresh
Python parsing every file's frontmatter, `bench_open.FLOOR_SCRIPT`), then for each code in turn a
fresh process that opens the vault and answers one search (`bench_speed`'s warm open). It prints,
for each code, the least and the largest CPU time (user and system, of the process) of the N and
of the floor, the ratio of the least to the least floor, the least wall time, and the largest
peak resident memory. `--keep DIR` keeps the copies there and uses those already there, so that
a vault of 100,000 documents (minutes to copy and to open cold) is prepared once. `--cold` times
cold opens instead: each code's derived store (in the vault, or in its user's cache for a vault of
another format) is deleted before each of its opens, so the process
parses every file (in its workers, whose CPU time is counted) and builds the store and the
full-text index before its search is answered. `--changed` times the warm open after one change:
before each round, a sentence appended to the same decision in every copy (`bench_queue_codes`'s
`change_a_decision`, seeds 101, 102, ...), so that each open parses that file and stores its row.
`--bytecode` lets every process keep its code's bytecode cache, as `bench_queue_codes --bytecode`.
A benchmark, not a test: machines are noisy, so compare ratios measured in one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from tests.benchmarks.bench_open import FLOOR_SCRIPT
from tests.benchmarks import bench_queue_codes
from tests.benchmarks.bench_queue_codes import change_a_decision, timed
from tests.benchmarks.bench_speed import OPEN_SCRIPT

RUNS = 5


def main(
    source: Path,
    flavour: str,
    runs: int,
    codes: list[Path],
    keep: Path | None,
    cold: bool = False,
    changed: bool = False,
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        roots = [folder / f"vault-{n}" for n in range(len(codes))]  # a code named twice: two copies
        caches = [folder / f"cache-{n}" for n in range(len(codes))]
        for code, root, cache in zip(codes, roots, caches):
            if not root.exists():
                shutil.copytree(source, root, ignore=shutil.ignore_patterns(".workbench"))
            if cold:
                continue
            timed(code, cache, OPEN_SCRIPT, str(root), flavour)  # its store, built or brought up to date
            timed(code, cache, OPEN_SCRIPT, str(root), flavour)  # and its first warm open, not counted
        print(f"{source} ({flavour or 'as it says itself'}), {runs} rounds, load average {os.getloadavg()[0]:.1f}")
        floors: list[tuple[float, float]] = []
        warms: list[list[tuple[float, float, float]]] = [[] for _ in codes]
        for round_ in range(runs):
            if changed:
                for root in roots:
                    change_a_decision(root, 101 + round_)
            floors.append(timed(None, caches[0], FLOOR_SCRIPT, str(roots[0]))[:2])
            for n, (code, root, cache) in enumerate(zip(codes, roots, caches)):
                if cold:  # the store, in the vault or (a vault of another format) in the user's cache
                    shutil.rmtree(root / ".workbench", ignore_errors=True)
                    shutil.rmtree(cache / "workbench" / "vaults", ignore_errors=True)
                wall, cpu, out = timed(code, cache, OPEN_SCRIPT, str(root), flavour)
                warms[n].append((wall, cpu, float(out.split()[-1])))
        floor_cpu = min(c for _, c in floors)
        floor_wall = min(w for w, _ in floors)
        print(
            f"floor: CPU {floor_cpu:.2f}-{max(c for _, c in floors):.2f} s, wall {floor_wall:.2f}-{max(w for w, _ in floors):.2f} s"
        )
        kind = "cold open" if cold else "warm open after a change" if changed else "warm open"
        for code, measured in zip(codes, warms):
            least, most = min(c for _, c, _ in measured), max(c for _, c, _ in measured)
            print(
                f"{code}: {kind} CPU {least:.3f}-{most:.3f} s = {least / floor_cpu:.3f}x"
                f" the floor (largest {most / floor_cpu:.3f}x), wall {min(w for w, _, _ in measured):.2f}"
                f"-{max(w for w, _, _ in measured):.2f} s = {min(w for w, _, _ in measured) / floor_wall:.3f}x,"
                f" peak RSS {max(r for _, _, r in measured):.0f} MB"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="the vault, copied once for each code")
    parser.add_argument("codes", type=Path, nargs="+", help="folders each holding a checkout's workbench package")
    parser.add_argument("--flavour", default="", help="how to read the vault (adr for decision records)")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"rounds (default: {RUNS})")
    parser.add_argument("--keep", type=Path, help="keep the copies here, and use those already here")
    parser.add_argument("--cold", action="store_true", help="time cold opens (each code's store deleted first)")
    parser.add_argument("--changed", action="store_true", help="time warm opens after one decision changed, each round")
    parser.add_argument("--bytecode", action="store_true", help="let every process keep its bytecode cache")
    arguments = parser.parse_args()
    bench_queue_codes.BYTECODE = arguments.bytecode  # as `bench_queue_codes --bytecode`: `timed` reads it
    main(
        arguments.source,
        arguments.flavour,
        arguments.runs,
        [c.resolve() for c in arguments.codes],
        arguments.keep,
        arguments.cold,
        arguments.changed,
    )
