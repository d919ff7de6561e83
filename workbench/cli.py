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

from .core import flavours
from .core.changes import Plan
from .core.gate import Draft, new_id_for
from .core.index import require_folder
from .core.migrate import migrate
from .core.model import QueryError, RefusedError, Severity, VaultError, WorkbenchError
from .core.vault import Vault
from .core.walk import looks_like_vault

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_REFUSED = 0, 1, 2, 3
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
LINE_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def safe(text: str) -> str:
    """Text from a vault, made harmless for a terminal: control characters shown, never obeyed."""
    return CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def one_line(text: str) -> str:
    """`safe`, and a line break or tab shown too: a file name must not forge a line of a report."""
    return LINE_CONTROL.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )


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
    parser.add_argument(
        "--vault",
        metavar="PATH",
        help="the vault to open (default: $WORKBENCH_VAULT, the current folder if it is a vault, else the sample)",
    )
    parser.add_argument(
        "--flavour",
        metavar="NAME",
        choices=flavours.names(),
        help=f"read the vault as this flavour when detection is wrong: {', '.join(flavours.names())}",
    )
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

    found = sub.add_parser("conflicts", help="structural faults and candidate contradictions, with their resolutions")
    found.add_argument("--json", action="store_true")
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
    tiers = tier.add_subparsers(dest="tier_command", required=True, parser_class=_Parser)
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
        help="serve the vault to an agent over MCP on stdio: search, read, context, write through the gate, forget requests",
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
    inbox = sub.add_parser("inbox", help="what agents wrote that awaits review; settle it with ACTION ID")
    inbox.add_argument(
        "action",
        nargs="?",
        choices=["accept", "merge", "supersede", "archive", "revert", "keep", "forget"],
        help="settle a request: accept, merge (--into), supersede (--replaces), archive, revert a merge, keep, forget (--confirm)",
    )
    inbox.add_argument("id", nargs="?", help="the document the request is on")
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


def resolve_vault_path(given: str | None) -> Path:
    if given:
        return Path(given)
    if os.environ.get("WORKBENCH_VAULT"):
        return Path(os.environ["WORKBENCH_VAULT"])
    if looks_like_vault(Path.cwd()):
        return Path.cwd()
    from .samples import scratch_sample

    return scratch_sample()


def open_vault(given: str | None, flavour: str | None = None) -> Vault:
    vault = Vault.open(resolve_vault_path(given), flavour=flavour)
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
        report = vault.repair(dry_run=args.dry_run)
        if args.dry_run:
            report_plan(report.plan, True)
            return EXIT_OK
        if not args.json:
            for path in report.repaired:
                print(f"repaired {one_line(path)}")
            for path in report.left:
                why = report.why.get(path)
                print(f"left for a person: {one_line(path)}" + (f" ({one_line(why)})" if why else ""))
            if report.index_plan is not None and report.index_plan.applied:
                print("regenerated the index's generated sections")
    problems = vault.problems
    errors = sum(1 for p in problems if p.severity == Severity.ERROR)
    if args.json:
        print_json(
            {
                "vault": str(vault.root),
                "flavour": vault.flavour.name,
                "documents": len(vault),
                "problems": [p.to_json() for p in problems],
            }
        )
    else:
        for p in problems:
            where = f"{p.path}:{p.line}" if p.line else p.path
            print(f"{one_line(where)}: {p.severity} {p.code}: {one_line(p.message)}")
        warnings = len(problems) - errors
        kind = "" if vault.flavour.native else f" ({vault.flavour.name} vault)"
        print(f"{len(vault)} documents{kind}, {errors} error(s), {warnings} warning(s)")
    return EXIT_ERRORS if errors else EXIT_OK


def cmd_migrate(vault: Vault, args: argparse.Namespace) -> int:
    report = migrate(vault, args.out, args.project)
    result = Vault.open(report.out, flavour="memory-core")
    errors = [p for p in result.problems if p.severity == Severity.ERROR]
    if args.json:
        print_json({**report.to_json(), "errors": [p.to_json() for p in errors]})
    else:
        print(
            f"migrated {len(report.written)} document(s) from the {vault.flavour.label} vault into {safe(str(report.out))}"
        )
        if report.unresolved:
            print(f"{report.unresolved} link(s) to nothing kept under unresolved_links")
        for path, problems in report.drafts.items():
            print(f"written as a draft to review: {safe(path)}: {safe('; '.join(problems))}")
        for p in errors:
            print(f"{safe(p.path)}: {p.severity} {p.code}: {safe(p.message)}")
        print(f"check on the new vault: {len(errors)} error(s)")
    return EXIT_ERRORS if errors else EXIT_OK


def cmd_show(vault: Vault, args: argparse.Namespace) -> int:
    doc = vault.get(args.id)
    problems = vault.problems_for(doc.id)
    if args.json:
        print_json(
            {
                "id": doc.id,
                "path": doc.path,
                "valid": doc.valid,
                "meta": doc.meta,
                "body": doc.body,
                "problems": [p.to_json() for p in problems],
            }
        )
        return EXIT_OK
    stated = f" ({doc.stated_status})" if doc.stated_status and doc.stated_status != doc.status else ""
    print(safe(f"{doc.title}  [{doc.type} · {doc.status}{stated}]"))
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


def _read_body(args: argparse.Namespace) -> str:
    """The body of `new`, read before the vault is opened: text that cannot be taken is refused
    before anything is written."""
    if not args.body_file:
        return ""
    where = "standard input" if args.body_file == "-" else args.body_file
    try:
        raw = sys.stdin.buffer.read() if args.body_file == "-" else Path(args.body_file).read_bytes()
    except OSError as exc:
        raise UsageError(f"--body-file {safe(where)}: {exc.strerror or exc}") from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"--body-file {safe(where)}: not valid UTF-8 text (byte {exc.start}); nothing was written"
        ) from None


def _draft(args: argparse.Namespace) -> Draft:
    links = []
    for spec in args.link:
        kind, sep, target = spec.partition(":")
        if not sep or not kind or not target:
            raise UsageError(f"--link {spec!r}: expected TYPE:TARGET, e.g. depends_on:mem-entity-x")
        links.append((kind.strip(), target.strip()))
    tags = [t.strip() for t in args.tags.split(",") if t.strip()]
    return Draft(args.doc_type, args.title, tags, links, args.body)


def cmd_new(vault: Vault, args: argparse.Namespace) -> int:
    draft = _draft(args)
    draft.check()
    if args.merge_into or args.create or args.supersede:
        if args.merge_into:
            plan = vault.merge_into(args.merge_into, draft, dry_run=args.dry_run)
        elif args.supersede:
            plan = vault.create_superseding(args.supersede, draft, dry_run=args.dry_run)
        else:
            plan = vault.create(draft, dry_run=args.dry_run, status=args.status)
        if args.json:
            print_json(
                {
                    "summary": plan.summary,
                    "applied": plan.applied,
                    "id": plan.created_id or args.merge_into,
                    "paths": plan.paths,
                }
            )
        else:
            report_plan(plan, args.dry_run)
        return EXIT_OK
    found = vault.gate(draft)
    proposed = new_id_for(vault, draft.type, draft.title)
    if args.json:
        print_json({"candidates": [c.to_json() for c in found], "proposed_id": proposed})
        return EXIT_OK
    if not found:
        print("No canonical document fits; create it with --create (and at least one --link).")
    for number, candidate in enumerate(found, start=1):
        verb = "supersede it with --supersede" if candidate.action == "supersede" else "merge with --merge-into"
        print(
            safe(
                f"{number}. {candidate.id}  “{candidate.title}”  [{candidate.type} · {candidate.status}]  score {candidate.score:.2f}"
            )
        )
        for reason in candidate.reasons:
            print(safe(f"     - {reason}"))
        print(safe(f"     → {verb} {candidate.id}"))
    print(safe(f"Or create it as {proposed} with --create."))
    return EXIT_OK


def cmd_conflicts(vault: Vault, args: argparse.Namespace) -> int:
    if args.json:
        print(vault.conflicts_json())
        return EXIT_OK
    found = vault.conflicts()
    for conflict in found:
        print(safe(f"{conflict.kind}: {', '.join(conflict.ids)}"))
        print(safe(f"  {conflict.reason}"))
        for resolution in conflict.resolutions:
            print(safe(f"  → workbench {resolution.command}    ({resolution.label})"))
    print(f"{len(found)} conflict(s)")
    return EXIT_OK


def cmd_consolidate(vault: Vault, args: argparse.Namespace) -> int:
    if args.into:
        report_plan(vault.consolidate(args.into, args.note_ids, dry_run=args.dry_run), args.dry_run)
        return EXIT_OK
    if args.note_ids:
        raise UsageError("name the canonical document with --into ID")
    groups = vault.consolidation_groups()
    if args.json:
        print_json({"groups": [g.to_json() for g in groups]})
        return EXIT_OK
    for group in groups:
        what = f"tag {group.key}" if group.reason == "tag" else f"all link {group.key}"
        print(safe(f"{len(group.notes)} notes ({what}): {', '.join(group.notes)}"))
        if group.suggested_into:
            print(safe(f"  → workbench consolidate --into {group.suggested_into} {' '.join(group.notes)}"))
    print(f"{len(groups)} group(s)")
    return EXIT_OK


def cmd_history(vault: Vault, args: argparse.Namespace) -> int:
    stack = vault.undo_stack()
    steps = stack.steps()[: max(args.limit, 0)]
    if args.json:
        print_json(
            {
                "changes": [
                    {
                        "id": s.id,
                        "number": n,
                        "time": dt.datetime.fromtimestamp(s.time).isoformat(timespec="seconds"),
                        "summary": s.summary,
                        "paths": list(s.paths),
                        "undone": s.undone,
                    }
                    for n, s in enumerate(steps, 1)
                ]
            }
        )
        return EXIT_OK
    nxt = stack.done[0].id if stack.done else None
    for number, step in enumerate(steps, 1):
        when = dt.datetime.fromtimestamp(step.time).strftime("%Y-%m-%d %H:%M")
        mark = (
            "  undone: `workbench redo` re-applies it"
            if step.undone and step is stack.undone[0]
            else "  undone"
            if step.undone
            else "  ← `workbench undo` reverts this next"
            if step.id == nxt
            else ""
        )
        print(
            safe(
                f"{'▶' if step.id == nxt else ' '} {number:>3}  {when}  {step.summary}  ({len(step.paths)} file(s)){mark}"
            )
        )
    if not steps:
        print("no changes made through the workbench yet")
    elif len(steps) < stack.total:
        print(f"… {stack.total - len(steps)} older step(s) not shown (--limit)")
    return EXIT_OK


def cmd_stale(vault: Vault, args: argparse.Namespace) -> int:
    found = vault.stale(args.days)
    if args.json:
        print_json(
            {
                "days": args.days,
                "stale": [
                    {
                        "id": d.id,
                        "title": d.title,
                        "type": d.type,
                        "updated_at": d.meta.get("updated_at"),
                        "age_days": age,
                    }
                    for d, age in found
                ],
            }
        )
        return EXIT_OK
    for doc, age in found:
        print(safe(f"{age:>5} days  {doc.id}  “{doc.title}”"))
    print(f"{len(found)} active document(s) not updated for {args.days} days: deprecate or archive them with `status`")
    return EXIT_OK


def cmd_links(vault: Vault, args: argparse.Namespace) -> int:
    from .core import graph

    hood = graph.neighbourhood(vault.graph(), args.id, depth=args.depth).to_json()
    if args.json:
        print_json(hood)
        return EXIT_OK
    titles = {n["id"]: n for n in hood["nodes"]}
    root = titles[hood["root"]]
    print(safe(f"{root['title']}  [{root['type']} · {root['status']}]  {root['id']}"))
    for edge in hood["edges"]:
        if edge["source"] == args.id:
            other = titles.get(edge["target"], {})
            print(safe(f"  → {edge['type']:<13} {edge['target']}  {other.get('title', '')}"))
    for edge in hood["edges"]:
        if edge["target"] == args.id:
            other = titles.get(edge["source"], {})
            print(safe(f"  ← {graph.inverse_label(edge['type']):<13} {edge['source']}  {other.get('title', '')}"))
    for depth in range(2, args.depth + 1):
        further = [node for node in hood["nodes"] if node["depth"] == depth]
        if further:
            print(f"  depth {depth}:")
        for node in further:
            print(safe(f"    {node['id']}  {node['title']}  [{node['type'] or 'missing'} · {node['status'] or '-'}]"))
    return EXIT_OK


def cmd_context(vault: Vault, args: argparse.Namespace) -> int:
    from .core import graph

    pack = graph.context_pack(vault.graph(), args.id)
    if args.json:
        print_json({"root": args.id, "documents": pack})
        return EXIT_OK
    for item in pack:
        print(safe(f"{item['depth']}  {item['id']:<48} [{item['type']} · {item['status']}]  {item['title']}"))
    return EXIT_OK


def cmd_graph(vault: Vault, args: argparse.Namespace) -> int:
    from .core import graph

    sys.stdout.write(graph.export(vault.graph(), args.format, root=args.root, depth=args.depth if args.root else None))
    return EXIT_OK


def cmd_search(vault: Vault, args: argparse.Namespace) -> int:
    query = " ".join(args.query)
    hits = vault.search(query, limit=args.limit)
    if args.json:
        print_json([h.to_json() for h in hits])
        return EXIT_OK
    around = vault.snippets(query, hits)
    bold, plain = ("\033[1m", "\033[0m") if sys.stdout.isatty() else ("", "")
    for hit in hits:
        note = (
            f"  → superseded by {', '.join(hit.superseded_by)}"
            if hit.status == "superseded" and hit.superseded_by
            else ""
        )
        print(safe(f"{hit.score:5.2f}  {hit.id:<48} [{hit.type} · {hit.status}]  {hit.title}{note}"))
        if hit.id in around:  # why it matched: the words around the query's, those found in bold
            parts = around[hit.id].replace("\x03", "\x02").split("\x02")
            print(
                "       " + "".join(bold + safe(part) + plain if n % 2 else safe(part) for n, part in enumerate(parts))
            )
        if hit.problem:
            print(one_line(f"       invalid: {hit.problem}"))
    for hit in hits.also_invalid:  # a broken document is found by its words too, with what to repair
        if hit is hits.also_invalid[0]:
            print(
                ("no valid documents match; " if not hits else "")
                + "invalid documents that match (is:invalid lists them):"
            )
        print(one_line(f"       {hit.id}  {hit.path}: {hit.problem}"))
    if not hits and not hits.also_invalid:
        print("no documents match")
    return EXIT_OK


def cmd_sync(vault: Vault, args: argparse.Namespace) -> int:
    from .core import gitsync

    try:
        if args.setup:
            print("\n".join(gitsync.setup(vault.root)) or "already set up")
            return EXIT_OK
        report = gitsync.sync(vault.root, remote=args.remote)
    except gitsync.SyncError as exc:
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
    from .agents.server import serve  # the MCP SDK loads only here

    return serve(vault, args.source, args.agent)


def cmd_inbox(vault: Vault, args: argparse.Namespace) -> int:
    if args.action:
        if not args.id:
            raise UsageError(f"inbox {args.action}: name the document (ID)")
        target = args.into if args.action == "merge" else args.replaces
        plan = vault.settle(args.id, args.action, target=target, confirm=args.confirm, at=args.at, dry_run=args.dry_run)
        report_plan(plan, args.dry_run)
        return EXIT_OK
    inbox = vault.inbox()
    if args.mark_reviewed and inbox.newest:
        vault.mark_inbox_reviewed(inbox.newest)
    if args.json:
        data = inbox.to_json()
        if args.diff:
            for item, request in zip(data["requests"], inbox.requests):
                item["diff"] = vault.inbox_diff(request)
        print_json(data)
        return EXIT_OK
    for request in inbox.requests:
        new = "new " if inbox.is_new(request) else "    "
        print(safe(f"{new}{request.at.replace('T', ' ')}  {request.agent}  {request.describe()}"))
        which = (
            f" --at {request.at}" if len(inbox.for_document(request.doc_id)) > 1 else ""
        )  # each request settled on its own
        print(
            safe(
                f"      “{request.title}”  [{request.type} · {request.status}]  → workbench inbox {'|'.join(request.actions)} {request.doc_id}{which}"
            )
        )
        if args.diff:
            sys.stdout.write("".join(f"      {line}\n" for line in safe(vault.inbox_diff(request)).splitlines()))
    new = len(inbox.new)
    print(
        f"{len(inbox)} request(s) from agents, {new} new since the last review"
        if inbox.requests
        else "the inbox is empty"
    )
    return EXIT_OK


# Commands that make one change: each builds a Plan in the core; printing it is the same for all.
WRITERS = {
    "status": lambda v, a: v.set_status(a.id, a.new_status, dry_run=a.dry_run),
    "state": lambda v, a: v.set_execution_state(a.id, a.new_state, dry_run=a.dry_run),
    "supersede": lambda v, a: v.supersede(a.old_id, a.new_id, dry_run=a.dry_run),
    "compatible": lambda v, a: v.mark_compatible(a.a_id, a.b_id, dry_run=a.dry_run),
    "retarget": lambda v, a: v.retarget(a.source_id, a.old_id, a.new_id, dry_run=a.dry_run),
    "merge": lambda v, a: v.merge(a.source_id, a.target_id, dry_run=a.dry_run),
    "rename": lambda v, a: v.rename(a.old_id, a.new_id, dry_run=a.dry_run),
    "forget": lambda v, a: v.forget(a.id, a.confirm, dry_run=a.dry_run),
    "index": lambda v, a: v.regenerate_index(dry_run=a.dry_run),
    "tier": lambda v, a: {
        "correct": lambda: v.correct(a.text, a.type, a.context, dry_run=a.dry_run),
        "move": lambda: v.move_entry(a.words, a.to, dry_run=a.dry_run),
        "forget": lambda: v.forget_entries(a.words, a.confirm, dry_run=a.dry_run),
        "counts": lambda: v.update_line_counts(dry_run=a.dry_run),
    }[a.tier_command](),
}


def _writer(call):
    def command(vault: Vault, args: argparse.Namespace) -> int:
        report_plan(call(vault, args), args.dry_run)
        return EXIT_OK

    return command


def _stack_step(verb: str):
    """`undo` and `redo`: the step is named before its diff, and once it is done, what comes next."""

    def command(vault: Vault, args: argparse.Namespace) -> int:
        plan = vault.undo(dry_run=args.dry_run) if verb == "undo" else vault.redo(dry_run=args.dry_run)
        if args.dry_run and not plan.empty:
            print(safe(f"# {plan.summary}"))
        report_plan(plan, args.dry_run)
        if plan.applied:
            print(
                safe(
                    f"next: {vault.undo_stack().next_undo()}; `workbench redo` re-applies the step undone last"
                    if verb == "undo"
                    else f"next: {vault.undo_stack().next_undo()}"
                )
            )
        return EXIT_OK

    return command


COMMANDS = {
    "check": cmd_check,
    "migrate": cmd_migrate,
    "search": cmd_search,
    "show": cmd_show,
    "new": cmd_new,
    "conflicts": cmd_conflicts,
    "consolidate": cmd_consolidate,
    "history": cmd_history,
    "stale": cmd_stale,
    "links": cmd_links,
    "context": cmd_context,
    "graph": cmd_graph,
    "mcp": cmd_mcp,
    "sync": cmd_sync,
    "inbox": cmd_inbox,
    "undo": _stack_step("undo"),
    "redo": _stack_step("redo"),
    **{name: _writer(call) for name, call in WRITERS.items()},
}


def run_tui(vault_arg: str | None, flavour: str | None = None) -> int:
    path = require_folder(resolve_vault_path(vault_arg))  # refused here, before the screen is taken
    from .tui.app import WorkbenchApp

    app = WorkbenchApp(path, flavour=flavour)
    app.run()
    return app.return_code or EXIT_OK


# Arguments that name files: a file name may be any bytes, so these are never judged as text.
FILE_ARGUMENTS = frozenset({"vault", "body_file", "out"})


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


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    try:
        check_text_arguments(args)
        if args.command == "new":
            args.body = _read_body(args)
        if args.command in (None, "tui"):
            return run_tui(args.vault, args.flavour)
        vault = open_vault(args.vault, args.flavour)
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


if __name__ == "__main__":
    raise SystemExit(main())
