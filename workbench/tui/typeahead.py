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
  has been through the focused widget and each of its parents up to the app, and the app's
  bindings have acted on it (and the focus its action moved has moved), or a widget kept it;
- `enter` in the main screen's search box, results or links opens a document, which is read in a
  worker: the next keys wait until it is on show, with the focus where it goes (`release`).

Each hold ends by itself after a moment (`SECONDS`, `OPENING`), so that no key is ever lost to a
hold that nothing released (a document that could not be read).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from textual import events
from textual.dom import DOMNode
from textual.widgets import Input

if TYPE_CHECKING:
    from textual.app import App
    from textual.message_pump import MessagePump
    from textual.timer import Timer

__all__ = ["OPENING", "SECONDS", "TypeAhead", "takes_letters"]

SECONDS = 0.5
"""The longest a key's own hold lasts (it usually ends within a few milliseconds)."""
OPENING = 2.0
"""The longest keys wait for a document being opened (reading one takes well under 0.1 s)."""


def takes_letters(widget: object) -> bool:
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
        self._hold = 0
        """Counts the holds, so that what was set going for one never ends a later one."""
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
        if takes_letters(focused) and key.is_printable:
            return None  # a letter typed into a box: the box takes the next ones in order too
        active = self.app.screen.active_bindings.get(key.key)
        return SECONDS if active is not None and active.enabled else None

    def hold(self, key: events.Key, seconds: float, handed_to: MessagePump | None) -> None:
        """Hold the keys after `key` for at most `seconds`. A key's own hold (`SECONDS`) ends once
        the key has been through the widget it was `handed_to` (None: the app took it itself) and
        each parent up to the app, whose bindings act on it last; a document's (`OPENING`) ends
        when it is on show (`release`)."""
        if self.held is None:
            self.held = []
        self._hold += 1
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.app.set_timer(seconds, self.release)
        if seconds < OPENING:
            if handed_to is None:
                self.app.call_later(self._done, self._hold)
            else:
                handed_to.call_later(self._passed, handed_to, self._hold)

    def _passed(self, node: MessagePump, hold: int) -> None:
        """Run from `node`'s queue, behind the key: the key has been through `node`, and is now in
        its parent's queue if it went on up; follow it there."""
        parent = node.parent if isinstance(node, DOMNode) else None
        if parent is None or parent is self.app:
            self.app.call_later(self._done, hold)
        else:
            parent.call_later(self._passed, parent, hold)

    def _done(self, hold: int) -> None:
        """The app has acted on the key: let the next keys go once the focus its action moved has
        moved (Textual moves it on the app's next turn, queued by now)."""
        if hold == self._hold:
            self.app.call_later(self._release, hold)

    def _release(self, hold: int) -> None:
        if hold == self._hold:
            self.release()

    def release(self) -> None:
        """Let the held keys through, in order (each may hold the ones after it again)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._hold += 1
        held, self.held = self.held, None
        for key in held or ():
            self.app.post_message(key)
