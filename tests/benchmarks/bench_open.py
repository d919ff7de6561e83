"""How long opening a vault takes, against the floor of reading every file and parsing its YAML.

Run: python -m tests.benchmarks.bench_open [SIZE ...]   (default 1000 10000)
Prints, per size, the floor (read + libyaml) and `Vault.open` measured in the same run, and their
ratio. A benchmark, not a test: machines are noisy, so compare the ratio, not the seconds.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

from tests.benchmarks.generate import generate_vault
from workbench import Vault


def floor(root: Path) -> None:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for path in root.rglob("*.md"):
        text = path.read_text("utf-8")
        end = text.find("\n---", 4)
        yaml.load(text[4:end], Loader=loader)  # noqa: S506 - the safe loader


def best_of(runs: int, func) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main(sizes: list[int]) -> None:
    print(f"{'documents':>10} {'floor s':>9} {'open s':>9} {'ratio':>6}")
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            generate_vault(root, size)
            floor_s = best_of(3, lambda: floor(root))
            open_s = best_of(3, lambda: Vault.open(root))
            print(f"{size:>10} {floor_s:>9.3f} {open_s:>9.3f} {open_s / floor_s:>6.2f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10000])
