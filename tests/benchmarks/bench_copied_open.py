"""The first open of a copied vault, its derived store copied with it, against a cold open.

Run: python -m tests.benchmarks.bench_copied_open [SIZE ...] [--runs N]
     (default: 10000, 3 runs)

A generated Memory Core vault is opened twice (its store built, then settled), then copied as
`cp -a` copies it (modification times kept, every file another inode and change time). For each
run, each a fresh Python process timed from inside (the open alone, imports excluded), it prints:
- copy: the copy's first open, its store copied with it (rows taken where the bytes are the same);
- copy -r: the first open of a copy made as `cp -r` makes it (no modification time kept: in
  Memory Core, which reads no file's time, rows are taken where the bytes are the same all the same);
- cold: the same copy with no store (every file parsed);
- warm: the copy opened again (every row trusted on its stat);
- theirs: another copy opened by another user (its store's seal not theirs: built again);
as wall time and CPU time (the process and its parsing workers). A benchmark, not a test: machines
are noisy, so compare ratios measured in one run. The opens keep their user's state (the secret
that seals a store) in a temporary folder, one for this user and one for the other.
"""

from __future__ import annotations

import argparse
import os
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


def _open(root: Path, state: Path) -> tuple[float, float, int]:
    env = {**os.environ, "XDG_STATE_HOME": str(state)}
    done = subprocess.run([sys.executable, "-c", OPEN, str(root)], capture_output=True, text=True, check=True, env=env)
    wall, cpu, count = done.stdout.split()
    return float(wall), float(cpu), int(count)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", type=int, default=[10000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    columns = ("copy", "copy -r", "cold", "warm", "theirs")
    print(f"{'docs':>7} {'run':>4} " + " ".join(f"{name + ' wall/CPU':>16}" for name in columns))
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as folder:
            base = Path(folder)
            mine, other = base / "state-mine", base / "state-other"
            source = base / "vault"
            generate_vault(source, size)
            _open(source, mine)
            time.sleep(2.5)  # past the racy window: the source's rows are trusted on their stat
            _open(source, mine)
            for run in range(1, args.runs + 1):
                copy = base / f"copy{run}"
                subprocess.run(["cp", "-a", str(source), str(copy)], check=True)
                time.sleep(2.5)  # a copy opened a moment later, as a person would
                times_lost = base / f"copy-r{run}"
                subprocess.run(["cp", "-r", str(source), str(times_lost)], check=True)
                theirs_copy = base / f"theirs{run}"
                subprocess.run(["cp", "-a", str(source), str(theirs_copy)], check=True)
                time.sleep(2.5)
                copied = _open(copy, mine)
                copied_r = _open(times_lost, mine)
                warm = _open(copy, mine)
                theirs = _open(theirs_copy, other)
                shutil.rmtree(copy / ".workbench")
                cold = _open(copy, mine)
                assert copied[2] == copied_r[2] == cold[2] == warm[2] == theirs[2] == size
                opens = (copied, copied_r, cold, warm, theirs)
                cells = " ".join(f"{f'{w:.2f}s/{c:.2f}s':>16}" for w, c, _ in opens)
                print(f"{size:>7} {run:>4} {cells}")
                shutil.rmtree(copy)
                shutil.rmtree(theirs_copy)
                shutil.rmtree(times_lost)


if __name__ == "__main__":
    main()
