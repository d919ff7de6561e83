"""Live reload: what agents, editors and `git pull` change on disk reaches a long-lived Vault.

A background thread watches the vault with watchfiles (inotify on Linux) and, for each batch of
changes, re-reads only the files that changed: their records, the search index and the graph's
inputs move together. Hidden folders (`.workbench/`, `.recovery/`, `.git/`) and editor debris are
ignored, so the workbench's own derived state never wakes it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from watchfiles import Change, watch

from .vaultconfig import VERDICT_FILE
from .walk import is_debris

__all__ = ["VaultWatcher"]

SWEEP_SECONDS = 10.0


def _relevant(root: Path, change: Change, path: str, settings: str = "") -> str | None:
    """The vault-relative path of a Markdown file worth re-reading, of the vault's `settings`
    file, or of its readers' verdicts (a screen listing them hears of an agent's), or None."""
    try:
        relative = Path(path).relative_to(root)
    except ValueError:
        return None
    parts = relative.parts
    if settings and relative.as_posix() == settings:
        return settings
    if relative.as_posix() == VERDICT_FILE:
        return VERDICT_FILE
    if not parts or any(part.startswith(".") for part in parts) or is_debris(parts[-1]):
        return None
    if not parts[-1].endswith(".md"):
        # A folder that appears may already hold files whose events came before its watch did:
        # report it, and the caller walks again. Deleted paths may have been folders too.
        full = Path(path)
        if change == Change.deleted or (full.is_dir() and not full.is_symlink()):
            return relative.as_posix() + "/"
        return None
    return relative.as_posix()


class VaultWatcher:
    """Watches a vault until stopped; `on_change(paths, seconds)` hears of each applied batch, with
    how long re-reading took after the watcher saw it."""

    def __init__(self, vault, on_change: Callable[[list[str], float], None] | None = None, debounce_ms: int = 30):
        self.vault = vault
        self.on_change = on_change
        self.debounce_ms = debounce_ms
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.ready = threading.Event()
        self._last_sweep = 0.0

    def start(self) -> VaultWatcher:
        self._thread = threading.Thread(target=self._run, name="workbench-watcher", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> VaultWatcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        root = self.vault.root
        for batch in watch(
            root,
            stop_event=self._stop,
            debounce=self.debounce_ms,
            step=10,
            rust_timeout=100,
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            seen = time.perf_counter()
            if not self.ready.is_set():
                # The first yield means the OS watch is in place: catch up on anything that changed
                # between the open and now.
                self.vault.refresh()
                self._last_sweep = seen
                self.ready.set()
            settings = self.vault.settings_file
            paths = sorted({p for change, raw in batch if (p := _relevant(root, change, raw, settings))})
            if settings in paths:
                self.vault.reread_config()  # a person marked a pair compatible by hand, say
            files = [p for p in paths if p not in (settings, VERDICT_FILE)]
            if files:
                folders = [p for p in files if p.endswith("/") or not p.endswith(".md")]
                if folders:
                    self.vault.refresh()  # a folder moved or vanished: walk again (still only changed files are parsed)
                else:
                    self.vault.refresh_paths(files)
            if paths and self.on_change is not None:
                self.on_change(paths, time.perf_counter() - seen)
            if time.perf_counter() - self._last_sweep > SWEEP_SECONDS:
                # Now and then, after the batch is in (a walk and a stat per file costs a tenth of
                # a second at 10,000 files, which no batch should wait for): catch what the OS
                # may have dropped, such as an overflowed queue.
                swept = time.perf_counter()
                before = self.vault.generation
                self.vault.refresh()
                self._last_sweep = time.perf_counter()
                if self.vault.generation != before and self.on_change is not None:
                    self.on_change([], self._last_sweep - swept)
