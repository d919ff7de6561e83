"""Where a `memory_review` page's wall time goes between the agent's request and its answer:
`python -m tests.benchmarks.trace_mcp --vault PATH [--flavour NAME] [--pages N]`.

Starts `workbench mcp` on a copy of the vault with the official SDK's client, as `bench_review`
does, but with timestamps taken on both sides (one clock: `time.monotonic`, the system's, in both
processes) at each step of a call: the client sends; the server reads the line and checks it
(`stdio.py`); the SDK validates the arguments and hands the tool to a worker thread; the tool runs
(its thread's CPU time noted too); the SDK builds the result and we render its text; the SDK
encodes the response and writes it to stdout; the client parses the line and validates the result
against the tool's output schema. Also noted: the cyclic garbage collector's passes and the
watcher's sweeps in the server. Prints the median and p95 of each step over the pages after the
first, and the judgements between them. Nothing is asserted.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from .bench_mcp import percentile

ROOT = Path(__file__).resolve().parents[2]
TRACE = "WORKBENCH_TRACE_FILE"

# (step, from mark, to mark): the steps of one call, in order
STEPS = [
    ("client sends, server reads the line", "c.send", "s.line"),
    ("SDK: arguments checked, worker thread", "s.line", "s.tool.start"),
    ("the tool (ours)", "s.tool.start", "s.tool.end"),
    ("SDK result, our text", "s.tool.end", "s.call.end"),
    ("SDK encodes and writes the answer", "s.call.end", "s.flushed"),
    ("client reads and parses the line", "s.flushed", "c.parsed"),
    ("client checks the output schema", "c.parsed", "c.done"),
    ("the whole call", "c.send", "c.done"),
]


def _mark(stage: str) -> None:
    with open(os.environ[TRACE], "a", encoding="utf-8") as out:
        out.write(f"{stage}\t{time.monotonic():.6f}\n")


def _wrapped(owner, name: str, before: str | None, after: str | None, cpu: bool = False) -> None:
    original = getattr(owner, name)

    @functools.wraps(original)
    def run(*args, **kwargs):
        if before:
            _mark(before)
        started = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            if cpu:
                _mark(f"s.tool.cpu\t{time.thread_time() - started:.6f}")
            if after:
                _mark(after)

    setattr(owner, name, run)


def serve(argv: list[str]) -> int:
    """`workbench ARGV` with the server's marks in place."""
    import anyio
    import mcp.server.stdio as sdk_stdio

    from workbench.agents import server, stdio, tools
    from workbench.cli.main import main
    from workbench.core.index import VaultIndex

    _wrapped(stdio, "problem_of", "s.line", None)
    _wrapped(tools.MemoryTools, "review", "s.tool.start", "s.tool.end", cpu=True)
    _wrapped(tools.MemoryTools, "judge", "s.tool.start", "s.tool.end", cpu=True)
    _wrapped(VaultIndex, "refresh", "s.sweep.start", "s.sweep.end")
    call_tool = server._Server.call_tool

    async def called(self, *args, **kwargs):
        try:
            return await call_tool(self, *args, **kwargs)
        finally:
            _mark("s.call.end")

    server._Server.call_tool = called  # type: ignore[method-assign]
    wrap_file = anyio.wrap_file

    class Flushed:
        def __init__(self, inner):
            self._inner = inner

        def __getattr__(self, name):
            return getattr(self._inner, name)

        def __aiter__(self):
            return self._inner.__aiter__()

        async def flush(self):
            await self._inner.flush()
            _mark("s.flushed")

    sdk_stdio.anyio.wrap_file = lambda f: Flushed(wrap_file(f))  # type: ignore[attr-defined]
    began: dict[str, float] = {}

    def collected(phase: str, info: dict) -> None:
        if phase == "start":
            began["at"] = time.monotonic()
        else:
            _mark(f"s.gc{info['generation']}\t{time.monotonic() - began.get('at', time.monotonic()):.6f}")

    gc.callbacks.append(collected)
    return main(argv)


async def client(root: Path, pages: int, flavour: str) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from mcp.client import stdio as client_stdio
    from mcp.types import Implementation

    parse = client_stdio._parse_line

    def parsed(line: str):
        try:
            return parse(line)
        finally:
            _mark("c.parsed")

    client_stdio._parse_line = parsed
    args = ["-m", "tests.benchmarks.trace_mcp", "--serve", "--vault", str(root)]
    args += ["--flavour", flavour] if flavour else []
    params = StdioServerParameters(
        command=sys.executable,
        args=[*args, "mcp"],
        env={"PYTHONPATH": str(ROOT), TRACE: os.environ[TRACE]},
        cwd=str(ROOT),
    )
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write):
            async with ClientSession(
                read, write, client_info=Implementation(name="claude-code", version="trace")
            ) as agent:
                await agent.initialize()
                await agent.list_tools()  # the output schemas, as a client lists them before calling
                cursor = None
                for number in range(pages):
                    _mark(f"c.call\treview {number}")
                    _mark("c.send")
                    page = (
                        await agent.call_tool("memory_review", {"cursor": cursor} if cursor else {})
                    ).structured_content
                    _mark("c.done")
                    for pair in page["pairs"]:
                        _mark("c.call\tjudge")
                        _mark("c.send")
                        await agent.call_tool(
                            "memory_judge",
                            {
                                "older": pair["older"]["id"],
                                "newer": pair["newer"]["id"],
                                "verdict": "companion",
                                "reason": "traced",
                            },
                        )
                        _mark("c.done")
                    cursor = page["cursor"]
                    if cursor is None:
                        break


def calls(lines: list[str]) -> list[tuple[str, dict[str, float], list[str]]]:
    """Each call as (what, {mark: time}, notes: CPU time, collections, sweeps)."""
    marks = sorted((line.split("\t") for line in lines if line.strip()), key=lambda f: float(f[-1]))
    out: list[tuple[str, dict[str, float], list[str]]] = []
    for fields in marks:
        stage, at = fields[0], float(fields[-1])
        if stage == "c.call":
            out.append((fields[1], {}, []))
        elif out:
            what, seen, notes = out[-1]
            if stage == "s.tool.cpu":
                seen["cpu"] = float(fields[1])
            elif stage.startswith("s.gc") and float(fields[1]) >= 0.001:
                notes.append(f"{stage[2:]} {float(fields[1]) * 1000:.0f} ms")
            elif stage.startswith("s.sweep"):
                notes.append(stage[2:])
            if stage == "s.flushed":  # the last: the one before may be the call before's, noted late
                seen[stage] = at
            else:
                seen.setdefault(stage, at)
    return out


def main(argv: list[str]) -> None:
    pages, flavour, vault = 10, "", None
    while argv:
        flag, value, argv = argv[0], argv[1], argv[2:]
        if flag == "--pages":
            pages = int(value)
        elif flag == "--flavour":
            flavour = value
        elif flag == "--vault":
            vault = value
    if vault is None:
        raise SystemExit("usage: python -m tests.benchmarks.trace_mcp --vault PATH [--flavour NAME] [--pages N]")
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "vault"
        shutil.copytree(vault, root, ignore=shutil.ignore_patterns(".workbench", ".workbench-verdicts.jsonl"))
        os.environ[TRACE] = str(Path(scratch) / "trace.tsv")
        asyncio.run(client(root, 1, flavour))  # the first open works the ranking out and keeps it
        (root / ".workbench-verdicts.jsonl").unlink(missing_ok=True)
        Path(os.environ[TRACE]).unlink()
        asyncio.run(client(root, pages, flavour))
        traced = calls(Path(os.environ[TRACE]).read_text().splitlines())
    print(f"{vault}: {pages} pages, load average {os.getloadavg()[0]:.1f} (ms; the first page of the server left out)")
    for label, chosen in (
        ("memory_review, next page", lambda w: w.startswith("review") and w != "review 0"),
        ("memory_judge", lambda w: w == "judge"),
    ):
        picked = [seen for what, seen, _ in traced if chosen(what)]
        print(f"\n{label}: {len(picked)} call(s)")
        print(f"| {'step':<40} | {'p50':>7} | {'p95':>7} |")
        print(f"|{'-' * 42}|{'-' * 9}|{'-' * 9}|")
        for step, start, end in STEPS:
            ms = [(seen[end] - seen[start]) * 1000 for seen in picked if start in seen and end in seen]
            if ms:
                print(f"| {step:<40} | {statistics.median(ms):7.1f} | {percentile(ms, 0.95):7.1f} |")
        cpu = [seen["cpu"] * 1000 for seen in picked if "cpu" in seen]
        if cpu:
            print(
                f"| {'  the tool, its thread CPU':<40} | {statistics.median(cpu):7.1f} | {percentile(cpu, 0.95):7.1f} |"
            )
    noted = [f"{what}: {', '.join(notes)}" for what, _, notes in traced if notes]
    print("\nin the server meanwhile: " + ("; ".join(noted) if noted else "no collection of 1 ms or more, no sweep"))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        raise SystemExit(serve(sys.argv[2:]))
    main(sys.argv[1:])
