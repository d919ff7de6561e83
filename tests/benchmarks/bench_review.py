"""The review loop's latency over stdio, as an agent meets it: `python -m tests.benchmarks.bench_review [--pages N] [SIZE ... | --vault PATH]`.

For the sample vault and for generated vaults of each SIZE (default 10,000), starts `workbench mcp`
with the official SDK's client, then works the review list as a judge would: `memory_review` page
after page (the first page of a fresh server weighs every pair of decisions; the next ones reuse
that ranking while the vault is unchanged, and a new server reads it from the derived store) and
`memory_judge` on each pair shown, which adds a line to
the verdicts file and so makes the next page read it back. Prints p50 / p95 and the first page in
milliseconds, and how many pairs and characters a page held. `--vault PATH` measures a copy of a
vault made elsewhere (`generate_shapes`, a copied corpus) instead. Every vault is a scratch copy;
nothing is asserted on wall time.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession, stdio_client
from mcp.types import Implementation

from .bench_mcp import percentile, server
from .generate import generate_vault

ROOT = Path(__file__).resolve().parents[2]
PAGES = 10


async def measure(vault: Path, pages: int) -> tuple[dict[str, list[float]], dict[str, int]]:
    params = server(vault)
    times: dict[str, list[float]] = {}
    sizes = {"pairs": 0, "pages": 0, "largest page (characters)": 0, "listed": 0}
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write):
            async with ClientSession(
                read, write, client_info=Implementation(name="claude-code", version="bench")
            ) as agent:
                await agent.initialize()

                async def timed(name: str, tool: str, args: dict) -> dict:
                    before = time.perf_counter()
                    result = await agent.call_tool(tool, args)
                    times.setdefault(name, []).append(time.perf_counter() - before)
                    assert not result.is_error, result.content[0].text
                    sizes["largest page (characters)"] = max(
                        sizes["largest page (characters)"], len(result.content[0].text)
                    )
                    return result.structured_content

                cursor = None
                for number in range(pages):
                    name = "memory_review, first page" if number == 0 else "memory_review, next page"
                    page = await timed(name, "memory_review", {"cursor": cursor} if cursor else {})
                    sizes["pages"] += 1
                    sizes["listed"] = max(sizes["listed"], page["listed"])
                    for pair in page["pairs"]:
                        sizes["pairs"] += 1
                        await timed(
                            "memory_judge",
                            "memory_judge",
                            {
                                "older": pair["older"]["id"],
                                "newer": pair["newer"]["id"],
                                "verdict": "companion",
                                "reason": "measured: both stand",
                            },
                        )
                    cursor = page["cursor"]
                    if cursor is None:
                        break
    return times, sizes


def report(label: str, times: dict[str, list[float]], sizes: dict[str, int]) -> None:
    print(f"\n{label}")
    print(f"| {'call':<28} | {'n':>4} | {'p50 ms':>8} | {'p95 ms':>8} |")
    print(f"|{'-' * 30}|{'-' * 6}|{'-' * 10}|{'-' * 10}|")
    for name, values in times.items():
        ms = [v * 1000 for v in values]
        print(f"| {name:<28} | {len(ms):>4} | {statistics.median(ms):8.1f} | {percentile(ms, 0.95):8.1f} |")
    print(json.dumps(sizes))


def main(argv: list[str]) -> None:
    pages = PAGES
    if argv[:1] == ["--pages"]:
        pages, argv = int(argv[1]), argv[2:]
    if argv[:1] == ["--vault"]:  # a vault made elsewhere (`generate_shapes`, a copied corpus): a copy is measured
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch) / "vault"
            shutil.copytree(argv[1], root, ignore=shutil.ignore_patterns(".workbench", ".workbench-verdicts.jsonl"))
            report(f"{argv[1]} (first open: ranking worked out)", *asyncio.run(measure(root, 1)))
            (root / ".workbench-verdicts.jsonl").unlink(missing_ok=True)
            report(f"{argv[1]} (warm)", *asyncio.run(measure(root, pages)))
        return
    sizes = [int(a) for a in argv] or [10_000]
    with tempfile.TemporaryDirectory() as scratch:
        sample = Path(scratch) / "sample"
        shutil.copytree(ROOT / "sample_vault", sample)
        report("sample vault (67 documents)", *asyncio.run(measure(sample, pages)))
        for size in sizes:
            root = Path(scratch) / f"generated-{size}"
            generate_vault(root, size)
            # The first open builds .workbench/ and works the ranking out (as after any change to a
            # record); the next server reads both, as an agent usually meets them.
            report(
                f"generated vault ({size:,} documents, first open: ranking worked out)", *asyncio.run(measure(root, 1))
            )
            (root / ".workbench-verdicts.jsonl").unlink(missing_ok=True)  # an unjudged list again
            report(f"generated vault ({size:,} documents, warm)", *asyncio.run(measure(root, pages)))


if __name__ == "__main__":
    main(sys.argv[1:])
