"""Commands that curate: conflicts, consolidate, the undo stack (history, undo, redo), the agents'
inbox, and the one-change commands (status, supersede, merge, rename, forget, tier ...) whose
printing is the same for all."""

from __future__ import annotations

import argparse
import datetime as dt
import sys

from ..core.vault import Vault
from .output import EXIT_OK, UsageError, print_json, report_plan, safe


def cmd_conflicts(vault: Vault, args: argparse.Namespace) -> int:
    if args.json:
        print(vault.conflicts_json(full=args.full))
        return EXIT_OK
    found = vault.conflicts(full=args.full)
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


def writer(call):
    def command(vault: Vault, args: argparse.Namespace) -> int:
        report_plan(call(vault, args), args.dry_run)
        return EXIT_OK

    return command


def stack_step(verb: str):
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
