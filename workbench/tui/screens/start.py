"""The main screen's start, when titles were kept from the last launch (`first_page.py`): they are
on show in the first frame and the vault is opened after it; a document asked for before the vault
is read waits for it; and the first titles the vault lists are kept for the next launch."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from ..first_page import KeptTitle, keep_first_page

if TYPE_CHECKING:
    from textual.screen import Screen

    from ...core import Vault
    from ..opening import Opening

    from ..widgets.search import Titled

__all__ = ["Start"]


class Start:
    """`kept`: the titles to show until the vault is read (none when it is being opened already)."""

    def __init__(self, vault_path: Path, flavour: str | None, opening: object, kept: Sequence[KeptTitle]) -> None:
        self.vault_path, self.flavour = vault_path, flavour
        self.kept = kept if opening is None else ()
        self._opened = threading.Event()
        """The vault is open, or could not be (set once)."""
        self._page: list[KeptTitle] | None = None
        """The blank listing's first titles as shown (None: the first listing answered a query)."""
        self._listed = False

    def begin(self, screen: Screen, load: Callable[[], object]) -> None:
        """Open the vault: at once, or, with titles on show, once they are painted and the footer's
        keys made (the refresh after), as the opening's thread would take the interpreter from those
        frames."""
        if self.kept:
            screen.call_after_refresh(screen.call_after_refresh, load)
        else:
            load()

    def opened(self, opening: Opening) -> Vault:
        """The vault `opening` opens, once it is (its error raised), said to those who wait for it."""
        try:
            return opening.result()
        finally:
            self._opened.set()

    def wait_for_vault(self) -> bool:
        """In a worker: wait until the vault is open (or could not be); False if the worker was
        cancelled meanwhile (a newer request)."""
        while not self._opened.wait(0.05):
            if get_current_worker().is_cancelled:
                return False
        return True

    def listed(self, page: Sequence[Titled] | None) -> None:
        """The search pane listed results: the first time, `page` is what the blank listing began
        with (None if that listing answered a query)."""
        if not self._listed and page is not None:
            self._page = [KeptTitle(doc.id, doc.title, doc.type, doc.status) for doc in page]
        self._listed = True

    def keep(self) -> None:
        """In the vault's thread, once the first results are listed."""
        if self._page is not None:
            keep_first_page(self.vault_path, self.flavour, self._page)
