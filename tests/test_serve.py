"""`workbench serve`'s door, without a browser: a real server process on a free loopback port,
asked by plain HTTP and WebSocket clients. Every request needs the token (header, cookie, or the
first visit's link, which becomes an HttpOnly cookie); Host and Origin are checked; a refused
WebSocket starts no app. The page asks for nothing outside the server."""

from __future__ import annotations

import asyncio
import http.client
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest
from browser import TOKEN, served
from mcp_client import ROOT

from workbench.web.door import cookie_name, local_host_header, same_origin

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import shutil

    root = tmp_path_factory.mktemp("serve")
    vault = root / "vault"
    shutil.copytree(ROOT / "sample_vault", vault, ignore=shutil.ignore_patterns(".workbench"))
    token_file = root / "token"
    token_file.write_text(TOKEN + "\n")
    with served(vault, token_file) as running:
        yield running


def ask(server, path: str = "/", **headers: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", path, headers={k.replace("_", "-"): v for k, v in headers.items()})
    response = connection.getresponse()
    response.body = response.read()  # type: ignore[attr-defined]
    connection.close()
    return response


BEARER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.mark.parametrize(
    "path", ["/", "/static/js/textual.js", "/static/fonts/RobotoMono-VariableFont_wght.ttf", "/ws"]
)
def test_every_path_without_the_token_is_401(server, path):
    assert ask(server, path).status == 401
    assert ask(server, path, Authorization="Bearer another-token-0123456789").status == 401
    assert ask(server, path, Cookie=f"{cookie_name(server.port)}=another-token-0123456789").status == 401
    assert ask(server, path, Authorization=f"Basic {TOKEN}").status == 401


def test_the_links_token_becomes_an_httponly_cookie_and_leaves_the_address(server):
    assert ask(server, "/?token=not-the-token-0123456789").status == 401
    first = ask(server, f"/?fontsize=18&token={TOKEN}")
    assert first.status == 303 and first.getheader("Location") == "./?fontsize=18"
    cookie = first.getheader("Set-Cookie")
    assert cookie.startswith(f"{cookie_name(server.port)}={TOKEN};") and "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie and "Path=/" in cookie
    page = ask(server, "/?fontsize=18", Cookie=f"{cookie_name(server.port)}={TOKEN}")
    assert page.status == 200 and b'data-font-size="18"' in page.body
    assert ask(server, "/static/css/xterm.css", Cookie=f"{cookie_name(server.port)}={TOKEN}").status == 200
    assert ask(server, "/static/js/textual.js", **BEARER).status == 200


def test_the_page_asks_for_nothing_outside_the_server(server):
    page = ask(server, "/", **BEARER)
    html = page.body.decode()
    assert re.findall(r"https?://[^\s\"']+", html) == ["http://www.w3.org/2000/svg"]  # an XML namespace, not a fetch
    assert "fonts.googleapis" not in html and 'src="static/js/textual.js"' in html
    policy = page.getheader("Content-Security-Policy")
    assert "default-src 'self'" in policy and "connect-src 'self'" in policy and "font-src 'self'" in policy
    assert ask(server, "/static/", **BEARER).status in (403, 404)  # no listing of the package's files


@pytest.mark.parametrize("host", ["evil.example:80", "wb.attacker.test", "10.0.0.5:8000", ""])
def test_a_host_that_is_not_loopback_is_refused_even_with_the_token(server, host):
    assert ask(server, "/", Host=host, **BEARER).status == 421


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1", "http://localhost:{port}"])
def test_a_request_from_another_origin_is_refused_even_with_the_token(server, origin):
    response = ask(server, "/", Origin=origin.format(port=server.port), **BEARER)
    assert response.status == 403
    same = ask(server, "/", Origin=f"http://127.0.0.1:{server.port}", **BEARER)
    assert same.status == 200


async def socket_attempt(server, headers: dict[str, str]) -> int:
    """The status of a WebSocket handshake on /ws (101 when an app was started, then closed)."""
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(
                f"http://127.0.0.1:{server.port}/ws?width=80&height=24", headers=headers
            ) as ws:
                await ws.receive(timeout=30)  # the app's first bytes
                return 101
        except aiohttp.WSServerHandshakeError as error:
            return error.status


def test_a_websocket_without_the_token_starts_no_app_and_with_it_starts_one(server):
    origin = {"Origin": f"http://127.0.0.1:{server.port}"}
    assert asyncio.run(socket_attempt(server, origin)) == 401
    assert (
        asyncio.run(socket_attempt(server, {**origin, "Cookie": f"{cookie_name(server.port)}=wrong-token-0123456789"}))
        == 401
    )
    assert asyncio.run(socket_attempt(server, {"Origin": "http://evil.example", **BEARER})) == 403
    assert server.children() == []
    cookie = {**origin, "Cookie": f"{cookie_name(server.port)}={TOKEN}"}
    assert asyncio.run(socket_attempt(server, cookie)) == 101
    deadline = time.monotonic() + 30
    while server.children() and time.monotonic() < deadline:  # the socket closed: its app quits
        time.sleep(0.2)
    assert server.children() == []


def run_cli(vault, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "workbench.cli", "--vault", str(vault), "serve", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def test_an_address_others_can_reach_needs_allow_remote_and_a_bad_token_file_is_named(sample_copy, tmp_path):
    result = run_cli(sample_copy, "0.0.0.0:8799")
    assert result.returncode == 2 and "--allow-remote" in result.stderr and "Traceback" not in result.stderr
    short = tmp_path / "token"
    short.write_text("abc\n")
    result = run_cli(sample_copy, "127.0.0.1:8799", "--token-file", str(short))
    assert result.returncode == 2 and str(short) in result.stderr
    result = run_cli(sample_copy, "no-port-here")
    assert result.returncode == 2 and "HOST:PORT" in result.stderr
    with socket.create_server(("127.0.0.1", 0)) as taken:  # another program has the port
        result = run_cli(sample_copy, f"127.0.0.1:{taken.getsockname()[1]}")
    assert result.returncode == 2 and "in use" in result.stderr and "open http" not in result.stderr, result.stderr


def test_host_and_origin_rules():
    assert local_host_header("127.0.0.1:8000") and local_host_header("localhost") and local_host_header("[::1]:80")
    assert not local_host_header("evil.example:8000") and not local_host_header("") and not local_host_header("[zz")
    assert not local_host_header("127.0.0.1.evil.example")
    assert same_origin("http://127.0.0.1:8000", "127.0.0.1:8000") and same_origin("https://wb.example", "wb.example")
    assert not same_origin("http://127.0.0.1:8001", "127.0.0.1:8000") and not same_origin("null", "127.0.0.1:8000")
    assert not same_origin("file://127.0.0.1:8000", "127.0.0.1:8000")


def test_with_allow_remote_any_host_is_served_but_the_token_and_origin_still_hold(sample_copy, tmp_path):
    """Behind a proxy the Host is the proxy's public name: `--allow-remote` serves it; the token
    and the Origin rule still hold."""
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    with served(sample_copy, token_file, "--allow-remote") as remote:
        assert ask(remote, "/", Host="wb.example.org", **BEARER).status == 200
        assert ask(remote, "/", Host="wb.example.org").status == 401
        assert ask(remote, "/", Host="wb.example.org", Origin="https://wb.example.org", **BEARER).status == 200
        assert ask(remote, "/", Host="wb.example.org", Origin="https://evil.example", **BEARER).status == 403


def test_the_apps_command_is_quoted_for_the_shell_textual_serve_runs_it_in(tmp_path):
    from workbench.web.server import app_command

    odd = tmp_path / "a vault; $(touch pwned) `id`"
    command = app_command(odd, "dendron")
    assert shlex.split(command) == [
        "exec",
        sys.executable,
        "-m",
        "workbench.cli",
        "--vault",
        str(odd),
        "--flavour",
        "dendron",
        "tui",
    ]
    echoed = subprocess.run(
        ["sh", "-c", command.replace(sys.executable, "echo", 1)], capture_output=True, text=True, cwd=tmp_path
    )
    assert echoed.stdout.strip().endswith(f"--vault {odd} --flavour dendron tui") and not (tmp_path / "pwned").exists()


def running(pid: int) -> bool:
    """The process still runs (a zombie has ended: only its exit status waits to be read)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def stop_with_a_page(server, when: str) -> list[int]:
    """Stop the server (SIGTERM, as Ctrl+C or a service manager does) while a page's app is just
    started, open and drawn, or its page just closed; the apps the server had started."""
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(f"http://127.0.0.1:{server.port}/ws?width=80&height=24", headers=BEARER) as ws:
            deadline = time.monotonic() + 30
            while not server.children() and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            apps = server.children()
            assert apps, "the socket started no app"
            if when != "started":
                await ws.receive(timeout=30)  # the app's first bytes
            if when != "closed":
                server.process.terminate()
        if when == "closed":  # the page went; its app is quitting when the server is told to stop
            server.process.terminate()
    await asyncio.to_thread(server.process.wait, 60)
    return apps


@pytest.mark.parametrize("when", ["started", "drawn", "closed", "closed", "closed"])
def test_stopping_the_server_ends_every_app_before_it_exits_and_says_no_traceback(sample_copy, tmp_path, when):
    """Each page's app runs as a subprocess of the server. Stopping the server waits for every one
    to end: none outlives the server, and the server's event loop does not close with an app's
    process still running (asyncio's child watcher would find the loop closed when the process
    exited, and the transport's finalizer print "Event loop is closed" with a traceback, which
    `served` looks for in what the server said)."""
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    with served(sample_copy, token_file) as server:
        apps = asyncio.run(stop_with_a_page(server, when))
        assert server.process.returncode == 0
        assert [pid for pid in apps if running(pid)] == []


async def end_an_app_that_will_not_quit(command: str) -> int | None:
    """Start `command` as a page's app and end it; its exit status."""
    from textual_serve.download_manager import DownloadManager

    from workbench.web.apps import App

    async def nowhere(data: object = None) -> None:
        pass

    app = App(command, write_bytes=nowhere, write_str=nowhere, close=nowhere, download_manager=DownloadManager())
    await app.start(80, 24)
    process = app._process
    assert process is not None
    await asyncio.gather(app.end(), app.end())  # the page's handler and the server's shutdown at once
    return process.returncode


def test_an_app_that_does_not_quit_is_terminated_then_killed(monkeypatch):
    """An app that reads no "quit" is sent SIGTERM after the wait; one that ignores SIGTERM too is
    killed: stopping the server is never held up for good by a hung app."""
    import signal

    from workbench.web import apps

    monkeypatch.setattr(apps, "QUIT_SECONDS", 0.5)
    monkeypatch.setattr(apps, "SIGNAL_SECONDS", 0.5)
    assert asyncio.run(end_an_app_that_will_not_quit("exec sleep 60")) == -signal.SIGTERM
    # SIGTERM ignored by the shell, and so by what it becomes (an ignored signal stays ignored across exec).
    assert asyncio.run(end_an_app_that_will_not_quit("trap '' TERM; exec sleep 60")) == -signal.SIGKILL
