"""`workbench mcp --http HOST:PORT`: the same server for an agent on another machine or container.

The transport is the SDK's streamable HTTP (one endpoint, `/mcp`; answers as JSON or a stream of
server-sent events), run by uvicorn, both of which come with the `mcp` package. What this module
adds is a door: every request, of any method and path, must carry `Authorization: Bearer TOKEN`.
Without it, or with another token, the answer is 401 before the SDK sees the request, so nothing
is read or written. The token is compared in constant time (`hmac.compare_digest`). It is made
fresh at start (32 random bytes, URL-safe) and printed on stderr, or read from a file the person
keeps (`--token-file`), so a client's configuration can outlive a restart.

The server binds to 127.0.0.1 unless told otherwise. A host that others can reach (anything not
loopback) is refused unless `--allow-remote` says the person means it: the token then crosses the
network in plain HTTP, so such a server belongs behind TLS (a reverse proxy) or on a private
network. On a loopback address (any of 127.0.0.0/8, `::1`, `localhost`, however written: `127.1`
is 127.0.0.1) a request whose `Host` or `Origin` names anything but a loopback address is refused
(421, 403) before the token is looked at: a page on another site that reaches the server by DNS
rebinding sends its own name. That check does not apply to a remote host.

A client cannot hold the door open either: a request's head must arrive whole within
`HttpLimits.header_seconds` of the connection (or of the end of the last answer), its body must
keep coming (no pause longer than `body_seconds`), and at most `connections` are open at once,
any more closed as they arrive. The answer being written has no time limit: a stream of events
lasts as long as the client reads it.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import secrets
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..core import RefusedError

__all__ = [
    "BearerGate",
    "HttpLimits",
    "LocalOnly",
    "MIN_TOKEN",
    "check_host",
    "is_loopback",
    "new_token",
    "parse_address",
    "read_token",
    "serve_http",
    "server_config",
]

MIN_TOKEN = 16  # characters: shorter is guessable, and most likely a file holding the wrong thing
PATH = "/mcp"


def new_token() -> str:
    return secrets.token_urlsafe(32)


def read_token(path: str) -> str:
    """The token in `path`: its text without surrounding whitespace, refused when it cannot be one."""
    try:
        text = Path(path).read_text("utf-8").strip()
    except OSError as exc:
        raise RefusedError(f"--token-file {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError:
        raise RefusedError(f"--token-file {path}: not UTF-8 text") from None
    if len(text) < MIN_TOKEN or any(c.isspace() or not c.isprintable() for c in text):
        raise RefusedError(
            f"--token-file {path}: a token is one line of at least {MIN_TOKEN} printable characters, no spaces "
            f"(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))' > {path}`)"
        )
    return text


def parse_address(text: str) -> tuple[str, int]:
    """`HOST:PORT`, `:PORT` (loopback) or `[::1]:PORT`, as (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise RefusedError(f"--http {text!r}: give HOST:PORT, e.g. 127.0.0.1:8765")
    host = host.strip("[]") or "127.0.0.1"
    return host, int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        try:
            return all(ipaddress.ip_address(info[4][0]).is_loopback for info in socket.getaddrinfo(host, None))
        except OSError:
            return False


def check_host(host: str, allow_remote: bool) -> None:
    """A host others can reach needs the person's word (`--allow-remote`)."""
    if not is_loopback(host) and not allow_remote:
        raise RefusedError(
            f"--http {host}: this address can be reached from other machines, and the token would cross the "
            "network in plain HTTP; add --allow-remote if that is meant (behind TLS or on a private network), "
            "or serve on 127.0.0.1"
        )


def _is_loopback_name(host: str) -> bool:
    """Whether a Host or Origin names this machine: `localhost` or a loopback address, never by
    asking DNS (a rebinding name resolves to 127.0.0.1 on purpose)."""
    host = host.strip().strip("[]").lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:  # `127.1` and other short forms the socket layer reads as an address
        return ipaddress.ip_address(socket.inet_aton(host)).is_loopback if host[:1].isdigit() else False
    except OSError:
        return False


def _host_part(value: str) -> str:
    """The name in a Host header (`name`, `name:port`, `[::1]:port`)."""
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rpartition(":")[0] if value.count(":") == 1 else value


def _header(scope: dict[str, Any], wanted: bytes) -> str | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == wanted:
            return value.decode("latin-1")
    return None


class LocalOnly:
    """ASGI middleware for a server on a loopback address: a request whose Host or Origin names
    another machine is refused (421 and 403, as the SDK answers on 127.0.0.1) and never reaches `app`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def problem(self, scope: dict[str, Any]) -> tuple[int, str] | None:
        host = _header(scope, b"host")
        if host is None or not _is_loopback_name(_host_part(host)):
            return 421, "this server answers only requests addressed to this machine (Host: localhost or 127.0.0.1)"
        origin = _header(scope, b"origin")
        if origin is not None:
            try:
                name = urlsplit(origin).hostname
            except ValueError:
                name = None
            if not name or not _is_loopback_name(name):
                return 403, "requests from a page on another site are refused (Origin)"
        return None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        found = self.problem(scope) if scope["type"] in ("http", "websocket") else None
        if found is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        status, message = found
        body = ('{"error": "%s"}' % message).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})


@dataclass(frozen=True)
class HttpLimits:
    """How long a client may take to send a request, and how many may be connected at once."""

    header_seconds: float = 10.0  # the whole head of a request, from the first moment it may come
    body_seconds: float = 30.0  # the longest pause inside a body
    connections: int = 64


def _timed_protocol(limits: HttpLimits) -> type:
    """uvicorn's h11 protocol with the limits above (uvicorn has a keep-alive timeout only)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Timed(H11Protocol):
        _timer: asyncio.TimerHandle | None = None
        _waiting: str = ""  # "head", "body" or "" (the app has the request; its answer has no limit)

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > limits.connections:
                transport.close()
                return
            self._wait("head")

        def connection_lost(self, exc: Exception | None) -> None:
            self._wait("")
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._wait("")  # uvicorn's keep-alive timer runs until the next request's first byte

        def _watch(self) -> None:
            cycle = self.cycle
            if cycle is None or cycle.response_complete:
                if self._waiting != "head":
                    self._wait("head")  # not moved by more bytes: a head sent byte by byte still ends
            elif cycle.more_body:
                self._wait("body")  # each piece of the body gives the next one its time again
            else:
                self._wait("")

        def _wait(self, what: str) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._waiting = what
            if what and not self.transport.is_closing():
                seconds = limits.header_seconds if what == "head" else limits.body_seconds
                self._timer = self.loop.call_later(seconds, self._expired)

        def _expired(self) -> None:
            self._timer = None
            if not self.transport.is_closing():
                self.transport.close()

    return Timed


def server_config(app: Any, host: str, port: int, limits: HttpLimits | None = None) -> Any:
    """The uvicorn configuration `serve_http` runs: `app` on HOST:PORT with the limits."""
    import uvicorn  # comes with the mcp package; loaded only for --http

    return uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="on", http=_timed_protocol(limits or HttpLimits())
    )


class BearerGate:
    """ASGI middleware: a request without the bearer token gets 401 and never reaches `app`."""

    def __init__(self, app: Any, token: str) -> None:
        if len(token) < MIN_TOKEN:  # an empty token would let `Authorization: Bearer` in
            raise ValueError(f"a bearer token has at least {MIN_TOKEN} characters")
        self.app = app
        self.token = token.encode()

    def allowed(self, scope: dict[str, Any]) -> bool:
        given = b""
        for name, value in scope.get("headers", ()):
            if name.lower() == b"authorization":
                given = value
                break
        scheme, _, token = given.partition(b" ")
        matches = hmac.compare_digest(token.strip(), self.token)  # in constant time, whatever the scheme
        return matches and scheme.lower() == b"bearer"  # the scheme's name is case-blind (RFC 9110)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket") or self.allowed(scope):
            await self.app(scope, receive, send)  # lifespan passes: it starts the SDK's session manager
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = b'{"error": "unauthorized: send the header Authorization: Bearer TOKEN, with the token workbench mcp printed or read from its --token-file"}'
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="workbench"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def serve_http(server: Any, host: str, port: int, token: str, token_file: str | None, announce: str) -> None:
    """Run `server` (an `MCPServer`) on HOST:PORT behind the bearer gate until interrupted; a token
    made here is printed, one read from a file is not."""
    import uvicorn  # comes with the mcp package; loaded only for --http

    app: Any = BearerGate(server.streamable_http_app(streamable_http_path=PATH, host=host), token)
    if is_loopback(host):
        app = LocalOnly(app)
    shown = f"[{host}]" if ":" in host else host
    print(f"{announce} at http://{shown}:{port}{PATH}", file=sys.stderr)
    if token_file:
        print(f"workbench mcp: the token is the one in {token_file}", file=sys.stderr, flush=True)
    else:
        print(f"workbench mcp: token {token}", file=sys.stderr, flush=True)
    uvicorn.Server(server_config(app, host, port)).run()
