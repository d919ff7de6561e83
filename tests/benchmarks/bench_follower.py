"""A fresh `conflicts --json` and `review --json` after one decision changed, with and without a
follower of the vault (`workbench follow`), in one run.

Run: python -m tests.benchmarks.bench_follower SOURCE [--flavour NAME] [--runs N] [--seeds S,S] [--bytecode]
     python -m tests.benchmarks.bench_follower SOURCE [--flavour NAME] --memory N   (the follower's RSS)

SOURCE is copied twice (its state folder left out): one copy no process follows, the other
followed by `workbench follow` started from this checkout. Each round, for each command: the floor
(a fresh Python parsing every file's frontmatter, `bench_open.FLOOR_SCRIPT`); one decision changed
in both copies (`bench_queue_codes.change_a_decision`, the same file in each) and the command asked
of each at once, (a) the copy no one follows and (b) the followed one; then another decision changed
in both, 2 s waited, and the command asked again of each, (a) and (c). It prints the least wall and
CPU time of each (with the median and the worst: the changes differ), each as a ratio to the
least floor, the follower's own CPU for each change beside them (the work is done all the same, in
another process), and whether every answer of the followed copy was the one of the other copy.
`--memory N`: the store built by a command line, then N changes followed one after the other, and
the follower's resident memory after its open and after each tenth of them. A benchmark, not a test: machines are noisy, so compare ratios measured in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.benchmarks import bench_queue_codes
from tests.benchmarks.bench_open import FLOOR_SCRIPT
from tests.benchmarks.bench_queue_codes import change_a_decision, timed, timed_apart
from tests.benchmarks.bench_speed import CLI_SCRIPT

ROOT = Path(__file__).resolve().parents[2]
RUNS = 3
SETTLED_S = 2.0  # (c): asked this long after the change


class Follower:
    """`workbench follow` on `root`, this checkout's code, `cache` its user's cache."""

    def __init__(self, root: Path, cache: Path, reading: list[str]):
        env = {**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(ROOT)}
        if bench_queue_codes.BYTECODE:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "workbench.cli", "--vault", str(root), *reading, "follow"],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=tempfile.gettempdir(),
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.wait_for("watching the vault", 1)

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, words: str, count: int, within: float = 600.0) -> None:
        ends = time.monotonic() + within
        while sum(words in line for line in self.lines) < count:
            if self.process.poll() is not None or time.monotonic() > ends:
                raise RuntimeError("the follower stopped or never said it:\n" + "\n".join(self.lines[-20:]))
            time.sleep(0.01)

    def rounds(self) -> int:
        return sum("answers kept in" in line for line in self.lines)

    def cpu(self) -> float:
        """The follower's CPU seconds so far (user and system)."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def settled(self, rounds_before: int) -> None:
        """Wait until a round after `rounds_before` is done and the follower is idle."""
        self.wait_for("answers kept in", rounds_before + 1)
        time.sleep(0.3)  # a second round (a change heard in two slices) begins within the settle delay
        while self.lines and "answers kept in" not in self.lines[-1]:
            time.sleep(0.02)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=60)


def main(source: Path, flavour: str, runs: int, seeds: list[int]) -> None:
    reading = ["--flavour", flavour] if flavour else []
    with tempfile.TemporaryDirectory() as folder:
        alone, followed = Path(folder) / "alone", Path(folder) / "followed"
        caches = {alone: Path(folder) / "cache-alone", followed: Path(folder) / "cache-followed"}
        for root in (alone, followed):
            shutil.copytree(source, root, ignore=shutil.ignore_patterns(".workbench"))
            for command in ("conflicts", "review"):  # each store built by its own first call
                timed(ROOT, caches[root], CLI_SCRIPT, "--vault", str(root), *reading, command, "--json")
        print(f"{source} ({flavour or 'as it says itself'}), best of {runs}, load average {os.getloadavg()[0]:.1f}")
        follower = Follower(followed, caches[followed], reading)
        floors: list[tuple[float, float]] = []
        figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
        alike = True
        seed_at = 0
        try:
            for round_ in range(runs):
                for command in ("conflicts", "review"):
                    floors.append(timed(None, caches[alone], FLOOR_SCRIPT, str(source))[:2])
                    for way, wait in (
                        ("(b) followed, asked at once", 0.0),
                        (f"(c) followed, asked {SETTLED_S:.0f} s after", SETTLED_S),
                    ):
                        seed = seeds[seed_at % len(seeds)] if seeds else 101 + seed_at
                        seed_at += 1
                        rounds, cpu = follower.rounds(), follower.cpu()
                        change_a_decision(alone, seed)
                        change_a_decision(followed, seed)
                        time.sleep(wait)
                        args = [*reading, command, "--json"]
                        wall, spent, answer, _ = timed_apart(
                            ROOT, caches[followed], CLI_SCRIPT, "--vault", str(followed), *args
                        )
                        figures.setdefault((command, way), []).append((wall, spent))
                        follower.settled(rounds)
                        figures.setdefault((command, "the follower's own, for the change"), []).append(
                            (float("nan"), follower.cpu() - cpu)
                        )
                        wall, spent, expected, _ = timed_apart(
                            ROOT, caches[alone], CLI_SCRIPT, "--vault", str(alone), *args
                        )
                        figures.setdefault((command, "(a) no follower"), []).append((wall, spent))
                        alike = alike and answer == expected
        finally:
            follower.stop()
        floor_wall, floor_cpu = min(w for w, _ in floors), min(c for _, c in floors)
        print(f"floor: {floor_wall:.2f} s wall, {floor_cpu:.2f} s CPU")
        for (command, way), measured in sorted(figures.items()):
            walls = [w for w, _ in measured if w == w]
            cpus = [c for _, c in measured]
            wall_text = (
                f"wall {min(walls):5.2f} s = {min(walls) / floor_wall:.2f}x (median {statistics.median(walls) / floor_wall:.2f}x,"
                f" worst {max(walls) / floor_wall:.2f}x)"
                if walls
                else f"{'':36}"
            )
            print(
                f"| {command} --json, {way:<38} | {wall_text} | CPU {min(cpus):5.2f} s = {min(cpus) / floor_cpu:.2f}x"
                f" (median {statistics.median(cpus) / floor_cpu:.2f}x, worst {max(cpus) / floor_cpu:.2f}x) |",
                flush=True,
            )
        print(
            f"every followed answer the one of the copy no one follows: {alike}; load average at the end {os.getloadavg()[0]:.1f}"
        )


def memory(source: Path, flavour: str, changes: int) -> None:
    """`--memory`: the follower's resident memory as it follows `changes` changes."""
    reading = ["--flavour", flavour] if flavour else []
    with tempfile.TemporaryDirectory() as folder:
        root, cache = Path(folder) / "followed", Path(folder) / "cache"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".workbench"))
        for command in ("conflicts", "review"):  # the store built, and both answers kept, by a command line
            timed(ROOT, cache, CLI_SCRIPT, "--vault", str(root), *reading, command, "--json")
        follower = Follower(root, cache, reading)
        try:
            print(f"{source}: after the open, RSS {follower.rss_mb():.0f} MB; load average {os.getloadavg()[0]:.1f}")
            for change in range(1, changes + 1):
                rounds = follower.rounds()
                change_a_decision(root, 1000 + change)
                follower.settled(rounds)
                if change % max(1, changes // 10) == 0:
                    took = [json.dumps(line) for line in follower.lines[-1:]]
                    print(f"after {change} changes: RSS {follower.rss_mb():.0f} MB; last: {took[0]}", flush=True)
        finally:
            follower.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="the vault to copy")
    parser.add_argument("--flavour", default="", help="how to read the vault (adr for decision records)")
    parser.add_argument("--runs", type=int, default=RUNS, help="rounds, best of (default: %(default)s)")
    parser.add_argument("--seeds", default="", help="the changes' seeds, in turn, comma-separated")
    parser.add_argument("--bytecode", action="store_true", help="let every process keep its bytecode cache")
    parser.add_argument("--memory", type=int, default=0, help="follow this many changes and print the RSS")
    args = parser.parse_args()
    bench_queue_codes.BYTECODE = args.bytecode
    if args.memory:
        memory(args.source, args.flavour, args.memory)
    else:
        main(args.source, args.flavour, args.runs, [int(seed) for seed in args.seeds.split(",") if seed])
