"""The vault is opened from the moment the app is made, beside Textual's own start.

Textual spends a while before the main screen is mounted (its loop, the driver, the stylesheets,
composing the panes), and the screen's worker used to open the vault only then. `Opening` starts
a thread on the vault at once: reading the derived store and listing the files wait on the disk
and on SQLite, which let Textual's start run meanwhile, so the first titles come sooner.
"""

from __future__ import annotations

import gc
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core import Vault

__all__ = ["Opening"]


class Opening:
    """`Vault.open(path, flavour)` in a thread of its own; `result()` waits for it."""

    def __init__(self, path: Path, flavour: str | None = None) -> None:
        self.path = path
        self.flavour = flavour
        self._done = threading.Event()
        self._vault: Vault | None = None
        self._error: BaseException | None = None
        threading.Thread(target=self._open, name="open the vault", daemon=True).start()

    def _open(self) -> None:
        try:
            # The core's modules are imported here, in this thread: the first frame needs none of them.
            from ..core import Vault

            with Vault.collector_paused():
                self._vault = Vault.open(self.path, flavour=self.flavour)
                # What was just read lives as long as the app: frozen before the collector wakes,
                # which walked all of it (15 ms at 10,000 documents) on the way to the first titles.
                gc.freeze()
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits, reported there
            self._error = exc
        finally:
            self._done.set()

    def result(self) -> Vault:
        """The open vault, once it is; the error that stopped it is raised here."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._vault is not None
        return self._vault
