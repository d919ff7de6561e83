"""The first open of a copied vault, its derived store copied with it, against a cold open.

Run: python -m tests.benchmarks.bench_copied_open [SIZE ...] [--runs N]
     (default: 10000, 3 runs)

A generated Memory Core vault is opened twice (its store built, then settled), then copied as
`cp -a` copies it (modification times kept, every file another inode and change time). For each
run, each a fresh Python process timed from inside (the open alone, imports excluded), it prints:
- copy: the copy's first open, its store copied with it (rows taken where the bytes are the same);
- cold: the same copy with no store (every file parsed);
- warm: the copy opened again (every row trusted on its stat);
as wall time and CPU time (the process and its parsing workers). A benchmark, not a test: machines
are noisy, so compare ratios measured in one run.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .generate import generate_vault

OPEN = """
import resource, sys, time
from workbench import Vault
wall, cpu = time.perf_counter(), time.process_time()
vault = Vault.open(sys.argv[1])
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
workers = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{wall:.3f} {cpu + workers.ru_utime + workers.ru_stime:.3f} {len(vault.index.records)}")
vault.index.store.close()
"""


def _open(root: Path) -> tuple[float, float, int]:
    done = subprocess.run([sys.executable, "-c", OPEN, str(root)], capture_output=True, text=True, check=True)
    wall, cpu, count = done.stdout.split()
    return float(wall), float(cpu), int(count)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", type=int, default=[10000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'docs':>7} {'run':>4} {'copy wall/CPU':>16} {'cold wall/CPU':>16} {'warm wall/CPU':>16}")
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as folder:
            base = Path(folder)
            source = base / "vault"
            generate_vault(source, size)
            _open(source)
            time.sleep(2.5)  # past the racy window: the source's rows are trusted on their stat
            _open(source)
            for run in range(1, args.runs + 1):
                copy = base / f"copy{run}"
                subprocess.run(["cp", "-a", str(source), str(copy)], check=True)
                time.sleep(2.5)  # a copy opened a moment later, as a person would
                copied = _open(copy)
                warm = _open(copy)
                shutil.rmtree(copy / ".workbench")
                cold = _open(copy)
                assert copied[2] == cold[2] == warm[2] == size
                cells = " ".join(f"{f'{w:.2f}s/{c:.2f}s':>16}" for w, c, _ in (copied, cold, warm))
                print(f"{size:>7} {run:>4} {cells}")
                shutil.rmtree(copy)


if __name__ == "__main__":
    main()
