"""The queue's rows of `bench_speed` for two or more checkouts of the code, alternated in one run.

Run: python -m tests.benchmarks.bench_queue_codes SOURCE [--flavour NAME] [--runs N] [--seeds S,S] CODE [CODE ...]
     (SOURCE: a vault, copied once for each CODE; CODE: a folder holding a checkout's `workbench`
     package, put first on the path of every process it runs; best of 4 by default)

Each code answers on its own copy of SOURCE (its derived store built by its own first call, so
no code reads another's store): `workbench conflicts --json` and `workbench review --json`, each
answered once, then for each of N rounds: the floor (a fresh Python parsing every file's
frontmatter, as `bench_speed`'s), then for each code in turn (each round starting with the next
code, so that none is always measured first) the command with nothing changed, a
sentence appended to the same decision's file in its copy by plain file I/O, and the command
again. It prints, for each command and code, the least wall and CPU time (user and system, of
the process; the least system time beside it) of the N, each as a ratio to the least floor, and whether every round's output was
the same for every code (it must be: the codes compared are to answer alike).
`--loop` times instead the curator's loop: in each round, for each code, a sentence appended to a
decision, then `review --json`, then `conflicts --json` (the queue follows the weighing the review
list saved, and the other way round in the next round).
`--bytecode` lets every process write and read its code's bytecode cache (`__pycache__`), as an
installed program does: where the environment says PYTHONDONTWRITEBYTECODE, as some do, every
process compiles the package's sources again (0.08 s of `import workbench.cli` alone), which the
floor, importing installed libraries only, does not.
A benchmark, not a test: machines are noisy, so compare ratios measured in one run.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.bench_open import FLOOR_SCRIPT
from tests.benchmarks.bench_speed import CLI_SCRIPT

RUNS = 4

Figures = dict[tuple[str, str, int], list[tuple[float, float, float]]]
"""(command, when, code's place) -> (wall, CPU, of it system) of each round."""


BYTECODE = False  # `--bytecode`: the processes keep their bytecode cache


def timed(code: Path | None, cache: Path, script: str, *args: str) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, output) of `timed_apart`."""
    return timed_apart(code, cache, script, *args)[:3]


def timed_apart(code: Path | None, cache: Path, script: str, *args: str) -> tuple[float, float, str, float]:
    """(wall seconds, CPU seconds, output, the system's seconds of that CPU) of a fresh interpreter
    running `script` with `code`'s package first on its path, and `cache` as its user's cache (the
    code's digest is kept there: one for each code, or each would work the other's out again)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    if code is not None:  # None: the floor, which imports none of it
        env["PYTHONPATH"] = str(code)
    if BYTECODE:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, cwd=tempfile.gettempdir()
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode:
        raise RuntimeError(f"benchmark process failed:\n{result.stderr[-2000:]}")
    system = after.ru_stime - before.ru_stime
    return elapsed, after.ru_utime - before.ru_utime + system, result.stdout, system


def change_a_decision(root: Path, seed: int) -> None:
    """A sentence appended to a decision's file (any Markdown file's where no frontmatter says
    "type: decision"), chosen from the sorted paths by `seed`: the same file in every copy."""
    files = sorted(p for p in root.rglob("*.md") if ".workbench" not in p.parts and p.name != "log.md")
    decisions = [p for p in files if "\ntype: decision" in p.read_text("utf-8", errors="replace")[:600]]
    rng = random.Random(seed)
    path = rng.choice(decisions or files)
    with path.open("a", encoding="utf-8") as file:
        file.write(f"\nThe retry budget was raised to {rng.randint(2, 99)} attempts after the outage review.\n")


def main(
    source: Path, flavour: str, runs: int, codes: list[Path], loop: bool = False, seeds: list[int] | None = None
) -> None:
    """`seeds`: the decision each round changes (`change_a_decision`), in turn (101, 102, ... where none)."""
    reading = ["--flavour", flavour] if flavour else []
    with tempfile.TemporaryDirectory() as folder:
        roots = [Path(folder) / f"vault-{n}" for n in range(len(codes))]  # a code named twice: two copies
        caches = [Path(folder) / f"cache-{n}" for n in range(len(codes))]
        for root in roots:
            shutil.copytree(source, root, ignore=shutil.ignore_patterns(".workbench"))
        print(
            f"{source} ({flavour or 'as it says itself'}), best of {runs}, load average {os.getloadavg()[0]:.1f},"
            f" bytecode {'cached' if BYTECODE or not os.environ.get('PYTHONDONTWRITEBYTECODE') else 'compiled each time'}"
        )
        floors: list[tuple[float, float]] = []
        figures: Figures = {}
        alike = True
        seed = 100
        for command in () if loop else ("conflicts", "review"):
            for code, root, cache in zip(codes, roots, caches):  # answered once: the first "nothing changed" is kept
                timed(code, cache, CLI_SCRIPT, "--vault", str(root), *reading, command, "--json")
            for round_ in range(runs):
                floors.append(timed(codes[0], caches[0], FLOOR_SCRIPT, str(source))[:2])
                seed = seeds[round_ % len(seeds)] if seeds else seed + 1
                outputs = set()
                # Each round starts with the next code: whichever ran second in every round was
                # seen to pay 0.3-0.5 s more, for reasons not found.
                for n in [(round_ + k) % len(codes) for k in range(len(codes))]:
                    code, root, cache = codes[n], roots[n], caches[n]
                    args = ["--vault", str(root), *reading, command, "--json"]
                    wall, cpu, kept, system = timed_apart(code, cache, CLI_SCRIPT, *args)
                    figures.setdefault((command, "nothing changed", n), []).append((wall, cpu, system))
                    change_a_decision(root, seed)
                    wall, cpu, changed, system = timed_apart(code, cache, CLI_SCRIPT, *args)
                    figures.setdefault((command, "after one decision changed", n), []).append((wall, cpu, system))
                    outputs.add((kept, changed))
                alike = alike and len(outputs) == 1
        if loop:
            alike = _loop(codes, roots, caches, reading, runs, source, floors, figures)
        floor_wall, floor_cpu = min(w for w, _ in floors), min(c for _, c in floors)
        print(f"floor: {floor_wall:.2f} s wall, {floor_cpu:.2f} s CPU")
        for (command, when, n), measured in figures.items():
            wall, cpu, system = (min(m[at] for m in measured) for at in range(3))
            print(
                f"| {command + ' --json, ' + when:<44} | {n}: {str(codes[n]):<30} | wall {wall:5.2f} s = {wall / floor_wall:.2f}x"
                f" | CPU {cpu:5.2f} s = {cpu / floor_cpu:.2f}x (system {system:.2f} s) |",
                flush=True,
            )
        print(f"every output the same for every code: {alike}; load average at the end {os.getloadavg()[0]:.1f}")


def _loop(
    codes: list[Path],
    roots: list[Path],
    caches: list[Path],
    reading: list[str],
    runs: int,
    source: Path,
    floors: list[tuple[float, float]],
    figures: Figures,
) -> bool:
    """The curator's loop (`--loop`): each round a change, then `review --json`, then `conflicts
    --json`, for each code; whether every round's answers were the same for every code."""
    for code, root, cache in zip(codes, roots, caches):  # both kept once before the loop starts
        for command in ("review", "conflicts"):
            timed(code, cache, CLI_SCRIPT, "--vault", str(root), *reading, command, "--json")
    alike = True
    for round_ in range(runs):
        floors.append(timed(codes[0], caches[0], FLOOR_SCRIPT, str(source))[:2])
        outputs = set()
        for n in [(round_ + k) % len(codes) for k in range(len(codes))]:
            code, root, cache = codes[n], roots[n], caches[n]
            change_a_decision(root, 200 + round_)
            answers = []
            for command in ("review", "conflicts"):
                wall, cpu, out, system = timed_apart(
                    code, cache, CLI_SCRIPT, "--vault", str(root), *reading, command, "--json"
                )
                figures.setdefault((command, "after a change and the other", n), []).append((wall, cpu, system))
                answers.append(out)
            outputs.add(tuple(answers))
        alike = alike and len(outputs) == 1
    return alike


def codes_parser(description: str, runs: int) -> argparse.ArgumentParser:
    """The arguments every benchmark of changes alternating codes takes: the vault, the codes, the
    flavour, the rounds, and the seeds of the rounds' changes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("source", type=Path, help="the vault to copy for each code")
    parser.add_argument("codes", type=Path, nargs="+", help="folders each holding a checkout's workbench package")
    parser.add_argument("--flavour", default="", help="how to read the vault (adr for decision records)")
    parser.add_argument("--runs", type=int, default=runs, help="rounds, best of (default: %(default)s)")
    parser.add_argument(
        "--seeds", default="", help="the rounds' changes' seeds, in turn, comma-separated (e.g. 116,103)"
    )
    return parser


if __name__ == "__main__":
    parser = codes_parser(__doc__.splitlines()[0], RUNS)
    parser.add_argument("--bytecode", action="store_true", help="let every process keep its bytecode cache")
    parser.add_argument("--loop", action="store_true", help="time a change, then review, then conflicts, each round")
    args = parser.parse_args()
    BYTECODE = args.bytecode
    seeds = [int(seed) for seed in args.seeds.split(",") if seed]
    main(args.source, args.flavour, args.runs, [code.resolve() for code in args.codes], args.loop, seeds)
