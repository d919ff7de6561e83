"""The conflicts queue (`c`): each conflict beside the resolutions that fit it.

The core finds the conflicts (`Vault.conflicts`) and names their resolutions with the command that
would carry each out (`supersede OLD NEW`, `compatible A B`, `retarget S OLD NEW`, `merge A --into
B`, `check --repair`); `resolution_proposal` turns one into a `Proposal` for the main screen, which
previews the diff before anything is written. A resolution that needs more than a click (naming a
successor, editing a cycle by hand) is shown with its command instead, and one the vault's format
cannot write (`refusal`) says so, with the way out, before the person picks it.

Each conflict is listed by the titles of its documents, their ids shortened on the line below: a
person recognises a title, and an id wrapped mid-word on a narrow terminal helps nobody. For the
same reason a resolution's button names the documents by title (`titled`), unless two of them
share one; its tooltip keeps the command, with the ids.
"""

from __future__ import annotations

import re
import shlex
from functools import partial
from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import WorkerCancelled

from ...core import Conflict, Document, Resolution, Verdict
from ..proposal import Proposal
from ..text import clean, status_badge
from .paging import MORE, PAGE, more_option
from .verdicts import (
    TitlesOf,
    VerdictChoice,
    answers_to,
    choice_label,
    either_way,
    replacements_of,
    verdict_prompt,
    verdict_text,
)

EXCERPT_LINES = 4

"""Conflicts listed at once; a last row lists the next as many. A large vault's queue (75,000 at
100,000 documents) made into rows at once held the screen for seconds before the dialog showed."""

__all__ = [
    "KIND_WORDS",
    "PAGE",
    "ConflictsDialog",
    "conflict_prompt",
    "kind_words",
    "resolution_proposal",
    "short_id",
    "titled",
]

KIND_WORDS = {
    "supersession-cycle": "Supersession in a circle",
    "one-sided-supersession": "Supersession one-sided",
    "active-with-successor": "Active, yet superseded",
    "superseded-without-successor": "Superseded, no successor",
    "double-supersession": "Superseded twice",
    "contradiction": "May replace an older one",
    "successor-missing": "No successor named",
    "draft-replaces": "A draft may replace",
    "rule-contradiction": "Rules that contradict",
    "duplicate": "May be duplicates",
    "stale-link": "Links to a replaced one",
}
"""Each kind of conflict in a few words, short enough for the list at 80 columns (the kind's code,
which the command line prints, follows them above the reason)."""


def kind_words(kind: str) -> str:
    """The conflict kind in words; a kind not known here is shown as the core names it."""
    return KIND_WORDS.get(kind, kind)


def titled(label: str, ids: Sequence[str], documents: Mapping[str, Document]) -> str:
    """`label` with each of `ids` given as its document's title in quotes. Left as it is when a
    document is missing, has no title of its own, or shares its title with another: then only the
    ids tell them apart."""
    titles = {doc_id: documents[doc_id].title for doc_id in ids if doc_id in documents}
    if len(titles) < len(set(ids)) or len(set(titles.values())) < len(titles) or any(t == i for i, t in titles.items()):
        return label
    named = "|".join(re.escape(doc_id) for doc_id in sorted(titles, key=len, reverse=True))
    return re.sub(rf"(?<![\w.-])(?:{named})(?![\w.-])", lambda match: f"“{titles[match.group()]}”", label)


def resolution_proposal(
    resolution: Resolution, then: Callable[[], object] | None = None, back: Callable[[], object] | None = None
) -> Proposal | None:
    """The dry run and write behind a resolution's command; None when it needs a person's input.
    `then` runs once it is written, `back` when its preview is cancelled (the queue again)."""
    try:
        words = shlex.split(resolution.command)
    except ValueError:
        return None
    verb, args = (words[0], words[1:]) if words else ("", [])
    title = f"Resolve: {resolution.label}?"
    if verb == "supersede" and len(args) == 2 and args[1] != "NEW_ID":
        old, new = args
        return Proposal(title, lambda vault: vault.supersede(old, new, dry_run=True), then=then, back=back)
    if verb == "compatible" and len(args) == 2:
        a, b = args
        return Proposal(title, lambda vault: vault.mark_compatible(a, b, dry_run=True), then=then, back=back)
    if verb == "retarget" and len(args) in (2, 3):
        source, old, *to = args
        return Proposal(
            title,
            lambda vault: vault.retarget(source, old, to[0] if to else None, dry_run=True),
            then=then,
            back=back,
        )
    if verb == "merge" and len(args) == 3 and args[1] == "--into":
        source, target = args[0], args[2]
        return Proposal(title, lambda vault: vault.merge(source, target, dry_run=True), then=then, back=back)
    if verb == "check" and args == ["--repair"]:
        return Proposal(title, lambda vault: vault.repair(dry_run=True).plan, then=then, back=back)
    return None


ID_WIDTH = 40
"""An id longer than this is shortened in the list, in its middle (its start and end tell ids apart)."""


def short_id(doc_id: str, width: int = ID_WIDTH) -> str:
    """`doc_id`, or its start and end around "…" when it is longer than `width`."""
    if len(doc_id) <= width:
        return doc_id
    head = (width - 1) // 2
    return doc_id[:head] + "…" + doc_id[len(doc_id) - (width - 1 - head) :]


def conflict_prompt(conflict: Conflict, titles: Mapping[str, str] | None = None, id_width: int = ID_WIDTH) -> Content:
    """The kind in words, then each document by its title with its id (shortened to `id_width`) below it."""
    titles = titles or {}
    lines: list[Content] = [Content.styled(clean(kind_words(conflict.kind)), "bold $text-warning")]
    for doc_id in conflict.ids:
        title = titles.get(doc_id)
        if title:
            lines.append(Content.assemble("  ", clean(title)))
        lines.append(Content.styled(f"    {clean(short_id(doc_id, id_width))}", "$text 60%"))
    return Content("\n").join(lines)


class ConflictsDialog(ModalScreen[Resolution | VerdictChoice | str | None]):
    """Returns the chosen `Resolution`, an answer to a verdict (`VerdictChoice`), a document id to
    open, or None. ↑↓ move through the resolutions as through the list; `tab` or `enter` goes from
    the list to them, `shift+tab` back.

    Pairs an agent judged (`verdicts`, read when the dialog opens) are listed first, under a heading
    of their own, each with the agent's verdict and reason; the queue's own entry for the same pair
    is folded into it. `a` accepts, `r` rejects, `A` accepts every replacement the same agent
    judged, as one change."""

    DEFAULT_CLASSES = "wb-dialog"

    DEFAULT_CSS = """
    ConflictsDialog {
        & > #dialog {
            width: 130;
            height: 90%;
        }
        & #conflict-list { width: 2fr; max-width: 48; height: 1fr; border: round $border-blurred; }
        & #conflict-list:focus { border: round $border; }
        & #detail { width: 3fr; height: 1fr; padding: 0 0 0 1; }
        & #reason { padding: 0 0 1 0; }
        & #sides { height: auto; }
        & .side { width: 1fr; height: auto; border: round $border-blurred; padding: 0 1; margin: 0 0 1 0; }
        & #resolutions { height: auto; }
        & #resolutions Button { width: 100%; margin: 0 0 1 0; }
        /* The focused resolution is a full-width bar in the text's colour, the others a muted fill:
           Textual's reversed label on a primary fill showed as a short bar among buttons of the same
           fill, hard to find. */
        & #resolutions Button.-primary { background: $primary-muted; color: $text-primary; }
        & #resolutions Button:focus { background: $foreground; color: $background; text-style: bold; background-tint: 0%; }
        & #hint { color: $text-muted; height: auto; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "o",
            "open_first",
            "Open",
            id="conflicts.open",
            tooltip="Open the conflict's first document (a judged pair's newer one) in the viewer",
        ),
        Binding(
            "a",
            "answer('accept')",
            "Accept",
            id="conflicts.accept",
            tooltip="Do what the agent's verdict says (previewed as a diff first; u undoes it)",
        ),
        Binding(
            "r",
            "answer('reject')",
            "Reject",
            id="conflicts.reject",
            tooltip="Both records stand, kept as compatible: no one is asked about the pair again",
        ),
        Binding(
            "A",
            "answer('accept-all')",
            "Accept all",
            id="conflicts.accept-all",
            tooltip="Accept every replacement this agent judged, as one change with one preview",
        ),
        Binding(
            "escape", "close", "Close", id="conflicts.close", tooltip="Back to the main screen; nothing is changed"
        ),
        # Priority: the scrolling detail pane around the buttons would take the arrows first.
        Binding(
            "up",
            "resolution(-1)",
            "Previous",
            show=False,
            priority=True,
            id="conflicts.previous-resolution",
            tooltip="Among the resolutions: the one above (from the first, back to the list)",
        ),
        Binding(
            "down",
            "resolution(1)",
            "Next",
            show=False,
            priority=True,
            id="conflicts.next-resolution",
            tooltip="Among the resolutions: the one below",
        ),
    ]

    def __init__(
        self,
        conflicts: Sequence[Conflict],
        documents: Mapping[str, Document] | None = None,
        start: int = 0,
        refusal: Callable[[Resolution], str | None] | None = None,
        chosen: Resolution | VerdictChoice | None = None,
        verdicts: Callable[[], Sequence[Verdict]] | None = None,
    ) -> None:
        super().__init__()
        self.conflicts = list(conflicts)
        self.documents = documents or {}
        """The vault's valid documents by id, to show each side of a conflict."""
        self.start = start
        """The conflict highlighted first (where a cancelled preview came from)."""
        self.refusal = refusal
        """Why the vault's format cannot carry a resolution out (None when it can)."""
        self.chosen = chosen
        """The resolution or answer whose preview was cancelled: focused again, so `enter` previews
        it again."""
        self.read_verdicts = verdicts
        """The open verdicts, read when the dialog opens (in a worker: the vault may be busy)."""
        self.verdicts: list[Verdict] = []
        self.shown: str | None = None
        """The entry shown beside the list (highlighting it again keeps its focused button)."""
        self.listed = self._reaching(min(max(start, 0), max(len(self.conflicts) - 1, 0)))
        """How many of the conflicts the list has rows for (a page more each time the last row is chosen)."""
        self._id_width = ID_WIDTH
        self._listed_once = False
        """The list has been made (once laid out, for its width); before, a resize has nothing to fit."""
        self._found = len(self.conflicts)
        """How many conflicts no open verdict lists (the heading's count, once verdicts are read)."""

    @staticmethod
    def _reaching(index: int) -> int:
        """The conflicts listed so that the one at `index` has a row: whole pages."""
        return (index // PAGE + 1) * PAGE

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = f"Conflicts · {len(self.conflicts)}"
            with Horizontal():
                # Filled once laid out, its ids fitted to its width (`_first_shown`).
                yield OptionList(id="conflict-list")
                with VerticalScroll(id="detail", can_focus=False):
                    yield Static(id="reason")
                    yield Static(
                        Content.styled("Resolutions (each shows its diff first)", "bold $text 60%"),
                        id="resolutions-title",
                    )
                    yield Vertical(id="resolutions")
                    yield Horizontal(id="sides")
            yield Static(
                "enter/tab to the resolutions, ↑↓ among them · each shows its diff first · o open · escape close",
                id="hint",
            )
        yield Footer()

    @property
    def titles(self) -> Mapping[str, str]:
        return TitlesOf(self.documents)

    def _folded(self) -> set[frozenset[str]]:
        """The pairs an open verdict lists: the queue's own entry for them is not listed again."""
        return {v.pair for v in self.verdicts}

    def _options(self, id_width: int) -> list[Option]:
        """Judged pairs first (with a heading each way when there are any), then the conflicts
        listed so far and the row that lists more; a verdict's id is `v` and its number, a
        conflict's its number in `conflicts`, the row that lists more `more`."""
        titles = self.titles
        folded = self._folded()
        conflicts = self._conflict_options(0, id_width, folded)
        if not conflicts and not self.verdicts:
            return [Option(Content.styled("No open conflicts.", "$text-success"), disabled=True)]
        if not self.verdicts:
            return conflicts
        heading = "bold $text 60%"
        options = [Option(Content.styled(f"Judged by agents · {len(self.verdicts)}", heading), disabled=True)]
        options += [
            Option(verdict_prompt(v, titles, id_width, short_id), id=f"v{n}") for n, v in enumerate(self.verdicts)
        ]
        if conflicts:
            options.append(Option(Content.styled(f"Found by the workbench · {self._found}", heading), disabled=True))
        return options + conflicts

    def _conflict_options(self, start: int, id_width: int, folded: set[frozenset[str]]) -> list[Option]:
        """The rows of the conflicts from the `start`-th to the last one listed (but those a
        verdict lists), then the row that lists more, if any are left."""
        titles = self.titles
        options = [
            Option(conflict_prompt(c, titles, id_width), id=str(i))
            for i, c in enumerate(self.conflicts[start : self.listed], start)
            if frozenset(c.ids) not in folded
        ]
        left = len(self.conflicts) - self.listed
        if left > 0:
            options.append(more_option(left))
        return options

    def _list_more(self) -> None:
        """The next page of conflicts listed in place of the row that asked for them, the first
        of them highlighted."""
        listing = self.query_one("#conflict-list", OptionList)
        start, self.listed = self.listed, self.listed + PAGE
        listing.remove_option(MORE)
        listing.add_options(self._conflict_options(start, self._id_width, self._folded()))
        index = self._index_of(str(start))
        if index is not None:
            listing.highlighted = index

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_ids)

    def _width_for_ids(self) -> int:
        """The width ids are shortened to, so none wraps in the middle of a word in the list. Made
        before the list has its rows, it leaves room for the scrollbar they will bring (a row
        has three lines at least): made for the list without it, every row was made again once it
        came."""
        listing = self.query_one("#conflict-list", OptionList)
        region = listing.scrollable_content_region
        width = region.width
        if not listing.option_count and 3 * min(len(self.conflicts), self.listed) > region.height:
            width -= listing.styles.scrollbar_size_vertical
        return max(12, width - 5)

    def _fit_ids(self) -> None:
        """Ids shortened to the list's new width (once it is listed)."""
        if self._gone:
            return
        width = self._width_for_ids()
        if not self._listed_once or not (self.conflicts or self.verdicts) or width == self._id_width:
            return
        self._id_width = width
        self._relist()

    def _relist(self, key: str | None = None) -> None:
        """The list built again, the entry `key` highlighted (by default the one highlighted)."""
        listing = self.query_one("#conflict-list", OptionList)
        highlighted = listing.highlighted
        if key is None and highlighted is not None and listing.option_count:
            key = listing.get_option_at_index(highlighted).id
        with listing.prevent(OptionList.OptionHighlighted):
            listing.set_options(self._options(self._id_width))
            listing.highlighted = self._index_of(key) if key is not None else highlighted

    def _title(self) -> None:
        """The frame's title: how many conflicts, and judged pairs when there are any."""
        judged = f" · judged pairs · {len(self.verdicts)}" if self.verdicts else ""
        self.query_one("#dialog", Vertical).border_title = f"Conflicts · {len(self.conflicts)}{judged}"

    def follow(self, conflicts: Sequence[Conflict], documents: Mapping[str, Document]) -> None:
        """The queue found again while the dialog is open (another process wrote the vault): listed
        in place, the entry the person was on kept highlighted where it still is, and shown again
        only if what it holds changed. The verdicts are read again with it. Until the list is made
        again the dialog keeps the conflicts it shows: a key pressed meanwhile acts on what is seen."""
        if self._gone or not self._listed_once:
            self.conflicts, self.documents = list(conflicts), documents
            self._found = len(self.conflicts)
            return  # its first frames list what it holds now
        held = (self.selected, self.selected_verdict)
        work = self._followed(list(conflicts), documents, *held)
        self.run_worker(work, group="conflicts-follow", exclusive=True)

    async def _followed(
        self,
        conflicts: list[Conflict],
        documents: Mapping[str, Document],
        held_conflict: Conflict | None,
        held_verdict: Verdict | None,
    ) -> None:
        verdicts, found = self.verdicts, len(conflicts)
        if self.read_verdicts is not None:
            worker = self.run_worker(partial(self._load_verdicts, conflicts), thread=True, group="conflicts-verdicts")
            try:
                await worker.wait()
            except WorkerCancelled:
                return
            verdicts, found = worker.result or ([], len(conflicts))
        if self._gone:
            return
        # The entry the person was on, in the new list (worked out before anything is swapped).
        key: str | None = None
        now_held: Conflict | Verdict | None = None
        if held_verdict is not None:
            at = next((n for n, v in enumerate(verdicts) if v.id == held_verdict.id), None)
            key, now_held = (f"v{at}", verdicts[at]) if at is not None else (None, None)
        elif held_conflict is not None:
            same = [i for i, c in enumerate(conflicts) if c.ids == held_conflict.ids]
            index = next((i for i in same if conflicts[i].kind == held_conflict.kind), same[0] if same else None)
            if index is not None:
                self.listed = max(self.listed, self._reaching(index))
                key, now_held = str(index), conflicts[index]
        if key is None and (held_conflict is not None or held_verdict is not None):
            self.notify(
                "The conflict you were on is no longer in the queue (the vault changed on disk).",
                title="The queue followed a change",
                markup=False,
            )
        unchanged = key is not None and now_held == (held_verdict if held_verdict is not None else held_conflict)
        if not unchanged and self.focused is not None and self.focused.parent is self.query_one("#resolutions"):
            self.query_one("#conflict-list", OptionList).focus()  # not a button of what is no longer shown
        # Swapped and listed in one turn: no key comes between the new list and the new entries.
        self.conflicts, self.documents, self.verdicts, self._found = conflicts, documents, verdicts, found
        self._relist(key)
        self._title()
        now = self._key()
        self.shown = now
        if now is not None and now != MORE and not (unchanged and now == key):
            await self._show(now)
        else:  # the same entry, maybe at another place in the list: its buttons are its still
            for button in self.query("#resolutions Button"):
                button.entry = now  # type: ignore[attr-defined]
        self.refresh_bindings()

    def _index_of(self, key: str | None) -> int | None:
        """The list's index of the entry `key` (`v3`, `5`), else its first entry that can be chosen."""
        listing = self.query_one("#conflict-list", OptionList)
        options = [listing.get_option_at_index(i) for i in range(listing.option_count)]
        for i, option in enumerate(options):
            if option.id is not None and option.id == key:
                return i
        return next((i for i, option in enumerate(options) if option.id not in (None, MORE)), None)

    @property
    def _gone(self) -> bool:
        """The dialog was closed before its frames were all made (a key in the same burst as `c`):
        what was left to show is not shown, on a screen whose widgets are gone."""
        return not self.query("#conflict-list")

    def on_mount(self) -> None:
        if self._gone:
            return
        self.query_one("#conflict-list", OptionList).focus()
        # A frame at a time: the dialog's frame, then the list fitted to its width, then the
        # entry to start from shown beside it (its reason, its resolutions, both sides). Made and
        # laid out in one turn they held the screen for 100-130 ms of CPU at 100,000 documents,
        # the list made twice (again once its width was known).
        self.call_after_refresh(self._first_shown)

    async def _first_shown(self) -> None:
        """The list made for its width, the verdicts read, and a frame later the entry to start
        from highlighted and shown beside the list."""
        if self._gone:
            return
        self._id_width = self._width_for_ids()
        key = self._start_key()
        if key is not None and key.isdigit() and int(key) >= self.listed:
            self.listed = self._reaching(int(key))  # the queue was worked out again: its conflict moved on
        self._relist()
        self._listed_once = True
        if self.read_verdicts is not None:
            worker = self.run_worker(self._load_verdicts, thread=True, group="conflicts-verdicts")
            try:
                await worker.wait()
            except WorkerCancelled:  # the dialog closed meanwhile, and its worker with it
                return
            if worker.result and not self._gone:
                self.verdicts, self._found = worker.result
                self._relist()
                self._title()
                key = self._start_key()
        self.call_after_refresh(self._start_shown, key)

    async def _start_shown(self, key: str | None) -> None:
        """The entry `key` highlighted and shown beside the list, the chosen button focused."""
        if self._gone:
            return
        listing = self.query_one("#conflict-list", OptionList)
        index = self._index_of(key)
        if index is None:
            return
        listing.highlighted = index
        await self._show(listing.get_option_at_index(index).id or "")
        button = self._chosen_button()
        if button is not None:
            button.focus()

    def _load_verdicts(self, conflicts: Sequence[Conflict] | None = None) -> tuple[list[Verdict], int] | None:
        """The open verdicts, and how many conflicts no verdict lists (counted here, not on the
        screen's thread: 75,000 at 100,000 documents); None when there are none."""
        assert self.read_verdicts is not None
        try:
            verdicts = list(self.read_verdicts())
        except Exception as exc:  # noqa: BLE001 - the queue still opens; what went wrong is said
            self.app.call_from_thread(
                self.notify, str(exc), title="Verdicts could not be read", severity="warning", markup=False
            )
            return None
        if not verdicts:
            return None
        folded = {v.pair for v in verdicts}
        return verdicts, sum(
            1 for c in (self.conflicts if conflicts is None else conflicts) if frozenset(c.ids) not in folded
        )

    def _start_key(self) -> str | None:
        """The entry to highlight first: the one a cancelled preview came from, else the first
        judged pair, else the `start`-th conflict."""
        chosen = self.chosen
        if isinstance(chosen, VerdictChoice):
            found = [n for n, v in enumerate(self.verdicts) if v.id == chosen.verdict.id]
            if found:
                return f"v{found[0]}"
        if isinstance(chosen, Resolution):
            found = [n for n, v in enumerate(self.verdicts) if chosen in either_way(v)]
            if found:
                return f"v{found[0]}"
        if self.conflicts:
            start = min(max(self.start, 0), len(self.conflicts) - 1)
            if isinstance(chosen, Resolution) and chosen not in self.conflicts[start].resolutions:
                # The queue was worked out again meanwhile: the conflict is found by its resolution.
                start = next((i for i, c in enumerate(self.conflicts) if chosen in c.resolutions), start)
            if self.verdicts and chosen is None and self.start == 0:
                return "v0"
            return str(start)
        return "v0" if self.verdicts else None

    def _chosen_button(self) -> Button | None:
        """The button of the resolution or answer whose preview was cancelled, if it is shown."""
        chosen = self.chosen
        buttons = list(self.query("#resolutions Button").results(Button))
        if isinstance(chosen, VerdictChoice):
            return next((b for b in buttons if b.name == chosen.action), None)
        verdict = self.selected_verdict
        if isinstance(chosen, Resolution) and verdict is not None and chosen in either_way(verdict):
            number = f"s{either_way(verdict).index(chosen)}"
            return next((b for b in buttons if b.name == number), None)
        conflict = self.selected
        if isinstance(chosen, Resolution) and conflict is not None and chosen in conflict.resolutions:
            number = str(conflict.resolutions.index(chosen))
            return next((b for b in buttons if b.name == number), None)
        return None

    def _key(self) -> str | None:
        listing = self.query_one("#conflict-list", OptionList)
        index = listing.highlighted
        if index is None or not listing.option_count:
            return None
        return listing.get_option_at_index(index).id

    @property
    def selected(self) -> Conflict | None:
        key = self._key()
        return (
            self.conflicts[int(key)] if key is not None and key.isdigit() and int(key) < len(self.conflicts) else None
        )

    @property
    def selected_verdict(self) -> Verdict | None:
        key = self._key()
        return (
            self.verdicts[int(key[1:])]
            if key is not None and key.startswith("v") and int(key[1:]) < len(self.verdicts)
            else None
        )

    @on(OptionList.OptionHighlighted)
    async def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        # The list as it is now (an older highlight's message can arrive after a newer one).
        key = self._key()
        if key is not None and key != MORE and key != self.shown:
            await self._show(key)
        self.refresh_bindings()

    async def _show(self, key: str) -> None:
        self.shown = key
        if key.startswith("v"):
            await self._show_verdict(self.verdicts[int(key[1:])])
            return
        conflict = self.conflicts[int(key)]
        self.query_one("#resolutions-title", Static).update(
            Content.styled("Resolutions (each shows its diff first)", "bold $text 60%")
        )
        self.query_one("#reason", Static).update(
            Content.assemble(
                (clean(kind_words(conflict.kind)), "bold $text-warning"),
                (f" · {clean(conflict.kind)}", "$text 60%"),
                "\n",
                clean(conflict.reason),
            )
        )
        buttons = []
        for number, resolution in enumerate(conflict.resolutions):
            refused = self.refusal(resolution) if self.refusal is not None else None
            can = resolution_proposal(resolution) is not None and refused is None
            label = titled(resolution.label, conflict.ids, self.documents)
            button = Button(
                Content(clean(label + (" (not in this vault's format)" if refused else ""))),
                name=str(number),
                compact=True,
                variant="primary" if can else "default",
            )
            if refused:
                button.tooltip = Content(clean(refused))
            else:
                button.tooltip = Content(
                    clean(("Preview, then apply: " if can else "Needs you: run ") + resolution.command)
                )
            buttons.append(button)
        await self._fill(buttons, conflict.ids[:2])

    async def _show_verdict(self, verdict: Verdict) -> None:
        """The agent's verdict and reason, what the curator can answer, and both records."""
        titles = self.titles
        self.query_one("#reason", Static).update(verdict_text(verdict, titles))
        self.query_one("#resolutions-title", Static).update(
            Content.styled("Your answer (each shows its diff first)", "bold $text 60%")
        )
        keys = {"accept": "a", "reject": "r", "accept-all": "A"}
        answers = list(answers_to(verdict))
        together = len(replacements_of(self.verdicts, verdict.agent))
        if verdict.verdict in ("replaces", "reversed") and together > 1:
            answers.append("accept-all")
        buttons = []
        for action in answers:
            label = Content(clean(f"{choice_label(action, verdict, together)}  {keys[action]}"))
            button = Button(label, name=action, compact=True, variant="primary")
            binding = next(b for b in self.BINDINGS if isinstance(b, Binding) and b.key == keys[action])
            button.tooltip = Content(clean(binding.tooltip or ""))
            buttons.append(button)
        # A companion or unsure verdict: the person's own answer may be a supersession, either way.
        for number, resolution in enumerate(either_way(verdict)):
            refused = self.refusal(resolution) if self.refusal is not None else None
            text = titled(resolution.label, [verdict.older, verdict.newer], self.documents)
            text += " (not in this vault's format)" if refused else ""
            variant: Literal["default", "primary"] = "default" if refused else "primary"
            button = Button(Content(clean(text)), name=f"s{number}", compact=True, variant=variant)
            button.tooltip = Content(clean(refused or f"Preview, then apply: {resolution.command}"))
            buttons.insert(len(buttons) if verdict.verdict == "companion" else number, button)
        await self._fill(buttons, [verdict.newer, verdict.older])

    async def _fill(self, buttons: list[Button], sides: Sequence[str]) -> None:
        for button in buttons:
            button.entry = self.shown  # type: ignore[attr-defined]  # pressed, it acts only while its entry is highlighted
        box = self.query_one("#resolutions", Vertical)
        await box.remove_children()
        await box.mount_all(buttons)
        panes = self.query_one("#sides", Horizontal)
        await panes.remove_children()
        await panes.mount_all([Static(self._side(doc_id), classes="side") for doc_id in sides])

    def _side(self, doc_id: str) -> Content:
        """One side of the conflict: title, status and the start of its text."""
        doc = self.documents.get(doc_id)
        if doc is None:
            return Content.assemble((clean(doc_id), "bold"), ("\nnot a valid document", "$text 60%"))
        lines = [line for line in doc.body.splitlines() if line.strip() and not line.startswith(("#", "```"))][
            :EXCERPT_LINES
        ]
        stated = doc.stated_status
        return Content.assemble(
            (clean(doc.title), "bold"),
            "\n",
            status_badge(doc.status),
            # The status in the record's own word, when it has one of its own ("Proposed", "Accepted").
            (f" “{clean(stated)}”" if stated and stated.lower() != doc.status else "", "$text 60%"),
            (f"  {doc.type} · updated {doc.stated_updated or 'no date read from the file'}", "$text 60%"),
            "\n",
            (clean("\n".join(lines)), "$text 60%"),
        )

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id == MORE:
            self._list_more()
            return
        buttons = self.query("#resolutions Button")
        if buttons:
            buttons.first().focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        name = event.button.name
        if name is None or getattr(event.button, "entry", None) != self._key():
            return  # a button of an entry no longer highlighted (the list moved under it)
        verdict = self.selected_verdict
        if verdict is not None and not name.startswith("s"):
            self.action_answer(name)
            return
        conflict = self.selected
        resolution = None
        if verdict is not None:
            resolution = either_way(verdict)[int(name[1:])]
        elif conflict is not None:
            resolution = conflict.resolutions[int(name)]
        if resolution is not None:
            refused = self.refusal(resolution) if self.refusal is not None else None
            if refused:
                self.notify(refused, title="Not in this vault's format", severity="warning", markup=False, timeout=10)
                return
            self.dismiss(resolution)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """↑↓ are the resolutions' own only while one of them has the focus (the list moves itself);
        the answers to a verdict are offered only on one, `A` only where the agent judged more than
        one replacement."""
        if action == "resolution":
            return isinstance(self.focused, Button)
        if action == "answer":
            verdict = self.selected_verdict
            if verdict is None:
                return False
            if parameters and parameters[0] in ("accept", "reject"):
                return parameters[0] in answers_to(verdict)
            if parameters and parameters[0] == "accept-all":
                return (
                    verdict.verdict in ("replaces", "reversed")
                    and len(replacements_of(self.verdicts, verdict.agent)) > 1
                )
        return True

    def action_answer(self, action: str) -> None:
        verdict = self.selected_verdict
        if verdict is None:
            return
        if action == "accept-all":
            ids = tuple(v.id for v in replacements_of(self.verdicts, verdict.agent))
            self.dismiss(VerdictChoice(action, verdict, ids))
        elif action in answers_to(verdict):
            self.dismiss(VerdictChoice(action, verdict))

    def action_resolution(self, step: int) -> None:
        buttons = list(self.query("#resolutions Button"))
        focused = self.focused
        if focused not in buttons:
            return
        index = buttons.index(focused) + step
        if index < 0:
            self.query_one("#conflict-list").focus()
        elif index < len(buttons):
            buttons[index].focus()

    def action_open_first(self) -> None:
        verdict = self.selected_verdict
        if verdict is not None:
            self.dismiss(verdict.newer)
        elif self.selected is not None:
            self.dismiss(self.selected.ids[0])

    def action_close(self) -> None:
        self.dismiss(None)
