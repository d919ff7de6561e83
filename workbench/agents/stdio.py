"""Every line a client sends on stdin gets an answer, even one that is not a message.

The SDK's stdio transport drops a line it cannot read as JSON-RPC (its parser refuses a lone
surrogate such as `"\\ud800"`, and a line cut short is not JSON) and answers nothing, so the client
waits for ever. Here each line is checked before the SDK sees it: a good one goes on as it came; a
bad one is answered at once with a JSON-RPC error for the request's id (found even in a line cut
short, when its `"id"` came before the cut), and the server goes on to the next line:

| the line | the answer |
|---|---|
| not UTF-8 | -32700 parse error, naming the first bad byte |
| JSON cut short or malformed | -32700 parse error, with where it stops |
| a lone surrogate in a string | -32602 invalid params, naming the field |
| JSON, but not a JSON-RPC 2.0 message | -32600 invalid request |

A notification (no id) is never answered, as JSON-RPC says; a bad one is only reported on stderr.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

__all__ = ["checked_stdio", "problem_of"]

_ID = re.compile(r'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')
_SURROGATE = re.compile(r"[\ud800-\udfff]")

Problem = tuple[Any, int, str]  # (the request's id or None, JSON-RPC error code, message)
NOTIFICATION = object()  # the id of a line that asks for no answer


def _id_in(text: str) -> Any:
    """The request's id as far as a broken line shows it; None when it does not."""
    found = _ID.search(text)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


def _shown(name: str) -> str:
    """A key as the answer names it: a lone surrogate written as its escape (`\\ud800`), since an
    answer holding one could not be sent at all, and every later answer would wait behind it."""
    return name.encode("utf-8", "backslashreplace").decode("utf-8")


def _surrogate_at(value: Any, where: str) -> str | None:
    """The path of the first string holding a lone surrogate (`params.arguments.title`), in a key or
    a value, with any surrogate in it escaped."""
    if isinstance(value, str):
        return where if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            name = f"{where}.{_shown(str(key))}" if where else _shown(str(key))
            if _SURROGATE.search(str(key)):
                return name
            found = _surrogate_at(item, name)
            if found:
                return found
    if isinstance(value, list):
        for n, item in enumerate(value):
            found = _surrogate_at(item, f"{where}[{n}]")
            if found:
                return found
    return None


def problem_of(raw: bytes) -> Problem | None:
    """What is wrong with one line of stdin, or None when it is a JSON-RPC message the SDK reads."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8", "replace")
        return (
            _id_in(text),
            types.PARSE_ERROR,
            f"Parse error: the line is not UTF-8 text (byte {exc.start}); send UTF-8 JSON",
        )
    try:
        types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        return None
    except ValueError:
        pass
    try:
        message = json.loads(text.rstrip("\r\n"))
    except json.JSONDecodeError as exc:
        return (
            _id_in(text),
            types.PARSE_ERROR,
            f"Parse error: the line is not complete JSON ({exc.msg}, character {exc.pos}); send one JSON-RPC message per line",
        )
    if not isinstance(message, dict):
        return None, types.INVALID_REQUEST, "Invalid request: a JSON-RPC 2.0 message is a JSON object"
    doc_id = message.get("id")
    if "id" not in message:
        doc_id = NOTIFICATION
    elif not isinstance(doc_id, (int, str)) or isinstance(doc_id, bool) or _SURROGATE.search(str(doc_id)):
        doc_id = None
    field = _surrogate_at(message, "")
    if field:
        return (
            doc_id,
            types.INVALID_PARAMS,
            f"Invalid params: {field} holds a lone surrogate (half of a UTF-16 pair), which is not text; send valid Unicode",
        )
    if "method" not in message and ("result" in message or "error" in message):
        return NOTIFICATION, types.INVALID_REQUEST, "a response to nothing this server asked"
    return (
        doc_id,
        types.INVALID_REQUEST,
        'Invalid request: not a JSON-RPC 2.0 message (jsonrpc "2.0", an id, a method, params)',
    )


class _CheckedLines:
    """stdin for the SDK's transport: the good lines as text; the bad ones answered through `answer`."""

    def __init__(self, binary: anyio.AsyncFile[bytes]) -> None:
        self._binary = binary
        self.answer: Callable[[types.JSONRPCError], Awaitable[None]] | None = None

    async def __aiter__(self) -> AsyncIterator[str]:
        async for raw in self._binary:
            if not raw.strip():
                continue
            problem = problem_of(raw)
            if problem is None:
                yield raw.decode("utf-8")
                continue
            request_id, code, message = problem
            if request_id is NOTIFICATION or self.answer is None:
                print(f"workbench mcp: a line left unanswered: {message}", file=sys.stderr)
                continue
            await self.answer(
                types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))
            )


class _Answers:
    """stdout for the SDK's transport: after each message is flushed to the client, `sent()`."""

    def __init__(self, text: anyio.AsyncFile[str], sent: Callable[[], None] | None) -> None:
        self._text = text
        self._sent = sent

    async def write(self, text: str) -> int:
        return await self._text.write(text)

    async def flush(self) -> None:
        await self._text.flush()
        if self._sent is not None:
            self._sent()


@asynccontextmanager
async def checked_stdio(sent: Callable[[], None] | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio transport over checked lines: (read stream, write stream), as `stdio_server`;
    `sent()` is called each time an answer has gone out. While serving, fd 0 points at the null
    device and fd 1 at stderr (as the SDK's own transport does), so nothing the server starts
    reads the wire or writes into it."""
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    out = os.dup(1)
    os.dup2(2, 1)
    try:
        binary = os.fdopen(wire, "rb", closefd=False)
        lines = _CheckedLines(anyio.wrap_file(binary))
        text = io.TextIOWrapper(os.fdopen(out, "wb", closefd=False), encoding="utf-8")
        answers = _Answers(anyio.wrap_file(text), sent)
        async with stdio_server(stdin=lines, stdout=answers) as (read_stream, write_stream):  # type: ignore[arg-type]

            async def answer(error: types.JSONRPCError) -> None:
                await write_stream.send(SessionMessage(error))

            lines.answer = answer
            yield read_stream, write_stream
    finally:
        os.dup2(wire, 0)  # the wire back where it was; the descriptor stays open for a reader still blocked on it
        os.dup2(out, 1)
