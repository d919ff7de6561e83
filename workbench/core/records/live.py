"""Live reload: what agents, editors and `git pull` change on disk reaches a long-lived Vault.

A background thread watches the vault with watchfiles (inotify on Linux) and, for each batch of
changes, re-reads only the files that changed: their records, the search index and the graph's
inputs move together. Hidden folders (`.workbench/`, `.recovery/`, `.git/`) and editor debris are
ignored, so the workbench's own derived state never wakes it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from watchfiles import Change, watch

from .loading import collector_paused
from .vaultconfig import VERDICT_FILE
from .walk import is_debris, is_utf8

__all__ = ["VaultWatcher", "watched_folders"]

SWEEP_SECONDS = 10.0
POLL_SECONDS = 1.0  # between two walks where the OS watcher cannot watch the vault (`VaultWatcher._poll`)


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


def watched_folders(root: Path) -> list[str]:
    """The vault's folders, each to be watched on its own: the root and every folder in it but
    hidden ones, never through a symlink (the vault does not follow them either).

    Why not one recursive watch of the root: watchfiles sets that up in one call that holds the
    interpreter while the OS watcher walks every entry of the tree (0.4-1 s at 100,000 files), and
    no other thread (not the screen) runs meanwhile. Listed here, the interpreter passes between
    entries, and a watch of a single folder is one quick call to the OS."""
    folders = [str(root)]  # the root even when unreadable: watching it then fails as it should
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                # A name that is not UTF-8: the OS watcher takes UTF-8 alone, the walk never takes it.
                found = [
                    e.path
                    for e in entries
                    if not e.name.startswith(".") and is_utf8(e.name) and e.is_dir(follow_symlinks=False)
                ]
        except OSError:
            if folder != folders[0]:
                folders.remove(folder)  # gone or unreadable: the vault's walk reports it; a watch would fail
            continue
        folders.extend(found)
        stack.extend(found)
    return folders


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
        if not is_utf8(str(root)):
            self._poll()  # the OS watcher cannot be handed the vault's own path
            return
        while not self._stop.is_set():
            try:
                self._watch(root, watched_folders(root))
            except FileNotFoundError:
                if not root.is_dir():
                    raise  # the vault itself is gone: nothing left to watch
                # a folder vanished between listing the folders and watching them: list again

    def _poll(self) -> None:
        """Follow the vault by a walk every `POLL_SECONDS` until stopped: for a vault whose own
        folder's name is not UTF-8, which the OS watcher cannot watch (a stat per file each time:
        about a tenth of a second at 10,000 files)."""
        self._walk()
        self.ready.set()
        while not self._stop.wait(POLL_SECONDS):
            started = time.perf_counter()
            before = self.vault.generation
            self._walk()
            if self.vault.generation != before and self.on_change is not None:
                self.on_change([], time.perf_counter() - started)

    def _walk(self) -> None:
        """Catch up with the disk by a walk of the vault (a stat per file), the cycle collector
        paused: the walk's entries (100,000 at that size) live until it ends, and set off full
        collections that walked every object made since the app froze its heap, holding the
        interpreter (316 ms in a TUI session, its screen still). They hold no cycles: freed by
        their counts as ever."""
        with collector_paused():
            self.vault.refresh()

    def _watch(self, root: Path, folders: list[str]) -> None:
        """Apply each batch heard in `folders` until stopped, or until a folder appears (returning,
        so that it is watched too)."""
        caught_up = False
        for batch in watch(
            *folders,
            stop_event=self._stop,
            debounce=self.debounce_ms,
            step=10,
            rust_timeout=100,
            yield_on_timeout=True,
            raise_interrupt=False,
            recursive=False,
        ):
            seen = time.perf_counter()
            if not caught_up:
                # The first yield means the OS watches are in place: catch up on anything that
                # changed between the open (or the folders' listing) and now.
                self._walk()
                self._last_sweep = seen
                caught_up = True
                self.ready.set()
            settings = self.vault.settings_file
            paths = sorted({p for change, raw in batch if (p := _relevant(root, change, raw, settings))})
            if settings in paths:
                self.vault.reread_config()  # a person marked a pair compatible by hand, say
            files = [p for p in paths if p not in (settings, VERDICT_FILE)]
            appeared = False
            if files:
                folders_changed = [p for p in files if p.endswith("/") or not p.endswith(".md")]
                if folders_changed:
                    self._walk()  # a folder moved or vanished: walk again (still only changed files are parsed)
                    appeared = any((root / p).is_dir() for p in folders_changed)
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
                self._walk()
                self._last_sweep = time.perf_counter()
                if self.vault.generation != before and self.on_change is not None:
                    self.on_change([], self._last_sweep - swept)
            if appeared:
                return  # watch the new folder too (the catch-up after it brings in what it holds)
