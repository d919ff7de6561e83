"""`check --repair`: deterministic, backed up byte for byte, bodies kept, valid documents untouched."""

from __future__ import annotations

import os

from vault_builders import VaultBuilder, doc_text
from workbench import Vault
from workbench.core.services.repair import plan_repair


def repair(root):
    vault = Vault.open(root)
    report = plan_repair(vault.index)
    vault.apply(report.plan)
    vault.refresh()
    return vault, report


def test_malformed_frontmatter_is_backed_up_and_rebuilt_keeping_the_body(builder):
    builder.add("mem-entity-core")
    broken = "---\nid: mem-note-broken\ntitle: [oops\nstatus: active\n---\nKeep this body.\n"
    builder.raw("notes/mem-note-broken.md", broken)
    vault, report = repair(builder.root)
    assert report.repaired == ["notes/mem-note-broken.md"]
    doc = vault.get("mem-note-broken")
    assert doc.valid and doc.body == "Keep this body.\n"
    backup = builder.root / doc.meta["repair_backup"]
    assert backup.read_bytes() == broken.encode()
    assert backup.parent == builder.root / ".recovery" / "notes"


def test_missing_frontmatter_keeps_the_whole_text_as_body(builder):
    builder.raw("notes/mem-note-plain.md", "# Plain note\r\n\r\nText.\r\n")
    vault, _ = repair(builder.root)
    doc = vault.get("mem-note-plain")
    assert doc.body == "# Plain note\r\n\r\nText.\r\n"
    assert doc.title == "Plain note" and doc.status == "draft"
    assert (builder.root / "notes/mem-note-plain.md").read_bytes().startswith(b"---\r\nschema_version: v1\r\n")


def test_missing_timestamps_take_the_file_mtime(builder):
    path = builder.raw(
        "notes/mem-note-a.md", doc_text("mem-note-a").replace("created_at: 2026-04-21\nupdated_at: 2026-04-21\n", "")
    )
    stamp = 1767225600  # 2026-01-01 00:00 UTC
    os.utime(path, (stamp, stamp + 3600 * 12))
    vault, _ = repair(builder.root)
    doc = vault.get("mem-note-a")
    import datetime as dt

    expected = dt.date.fromtimestamp(stamp + 3600 * 12)
    assert doc.meta["created_at"] == expected and doc.meta["updated_at"] == expected


def test_one_sided_supersession_is_completed(builder):
    builder.add("mem-decision-a")
    builder.add("mem-decision-b", supersedes="[mem-decision-a]")
    vault, _ = repair(builder.root)
    assert vault.get("mem-decision-a").status == "superseded"
    assert vault.get("mem-decision-a").superseded_by == ["mem-decision-b"]
    assert [(l.type, l.target) for l in vault.get("mem-decision-b").links] == [("supersedes", "mem-decision-a")]
    assert vault.problems == []


def test_valid_documents_are_untouched_and_repair_is_idempotent(builder):
    good = builder.add("mem-entity-core")
    builder.add("mem-note-a", links="[mem-entity-core]")
    before = good.read_bytes(), good.stat().st_mtime_ns
    vault, report = repair(builder.root)
    assert report.repaired == ["notes/mem-note-a.md"]
    assert (good.read_bytes(), good.stat().st_mtime_ns) == before
    snapshot = {p: p.read_bytes() for p in builder.root.rglob("*") if p.is_file() and ".workbench" not in p.parts}
    _, again = repair(builder.root)
    assert again.repaired == [] and again.plan.empty
    assert {
        p: p.read_bytes() for p in builder.root.rglob("*") if p.is_file() and ".workbench" not in p.parts
    } == snapshot


def test_what_needs_a_person_is_left_alone(builder):
    raw = doc_text("mem-note-a").encode() + b"\xff\n"
    path = builder.raw("notes/mem-note-a.md", raw)
    builder.raw("notes/mem-note-b.md", doc_text("mem-note-b", body="<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n"))
    _, report = repair(builder.root)
    assert report.repaired == []
    assert set(report.left) == {"notes/mem-note-a.md", "notes/mem-note-b.md"}
    assert path.read_bytes() == raw


def test_a_misplaced_file_is_moved_to_its_folder(builder):
    builder.raw("notes/mem-entity-lost.md", doc_text("mem-entity-lost", status="live"))
    vault, _ = repair(builder.root)
    assert vault.get("mem-entity-lost").path == "entities/mem-entity-lost.md"
    assert not (builder.root / "notes/mem-entity-lost.md").exists()
    assert vault.problems == []


def test_repair_limited_to_named_files_leaves_the_others(builder):
    builder.add("mem-note-a", status="bogus")
    builder.add("mem-note-b", status="bogus")
    vault = Vault.open(builder.root)
    before_b = (builder.root / "notes/mem-note-b.md").read_bytes()
    report = vault.repair(paths=["notes/mem-note-a.md"])
    assert report.repaired == ["notes/mem-note-a.md"]
    assert (builder.root / "notes/mem-note-b.md").read_bytes() == before_b
    vault.refresh()
    found = {(p.path, p.code) for p in vault.problems}
    assert ("notes/mem-note-a.md", "status-invalid") not in found
    assert ("notes/mem-note-b.md", "status-invalid") in found


def test_one_file_that_cannot_be_made_valid_does_not_stop_the_others(builder):
    builder.add("mem-entity-core")
    builder.add("mem-note-fixable", status="bogus")
    # Broken YAML whose id is `x`: rebuilt, it would be invalid in a new way (its id), so it stays.
    hopeless = (
        doc_text("mem-note-hopeless")
        .replace("id: mem-note-hopeless", "id: x")
        .replace("status: active", "status: [active")
    )
    builder.raw("notes/mem-note-hopeless.md", hopeless)
    # Readable, with an id `x` and a status to fix: the status is fixed, the id left for a person.
    builder.raw(
        "notes/mem-note-halfway.md",
        doc_text("mem-note-halfway", status="bogus").replace("id: mem-note-halfway", "id: x"),
    )
    vault = Vault.open(builder.root)
    report = vault.repair()
    assert report.repaired == ["notes/mem-note-fixable.md", "notes/mem-note-halfway.md"]
    assert {"notes/mem-note-hopeless.md", "notes/mem-note-halfway.md"} <= set(report.left)
    assert "id" in report.why["notes/mem-note-hopeless.md"] and "id-syntax" in report.why["notes/mem-note-halfway.md"]
    assert (builder.root / "notes/mem-note-hopeless.md").read_text() == hopeless
    assert vault.get("mem-note-fixable").valid
    for path in ("notes/mem-note-fixable.md", "notes/mem-note-halfway.md"):  # each backed up first
        assert list((builder.root / ".recovery" / "notes").glob(path.split("/")[1] + ".*"))


def test_check_repair_on_the_command_line_lists_what_needs_a_person(builder):
    from helpers import run_cli

    builder.add("mem-entity-core")
    builder.add("mem-note-fixable", status="bogus")
    builder.raw(
        "notes/mem-note-hopeless.md",
        doc_text("mem-note-hopeless")
        .replace("id: mem-note-hopeless", "id: x")
        .replace("status: active", "status: [active"),
    )
    result = run_cli("--vault", str(builder.root), "check", "--repair", timeout=60)
    assert result.returncode == 1, result.stderr
    assert "repaired notes/mem-note-fixable.md" in result.stdout
    assert "left for a person: notes/mem-note-hopeless.md" in result.stdout


def test_a_commented_opening_line_is_frontmatter_and_repair_adds_none(builder):
    text = doc_text("mem-note-commented").replace("---\n", "--- # written by the agent\n", 1)
    builder.add("mem-entity-core")
    builder.raw("notes/mem-note-commented.md", text)
    vault, report = repair(builder.root)
    assert vault.get("mem-note-commented").valid and report.repaired == []
    assert (builder.root / "notes/mem-note-commented.md").read_text() == text


def test_a_mistyped_status_becomes_the_status_it_was_meant_to_be_else_draft(builder):
    builder.add("mem-note-typo", status="actve")
    builder.add("mem-note-shout", status="Deprecated")
    builder.add("mem-note-nonsense", status="banana")
    builder.add("mem-note-half", status="supersede")  # superseded needs a successor: it has none
    vault, report = repair(builder.root)
    assert vault.get("mem-note-typo").status == "active"
    assert vault.get("mem-note-shout").status == "deprecated"
    assert vault.get("mem-note-nonsense").status == "draft"
    assert vault.get("mem-note-half").status == "draft"
    assert not [p for p in vault.problems if p.severity == "error"]


def test_a_link_to_a_superseded_document_names_the_live_end_of_the_chain_as_conflicts_do(builder):
    builder.add("mem-decision-one", status="superseded", superseded_by=["mem-decision-two"])
    builder.add(
        "mem-decision-two",
        status="superseded",
        supersedes=["mem-decision-one"],
        superseded_by=["mem-decision-three"],
        links=[{"type": "supersedes", "target": "mem-decision-one"}],
    )
    builder.add(
        "mem-decision-three",
        supersedes=["mem-decision-two"],
        links=[{"type": "supersedes", "target": "mem-decision-two"}],
    )
    builder.add("mem-note-reader", links=[{"type": "depends_on", "target": "mem-decision-one"}])
    vault = Vault.open(builder.root)
    [warning] = [p for p in vault.problems if p.code == "link-to-superseded"]
    assert warning.message.endswith("link its successor mem-decision-three instead")
    [stale] = [c for c in vault.conflicts() if c.kind == "stale-link"]
    assert "mem-decision-three has replaced" in stale.reason


def test_one_sided_supersession_in_a_decision_collection_is_completed_in_its_words(tmp_path):
    """An ADR record says "Superseded by" and its successor says nothing: repairing the old file
    writes the other side, as the conflicts queue's resolution does, never Memory Core's fields."""
    b = VaultBuilder(tmp_path / "adr")
    b.raw("0001-mail.md", "# Mail\n\n## Status\n\nSuperseded by ADR-0003\n\n## Decision\n\nUse the relay.\n")
    b.raw("0002-queue.md", "# Queue\n\n## Status\n\nAccepted\n\n## Decision\n\nUse a queue.\n")
    b.raw("0003-mail-again.md", "# Mail, again\n\n## Status\n\nAccepted\n\n## Decision\n\nUse the service.\n")
    vault = Vault.open(b.root)
    assert [p.code for p in vault.problems] == ["supersession-one-sided"]
    report = vault.repair(paths=["0001-mail.md"])
    assert report.repaired == ["0003-mail-again.md"] and not report.left
    (backup,) = [c for c in report.plan.changes if c.before is None]  # as every repaired file, backed up first
    assert "/0003-mail-again.md." in backup.path and b"Use the service." in backup.after
    assert b"ADR-001" not in backup.after and (b.root / backup.path).read_bytes() == backup.after
    assert (
        "ADR-001" in (b.root / "0003-mail-again.md").read_text()
        and "status:" not in (b.root / "0003-mail-again.md").read_text()
    )
    vault.refresh()
    assert vault.get("ADR-003").supersedes == ["ADR-001"] and not vault.problems
