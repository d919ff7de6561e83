"""Cold open of a real Dendron vault: workbench against obsidiantools, side by side in one run.

Run: python -m tests.benchmarks.bench_vs_obsidiantools [--repeat N] [--vault PATH]
                                                       [--obsidiantools-python PATH]

The corpus is the Dendron documentation vault (1012 notes) in the shared corpora folder
(`$WORKBENCH_CORPORA/dendron-site`, by default `../shared/corpora/dendron-site` beside the repo);
`--vault PATH` measures another folder instead. It is copied to a temporary folder first (without
its SOURCE.md), because opening a vault with workbench writes `.workbench/` into it.

Each measurement runs in a fresh Python process, so nothing is cached in memory between runs:
- workbench cold: `Vault.open(path)` then a first `v.search("links")`, with no `.workbench/`
  folder (it is deleted before each repetition);
- workbench warm: the same with the `.workbench/` left by the previous run in place;
- obsidiantools: `obsidiantools.api.Vault(path).connect().gather()`.
Inside each process the import is timed apart from the work; the parent also times the whole
process (interpreter start, imports, work, exit). Median and min over the repetitions are printed.

obsidiantools is not a dependency of workbench: on first use this script makes a throwaway virtual
environment for it under the system temporary folder (`python -m venv`, then
`pip install obsidiantools`) and reuses it on later runs; `--obsidiantools-python` names an
interpreter that already has it. If it cannot be installed, only the workbench figures are printed.

A benchmark, not a test: machines are noisy, so compare the ratios measured in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS_NAME = "dendron-site"
LEFT_OUT = ("SOURCE.md",)
QUERY = "links"
VENV_DIR = Path(tempfile.gettempdir()) / "workbench-bench-obsidiantools-venv"

# Each probe prints one JSON line on stdout: times in seconds plus what the tool found.
# Counting what was found happens after the timed part, so it is not in the figures.
WORKBENCH_PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
from workbench import Vault
t1 = time.perf_counter()
v = Vault.open(sys.argv[1])
hits = v.search(sys.argv[2])
t2 = time.perf_counter()
found = {"search_hits": len(hits)}
try:
    docs = v.documents
    found["valid_documents"] = len(docs)
    found["links"] = sum(len(d.links) for d in docs)
except Exception as exc:
    found["documents_error"] = repr(exc)
try:
    records = v.records
    records = records() if callable(records) else records
    found["files_read"] = len(records)
except Exception:
    pass
try:
    problems = v.problems
    problems = problems() if callable(problems) else problems
    found["problems"] = len(problems)
except Exception:
    pass
print(json.dumps({"import": t1 - t0, "work": t2 - t1, "found": found}))
"""

OBSIDIANTOOLS_PROBE = r"""
import json, sys, time
from pathlib import Path
t0 = time.perf_counter()
import obsidiantools.api as otools
t1 = time.perf_counter()
vault = otools.Vault(Path(sys.argv[1])).connect()
t_connect = time.perf_counter()
vault = vault.gather()
t2 = time.perf_counter()
found = {}
try:
    found["notes_indexed"] = len(vault.md_file_index)
except Exception:
    pass
try:
    graph = vault.graph
    found["graph_nodes"] = graph.number_of_nodes()
    found["graph_edges"] = graph.number_of_edges()
except Exception as exc:
    found["graph_error"] = repr(exc)
try:
    found["nonexistent_notes"] = len(vault.nonexistent_notes)
except Exception:
    pass
try:
    found["texts_gathered"] = len(vault.text_index)
except Exception:
    pass
try:
    from importlib.metadata import version
    found["version"] = version("obsidiantools")
except Exception:
    pass
times = {"import": t1 - t0, "work": t2 - t1, "connect": t_connect - t1, "gather": t2 - t_connect}
print(json.dumps({**times, "found": found}))
"""


class ProbeFailed(RuntimeError):
    pass


def run_probe(python: str, probe: str, args: list[str], env: dict[str, str] | None = None) -> dict:
    """Run one probe in a fresh process; its JSON result plus the whole process's wall time."""
    start = time.perf_counter()
    proc = subprocess.run(
        [python, "-c", probe, *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise ProbeFailed(f"exit {proc.returncode}:\n{proc.stderr.strip()[-2000:]}")
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise ProbeFailed(f"no result printed:\n{proc.stdout[-1000:]}\n{proc.stderr[-1000:]}")
    result = json.loads(lines[-1])
    result["process"] = wall
    return result


def workbench_env() -> dict[str, str]:
    """The environment for workbench probes: this checkout first on the path, installed or not."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def has_obsidiantools(python: str) -> bool:
    proc = subprocess.run(
        [python, "-c", "import obsidiantools.api"],
        check=False,
        capture_output=True,
        text=True,
    )
    return proc.returncode == 0


def obsidiantools_python(given: str | None) -> tuple[str | None, str]:
    """An interpreter with obsidiantools, and a line telling where it came from (or why there is none)."""
    if given:
        if has_obsidiantools(given):
            return given, f"obsidiantools from the given interpreter {given}"
        return None, f"the given interpreter {given} cannot import obsidiantools"
    python = venv_python(VENV_DIR)
    if python.exists() and has_obsidiantools(str(python)):
        return str(python), f"obsidiantools from the reused virtualenv {VENV_DIR}"
    print(
        f"Installing obsidiantools into a throwaway virtualenv at {VENV_DIR} (first run only)...",
        flush=True,
    )
    try:
        if not python.exists():
            subprocess.run(
                [sys.executable, "-m", "venv", str(VENV_DIR)],
                check=True,
                capture_output=True,
                text=True,
            )
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "obsidiantools"],
            check=True,
            capture_output=True,
            text=True,
        )
    except (subprocess.CalledProcessError, OSError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        return (
            None,
            f"could not install obsidiantools into {VENV_DIR}: {detail.strip()[-800:]}",
        )
    if has_obsidiantools(str(python)):
        return str(python), f"obsidiantools freshly installed into the virtualenv {VENV_DIR}"
    return None, f"obsidiantools was installed into {VENV_DIR} but cannot be imported"


def python_version(python: str) -> str:
    proc = subprocess.run(
        [python, "-c", "import platform; print(platform.python_version())"],
        check=False,
        capture_output=True,
        text=True,
    )
    return proc.stdout.strip() or "?"


def summary(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:8.1f} ms   min {min(values) * 1000:8.1f} ms"


def ratio(numerator: list[float], denominator: list[float]) -> str:
    top, bottom = statistics.median(numerator), statistics.median(denominator)
    if bottom <= 0:
        return "n/a"
    value = top / bottom
    if value >= 1:
        return f"{value:.2f}x (obsidiantools takes {value:.2f} times as long as workbench)"
    return f"{value:.2f}x (workbench takes {1 / value:.2f} times as long as obsidiantools)"


def print_block(name: str, runs: list[dict]) -> None:
    print(f"{name}")
    print(f"  import           {summary([r['import'] for r in runs])}")
    print(f"  work             {summary([r['work'] for r in runs])}")
    print(f"  whole process    {summary([r['process'] for r in runs])}")


def copy_vault(source: Path, target: Path) -> int:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(*LEFT_OUT, ".workbench"))
    return sum(1 for _ in target.rglob("*.md"))


@dataclass
class Runs:
    """The figures of each measurement, and the first failure that stopped one (if any)."""

    cold: list[dict] = field(default_factory=list)
    warm: list[dict] = field(default_factory=list)
    other: list[dict] = field(default_factory=list)
    workbench_error: str | None = None
    other_error: str | None = None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="repetitions of each measurement (default 3)",
    )
    parser.add_argument("--vault", type=Path, help="measure this folder instead of the Dendron corpus")
    parser.add_argument(
        "--obsidiantools-python",
        help="an interpreter that already has obsidiantools installed",
    )
    return parser.parse_args(argv)


def measure(vault: Path, repeat: int, other_python: str | None) -> Runs:
    """Cold runs of both tools interleaved, so that a slow patch of the machine falls on both
    alike; then the warm runs, with the `.workbench/` written by the last cold run in place."""
    runs = Runs()
    state = vault / ".workbench"
    env = workbench_env()
    for _ in range(repeat):
        if runs.workbench_error is None:
            shutil.rmtree(state, ignore_errors=True)
            try:
                runs.cold.append(run_probe(sys.executable, WORKBENCH_PROBE, [str(vault), QUERY], env))
            except ProbeFailed as exc:
                runs.workbench_error = str(exc)
        if other_python and runs.other_error is None:
            try:
                runs.other.append(run_probe(other_python, OBSIDIANTOOLS_PROBE, [str(vault)]))
            except ProbeFailed as exc:
                runs.other_error = str(exc)
    for _ in range(repeat if runs.cold and runs.workbench_error is None else 0):
        try:
            runs.warm.append(run_probe(sys.executable, WORKBENCH_PROBE, [str(vault), QUERY], env))
        except ProbeFailed as exc:
            runs.workbench_error = str(exc)
            break
    return runs


def print_method(source: Path, notes: int, repeat: int, other_python: str | None, other_note: str) -> None:
    print()
    print(f"Cold open of {source.name}/ ({notes} Markdown notes), workbench against obsidiantools")
    print(
        f"Machine: {os.cpu_count()} CPUs, {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()} (workbench)"
        + (f", Python {python_version(other_python)} (obsidiantools)" if other_python else "")
    )
    print(
        f"Method: the vault is copied to a temporary folder; each run is a fresh Python process; "
        f"{repeat} repetition{'s' if repeat != 1 else ''} of each, interleaved.\n"
        f"  workbench cold = Vault.open(path) + v.search({QUERY!r}) with .workbench/ deleted before "
        f"each run; warm = the same with .workbench/ kept.\n"
        f"  obsidiantools  = obsidiantools.api.Vault(path).connect().gather().\n"
        f"  'work' is timed inside the process, after the import; 'whole process' is the parent's "
        f"wall time for the process.\n"
        f"  Cold means no derived state on disk; the files themselves are in the OS cache (just copied)."
    )
    print(f"  {other_note}")
    print()


def print_figures(runs: Runs) -> None:
    cold, warm, other = runs.cold, runs.warm, runs.other
    if cold:
        print_block("workbench, cold open + first search", cold)
    if warm:
        print_block("workbench, warm open + first search", warm)
    if runs.workbench_error:
        print(f"workbench: a run failed: {runs.workbench_error}")
    if other:
        print_block("obsidiantools, Vault(path).connect().gather()", other)
        print(f"    connect        {summary([r['connect'] for r in other])}")
        print(f"    gather         {summary([r['gather'] for r in other])}")
    elif runs.other_error:
        print(f"obsidiantools: a run failed: {runs.other_error}")
    else:
        print("obsidiantools: not measured (see above)")
    print()
    if other and cold:
        print("Ratio obsidiantools / workbench (medians)")
        print(f"  work, cold       {ratio([r['work'] for r in other], [r['work'] for r in cold])}")
        print(f"  whole, cold      {ratio([r['process'] for r in other], [r['process'] for r in cold])}")
        if warm:
            print(f"  work, vs warm    {ratio([r['work'] for r in other], [r['work'] for r in warm])}")
        print()


def print_found(runs: Runs, notes: int) -> None:
    """What each tool found, and where that shows the two did not do the same work."""
    print("What each found (so the work can be compared)")
    for label, found in (("workbench cold", runs.cold), ("workbench warm", runs.warm), ("obsidiantools", runs.other)):
        if found:
            print(f"  {label + ':':<16} {json.dumps(found[-1]['found'])}")
    caveats = []
    valid = runs.cold[-1]["found"].get("valid_documents") if runs.cold else None
    read = runs.cold[-1]["found"].get("files_read", notes) if runs.cold else notes
    if isinstance(valid, int) and valid < read:
        caveats.append(
            f"workbench read {read} files but accepted only {valid} of them as valid documents "
            f"(its search and link count cover those), so the two tools did not do the same work."
        )
    missing = runs.other[-1]["found"].get("nonexistent_notes") if runs.other else None
    if missing:
        caveats.append(
            f"obsidiantools links {missing} targets that are no note of the vault: it reads wikilinks the "
            f"Obsidian way ([[target|label]]), while Dendron writes [[label|target]]."
        )
    if caveats:
        print()
        print("Caveats")
        for line in caveats:
            print(f"  - {line}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    repeat = max(1, args.repeat)
    corpora = Path(os.environ.get("WORKBENCH_CORPORA", ROOT.parent / "shared" / "corpora"))
    source = args.vault if args.vault else corpora / CORPUS_NAME
    if not source.is_dir():
        print(f"No vault at {source}: nothing to measure.")
        print("Set WORKBENCH_CORPORA to the folder holding dendron-site/, or pass --vault PATH.")
        return 0
    other_python, other_note = obsidiantools_python(args.obsidiantools_python)
    with tempfile.TemporaryDirectory(prefix="bench-vs-obsidiantools-") as folder:
        vault = Path(folder) / "vault"
        notes = copy_vault(source, vault)
        runs = measure(vault, repeat, other_python)
    print_method(source, notes, repeat, other_python, other_note)
    print_figures(runs)
    print_found(runs, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
