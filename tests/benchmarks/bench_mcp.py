"""Tool latency over stdio, as an agent meets it: `python -m tests.benchmarks.bench_mcp [--runs N] [SIZE ...]`.

For the sample vault and for generated vaults of each SIZE, starts `workbench mcp` with the
official SDK's client (`stdio_client`, `ClientSession`), times the start (spawn, open, initialize)
and each tool's round trip, and prints p50 / p95 in milliseconds. Every vault is a scratch copy.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import Implementation

from .generate import WORDS, generate_vault

ROOT = Path(__file__).resolve().parents[2]
RUNS = 30


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def server(vault: Path, flavour: str = "") -> StdioServerParameters:
    """`workbench mcp` on `vault` from this checkout, as a client starts it over stdio."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "workbench.cli", "--vault", str(vault), *(["--flavour", flavour] if flavour else []), "mcp"],
        env={"PYTHONPATH": str(ROOT)},
        cwd=str(ROOT),
    )


async def measure(vault: Path, runs: int = RUNS, tag: str = "timed") -> dict[str, list[float]]:
    """Each call's times over `runs` rounds; the notes it writes are titled with `tag`, so that a
    second measure of the same vault (the timed run after the warm-up) writes new titles, which
    the one-document-per-title rule lets through."""
    params = server(vault)
    times: dict[str, list[float]] = {}
    started = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write):
            async with ClientSession(
                read, write, client_info=Implementation(name="claude-code", version="bench")
            ) as agent:
                await agent.initialize()
                times["start (spawn, open, initialize)"] = [time.perf_counter() - started]

                async def timed(name: str, tool: str, args: dict) -> dict:
                    before = time.perf_counter()
                    result = await agent.call_tool(tool, args)
                    times.setdefault(name, []).append(time.perf_counter() - before)
                    assert not result.is_error, result.content[0].text
                    return result.structured_content

                ids: list[str] = []
                for run in range(runs):
                    query = f"{WORDS[run % len(WORDS)]} {WORDS[(run * 7 + 3) % len(WORDS)]}"
                    hits = await timed("memory_search (10 hits)", "memory_search", {"query": query})
                    ids = [h["id"] for h in hits["hits"]] or ids
                    await timed("memory_read (1 document)", "memory_read", {"ids": ids[0]})
                    await timed("memory_read (10 documents)", "memory_read", {"ids": ids[:10]})
                    await timed("memory_context", "memory_context", {"question": f"how does the {query} work and why?"})
                    title = f"Benchmark note {tag} {run} about {query}"
                    draft = {"type": "note", "title": title, "body": "Measured.\n", "links": [f"related_to:{ids[0]}"]}
                    await timed("memory_write propose", "memory_write", draft)
                    written = await timed("memory_write create", "memory_write", {**draft, "decision": "create"})
                    await timed("memory_forget (a request)", "memory_forget", {"id": written["id"]})
    return times


def report(label: str, times: dict[str, list[float]]) -> None:
    print(f"\n{label}")
    print(f"| {'call':<34} | {'p50 ms':>8} | {'p95 ms':>8} |")
    print(f"|{'-' * 36}|{'-' * 10}|{'-' * 10}|")
    for name, values in times.items():
        ms = [v * 1000 for v in values]
        print(f"| {name:<34} | {statistics.median(ms):8.1f} | {percentile(ms, 0.95):8.1f} |")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tests.benchmarks.bench_mcp",
        description="Time each MCP tool over stdio on the sample vault and on generated vaults of each SIZE.",
    )
    parser.add_argument("--runs", type=int, default=RUNS, help=f"rounds of calls per vault (default {RUNS})")
    parser.add_argument("sizes", metavar="SIZE", type=int, nargs="*", help="documents in a generated vault")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        sample = Path(scratch) / "sample"
        shutil.copytree(ROOT / "sample_vault", sample, ignore=shutil.ignore_patterns(".workbench"))
        report("sample vault (67 documents)", asyncio.run(measure(sample, args.runs)))
        for size in args.sizes:
            root = Path(scratch) / f"generated-{size}"
            generate_vault(root, size)
            asyncio.run(measure(root, 1, "warm-up"))  # the first open builds .workbench/; an agent meets a warm one
            report(f"generated vault ({size:,} documents, warm)", asyncio.run(measure(root, args.runs)))


if __name__ == "__main__":
    main(sys.argv[1:])
