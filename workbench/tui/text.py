"""Vault text made safe to show, and the few styled fragments every pane shares.

Titles and bodies are data written by agents and people: a title may read `[bold]x[/bold]` or carry
an escape sequence. Everything from a vault goes through `clean` (control characters become visible
`\\x1b`-style text, so they never reach the terminal) and is wrapped in `Content` pieces, never
parsed as markup.

Two readings help a person find their way in a document: the words of the search that opened it,
marked where they occur (`query_words`, `mark_words`), and dates some formats write as numbers
(Dendron's `created: 1636492098402`, milliseconds since 1970) shown as dates (`epoch_date`).

Muted text in a `Content` style is written `$text 60%`, never `$text-muted`: in CSS the theme's
`$text-muted` (`auto 60%`) blends into the background, but as a `Content` style it is drawn at full
contrast, white on dark and black on light, the opposite of muted.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Iterable
from typing import Any

from textual.content import Content

from ..core import Status

__all__ = [
    "wrap_at_joints",
    "DATE_KEYS",
    "clean",
    "epoch_date",
    "mark_words",
    "plain",
    "query_words",
    "shown_name",
    "status_badge",
    "status_style",
    "value_text",
]

DATE_KEYS = frozenset({"created", "updated", "created_at", "updated_at", "date", "modified"})
"""Frontmatter keys that hold a date in the formats the workbench reads."""

_EPOCH_MS = (100_000_000_000, 10_000_000_000_000)
"""Milliseconds since 1970 between 1973 and 2286: a number this size in a date field is no count."""

# C0 controls except tab and newline, DEL, and C1 controls (which include the 8-bit CSI).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """`text` with every control character shown as `\\xNN` instead of obeyed."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text.replace("\r\n", "\n"))


def shown_name(name: str) -> str:
    """A file or folder name as a terminal can show it: bytes that are not UTF-8 (held as
    surrogate escapes) written `\\xNN`, as `workbench check` names them, not as a lone surrogate."""
    try:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no file name's byte makes
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


def plain(text: str, style: str = "") -> Content:
    """Vault text as a `Content` that is shown literally, optionally in one style."""
    return Content.styled(clean(text), style) if style else Content(clean(text))


def status_style(status: str) -> str:
    """The theme variable that colours `status` (an unknown status gets the warning colour)."""
    return f"$status-{status}" if status in set(Status) else "$status-unknown"


def status_badge(status: str) -> Content:
    """`● active`, the dot and the word in the status's colour."""
    return Content.styled(f"● {clean(status) or 'no status'}", status_style(status))


def value_text(value: Any) -> str:
    """A frontmatter value in one readable line: lists joined, mappings as `key: value` pairs."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {value_text(v)}" for k, v in value.items()) or "—"
    if isinstance(value, list):
        return ", ".join(value_text(v) for v in value) or "—"
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if value is None or value == "":
        return "—"
    return clean(str(value))


def epoch_date(key: str, value: Any) -> str | None:
    """`2021-11-09 21:08 UTC` for a date field holding epoch milliseconds (as Dendron writes
    `created` and `updated`), None for anything else: the file keeps its number, only the
    reading changes."""
    if key not in DATE_KEYS or not isinstance(value, int) or isinstance(value, bool):
        return None
    if not _EPOCH_MS[0] <= value < _EPOCH_MS[1]:
        return None
    return dt.datetime.fromtimestamp(value / 1000, dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def query_words(query: str) -> tuple[str, ...]:
    """The words and phrases of a search worth marking in the document it opened: filters such as
    `type:decision` and left-out `-words` are not text to find, and words that only ask ("how",
    "the") would mark half the page unless the query has nothing else."""
    from ..core import QUESTION_WORDS, parse_query  # not at start: the first frame searches nothing

    parsed = parse_query(query)
    words = [w for w in parsed.words if w not in QUESTION_WORDS and len(w) > 1] or [
        w for w in parsed.words if len(w) > 1
    ]
    return tuple(dict.fromkeys([*parsed.phrases, *words]))


def mark_words(content: Content, words: Iterable[str], style: str = "bold $foreground on $warning 35%") -> Content:
    """`content` with each occurrence of `words` styled, ignoring case; a word marks the whole of
    a longer word it starts ("postgres" marks "PostgreSQL"), as the search's last word matches."""
    words = [w for w in words if w]
    if not words or not content.plain:
        return content
    pattern = re.compile(
        r"(?<!\w)(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")\w*", re.I
    )
    for match in pattern.finditer(content.plain):
        content = content.stylize(style, match.start(), match.end())
    return content


JOINTS = re.compile(r"[ \-/._:?&=#]")
"""Where a line may break inside a word: after a space, or after the joints of an id, a path or a
URL (`mem-context-stripe-`, `docs.stripe.com/`)."""


def wrap_at_joints(content: Content, width: int) -> list[Content]:
    """`content` (one line) in lines of at most `width` cells, each broken after a space or a joint
        of a word (`-`, `/`, `.`, ...) rather than inside a token (`webhoo` | `k-flow`); a token with
        no joint in `width` is cut where it must be. Spaces at a break are dropped; the first line keeps
    its indent (a line of code)."""
    text = content.plain
    if width <= 0 or len(text) <= width:
        return [content]
    lines: list[Content] = []
    start = 0
    while start < len(text):
        while start and start < len(text) and text[start] == " ":  # the first line keeps its indent
            start += 1
        if len(text) - start <= width:
            lines.append(content[start:])
            break
        window = text[start : start + width + 1]
        breaks = [m.end() for m in JOINTS.finditer(window) if 0 < m.end() <= width]
        spaces = [b for b in breaks if window[b - 1] == " "]
        if spaces and _word_at(text, start + spaces[-1]) <= width:
            breaks = spaces  # the word after the last space goes whole to the next line
        end = start + (breaks[-1] if breaks else width)
        lines.append(content[start:end].rstrip())
        start = end
    return [line for line in lines if line.plain] or [Content("")]


def _word_at(text: str, at: int) -> int:
    """The length of the word (up to the next space) that starts at `at`."""
    space = text.find(" ", at)
    return (space if space >= 0 else len(text)) - at
