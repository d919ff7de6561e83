"""Every figure of the speed goals beside its reference, measured in one run on one generated vault.

Run: python -m tests.benchmarks.bench_speed [--size N] [--vault PATH] [--runs N] [--no-tui] [--no-queue]
     (default: 10,000 documents in a temporary folder, best of 3)

`--vault PATH` keeps the generated vault at PATH (generated there if it is not, used as it is if
it is), so that a vault of 100,000 documents (220 MB of Markdown, 400 MB on disk, minutes to write)
is generated once.

It prints one row per figure: what was measured, its reference measured in the same run, the
ratio of the two, and the goal. Fresh processes are timed from outside, start-up to exit, the best
of N, taken in turn with the floor they are compared with:
- floor: a fresh Python reading every file and parsing its frontmatter with libyaml;
- cold open: `Vault.open` and one search with no derived store; warm open: the same with it;
  and the largest peak resident memory of these processes;
- `workbench conflicts --json` with a warm store (the floor taken again, in turn with it): first
  "worked out" (the queue's first call after a change of the vault), then as it answers when
  nothing changed since (unless `--no-queue`);
In this process, on the opened vault:
- search p95 over 200 queries of 1-3 of the vault's words, against a bare FTS5 query (the same
  words OR-ed) p95;
- the write gate for 40 decision drafts, p95, against the same bare FTS5 p95;
And, unless `--no-tui`, the TUI driven by Textual's Pilot in this process: seconds from starting
the app to the first titles listed, then to the answer of a search (a document's whole title put in
the search box at once, answered when the document is listed), and the longest the interface could not
answer meanwhile (the largest gap between ticks asked for every 50 ms); and the first titles as
fresh processes against a bare Textual app (`bench_tui`).
A benchmark, not a test: machines are noisy, so compare ratios measured in one run.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import tempfile
import time
from pathlib import Path

from tests.benchmarks.bench_open import FLOOR_SCRIPT, percentile, run_python
from tests.benchmarks.bench_queue import conflicts_process, gate_times
from tests.benchmarks.generate import WORDS, generate_vault
from workbench import Vault
from workbench.core.search import FIELD_WEIGHTS

RUNS = 3
LARGE = 50_000  # from this many documents on, a vault is held to the goals set for 100,000
# Opens the vault and answers one search; prints its peak resident memory (MB).
OPEN_SCRIPT = """
import resource, sys
from workbench import Vault
Vault.open(sys.argv[1]).search("invoice retry", 10)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def row(figure: str, value: str, reference: str = "", ratio: float | None = None, goal: str = "") -> None:
    ratio_text = f"{ratio:.2f}x" if ratio is not None else ""
    print(f"| {figure:<44} | {value:>9} | {reference:>20} | {ratio_text:>7} | {goal:<18} |", flush=True)


def processes(root: Path, runs: int, with_queue: bool, large: bool) -> None:
    floors, colds, warms, rss = [], [], [], []
    for _ in range(runs):
        floors.append(run_python(FLOOR_SCRIPT, str(root))[0])
        shutil.rmtree(root / ".workbench", ignore_errors=True)
        elapsed, out = run_python(OPEN_SCRIPT, str(root))
        colds.append(elapsed)
        rss.append(float(out.split()[-1]))
        elapsed, out = run_python(OPEN_SCRIPT, str(root))
        warms.append(elapsed)
        rss.append(float(out.split()[-1]))
    floor_s = min(floors)
    reference = f"floor {floor_s:.2f} s"
    row(
        "cold open, fresh process",
        f"{min(colds):.2f} s",
        reference,
        min(colds) / floor_s,
        "<= 1.3x" if large else "<= 1.5x",
    )
    row(
        "warm open, fresh process",
        f"{min(warms):.2f} s",
        reference,
        min(warms) / floor_s,
        "<= 0.15x" if large else "<= 0.25x",
    )
    row("peak RSS, open and search", f"{max(rss):.0f} MB", "", None, "< 1,500 MB" if large else "")
    if not with_queue:
        return
    worked_out = conflicts_process(root)  # the first after the cold opens: nothing kept yet
    answers = []
    for _ in range(runs):
        floors.append(run_python(FLOOR_SCRIPT, str(root))[0])
        answers.append(conflicts_process(root))
    floor_s = min(floors)
    reference = f"floor {floor_s:.2f} s"
    row("conflicts --json, worked out", f"{worked_out:.2f} s", reference, worked_out / floor_s)
    row("conflicts --json, warm store", f"{min(answers):.2f} s", reference, min(answers) / floor_s, "<= 1.0x")


def in_process(root: Path, rng: random.Random, large: bool) -> None:
    vault = Vault.open(root)
    queries = [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(200)]
    searches, bare = [], []
    for query in queries:
        start = time.perf_counter()
        vault.search(query, 10)
        searches.append(time.perf_counter() - start)
        start = time.perf_counter()
        vault.store.match(" OR ".join(query.split()), FIELD_WEIGHTS, 10)
        bare.append(time.perf_counter() - start)
    bare_p95 = percentile(bare, 0.95)
    reference = f"bare FTS5 {bare_p95 * 1000:.1f} ms"
    search_p95 = percentile(searches, 0.95)
    row(
        "search p95, 200 queries of 1-3 words",
        f"{search_p95 * 1000:.1f} ms",
        reference,
        search_p95 / bare_p95,
        "<= 3x" if large else "<= 2x, <= 10 ms",
    )
    gates, gate_bare = gate_times(vault, 40, rng)
    gate_p95, gate_bare_p95 = percentile(gates, 0.95), percentile(gate_bare, 0.95)
    row(
        "gate p95, 40 decision drafts",
        f"{gate_p95 * 1000:.0f} ms",
        f"bare FTS5 {gate_bare_p95 * 1000:.1f} ms",
        gate_p95 / gate_bare_p95,
        "<= 10x",
    )


async def tui_session(root: Path, rng: random.Random) -> tuple[float, float, float]:
    """(seconds to the first titles, seconds from the first key to the search's answer, the longest
    gap between ticks meanwhile)."""
    from textual.widgets import Input, OptionList

    from workbench.tui.app import WorkbenchApp

    target = rng.choice(Vault.open(root).documents)
    ticks: list[float] = []
    start = time.perf_counter()
    app = WorkbenchApp(root, theme="workbench-dark")
    async with app.run_test(size=(120, 40)) as pilot:
        app.set_interval(0.05, lambda: ticks.append(time.perf_counter()))

        def listed(doc_id: str | None = None) -> bool:
            try:
                results = app.screen.query_one("#results", OptionList)
            except Exception:
                return False
            ids = [results.get_option_at_index(i).id for i in range(min(results.option_count, 10))]
            return any(ids) if doc_id is None else doc_id in ids

        while not listed():
            await asyncio.sleep(0.005)
        titles = time.perf_counter() - start
        await pilot.press("slash")
        asked = time.perf_counter()
        app.screen.query_one("#search-input", Input).value = target.title  # as if pasted
        while not listed(target.id):
            await asyncio.sleep(0.005)
        answered = time.perf_counter() - asked
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    return titles, answered, max(gaps, default=0.0)


def tui(root: Path, runs: int, rng: random.Random, documents: int) -> None:
    from tests.benchmarks.bench_tui import first_titles

    titles, answered, longest = asyncio.run(tui_session(root, rng))
    row("TUI, Pilot: first titles", f"{titles:.2f} s")
    row("TUI, Pilot: a title searched, then listed", f"{answered:.2f} s")
    row("TUI, Pilot: longest without answering", f"{longest * 1000:.0f} ms", "", None, "no freeze")
    bare, ours = first_titles(root, runs)
    row(
        "TUI first titles, fresh process",
        f"{ours:.2f} s",
        f"bare Textual {bare:.2f} s",
        ours / bare,
        "<= 2x" if documents <= 1000 else "<= 3x" if documents <= 10000 else "",
    )


def main(size: int, vault: Path | None, runs: int, with_tui: bool, with_queue: bool) -> None:
    rng = random.Random(5)
    with tempfile.TemporaryDirectory() as folder:
        root = vault or Path(folder) / "vault"
        if not (root.exists() and any(root.rglob("*.md"))):
            generate_vault(root, size)
        documents = sum(1 for _ in root.rglob("*.md"))
        print(f"{documents:,} documents, best of {runs}")
        print(f"| {'figure':<44} | {'measured':>9} | {'reference':>20} | {'ratio':>7} | {'goal':<18} |")
        print(f"|{'-' * 46}|{'-' * 11}|{'-' * 22}|{'-' * 9}|{'-' * 20}|")
        processes(root, runs, with_queue, documents >= LARGE)
        in_process(root, rng, documents >= LARGE)
        if with_tui:
            tui(root, runs, rng, documents)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10000, help="documents to generate (default: %(default)s)")
    parser.add_argument("--vault", type=Path, help="keep the generated vault here (used as it is if there)")
    parser.add_argument("--runs", type=int, default=RUNS, help="best of this many (default: %(default)s)")
    parser.add_argument("--no-tui", action="store_true", help="leave out the TUI's figures")
    parser.add_argument("--no-queue", action="store_true", help="leave out conflicts --json (minutes at 100,000)")
    args = parser.parse_args()
    main(args.size, args.vault, args.runs, not args.no_tui, not args.no_queue)
