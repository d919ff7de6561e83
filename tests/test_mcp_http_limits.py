"""The HTTP door against clients that hold it open: a request's head must arrive whole within a
time, its body must keep coming, and only so many connections are open at once. A real uvicorn
server on a real socket, built as `workbench mcp --http` builds it, with short limits so the test
waits seconds, not minutes."""

from __future__ import annotations

import socket
import threading
import time

import pytest
import uvicorn
from mcp_client import free_port

from workbench.agents.http import HttpLimits, server_config

TOKEN = "a-token-long-enough-0123456789"


async def _app(scope, receive, send):
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
def limited():
    port = free_port()
    limits = HttpLimits(header_seconds=1.0, body_seconds=1.0, connections=8)
    server = uvicorn.Server(server_config(_app, "127.0.0.1", port, limits))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    yield port
    server.should_exit = True
    thread.join(30)


def _closed_within(conn: socket.socket, seconds: float, trickle: bytes = b"") -> float | None:
    """Seconds until the server closes `conn` (None if it is still open after `seconds`),
    sending one byte of `trickle` every 0.2 s meanwhile, as a slow client would."""
    start = time.monotonic()
    conn.settimeout(0.2)
    sent = 0
    while time.monotonic() - start < seconds:
        try:
            if conn.recv(4096) == b"":
                return time.monotonic() - start
        except TimeoutError:
            pass
        except ConnectionResetError:
            return time.monotonic() - start
        if sent < len(trickle):
            try:
                conn.send(trickle[sent : sent + 1])
            except OSError:
                return time.monotonic() - start
            sent += 1
    return None


def test_a_head_sent_half_or_byte_by_byte_is_closed_after_the_header_time(limited):
    half = socket.create_connection(("127.0.0.1", limited))
    half.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    slow = socket.create_connection(("127.0.0.1", limited))
    try:
        assert _closed_within(half, 5) is not None
        assert (
            _closed_within(slow, 5, trickle=b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100)
            is not None
        )
    finally:
        half.close()
        slow.close()


def test_a_body_that_stops_coming_is_closed_and_a_whole_request_is_answered(limited):
    stalled = socket.create_connection(("127.0.0.1", limited))
    stalled.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n" + b"x" * 10)
    try:
        assert _closed_within(stalled, 5) is not None
    finally:
        stalled.close()
    whole = socket.create_connection(("127.0.0.1", limited), timeout=5)
    try:
        whole.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nabc")
        assert whole.recv(4096).startswith(b"HTTP/1.1 200")
    finally:
        whole.close()


def test_open_connections_are_bounded_and_the_door_opens_again(limited):
    held = [socket.create_connection(("127.0.0.1", limited)) for _ in range(40)]
    try:
        time.sleep(0.3)
        closed = sum(_closed_within(conn, 0.2) is not None for conn in held)
        assert closed >= 40 - 8, closed
    finally:
        for conn in held:
            conn.close()
    time.sleep(1.5)
    fresh = socket.create_connection(("127.0.0.1", limited), timeout=5)
    try:
        fresh.sendall(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert fresh.recv(4096).startswith(b"HTTP/1.1 200")
    finally:
        fresh.close()
