"""Vault text made safe to show, and the few styled fragments every pane shares.

Titles and bodies are data written by agents and people: a title may read `[bold]x[/bold]` or carry
an escape sequence. Everything from a vault goes through `clean` (control characters become visible
`\\x1b`-style text, so they never reach the terminal) and is wrapped in `Content` pieces, never
parsed as markup.
"""

from __future__ import annotations

import re
from typing import Any

from textual.content import Content

from ..core.model import Status

__all__ = ["clean", "plain", "status_badge", "status_style", "value_text"]

# C0 controls except tab and newline, DEL, and C1 controls (which include the 8-bit CSI).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """`text` with every control character shown as `\\xNN` instead of obeyed."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text.replace("\r\n", "\n"))


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
