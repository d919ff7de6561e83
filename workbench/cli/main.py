"""`workbench [--vault PATH] COMMAND ...`: the entry point. It parses the command line
(`parser.py`), opens the vault, runs the command (`documents.py`, `curation.py`,
`connections.py`) and turns what the core refuses into an exit status and one line on stderr
(`output.py`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..core import QueryError, RefusedError, Vault, VaultError, WorkbenchError
from . import curation, documents
from .connections import cmd_mcp, cmd_serve, cmd_sync
from .output import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, UsageError, read_text_option, safe
from .parser import check_text_arguments, parse_arguments


NEVER_ON_THE_SAMPLE = {"sync": "sync with a git remote", "mcp": "serve it to an agent"}
"""The commands that connect a vault to something outside it: run where no vault is, they are
refused rather than pointed at the scratch sample."""


def resolve_vault_path(given: str | None, command: str | None = None) -> Path:
    """`--vault`, `$WORKBENCH_VAULT`, the current folder if it is a vault, else the scratch sample
    (said on stderr by a command; refused for the commands of `NEVER_ON_THE_SAMPLE`)."""
    if given:
        return Path(given)
    if os.environ.get("WORKBENCH_VAULT"):
        return Path(os.environ["WORKBENCH_VAULT"])
    if Vault.looks_like_vault(Path.cwd()):
        return Path.cwd()
    if command in NEVER_ON_THE_SAMPLE:
        raise UsageError(
            f"{Path.cwd()} is not a vault: name the vault to {NEVER_ON_THE_SAMPLE[command]} with --vault PATH"
            " (or $WORKBENCH_VAULT), or run this in its folder"
        )
    from ..samples import scratch_sample

    sample = scratch_sample()
    if command not in (None, "tui"):
        print(
            f"workbench: {safe(str(Path.cwd()))} is not a vault: working on the scratch sample ({safe(str(sample))});"
            " name yours with --vault PATH",
            file=sys.stderr,
        )
    return sample


def open_vault(given: str | None, flavour: str | None = None, command: str | None = None) -> Vault:
    vault = Vault.open(resolve_vault_path(given, command), flavour=flavour)
    for note in vault.recovery_notes:
        print(f"workbench: {safe(note)}", file=sys.stderr)
    empty = vault.empty_note()
    if empty is not None and command != "new":  # `new` writes the first one
        print(f"workbench: {safe(empty)}", file=sys.stderr)
    return vault


COMMANDS = {
    "check": documents.cmd_check,
    "migrate": documents.cmd_migrate,
    "search": documents.cmd_search,
    "show": documents.cmd_show,
    "new": documents.cmd_new,
    "links": documents.cmd_links,
    "context": documents.cmd_context,
    "graph": documents.cmd_graph,
    "stale": documents.cmd_stale,
    "recent": documents.cmd_recent,
    "conflicts": curation.cmd_conflicts,
    "consolidate": curation.cmd_consolidate,
    "history": curation.cmd_history,
    "inbox": curation.cmd_inbox,
    "review": curation.cmd_review,
    "undo": curation.stack_step("undo"),
    "redo": curation.stack_step("redo"),
    **{name: curation.writer(call) for name, call in curation.WRITERS.items()},
    "mcp": cmd_mcp,
    "serve": cmd_serve,
    "sync": cmd_sync,
}


def run_tui(vault_arg: str | None, flavour: str | None = None) -> int:
    path = Vault.require_folder(resolve_vault_path(vault_arg))  # refused here, before the screen is taken
    from ..tui.app import WorkbenchApp

    app = WorkbenchApp(path, flavour=flavour)
    app.run()
    return app.return_code or EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    try:
        check_text_arguments(args)
        if args.command == "new":
            args.body = documents.read_body(args)
        if args.command == "review" and args.verdicts:
            args.verdict_text = read_text_option("--verdicts", args.verdicts, "nothing was recorded")
        if args.command in (None, "tui"):
            return run_tui(args.vault, args.flavour)
        vault = open_vault(args.vault, args.flavour, args.command)
        shown = len(vault.recovery_notes)
        try:
            return COMMANDS[args.command](vault, args)
        finally:  # what the store did beyond the command (a record it set aside), said as it was at open
            for note in vault.recovery_notes[shown:]:
                print(f"workbench: {safe(note)}", file=sys.stderr)
    except VaultError as exc:
        print(f"workbench: {safe(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except RefusedError as exc:
        print(f"workbench: refused: {safe(str(exc))}", file=sys.stderr)
        return EXIT_REFUSED
    except (UsageError, QueryError) as exc:
        print(f"workbench: {safe(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except WorkbenchError as exc:
        print(f"workbench: {safe(str(exc))}", file=sys.stderr)
        return EXIT_REFUSED
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:
        print(f"workbench: {safe(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
