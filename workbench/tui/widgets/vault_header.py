"""The top line: which vault is open, how big it is, and whether anything in it is wrong."""

from __future__ import annotations

import re
import time

from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from ..text import clean, shown_name

__all__ = ["VaultHeader", "step_words"]

SHORTEST = 4
"""The shortest of the header's forms (`VaultHeader._counts`)."""

NAME_KEPT = 10
"""The cells of the vault's name kept (its ellipsis one of them) before the labels shorten further."""

_PROGRESS = re.compile(r"^(.*\S)\s+(\d+)/(\d+)$")
"""A step that tells how far it has gone: `weighing pairs 12000/75780`."""


class VaultHeader(Widget):
    """`workbench │ sample-vault │ 67 documents │ 0 errors │ 1 warning │ 3 conflicts`, errors in the error colour."""

    DEFAULT_CSS = """
    VaultHeader {
        dock: top;
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    """

    vault_name: reactive[str] = reactive("")
    """The vault folder's name."""
    documents: reactive[int | None] = reactive(None)
    """How many documents the vault holds; None while it loads."""
    unopened: reactive[bool] = reactive(False)
    """The vault could not be opened (the results list says why)."""
    errors: reactive[int] = reactive(0)
    """Problems of severity error (invalid documents, broken links, ...)."""
    warnings: reactive[int] = reactive(0)
    conflicts: reactive[int | None] = reactive(None)
    """Open conflicts (the `c` queue): None while they are being looked for; -1 when they are
    looked for only when asked (a large vault)."""

    looking_since: reactive[float | None] = reactive(None)
    """When the person asked for the conflicts (`time.monotonic`), while they are worked out: the
    seconds since are shown beside them and counted on (minutes at 100,000 documents); None
    otherwise."""

    looking_step: reactive[str] = reactive("")
    """The step the queue's process says it has started (`weighing 100000 documents`), shown
    before the seconds while they are worked out; empty otherwise."""

    _ticking: Timer | None = None

    def on_mount(self) -> None:
        self.tooltip = "Errors and warnings: p lists them · conflicts: c opens the queue"

    def count_conflicts(self, count: int | None, asked: bool = False) -> None:
        """None while looking (`asked`: for the person, who is shown the seconds it has taken so
        far), -1 when not looked for (`c` asks)."""
        self.conflicts = count
        self.looking_since = time.monotonic() if count is None and asked else None
        self.looking_step = ""

    def watch_looking_since(self, since: float | None) -> None:
        """Redrawn every second while the person waits for the conflicts, so the count goes on."""
        if since is None:
            if self._ticking is not None:
                self._ticking.stop()
                self._ticking = None
        elif self._ticking is None:
            self._ticking = self.set_interval(1, self.refresh)

    def _counts(self, short: int = 0) -> list[Content]:
        """What the vault holds and what is wrong with it, each part saying what it counts; `short`
        from 0 (in full) to `SHORTEST`: `docs` for documents, then the step's progress as a share
        (`comparing duplicates 12%`), then the step's last words alone (`duplicates 12%`), then
        `err` and `warn` for errors and warnings."""
        if self.unopened:
            return [Content.styled("not opened", "bold $text-error")]
        if self.documents is None:
            return [Content.styled("loading…", "italic $text 60%")]
        parts = [Content(f"{self.documents} {'doc' if short else 'document'}{'s' * (self.documents != 1)}")]
        terse = short >= SHORTEST
        errors = f"{self.errors} err" if terse else f"{self.errors} error{'s' * (self.errors != 1)}"
        parts.append(Content.styled(errors, "bold $text-error" if self.errors else "$text 60%"))
        if self.warnings:
            warnings = f"{self.warnings} warn" if terse else f"{self.warnings} warning{'s' * (self.warnings != 1)}"
            parts.append(Content.styled(warnings, "$text-warning"))
        if self.conflicts is None and self.looking_since is not None:
            seconds = int(time.monotonic() - self.looking_since)
            step = clean(step_words(self.looking_step, short - 1))
            said = f"conflicts… {step} {seconds} s" if step else f"conflicts… {seconds} s"
            parts.append(Content.styled(said, "italic $text 60%"))
        elif self.conflicts is None:
            # No longer than the count that follows it: the line keeps its first word (`workbench`)
            # rather than losing it while the conflicts are worked out and taking it back after.
            parts.append(Content.styled("conflicts…", "italic $text 60%"))
        elif self.conflicts < 0:
            parts.append(Content.styled("conflicts: press c", "$text 60%"))
        else:
            conflicts = f"{self.conflicts} conflict{'s' * (self.conflicts != 1)}"
            parts.append(Content.styled(conflicts, "bold $text-warning" if self.conflicts else "$text 60%"))
        return parts

    def render(self) -> Content:
        """The whole line if it fits; on a narrow terminal the name `workbench` goes first, then
        the labels and the queue's step shorten step by step (`_counts`), the vault's name cut at
        from `docs` on, at each step before the next (to no fewer than `NAME_KEPT` cells): the counts are never cut,
        a bare `│ 0` would not say what it counts."""
        separator = Content(" │ ")
        brand = Content.styled("workbench", "bold $primary")
        width = self.content_size.width
        name = clean(shown_name(self.vault_name))
        line = separator.join([brand, Content(name), *self._counts(0)])
        if line.cell_length <= width:
            return line
        for short in range(SHORTEST + 1):
            counts = separator.join(self._counts(short))
            room = width - counts.cell_length - separator.cell_length
            if len(name) <= room:
                return separator.join([Content(name), counts])
            if (short and room >= NAME_KEPT) or short == SHORTEST:  # `docs` comes before a cut name
                return separator.join([Content(name[: max(room - 1, 1)] + "…"), counts])
        raise AssertionError("unreachable: the shortest form is returned")


def step_words(step: str, short: int = 0) -> str:
    """The queue's step (`comparing duplicates 12000/97655`, `reading the vault`) in full (`short`
    0 or less); 1: its progress as a share (`comparing duplicates 12%`); 2 or more: its last words
    alone (`duplicates 12%`), or its first word when it tells no progress (`reading`)."""
    found = _PROGRESS.match(step)
    if short <= 0:
        return step
    if found is None:
        return step if short == 1 else step.split(" ", 1)[0]
    name, done, total = found.group(1), int(found.group(2)), int(found.group(3))
    share = f"{min(100 * done // total, 100)}%" if total else f"{done}"
    return f"{name if short == 1 else name.rsplit(' ', 1)[-1]} {share}"
