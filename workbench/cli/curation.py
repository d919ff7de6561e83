"""Commands that curate: conflicts, the review list and readers' verdicts, consolidate, the undo
stack (history, undo, redo), the agents' inbox, and the one-change commands (status, supersede, merge, rename, forget, tier ...) whose
printing is the same for all."""

from __future__ import annotations

import argparse
import datetime as dt
import sys

from ..core import Vault
from .output import EXIT_ERRORS, EXIT_OK, UsageError, one_line, print_json, print_pieces, report_plan, safe


def cmd_conflicts(vault: Vault, args: argparse.Namespace) -> int:
    if args.json:
        print_pieces(vault.conflicts_printed(full=args.full, unchanged=getattr(args, "unchanged", None)))
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


def _said(excerpt) -> str:
    facts = (
        [excerpt.status]
        + ([excerpt.date] if excerpt.date else [])
        + ([f"no. {excerpt.number}"] if excerpt.number is not None and not excerpt.date else [])
    )
    return f"{excerpt.id} “{excerpt.title}” ({' · '.join(f for f in facts if f)})"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _quoted(flat: str, most: int = 160) -> str:
    return flat if len(flat) <= most else flat[: most - 1] + "…"


def cmd_review(vault: Vault, args: argparse.Namespace) -> int:
    if args.verdicts:
        recorded, problems = vault.judge_lines(args.verdict_text)
        where = "standard input" if args.verdicts == "-" else args.verdicts
        for problem in problems:
            print(one_line(f"workbench: {where}:{problem.line}: {problem.message}"), file=sys.stderr)
        if args.json:
            print_json(
                {
                    "recorded": [v.to_json() for v in recorded],
                    "problems": [{"line": p.line, "message": p.message} for p in problems],
                }
            )
        else:
            print(
                f"recorded {len(recorded)} verdict(s) for the curator's inbox (workbench inbox)"
                + (f"; {len(problems)} line(s) not taken" if problems else "")
            )
        return EXIT_ERRORS if problems else EXIT_OK
    if args.limit < 1:
        raise UsageError(f"--limit is a whole number from 1, not {args.limit}")
    if args.depth is not None and args.depth < 1:
        raise UsageError(f"--depth is a whole number from 1, not {args.depth}")
    page = vault.review(args.limit, args.cursor, args.depth, unchanged=getattr(args, "unchanged", None))
    if args.json:
        print_json(page.to_json())
        return EXIT_OK
    for number, pair in enumerate(page.pairs, start=1):
        print(one_line(f"{number}. {_said(pair.older)}"))
        print(one_line(f"   → {_said(pair.newer)}   score {pair.score:.2f}"))
        print(one_line(f"   newer: {pair.newer_because}"))
        for reason in pair.reasons:
            print(one_line(f"   - {reason}"))
        for excerpt in (pair.older, pair.newer):
            decides, passage = _flat(excerpt.decides()), _flat(excerpt.passage)
            if decides:
                print(one_line(f"   {excerpt.id} decides: “{_quoted(decides)}”"))
            if passage and not decides.startswith(passage[:80]):
                print(one_line(f"   {excerpt.id}: “{_quoted(passage)}”"))
        older, newer = pair.ids
        print(safe(f"   → workbench supersede {older} {newer}  |  workbench compatible {older} {newer}"))
    left = f", {page.left_out} settled or judged left out" if page.left_out else ""
    print(f"{page.listed} pair(s) to review at depth {page.depth}{left}")
    if page.cursor:
        print(safe(f"{page.remaining} more: workbench review --cursor {page.cursor}"))
    if args.cursor and page.before > 0:
        print(
            f"{page.before} pair(s) before the cursor are not judged yet (passed over, or moved up by a write since): "
            "`workbench review` without --cursor starts again with them"
        )
    return EXIT_OK


def _verdict_lines(vault: Vault, verdicts: list) -> None:
    titles = {d.id: d.title for d in vault.documents}
    for verdict in verdicts:
        state = verdict.state if verdict.state == "open" else f"{verdict.state}: {verdict.why}"
        print(
            one_line(
                f"verdict {verdict.id}  {verdict.local_at.replace('T', ' ')}  {verdict.agent}: {verdict.describe()}  [{state}]"
            )
        )
        for doc_id in (verdict.older, verdict.newer):
            print(one_line(f"      {doc_id} “{titles.get(doc_id, '(no longer in the vault)')}”"))
        if verdict.reason:
            print(one_line(f"      why: {verdict.reason}"))
        if verdict.state == "open":
            actions = "reject" if verdict.verdict == "unsure" else "accept|reject"
            print(safe(f"      → workbench inbox {actions} {verdict.id}"))
        else:
            print("      → the pair is offered again: workbench review")


def cmd_inbox(vault: Vault, args: argparse.Namespace) -> int:
    if args.agent is not None:
        if args.action != "accept" or args.id:
            raise UsageError("--agent NAME goes with `inbox accept` and no ID: that agent's replacements, together")
        chosen = [
            v.id for v in vault.verdicts(("open",)) if v.agent == args.agent and v.verdict in ("replaces", "reversed")
        ]
        if not chosen:
            raise UsageError(f"{args.agent} has no open replaces or reversed verdict; `workbench inbox` lists them")
        report_plan(vault.accept_verdicts(chosen, dry_run=args.dry_run), args.dry_run)
        return EXIT_OK
    if args.action and args.id and (args.action == "reject" or args.id.startswith("v-")):
        if args.action not in ("accept", "reject"):
            raise UsageError(f"inbox {args.action}: a verdict ({args.id}) is settled with accept or reject")
        if not args.id.startswith("v-"):
            raise UsageError(
                f"inbox reject settles a verdict (v-...), and {args.id} is none; `workbench inbox` lists them"
            )
        call = vault.accept_verdict if args.action == "accept" else vault.reject_verdict
        report_plan(call(args.id, dry_run=args.dry_run), args.dry_run)
        return EXIT_OK
    if args.action:
        if not args.id:
            raise UsageError(f"inbox {args.action}: name the document (ID)")
        target = args.into if args.action == "merge" else args.replaces
        plan = vault.settle(args.id, args.action, target=target, confirm=args.confirm, at=args.at, dry_run=args.dry_run)
        report_plan(plan, args.dry_run)
        return EXIT_OK
    inbox = vault.inbox()
    verdicts = vault.verdicts(("open", "stale"))
    if args.mark_reviewed and inbox.newest:
        vault.mark_inbox_reviewed(inbox.newest)
    for problem in vault.verdict_problems():
        where = f".workbench-verdicts.jsonl:{problem.line}: " if problem.line else ""
        print(one_line(f"workbench: {where}{problem.message}"), file=sys.stderr)
    if args.json:
        data = inbox.to_json()
        if args.diff:
            for item, request in zip(data["requests"], inbox.requests):
                item["diff"] = vault.inbox_diff(request)
        data["verdicts"] = [v.to_json() for v in verdicts]
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
    _verdict_lines(vault, verdicts)
    fresh = len(inbox.new)
    opened = sum(1 for v in verdicts if v.state == "open")
    print(
        f"{len(inbox)} request(s) from agents, {fresh} new since the last review"
        if inbox.requests
        else "the inbox is empty"
        if not verdicts
        else "no request from agents"
    )
    if verdicts:
        print(f"{opened} verdict(s) to accept or reject, {len(verdicts) - opened} stale")
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
