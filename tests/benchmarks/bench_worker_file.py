"""A cold open's worker's file: what one file costs a worker, for two or more checkouts of the code.

Run: python -m tests.benchmarks.bench_worker_file VAULT [--flavour NAME] [--every N] [--runs N] CODE [CODE ...]
     (CODE: a folder holding a checkout's `workbench` package, put first on the path of the
     process that measures it; every 5th file, best of 5 by default)

For each round and each code in turn, a fresh process parses every Nth file of VAULT as a worker
of a cold open does (`loading._parse_chunk`: the file read, its record built in the vault's
flavour, the store's row made, the record left out for the parent to make from the row), pickles
what it would send back, and prints the CPU time of that alone (after a first pass over a few
files, so the imports and the patterns compiled are not counted). Beside them, the floor's file:
the floor's process (`bench_open.FLOOR_SCRIPT`: read every file, `yaml.load` its frontmatter)
over the whole vault, divided by its files. The vault is only read (nothing is opened, no store
written). A benchmark, not a test: machines are noisy, so compare figures measured in one run.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from tests.benchmarks.bench_open import FLOOR_SCRIPT
from tests.benchmarks.bench_queue_codes import timed

RUNS = 5
WORKER_SCRIPT = """
import datetime as dt, os, pickle, sys, time
from pathlib import Path
from workbench.core import flavours
from workbench.core.records import loading
root, name, every = sys.argv[1], sys.argv[2], int(sys.argv[3])
items = []
for folder, dirs, files in os.walk(root):
    dirs[:] = sorted(d for d in dirs if not d.startswith("."))
    for file in sorted(files):
        if file.endswith(".md"):
            path = os.path.join(folder, file)
            stat = os.stat(path)
            items.append((os.path.relpath(path, root), stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns))
items = items[::every]
reader = flavours.get(name).prepared(Path(root))
on = dt.date.today()
loading._parse_chunk(root, items[:20], on, True, reader, rows_only=True)
start = time.process_time()
pickle.dumps(loading._parse_chunk(root, items, on, True, reader, rows_only=True))
print(len(items), (time.process_time() - start) / len(items) * 1e6)
"""


def files_in(root: Path) -> int:
    return sum(1 for _, _, files in os.walk(root) for f in files if f.endswith(".md"))


def main(vault: Path, flavour: str, every: int, runs: int, codes: list[Path]) -> None:
    cache = Path(tempfile.mkdtemp(prefix="bench-worker-file-"))
    total = files_in(vault)
    print(
        f"{vault} ({flavour}), every {every}th of {total} files, {runs} rounds, load average {os.getloadavg()[0]:.1f}"
    )
    floors: list[float] = []
    measured: list[list[float]] = [[] for _ in codes]
    count = 0
    for _ in range(runs):
        floors.append(timed(None, cache, FLOOR_SCRIPT, str(vault))[1] / total * 1e6)
        for n, code in enumerate(codes):
            out = timed(code, cache, WORKER_SCRIPT, str(vault), flavour, str(every))[2].split()
            count = int(out[0])
            measured[n].append(float(out[1]))
    print(f"floor's file (its process's CPU over the {total} files): {min(floors):.0f}-{max(floors):.0f} us")
    for code, figures in zip(codes, measured):
        print(
            f"{code}: a worker's file {min(figures):.0f}-{max(figures):.0f} us CPU ({count} files),"
            f" {min(figures) / min(floors):.2f}x the floor's"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path, help="the vault, only read")
    parser.add_argument("codes", type=Path, nargs="+", help="folders each holding a checkout's workbench package")
    parser.add_argument("--flavour", default="adr", help="how to read the vault (default: adr)")
    parser.add_argument("--every", type=int, default=5, help="parse every Nth file (default: 5)")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"rounds (default: {RUNS})")
    args = parser.parse_args()
    main(args.vault, args.flavour, args.every, args.runs, args.codes)
