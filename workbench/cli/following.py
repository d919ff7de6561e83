"""`workbench follow`: a process that keeps the vault open and, after each change to it settles,
keeps the answers to `conflicts --json` and `review --json` that a fresh `workbench` then prints
as it prints an unchanged vault's (`core.Follower`). It runs in the foreground until interrupted
(SIGINT or SIGTERM end it after the round under way), saying on stderr a line for each round."""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .output import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, safe

__all__ = ["run_follow"]


def run_follow(
    path: Path,
    flavour: str | None,
    quick: dict[tuple[str, ...], tuple],
    opener: Callable[[str, dict[str, list[os.DirEntry]]], Any],
    memory_most_mb: int | None = None,
) -> int:
    """Follow the vault at `path` for `quick`'s questions (command line -> question, `main.QUICK`),
    opened by `opener(path, listed)` as a command line opens it; past `memory_most_mb` of memory
    after a round (`Follower`'s own bound where None), started again in place."""
    from ..core import Follower, Vault

    Vault.require_folder(path)  # refused here, with the open's own words, before anything is walked

    def say(line: str) -> None:
        print(f"workbench: {safe(line)}", file=sys.stderr, flush=True)

    given = str(path)
    # The review list first: the curator's loop asks it first (then the queue), and a process asking
    # one waits for the answers worked out before its own.
    follower = Follower(
        given,
        flavour,
        sorted(quick.values(), key=lambda asked: asked[0] != "review"),
        Path(__file__).parent.glob("*.py"),
        say,
        memory_most_mb << 20 if memory_most_mb is not None else None,
    )
    try:
        opened = follower.open(lambda listed: opener(given, listed))
    except ValueError as error:
        say(str(error))
        return EXIT_USAGE
    if not opened:
        say(f"another process follows {given} already: one follower a vault")
        return EXIT_ERRORS
    # A long-lived process, as `workbench mcp`: what the open made stays for its life. Frozen, the
    # collector's full passes no longer walk it, landing in whichever round made enough objects.
    gc.freeze()
    asked = " and ".join(f"`{' '.join(line)}`" for line in quick)
    say(f"following {given}: {asked} are kept after each change (interrupt to stop)")
    previous = {number: signal.signal(number, lambda *_: follower.stop()) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        follower.follow()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if not follower.restart:
            follower.close()
    if follower.restart:
        failed = _start_again(follower)  # returns only where the start again failed
        say(f"could not start again ({failed}): stopped")
        follower.close()
        return EXIT_ERRORS
    if follower.failed:
        say(f"{follower.failed}: stopped")
        return EXIT_ERRORS
    if follower.gone:
        say(f"{given} is gone: nothing left to follow")
        return EXIT_USAGE
    say(f"stopped after {follower.rounds} round(s)")
    return EXIT_OK


def _start_again(follower: Any) -> OSError:
    """This process replaced by a fresh one with the same command line (`exec`: the same process
    id, its output, its lock handed on): what the last rounds held is handed back whole. Returns
    only the error of an `exec` that failed."""
    from ..core import Vault

    environment = {**os.environ, **follower.mark.hand_on()}
    Vault.close_every_store()
    sys.stderr.flush()
    try:
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], environment)
    except OSError as error:
        return error
