"""The official MCP SDK's client (`stdio_client`, `ClientSession`) driving a real `workbench mcp`
subprocess over stdio: what every MCP test talks through; and `http_server`, a real `workbench mcp
--http` on a free port. Nothing is mocked: every answer crossed a pipe or a socket as the protocol's
JSON."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import Implementation

ROOT = Path(__file__).resolve().parent.parent


class Agent:
    """One connected client: `call` expects an answer, `refused` an error result, and returns its text."""

    def __init__(self, session: ClientSession, errors: Path) -> None:
        self.session = session
        self.errors = errors

    async def call(self, tool: str, **args: Any) -> dict[str, Any]:
        result = await self.session.call_tool(tool, args)
        assert not result.is_error, result.content[0].text
        # The client checked the structured answer against the tool's output schema; it is the text, whole.
        assert json.loads(result.content[0].text) == result.structured_content
        return result.structured_content

    async def refused(self, tool: str, **args: Any) -> str:
        result = await self.session.call_tool(tool, args)
        assert result.is_error, result.structured_content
        return result.content[0].text

    async def found_and_read(self, doc_id: str, query: str) -> None:
        hits = await self.call("memory_search", query=query, limit=20)
        assert doc_id in [h["id"] for h in hits["hits"]], (doc_id, [h["id"] for h in hits["hits"]])
        assert (await self.call("memory_read", ids=doc_id))["documents"][0]["read_whole"]


@asynccontextmanager
async def connected(vault: Path, name: str = "claude-code", *options: str):
    errors = vault.parent / f"server-stderr-{time.monotonic_ns()}.txt"
    env = {
        "PYTHONPATH": str(ROOT),
        **{k: os.environ[k] for k in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME") if k in os.environ},
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "workbench.cli", "--vault", str(vault), "mcp", *options],
        env=env,
        cwd=str(ROOT),
    )
    with errors.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(name=name, version="1.0.3")) as session:
                await session.initialize()
                yield Agent(session, errors)
    assert "Traceback" not in errors.read_text("utf-8")


def files(vault: Path) -> dict[str, bytes]:
    """Every file of the vault but the derived state, to prove that nothing was written."""
    return {
        p.relative_to(vault).as_posix(): p.read_bytes()
        for p in sorted(vault.rglob("*"))
        if p.is_file() and ".workbench" not in p.relative_to(vault).parts
    }


async def once(
    vault: Path, tool: str, name: str = "claude-code", *options: str, refused: bool = False, **args: Any
) -> Any:
    """One call from a stateless client: a new server process for it alone, as langchain-mcp-adapters'
    default tools and the MCP Inspector's command line do."""
    async with connected(vault, name, *options) as agent:
        return await (agent.refused(tool, **args) if refused else agent.call(tool, **args))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_command(vault: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "workbench.cli", "--vault", str(vault), "mcp", *options]


def start_server(vault: Path, *options: str) -> subprocess.Popen:
    return subprocess.Popen(
        server_command(vault, *options),
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_listening(server: subprocess.Popen, port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stderr.read()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the server never listened")


@contextmanager
def http_server(vault: Path, token_file: Path, *options: str):
    """A `workbench mcp --http` on a free loopback port, its token read from `token_file`: yields its URL."""
    port = free_port()
    server = start_server(vault, "--http", f"127.0.0.1:{port}", "--token-file", str(token_file), *options)
    try:
        wait_listening(server, port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=30)
        assert "Traceback" not in errors, errors
        assert token_file.read_text().strip() not in errors  # a token read from a file is never printed
