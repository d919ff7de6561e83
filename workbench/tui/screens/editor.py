"""Handing the terminal to the person's editor (`e`) and taking it back, whatever the editor does.

An editor that cannot start (not installed, not executable, `$EDITOR` with an unclosed quote) must
give the screen back at once with a reason: an exception leaving Textual's `App.suspend()` skips
the resume, and the screen stayed blank for good.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from textual.app import SuspendNotSupported

__all__ = ["editor_command", "run_editor"]


def editor_command(path: Path) -> list[str]:
    """`$EDITOR` (with its own arguments) on `path`; vi when unset or blank. `ValueError` when
    `$EDITOR` cannot be split into words (an unclosed quote)."""
    return [*(shlex.split(os.environ.get("EDITOR") or "") or ["vi"]), str(path)]


def run_editor(app, path: Path) -> str | None:
    """Hand the terminal to the editor on `path` and take it back; None when it ran, else one line
    saying why it did not start.

    The failure is caught inside the suspension: an exception leaving `App.suspend()` skips the
    resume, and the screen stays blank for good (keys echoed raw, only ctrl+c exits)."""
    if app.is_web:  # `workbench serve`: no terminal to give, and an editor without one waits for good
        return f"the editor needs a terminal, and this app runs in a browser: edit {path} on the server"
    try:
        command = editor_command(path)
    except ValueError as exc:
        return f"$EDITOR cannot be read as a command ({exc}): {os.environ.get('EDITOR')}"
    failure: OSError | None = None
    try:
        with app.suspend():
            try:
                subprocess.run(command, check=False)
            except OSError as exc:
                failure = exc
    except SuspendNotSupported:  # no terminal to hand over (tests, the web): just run it
        try:
            subprocess.run(command, check=False, stdin=subprocess.DEVNULL, capture_output=True)
        except OSError as exc:
            failure = exc
    if failure is None:
        return None
    what = "not found" if isinstance(failure, FileNotFoundError) else (failure.strerror or str(failure))
    return f"{command[0]}: {what}. Set $EDITOR to an editor installed here (now {os.environ.get('EDITOR') or 'unset, so vi'})"
