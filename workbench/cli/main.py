"""`workbench [--vault PATH] COMMAND ...`: the entry point. It parses the command line
(`parser.py`), opens the vault, runs the command (`documents.py`, `curation.py`,
`connections.py`) and turns what the core refuses into an exit status and one line on stderr
(`output.py`).

`conflicts --json` and `review --json`, asked exactly so of a named vault, are first asked of
what is kept for an unchanged vault (`Fingerprint`), before the parser, the commands and the rest
of the core are imported: an agent polling a vault nothing changed in gets its answer for the
cost of a stat walk. Any miss goes the usual way, which keeps the answer for the next time."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from ..core import Fingerprint, Vault


NEVER_ON_THE_SAMPLE = {"sync": "sync with a git remote", "mcp": "serve it to an agent", "follow": "follow"}
"""The commands that connect a vault to something outside it: run where no vault is, they are
refused rather than pointed at the scratch sample."""


def resolve_vault_path(given: str | None, command: str | None = None) -> Path:
    """`--vault`, `$WORKBENCH_VAULT`, the current folder if it is a vault, else the scratch sample
    (said on stderr by a command; refused for the commands of `NEVER_ON_THE_SAMPLE`)."""
    from .output import UsageError, safe

    if given:
        return Path(given)
    if os.environ.get("WORKBENCH_VAULT"):
        return Path(os.environ["WORKBENCH_VAULT"])
    from ..core import Vault

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


def open_vault(
    given: str | None, flavour: str | None = None, command: str | None = None, listed: dict | None = None
) -> Vault:
    from ..core import Vault
    from .output import safe

    queue_fields = command in QUEUE_COMMANDS  # the queue's fields of every document read with the rows
    vault = Vault.open(resolve_vault_path(given, command), flavour=flavour, listed=listed, queue_fields=queue_fields)
    for note in vault.recovery_notes:
        print(f"workbench: {safe(note)}", file=sys.stderr)
    say_secret_refused()
    empty = vault.empty_note()
    if empty is not None and command != "new":  # `new` writes the first one
        print(f"workbench: {safe(empty)}", file=sys.stderr)
    return vault


_said: set[str] = set()  # the notes this process wrote on stderr already: each is said once


def say_secret_refused() -> None:
    """Why the user's store secret is refused, once a process on stderr. Asked (a small file read)
    by every command that opens a vault or answers for one, not left to the store: a warm open in
    the vault's own folder reads no secret, and its refusal went unsaid until a copy was built again."""
    from ..core import secret_note

    secret = secret_note(ask=True)
    if secret is not None and "secret" not in _said:  # once a process, however many opens
        from .output import safe

        _said.add("secret")
        print(f"workbench: {safe(secret)}", file=sys.stderr)


QUEUE_COMMANDS = frozenset({"conflicts", "review"})
"""The commands that ask the conflicts queue or the review list of every document."""


DOCUMENT_COMMANDS = frozenset(
    {"check", "migrate", "search", "show", "new", "links", "context", "graph", "stale", "recent"}
)
"""The commands of `documents.py`; those of `connections.py` are CONNECTION_COMMANDS, the rest `curation.py`'s."""
CONNECTION_COMMANDS = frozenset({"mcp", "serve", "sync"})


def command(name: str) -> Callable[[Vault, argparse.Namespace], int]:
    """The function of the command `name`, its module imported now and the others not: a process
    runs one command (the queue's after a change imported every command's module, the agents'
    server's and git's among them)."""
    if name in DOCUMENT_COMMANDS:
        from . import documents

        return getattr(documents, f"cmd_{name}")
    if name in CONNECTION_COMMANDS:
        from . import connections

        return getattr(connections, f"cmd_{name}")
    from . import curation

    if name in ("undo", "redo"):
        return curation.stack_step(name)
    if name in curation.WRITERS:
        return curation.writer(curation.WRITERS[name])
    return getattr(curation, f"cmd_{name}")


def run_tui(vault_arg: str | None, flavour: str | None = None) -> int:
    from ..core import Vault

    path = Vault.require_folder(resolve_vault_path(vault_arg))  # refused here, before the screen is taken
    from ..tui.app import WorkbenchApp
    from .output import EXIT_OK

    app = WorkbenchApp(path, flavour=flavour)
    app.run()
    return app.return_code or EXIT_OK


QUICK: dict[tuple[str, ...], tuple] = {
    ("conflicts", "--json"): ("conflicts", False),
    ("review", "--json"): ("review", 5, None, None, None),
}
"""The command lines answered from what is kept for an unchanged vault, and the question each asks
of the facade (the command and its arguments as the parser gives them): `keep` keeps an answer
only where the facade was asked the same."""

QUICK_ARGUMENTS: dict[tuple[str, ...], dict[str, Any]] = {
    ("conflicts", "--json"): {"command": "conflicts", "json": True, "full": False},
    ("review", "--json"): {
        "command": "review",
        "depth": None,
        "limit": 5,
        "cursor": None,
        "json": True,
        "verdicts": None,
    },
}
"""What the parser gives for each of QUICK's command lines beside `--vault` and `--flavour`: such a
line that finds nothing kept is run without building the parser (every command's grammar, 5-7 ms
of a call after a change). `tests/test_kept_answers.py` holds them to the parser's own."""


def quick_question(argv: list[str]) -> tuple[tuple, str, str | None] | None:
    """(question, vault path, flavour named) when `argv` is exactly one of QUICK's command lines
    after `--vault PATH` and `--flavour NAME` (or `$WORKBENCH_VAULT`), else None: anything else,
    an abbreviated option or a value the parser would refuse included, goes the usual way."""
    found = _quick_line(argv)
    return found[:3] if found is not None else None


def quick_arguments(argv: list[str]) -> argparse.Namespace | None:
    """The parsed command line (as `parse_arguments` gives it) of one of QUICK's command lines,
    made without the parser; None for any other line, or a flavour the parser would refuse."""
    found = _quick_line(argv)
    if found is None:
        return None
    import argparse

    from ..core import Vault

    _, _, flavour, given, line = found
    if flavour is not None and flavour not in Vault.flavour_names():
        return None  # the parser says why
    return argparse.Namespace(vault=given.get("--vault"), flavour=flavour, **QUICK_ARGUMENTS[line])


def _quick_line(argv: list[str]) -> tuple[tuple, str, str | None, dict[str, str], tuple[str, ...]] | None:
    """`quick_question`'s answer, with the options given and the command line after them."""
    given: dict[str, str] = {}
    rest = list(argv)
    while rest and rest[0].startswith("--") and rest[0] != "--":
        name, equals, value = rest.pop(0).partition("=")
        if name not in ("--vault", "--flavour") or name in given:
            return None
        if not equals:
            if not rest:
                return None
            value = rest.pop(0)
        if value.startswith("-"):
            return None
        given[name] = value
    line = tuple(rest)
    asked = QUICK.get(line)
    path = given.get("--vault") or os.environ.get("WORKBENCH_VAULT")
    if asked is None or not path or any(ord(c) < 32 for c in path):
        return None
    try:
        "".join(given.values()).encode("utf-8")
        path.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return asked, path, given.get("--flavour"), given, line


def answer_unchanged(question: tuple[tuple, str, str | None]) -> tuple[Any, Fingerprint | None]:
    """The answer kept for the vault as a stat walk finds it now, or kept for it by a follower at
    work on it within a bounded wait (None where none is), and that walk's fingerprint, for the
    usual way to keep its answer under (None where it failed)."""
    from ..core import Fingerprint

    asked, path, flavour = question
    try:
        fingerprint = Fingerprint(path, flavour, asked, Path(__file__).parent.glob("*.py"))
        found = fingerprint.answer()
        if found is None:  # a follower of the vault may be working it out (`workbench follow`)
            found = fingerprint.awaited()
        return found, fingerprint
    except Exception:  # any trouble here only means the vault is opened as ever
        return None, None


def print_answer(command: str, text: Any) -> None:
    """A kept answer printed as the command prints the one it works out: the review page's JSON
    text, or the queue's pieces of UTF-8 (`Fingerprint.answer`), written as they are where the
    output takes UTF-8, as `print` would encode the text."""
    if command == "review":
        import json

        from .json_text import print_json

        print_json(json.loads(text))
        return
    if isinstance(text, str):
        print(text)
        return
    from .json_text import print_pieces

    print_pieces(text)


_ending: list[Any] | None = None
"""What a process run by `run` keeps alive to its end (the vaults its command opened): freeing
10,000 records one by one is work for nothing in a process about to be gone. None (a caller of
`main` that goes on: a test, a script): freed as ever."""


def run() -> NoReturn:
    """`workbench` as a program (its console script, `python -m workbench.cli`): `main`, then the
    process ended at once where nothing is left to do (`ending.end`)."""
    global _ending
    _ending = []
    collecting = gc.isenabled()
    code = main()
    from .ending import end

    end(code, collecting)


def main(argv: list[str] | None = None) -> int:
    question = quick_question(sys.argv[1:] if argv is None else argv)
    if question is None:
        return run_command(argv)
    # A process that answers one question and ends: reference counting frees what it is done with,
    # and the cyclic collector only walked the vault's records again and again (20-40 ms of a
    # changed queue at 10,000 documents; its peak memory the same without it). Enabled again after
    # for a caller that goes on (a test, a script calling `main`), not in a process `run` is about
    # to end: the first pass would walk every object made meanwhile (30 ms after a changed queue).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return answer(question, argv)
    finally:
        if collecting and _ending is None:
            gc.enable()


def answer(question: tuple[tuple, str, str | None], argv: list[str] | None) -> int:
    """One of QUICK's command lines answered: as kept for the vault unchanged, else the usual way."""
    unchanged: Any = None
    try:
        text, unchanged = answer_unchanged(question)
        if text is not None:
            print_answer(question[0][0], text)
            say_secret_refused()
            return 0
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # printing it
        from .output import EXIT_USAGE, safe

        print(f"workbench: {safe(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    return run_command(argv, unchanged, quick=True)


def run_command(argv: list[str] | None, unchanged: Fingerprint | None = None, quick: bool = False) -> int:
    """The command line parsed, the vault opened and the command run, the usual way; `unchanged`:
    the fingerprint its answer is kept under, and `quick`, the line one of QUICK's (`quick_question`)."""
    from ..core import QueryError, RefusedError, VaultError, WorkbenchError
    from .output import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, UsageError, read_text_option, safe

    args = quick_arguments(sys.argv[1:] if argv is None else argv) if quick else None
    parsed = args is None  # a line of QUICK's is made without the parser, its words taken as UTF-8 only
    if args is None:
        from .parser import parse_arguments

        args = parse_arguments(argv)
    if unchanged is not None:
        args.unchanged = unchanged  # the usual way keeps its answer under it
    try:
        if parsed:
            from .parser import check_text_arguments

            check_text_arguments(args)
        if args.command == "new":
            from . import documents

            args.body = documents.read_body(args)
        if args.command == "review" and args.verdicts:
            args.verdict_text = read_text_option("--verdicts", args.verdicts, "nothing was recorded")
        if args.command in (None, "tui"):
            return run_tui(args.vault, args.flavour)
        if args.command == "follow":  # opens the vault itself, after its first walk
            from .following import run_follow

            opener = lambda path, listed: open_vault(path, args.flavour, "conflicts", listed)  # the queue's open
            return run_follow(resolve_vault_path(args.vault, "follow"), args.flavour, QUICK, opener, args.memory_most)
        vault = open_vault(args.vault, args.flavour, args.command, unchanged.listing if unchanged is not None else None)
        if _ending is not None:
            _ending.append(vault)
        shown = len(vault.recovery_notes)
        try:
            return command(args.command)(vault, args)
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
