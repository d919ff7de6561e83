"""The conflicts queue and the review list come out the same in every process: Python draws a
new order for sets of strings in each, and no order of the answers may follow it."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS = [
    f"{a}{b}"
    for a in ("kar", "lom", "sev", "tup", "wex", "zon", "pri", "gul")
    for b in ("ba", "de", "fi", "go", "hu", "ja")
]


def records(root: Path) -> None:
    """Twelve decisions, each written four times: pairs of equal likeness, whose order is told
    apart by nothing but their scores' last bits."""
    rng = random.Random(7)
    number = 0
    for record in range(12):
        title = " ".join(rng.sample(WORDS, 7))
        body = " ".join(rng.choice(WORDS) for _ in range(120))
        for _ in range(4):
            number += 1
            (root / f"ADR-{number:04d}-r{record}.md").write_text(
                f"# {title}\n\n## Status\n\nAccepted\n\n## Context\n\n{body}\n", "utf-8"
            )


def answer(tmp_path: Path, vault: Path, command: str, seed: int) -> str:
    cache = tmp_path / f"cache-{command}-{seed}"  # each process works the answer out afresh
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "--vault", str(vault), "--flavour", "adr", command, "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_queue_and_the_review_list_are_the_same_in_every_process(tmp_path):
    vault = tmp_path / "records"
    vault.mkdir()
    records(vault)
    for command, seeds in (("conflicts", range(1, 7)), ("review", range(1, 4))):
        answers = {answer(tmp_path, vault, command, seed) for seed in seeds}
        assert len(answers) == 1, f"{command}: {len(answers)} different answers"
    assert '"contradiction"' in answer(tmp_path, vault, "conflicts", 9)  # the pairs are there to order
