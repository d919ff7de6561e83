"""Commands about documents and the vault as a whole: check, migrate, show, new (the write gate),
search, links, context, graph, stale. Each parses nothing and decides nothing: it calls the vault
and prints what it answers, as text or `--json`."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..core import Severity, Vault
from .output import EXIT_ERRORS, EXIT_OK, UsageError, one_line, print_json, read_text_option, report_plan, safe

if TYPE_CHECKING:  # the gate and migration are loaded by the commands that use them, not by every command
    from ..core import Draft


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
    report = vault.migrate(args.out, args.project)
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


def read_body(args: argparse.Namespace) -> str:
    """The body of `new`, read before the vault is opened: text that cannot be taken is refused
    before anything is written."""
    if not args.body_file:
        return ""
    return read_text_option("--body-file", args.body_file, "nothing was written")


def _draft(args: argparse.Namespace) -> Draft:
    from ..core import Draft

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
    if not 1 <= args.candidates <= 10:
        raise UsageError(f"--candidates is a whole number from 1 to 10, not {args.candidates}")
    found = vault.candidates(draft, args.candidates)
    proposed = vault.new_id(draft.type, draft.title)
    if args.json:  # each with its excerpt, the whole answer within the read budget (45,000 characters)
        print_json({"candidates": [c.to_json() for c in found], "proposed_id": proposed})
        return EXIT_OK
    if not found:
        print("No canonical document fits; create it with --create (and at least one --link).")
    for number, candidate in enumerate(found, start=1):
        verb = "supersede it with --supersede" if candidate.action == "supersede" else "merge with --merge-into"
        shown = candidate.excerpt
        stated = f" ({shown.status})" if shown is not None and shown.status != candidate.status else ""
        when = f" · {shown.date}" if shown is not None and shown.date else ""
        print(
            safe(
                f"{number}. {candidate.id}  “{candidate.title}”  [{candidate.type} · {candidate.status}{stated}{when}]  score {candidate.score:.2f}"
            )
        )
        for reason in candidate.reasons:
            print(safe(f"     - {reason}"))
        print(safe(f"     → {verb} {candidate.id}"))
    print(safe(f"Or create it as {proposed} with --create."))
    return EXIT_OK


def cmd_recent(vault: Vault, args: argparse.Namespace) -> int:
    if args.days < 1 or args.limit < 1:
        raise UsageError("--days and --limit are whole numbers from 1")
    changes = vault.recent(args.days)
    listed = changes[: args.limit]
    if args.json:
        print_json({"days": args.days, "changes": [c.to_json() for c in listed], "more": len(changes) - len(listed)})
        return EXIT_OK
    for change in listed:
        by = f"  ({change.by})" if change.by and not change.what.endswith(")") else ""
        review = "  [awaiting review]" if change.to_json()["awaiting_review"] else ""
        when = f"{change.when:%Y-%m-%d %H:%M}" if change.when.time() else f"{change.when:%Y-%m-%d}      "
        print(one_line(f"{when}  {change.doc.id}  “{change.doc.title}”{review}"))
        print(one_line(f"      {change.what}{by}"))
    more = len(changes) - len(listed)
    print(
        f"{len(changes)} document(s) changed in the last {args.days} days"
        + (f", {more} not shown (--limit)" if more else "")
    )
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
    from ..core import inverse_label

    hood = vault.neighbourhood(args.id, depth=args.depth).to_json()
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
            print(safe(f"  ← {inverse_label(edge['type']):<13} {edge['source']}  {other.get('title', '')}"))
    for depth in range(2, args.depth + 1):
        further = [node for node in hood["nodes"] if node["depth"] == depth]
        if further:
            print(f"  depth {depth}:")
        for node in further:
            print(safe(f"    {node['id']}  {node['title']}  [{node['type'] or 'missing'} · {node['status'] or '-'}]"))
    return EXIT_OK


def cmd_context(vault: Vault, args: argparse.Namespace) -> int:
    pack = vault.context_pack(args.id)
    if args.json:
        print_json({"root": args.id, "documents": pack})
        return EXIT_OK
    for item in pack:
        print(safe(f"{item['depth']}  {item['id']:<48} [{item['type']} · {item['status']}]  {item['title']}"))
    return EXIT_OK


def cmd_graph(vault: Vault, args: argparse.Namespace) -> int:
    sys.stdout.write(vault.export_graph(args.format, root=args.root, depth=args.depth if args.root else None))
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
