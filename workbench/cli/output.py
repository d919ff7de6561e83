"""What every command prints through: exit statuses, text made safe for a terminal, JSON, a change.

Exit status: 0 done or clean; 1 `check` found errors; 2 a usage error or an unreadable vault;
3 refused (an unknown id, a forbidden transition, a conflict), with a one-line reason on stderr.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ..core import Plan, WorkbenchError
from .json_text import json_default as json_default, print_json as print_json  # every command prints JSON so
from .json_text import print_pieces as print_pieces  # and the conflicts queue's pieces

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_REFUSED = 0, 1, 2, 3
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
LINE_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def safe(text: str) -> str:
    """Text from a vault, made harmless for a terminal: control characters shown, never obeyed."""
    return CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def read_text_option(option: str, given: str, undone: str) -> str:
    """The UTF-8 text of an option's FILE (or - for standard input), read before the vault is
    opened: a file that cannot be read, or is not text, is refused naming the option and saying
    what was therefore `undone` ("nothing was written"). A byte-order mark that an editor put at
    the start is no part of the text."""
    where = "standard input" if given == "-" else given
    try:
        raw = sys.stdin.buffer.read() if given == "-" else Path(given).read_bytes()
    except OSError as exc:
        raise UsageError(f"{option} {safe(where)}: {exc.strerror or exc}") from exc
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{option} {safe(where)}: not valid UTF-8 text (byte {exc.start}); {undone}") from None


def one_line(text: str) -> str:
    """`safe`, and a line break or tab shown too: a file name must not forge a line of a report."""
    return LINE_CONTROL.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )


class UsageError(WorkbenchError):
    """A command given wrongly: exit status 2, the reason on stderr."""


def report_plan(plan: Plan, dry_run: bool) -> None:
    if dry_run:
        sys.stdout.write(safe(plan.diff()) if not plan.empty else f"{safe(plan.summary)}: nothing to change\n")
    elif plan.empty:
        print(f"{safe(plan.summary)}: nothing changed")
    else:
        print(safe(plan.summary))
