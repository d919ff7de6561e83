"""The frontmatter as a two-column table, with the status and link types in their theme colours.

Keys are shown in file order, unknown keys too, because the curator should see what an agent wrote.
Left out: the title (the viewer's heading) and empty lists such as `supersedes: []`, which would
push the body off a 24-line terminal; the raw source (`r`) shows everything. A date field holding
milliseconds since 1970 (Dendron's `created`, `updated`) reads as a date, its number beside it.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

from ...core import LinkType, parse_links
from ..text import clean, epoch_date, status_badge, value_text, wrap_at_joints

__all__ = ["Properties", "value_content"]

HIDDEN_KEYS = frozenset({"title"})
KEY_WIDTH = 15
"""Cells of the key column: `schema_version` and `execution_state` fit; a longer key wraps in it."""
GUTTER = 1


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
        lines = [
            Content.assemble((clean(link.type), _link_style(link.type)), " → ", clean(link.target)) for link in links
        ]
        return Content("\n").join(lines)
    if (date := epoch_date(key, value)) is not None:
        return Content.assemble(date, (f"  {value}", "$text 60%"))
    return Content(value_text(value))


class Properties(Widget):
    """Key and value, one row per frontmatter key: drawn as one widget, its rows laid out here
    (a value wraps under itself, beside its key), so that opening a document mounts nothing."""

    DEFAULT_CSS = """
    Properties {
        height: auto;
        padding: 0 0 1 0;
        text-wrap: nowrap;
    }
    """

    meta: reactive[dict[str, Any]] = reactive(dict, init=False, layout=True)
    """The frontmatter to show, as parsed."""

    def __init__(self) -> None:
        super().__init__()
        self._laid_out: tuple[int, list[Content]] = (0, [])
        """The width the rows were laid out at, and their lines (0: none yet)."""

    def watch_meta(self) -> None:
        self._laid_out = (0, [])

    def rows(self) -> list[tuple[str, Any]]:
        """The keys shown, in file order, with their values."""
        return [(str(key), value) for key, value in self.meta.items() if str(key) not in HIDDEN_KEYS and value != []]

    def lines(self, width: int) -> list[Content]:
        """The rows laid out at `width`: the key in its column, the value wrapped beside it."""
        if self._laid_out[0] == width:
            return self._laid_out[1]
        room = max(1, width - KEY_WIDTH - GUTTER)
        lines: list[Content] = []
        for key, value in self.rows():
            keys = Content.styled(clean(key), "$text 60%").wrap(KEY_WIDTH)
            values = [
                line
                for part in value_content(key, value).split("\n")
                for line in wrap_at_joints(part, room)  # an id or a URL breaks at a joint, not mid-token
            ]
            for number in range(max(len(keys), len(values))):
                left = keys[number] if number < len(keys) else Content("")
                right = values[number] if number < len(values) else Content("")
                lines.append(Content.assemble(left.pad_right(KEY_WIDTH + GUTTER - left.cell_length), right))
        self._laid_out = (width, lines)
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render(self) -> Content:
        return Content("\n").join(self.lines(self.content_size.width))
