"""The link pane: where this document points, and what points at it, grouped by link type.

Outgoing groups use the link type's own name (`depends_on`); backlink groups read it the other
way round (`depended on by`). Targets missing from the vault are marked and cannot be opened;
invalid ones are marked and can be, to see what is wrong with them.
"""

from __future__ import annotations

from textual import on
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...core.graph import inverse_label
from ...core.model import LinkType
from ..neighbours import Neighbour, Neighbourhood
from ..text import clean, status_style

__all__ = ["LinkPane", "link_options"]


def _type_style(link_type: str) -> str:
    return f"bold $link-{link_type}" if link_type in set(LinkType) else "bold $text-warning"


def _entry(neighbour: Neighbour, key: str) -> Option:
    if neighbour.dangling:
        prompt = Content.assemble(("  ✖ ", "$link-dangling"), (clean(neighbour.doc_id), "$text-muted strike"), (" missing", "$link-dangling"))
        return Option(prompt, id=key, disabled=True)
    if neighbour.invalid:  # the file exists but fails its checks: open it to see why
        prompt = Content.assemble(("  ! ", "$link-dangling"), clean(neighbour.doc_id), (" invalid", "$link-dangling"))
        return Option(prompt, id=key)
    prompt = Content.assemble(("  ● ", status_style(neighbour.status)), clean(neighbour.title))
    return Option(prompt, id=key)


def link_options(neighbours: Neighbourhood) -> list[Option | None]:
    """Group headings (disabled, so the cursor skips them) and one option per linked document.

    Option ids are `out:N:doc-id` / `in:N:doc-id`, unique even when one document is linked twice.
    """
    options: list[Option | None] = []
    counter = 0
    for direction, groups, label in (("out", neighbours.outgoing, str), ("in", neighbours.incoming, inverse_label)):
        if not groups:
            continue
        if options:
            options.append(None)
        heading = "Outgoing" if direction == "out" else "Backlinks"
        options.append(Option(Content.styled(heading, "bold $text-muted"), disabled=True))
        for link_type, members in groups.items():
            options.append(Option(Content.styled(clean(label(link_type)), _type_style(link_type)), disabled=True))
            for neighbour in members:
                counter += 1
                options.append(_entry(neighbour, f"{direction}:{counter}:{neighbour.doc_id}"))
    return options


class LinkPane(OptionList):
    """`enter` on a linked document posts `Goto` with its id."""

    DEFAULT_CSS = """
    LinkPane {
        height: 1fr;
        border: round $border-blurred;
        border-title-color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &:focus { border: round $border; }
        & > .option-list--option-disabled { color: $text; }
    }
    """

    neighbours: reactive[Neighbourhood | None] = reactive(None, always_update=True)
    """The links of the document on show; None when none is open."""

    class Goto(Message):
        def __init__(self, doc_id: str) -> None:
            super().__init__()
            self.doc_id = doc_id

    def on_mount(self) -> None:
        self.border_title = "Links"

    def watch_neighbours(self, neighbours: Neighbourhood | None) -> None:
        if neighbours is None:
            self.set_options([Option(Content.styled("No document open", "$text-muted"), disabled=True)])
        elif neighbours.empty:
            self.set_options([Option(Content.styled("No links in or out", "$text-muted"), disabled=True)])
        else:
            self.set_options(link_options(neighbours))
            self.action_first()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Goto(event.option.id.split(":", 2)[2]))
