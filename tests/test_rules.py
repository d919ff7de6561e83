"""One test per rule of SPEC §1: each broken shape is reported with its code, severity and file."""

from __future__ import annotations

import datetime as dt

import pytest

from vault_builders import VaultBuilder, doc_text
from workbench import Vault

TOMORROW = (dt.date.today() + dt.timedelta(days=1)).isoformat()


def codes(vault: Vault, path: str | None = None) -> set[tuple[str, str]]:
    return {(p.code, str(p.severity)) for p in vault.problems if path is None or p.path == path}


def good(builder: VaultBuilder) -> None:
    builder.add("mem-entity-core")


def test_a_clean_vault_has_no_problems(builder):
    builder.add("mem-entity-core")
    builder.add("mem-decision-use-sqlite", links="[{type: depends_on, target: mem-entity-core}]")
    vault = Vault.open(builder.root)
    assert vault.problems == []
    assert [d.id for d in vault.documents] == ["mem-decision-use-sqlite", "mem-entity-core"]


# (description, files to write, path of the expected problem, code, severity)
CASES = [
    (
        "missing field",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a").replace("project: demo\n", "")},
        "field-missing",
        "error",
    ),
    (
        "schema version",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a").replace("schema_version: v1", "schema_version: v2")},
        "schema-version",
        "error",
    ),
    (
        "bad id",
        {"entities/Mem_A.md": doc_text("mem-entity-a").replace("id: mem-entity-a", "id: Mem_A")},
        "id-syntax",
        "error",
    ),
    (
        "id and type disagree",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a").replace("id: mem-entity-a", "id: mem-note-a")},
        "id-type-mismatch",
        "error",
    ),
    ("file name", {"entities/other-name.md": doc_text("mem-entity-a")}, "filename-mismatch", "error"),
    ("folder", {"notes/mem-entity-a.md": doc_text("mem-entity-a")}, "folder-mismatch", "error"),
    (
        "type",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a").replace("type: entity", "type: widget")},
        "type-invalid",
        "error",
    ),
    ("status", {"entities/mem-entity-a.md": doc_text("mem-entity-a", status="live")}, "status-invalid", "error"),
    (
        "date format",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a", created="21/04/2026")},
        "date-format",
        "error",
    ),
    (
        "datetime is not a date",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a", created="2026-04-21T10:00:00")},
        "date-format",
        "error",
    ),
    (
        "date order",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a", created="2026-05-01", updated="2026-04-01")},
        "date-order",
        "error",
    ),
    ("future date", {"entities/mem-entity-a.md": doc_text("mem-entity-a", updated=TOMORROW)}, "date-future", "error"),
    ("tags", {"entities/mem-entity-a.md": doc_text("mem-entity-a", tags="core")}, "tags-invalid", "error"),
    (
        "links not a list",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a", links="mem-entity-b")},
        "links-invalid",
        "error",
    ),
    (
        "malformed link",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a", links="[mem-entity-b]")},
        "link-malformed",
        "error",
    ),
    (
        "link type",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a", links="[{type: likes, target: mem-entity-core}]")},
        "link-type-invalid",
        "error",
    ),
    (
        "duplicate link",
        {
            "entities/mem-entity-a.md": doc_text(
                "mem-entity-a",
                links="[{type: related_to, target: mem-entity-core}, {type: related_to, target: mem-entity-core}]",
            )
        },
        "link-duplicate",
        "error",
    ),
    (
        "dangling link",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a", links="[{type: related_to, target: mem-entity-ghost}]")},
        "link-dangling",
        "error",
    ),
    (
        "link out of the vault",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a", links="[{type: related_to, target: ../../etc/passwd}]")},
        "link-outside-vault",
        "error",
    ),
    (
        "absolute link",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a", links="[{type: related_to, target: /etc/passwd}]")},
        "link-outside-vault",
        "error",
    ),
    (
        "self link",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a", links="[{type: related_to, target: mem-entity-a}]")},
        "link-self",
        "error",
    ),
    (
        "provenance source",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a").replace("source: manual", "source: gpt")},
        "provenance-source-invalid",
        "error",
    ),
    (
        "provenance confidence",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a").replace("confidence: high", "confidence: sure")},
        "provenance-confidence-invalid",
        "error",
    ),
    (
        "provenance shape",
        {
            "entities/mem-entity-a.md": doc_text("mem-entity-a").replace(
                "provenance:\n  source: manual\n  confidence: high\n", "provenance: manual\n"
            )
        },
        "provenance-invalid",
        "error",
    ),
    (
        "empty title",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a").replace("title: Title of mem-entity-a", "title: ''")},
        "title-invalid",
        "error",
    ),
    (
        "execution state",
        {"tasks/mem-task-a.md": doc_text("mem-task-a", extra="execution_state: doing\n")},
        "execution-state-invalid",
        "error",
    ),
    ("execution state missing", {"tasks/mem-task-a.md": doc_text("mem-task-a")}, "execution-state-missing", "warning"),
    (
        "superseded without successor",
        {"decisions/mem-decision-a.md": doc_text("mem-decision-a", status="superseded")},
        "superseded-without-successor",
        "error",
    ),
    (
        "active with a successor",
        {
            "decisions/mem-decision-a.md": doc_text("mem-decision-a", superseded_by="[mem-decision-b]"),
            "decisions/mem-decision-b.md": doc_text(
                "mem-decision-b", supersedes="[mem-decision-a]", links="[{type: supersedes, target: mem-decision-a}]"
            ),
        },
        "active-with-successor",
        "error",
    ),
    (
        "one-sided supersession",
        {
            "decisions/mem-decision-a.md": doc_text("mem-decision-a"),
            "decisions/mem-decision-b.md": doc_text(
                "mem-decision-b", supersedes="[mem-decision-a]", links="[{type: supersedes, target: mem-decision-a}]"
            ),
        },
        "supersession-one-sided",
        "error",
    ),
    (
        "supersedes link disagrees",
        {
            "decisions/mem-decision-a.md": doc_text(
                "mem-decision-a", status="superseded", superseded_by="[mem-decision-b]"
            ),
            "decisions/mem-decision-b.md": doc_text("mem-decision-b", supersedes="[mem-decision-a]"),
        },
        "supersedes-link-mismatch",
        "error",
    ),
    (
        "supersession cycle",
        {
            "decisions/mem-decision-a.md": doc_text(
                "mem-decision-a",
                status="superseded",
                supersedes="[mem-decision-b]",
                superseded_by="[mem-decision-b]",
                links="[{type: supersedes, target: mem-decision-b}]",
            ),
            "decisions/mem-decision-b.md": doc_text(
                "mem-decision-b",
                status="superseded",
                supersedes="[mem-decision-a]",
                superseded_by="[mem-decision-a]",
                links="[{type: supersedes, target: mem-decision-a}]",
            ),
        },
        "supersession-cycle",
        "error",
    ),
    (
        "supersedes an unknown id",
        {
            "decisions/mem-decision-a.md": doc_text(
                "mem-decision-a",
                supersedes="[mem-decision-gone]",
                links="[{type: supersedes, target: mem-decision-gone}]",
            )
        },
        "supersession-dangling",
        "error",
    ),
    (
        "link to a superseded document",
        {
            "decisions/mem-decision-a.md": doc_text(
                "mem-decision-a", status="superseded", superseded_by="[mem-decision-b]"
            ),
            "decisions/mem-decision-b.md": doc_text(
                "mem-decision-b", supersedes="[mem-decision-a]", links="[{type: supersedes, target: mem-decision-a}]"
            ),
            "notes/mem-note-c.md": doc_text("mem-note-c", links="[{type: related_to, target: mem-decision-a}]"),
        },
        "link-to-superseded",
        "warning",
    ),
    (
        "private key",
        {"notes/mem-note-a.md": doc_text("mem-note-a", body="Key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n")},
        "credential",
        "warning",
    ),
    (
        "aws key",
        {"notes/mem-note-a.md": doc_text("mem-note-a", body="Use AKIAIOSFODNN7EXAMPLE for uploads\n")},
        "credential",
        "warning",
    ),
    (
        "password assignment",
        {"notes/mem-note-a.md": doc_text("mem-note-a", body="db password: hunter2secret99\n")},
        "credential",
        "warning",
    ),
    (
        "duplicate id",
        {"entities/mem-entity-a.md": doc_text("mem-entity-a"), "notes/mem-entity-a.md": doc_text("mem-entity-a")},
        "id-duplicate",
        "error",
    ),
    ("no frontmatter", {"notes/mem-note-a.md": "# Just a heading\n\ntext\n"}, "frontmatter-missing", "error"),
    (
        "unterminated frontmatter",
        {"notes/mem-note-a.md": "---\nid: mem-note-a\n\nbody\n"},
        "frontmatter-unterminated",
        "error",
    ),
    ("yaml syntax", {"notes/mem-note-a.md": "---\nid: [mem-note-a\n---\nbody\n"}, "yaml-syntax", "error"),
    (
        "duplicate key",
        {"notes/mem-note-a.md": doc_text("mem-note-a").replace("project: demo\n", "project: demo\nproject: other\n")},
        "yaml-duplicate-key",
        "error",
    ),
    ("not a mapping", {"notes/mem-note-a.md": "---\n- a\n- b\n---\nbody\n"}, "frontmatter-not-mapping", "error"),
    (
        "conflict markers",
        {"notes/mem-note-a.md": doc_text("mem-note-a", body="<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> branch\n")},
        "conflict-markers",
        "error",
    ),
    (
        "invalid utf-8",
        {"notes/mem-note-a.md": doc_text("mem-note-a").encode() + b"\xff\xfe bad\n"},
        "encoding-invalid-utf8",
        "error",
    ),
    ("nul bytes", {"notes/mem-note-a.md": doc_text("mem-note-a", body="a\x00b\n")}, "nul-bytes", "error"),
]


@pytest.mark.parametrize("files, code, severity", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_rule_is_reported(builder, files, code, severity):
    good(builder)
    for relative, text in files.items():
        builder.raw(relative, text)
    vault = Vault.open(builder.root)
    found = [p for p in vault.problems if p.code == code]
    assert found, f"expected {code}; got {sorted(codes(vault))}"
    problem = found[0]
    assert str(problem.severity) == severity
    assert problem.path in files
    assert problem.message and "\n" not in problem.message


def test_problem_lines_point_at_the_key(builder):
    builder.add("mem-entity-a", status="live")
    vault = Vault.open(builder.root)
    (problem,) = [p for p in vault.problems if p.code == "status-invalid"]
    assert problem.line == 6  # the opening '---' is line 1
    assert "live" in problem.message and "draft" in problem.message


def test_unknown_keys_are_fine(builder):
    builder.add("mem-entity-a", extra="reviewed_by: Olena\ncustom:\n  nested: [1, 2]\n")
    assert Vault.open(builder.root).problems == []


def test_invalid_documents_are_visible_but_not_documents(builder):
    good(builder)
    builder.add("mem-entity-broken", status="live")
    vault = Vault.open(builder.root)
    assert [d.id for d in vault.documents] == ["mem-entity-core"]
    assert len(vault) == 2
    assert not vault.get("mem-entity-broken").valid


def test_a_link_to_an_invalid_document_is_not_dangling(builder):
    builder.add("mem-entity-broken", status="live")
    builder.add("mem-entity-a", links="[{type: related_to, target: mem-entity-broken}]")
    vault = Vault.open(builder.root)
    assert "link-dangling" not in {p.code for p in vault.problems}


def test_hidden_files_debris_and_symlinks_are_never_documents(builder, tmp_path):
    good(builder)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "mem-entity-secret.md").write_text(doc_text("mem-entity-secret"))
    builder.raw("entities/.mem-entity-hidden.md", doc_text("mem-entity-hidden"))
    builder.raw("entities/mem-entity-core.md~", "backup")
    builder.raw("entities/.#mem-entity-core.md", "lock")
    builder.raw("entities/mem-entity-core.md.swp", "swap")
    (builder.root / "entities" / "mem-entity-secret.md").symlink_to(outside / "mem-entity-secret.md")
    (builder.root / "notes").mkdir()
    (builder.root / "notes" / "linked").symlink_to(outside, target_is_directory=True)
    builder.raw("log.md", "# Log\n")
    vault = Vault.open(builder.root)
    assert [d.id for d in vault.documents] == ["mem-entity-core"]
    assert len(vault) == 1
    skipped = {p.path for p in vault.problems if p.code == "symlink-ignored"}
    assert skipped == {"entities/mem-entity-secret.md", "notes/linked"}


def test_memory_child_is_the_root(tmp_path):
    builder = VaultBuilder(tmp_path / "project" / "memory")
    builder.add("mem-entity-core")
    vault = Vault.open(tmp_path / "project")
    assert vault.root == (tmp_path / "project" / "memory").resolve()
    assert [d.id for d in vault.documents] == ["mem-entity-core"]


def test_one_bad_file_does_not_stop_the_others(builder):
    good(builder)
    builder.raw(
        "notes/mem-note-bomb.md",
        "---\na: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n---\n",
    )
    builder.raw("notes/mem-note-deep.md", "---\nx: " + "[" * 5000 + "\n---\n")
    builder.raw("notes/mem-note-bad.md", b"---\nid: \xff\n---\n")
    vault = Vault.open(builder.root)
    assert [d.id for d in vault.documents] == ["mem-entity-core"]
    found = {p.code for p in vault.problems}
    assert {"yaml-too-complex", "yaml-too-deep", "encoding-invalid-utf8"} <= found


# -- rules the seeds state -------------------------------------------------------------------------


def test_a_decision_is_superseded_by_a_decision_only(builder):
    from workbench.core.vocabulary.model import RefusedError

    builder.add("mem-decision-old")
    builder.add("mem-entity-thing")
    vault = Vault.open(builder.root)
    with pytest.raises(RefusedError, match="a decision is superseded by a decision"):
        vault.supersede("mem-decision-old", "mem-entity-thing")
    assert vault.get("mem-decision-old").status == "active"


def test_a_superseded_documents_text_is_edited_only_with_an_override(builder):
    import dataclasses

    from workbench.core.vocabulary.model import RefusedError

    builder.add("mem-decision-old", status="superseded", superseded_by="[mem-decision-new]")
    builder.add(
        "mem-decision-new", supersedes="[mem-decision-old]", links="[{type: supersedes, target: mem-decision-old}]"
    )
    vault = Vault.open(builder.root)
    old = vault.get("mem-decision-old")
    with pytest.raises(RefusedError, match="superseded by mem-decision-new"):
        vault.save(dataclasses.replace(old, body="Rewritten history.\n"))
    assert vault.get("mem-decision-old").body == old.body
    vault.save(dataclasses.replace(old, body="Corrected a typo.\n"), override=True)
    assert vault.get("mem-decision-old").body == "Corrected a typo.\n"
    vault.set_status("mem-decision-old", "archived")  # its lifecycle moves without an override


def test_conflicts_never_suggest_a_command_naming_a_missing_document(builder):
    builder.add("mem-decision-a", superseded_by="[mem-decision-gone]")
    builder.add("mem-decision-b", status="superseded", superseded_by="[mem-decision-gone, mem-decision-also-gone]")
    vault = Vault.open(builder.root)
    known = set(vault.ids())
    for conflict in vault.conflicts():
        for resolution in conflict.resolutions:
            named = {word for word in resolution.command.split() if word.startswith("mem-")}
            assert named <= known, (conflict.kind, resolution.command)
