"""Where a `conflicts --json` or `review --json` process spends its CPU after one decision changed,
part by part, for two or more checkouts of the code alternated in one run.

Run: python -m tests.benchmarks.bench_process_parts SOURCE [--flavour NAME] [--runs N] [--seeds S,S]
     [--command conflicts|review] CODE [CODE ...]
     (SOURCE: a vault, copied once for each CODE; CODE: a folder holding a checkout's `workbench`
     package, put first on the path of every process it runs; best of 4 by default)

Each code answers on its own copy of SOURCE, its store built and its answer kept by a first call.
Then, for each of N rounds, a sentence appended to the same decision in every copy
(`bench_queue_codes.change_a_decision`, seeds 101, 102, ... unless given) and, for each code in
turn (each round starting with the next), a fresh process (its bytecode cache kept) that runs the
command as `cli.main.answer` does, one step at a time, timing each step in CPU (user and system,
the process's CPU clock): the interpreter's start, `cli.main`'s import, the stat walk that asks for a
kept answer (`answer_unchanged`, its imports with it), the command line read (`quick_arguments`,
which imports the core), the open (and of it: the store's rows read, the vault walked, the records
brought in line, the ids settled), the command's import and the command. It prints each part's
least CPU over the rounds (its system time beside it) for each code, and its median. The parts
are timed by wrapping the functions of those names where a code has them. A benchmark, not a
test: machines are noisy, so compare codes measured in one run.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from tests.benchmarks import bench_queue_codes
from tests.benchmarks.bench_queue_codes import change_a_decision, timed
from tests.benchmarks.bench_speed import CLI_SCRIPT

RUNS = 4

# Run in a fresh interpreter with the code's package first on its path; prints one JSON line of
# {part: [CPU seconds, system seconds]}: the process's CPU clock across each part, and the system
# time `getrusage` counted meanwhile (sampled at the kernel's tick: a few milliseconds either way).
PARTS_SCRIPT = r"""
import gc, importlib, json, os, resource, sys, time
def now():
    return time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_stime
parts = {"start": list(now())}
def took(name, since):
    cpu, system = now()
    parts[name] = [cpu - since[0], system - since[1]]
def wrap(owner, attr, name):
    found = getattr(owner, attr, None)
    if found is None:
        return
    def timed(*args, **kwargs):
        since = now()
        try:
            return found(*args, **kwargs)
        finally:
            cpu, system = now()
            was = parts.setdefault(name, [0.0, 0.0])
            was[0] += cpu - since[0]
            was[1] += system - since[1]
    setattr(owner, attr, timed)
gc.disable()
since = now()
main = importlib.import_module("workbench.cli.main")
took("import cli.main", since)
argv = sys.argv[1:]
question = main.quick_question(argv)
since = now()
text, fingerprint = main.answer_unchanged(question)
took("stat walk, kept answer asked", since)
if text is not None:
    raise SystemExit("an answer was kept: nothing changed")
since = now()
args = main.quick_arguments(argv)
args.unchanged = fingerprint
took("command line (core imported)", since)
index = importlib.import_module("workbench.core.index")
store = importlib.import_module("workbench.core.records.derived_store")
wrap(store.DerivedStore, "load", "  open: store's rows read")
wrap(index, "walk_vault", "  open: vault walked")
wrap(index, "bring_in_line", "  open: records brought in line")
wrap(index.VaultIndex, "reindex", "  open: ids settled")
since = now()
vault = main.open_vault(args.vault, args.flavour, args.command, fingerprint.listing)
took("open", since)
since = now()
run = main.command(args.command)
took("command's import", since)
out = sys.stdout
sys.stdout = open(os.devnull, "w")
since = now()
run(vault, args)
sys.stdout.flush()
sys.stdout = out
took("command", since)
parts["total"] = list(now())
print(json.dumps(parts))
os._exit(0)
"""


def main(source: Path, flavour: str, runs: int, codes: list[Path], command: str, seeds: list[int]) -> None:
    bench_queue_codes.BYTECODE = True
    reading = ["--flavour", flavour] if flavour else []
    with tempfile.TemporaryDirectory() as folder:
        roots = [Path(folder) / f"vault-{n}" for n in range(len(codes))]
        caches = [Path(folder) / f"cache-{n}" for n in range(len(codes))]
        for code, root, cache in zip(codes, roots, caches):
            shutil.copytree(source, root, ignore=shutil.ignore_patterns(".workbench"))
            timed(code, cache, CLI_SCRIPT, "--vault", str(root), *reading, command, "--json")
        print(
            f"{source} ({flavour or 'as it says itself'}), {command} --json after one change, best of {runs},"
            f" load average {os.getloadavg()[0]:.1f}"
        )
        found: list[dict[str, list[list[float]]]] = [{} for _ in codes]
        for round_ in range(runs):
            seed = seeds[round_ % len(seeds)] if seeds else 101 + round_
            for root in roots:
                change_a_decision(root, seed)
            for n in [(round_ + k) % len(codes) for k in range(len(codes))]:
                _, _, out = timed(
                    codes[n], caches[n], PARTS_SCRIPT, "--vault", str(roots[n]), *reading, command, "--json"
                )
                for part, figures in json.loads(out.splitlines()[-1]).items():
                    found[n].setdefault(part, []).append(figures)
        names = list(dict.fromkeys(part for parts in found for part in parts))
        print(
            f"| {'part (CPU s, least / median; system)':<40} | "
            + " | ".join(f"{n}: {c.name:<22}" for n, c in enumerate(codes))
            + " |"
        )
        for part in names:
            cells = []
            for parts in found:
                measured = parts.get(part)
                if not measured:
                    cells.append(f"{'-':<25}")
                    continue
                least = min(measured)
                median = statistics.median(m[0] for m in measured)
                cells.append(f"{least[0]:.3f} / {median:.3f}; {least[1]:.3f}".ljust(25))
            print(f"| {part:<40} | " + " | ".join(cells) + " |")
        print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    parser = bench_queue_codes.codes_parser(__doc__.splitlines()[0], RUNS)
    parser.add_argument("--command", default="conflicts", choices=("conflicts", "review"))
    args = parser.parse_args()
    seeds = [int(seed) for seed in args.seeds.split(",") if seed]
    main(args.source, args.flavour, args.runs, [code.resolve() for code in args.codes], args.command, seeds)
