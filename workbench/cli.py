"""The command line: `workbench [--vault PATH] COMMAND ...`, a thin face over the vault.

Exit status: 0 done or clean; 1 `check` found errors; 2 a usage error or an unreadable vault;
3 refused (an unknown id, a forbidden transition, a conflict), with a one-line reason on stderr.
Nothing here decides anything about a vault; it parses arguments, calls the core and prints.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from .core.changes import Plan
from .core.model import RefusedError, Severity, VaultError, WorkbenchError
from .core.repair import plan_repair
from .core.vault import Vault
from .core.walk import looks_like_vault

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_REFUSED = 0, 1, 2, 3
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe(text: str) -> str:
    """Text from a vault, made harmless for a terminal: control characters shown, never obeyed."""
    return CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _json_default(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, default=_json_default))


class UsageError(WorkbenchError):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own exits with 2 and usage: keep that, in our words
        self.print_usage(sys.stderr)
        print(f"workbench: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="workbench", description="Curate an AI agent's memory vault.")
    parser.add_argument("--vault", metavar="PATH", help="the vault to open (default: $WORKBENCH_VAULT, the current folder if it is a vault, else the sample)")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    check = sub.add_parser("check", help="list every problem in the vault")
    check.add_argument("--repair", action="store_true", help="repair what can be repaired deterministically")
    check.add_argument("--dry-run", action="store_true", help="with --repair: print the change, write nothing")
    check.add_argument("--json", action="store_true")

    show = sub.add_parser("show", help="print a document")
    show.add_argument("id")
    show.add_argument("--json", action="store_true")

    status = sub.add_parser("status", help="move a document along its lifecycle")
    status.add_argument("id")
    status.add_argument("new_status")
    status.add_argument("--dry-run", action="store_true")

    state = sub.add_parser("state", help="set a task's execution state (todo, in-progress, blocked, done)")
    state.add_argument("id")
    state.add_argument("new_state")
    state.add_argument("--dry-run", action="store_true")

    supersede = sub.add_parser("supersede", help="NEW_ID replaces OLD_ID (both files written together)")
    supersede.add_argument("old_id")
    supersede.add_argument("new_id")
    supersede.add_argument("--dry-run", action="store_true")

    sub.add_parser("tui", help="start the workbench (the default with no command)")
    return parser


def resolve_vault_path(given: str | None) -> Path:
    if given:
        return Path(given)
    if os.environ.get("WORKBENCH_VAULT"):
        return Path(os.environ["WORKBENCH_VAULT"])
    if looks_like_vault(Path.cwd()):
        return Path.cwd()
    from .samples import scratch_sample

    return scratch_sample()


def open_vault(given: str | None) -> Vault:
    vault = Vault.open(resolve_vault_path(given))
    for note in vault.recovery_notes:
        print(f"workbench: {safe(note)}", file=sys.stderr)
    return vault


def report_plan(plan: Plan, dry_run: bool) -> None:
    if dry_run:
        sys.stdout.write(safe(plan.diff()) if not plan.empty else f"{safe(plan.summary)}: nothing to change\n")
    elif plan.empty:
        print(f"{safe(plan.summary)}: nothing changed")
    else:
        print(safe(plan.summary))


def cmd_check(vault: Vault, args: argparse.Namespace) -> int:
    if args.repair:
        report = plan_repair(vault)
        if args.dry_run:
            report_plan(report.plan, True)
            return EXIT_OK
        vault.apply(report.plan)
        vault.refresh()
        if not args.json:
            for path in report.repaired:
                print(f"repaired {safe(path)}")
    problems = vault.problems
    errors = sum(1 for p in problems if p.severity == Severity.ERROR)
    if args.json:
        print_json({"vault": str(vault.root), "flavour": "memory-core", "documents": len(vault), "problems": [p.to_json() for p in problems]})
    else:
        for p in problems:
            where = f"{p.path}:{p.line}" if p.line else p.path
            print(f"{safe(where)}: {p.severity} {p.code}: {safe(p.message)}")
        warnings = len(problems) - errors
        print(f"{len(vault)} documents, {errors} error(s), {warnings} warning(s)")
    return EXIT_ERRORS if errors else EXIT_OK


def cmd_show(vault: Vault, args: argparse.Namespace) -> int:
    doc = vault.get(args.id)
    problems = vault.problems_for(doc.id)
    if args.json:
        print_json({"id": doc.id, "path": doc.path, "valid": doc.valid, "meta": doc.meta, "body": doc.body, "problems": [p.to_json() for p in problems]})
        return EXIT_OK
    print(safe(f"{doc.title}  [{doc.type} · {doc.status}]"))
    print(safe(f"{doc.id}  ({doc.path})"))
    if doc.tags:
        print(safe("tags: " + ", ".join(doc.tags)))
    for link in doc.links:
        print(safe(f"  {link.type} → {link.target}"))
    if doc.superseded_by:
        print(safe(f"superseded by: {', '.join(doc.superseded_by)}"))
    for p in problems:
        print(safe(f"! {p.severity} {p.code}: {p.message}"))
    print()
    sys.stdout.write(safe(doc.body.replace("\r\n", "\n")))
    if doc.body and not doc.body.endswith("\n"):
        print()
    return EXIT_OK


def cmd_status(vault: Vault, args: argparse.Namespace) -> int:
    report_plan(vault.set_status(args.id, args.new_status, dry_run=args.dry_run), args.dry_run)
    return EXIT_OK


def cmd_state(vault: Vault, args: argparse.Namespace) -> int:
    report_plan(vault.set_execution_state(args.id, args.new_state, dry_run=args.dry_run), args.dry_run)
    return EXIT_OK


def cmd_supersede(vault: Vault, args: argparse.Namespace) -> int:
    report_plan(vault.supersede(args.old_id, args.new_id, dry_run=args.dry_run), args.dry_run)
    return EXIT_OK


COMMANDS = {"check": cmd_check, "show": cmd_show, "status": cmd_status, "state": cmd_state, "supersede": cmd_supersede}


def run_tui(vault_arg: str | None) -> int:
    path = resolve_vault_path(vault_arg)
    from .tui.app import WorkbenchApp

    app = WorkbenchApp(path)
    app.run()
    return app.return_code or EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command in (None, "tui"):
            return run_tui(args.vault)
        vault = open_vault(args.vault)
        return COMMANDS[args.command](vault, args)
    except VaultError as exc:
        print(f"workbench: {safe(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except RefusedError as exc:
        print(f"workbench: refused: {safe(str(exc))}", file=sys.stderr)
        return EXIT_REFUSED
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


if __name__ == "__main__":
    raise SystemExit(main())
