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
network. On loopback the SDK also refuses requests whose `Host` or `Origin` is not local (DNS
rebinding); that protection does not apply to a remote host.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
import sys
from pathlib import Path
from typing import Any

from ..core.model import RefusedError

__all__ = [
    "BearerGate",
    "MIN_TOKEN",
    "check_host",
    "is_loopback",
    "new_token",
    "parse_address",
    "read_token",
    "serve_http",
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

    app = BearerGate(server.streamable_http_app(streamable_http_path=PATH, host=host), token)
    shown = f"[{host}]" if ":" in host else host
    print(f"{announce} at http://{shown}:{port}{PATH}", file=sys.stderr)
    if token_file:
        print(f"workbench mcp: the token is the one in {token_file}", file=sys.stderr, flush=True)
    else:
        print(f"workbench mcp: token {token}", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    uvicorn.Server(config).run()
