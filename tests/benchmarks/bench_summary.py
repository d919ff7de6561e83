"""What a long-lived face (the TUI's summary) asks of a warm vault beside the screen, and what
`workbench show ID` costs, for two or more checkouts of the code, alternated in one run.

Run: python -m tests.benchmarks.bench_summary SOURCE ID [--runs N] CODE [CODE ...]
     (SOURCE: a vault, copied once for each CODE; ID: a document of it; CODE: a folder holding a
     checkout's `workbench` package, put first on the path of every process it runs)

Each code opens its own copy twice first (its derived store built by its own code, then settled
after the copy). Then, for each of N rounds and each code in turn, fresh processes each open the
vault warm and time one of: `problems` (every problem, the relations across files worked out),
the first `graph()`, and `problems_for(ID)`, as CPU seconds of that step alone; and
`workbench show ID`, wall and CPU of the whole process. It prints the least and the most of
the N for each figure and code, and whether every code printed the same `show` output.
A benchmark, not a test: machines are noisy, so compare figures measured in one run.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STEP_SCRIPT = """
import sys, time
from workbench import Vault
vault = Vault.open(sys.argv[1])
step, doc_id = sys.argv[2], sys.argv[3]
start = time.process_time()
if step == "problems":
    len(vault.problems)
elif step == "graph":
    vault.graph()
else:
    len(vault.problems_for(doc_id))
print(time.process_time() - start)
"""


def run(code: Path, cache: Path, args: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, output) of a fresh process with `code` first on its path."""
    env = {**os.environ, "PYTHONPATH": str(code), "XDG_CACHE_HOME": str(cache)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode:
        raise RuntimeError(f"benchmark process failed:\n{result.stderr[-2000:]}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, result.stdout


def main(source: Path, doc_id: str, runs: int, codes: list[Path]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        roots = [Path(folder) / f"vault-{n}" for n in range(len(codes))]
        caches = [Path(folder) / f"cache-{n}" for n in range(len(codes))]
        show = ["-m", "workbench.cli", "--vault", "{root}", "show", doc_id]
        for code, root, cache in zip(codes, roots, caches):
            shutil.copytree(source, root, symlinks=True, ignore=shutil.ignore_patterns(".workbench"))
            for _ in range(2):  # its own store, then settled
                run(code, cache, [a.format(root=root) for a in show])
        print(f"{source}, {doc_id}, {runs} rounds, load average {os.getloadavg()[0]:.1f}")
        figures: dict[tuple[str, int], list[float]] = {}
        outputs: set[str] = set()
        for _ in range(runs):
            for n, (code, root, cache) in enumerate(zip(codes, roots, caches)):
                for step in ("problems", "graph", "problems_for"):
                    _, _, out = run(code, cache, ["-c", STEP_SCRIPT, str(root), step, doc_id])
                    figures.setdefault((step, n), []).append(float(out))
                wall, cpu, out = run(code, cache, [a.format(root=root) for a in show])
                figures.setdefault(("show wall", n), []).append(wall)
                figures.setdefault(("show CPU", n), []).append(cpu)
                outputs.add(out)
        for (what, n), values in figures.items():
            print(f"{what:>14}  {codes[n]}: {min(values):.3f}-{max(values):.3f} s")
        print("show output the same for every code:", len(outputs) == 1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path)
    parser.add_argument("doc_id")
    parser.add_argument("codes", type=Path, nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    main(options.source, options.doc_id, options.runs, options.codes)
