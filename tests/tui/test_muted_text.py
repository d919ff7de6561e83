"""Muted text in a `Content` style must be written `$text 60%`: Textual draws `$text-muted` in a
`Content` style at full contrast (white on a dark theme), though in CSS it blends as meant."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import Static

import workbench.tui

TUI = Path(workbench.tui.__file__).parent
IN_A_STRING = re.compile(r"[\"'][^\"']*\$text-muted[^\"']*[\"']")


def test_no_content_style_in_the_tui_says_text_muted():
    found = [
        f"{path.relative_to(TUI)}:{number}"
        for path in TUI.rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if IN_A_STRING.search(line)
    ]
    assert not found, f"use '$text 60%' in Content styles: {found}"


class Muted(App):
    CSS = "#css { color: $text-muted; }"

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("muted", "$text 60%"), id="content")
        yield Static("muted", id="css")


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_text_60_percent_in_content_looks_as_text_muted_in_css(theme):
    app = Muted()
    async with app.run_test(size=(20, 3)) as pilot:
        app.theme = theme
        await pilot.pause()
        content, css = (app.query_one(f"#{name}", Static) for name in ("content", "css"))
        colour_of = [next(iter(widget.render_line(0))).style.color for widget in (content, css)]
    assert colour_of[0] == colour_of[1]
