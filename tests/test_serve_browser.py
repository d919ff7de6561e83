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
import shutil
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
def server(sample_copy, tmp_path):
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


def open_by_search(page: Page, query: str, title: str) -> None:
    page.keys("/")
    page.type(query)
    page.wait_for(lambda text: title in text)
    page.wait_quiet()
    page.keys("Escape")  # from the search box to the results
    page.keys("Enter")
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
    # Nothing came from anywhere but this server: no font CDN, no script from elsewhere.
    assert page.requests and all(url.startswith(server.base) for url in page.requests), page.requests
    if target := os.environ.get("WORKBENCH_SCREENSHOT"):
        page.page.screenshot(path=str(Path(target)))
