"""`bench_speed`'s search row for two or more checkouts of the code, alternated in one run.

Run: python -m tests.benchmarks.bench_search_codes VAULT [--flavour NAME] [--rounds N]
     [--after-write same|second] CODE [CODE ...]
     (VAULT: never opened itself: each code answers on its own copy, made in a temporary folder
     with the derived store the vault holds, and its own user's cache folder, where a flavour
     that keeps no state in the vault stores it; both removed at the end;
     CODE: a folder holding a checkout's `workbench` package, put first on the path of every
     process it runs; 3 rounds by default)

Each code's copy is opened once before the rounds (the store brought in line by that code, as
its first process would, and the common words' lists kept where the code keeps them, as its first
search starts to: `word_lists`). For each of N rounds, for each code in turn, a fresh process opens its
copy, answers one search,
then draws 200 queries as `bench_speed` does (the vault's own words for `--flavour`, else
`generate_shapes.query_words`; the same queries for every code in a round, other ones in the
next) and times each search beside a bare FTS5 query of the same words OR-ed, as `bench_speed`
does, in the same process, in wall time and in the process's CPU time (a loaded machine stretches
wall times unevenly). It prints each process's search p95 and bare FTS5 p95, their ratio, the
medians, the CPU p95s, and a digest of every first page (ids, scores, titles, types, statuses,
successors): the codes compared are to answer alike, and the last line says whether they did.

`--after-write` times searches right after a write, before the common words' lists are kept again
(the lists' keeping is put off in the timed process, for every code alike): `same`, the process
writes a document of its copy (plain file I/O, then `refresh_paths`, not in the search's time) before
every fifth of its 200 searches, and the CPU of the first search after each write and of the write
itself are printed apart; `second`, another process wrote a few documents (plain file I/O, then
an open that brings the store in line) before the timed process opened the copy, whose first
search (CPU and wall, the lists read as they are made to hold) is printed too.
A benchmark, not a test: machines are noisy, so compare ratios measured in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROUNDS = 3
WRITE_EVERY = 5  # `--after-write same`: a write before every fifth search
ROOT = Path(__file__).resolve().parent.parent.parent
# argv: vault, flavour ("" for as the vault says itself), seed, whether to wait for the lists the
# first search starts keeping (a code that keeps none waits for nothing); prints one JSON line.
SEARCH_SCRIPT = """
import hashlib, json, random, sys, time
from pathlib import Path
from tests.benchmarks.bench_open import percentile
from tests.benchmarks.bench_speed import vault_words
from tests.benchmarks.generate_shapes import query_words
from workbench import Vault
from workbench.core.views.search import FIELD_WEIGHTS

root, flavour, seed, wait = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "wait"
after = sys.argv[5] if len(sys.argv) > 5 else ""
WRITE_EVERY = int(sys.argv[6]) if len(sys.argv) > 6 else 1
asked = vault_words(Path(root), flavour) if flavour else query_words
if after:
    from workbench.core.views import word_lists
    word_lists.SETTLE = 1e9  # not kept again while timed: every search is before that
start, cpu = time.perf_counter(), time.process_time()
vault = Vault.open(root, flavour or None)
vault.search("invoice retry", 10)
first, first_cpu = time.perf_counter() - start, time.process_time() - cpu
documents = sorted(p for p in Path(root).rglob("*.md") if ".workbench" not in p.parts)
write_rng = random.Random(seed + 7)

def write():
    path = write_rng.choice(documents)
    with open(path, "a", encoding="utf-8") as out:
        out.write("\\n" + asked(write_rng) + " " + asked(write_rng) + "\\n")
    vault.refresh_paths([path.relative_to(root).as_posix()])
if wait:
    from workbench.core.views import fulltext
    lists = getattr(fulltext.kept_postings(vault.index), "lists", None)
    if lists is not None:
        lists.wait()
rng = random.Random(seed)
queries = [asked(rng) for _ in range(200)]
searches, bare, searches_cpu, bare_cpu, pages = [], [], [], [], []
firsts = []  # CPU of each search right after a write (`same`)
writes = []  # CPU of each write, the file's bytes and `refresh_paths` (`same`)
for at, query in enumerate(queries):
    if after == "same" and at % WRITE_EVERY == 0:
        cpu = time.process_time()
        write()
        writes.append(time.process_time() - cpu)
    start, cpu = time.perf_counter(), time.process_time()
    hits = vault.search(query, 10)
    searches.append(time.perf_counter() - start)
    searches_cpu.append(time.process_time() - cpu)
    if after == "same" and at % WRITE_EVERY == 0:
        firsts.append(searches_cpu[-1])
    pages.append([(h.id, repr(h.score), h.title, h.type, h.status, h.superseded_by, h.valid) for h in hits])
    start, cpu = time.perf_counter(), time.process_time()
    vault.store.match(" OR ".join(query.split()), FIELD_WEIGHTS, 10)
    bare.append(time.perf_counter() - start)
    bare_cpu.append(time.process_time() - cpu)
print(json.dumps({
    "search": percentile(searches, 0.95), "bare": percentile(bare, 0.95),
    "search50": percentile(searches, 0.5), "bare50": percentile(bare, 0.5),
    "search_cpu": percentile(searches_cpu, 0.95), "bare_cpu": percentile(bare_cpu, 0.95),
    "pages": hashlib.sha256(json.dumps(pages).encode()).hexdigest()[:12],
    "first": first, "first_cpu": first_cpu,
    "after_write_cpu": percentile(firsts, 0.95) if firsts else 0.0,
    "after_write_cpu50": percentile(firsts, 0.5) if firsts else 0.0,
    "write_cpu50": percentile(writes, 0.5) if writes else 0.0,
}))
"""
# argv: vault, flavour, seed: a few documents written by plain file I/O, the store brought in line.
WRITE_SCRIPT = """
import random, sys
from pathlib import Path
from tests.benchmarks.bench_speed import vault_words
from tests.benchmarks.generate_shapes import query_words
from workbench import Vault

root, flavour, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
asked = vault_words(Path(root), flavour) if flavour else query_words
rng = random.Random(seed)
documents = sorted(p for p in Path(root).rglob("*.md") if ".workbench" not in p.parts)
for path in rng.sample(documents, 3):
    with open(path, "a", encoding="utf-8") as out:
        out.write("\\n" + asked(rng) + " " + asked(rng) + "\\n")
Vault.open(root, flavour or None)
"""


def _run(code: Path, env: dict, what: str, script: str, *args: str) -> str:
    """One process of `code` running `script` (outside any folder holding another `workbench`):
    its output; its error ends the benchmark, named."""
    result = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=tempfile.gettempdir(), env=env, capture_output=True, text=True
    )
    if result.returncode != 0:
        raise SystemExit(f"{code}: the {what} process failed:\n{result.stderr[-3000:]}")
    return result.stdout


def searched(
    vault: Path, flavour: str, seed: int, code: Path, cache: Path, wait: bool = False, after: str = ""
) -> dict:
    """One process of `code` searching `vault`, `cache` its user's cache folder: its figures;
    with `wait`, once its first search's common words' lists are kept (`word_lists`); `after`
    a write (`--after-write`)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(code), str(ROOT)]), XDG_CACHE_HOME=str(cache))
    if after == "second":
        _run(code, env, "writing", WRITE_SCRIPT, str(vault), flavour, str(seed))
    wait_or_go = "wait" if wait else "go"
    out = _run(code, env, "search", SEARCH_SCRIPT, str(vault), flavour, str(seed), wait_or_go, after, str(WRITE_EVERY))
    return json.loads(out.strip().splitlines()[-1])


def main(vault: Path, flavour: str, rounds: int, codes: list[Path], after: str = "") -> None:
    with tempfile.TemporaryDirectory(prefix="bench-search-") as folder:
        copies = [Path(folder) / f"vault-{n}" for n in range(len(codes))]  # a code named twice: two copies
        caches = [Path(folder) / f"cache-{n}" for n in range(len(codes))]
        for copy in copies:
            shutil.copytree(vault, copy, symlinks=True)
        for code, copy, cache in zip(codes, copies, caches, strict=True):
            # the store built or brought in line by this code, and the common words' lists kept, untimed
            searched(copy, flavour, 0, code, cache, wait=True)
        compared(vault, copies, caches, flavour, rounds, codes, after)


def compared(
    vault: Path,
    copies: list[Path],
    caches: list[Path],
    flavour: str,
    rounds: int,
    codes: list[Path],
    after: str = "",
) -> None:
    """Each round, each code searching its own copy; the figures and whether the pages agree."""
    print(
        f"{vault} (a copy for each code), {rounds} rounds, after a write: {after or 'no'},"
        f" load average {os.getloadavg()[0]:.1f}"
    )
    ratios: dict[int, list[float]] = {n: [] for n in range(len(codes))}
    cpu_ratios: dict[int, list[float]] = {n: [] for n in range(len(codes))}
    alike = True
    for at in range(rounds):
        pages = set()
        for n, code in enumerate(codes):
            found = searched(copies[n], flavour, 100 + at, code, caches[n], after=after)
            pages.add(found["pages"])
            ratios[n].append(found["search"] / found["bare"])
            cpu_ratios[n].append(found["search_cpu"] / found["bare_cpu"])
            print(
                f"round {at} | {n}: {code} | search p95 {found['search'] * 1000:.1f} ms"
                f" | bare FTS5 p95 {found['bare'] * 1000:.1f} ms | {found['search'] / found['bare']:.2f}x"
                f" | p50 {found['search50'] * 1000:.1f} / {found['bare50'] * 1000:.1f} ms"
                f" | CPU p95 {found['search_cpu'] * 1000:.1f} / {found['bare_cpu'] * 1000:.1f} ms"
                f" = {found['search_cpu'] / found['bare_cpu']:.2f}x | pages {found['pages']}"
                + (
                    f" | open and first search {found['first'] * 1000:.0f} ms, CPU {found['first_cpu'] * 1000:.0f} ms"
                    if after == "second"
                    else f" | the first after each write: CPU p50 {found['after_write_cpu50'] * 1000:.1f} ms,"
                    f" p95 {found['after_write_cpu'] * 1000:.1f} ms; the write: CPU p50 {found['write_cpu50'] * 1000:.1f} ms"
                    if after == "same"
                    else ""
                ),
                flush=True,
            )
        alike = alike and len(pages) == 1
    for n, code in enumerate(codes):
        print(
            f"{n}: {code}: search p95 {min(ratios[n]):.2f}-{max(ratios[n]):.2f}x bare FTS5,"
            f" in CPU time {min(cpu_ratios[n]):.2f}-{max(cpu_ratios[n]):.2f}x"
        )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    print(f"every first page the same for every code: {alike}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vault", type=Path, help="the vault to copy for each code (left as it is)")
    parser.add_argument("codes", type=Path, nargs="+", metavar="CODE")
    parser.add_argument("--flavour", default="", help="how to read the vault (adr for decision records)")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="rounds (default: %(default)s)")
    parser.add_argument(
        "--after-write",
        choices=("same", "second"),
        default="",
        help="time searches right after a write: in the same process, or in one opened after another wrote",
    )
    args = parser.parse_args()
    main(args.vault, args.flavour, args.rounds, args.codes, args.after_write)
