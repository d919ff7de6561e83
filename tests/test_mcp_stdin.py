"""Every line on a real server's stdin gets an answer: a lone surrogate, a JSON line cut short,
bytes that are not UTF-8, JSON that is not a message. Each is a JSON-RPC error for its request's id,
and the server goes on answering the next request. Raw bytes on a real pipe: the SDK's own client
cannot even send a lone surrogate (its serialiser raises), but other clients and hand-written
scripts do."""

from __future__ import annotations

import asyncio
import json
import os
import sys

from mcp_client import ROOT

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "claude-raw", "version": "1"},
    },
}
SEARCH = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":%s}}}'

BAD_LINES = [
    (SEARCH % (1, b'"\\ud800"'), 1, -32602, "params.arguments.query holds a lone surrogate"),
    ((SEARCH % (2, b'"stripe"'))[:50], 2, -32700, "not complete JSON"),
    (SEARCH % (3, b'"caf\xe9"'), 3, -32700, "not UTF-8"),
    (
        b'{"jsonrpc":"2.0","id":"four","method":"tools/call","params":{"name":"memory_read","arguments":{"ids":["\\udfff"]}}}',
        "four",
        -32602,
        "params.arguments.ids[0]",
    ),
    (
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"memory_search","arguments":{"\\ud800":"x","query":"q"}}}',
        5,
        -32602,
        "params.arguments.\\ud800 holds a lone surrogate",
    ),  # in a key: the answer names it escaped, so the answer itself is text
    (b'{"jsonrpc":"2.0","id":8,"\\udc00":1,"method":"ping"}', 8, -32602, "\\udc00"),
    (b"[1, 2]", None, -32600, "JSON object"),
    (b'{"id": 6, "hello": "there"}', 6, -32600, "not a JSON-RPC 2.0 message"),
]


async def test_every_bad_line_is_answered_for_its_id_and_the_server_goes_on(sample_copy):
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")}
    server = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "workbench.cli",
        "--vault",
        str(sample_copy),
        "mcp",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=str(ROOT),
    )

    async def send(line: bytes) -> None:
        server.stdin.write(line + b"\n")
        await server.stdin.drain()

    async def answer() -> dict:
        return json.loads(await asyncio.wait_for(server.stdout.readline(), 30))

    try:
        await send(json.dumps(INITIALIZE).encode())
        assert (await answer())["id"] == 0
        await send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        await send(
            b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"\\ud800"}}'
        )  # asks no answer
        for line, request_id, code, words in BAD_LINES:
            await send(line)
            got = await answer()
            assert "error" in got, (line, got)
            assert (got["id"], got["error"]["code"]) == (request_id, code), (line, got)
            assert words in got["error"]["message"], got
        await send(SEARCH % (7, b'"stripe webhooks"'))
        good = await answer()
        assert (
            good["id"] == 7 and not good["result"].get("isError") and good["result"]["structuredContent"]["count"] >= 1
        )
    finally:
        server.stdin.close()
        await asyncio.wait_for(server.wait(), 30)
    assert b"Traceback" not in await server.stderr.read()
