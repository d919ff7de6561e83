"""The door in front of `workbench serve`: every request, the page, its scripts and fonts and the
WebSocket that runs an app, passes here first, and is refused before any handler (so before any
app process starts) unless it carries the token and comes from where it should.

The token rules are those of `workbench mcp --http` (`agents/http.py`): the same token, made or
read the same way, compared in constant time; `Authorization: Bearer TOKEN` is accepted as there.
A browser cannot send that header when it follows a link, so the first visit may carry the token
in the address (`/?token=TOKEN`): the answer sets it as an HttpOnly, SameSite=Strict cookie and
sends the browser on to the same address without it, so the token stays out of the address bar
and out of the page's reach. The cookie's name carries the port: two servers on one machine keep
their own.

Host and Origin are checked too. Without `--allow-remote` the `Host` must be a loopback address
(as the MCP SDK checks on loopback): a web page whose name was made to point at 127.0.0.1 (DNS
rebinding) is refused, token or not. An `Origin`, when the browser sends one (always on a
WebSocket), must be the very origin the request was sent to: another site, or another local
server on another port, cannot drive the app with the person's cookie.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from aiohttp import hdrs, web
from aiohttp.typedefs import Middleware

from ..agents.http import MIN_TOKEN

__all__ = ["cookie_name", "door", "local_host_header", "same_origin"]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

UNAUTHORIZED = (
    "unauthorized: open the link `workbench serve` printed (it ends in ?token=...), "
    "or send the header Authorization: Bearer TOKEN\n"
)
# The page's own files only: nothing is fetched from anywhere else, whatever a link's query says
# (textual-serve's script fetches a `?ping=` address it is given).
POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "font-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; "
    "form-action 'none'; base-uri 'none'"
)


def cookie_name(port: int) -> str:
    return f"workbench-token-{port}"


def local_host_header(value: str) -> bool:
    """A `Host` header naming this machine: localhost or a loopback address, any port."""
    try:
        host = urlsplit(f"//{value}").hostname
    except ValueError:
        return False
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def same_origin(origin: str, host: str) -> bool:
    """The request's `Origin` is the address it was sent to (scheme http or https, same host and port)."""
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc.lower() == host.lower()


def _refused(status: int, text: str) -> web.Response:
    response = web.Response(status=status, text=text)
    if status == 401:
        response.headers[hdrs.WWW_AUTHENTICATE] = 'Bearer realm="workbench"'
    return response


def door(token: str, port: int, allow_remote: bool) -> Middleware:
    """aiohttp middleware letting in only requests with `token` from the right Host and Origin."""
    if len(token) < MIN_TOKEN:  # an empty token would let an empty cookie in
        raise ValueError(f"a token has at least {MIN_TOKEN} characters")
    secret = token.encode()
    cookie = cookie_name(port)

    def matches(given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.strip().encode(), secret)

    def bearer(request: web.Request) -> str | None:
        scheme, _, value = request.headers.get(hdrs.AUTHORIZATION, "").partition(" ")
        return value if scheme.lower() == "bearer" else None

    @web.middleware
    async def gate(request: web.Request, handler: Handler) -> web.StreamResponse:
        host = request.headers.get(hdrs.HOST, "")
        if not allow_remote and not local_host_header(host):
            return _refused(421, f"refused: Host {host!r} is not this machine's loopback address\n")
        origin = request.headers.get(hdrs.ORIGIN)
        if origin is not None and not same_origin(origin, host):
            return _refused(403, f"refused: a request from {origin!r} to this server\n")
        websocket = request.headers.get(hdrs.UPGRADE, "").lower() == "websocket"
        in_address = request.query.get("token")
        if in_address is not None and not websocket:
            if not matches(in_address):
                return _refused(401, UNAUTHORIZED)
            rest = request.rel_url.without_query_params("token").query_string
            # Relative, so that behind a proxy that serves it under a path the browser stays there.
            place = request.path.rsplit("/", 1)[-1] or "./"
            onward = web.Response(status=303, headers={hdrs.LOCATION: place + (f"?{rest}" if rest else "")})
            onward.set_cookie(cookie, token, httponly=True, samesite="Strict", path="/")
            onward.headers["Referrer-Policy"] = "no-referrer"
            return onward
        if not (matches(bearer(request)) or matches(request.cookies.get(cookie)) or matches(in_address)):
            return _refused(401, UNAUTHORIZED)
        response = await handler(request)
        if not websocket:
            response.headers["Content-Security-Policy"] = POLICY
            response.headers["Referrer-Policy"] = "no-referrer"
            response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    return gate
