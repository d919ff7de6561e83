"""The frontmatter as a two-column table, with the status and link types in their theme colours.

Keys are shown in file order, unknown keys too, because the curator should see what an agent wrote.
Left out: the title (the viewer's heading) and empty lists such as `supersedes: []`, which would
push the body off a 24-line terminal; the raw source (`r`) shows everything. A date field holding
milliseconds since 1970 (Dendron's `created`, `updated`) reads as a date, its number beside it.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Grid
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Label

from ...core.model import LinkType, parse_links
from ..text import clean, epoch_date, status_badge, value_text

__all__ = ["Properties", "value_content"]

HIDDEN_KEYS = frozenset({"title"})


def _link_style(link_type: str) -> str:
    return f"$link-{link_type}" if link_type in set(LinkType) else "$text-warning"


def value_content(key: str, value: Any) -> Content:
    """How one frontmatter value reads in the table."""
    if key == "status":
        return status_badge(str(value))
    if key == "links" and isinstance(value, list):
        links = parse_links(value)
        if not links:
            return Content(value_text(value))
        lines = [Content.assemble((clean(link.type), _link_style(link.type)), " → ", clean(link.target)) for link in links]
        return Content("\n").join(lines)
    if (date := epoch_date(key, value)) is not None:
        return Content.assemble(date, (f"  {value}", "$text-muted"))
    return Content(value_text(value))


class Properties(Grid):
    """Key and value, one row per frontmatter key."""

    DEFAULT_CSS = """
    Properties {
        grid-size: 2;
        grid-columns: 15 1fr;
        grid-gutter: 0 1;
        height: auto;
        padding: 0 0 1 0;
        & > .key { color: $text-muted; }
        & > Label { width: 1fr; }
    }
    """

    meta: reactive[dict[str, Any]] = reactive(dict, recompose=True)
    """The frontmatter to show, as parsed."""

    def compose(self) -> ComposeResult:
        for key, value in self.meta.items():
            if str(key) in HIDDEN_KEYS or value == []:
                continue
            yield Label(Content(clean(str(key))), classes="key")
            yield Label(value_content(str(key), value), classes=f"value -key-{clean(str(key))}" if str(key).isidentifier() else "value")
