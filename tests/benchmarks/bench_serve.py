"""What a person waits for in the browser: from following `workbench serve`'s link to the first
titles drawn in the page.

Run: python -m tests.benchmarks.bench_serve [VAULT] [--generated SIZE] [--runs N]
     (default: the bundled sample, 5 runs; needs chromium, as tests/test_serve_browser.py does)

One server on a copy of the vault (opened once first, so the derived store is in place, as from
the second launch on). Each run is a fresh headless chromium with a fresh profile, timed from the
request for the link to the first titles on the page's screen (read from the terminal output its
WebSocket received, as the browser tests do). That covers the redirect that turns the link's
token into a cookie, the page and its script and fonts, the WebSocket, the app's own process
(Python, imports, the vault read) and its first paint. Beside it: the page's load event, and
from then to the first titles (the app process's share, mostly).

A benchmark, not a test: machines are noisy; compare figures measured in one run.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the browser tests' helpers

from browser import TOKEN, Browser, served  # noqa: E402

from workbench import Vault  # noqa: E402

from .generate import generate_vault  # noqa: E402


# The results' border counts the titles listed: "─ 67/67 ─", or "─ first 200 ─" on a larger vault.
LISTED = re.compile(r"─ (?:(\d+)/\1|first \d+) ─")


def one_run(playwright, executable: str, base: str) -> tuple[float, float]:
    browser = Browser(playwright, executable)
    try:
        page = browser.page()
        start = time.monotonic()
        page.page.goto(f"{base}?token={TOKEN}", wait_until="load")
        loaded = time.monotonic() - start
        page.wait_for(lambda text: LISTED.search(text) is not None, seconds=60)
        return time.monotonic() - start, loaded
    finally:
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", nargs="?", type=Path)
    parser.add_argument("--generated", type=int, metavar="SIZE")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    executable = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(executable).exists():
        sys.exit("no chromium here: `apt-get install chromium`")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as scratch:
        vault = Path(scratch) / "vault"
        if args.generated:
            generate_vault(vault, args.generated)
            label = f"generated, {args.generated} documents"
        else:
            shutil.copytree(args.vault or ROOT / "sample_vault", vault, ignore=shutil.ignore_patterns(".workbench"))
            label = str(args.vault or "the bundled sample")
        Vault.open(vault)
        token_file = Path(scratch) / "token"
        token_file.write_text(TOKEN)
        with served(vault, token_file) as server, sync_playwright() as playwright:
            firsts, loads = [], []
            for _ in range(args.runs):
                first, loaded = one_run(playwright, executable, server.base)
                firsts.append(first)
                loads.append(loaded)
    print(f"workbench serve, {label}: {args.runs} runs, each a fresh chromium")
    for name, values in (
        ("link to first titles", firsts),
        ("link to page loaded", loads),
        ("page loaded to first titles", [f - l for f, l in zip(firsts, loads)]),
    ):
        print(
            f"{name:<28} median {statistics.median(values):.2f} s  best {min(values):.2f} s  worst {max(values):.2f} s"
        )


if __name__ == "__main__":
    main()
