"""`workbench serve`: the TUI in a browser, through textual-serve.

textual-serve (Textualize's package) does the work: its page draws a terminal (xterm.js) and
opens a WebSocket; for each WebSocket it starts the app as a subprocess with Textual's web driver
and carries keys one way and the screen the other. So each browser tab is its own `workbench tui`
process over the same vault, as several terminals would be: the vault's lock and writer keep
them, and any agent writing at the same time, from losing each other's changes, and each app's
watcher shows the others' writes.

What this module changes in it: every request goes through the door (`door.py`: token, Host,
Origin), the page is our copy of its template with the fonts served from the package instead of
a font CDN, the static files are served without a directory listing, and the app's command is
built from this Python and the vault's resolved path (quoted: textual-serve runs it in a shell).
"""

from __future__ import annotations

import asyncio
import logging
import shlex
import socket
import sys
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.server import Server, to_int

from .apps import App
from .door import door

__all__ = ["WorkbenchServer", "app_command", "serve"]

TEMPLATES = Path(__file__).with_name("templates")


def app_command(vault: Path, flavour: str | None) -> str:
    """The shell command textual-serve runs for each connection: this Python's workbench, on `vault`.
    `exec`: the shell becomes the app, so the process the server waits for, and signals if it hangs,
    is the app itself (dash would otherwise stay as its parent, and only the shell be signalled)."""
    args = [sys.executable, "-m", "workbench.cli", "--vault", str(vault)]
    if flavour:
        args += ["--flavour", flavour]
    return "exec " + shlex.join([*args, "tui"])


class WorkbenchServer(Server):
    """textual-serve's server behind the door, with its page and routes as described above."""

    def __init__(self, vault: Path, flavour: str | None, host: str, port: int, token: str, allow_remote: bool) -> None:
        super().__init__(app_command(vault, flavour), host=host, port=port, title=f"workbench · {vault.name}")
        self.vault = vault
        self.token = token
        self.allow_remote = allow_remote
        self.templates_path = TEMPLATES
        self.apps: set[App] = set()
        self.handlers: set[asyncio.Task[Any]] = set()

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[door(self.token, self.port, self.allow_remote)])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path), autoescape=True)
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_app, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.get("/favicon.ico", self.handle_no_icon),
                web.static("/static", self.statics_path, show_index=False, name="static"),
            ]
        )
        app.on_shutdown.append(self.end_apps)
        return app

    async def handle_app(self, request: web.Request) -> web.StreamResponse:
        """textual-serve's WebSocket handler (one app process for the socket's life), with an app that
        is ended for good (`apps.App.end`) and remembered, so that stopping the server ends every app
        and waits for each process before the event loop closes."""
        websocket = web.WebSocketResponse(heartbeat=15)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        await websocket.prepare(request)

        async def close() -> None:  # when the app says it exits
            await websocket.close()

        app = App(
            self.command,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=close,
            download_manager=self.download_manager,
            debug=self.debug,
        )
        handler = asyncio.current_task()
        assert handler is not None
        self.apps.add(app)
        self.handlers.add(handler)
        try:
            await app.start(width, height)
            await self._process_messages(websocket, app)
        except asyncio.CancelledError:  # the server is stopping: `end_apps` waits for the app to end
            await websocket.close()
        except Exception as error:  # a page's trouble is said, and ends that page only
            logging.getLogger("textual-serve").exception(error)
        finally:
            try:
                await app.end()
            finally:
                self.apps.discard(app)
                self.handlers.discard(handler)
        return websocket

    async def end_apps(self, app: web.Application) -> None:
        """On shutdown: every open page's app ended, each process waited for."""
        apps, handlers = list(self.apps), list(self.handlers)
        for task in handlers:
            task.cancel()
        await asyncio.gather(*handlers, *(each.end() for each in apps), return_exceptions=True)

    @aiohttp_jinja2.template("app_index.html")
    async def handle_index(self, request: web.Request) -> dict[str, Any]:
        """The page, its addresses relative to itself (so any name the server is reached by works)."""
        try:
            font_size = min(max(int(request.query.get("fontsize", "16")), 6), 48)
        except ValueError:
            font_size = 16
        return {"font_size": font_size, "config": {"static": {"url": "static/"}}, "application": {"name": self.title}}

    async def handle_no_icon(self, request: web.Request) -> web.Response:
        return web.Response(status=204)  # a browser asks; none is shipped, and a 404 would be noise in its console

    def serve_on(self, listening: socket.socket, debug: bool = False) -> None:
        """Run on `listening` until interrupted (Ctrl+C or SIGTERM); each open app is told to quit on the way out."""
        self.debug = debug
        # Plain lines on stderr: textual-serve's own logging prints a traceback's local values, the token among them.
        logging.basicConfig(level=logging.WARNING, format="workbench serve: %(message)s", stream=sys.stderr)
        web.run_app(self._make_app(), sock=listening, access_log=None, print=None)


def serve(
    vault: Path, flavour: str | None, host: str, port: int, token: str, token_file: str | None, allow_remote: bool
) -> int:
    # Bound first: an address in use is said (OSError, exit 2) before a link is printed that leads elsewhere.
    listening = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    shown = f"[{host}]" if ":" in host else host
    print(f"workbench serve: {vault} at http://{shown}:{port}/", file=sys.stderr)
    if token_file:
        print(
            f"workbench serve: the token is the one in {token_file}; open http://{shown}:{port}/?token=TOKEN",
            file=sys.stderr,
        )
    else:
        print(f"workbench serve: token {token}", file=sys.stderr)
        print(f"workbench serve: open http://{shown}:{port}/?token={token}", file=sys.stderr)
    print("workbench serve: Ctrl+C stops it", file=sys.stderr, flush=True)
    WorkbenchServer(vault, flavour, host, port, token, allow_remote).serve_on(listening)
    return 0
