"""What the workbench says while a dialog is open: a line above the dialog, never a toast over it.

Textual shows a notice as a toast in a corner of the screen, on top of whatever is there. Over a
dialog that is the dialog's own text: the "changed on disk" explanation, the inbox list after each
settle, the queue's detail pane, a preview's buttons at 80x24. So while a dialog (`.wb-dialog`) is
on top, the app hands each notice here instead: the newest notices, each for its own time, in a
band docked at the top of the dialog's screen, which the dialog is laid out below. Toasts are hidden
on a dialog's screen (app.tcss): one the main screen was showing when the dialog opened, or one
still due when it closes, shows on the main screen.
"""

from __future__ import annotations

import time

from textual.content import Content
from textual.notifications import Notification
from textual.screen import Screen
from textual.widgets import Static

__all__ = ["DialogNews", "dialog_news"]

SHOWN = 3
"""How many notices the band shows at once, newest first."""


class DialogNews(Static):
    """The band of notices of one dialog's screen."""

    DEFAULT_CSS = """
    DialogNews {
        dock: top;
        width: 100%;
        height: auto;
        max-height: 4;
        padding: 0 1;
        background: $panel;
        color: $text;
        display: none;
        &.-shown { display: block; }
        &.-warning { background: $warning 25%; }
        &.-error { background: $error 30%; }
    }
    """

    def __init__(self) -> None:
        super().__init__(id="dialog-news", markup=False)
        self.notices: list[tuple[Notification, float]] = []
        """Each notice shown with the moment it goes."""

    def show(self, notice: Notification) -> None:
        self.notices.append((notice, time.monotonic() + notice.timeout))
        self.set_timer(notice.timeout, self._expire)
        self._draw()

    def clear(self) -> None:
        self.notices = []
        self._draw()

    def _expire(self) -> None:
        now = time.monotonic()
        self.notices = [(notice, until) for notice, until in self.notices if until > now + 0.01]
        self._draw()

    def _draw(self) -> None:
        shown = [notice for notice, _ in reversed(self.notices)][:SHOWN]
        lines = []
        for notice in shown:
            message = " ".join(notice.message.split())
            text = Content.from_markup(message) if notice.markup else Content(message)
            lines.append(Content.assemble((f"{notice.title}: ", "bold") if notice.title else "", text))
        self.update(Content("\n").join(lines))
        self.set_class(bool(shown), "-shown")
        worst = {notice.severity for notice in shown}
        self.set_class("error" in worst, "-error")
        self.set_class("warning" in worst and "error" not in worst, "-warning")


def dialog_news(screen: Screen) -> DialogNews | None:
    """The band of `screen` when it is a dialog (made on its first notice), else None."""
    if not screen.has_class("wb-dialog") or not screen.is_attached:
        return None
    found = screen.query(DialogNews)
    if found:
        return found.first()
    news = DialogNews()
    screen.mount(news)
    return news
