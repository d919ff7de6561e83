"""`workbench serve` in a real browser: Debian's chromium, driven by Playwright, on a real server
whose every page runs a real `workbench tui` process over the vault. What the app shows is read
from the terminal output the page's WebSocket received (the page draws on a canvas). Skipped,
saying why, where no chromium can be had.

`WORKBENCH_SCREENSHOT=docs/browser.png pytest tests/test_serve_browser.py -k keyboard` takes the
screenshot shown in docs/browser.md again.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import pytest
from browser import TOKEN, Browser, Page, chromium, served
from mcp_client import connected

from workbench import Vault

pytestmark = pytest.mark.slow

FASTAPI = "decisions/mem-decision-api-fastapi.md"
WEASYPRINT = "decisions/mem-decision-pdf-weasyprint.md"


@pytest.fixture
def executable() -> str:
    return chromium()


@pytest.fixture
def playwright(executable):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        yield driver


@pytest.fixture
def server(sample_copy, tmp_path, executable):  # no browser, no server started for nothing
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    Vault.open(sample_copy)  # the derived store built once, as `serve` does before it listens
    with served(sample_copy, token_file) as running:
        yield running


@pytest.fixture
def browsers(playwright, executable):
    opened: list[Browser] = []

    def open_one() -> Browser:
        opened.append(Browser(playwright, executable))
        return opened[-1]

    yield open_one
    for each in opened:
        each.close()


def status(path: Path) -> str:
    return next(line for line in path.read_text("utf-8").splitlines() if line.startswith("status:"))


def first_page(browser: Browser, server) -> tuple[Page, float]:
    """A page opened with the token's link; the seconds until its first titles were drawn."""
    page = browser.page()
    start = time.monotonic()
    response = page.page.goto(f"{server.base}?token={TOKEN}")
    assert response is not None and response.status == 200
    assert "token" not in page.page.url  # the link's token became a cookie and left the address bar
    page.wait_for(lambda text: "Tern memory vault index" in text and "documents" in text)
    return page, time.monotonic() - start


def open_by_search(page: Page, query: str, title: str, down: int = 0) -> None:
    """Search, then open the result `down` rows below the first."""
    page.keys("/")
    page.wait_for(lambda text: "esc Results" in text)  # the search box has the focus: letters are letters
    page.type(query)
    page.wait_for(lambda text: title in text)
    page.wait_quiet()
    page.keys("Escape", *["ArrowDown"] * down, "Enter")  # from the search box to the results, then open
    page.wait_for(lambda text: text.count(title) >= 2)  # in the results and as the open document's title
    page.wait_quiet()


def deprecate_through_the_preview(page: Page) -> None:
    page.keys("l")
    page.wait_for(lambda text: "deprecated" in text)
    page.keys("ArrowDown", "Enter")  # one step from active: deprecated
    page.wait_for(lambda text: "status: deprecated" in text)  # the preview's diff
    page.wait_quiet()
    page.keys("y")


def test_by_keyboard_in_the_page_search_open_and_change_a_status(server, browsers, sample_copy):
    browser = browsers()
    page, seconds = first_page(browser, server)
    print(f"first titles in the page after {seconds:.2f} s")
    assert len(server.children()) == 1  # this page's own app
    open_by_search(page, "fastapi", "Use FastAPI for the HTTP API")
    deprecate_through_the_preview(page)
    deadline = time.monotonic() + 30
    while status(sample_copy / FASTAPI) != "status: deprecated" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert status(sample_copy / FASTAPI) == "status: deprecated"
    page.wait_for(lambda text: "decision · deprecated" in text)
    assert "deprecated" in (sample_copy / "log.md").read_text("utf-8").splitlines()[-1]
    # `e` would run an editor with no terminal to draw on, and the app would wait for it for good.
    page.keys("e")
    page.wait_for(lambda text: "The editor did not start" in text)
    # Nothing came from anywhere but this server: no font CDN, no script from elsewhere.
    assert page.requests and all(url.startswith(server.base) for url in page.requests), page.requests
    if target := os.environ.get("WORKBENCH_SCREENSHOT"):
        page.page.screenshot(path=str(Path(target)))


QUOKKA = {
    "type": "note",
    "title": "Quokka review of the API and PDF choices",
    "body": "Both choices were read again in the quokka review; nothing to change yet.",
    "links": ["related_to:mem-decision-api-fastapi", "related_to:mem-decision-pdf-weasyprint"],
}


def agent_writes(vault: Path, go: threading.Event, done: list[dict]) -> None:
    """An agent over MCP (a real client on stdio): ready, then creates its note when told."""

    async def work() -> None:
        async with connected(vault, "claude-code") as agent:
            await agent.call("memory_search", query="quokka review of the API and PDF choices")
            go.wait(60)
            done.append(await agent.call("memory_write", **QUOKKA, decision="create"))

    asyncio.run(work())


def test_two_browsers_and_an_agent_write_at_once_and_see_each_other(server, browsers, sample_copy):
    """Two people, each in a browser of their own, deprecate a decision each while an agent creates
    a note linking both: all three changes land, and each page shows what the others did."""
    one, _ = first_page(browsers(), server)
    two, _ = first_page(browsers(), server)
    assert len(server.children()) == 2  # an app per page
    assert "67 documents" in one.text() and "67 documents" in two.text()
    open_by_search(one, "fastapi weasyprint", "Use FastAPI for the HTTP API", down=1)
    open_by_search(two, "fastapi weasyprint", "Render invoice PDFs with WeasyPrint")
    go, done = threading.Event(), []
    agent = threading.Thread(target=agent_writes, args=(sample_copy, go, done))
    agent.start()
    for page in (one, two):  # both previews up, then every write at once
        page.keys("l")
        page.wait_for(lambda text: "deprecated" in text)
        page.keys("ArrowDown", "Enter")
        page.wait_for(lambda text: "status: deprecated" in text)
        page.wait_quiet()
    time.sleep(3)  # the agent connected and searched meanwhile
    go.set()
    one.keys("y")
    two.keys("y")
    agent.join(60)
    assert done and done[0]["written"], done
    note = Vault.open(sample_copy).get(done[0]["id"])
    assert {link.target for link in note.links} == {"mem-decision-api-fastapi", "mem-decision-pdf-weasyprint"}
    for path in (FASTAPI, WEASYPRINT):  # each page writes in its own app, on its own time
        deadline = time.monotonic() + 30
        while status(sample_copy / path) != "status: deprecated" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert status(sample_copy / path) == "status: deprecated", path
    wanted = ("mem-decision-api-fastapi", "mem-decision-pdf-weasyprint", done[0]["id"])
    deadline = time.monotonic() + 30  # a change's line goes into the log just after its files
    while not all(w in (sample_copy / "log.md").read_text("utf-8") for w in wanted) and time.monotonic() < deadline:
        time.sleep(0.1)
    log = (sample_copy / "log.md").read_text("utf-8")
    assert all(w in log for w in wanted), log
    # Each page shows, without a key pressed, the other page's change (the other decision's row in
    # its results) and the agent's note (counted in the header, 68 documents where there were 67,
    # and a backlink in the links pane of the document it has open).
    for page in (one, two):
        page.wait_for(
            lambda text: text.count("decision · deprecated") == 2 and "68 documents" in text and "Quokka review" in text
        )


def test_without_the_token_the_page_and_its_websocket_are_refused_and_no_app_starts(server, browsers):
    page = browsers().page()
    response = page.page.goto(server.base)
    assert response is not None and response.status == 401
    assert "unauthorized" in page.page.content()
    response = page.page.goto(f"{server.base}?token=not-the-token-0123456789")
    assert response is not None and response.status == 401
    # The page's own script, were it served, would open this socket: the browser's attempt is refused too.
    opened = page.page.evaluate(
        """url => new Promise(done => {
            const socket = new WebSocket(url);
            socket.onopen = () => done("open");
            socket.onerror = () => done("refused");
        })""",
        f"ws://127.0.0.1:{server.port}/ws?width=80&height=24",
    )
    assert opened == "refused"
    time.sleep(1)
    assert server.children() == []
