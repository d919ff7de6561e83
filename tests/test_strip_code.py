"""`strip_code` blanks what the plain line-by-line scan and the span pattern blanked.

Code is blanked before any reader of the prose looks for links, so a change in what it blanks would
move every link read. It is now done by one scan for fence lines and substring searches from each
backtick; here it is held to the plain version it replaced (kept below as written then), on
scrambled texts of backticks, tildes, indents and line breaks and on every Markdown file of the
corpora (those skipped, with the reason, where the corpora are absent).
"""

from __future__ import annotations

import random
import re

import pytest

from workbench.core.flavours.base import strip_code
from tests.test_corpora import CORPORA

_PLAIN_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_PLAIN_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


def plain_strip_code(text: str) -> str:
    """The reading as it was: a pattern at each line for the fences, one with a backreference for spans."""
    if "`" not in text and "~~~" not in text:
        return text
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        match = _PLAIN_FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            out.append("")
        elif fence is not None:
            if (
                match
                and match.group(1)[0] == fence[0]
                and len(match.group(1)) >= len(fence)
                and not line.strip()[len(match.group(1)) :].strip()
            ):
                fence = None
            out.append("")
        else:
            out.append(line)
    return _PLAIN_SPAN.sub(lambda m: " " * len(m.group(0)), "\n".join(out))


PIECES = (
    "`", "``", "```", "````", "~", "~~~", "~~~~", "\n", "\r\n", " ", "   ", "    ", "\t", "\u00a0", "\x0b",
    "a", "word", "x`y", "```py", "~~~ sh", "[link](a.md)", "ADR-7", " `", "` ", "\n```\n", "\n~~~~\n", "#",
)  # fmt: skip


def scrambled(seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 60)))


def test_code_is_blanked_as_the_plain_scan_blanked_it():
    for seed in range(20000):
        text = scrambled(seed)
        assert strip_code(text) == plain_strip_code(text), repr(text)


@pytest.mark.parametrize(
    "text",
    [
        "``a`",  # a shorter run than the opening one closes nothing: the span starts inside the run
        "``a```b",  # the closing run may be part of a longer one
        "`` ` ``",
        "```\ncode `x`\n```\nafter `y`",
        "  ~~~~\ncode\n~~~ \nnot closed by the shorter fence\n~~~~~\nafter",
        "```\nnever closed\n[a](b.md)",
        "```\r\n`x`\r\n```\r\n`y`",
        "text ``` in a line\n```\nfence\n```",
    ],
)
def test_the_hard_cases_of_spans_and_fences(text):
    assert strip_code(text) == plain_strip_code(text)


def test_every_file_of_the_corpora_is_blanked_as_before():
    files = sorted(CORPORA.glob("**/*.md")) if CORPORA.is_dir() else []
    if not files:
        pytest.skip(f"no corpora under {CORPORA} (set WORKBENCH_CORPORA to the folder holding them)")
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")
        assert strip_code(text) == plain_strip_code(text), path
