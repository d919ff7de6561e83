"""The curation operations on the sample vault and on small messy ones: each is one undoable change."""

from __future__ import annotations

import datetime as dt

import pytest

from workbench import RefusedError, Vault
from workbench.core.services.gate import Draft

TODAY = dt.date.today().isoformat()


def vault_bytes(root):
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".workbench" not in p.parts
    }


# -- the write gate ---------------------------------------------------------------------------


def test_gate_ranks_the_canonical_home_first_with_reasons(sample_copy):
    vault = Vault.open(sample_copy)
    draft = Draft(
        "note",
        "Postgres autovacuum tuning",
        ["database"],
        [("related_to", "mem-entity-postgres")],
        "Raised autovacuum on invoices.",
    )
    before = vault_bytes(sample_copy)
    found = vault.gate(draft)
    assert 1 <= len(found) <= 3
    assert found[0].id == "mem-entity-postgres" and found[0].action == "merge"
    assert any("database" in r for r in found[0].reasons)
    assert all(c.type in ("entity", "context", "concept") for c in found)
    assert vault_bytes(sample_copy) == before


def test_gate_offers_decisions_to_supersede_for_a_new_decision(sample_copy):
    found = Vault.open(sample_copy).gate(Draft("decision", "Store money as integer minor units", ["billing", "money"]))
    assert found[0].id == "mem-decision-money-integer-cents" and found[0].action == "supersede"


def test_merge_into_adds_a_dated_section_and_unites_tags_and_links(sample_copy):
    vault = Vault.open(sample_copy)
    before = vault.get("mem-entity-postgres")
    vault.merge_into(
        "mem-entity-postgres",
        Draft("note", "Autovacuum", ["ops"], [("explains", "mem-entity-stripe")], "Vacuum nightly.\n"),
    )
    after = vault.get("mem-entity-postgres")
    assert after.body.startswith(before.body)
    assert f"## {TODAY}: Autovacuum\n\nVacuum nightly.\n" in after.body
    assert after.tags == before.tags + ["ops"]
    assert ("explains", "mem-entity-stripe") in [(l.type, l.target) for l in after.links]
    assert str(after.meta["updated_at"]) == TODAY


def test_a_decision_is_never_merged_into(sample_copy):
    vault = Vault.open(sample_copy)
    with pytest.raises(RefusedError, match="--supersede"):
        vault.merge_into("mem-decision-api-fastapi", Draft("note", "x", [], [], "y"))


def test_create_needs_a_link_and_makes_a_unique_id(sample_copy):
    vault = Vault.open(sample_copy)
    with pytest.raises(RefusedError, match="link"):
        vault.create(Draft("entity", "Postgres database"))
    plan = vault.create(Draft("entity", "Postgres database", [], [("related_to", "mem-entity-postgres")]))
    doc = vault.get("mem-entity-postgres-database")
    assert plan.applied and doc.path == "entities/mem-entity-postgres-database.md"
    assert vault.problems_for(doc.id) == []
    vault.create(Draft("entity", "Postgres database", [], [("related_to", "mem-entity-postgres")]))
    assert "mem-entity-postgres-database-2" in vault


def test_create_superseding_writes_the_new_decision_and_both_sides(sample_copy):
    vault = Vault.open(sample_copy)
    plan = vault.create_superseding(
        "mem-decision-money-integer-cents",
        Draft("decision", "Money as bigint minor units", ["money"], [], "Use bigint."),
    )
    new_id = plan.created_id
    assert vault.get("mem-decision-money-integer-cents").superseded_by == [new_id]
    assert vault.get(new_id).supersedes == ["mem-decision-money-integer-cents"]
    assert [p for p in vault.problems if p.severity == "error"] == []


# -- conflicts ------------------------------------------------------------------------------------


def test_conflicts_on_the_sample_are_exactly_the_seeded_ones(sample_copy):
    found = {(c.kind, tuple(c.ids)) for c in Vault.open(sample_copy).conflicts()}
    assert found == {
        ("contradiction", ("mem-decision-money-integer-cents", "mem-decision-money-numeric-decimal")),
        ("duplicate", ("mem-entity-postgres", "mem-entity-postgresql-db")),
        ("stale-link", ("mem-context-local-dev-setup", "mem-decision-jobs-celery-redis")),
    }


def test_marking_compatible_is_recorded_in_both_files_and_never_listed_again(sample_copy):
    vault = Vault.open(sample_copy)
    vault.mark_compatible("mem-decision-money-integer-cents", "mem-decision-money-numeric-decimal")
    assert (
        "compatible_with: [mem-decision-money-numeric-decimal]"
        in (sample_copy / "decisions/mem-decision-money-integer-cents.md").read_text()
    )
    reopened = Vault.open(sample_copy)
    assert "contradiction" not in {c.kind for c in reopened.conflicts()}
    assert reopened.problems_for("mem-decision-money-integer-cents") == []


def test_retarget_points_the_stale_link_at_the_successor(sample_copy):
    vault = Vault.open(sample_copy)
    vault.retarget("mem-context-local-dev-setup", "mem-decision-jobs-celery-redis")
    targets = [l.target for l in vault.get("mem-context-local-dev-setup").links]
    assert "mem-decision-jobs-procrastinate" in targets and "mem-decision-jobs-celery-redis" not in targets
    assert "stale-link" not in {c.kind for c in vault.conflicts()}


def test_merge_folds_a_duplicate_and_redirects_links(sample_copy):
    vault = Vault.open(sample_copy)
    vault.merge("mem-entity-postgresql-db", "mem-entity-postgres")
    source, target = vault.get("mem-entity-postgresql-db"), vault.get("mem-entity-postgres")
    assert source.status == "superseded" and source.superseded_by == ["mem-entity-postgres"]
    assert "merged from PostgreSQL DB" in target.body
    assert not any(
        l.target == "mem-entity-postgresql-db" and l.type != "supersedes" for d in vault.documents for l in d.links
    )
    assert [p for p in vault.problems if p.severity == "error"] == []
    assert "duplicate" not in {c.kind for c in vault.conflicts()}


def test_structural_conflicts_name_exactly_the_documents(builder):
    builder.add("mem-decision-a", status="superseded", superseded_by="[mem-decision-b, mem-decision-c]")
    builder.add("mem-decision-b", supersedes="[mem-decision-a]", links="[{type: supersedes, target: mem-decision-a}]")
    builder.add("mem-decision-c", supersedes="[mem-decision-a]", links="[{type: supersedes, target: mem-decision-a}]")
    builder.add("mem-decision-d", supersedes="[mem-decision-e]", links="[{type: supersedes, target: mem-decision-e}]")
    builder.add("mem-decision-e")
    found = {(c.kind, tuple(c.ids)) for c in Vault.open(builder.root).conflicts()}
    assert ("double-supersession", ("mem-decision-a", "mem-decision-b", "mem-decision-c")) in found
    assert ("one-sided-supersession", ("mem-decision-e", "mem-decision-d")) in found


def test_a_record_naming_a_whole_chain_of_successors_is_no_double_supersession(builder):
    """Superseded by B and by C, where C has since replaced B: nothing is left to choose."""
    builder.add("mem-decision-a", status="superseded", superseded_by="[mem-decision-b, mem-decision-c]")
    builder.add(
        "mem-decision-b",
        status="superseded",
        superseded_by="[mem-decision-c]",
        supersedes="[mem-decision-a]",
        links="[{type: supersedes, target: mem-decision-a}]",
    )
    builder.add(
        "mem-decision-c",
        supersedes="[mem-decision-a, mem-decision-b]",
        links="[{type: supersedes, target: mem-decision-a}, {type: supersedes, target: mem-decision-b}]",
    )
    assert "double-supersession" not in {c.kind for c in Vault.open(builder.root).conflicts()}


# -- consolidation -----------------------------------------------------------------------------


def test_consolidation_finds_the_flaky_notes_and_folds_them(sample_copy):
    vault = Vault.open(sample_copy)
    (group,) = vault.consolidation_groups()
    assert group.suggested_into == "mem-context-test-suite" and len(group.notes) == 4
    vault.consolidate("mem-context-test-suite", group.notes)
    target = vault.get("mem-context-test-suite")
    for note_id in group.notes:
        assert f"## From [[{note_id}]]" in target.body
        assert ("derived_from", note_id) in [(l.type, l.target) for l in target.links]
        assert vault.get(note_id).status == "archived"
    assert vault.consolidation_groups() == []


def test_a_consolidated_document_keeps_one_h1(sample_copy):
    """A folded note's `# Title` would make the document read as several; its `## From` heading
    already names it, so the note's H1 goes and its other H1s become `###` under that heading."""
    note = sample_copy / "notes/mem-note-flaky-pdf-snapshot-fonts.md"
    note.write_text(note.read_text() + "\n# Later notes\n\nMore.\n\n```sh\n# a shell comment\n```\n")
    vault = Vault.open(sample_copy)
    (group,) = vault.consolidation_groups()

    def h1s(text: str) -> list[str]:
        fenced, found = False, []
        for line in text.splitlines():
            fenced ^= line.startswith("```")
            if not fenced and line.startswith("# "):
                found.append(line)
        return found

    own = h1s(vault.get("mem-context-test-suite").body)
    assert h1s(vault.merged_body("mem-context-test-suite", group.notes)) == own
    vault.consolidate("mem-context-test-suite", group.notes)
    body = vault.get("mem-context-test-suite").body
    assert h1s(body) == own
    assert "### Later notes" in body and "# a shell comment" in body
    assert "## From [[mem-note-flaky-pdf-snapshot-fonts]]: PDF snapshot tests differ between CI runners" in body


# -- rename, forget, undo -----------------------------------------------------------------------


def test_rename_rewrites_every_reference_in_one_change(sample_copy):
    vault = Vault.open(sample_copy)
    plan = vault.rename("mem-decision-jobs-celery-redis", "mem-decision-jobs-celery")
    assert not (sample_copy / "decisions/mem-decision-jobs-celery-redis.md").exists()
    assert vault.get("mem-decision-jobs-celery").path == "decisions/mem-decision-jobs-celery.md"
    for path, data in vault_bytes(sample_copy).items():
        if path.endswith(".md") and path != "log.md":
            assert b"mem-decision-jobs-celery-redis" not in data, path
    assert [p for p in vault.problems if p.severity == "error"] == []
    assert len(vault.history(1)) == 1 and vault.history(1)[0]["summary"] == plan.summary
    vault.undo()
    assert (sample_copy / "decisions/mem-decision-jobs-celery-redis.md").exists()


def test_forget_leaves_no_trace(sample_copy):
    vault = Vault.open(sample_copy)
    doc_id = "mem-note-sendgrid-sandbox-mode"
    doc = vault.get(doc_id)
    secret_line = [l for l in doc.body.splitlines() if len(l) > 30][0]
    vault.set_status(doc_id, "archived")  # an undo record now holds its bytes
    with pytest.raises(RefusedError):
        vault.forget(doc_id, confirm="mem-note-sendgrid")
    vault.forget(doc_id, confirm=doc_id)
    for path in sample_copy.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert doc_id.encode() not in data, path
            assert secret_line.encode() not in data, path
    assert "forget: a document was deleted" in (sample_copy / "log.md").read_text()
    assert vault.history() == [] or all(doc_id not in r["summary"] for r in vault.history())
    assert [p for p in Vault.open(sample_copy).problems if p.severity == "error"] == []


def test_undo_refuses_when_a_file_moved_on(sample_copy):
    vault = Vault.open(sample_copy)
    vault.set_status("mem-concept-usage-based-billing", "active")
    path = sample_copy / "concepts/mem-concept-usage-based-billing.md"
    path.write_text(path.read_text() + "\nAn agent added this.\n")
    with pytest.raises(RefusedError, match="concepts/mem-concept-usage-based-billing.md"):
        vault.undo()


def test_undo_restores_both_sides_of_a_supersession(sample_copy):
    vault = Vault.open(sample_copy)
    before = vault_bytes(sample_copy)
    vault.supersede("mem-decision-money-integer-cents", "mem-decision-money-numeric-decimal")
    vault.undo()
    after = vault_bytes(sample_copy)
    assert {k: v for k, v in after.items() if k != "log.md"} == {k: v for k, v in before.items() if k != "log.md"}
    with pytest.raises(RefusedError, match="nothing to undo"):
        vault.undo()


# -- staleness and the index ------------------------------------------------------------------


def test_stale_lists_old_active_documents_oldest_first(sample_copy):
    found = Vault.open(sample_copy).stale(90)
    ages = [age for _, age in found]
    assert found and ages == sorted(ages, reverse=True) and min(ages) > 90
    assert all(doc.status == "active" for doc, _ in found)


def test_index_regenerates_sections_and_keeps_hand_written_text(sample_copy):
    path = sample_copy / "indexes/mem-index-vault.md"
    text = path.read_text()
    outside = [part.split("<!-- generated:start")[0] for part in text.split("<!-- generated:end")]
    vault = Vault.open(sample_copy)
    vault.create(Draft("entity", "Brand new thing", [], [("related_to", "mem-entity-stripe")]))
    vault.regenerate_index()
    new_text = path.read_text()
    assert "[[mem-entity-brand-new-thing]] Brand new thing" in new_text
    for chunk in outside[1:]:
        assert chunk.split("\n", 1)[-1] in new_text
    assert vault.regenerate_index().empty


def _index_words(root):
    import sqlite3

    db = sqlite3.connect(root / ".workbench" / "index.sqlite")
    db.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'fts', 'row')")
    words = {row[0] for row in db.execute("SELECT term FROM temp.vocab")}
    db.close()
    return words


def test_forget_removes_the_words_from_the_search_index(sample_copy, tmp_path):
    import shutil

    vault = Vault.open(sample_copy)
    assert [h.id for h in vault.search("sandbox", 3)][0] == "mem-note-sendgrid-sandbox-mode"
    before = _index_words(sample_copy)
    vault.forget("mem-note-sendgrid-sandbox-mode", confirm="mem-note-sendgrid-sandbox-mode")
    assert all(h.id != "mem-note-sendgrid-sandbox-mode" for h in vault.search("sandbox", 10))
    after = _index_words(sample_copy)
    clean = tmp_path / "clean"
    shutil.copytree(sample_copy, clean, ignore=shutil.ignore_patterns(".workbench"))
    Vault.open(clean)
    assert after == _index_words(clean), "words only the forgotten note had are still in the vocabulary"
    assert before - after, "the forgotten note had words of its own"
    for path in (sample_copy / ".workbench").rglob("*"):
        if path.is_file():
            assert b"mem-note-sendgrid-sandbox-mode" not in path.read_bytes(), path


def test_curation_on_a_messy_vault_refuses_cleanly_and_keeps_going(builder):

    builder.add("mem-entity-core", tags="[db]")
    builder.raw("notes/mem-note-broken.md", "---\nid: mem-note-broken\ntitle: [oops\n---\nbody\n")
    builder.raw("notes/mem-note-plain.md", "# no frontmatter\n")
    for number in range(3):
        builder.add(f"mem-note-n{number}", tags="[db]", links="[{type: explains, target: mem-entity-core}]")
    builder.add(
        "mem-decision-a", supersedes="[mem-decision-ghost]", links="[{type: supersedes, target: mem-decision-ghost}]"
    )
    vault = Vault.open(builder.root)
    assert {c.kind for c in vault.conflicts()} == set()  # nothing certain among the valid ones
    assert vault.gate(Draft("note", "db tuning", ["db"]))[0].id == "mem-entity-core"
    with pytest.raises(RefusedError, match="invalid"):
        vault.set_status("mem-note-broken", "active")
    with pytest.raises(RefusedError, match="invalid"):
        vault.rename("mem-note-broken", "mem-note-fixed")
    (group,) = vault.consolidation_groups()
    vault.consolidate(group.suggested_into, group.notes)
    vault.rename("mem-entity-core", "mem-entity-database")
    assert all(l.target == "mem-entity-database" for n in range(3) for l in vault.get(f"mem-note-n{n}").links)
    report = vault.repair()
    assert "notes/mem-note-broken.md" in report.repaired and "notes/mem-note-plain.md" in report.repaired
    vault.refresh()
    codes = {p.code for p in vault.problems if p.severity == "error"}
    assert codes == {"supersession-dangling", "link-dangling"} or codes == {"supersession-dangling"}


def test_consolidate_takes_the_merged_text_a_person_edited(sample_copy):
    vault = Vault.open(sample_copy)
    group = next(g for g in vault.consolidation_groups() if g.suggested_into)
    proposed = vault.merged_body(group.suggested_into, group.notes)
    assert all(f"[[{n}]]" in proposed for n in group.notes)
    edited = proposed.replace("## From", "## Folded from") + "\nA line the curator wrote.\n"
    vault.consolidate(group.suggested_into, group.notes, body=edited)
    assert vault.get(group.suggested_into).body == edited
    assert all(vault.get(n).status == "archived" for n in group.notes)


def _edited_then_changed_on_disk(sample_copy, agent_line: str):
    """A person edits the merged text; then an agent rewrites a line of the target's file."""
    vault = Vault.open(sample_copy)
    group = next(g for g in vault.consolidation_groups() if g.suggested_into)
    proposed = vault.merged_body(group.suggested_into, group.notes)
    edited = proposed.replace("About 1,900 API tests", "About 2,000 API tests") + "\nA line the curator wrote.\n"
    target = sample_copy / vault.get(group.suggested_into).path
    target.write_text(target.read_text().replace("Known flakiness (October-November 2026)", agent_line))
    vault.refresh()
    return vault, group, proposed, edited, target


def test_a_consolidation_edited_before_an_agent_wrote_to_the_target_keeps_both(sample_copy):
    vault, group, proposed, edited, target = _edited_then_changed_on_disk(
        sample_copy, "Known flakiness (October-December 2026)"
    )
    vault.consolidate(group.suggested_into, group.notes, body=edited, edited_from=proposed)
    body = vault.get(group.suggested_into).body
    assert "About 2,000 API tests" in body and body.endswith("\nA line the curator wrote.\n")  # the person's
    assert "Known flakiness (October-December 2026)" in body  # the agent's
    assert all(f"## From [[{n}]]" in body for n in group.notes)


def test_a_consolidation_edited_where_an_agent_also_wrote_is_refused(sample_copy):
    vault, group, proposed, edited, target = _edited_then_changed_on_disk(
        sample_copy, "Known flakiness (October-December 2026)"
    )
    clashing = edited.replace("Known flakiness (October-November 2026)", "Known flakiness, all fixed")
    before = target.read_bytes()
    with pytest.raises(RefusedError, match="changed on disk in the lines you edited"):
        vault.consolidate(group.suggested_into, group.notes, body=clashing, edited_from=proposed)
    assert target.read_bytes() == before


def test_index_regenerates_the_markers_of_every_index_document(sample_copy):
    """Not only the vault index: any index document with generated markers is kept up to date."""
    hub = sample_copy / "indexes" / "mem-index-infra.md"
    hub.write_text(hub.read_text() + "\n<!-- generated:start by-tag -->\nstale\n<!-- generated:end by-tag -->\n")
    vault = Vault.open(sample_copy)
    plan = vault.regenerate_index()
    assert "mem-index-infra" in plan.summary
    text = hub.read_text()
    assert "stale" not in text and "- **stripe**: " in text
    assert vault.regenerate_index().summary == "index: already up to date"
