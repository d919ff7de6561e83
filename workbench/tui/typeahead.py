"""Keys typed ahead wait for the keys before them: a burst acts as the same keys typed one by one.

Textual hands each key to the widget focused when the key is taken from the app's queue; the
bindings of the screen run later, once the key has come back up from that widget. So of keys sent
in one burst (a paste of keys, a macro, `tmux send-keys g down enter`), those after a key that
moves the focus went to the widget focused before it: `down` moved the results, not the links `g`
had just shown, and the `e` of `/ stripe enter e` was typed into the search box instead of editing
the document found.

`TypeAhead` holds the keys that come while a key is being acted on, and lets them through in order
once it is done:

- a key that a binding answers (not a letter typed into a text box) holds the next keys until it
  has come back up to the app and its action has run (and with it any focus the action moved);
- `enter` in the main screen's search box, results or links opens a document, which is read in a
  worker: the next keys wait until it is on show, with the focus where it goes (`release`).

Each hold ends by itself after a moment (`SECONDS`), so that no key is ever lost to a hold that
nothing released (a key a widget kept for itself, a document that could not be read).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from textual import events
from textual.widgets import Input

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer

__all__ = ["OPENING", "SECONDS", "TypeAhead"]

SECONDS = 0.5
"""The longest a key's own hold lasts (it usually ends within a few milliseconds)."""
OPENING = 2.0
"""The longest keys wait for a document being opened (reading one takes well under 0.1 s)."""


def _takes_letters(widget: object) -> bool:
    """A text box: an `Input`, or a `TextArea` (looked for only once its module is loaded, as it is
    whenever one exists: importing it at start cost the first titles a few milliseconds)."""
    text_area = sys.modules.get("textual.widgets._text_area")
    return isinstance(widget, Input) or (text_area is not None and isinstance(widget, text_area.TextArea))


class TypeAhead:
    """The keys held for the app `app`, in the order they came."""

    def __init__(self, app: App, opens: tuple[str, ...] = ()) -> None:
        self.app = app
        self.opens = opens
        """The ids of the widgets where `enter` opens a document (then keys wait for it)."""
        self.held: list[events.Key] | None = None
        """The keys waiting, or None when none has to."""
        self._for: events.Key | None = None
        """The key whose return to the app ends the hold (None: `release` ends it)."""
        self._timer: Timer | None = None

    def take(self, key: events.Key) -> bool:
        """Keep `key` for later if keys are held now (the caller then does nothing with it)."""
        if self.held is None:
            return False
        self.held.append(key)
        return True

    def before(self, key: events.Key) -> float | None:
        """How long the keys after `key` may have to wait (None: not at all), from where it goes."""
        focused = self.app.focused
        if key.key == "enter" and focused is not None and focused.id in self.opens:
            return OPENING
        if _takes_letters(focused) and key.is_printable:
            return None  # a letter typed into a box: the box takes the next ones in order too
        active = self.app.screen.active_bindings.get(key.key)
        return SECONDS if active is not None and active.enabled else None

    def hold(self, key: events.Key, seconds: float) -> None:
        """Hold the keys after `key` for at most `seconds`: a key's own hold (`SECONDS`) ends when
        it comes back to the app (`returned`), a document's (`OPENING`) when it is on show (`release`)."""
        if self.held is None:
            self.held = []
        self._for = key if seconds < OPENING else None
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.app.set_timer(seconds, self.release)

    def returned(self, key: events.Key) -> None:
        """`key` came back up to the app and its binding ran: the keys after it go on, after the
        focus its action moved (Textual moves it on the app's next turn)."""
        if key is self._for:
            self._for = None
            self.app.call_later(self.release)

    def release(self) -> None:
        """Let the held keys through, in order (each may hold the ones after it again)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        held, self.held, self._for = self.held, None, None
        for key in held or ():
            self.app.post_message(key)
