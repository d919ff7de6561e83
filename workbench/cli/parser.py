"""The command line's grammar: every command, its arguments and its help, and the checks made on
them before a vault is opened (a query that starts with `-word`, arguments that are not UTF-8)."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from ..core import Vault
from .output import EXIT_USAGE, UsageError, safe


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse's own exits with 2 and usage: keep that, in our words
        self.print_usage(sys.stderr)
        print(f"workbench: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="workbench", description="Curate an AI agent's memory vault.")
    parser.add_argument(
        "--vault",
        metavar="PATH",
        help="the vault to open (default: $WORKBENCH_VAULT, the current folder if it is a vault, else the sample)",
    )
    parser.add_argument(
        "--flavour",
        metavar="NAME",
        choices=Vault.flavour_names(),
        help=f"read the vault as this flavour when detection is wrong: {', '.join(Vault.flavour_names())}",
    )
    sub = parser.add_subparsers(dest="command", parser_class=Parser)

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

    new = sub.add_parser("new", help="the write gate: rank canonical homes for new knowledge, then merge or create")
    new.add_argument("--type", required=True, dest="doc_type")
    new.add_argument("--title", required=True)
    new.add_argument("--tags", default="", help="comma-separated")
    new.add_argument("--link", action="append", default=[], metavar="TYPE:TARGET")
    new.add_argument("--body-file", metavar="F", help="the body text, or - for standard input")
    new.add_argument("--status", default="active", choices=["draft", "active"], help="with --create (default active)")
    choice = new.add_mutually_exclusive_group()
    choice.add_argument("--merge-into", metavar="ID")
    choice.add_argument("--create", action="store_true")
    choice.add_argument("--supersede", metavar="ID")
    new.add_argument("--dry-run", action="store_true")
    new.add_argument("--json", action="store_true")
    new.add_argument(
        "--candidates", type=int, default=3, metavar="N", help="how many candidates to rank, 1-10 (default 3)"
    )

    found = sub.add_parser("conflicts", help="structural faults and candidate contradictions, with their resolutions")
    found.add_argument("--json", action="store_true")
    found.add_argument(
        "--full", action="store_true", help="work every pair out again, word rarities too, reading nothing kept"
    )
    review = sub.add_parser(
        "review",
        help="pairs of decisions that may replace one another, for a reader to judge, best first; --verdicts FILE records judgements",
    )
    review.add_argument(
        "--depth", type=int, metavar="D", help="how far down the ranking (default: one pair per two decisions)"
    )
    review.add_argument("--limit", type=int, default=5, metavar="N", help="pairs a page holds (default 5)")
    review.add_argument("--cursor", metavar="C", help="continue after the page that gave this cursor")
    review.add_argument(
        "--json", action="store_true", help="a page as JSON, with both records' excerpts (within 45,000 characters)"
    )
    review.add_argument(
        "--verdicts",
        metavar="FILE",
        help='record verdicts from JSON Lines ({"older", "newer", "verdict", "reason", "agent"} a line), or - for standard input',
    )
    compatible = sub.add_parser("compatible", help="record that two documents do not contradict each other")
    compatible.add_argument("a_id")
    compatible.add_argument("b_id")
    compatible.add_argument("--dry-run", action="store_true")
    retarget = sub.add_parser("retarget", help="point SOURCE's links at OLD to OLD's successor (or NEW)")
    retarget.add_argument("source_id")
    retarget.add_argument("old_id")
    retarget.add_argument("new_id", nargs="?")
    retarget.add_argument("--dry-run", action="store_true")
    merge = sub.add_parser("merge", help="fold a duplicate into its twin (SOURCE becomes superseded by TARGET)")
    merge.add_argument("source_id")
    merge.add_argument("--into", required=True, dest="target_id")
    merge.add_argument("--dry-run", action="store_true")

    consolidate = sub.add_parser("consolidate", help="groups of 3+ notes ready to fold into a canonical document")
    consolidate.add_argument("--into", metavar="ID")
    consolidate.add_argument("note_ids", nargs="*")
    consolidate.add_argument("--dry-run", action="store_true")
    consolidate.add_argument("--json", action="store_true")

    rename = sub.add_parser("rename", help="move a document to a new id and rewrite every link to it")
    rename.add_argument("old_id")
    rename.add_argument("new_id")
    rename.add_argument("--dry-run", action="store_true")
    forget = sub.add_parser("forget", help="delete a document and every trace of it (cannot be undone)")
    forget.add_argument("id")
    forget.add_argument("--confirm", required=True, metavar="ID", help="the same id again, exactly")
    forget.add_argument("--dry-run", action="store_true")
    undo = sub.add_parser("undo", help="revert the newest step of the undo stack (see history)")
    undo.add_argument("--dry-run", action="store_true")
    redo = sub.add_parser("redo", help="re-apply the step undone last, if its files are as the undo left them")
    redo.add_argument("--dry-run", action="store_true")
    history = sub.add_parser(
        "history", help="the undo stack, newest first: steps undone (redo takes them) and done (undo takes them)"
    )
    history.add_argument("--limit", type=int, default=20)
    history.add_argument("--json", action="store_true")
    recent = sub.add_parser(
        "recent", help="documents created or changed in the last N days, newest first, with the change log's line"
    )
    recent.add_argument("--days", type=int, default=7)
    recent.add_argument("--limit", type=int, default=20)
    recent.add_argument("--json", action="store_true")
    stale = sub.add_parser("stale", help="active documents not updated for N days")
    stale.add_argument("--days", type=int, default=90)
    stale.add_argument("--json", action="store_true")
    index = sub.add_parser("index", help="regenerate the generated sections of indexes/mem-index-vault.md")
    index.add_argument("--dry-run", action="store_true")

    links = sub.add_parser("links", help="a document's typed links, both directions")
    links.add_argument("id")
    links.add_argument("--depth", type=int, default=1)
    links.add_argument("--json", action="store_true")
    context = sub.add_parser("context", help="the context pack an agent would read for a document")
    context.add_argument("id")
    context.add_argument("--json", action="store_true")
    graph = sub.add_parser("graph", help="export the typed-link graph")
    graph.add_argument("--format", default="json", choices=["json", "dot", "mermaid", "graphml"])
    graph.add_argument("--root", metavar="ID")
    graph.add_argument("--depth", type=int, default=1)

    # No -h: a query word to leave out (`-hotfix`) would be read as -h with a value.
    search = sub.add_parser(
        "search",
        add_help=False,
        help='find documents: words, "phrases", type: status: tag: project: links: from: is: updated:>DATE, -exclude',
    )
    search.add_argument("query", nargs="*", help="the query; it may start with -word")
    search.add_argument("--help", action="help", help="show this help message and exit")
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("--json", action="store_true")

    migrate = sub.add_parser(
        "migrate", help="write a new Memory Core vault from this vault (any flavour); the source is never modified"
    )
    migrate.add_argument("--to", required=True, choices=["memory-core"], help="the flavour to write (Memory Core)")
    migrate.add_argument("out", metavar="OUT", help="a new or empty folder for the new vault")
    migrate.add_argument("--project", help="the project every document gets (default: the vault folder's name)")
    migrate.add_argument("--json", action="store_true")

    tier = sub.add_parser(
        "tier", help="tiered memory (memory.md, projects/, domains/, archive/): corrections, moves, forget, line counts"
    )
    tiers = tier.add_subparsers(dest="tier_command", required=True, parser_class=Parser)
    correct = tiers.add_parser(
        "correct", help="log a correction; the third time it is confirmed as a rule in memory.md"
    )
    correct.add_argument("text")
    correct.add_argument("--type", default="preference", help="preference, pattern, override, technical...")
    correct.add_argument("--context", default="")
    move = tiers.add_parser("move", help="move the entry that says WORDS to another tier")
    move.add_argument("words")
    move.add_argument(
        "--to",
        required=True,
        metavar="hot|cold|FILE",
        help="hot (memory.md), cold (archive/) or a file such as projects/app.md",
    )
    forget_entries = tiers.add_parser("forget", help="remove every entry that says WORDS from every tier")
    forget_entries.add_argument("words")
    forget_entries.add_argument("--confirm", required=True, metavar="WORDS", help="the same words again, exactly")
    tiers.add_parser("counts", help="bring index.md's line counts up to date")
    for each in (correct, move, forget_entries, tiers.choices["counts"]):
        each.add_argument("--dry-run", action="store_true")
    mcp = sub.add_parser(
        "mcp",
        help="serve the vault to an agent over MCP (stdio, or --http): search, read, context, write through the gate, forget requests",
    )
    mcp.add_argument(
        "--source",
        choices=["agent-claude", "agent-codex"],
        help="provenance source of the agent's writes when its client's name says neither Claude nor Codex",
    )
    mcp.add_argument(
        "--agent",
        metavar="NAME",
        help="the agent's name in provenance and the inbox (with its client's name beside it); its searches count for its next calls",
    )
    mcp.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve over HTTP (streamable HTTP at /mcp) instead of stdio, e.g. 127.0.0.1:8765; every request needs the bearer token",
    )
    mcp.add_argument(
        "--token-file",
        metavar="FILE",
        help="with --http: the bearer token is this file's text (default: a new token, printed on stderr)",
    )
    mcp.add_argument(
        "--allow-remote",
        action="store_true",
        help="with --http: serve on an address other machines can reach (the token then crosses the network)",
    )
    follow = sub.add_parser(
        "follow",
        help="keep the vault open and, after each change, the answers to `conflicts --json` and `review --json`"
        " a fresh process then finds (runs until interrupted)",
    )
    follow.add_argument(
        "--memory-most",
        type=int,
        metavar="MB",
        help="start again in place (the same process id, its lock kept) after a change left it holding more"
        " than this (default: 768 MB, or three times what it held once open, the more)",
    )
    serve = sub.add_parser("serve", help="the TUI in a browser, one app per page, every request needing the token")
    serve.add_argument(
        "address", nargs="?", default="127.0.0.1:8000", metavar="HOST:PORT", help="default 127.0.0.1:8000"
    )
    serve.add_argument(
        "--token-file", metavar="FILE", help="the token is this file's text (default: a new one, printed)"
    )
    serve.add_argument("--allow-remote", action="store_true", help="serve other machines too (directly or via a proxy)")
    inbox = sub.add_parser("inbox", help="what agents wrote or judged that awaits review; settle it with ACTION ID")
    inbox.add_argument(
        "action",
        nargs="?",
        choices=["accept", "reject", "merge", "supersede", "archive", "revert", "keep", "forget"],
        help="settle a request: accept, merge (--into), supersede (--replaces), archive, revert a merge, keep, forget (--confirm); "
        "a verdict (v-...): accept or reject",
    )
    inbox.add_argument("id", nargs="?", help="the document the request is on, or a verdict's id (v-...)")
    inbox.add_argument(
        "--agent",
        metavar="NAME",
        help="with accept and no ID: every open replaces/reversed verdict of this agent, as one change",
    )
    inbox.add_argument("--into", metavar="ID", help="with merge: the document to merge into")
    inbox.add_argument("--replaces", metavar="ID", help="with supersede: the document it replaces")
    inbox.add_argument("--confirm", metavar="ID", help="with forget: the same id again, exactly")
    inbox.add_argument(
        "--at", metavar="WHEN", help="which request, when the document holds several: its time as listed"
    )
    inbox.add_argument("--dry-run", action="store_true")
    inbox.add_argument("--diff", action="store_true", help="show what each agent wrote, as a diff")
    inbox.add_argument("--mark-reviewed", action="store_true", help="after listing: what is listed is no longer new")
    inbox.add_argument("--json", action="store_true")

    sync = sub.add_parser("sync", help="commit the vault's changes, fetch, merge document by document, push (git)")
    sync.add_argument("--setup", action="store_true", help="only register the document merge for git in this clone")
    sync.add_argument(
        "--remote", metavar="NAME", help="the remote to sync with (default: the branch's upstream, else origin)"
    )

    sub.add_parser("tui", help="start the workbench (the default with no command)")
    return parser


# Arguments that name files: a file name may be any bytes, so these are never judged as text.
FILE_ARGUMENTS = frozenset({"vault", "body_file", "out", "token_file", "verdicts"})


def check_text_arguments(args: argparse.Namespace) -> None:
    """Refuse an argument that is not valid UTF-8 text (a title, tags, an id, a query). Python
    hands such bytes over as lone surrogates, which no file and no terminal can take: written,
    they would end in a traceback halfway through a change."""
    for name, value in vars(args).items():
        if name in FILE_ARGUMENTS:
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    shown = repr(item.encode("utf-8", "surrogateescape"))[2:-1]  # the bytes as given
                    raise UsageError(
                        f"{name.replace('_', '-')}: not valid UTF-8 text ({safe(shown)}); nothing was written"
                    ) from None


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    """The command line; a search query may start with `-word` (leave out what has it), which
    argparse would otherwise take for an option it does not know."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if args.command == "search":
        args.query = [*args.query, *unknown]
        if not args.query:
            parser.error('search: give a query (words, "phrases", filters such as type:decision)')
    elif unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    return args
