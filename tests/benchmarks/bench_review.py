"""The review loop's latency over stdio, as an agent meets it: `python -m tests.benchmarks.bench_review [--pages N] [--flavour NAME] [SIZE ... | --vault PATH]`.

For the sample vault and for generated vaults of each SIZE (default 10,000), starts `workbench mcp`
with the official SDK's client, then works the review list as a judge would: `memory_review` page
after page (the first page of a fresh server weighs every pair of decisions; the next ones reuse
that ranking while the vault is unchanged, and a new server reads it from the derived store) and
`memory_judge` on each pair shown, which adds a line to the verdicts file and so makes the next
page read it back. Prints p50 / p95 and the first page in milliseconds, how many pairs and
characters a page held, and the server's CPU time (its process's, read from /proc where there is
one: for the next pages' calls, and for the whole session over the next pages, which counts what
it works out between calls). Then, in the same run: the SDK's own share, the largest page sent
again and again by a bare SDK server (`bare_mcp.py`, the same answer type, no vault); and one
verdict accepted in this process (its diff previewed, then written both sides). `--vault PATH`
measures a copy of a vault made elsewhere (`generate_shapes`, a copied corpus; `--flavour adr` for
a collection of decision records) instead. Every vault is a scratch copy; nothing is asserted on
wall time.
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

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import Implementation

from workbench import Vault

from .bench_mcp import percentile, server
from .generate import generate_vault

ROOT = Path(__file__).resolve().parents[2]
PAGES = 10


def _server_cpu() -> float | None:
    """The CPU time (user and system, seconds) of this process's one child, the server; None where
    /proc does not tell."""
    try:
        children = [
            pid for task in Path("/proc/self/task").iterdir() for pid in (task / "children").read_text().split()
        ]
        fields = Path(f"/proc/{children[-1]}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


async def measure(
    vault: Vault | Path, pages: int, flavour: str = "", params: StdioServerParameters | None = None
) -> tuple[dict[str, list[float]], dict[str, int], dict]:
    """Times, sizes, and the largest page as the agent got it (its structured content)."""
    params = params or server(Path(vault), flavour)
    times: dict[str, list[float]] = {}
    sizes = {"pairs": 0, "pages": 0, "largest page (characters)": 0, "listed": 0}
    largest: dict = {}
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write):
            async with ClientSession(
                read, write, client_info=Implementation(name="claude-code", version="bench")
            ) as agent:
                await agent.initialize()

                async def timed(name: str, tool: str, args: dict) -> dict:
                    nonlocal largest
                    cpu = _server_cpu()
                    before = time.perf_counter()
                    result = await agent.call_tool(tool, args)
                    times.setdefault(name, []).append(time.perf_counter() - before)
                    after = _server_cpu()
                    if cpu is not None and after is not None:
                        times.setdefault(f"{name}, server CPU", []).append(after - cpu)
                    assert not result.is_error, result.content[0].text
                    if len(result.content[0].text) > sizes["largest page (characters)"]:
                        sizes["largest page (characters)"] = len(result.content[0].text)
                        largest = result.structured_content
                    return result.structured_content

                cursor = None
                session = None
                for number in range(pages):
                    name = "memory_review, first page" if number == 0 else "memory_review, next page"
                    if number == 1:
                        session = _server_cpu()
                    page = await timed(name, "memory_review", {"cursor": cursor} if cursor else {})
                    sizes["pages"] += 1
                    sizes["listed"] = max(sizes["listed"], page.get("listed", 0))
                    for n, pair in enumerate(page["pairs"]):
                        sizes["pairs"] += 1
                        await timed(
                            "memory_judge",
                            "memory_judge",
                            {
                                "older": pair["older"]["id"],
                                "newer": pair["newer"]["id"],
                                # the first a replacement, for the verdict accepted after the session
                                "verdict": "replaces" if sizes["pairs"] == 1 else "companion",
                                "reason": "measured: the newer decides it again" if n == 0 else "measured: both stand",
                            },
                        )
                    cursor = page["cursor"]
                    if cursor is None:
                        break
                ended = _server_cpu()
                if session is not None and ended is not None and sizes["pages"] > 1:
                    times["server CPU per next page, the whole session"] = [(ended - session) / (sizes["pages"] - 1)]
    return times, sizes, largest


def bare(page: dict, calls: int) -> dict[str, list[float]]:
    """The same page from a bare SDK server (`bare_mcp.py`), `calls` times, over the same transport."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "page.json"
        path.write_text(json.dumps(page, ensure_ascii=False), "utf-8")
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "tests.benchmarks.bare_mcp", str(path)],
            env={"PYTHONPATH": str(ROOT)},
            cwd=str(ROOT),
        )

        async def run() -> dict[str, list[float]]:
            times: dict[str, list[float]] = {}
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as agent:
                    await agent.initialize()
                    for number in range(calls + 1):
                        before = time.perf_counter()
                        result = await agent.call_tool("memory_review", {})
                        name = "bare SDK server, first call" if number == 0 else "bare SDK server, the same page"
                        times.setdefault(name, []).append(time.perf_counter() - before)
                        assert not result.is_error and result.structured_content == page
            return times

        return asyncio.run(run())


def accepted(root: Path, flavour: str) -> dict[str, list[float]]:
    """The run's first verdict (a replacement) accepted in this process: previewed, then written."""
    vault = Vault.open(root, flavour or None)
    found = [v for v in vault.verdicts(("open",)) if v.verdict == "replaces"]
    if not found:
        return {}
    start = time.perf_counter()
    vault.accept_verdict(found[0].id, dry_run=True)
    vault.accept_verdict(found[0].id)
    return {"a verdict accepted (preview, write)": [time.perf_counter() - start]}


def report(label: str, times: dict[str, list[float]], sizes: dict[str, int] | None = None) -> None:
    print(f"\n{label}")
    print(f"| {'call':<50} | {'n':>4} | {'p50 ms':>8} | {'p95 ms':>8} |")
    print(f"|{'-' * 52}|{'-' * 6}|{'-' * 10}|{'-' * 10}|")
    for name, values in times.items():
        ms = [v * 1000 for v in values]
        if "server CPU" in name:  # counted in clock ticks (10 ms): only a mean over calls says much
            print(f"| {name + ' (mean)':<50} | {len(ms):>4} | {statistics.fmean(ms):8.1f} | {'':>8} |")
            continue
        print(f"| {name:<50} | {len(ms):>4} | {statistics.median(ms):8.1f} | {percentile(ms, 0.95):8.1f} |")
    if sizes is not None:
        print(json.dumps(sizes))


def warm(label: str, root: Path, pages: int, flavour: str = "") -> None:
    """The warm run (a server reading the kept ranking), the bare SDK server with its largest page,
    and a verdict accepted: one table, in the same run."""
    times, sizes, largest = asyncio.run(measure(root, pages, flavour))
    if largest:
        times.update(bare(largest, max(10, sizes["pages"] - 1)))
    times.update(accepted(root, flavour))
    report(label, times, sizes)


def main(argv: list[str]) -> None:
    pages, flavour = PAGES, ""
    while argv[:1] in (["--pages"], ["--flavour"]):
        if argv[0] == "--pages":
            pages = int(argv[1])
        else:
            flavour = argv[1]
        argv = argv[2:]
    if argv[:1] == ["--vault"]:  # a vault made elsewhere (`generate_shapes`, a copied corpus): a copy is measured
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch) / "vault"
            shutil.copytree(argv[1], root, ignore=shutil.ignore_patterns(".workbench", ".workbench-verdicts.jsonl"))
            report(f"{argv[1]} (first open: ranking worked out)", *asyncio.run(measure(root, 1, flavour))[:2])
            (root / ".workbench-verdicts.jsonl").unlink(missing_ok=True)
            warm(f"{argv[1]} (warm), load average {os.getloadavg()[0]:.1f}", root, pages, flavour)
        return
    sizes = [int(a) for a in argv] or [10_000]
    with tempfile.TemporaryDirectory() as scratch:
        sample = Path(scratch) / "sample"
        shutil.copytree(ROOT / "sample_vault", sample)
        report("sample vault (67 documents)", *asyncio.run(measure(sample, pages))[:2])
        for size in sizes:
            root = Path(scratch) / f"generated-{size}"
            generate_vault(root, size)
            # The first open builds .workbench/ and works the ranking out (as after any change to a
            # record); the next server reads both, as an agent usually meets them.
            report(
                f"generated vault ({size:,} documents, first open: ranking worked out)",
                *asyncio.run(measure(root, 1))[:2],
            )
            (root / ".workbench-verdicts.jsonl").unlink(missing_ok=True)  # an unjudged list again
            warm(f"generated vault ({size:,} documents, warm)", root, pages)


if __name__ == "__main__":
    main(sys.argv[1:])
