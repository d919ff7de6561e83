"""The graph navigator: where this document points, and what points at it, grouped by link type.

Outgoing groups use the link type's own name (`depends_on`); backlink groups read it the other
way round (`depended on by`). Targets missing from the vault are marked and cannot be opened;
invalid ones are marked and can be, to see what is wrong with them. Below them: what lies further
out (`+`/`-` set the depth), the supersession chain, and on `x` the context pack (what an agent
would read). `t` filters every part to one link type. The pane only asks (`Settings`); the screen
reads the graph again and hands the result back.

A title that two listed documents share, or that begins like another's (the pane cuts titles at its
edge), is followed by each one's id, so that two links never look alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...core import LinkType, inverse_label
from ..text import clean, status_style

if TYPE_CHECKING:
    from ..neighbours import LinkGroups, Neighbour

__all__ = ["LinkPane", "link_options", "pack_options"]


def _type_style(link_type: str) -> str:
    return f"bold $link-{link_type}" if link_type in set(LinkType) else "bold $text-warning"


def _entry(neighbour: Neighbour, key: str, twins: frozenset[str] = frozenset()) -> Option:
    """One linked document: its title, and under it its id when another listed document has the
    same title (`twins`), so that two links to notes titled alike can be told apart."""
    if neighbour.dangling:
        prompt = Content.assemble(
            ("  ✖ ", "$link-dangling"), (clean(neighbour.doc_id), "$text 60% strike"), (" missing", "$link-dangling")
        )
        return Option(prompt, id=key, disabled=True)
    if neighbour.invalid:  # the file exists but fails its checks: open it to see why
        prompt = Content.assemble(("  ! ", "$link-dangling"), clean(neighbour.doc_id), (" invalid", "$link-dangling"))
        return Option(prompt, id=key)
    prompt = Content.assemble(("  ● ", status_style(neighbour.status)), clean(neighbour.title))
    if neighbour.title in twins:
        prompt = Content.assemble(prompt, "\n", (f"    {clean(neighbour.doc_id)}", "$text 60%"))
    return Option(prompt, id=key)


SEEN = 20
"""About the characters of a title the pane shows on an 80-column terminal before cutting it."""


def _twins(neighbours: Iterable[Neighbour]) -> frozenset[str]:
    """Titles that look alike in the pane: more than one of `neighbours` (different documents)
    carries them, or a title that begins the same way (the pane cuts it there)."""
    neighbours = list(neighbours)
    ids: dict[str, set[str]] = {}
    for neighbour in neighbours:
        ids.setdefault(neighbour.title[:SEEN].casefold(), set()).add(neighbour.doc_id)
    alike = {start for start, each in ids.items() if len(each) > 1}
    return frozenset(n.title for n in neighbours if n.title[:SEEN].casefold() in alike)


def _heading(text: str) -> Option:
    return Option(Content.styled(text, "bold $text 60%"), disabled=True)


def link_options(neighbours: LinkGroups) -> list[Option | None]:
    """Group headings (disabled, so the cursor skips them) and one option per linked document.

    Option ids are `out:N:doc-id` / `in:N:doc-id` / `far:N:doc-id` / `chain:N:doc-id`, unique even
    when one document is listed twice.
    """
    options: list[Option | None] = []
    counter = 0
    twins = _twins(
        [
            *(
                n
                for groups in (neighbours.outgoing, neighbours.incoming)
                for members in groups.values()
                for n in members
            ),
            *(n for members in neighbours.further.values() for n in members),
            *neighbours.chain,
        ]
    )
    for direction, groups, label in (("out", neighbours.outgoing, str), ("in", neighbours.incoming, inverse_label)):
        if not groups:
            continue
        if options:
            options.append(None)
        options.append(_heading("Outgoing" if direction == "out" else "Backlinks"))
        for link_type, members in groups.items():
            options.append(Option(Content.styled(clean(label(link_type)), _type_style(link_type)), disabled=True))
            for neighbour in members:
                counter += 1
                options.append(_entry(neighbour, f"{direction}:{counter}:{neighbour.doc_id}", twins))
    for distance, members in sorted(neighbours.further.items()):
        if options:
            options.append(None)
        options.append(_heading(f"{distance} links away"))
        for neighbour in members:
            counter += 1
            options.append(_entry(neighbour, f"far:{counter}:{neighbour.doc_id}", twins))
    if neighbours.chain:
        if options:
            options.append(None)
        options.append(_heading("Supersession chain"))  # oldest first; ▶ marks this one
        for neighbour in neighbours.chain:
            counter += 1
            if neighbour.doc_id == neighbours.root:
                here = Content.assemble(("  ▶ ", "bold $accent"), (clean(neighbour.title), "bold"))
                options.append(Option(here, id=f"chain:{counter}:{neighbour.doc_id}", disabled=True))
            else:
                options.append(_entry(neighbour, f"chain:{counter}:{neighbour.doc_id}", twins))
    return options


def pack_options(neighbours: LinkGroups) -> list[Option | None]:
    """The context pack in reading order, each with its type, and how far and by which link it lies."""
    options: list[Option | None] = [_heading("What an agent reads")]
    if not neighbours.pack:
        options.append(Option(Content.styled("  nothing (the document is not valid)", "$text 60%"), disabled=True))
    twins = _twins(neighbours.pack)
    for number, item in enumerate(neighbours.pack, start=1):
        where = "the document itself" if item.depth == 0 else f"{item.depth} away via {item.link_type}"
        twin: list[str | tuple[str, str]] = (
            [(f"   {clean(item.doc_id)}", "$text 60%"), "\n"] if item.title in twins else []
        )
        prompt = Content.assemble(
            (f"{number:>2} ", "$text 60%"),
            ("● ", status_style(item.status)),
            clean(item.title),
            "\n",
            *twin,
            (f"   {where}", "$text 60%"),
        )
        options.append(Option(prompt, id=f"pack:{number}:{item.doc_id}"))
    return options


class LinkPane(OptionList):
    """`enter` on a linked document posts `Goto` with its id."""

    DEFAULT_CSS = """
    LinkPane {
        height: 1fr;
        border: round $border-blurred;
        border-title-color: $text-muted;
        border-subtitle-color: $text-accent;
        scrollbar-size-vertical: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &:focus { border: round $border; }
        & > .option-list--option-disabled { color: $text; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "plus,equals_sign",
            "depth(1)",
            "Deeper",
            id="links.deeper",
            tooltip="Show documents one more link away (up to 4)",
        ),
        Binding(
            "minus", "depth(-1)", "Shallower", id="links.shallower", tooltip="Show documents one link less far away"
        ),
        Binding(
            "t",
            "cycle_filter",
            "Link type",
            id="links.filter",
            tooltip="Show only one of the document's link types; again for the next, then all (another document shows all)",
        ),
        Binding(
            "x",
            "toggle_pack",
            "Context pack",
            id="links.pack",
            tooltip="Toggle the context pack: what an agent reads about this document",
        ),
        # Below 100 columns the pane stands in for the results: these give them back (else they do
        # what they do elsewhere: escape restores a maximised pane, tab moves on).
        Binding(
            "escape,tab",
            "screen.leave_links",
            "Results",
            show=False,
            id="links.leave",
            tooltip="Below 100 columns: the results again, in place of the links (g does too)",
        ),
    ]

    MAX_DEPTH = 4

    neighbours: reactive[LinkGroups | None] = reactive(None, always_update=True)
    """The links of the document on show; None when none is open."""
    show_pack: reactive[bool] = reactive(False)
    """Show the context pack instead of the links."""

    class Goto(Message):
        def __init__(self, doc_id: str) -> None:
            super().__init__()
            self.doc_id = doc_id

    class Settings(Message):
        """The person asked for another depth or link-type filter: the screen reads the graph again."""

        def __init__(self, depth: int, link_type: str | None) -> None:
            super().__init__()
            self.depth = depth
            self.link_type = link_type

    def on_mount(self) -> None:
        self.border_title = "Links"

    def _title(self) -> str:
        hood = self.neighbours
        if self.show_pack:
            return "Context pack"
        if hood is None:
            return "Links"
        return f"Links · depth {hood.depth}"

    def watch_show_pack(self) -> None:
        self.watch_neighbours(self.neighbours)

    def watch_neighbours(self, neighbours: LinkGroups | None) -> None:
        self.border_title = self._title()
        # The filter below, on a line of its own: in the title it was cut at the pane's edge.
        self.border_subtitle = (
            f"{neighbours.link_type} only · t"
            if neighbours is not None and neighbours.link_type and not self.show_pack
            else ""
        )
        if neighbours is None:
            self.set_options([Option(Content.styled("No document open", "$text 60%"), disabled=True)])
        elif neighbours.pending:
            self.set_options([Option(Content.styled("Reading the vault…", "italic $text 60%"), disabled=True)])
        elif self.show_pack:
            self.set_options(pack_options(neighbours))
            self.action_first()
        elif neighbours.empty:
            what = f"No {neighbours.link_type} links" if neighbours.link_type else "No links in or out"
            self.set_options([Option(Content.styled(what, "$text 60%"), disabled=True)])
        else:
            self.set_options(link_options(neighbours))
            self.action_first()

    def action_depth(self, step: int) -> None:
        hood = self.neighbours
        if hood is not None:
            depth = min(self.MAX_DEPTH, max(1, hood.depth + step))
            if depth != hood.depth:
                self.post_message(self.Settings(depth, hood.link_type))

    def action_cycle_filter(self) -> None:
        """The next of the link types this document has, then all again; with one type or none
        there is nothing to filter, and the pane says so; before they are known (the vault's first
        summary), that they are coming."""
        hood = self.neighbours
        if hood is None:
            return
        if hood.pending:  # no types known yet: "no links" would be wrong
            self.notify(
                "Its links are still being worked out (the vault is being read): they show here once they are,"
                " and t filters them then",
                title="Link type",
                markup=False,
            )
            return
        offered: list[str | None] = [None, *hood.types]
        if hood.link_type is not None and hood.link_type not in offered:
            offered.append(hood.link_type)
        if len(offered) <= 2 and hood.link_type is None:
            what = f"only {hood.types[0]} links" if hood.types else "no links"
            self.notify(
                f"This document has {what}: there is no other type to filter by", title="Link type", markup=False
            )
            return
        following = offered[(offered.index(hood.link_type) + 1) % len(offered)]
        self.post_message(self.Settings(hood.depth, following))

    def action_toggle_pack(self) -> None:
        self.show_pack = not self.show_pack

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Goto(event.option.id.split(":", 2)[2]))
