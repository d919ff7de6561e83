"""The top line: which vault is open, how big it is, and whether anything in it is wrong."""

from __future__ import annotations

import time

from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from ..text import clean

__all__ = ["VaultHeader"]


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

    def _counts(self, short: bool) -> list[Content]:
        """What the vault holds and what is wrong with it, each part saying what it counts."""
        if self.unopened:
            return [Content.styled("not opened", "bold $text-error")]
        if self.documents is None:
            return [Content.styled("loading…", "italic $text 60%")]
        parts = [Content(f"{self.documents} {'doc' if short else 'document'}{'s' * (self.documents != 1)}")]
        errors = f"{self.errors} error{'s' * (self.errors != 1)}"
        parts.append(Content.styled(errors, "bold $text-error" if self.errors else "$text 60%"))
        if self.warnings:
            parts.append(Content.styled(f"{self.warnings} warning{'s' * (self.warnings != 1)}", "$text-warning"))
        if self.conflicts is None and self.looking_since is not None:
            seconds = int(time.monotonic() - self.looking_since)
            # The step in full, else its first word on a narrow terminal (`weighing`).
            step = clean(self.looking_step if not short else self.looking_step.split(" ", 1)[0])
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
        """The whole line if it fits; on a narrow terminal the name `workbench` goes first, then the
        labels shorten, then the vault's name is cut: the counts are never cut, a bare `│ 0` would
        not say what it counts."""
        separator = Content(" │ ")
        brand = Content.styled("workbench", "bold $primary")
        width = self.content_size.width
        name = clean(self.vault_name)
        for with_brand, short in ((True, False), (False, False), (False, True)):
            line = separator.join([*([brand] if with_brand else []), Content(name), *self._counts(short)])
            if line.cell_length <= width:
                return line
        counts = separator.join(self._counts(True))
        room = width - counts.cell_length - separator.cell_length
        cut = name if len(name) <= room else name[: max(room - 1, 1)] + "…"
        return separator.join([Content(cut), counts])
