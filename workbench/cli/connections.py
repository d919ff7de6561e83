"""Commands that connect the vault to what is outside it: `mcp` serves it to agents, `sync` to
the other clones of its git repository."""

from __future__ import annotations

import argparse
import sys

from ..core import RefusedError, Vault
from .output import EXIT_ERRORS, EXIT_OK, EXIT_REFUSED, UsageError, safe


def cmd_sync(vault: Vault, args: argparse.Namespace) -> int:
    from ..core import SyncError

    try:
        if args.setup:
            print("\n".join(vault.sync_setup()) or "already set up")
            return EXIT_OK
        report = vault.sync(remote=args.remote)
    except SyncError as exc:
        print(f"workbench: sync: {safe(str(exc))}", file=sys.stderr)
        return EXIT_REFUSED
    for step in report.steps:
        print(safe(step))
    for conflict in report.conflicts:
        print(f"conflict: {safe(conflict.describe())}")
    for link in report.supersession:
        print(f"supersession: {safe(link.describe())}")
    if report.conflicts:
        print("settle these in the workbench (S) or by hand, then `workbench sync` again", file=sys.stderr)
    elif report.supersession:
        print("merged; `workbench check` lists these links and `workbench supersede` mends them", file=sys.stderr)
    return EXIT_ERRORS if report.conflicts or report.supersession else EXIT_OK


def cmd_mcp(vault: Vault, args: argparse.Namespace) -> int:
    from ..agents.server import serve  # the MCP SDK loads only here

    if args.http is None:
        if args.token_file or args.allow_remote:
            raise UsageError("--token-file and --allow-remote go with --http HOST:PORT")
        return serve(vault, args.source, args.agent)
    from ..agents.http import check_host, is_loopback, new_token, parse_address, read_token

    try:  # a wrong address or token file is the command given wrongly: exit 2
        host, port = parse_address(args.http)
        check_host(host, args.allow_remote)
        token = read_token(args.token_file) if args.token_file else new_token()
    except RefusedError as exc:
        raise UsageError(str(exc)) from None
    if not is_loopback(host):
        print(
            f"workbench mcp: WARNING: serving on {host}, reachable from other machines; the token crosses the "
            "network in plain HTTP unless TLS is in front",
            file=sys.stderr,
        )
    return serve(vault, args.source, args.agent, http=(host, port), token=token, token_file=args.token_file)


def cmd_serve(vault: Vault, args: argparse.Namespace) -> int:
    """The TUI in a browser (`workbench.web`); the vault was opened here first, so it is checked
    and its derived state settled before the first page asks for an app."""
    from ..agents.http import is_loopback, new_token, parse_address, read_token

    try:  # a wrong address or token file is the command given wrongly: exit 2
        host, port = parse_address(args.address)
        token = read_token(args.token_file) if args.token_file else new_token()
    except RefusedError as exc:
        raise UsageError(str(exc).replace("--http ", "serve: ", 1)) from None
    if not is_loopback(host):
        if not args.allow_remote:
            raise UsageError(
                f"serve: {host} can be reached from other machines, and the token would cross the network in plain "
                "HTTP; add --allow-remote if that is meant (behind TLS or on a private network), or serve on 127.0.0.1"
            )
        print(
            f"workbench serve: WARNING: serving on {host}, reachable from other machines; the token crosses the "
            "network in plain HTTP unless TLS is in front",
            file=sys.stderr,
        )
    from ..web.server import serve  # aiohttp and textual-serve load only here

    return serve(vault.root, args.flavour, host, port, token, args.token_file, args.allow_remote)
