"""Real decision records copied into one collection of N records, each a decision.

Run: python -m tests.benchmarks.records_vault SOURCE TARGET [--size N]
     (SOURCE: a folder of collections, such as the public ADR collections; default 10,000)

`bench_speed --corpus` copies a corpus into `copy-NN/` folders as it lies; a collection of
decision records there sits a level or two down, where the `adr` flavour reads its files as
notes (records are read at the top of a collection, or one folder per record), so a queue or a
review list over it weighs no decision. Here every record of every collection in SOURCE
(every Markdown file but a README, an index or a SOURCE note) is written at the top of TARGET as
`ADR-NNNNN-<its name>.md`, numbered in turn, its text as it was, until N are written: each
reads as a decision, and the numbers its text cites (`ADR-002`) name records of the copy.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

LEFT_OUT = {"readme.md", "index.md", "source.md"}


def write_records(source: Path, target: Path, size: int) -> int:
    """Write `size` records into `target` (made if missing); how many were written."""
    files = sorted(p for p in source.rglob("*.md") if p.is_file() and p.name.lower() not in LEFT_OUT)
    if not files:
        raise SystemExit(f"{source}: no Markdown file to copy")
    target.mkdir(parents=True, exist_ok=True)
    for number in range(1, size + 1):
        path = files[(number - 1) % len(files)]
        slug = re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")[:60]
        text = path.read_text("utf-8", errors="replace")
        (target / f"ADR-{number:05d}-{slug}.md").write_text(text, "utf-8")
    return size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--size", type=int, default=10_000)
    args = parser.parse_args()
    print(f"{write_records(args.source, args.target, args.size)} records written to {args.target}")


if __name__ == "__main__":
    main()
