"""The footer: Textual's, made again only when the keys it would show have changed, and showing
only the keys that fit whole.

Textual's `Footer` makes all of its keys again (a widget each) whenever the bindings may have
changed: on every focus move and every `refresh_bindings`, which the screen asks for after each
document opened, each search and each change of the vault. Making them takes longer than drawing a
document's first screen, and most of the time the keys are the same ones, enabled alike.

On a narrow terminal the last keys do not fit, and Textual cuts the last one mid-label ("c Confl").
Here a key that does not fit whole is left out, with every key after it: `?` lists them all.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer

__all__ = ["KeysFooter"]


def _keys_shown(screen: Screen) -> tuple:
    """What the footer shows of `screen`'s bindings: each key with its label, action and state."""
    return tuple(
        (
            binding.key,
            binding.key_display,
            binding.description,
            binding.action,
            enabled,
            tooltip,
            None if binding.group is None else binding.group.description,
        )
        for _node, binding, enabled, tooltip in screen.active_bindings.values()
        if binding.show or binding.key == screen.app.COMMAND_PALETTE_BINDING
    )


class KeysFooter(Footer):
    """A `Footer` that skips making its keys again when they would come out the same."""

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self._made_for: tuple | None = None
        """The keys as last made (None: not made yet)."""

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._made_for = _keys_shown(self.screen)
        yield from super().compose()

    def bindings_changed(self, screen: Screen) -> None:
        if self._made_for is not None and screen is self.screen and _keys_shown(screen) == self._made_for:
            return
        super().bindings_changed(screen)

    async def recompose(self) -> None:
        await super().recompose()
        self.call_after_refresh(self._leave_out_what_is_cut)

    def on_mount(self) -> None:
        self.call_after_refresh(self._leave_out_what_is_cut)

    def on_resize(self, event: Resize) -> None:
        for key in self.children:
            if not key.display:  # setting it lays the screen out again, even to the same value
                key.display = True  # measured again at the new width, all of them
        self.call_after_refresh(self._leave_out_what_is_cut)

    def _leave_out_what_is_cut(self) -> None:
        """Hide, from the first key that ends past the room left of the palette's key, every key."""
        palette = [key for key in self.children if key.has_class("-command-palette")]
        room = palette[0].region.x if palette and palette[0].display else self.region.right
        cut = False
        for key in self.children:
            if key in palette:
                continue
            cut = cut or key.region.right > room
            if cut and key.display:
                key.display = False
