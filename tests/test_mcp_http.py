"""`workbench mcp --http`: a real server process on a free port, driven by the SDK's own streamable
HTTP client. With the bearer token an agent searches and creates; without it, or with another
token, every request gets 401 and the vault (its files and the gate's evidence) is unchanged.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation
from mcp_client import ROOT, free_port, http_server, start_server, wait_listening

from workbench import Vault

TOKEN = "a-token-long-enough-0123456789"
NOTE = {
    "type": "note",
    "title": "Stripe payouts arrive on the second business day",
    "body": "Seen in the dashboard.",
    "links": ["related_to:mem-entity-stripe"],
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "claude-code", "version": "1"},
    },
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def everything(vault: Path) -> dict[str, bytes]:
    """Every file under the vault, `.workbench/` included (a refused request writes no evidence
    either), but SQLite's own files of the derived store: any connection that closes may move
    pages from its write-ahead log into the database, a change of bytes that says nothing."""
    return {
        p.relative_to(vault).as_posix(): p.read_bytes()
        for p in sorted(vault.rglob("*"))
        if p.is_file() and not p.name.startswith("index.sqlite")
    }


@pytest.fixture
def served(sample_copy, tmp_path):
    """(vault, url) of a server reading its token from a file."""
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    with http_server(sample_copy, token_file) as url:
        Vault.open(sample_copy)  # the derived state settled before a test compares files
        yield sample_copy, url


@asynccontextmanager
async def session(url: str, token: str | None, name: str = "claude-code", scheme: str = "Bearer"):
    headers = {"Authorization": f"{scheme} {token}".strip()} if token is not None else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(name=name, version="1.0")) as client:
                await client.initialize()
                yield client


@pytest.mark.parametrize("scheme", ["Bearer", "bearer"])
async def test_with_the_token_an_agent_searches_then_creates(served, scheme):
    vault, url = served
    async with session(url, TOKEN, scheme=scheme) as client:
        found = await client.call_tool("memory_search", {"query": "stripe payouts business day"})
        assert not found.is_error and found.structured_content["count"] >= 1
        written = await client.call_tool("memory_write", {**NOTE, "decision": "create"})
        assert not written.is_error, written.content[0].text
    doc = Vault.open(vault).get(written.structured_content["id"])
    assert doc.status == "draft" and doc.meta["provenance"]["agent"] == "claude-code"


async def test_two_clients_at_once_are_each_named_as_themselves(served):
    """Over HTTP one server holds several sessions: each call's agent is its own client's, not the
    last to connect (here a codex client searched, so only its create may pass)."""
    vault, url = served
    async with session(url, TOKEN, "claude-code") as claude, session(url, TOKEN, "codex-cli") as codex:
        await codex.call_tool("memory_search", {"query": "stripe payouts business day"})
        refused, written = await asyncio.gather(
            claude.call_tool("memory_write", {**NOTE, "decision": "create"}),
            codex.call_tool("memory_write", {**NOTE, "title": NOTE["title"] + " ", "decision": "create"}),
        )
    assert refused.is_error and "search for duplicates" in refused.content[0].text
    assert not written.is_error, written.content[0].text
    assert Vault.open(vault).get(written.structured_content["id"]).meta["provenance"]["agent"] == "codex-cli"


@pytest.mark.parametrize(
    ("scheme", "token"),
    [
        ("Bearer", None),
        ("Bearer", "a-token-long-enough-0123456788"),
        ("Bearer", TOKEN + "x"),
        ("Bearer", TOKEN[:-1]),
        ("", TOKEN),
        ("Basic", TOKEN),
    ],
)
async def test_without_the_token_every_request_gets_401_and_touches_nothing(served, scheme, token):
    vault, url = served
    before = everything(vault)
    headers = {**HEADERS, **({"Authorization": f"{scheme} {token}".strip()} if token is not None else {})}
    async with httpx2.AsyncClient(timeout=30) as http:
        for method, body in [("POST", INITIALIZE), ("GET", None), ("DELETE", None)]:
            answer = await http.request(method, url, headers=headers, json=body)
            assert answer.status_code == 401, (method, answer.status_code)
            assert answer.headers["www-authenticate"].startswith("Bearer")
        assert (await http.get(url.removesuffix("/mcp") + "/other", headers=headers)).status_code == 401
    called = []
    with pytest.raises(Exception, match="TaskGroup"):  # the SDK's client is refused at `initialize`
        async with session(url, token, scheme=scheme) as client:
            called.append(await client.call_tool("memory_write", {**NOTE, "decision": "create"}))
    assert called == []
    assert everything(vault) == before


async def test_a_token_made_at_start_is_printed_and_opens_the_door(sample_copy):
    port = free_port()
    server = start_server(sample_copy, "--http", f"127.0.0.1:{port}", "--source", "agent-codex")
    try:
        lines = [server.stderr.readline() for _ in range(2)]
        assert lines[0].startswith("workbench mcp: serving ") and f"http://127.0.0.1:{port}/mcp" in lines[0]
        token = lines[1].removeprefix("workbench mcp: token ").strip()
        assert len(token) >= 40
        wait_listening(server, port)
        async with session(f"http://127.0.0.1:{port}/mcp", token, "some-agent") as client:
            found = await client.call_tool("memory_search", {"query": "stripe"})
            assert not found.is_error
    finally:
        server.terminate()
        server.communicate(timeout=30)


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--http", "0.0.0.0:8765"], "--allow-remote"),
        (["--http", "8765"], "HOST:PORT"),
        (["--http", "127.0.0.1:99999"], "HOST:PORT"),
        (["--http", "127.0.0.1:8765", "--token-file", "/nonexistent/token"], "--token-file"),
        (["--token-file", "x"], "go with --http"),
    ],
)
def test_a_wrong_address_or_token_file_is_refused_before_serving(sample_copy, options, says):
    run = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "--vault", str(sample_copy), "mcp", *options],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 2 and says in run.stderr and "Traceback" not in run.stderr, run.stderr


def test_a_short_token_file_is_refused(sample_copy, tmp_path):
    short = tmp_path / "token"
    short.write_text("secret\n")
    run = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "--vault", str(sample_copy), "mcp", "--http", "127.0.0.1:8765"]
        + ["--token-file", str(short)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 2 and "at least 16" in run.stderr, run.stderr


def test_a_remote_address_when_allowed_is_served_with_a_warning(sample_copy, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    port = free_port()
    server = start_server(sample_copy, "--http", f"0.0.0.0:{port}", "--allow-remote", "--token-file", str(token_file))
    try:
        wait_listening(server, port)
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=30)
    assert "WARNING: serving on 0.0.0.0, reachable from other machines" in errors and "Traceback" not in errors


def _post(address: str, port: int, headers: dict[str, str]) -> int:
    """The status of one raw initialize request to `address:port` with exactly these headers."""
    import http.client
    import json

    connection = http.client.HTTPConnection(address, port, timeout=30)
    try:
        connection.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
        for name, value in {**HEADERS, "Authorization": f"Bearer {TOKEN}", **headers}.items():
            connection.putheader(name, value)
        body = json.dumps(INITIALIZE).encode()
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.mark.parametrize(("bind", "address"), [("127.0.0.2", "127.0.0.2"), ("127.1", "127.0.0.1")])
def test_host_and_origin_are_checked_on_every_loopback_address(sample_copy, tmp_path, bind, address):
    """A browser page on another site reaching a loopback server by DNS rebinding sends its own
    name as Host, and its Origin: refused on 127.0.0.2 and 127.1 as on 127.0.0.1."""
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    port = free_port()
    server = start_server(sample_copy, "--http", f"{bind}:{port}", "--token-file", str(token_file))
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection((address, port), timeout=0.2).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        assert _post(address, port, {"Host": f"evil.example:{port}"}) in (403, 421)
        assert _post(address, port, {"Host": "evil.example"}) in (403, 421)
        assert _post(address, port, {"Host": f"{address}:{port}", "Origin": "http://evil.example"}) == 403
        assert _post(address, port, {"Host": f"{address}:{port}", "Origin": f"http://{address}:{port}"}) == 200
        assert _post(address, port, {"Host": f"localhost:{port}"}) == 200
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=30)
    assert "Traceback" not in errors
